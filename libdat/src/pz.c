/* Protection zones: one driver PZ each. */
#include <stdlib.h>

#include "dat_internal.h"

DAT_RETURN dat_pz_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE *pz_handle)
{
    DAT_API_LOCK();
    struct dat_ia *ia = (struct dat_ia *)dat_handle_lookup(ia_handle, DAT_HANDLE_TYPE_IA);
    if (!ia)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    if (!pz_handle)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    struct dat_pz *pz = dat_zalloc(sizeof(*pz));
    if (!pz)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    if (rnic_pz_alloc(ia->dev->rdev, &pz->pz) != RNIC_OK) {
        free(pz);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_PROTECTION_DOMAIN);
    }
    if (dat_handle_new(&pz->hdr, DAT_HANDLE_TYPE_PZ, ia) == DAT_HANDLE_NULL) {
        rnic_pz_free(ia->dev->rdev, pz->pz);
        free(pz);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    dat_ia_link(ia, &pz->hdr);
    *pz_handle = DAT_H(pz);
    return DAT_SUCCESS;
}

DAT_RETURN dat_pz_query(DAT_PZ_HANDLE pz_handle, DAT_PZ_PARAM_MASK pz_param_mask, DAT_PZ_PARAM *pz_param)
{
    DAT_API_LOCK();
    struct dat_pz *pz = (struct dat_pz *)dat_handle_lookup(pz_handle, DAT_HANDLE_TYPE_PZ);
    if (!pz)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
    if (pz_param_mask & ~DAT_PZ_FIELD_ALL)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (!pz_param)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    pz_param->ia_handle = DAT_H(pz->hdr.ia);
    return DAT_SUCCESS;
}

void dat_pz_destroy(struct dat_pz *pz)
{
    rnic_pz_free(pz->hdr.ia->dev->rdev, pz->pz);
    dat_ia_unlink(&pz->hdr);
    dat_handle_release(&pz->hdr);
    free(pz);
}

DAT_RETURN dat_pz_free(DAT_PZ_HANDLE pz_handle)
{
    DAT_API_LOCK();
    struct dat_pz *pz = (struct dat_pz *)dat_handle_lookup(pz_handle, DAT_HANDLE_TYPE_PZ);
    if (!pz)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
    if (pz->refs > 0)
        return DAT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE);
    dat_pz_destroy(pz);
    return DAT_SUCCESS;
}
