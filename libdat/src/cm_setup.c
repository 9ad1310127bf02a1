/*
 * Connection setup and teardown, over the connection manager's TCP
 * connections (cm_conn.c), as FPGA RoCE stacks do it:
 *
 *   active                          passive
 *   dat_ep_connect  -- REQ -->      CONNECTION_REQUEST_EVENT on the PSP's EVD
 *                   <-- REP --      dat_cr_accept: QP to RTS (READ limit settled)
 *   QP to RTS       -- RTU -->
 *   ESTABLISHED                     ESTABLISHED
 *   dat_cr_reject:  <-- REJ --      PEER_REJECTED (NON_PEER_REJECTED: no such
 *                                   service point)
 *   disconnect      -- DISC -->     DISCONNECTED (BROKEN after an error)
 *
 * Here the messages get their meaning: a REQ becomes a CR, a REP or RTU an
 * established EP, a REJ, DISC or BROKEN (or a connection gone, or a connect
 * timer run out) a lost one (ep_conn.c). Everything runs from the progress
 * engine, which calls dat_cm_progress only while some socket is open.
 *
 * The two ends may be in two processes (their NICs then joined by a link
 * over UDP, docs/platform.md) or in one.
 *
 * Determinism: when both ends are in this process, the engine does not
 * let simulated time move while a message one end sent has not been taken
 * in by the other (dat_cm_settle), so what happens does not depend on when
 * the host's TCP stack delivers the bytes.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include "cm_conn.h"

static bool qp_to_rts(struct cm_conn *c, struct dat_ep *ep, uint32_t peer_qpn, uint32_t peer_psn, uint8_t max_rd);
static uint32_t psn_seed = 0x2F1A3u;

static uint32_t next_psn(void)
{
    psn_seed = (psn_seed * 1103515245u + 12345u) & 0xFFFFFFu;
    return psn_seed;
}

static void fill_local(struct cm_msg *m, struct dat_ep *ep)
{
    const struct rnic_dev_info *in = &ep->hdr.ia->dev->info;
    m->ipv4 = in->ipv4;
    memcpy(m->mac, in->mac, 6);
    m->rd_in = (uint8_t)ep->attr.max_rdma_read_in;
    m->rd_out = (uint8_t)ep->attr.max_rdma_read_out;
}

/* A REQ or REP: the EP's QP, the connection's starting PSN, what the EP
 * offers and the consumer's private data. */
static void send_setup(struct cm_conn *c, enum cm_type type, DAT_CONN_QUAL qual, struct dat_ep *ep, DAT_COUNT pdata_len,
                       const void *pdata)
{
    struct cm_msg m;
    memset(&m, 0, sizeof(m));
    m.type = type;
    m.conn_qual = qual;
    m.qpn = ep->qpn;
    m.psn = c->my_psn;
    fill_local(&m, ep);
    m.pdata_len = (uint16_t)pdata_len;
    if (pdata_len > 0)
        memcpy(m.pdata, pdata, (size_t)pdata_len);
    cm_conn_send(c, &m);
}

static uint8_t min_rd(int out, int peer_in)
{
    int v = out < peer_in ? out : peer_in;
    return (uint8_t)(v < 1 ? 1 : v);
}

/* ----------------------------------------------------------------- active */

static bool is_loopback(const struct sockaddr_in *a)
{
    return (ntohl(a->sin_addr.s_addr) >> 24) == 127u;
}

/* On the simulated fabric NIC 2k is wired to NIC 2k+1 only. */
static bool sim_linked(const struct dat_dev *a, const struct dat_dev *b)
{
    if (strncmp(a->name, "rnic", 4) != 0 || strncmp(b->name, "rnic", 4) != 0)
        return true;
    uint32_t ia = (a->info.ipv4 & 0xFFu) - 1u, ib = (b->info.ipv4 & 0xFFu) - 1u;
    return (ia ^ 1u) == ib;
}

DAT_RETURN dat_cm_connect(struct dat_ep *ep, const struct sockaddr_in *addr, DAT_CONN_QUAL qual,
                          DAT_TIMEOUT timeout, DAT_COUNT pdata_len, const void *pdata)
{
    struct dat_ia *ia = ep->hdr.ia;
    uint16_t port = dat_cm_port_of(qual);
    ep->state = DAT_EP_STATE_ACTIVE_CONNECTION_PENDING;
    ep->active = true;
    ep->remote_addr = *addr;
    ep->remote_addr.sin_port = 0;
    ep->remote_port = qual;
    ep->pdata_len = 0;
    /* The connection manager runs on loopback: anything else cannot be
     * reached; nor can a NIC the simulated link does not join to ours. */
    struct dat_obj *target = is_loopback(addr) ? cm_local_listener(addr, port) : NULL;
    if (!is_loopback(addr) || (target && !sim_linked(ia->dev, target->ia->dev))) {
        dat_ep_conn_lost(ep, DAT_CONNECTION_EVENT_UNREACHABLE);
        return DAT_SUCCESS;
    }
    struct sockaddr_in to = *addr;
    to.sin_port = htons(port);
    struct cm_conn *c;
    int e;
    DAT_RETURN r = cm_conn_open(ia, &to, &c, &e);
    if (r != DAT_SUCCESS)
        return r;
    if (!c) {
        dat_ep_conn_lost(ep, (e == ENETUNREACH || e == EHOSTUNREACH) ? DAT_CONNECTION_EVENT_UNREACHABLE
                                                                      : DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
        return DAT_SUCCESS;
    }
    c->phase = PH_CONNECTING;
    dat_progress_poke();
    c->ep = ep;
    c->inproc = target != NULL;
    c->my_psn = next_psn();
    ep->conn = c;
    ep->local_port = ntohs(c->laddr.sin_port);
    if (timeout != DAT_TIMEOUT_INFINITE)
        cm_timer_start(c, ia->dev, dat_now(ia->dev) + (uint64_t)timeout * dat_cycles_per_us());
    send_setup(c, CM_REQ, qual, ep, pdata_len, pdata);
    return DAT_SUCCESS;
}

/* ---------------------------------------------------------------- passive */

DAT_RETURN dat_cm_accept(struct dat_cr *cr, struct dat_ep *ep, DAT_COUNT pdata_len, const void *pdata)
{
    struct cm_conn *c = cr->conn;
    ep->remote_addr = cr->remote_addr;
    ep->remote_port = cr->remote_port;
    ep->local_port = cr->conn_qual;
    ep->active = false;
    ep->pdata_len = 0;
    ep->state = DAT_EP_STATE_PASSIVE_CONNECTION_PENDING;
    if (!c || c->fd < 0) {
        /* The requester gave up (timed out, disconnected) meanwhile. */
        dat_ep_conn_lost(ep, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
        return DAT_SUCCESS;
    }
    c->my_psn = next_psn();
    c->peer_ipv4 = cr->peer_ipv4;
    memcpy(c->peer_mac, cr->peer_mac, 6);
    /* Ready to receive before the REP leaves: the requester may send the
     * moment the REP arrives, before our RTU has been read (its process
     * does not wait for ours). */
    if (!qp_to_rts(c, ep, cr->peer_qpn, cr->peer_psn, min_rd(ep->attr.max_rdma_read_out, cr->peer_rd_in))) {
        ep->state = DAT_EP_STATE_UNCONNECTED;
        return DAT_ERR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
    }
    cr->conn = NULL;
    c->cr = NULL;
    c->ep = ep;
    c->phase = PH_WAIT_RTU;
    ep->conn = c;
    send_setup(c, CM_REP, cr->conn_qual, ep, pdata_len, pdata);
    return DAT_SUCCESS;
}

static void send_reject(struct cm_conn *c, uint8_t reason)
{
    struct cm_msg m;
    memset(&m, 0, sizeof(m));
    m.type = CM_REJ;
    m.reason = reason;
    cm_conn_send(c, &m);
    dat_cm_conn_release(c);
}

void dat_cm_reject(struct dat_cr *cr)
{
    struct cm_conn *c = cr->conn;
    cr->conn = NULL;
    if (c) {
        c->cr = NULL;
        send_reject(c, CM_REJ_CONSUMER);
    }
}

/* ------------------------------------------------------------- messages */

/* The QP to RTS towards the peer's QP, with the RDMA READ limit both ends
 * settled on (ours out, theirs in). */
static bool qp_to_rts(struct cm_conn *c, struct dat_ep *ep, uint32_t peer_qpn, uint32_t peer_psn, uint8_t max_rd)
{
    struct rnic_qp_remote rem = {
        .qpn = peer_qpn, .ipv4 = c->peer_ipv4, .sq_psn = c->my_psn, .rq_psn = peer_psn, .max_rd = max_rd,
    };
    memcpy(rem.mac, c->peer_mac, 6);
    if (rnic_qp_connect(ep->qp, &rem) != RNIC_OK)
        return false;
    ep->qp_max_rd = max_rd;
    return true;
}

static void established(struct cm_conn *c, struct dat_ep *ep)
{
    ep->state = DAT_EP_STATE_CONNECTED;
    c->phase = PH_UP;
    cm_timer_stop(c);
    dat_ep_connection_event(ep, DAT_CONNECTION_EVENT_ESTABLISHED);
}

static void on_request(struct cm_conn *c, const struct cm_msg *m)
{
    struct dat_obj *sp = dat_handle_lookup_any(c->sp);
    struct dat_evd *evd = NULL;
    struct dat_ep *rsv = NULL;
    if (sp && sp->type == DAT_HANDLE_TYPE_PSP) {
        evd = ((struct dat_psp *)sp)->evd;
    } else if (sp && sp->type == DAT_HANDLE_TYPE_RSP) {
        struct dat_rsp *rsp = (struct dat_rsp *)sp;
        evd = rsp->evd;
        rsv = rsp->ep;
        if (!rsv || rsv->state != DAT_EP_STATE_RESERVED)
            evd = NULL;   /* an RSP takes one request at a time */
    }
    if (!evd || evd->count == (uint32_t)evd->qlen) {
        send_reject(c, CM_REJ_NO_SERVICE);
        return;
    }
    struct dat_cr *cr = dat_zalloc(sizeof(*cr));
    if (!cr || dat_handle_new(&cr->hdr, DAT_HANDLE_TYPE_CR, sp->ia) == DAT_HANDLE_NULL) {
        free(cr);
        send_reject(c, CM_REJ_NO_SERVICE);
        return;
    }
    cr->conn = c;
    cr->sp = sp;
    cr->conn_qual = m->conn_qual;
    cm_conn_peer(c, &cr->remote_addr);
    cr->remote_port = ntohs(cr->remote_addr.sin_port);
    cr->remote_addr.sin_port = 0;
    cr->pdata_len = m->pdata_len;
    memcpy(cr->pdata, m->pdata, m->pdata_len);
    cr->peer_qpn = m->qpn;
    cr->peer_psn = m->psn;
    cr->peer_ipv4 = m->ipv4;
    memcpy(cr->peer_mac, m->mac, 6);
    cr->peer_rd_in = m->rd_in;
    cr->peer_rd_out = m->rd_out;
    if (rsv) {
        cr->local_ep = rsv;
        rsv->cr = cr;
        rsv->state = DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING;
    }
    dat_ia_link(sp->ia, &cr->hdr);
    c->cr = cr;
    c->phase = PH_WAIT_ACCEPT;
    DAT_EVENT ev;
    memset(&ev, 0, sizeof(ev));
    ev.event_number = DAT_CONNECTION_REQUEST_EVENT;
    if (sp->type == DAT_HANDLE_TYPE_PSP)
        ev.event_data.cr_arrival_event_data.sp_handle.psp_handle = dat_handle_of(sp);
    else
        ev.event_data.cr_arrival_event_data.sp_handle.rsp_handle = dat_handle_of(sp);
    ev.event_data.cr_arrival_event_data.local_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&sp->ia->addr;
    ev.event_data.cr_arrival_event_data.conn_qual = m->conn_qual;
    ev.event_data.cr_arrival_event_data.cr_handle = DAT_H(cr);
    dat_evd_push(evd, &ev, true);
}

/* The connection is gone before or after it was up. */
static void on_loss(struct cm_conn *c, bool broken, bool answers_in_flight)
{
    if (c->dead)
        return;
    struct dat_ep *ep = c->ep;
    if (c->cr) {
        /* Not accepted yet: the CR stays until the consumer answers it. */
        c->cr->conn = NULL;
        c->cr = NULL;
    }
    if (ep) {
        DAT_EVENT_NUMBER ev;
        switch (ep->state) {
        case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING: ev = DAT_CONNECTION_EVENT_NON_PEER_REJECTED; break;
        case DAT_EP_STATE_PASSIVE_CONNECTION_PENDING: ev = DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR; break;
        default: ev = broken ? DAT_CONNECTION_EVENT_BROKEN : DAT_CONNECTION_EVENT_DISCONNECTED; break;
        }
        if (ep->state != DAT_EP_STATE_DISCONNECTED) {
            ep->conn = NULL;
            c->ep = NULL;
            dat_ep_peer_gone(ep, ev, answers_in_flight);
        }
    }
    dat_cm_conn_release(c);
}

static void on_message(struct cm_conn *c, const struct cm_msg *m)
{
    struct dat_ep *ep = c->ep;
    switch (m->type) {
    case CM_REQ:
        if (!c->active && c->phase == PH_WAIT_REQ)
            on_request(c, m);
        return;
    case CM_REP:
        if (c->active && c->phase == PH_WAIT_REP && ep) {
            c->peer_ipv4 = m->ipv4;
            memcpy(c->peer_mac, m->mac, 6);
            ep->pdata_len = m->pdata_len;
            memcpy(ep->pdata, m->pdata, m->pdata_len);
            if (!qp_to_rts(c, ep, m->qpn, m->psn, min_rd(ep->attr.max_rdma_read_out, m->rd_in))) {
                struct cm_msg b;
                memset(&b, 0, sizeof(b));
                b.type = CM_BROKEN;
                cm_conn_send(c, &b);
                ep->conn = NULL;
                c->ep = NULL;
                dat_ep_conn_lost(ep, DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
                dat_cm_conn_release(c);
                return;
            }
            struct cm_msg rtu;
            memset(&rtu, 0, sizeof(rtu));
            rtu.type = CM_RTU;
            rtu.qpn = ep->qpn;
            rtu.psn = c->my_psn;
            fill_local(&rtu, ep);
            cm_conn_send(c, &rtu);
            established(c, ep);
        }
        return;
    case CM_RTU:
        /* Our QP went to RTS when we accepted; the connection is up now. */
        if (!c->active && c->phase == PH_WAIT_RTU && ep) {
            ep->pdata_len = 0;
            established(c, ep);
        }
        return;
    case CM_REJ:
        if (c->active && ep && ep->state == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING) {
            ep->conn = NULL;
            c->ep = NULL;
            dat_ep_conn_lost(ep, m->reason == CM_REJ_CONSUMER ? DAT_CONNECTION_EVENT_PEER_REJECTED
                                                              : DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
        }
        dat_cm_conn_release(c);
        return;
    case CM_DISC:
    case CM_BROKEN:
        /* A BROKEN comes after the peer's NIC answered what broke it. */
        on_loss(c, m->type == CM_BROKEN, m->type == CM_BROKEN);
        return;
    }
}

/* Reads what is there; returns false once the connection is gone. */
static bool conn_read(struct cm_conn *c)
{
    struct cm_msg m;
    int r;
    while ((r = cm_conn_recv(c, &m)) > 0) {
        on_message(c, &m);
        if (c->phase == PH_DONE || c->dead)
            return true;   /* released: the rest is of no interest */
    }
    return r == 0;
}

static void serve(struct cm_conn *c)
{
    if (c->phase == PH_CONNECTING) {
        const int err = cm_conn_connected(c);
        if (err < 0)
            return;   /* still under way */
        if (err != 0) {
            c->failed = true;
            if (c->ep) {
                struct dat_ep *ep = c->ep;
                ep->conn = NULL;
                c->ep = NULL;
                dat_ep_conn_lost(ep, (err == ENETUNREACH || err == EHOSTUNREACH)
                                         ? DAT_CONNECTION_EVENT_UNREACHABLE
                                         : DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
            }
            dat_cm_conn_release(c);
            return;
        }
        c->phase = PH_WAIT_REP;
    }
    cm_conn_flush(c);
    if (c->close_after_tx) {
        if (c->tx_len == 0 || c->failed)
            cm_conn_close(c);
        return;
    }
    if (!conn_read(c) && !c->dead && c->phase != PH_DONE)
        on_loss(c, c->phase == PH_UP, false);
}

void dat_cm_progress(void)
{
    cm_reap();
    cm_accept_all();
    /* Serving may close connections (this one or others): serve a snapshot
     * of the ids, in creation order, skipping the ones gone meanwhile. */
    uint64_t ids[64];
    struct cm_conn *from = cm_conns;
    while (from) {
        size_t n = 0;
        for (struct cm_conn *c = from; c && n < 64; c = c->next)
            ids[n++] = c->id;
        from = NULL;
        for (size_t i = 0; i < n; i++) {
            struct cm_conn *c = cm_conn_by_id(ids[i]);
            if (c)
                serve(c);
        }
        if (n == 64) {
            struct cm_conn *last = cm_conn_by_id(ids[63]);
            from = last ? last->next : NULL;
        }
    }
    cm_reap();
}

/* ------------------------------------------------------------- settling */

static uint64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Blocks (briefly, in host time) until the kernel has what the in-process
 * peers sent, then serves it; repeats until nothing is in flight. The
 * host-time bound only guards against a peer that stopped answering. */
void dat_cm_settle(void)
{
    dat_cm_progress();
    if (!cm_in_flight())
        return;
    uint64_t start = wall_ms();
    while (cm_in_flight()) {
        struct pollfd pfd[128];
        poll(pfd, (nfds_t)dat_cm_pollfds(pfd, 128), 10);
        dat_cm_progress();
        if (wall_ms() - start > 5000) {
            /* Give up waiting on whatever is stuck: mark it failed. */
            cm_in_flight_give_up();
            break;
        }
    }
}

/* --------------------------------------------------------------- timers */

uint64_t dat_cm_timers(void)
{
    uint64_t next = UINT64_MAX;
    bool fired = true;
    while (fired) {
        fired = false;
        for (struct cm_conn *c = cm_conns; c; c = c->next) {
            if (!c->timer || c->dead)
                continue;
            uint64_t now = dat_now(c->tdev);
            if (now >= c->deadline) {
                cm_timer_stop(c);
                struct dat_ep *ep = c->ep;
                if (ep && ep->state == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING) {
                    ep->conn = NULL;
                    c->ep = NULL;
                    dat_ep_conn_lost(ep, DAT_CONNECTION_EVENT_TIMED_OUT);
                }
                dat_cm_conn_release(c);
                fired = true;
                break;
            }
            if (c->deadline - now < next)
                next = c->deadline - now;
        }
    }
    return next;
}
