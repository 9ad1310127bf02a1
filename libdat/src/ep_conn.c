/*
 * An EP's connection, as the EP sees it: the state errors the calls
 * report, the connection events on its connect EVD, the loss of the
 * connection (QP to error, DISCONNECTED, the event), and disconnecting:
 * abrupt at once, graceful once the request queue is idle (or its limit
 * passed), and broken by an error completion (work the completion path
 * leaves for the progress engine).
 *
 * The connection manager (cm_*.c) sets connections up and calls in here
 * when one is established or lost; the messages that tell the peer (DISC,
 * BROKEN) are sent through the CM's connection (cm_conn.c).
 */
#include <string.h>

#include "dat_internal.h"

/* How long a graceful disconnect (ours, or the peer's with our requests in
 * flight) waits for the request queue to drain: 1 s of NIC time. The queue
 * does drain unless a frame was lost (the link does not retransmit yet);
 * waiting costs nothing then, since idle NIC time is skipped. */
#define GRACEFUL_LIMIT_US 1000000u

/* How long, after the peer's library said it broke the connection, our
 * requests in flight may still complete: its NIC sent its answer (a NAK)
 * before its library learned of the error, so the answer is on the link
 * and comes unless the link lost it; waiting ends as soon as it does. Not
 * a few link crossings (once 200 us) but as long as a graceful disconnect:
 * free-running, an idle NIC's time is the wall clock, and a loaded host
 * can leave the simulation thread that would take the answer off the link
 * without a CPU for milliseconds (processes_send_too_large failed so in
 * CI). In lockstep the wait is skipped idle time and costs nothing. */
#define PEER_BROKE_DRAIN_US GRACEFUL_LIMIT_US

/* ---------------------------------------------------------------- states */

/* The error a call reports for an EP in a state it does not accept. */
DAT_RETURN dat_ep_state_error(DAT_EP_STATE s)
{
    static const DAT_RETURN_SUBTYPE sub[] = {
        [DAT_EP_STATE_UNCONNECTED] = DAT_INVALID_STATE_EP_UNCONNECTED,
        [DAT_EP_STATE_UNCONFIGURED_UNCONNECTED] = DAT_INVALID_STATE_EP_UNCONFIGURED,
        [DAT_EP_STATE_RESERVED] = DAT_INVALID_STATE_EP_RESERVED,
        [DAT_EP_STATE_UNCONFIGURED_RESERVED] = DAT_INVALID_STATE_EP_UNCONFRESERVED,
        [DAT_EP_STATE_PASSIVE_CONNECTION_PENDING] = DAT_INVALID_STATE_EP_PASSCONNPENDING,
        [DAT_EP_STATE_UNCONFIGURED_PASSIVE] = DAT_INVALID_STATE_EP_UNCONFPASSIVE,
        [DAT_EP_STATE_ACTIVE_CONNECTION_PENDING] = DAT_INVALID_STATE_EP_ACTCONNPENDING,
        [DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING] = DAT_INVALID_STATE_EP_TENTCONNPENDING,
        [DAT_EP_STATE_UNCONFIGURED_TENTATIVE] = DAT_INVALID_STATE_EP_UNCONFTENTATIVE,
        [DAT_EP_STATE_CONNECTED] = DAT_INVALID_STATE_EP_CONNECTED,
        [DAT_EP_STATE_DISCONNECT_PENDING] = DAT_INVALID_STATE_EP_DISCPENDING,
        [DAT_EP_STATE_DISCONNECTED] = DAT_INVALID_STATE_EP_DISCONNECTED,
        [DAT_EP_STATE_COMPLETION_PENDING] = DAT_INVALID_STATE_EP_COMPLPENDING,
    };
    return DAT_ERR(DAT_INVALID_STATE, (unsigned)s < sizeof(sub) / sizeof(sub[0]) ? sub[s] : DAT_NO_SUBTYPE);
}

/* ---------------------------------------------------------------- events */

void dat_ep_connection_event(struct dat_ep *ep, DAT_EVENT_NUMBER num)
{
    if (!ep->conn_evd)
        return;
    DAT_EVENT ev;
    memset(&ev, 0, sizeof(ev));
    ev.event_number = num;
    ev.event_data.connect_event_data.ep_handle = DAT_H(ep);
    ev.event_data.connect_event_data.private_data_size = ep->pdata_len;
    ev.event_data.connect_event_data.private_data = ep->pdata_len ? ep->pdata : NULL;
    dat_evd_push(ep->conn_evd, &ev, true);
}

void dat_ep_conn_lost(struct dat_ep *ep, DAT_EVENT_NUMBER event)
{
    if (ep->qp)
        rnic_qp_set_error(ep->qp);
    ep->state = DAT_EP_STATE_DISCONNECTED;
    ep->graceful = false;
    ep->graceful_nop_due = false;
    ep->peer_gone = 0;
    ep->pdata_len = 0;
    if (ep->conn) {
        dat_cm_conn_release(ep->conn);
        ep->conn = NULL;
    }
    dat_ep_connection_event(ep, event);
}

static void finish_disconnect(struct dat_ep *ep)
{
    dat_cm_send_disconnect(ep, false);
    dat_ep_conn_lost(ep, ep->peer_gone ? ep->peer_gone : DAT_CONNECTION_EVENT_DISCONNECTED);
}

/* Requests posted unsignalled leave no CQE, so the queue is only seen to
 * drain through a signalled request behind them: if the newest is not one,
 * a signalled NOP (it completes in order, after all of them) is posted,
 * now or, when the ring is full, once a completion frees a slot. */
static void post_drain_marker(struct dat_ep *ep)
{
    ep->graceful_nop_due = false;
    if (ep->sq_tail == ep->sq_head || ep->sq_last_signaled == ep->sq_head - 1)
        return;
    if (ep->sq_head - ep->sq_tail > ep->sq_mask) {
        ep->graceful_nop_due = true;
        return;
    }
    uint64_t seq = ep->sq_head;
    struct dat_req_desc *d = &ep->sq[seq & ep->sq_mask];
    memset(d, 0, sizeof(*d));
    d->rmr = DAT_HANDLE_NULL;   /* deliver and notify false: nobody asked for it */
    struct rnic_send_wr wr = {.wr_id = seq, .opcode = RNIC_OP_NOP, .flags = RNIC_WQE_FLAG_SIGNALED};
    if (ep->noncoherent)
        dat_dto_prepare(ep, seq, RNIC_OP_NOP, NULL, 0);
    if (rnic_post_send(ep->qp, &wr) != RNIC_OK) {
        ep->graceful_nop_due = true;
        return;
    }
    ep->sq_last_signaled = seq;
    ep->sq_head = seq + 1;
}

/* The EP waits for its request queue to drain before the connection ends:
 * after our graceful disconnect (DISCONNECT_PENDING), or after the peer
 * broke it (still CONNECTED: its state is the peer's news, not yet ours). */
static bool draining(const struct dat_ep *ep)
{
    return (ep->graceful && ep->state == DAT_EP_STATE_DISCONNECT_PENDING) ||
           (ep->peer_gone && ep->state == DAT_EP_STATE_CONNECTED);
}

static void start_drain(struct dat_ep *ep, uint64_t limit_us)
{
    ep->graceful_deadline = dat_now(ep->hdr.ia->dev) + limit_us * dat_cycles_per_us();
    post_drain_marker(ep);
    dat_progress_poke();
}

void dat_ep_check_graceful(struct dat_ep *ep)
{
    if (!draining(ep))
        return;
    if (ep->sq_tail == ep->sq_head)
        finish_disconnect(ep);
    else if (ep->graceful_nop_due)
        post_drain_marker(ep);
}

void dat_ep_peer_gone(struct dat_ep *ep, DAT_EVENT_NUMBER event, bool answers_in_flight)
{
    if (ep->conn) {
        dat_cm_conn_release(ep->conn);
        ep->conn = NULL;
    }
    if (answers_in_flight && ep->state == DAT_EP_STATE_CONNECTED && ep->sq_tail != ep->sq_head && ep->qp) {
        ep->peer_gone = event;
        start_drain(ep, PEER_BROKE_DRAIN_US);
        return;
    }
    dat_ep_conn_lost(ep, event);
}

void dat_ep_broken(struct dat_ep *ep)
{
    if (ep->state != DAT_EP_STATE_CONNECTED && ep->state != DAT_EP_STATE_DISCONNECT_PENDING)
        return;   /* gone already (an earlier completion of the same batch) */
    dat_cm_send_disconnect(ep, true);
    dat_ep_conn_lost(ep, DAT_CONNECTION_EVENT_BROKEN);
}

uint64_t dat_ep_graceful_timers(void)
{
    uint64_t next = UINT64_MAX;
    for (struct dat_ia *ia = dat_ias; ia; ia = ia->next) {
        for (struct dat_obj *o = ia->objs; o; o = o->ia_next) {
            if (o->type != DAT_HANDLE_TYPE_EP)
                continue;
            struct dat_ep *ep = (struct dat_ep *)o;
            if (!draining(ep))
                continue;
            uint64_t now = dat_now(ia->dev);
            if (now >= ep->graceful_deadline) {
                /* Requests are still in flight: whatever they carried did not
                 * all arrive, so the peer is told the connection broke. */
                dat_cm_send_disconnect(ep, true);
                dat_ep_conn_lost(ep, ep->peer_gone ? ep->peer_gone : DAT_CONNECTION_EVENT_DISCONNECTED);
                return 0;   /* the lists may have changed: the caller comes back */
            }
            if (ep->graceful_deadline - now < next)
                next = ep->graceful_deadline - now;
        }
    }
    return next;
}

/* ------------------------------------------------------------ disconnect */

DAT_RETURN dat_ep_disconnect(DAT_EP_HANDLE ep_handle, DAT_CLOSE_FLAGS close_flags)
{
    DAT_API_LOCK();
    struct dat_ep *ep = (struct dat_ep *)dat_handle_lookup(ep_handle, DAT_HANDLE_TYPE_EP);
    if (!ep)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    if (close_flags != DAT_CLOSE_ABRUPT_FLAG && close_flags != DAT_CLOSE_GRACEFUL_FLAG)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    switch (ep->state) {
    case DAT_EP_STATE_CONNECTED:
        if (close_flags == DAT_CLOSE_GRACEFUL_FLAG && ep->sq_tail != ep->sq_head) {
            /* In-flight requests finish first; receives are flushed after. */
            ep->state = DAT_EP_STATE_DISCONNECT_PENDING;
            ep->graceful = true;
            start_drain(ep, GRACEFUL_LIMIT_US);
            return DAT_SUCCESS;
        }
        finish_disconnect(ep);
        return DAT_SUCCESS;
    case DAT_EP_STATE_DISCONNECT_PENDING:
        if (close_flags == DAT_CLOSE_ABRUPT_FLAG)
            finish_disconnect(ep);
        return DAT_SUCCESS;
    case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:
    case DAT_EP_STATE_PASSIVE_CONNECTION_PENDING:
        /* Abandons the connection being set up. */
        finish_disconnect(ep);
        return DAT_SUCCESS;
    default:
        return dat_ep_state_error(ep->state);
    }
}
