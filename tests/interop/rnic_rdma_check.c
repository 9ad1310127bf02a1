/*
 * rnic_rdma_check: this project's half of the RDMA WRITE and READ byte
 * checks against Linux soft-RoCE (docs/interop.md, "Every byte of RDMA
 * WRITE and READ"), on the driver; rxe_rdma_check, on rxe in the VM, is the
 * server:
 *
 *   (VM)    rxe_rdma_check -d rxe0 -g 1 -p 18515
 *   (here)  rnic_rdma_check --peer-mac MAC -p PORT -s SIZES -n ITERS HOST
 *
 * perftest's buffers are random and its QPs take one kind of RDMA only, so
 * nobody looks at where one side's WRITEs land in the other's memory, nor
 * at every byte a READ brings. Here, each of the four ways (this NIC or rxe
 * the requester, of a WRITE or a READ), for each size (-s, a comma list)
 * ITERS times (-n), each time with other seeds and another offset:
 *
 *   1. this NIC RDMA WRITEs SIZE bytes of peer_pattern(seed) to the
 *      server's VA+OFF and, once that has completed, sends
 *      "write-check SIZE OFF SEED": the server answers "ok" when every byte
 *      of the range is the pattern and every other byte of its buffer still
 *      its guard;
 *   2. this NIC's buffer gets peer_pattern(seed2) at OFF (a guard byte
 *      elsewhere) and "read SIZE OFF SEED2" goes out: the server RDMA
 *      READs the range from here and answers "ok" when every byte it got is
 *      the pattern; then every byte here must be as it was (a READ changes
 *      nothing at the responder);
 *   3. this NIC's buffer gets the guard in every byte and "write SIZE OFF
 *      SEED3" goes out: the server RDMA WRITEs SIZE bytes of
 *      peer_pattern(seed3) to VA+OFF here and answers "ok" once that has
 *      completed; then every byte here must be the pattern in [OFF,
 *      OFF+SIZE) and the guard elsewhere;
 *   4. "fill SIZE OFF SEED4" has the server put peer_pattern(seed4) at OFF
 *      of its buffer (its guard elsewhere); this NIC's buffer gets the guard
 *      in every byte, and it RDMA READs SIZE bytes of the server's VA+OFF
 *      into it at OFF: once that has completed, every byte here must be the
 *      pattern in the range and the guard elsewhere; then "unchanged SIZE
 *      OFF SEED4": the server answers "ok" when its buffer is still as fill
 *      left it (a READ changes nothing at the responder).
 *
 * OFF starts at 3 and moves on by a page and 3 bytes from one iteration to
 * the next (modulo the room both buffers leave), so that neither side's DMA
 * starts aligned and ranges cross page boundaries. The address lines and
 * the commands are in peer_pattern.h and rxe_rdma_check.c. The side channel
 * is a TCP connection to HOST:PORT, which QEMU's user network forwards to
 * the VM.
 *
 * Prints one line per iteration (each of the four ways' wall time), then a
 * summary and the NIC's cycles. Exit 0 when everything passed, 1 on any
 * failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peer_common.h"
#include "peer_pattern.h"

#define PROG "rnic_rdma_check"
#define MAX_SIZES 32
#define GUARD 0x5Au
/* Room past the largest size for the offsets to move in, as the server's
 * default buffer (1 MiB + 8 KiB) has for a 1 MiB range. */
#define SLACK 8192u

struct opts {
    const char *host, *dev;
    unsigned port, iters, timeout_s, mtu;
    unsigned sizes[MAX_SIZES], nsizes;
    uint8_t peer_mac[6];
    bool have_mac;
};

static void usage(void) {
    fprintf(stderr, "usage: " PROG " --peer-mac MAC [options] HOST\n"
                    "  -p PORT      rxe_rdma_check's TCP port (18515)\n"
                    "  -d NAME      this project's NIC (rnic0)\n"
                    "  -s SIZES     bytes per WRITE and READ, a comma list (4096)\n"
                    "  -n N         each size N times, other seeds and offsets each time (1)\n"
                    "  -m BYTES     path MTU, as the VM tool's -m (1024, its default too)\n"
                    "  -T S         give up after S wall seconds (120)\n");
}

static bool parse_sizes(const char *v, struct opts *o) {
    char buf[256], *save = NULL;
    if (strlen(v) >= sizeof(buf)) return false;
    strcpy(buf, v);
    o->nsizes = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (o->nsizes == MAX_SIZES || !peer_parse_uint(t, 1u << 30, &o->sizes[o->nsizes]) ||
            o->sizes[o->nsizes] == 0)
            return false;
        o->nsizes++;
    }
    return o->nsizes > 0;
}

static int parse_args(int argc, char **argv, struct opts *o) {
    *o = (struct opts){
        .dev = "rnic0", .port = 18515, .iters = 1, .timeout_s = 120, .mtu = 1024, .sizes = {4096}, .nsizes = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-') {
            if (o->host) return -1;
            o->host = a;
            continue;
        }
        if (i + 1 >= argc) return -1;
        const char *v = argv[++i];
        bool ok = true;
        if (!strcmp(a, "-p"))
            ok = peer_parse_uint(v, 65535, &o->port);
        else if (!strcmp(a, "-d"))
            o->dev = v;
        else if (!strcmp(a, "-s"))
            ok = parse_sizes(v, o);
        else if (!strcmp(a, "-n"))
            ok = peer_parse_uint(v, 1u << 20, &o->iters) && o->iters > 0;
        else if (!strcmp(a, "-m"))
            ok = peer_parse_uint(v, 4096, &o->mtu) && peer_mtu_code(o->mtu);
        else if (!strcmp(a, "-T"))
            ok = peer_parse_uint(v, 86400, &o->timeout_s) && o->timeout_s > 0;
        else if (!strcmp(a, "--peer-mac"))
            ok = o->have_mac = peer_parse_mac(v, o->peer_mac);
        else
            return -1;
        if (!ok) {
            fprintf(stderr, PROG ": bad value for %s: %s\n", a, v);
            return -1;
        }
    }
    return o->have_mac && o->host ? 0 : -1;
}

/* ---- the side channel ---- */

/* One line from fd before the deadline, without its '\n'. A byte at a
 * time: the lines are short, and nothing after the '\n' may be taken. */
static bool read_line(int fd, char *line, size_t cap, double deadline) {
    size_t n = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int left_ms = (int)((deadline - peer_wall_now()) * 1000);
        if (left_ms <= 0 || poll(&p, 1, left_ms) != 1) return false;
        char c;
        ssize_t r = read(fd, &c, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r != 1 || n + 1 >= cap) return false;
        if (c == '\n') break;
        line[n++] = c;
    }
    line[n] = '\0';
    return true;
}

/* Sends a command and reads its answer: 0 when it is "ok". */
static int ask(int fd, const char *cmd, double deadline) {
    char answer[128];
    if (!peer_write_all(fd, cmd, strlen(cmd)) || !read_line(fd, answer, sizeof(answer), deadline))
        return peer_fail(PROG, "no answer from the server to %.*s", (int)strcspn(cmd, "\n"), cmd);
    if (strcmp(answer, "ok") != 0)
        return peer_fail(PROG, "%.*s: the server says %s", (int)strcspn(cmd, "\n"), cmd, answer);
    return 0;
}

/* ---- the checks ---- */

/* What this NIC's buffer holds around a READ (either way) and after rxe's
 * WRITE: the pattern of `seed` in [off, off + size), the guard elsewhere. */
static uint8_t lent_byte(size_t i, size_t off, size_t size, uint32_t seed) {
    return i >= off && i - off < size ? peer_pattern(seed, (uint32_t)(i - off)) : (uint8_t)GUARD;
}

/* One RDMA WRITE or READ of `size` bytes between this NIC's buffer at off
 * and the server's VA+off, completed with SUCCESS: 0, else 1 after saying
 * why. */
static int rdma_here(struct peer_nic *n, const struct peer_check_addr *srv, uint8_t opcode, size_t size, size_t off,
                     uint32_t seed, double deadline) {
    struct rnic_sge s = {(uint64_t)(uintptr_t)(n->mem + off), (uint32_t)size, n->lkey};
    struct rnic_send_wr w = {.wr_id = seed, .opcode = opcode, .flags = RNIC_WQE_FLAG_SIGNALED,
                             .num_sge = 1, .sg = &s, .remote_addr = srv->va + off, .rkey = srv->rkey};
    int r = rnic_post_send(n->qp, &w);
    if (r != RNIC_OK) return peer_fail(PROG, "rnic_post_send: %s", rnic_strerror(r));
    struct rnic_wc wc;
    if (peer_nic_next_wc(n, PROG, &wc, deadline)) return 1;
    if (wc.status != RNIC_CQE_STATUS_SUCCESS || wc.wr_id != seed)
        return peer_fail(PROG, "%s of %zu bytes: completion %" PRIu64 ", status %u",
                         opcode == RNIC_OP_RDMA_READ ? "READ" : "WRITE", size, wc.wr_id, wc.status);
    return 0;
}

/* 1: this NIC WRITEs the pattern of `seed` to the server's VA+off, then
 * the server checks its whole buffer. */
static int write_step(struct peer_nic *n, int fd, const struct peer_check_addr *srv, size_t size, size_t off,
                      uint32_t seed, double deadline) {
    for (size_t i = 0; i < size; i++) n->mem[off + i] = peer_pattern(seed, (uint32_t)i);
    if (rdma_here(n, srv, RNIC_OP_RDMA_WRITE, size, off, seed, deadline)) return 1;
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "write-check %zu %zu %" PRIu32 "\n", size, off, seed);
    return ask(fd, cmd, deadline);
}

/* 2: the server READs the pattern of `seed` at off from this NIC's buffer
 * and checks what came; nothing here may change. */
static int read_step(struct peer_nic *n, int fd, size_t size, size_t off, uint32_t seed, double deadline) {
    for (size_t i = 0; i < n->bytes; i++) n->mem[i] = lent_byte(i, off, size, seed);
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "read %zu %zu %" PRIu32 "\n", size, off, seed);
    if (ask(fd, cmd, deadline)) return 1;
    for (size_t i = 0; i < n->bytes; i++)
        if (n->mem[i] != lent_byte(i, off, size, seed))
            return peer_fail(PROG, "the server's READ of %zu bytes at +%zu changed byte %zu here to 0x%02x from 0x%02x",
                             size, off, i, n->mem[i], lent_byte(i, off, size, seed));
    return 0;
}

/* The first byte of this NIC's buffer that is not the pattern of `seed`
 * in [off, off + size) and the guard elsewhere: 0 when there is none, else
 * 1 after saying which (`what` names the step). */
static int check_mine(const struct peer_nic *n, size_t off, size_t size, uint32_t seed, const char *what) {
    for (size_t i = 0; i < n->bytes; i++)
        if (n->mem[i] != lent_byte(i, off, size, seed))
            return peer_fail(PROG, "%s of %zu bytes at +%zu: byte %zu here is 0x%02x, not 0x%02x (%s)", what, size,
                             off, i, n->mem[i], lent_byte(i, off, size, seed),
                             i >= off && i - off < size ? "the pattern" : "the guard");
    return 0;
}

/* 3: the server WRITEs the pattern of `seed` to this NIC's VA+off; then
 * every byte here is checked. */
static int rxe_write_step(struct peer_nic *n, int fd, size_t size, size_t off, uint32_t seed, double deadline) {
    memset(n->mem, GUARD, n->bytes);
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "write %zu %zu %" PRIu32 "\n", size, off, seed);
    if (ask(fd, cmd, deadline)) return 1;
    return check_mine(n, off, size, seed, "the server's WRITE");
}

/* 4: the server lays out the pattern of `seed` at off and this NIC READs
 * it into its buffer at off; every byte here is checked, then the server
 * checks that its own are as they were. */
static int read_step_here(struct peer_nic *n, int fd, const struct peer_check_addr *srv, size_t size, size_t off,
                          uint32_t seed, double deadline) {
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "fill %zu %zu %" PRIu32 "\n", size, off, seed);
    if (ask(fd, cmd, deadline)) return 1;
    memset(n->mem, GUARD, n->bytes);
    if (rdma_here(n, srv, RNIC_OP_RDMA_READ, size, off, seed, deadline)) return 1;
    if (check_mine(n, off, size, seed, "this NIC's READ")) return 1;
    snprintf(cmd, sizeof(cmd), "unchanged %zu %zu %" PRIu32 "\n", size, off, seed);
    return ask(fd, cmd, deadline);
}

/* Iteration k's offset: unaligned, a page and 3 bytes further each time,
 * inside the room both buffers leave past `size`. */
static size_t offset_of(unsigned k, size_t room) { return ((size_t)k * 4099u + 3u) % (room + 1); }

/* Every size, ITERS times: a WRITE and a READ each way. */
static int check_all(struct peer_nic *n, int fd, const struct opts *o, const struct peer_check_addr *srv,
                     double deadline, unsigned long long *bytes) {
    size_t common = n->bytes < srv->len ? n->bytes : srv->len;
    uint32_t seed = 1;
    for (unsigned s = 0; s < o->nsizes; s++) {
        size_t size = o->sizes[s];
        if (size > common)
            return peer_fail(PROG, "%zu bytes do not fit in the server's buffer (%" PRIu32 ")", size, srv->len);
        for (unsigned k = 0; k < o->iters; k++, seed += 4) {
            size_t off = offset_of(k, common - size);
            double t[5];
            t[0] = peer_wall_now();
            if (write_step(n, fd, srv, size, off, seed, deadline)) return 1;
            t[1] = peer_wall_now();
            if (read_step(n, fd, size, off, seed + 1, deadline)) return 1;
            t[2] = peer_wall_now();
            if (rxe_write_step(n, fd, size, off, seed + 2, deadline)) return 1;
            t[3] = peer_wall_now();
            if (read_step_here(n, fd, srv, size, off, seed + 3, deadline)) return 1;
            t[4] = peer_wall_now();
            printf(PROG ": %zu bytes at +%zu: WRITE ok (%.2f s), rxe's READ ok (%.2f s), rxe's WRITE ok (%.2f s), "
                        "READ ok (%.2f s)\n",
                   size, off, t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3]);
            fflush(stdout);
            *bytes += size;
        }
    }
    return 0;
}

/* The address lines: ours, then the server's. Returns the connection, or -1. */
static int exchange(struct peer_nic *n, const struct opts *o, uint32_t psn, struct peer_check_addr *srv,
                    double deadline) {
    struct peer_check_addr me = {.qpn = rnic_qp_num(n->qp), .psn = psn, .rkey = n->rkey, .len = (uint32_t)n->bytes,
                                 .va = (uintptr_t)n->mem};
    peer_gid_of_ipv4(n->info.ipv4, me.gid);
    char line[PEER_CHECK_LINE_BYTES + 1], got[PEER_CHECK_LINE_BYTES + 1] = {0};
    peer_check_format(&me, line);
    printf(PROG ": local  %s", line);
    int fd = peer_tcp_hello(o->host, o->port, line, PEER_CHECK_LINE_BYTES, got, PEER_CHECK_LINE_BYTES, deadline);
    if (fd < 0) {
        peer_fail(PROG, "no answer from rxe_rdma_check at %s:%u", o->host, o->port);
        return -1;
    }
    if (!peer_check_parse(got, srv)) {
        close(fd);
        peer_fail(PROG, "the server's address line is malformed: %s", got);
        return -1;
    }
    printf(PROG ": remote %s", got);
    fflush(stdout);
    return fd;
}

static int run(const struct opts *o) {
    double deadline = peer_wall_now() + o->timeout_s;
    unsigned largest = 0;
    for (unsigned s = 0; s < o->nsizes; s++) largest = o->sizes[s] > largest ? o->sizes[s] : largest;
    struct peer_nic n;
    /* Remote READ and WRITE, on the QP and the memory: rxe READs it in
     * step 2 and WRITEs it in step 3. */
    if (peer_nic_open(&n, PROG, o->dev, (size_t)largest + SLACK, 2, 1,
                      RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE))
        return 1;
    int rc = 1, fd = -1;
    /* rxe's READs and WRITEs come while this thread waits on the side channel: the
     * NIC's time must run without driver calls. */
    int r = rnic_time_run_alone(n.dev);
    if (r != RNIC_OK) {
        peer_fail(PROG, "rnic_time_run_alone: %s", rnic_strerror(r));
        goto out;
    }
    if (o->mtu > n.info.mtu) {
        peer_fail(PROG, "path MTU %u is above this NIC's %u", o->mtu, n.info.mtu);
        goto out;
    }
    uint32_t psn = peer_first_psn(-1);
    struct peer_check_addr srv;
    if ((fd = exchange(&n, o, psn, &srv, deadline)) < 0) goto out;
    /* The exchange carries no MTU: both sides are told the same -m. */
    n.path_mtu = o->mtu;
    if (peer_nic_connect(&n, PROG, srv.qpn, psn, srv.psn, srv.gid, o->peer_mac, 1)) goto out;

    double t0 = peer_wall_now();
    uint64_t c0 = rnic_time(n.dev);
    unsigned long long bytes = 0;
    if (check_all(&n, fd, o, &srv, deadline, &bytes)) goto out;
    double secs = peer_wall_now() - t0;
    uint64_t cycles = rnic_time(n.dev) - c0;
    if (!peer_write_all(fd, "quit\n", 5)) {
        peer_fail(PROG, "could not send quit");
        goto out;
    }
    printf(PROG ": %" PRIu64 " NIC cycles; %u frames dropped by the NIC (RX_DROPS)\n", cycles,
           rnic_reg_read(n.dev, RNIC_REG_RX_DROPS) - n.drops0);
    char sizes[MAX_SIZES * 12] = "";
    for (unsigned s = 0; s < o->nsizes; s++)
        snprintf(sizes + strlen(sizes), sizeof(sizes) - strlen(sizes), "%s%u", s ? "," : "", o->sizes[s]);
    printf(PROG ": PASS: sizes %s, %u times each: %llu bytes each of WRITTEN to rxe, READ by rxe, WRITTEN by rxe "
                "and READ from rxe, every byte checked (and nothing outside the range written), %.2f s\n",
           sizes, o->iters, bytes, secs);
    rc = 0;
out:
    if (fd >= 0) close(fd);
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
