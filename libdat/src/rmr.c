/*
 * Remote memory regions (memory windows) arrive with issue 4: the calls
 * check their handles and report DAT_NOT_IMPLEMENTED. No RMR can exist
 * yet, so every RMR handle is invalid.
 */
#include "dat_internal.h"

DAT_RETURN dat_rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle)
{
    if (!dat_handle_lookup(pz_handle, DAT_HANDLE_TYPE_PZ))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
    if (!rmr_handle)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    return DAT_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
}

DAT_RETURN dat_rmr_query(DAT_RMR_HANDLE rmr_handle, DAT_RMR_PARAM_MASK rmr_param_mask, DAT_RMR_PARAM *rmr_param)
{
    (void)rmr_param_mask;
    (void)rmr_param;
    if (!dat_handle_lookup(rmr_handle, DAT_HANDLE_TYPE_RMR))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
    return DAT_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
}

DAT_RETURN dat_rmr_bind(DAT_RMR_HANDLE rmr_handle, const DAT_LMR_TRIPLET *lmr_triplet, DAT_MEM_PRIV_FLAGS mem_privileges,
                        DAT_EP_HANDLE ep_handle, DAT_RMR_COOKIE user_cookie, DAT_COMPLETION_FLAGS completion_flags,
                        DAT_RMR_CONTEXT *rmr_context)
{
    (void)lmr_triplet;
    (void)mem_privileges;
    (void)user_cookie;
    (void)completion_flags;
    (void)rmr_context;
    if (!dat_handle_lookup(rmr_handle, DAT_HANDLE_TYPE_RMR))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
    if (!dat_handle_lookup(ep_handle, DAT_HANDLE_TYPE_EP))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    return DAT_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
}

DAT_RETURN dat_rmr_free(DAT_RMR_HANDLE rmr_handle)
{
    if (!dat_handle_lookup(rmr_handle, DAT_HANDLE_TYPE_RMR))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
    return DAT_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
}
