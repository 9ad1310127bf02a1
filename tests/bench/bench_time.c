/* Benchmark (a program, not a test): what time costs a DAT program on the
 * simulated NICs (docs/performance.md, "Time"). Prints, as medians of
 * several runs on both NICs of one process (lockstep, the default for a
 * single-threaded program):
 *  - the wall time of dat_evd_wait with a 5 s timeout on an idle fabric
 *    (the idle time is jumped, not clocked);
 *  - the wall time of a dat_evd_wait that an 8 MiB RDMA WRITE ends, about
 *    10^6 cycles of real work, and the fabric cycles per wall second in it;
 *  - what one empty dat_evd_dequeue costs: simulated cycles (exact) and
 *    wall nanoseconds.
 * usage: bench_time [runs]
 * Static libdat: the program reads the platform's cycle counter. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dat_test.h"
#include "rnic_sim.h"

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *x, const void *y)
{
    const double d = *(const double *)x - *(const double *)y;
    return (d > 0) - (d < 0);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(v[0]), cmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > 64)
        runs = 5;
    const DAT_VLEN big = 8u << 20;
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    /* The fixture's buffers are 64 KiB: an 8 MiB region on each side. */
    uint8_t *src = aligned_alloc(4096, big), *dst = aligned_alloc(4096, big);
    memset(src, 0x5A, big);
    DAT_LMR_HANDLE ls, ld;
    DAT_LMR_CONTEXT cs, cd;
    DAT_RMR_CONTEXT rs, rd;
    DAT_VLEN sz;
    DAT_VADDR va;
    DAT_REGION_DESCRIPTION r1 = {.for_va = src}, r2 = {.for_va = dst};
    if (dat_lmr_create(p.s[0].ia, DAT_MEM_TYPE_VIRTUAL, r1, big, p.s[0].pz, DAT_MEM_PRIV_ALL_FLAG, &ls, &cs, &rs, &sz,
                       &va) != DAT_SUCCESS ||
        dat_lmr_create(p.s[1].ia, DAT_MEM_TYPE_VIRTUAL, r2, big, p.s[1].pz, DAT_MEM_PRIV_ALL_FLAG, &ld, &cd, &rd, &sz,
                       &va) != DAT_SUCCESS)
        return 2;

    double idle_ms[64], work_ms[64], work_rate[64], poll_ns[64];
    uint64_t work_cycles = 0, poll_cycles = 0;
    for (int r = 0; r < runs; r++) {
        DAT_EVENT ev;
        DAT_COUNT more;
        /* 5 s of NIC time with nothing to do. */
        double t0 = wall();
        CHECK_EQ(DAT_GET_TYPE(dat_evd_wait(p.s[0].req_evd, 5000000, 1, &ev, &more)), DAT_TIMEOUT_EXPIRED);
        idle_ms[r] = (wall() - t0) * 1e3;

        /* A wait that real work ends. */
        DAT_LMR_TRIPLET l = {cs, 0, (DAT_VADDR)(uintptr_t)src, big};
        DAT_RMR_TRIPLET t = {rd, 0, (DAT_VADDR)(uintptr_t)dst, big};
        uint64_t c0 = rnic_sim_cycle();
        t0 = wall();
        CHECK_EQ(dat_ep_post_rdma_write(p.s[0].ep, 1, &l, dt_cookie(1), &t, DAT_COMPLETION_DEFAULT_FLAG), DAT_SUCCESS);
        CHECK_EQ(dat_evd_wait(p.s[0].req_evd, DAT_TIMEOUT_INFINITE, 1, &ev, &more), DAT_SUCCESS);
        const double w = wall() - t0;
        work_cycles = rnic_sim_cycle() - c0;
        work_ms[r] = w * 1e3;
        work_rate[r] = (double)work_cycles / w;

        /* Empty polls on an idle fabric. */
        const int polls = 100000;
        c0 = rnic_sim_cycle();
        t0 = wall();
        for (int i = 0; i < polls; i++)
            CHECK_EQ(DAT_GET_TYPE(dat_evd_dequeue(p.s[0].req_evd, &ev)), DAT_QUEUE_EMPTY);
        poll_ns[r] = (wall() - t0) * 1e9 / polls;
        poll_cycles = (rnic_sim_cycle() - c0) / (uint64_t)polls;
    }
    CHECK(memcmp(src, dst, big) == 0);
    printf("bench_time: lockstep, both NICs in one process, %d runs, medians\n", runs);
    printf("dat_evd_wait, 5 s timeout, idle fabric: %.2f ms of wall time\n", median(idle_ms, runs));
    printf("dat_evd_wait ended by an 8 MiB RDMA WRITE: %llu cycles, %.1f ms of wall time, %.0f fabric cycles/s\n",
           (unsigned long long)work_cycles, median(work_ms, runs), median(work_rate, runs));
    printf("empty dat_evd_dequeue: %llu NIC cycles, %.0f ns of wall time\n", (unsigned long long)poll_cycles,
           median(poll_ns, runs));
    return dt_finish("bench_time") == 0 ? 0 : 1;
}
