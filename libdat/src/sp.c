/* Service points: PSPs (many requests) and RSPs (one reserved EP). */
#include <stdlib.h>

#include "dat_internal.h"

static DAT_RETURN cr_evd(DAT_EVD_HANDLE h, struct dat_ia *ia, struct dat_evd **out)
{
    struct dat_evd *e = (struct dat_evd *)dat_handle_lookup(h, DAT_HANDLE_TYPE_EVD);
    if (!e || e->hdr.ia != ia || !(e->flags & DAT_EVD_CR_FLAG))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR);
    *out = e;
    return DAT_SUCCESS;
}

static DAT_RETURN psp_make(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL qual, bool any, DAT_CONN_QUAL *bound,
                           DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS psp_flags, DAT_PSP_HANDLE *psp_handle)
{
    struct dat_ia *ia = (struct dat_ia *)dat_handle_lookup(ia_handle, DAT_HANDLE_TYPE_IA);
    if (!ia)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    if (any && !bound)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    struct dat_evd *evd;
    DAT_RETURN r = cr_evd(evd_handle, ia, &evd);
    if (r != DAT_SUCCESS)
        return r;
    if (psp_flags != DAT_PSP_CONSUMER_FLAG && psp_flags != DAT_PSP_PROVIDER_FLAG)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
    /* ep_creator is DAT_PSP_CREATES_EP_NEVER. */
    if (psp_flags == DAT_PSP_PROVIDER_FLAG)
        return DAT_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
    if (!psp_handle)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    struct dat_psp *psp = dat_zalloc(sizeof(*psp));
    if (!psp)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    r = dat_cm_listen(ia, qual, any, &psp->conn_qual, &psp->fd);
    if (r != DAT_SUCCESS) {
        free(psp);
        return r;
    }
    if (!any)
        psp->conn_qual = qual;
    if (dat_handle_new(&psp->hdr, DAT_HANDLE_TYPE_PSP, ia) == DAT_HANDLE_NULL) {
        dat_cm_unlisten(psp->fd);
        free(psp);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    psp->evd = evd;
    psp->flags = psp_flags;
    evd->refs++;
    dat_ia_link(ia, &psp->hdr);
    if (any)
        *bound = psp->conn_qual;
    *psp_handle = DAT_H(psp);
    return DAT_SUCCESS;
}

DAT_RETURN dat_psp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual, DAT_EVD_HANDLE evd_handle,
                          DAT_PSP_FLAGS psp_flags, DAT_PSP_HANDLE *psp_handle)
{
    DAT_API_LOCK();
    return psp_make(ia_handle, conn_qual, false, NULL, evd_handle, psp_flags, psp_handle);
}

DAT_RETURN dat_psp_create_any(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL *conn_qual, DAT_EVD_HANDLE evd_handle,
                              DAT_PSP_FLAGS psp_flags, DAT_PSP_HANDLE *psp_handle)
{
    DAT_API_LOCK();
    return psp_make(ia_handle, 0, true, conn_qual, evd_handle, psp_flags, psp_handle);
}

DAT_RETURN dat_psp_query(DAT_PSP_HANDLE psp_handle, DAT_PSP_PARAM_MASK psp_param_mask, DAT_PSP_PARAM *psp_param)
{
    DAT_API_LOCK();
    struct dat_psp *psp = (struct dat_psp *)dat_handle_lookup(psp_handle, DAT_HANDLE_TYPE_PSP);
    if (!psp)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP);
    if (psp_param_mask & ~DAT_PSP_FIELD_ALL)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (!psp_param)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    psp_param->ia_handle = DAT_H(psp->hdr.ia);
    psp_param->conn_qual = psp->conn_qual;
    psp_param->evd_handle = DAT_H(psp->evd);
    psp_param->psp_flags = psp->flags;
    return DAT_SUCCESS;
}

/* Requests already delivered stay valid: the consumer may still answer them. */
void dat_psp_destroy(struct dat_psp *psp)
{
    dat_cm_unlisten(psp->fd);
    psp->evd->refs--;
    dat_ia_unlink(&psp->hdr);
    dat_handle_release(&psp->hdr);
    free(psp);
}

DAT_RETURN dat_psp_free(DAT_PSP_HANDLE psp_handle)
{
    DAT_API_LOCK();
    struct dat_psp *psp = (struct dat_psp *)dat_handle_lookup(psp_handle, DAT_HANDLE_TYPE_PSP);
    if (!psp)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP);
    dat_psp_destroy(psp);
    return DAT_SUCCESS;
}

DAT_RETURN dat_rsp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual, DAT_EP_HANDLE ep_handle,
                          DAT_EVD_HANDLE evd_handle, DAT_RSP_HANDLE *rsp_handle)
{
    DAT_API_LOCK();
    struct dat_ia *ia = (struct dat_ia *)dat_handle_lookup(ia_handle, DAT_HANDLE_TYPE_IA);
    if (!ia)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    struct dat_ep *ep = (struct dat_ep *)dat_handle_lookup(ep_handle, DAT_HANDLE_TYPE_EP);
    if (!ep || ep->hdr.ia != ia)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    struct dat_evd *evd;
    DAT_RETURN r = cr_evd(evd_handle, ia, &evd);
    if (r != DAT_SUCCESS)
        return r;
    if (!rsp_handle)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    if (ep->state != DAT_EP_STATE_UNCONNECTED)
        return dat_ep_state_error(ep->state);
    struct dat_rsp *rsp = dat_zalloc(sizeof(*rsp));
    if (!rsp)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    r = dat_cm_listen(ia, conn_qual, false, NULL, &rsp->fd);
    if (r != DAT_SUCCESS) {
        free(rsp);
        return r;
    }
    if (dat_handle_new(&rsp->hdr, DAT_HANDLE_TYPE_RSP, ia) == DAT_HANDLE_NULL) {
        dat_cm_unlisten(rsp->fd);
        free(rsp);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    rsp->conn_qual = conn_qual;
    rsp->evd = evd;
    rsp->ep = ep;
    evd->refs++;
    ep->rsp = rsp;
    ep->state = DAT_EP_STATE_RESERVED;
    dat_ia_link(ia, &rsp->hdr);
    *rsp_handle = DAT_H(rsp);
    return DAT_SUCCESS;
}

DAT_RETURN dat_rsp_query(DAT_RSP_HANDLE rsp_handle, DAT_RSP_PARAM_MASK rsp_param_mask, DAT_RSP_PARAM *rsp_param)
{
    DAT_API_LOCK();
    struct dat_rsp *rsp = (struct dat_rsp *)dat_handle_lookup(rsp_handle, DAT_HANDLE_TYPE_RSP);
    if (!rsp)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RSP);
    if (rsp_param_mask & ~DAT_RSP_FIELD_ALL)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (!rsp_param)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    rsp_param->ia_handle = DAT_H(rsp->hdr.ia);
    rsp_param->conn_qual = rsp->conn_qual;
    rsp_param->evd_handle = DAT_H(rsp->evd);
    rsp_param->ep_handle = rsp->ep ? DAT_H(rsp->ep) : DAT_HANDLE_NULL;
    return DAT_SUCCESS;
}

void dat_rsp_destroy(struct dat_rsp *rsp)
{
    dat_cm_unlisten(rsp->fd);
    rsp->evd->refs--;
    if (rsp->ep) {
        /* A still reserved EP is free again. */
        if (rsp->ep->state == DAT_EP_STATE_RESERVED)
            rsp->ep->state = DAT_EP_STATE_UNCONNECTED;
        rsp->ep->rsp = NULL;
    }
    dat_ia_unlink(&rsp->hdr);
    dat_handle_release(&rsp->hdr);
    free(rsp);
}

DAT_RETURN dat_rsp_free(DAT_RSP_HANDLE rsp_handle)
{
    DAT_API_LOCK();
    struct dat_rsp *rsp = (struct dat_rsp *)dat_handle_lookup(rsp_handle, DAT_HANDLE_TYPE_RSP);
    if (!rsp)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RSP);
    dat_rsp_destroy(rsp);
    return DAT_SUCCESS;
}
