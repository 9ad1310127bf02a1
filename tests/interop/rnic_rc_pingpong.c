/*
 * rnic_rc_pingpong: rdma-core's ibv_rc_pingpong on this project's NIC,
 * through its driver, so that the stock tool on a Linux soft-RoCE (rxe)
 * device is the peer, either way round:
 *
 *   (peer)  ibv_rc_pingpong -d rxe0 -g 1 -s SIZE -n ITERS
 *   (here)  rnic_rc_pingpong --peer-mac MAC -s SIZE -n ITERS HOST
 *
 *   (here)  rnic_rc_pingpong --peer-mac MAC -s SIZE -n ITERS
 *   (peer)  ibv_rc_pingpong -d rxe0 -g 1 -s SIZE -n ITERS HOST
 *
 * The out-of-band exchange is the tool's (rdma-core's rc_pingpong.c): a TCP
 * connection to HOST:port (18515; the server here listens on 127.0.0.1,
 * where QEMU's user network brings a guest's connection to 10.0.2.2); the
 * client writes one 52-byte message,
 * "LLLL:QQQQQQ:PPPPPP:" and 32 hex digits, NUL-terminated (LID, QPN, first
 * PSN, and the GID as its 16 bytes in order); the server connects its QP
 * and answers with its own; the client writes "done" (5 bytes with the
 * NUL). This NIC has no LID (0) and is reached by RoCEv2 at its IPv4
 * address, so its GID is the IPv4-mapped ::ffff:a.b.c.d, and the server's
 * GID must be one too (ibv_rc_pingpong -g with the index of its IPv4 GID).
 * The peer's MAC does not travel in the exchange, and this NIC does not do
 * ARP: --peer-mac names it.
 *
 * Then the ping-pong, as the stock tools do it: the client sends SEND k,
 * and once both its completion and the RECV of the answer are in, SEND
 * k+1; the server answers each SEND it receives. The stock tool receives
 * into the buffer it sends from, so what it sends is what it received
 * last (at first its fill, 0x7b): every message sent here carries its own
 * pattern, and every byte of every message received is checked against
 * what the stock tool must send back (the check the stock tools leave out).
 *
 * Prints the exchange, the tool's two result lines (bytes and Mbit/s, iters
 * and usec/iter, wall time) and the NIC's cycles per iteration. Exit 0 when
 * every ping-pong passed; 1 on any failure, with the reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peer_common.h"

#define PROG "rnic_rc_pingpong"
/* sizeof "0000:000000:000000:" plus 32 hex digits and the NUL. */
#define OOB_MSG_BYTES 52
#define RQ_DEPTH 4u /* one message is in flight at a time: two would do */

struct opts {
    const char *host, *dev; /* host NULL: the server */
    unsigned port, size, iters, mtu, timeout_s;
    uint8_t peer_mac[6];
    bool have_mac;
    long psn; /* -1: random, as the stock tool picks its own */
};

struct dest {
    unsigned lid, qpn, psn;
    uint8_t gid[16];
};

static void usage(void) {
    fprintf(stderr,
            "usage: " PROG " [options] [HOST]   (no HOST: the server)\n"
            "  -p, --port=PORT       the server's TCP port (18515)\n"
            "  -d, --ib-dev=NAME     this project's NIC (rnic0)\n"
            "  -s, --size=BYTES      message size, as the peer's -s (4096)\n"
            "  -n, --iters=N         ping-pongs, as the peer's -n (1000)\n"
            "  -m, --mtu=BYTES       path MTU, as the peer's -m (1024, the stock tool's too)\n"
            "      --peer-mac=MAC    the peer's Ethernet address (required)\n"
            "      --psn=N           the first PSN sent (default: random)\n"
            "  -T, --timeout=S       give up after S wall seconds (120)\n");
}

static int parse_args(int argc, char **argv, struct opts *o) {
    *o = (struct opts){.dev = "rnic0", .port = 18515, .size = 4096, .iters = 1000, .mtu = 1024,
                       .timeout_s = 120, .psn = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        const char *eq = strchr(a, '=');
        char name[32];
        if (a[0] != '-') {
            if (o->host) return -1;
            o->host = a;
            continue;
        }
        size_t n = eq ? (size_t)(eq - a) : strlen(a);
        if (n >= sizeof(name)) return -1;
        memcpy(name, a, n);
        name[n] = '\0';
        if (eq)
            v = eq + 1;
        else if (i + 1 < argc)
            v = argv[++i];
        else
            return -1;
        unsigned psn;
        bool ok = true;
        if (!strcmp(name, "-p") || !strcmp(name, "--port"))
            ok = peer_parse_uint(v, 65535, &o->port);
        else if (!strcmp(name, "-d") || !strcmp(name, "--ib-dev"))
            o->dev = v;
        else if (!strcmp(name, "-s") || !strcmp(name, "--size"))
            ok = peer_parse_uint(v, 1u << 30, &o->size) && o->size > 0;
        else if (!strcmp(name, "-n") || !strcmp(name, "--iters"))
            ok = peer_parse_uint(v, 1u << 30, &o->iters) && o->iters > 0;
        else if (!strcmp(name, "-m") || !strcmp(name, "--mtu"))
            ok = peer_parse_uint(v, 4096, &o->mtu);
        else if (!strcmp(name, "-T") || !strcmp(name, "--timeout"))
            ok = peer_parse_uint(v, 86400, &o->timeout_s) && o->timeout_s > 0;
        else if (!strcmp(name, "--peer-mac"))
            ok = o->have_mac = peer_parse_mac(v, o->peer_mac);
        else if (!strcmp(name, "--psn")) {
            ok = peer_parse_uint(v, 0xFFFFFF, &psn);
            o->psn = psn;
        } else
            return -1;
        if (!ok) {
            fprintf(stderr, PROG ": bad value for %s: %s\n", name, v);
            return -1;
        }
    }
    return o->have_mac ? 0 : -1;
}

/* ---- the out-of-band exchange ---- */

static void format_dest(const struct dest *d, char msg[OOB_MSG_BYTES]) {
    char gid[33];
    for (int i = 0; i < 16; i++) snprintf(gid + 2 * i, 3, "%02x", d->gid[i]);
    memset(msg, 0, OOB_MSG_BYTES);
    snprintf(msg, OOB_MSG_BYTES, "%04x:%06x:%06x:%s", d->lid & 0xFFFFu, d->qpn & 0xFFFFFFu, d->psn & 0xFFFFFFu,
             gid);
}

static bool parse_dest(const char msg[OOB_MSG_BYTES], struct dest *d) {
    char gid[33] = {0};
    if (memchr(msg, '\0', OOB_MSG_BYTES) == NULL) return false;
    if (sscanf(msg, "%x:%x:%x:%32[0-9a-fA-F]", &d->lid, &d->qpn, &d->psn, gid) != 4 || strlen(gid) != 32)
        return false;
    for (int i = 0; i < 16; i++) {
        unsigned b;
        if (sscanf(gid + 2 * i, "%2x", &b) != 1) return false;
        d->gid[i] = (uint8_t)b;
    }
    return d->qpn <= 0xFFFFFF && d->psn <= 0xFFFFFF;
}

/* The client's exchange: its message, the server's, then "done". */
static int exchange_client(const struct opts *o, const struct dest *me, struct dest *peer, double deadline) {
    char msg[OOB_MSG_BYTES], got[OOB_MSG_BYTES];
    format_dest(me, msg);
    int fd = peer_tcp_hello(o->host, o->port, msg, sizeof(msg), got, sizeof(got), deadline);
    if (fd < 0) return peer_fail(PROG, "no answer from an ibv_rc_pingpong server at %s:%u", o->host, o->port);
    bool done = peer_write_all(fd, "done", sizeof("done"));
    close(fd);
    if (!done) return peer_fail(PROG, "could not write \"done\" to the server");
    if (!parse_dest(got, peer)) return peer_fail(PROG, "the server's address message is malformed: %.52s", got);
    return 0;
}

/* The server's first half: a client's connection and its message. Returns
 * the connection, or -1. */
static int exchange_server_read(int lfd, struct dest *peer, double deadline) {
    int fd = peer_tcp_accept(lfd, deadline);
    char got[OOB_MSG_BYTES];
    if (fd < 0) {
        peer_fail(PROG, "no client connected before the deadline");
        return -1;
    }
    if (!peer_read_all(fd, got, sizeof(got)) || !parse_dest(got, peer)) {
        close(fd);
        peer_fail(PROG, "the client's address message is missing or malformed");
        return -1;
    }
    return fd;
}

/* The server's second half, once its QP is connected: its message, then
 * the client's "done" (or its end of the connection). */
static int exchange_server_answer(int fd, const struct dest *me) {
    char msg[OOB_MSG_BYTES];
    format_dest(me, msg);
    bool ok = peer_write_all(fd, msg, sizeof(msg));
    if (ok)
        while (read(fd, msg, sizeof(msg)) < 0 && errno == EINTR) continue;
    close(fd);
    return ok ? 0 : peer_fail(PROG, "could not write the address message to the client");
}

/* ---- the ping-pong ---- */

/* Message k's byte i, as sent from here: differs from message to message
 * and along the message. */
static uint8_t pattern(unsigned k, size_t i) { return (uint8_t)(k * 131u + i * 7u + (i >> 8) + 0x5Au); }

/* The NIC's memory: two buffers to send from, then RQ_DEPTH to receive into. */
static uint8_t *send_buf(struct peer_nic *n, unsigned size, unsigned k) { return n->mem + (size_t)(k % 2) * size; }
static uint8_t *recv_buf(struct peer_nic *n, unsigned size, unsigned slot) {
    return n->mem + (size_t)(2 + slot) * size;
}

static int post_recv_slot(struct peer_nic *n, unsigned size, unsigned slot) {
    struct rnic_sge s = {(uint64_t)(uintptr_t)recv_buf(n, size, slot), size, n->lkey};
    memset(recv_buf(n, size, slot), 0, size);
    int r = rnic_post_recv(n->qp, slot, &s, 1);
    return r == RNIC_OK ? 0 : peer_fail(PROG, "rnic_post_recv: %s", rnic_strerror(r));
}

/* A RECV completion: the right slot and length, and every byte what the
 * peer must have sent (want(k, i)); then the slot is posted again. */
static int check_recv(struct peer_nic *n, unsigned size, const struct rnic_wc *wc, unsigned k,
                      uint8_t (*want)(unsigned, size_t)) {
    unsigned slot = (unsigned)wc->wr_id;
    if (slot >= RQ_DEPTH || wc->byte_len != size)
        return peer_fail(PROG, "message %u: a RECV of %u bytes (slot %u), %u expected", k, wc->byte_len, slot, size);
    const uint8_t *got = recv_buf(n, size, slot);
    for (size_t i = 0; i < size; i++)
        if (got[i] != want(k, i))
            return peer_fail(PROG, "message %u: byte %zu is 0x%02x, 0x%02x expected", k, i, got[i], want(k, i));
    return post_recv_slot(n, size, slot);
}

/* SEND k from its own buffer (SEND k-1's may not have completed yet). */
static int post_pattern(struct peer_nic *n, unsigned size, unsigned k) {
    uint8_t *buf = send_buf(n, size, k);
    for (size_t i = 0; i < size; i++) buf[i] = pattern(k, i);
    struct rnic_sge s = {(uint64_t)(uintptr_t)buf, size, n->lkey};
    struct rnic_send_wr w = {.wr_id = 1000000u + k, .opcode = RNIC_OP_SEND, .flags = RNIC_WQE_FLAG_SIGNALED,
                             .num_sge = 1, .sg = &s};
    int r = rnic_post_send(n->qp, &w);
    return r == RNIC_OK ? 0 : peer_fail(PROG, "rnic_post_send: %s", rnic_strerror(r));
}

static int next_ok(struct peer_nic *n, struct rnic_wc *wc, unsigned k, double deadline) {
    if (peer_nic_next_wc(n, PROG, wc, deadline)) return 1;
    if (wc->status == RNIC_CQE_STATUS_SUCCESS) return 0;
    return peer_fail(PROG, "message %u: %s completion status %u", k, wc->is_recv ? "RECV" : "SEND", wc->status);
}

/* The server: the client's ping k is what it received last, the answer to
 * ping k-1 (its fill, 0x7b, before the first). */
static uint8_t ping_content(unsigned k, size_t i) { return k == 0 ? 0x7B : pattern(k - 1, i); }

/* The server's ping-pong: each ping received, checked, answered. */
static int serve(struct peer_nic *n, unsigned size, unsigned iters, double deadline) {
    unsigned got = 0, sent = 0;
    while (sent < iters) {
        struct rnic_wc wc;
        if (next_ok(n, &wc, got, deadline)) return 1;
        if (!wc.is_recv) {
            sent++;
            continue;
        }
        if (got >= iters) return peer_fail(PROG, "a ping more than the iterations asked for");
        if (check_recv(n, size, &wc, got, ping_content) || post_pattern(n, size, got)) return 1;
        got++;
    }
    return 0;
}

/* The client: one ping and its answer, checked byte for byte. */
static int ping_pong(struct peer_nic *n, unsigned size, unsigned k, double deadline) {
    if (post_pattern(n, size, k)) return 1;
    bool sent = false, answered = false;
    while (!sent || !answered) {
        struct rnic_wc wc;
        if (next_ok(n, &wc, k, deadline)) return 1;
        if (!wc.is_recv) {
            sent = true;
            continue;
        }
        if (check_recv(n, size, &wc, k, pattern)) return 1;
        answered = true;
    }
    return 0;
}

static int run(const struct opts *o) {
    double deadline = peer_wall_now() + o->timeout_s;
    int lfd = -1, cfd = -1; /* the server's listening socket and its client's connection */
    if (!o->host) {
        if ((lfd = peer_tcp_listen(o->port)) < 0)
            return peer_fail(PROG, "cannot listen on 127.0.0.1:%u: %s", o->port, strerror(errno));
        printf(PROG ": listening on 127.0.0.1:%u\n", o->port);
        fflush(stdout);
    }
    struct peer_nic n;
    if (peer_nic_open(&n, PROG, o->dev, (size_t)o->size * (2 + RQ_DEPTH), 4, RQ_DEPTH, 0)) {
        if (lfd >= 0) close(lfd);
        return 1;
    }
    int rc = 1;
    /* ibv_rc_pingpong exchanges no MTU: each side is told the same -m. */
    if (!peer_mtu_code(o->mtu) || o->mtu > n.info.mtu) {
        peer_fail(PROG, "path MTU %u: 256, 512, 1024, 2048 or 4096, at most this NIC's %u", o->mtu, n.info.mtu);
        goto out;
    }
    n.path_mtu = o->mtu;
    for (unsigned s = 0; s < RQ_DEPTH; s++)
        if (post_recv_slot(&n, o->size, s)) goto out;

    struct dest me = {.lid = 0, .qpn = rnic_qp_num(n.qp), .psn = peer_first_psn(o->psn)}, peer;
    peer_gid_of_ipv4(n.info.ipv4, me.gid);
    printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID ::ffff:%u.%u.%u.%u\n", me.lid, me.qpn, me.psn,
           me.gid[12], me.gid[13], me.gid[14], me.gid[15]);
    fflush(stdout);
    if (o->host ? exchange_client(o, &me, &peer, deadline) != 0
                : (cfd = exchange_server_read(lfd, &peer, deadline)) < 0)
        goto out;
    printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID ::ffff:%u.%u.%u.%u\n", peer.lid, peer.qpn,
           peer.psn, peer.gid[12], peer.gid[13], peer.gid[14], peer.gid[15]);
    fflush(stdout);
    if (peer_nic_connect(&n, PROG, peer.qpn, me.psn, peer.psn, peer.gid, o->peer_mac, 1)) goto out;
    /* The server answers only now: the client's first SEND may follow at once. */
    if (cfd >= 0) {
        int a = exchange_server_answer(cfd, &me);
        cfd = -1;
        if (a) goto out;
    }

    double t0 = peer_wall_now();
    uint64_t c0 = rnic_time(n.dev);
    if (!o->host && serve(&n, o->size, o->iters, deadline)) {
        fprintf(stderr, PROG ": FAILED serving %u ping-pongs\n", o->iters);
        goto out;
    }
    for (unsigned k = 0; o->host && k < o->iters; k++)
        if (ping_pong(&n, o->size, k, deadline)) {
            fprintf(stderr, PROG ": FAILED at ping-pong %u of %u\n", k, o->iters);
            goto out;
        }
    double usec = (peer_wall_now() - t0) * 1e6;
    uint64_t cycles = rnic_time(n.dev) - c0;
    long long moved = (long long)o->size * o->iters * 2;
    printf("%lld bytes in %.2f seconds = %.2f Mbit/sec\n", moved, usec / 1e6, (double)moved * 8.0 / usec);
    printf("%u iters in %.2f seconds = %.2f usec/iter\n", o->iters, usec / 1e6, usec / o->iters);
    printf(PROG ": %" PRIu64 " NIC cycles, %.0f cycles/iter; %u frames dropped by the NIC (RX_DROPS)\n", cycles,
           (double)cycles / o->iters, rnic_reg_read(n.dev, RNIC_REG_RX_DROPS) - n.drops0);
    printf(PROG ": PASS: %u ping-pongs of %u bytes as the %s, every byte received as the peer must have sent it\n",
           o->iters, o->size, o->host ? "client" : "server");
    rc = 0;
out:
    if (cfd >= 0) close(cfd);
    if (lfd >= 0) close(lfd);
    peer_nic_close(&n);
    return rc;
}

int main(int argc, char **argv) {
    struct opts o;
    if (parse_args(argc, argv, &o) != 0) {
        usage();
        return 2;
    }
    return run(&o);
}
