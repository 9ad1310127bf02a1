/*
 * rnic_rc_pingpong: rdma-core's ibv_rc_pingpong on this project's NIC,
 * through its driver, so that the stock tool on a Linux soft-RoCE (rxe)
 * device is the peer, either way round:
 *
 *   (peer)  ibv_rc_pingpong -d rxe0 -g 1 -m 4096 -s SIZE -n ITERS
 *   (here)  rnic_rc_pingpong --peer-mac MAC -s SIZE -n ITERS HOST
 *
 *   (here)  rnic_rc_pingpong --peer-mac MAC -s SIZE -n ITERS
 *   (peer)  ibv_rc_pingpong -d rxe0 -g 1 -m 4096 -s SIZE -n ITERS HOST
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
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
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
            "usage: rnic_rc_pingpong [options] [HOST]   (no HOST: the server)\n"
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
static int exchange_client(const struct opts *o, const struct dest *me, struct dest *peer, double deadline) {
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

/* The server's socket, on 127.0.0.1:port, before anything else: whoever
 * starts the client waits for the line that says it listens. */
static int tcp_listen(unsigned port) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 1) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The server's first half: a client's connection and its message. Returns
 * the connection, or -1. */
static int exchange_server_read(int lfd, struct dest *peer, double deadline) {
    struct pollfd pfd = {.fd = lfd, .events = POLLIN};
    int left_ms = (int)((deadline - wall_now()) * 1000);
    if (left_ms <= 0 || poll(&pfd, 1, left_ms) != 1) {
        fail("%s", "no client connected before the deadline");
        return -1;
    }
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    char got[OOB_MSG_BYTES];
    if (fd < 0) {
        fail("accept: %s", strerror(errno));
        return -1;
    }
    if (!read_all(fd, got, sizeof(got)) || !parse_dest(got, peer)) {
        close(fd);
        fail("%s", "the client's address message is missing or malformed");
        return -1;
    }
    return fd;
}

/* The server's second half, once its QP is connected: its message, then
 * the client's "done" (or its end of the connection). */
static int exchange_server_answer(int fd, const struct dest *me) {
    char msg[OOB_MSG_BYTES];
    format_dest(me, msg);
    bool ok = write(fd, msg, sizeof(msg)) == (ssize_t)sizeof(msg);
    if (ok)
        while (read(fd, msg, sizeof(msg)) < 0 && errno == EINTR) continue;
    close(fd);
    return ok ? 0 : fail("%s", "could not write the address message to the client");
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

/* A RECV completion: the right slot and length, and every byte what the
 * peer must have sent (want(k, i)); then the slot is posted again. */
static int check_recv(struct pp *p, const struct rnic_wc *wc, unsigned k, uint8_t (*want)(unsigned, size_t)) {
    unsigned slot = (unsigned)wc->wr_id;
    if (slot >= RQ_DEPTH || wc->byte_len != p->size) {
        fprintf(stderr, "rnic_rc_pingpong: message %u: a RECV of %u bytes (slot %u), %u expected\n", k, wc->byte_len,
                slot, p->size);
        return 1;
    }
    const uint8_t *got = p->recv_buf + (size_t)slot * p->size;
    for (size_t i = 0; i < p->size; i++)
        if (got[i] != want(k, i)) {
            fprintf(stderr, "rnic_rc_pingpong: message %u: byte %zu is 0x%02x, 0x%02x expected\n", k, i, got[i],
                    want(k, i));
            return 1;
        }
    int r = post_recv_slot(p, slot);
    return r == RNIC_OK ? 0 : fail("rnic_post_recv: %s", rnic_strerror(r));
}

static int post_pattern(struct pp *p, unsigned k) {
    uint8_t *buf = p->send_buf + (size_t)(k % 2) * p->size; /* SEND k-1 may not have completed yet */
    for (size_t i = 0; i < p->size; i++) buf[i] = pattern(k, i);
    struct rnic_sge s = {(uint64_t)(uintptr_t)buf, p->size, p->lkey};
    struct rnic_send_wr w = {.wr_id = 1000000u + k, .opcode = RNIC_OP_SEND, .flags = RNIC_WQE_FLAG_SIGNALED,
                             .num_sge = 1, .sg = &s};
    int r = rnic_post_send(p->qp, &w);
    return r == RNIC_OK ? 0 : fail("rnic_post_send: %s", rnic_strerror(r));
}

static bool wc_ok(const struct rnic_wc *wc, unsigned k) {
    if (wc->status == RNIC_CQE_STATUS_SUCCESS) return true;
    fprintf(stderr, "rnic_rc_pingpong: message %u: %s completion status %u\n", k, wc->is_recv ? "RECV" : "SEND",
            wc->status);
    return false;
}

/* The server: the client's ping k is what it received last, the answer to
 * ping k-1 (its fill, 0x7b, before the first). */
static uint8_t ping_content(unsigned k, size_t i) { return k == 0 ? 0x7B : pattern(k - 1, i); }

/* The server's ping-pong: each ping received, checked, answered. */
static int serve(struct pp *p, unsigned iters, double deadline) {
    unsigned got = 0, sent = 0;
    while (sent < iters) {
        struct rnic_wc wc;
        if (next_wc(p, &wc, deadline) || !wc_ok(&wc, got)) return 1;
        if (!wc.is_recv) {
            sent++;
            continue;
        }
        if (got >= iters) return fail("%s", "a ping more than the iterations asked for");
        if (check_recv(p, &wc, got, ping_content) || post_pattern(p, got)) return 1;
        got++;
    }
    return 0;
}

/* One ping and its answer, checked byte for byte. */
static int ping_pong(struct pp *p, unsigned k, double deadline) {
    if (post_pattern(p, k)) return 1;
    bool sent = false, answered = false;
    while (!sent || !answered) {
        struct rnic_wc wc;
        if (next_wc(p, &wc, deadline) || !wc_ok(&wc, k)) return 1;
        if (!wc.is_recv) {
            sent = true;
            continue;
        }
        if (check_recv(p, &wc, k, pattern)) return 1;
        answered = true;
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
    int lfd = -1, cfd = -1; /* the server's listening socket and its client's connection */
    if (!o->host) {
        if ((lfd = tcp_listen(o->port)) < 0) {
            fprintf(stderr, "rnic_rc_pingpong: FAILED: cannot listen on 127.0.0.1:%u: %s\n", o->port, strerror(errno));
            return 1;
        }
        printf("rnic_rc_pingpong: listening on 127.0.0.1:%u\n", o->port);
        fflush(stdout);
    }
    int r = rnic_open(o->dev, &p.dev);
    if (r != RNIC_OK) {
        fprintf(stderr, "rnic_rc_pingpong: FAILED: rnic_open %s: %s (%s)\n", o->dev, rnic_strerror(r),
                rnic_open_error());
        if (lfd >= 0) close(lfd);
        return 1;
    }
    rnic_query(p.dev, &info);
    if (o->mtu != info.mtu) {
        fprintf(stderr, "rnic_rc_pingpong: FAILED: path MTU %u asked; this NIC's is %u (the peer needs -m %u)\n",
                o->mtu, info.mtu, info.mtu);
        rnic_close(p.dev);
        if (lfd >= 0) close(lfd);
        return 1;
    }
    size_t bytes = (size_t)o->size * (2 + RQ_DEPTH); /* two to send from, RQ_DEPTH to receive into */
    uint8_t *mem = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
    int rc = 1;
    if (!mem) {
        fail("%s", "out of memory");
        goto out_dev;
    }
    p.send_buf = mem;
    p.recv_buf = mem + 2 * (size_t)o->size;
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
    if (o->host ? exchange_client(o, &me, &peer, deadline) != 0
                : (cfd = exchange_server_read(lfd, &peer, deadline)) < 0)
        goto out_mem;
    printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID ::ffff:%u.%u.%u.%u\n", peer.lid, peer.qpn,
           peer.psn, peer.gid[12], peer.gid[13], peer.gid[14], peer.gid[15]);
    fflush(stdout);
    static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    if (memcmp(peer.gid, v4mapped, sizeof(v4mapped)) != 0) {
        fail("%s", "the peer's GID is not IPv4-mapped: give it -g with the index of its IPv4 GID");
        goto out_mem;
    }
    struct rnic_qp_remote rem = {.qpn = peer.qpn, .sq_psn = me.psn, .rq_psn = peer.psn};
    for (int i = 0; i < 4; i++) rem.ipv4 = rem.ipv4 << 8 | peer.gid[12 + i];
    memcpy(rem.mac, o->peer_mac, 6);
    if ((r = rnic_qp_connect(p.qp, &rem)) != RNIC_OK) {
        fail("rnic_qp_connect: %s", rnic_strerror(r));
        goto out_mem;
    }
    /* The server answers only now: the client's first SEND may follow at once. */
    if (cfd >= 0) {
        int a = exchange_server_answer(cfd, &me);
        cfd = -1;
        if (a) goto out_mem;
    }

    double t0 = wall_now();
    uint64_t c0 = rnic_time(p.dev);
    uint32_t drops0 = rnic_reg_read(p.dev, RNIC_REG_RX_DROPS);
    if (!o->host && serve(&p, o->iters, deadline)) {
        fprintf(stderr, "rnic_rc_pingpong: FAILED serving %u ping-pongs\n", o->iters);
        goto out_mem;
    }
    for (unsigned k = 0; o->host && k < o->iters; k++)
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
    printf("rnic_rc_pingpong: PASS: %u ping-pongs of %u bytes as the %s, every byte received as the peer must "
           "have sent it\n",
           o->iters, o->size, o->host ? "client" : "server");
    rc = 0;
out_mem:
    if (p.qp) rnic_qp_destroy(p.qp);
    if (mr) rnic_mr_dereg(mr);
    if (p.cq) rnic_cq_destroy(p.cq);
    if (have_pz) rnic_pz_free(p.dev, pz);
    free(mem);
out_dev:
    rnic_close(p.dev);
    if (cfd >= 0) close(cfd);
    if (lfd >= 0) close(lfd);
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
