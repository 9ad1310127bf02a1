/* The fabric's next event (docs/platform.md, "Time"): a frame a link fault
 * holds back is due in a known cycle, and so is a NIC's retransmission
 * timer (wake_at); the settled fabric jumps to exactly that cycle instead
 * of clocking the time up to it.
 *
 * lockstep: a 64-byte WRITE whose only frame is delayed by D = 25,000,000
 * cycles (100 ms of NIC time). The frame arrives at the far end exactly in
 * cycle sent + D + latency - (beats - 1) (each beat takes the latency; the
 * link hook gives the frame's length), not one cycle earlier; the fabric is not
 * quiescent while it is held; almost all of D is jumped; the receiver sees
 * the request exactly D cycles later than without the fault. Done twice in
 * one process: the same cycle counts both times. The QPs have no ACK
 * timeout here (QP_TIMERS.ACK_TIMEOUT 0): D is longer than the default one
 * (2^14 x 1024 cycles), and a resend would overtake the held frame.
 * Then the NIC's timer: the WRITE's only frame dropped, with an ACK
 * timeout T = 1024 x 2^10 cycles. Nothing is resent before sent + T (the
 * fabric not quiescent meanwhile: the timer is armed); the resend leaves
 * between sent + T and sent + T + RESEND_MAX (the timer's scan, the RETRY
 * job, the WQE fetched again and checked), almost all of T is jumped, and
 * the WRITE completes with the right data.
 *
 * freerun: the same delayed WRITE in a free-running process. The simulation
 * thread sleeps until the frame is due instead of clocking: at least 90 % of
 * D is counted as skipped (clocking 25M cycles takes more than 10 s, and
 * clocked cycles are never counted as skipped, so this holds on any
 * machine), and the NICs' clock is never faster than real time (the WRITE
 * takes at least D x 4 ns of wall time). Then the dropped frame: the thread
 * sleeps until the NIC's timer is due (at least 90 % of T skipped), the
 * resend comes no earlier than T after the first send, and the WRITE
 * completes. */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rnic_hw.h"
#include "rnic_sim.h"
#include "rnic_test.h"

#define D 25000000u
#define LEN 64u
/* The ACK timeout of the timer cases: QP_TIMERS.ACK_TIMEOUT T_LOG, that is
 * T = 1024 x 2^T_LOG cycles (4.2 ms). */
#define T_LOG 10u
#define T (1024u << T_LOG)
/* How much later than sent + T the resend may leave (lockstep_timer),
 * given `route`, the cycles the first send took from its post to the link.
 * The deadline is armed as the frame is cut (S_SQ_PKT) and a frame takes
 * the same time from its cut to the link each time, so the resend leaves T
 * after the first send, plus:
 *  - the timer's scan, which starts when time_now reaches wake_at and reads
 *    one QP a cycle: the rest of one under way, which may have passed the
 *    QP just before its deadline, then the next one up to the QP; under
 *    2 x NUM_QP cycles;
 *  - the engine taking the RETRY job, which rewinds the send queue: a few
 *    cycles (8 allowed);
 *  - the way from the RETRY to the resend's cut, the way a posted WQE goes
 *    from its doorbell (the WQE fetched again over DMA, decoded, its lkey
 *    checked): shorter than `route`, which includes the cut to the link.
 * Measured (RNIC_SIM_LOG=1): 45 = 4 (the first PKT_FIRST + T to the RETRY
 * event: the scan reaching QP 2, the job starting) + 41 (RETRY to the
 * resend's PKT_FIRST, as many as from the post's DOORBELL to its first). */
#define RESEND_MAX(route) (2u * RNIC_NUM_QP + 8u + (route))

static struct pair P;
static uint8_t *a, *b;   /* WRITE source on rnic0, destination on rnic1 */
static rnic_mr *ma, *mb;
static uint64_t lat;

/* No ACK timeout (the delay cases: nothing is resent), and T. */
static const struct rnic_qp_timers no_timeout = {0, RNIC_QP_DEFAULT_RETRY_CNT, RNIC_QP_DEFAULT_RNR_RETRY,
                                                 RNIC_QP_DEFAULT_MIN_RNR_TIMER};
static const struct rnic_qp_timers timeout_t = {T_LOG, RNIC_QP_DEFAULT_RETRY_CNT, RNIC_QP_DEFAULT_RNR_RETRY,
                                                RNIC_QP_DEFAULT_MIN_RNR_TIMER};

/* Cycles of rnic0's PKT_FIRST and rnic1's RKEY_CHECK (the latest of each),
 * and of rnic0's first two PKT_FIRSTs and its RETRYs; the hook runs on the
 * simulation thread when free-running. */
static uint64_t pkt_cycle, rkey_cycle, first_pkt[2], retry_cycle;
static unsigned npkt, nretry, retry_why;
static void on_event(const struct rnic_sim_event *ev, void *arg) {
    (void)arg;
    if (ev->nic == 0 && ev->event == RNIC_EV_PKT_FIRST) {
        __atomic_store_n(&pkt_cycle, ev->cycle, __ATOMIC_RELAXED);
        const unsigned n = __atomic_load_n(&npkt, __ATOMIC_RELAXED);
        if (n < 2)
            __atomic_store_n(&first_pkt[n], ev->cycle, __ATOMIC_RELAXED);
        __atomic_store_n(&npkt, n + 1, __ATOMIC_RELEASE);
    }
    if (ev->nic == 0 && ev->event == RNIC_EV_RETRY) {
        __atomic_store_n(&retry_cycle, ev->cycle, __ATOMIC_RELAXED);
        __atomic_store_n(&retry_why, (unsigned)(ev->arg >> RNIC_EV_ARG_RETRY_WHY_SHIFT & RNIC_EV_ARG_RETRY_WHY_MASK),
                         __ATOMIC_RELAXED);
        __atomic_store_n(&nretry, __atomic_load_n(&nretry, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
    }
    if (ev->nic == 1 && ev->event == RNIC_EV_RKEY_CHECK)
        __atomic_store_n(&rkey_cycle, ev->cycle, __ATOMIC_RELAXED);
}
/* The length of rnic0's last frame (the link hook runs before the faults),
 * and the cycles from the wire to the far end for it: each beat takes the
 * latency, one beat a cycle, so the first arrives latency - (beats - 1)
 * cycles after the last left (but not before that). */
static size_t frame_len;
static int on_frame(unsigned from, uint8_t *frame, size_t len, void *arg) {
    (void)frame;
    (void)arg;
    if (from == 0)
        __atomic_store_n(&frame_len, len, __ATOMIC_RELAXED);
    return 0;
}
static uint64_t on_wire(void) {
    const uint64_t beats = (__atomic_load_n(&frame_len, __ATOMIC_RELAXED) + RNIC_DATA_BYTES - 1) / RNIC_DATA_BYTES;
    return lat > beats ? lat - (beats - 1) : 1;
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

/* A fresh QP pair with timers `t`, an empty destination, and on rnic0's
 * link `f` (NULL: no fault). */
static void fresh_with(const struct rnic_qp_timers *t, const struct rnic_sim_link_faults *f) {
    rnic_qp_destroy(P.qp[0]);
    rnic_qp_destroy(P.qp[1]);
    P.timers = t;
    pair_reconnect(&P);
    memset(b, 0, LEN);
    CHECK_EQ(rnic_sim_set_link_faults(0, f), 0);
    __atomic_store_n(&pkt_cycle, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&rkey_cycle, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&retry_cycle, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&npkt, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&nretry, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&retry_why, ~0u, __ATOMIC_RELAXED);
}

/* No ACK timeout, and on rnic0's link either no fault or its next frame
 * delayed by D. */
static void fresh(int delayed) {
    struct rnic_sim_link_faults f;
    memset(&f, 0, sizeof(f));
    f.rule = RNIC_SIM_FAULT_DELAY;
    f.rule_frame = 0;
    f.delay_cycles = D;
    fresh_with(&no_timeout, delayed ? &f : NULL);
}

/* The ACK timeout T, and rnic0's next frame dropped. */
static void fresh_drop(void) {
    struct rnic_sim_link_faults f;
    memset(&f, 0, sizeof(f));
    f.rule = RNIC_SIM_FAULT_DROP;
    f.rule_frame = 0;
    fresh_with(&timeout_t, &f);
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
    CHECK(frame_len > 0);
    const uint64_t due = sent + D + on_wire();   /* the cycle it reaches the far end in */

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
    CHECK_EQ(stats().seen, 1);   /* no ACK timeout: nothing was sent again */

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

/* The NIC's timer as the fabric's next event: the WRITE's only frame is
 * dropped, and the requester's ACK timeout is all that is left to happen.
 * The timer is armed as the frame is cut (S_SQ_PKT), for that cycle + T;
 * the frame reaches the link the same number of cycles later each time
 * (its payload read, framed), so the resend leaves T after the first send
 * plus what the retry itself costs: RESEND_MAX bounds that. */
static void lockstep_timer(void) {
    fresh_drop();
    const uint64_t f0 = rnic_sim_link_frames(0);
    post_write();
    const uint64_t posted = rnic_sim_cycle();
    for (int i = 0; i < 5000 && stats().dropped == 0; i++)
        rnic_sim_advance(1);
    CHECK_EQ(stats().dropped, 1);
    const uint64_t sent = rnic_sim_cycle() - 1;   /* the cycle it was sent (and dropped) in */
    const uint64_t s0 = rnic_sim_skipped_cycles();

    rnic_sim_advance(200);   /* the NICs settle: only the timer is armed */
    CHECK_EQ(rnic_sim_quiescent(), 0);
    rnic_sim_advance(T / 2);   /* jumped, not past the deadline */
    CHECK_EQ(rnic_sim_quiescent(), 0);
    CHECK_EQ(stats().seen, 1);
    rnic_sim_advance(sent + T - rnic_sim_cycle());   /* every cycle before sent + T */
    CHECK_EQ(rnic_sim_cycle(), sent + T);
    CHECK_EQ(stats().seen, 1);   /* nothing resent before the timeout */
    CHECK_EQ(rnic_sim_link_frames(0), f0);
    /* All of T but the cycles the NICs worked: settling after the send, and
     * the retry, under way before sent + T (the deadline counts from the
     * cut, a few dozen cycles before the send). */
    const uint64_t jumped = rnic_sim_skipped_cycles() - s0;
    CHECK(jumped > T - 500);
    CHECK(jumped < T);

    const uint64_t max = RESEND_MAX(sent - posted);
    for (uint64_t i = 0; i < 10 * max && stats().seen == 1; i++)
        rnic_sim_advance(1);
    CHECK_EQ(stats().seen, 2);
    const uint64_t resent = rnic_sim_cycle() - 1;
    CHECK(resent >= sent + T);
    CHECK(resent - (sent + T) <= max);
    CHECK_EQ(nretry, 1);
    CHECK_EQ(retry_why, RNIC_RETRY_WHY_TIMEOUT);
    rnic_sim_advance(resent + on_wire() - rnic_sim_cycle());
    CHECK_EQ(rnic_sim_link_frames(0), f0);   /* on the wire, not there yet */
    rnic_sim_advance(1);
    CHECK_EQ(rnic_sim_link_frames(0), f0 + 1);
    completes(BUDGET);
    CHECK_EQ(stats().dropped, 1);
    CHECK_EQ(stats().seen, 2);
    fprintf(stderr,
            "lockstep timer: posted +0, sent +%llu, RETRY +%llu, resent +%llu = sent + T + %llu (at most %llu), "
            "%llu of %u cycles jumped\n",
            (unsigned long long)(sent - posted), (unsigned long long)(retry_cycle - posted),
            (unsigned long long)(resent - posted), (unsigned long long)(resent - sent - T), (unsigned long long)max,
            (unsigned long long)jumped, T);
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
    lockstep_timer();
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
    /* The dropped frame: the thread sleeps until the NIC's timer is due. */
    fresh_drop();
    const uint64_t s1 = rnic_sim_skipped_cycles(), w1 = wall_ns();
    post_write();
    completes(budget);
    const uint64_t wall1 = wall_ns() - w1, skipped1 = rnic_sim_skipped_cycles() - s1;
    CHECK_EQ(stats().seen, 2);
    CHECK_EQ(stats().dropped, 1);
    CHECK_EQ(nretry, 1);
    CHECK_EQ(retry_why, RNIC_RETRY_WHY_TIMEOUT);
    CHECK_EQ(npkt, 2);
    CHECK(first_pkt[1] - first_pkt[0] >= T);
    CHECK(skipped1 >= (uint64_t)T * 9 / 10);
    CHECK(wall1 >= (uint64_t)T * 4);
    fprintf(stderr, "freerun timer: %llu of %u cycles skipped, resent %llu cycles after the first send, %.4f s wall\n",
            (unsigned long long)skipped1, T, (unsigned long long)(first_pkt[1] - first_pkt[0]), (double)wall1 / 1e9);
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
    rnic_sim_set_link_hook(on_frame, NULL);
    if (strcmp(argv[1], "lockstep") == 0)
        test_lockstep();
    else
        test_freerun();
    rnic_sim_set_event_hook(NULL, NULL);
    rnic_sim_set_link_hook(NULL, NULL);
    CHECK_EQ(rnic_sim_set_link_faults(0, NULL), 0);
    free(a);
    free(b);
    return rnic_test_finish(argv[1][0] == 'l' ? "test_next_event lockstep" : "test_next_event freerun");
}
