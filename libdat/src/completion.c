/*
 * The completion path: what the NIC completed, as DAT events. A CQ is
 * drained in batches; each CQE is matched to its EP (by QP number) and to
 * the request or receive it ends (by sequence number, the WQE's wr_id),
 * its status is mapped to the DAT status, and the DTO or RMR-bind event is
 * built and queued on the EVD that owns the CQ.
 *
 * This is the one place that reads CQEs. The EVD (evd_queue.c) only queues
 * events; the EP only keeps, per posted DTO, what its event needs.
 */
#include <string.h>

#include "dat_internal.h"

/* CQEs taken from the ring at a time. */
#define DRAIN_BATCH 8

static DAT_DTO_COMPLETION_STATUS status_from_cqe(uint8_t status)
{
    switch (status) {
    case RNIC_CQE_STATUS_SUCCESS: return DAT_DTO_SUCCESS;
    case RNIC_CQE_STATUS_FLUSHED: return DAT_DTO_ERR_FLUSHED;
    case RNIC_CQE_STATUS_LOCAL_LENGTH: return DAT_DTO_ERR_LOCAL_LENGTH;
    case RNIC_CQE_STATUS_LOCAL_QP: return DAT_DTO_ERR_LOCAL_EP;
    case RNIC_CQE_STATUS_LOCAL_PROTECTION: return DAT_DTO_ERR_LOCAL_PROTECTION;
    case RNIC_CQE_STATUS_BAD_RESPONSE: return DAT_DTO_ERR_BAD_RESPONSE;
    case RNIC_CQE_STATUS_REMOTE_ACCESS: return DAT_DTO_ERR_REMOTE_ACCESS;
    case RNIC_CQE_STATUS_REMOTE_OPERATION: return DAT_DTO_ERR_REMOTE_RESPONDER;
    case RNIC_CQE_STATUS_TRANSPORT: return DAT_DTO_ERR_TRANSPORT;
    case RNIC_CQE_STATUS_RNR: return DAT_DTO_ERR_RECEIVER_NOT_READY;
    case RNIC_CQE_STATUS_BAD_WQE: return DAT_DTO_ERR_LOCAL_EP;
    case RNIC_CQE_STATUS_DMA_FAULT: return DAT_DTO_ERR_LOCAL_PROTECTION;
    case RNIC_CQE_STATUS_BIND_FAILED: return DAT_RMR_OPERATION_FAILED;
    default: return DAT_DTO_ERR_TRANSPORT;
    }
}

static void complete_one(struct dat_ep *ep, struct dat_evd *evd, const struct rnic_wc *wc)
{
    DAT_EVENT ev;
    DAT_DTO_COMPLETION_STATUS st = status_from_cqe(wc->status);
    bool deliver, notify;
    DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL;
    if (wc->is_recv) {
        if (wc->wr_id < ep->rq_tail || wc->wr_id >= ep->rq_head)
            return;   /* not ours (a stale CQE of a rebuilt QP) */
        const struct dat_recv_desc *d = &ep->rq[wc->wr_id & ep->rq_mask];
        ep->rq_tail = wc->wr_id + 1;
        if (DAT_UNLIKELY(ep->noncoherent))
            dat_dma_sync_sges(ep->hdr.ia->dev, d->sge, d->nsge, RNIC_SYNC_FOR_CPU);
        ev.event_data.dto_completion_event_data.user_cookie = d->cookie;
        ev.event_data.dto_completion_event_data.transfered_length = wc->byte_len;
        deliver = d->deliver;
        notify = d->notify;
    } else {
        if (wc->wr_id < ep->sq_tail || wc->wr_id >= ep->sq_head)
            return;
        /* Every earlier DTO is done too: those without a CQE succeeded
         * with their completion suppressed. */
        const struct dat_req_desc *d = &ep->sq[wc->wr_id & ep->sq_mask];
        if (DAT_UNLIKELY(ep->noncoherent))
            dat_dto_reaped(ep, ep->sq_tail, wc->wr_id);
        ep->sq_tail = wc->wr_id + 1;
        ev.event_data.dto_completion_event_data.user_cookie = d->cookie;
        ev.event_data.dto_completion_event_data.transfered_length = st == DAT_DTO_SUCCESS ? d->len : 0;
        deliver = d->deliver;
        notify = d->notify;
        rmr = d->rmr;
    }
    if (rmr != DAT_HANDLE_NULL && st != DAT_DTO_SUCCESS)
        dat_rmr_bind_failed(rmr);
    if (st != DAT_DTO_SUCCESS) {
        deliver = notify = true;   /* failures are always reported */
        if (st != DAT_DTO_ERR_FLUSHED &&
            (ep->state == DAT_EP_STATE_CONNECTED || ep->state == DAT_EP_STATE_DISCONNECT_PENDING)) {
            /* The QP is in error: the connection is broken for both peers. */
            dat_cm_send_disconnect(ep, true);
            dat_ep_conn_lost(ep, DAT_CONNECTION_EVENT_BROKEN);
        }
    }
    if (deliver && !ep->freeing && rmr != DAT_HANDLE_NULL) {
        DAT_RMR_COOKIE cookie = ev.event_data.dto_completion_event_data.user_cookie;
        memset(&ev, 0, sizeof(ev));
        ev.event_number = DAT_RMR_BIND_COMPLETION_EVENT;
        ev.event_data.rmr_completion_event_data.rmr_handle = rmr;
        ev.event_data.rmr_completion_event_data.user_cookie = cookie;
        ev.event_data.rmr_completion_event_data.status = st;
        dat_evd_push(evd, &ev, notify);
    } else if (deliver && !ep->freeing) {
        ev.event_number = DAT_DTO_COMPLETION_EVENT;
        ev.evd_handle = DAT_HANDLE_NULL;
        ev.event_data.dto_completion_event_data.ep_handle = DAT_H(ep);
        ev.event_data.dto_completion_event_data.status = st;
        dat_evd_push(evd, &ev, notify);
    }
    if (ep->graceful)
        dat_ep_check_graceful(ep);
}

void dat_cq_drain(struct dat_evd *evd)
{
    struct dat_dev *dev = evd->hdr.ia->dev;
    struct rnic_wc wc[DRAIN_BATCH];
    int n;
    do {
        n = rnic_cq_take(evd->cq, wc, DRAIN_BATCH);
        for (int i = 0; i < n; i++) {
            struct dat_ep *ep = wc[i].qpn < dev->info.num_qp ? dev->ep_by_qpn[wc[i].qpn] : NULL;
            if (ep)
                complete_one(ep, evd, &wc[i]);
        }
    } while (n == DRAIN_BATCH);
}
