/*
 * What rnic_rc_pingpong and rnic_perftest share: the wall clock, option
 * values, the TCP side channel the stock tools' out-of-band exchanges
 * run on, GIDs, and one RC QP on this project's NIC with a registered
 * buffer, driven through the driver only.
 */
#ifndef PEER_COMMON_H
#define PEER_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rnic/rnic_drv.h"
#include "rnic_hw.h"

double peer_wall_now(void);
/* Prints "PROG: FAILED: " and the message; returns 1. */
int peer_fail(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

bool peer_parse_mac(const char *s, uint8_t mac[6]);
bool peer_parse_uint(const char *s, unsigned long max, unsigned *out);

/* TCP to host:port, or -1. */
int peer_tcp_connect(const char *host, unsigned port);
/* A socket listening on 127.0.0.1:port, or -1 (errno says why). */
int peer_tcp_listen(unsigned port);
/* A connection on lfd before the deadline, or -1. */
int peer_tcp_accept(int lfd, double deadline);
/* All of n bytes, or false (EOF, error). */
bool peer_read_all(int fd, void *p, size_t n);
bool peer_write_all(int fd, const void *p, size_t n);
/* Connects and sends `hello` (n bytes), then reads `reply` (m bytes). A
 * port that QEMU's user network forwards accepts before the guest listens
 * and then closes: that, and a refused connection, are tried again every
 * 100 ms until the deadline. Returns the connection, or -1. */
int peer_tcp_hello(const char *host, unsigned port, const void *hello, size_t n, void *reply, size_t m,
                   double deadline);

/* A path MTU in bytes as verbs' enum ibv_mtu numbers it (InfiniBand's
 * code: 1 is 256 bytes, 5 is 4096), or 0 for a size that is not one. */
unsigned peer_mtu_code(unsigned bytes);

/* GIDs: this NIC speaks RoCEv2 over IPv4, so its GID is ::ffff:a.b.c.d. */
void peer_gid_of_ipv4(uint32_t ipv4, uint8_t gid[16]);
/* The IPv4 address of an IPv4-mapped GID; false for any other GID. */
bool peer_gid_ipv4(const uint8_t gid[16], uint32_t *ipv4);

/* One RC QP on the NIC, its CQ (sends and receives), and `bytes` of
 * page-aligned memory registered for local access and `remote` access. */
struct peer_nic {
    rnic_dev *dev;
    struct rnic_dev_info info;
    rnic_cq *cq;
    rnic_qp *qp;
    rnic_mr *mr;
    uint16_t pz;
    bool have_pz;
    uint8_t *mem;
    size_t bytes;
    uint32_t lkey, rkey;
    uint32_t drops0; /* RX_DROPS when opened */
    /* The path MTU peer_nic_connect gives the QP, in bytes (0, as opened:
     * the NIC's largest). Both ends must cut messages alike. */
    uint32_t path_mtu;
};
/* 0, or 1 after saying why (everything opened is closed again). */
int peer_nic_open(struct peer_nic *n, const char *prog, const char *dev, size_t bytes, unsigned sq, unsigned rq,
                  uint32_t remote);
void peer_nic_close(struct peer_nic *n);
/* INIT -> RTS towards the peer at `gid` (IPv4-mapped) and `mac`. */
int peer_nic_connect(struct peer_nic *n, const char *prog, uint32_t qpn, uint32_t my_psn, uint32_t peer_psn,
                     const uint8_t gid[16], const uint8_t mac[6], unsigned max_rd);
/* One completion before the wall-clock deadline: 0, or 1 after saying why. */
int peer_nic_next_wc(struct peer_nic *n, const char *prog, struct rnic_wc *wc, double deadline);
/* A first PSN: `fixed` when it is not negative, else random, as the stock
 * tools pick theirs. */
uint32_t peer_first_psn(long fixed);

#endif
