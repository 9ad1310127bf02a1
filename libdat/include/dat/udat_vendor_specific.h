/*
 * Provider-specific additions to the user-level API.
 *
 * Why a transfer failed. A DTO or RMR-bind completion event carries one DAT
 * status for refusals the NIC tells apart: DAT_DTO_ERR_LOCAL_PROTECTION is
 * a wrong lkey, a missing right, a range out of bounds, a region of another
 * protection zone, or memory the host refused to the DMA engine alike. The
 * NIC's completion says which; dat_rnic_ep_last_error hands it to the
 * consumer. With DAT_RNIC_LOG_ERRORS=1 in the environment, libdat also
 * prints one line on stderr per failed completion, for programs that do not
 * know this call.
 */
#ifndef DAT_UDAT_VENDOR_SPECIFIC_H
#define DAT_UDAT_VENDOR_SPECIFIC_H

#include <dat/dat_vendor_specific.h>

typedef struct dat_rnic_error_detail {
    DAT_UINT64 user_cookie;        /* the failed DTO's cookie (as_64), or the bind's RMR cookie */
    DAT_BOOLEAN is_recv;           /* a receive, not a request */
    DAT_UINT32 nic_status;         /* the NIC's completion status code */
    const char *nic_status_name;   /* its name: "LOCAL_PROTECTION", "DMA_FAULT", "REMOTE_ACCESS", ... */
    DAT_UINT32 verdict;            /* the protection check that refused; 0 when none did */
    const char *verdict_name;      /* "OK" (none), "INDEX", "STATE", "KEY", "PZ", "RIGHTS", "BOUNDS", "TYPE" */
    DAT_UINT32 check_key;          /* the key that check refused: an lkey, or a bind's region or window */
} DAT_RNIC_ERROR_DETAIL;

/* The NIC's reason for the last failed completion reported on the EP (a
 * flush is no failure of its own and is not kept). The names and numbers are
 * the NIC's: the CQE_STATUS and PT_VERDICT tables of docs/register-map.md.
 * A remote refusal (DAT_DTO_ERR_REMOTE_ACCESS) has no verdict:
 * the wire carries only the NAK, and the responder's NIC traces its check.
 * Returns DAT_QUEUE_EMPTY when the EP has reported no failed completion. */
#ifdef __cplusplus
extern "C" {
#endif
extern DAT_RETURN dat_rnic_ep_last_error(DAT_EP_HANDLE ep_handle, DAT_RNIC_ERROR_DETAIL *detail);
#ifdef __cplusplus
}
#endif

#endif
