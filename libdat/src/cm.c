/*
 * Connection management in software, over TCP (loopback here, the real
 * network next to a board), as FPGA RoCE stacks do it.
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
 * Service points listen on their IA's address (127.0.0.(i+1) for NIC i) at
 * TCP port conn_qual + DAT_RNIC_CM_PORT_BASE (default 0). Everything is
 * non-blocking and runs from the progress engine.
 *
 * The two ends may be in two processes (their NICs then joined by a link
 * over UDP, docs/platform.md) or in one.
 *
 * Determinism: when both ends are in this process, the engine does not
 * let simulated time move while a message one end sent has not been taken
 * in by the other (cm_settle), so what happens does not depend on when the
 * host's TCP stack delivers the bytes.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "cm_wire.h"

enum cm_phase {
    PH_CONNECTING,   /* active: TCP connect in progress, REQ queued */
    PH_WAIT_REP,     /* active: REQ sent */
    PH_WAIT_REQ,     /* passive: accepted, nothing read yet */
    PH_WAIT_ACCEPT,  /* passive: CR delivered to the consumer */
    PH_WAIT_RTU,     /* passive: REP sent */
    PH_UP,           /* established */
    PH_DONE,         /* nothing more to say: closes once tx drains */
};

struct cm_conn {
    uint64_t id;                       /* never reused, unlike the address */
    int fd;
    bool active;
    enum cm_phase phase;
    struct dat_ep *ep;
    struct dat_cr *cr;
    DAT_HANDLE sp;                     /* passive: the PSP or RSP it reached */
    struct dat_ia *ia;                 /* the IA it belongs to */
    uint32_t my_psn;
    uint32_t peer_ipv4;
    uint8_t peer_mac[6];
    /* bytes */
    uint8_t rx[CM_MSG_MAX];
    size_t rx_len;
    uint8_t tx[4 * CM_MSG_MAX];
    size_t tx_len;
    bool close_after_tx;
    /* both ends in this process */
    bool inproc, paired, failed, eof, dead;
    struct sockaddr_in laddr;          /* our end */
    struct cm_conn *peer;
    uint64_t tx_total, rx_total;
    bool peer_closed;
    uint64_t peer_tx_final;
    /* connect timeout, in cycles of tdev */
    bool timer;
    uint64_t deadline;
    struct dat_dev *tdev;
    struct cm_conn *next;
};

static bool qp_to_rts(struct cm_conn *c, struct dat_ep *ep, uint32_t peer_qpn, uint32_t peer_psn, uint8_t max_rd);
static struct cm_conn *conns;
static uint64_t conn_ids;
static uint32_t psn_seed = 0x2F1A3u;

/* Who sent a message, for whoever reads a capture of the exchange. */
static uint64_t sender_id(void)
{
    return (uint64_t)getpid();
}

static unsigned port_base(void)
{
    const char *s = getenv("DAT_RNIC_CM_PORT_BASE");
    return s ? (unsigned)strtoul(s, NULL, 10) : 0u;
}

uint16_t dat_cm_port_of(DAT_CONN_QUAL qual)
{
    uint64_t p = qual + port_base();
    if (qual > 65535u || p == 0 || p > 65535u)
        return 0;
    return (uint16_t)p;
}

static uint32_t next_psn(void)
{
    psn_seed = (psn_seed * 1103515245u + 12345u) & 0xFFFFFFu;
    return psn_seed;
}

/* ----------------------------------------------------------- listeners */

DAT_RETURN dat_cm_listen(struct dat_ia *ia, DAT_CONN_QUAL qual, bool any, DAT_CONN_QUAL *bound, int *fd_out)
{
    uint16_t port = 0;
    if (!any && (port = dat_cm_port_of(qual)) == 0)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in a = ia->addr;
    a.sin_port = htons(port);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 64) != 0) {
        int e = errno;
        close(fd);
        if (e == EADDRINUSE)
            return any ? DAT_ERR(DAT_CONN_QUAL_UNAVAILABLE, DAT_NO_SUBTYPE)
                       : DAT_ERR(DAT_CONN_QUAL_IN_USE, DAT_NO_SUBTYPE);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE);
    }
    if (any) {
        socklen_t l = sizeof(a);
        getsockname(fd, (struct sockaddr *)&a, &l);
        unsigned p = ntohs(a.sin_port), base = port_base();
        if (p <= base) {
            close(fd);
            return DAT_ERR(DAT_CONN_QUAL_UNAVAILABLE, DAT_NO_SUBTYPE);
        }
        *bound = p - base;
    }
    *fd_out = fd;
    dat_progress_poke();
    return DAT_SUCCESS;
}

void dat_cm_unlisten(int fd)
{
    if (fd >= 0)
        close(fd);
}

/* A service point of this process listening at addr/port, if any. */
static struct dat_obj *local_listener(const struct sockaddr_in *addr, uint16_t port)
{
    for (struct dat_ia *ia = dat_ias; ia; ia = ia->next) {
        if (ia->addr.sin_addr.s_addr != addr->sin_addr.s_addr)
            continue;
        for (struct dat_obj *o = ia->objs; o; o = o->ia_next) {
            DAT_CONN_QUAL q;
            int fd;
            if (o->type == DAT_HANDLE_TYPE_PSP) {
                q = ((struct dat_psp *)o)->conn_qual;
                fd = ((struct dat_psp *)o)->fd;
            } else if (o->type == DAT_HANDLE_TYPE_RSP) {
                q = ((struct dat_rsp *)o)->conn_qual;
                fd = ((struct dat_rsp *)o)->fd;
            } else {
                continue;
            }
            if (fd >= 0 && dat_cm_port_of(q) == port)
                return o;
        }
    }
    return NULL;
}

/* ---------------------------------------------------------- connections */

static struct cm_conn *conn_new(int fd, bool active, struct dat_ia *ia)
{
    struct cm_conn *c = dat_zalloc(sizeof(*c));
    if (!c)
        return NULL;
    c->id = ++conn_ids;
    c->fd = fd;
    c->active = active;
    c->ia = ia;
    socklen_t l = sizeof(c->laddr);
    getsockname(fd, (struct sockaddr *)&c->laddr, &l);
    /* Append: connections are served in the order they were made. */
    struct cm_conn **p = &conns;
    while (*p)
        p = &(*p)->next;
    *p = c;
    return c;
}

static void conn_close(struct cm_conn *c)
{
    if (c->peer) {
        c->peer->peer = NULL;
        c->peer->peer_closed = true;
        c->peer->peer_tx_final = c->tx_total;
        c->peer = NULL;
    }
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    /* Freed by reap(): callers up the stack may still look at it. */
    c->dead = true;
    c->ep = NULL;
    c->cr = NULL;
    c->timer = false;
}

static void reap(void)
{
    for (struct cm_conn **p = &conns; *p;) {
        struct cm_conn *c = *p;
        if (c->dead) {
            *p = c->next;
            free(c);
        } else {
            p = &c->next;
        }
    }
}

static void conn_flush(struct cm_conn *c)
{
    while (c->tx_len > 0 && c->fd >= 0) {
        ssize_t n = send(c->fd, c->tx, c->tx_len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                return;
            c->tx_len = 0;   /* the peer is gone; nothing will read it */
            c->failed = true;
            return;
        }
        c->tx_total += (uint64_t)n;
        memmove(c->tx, c->tx + n, c->tx_len - (size_t)n);
        c->tx_len -= (size_t)n;
    }
}

static void conn_send(struct cm_conn *c, struct cm_msg *m)
{
    m->sender = sender_id();
    if (c->tx_len + CM_MSG_MAX > sizeof(c->tx))
        return;   /* never more than a few messages per connection */
    c->tx_len += cm_msg_pack(m, c->tx + c->tx_len);
    if (c->phase != PH_CONNECTING)
        conn_flush(c);
}

void dat_cm_conn_release(struct cm_conn *c)
{
    if (!c)
        return;
    c->ep = NULL;
    c->cr = NULL;
    c->timer = false;
    c->phase = PH_DONE;
    if (c->tx_len == 0 || c->fd < 0)
        conn_close(c);
    else
        c->close_after_tx = true;
}

static void fill_local(struct cm_msg *m, struct dat_ep *ep)
{
    const struct rnic_dev_info *in = &ep->hdr.ia->dev->info;
    m->ipv4 = in->ipv4;
    memcpy(m->mac, in->mac, 6);
    m->rd_in = (uint8_t)ep->attr.max_rdma_read_in;
    m->rd_out = (uint8_t)ep->attr.max_rdma_read_out;
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
    struct dat_obj *target = is_loopback(addr) ? local_listener(addr, port) : NULL;
    if (!is_loopback(addr) || (target && !sim_linked(ia->dev, target->ia->dev))) {
        dat_ep_conn_lost(ep, DAT_CONNECTION_EVENT_UNREACHABLE);
        return DAT_SUCCESS;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    /* From our own IA address, so the peer sees who is calling. */
    struct sockaddr_in me = ia->addr;
    me.sin_port = 0;
    if (bind(fd, (struct sockaddr *)&me, sizeof(me)) != 0) {
        close(fd);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE);
    }
    struct sockaddr_in to = *addr;
    to.sin_port = htons(port);
    int rc = connect(fd, (struct sockaddr *)&to, sizeof(to));
    if (rc != 0 && errno != EINPROGRESS) {
        int e = errno;
        close(fd);
        dat_ep_conn_lost(ep, (e == ENETUNREACH || e == EHOSTUNREACH) ? DAT_CONNECTION_EVENT_UNREACHABLE
                                                                      : DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
        return DAT_SUCCESS;
    }
    struct cm_conn *c = conn_new(fd, true, ia);
    if (!c) {
        close(fd);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    c->phase = PH_CONNECTING;
    dat_progress_poke();
    c->ep = ep;
    c->inproc = target != NULL;
    c->my_psn = next_psn();
    ep->conn = c;
    ep->local_port = ntohs(c->laddr.sin_port);
    if (timeout != DAT_TIMEOUT_INFINITE) {
        c->timer = true;
        c->tdev = ia->dev;
        c->deadline = dat_now(ia->dev) + (uint64_t)timeout * dat_cycles_per_us();
    }
    struct cm_msg m;
    memset(&m, 0, sizeof(m));
    m.type = CM_REQ;
    m.conn_qual = qual;
    m.qpn = ep->qpn;
    m.psn = c->my_psn;
    fill_local(&m, ep);
    m.pdata_len = (uint16_t)pdata_len;
    if (pdata_len > 0)
        memcpy(m.pdata, pdata, (size_t)pdata_len);
    conn_send(c, &m);
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
    struct cm_msg m;
    memset(&m, 0, sizeof(m));
    m.type = CM_REP;
    m.conn_qual = cr->conn_qual;
    m.qpn = ep->qpn;
    m.psn = c->my_psn;
    fill_local(&m, ep);
    m.pdata_len = (uint16_t)pdata_len;
    if (pdata_len > 0)
        memcpy(m.pdata, pdata, (size_t)pdata_len);
    conn_send(c, &m);
    return DAT_SUCCESS;
}

static void send_reject(struct cm_conn *c, uint8_t reason)
{
    struct cm_msg m;
    memset(&m, 0, sizeof(m));
    m.type = CM_REJ;
    m.reason = reason;
    conn_send(c, &m);
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

void dat_cm_send_disconnect(struct dat_ep *ep, bool broken)
{
    struct cm_conn *c = ep->conn;
    if (!c || c->fd < 0)
        return;
    struct cm_msg m;
    memset(&m, 0, sizeof(m));
    m.type = broken ? CM_BROKEN : CM_DISC;
    conn_send(c, &m);
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
    c->timer = false;
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
    socklen_t l = sizeof(cr->remote_addr);
    getpeername(c->fd, (struct sockaddr *)&cr->remote_addr, &l);
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
static void on_loss(struct cm_conn *c, bool broken)
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
            dat_ep_conn_lost(ep, ev);
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
                conn_send(c, &b);
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
            conn_send(c, &rtu);
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
        on_loss(c, m->type == CM_BROKEN);
        return;
    }
}

/* Reads what is there; returns false once the connection is gone. */
static bool conn_read(struct cm_conn *c)
{
    for (;;) {
        ssize_t n = recv(c->fd, c->rx + c->rx_len, sizeof(c->rx) - c->rx_len, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            c->eof = true;
            return false;
        }
        if (n < 0)
            return true;
        c->rx_total += (uint64_t)n;
        c->rx_len += (size_t)n;
        for (;;) {
            struct cm_msg m;
            long used = cm_msg_unpack(c->rx, c->rx_len, &m);
            if (used < 0) {
                c->eof = true;   /* not our protocol: drop the connection */
                return false;
            }
            if (used == 0)
                break;
            memmove(c->rx, c->rx + used, c->rx_len - (size_t)used);
            c->rx_len -= (size_t)used;
            on_message(c, &m);
            if (c->phase == PH_DONE || c->dead)
                return true;   /* released: the rest is of no interest */
        }
    }
}

static void pair_with_active(struct cm_conn *p)
{
    struct sockaddr_in peer;
    socklen_t l = sizeof(peer);
    if (getpeername(p->fd, (struct sockaddr *)&peer, &l) != 0)
        return;
    for (struct cm_conn *c = conns; c; c = c->next) {
        if (!c->dead && c->active && c->inproc && !c->paired && c->laddr.sin_addr.s_addr == peer.sin_addr.s_addr &&
            c->laddr.sin_port == peer.sin_port) {
            c->paired = p->paired = true;
            c->peer = p;
            p->peer = c;
            p->inproc = true;
            return;
        }
    }
}

static void accept_on(struct dat_obj *sp, int lfd)
{
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        struct cm_conn *c = conn_new(fd, false, sp->ia);
        if (!c) {
            close(fd);
            continue;
        }
        c->phase = PH_WAIT_REQ;
        dat_progress_poke();
        c->sp = dat_handle_of(sp);
        pair_with_active(c);
    }
}

static void accept_all(void)
{
    for (struct dat_ia *ia = dat_ias; ia; ia = ia->next) {
        for (struct dat_obj *o = ia->objs; o; o = o->ia_next) {
            if (o->type == DAT_HANDLE_TYPE_PSP && ((struct dat_psp *)o)->fd >= 0)
                accept_on(o, ((struct dat_psp *)o)->fd);
            else if (o->type == DAT_HANDLE_TYPE_RSP && ((struct dat_rsp *)o)->fd >= 0)
                accept_on(o, ((struct dat_rsp *)o)->fd);
        }
    }
}

static void serve(struct cm_conn *c)
{
    if (c->phase == PH_CONNECTING) {
        struct pollfd pfd = { c->fd, POLLOUT, 0 };
        if (poll(&pfd, 1, 0) <= 0)
            return;
        int err = 0;
        socklen_t l = sizeof(err);
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
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
    conn_flush(c);
    if (c->close_after_tx) {
        if (c->tx_len == 0 || c->failed)
            conn_close(c);
        return;
    }
    if (!conn_read(c) && !c->dead && c->phase != PH_DONE)
        on_loss(c, c->phase == PH_UP);
}

static struct cm_conn *conn_by_id(uint64_t id)
{
    for (struct cm_conn *c = conns; c; c = c->next)
        if (c->id == id && !c->dead)
            return c;
    return NULL;
}

void dat_cm_progress(void)
{
    reap();
    accept_all();
    /* Serving may close connections (this one or others): serve a snapshot
     * of the ids, in creation order, skipping the ones gone meanwhile. */
    uint64_t ids[64];
    struct cm_conn *from = conns;
    while (from) {
        size_t n = 0;
        for (struct cm_conn *c = from; c && n < 64; c = c->next)
            ids[n++] = c->id;
        from = NULL;
        for (size_t i = 0; i < n; i++) {
            struct cm_conn *c = conn_by_id(ids[i]);
            if (c)
                serve(c);
        }
        if (n == 64) {
            struct cm_conn *last = conn_by_id(ids[63]);
            from = last ? last->next : NULL;
        }
    }
    reap();
}

size_t dat_cm_pollfds(struct pollfd *p, size_t max)
{
    size_t n = 0;
    for (struct cm_conn *c = conns; c && n < max; c = c->next) {
        if (c->fd >= 0 && !c->dead)
            p[n++] = (struct pollfd){c->fd, (short)(POLLIN | (c->tx_len || c->phase == PH_CONNECTING ? POLLOUT : 0)), 0};
    }
    for (struct dat_ia *ia = dat_ias; ia && n < max; ia = ia->next) {
        for (struct dat_obj *o = ia->objs; o && n < max; o = o->ia_next) {
            int fd = o->type == DAT_HANDLE_TYPE_PSP   ? ((struct dat_psp *)o)->fd
                     : o->type == DAT_HANDLE_TYPE_RSP ? ((struct dat_rsp *)o)->fd
                                                      : -1;
            if (fd >= 0)
                p[n++] = (struct pollfd){fd, POLLIN, 0};
        }
    }
    return n;
}

/* ------------------------------------------------------------- settling */

/* Bytes the in-process peer has sent us that we have not read yet, as far
 * as we know; ~0 when we are still waiting for the peer to exist. */
static bool conn_waiting(struct cm_conn *c)
{
    if (c->dead)
        return false;
    if (c->fd < 0 || c->phase == PH_DONE)
        return c->tx_len > 0 && c->inproc && !c->failed;
    if (!c->inproc)
        return false;
    if (c->tx_len > 0 && !c->failed)
        return true;   /* our own bytes not yet handed to the kernel */
    if (c->active && !c->paired && !c->failed && !c->eof)
        return true;   /* the listener has not taken the connection in yet */
    uint64_t expect = c->peer ? c->peer->tx_total : c->peer_closed ? c->peer_tx_final : c->rx_total;
    if (c->rx_total < expect)
        return true;
    return c->peer_closed && !c->eof;
}

static bool cm_busy(void)
{
    for (struct cm_conn *c = conns; c; c = c->next)
        if (conn_waiting(c))
            return true;
    return false;
}

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
    if (!cm_busy())
        return;
    uint64_t start = wall_ms();
    while (cm_busy()) {
        struct pollfd pfd[128];
        nfds_t n = 0;
        for (struct cm_conn *c = conns; c && n < 128; c = c->next) {
            if (c->fd >= 0) {
                pfd[n].fd = c->fd;
                pfd[n].events = (short)(POLLIN | (c->tx_len || c->phase == PH_CONNECTING ? POLLOUT : 0));
                pfd[n].revents = 0;
                n++;
            }
        }
        for (struct dat_ia *ia = dat_ias; ia && n < 128; ia = ia->next) {
            for (struct dat_obj *o = ia->objs; o && n < 128; o = o->ia_next) {
                int fd = o->type == DAT_HANDLE_TYPE_PSP   ? ((struct dat_psp *)o)->fd
                         : o->type == DAT_HANDLE_TYPE_RSP ? ((struct dat_rsp *)o)->fd
                                                          : -1;
                if (fd >= 0) {
                    pfd[n].fd = fd;
                    pfd[n].events = POLLIN;
                    pfd[n].revents = 0;
                    n++;
                }
            }
        }
        poll(pfd, n, 10);
        dat_cm_progress();
        if (wall_ms() - start > 5000) {
            /* Give up waiting on whatever is stuck: mark it failed. */
            for (struct cm_conn *c = conns; c; c = c->next)
                if (conn_waiting(c))
                    c->failed = true, c->inproc = false;
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
        for (struct cm_conn *c = conns; c; c = c->next) {
            if (!c->timer || c->dead)
                continue;
            uint64_t now = dat_now(c->tdev);
            if (now >= c->deadline) {
                c->timer = false;
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
    uint64_t g = dat_ep_graceful_timers();
    return g < next ? g : next;
}
