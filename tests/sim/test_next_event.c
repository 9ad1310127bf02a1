/* The fabric's next event (docs/platform.md, "Time"): a frame a link fault
 * holds back is due in a known cycle, and the settled fabric jumps to
 * exactly that cycle instead of clocking the time up to it.
 *
 * lockstep: a 64-byte WRITE whose only frame is delayed by D = 25,000,000
 * cycles (100 ms of NIC time). The frame arrives at the far end exactly in
 * cycle sent + D + latency, not one cycle earlier; the fabric is not
 * quiescent while it is held; almost all of D is jumped; the receiver sees
 * the request exactly D cycles later than without the fault. Done twice in
 * one process: the same cycle counts both times.
 *
 * freerun: the same WRITE in a free-running process. The simulation thread
 * sleeps until the frame is due instead of clocking: at least 90 % of D is
 * counted as skipped (clocking 25M cycles takes more than 10 s, and clocked
 * cycles are never counted as skipped, so this holds on any machine), and
 * the NICs' clock is never faster than real time (the WRITE takes at least
 * D x 4 ns of wall time). */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rnic_sim.h"
#include "rnic_test.h"

#define D 25000000u
#define LEN 64u

static struct pair P;
static uint8_t *a, *b;   /* WRITE source on rnic0, destination on rnic1 */
static rnic_mr *ma, *mb;
static uint64_t lat;

/* Cycles of rnic0's PKT_FIRST and rnic1's RKEY_CHECK; the hook runs on the
 * simulation thread when free-running. */
static uint64_t pkt_cycle, rkey_cycle;
static void on_event(const struct rnic_sim_event *ev, void *arg) {
    (void)arg;
    if (ev->nic == 0 && ev->event == RNIC_EV_PKT_FIRST)
        __atomic_store_n(&pkt_cycle, ev->cycle, __ATOMIC_RELAXED);
    if (ev->nic == 1 && ev->event == RNIC_EV_RKEY_CHECK)
        __atomic_store_n(&rkey_cycle, ev->cycle, __ATOMIC_RELAXED);
}
static uint64_t request_cycles(void) {
    return __atomic_load_n(&rkey_cycle, __ATOMIC_RELAXED) - __atomic_load_n(&pkt_cycle, __ATOMIC_RELAXED);
}

static uint64_t latency(void) {
    const char *v = getenv("RNIC_LINK_LATENCY");
    return v && *v ? strtoull(v, NULL, 0) : 100;
}

static uint64_t wall_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static struct rnic_sim_link_fault_stats stats(void) {
    struct rnic_sim_link_fault_stats st;
    memset(&st, 0xFF, sizeof(st));
    CHECK_EQ(rnic_sim_get_link_fault_stats(0, &st), 0);
    return st;
}

/* A fresh QP pair, an empty destination, and on rnic0's link either no
 * fault or its next frame delayed by D. */
static void fresh(int delayed) {
    rnic_qp_destroy(P.qp[0]);
    rnic_qp_destroy(P.qp[1]);
    pair_reconnect(&P);
    memset(b, 0, LEN);
    struct rnic_sim_link_faults f;
    memset(&f, 0, sizeof(f));
    f.rule = RNIC_SIM_FAULT_DELAY;
    f.rule_frame = 0;
    f.delay_cycles = D;
    CHECK_EQ(rnic_sim_set_link_faults(0, delayed ? &f : NULL), 0);
    __atomic_store_n(&pkt_cycle, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&rkey_cycle, 0, __ATOMIC_RELAXED);
}

static void post_write(void) {
    struct rnic_sge s = {(uint64_t)(uintptr_t)a, LEN, rnic_mr_key(ma)};
    struct rnic_send_wr w = {.wr_id = 1, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                             .num_sge = 1, .sg = &s, .remote_addr = (uint64_t)(uintptr_t)b, .rkey = rnic_mr_key(mb)};
    CHECK_EQ(rnic_post_send(P.qp[0], &w), RNIC_OK);
}

/* The WRITE's completion, waited for as long as `max_cycles` of NIC time. */
static void completes(uint64_t max_cycles) {
    struct rnic_wc wc;
    memset(&wc, 0, sizeof(wc));
    CHECK_EQ(rnic_cq_wait(P.cq[0], &wc, max_cycles), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(memcmp(a, b, LEN), 0);
}

/* Cycle counts of one delayed WRITE, from its post. */
struct run {
    uint64_t sent;       /* the cycle the frame was sent (and held) in */
    uint64_t arrived;    /* the cycle it reached the far end in */
    uint64_t request;    /* RKEY_CHECK - PKT_FIRST */
    uint64_t done;       /* cycles until the completion was taken */
    uint64_t skipped;    /* cycles jumped from the post to the completion */
};

static struct run lockstep_run(uint64_t plain) {
    struct run r;
    memset(&r, 0, sizeof(r));
    fresh(1);
    const uint64_t f0 = rnic_sim_link_frames(0), s0 = rnic_sim_skipped_cycles();
    post_write();
    const uint64_t t0 = rnic_sim_cycle();
    for (int i = 0; i < 5000 && stats().held == 0; i++)
        rnic_sim_advance(1);
    CHECK_EQ(stats().held, 1);
    const uint64_t sent = rnic_sim_cycle() - 1;
    const uint64_t due = sent + D + lat;   /* the cycle it reaches the far end in */

    rnic_sim_advance(200);   /* the NICs settle; the frame is still held */
    CHECK_EQ(stats().held, 1);
    CHECK_EQ(rnic_sim_quiescent(), 0);
    rnic_sim_advance(D / 2);   /* jumped, not past the release */
    CHECK_EQ(stats().held, 1);
    CHECK_EQ(rnic_sim_quiescent(), 0);
    rnic_sim_advance(due - rnic_sim_cycle());   /* every cycle before `due` */
    CHECK_EQ(rnic_sim_cycle(), due);
    CHECK_EQ(stats().held, 0);
    CHECK_EQ(rnic_sim_link_frames(0), f0);   /* on the wire, not there yet */
    rnic_sim_advance(1);
    CHECK_EQ(rnic_sim_link_frames(0), f0 + 1);
    completes(BUDGET);
    CHECK_EQ(request_cycles(), plain + D);
    CHECK_EQ(stats().delayed, 1);

    r.sent = sent - t0;
    r.arrived = due - t0;
    r.request = request_cycles();
    r.done = rnic_sim_cycle() - t0;
    r.skipped = rnic_sim_skipped_cycles() - s0;
    /* All but the cycles around the send and the arrival were jumped. */
    CHECK(r.skipped > D - 1000);
    CHECK(r.skipped < D);
    return r;
}

static void test_lockstep(void) {
    CHECK_EQ(rnic_sim_mode(), RNIC_SIM_MODE_LOCKSTEP);
    fresh(0);
    post_write();
    completes(BUDGET);
    const uint64_t plain = request_cycles();
    const uint64_t w0 = wall_ns();
    const struct run r1 = lockstep_run(plain);
    const struct run r2 = lockstep_run(plain);
    CHECK_EQ(r1.sent, r2.sent);
    CHECK_EQ(r1.arrived, r2.arrived);
    CHECK_EQ(r1.request, r2.request);
    CHECK_EQ(r1.done, r2.done);
    CHECK_EQ(r1.skipped, r2.skipped);
    fprintf(stderr, "lockstep: sent +%llu, arrived +%llu, done +%llu, %llu skipped; %.3f s wall for both\n",
            (unsigned long long)r1.sent, (unsigned long long)r1.arrived, (unsigned long long)r1.done,
            (unsigned long long)r1.skipped, (double)(wall_ns() - w0) / 1e9);
}

static void test_freerun(void) {
    CHECK_EQ(rnic_sim_go_freerun(), 0);
    CHECK_EQ(rnic_sim_mode(), RNIC_SIM_MODE_FREERUN);
    /* A minute of NIC time for each WRITE: the wait ends with the completion. */
    const uint64_t budget = 15000000000ull;
    fresh(0);
    post_write();
    completes(budget);
    const uint64_t plain = request_cycles();

    fresh(1);
    const uint64_t s0 = rnic_sim_skipped_cycles(), w0 = wall_ns();
    post_write();
    /* While the frame is held the fabric is not quiescent. The hold lasts at
     * least D x 4 ns of real time, so this sees it unless the thread is kept
     * off the CPU that long; what it sees is checked either way. */
    int seen_held = 0;
    for (int i = 0; i < 100000 && stats().delayed == 0; i++)
        rnic_sim_advance(64);
    if (stats().held == 1) {
        const int q = rnic_sim_quiescent();
        if (stats().held == 1) {   /* held throughout the look */
            CHECK_EQ(q, 0);
            seen_held = 1;
        }
    }
    completes(budget);
    const uint64_t wall = wall_ns() - w0, skipped = rnic_sim_skipped_cycles() - s0;
    CHECK_EQ(stats().delayed, 1);
    CHECK_EQ(stats().held, 0);
    CHECK(skipped >= (uint64_t)D * 9 / 10);
    CHECK(request_cycles() >= plain + D);
    CHECK(wall >= (uint64_t)D * 4);   /* never faster than real time */
    fprintf(stderr, "freerun: %llu of %u cycles skipped, request %llu cycles (plain %llu), %.3f s wall, held %s\n",
            (unsigned long long)skipped, D, (unsigned long long)request_cycles(), (unsigned long long)plain,
            (double)wall / 1e9, seen_held ? "seen" : "not seen");
}

int main(int argc, char **argv) {
    if (argc != 2 || (strcmp(argv[1], "lockstep") != 0 && strcmp(argv[1], "freerun") != 0)) {
        fprintf(stderr, "usage: test_next_event lockstep|freerun\n");
        return 2;
    }
    lat = latency();
    pair_open(&P);
    a = aligned_alloc(4096, 4096);
    b = aligned_alloc(4096, 4096);
    fill_pattern(a, 4096, 5);
    CHECK_EQ(rnic_mr_reg(P.dev[0], a, 4096, P.pz[0], ALL_ACCESS, &ma), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], b, 4096, P.pz[1], ALL_ACCESS, &mb), RNIC_OK);
    rnic_sim_set_event_hook(on_event, NULL);
    if (strcmp(argv[1], "lockstep") == 0)
        test_lockstep();
    else
        test_freerun();
    rnic_sim_set_event_hook(NULL, NULL);
    CHECK_EQ(rnic_sim_set_link_faults(0, NULL), 0);
    free(a);
    free(b);
    return rnic_test_finish(argv[1][0] == 'l' ? "test_next_event lockstep" : "test_next_event freerun");
}
