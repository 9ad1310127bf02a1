/*
 * The completion path: what the NIC completed, as DAT events. A CQ is
 * drained in batches; each CQE is matched to its EP (by QP number) and to
 * the request or receive it ends (by sequence number, the WQE's wr_id),
 * its status is mapped to the DAT status, and the DTO or RMR-bind event is
 * built and queued on the EVD that owns the CQ.
 *
 * This is the one place that reads CQEs. The EVD (evd_queue.c) only queues
 * events; the EP only keeps, per posted DTO, what its event needs.
 *
 * What a completion implies beyond its event is not done here: it is left
 * as work for the progress engine (progress.c), which does it after the
 * drain. An error completion breaks the connection (BROKEN for both
 * peers); a failed bind leaves the RMR's window as the NIC last committed
 * it, to be read back; the last request of a graceful disconnect lets the
 * disconnect finish. The events keep the order in which they always came:
 * the work a CQE implies comes before its own event (the connection's
 * BROKEN before the error completion) or after it (the DISCONNECTED of a
 * graceful disconnect), and the events of the CQEs behind it in the batch
 * are held behind the work. The drain stops after that batch; the engine
 * does the work (queuing the held events in turn) and drains again.
 */
#include <stdio.h>
#include <string.h>

#include "dat_internal.h"
#include "rnic_names.h"

/* CQEs taken from the ring at a time. */
#define DRAIN_BATCH 8

/* ---------------------------------------------------------------- work */

/* The work left by the CQEs of one batch and the events held behind it, in
 * the order they are to be done. A drain begins only with none left (the
 * engine takes it all before draining again), and a CQE leaves at most a
 * window read-back, a broken connection, its event and a graceful check. */
enum { HELD_EVENT = -1 };
struct held {
    int kind;                            /* enum dat_work_kind, or HELD_EVENT */
    DAT_HANDLE handle;                   /* the RMR or EP; an event's EP */
    struct dat_evd *evd;                 /* an event's EVD */
    bool notify;
    DAT_EVENT ev;
};
#define WORK_MAX (4u * DRAIN_BATCH)
static struct held work[WORK_MAX];
static unsigned work_head, work_n;

static struct held *work_add(int kind, DAT_HANDLE h)
{
    struct held *w = &work[(work_head + work_n++) % WORK_MAX];
    w->kind = kind;
    w->handle = h;
    return w;
}

bool dat_work_take(struct dat_work *out)
{
    while (work_n > 0) {
        struct held w = work[work_head];
        work_head = (work_head + 1) % WORK_MAX;
        work_n--;
        if (w.kind != HELD_EVENT) {
            out->kind = (enum dat_work_kind)w.kind;
            out->handle = w.handle;
            return true;
        }
        /* Its EP is looked up again: one being freed (whose quiesce
         * drains) reports nothing. */
        const struct dat_ep *ep = (const struct dat_ep *)dat_handle_lookup(w.handle, DAT_HANDLE_TYPE_EP);
        if (ep && !ep->freeing)
            dat_evd_push(w.evd, &w.ev, w.notify);
    }
    return false;
}

/* Queues the event, or holds it behind work left earlier in the batch. */
static inline void queue_event(struct dat_ep *ep, struct dat_evd *evd, const DAT_EVENT *ev, bool notify)
{
    if (DAT_LIKELY(work_n == 0)) {
        dat_evd_push(evd, ev, notify);
        return;
    }
    struct held *w = work_add(HELD_EVENT, DAT_H(ep));
    w->evd = evd;
    w->notify = notify;
    w->ev = *ev;
}

/* ---------------------------------------------------------- completions */

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

/* Keeps the NIC's reason for a failed completion for the consumer
 * (dat_rnic_ep_last_error), and says it on stderr when asked to. A flush only
 * follows the failure that broke the QP and would hide it, so it is not kept. */
static void note_failure(struct dat_ep *ep, const struct rnic_wc *wc, DAT_UINT64 cookie)
{
    if (wc->status == RNIC_CQE_STATUS_FLUSHED)
        return;
    const char *status = rnic_cqe_status_name(wc->status);
    const char *verdict = rnic_pt_verdict_name(wc->verdict);
    ep->has_error = true;
    ep->last_error = (DAT_RNIC_ERROR_DETAIL){
        .user_cookie = cookie,
        .is_recv = wc->is_recv ? DAT_TRUE : DAT_FALSE,
        .nic_status = wc->status,
        .nic_status_name = status ? status : "UNKNOWN",
        .verdict = wc->verdict,
        .verdict_name = verdict ? verdict : "UNKNOWN",
        .check_key = wc->check_key,
    };
    if (DAT_UNLIKELY(dat_log_errors())) {
        const DAT_RNIC_ERROR_DETAIL *e = &ep->last_error;
        if (e->verdict != RNIC_PT_VERDICT_OK)
            fprintf(stderr, "libdat: EP %p QP %u: %s cookie 0x%llx failed: %s, check %s refused key 0x%08x\n",
                    (void *)DAT_H(ep), ep->qpn, e->is_recv ? "receive" : "request",
                    (unsigned long long)cookie, e->nic_status_name, e->verdict_name, (unsigned)e->check_key);
        else
            fprintf(stderr, "libdat: EP %p QP %u: %s cookie 0x%llx failed: %s\n", (void *)DAT_H(ep), ep->qpn,
                    e->is_recv ? "receive" : "request", (unsigned long long)cookie, e->nic_status_name);
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
    if (st != DAT_DTO_SUCCESS) {
        deliver = notify = true;   /* failures are always reported */
        note_failure(ep, wc, ev.event_data.dto_completion_event_data.user_cookie.as_64);
        if (rmr != DAT_HANDLE_NULL)
            work_add(DAT_WORK_RMR_READBACK, rmr);
        /* The QP is in error: the connection is broken for both peers. */
        if (st != DAT_DTO_ERR_FLUSHED &&
            (ep->state == DAT_EP_STATE_CONNECTED || ep->state == DAT_EP_STATE_DISCONNECT_PENDING))
            work_add(DAT_WORK_EP_BROKEN, DAT_H(ep));
    }
    if (deliver && !ep->freeing && rmr != DAT_HANDLE_NULL) {
        DAT_RMR_COOKIE cookie = ev.event_data.dto_completion_event_data.user_cookie;
        memset(&ev, 0, sizeof(ev));
        ev.event_number = DAT_RMR_BIND_COMPLETION_EVENT;
        ev.event_data.rmr_completion_event_data.rmr_handle = rmr;
        ev.event_data.rmr_completion_event_data.user_cookie = cookie;
        ev.event_data.rmr_completion_event_data.status = st;
        queue_event(ep, evd, &ev, notify);
    } else if (deliver && !ep->freeing) {
        ev.event_number = DAT_DTO_COMPLETION_EVENT;
        ev.evd_handle = DAT_HANDLE_NULL;
        ev.event_data.dto_completion_event_data.ep_handle = DAT_H(ep);
        ev.event_data.dto_completion_event_data.status = st;
        queue_event(ep, evd, &ev, notify);
    }
    /* The last request of a graceful disconnect is done. */
    if (DAT_UNLIKELY(ep->graceful || ep->peer_gone) && (ep->sq_tail == ep->sq_head || ep->graceful_nop_due))
        work_add(DAT_WORK_EP_GRACEFUL, DAT_H(ep));
}

bool dat_cq_drain(struct dat_evd *evd)
{
    /* Work not done yet comes first. No drain starts inside the engine's
     * work (no consumer callback runs there: lock.c), so this only keeps
     * the order should one ever do. */
    if (DAT_UNLIKELY(work_n > 0))
        return true;
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
        if (n > 0 && DAT_UNLIKELY(rnic_cq_overflowed(evd->cq) > 0))
            dat_evd_overflow(evd);   /* the NIC dropped a CQE: a completion is lost */
        if (DAT_UNLIKELY(work_n > 0))
            return true;
    } while (n == DRAIN_BATCH);
    return false;
}
