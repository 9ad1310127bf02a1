/* Link faults on the in-process link between rnic0 and rnic1 (lockstep),
 * with RDMA WRITEs as the traffic, and the NIC's reliable connection
 * recovering from them (docs/wire-format.md; rtl/rnic_resp_check.sv and
 * rtl/rnic_comp_check.sv): a frame past the expected PSN gets one
 * PSN-sequence NAK, then silence until the expected PSN comes; the
 * requester resends from the NAK's PSN, in the middle of the message;
 * duplicates are dropped, or ACKed again when they ask for an ACK (the last
 * frame of a message); a loss nothing follows is resent at the ACK timeout
 * (the driver's default, 1024 x 2^14 cycles, jumped). Each case counts the
 * frames (through the link hook, judged by the faults, at the far end), the
 * PSNs the requester sent, NAKs, retries and the receiver's RX_DROPS, and
 * waits for the WRITE's completion: a rule drops frame 3 of six (nine
 * frames, all data lands), duplicates frame 2 (one frame more, dropped),
 * corrupts frame 0 (it arrives, RX_DROPS rises, no byte lands until the ACK
 * timeout resends it), delays frame 1 by 1500 cycles (it arrives exactly
 * that much late, the frame behind it waits with it, nothing resent) and
 * reorders frame 1 (it arrives together with frame 2, after it: a NAK for
 * frame 2, and 1 and 2 resent). A reordered last frame leaves at its
 * deadline, exactly, with the idle time before it jumped and the fabric not
 * quiescent meanwhile. The link hook still sees every frame first. Random
 * faults over at least 2048 frames of 16 KiB WRITEs: one seed twice gives
 * the same counters and cycles, another seed other ones, each rate is near
 * its probability, every frame is accounted for at the far end, and every
 * WRITE completes with its data. Bad values and NIC indices are refused; a
 * hook calling in is refused. RNIC_LINK_FAULTS configures the same (a child
 * process). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_hw.h"
#include "rnic_sim.h"
#include "rnic_test.h"
#include "run_child.h"

#define MTU 4096u
#define BUF (256u * MTU)
/* The default ACK timeout (QP_TIMERS.ACK_TIMEOUT 14): what a loss that no
 * later frame shows waits for before the requester resends. */
#define ACK_TIMEOUT_CYCLES (1024ull << RNIC_QP_DEFAULT_ACK_TIMEOUT)

static struct pair P;
static uint8_t *a, *b;   /* WRITE source on rnic0, destination on rnic1 */
static rnic_mr *ma, *mb;
static uint64_t lat;

/* The link hook: the cycle each frame of rnic0 was sent in and its BTH PSN
 * (it runs before the faults), and what the tests ask of it. */
static uint64_t sent_at[64];
static size_t sent_len[64];
static uint32_t sent_psn[64];
static unsigned nsent;
static int hook_drops_next, hook_calls_in, hook_set_rc, hook_get_rc;

static int hook(unsigned from, uint8_t *frame, size_t len, void *arg) {
    (void)arg;
    if (from != 0)
        return 0;
    if (hook_calls_in) {
        struct rnic_sim_link_fault_stats st;
        hook_set_rc = rnic_sim_set_link_faults(0, NULL);
        hook_get_rc = rnic_sim_get_link_fault_stats(0, &st);
        hook_calls_in = 0;
    }
    if (nsent < 64) {
        sent_at[nsent] = rnic_sim_cycle();
        sent_len[nsent] = len;
        sent_psn[nsent] = len >= 54 ? (uint32_t)frame[51] << 16 | (uint32_t)frame[52] << 8 | frame[53] : ~0u;
    }
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

/* The frames the hook saw, as the packets of the message they are (PSNs
 * from the first one's): exactly `want`, in that order. */
static void packets_sent(const unsigned *want, unsigned n) {
    CHECK_EQ(nsent, n);
    for (unsigned i = 0; i < n && i < nsent && i < 64; i++)
        CHECK_EQ((sent_psn[i] - sent_psn[0]) & 0xFFFFFFu, want[i]);
}

/* Protocol events: rnic1's NAKs, rnic0's retries (and why: the last one's
 * RNIC_RETRY_WHY_*), and the cycles of rnic0's PKT_FIRST and rnic1's
 * RKEY_CHECK (the latest of each). */
static unsigned naks, retries, retry_why;
static uint64_t pkt_cycle, rkey_cycle;
static void on_event(const struct rnic_sim_event *ev, void *arg) {
    (void)arg;
    if (ev->nic == 1 && ev->event == RNIC_EV_NAK_SENT)
        naks++;
    if (ev->nic == 0 && ev->event == RNIC_EV_RETRY) {
        retries++;
        retry_why = (unsigned)(ev->arg >> RNIC_EV_ARG_RETRY_WHY_SHIFT & RNIC_EV_ARG_RETRY_WHY_MASK);
    }
    if (ev->nic == 0 && ev->event == RNIC_EV_PKT_FIRST)
        pkt_cycle = ev->cycle;
    if (ev->nic == 1 && ev->event == RNIC_EV_RKEY_CHECK)
        rkey_cycle = ev->cycle;
}

/* Until nothing can happen without software: the last case's frames,
 * ACKs and timers have all run out (jumped, in lockstep). */
static void quiesce(void) {
    for (int i = 0; i < 256 && !rnic_sim_quiescent(); i++)
        rnic_sim_advance(1u << 20);
    CHECK_EQ(rnic_sim_quiescent(), 1);
}

/* No faults; the last case's traffic over (so it cannot disturb this one);
 * its CQEs taken (before the QPs go: a new QP may get an old one's number,
 * and an old CQE would then count for it); a fresh QP pair; an empty
 * destination. */
static void fresh(void) {
    CHECK_EQ(rnic_sim_set_link_faults(0, NULL), 0);
    quiesce();
    struct rnic_wc wc;
    while (rnic_cq_take(P.cq[0], &wc, 1) > 0) {
    }
    rnic_qp_destroy(P.qp[0]);
    rnic_qp_destroy(P.qp[1]);
    pair_reconnect(&P);
    memset(b, 0, BUF);
    nsent = 0;
    naks = retries = 0;
    retry_why = ~0u;
}

static void post_write(uint32_t len) {
    struct rnic_sge s = {(uint64_t)(uintptr_t)a, len, rnic_mr_key(ma)};
    struct rnic_send_wr w = {.wr_id = len, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                             .num_sge = 1, .sg = &s, .remote_addr = (uint64_t)(uintptr_t)b, .rkey = rnic_mr_key(mb)};
    CHECK_EQ(rnic_post_send(P.qp[0], &w), RNIC_OK);
}

/* The WRITE's completion: within BUDGET, or one ACK timeout later if it
 * had to wait for one (each case checks how many retries there were). */
static void completes(void) {
    struct rnic_wc wc;
    memset(&wc, 0, sizeof(wc));
    CHECK_EQ(rnic_cq_wait(P.cq[0], &wc, ACK_TIMEOUT_CYCLES + BUDGET), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
}

static struct rnic_sim_link_faults rule(int kind, uint64_t frame) {
    struct rnic_sim_link_faults f;
    memset(&f, 0, sizeof(f));
    f.rule = kind;
    f.rule_frame = frame;
    return f;
}

/* The cycle a frame of `len` bytes put on the wire in cycle `wired` arrives
 * in, behind a frame due in `ahead` (0: none): each beat takes the latency,
 * so the first arrives latency - (beats - 1) cycles after the last left, but
 * not before the frame has left whole nor before the frame ahead of it. */
static uint64_t due(uint64_t wired, size_t len, uint64_t ahead) {
    const uint64_t beats = (len + RNIC_DATA_BYTES - 1) / RNIC_DATA_BYTES;
    const uint64_t at = wired + (lat > beats ? lat - (beats - 1) : 1);
    return at > ahead ? at : ahead;
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
    completes();
    /* Frame 3 dropped: 4 arrives out of sequence -> one sequence NAK naming
     * 3; 5 is dropped silently (the NAK's silence); the requester resends
     * from 3: 3, 4, 5. Nine frames sent and judged, eight arrive, all the
     * data lands; RX_DROPS counts 5 only (4 was answered with the NAK). */
    const unsigned want[] = {0, 1, 2, 3, 4, 5, 3, 4, 5};
    packets_sent(want, 9);
    CHECK_EQ(rnic_sim_link_frames(0) - f0, 8);
    const struct rnic_sim_link_fault_stats st = stats(0);
    CHECK_EQ(st.seen, 9);
    CHECK_EQ(st.dropped, 1);
    CHECK_EQ(st.duplicated + st.corrupted + st.delayed + st.reordered + st.held, 0);
    CHECK_EQ(naks, 1);
    CHECK_EQ(retries, 1);
    CHECK_EQ(retry_why, RNIC_RETRY_WHY_SEQ_NAK);
    CHECK_EQ(memcmp(a, b, 6 * MTU), 0);
    CHECK_EQ(rx_drops() - d0, 1);
}

/* The hook runs first: a frame it drops is no frame for the faults. */
static void test_hook_first(void) {
    fresh();
    struct rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_DUP, 0);
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
    const uint64_t f0 = rnic_sim_link_frames(0);
    const uint32_t d0 = rx_drops();
    hook_drops_next = 1;
    post_write(2 * MTU);
    completes();
    /* The hook dropped frame 0, so the rule's frame 0 is frame 1: sent
     * twice. 1 arrives out of sequence -> a sequence NAK naming 0; its copy
     * is dropped silently. The requester resends 0 and 1, which pass (the
     * hook and the rule are spent): four frames through the hook, three
     * judged, four arrive, all the data lands. */
    const unsigned want[] = {0, 1, 0, 1};
    packets_sent(want, 4);
    CHECK_EQ(rnic_sim_link_frames(0) - f0, 4);
    const struct rnic_sim_link_fault_stats st = stats(0);
    CHECK_EQ(st.seen, 3);
    CHECK_EQ(st.duplicated, 1);
    CHECK_EQ(naks, 1);
    CHECK_EQ(retries, 1);
    CHECK_EQ(memcmp(a, b, 2 * MTU), 0);
    CHECK_EQ(rx_drops() - d0, 1);
}

static void test_dup(void) {
    fresh();
    struct rnic_sim_link_faults f = rule(RNIC_SIM_FAULT_DUP, 2);
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
    const uint64_t f0 = rnic_sim_link_frames(0);
    const uint32_t d0 = rx_drops();
    post_write(4 * MTU);
    completes();
    /* The copy of 2 is a duplicate PSN without AckReq (not the last
     * frame): dropped, not executed again, no NAK, nothing resent. */
    quiesce();
    const unsigned want[] = {0, 1, 2, 3};
    packets_sent(want, 4);
    CHECK_EQ(rnic_sim_link_frames(0) - f0, 5);
    const struct rnic_sim_link_fault_stats st = stats(0);
    CHECK_EQ(st.seen, 4);
    CHECK_EQ(st.duplicated, 1);
    CHECK_EQ(st.dropped + st.corrupted + st.delayed + st.reordered + st.held, 0);
    CHECK_EQ(naks + retries, 0);
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
    const uint64_t posted = rnic_sim_cycle();
    rnic_sim_advance(lat + 5000);
    CHECK_EQ(rnic_sim_link_frames(0) - f0, 1);   /* it arrived ... */
    CHECK_EQ(rx_drops() - d0, 1);                 /* ... and the receiver threw it away */
    CHECK(rnic_reg_read(P.dev[1], RNIC_REG_STATUS) & RNIC_STATUS_RX_DROP_MASK);
    CHECK(all_zero(b, 512));
    struct rnic_wc wc;
    CHECK_EQ(rnic_cq_take(P.cq[0], &wc, 1), 0);
    CHECK_EQ(stats(0).seen, 1);
    CHECK_EQ(stats(0).corrupted, 1);
    /* No frame follows it to show the loss (no NAK): the ACK timeout
     * resends it, intact this time (the rule is spent): two frames, all
     * data, after at least the timeout. */
    completes();
    CHECK(rnic_sim_cycle() - posted >= ACK_TIMEOUT_CYCLES);
    const unsigned want[] = {0, 0};
    packets_sent(want, 2);
    CHECK_EQ(rnic_sim_link_frames(0) - f0, 2);
    CHECK_EQ(naks, 0);
    CHECK_EQ(retries, 1);
    CHECK_EQ(retry_why, RNIC_RETRY_WHY_TIMEOUT);
    CHECK_EQ(memcmp(a, b, 512), 0);
    CHECK_EQ(rx_drops() - d0, 1);
    const struct rnic_sim_link_fault_stats st = stats(0);
    CHECK_EQ(st.seen, 2);
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
        CHECK_EQ(at[0], due(sent_at[0], sent_len[0], 0));
        CHECK_EQ(at[1], due(sent_at[1] + D, sent_len[1], at[0]));
        CHECK(sent_at[2] < sent_at[1] + D);   /* frame 2 was ready before frame 1 left: it waited */
        CHECK_EQ(at[2], due(sent_at[1] + D, sent_len[2], at[1]));
    }
    completes();
    /* Late, but in order: nothing out of sequence, nothing resent. */
    CHECK_EQ(nsent, 3);
    CHECK_EQ(naks + retries, 0);
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
    /* The frames, the NAK's way back and the resends: three link crossings. */
    const unsigned n = arrivals(at, 8, 3 * 600 + 3 * lat + 5000);
    /* Frame 1 left with frame 2, behind it: 2 came first, out of sequence
     * -> a sequence NAK naming 1; 1 came next, in sequence, and landed
     * (the NAK's silence ends). On the NAK the requester resends from 1:
     * 1 again (a duplicate without AckReq: dropped, RX_DROPS) and 2 (now in
     * sequence: placed, ACKed). Five frames, all data. */
    const unsigned want[] = {0, 1, 2, 1, 2};
    packets_sent(want, 5);
    CHECK_EQ(n, 5);
    if (n == 5 && nsent == 5) {
        CHECK_EQ(at[0], due(sent_at[0], sent_len[0], 0));
        CHECK_EQ(at[1], due(sent_at[2], sent_len[2], at[0]));   /* frame 1 left with frame 2, behind it */
        CHECK_EQ(at[2], due(sent_at[2], sent_len[1], at[1]));
        CHECK_EQ(at[3], due(sent_at[3], sent_len[3], at[2]));   /* the resends: not held */
        CHECK_EQ(at[4], due(sent_at[4], sent_len[4], at[3]));
    }
    completes();
    CHECK_EQ(naks, 1);
    CHECK_EQ(retries, 1);
    CHECK_EQ(memcmp(a, b, 3 * MTU), 0);
    CHECK_EQ(rx_drops() - d0, 1);
    const struct rnic_sim_link_fault_stats st = stats(0);
    CHECK_EQ(st.seen, 5);
    CHECK_EQ(st.reordered, 1);
    CHECK_EQ(st.held, 0);
}

/* A reordered frame nothing follows leaves at its deadline, exactly, while
 * the fabric jumps the idle time up to it and is not quiescent meanwhile. */
static void test_reorder_deadline(void) {
    fresh();
    enum { R = 3000 };
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
    CHECK_EQ(nsent, 2);   /* in sequence when it came: no NAK, nothing resent */
    CHECK_EQ(naks + retries, 0);
    CHECK_EQ(stats(0).reordered, 1);
    CHECK_EQ(stats(0).held, 0);
}

/* Random faults on rnic0's link over at least 2048 frames: 16 KiB WRITEs
 * (four frames each) to 1 MiB of destination round robin, eight in flight
 * (the most the requester keeps of a QP), a new one posted as each
 * completes while fewer than 2048 frames have been judged. The transport
 * recovers from every fault (sequence NAKs, resends from the middle of a
 * message, the ACK timeout for a loss at the tail): every WRITE completes,
 * every byte lands. Then the fabric is left to go quiescent, so every frame
 * is in and the counts are final. */
struct random_result {
    struct rnic_sim_link_fault_stats st;
    uint64_t arrived;    /* frames at the far end */
    uint64_t cycles;     /* from the first post to quiescence */
    unsigned writes, ok;
    int same;            /* the destination equals the source */
};

static struct random_result random_run(uint64_t seed) {
    enum { LEN = 4 * MTU, SLOTS = BUF / LEN, IN_FLIGHT = 8 };
    struct random_result r;
    memset(&r, 0, sizeof(r));
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
    const uint64_t f0 = rnic_sim_link_frames(0), c0 = rnic_sim_cycle();
    unsigned done = 0;
    for (;;) {
        while (r.writes - done < IN_FLIGHT && stats(0).seen < 2048) {
            const uint64_t off = (uint64_t)(r.writes % SLOTS) * LEN;
            struct rnic_sge sg = {(uint64_t)(uintptr_t)(a + off), LEN, rnic_mr_key(ma)};
            struct rnic_send_wr w = {.wr_id = r.writes, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                                     .num_sge = 1, .sg = &sg, .remote_addr = (uint64_t)(uintptr_t)(b + off),
                                     .rkey = rnic_mr_key(mb)};
            CHECK_EQ(rnic_post_send(P.qp[0], &w), RNIC_OK);
            r.writes++;
        }
        if (done == r.writes)
            break;
        /* A WRITE may wait out several ACK timeouts (a resend lost again). */
        struct rnic_wc wc;
        memset(&wc, 0, sizeof(wc));
        const int got = rnic_cq_wait(P.cq[0], &wc, 8 * ACK_TIMEOUT_CYCLES);
        CHECK_EQ(got, 1);
        if (got != 1)
            break;
        CHECK_EQ(wc.wr_id, done);   /* in order */
        CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
        r.ok += wc.status == RNIC_CQE_STATUS_SUCCESS;
        done++;
    }
    quiesce();
    r.st = stats(0);
    r.arrived = rnic_sim_link_frames(0) - f0;
    r.cycles = rnic_sim_cycle() - c0;
    r.same = memcmp(a, b, r.writes < SLOTS ? (size_t)r.writes * LEN : BUF) == 0;
    CHECK_EQ(r.st.seen, nsent);   /* every frame the hook passed was judged */
    return r;
}

static int within(uint64_t count, uint64_t of, double p) {
    const double r = (double)count / (double)of;
    return r > p * 0.5 && r < p * 1.5;
}

static void test_random(void) {
    const struct random_result r1 = random_run(7), r2 = random_run(7), r3 = random_run(8);
    const struct rnic_sim_link_fault_stats *s1 = &r1.st, *s3 = &r3.st;
    /* 2048 frames and then those of the WRITEs still in flight, resends
     * included: more than 2048, never fewer. */
    CHECK(s1->seen >= 2048);
    CHECK(s3->seen >= 2048);
    CHECK_EQ(memcmp(&r1.st, &r2.st, sizeof(r1.st)), 0);
    CHECK_EQ(r1.arrived, r2.arrived);
    CHECK_EQ(r1.writes, r2.writes);
    CHECK_EQ(r1.cycles, r2.cycles);
    CHECK(memcmp(&r1.st, &r3.st, sizeof(r1.st)) != 0);
    CHECK(within(s1->dropped, s1->seen, 0.10));
    CHECK(within(s1->duplicated, s1->seen, 0.05));
    CHECK(within(s1->corrupted, s1->seen, 0.05));
    CHECK(within(s1->delayed, s1->seen, 0.05));
    CHECK(within(s1->reordered, s1->seen, 0.05));
    CHECK_EQ(s1->held, 0);
    CHECK_EQ(r1.arrived, s1->seen - s1->dropped + s1->duplicated);
    CHECK_EQ(r3.arrived, s3->seen - s3->dropped + s3->duplicated);
    CHECK_EQ(r1.ok, r1.writes);
    CHECK_EQ(r3.ok, r3.writes);
    CHECK(r1.same);
    CHECK(r3.same);
    fprintf(stderr,
            "seed 7: %llu frames: %llu dropped, %llu duplicated, %llu corrupted, %llu delayed, %llu reordered; "
            "%u WRITEs of 16 KiB complete, %llu cycles\n",
            (unsigned long long)s1->seen, (unsigned long long)s1->dropped, (unsigned long long)s1->duplicated,
            (unsigned long long)s1->corrupted, (unsigned long long)s1->delayed, (unsigned long long)s1->reordered,
            r1.writes, (unsigned long long)r1.cycles);
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
    /* Every frame in (a second ACK may still be on its way), the counts final. */
    for (int i = 0; i < 256 && !rnic_sim_quiescent(); i++)
        rnic_sim_advance(1u << 20);
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
    /* rnic1's ACKs: one for the last frame, and one again for its copy (a
     * duplicate that asks for an ACK gets one; the copy of frame 0 asks
     * for none and is dropped). */
    CHECK_EQ(seen1, 2);
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
    rnic_sim_set_event_hook(on_event, NULL);

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

    rnic_sim_set_event_hook(NULL, NULL);
    rnic_sim_set_link_hook(NULL, NULL);
    CHECK_EQ(rnic_sim_set_link_faults(0, NULL), 0);
    free(a);
    free(b);
    return rnic_test_finish("test_link_faults");
}
