/*
 * Shared receive queues are not supported (srq_supported is DAT_FALSE):
 * no SRQ can be created, so every SRQ handle is invalid.
 */
#include "dat_internal.h"

DAT_RETURN dat_srq_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle, DAT_SRQ_ATTR *srq_attr,
                          DAT_SRQ_HANDLE *srq_handle)
{
    DAT_API_LOCK();
    (void)srq_attr;
    (void)srq_handle;
    if (!dat_handle_lookup(ia_handle, DAT_HANDLE_TYPE_IA))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    if (!dat_handle_lookup(pz_handle, DAT_HANDLE_TYPE_PZ))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
    return DAT_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
}

#define NO_SRQ DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ)

DAT_RETURN dat_srq_free(DAT_SRQ_HANDLE srq_handle)
{
    DAT_API_LOCK();
    (void)srq_handle;
    return NO_SRQ;
}

DAT_RETURN dat_srq_post_recv(DAT_SRQ_HANDLE srq_handle, DAT_COUNT num_segments, DAT_LMR_TRIPLET *local_iov,
                             DAT_DTO_COOKIE user_cookie)
{
    DAT_API_LOCK();
    (void)srq_handle;
    (void)num_segments;
    (void)local_iov;
    (void)user_cookie;
    return NO_SRQ;
}

DAT_RETURN dat_srq_query(DAT_SRQ_HANDLE srq_handle, DAT_SRQ_PARAM_MASK srq_param_mask, DAT_SRQ_PARAM *srq_param)
{
    DAT_API_LOCK();
    (void)srq_handle;
    (void)srq_param_mask;
    (void)srq_param;
    return NO_SRQ;
}

DAT_RETURN dat_srq_resize(DAT_SRQ_HANDLE srq_handle, DAT_COUNT srq_max_recv_dto)
{
    DAT_API_LOCK();
    (void)srq_handle;
    (void)srq_max_recv_dto;
    return NO_SRQ;
}

DAT_RETURN dat_srq_set_lw(DAT_SRQ_HANDLE srq_handle, DAT_COUNT low_watermark)
{
    DAT_API_LOCK();
    (void)srq_handle;
    (void)low_watermark;
    return NO_SRQ;
}
