/*
 * rnic_perftest: perftest's ib_write_bw and ib_read_bw on this project's
 * NIC through its driver, so that the stock tool on a Linux soft-RoCE
 * (rxe) device is the peer, either way round:
 *
 *   (peer)  ib_write_bw -d rxe0 -x 1 -s SIZE -n ITERS -F   (or ib_read_bw)
 *   (here)  rnic_perftest --verb write|read --peer-mac MAC -s SIZE -n ITERS HOST
 *
 *   (here)  rnic_perftest --verb write|read --peer-mac MAC -s SIZE -n ITERS
 *   (peer)  ib_write_bw -d rxe0 -x 1 -s SIZE -n ITERS -F HOST
 *
 * and the client of ib_read_lat (--verb read --lat: one READ at a time,
 * each one's latency from the doorbell to the completion) and of
 * ib_write_lat (--verb write --lat: the server WRITEs SIZE bytes whose last
 * byte is k, the rest zeros, and every byte of it is checked when the
 * client sees that k; the client WRITEs its own k back, k = 1 .. ITERS, as
 * read off a capture; half of each round trip is the latency, as perftest
 * counts it).
 *
 * The out-of-band exchange is perftest's over TCP (port 18515), as Debian
 * 12's perftest 4.5+0.17 speaks it (read off a capture of two rxe VMs,
 * docs/interop.md); at every step the client writes first and the server
 * answers with the same kind of message (the server here listens on
 * 127.0.0.1, where QEMU's user network brings a guest's 10.0.2.2):
 *   1. 16 bytes: the version string ("6.06", NUL-padded);
 *   2. 4 bytes, big-endian: 4096 (the page size: what the stock tools send);
 *   3. 4 bytes, big-endian: 64 (the cache line size, likewise);
 *   4. 2 bytes: the path MTU as ibv_mtu's number in decimal and a NUL ("3"
 *      is 1024, "5" 4096); both sides take the smaller. This side offers
 *      its -m, or the NIC's 4096; perftest on rxe offers its port's active
 *      MTU (1024 on a 1,500-byte Ethernet) unless given -m;
 *   5. the QP's address, 108 bytes, NUL-terminated:
 *      LLLL:OOOO:QQQQQQ:PPPPPP:RRRRRRRR:VVVVVVVVVVVVVVVV: then the GID as 16
 *      "xx:" bytes, then SSSSSSSS: (LID, READs it takes in, QPN, first PSN,
 *      rkey, buffer address, GID, SRQ number), hex; three times (four for
 *      ib_read_lat; the server connects its QP in between);
 *   6. the test itself: RDMA WRITEs or READs of the server's buffer;
 *   7. the address once more (the end of the test); then, for the
 *      bandwidth tools, five 8-byte big-endian fields, each answered by the
 *      server's: message size, iterations, peak and average MB/s and Mpps
 *      as IEEE doubles (the server prints the client's as its result), and
 *      the address once more;
 *   8. "done" and its NUL (ib_write_lat has neither 7 nor 8: its server
 *      closes the connection once the last WRITE has come).
 *
 * The client does the WRITEs or READs, into or out of the server's buffer;
 * the server only waits for the address that ends the test. As the server
 * this program lends the NIC's buffer: for a read test it holds a pattern,
 * which must still be there after the READs; for a write test it held
 * zeros, and afterwards the SIZE bytes at the address given must not be
 * all zeros while every byte after them must still be one (nothing landed
 * outside the range).
 *
 * Checked as the client, beyond what perftest checks: the read server fills its buffer
 * with random bytes and its QP takes no WRITE, so every READ of it must
 * bring the same bytes as the first, which must not be the zeros the
 * local buffer held before (every byte of every READ compared). The write
 * test WRITEs ITERS times, a different pattern each time; nothing here can
 * look at where they land (the write server's QP takes no READ).
 *
 * Prints the exchange, a result line as perftest's (wall time) and the
 * NIC's cycles. Exit 0 when everything passed, 1 on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peer_common.h"

#define PROG "rnic_perftest"
#define ADDR_MSG_BYTES 108
#define VERSION_BYTES 16
#define WINDOW 4u /* requests in flight: no more than a READ-taking QP allows */

struct opts {
    const char *host, *dev; /* host NULL: the server */
    unsigned port, size, iters, timeout_s;
    unsigned mtu; /* path MTU offered, bytes; 0: the NIC's */
    bool read; /* ib_read_bw; else ib_write_bw */
    bool lat;  /* ib_read_lat */
    uint8_t peer_mac[6];
    bool have_mac;
    long psn;
};

struct addr {
    unsigned lid, out_reads, qpn, psn, rkey, srqn;
    unsigned long long vaddr;
    uint8_t gid[16];
};

static void usage(void) {
    fprintf(stderr, "usage: " PROG " --verb write|read --peer-mac MAC [options] [HOST]   (no HOST: the server)\n"
                    "  -p PORT      the server's TCP port (18515)\n"
                    "  -d NAME      this project's NIC (rnic0)\n"
                    "  -s BYTES     message size, at most the server's -s (65536)\n"
                    "  -n N         iterations (5)\n"
                    "  -m BYTES     path MTU offered (the NIC's, 4096); the smaller of the two sides' is used\n"
                    "  --lat        ib_read_lat's or ib_write_lat's client (with HOST)\n"
                    "  --psn N      the first PSN sent (default: random)\n"
                    "  -T S         give up after S wall seconds (120)\n");
}

static int parse_args(int argc, char **argv, struct opts *o) {
    *o = (struct opts){.dev = "rnic0", .port = 18515, .size = 65536, .iters = 5, .timeout_s = 120, .psn = -1};
    bool have_verb = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-') {
            if (o->host) return -1;
            o->host = a;
            continue;
        }
        if (!strcmp(a, "--lat")) {
            o->lat = true;
            continue;
        }
        if (i + 1 >= argc) return -1;
        const char *v = argv[++i];
        unsigned u;
        bool ok = true;
        if (!strcmp(a, "-p"))
            ok = peer_parse_uint(v, 65535, &o->port);
        else if (!strcmp(a, "-d"))
            o->dev = v;
        else if (!strcmp(a, "-s"))
            ok = peer_parse_uint(v, 1u << 30, &o->size) && o->size > 0;
        else if (!strcmp(a, "-n"))
            ok = peer_parse_uint(v, 1u << 20, &o->iters) && o->iters > 0;
        else if (!strcmp(a, "-m"))
            ok = peer_parse_uint(v, 4096, &o->mtu) && peer_mtu_code(o->mtu);
        else if (!strcmp(a, "-T"))
            ok = peer_parse_uint(v, 86400, &o->timeout_s) && o->timeout_s > 0;
        else if (!strcmp(a, "--peer-mac"))
            ok = o->have_mac = peer_parse_mac(v, o->peer_mac);
        else if (!strcmp(a, "--psn")) {
            ok = peer_parse_uint(v, 0xFFFFFF, &u);
            o->psn = u;
        } else if (!strcmp(a, "--verb")) {
            ok = have_verb = !strcmp(v, "write") || !strcmp(v, "read");
            o->read = !strcmp(v, "read");
        } else
            return -1;
        if (!ok) {
            fprintf(stderr, PROG ": bad value for %s: %s\n", a, v);
            return -1;
        }
    }
    if (o->lat && !o->host) {
        fprintf(stderr, PROG ": --lat is ib_read_lat's and ib_write_lat's client: it needs HOST\n");
        return -1;
    }
    return o->have_mac && have_verb ? 0 : -1;
}

static uint8_t pattern(unsigned k, size_t i) { return (uint8_t)(k * 37u + i * 13u + (i >> 9) + 0xA5u); }

/* ---- the out-of-band exchange ---- */

static void format_addr(const struct addr *a, char msg[ADDR_MSG_BYTES]) {
    int n = snprintf(msg, ADDR_MSG_BYTES, "%04x:%04x:%06x:%06x:%08x:%016llx:", a->lid & 0xFFFFu,
                     a->out_reads & 0xFFFFu, a->qpn & 0xFFFFFFu, a->psn & 0xFFFFFFu, a->rkey, a->vaddr);
    for (int i = 0; i < 16; i++) n += snprintf(msg + n, (size_t)(ADDR_MSG_BYTES - n), "%02x:", a->gid[i]);
    snprintf(msg + n, (size_t)(ADDR_MSG_BYTES - n), "%08x:", a->srqn);
}

static bool parse_addr(const char msg[ADDR_MSG_BYTES], struct addr *a) {
    if (memchr(msg, '\0', ADDR_MSG_BYTES) == NULL) return false;
    int used = 0;
    if (sscanf(msg, "%x:%x:%x:%x:%x:%llx:%n", &a->lid, &a->out_reads, &a->qpn, &a->psn, &a->rkey, &a->vaddr,
               &used) != 6 ||
        used == 0)
        return false;
    const char *p = msg + used;
    for (int i = 0; i < 16; i++) {
        unsigned b;
        int k = 0;
        if (sscanf(p, "%2x:%n", &b, &k) != 1 || k != 3) return false;
        a->gid[i] = (uint8_t)b;
        p += k;
    }
    return sscanf(p, "%x:", &a->srqn) == 1;
}

/* One step of the exchange: the client's message first, then the
 * server's (ours n bytes, theirs m). */
static bool server_side;
static bool step(int fd, const void *ours, size_t n, void *theirs, size_t m) {
    if (server_side) return peer_read_all(fd, theirs, m) && peer_write_all(fd, ours, n);
    return peer_write_all(fd, ours, n) && peer_read_all(fd, theirs, m);
}

/* The server's buffer after the test: a read test's pattern intact; a
 * write test's range written (not all zeros) and nothing after it. */
static int check_lent(const struct peer_nic *n, const struct opts *o) {
    const uint8_t *m = n->mem;
    size_t lent = (size_t)o->size * (WINDOW + 1);
    if (o->read) {
        for (size_t i = 0; i < o->size; i++)
            if (m[i] != pattern(0, i))
                return peer_fail(PROG, "byte %zu of the buffer READ from changed to 0x%02x", i, m[i]);
        return 0;
    }
    bool any = false;
    for (size_t i = 0; i < o->size && !any; i++) any = m[i] != 0;
    if (!any) return peer_fail(PROG, "the client's WRITEs left the %u bytes at the address given all zero", o->size);
    for (size_t i = o->size; i < lent; i++)
        if (m[i] != 0) return peer_fail(PROG, "byte %zu, past the %u bytes lent, changed to 0x%02x", i, o->size, m[i]);
    return 0;
}

static uint64_t be64(uint64_t v) {
    uint64_t r = 0;
    for (int i = 0; i < 8; i++) ((uint8_t *)&r)[i] = (uint8_t)(v >> (56 - 8 * i));
    return r;
}

static uint64_t bits_of(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof(u));
    return u;
}

/* ---- the test ---- */

/* A READ's bytes: the first READ's (kept in `ref`, and not all zero from
 * 8 bytes on: fewer random bytes may well be), for every later one. */
static int check_read(const uint8_t *got, uint8_t *ref, size_t size, unsigned k) {
    if (k == 0) {
        memcpy(ref, got, size);
        for (size_t i = 0; i < size; i++)
            if (got[i] != 0) return 0;
        return size < 8 ? 0 : peer_fail(PROG, "READ 0 brought nothing but zeros, what the buffer held before");
    }
    for (size_t i = 0; i < size; i++)
        if (got[i] != ref[i])
            return peer_fail(PROG, "READ %u: byte %zu is 0x%02x, READ 0 brought 0x%02x", k, i, got[i], ref[i]);
    return 0;
}

/* Each operation's latency, doorbell to completion (lat: one at a time). */
struct lat {
    double *usec;
    uint64_t *cycles;
};

/* Posts `count` RDMA operations of o->size bytes, WINDOW at a time (one
 * with `lat`, whose arrays get each one's latency), and waits for all;
 * `local(k)` is where operation k reads or lands. READs are checked
 * (check_read, the reference in the slot after the window's). */
static int run_ops(struct peer_nic *n, const struct opts *o, const struct addr *srv, unsigned op, unsigned count,
                   uint8_t *(*local)(struct peer_nic *, const struct opts *, unsigned), struct lat *lat,
                   double deadline) {
    unsigned posted = 0, done = 0, window = lat ? 1 : WINDOW;
    double t_post = 0;
    uint64_t c_post = 0;
    while (done < count) {
        while (posted < count && posted - done < window) {
            uint8_t *buf = local(n, o, posted);
            if (op == RNIC_OP_RDMA_WRITE)
                for (size_t i = 0; i < o->size; i++) buf[i] = pattern(posted, i);
            else
                memset(buf, 0, o->size);
            struct rnic_sge s = {(uint64_t)(uintptr_t)buf, o->size, n->lkey};
            struct rnic_send_wr w = {.wr_id = posted, .opcode = (uint8_t)op, .flags = RNIC_WQE_FLAG_SIGNALED,
                                     .num_sge = 1, .sg = &s, .remote_addr = srv->vaddr, .rkey = srv->rkey};
            t_post = peer_wall_now();
            c_post = rnic_time(n->dev);
            int r = rnic_post_send(n->qp, &w);
            if (r != RNIC_OK) return peer_fail(PROG, "rnic_post_send: %s", rnic_strerror(r));
            posted++;
        }
        struct rnic_wc wc;
        if (peer_nic_next_wc(n, PROG, &wc, deadline)) return 1;
        if (wc.status != RNIC_CQE_STATUS_SUCCESS)
            return peer_fail(PROG, "%s %" PRIu64 ": completion status %u", op == RNIC_OP_RDMA_WRITE ? "WRITE" : "READ",
                             wc.wr_id, wc.status);
        if (wc.wr_id != done) return peer_fail(PROG, "completion %" PRIu64 " where %u was next", wc.wr_id, done);
        if (lat) {
            lat->usec[done] = (peer_wall_now() - t_post) * 1e6;
            lat->cycles[done] = rnic_time(n->dev) - c_post;
        }
        if (op == RNIC_OP_RDMA_READ &&
            check_read(local(n, o, done), n->mem + (size_t)WINDOW * o->size, o->size, done))
            return 1;
        done++;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* ib_write_lat's client: for k = 1 .. ITERS, the server's WRITE k (its
 * last byte k) lands in the buffer lent at slot 0; then WRITE k goes back
 * from slot 1 with its last byte k. lat gets half of each round trip. */
static int write_lat(struct peer_nic *n, const struct opts *o, const struct addr *srv, struct lat *lat,
                     double deadline) {
    volatile const uint8_t *last = n->mem + o->size - 1;
    uint8_t *src = n->mem + o->size;
    double t_sent = 0;
    uint64_t c_sent = 0;
    unsigned completed = 0;
    for (unsigned k = 1; k <= o->iters; k++) {
        while (*last != (uint8_t)k) {
            struct rnic_wc wc;
            while (rnic_cq_take(n->cq, &wc, 1) == 1) {
                if (wc.status != RNIC_CQE_STATUS_SUCCESS)
                    return peer_fail(PROG, "WRITE %" PRIu64 ": completion status %u", wc.wr_id, wc.status);
                completed++;
            }
            if (peer_wall_now() > deadline) return peer_fail(PROG, "the server's WRITE %u never landed", k);
            rnic_wait(n->dev, 250);
        }
        if (k > 1) {
            lat->usec[k - 2] = (peer_wall_now() - t_sent) * 1e6 / 2;
            lat->cycles[k - 2] = (rnic_time(n->dev) - c_sent) / 2;
        }
        /* The server's buffer is zeros but for the count: so is every byte
         * that landed. */
        for (size_t i = 0; i + 1 < o->size; i++)
            if (n->mem[i] != 0) return peer_fail(PROG, "the server's WRITE %u: byte %zu is 0x%02x, not 0", k, i, n->mem[i]);
        memset(src, 0, o->size);
        src[o->size - 1] = (uint8_t)k;
        struct rnic_sge sg = {(uint64_t)(uintptr_t)src, o->size, n->lkey};
        struct rnic_send_wr w = {.wr_id = k, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                                 .num_sge = 1, .sg = &sg, .remote_addr = srv->vaddr, .rkey = srv->rkey};
        t_sent = peer_wall_now();
        c_sent = rnic_time(n->dev);
        int r = rnic_post_send(n->qp, &w);
        if (r != RNIC_OK) return peer_fail(PROG, "rnic_post_send: %s", rnic_strerror(r));
    }
    /* The last WRITE's round trip is not seen: its latency is the one before. */
    lat->usec[o->iters - 1] = o->iters > 1 ? lat->usec[o->iters - 2] : 0;
    lat->cycles[o->iters - 1] = o->iters > 1 ? lat->cycles[o->iters - 2] : 0;
    while (completed < o->iters) {
        struct rnic_wc wc;
        if (peer_nic_next_wc(n, PROG, &wc, deadline)) return 1;
        if (wc.status != RNIC_CQE_STATUS_SUCCESS)
            return peer_fail(PROG, "WRITE %" PRIu64 ": completion status %u", wc.wr_id, wc.status);
        completed++;
    }
    return 0;
}

/* Operation k's local buffer: one of WINDOW slots. */
static uint8_t *slot(struct peer_nic *n, const struct opts *o, unsigned k) {
    return n->mem + (size_t)(k % WINDOW) * o->size;
}

static int run(const struct opts *o) {
    double deadline = peer_wall_now() + o->timeout_s;
    struct peer_nic n;
    int lfd = -1;
    server_side = o->host == NULL;
    if (server_side) {
        if ((lfd = peer_tcp_listen(o->port)) < 0)
            return peer_fail(PROG, "cannot listen on 127.0.0.1:%u: %s", o->port, strerror(errno));
        printf(PROG ": listening on 127.0.0.1:%u\n", o->port);
        fflush(stdout);
    }
    if (peer_nic_open(&n, PROG, o->dev, (size_t)o->size * (WINDOW + 1), 2 * WINDOW, 1,
                      RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE)) {
        if (lfd >= 0) close(lfd);
        return 1;
    }
    int rc = 1, fd = -1;
    if (server_side) {
        /* The client's WRITEs and READs come while this thread waits on the
         * side channel: the NIC's time must run without driver calls. */
        int r = rnic_time_run_alone(n.dev);
        if (r != RNIC_OK) {
            peer_fail(PROG, "rnic_time_run_alone: %s", rnic_strerror(r));
            goto out;
        }
        if (o->read)
            for (size_t i = 0; i < o->size; i++) n.mem[i] = pattern(0, i);
    }
    struct addr me = {.out_reads = o->read ? n.info.max_rd : 1, .qpn = rnic_qp_num(n.qp),
                      .psn = peer_first_psn(o->psn), .rkey = n.rkey, .vaddr = (uintptr_t)n.mem}, srv;
    peer_gid_of_ipv4(n.info.ipv4, me.gid);
    char ver[VERSION_BYTES] = "6.06", their_ver[VERSION_BYTES + 1] = {0};
    const uint8_t page[4] = {0, 0, 0x10, 0}, line[4] = {0, 0, 0, 64}; /* 4096 and 64, big-endian */
    uint8_t their_page[4], their_line[4];
    const unsigned my_code = peer_mtu_code(o->mtu && o->mtu < n.info.mtu ? o->mtu : n.info.mtu);
    char mtu[2] = {(char)('0' + my_code), 0}, their_mtu[2] = {0};
    char msg[ADDR_MSG_BYTES], got[ADDR_MSG_BYTES];
    format_addr(&me, msg);

    if (server_side) {
        if ((fd = peer_tcp_accept(lfd, deadline)) < 0 || !step(fd, ver, sizeof(ver), their_ver, VERSION_BYTES)) {
            peer_fail(PROG, "no perftest client came before the deadline");
            goto out;
        }
    } else if ((fd = peer_tcp_hello(o->host, o->port, ver, sizeof(ver), their_ver, VERSION_BYTES, deadline)) < 0) {
        peer_fail(PROG, "no answer from a perftest server at %s:%u", o->host, o->port);
        goto out;
    }
    if (!step(fd, page, 4, their_page, 4) || !step(fd, line, 4, their_line, 4) || !step(fd, mtu, 2, their_mtu, 2) ||
        !step(fd, msg, sizeof(msg), got, sizeof(got))) {
        peer_fail(PROG, "the peer ended the exchange early (version \"%s\")", their_ver);
        goto out;
    }
    /* Both sides take the smaller path MTU. */
    if (their_mtu[0] < '1' || their_mtu[0] > '5' || their_mtu[1] != 0) {
        peer_fail(PROG, "the peer's path MTU is not an ibv_mtu from 1 to 5: \"%.2s\"", their_mtu);
        goto out;
    }
    const unsigned their_code = (unsigned)(their_mtu[0] - '0');
    n.path_mtu = 128u << (their_code < my_code ? their_code : my_code);
    if (!parse_addr(got, &srv)) {
        peer_fail(PROG, "the peer's address message is malformed: %.108s", got);
        goto out;
    }
    printf(" local address: LID %#04x OUT %#04x QPN %#06x PSN %#06x RKey %#08x VAddr %#016llx\n", me.lid, me.out_reads,
           me.qpn, me.psn, me.rkey, me.vaddr);
    printf(" remote address: LID %#04x OUT %#04x QPN %#06x PSN %#06x RKey %#08x VAddr %#016llx (version %s)\n",
           srv.lid, srv.out_reads, srv.qpn, srv.psn, srv.rkey, srv.vaddr, their_ver);
    fflush(stdout);
    unsigned max_rd = srv.out_reads < n.info.max_rd ? srv.out_reads : n.info.max_rd;
    if (peer_nic_connect(&n, PROG, srv.qpn, me.psn, srv.psn, srv.gid, o->peer_mac, max_rd ? max_rd : 1)) goto out;
    bool ok = true;
    for (int i = o->lat ? 3 : 2; ok && i > 0; i--) ok = step(fd, msg, sizeof(msg), got, sizeof(got));
    if (!ok) {
        peer_fail(PROG, "%s", "the peer ended the exchange before the test");
        goto out;
    }
    struct lat lat = {NULL, NULL};
    if (o->lat && (!(lat.usec = calloc(o->iters, sizeof(double))) || !(lat.cycles = calloc(o->iters, 8)))) {
        peer_fail(PROG, "%s", "out of memory");
        goto out_lat;
    }

    double t0 = peer_wall_now();
    uint64_t c0 = rnic_time(n.dev);
    if (o->lat && !o->read) {
        if (write_lat(&n, o, &srv, &lat, deadline)) goto out_lat;
    } else if (!server_side && run_ops(&n, o, &srv, o->read ? RNIC_OP_RDMA_READ : RNIC_OP_RDMA_WRITE, o->iters,
                                       slot, o->lat ? &lat : NULL, deadline)) {
        goto out_lat;
    }
    double secs = peer_wall_now() - t0;
    uint64_t cycles = rnic_time(n.dev) - c0;
    double mbs = (double)o->size * o->iters / secs / 1048576.0, mpps = o->iters / secs / 1e6;

    uint64_t fields[5] = {be64(o->size), be64(o->iters), be64(bits_of(mbs)), be64(bits_of(mbs)), be64(bits_of(mpps))};
    uint64_t theirs;
    /* The server: the test ends when the client's address comes again. */
    /* ib_write_lat ends with the test: its server closes the connection. */
    bool write_lat_end = o->lat && !o->read;
    ok = write_lat_end || step(fd, msg, sizeof(msg), got, sizeof(got));
    if (server_side && ok) {
        secs = peer_wall_now() - t0;
        cycles = rnic_time(n.dev) - c0;
        if (check_lent(&n, o)) goto out_lat;
    }
    for (int i = 0; ok && !o->lat && i < 5; i++) ok = step(fd, &fields[i], 8, &theirs, 8);
    ok = ok && (o->lat || step(fd, msg, sizeof(msg), got, sizeof(got)));
    char done[5];
    ok = ok && (write_lat_end || step(fd, "done", 5, done, 5));
    if (!ok) {
        peer_fail(PROG, "%s", "the peer ended the exchange before its end");
        goto out_lat;
    }
    if (o->lat) {
        qsort(lat.usec, o->iters, sizeof(double), cmp_double);
        qsort(lat.cycles, o->iters, sizeof(uint64_t), cmp_u64);
        double sum = 0;
        for (unsigned i = 0; i < o->iters; i++) sum += lat.usec[i];
        printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]\n");
        printf(" %-6u %-10u %14.2f %14.2f %16.2f %14.2f\n", o->size, o->iters, lat.usec[0], lat.usec[o->iters - 1],
               lat.usec[o->iters / 2], sum / o->iters);
        printf(PROG ": NIC cycles per %s: min %" PRIu64 ", median %" PRIu64 ", max %" PRIu64
                    "\n",
               o->read ? "READ, doorbell to completion" : "WRITE, half a round trip",
               lat.cycles[0], lat.cycles[o->iters / 2], lat.cycles[o->iters - 1]);
    } else if (!server_side) {
        printf(" #bytes     #iterations    BW average[MB/sec]   MsgRate[Mpps]\n");
        printf(" %-10u %-14u %-20.2f %.6f\n", o->size, o->iters, mbs, mpps);
    }
    printf(PROG ": %" PRIu64 " NIC cycles; %u frames dropped by the NIC (RX_DROPS)\n", cycles,
           rnic_reg_read(n.dev, RNIC_REG_RX_DROPS) - n.drops0);
    if (server_side)
        printf(PROG ": PASS: the server of %u RDMA %s of %u bytes, %.2f s; %s\n", o->iters, o->read ? "READs" : "WRITEs",
               o->size, secs,
               o->read ? "the buffer read from unchanged" : "the range written, nothing outside it");
    else
        printf(PROG ": PASS: %u RDMA %s of %u bytes%s\n", o->iters, o->read ? "READs" : "WRITEs", o->size,
               o->lat && !o->read ? ", and as many from the server, every byte of each checked" :
               !o->read ? "" : o->size < 8 ? ", every byte of every READ equal to the first's"
                                           : ", every byte of every READ equal to the first's (not all zero)");
    rc = 0;
out_lat:
    free(lat.usec);
    free(lat.cycles);
out:
    if (fd >= 0) close(fd);
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
