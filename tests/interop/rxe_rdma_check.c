/*
 * rxe_rdma_check: the VM's half of the RDMA WRITE and READ byte checks
 * against this project's NIC (docs/interop.md, "Every byte of RDMA WRITE
 * and READ"). It runs on Linux soft-RoCE (rxe) through libibverbs, as the
 * server; rnic_rdma_check, on the simulated NIC, is its client:
 *
 *   (VM)    rxe_rdma_check -d rxe0 -g 1 -m 4096 -p 18515
 *   (here)  rnic_rdma_check --peer-mac MAC -p PORT -s SIZES -n ITERS HOST
 *
 * The stock tools check nothing of what an RDMA WRITE puts into their
 * memory or what an RDMA READ brings them; this program checks every byte
 * of both, and that a WRITE touched nothing outside its range, each way
 * round: as the responder of the client's WRITEs and the requester of
 * READs of its memory, and as the requester of WRITEs into the client's
 * memory and the responder of its READs (those the client checks).
 *
 * One RC QP and one buffer (-b bytes, page-aligned, registered for remote
 * WRITE and READ, filled with the guard byte 0xA5). On TCP port -p of
 * 0.0.0.0 it takes one connection: the client's address line, then its own
 * (peer_pattern.h; its QP is at RTS before it answers, so the client's
 * first WRITE cannot come too early). Then commands, one line each, each
 * answered by one line:
 *
 *   write-check SIZE OFF SEED   the client's WRITE of SIZE bytes at VA+OFF
 *                               has completed: every byte of [OFF, OFF+SIZE)
 *                               must be peer_pattern(SEED, i - OFF) and
 *                               every other one still the guard
 *   read SIZE OFF SEED          one RDMA READ of SIZE bytes of the client's
 *                               VA+OFF into this buffer at OFF; the same
 *                               check when it has completed
 *   write SIZE OFF SEED         the pattern of SEED into this buffer at OFF,
 *                               then one RDMA WRITE of those SIZE bytes to
 *                               the client's VA+OFF; when it has completed,
 *                               the same check of this buffer (the WRITE's
 *                               source unchanged; the client checks what
 *                               landed in its memory)
 *   fill SIZE OFF SEED          the pattern of SEED into this buffer at OFF,
 *                               the guard elsewhere, for the client to READ;
 *                               "ok" at once
 *   unchanged SIZE OFF SEED     after the client's READ: the buffer must
 *                               still be exactly as `fill` left it (the
 *                               check of write-check and read)
 *   quit                        the end (no answer)
 *
 * An answer is "ok", "bad OFFSET GOT WANT" (the first byte of the buffer
 * that is wrong: its offset in decimal, what it holds and what it should,
 * in hex) or "error WHY". The buffer is filled with the guard again after
 * each command but fill (which leaves it for the client's READ and the
 * `unchanged` after it). Prints one line per command; exit 0 only when
 * every command was ok and the client said quit.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "peer_pattern.h"

#define PROG "rxe_rdma_check"
#define GUARD 0xA5u
#define WR_DEADLINE_S 30.0
#define CMD_BYTES 128

struct opts {
    const char *dev;
    unsigned gid_index, mtu, port;
    size_t bytes;
};

struct rxe {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint8_t *buf;
    size_t bytes;
    union ibv_gid gid;
    uint32_t psn;
};

static void usage(void) {
    fprintf(stderr, "usage: " PROG " [options]   (the server: rnic_rdma_check is the client)\n"
                    "  -d NAME   the RDMA device (rxe0)\n"
                    "  -g N      the GID index: its IPv4 GID (1)\n"
                    "  -m BYTES  path MTU, 256 to 4096 (1024)\n"
                    "  -p PORT   the TCP port, on 0.0.0.0 (18515)\n"
                    "  -b BYTES  the buffer (1 MiB + 8 KiB)\n");
}

static bool parse_num(const char *s, unsigned long max, unsigned long *out) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 0);
    if (errno != 0 || end == s || *end != '\0' || v > max) return false;
    *out = v;
    return true;
}

/* -m in bytes as libibverbs' enum; 0 for a size it has none for. */
static enum ibv_mtu mtu_enum(unsigned bytes) {
    switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    case 4096: return IBV_MTU_4096;
    default: return 0;
    }
}

static int parse_args(int argc, char **argv, struct opts *o) {
    *o = (struct opts){.dev = "rxe0", .gid_index = 1, .mtu = 1024, .port = 18515, .bytes = (1u << 20) + 8192};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc || a[0] != '-' || a[1] == '\0' || a[2] != '\0') return -1;
        const char *v = argv[++i];
        unsigned long u = 0;
        bool ok = true;
        switch (a[1]) {
        case 'd': o->dev = v; break;
        case 'g': ok = parse_num(v, 255, &u); o->gid_index = (unsigned)u; break;
        case 'm': ok = parse_num(v, 4096, &u) && mtu_enum((unsigned)u); o->mtu = (unsigned)u; break;
        case 'p': ok = parse_num(v, 65535, &u); o->port = (unsigned)u; break;
        case 'b': ok = parse_num(v, 0xFFFFFFFFul - 4095, &u) && u > 0; o->bytes = u; break;
        default: return -1;
        }
        if (!ok) {
            fprintf(stderr, PROG ": bad value for %s: %s\n", a, v);
            return -1;
        }
    }
    return 0;
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, PROG ": FAILED: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the device ---- */

static struct ibv_context *open_device(const char *name) {
    int count;
    struct ibv_device **list = ibv_get_device_list(&count);
    struct ibv_context *ctx = NULL;
    for (int i = 0; list && i < count && !ctx; i++)
        if (!strcmp(ibv_get_device_name(list[i]), name)) ctx = ibv_open_device(list[i]);
    if (list) ibv_free_device_list(list);
    return ctx;
}

static void close_rxe(struct rxe *r) {
    if (r->qp) ibv_destroy_qp(r->qp);
    if (r->mr) ibv_dereg_mr(r->mr);
    if (r->cq) ibv_destroy_cq(r->cq);
    if (r->pd) ibv_dealloc_pd(r->pd);
    if (r->ctx) ibv_close_device(r->ctx);
    free(r->buf);
}

/* The device, PD, CQ, buffer (the guard in every byte), MR and an RC QP in
 * INIT. 0, or 1 after saying why. */
static int open_rxe(struct rxe *r, const struct opts *o) {
    memset(r, 0, sizeof(*r));
    long page = sysconf(_SC_PAGESIZE);
    r->bytes = (o->bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
    if (!(r->ctx = open_device(o->dev))) return fail("no RDMA device %s", o->dev);
    if (ibv_query_gid(r->ctx, 1, (int)o->gid_index, &r->gid)) return fail("no GID %u on port 1", o->gid_index);
    if (!(r->pd = ibv_alloc_pd(r->ctx))) return fail("ibv_alloc_pd");
    if (!(r->cq = ibv_create_cq(r->ctx, 4, NULL, NULL, 0))) return fail("ibv_create_cq");
    if (!(r->buf = aligned_alloc((size_t)page, r->bytes))) return fail("out of memory");
    memset(r->buf, GUARD, r->bytes);
    r->mr = ibv_reg_mr(r->pd, r->buf, r->bytes,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    if (!r->mr) return fail("ibv_reg_mr");
    struct ibv_qp_init_attr qa = {.send_cq = r->cq, .recv_cq = r->cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 2, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1}};
    if (!(r->qp = ibv_create_qp(r->pd, &qa))) return fail("ibv_create_qp");
    struct ibv_qp_attr init = {.qp_state = IBV_QPS_INIT, .port_num = 1,
                               .qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                                  IBV_ACCESS_REMOTE_READ};
    int e = ibv_modify_qp(r->qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
    if (e) return fail("ibv_modify_qp to INIT: %s", strerror(e));
    srand48((long)getpid() * (long)time(NULL));
    r->psn = (uint32_t)lrand48() & 0xFFFFFFu;
    return 0;
}

/* INIT -> RTR -> RTS towards the client's QP, as ibv_rc_pingpong sets its
 * own (timeouts of 67 ms, seven retries). */
static int connect_qp(struct rxe *r, const struct opts *o, const struct peer_check_addr *peer) {
    struct ibv_qp_attr rtr = {.qp_state = IBV_QPS_RTR, .path_mtu = mtu_enum(o->mtu), .dest_qp_num = peer->qpn,
                              .rq_psn = peer->psn, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
                              .ah_attr = {.is_global = 1, .port_num = 1,
                                          .grh = {.sgid_index = (uint8_t)o->gid_index, .hop_limit = 1}}};
    memcpy(rtr.ah_attr.grh.dgid.raw, peer->gid, 16);
    int e = ibv_modify_qp(r->qp, &rtr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                           IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    if (e) return fail("ibv_modify_qp to RTR: %s", strerror(e));
    struct ibv_qp_attr rts = {.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
                              .sq_psn = r->psn, .max_rd_atomic = 1};
    e = ibv_modify_qp(r->qp, &rts, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
    if (e) return fail("ibv_modify_qp to RTS: %s", strerror(e));
    return 0;
}

/* ---- the side channel ---- */

/* One client's connection on 0.0.0.0:port (where QEMU's forward lands). */
static int accept_client(unsigned port) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_ANY)};
    int one = 1, lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0) return -1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 1) != 0) {
        close(lfd);
        return -1;
    }
    printf(PROG ": listening on 0.0.0.0:%u\n", port);
    fflush(stdout);
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    close(lfd);
    return fd;
}

static bool send_text(int fd, const char *s) {
    for (size_t n = strlen(s), put = 0; put < n;) {
        ssize_t w = write(fd, s + put, n - put);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        put += (size_t)w;
    }
    return true;
}

/* ---- the checks ---- */

/* The first byte of the buffer that is not what it should be (the pattern
 * of `seed` in [off, off + size), the guard elsewhere), with what it
 * should be; false when there is none. */
static bool first_wrong(const struct rxe *r, size_t off, size_t size, uint32_t seed, size_t *at, uint8_t *want) {
    for (size_t i = 0; i < r->bytes; i++) {
        uint8_t w = i >= off && i - off < size ? peer_pattern(seed, (uint32_t)(i - off)) : (uint8_t)GUARD;
        if (r->buf[i] != w) {
            *at = i;
            *want = w;
            return true;
        }
    }
    return false;
}

/* The answer to a command that moved the range: "ok" or "bad ...". */
static void verdict(struct rxe *r, size_t off, size_t size, uint32_t seed, char *answer, size_t cap) {
    size_t at;
    uint8_t want;
    if (first_wrong(r, off, size, seed, &at, &want))
        snprintf(answer, cap, "bad %zu 0x%02x 0x%02x", at, r->buf[at], want);
    else
        snprintf(answer, cap, "ok");
    memset(r->buf, GUARD, r->bytes);
}

/* The pattern of `seed` in [off, off + size) of the buffer, the guard
 * elsewhere. */
static void fill(struct rxe *r, size_t off, size_t size, uint32_t seed) {
    memset(r->buf, GUARD, r->bytes);
    for (size_t i = 0; i < size; i++) r->buf[off + i] = peer_pattern(seed, (uint32_t)i);
}

/* One RDMA READ of the client's VA+off into the buffer at off, or one RDMA
 * WRITE of the buffer at off to the client's VA+off, completed (or not)
 * within WR_DEADLINE_S; "" when it succeeded, else why not. */
static void rdma_peer(struct rxe *r, const struct peer_check_addr *peer, enum ibv_wr_opcode op, size_t off,
                      size_t size, char *why, size_t cap) {
    struct ibv_sge sg = {.addr = (uintptr_t)(r->buf + off), .length = (uint32_t)size, .lkey = r->mr->lkey};
    struct ibv_send_wr wr = {.wr_id = off, .sg_list = &sg, .num_sge = 1, .opcode = op,
                             .send_flags = IBV_SEND_SIGNALED,
                             .wr.rdma = {.remote_addr = peer->va + off, .rkey = peer->rkey}}, *bad;
    int e = ibv_post_send(r->qp, &wr, &bad);
    if (e) {
        snprintf(why, cap, "ibv_post_send:%d", e);
        return;
    }
    double deadline = wall_now() + WR_DEADLINE_S;
    struct ibv_wc wc;
    int n;
    /* A nap between looks: busy polling on the VM's one CPU would take
     * time from rxe's own threads, which do the work. */
    while ((n = ibv_poll_cq(r->cq, 1, &wc)) == 0 && wall_now() < deadline) usleep(200);
    if (n < 0)
        snprintf(why, cap, "ibv_poll_cq:%d", n);
    else if (n == 0)
        snprintf(why, cap, "no-completion-in-%.0fs", WR_DEADLINE_S);
    else if (wc.status != IBV_WC_SUCCESS)
        snprintf(why, cap, "%d:%s", wc.status, ibv_wc_status_str(wc.status));
    else if (wc.wr_id != off)
        snprintf(why, cap, "completion-of-wr-%" PRIu64 "-not-%zu", wc.wr_id, off);
    else
        why[0] = '\0';
}

/* One command line; its answer in `answer`. False for quit. */
static bool serve_one(struct rxe *r, const struct peer_check_addr *peer, const char *cmd, char *answer, size_t cap) {
    static const char *const verbs[] = {"write-check", "read", "write", "fill", "unchanged"};
    enum { WRITE_CHECK, READ, WRITE, FILL, UNCHANGED, NVERBS } v;
    char verb[16];
    unsigned long size, off, seed;
    if (!strcmp(cmd, "quit")) return false;
    if (sscanf(cmd, "%15s %lu %lu %lu", verb, &size, &off, &seed) != 4 || size == 0 || seed > UINT32_MAX) v = NVERBS;
    else
        for (v = 0; v < NVERBS && strcmp(verb, verbs[v]); v++) {}
    if (v == NVERBS) {
        snprintf(answer, cap, "error unknown-command");
        return true;
    }
    /* read and write move bytes between the two buffers: both must hold
     * the range. */
    bool rdma = v == READ || v == WRITE;
    if (off > r->bytes || size > r->bytes - off || (rdma && (off > peer->len || size > peer->len - off))) {
        snprintf(answer, cap, "error range-outside-the-buffer");
        memset(r->buf, GUARD, r->bytes);
        return true;
    }
    if (v == FILL || v == WRITE) fill(r, off, size, (uint32_t)seed);
    if (v == FILL) {
        snprintf(answer, cap, "ok");
        return true;
    }
    if (rdma) {
        char why[64];
        rdma_peer(r, peer, v == READ ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE, off, size, why, sizeof(why));
        if (why[0]) {
            snprintf(answer, cap, "error %s", why);
            memset(r->buf, GUARD, r->bytes);
            return true;
        }
    }
    /* After a WRITE, the check of its source: rxe must not have changed
     * it either. */
    verdict(r, off, size, (uint32_t)seed, answer, cap);
    return true;
}

/* Commands until quit: 0 when every one was ok. */
static int serve(struct rxe *r, const struct peer_check_addr *peer, int fd, FILE *in) {
    char cmd[CMD_BYTES], answer[96];
    unsigned done = 0, bad = 0;
    for (;;) {
        if (!fgets(cmd, sizeof(cmd), in)) {
            fprintf(stderr, PROG ": FAILED: the client left without quit after %u commands\n", done);
            return 1;
        }
        cmd[strcspn(cmd, "\r\n")] = '\0';
        double t0 = wall_now();
        if (!serve_one(r, peer, cmd, answer, sizeof(answer))) break;
        done++;
        bad += strcmp(answer, "ok") != 0;
        printf(PROG ": %s: %s (%.3f s)\n", cmd, answer, wall_now() - t0);
        fflush(stdout);
        strcat(answer, "\n");
        if (!send_text(fd, answer)) {
            fprintf(stderr, PROG ": FAILED: the client's connection broke\n");
            return 1;
        }
    }
    printf(PROG ": %s: %u commands, %u not ok\n", bad ? "FAILED" : "PASS", done, bad);
    return bad != 0;
}

static int run(const struct opts *o) {
    struct rxe r;
    if (open_rxe(&r, o)) {
        close_rxe(&r);
        return 1;
    }
    int rc = 1, fd = -1;
    FILE *in = NULL;
    char line[PEER_CHECK_LINE_BYTES + 1] = "";
    struct peer_check_addr me = {.qpn = r.qp->qp_num, .psn = r.psn, .rkey = r.mr->rkey, .len = (uint32_t)r.bytes,
                                 .va = (uintptr_t)r.buf},
                           peer;
    memcpy(me.gid, r.gid.raw, 16);
    if ((fd = accept_client(o->port)) < 0 || !(in = fdopen(dup(fd), "r"))) {
        fail("no client on port %u: %s", o->port, strerror(errno));
        goto out;
    }
    if (!fgets(line, sizeof(line), in) || !peer_check_parse(line, &peer)) {
        fail("the client's address line is missing or malformed: %s", line);
        goto out;
    }
    /* At RTS before answering: the client's first WRITE may follow at once. */
    if (connect_qp(&r, o, &peer)) goto out;
    peer_check_format(&me, line);
    printf(PROG ": local  %s", line);
    if (!send_text(fd, line)) {
        fail("could not send the address line");
        goto out;
    }
    peer_check_format(&peer, line);
    printf(PROG ": remote %s", line);
    fflush(stdout);
    rc = serve(&r, &peer, fd, in);
out:
    if (in) fclose(in);
    if (fd >= 0) close(fd);
    close_rxe(&r);
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
