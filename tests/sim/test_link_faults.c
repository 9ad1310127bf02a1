/* Link faults on the in-process link between rnic0 and rnic1 (lockstep),
 * with RDMA WRITEs as the traffic: a rule drops frame 3 (0-based) of six
 * (five arrive, the first three frames' bytes land and nothing after),
 * duplicates frame 2 (one frame more arrives, the WRITE still completes),
 * corrupts frame 0 (it arrives, the receiver's RX_DROPS rises, no byte
 * lands), delays frame 1 by 1500 cycles (it arrives exactly that much
 * late, the frame behind it waits with it, the WRITE is intact) and
 * reorders frame 1 (it arrives together with frame 2, after it: the
 * receiver drops frame 2 as out of sequence and places frame 1). A
 * reordered last frame leaves at its deadline, exactly, with the idle time
 * before it jumped and the fabric not quiescent meanwhile. The link hook
 * still sees every frame first. Random faults: one seed twice gives the
 * same counters, another seed other ones, each rate over 2048 frames is
 * near its probability and every frame is accounted for at the far end.
 * Bad values and NIC indices are refused; a hook calling in is refused.
 * RNIC_LINK_FAULTS configures the same (a child process). The NIC does not
 * retransmit: no test waits for a completion a fault prevents; frames are
 * counted instead. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_sim.h"
#include "rnic_test.h"
#include "run_child.h"

#define MTU 4096u
#define BUF (256u * MTU)

static struct pair P;
static uint8_t *a, *b;   /* WRITE source on rnic0, destination on rnic1 */
static rnic_mr *ma, *mb;
static uint64_t lat;

/* The link hook: the cycle each frame of rnic0 was sent in (it runs before
 * the faults), and what the tests ask of it. */
static uint64_t sent_at[64];
static unsigned nsent;
static int hook_drops_next, hook_calls_in, hook_set_rc, hook_get_rc;

static int hook(unsigned from, uint8_t *frame, size_t len, void *arg) {
    (void)frame, (void)len, (void)arg;
    if (from != 0)
        return 0;
    if (hook_calls_in) {
        struct rnic_sim_link_fault_stats st;
        hook_set_rc = rnic_sim_set_link_faults(0, NULL);
        hook_get_rc = rnic_sim_get_link_fault_stats(0, &st);
        hook_calls_in = 0;
    }
    if (nsent < 64)
        sent_at[nsent] = rnic_sim_cycle();
    nsent++;
    if (hook_drops_next) {
        hook_drops_next = 0;
        return 1;
    }
    return 0;
}

static uint64_t latency(void) {
    const char *v = getenv("RNIC_LINK_LATENCY");
    return v && *v ? strtoull(v, NULL, 0) : 100;
}

static struct rnic_sim_link_fault_stats stats(unsigned nic) {
    struct rnic_sim_link_fault_stats st;
    memset(&st, 0xFF, sizeof(st));
    CHECK_EQ(rnic_sim_get_link_fault_stats(nic, &st), 0);
    return st;
}

static uint32_t rx_drops(void) { return rnic_reg_read(P.dev[1], RNIC_REG_RX_DROPS); }

static int all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* A fresh QP pair (a fault may have left the last one waiting for ever),
 * no faults, an empty destination, an empty send CQ. */
static void fresh(void) {
    CHECK_EQ(rnic_sim_set_link_faults(0, NULL), 0);
    rnic_qp_destroy(P.qp[0]);
    rnic_qp_destroy(P.qp[1]);
    pair_reconnect(&P);
    struct rnic_wc wc;
    while (rnic_cq_take(P.cq[0], &wc, 1) > 0) {
    }
    memset(b, 0, BUF);
    nsent = 0;
}

static void post_write(uint32_t len) {
    struct rnic_sge s = {(uint64_t)(uintptr_t)a, len, rnic_mr_key(ma)};
    struct rnic_send_wr w = {.wr_id = len, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                             .num_sge = 1, .sg = &s, .remote_addr = (uint64_t)(uintptr_t)b, .rkey = rnic_mr_key(mb)};
    CHECK_EQ(rnic_post_send(P.qp[0], &w), RNIC_OK);
}

static void completes(void) {
    struct rnic_wc wc;
    CHECK_EQ(wait_cq(&P, 0, &wc), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
}

static struct rnic_sim_link_faults rule(int kind, uint64_t frame) {
    struct rnic_sim_link_faults f;
    memset(&f, 0, sizeof(f));
    f.rule = kind;
    f.rule_frame = frame;
    return f;
}

/* Steps one cycle at a time for `cycles`, noting the cycle each of rnic0's
 * frames arrived in (several may arrive in one). Returns the arrivals. */
static unsigned arrivals(uint64_t *at, unsigned max, uint64_t cycles) {
    uint64_t seen = rnic_sim_link_frames(0);
    unsigned n = 0;
    for (uint64_t c = 0; c < cycles; c++) {
        rnic_sim_advance(1);
        for (uint64_t now = rnic_sim_link_frames(0); seen < now; seen++)
            if (n < max)
                at[n++] = rnic_sim_cycle() - 1;
    }
    return n;
}

static void test_api(void) {
    struct rnic_sim_link_faults f;
    memset(&f, 0, sizeof(f));
    struct rnic_sim_link_fault_stats st;
    CHECK_EQ(rnic_sim_set_link_faults(2, &f), -1);   /* a fabric of two NICs */
    CHECK_EQ(rnic_sim_set_link_faults(99, NULL), -1);
    CHECK_EQ(rnic_sim_get_link_fault_stats(2, &st), -1);
    CHECK_EQ(rnic_sim_get_link_fault_stats(0, NULL), -1);
    const double bad[] = {-0.1, 1.5, NAN};
    for (unsigned i = 0; i < 3; i++) {
        f.dup = bad[i];
        CHECK_EQ(rnic_sim_set_link_faults(0, &f), -2);
    }
    f.dup = 0.6;
    f.drop = 0.6;
    CHECK_EQ(rnic_sim_set_link_faults(1, &f), -2);
    f.drop = 0.4;   /* a sum of exactly 1 is fine */
    CHECK_EQ(rnic_sim_set_link_faults(1, &f), 0);
    f = rule(6, 0);
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), -2);
    f = rule(RNIC_SIM_FAULT_DELAY, 0);
    f.delay_cycles = 1000000001u;
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), -2);
    f.delay_cycles = 1000000000u;
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
    CHECK_EQ(rnic_sim_set_link_faults(0, NULL), 0);
    CHECK_EQ(rnic_sim_set_link_faults(1, NULL), 0);
    st = stats(1);
    CHECK_EQ(st.seen + st.held, 0);

    /* From inside the simulation: refused, the run goes on. */
    hook_calls_in = 1;
    post_write(64);
    rnic_sim_advance(lat + 2000);
    CHECK_EQ(hook_calls_in, 0);
    CHECK_EQ(hook_set_rc, -3);
    CHECK_EQ(hook_get_rc, -3);
    completes();
}

static void test_drop(void) {
    fresh();
    struct rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_DROP, 3);
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
    const uint64_t f0 = rnic_sim_link_frames(0);
    const uint32_t d0 = rx_drops();
    post_write(6 * MTU);
    rnic_sim_advance(lat + 20000);
    CHECK_EQ(nsent, 6);
    CHECK_EQ(rnic_sim_link_frames(0) - f0, 5);
    const struct rnic_sim_link_fault_stats st = stats(0);
    CHECK_EQ(st.seen, 6);
    CHECK_EQ(st.dropped, 1);
    CHECK_EQ(st.duplicated + st.corrupted + st.delayed + st.reordered + st.held, 0);
    /* Frames 0-2 landed; 3 never came, so 4 and 5 were out of sequence. */
    CHECK_EQ(memcmp(a, b, 3 * MTU), 0);
    CHECK(all_zero(b + 3 * MTU, 3 * MTU));
    CHECK_EQ(rx_drops() - d0, 2);
}

/* The hook runs first: a frame it drops is no frame for the faults. */
static void test_hook_first(void) {
    fresh();
    struct rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_DUP, 0);
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
    const uint64_t f0 = rnic_sim_link_frames(0);
    hook_drops_next = 1;
    post_write(2 * MTU);
    rnic_sim_advance(lat + 20000);
    CHECK_EQ(nsent, 2);
    CHECK_EQ(rnic_sim_link_frames(0) - f0, 2);   /* the second frame, twice */
    const struct rnic_sim_link_fault_stats st = stats(0);
    CHECK_EQ(st.seen, 1);
    CHECK_EQ(st.duplicated, 1);
    CHECK(all_zero(b, 2 * MTU));   /* out of sequence, both copies */
}

static void test_dup(void) {
    fresh();
    struct rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_DUP, 2);
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
    const uint64_t f0 = rnic_sim_link_frames(0);
    const uint32_t d0 = rx_drops();
    post_write(4 * MTU);
    completes();   /* the copy is a duplicate PSN: dropped, nothing else changes */
    rnic_sim_advance(lat + 2000);
    CHECK_EQ(rnic_sim_link_frames(0) - f0, 5);
    const struct rnic_sim_link_fault_stats st = stats(0);
    CHECK_EQ(st.seen, 4);
    CHECK_EQ(st.duplicated, 1);
    CHECK_EQ(st.dropped + st.corrupted + st.delayed + st.reordered + st.held, 0);
    CHECK_EQ(memcmp(a, b, 4 * MTU), 0);
    CHECK_EQ(rx_drops() - d0, 1);
}

static void test_corrupt(void) {
    fresh();
    struct rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_CORRUPT, 0);
    f.seed = 3;
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
    const uint64_t f0 = rnic_sim_link_frames(0);
    const uint32_t d0 = rx_drops();
    rnic_dev_status(P.dev[1], NULL, true);
    post_write(512);
    rnic_sim_advance(lat + 5000);
    CHECK_EQ(rnic_sim_link_frames(0) - f0, 1);   /* it arrived ... */
    CHECK_EQ(rx_drops() - d0, 1);                 /* ... and the receiver threw it away */
    CHECK(rnic_reg_read(P.dev[1], RNIC_REG_STATUS) & RNIC_STATUS_RX_DROP_MASK);
    CHECK(all_zero(b, 512));
    struct rnic_wc wc;
    CHECK_EQ(rnic_cq_take(P.cq[0], &wc, 1), 0);
    const struct rnic_sim_link_fault_stats st = stats(0);
    CHECK_EQ(st.seen, 1);
    CHECK_EQ(st.corrupted, 1);
}

static void test_delay(void) {
    fresh();
    enum { D = 1500 };   /* frame 2 is sent while frame 1 is held */
    struct rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_DELAY, 1);
    f.delay_cycles = D;
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
    post_write(3 * MTU);
    uint64_t at[8];
    const unsigned n = arrivals(at, 8, 3 * 600 + D + lat + 500);
    CHECK_EQ(nsent, 3);
    CHECK_EQ(n, 3);
    if (n == 3 && nsent == 3) {
        CHECK_EQ(at[0], sent_at[0] + lat);
        CHECK_EQ(at[1], sent_at[1] + D + lat);
        CHECK(sent_at[2] < sent_at[1] + D);   /* frame 2 was ready before frame 1 left: it waited */
        CHECK_EQ(at[2], sent_at[1] + D + lat);
    }
    completes();
    CHECK_EQ(memcmp(a, b, 3 * MTU), 0);
    CHECK_EQ(stats(0).delayed, 1);
}

static void test_reorder(void) {
    fresh();
    struct rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_REORDER, 1);
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
    const uint32_t d0 = rx_drops();
    post_write(3 * MTU);
    uint64_t at[8];
    const unsigned n = arrivals(at, 8, 3 * 600 + lat + 2000);
    CHECK_EQ(nsent, 3);
    CHECK_EQ(n, 3);
    if (n == 3 && nsent == 3) {
        CHECK_EQ(at[0], sent_at[0] + lat);
        CHECK_EQ(at[1], sent_at[2] + lat);   /* frame 1 left with frame 2 ... */
        CHECK_EQ(at[2], sent_at[2] + lat);
    }
    /* ... behind it: frame 2 came first, out of sequence, and was dropped;
     * frame 1 came next, in sequence, and landed. */
    CHECK_EQ(memcmp(a, b, 2 * MTU), 0);
    CHECK(all_zero(b + 2 * MTU, MTU));
    CHECK_EQ(rx_drops() - d0, 1);
    const struct rnic_sim_link_fault_stats st = stats(0);
    CHECK_EQ(st.seen, 3);
    CHECK_EQ(st.reordered, 1);
    CHECK_EQ(st.held, 0);
}

/* Cycles from rnic0's PKT_FIRST to rnic1's RKEY_CHECK. */
static uint64_t pkt_cycle, rkey_cycle;
static void on_event(const struct rnic_sim_event *ev, void *arg) {
    (void)arg;
    if (ev->nic == 0 && ev->event == RNIC_EV_PKT_FIRST)
        pkt_cycle = ev->cycle;
    if (ev->nic == 1 && ev->event == RNIC_EV_RKEY_CHECK)
        rkey_cycle = ev->cycle;
}

/* A reordered frame nothing follows leaves at its deadline, exactly, while
 * the fabric jumps the idle time up to it and is not quiescent meanwhile. */
static void test_reorder_deadline(void) {
    fresh();
    enum { R = 3000 };
    rnic_sim_set_event_hook(on_event, NULL);
    post_write(64);
    completes();
    const uint64_t plain = rkey_cycle - pkt_cycle;

    struct rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_REORDER, 0);
    f.reorder_cycles = R;
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
    pkt_cycle = rkey_cycle = 0;
    post_write(64);
    for (int i = 0; i < 2000 && stats(0).held == 0; i++)
        rnic_sim_advance(1);
    CHECK_EQ(stats(0).held, 1);
    rnic_sim_advance(200);   /* the NICs settle; the frame is still held */
    CHECK_EQ(rnic_sim_quiescent(), 0);
    const uint64_t skipped = rnic_sim_skipped_cycles();
    completes();
    CHECK_EQ(rkey_cycle - pkt_cycle, plain + R);
    CHECK(rnic_sim_skipped_cycles() - skipped > R / 2);
    CHECK_EQ(stats(0).reordered, 1);
    CHECK_EQ(stats(0).held, 0);
    rnic_sim_set_event_hook(NULL, NULL);
}

/* 2048 frames under random faults on rnic0's link: 8 WRITEs of 1 MiB, as
 * the requester keeps at most 8 WQEs of a QP in flight, and after the first
 * lost frame nothing is acknowledged any more. */
static struct rnic_sim_link_fault_stats random_run(uint64_t seed, uint64_t *arrived) {
    fresh();
    struct rnic_sim_link_faults f;
    memset(&f, 0, sizeof(f));
    f.drop = 0.10;
    f.dup = 0.05;
    f.corrupt = 0.05;
    f.delay = 0.05;
    f.reorder = 0.05;
    f.delay_cycles = 300;
    f.reorder_cycles = 300;
    f.seed = seed;
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
    const uint64_t f0 = rnic_sim_link_frames(0);
    for (int i = 0; i < 8; i++)
        post_write(256 * MTU);
    struct rnic_sim_link_fault_stats st = stats(0);
    for (int i = 0; i < 200 && (st.seen < 2048 || st.held); i++) {
        rnic_sim_advance(20000);
        st = stats(0);
    }
    rnic_sim_advance(lat + 5000);   /* the last frames reach the far end */
    *arrived = rnic_sim_link_frames(0) - f0;
    return stats(0);
}

static int within(uint64_t count, uint64_t of, double p) {
    const double r = (double)count / (double)of;
    return r > p * 0.5 && r < p * 1.5;
}

static void test_random(void) {
    uint64_t n1, n2, n3;
    const struct rnic_sim_link_fault_stats s1 = random_run(7, &n1);
    const struct rnic_sim_link_fault_stats s2 = random_run(7, &n2);
    const struct rnic_sim_link_fault_stats s3 = random_run(8, &n3);
    CHECK_EQ(s1.seen, 2048);
    CHECK_EQ(memcmp(&s1, &s2, sizeof(s1)), 0);
    CHECK_EQ(n1, n2);
    CHECK(memcmp(&s1, &s3, sizeof(s1)) != 0);
    CHECK(within(s1.dropped, s1.seen, 0.10));
    CHECK(within(s1.duplicated, s1.seen, 0.05));
    CHECK(within(s1.corrupted, s1.seen, 0.05));
    CHECK(within(s1.delayed, s1.seen, 0.05));
    CHECK(within(s1.reordered, s1.seen, 0.05));
    CHECK_EQ(s1.held, 0);
    CHECK_EQ(n1, s1.seen - s1.dropped + s1.duplicated);
    CHECK_EQ(n3, s3.seen - s3.dropped + s3.duplicated);
    fprintf(stderr, "seed 7: %llu frames: %llu dropped, %llu duplicated, %llu corrupted, %llu delayed, %llu reordered\n",
            (unsigned long long)s1.seen, (unsigned long long)s1.dropped, (unsigned long long)s1.duplicated,
            (unsigned long long)s1.corrupted, (unsigned long long)s1.delayed, (unsigned long long)s1.reordered);
}

/* Child: RNIC_LINK_FAULTS as the parent set it; a two-frame WRITE. */
static int env_child(void) {
    pair_open(&P);
    uint8_t *src = aligned_alloc(4096, 2 * MTU), *dst = aligned_alloc(4096, 2 * MTU);
    fill_pattern(src, 2 * MTU, 4);
    memset(dst, 0, 2 * MTU);
    rnic_mr *ms, *md;
    CHECK_EQ(rnic_mr_reg(P.dev[0], src, 2 * MTU, P.pz[0], ALL_ACCESS, &ms), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], dst, 2 * MTU, P.pz[1], ALL_ACCESS, &md), RNIC_OK);
    const uint64_t f0 = rnic_sim_link_frames(0);
    struct rnic_sge s = {(uint64_t)(uintptr_t)src, 2 * MTU, rnic_mr_key(ms)};
    struct rnic_send_wr w = {.wr_id = 1, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                             .num_sge = 1, .sg = &s, .remote_addr = (uint64_t)(uintptr_t)dst, .rkey = rnic_mr_key(md)};
    struct rnic_wc wc = {0};
    const int got = post_and_wait(&P, 0, &w, &wc);
    const struct rnic_sim_link_fault_stats s0 = stats(0), s1 = stats(1);
    printf("wc=%d status=%d same=%d frames=%llu seen0=%llu dup0=%llu seen1=%llu faults1=%llu\n", got, wc.status,
           memcmp(src, dst, 2 * MTU) == 0, (unsigned long long)(rnic_sim_link_frames(0) - f0),
           (unsigned long long)s0.seen, (unsigned long long)s0.duplicated, (unsigned long long)s1.seen,
           (unsigned long long)(s1.dropped + s1.duplicated + s1.corrupted + s1.delayed + s1.reordered));
    return rnic_check_failures() ? 1 : 0;
}

/* The first group gives every NIC a configuration that does nothing (its
 * frames are still judged and counted); the second replaces rnic0's: each
 * of its frames sent twice. A bad value fails the open, naming the part. */
static void test_env(void) {
    static struct child_run r;
    const char *env[] = {"RNIC_LINK_FAULTS=drop=0,seed=1;nic=0,rule=dup,count=all", NULL};
    const char *args[] = {"env", NULL};
    CHECK_EQ(run_child(&r, env, args), 0);
    CHECK(r.exited && r.code == 0);
    int wc = -1, status = -1, same = -1;
    unsigned long long frames = 0, seen0 = 0, dup0 = 0, seen1 = 0, faults1 = 1;
    CHECK_EQ(sscanf(r.out, "wc=%d status=%d same=%d frames=%llu seen0=%llu dup0=%llu seen1=%llu faults1=%llu", &wc,
                    &status, &same, &frames, &seen0, &dup0, &seen1, &faults1),
             8);
    CHECK_EQ(wc, 1);
    CHECK_EQ(status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(same, 1);
    CHECK_EQ(frames, 4);
    CHECK_EQ(seen0, 2);
    CHECK_EQ(dup0, 2);
    CHECK(seen1 >= 1);   /* the ACKs */
    CHECK_EQ(faults1, 0);
    if (rnic_check_failures())
        fprintf(stderr, "  child: stdout \"%s\", stderr \"%s\"\n", r.out, r.err);

    const char *bad[] = {"RNIC_LINK_FAULTS=nic=0,drop=0.5,dup=0.75", NULL};
    const char *open_args[] = {"open", NULL};
    CHECK_EQ(run_child(&r, bad, open_args), 0);
    CHECK(r.exited && r.code == 0);
    char want[64];
    snprintf(want, sizeof(want), "rc=%d\n", RNIC_E_INVAL);
    CHECK(strcmp(r.out, want) == 0);
    CHECK_EQ(count_lines(r.err), 1);
    CHECK(strstr(r.err, "RNIC_LINK_FAULTS=nic=0,drop=0.5,dup=0.75 is invalid") != NULL);
    CHECK(strstr(r.err, "add up to more than 1") != NULL);
}

static int open_child(void) {
    rnic_dev *d = NULL;
    const int rc = rnic_open("rnic0", &d);
    printf("rc=%d\n", rc);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "env") == 0)
        return env_child();
    if (argc == 2 && strcmp(argv[1], "open") == 0)
        return open_child();
    lat = latency();
    pair_open(&P);
    a = aligned_alloc(4096, BUF);
    b = aligned_alloc(4096, BUF);
    fill_pattern(a, BUF, 11);
    CHECK_EQ(rnic_mr_reg(P.dev[0], a, BUF, P.pz[0], ALL_ACCESS, &ma), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], b, BUF, P.pz[1], ALL_ACCESS, &mb), RNIC_OK);
    rnic_sim_set_link_hook(hook, NULL);

    test_api();
    test_drop();
    test_hook_first();
    test_dup();
    test_corrupt();
    test_delay();
    test_reorder();
    test_reorder_deadline();
    test_random();
    test_env();

    rnic_sim_set_link_hook(NULL, NULL);
    CHECK_EQ(rnic_sim_set_link_faults(0, NULL), 0);
    free(a);
    free(b);
    return rnic_test_finish("test_link_faults");
}
