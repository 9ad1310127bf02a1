/*
 * rnic_rc_pingpong: the client of rdma-core's ibv_rc_pingpong, on this
 * project's NIC through its driver, so that the stock server on a Linux
 * soft-RoCE (rxe) device is the peer:
 *
 *   (peer)  ibv_rc_pingpong -d rxe0 -g 1 -m 4096 -s SIZE -n ITERS
 *   (here)  rnic_rc_pingpong --peer-mac MAC -s SIZE -n ITERS HOST
 *
 * The out-of-band exchange is the tool's (rdma-core's rc_pingpong.c): a TCP
 * connection to HOST:port (18515); the client writes one 52-byte message,
 * "LLLL:QQQQQQ:PPPPPP:" and 32 hex digits, NUL-terminated (LID, QPN, first
 * PSN, and the GID as its 16 bytes in order); the server connects its QP
 * and answers with its own; the client writes "done" (5 bytes with the
 * NUL). This NIC has no LID (0) and is reached by RoCEv2 at its IPv4
 * address, so its GID is the IPv4-mapped ::ffff:a.b.c.d, and the server's
 * GID must be one too (ibv_rc_pingpong -g with the index of its IPv4 GID).
 * The peer's MAC does not travel in the exchange, and this NIC does not do
 * ARP: --peer-mac names it.
 *
 * Then the ping-pong, as the stock client does it: SEND k, and once both
 * its completion and the RECV of the answer are in, SEND k+1. The stock
 * server receives into the buffer it sends from, so each answer is the
 * ping it answers: every ping here carries a different pattern, and every
 * byte of every answer is checked against its ping (the check the stock
 * tools leave out).
 *
 * Prints the exchange, the tool's two result lines (bytes and Mbit/s, iters
 * and usec/iter, wall time) and the NIC's cycles per iteration. Exit 0 when
 * every ping-pong passed; 1 on any failure, with the reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rnic/rnic_drv.h"
#include "rnic_hw.h"

/* sizeof "0000:000000:000000:" plus 32 hex digits and the NUL. */
#define OOB_MSG_BYTES 52
#define RQ_DEPTH 4u /* one answer is in flight at a time: two would do */

struct opts {
    const char *host, *dev;
    unsigned port, size, iters, mtu, timeout_s;
    uint8_t peer_mac[6];
    bool have_mac;
    long psn; /* -1: random, as the stock tool picks its own */
};

struct dest {
    unsigned lid, qpn, psn;
    uint8_t gid[16];
};

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const char *fmt, const char *what) {
    fprintf(stderr, "rnic_rc_pingpong: FAILED: ");
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    return 1;
}

static void usage(void) {
    fprintf(stderr,
            "usage: rnic_rc_pingpong [options] HOST\n"
            "  -p, --port=PORT       the server's TCP port (18515)\n"
            "  -d, --ib-dev=NAME     this project's NIC (rnic0)\n"
            "  -s, --size=BYTES      message size, as the server's -s (4096)\n"
            "  -n, --iters=N         ping-pongs, as the server's -n (1000)\n"
            "  -m, --mtu=BYTES       path MTU, as the server's -m: must be this NIC's (4096)\n"
            "      --peer-mac=MAC    the server's Ethernet address (required)\n"
            "      --psn=N           the first PSN sent (default: random)\n"
            "  -T, --timeout=S       give up after S wall seconds (120)\n");
}

static bool parse_mac(const char *s, uint8_t mac[6]) {
    unsigned b[6];
    char tail;
    if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6) return false;
    for (int i = 0; i < 6; i++) mac[i] = (uint8_t)b[i];
    return true;
}

static bool parse_uint(const char *s, unsigned long max, unsigned *out) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 0);
    if (errno != 0 || end == s || *end != '\0' || v > max) return false;
    *out = (unsigned)v;
    return true;
}

static int parse_args(int argc, char **argv, struct opts *o) {
    *o = (struct opts){.dev = "rnic0", .port = 18515, .size = 4096, .iters = 1000, .mtu = 4096,
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
            ok = parse_uint(v, 65535, &o->port);
        else if (!strcmp(name, "-d") || !strcmp(name, "--ib-dev"))
            o->dev = v;
        else if (!strcmp(name, "-s") || !strcmp(name, "--size"))
            ok = parse_uint(v, 1u << 30, &o->size) && o->size > 0;
        else if (!strcmp(name, "-n") || !strcmp(name, "--iters"))
            ok = parse_uint(v, 1u << 30, &o->iters) && o->iters > 0;
        else if (!strcmp(name, "-m") || !strcmp(name, "--mtu"))
            ok = parse_uint(v, 4096, &o->mtu);
        else if (!strcmp(name, "-T") || !strcmp(name, "--timeout"))
            ok = parse_uint(v, 86400, &o->timeout_s) && o->timeout_s > 0;
        else if (!strcmp(name, "--peer-mac"))
            ok = o->have_mac = parse_mac(v, o->peer_mac);
        else if (!strcmp(name, "--psn")) {
            ok = parse_uint(v, 0xFFFFFF, &psn);
            o->psn = psn;
        } else
            return -1;
        if (!ok) {
            fprintf(stderr, "rnic_rc_pingpong: bad value for %s: %s\n", name, v);
            return -1;
        }
    }
    return o->host && o->have_mac ? 0 : -1;
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

/* All of n bytes, or false (EOF, error). */
static bool read_all(int fd, void *p, size_t n) {
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        got += (size_t)r;
    }
    return true;
}

static int tcp_connect(const char *host, unsigned port) {
    char service[8];
    snprintf(service, sizeof(service), "%u", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, service, &hints, &res) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *t = res; t && fd < 0; t = t->ai_next) {
        fd = socket(t->ai_family, t->ai_socktype | SOCK_CLOEXEC, t->ai_protocol);
        if (fd >= 0 && connect(fd, t->ai_addr, t->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}

/* The client's half of the exchange. A TCP path that forwards to a server
 * not listening yet (QEMU's user network) accepts and then closes: that,
 * and a refused connection, are tried again until the deadline. */
static int exchange(const struct opts *o, const struct dest *me, struct dest *peer, double deadline) {
    char msg[OOB_MSG_BYTES], got[OOB_MSG_BYTES];
    format_dest(me, msg);
    for (;;) {
        int fd = tcp_connect(o->host, o->port);
        if (fd >= 0) {
            bool ok = write(fd, msg, sizeof(msg)) == (ssize_t)sizeof(msg) && read_all(fd, got, sizeof(got));
            if (ok) {
                bool done = write(fd, "done", sizeof("done")) == (ssize_t)sizeof("done");
                close(fd);
                if (!done) return fail("%s", "could not write \"done\" to the server");
                if (!parse_dest(got, peer)) return fail("the server's address message is malformed: %.52s", got);
                return 0;
            }
            close(fd);
        }
        if (wall_now() > deadline) return fail("no answer from an ibv_rc_pingpong server at %s", o->host);
        usleep(100 * 1000);
    }
}

/* ---- the ping-pong ---- */

/* Ping k's byte i: differs from ping to ping and along the message. */
static uint8_t pattern(unsigned k, size_t i) { return (uint8_t)(k * 131u + i * 7u + (i >> 8) + 0x5Au); }

struct pp {
    rnic_dev *dev;
    rnic_cq *cq;
    rnic_qp *qp;
    uint8_t *send_buf, *recv_buf; /* recv_buf: RQ_DEPTH slots of size bytes */
    uint32_t lkey;
    unsigned size;
};

static int post_recv_slot(struct pp *p, unsigned slot) {
    struct rnic_sge s = {(uint64_t)(uintptr_t)(p->recv_buf + (size_t)slot * p->size), p->size, p->lkey};
    memset(p->recv_buf + (size_t)slot * p->size, 0, p->size);
    return rnic_post_recv(p->qp, slot, &s, 1);
}

/* Waits for one completion until the wall-clock deadline. */
static int next_wc(struct pp *p, struct rnic_wc *wc, double deadline) {
    while (wall_now() < deadline) {
        int r = rnic_cq_wait(p->cq, wc, 250000); /* 1 ms of the NIC's clock */
        if (r == 1) return 0;
        if (r != RNIC_E_TIMEOUT) return fail("rnic_cq_wait: %s", rnic_strerror(r));
    }
    return fail("%s", "no completion before the deadline");
}

/* One ping and its answer, checked byte for byte. */
static int ping_pong(struct pp *p, unsigned k, double deadline) {
    for (size_t i = 0; i < p->size; i++) p->send_buf[i] = pattern(k, i);
    struct rnic_sge s = {(uint64_t)(uintptr_t)p->send_buf, p->size, p->lkey};
    struct rnic_send_wr w = {.wr_id = 1000000u + k, .opcode = RNIC_OP_SEND, .flags = RNIC_WQE_FLAG_SIGNALED,
                             .num_sge = 1, .sg = &s};
    int r = rnic_post_send(p->qp, &w);
    if (r != RNIC_OK) return fail("rnic_post_send: %s", rnic_strerror(r));
    bool sent = false, answered = false;
    while (!sent || !answered) {
        struct rnic_wc wc;
        if (next_wc(p, &wc, deadline)) return 1;
        if (wc.status != RNIC_CQE_STATUS_SUCCESS) {
            fprintf(stderr, "rnic_rc_pingpong: iteration %u: %s completion status %u\n", k,
                    wc.is_recv ? "RECV" : "SEND", wc.status);
            return 1;
        }
        if (!wc.is_recv) {
            sent = true;
            continue;
        }
        unsigned slot = (unsigned)wc.wr_id;
        const uint8_t *got = p->recv_buf + (size_t)slot * p->size;
        if (slot >= RQ_DEPTH || wc.byte_len != p->size) {
            fprintf(stderr, "rnic_rc_pingpong: iteration %u: a RECV of %u bytes (slot %u), %u expected\n", k,
                    wc.byte_len, slot, p->size);
            return 1;
        }
        for (size_t i = 0; i < p->size; i++)
            if (got[i] != pattern(k, i)) {
                fprintf(stderr, "rnic_rc_pingpong: iteration %u: answer byte %zu is 0x%02x, the ping's 0x%02x\n", k,
                        i, got[i], pattern(k, i));
                return 1;
            }
        answered = true;
        if ((r = post_recv_slot(p, slot)) != RNIC_OK) return fail("rnic_post_recv: %s", rnic_strerror(r));
    }
    return 0;
}

static int run(const struct opts *o) {
    double deadline = wall_now() + o->timeout_s;
    struct pp p = {.size = o->size};
    struct rnic_dev_info info;
    rnic_mr *mr = NULL;
    uint16_t pz = 0;
    bool have_pz = false;
    int r = rnic_open(o->dev, &p.dev);
    if (r != RNIC_OK) {
        fprintf(stderr, "rnic_rc_pingpong: FAILED: rnic_open %s: %s (%s)\n", o->dev, rnic_strerror(r),
                rnic_open_error());
        return 1;
    }
    rnic_query(p.dev, &info);
    if (o->mtu != info.mtu) {
        fprintf(stderr, "rnic_rc_pingpong: FAILED: path MTU %u asked; this NIC's is %u (the server needs -m %u)\n",
                o->mtu, info.mtu, info.mtu);
        rnic_close(p.dev);
        return 1;
    }
    size_t bytes = (size_t)o->size * (1 + RQ_DEPTH);
    uint8_t *mem = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
    int rc = 1;
    if (!mem) {
        fail("%s", "out of memory");
        goto out_dev;
    }
    p.send_buf = mem;
    p.recv_buf = mem + o->size;
    struct rnic_qp_attr qa = {.sq_entries = 4, .rq_entries = RQ_DEPTH, .max_rd = 1};
    have_pz = (r = rnic_pz_alloc(p.dev, &pz)) == RNIC_OK;
    if (!have_pz || (r = rnic_cq_create(p.dev, 16, &p.cq)) != RNIC_OK) {
        fail("setting up: %s", rnic_strerror(r));
        goto out_mem;
    }
    qa.send_cq = qa.recv_cq = p.cq;
    qa.pz = pz;
    if ((r = rnic_mr_reg(p.dev, mem, bytes, pz, RNIC_ACCESS_LOCAL_READ | RNIC_ACCESS_LOCAL_WRITE, &mr)) != RNIC_OK ||
        (r = rnic_qp_create(p.dev, &qa, &p.qp)) != RNIC_OK) {
        fail("setting up: %s", rnic_strerror(r));
        goto out_mem;
    }
    p.lkey = rnic_mr_key(mr);
    for (unsigned s = 0; s < RQ_DEPTH; s++)
        if ((r = post_recv_slot(&p, s)) != RNIC_OK) {
            fail("rnic_post_recv: %s", rnic_strerror(r));
            goto out_mem;
        }

    struct dest me = {.lid = 0, .qpn = rnic_qp_num(p.qp)}, peer;
    if (o->psn >= 0) {
        me.psn = (unsigned)o->psn;
    } else {
        srand48((long)getpid() * (long)time(NULL));
        me.psn = (unsigned)(lrand48() & 0xFFFFFF);
    }
    me.gid[10] = me.gid[11] = 0xFF;
    for (int i = 0; i < 4; i++) me.gid[12 + i] = (uint8_t)(info.ipv4 >> (24 - 8 * i));
    printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID ::ffff:%u.%u.%u.%u\n", me.lid, me.qpn, me.psn,
           me.gid[12], me.gid[13], me.gid[14], me.gid[15]);
    fflush(stdout);
    if (exchange(o, &me, &peer, deadline)) goto out_mem;
    printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID ::ffff:%u.%u.%u.%u\n", peer.lid, peer.qpn,
           peer.psn, peer.gid[12], peer.gid[13], peer.gid[14], peer.gid[15]);
    fflush(stdout);
    static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    if (memcmp(peer.gid, v4mapped, sizeof(v4mapped)) != 0) {
        fail("%s", "the server's GID is not IPv4-mapped: give it -g with the index of its IPv4 GID");
        goto out_mem;
    }
    struct rnic_qp_remote rem = {.qpn = peer.qpn, .sq_psn = me.psn, .rq_psn = peer.psn};
    for (int i = 0; i < 4; i++) rem.ipv4 = rem.ipv4 << 8 | peer.gid[12 + i];
    memcpy(rem.mac, o->peer_mac, 6);
    if ((r = rnic_qp_connect(p.qp, &rem)) != RNIC_OK) {
        fail("rnic_qp_connect: %s", rnic_strerror(r));
        goto out_mem;
    }

    double t0 = wall_now();
    uint64_t c0 = rnic_time(p.dev);
    uint32_t drops0 = rnic_reg_read(p.dev, RNIC_REG_RX_DROPS);
    for (unsigned k = 0; k < o->iters; k++)
        if (ping_pong(&p, k, deadline)) {
            fprintf(stderr, "rnic_rc_pingpong: FAILED at ping-pong %u of %u\n", k, o->iters);
            goto out_mem;
        }
    double usec = (wall_now() - t0) * 1e6;
    uint64_t cycles = rnic_time(p.dev) - c0;
    long long moved = (long long)o->size * o->iters * 2;
    printf("%lld bytes in %.2f seconds = %.2f Mbit/sec\n", moved, usec / 1e6, (double)moved * 8.0 / usec);
    printf("%u iters in %.2f seconds = %.2f usec/iter\n", o->iters, usec / 1e6, usec / o->iters);
    printf("rnic_rc_pingpong: %" PRIu64 " NIC cycles, %.0f cycles/iter; %u frames dropped by the NIC (RX_DROPS)\n",
           cycles, (double)cycles / o->iters, rnic_reg_read(p.dev, RNIC_REG_RX_DROPS) - drops0);
    printf("rnic_rc_pingpong: PASS: %u ping-pongs of %u bytes, every byte of every answer equal to its ping\n",
           o->iters, o->size);
    rc = 0;
out_mem:
    if (p.qp) rnic_qp_destroy(p.qp);
    if (mr) rnic_mr_dereg(mr);
    if (p.cq) rnic_cq_destroy(p.cq);
    if (have_pz) rnic_pz_free(p.dev, pz);
    free(mem);
out_dev:
    rnic_close(p.dev);
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
