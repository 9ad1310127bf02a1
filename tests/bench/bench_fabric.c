/* Benchmark (a program, not a test): prints
 *  - simulated fabric cycles per wall second under continuous RDMA WRITE
 *    load (median of several runs; wall time is noisy, quote the median),
 *  - payload bytes per cycle for 1 MiB RDMA WRITE and READ against the
 *    datapath width (simulated cycles: exact and repeatable),
 *  - cycles from the doorbell to the CQE for an 8-byte RDMA READ.
 * usage: bench_fabric [runs]   (figures recorded in docs/performance.md) */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rnic_sim.h"
#include "rnic_test.h"

static struct pair P;
static uint8_t *a, *b;
static rnic_mr *ma, *mb;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *x, const void *y) {
    double d = *(const double *)x - *(const double *)y;
    return (d > 0) - (d < 0);
}

/* Cycles from the doorbell write to the CQE landing in host memory. */
static uint64_t op_cycles(uint8_t op, uint32_t len) {
    struct rnic_sge s = {(uint64_t)(uintptr_t)a, len, rnic_mr_key(ma)};
    struct rnic_send_wr w = {.wr_id = 1, .opcode = op, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1, .sg = &s,
                             .remote_addr = (uint64_t)(uintptr_t)b, .rkey = rnic_mr_key(mb)};
    CHECK_EQ(rnic_post_send(P.qp[0], &w), RNIC_OK);
    uint64_t t0 = rnic_sim_cycle();   /* the doorbell write was the last cycle */
    struct rnic_wc wc;
    uint64_t waited = 0;
    int n;
    /* rnic_cq_take: an empty look costs no cycles here, so the count is exact. */
    while ((n = rnic_cq_take(P.cq[0], &wc, 1)) == 0 && waited < BUDGET)
        waited += rnic_wait(P.dev[0], 1) + 1;   /* one cycle at a time: exact to the cycle */
    CHECK_EQ(n, 1);
    CHECK_EQ(wc.status, 0);
    return rnic_sim_cycle() - t0;
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1) {
        /* The speed figure is a median: it needs at least one run. */
        fprintf(stderr, "bench_fabric: runs must be 1 to 64, not %s\n", argv[1]);
        return 2;
    }
    const uint32_t MiB = 1u << 20;
    pair_open(&P);
    a = aligned_alloc(4096, MiB);
    b = aligned_alloc(4096, MiB);
    fill_pattern(a, MiB, 1);
    rnic_mr_reg(P.dev[0], a, MiB, P.pz[0], ALL_ACCESS, &ma);
    rnic_mr_reg(P.dev[1], b, MiB, P.pz[1], ALL_ACCESS, &mb);
    struct rnic_dev_info info;
    rnic_query(P.dev[0], &info);

    uint64_t wr = op_cycles(RNIC_OP_RDMA_WRITE, MiB);
    uint64_t rd = op_cycles(RNIC_OP_RDMA_READ, MiB);
    uint64_t rd8 = op_cycles(RNIC_OP_RDMA_READ, 8);
    uint64_t wr8 = op_cycles(RNIC_OP_RDMA_WRITE, 8);

    /* Simulation speed: back-to-back 1 MiB WRITEs, waiting on the interrupt
     * (one platform call per completion), wall clock per run. */
    double rate[64];
    if (runs > 64)
        runs = 64;
    for (int r = 0; r < runs; r++) {
        uint64_t c0 = rnic_sim_cycle();
        double t0 = now();
        for (int i = 0; i < 4; i++) {
            struct rnic_sge s = {(uint64_t)(uintptr_t)a, MiB, rnic_mr_key(ma)};
            struct rnic_send_wr w = {.wr_id = 2, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                                     .num_sge = 1, .sg = &s, .remote_addr = (uint64_t)(uintptr_t)b,
                                     .rkey = rnic_mr_key(mb)};
            struct rnic_wc wc;
            CHECK_EQ(post_and_wait(&P, 0, &w, &wc), 1);
            CHECK_EQ(wc.status, 0);
        }
        rate[r] = (double)(rnic_sim_cycle() - c0) / (now() - t0);
    }
    qsort(rate, (size_t)runs, sizeof(rate[0]), cmp);

    printf("bench_fabric: two RNICs, link latency %s cycles, datapath %u bytes/cycle, MTU %u\n",
           getenv("RNIC_LINK_LATENCY") ? getenv("RNIC_LINK_LATENCY") : "100", info.data_bytes, info.mtu);
    printf("1 MiB RDMA WRITE: %llu cycles, %.2f bytes/cycle = %.1f%% of the datapath\n", (unsigned long long)wr,
           (double)MiB / (double)wr, 100.0 * (double)MiB / (double)wr / info.data_bytes);
    printf("1 MiB RDMA READ:  %llu cycles, %.2f bytes/cycle = %.1f%% of the datapath\n", (unsigned long long)rd,
           (double)MiB / (double)rd, 100.0 * (double)MiB / (double)rd / info.data_bytes);
    printf("8-byte RDMA READ, doorbell to CQE:  %llu cycles\n", (unsigned long long)rd8);
    printf("8-byte RDMA WRITE, doorbell to CQE: %llu cycles\n", (unsigned long long)wr8);
    printf("simulation speed under WRITE load: median %.0f fabric cycles/s (min %.0f, max %.0f, %d runs)\n",
           rate[runs / 2], rate[0], rate[runs - 1], runs);
    return rnic_check_failures() ? 1 : 0;
}
