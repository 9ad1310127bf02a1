/*
 * The connection manager's TCP connections (cm_conn.c), as the connection
 * setup (cm_setup.c) uses them. Nothing outside the CM includes this.
 */
#ifndef LIBDAT_CM_CONN_H
#define LIBDAT_CM_CONN_H

#include <stdbool.h>
#include <stdint.h>

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

/* Every connection, in the order they were made (dead ones until reaped). */
extern struct cm_conn *cm_conns;

/* A new connection on a connected or connecting socket, appended. */
struct cm_conn *cm_conn_new(int fd, bool active, struct dat_ia *ia);
/* Opens a TCP connection from ia's address to `to` (the connect under way).
 * DAT_SUCCESS with *out; or with *out NULL and *refused the errno of a
 * connect refused at once; else the error dat_ep_connect returns. */
DAT_RETURN cm_conn_open(struct dat_ia *ia, const struct sockaddr_in *to, struct cm_conn **out, int *refused);
/* An opened connection's connect: -1 still under way, 0 done, else its errno. */
int cm_conn_connected(struct cm_conn *c);
/* The other end's address. */
void cm_conn_peer(const struct cm_conn *c, struct sockaddr_in *addr);
/* Frees the connections closed since the last call. */
void cm_reap(void);
struct cm_conn *cm_conn_by_id(uint64_t id);
/* Queues a message and hands what it can to the kernel (not while the TCP
 * connect is in progress). */
void cm_conn_send(struct cm_conn *c, struct cm_msg *m);
/* Hands queued bytes to the kernel. */
void cm_conn_flush(struct cm_conn *c);
void cm_conn_close(struct cm_conn *c);
/* The next whole message the peer sent: 1, 0 when none is there yet, -1
 * when the connection is gone (closed, or not our protocol). */
int cm_conn_recv(struct cm_conn *c, struct cm_msg *m);
/* Takes the new connections of every listening service point in. */
void cm_accept_all(void);
/* A service point of this process listening at addr/port, if any. */
struct dat_obj *cm_local_listener(const struct sockaddr_in *addr, uint16_t port);
/* Bytes an in-process peer sent that the other end has not read yet, as
 * far as the byte counts of both ends tell. */
bool cm_in_flight(void);
/* Stops waiting for those: the connections are marked failed. */
void cm_in_flight_give_up(void);
/* The connect timer: `deadline` in cycles of dev. */
void cm_timer_start(struct cm_conn *c, struct dat_dev *dev, uint64_t deadline);
void cm_timer_stop(struct cm_conn *c);

#endif
