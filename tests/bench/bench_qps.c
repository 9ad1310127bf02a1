/* Benchmark (a program, not a test): many QPs writing at once. N QP pairs
 * (NIC 0 QP i connected to NIC 1 QP i) each keep K RDMA WRITEs of S bytes
 * posted, re-posting as completions arrive, for a window of W simulated
 * cycles, all started together. Prints
 *  - the aggregate payload bytes per cycle, against the datapath width,
 *  - the smallest and largest share of one QP, against the fair share
 *    (aggregate / N): whether the NIC's scheduler starves some QPs,
 *  - wall seconds and fabric cycles per wall second (noisy).
 * Then it drains every WRITE still outstanding and checks that each one
 * completed with status 0 and that every destination slot written holds
 * its QP's pattern: a failure exits 1, so the smoke test is a real check.
 * usage: bench_qps [N [S [W [K]]]]   (defaults: as many QPs as the NIC has,
 *        at most 256; 4096 bytes; 2,000,000 cycles; 4)
 * Run it in lockstep (RNIC_SIM_MODE=lockstep) for exact cycle figures;
 * figures recorded in docs/performance.md, "Many QPs writing at once". */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rnic_names.h"
#include "rnic_sim.h"
#include "rnic_test.h"

#define MAX_QPS 256u
/* The driver keeps QPs 0 and 1 (InfiniBand's SMI and GSI) for itself:
 * rnic_qp_create hands out 2 and up. */
#define RESERVED_QPS 2u
/* Each QP's send ring; K may not exceed it, so a post never finds it full. */
#define SQ_DEPTH 64u
/* Destination bytes after the last slot that no WRITE may touch. */
#define GUARD 4096u
/* Mismatch reports printed before the rest are only counted. */
#define MAX_REPORTS 10

struct qstate {
    rnic_qp *qp[2];
    uint32_t posted;     /* WRITEs posted: the next one's sequence number */
    uint32_t done;       /* completions taken: the next one expected */
    uint64_t win_bytes;  /* payload of the completions taken inside the window */
    bool failed;         /* an error completion: post no more on it */
};

static struct pair P;
static struct qstate *Q;
static uint8_t *src, *dst;
static rnic_mr *msrc, *mdst;
static rnic_cq *scq;
static uint32_t N, S, K;
static uint64_t t_end;   /* the window's last cycle */
static int reports;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned seed_of(uint32_t i) { return 0x5100u + i; }

/* Prints the first few failures with what was found, counts all of them. */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    rnic_check_record(0);
    if (reports++ >= MAX_REPORTS)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("bench_qps: FAIL: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static uint32_t arg(int argc, char **argv, int i, uint32_t dflt, uint32_t lo, uint32_t hi, const char *what) {
    if (argc <= i)
        return dflt;
    char *end;
    unsigned long v = strtoul(argv[i], &end, 0);
    if (*argv[i] == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "bench_qps: %s must be %u..%u, not \"%s\"\n"
                        "usage: bench_qps [N [S [W [K]]]]\n", what, lo, hi, argv[i]);
        exit(2);
    }
    return (uint32_t)v;
}

/* Slot j of QP i takes the WRITEs whose sequence number is j modulo K: the
 * K outstanding WRITEs of a QP never land on the same bytes. */
static uint8_t *slot(uint32_t i, uint32_t j) { return dst + ((size_t)i * K + j) * S; }

static void post(uint32_t i) {
    struct qstate *q = &Q[i];
    struct rnic_sge s = {(uint64_t)(uintptr_t)(src + (size_t)i * S), S, rnic_mr_key(msrc)};
    struct rnic_send_wr w = {.wr_id = (uint64_t)i << 32 | q->posted, .opcode = RNIC_OP_RDMA_WRITE,
                             .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1, .sg = &s,
                             .remote_addr = (uint64_t)(uintptr_t)slot(i, q->posted % K), .rkey = rnic_mr_key(mdst)};
    int rc = rnic_post_send(q->qp[0], &w);
    if (rc != RNIC_OK) {
        fail("QP %u: rnic_post_send of WRITE %u: %s", rnic_qp_num(q->qp[0]), q->posted, rnic_strerror(rc));
        q->failed = true;
        return;
    }
    q->posted++;
}

/* Takes every completion already in the ring. One found by the end of the
 * window counts toward its QP's share, and before its end it is replaced
 * by a new WRITE at once. Returns how many it took. */
static int take_all(void) {
    struct rnic_wc wc[64];
    int total = 0;
    for (;;) {
        uint64_t t = rnic_sim_cycle();
        int n = rnic_cq_take(scq, wc, 64);
        if (n <= 0)
            break;
        for (int k = 0; k < n; k++) {
            uint32_t i = (uint32_t)(wc[k].wr_id >> 32), seq = (uint32_t)wc[k].wr_id;
            if (i >= N || wc[k].qpn != rnic_qp_num(Q[i].qp[0])) {
                fail("a completion on QP %u with wr_id 0x%" PRIx64 " names no WRITE posted there", wc[k].qpn,
                     wc[k].wr_id);
                continue;
            }
            struct qstate *q = &Q[i];
            /* One QP's WRITEs complete in the order they were posted (RC). */
            if (seq != q->done)
                fail("QP %u: completion of WRITE %u, expected WRITE %u", wc[k].qpn, seq, q->done);
            q->done++;
            if (wc[k].status != RNIC_CQE_STATUS_SUCCESS || wc[k].opcode != RNIC_OP_RDMA_WRITE ||
                wc[k].byte_len != S) {
                const char *st = rnic_cqe_status_name(wc[k].status);
                fail("QP %u: WRITE %u completed with status %u (%s), opcode %u, byte_len %u (expected 0, %u, %u)",
                     wc[k].qpn, seq, wc[k].status, st ? st : "?", wc[k].opcode, wc[k].byte_len,
                     (unsigned)RNIC_OP_RDMA_WRITE, S);
                q->failed = true;
                continue;
            }
            if (t <= t_end)
                q->win_bytes += S;
            if (t < t_end && !q->failed)
                post(i);
        }
        total += n;
    }
    if (rnic_cq_overflowed(scq) == 1)
        fail("the send CQ overflowed: a completion was lost");
    return total;
}

/* Waits for the next interrupt of NIC 0, at most until cycle `until`. */
static void wait_until(uint64_t until) {
    uint64_t t = rnic_sim_cycle();
    if (t >= until)
        return;
    /* A line already high for another reason ends the wait at once: let the
     * time of a look at the ring pass, so the loop still moves on. */
    if (rnic_wait(P.dev[0], until - t) == 0 && rnic_sim_cycle() == t)
        rnic_cpu_delay(P.dev[0], RNIC_POLL_CYCLES);
}

static uint32_t outstanding(void) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < N; i++)
        n += Q[i].posted - Q[i].done;
    return n;
}

/* Every slot that a WRITE went to holds the QP's pattern; every other byte
 * of the destination is still 0. */
static void verify(void) {
    uint8_t *want = malloc(S);
    if (!want) {
        fprintf(stderr, "bench_qps: out of memory\n");
        exit(2);
    }
    for (uint32_t i = 0; i < N; i++) {
        fill_pattern(want, S, seed_of(i));
        uint32_t written = Q[i].posted < K ? Q[i].posted : K;
        for (uint32_t j = 0; j < K; j++) {
            const uint8_t *got = slot(i, j);
            for (uint32_t b = 0; b < S; b++) {
                uint8_t w = j < written ? want[b] : 0;
                if (got[b] != w) {
                    fail("QP %u, slot %u (%s): byte %u is 0x%02x, expected 0x%02x", rnic_qp_num(Q[i].qp[1]), j,
                         j < written ? "written" : "never written", b, got[b], w);
                    break;
                }
            }
        }
    }
    const uint8_t *g = dst + (size_t)N * K * S;
    for (uint32_t b = 0; b < GUARD; b++)
        if (g[b] != 0) {
            fail("byte %u after the last slot is 0x%02x: a WRITE ran past its slot", b, g[b]);
            break;
        }
    free(want);
}

int main(int argc, char **argv) {
    pair_open(&P);
    struct rnic_dev_info info;
    CHECK_EQ(rnic_query(P.dev[0], &info), RNIC_OK);
    /* pair_open's QPs would hold QP 2 on each NIC: give them back, keep
     * its devices, protection zones and NIC 1's CQ. */
    for (int s = 0; s < 2; s++) {
        CHECK_EQ(rnic_qp_destroy(P.qp[s]), RNIC_OK);
        P.qp[s] = NULL;
    }
    uint32_t avail = info.num_qp > RESERVED_QPS ? info.num_qp - RESERVED_QPS : 0;
    uint32_t cap = avail < MAX_QPS ? avail : MAX_QPS;
    if (cap == 0) {
        fprintf(stderr, "bench_qps: the NIC has %u QPs, %u of them the driver's own: none to use\n", info.num_qp,
                RESERVED_QPS);
        return 2;
    }
    uint32_t asked = arg(argc, argv, 1, cap, 1, UINT32_MAX, "N (QP pairs)");
    N = asked < cap ? asked : cap;
    S = arg(argc, argv, 2, 4096, 1, 1u << 24, "S (bytes per WRITE)");
    uint32_t W = arg(argc, argv, 3, 2000000, 1, UINT32_MAX, "W (window, cycles)");
    K = arg(argc, argv, 4, 4, 1, SQ_DEPTH, "K (WRITEs posted per QP)");

    Q = calloc(N, sizeof(*Q));
    size_t src_len = (size_t)N * S, dst_len = (size_t)N * K * S + GUARD;
    src = aligned_alloc(4096, (src_len + 4095) & ~(size_t)4095);
    dst = aligned_alloc(4096, (dst_len + 4095) & ~(size_t)4095);
    if (!Q || !src || !dst) {
        fprintf(stderr, "bench_qps: out of memory for %u QPs of %u x %u bytes\n", N, K, S);
        return 2;
    }
    for (uint32_t i = 0; i < N; i++)
        fill_pattern(src + (size_t)i * S, S, seed_of(i));
    memset(dst, 0, dst_len);
    CHECK_EQ(rnic_mr_reg(P.dev[0], src, src_len, P.pz[0], ALL_ACCESS, &msrc), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], dst, dst_len, P.pz[1], ALL_ACCESS, &mdst), RNIC_OK);
    CHECK_EQ(rnic_dma_sync(P.dev[0], src, src_len, RNIC_SYNC_FOR_DEVICE), RNIC_OK);
    CHECK_EQ(rnic_dma_sync(P.dev[1], dst, dst_len, RNIC_SYNC_FOR_DEVICE), RNIC_OK);

    /* One send CQ for all of NIC 0's QPs, with room for every WRITE that can
     * be outstanding, so the NIC never finds it full. NIC 1 completes
     * nothing for an RDMA WRITE: its QPs share pair_open's CQ. */
    CHECK_EQ(rnic_cq_create(P.dev[0], N * K, &scq), RNIC_OK);
    for (uint32_t i = 0; i < N; i++) {
        rnic_cq *cq[2] = {scq, P.cq[1]};
        for (int s = 0; s < 2; s++) {
            struct rnic_qp_attr a = {SQ_DEPTH, 2, cq[s], cq[s], P.pz[s], 1, RNIC_ACCESS_REMOTE_WRITE, NULL};
            int rc = rnic_qp_create(P.dev[s], &a, &Q[i].qp[s]);
            if (rc != RNIC_OK) {
                fprintf(stderr, "bench_qps: QP pair %u on NIC %d: rnic_qp_create: %s\n", i, s, rnic_strerror(rc));
                return 2;
            }
        }
        /* Both NICs hand out their lowest free QP, so the pairs line up. */
        CHECK_EQ(rnic_qp_num(Q[i].qp[0]), rnic_qp_num(Q[i].qp[1]));
        CHECK_EQ(rnic_qp_connect_local(Q[i].qp[0], Q[i].qp[1]), RNIC_OK);
    }
    if (rnic_check_failures()) {
        fprintf(stderr, "bench_qps: setup failed\n");
        return 2;
    }

    /* The window: every QP gets its K WRITEs, then each completion inside
     * the window is replaced at once. */
    double w0 = now();
    uint64_t t0 = rnic_sim_cycle();
    t_end = t0 + W;
    for (uint32_t j = 0; j < K; j++)
        for (uint32_t i = 0; i < N; i++)
            post(i);
    while (rnic_sim_cycle() < t_end) {
        take_all();
        wait_until(t_end);
    }
    /* Completions found at the window's last cycle are the window's too. */
    take_all();
    uint64_t t_exit = rnic_sim_cycle();
    double wall = now() - w0;

    /* Drain: whatever is still outstanding, with time for all of it at one
     * byte per cycle (an eighth of today's datapath), and BUDGET besides:
     * generous, so only a WRITE that never completes runs it out. */
    uint32_t left = outstanding();
    uint64_t budget = BUDGET + (uint64_t)left * S, d0 = rnic_sim_cycle();
    while (outstanding() > 0 && rnic_sim_cycle() - d0 < budget) {
        if (take_all() == 0)
            wait_until(d0 + budget);
    }
    uint64_t drain = rnic_sim_cycle() - d0;
    if (outstanding() > 0)
        fail("drain: %u of %u WRITEs outstanding after the window still had no completion after %" PRIu64
             " cycles", outstanding(), left, drain);
    CHECK_EQ(rnic_dma_sync(P.dev[1], dst, dst_len, RNIC_SYNC_FOR_CPU), RNIC_OK);
    verify();

    uint64_t total = 0, lo = UINT64_MAX, hi = 0, done = 0;
    uint32_t lo_qp = 0, hi_qp = 0;
    for (uint32_t i = 0; i < N; i++) {
        total += Q[i].win_bytes;
        done += Q[i].done;
        if (Q[i].win_bytes < lo)
            lo = Q[i].win_bytes, lo_qp = rnic_qp_num(Q[i].qp[0]);
        if (Q[i].win_bytes > hi)
            hi = Q[i].win_bytes, hi_qp = rnic_qp_num(Q[i].qp[0]);
    }
    double agg = (double)total / W, fair = agg / N;
    double lo_bpc = (double)lo / W, hi_bpc = (double)hi / W;
    printf("bench_qps: two RNICs, link latency %s cycles, datapath %u bytes/cycle, MTU %u, %u QPs per NIC\n",
           getenv("RNIC_LINK_LATENCY") ? getenv("RNIC_LINK_LATENCY") : "100", info.data_bytes, info.mtu,
           info.num_qp);
    char why[32] = "the default";
    if (argc > 1)
        snprintf(why, sizeof(why), "asked %u", asked);
    printf("N = %u QP pairs (%s; at most %u: %u QPs less the driver's %u, at most %u), S = %u bytes, "
           "K = %u WRITEs posted per QP, W = %u cycles\n",
           N, why, cap, info.num_qp, RESERVED_QPS, MAX_QPS, S, K, W);
    printf("aggregate: %" PRIu64 " bytes in the window = %.3f bytes/cycle = %.1f%% of the datapath\n", total, agg,
           100.0 * agg / info.data_bytes);
    printf("fair share (aggregate / N): %.3f bytes/cycle\n", fair);
    printf("smallest share: QP %u, %.3f bytes/cycle = %.3f x the fair share\n", lo_qp, lo_bpc,
           fair > 0 ? lo_bpc / fair : 0.0);
    printf("largest share:  QP %u, %.3f bytes/cycle = %.3f x the fair share\n", hi_qp, hi_bpc,
           fair > 0 ? hi_bpc / fair : 0.0);
    printf("wall: %.3f s for the window (%" PRIu64 " fabric cycles) = %.0f fabric cycles/s\n", wall, t_exit - t0,
           wall > 0 ? (double)(t_exit - t0) / wall : 0.0);
    printf("drain: %u WRITEs outstanding at the end of the window, %" PRIu64 " cycles; %" PRIu64
           " completions in all\n", left, drain, done);
    if (rnic_check_failures()) {
        fprintf(stderr, "bench_qps: %d check(s) failed (up to %d printed above)\n", rnic_check_failures(),
                MAX_REPORTS);
        return 1;
    }
    printf("verified: every completion had status 0; %u destination regions hold their QP's pattern\n", N);
    return 0;
}
