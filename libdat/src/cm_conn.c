/*
 * The connection manager's TCP connections: listening sockets of service
 * points, connections (made, accepted, paired with their other end when
 * both are in this process, closed, reaped), messages queued, sent and
 * read (cm_wire.h), and what is still in flight between two ends of this
 * process. The connection setup (cm_setup.c) gives the messages their
 * meaning; nothing here knows REQ from REP.
 *
 * Everything is non-blocking. Service points listen on their IA's address
 * (127.0.0.(i+1) for NIC i) at TCP port conn_qual + DAT_RNIC_CM_PORT_BASE
 * (default 0).
 *
 * The sockets open (listeners and connections) and the connect timers
 * running are counted: while there are none, the connection manager has
 * nothing to do and the progress engine does not run it (dat_cm_busy).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "cm_conn.h"

struct cm_conn *cm_conns;
static uint64_t conn_ids;
unsigned dat_cm_open_sockets, dat_cm_running_timers;

/* Who sent a message, for whoever reads a capture of the exchange. */
static uint64_t sender_id(void)
{
    return (uint64_t)getpid();
}

uint16_t dat_cm_port_of(DAT_CONN_QUAL qual)
{
    unsigned base;
    if (!dat_env_cm_port_base(&base))
        return 0;
    uint64_t p = qual + base;
    if (qual > 65535u || p == 0 || p > 65535u)
        return 0;
    return (uint16_t)p;
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
        unsigned p = ntohs(a.sin_port), base;
        if (!dat_env_cm_port_base(&base) || p <= base) {
            close(fd);
            return DAT_ERR(DAT_CONN_QUAL_UNAVAILABLE, DAT_NO_SUBTYPE);
        }
        *bound = p - base;
    }
    *fd_out = fd;
    dat_cm_open_sockets++;
    dat_progress_poke();
    return DAT_SUCCESS;
}

void dat_cm_unlisten(int fd)
{
    if (fd >= 0) {
        close(fd);
        dat_cm_open_sockets--;
    }
}

struct dat_obj *cm_local_listener(const struct sockaddr_in *addr, uint16_t port)
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

struct cm_conn *cm_conn_new(int fd, bool active, struct dat_ia *ia)
{
    struct cm_conn *c = dat_zalloc(sizeof(*c));
    if (!c)
        return NULL;
    c->id = ++conn_ids;
    c->fd = fd;
    dat_cm_open_sockets++;
    c->active = active;
    c->ia = ia;
    socklen_t l = sizeof(c->laddr);
    getsockname(fd, (struct sockaddr *)&c->laddr, &l);
    /* Append: connections are served in the order they were made. */
    struct cm_conn **p = &cm_conns;
    while (*p)
        p = &(*p)->next;
    *p = c;
    return c;
}

DAT_RETURN cm_conn_open(struct dat_ia *ia, const struct sockaddr_in *to, struct cm_conn **out, int *refused)
{
    *out = NULL;
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
    int rc = connect(fd, (const struct sockaddr *)to, sizeof(*to));
    if (rc != 0 && errno != EINPROGRESS) {
        *refused = errno;
        close(fd);
        return DAT_SUCCESS;
    }
    struct cm_conn *c = cm_conn_new(fd, true, ia);
    if (!c) {
        close(fd);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    *out = c;
    return DAT_SUCCESS;
}

int cm_conn_connected(struct cm_conn *c)
{
    struct pollfd pfd = { c->fd, POLLOUT, 0 };
    if (poll(&pfd, 1, 0) <= 0)
        return -1;
    int err = 0;
    socklen_t l = sizeof(err);
    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
    return err;
}

void cm_conn_peer(const struct cm_conn *c, struct sockaddr_in *addr)
{
    socklen_t l = sizeof(*addr);
    getpeername(c->fd, (struct sockaddr *)addr, &l);
}

void cm_conn_close(struct cm_conn *c)
{
    if (c->peer) {
        c->peer->peer = NULL;
        c->peer->peer_closed = true;
        c->peer->peer_tx_final = c->tx_total;
        c->peer = NULL;
    }
    if (c->fd >= 0) {
        close(c->fd);
        dat_cm_open_sockets--;
    }
    c->fd = -1;
    /* Freed by cm_reap(): callers up the stack may still look at it. */
    c->dead = true;
    c->ep = NULL;
    c->cr = NULL;
    cm_timer_stop(c);
}

void cm_reap(void)
{
    for (struct cm_conn **p = &cm_conns; *p;) {
        struct cm_conn *c = *p;
        if (c->dead) {
            *p = c->next;
            free(c);
        } else {
            p = &c->next;
        }
    }
}

struct cm_conn *cm_conn_by_id(uint64_t id)
{
    for (struct cm_conn *c = cm_conns; c; c = c->next)
        if (c->id == id && !c->dead)
            return c;
    return NULL;
}

void cm_timer_start(struct cm_conn *c, struct dat_dev *dev, uint64_t deadline)
{
    if (!c->timer)
        dat_cm_running_timers++;
    c->timer = true;
    c->tdev = dev;
    c->deadline = deadline;
}

void cm_timer_stop(struct cm_conn *c)
{
    if (c->timer)
        dat_cm_running_timers--;
    c->timer = false;
}

void dat_cm_conn_release(struct cm_conn *c)
{
    if (!c)
        return;
    c->ep = NULL;
    c->cr = NULL;
    cm_timer_stop(c);
    c->phase = PH_DONE;
    if (c->tx_len == 0 || c->fd < 0)
        cm_conn_close(c);
    else
        c->close_after_tx = true;
}

/* ------------------------------------------------------------- messages */

void cm_conn_flush(struct cm_conn *c)
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

void cm_conn_send(struct cm_conn *c, struct cm_msg *m)
{
    m->sender = sender_id();
    if (c->tx_len + CM_MSG_MAX > sizeof(c->tx))
        return;   /* never more than a few messages per connection */
    c->tx_len += cm_msg_pack(m, c->tx + c->tx_len);
    if (c->phase != PH_CONNECTING)
        cm_conn_flush(c);
}

void dat_cm_send_disconnect(struct dat_ep *ep, bool broken)
{
    struct cm_conn *c = ep->conn;
    if (!c || c->fd < 0)
        return;
    struct cm_msg m;
    memset(&m, 0, sizeof(m));
    m.type = broken ? CM_BROKEN : CM_DISC;
    cm_conn_send(c, &m);
}

int cm_conn_recv(struct cm_conn *c, struct cm_msg *m)
{
    for (;;) {
        long used = cm_msg_unpack(c->rx, c->rx_len, m);
        if (used < 0) {
            c->eof = true;   /* not our protocol: drop the connection */
            return -1;
        }
        if (used > 0) {
            memmove(c->rx, c->rx + used, c->rx_len - (size_t)used);
            c->rx_len -= (size_t)used;
            return 1;
        }
        ssize_t n = recv(c->fd, c->rx + c->rx_len, sizeof(c->rx) - c->rx_len, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            c->eof = true;
            return -1;
        }
        if (n < 0)
            return 0;
        c->rx_total += (uint64_t)n;
        c->rx_len += (size_t)n;
    }
}

/* ------------------------------------------------------------ accepting */

/* An accepted connection whose other end is a connection of this process. */
static void pair_with_active(struct cm_conn *p)
{
    struct sockaddr_in peer;
    socklen_t l = sizeof(peer);
    if (getpeername(p->fd, (struct sockaddr *)&peer, &l) != 0)
        return;
    for (struct cm_conn *c = cm_conns; c; c = c->next) {
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
        struct cm_conn *c = cm_conn_new(fd, false, sp->ia);
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

void cm_accept_all(void)
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

size_t dat_cm_pollfds(struct pollfd *p, size_t max)
{
    size_t n = 0;
    for (struct cm_conn *c = cm_conns; c && n < max; c = c->next) {
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

/* ------------------------------------------------------------ in flight */

/* Bytes the in-process peer has sent us that we have not read yet, as far
 * as we know; also while we are still waiting for the peer to exist. */
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

bool cm_in_flight(void)
{
    for (struct cm_conn *c = cm_conns; c; c = c->next)
        if (conn_waiting(c))
            return true;
    return false;
}

void cm_in_flight_give_up(void)
{
    for (struct cm_conn *c = cm_conns; c; c = c->next)
        if (conn_waiting(c))
            c->failed = true, c->inproc = false;
}
