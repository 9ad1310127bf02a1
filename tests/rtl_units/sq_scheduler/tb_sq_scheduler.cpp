// rnic_sq_scheduler against its contract (the header of
// rtl/rnic_sq_scheduler.sv, rnic.toml's QP_FLAGS.MAX_RD and MUTANT).
//
//   tb_rtl_sq_scheduler TEST... | all   runs the named tests
//   tb_rtl_sq_scheduler --list          prints every test name, one a line
//                                       (CMake registers one CTest per line)
//
// Every test runs the unit beside the model of its rules (sched_model.h),
// every output compared every cycle, and fairness watched at every pick
// (sched_harness.h); the tests below state, by hand, what the contract
// says of each case:
//
//   ready_conditions   a QP that can start a WQE is picked, for each QP and
//                      pointer; each condition of `ready` alone blocks the
//                      pick (RESET / INIT / ERROR, fenced, nothing posted,
//                      MAX_RD_ATOMIC in flight, READ hold, uncommitted BIND,
//                      RNR wait), and their near misses do not
//                      (MAX_RD_ATOMIC - 1 in flight, a READ hold whose
//                      oldest has completed, a retransmission due)
//   bind_fence_mutant  MUTANT_NO_BIND_FENCE lifts the BIND condition and no
//                      other; every other mutant value leaves it; BINDs and
//                      flushes are the same under it
//   bind_due           the oldest WQE in flight of an RTS QP is a BIND: each
//                      part alone missing gives none (state, nothing in
//                      flight with a stale BIND in the slot, a BIND younger
//                      than the oldest, one just completed); the holds of a
//                      pick do not matter; ring indices across 2^16
//   has_flush          an ERROR QP with WQEs in flight, posted, or receive
//                      WQEs posted, each alone; none, or another state: no flush
//   round_robin        every kind searched from the QP after the last pick:
//                      0, 1, ... 15, 0; a subset in order; the pointer past
//                      the pick, not one step; no move without advance or on
//                      a bind or flush; wrap 15 -> 0; reset back to 0
//   fairness           16 QPs always ready share picks exactly; with a QP
//                      always ready and the others at random, no ready QP
//                      waits NUM_QP picks
//   read_limit         rd_at_limit for every MAX_RD (0 means 1, 9..15 mean
//                      MAX_RD_ATOMIC) and 0..8 READs in flight among other
//                      WQEs, the window at every slot and across 2^16;
//                      stale READs, other QPs and other flag bits ignored
//   rnr_wait           a QP in rnr_wait is not picked, under every mutant
//                      value; a ready QP behind it is; the wait over, it is
//                      picked again from the same pointer; a BIND due, a
//                      retry due, a flush and rd_at_limit ignore it; QPs
//                      toggling in and out: no waiting QP ever picked
//   paused_ready       a QP with a paused WQE is picked past each hold that
//                      blocks it unpaused (fenced, uncommitted BIND under
//                      every mutant value, MAX_RD_ATOMIC in flight, READ
//                      hold, nothing posted) and all of them at once, for
//                      each QP and pointer; it is not picked in rnr_wait nor
//                      outside RTS (ERROR: a flush instead); beside another
//                      ready QP the first from the pointer; the pick taken
//                      moves the pointer past it; flipping every QP's pause
//                      changes no BIND, retry, flush nor rd_at_limit
//   retry_due          retry_any / retry_q: due only in RTS; not held by
//                      any pick condition nor the mutant; round-robin from
//                      every pointer over random due sets, by hand; named
//                      cases (pointer 6 -> 9, a pick moves it, wrap 15 -> 0,
//                      reset); a due QP hides no bind, pick or flush
//   random_run         250,000 cycles of an engine at random: posts,
//                      starts, completions, fences, READ holds, BINDs, RNR
//                      waits, SENDs and WRITEs paused and resumed, retries
//                      due and taken, errors and flushes, the mutant on and
//                      off; the figures at the end say every rule was
//                      exercised (a pause past each hold too), every
//                      touch slot carried changes and spare reads, and the
//                      sweep read every QP, none unread NUM_QP cycles
//   layout             the bench's picture of sched_cfg_t and sched_xs_t
//                      (the rows it answers look_qp with): member names,
//                      order and widths as the generated package has them
//   touch_timing       the touch is what makes a changed row count: a change
//                      named in any one touch slot alone (or all four) gives
//                      the new verdict the very cycle after its edge, for a
//                      change of each verdict (ready by the holds, the
//                      pause and the bind fence; BIND due; RTS for a retry;
//                      flush) either way; named one cycle late, the
//                      outputs are stale for exactly that cycle; never
//                      named, they are stale until the sweep reads the QP,
//                      the cycle a_kept fires (once), and right from then
//                      on -- both runs with the harness told to expect
//                      staleness, which the test checks happens
//   sweep              contexts set once and left: every output right for
//                      6 x NUM_QP cycles on kept verdicts alone, every QP
//                      read by the sweep (look 4), none unread NUM_QP
//                      cycles, before and after a reset; no a_kept
//
// The harness names every changed QP in touch_qp (sched_harness.h: a test
// changing more than four at once gets staging cycles first), so each test
// above but touch_timing checks the rules on contexts announced as the
// engine announces them.
//
// Each test prints its seed; RTL_UNIT_SEED=N replays another.
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "pkg_struct.h"
#include "rnic_check.h"
#include "sched_harness.h"
#include "unit_bench.h"

namespace {

uint64_t seed(uint64_t fixed) { return unit_seed(fixed); }

constexpr unsigned kRts = RNIC_QP_STATE_RTS, kErr = RNIC_QP_STATE_ERROR;
constexpr unsigned kMutFence = RNIC_MUTANT_NO_BIND_FENCE;
// Opcodes that are neither READ nor BIND.
constexpr uint8_t kPlain[] = {RNIC_OP_NOP, RNIC_OP_SEND, RNIC_OP_RDMA_WRITE};

uint8_t plain_op(Rng &r) { return kPlain[r.range(0, 2)]; }

// A QP that gives nothing: RESET or INIT, every other field random.
QpCtx quiet_qp(Rng &r) {
    QpCtx q;
    q.state = r.percent(50) ? RNIC_QP_STATE_RESET : RNIC_QP_STATE_INIT;
    q.fenced = r.percent(50);
    q.bind_wait = r.percent(50);
    q.rd_hold = r.percent(50);
    q.rnr_wait = r.percent(50);
    q.paused = r.percent(50);   // outside RTS a pause makes no pick either
    q.retry_due = r.percent(50);
    q.hold_done = static_cast<uint16_t>(r.u32());
    q.done = static_cast<uint16_t>(r.u32());
    q.sq_ci = static_cast<uint16_t>(q.done + r.range(0, kMaxRd));
    q.sq_pi = static_cast<uint16_t>(q.sq_ci + r.range(0, 20));
    q.rq_ci = static_cast<uint16_t>(r.u32());
    q.rq_pi = static_cast<uint16_t>(q.rq_ci + r.range(0, 20));
    q.flags = r.byte();
    for (uint8_t &o : q.op) o = static_cast<uint8_t>(r.range(0, 5));
    return q;
}

// A QP that can start a WQE: RTS, 1..20 posted, nothing in flight, no hold;
// its stale slots hold plain opcodes, its receive ring anything.
QpCtx ready_qp(Rng &r) {
    QpCtx q;
    q.state = kRts;
    q.done = q.sq_ci = static_cast<uint16_t>(r.u32());
    q.sq_pi = static_cast<uint16_t>(q.sq_ci + r.range(1, 20));
    q.hold_done = static_cast<uint16_t>(q.done + r.range(1, 100));   // no hold is set anyway
    q.rq_ci = static_cast<uint16_t>(r.u32());
    q.rq_pi = static_cast<uint16_t>(q.rq_ci + r.range(0, 20));
    q.flags = r.byte();
    for (uint8_t &o : q.op) o = plain_op(r);
    return q;
}

// Puts n WQEs in flight (sq_ci - done = n, sq_pi past them), plain opcodes.
void in_flight(QpCtx &q, unsigned n, Rng &r) {
    q.done = static_cast<uint16_t>(q.sq_ci - n);
    for (uint16_t i = q.done; i != q.sq_ci; ++i) q.op[i % kMaxRd] = plain_op(r);
}

SchedIn quiet_in(Rng &r) {
    SchedIn in;
    for (QpCtx &q : in.qp) q = quiet_qp(r);
    in.cur = r.range(0, kNumQp - 1);
    return in;
}

// Moves the pointer to p: one pick of QP p - 1, taken.
void point_at(SchedHarness &h, unsigned p) {
    Rng &r = h.rng();
    SchedIn in = quiet_in(r);
    const unsigned q = (p + kNumQp - 1) % kNumQp;
    in.qp[q] = ready_qp(r);
    in.advance = true;
    const SchedOut o = h.cycle(in);
    CHECK(o.pick_any);
    CHECK_EQ(o.pick_q, q);
    CHECK_EQ(h.model().rr(), p);
}

// The conditions of `ready`, each one that blocks a pick alone when applied
// to a ready QP (ready_qp()).
struct Block {
    const char *name;
    bool bind_fence;   // the condition the mutant lifts
    std::function<void(QpCtx &, Rng &)> apply;
};
const std::vector<Block> &blocks() {
    static const std::vector<Block> b = {
        {"state RESET", false, [](QpCtx &q, Rng &) { q.state = RNIC_QP_STATE_RESET; }},
        {"state INIT", false, [](QpCtx &q, Rng &) { q.state = RNIC_QP_STATE_INIT; }},
        {"state ERROR", false, [](QpCtx &q, Rng &) { q.state = kErr; }},
        {"fenced", false, [](QpCtx &q, Rng &) { q.fenced = true; }},
        {"nothing posted", false, [](QpCtx &q, Rng &) { q.sq_pi = q.sq_ci; }},
        {"MAX_RD_ATOMIC in flight", false, [](QpCtx &q, Rng &r) { in_flight(q, kMaxRd, r); }},
        {"READ hold", false,
         [](QpCtx &q, Rng &r) {
             in_flight(q, r.range(1, kMaxRd - 1), r);
             q.rd_hold = true;
             q.hold_done = q.done;
         }},
        {"uncommitted BIND", true, [](QpCtx &q, Rng &) { q.bind_wait = true; }},
        {"RNR wait", false, [](QpCtx &q, Rng &) { q.rnr_wait = true; }},
    };
    return b;
}

// Near misses: each leaves a ready QP ready.
const std::vector<Block> &near_misses() {
    static const std::vector<Block> b = {
        {"MAX_RD_ATOMIC - 1 in flight", false, [](QpCtx &q, Rng &r) { in_flight(q, kMaxRd - 1, r); }},
        {"READ hold, oldest completed", false,
         [](QpCtx &q, Rng &r) {
             in_flight(q, r.range(0, kMaxRd - 1), r);
             q.rd_hold = true;
             q.hold_done = static_cast<uint16_t>(q.done - r.range(1, 3));
         }},
        {"hold_done met, no READ hold", false,
         [](QpCtx &q, Rng &r) {
             in_flight(q, r.range(1, kMaxRd - 1), r);
             q.hold_done = q.done;
         }},
        {"posted across 2^16", false,
         [](QpCtx &q, Rng &r) {
             q.sq_ci = q.done = static_cast<uint16_t>(0xFFFF - r.range(0, 3));
             q.sq_pi = static_cast<uint16_t>(q.sq_ci + 5);
         }},
        {"in flight across 2^16", false,
         [](QpCtx &q, Rng &r) {
             q.sq_ci = static_cast<uint16_t>(r.range(0, 3));
             q.sq_pi = static_cast<uint16_t>(q.sq_ci + 2);
             in_flight(q, kMaxRd - 1, r);
         }},
        {"ALLOW_* flags, MAX_RD 0", false, [](QpCtx &q, Rng &) { q.flags = 0x03; }},
        {"receive ring full", false, [](QpCtx &q, Rng &) { q.rq_pi = static_cast<uint16_t>(q.rq_ci + 0x8000); }},
        {"retransmission due", false, [](QpCtx &q, Rng &) { q.retry_due = true; }},
    };
    return b;
}

// A QP whose oldest WQE in flight is a BIND (n in flight, 1..8).
QpCtx bind_qp(Rng &r, unsigned n) {
    QpCtx q = ready_qp(r);
    in_flight(q, n, r);
    q.op[q.done % kMaxRd] = RNIC_OP_BIND;
    return q;
}

// An ERROR QP with nothing left: no flush.
QpCtx drained_error_qp(Rng &r) {
    QpCtx q = quiet_qp(r);
    q.state = kErr;
    q.sq_pi = q.sq_ci = q.done;
    q.rq_pi = q.rq_ci;
    return q;
}

// The paused WQE's slot holds a SEND or WRITE (only those pause).
void mark_paused_wqe(QpCtx &q, Rng &r) {
    q.op[static_cast<uint16_t>(q.sq_ci - 1) % kMaxRd] = r.percent(50) ? RNIC_OP_SEND : RNIC_OP_RDMA_WRITE;
}

// A QP with a paused WQE, as rnic_requester leaves it: RTS, the paused SEND
// or WRITE the newest of 1..MAX_RD_ATOMIC - 1 in flight (sq_ci is past it),
// more posted, no hold.
QpCtx paused_qp(Rng &r) {
    QpCtx q = ready_qp(r);
    in_flight(q, r.range(1, kMaxRd - 1), r);
    mark_paused_wqe(q, r);
    q.paused = true;
    return q;
}

// A QP of one of five kinds at random, with a retransmission due one time
// in five: quiet_qp(), ready_qp(), bind_qp() with 1..MAX_RD_ATOMIC in
// flight, paused_qp(), or drained_error_qp() with what `error_work` posts
// on it (called with the QP and r, before the retry draw).
template <class ErrorWork> QpCtx random_qp(Rng &r, ErrorWork error_work) {
    QpCtx q;
    switch (r.range(0, 4)) {
    case 0: q = quiet_qp(r); break;
    case 1: q = ready_qp(r); break;
    case 2: q = bind_qp(r, r.range(1, kMaxRd)); break;
    case 3: q = paused_qp(r); break;
    default:
        q = drained_error_qp(r);
        error_work(q, r);
        break;
    }
    q.retry_due = r.percent(20);
    return q;
}

// The holds a pause passes: each alone blocks the pick of an RTS QP that
// is not paused (paused_qp() with paused cleared), and all at once.
const std::vector<Block> &pause_passes() {
    static const std::vector<Block> b = {
        {"fenced", false, [](QpCtx &q, Rng &) { q.fenced = true; }},
        {"uncommitted BIND", true, [](QpCtx &q, Rng &) { q.bind_wait = true; }},
        {"MAX_RD_ATOMIC in flight", false,
         [](QpCtx &q, Rng &r) {
             in_flight(q, kMaxRd, r);   // the paused WQE the last of the window
             mark_paused_wqe(q, r);
         }},
        {"READ hold", false,
         [](QpCtx &q, Rng &) {
             q.rd_hold = true;
             q.hold_done = q.done;
         }},
        {"nothing posted", false, [](QpCtx &q, Rng &) { q.sq_pi = q.sq_ci; }},
        {"every hold at once", true,
         [](QpCtx &q, Rng &r) {
             in_flight(q, kMaxRd, r);
             mark_paused_wqe(q, r);
             q.fenced = q.bind_wait = q.rd_hold = true;
             q.hold_done = q.done;
             q.sq_pi = q.sq_ci;
         }},
    };
    return b;
}

}  // namespace

// For every QP and pointer: the ready QP is picked; each condition alone
// blocks it (and gives no bind or flush in its place, but for ERROR with
// work, which is a flush); each near miss leaves it picked.
UNIT_TEST(ready_conditions) {
    SchedHarness h(seed(0x5D01));
    Rng &r = h.rng();
    for (unsigned q = 0; q < kNumQp; q++) {
        for (unsigned p : {0u, q, (q + 1) % kNumQp, (q + kNumQp - 1) % kNumQp, r.range(0, kNumQp - 1)}) {
            point_at(h, p);
            SchedIn in = quiet_in(r);
            in.qp[q] = ready_qp(r);
            SchedOut o = h.cycle(in);
            CHECK(o.pick_any);
            CHECK_EQ(o.pick_q, q);
            for (const Block &b : blocks()) {
                SchedIn blocked = in;
                b.apply(blocked.qp[q], r);
                o = h.cycle(blocked);
                if (o.pick_any)
                    std::fprintf(stderr, "qp %u picked though %s\n", q, b.name);
                CHECK(!o.pick_any);
                CHECK(!o.bind_any);
                CHECK_EQ(o.flush_any, blocked.qp[q].state == kErr);
            }
            for (const Block &b : near_misses()) {
                SchedIn fine = in;
                b.apply(fine.qp[q], r);
                o = h.cycle(fine);
                if (!o.pick_any)
                    std::fprintf(stderr, "qp %u not picked with %s\n", q, b.name);
                CHECK(o.pick_any);
                CHECK_EQ(o.pick_q, q);
            }
            // A blocked QP is passed over for a ready one behind it.
            const unsigned other = (q + 1 + r.range(0, kNumQp - 2)) % kNumQp;
            for (const Block &b : blocks()) {
                SchedIn two = in;
                two.qp[other] = ready_qp(r);
                b.apply(two.qp[q], r);
                o = h.cycle(two);
                CHECK(o.pick_any);
                CHECK_EQ(o.pick_q, other);
            }
        }
    }
}

// MUTANT_NO_BIND_FENCE lifts exactly the bind fence: an uncommitted BIND no
// longer blocks, every other condition still does; any other mutant value
// keeps the fence. BINDs due and flushes do not depend on the mutant.
UNIT_TEST(bind_fence_mutant) {
    SchedHarness h(seed(0x5D02));
    Rng &r = h.rng();
    for (unsigned q = 0; q < kNumQp; q++) {
        for (unsigned m = 0; m < 16; m++) {
            SchedIn in = quiet_in(r);
            in.mutant = m;
            in.qp[q] = ready_qp(r);
            in.qp[q].bind_wait = true;
            SchedOut o = h.cycle(in);
            CHECK_EQ(o.pick_any, m == kMutFence);
            if (o.pick_any)
                CHECK_EQ(o.pick_q, q);
        }
        for (const Block &b : blocks()) {
            SchedIn in = quiet_in(r);
            in.mutant = kMutFence;
            in.qp[q] = ready_qp(r);
            b.apply(in.qp[q], r);
            const SchedOut o = h.cycle(in);
            if (o.pick_any != b.bind_fence)
                std::fprintf(stderr, "mutant NO_BIND_FENCE, qp %u, %s: pick_any %d\n", q, b.name, o.pick_any);
            CHECK_EQ(o.pick_any, b.bind_fence);
            // All of them at once but the bind fence: still blocked.
            if (b.bind_fence)
                continue;
            SchedIn both = in;
            both.qp[q].bind_wait = true;
            CHECK(!h.cycle(both).pick_any);
        }
        // A BIND due and a flush: the same whatever the mutant.
        for (unsigned m : {0u, kMutFence, 15u}) {
            SchedIn in = quiet_in(r);
            in.mutant = m;
            in.qp[q] = bind_qp(r, r.range(1, kMaxRd - 1));
            in.qp[q].bind_wait = true;
            const unsigned f = (q + 3) % kNumQp;
            in.qp[f] = drained_error_qp(r);
            in.qp[f].rq_pi = static_cast<uint16_t>(in.qp[f].rq_ci + 1);
            const SchedOut o = h.cycle(in);
            CHECK(o.bind_any);
            CHECK_EQ(o.bind_q, q);
            CHECK(o.flush_any);
            CHECK_EQ(o.flush_q, f);
            // Posted and under the limit, but behind an uncommitted BIND:
            // picked only when the mutant lifts the fence (then the QP is
            // both due and picked).
            CHECK_EQ(o.pick_any, m == kMutFence);
            if (o.pick_any)
                CHECK_EQ(o.pick_q, q);
        }
    }
}

// A BIND is due when it is the oldest WQE in flight of an RTS QP.
UNIT_TEST(bind_due) {
    SchedHarness h(seed(0x5D03));
    Rng &r = h.rng();
    for (unsigned q = 0; q < kNumQp; q++) {
        for (unsigned n = 1; n <= kMaxRd; n++) {
            SchedIn in = quiet_in(r);
            in.qp[q] = bind_qp(r, n);
            SchedOut o = h.cycle(in);
            CHECK(o.bind_any);
            CHECK_EQ(o.bind_q, q);

            // Due whatever holds a pick.
            SchedIn held = in;
            held.qp[q].fenced = r.percent(50);
            held.qp[q].bind_wait = r.percent(50);
            held.qp[q].rd_hold = r.percent(50);
            held.qp[q].hold_done = held.qp[q].done;
            if (r.percent(50))
                held.qp[q].sq_pi = held.qp[q].sq_ci;
            o = h.cycle(held);
            CHECK(o.bind_any);
            CHECK_EQ(o.bind_q, q);

            // Not in RTS.
            for (unsigned s : {RNIC_QP_STATE_RESET, RNIC_QP_STATE_INIT, kErr}) {
                SchedIn st = in;
                st.qp[q].state = s;
                CHECK(!h.cycle(st).bind_any);
            }
            // Nothing in flight: the BIND in the oldest slot is stale.
            SchedIn empty = in;
            empty.qp[q].sq_ci = empty.qp[q].done;
            CHECK(!h.cycle(empty).bind_any);
            // The oldest is something else; a younger one is a BIND.
            if (n > 1) {
                SchedIn younger = in;
                QpCtx &y = younger.qp[q];
                y.op[y.done % kMaxRd] = r.percent(50) ? RNIC_OP_RDMA_READ : plain_op(r);
                y.op[static_cast<uint16_t>(y.done + r.range(1, n - 1)) % kMaxRd] = RNIC_OP_BIND;
                CHECK(!h.cycle(younger).bind_any);
            }
            // The BIND just completed (done moved past it).
            SchedIn past = in;
            past.qp[q].done++;
            past.qp[q].op[past.qp[q].done % kMaxRd] = plain_op(r);
            CHECK(!h.cycle(past).bind_any);
        }
    }
    // The oldest slot is done mod MAX_RD_ATOMIC across 2^16.
    for (uint16_t d : {uint16_t{0xFFFF}, uint16_t{0}, uint16_t{0xFFF8}, uint16_t{7}, uint16_t{8}}) {
        SchedIn in = quiet_in(r);
        QpCtx &q = in.qp[9];
        q = ready_qp(r);
        q.done = d;
        q.sq_ci = static_cast<uint16_t>(d + 3);
        q.sq_pi = static_cast<uint16_t>(d + 5);
        for (uint8_t &o : q.op) o = plain_op(r);
        q.op[d % kMaxRd] = RNIC_OP_BIND;
        SchedOut o = h.cycle(in);
        CHECK(o.bind_any);
        CHECK_EQ(o.bind_q, 9);
        q.op[d % kMaxRd] = RNIC_OP_SEND;
        q.op[(d + kMaxRd - 1) % kMaxRd] = RNIC_OP_BIND;   // the slot before: not in flight
        CHECK(!h.cycle(in).bind_any);
    }
}

// A flush is due for an ERROR QP with WQEs in flight, or posted, or
// receive WQEs posted; each alone is enough, none gives no flush, and no
// other state flushes.
UNIT_TEST(has_flush) {
    SchedHarness h(seed(0x5D04));
    Rng &r = h.rng();
    for (unsigned q = 0; q < kNumQp; q++) {
        SchedIn in = quiet_in(r);
        in.qp[q] = drained_error_qp(r);
        SchedOut o = h.cycle(in);
        CHECK(!o.flush_any);
        CHECK(!o.pick_any);
        CHECK(!o.bind_any);
        for (unsigned what = 0; what < 4; what++) {
            SchedIn w = in;
            QpCtx &x = w.qp[q];
            const uint16_t n = static_cast<uint16_t>(r.range(1, what == 0 ? kMaxRd : 300));
            switch (what) {
            case 0: x.sq_ci = static_cast<uint16_t>(x.done + n); x.sq_pi = x.sq_ci; break;   // in flight
            case 1: x.sq_pi = static_cast<uint16_t>(x.sq_ci + n); break;                     // posted
            case 2: x.rq_pi = static_cast<uint16_t>(x.rq_ci + n); break;                     // receives posted
            default:
                x.sq_ci = static_cast<uint16_t>(x.done + 1);
                x.sq_pi = static_cast<uint16_t>(x.sq_ci + 1);
                x.rq_pi = static_cast<uint16_t>(x.rq_ci + 1);
                break;
            }
            o = h.cycle(w);
            CHECK(o.flush_any);
            CHECK_EQ(o.flush_q, q);
            for (unsigned s : {RNIC_QP_STATE_RESET, RNIC_QP_STATE_INIT, kRts}) {
                SchedIn st = w;
                st.qp[q].state = s;
                CHECK(!h.cycle(st).flush_any);
            }
        }
        // Across 2^16: done 0xFFFF, sq_ci 0 is one in flight; rq 0xFFFF -> 0 one posted.
        SchedIn wrap = in;
        wrap.qp[q].done = 0xFFFF;
        wrap.qp[q].sq_ci = wrap.qp[q].sq_pi = 0;
        o = h.cycle(wrap);
        CHECK(o.flush_any);
        wrap.qp[q].done = 0;
        CHECK(!h.cycle(wrap).flush_any);
        wrap.qp[q].rq_ci = 0xFFFF;
        wrap.qp[q].rq_pi = 0;
        CHECK(h.cycle(wrap).flush_any);
    }
}

// Round-robin from the QP after the last one picked, for every kind.
UNIT_TEST(round_robin) {
    SchedHarness h(seed(0x5D05));
    Rng &r = h.rng();
    // All ready, from reset: 0, 1, ... 15, 0, 1, ... one per pick taken.
    SchedIn all;
    for (QpCtx &q : all.qp) q = ready_qp(r);
    for (unsigned i = 0; i < 3 * kNumQp; i++) {
        all.advance = false;
        CHECK_EQ(h.cycle(all).pick_q, i % kNumQp);   // not taken: no move
        all.advance = true;
        const SchedOut o = h.cycle(all);
        CHECK(o.pick_any);
        CHECK_EQ(o.pick_q, i % kNumQp);
    }
    // A subset, in order, round and round.
    SchedIn sub = quiet_in(r);
    for (unsigned q : {3u, 7u, 12u}) sub.qp[q] = ready_qp(r);
    sub.advance = true;
    for (unsigned i = 0; i < 9; i++) {
        const unsigned want[] = {3, 7, 12};
        CHECK_EQ(h.cycle(sub).pick_q, want[i % 3]);
    }
    // The pointer moves past the pick, however far that is.
    point_at(h, 0);
    SchedIn one = quiet_in(r);
    one.qp[5] = ready_qp(r);
    one.advance = true;
    CHECK_EQ(h.cycle(one).pick_q, 5);
    CHECK_EQ(h.model().rr(), 6);
    SchedIn two = quiet_in(r);
    two.qp[2] = ready_qp(r);
    two.qp[9] = ready_qp(r);
    two.advance = true;
    CHECK_EQ(h.cycle(two).pick_q, 9);   // 9 is after 6; 2 is not
    CHECK_EQ(h.cycle(two).pick_q, 2);   // from 10, the search wraps to 2
    CHECK_EQ(h.cycle(two).pick_q, 9);

    // Binds and flushes search from the same pointer and do not move it.
    point_at(h, 6);
    SchedIn bf = quiet_in(r);
    bf.qp[2] = bind_qp(r, 1);
    bf.qp[9] = bind_qp(r, 3);
    bf.qp[2].bind_wait = bf.qp[9].bind_wait = true;   // as the engine holds them: no pick
    for (unsigned q : {3u, 7u}) {
        bf.qp[q] = drained_error_qp(r);
        bf.qp[q].sq_pi = static_cast<uint16_t>(bf.qp[q].sq_ci + 2);
    }
    for (int i = 0; i < 5; i++) {
        const SchedOut o = h.cycle(bf);
        CHECK(o.bind_any && o.flush_any);
        CHECK_EQ(o.bind_q, 9);
        CHECK_EQ(o.flush_q, 7);
        CHECK(!o.pick_any);
    }
    // A pick of 15: the pointer wraps to 0, and the binds and flushes follow.
    bf.qp[15] = ready_qp(r);
    bf.advance = true;
    CHECK_EQ(h.cycle(bf).pick_q, 15);
    CHECK_EQ(h.model().rr(), 0);
    bf.advance = false;
    SchedOut o = h.cycle(bf);
    CHECK_EQ(o.bind_q, 2);
    CHECK_EQ(o.flush_q, 3);
    CHECK_EQ(o.pick_q, 15);
    // Pointer at 8: bind and flush candidates at 8 itself are first.
    point_at(h, 8);
    bf.qp[8] = bind_qp(r, 2);
    bf.qp[8].bind_wait = true;
    o = h.cycle(bf);
    CHECK_EQ(o.bind_q, 8);
    bf.qp[8] = drained_error_qp(r);
    bf.qp[8].rq_pi = static_cast<uint16_t>(bf.qp[8].rq_ci + 1);
    o = h.cycle(bf);
    CHECK_EQ(o.flush_q, 8);
    CHECK_EQ(o.bind_q, 9);

    // Reset: the pointer back to 0.
    point_at(h, 9);
    h.reset();
    all.advance = false;
    CHECK_EQ(h.cycle(all).pick_q, 0);
}

// With every QP always ready, picks are shared exactly, each QP every 16th;
// with one QP always ready and the rest ready at random, a QP ready at
// every pick is picked within NUM_QP picks (the harness checks it at every
// pick of every test; here the load is the hardest).
UNIT_TEST(fairness) {
    SchedHarness h(seed(0x5D06));
    Rng &r = h.rng();
    SchedIn all;
    for (QpCtx &q : all.qp) q = ready_qp(r);
    all.advance = true;
    unsigned count[kNumQp] = {};
    uint64_t last[kNumQp] = {};
    for (unsigned i = 0; i < 100 * kNumQp; i++) {
        const unsigned q = h.cycle(all).pick_q;
        if (count[q]++ > 0)
            CHECK_EQ(i - last[q], kNumQp);
        last[q] = i;
    }
    for (unsigned q = 0; q < kNumQp; q++) CHECK_EQ(count[q], 100);

    // A hog (QP 0, and sometimes 1) ready at every pick, the others toggling.
    unsigned picked[kNumQp] = {};
    SchedIn in;
    for (QpCtx &q : in.qp) q = ready_qp(r);
    for (unsigned i = 0; i < 20000; i++) {
        for (unsigned q = 2; q < kNumQp; q++)
            if (r.percent(30))
                in.qp[q].fenced = !in.qp[q].fenced;
        in.qp[1].fenced = (i / 500) % 2;
        const SchedOut peek = h.model().eval(in);
        in.advance = peek.pick_any;
        const SchedOut o = h.cycle(in);
        if (o.pick_any)
            picked[o.pick_q]++;
    }
    for (unsigned q = 0; q < kNumQp; q++) CHECK(picked[q] > 100);
    std::printf("fairness: a ready QP waited at most %u picks (NUM_QP %u)\n", h.stats().max_passed, kNumQp);
    CHECK(h.stats().max_passed >= kNumQp - 2);   // the load did press on the bound
    CHECK(h.stats().max_passed < kNumQp);
}

// rd_at_limit: cur's READs in flight against MAX_RD (0 means 1, more than
// MAX_RD_ATOMIC means MAX_RD_ATOMIC), for every MAX_RD and count of READs,
// wherever the window sits in the slots and the ring.
UNIT_TEST(read_limit) {
    SchedHarness h(seed(0x5D07));
    Rng &r = h.rng();
    // MAX_RD -> the limit, by hand.
    const unsigned kLimit[16] = {1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8, 8, 8, 8, 8};
    static_assert(kMaxRd == 8, "the table above is for MAX_RD_ATOMIC 8");
    unsigned at = 0, under = 0;
    for (unsigned cur = 0; cur < kNumQp; cur++) {
        for (unsigned max_rd = 0; max_rd < 16; max_rd++) {
            for (unsigned reads = 0; reads <= kMaxRd; reads++) {
                const unsigned n = reads + r.range(0, kMaxRd - reads);   // in flight, READs among them
                SchedIn in = quiet_in(r);
                in.cur = cur;
                // Other QPs: many READs and MAX_RD 0; they must not count.
                for (unsigned q = 0; q < kNumQp; q++) {
                    if (q == cur)
                        continue;
                    for (uint8_t &o : in.qp[q].op) o = RNIC_OP_RDMA_READ;
                    in.qp[q].sq_ci = static_cast<uint16_t>(in.qp[q].done + kMaxRd);
                    in.qp[q].flags &= static_cast<uint8_t>(~RNIC_QP_FLAGS_MAX_RD_MASK);
                }
                QpCtx &c = in.qp[cur];
                c = r.percent(50) ? ready_qp(r) : quiet_qp(r);   // the state does not matter
                c.done = r.percent(20) ? static_cast<uint16_t>(0xFFFF - r.range(0, 8)) : static_cast<uint16_t>(r.u32());
                c.sq_ci = static_cast<uint16_t>(c.done + n);
                c.sq_pi = static_cast<uint16_t>(c.sq_ci + r.range(0, 5));
                c.flags = static_cast<uint8_t>((max_rd << RNIC_QP_FLAGS_MAX_RD_SHIFT) | (r.byte() & 0x0F));
                // Slots out of the window: stale READs.
                for (uint8_t &o : c.op) o = RNIC_OP_RDMA_READ;
                std::vector<unsigned> pos(n);
                for (unsigned j = 0; j < n; j++) pos[j] = j;
                for (unsigned j = n; j > 1; j--) std::swap(pos[j - 1], pos[r.range(0, j - 1)]);   // READs anywhere in the window
                for (unsigned j = 0; j < n; j++) {
                    const uint16_t idx = static_cast<uint16_t>(c.done + pos[j]);
                    c.op[idx % kMaxRd] = j < reads ? RNIC_OP_RDMA_READ : (r.percent(30) ? RNIC_OP_BIND : plain_op(r));
                }
                const bool want = reads >= kLimit[max_rd];
                const SchedOut o = h.cycle(in);
                if (o.rd_at_limit != want)
                    std::fprintf(stderr, "cur %u MAX_RD %u: %u READs of %u in flight, rd_at_limit %d\n", cur, max_rd,
                                 reads, n, o.rd_at_limit);
                CHECK_EQ(o.rd_at_limit, want);
                ++(want ? at : under);
            }
        }
    }
    CHECK(at > 500 && under > 500);
    // Nothing in flight: at the limit never, whatever the slots hold.
    SchedIn in = quiet_in(r);
    for (unsigned q = 0; q < kNumQp; q++) {
        in.cur = q;
        in.qp[q].sq_ci = in.qp[q].done;
        for (uint8_t &o : in.qp[q].op) o = RNIC_OP_RDMA_READ;
        CHECK(!h.cycle(in).rd_at_limit);
    }
}

// rnr_wait holds a QP's next WQE and nothing else: an RTS QP waiting out an
// RNR NAK's delay is not picked (whatever the mutant) and a ready QP behind
// it is; the wait over, it is picked again, from the same pointer. A BIND
// due, a retransmission due, a flush and rd_at_limit do not see it, and
// with QPs going in and out of the wait no waiting QP is ever picked.
UNIT_TEST(rnr_wait) {
    SchedHarness h(seed(0x5D08));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        for (unsigned p : {0u, q, (q + 1) % kNumQp, r.range(0, kNumQp - 1)}) {
            point_at(h, p);
            SchedIn in = quiet_in(r);
            in.qp[q] = ready_qp(r);
            in.qp[q].rnr_wait = true;
            for (unsigned m = 0; m < 32; m++) {   // no mutant lifts it
                in.mutant = m;
                const SchedOut o = h.cycle(in);
                if (o.pick_any)
                    std::fprintf(stderr, "qp %u picked in rnr_wait, mutant %u\n", q, m);
                CHECK(!o.pick_any);
            }
            in.mutant = RNIC_MUTANT_NONE;
            // A ready QP behind it is picked in its place; both waiting: none.
            const unsigned other = (q + 1 + r.range(0, kNumQp - 2)) % kNumQp;
            SchedIn two = in;
            two.qp[other] = ready_qp(r);
            SchedOut o = h.cycle(two);
            CHECK(o.pick_any);
            CHECK_EQ(o.pick_q, other);
            two.qp[other].rnr_wait = true;
            CHECK(!h.cycle(two).pick_any);
            // The wait over: picked again; no pick was taken, the pointer is p.
            SchedIn back = in;
            back.qp[q].rnr_wait = false;
            o = h.cycle(back);
            CHECK(o.pick_any);
            CHECK_EQ(o.pick_q, q);
            CHECK_EQ(h.model().rr(), p);
        }
        // It holds no other kind of work.
        SchedIn in = quiet_in(r);
        in.qp[q] = bind_qp(r, r.range(1, kMaxRd));
        in.qp[q].rnr_wait = true;
        SchedOut o = h.cycle(in);
        CHECK(o.bind_any);
        CHECK_EQ(o.bind_q, q);
        CHECK(!o.pick_any);
        in.qp[q] = ready_qp(r);
        in_flight(in.qp[q], r.range(1, kMaxRd - 1), r);
        in.qp[q].rnr_wait = true;
        in.qp[q].retry_due = true;   // the delay has passed: the retry is due, the wait not yet over
        o = h.cycle(in);
        CHECK(o.retry_any);
        CHECK_EQ(o.retry_q, q);
        CHECK(!o.pick_any);
        in.qp[q] = drained_error_qp(r);
        in.qp[q].sq_pi = static_cast<uint16_t>(in.qp[q].sq_ci + 1);
        in.qp[q].rnr_wait = true;
        o = h.cycle(in);
        CHECK(o.flush_any);
        CHECK_EQ(o.flush_q, q);
        // cur's READs against its limit (MAX_RD 0: one): the same in the wait.
        in.qp[q] = ready_qp(r);
        in.qp[q].flags &= static_cast<uint8_t>(~RNIC_QP_FLAGS_MAX_RD_MASK);
        in_flight(in.qp[q], 2, r);
        in.qp[q].op[in.qp[q].done % kMaxRd] = RNIC_OP_RDMA_READ;
        in.cur = q;
        for (bool w : {false, true}) {
            in.qp[q].rnr_wait = w;
            CHECK(h.cycle(in).rd_at_limit);
        }
    }
    // Every QP ready, each going in and out of the wait: a waiting QP is
    // never picked, every QP is picked, and fairness holds (the harness).
    SchedIn all;
    for (QpCtx &q : all.qp) q = ready_qp(r);
    unsigned picked[kNumQp] = {};
    for (unsigned i = 0; i < 5000 && !unit_stop(failures); i++) {
        for (QpCtx &q : all.qp)
            if (r.percent(20))
                q.rnr_wait = !q.rnr_wait;
        all.advance = h.model().eval(all).pick_any;
        const SchedOut o = h.cycle(all);
        if (o.pick_any) {
            CHECK(!all.qp[o.pick_q].rnr_wait);
            picked[o.pick_q]++;
        }
    }
    for (unsigned q = 0; q < kNumQp; q++) CHECK(picked[q] > 100);
    CHECK(h.stats().rnr_skipped > 1000);
}

// A paused WQE makes its QP ready whatever holds later WQEs: a paused RTS
// QP is picked though fenced, behind an uncommitted BIND (under every
// mutant value, not only NO_BIND_FENCE), with MAX_RD_ATOMIC in flight,
// under a READ hold or with nothing more posted, each alone and all at
// once; each of those holds the same QP unpaused. An RNR wait and every
// state but RTS still hold it. Picked, it takes its turn round-robin and
// moves the pointer like any pick; and the pause changes no other kind of
// work nor rd_at_limit.
UNIT_TEST(paused_ready) {
    SchedHarness h(seed(0x5D0A));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        for (unsigned p : {0u, q, (q + 1) % kNumQp, r.range(0, kNumQp - 1)}) {
            point_at(h, p);
            SchedIn in = quiet_in(r);
            in.qp[q] = paused_qp(r);
            SchedOut o = h.cycle(in);   // paused, nothing held: picked
            CHECK(o.pick_any);
            CHECK_EQ(o.pick_q, q);
            for (const Block &b : pause_passes()) {
                SchedIn held = in;
                b.apply(held.qp[q], r);
                // Unpaused, the hold holds (so a pick below is the pause's doing).
                SchedIn unpaused = held;
                unpaused.qp[q].paused = false;
                o = h.cycle(unpaused);
                if (o.pick_any)
                    std::fprintf(stderr, "qp %u not paused, picked though %s\n", q, b.name);
                CHECK(!o.pick_any);
                // Paused: picked, whatever the mutant.
                for (unsigned m = 0; m < 16; m++) {
                    held.mutant = m;
                    o = h.cycle(held);
                    if (!o.pick_any || o.pick_q != q)
                        std::fprintf(stderr, "qp %u paused, %s, mutant %u: pick_any %d pick_q %u\n", q, b.name, m,
                                     o.pick_any, o.pick_q);
                    CHECK(o.pick_any);
                    CHECK_EQ(o.pick_q, q);
                }
                held.mutant = RNIC_MUTANT_NONE;
                // An RNR wait holds it all the same.
                SchedIn rnr = held;
                rnr.qp[q].rnr_wait = true;
                o = h.cycle(rnr);
                if (o.pick_any)
                    std::fprintf(stderr, "qp %u paused, %s, picked in rnr_wait\n", q, b.name);
                CHECK(!o.pick_any);
                // So does every state but RTS (ERROR: its WQEs in flight are a flush).
                for (unsigned st : {RNIC_QP_STATE_RESET, RNIC_QP_STATE_INIT, kErr}) {
                    SchedIn other = held;
                    other.qp[q].state = st;
                    o = h.cycle(other);
                    if (o.pick_any)
                        std::fprintf(stderr, "qp %u paused, %s, picked in state %u\n", q, b.name, st);
                    CHECK(!o.pick_any);
                    CHECK_EQ(o.flush_any, st == kErr);
                    if (o.flush_any)
                        CHECK_EQ(o.flush_q, q);
                }
                // Beside another ready QP: whichever comes first from the
                // pointer; in an RNR wait, the other.
                const unsigned other = (q + 1 + r.range(0, kNumQp - 2)) % kNumQp;
                SchedIn two = held;
                two.qp[other] = ready_qp(r);
                const unsigned first = (q + kNumQp - p) % kNumQp < (other + kNumQp - p) % kNumQp ? q : other;
                o = h.cycle(two);
                CHECK(o.pick_any);
                CHECK_EQ(o.pick_q, first);
                two.qp[q].rnr_wait = true;
                o = h.cycle(two);
                CHECK(o.pick_any);
                CHECK_EQ(o.pick_q, other);
                CHECK_EQ(h.model().rr(), p);   // no pick taken: the pointer stays
            }
            // An RNR wait with no hold, under every mutant: not picked.
            SchedIn rnr = in;
            rnr.qp[q].rnr_wait = true;
            for (unsigned m = 0; m < 16; m++) {
                rnr.mutant = m;
                CHECK(!h.cycle(rnr).pick_any);
            }
        }
        // The pick taken, every hold at once: the pointer moves past it.
        SchedIn in = quiet_in(r);
        in.qp[q] = paused_qp(r);
        pause_passes().back().apply(in.qp[q], r);
        in.advance = true;
        const SchedOut o = h.cycle(in);
        CHECK(o.pick_any);
        CHECK_EQ(o.pick_q, q);
        CHECK_EQ(h.model().rr(), (q + 1) % kNumQp);
    }

    // The pause is about picks alone: every QP's pause flipped, the BIND,
    // retry and flush found and rd_at_limit are the same.
    for (int i = 0; i < 2000 && !unit_stop(failures); i++) {
        SchedIn in;
        for (QpCtx &q : in.qp) {
            q = random_qp(r, [](QpCtx &e, Rng &rng) {   // a WQE posted, a receive posted, both or neither
                e.sq_pi = static_cast<uint16_t>(e.sq_ci + rng.range(0, 1));
                e.rq_pi = static_cast<uint16_t>(e.rq_ci + rng.range(0, 1));
            });
            q.rnr_wait = r.percent(10);
            q.op[q.done % kMaxRd] = r.percent(30) ? RNIC_OP_RDMA_READ : q.op[q.done % kMaxRd];
        }
        in.cur = r.range(0, kNumQp - 1);
        in.mutant = r.percent(80) ? RNIC_MUTANT_NONE : r.range(0, 31);
        SchedIn flipped = in;
        for (QpCtx &q : flipped.qp) q.paused = !q.paused;
        const SchedOut a = h.cycle(in), b = h.cycle(flipped);
        CHECK_EQ(a.bind_any, b.bind_any);
        CHECK_EQ(a.retry_any, b.retry_any);
        CHECK_EQ(a.flush_any, b.flush_any);
        CHECK_EQ(a.rd_at_limit, b.rd_at_limit);
        if (a.bind_any && b.bind_any)
            CHECK_EQ(a.bind_q, b.bind_q);
        if (a.retry_any && b.retry_any)
            CHECK_EQ(a.retry_q, b.retry_q);
        if (a.flush_any && b.flush_any)
            CHECK_EQ(a.flush_q, b.flush_q);
    }
}

// retry_any / retry_q: an RTS QP whose retransmission is due, found
// round-robin from the pointer like the other kinds. Only RTS counts;
// nothing that holds a pick holds it, nor does the mutant; a retry taken
// moves no pointer; it hides no other kind of work.
UNIT_TEST(retry_due) {
    SchedHarness h(seed(0x5D09));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    // A QP that can be due but gives no pick (nothing posted): the pointer
    // stays where the test puts it.
    auto due_qp = [&r](bool due) {
        QpCtx q = ready_qp(r);
        in_flight(q, r.range(0, kMaxRd), r);
        q.sq_pi = q.sq_ci;
        q.retry_due = due;
        return q;
    };
    auto no_retries = [](SchedIn &in) {
        for (QpCtx &q : in.qp) q.retry_due = false;
    };
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        // Each state: due only in RTS.
        for (unsigned s : {RNIC_QP_STATE_RESET, RNIC_QP_STATE_INIT, kRts, kErr}) {
            SchedIn in = quiet_in(r);   // the quiet QPs are due at random, never in RTS
            in.qp[q] = r.percent(50) ? ready_qp(r) : bind_qp(r, r.range(1, kMaxRd));
            in.qp[q].state = s;
            in.qp[q].retry_due = true;
            SchedOut o = h.cycle(in);
            if (o.retry_any != (s == kRts))
                std::fprintf(stderr, "qp %u due in state %u: retry_any %d\n", q, s, o.retry_any);
            CHECK_EQ(o.retry_any, s == kRts);
            if (o.retry_any)
                CHECK_EQ(o.retry_q, q);
            in.qp[q].retry_due = false;
            CHECK(!h.cycle(in).retry_any);
        }
        // Whatever holds a pick (but the states), under any mutant.
        for (const Block &b : blocks()) {
            SchedIn in = quiet_in(r);
            in.mutant = r.range(0, 31);
            in.qp[q] = ready_qp(r);
            b.apply(in.qp[q], r);
            in.qp[q].retry_due = true;
            const SchedOut o = h.cycle(in);
            const bool rts = in.qp[q].state == kRts;
            if (o.retry_any != rts)
                std::fprintf(stderr, "qp %u due with %s: retry_any %d\n", q, b.name, o.retry_any);
            CHECK_EQ(o.retry_any, rts);
            if (rts)
                CHECK_EQ(o.retry_q, q);
        }
        // Nothing in flight or posted: still due (the timer says so).
        SchedIn in = quiet_in(r);
        in.qp[q] = ready_qp(r);
        in.qp[q].sq_pi = in.qp[q].sq_ci;
        in.qp[q].retry_due = true;
        SchedOut o = h.cycle(in);
        CHECK(o.retry_any);
        CHECK_EQ(o.retry_q, q);
        // Due and ready at once: both name it.
        in.qp[q] = ready_qp(r);
        in.qp[q].retry_due = true;
        o = h.cycle(in);
        CHECK(o.pick_any && o.retry_any);
        CHECK_EQ(o.pick_q, q);
        CHECK_EQ(o.retry_q, q);
    }

    // Round-robin, every pointer, random sets of due QPs (some not in RTS):
    // the first due RTS QP at or after the pointer, by hand.
    for (unsigned p = 0; p < kNumQp && !unit_stop(failures); p++) {
        point_at(h, p);
        for (int i = 0; i < 40; i++) {
            SchedIn in = quiet_in(r);
            const uint32_t due = r.u32() & r.u32(), rts = r.u32();   // a few due, often not the first
            for (unsigned q = 0; q < kNumQp; q++) {
                if ((rts >> q) & 1)
                    in.qp[q] = due_qp(false);
                in.qp[q].retry_due = (due >> q) & 1;
            }
            int want = -1;
            for (unsigned k = 0; k < kNumQp && want < 0; k++) {
                const unsigned q = (p + k) % kNumQp;
                if ((due >> q) & (rts >> q) & 1)
                    want = static_cast<int>(q);
            }
            const SchedOut o = h.cycle(in);
            CHECK_EQ(o.retry_any, want >= 0);
            if (want >= 0)
                CHECK_EQ(o.retry_q, static_cast<unsigned>(want));
            CHECK_EQ(h.model().rr(), p);   // no pick taken: the pointer stays
        }
    }

    // Named: pointer at 6, QPs 2 and 9 due: 9, as long as no pick is taken.
    point_at(h, 6);
    SchedIn rr = quiet_in(r);
    no_retries(rr);
    rr.qp[2] = due_qp(true);
    rr.qp[9] = due_qp(true);
    for (int i = 0; i < 3; i++) {
        const SchedOut o = h.cycle(rr);
        CHECK(o.retry_any);
        CHECK_EQ(o.retry_q, 9);
    }
    // A pick of 9 taken: the pointer at 10, the search wraps to 2.
    rr.qp[9].sq_pi = static_cast<uint16_t>(rr.qp[9].sq_ci + 1);
    if (SchedModel::in_flight(rr.qp[9]) >= kMaxRd)
        rr.qp[9].done++;
    rr.advance = true;
    SchedOut o = h.cycle(rr);
    CHECK_EQ(o.pick_q, 9);
    CHECK_EQ(o.retry_q, 9);
    CHECK_EQ(h.model().rr(), 10);
    rr.advance = false;
    rr.qp[9].sq_pi = rr.qp[9].sq_ci;
    CHECK_EQ(h.cycle(rr).retry_q, 2);
    // The pointer on a due QP: that one first; just past it: the next.
    point_at(h, 2);
    CHECK_EQ(h.cycle(rr).retry_q, 2);
    point_at(h, 3);
    CHECK_EQ(h.cycle(rr).retry_q, 9);
    point_at(h, 10);
    CHECK_EQ(h.cycle(rr).retry_q, 2);
    // A pick of 15: the pointer wraps to 0; QP 0 due is first, then 2.
    rr.qp[15] = ready_qp(r);
    rr.advance = true;
    CHECK_EQ(h.cycle(rr).pick_q, 15);
    CHECK_EQ(h.model().rr(), 0);
    rr.advance = false;
    rr.qp[15] = due_qp(false);
    CHECK_EQ(h.cycle(rr).retry_q, 2);
    rr.qp[0] = due_qp(true);
    CHECK_EQ(h.cycle(rr).retry_q, 0);
    // Reset: the pointer back to 0.
    point_at(h, 5);
    CHECK_EQ(h.cycle(rr).retry_q, 9);
    h.reset();
    CHECK_EQ(h.cycle(rr).retry_q, 0);

    // Retries hide no other kind: a BIND due, a pick and a flush of other
    // QPs beside a due one, each found as without it.
    for (int i = 0; i < 200 && !unit_stop(failures); i++) {
        SchedIn in = quiet_in(r);
        no_retries(in);
        unsigned qs[4];
        for (unsigned j = 0; j < 4; j++) {
            bool again;
            do {
                qs[j] = r.range(0, kNumQp - 1);
                again = false;
                for (unsigned k = 0; k < j; k++) again |= qs[k] == qs[j];
            } while (again);
        }
        in.qp[qs[0]] = due_qp(true);
        in.qp[qs[1]] = bind_qp(r, r.range(1, kMaxRd - 1));
        in.qp[qs[1]].bind_wait = true;   // no pick of it
        in.qp[qs[2]] = ready_qp(r);
        in.qp[qs[3]] = drained_error_qp(r);
        in.qp[qs[3]].rq_pi = static_cast<uint16_t>(in.qp[qs[3]].rq_ci + 1);
        in.mutant = RNIC_MUTANT_NONE;
        o = h.cycle(in);
        CHECK(o.retry_any && o.bind_any && o.pick_any && o.flush_any);
        CHECK_EQ(o.retry_q, qs[0]);
        CHECK_EQ(o.bind_q, qs[1]);
        CHECK_EQ(o.pick_q, qs[2]);
        CHECK_EQ(o.flush_q, qs[3]);
        // And a retry taken (no advance) moves nothing: the same again.
        const SchedOut again = h.cycle(in);
        CHECK_EQ(again.retry_q, qs[0]);
        CHECK_EQ(again.pick_q, qs[2]);
    }
}

// An engine at random, every output against the model every cycle.
UNIT_TEST(random_run) {
    SchedHarness h(seed(0x5C4ED));
    Rng &r = h.rng();
    SchedIn in;
    for (unsigned q = 0; q < kNumQp; q++) {
        in.qp[q] = ready_qp(r);
        in.qp[q].sq_pi = in.qp[q].sq_ci;
        if (q % 4 == 0) {   // a quarter of the rings start just short of 2^16
            in.qp[q].done = in.qp[q].sq_ci = in.qp[q].sq_pi = static_cast<uint16_t>(0xFFF0 + q);
            in.qp[q].rq_ci = in.qp[q].rq_pi = static_cast<uint16_t>(0xFFF8 - q);
        }
    }
    const uint64_t kCycles = 250000;
    // What blocked a QP that was RTS with work posted and not paused, alone.
    uint64_t only[8] = {};
    // Paused RTS QPs: the holds each was past (fenced, MAX_RD_ATOMIC in
    // flight, READ hold, BIND, nothing posted), out of an RNR wait; and in one.
    uint64_t paused_past[5] = {}, paused_rnr = 0;
    uint64_t rd_limit_seen[kMaxRd + 1] = {};
    unsigned last_pick = 0;
    const int failures = rnic_check_failures();
    while (h.steps() < kCycles && !unit_stop(failures)) {
        const uint64_t t = h.steps();
        // The mutant: off, on, or any value, in phases.
        switch ((t / 10000) % 4) {
        case 0: case 1: in.mutant = RNIC_MUTANT_NONE; break;
        case 2: in.mutant = kMutFence; break;
        default: if (r.percent(1)) in.mutant = r.range(0, 31); break;
        }
        if (r.percent(1) && r.percent(5))
            h.reset();
        // Software and the network change a few QPs.
        for (int k = 0; k < 3; k++) {
            QpCtx &q = in.qp[r.range(0, kNumQp - 1)];
            const uint16_t fl = SchedModel::in_flight(q);
            switch (r.range(0, 19)) {
            case 0: case 1: case 2:   // a post
                if (static_cast<uint16_t>(q.sq_pi - q.done) < 40)
                    q.sq_pi = static_cast<uint16_t>(q.sq_pi + r.range(1, 4));
                break;
            case 3: case 4: case 5: case 6:   // the oldest completes (not a paused one: packets are left)
                if (fl && !(q.paused && fl == 1)) {
                    if (q.op[q.done % kMaxRd] == RNIC_OP_BIND)
                        q.bind_wait = false;
                    q.done++;
                    if (q.rd_hold && q.done != q.hold_done && r.percent(50))
                        q.rd_hold = false;   // the engine would retry the READ
                }
                break;
            case 7: q.fenced = fl != 0 && r.percent(60); break;
            case 8:   // a READ over the limit held, mostly until the oldest completes
                q.rd_hold = fl != 0 && r.percent(70);
                q.hold_done = r.percent(80) ? q.done : static_cast<uint16_t>(r.u32());
                break;
            case 9: q.bind_wait = r.percent(40); break;
            case 10: q.flags = r.byte(); break;
            case 11:   // receives posted and consumed
                if (r.percent(50))
                    q.rq_pi = static_cast<uint16_t>(q.rq_pi + r.range(1, 3));
                else if (q.rq_ci != q.rq_pi)
                    q.rq_ci++;
                break;
            case 12:   // stale slots get junk
                for (uint16_t i = q.sq_ci; static_cast<uint16_t>(i - q.done) < kMaxRd; ++i)
                    q.op[i % kMaxRd] = static_cast<uint8_t>(r.percent(50) ? r.range(0, 5) : r.byte());
                break;
            case 13:
                if (r.percent(15)) {   // an error or a reconnect, now and then
                    const unsigned s = r.range(0, 9);
                    q.state = s < 6 ? kRts : s < 8 ? kErr : s < 9 ? RNIC_QP_STATE_INIT : RNIC_QP_STATE_RESET;
                    if (q.state == RNIC_QP_STATE_INIT)
                        q.paused = false;   // INIT clears it (rnic_qp_transport)
                }
                break;
            case 14:   // a flushed QP is connected again (through INIT, which clears a pause)
                if (q.state != kRts && !SchedModel::has_flush(q) && r.percent(50)) {
                    q.state = kRts;
                    q.paused = false;
                }
                break;
            case 15:   // an RNR NAK: the QP waits out its delay
                if (fl && r.percent(50))
                    q.rnr_wait = true;
                break;
            case 16: case 17:   // the timer: a timeout, or an RNR delay over
                if (q.rnr_wait || fl)
                    q.retry_due = r.percent(q.rnr_wait ? 90 : 40);
                else if (r.percent(5))
                    q.retry_due = true;   // stale: the engine will find nothing in flight
                break;
            default: break;
            }
        }
        in.cur = r.percent(70) ? last_pick : r.range(0, kNumQp - 1);

        // The engine: a BIND to commit, a retry, a pick or a flush (the real
        // one takes them in that order; the unit does not care which is taken).
        const SchedOut want = h.model().eval(in);
        in.advance = false;
        int act = -1;
        const unsigned roll = r.range(0, 99);
        if (want.bind_any && roll < 25)
            act = 0;
        else if (want.retry_any && roll < 40)
            act = 3;
        else if (want.pick_any && roll < 75)
            act = 1;
        else if (want.flush_any && roll < 90)
            act = 2;
        in.advance = act == 1;

        // Tallies: a QP that has work and is RTS, blocked by one thing alone;
        // a paused one, the holds it is past.
        for (const QpCtx &q : in.qp) {
            if (q.state != kRts)
                continue;
            if (q.paused) {
                const bool b[5] = {q.fenced, SchedModel::in_flight(q) >= kMaxRd, q.rd_hold && q.done == q.hold_done,
                                   q.bind_wait, q.sq_ci == q.sq_pi};
                for (int i = 0; i < 5; i++) paused_past[i] += b[i] && !q.rnr_wait;
                paused_rnr += q.rnr_wait;
                continue;
            }
            if (q.sq_ci == q.sq_pi)
                continue;
            const bool b[5] = {q.fenced, SchedModel::in_flight(q) >= kMaxRd, q.rd_hold && q.done == q.hold_done,
                               q.bind_wait, q.rnr_wait};
            const int nb = b[0] + b[1] + b[2] + b[3] + b[4];
            if (nb == 1)
                for (int i = 0; i < 5; i++) only[i] += b[i];
            if (nb == 1 && b[3] && in.mutant == kMutFence)
                only[5]++;
            if (nb == 1 && b[4] && in.mutant == kMutFence)
                only[6]++;
        }
        ++rd_limit_seen[SchedModel::reads_in_flight(in.qp[in.cur]) > kMaxRd ? kMaxRd
                                                                           : SchedModel::reads_in_flight(in.qp[in.cur])];

        h.cycle(in);

        // The engine acts on what it took, after the edge.
        if (act == 0) {   // the BIND commits: it completes
            QpCtx &q = in.qp[want.bind_q];
            q.done++;
            q.bind_wait = false;
        } else if (act == 1 && in.qp[want.pick_q].paused) {   // the paused WQE goes on, and may pause again
            QpCtx &q = in.qp[want.pick_q];
            last_pick = want.pick_q;
            q.paused = r.percent(30);
        } else if (act == 1) {   // a WQE starts
            QpCtx &q = in.qp[want.pick_q];
            last_pick = want.pick_q;
            // Mostly READs one phase in three, so cur reaches MAX_RD_ATOMIC of them.
            const unsigned k = r.range(0, 99), reads = (t / 5000) % 3 == 2 ? 90 : 30;
            const uint8_t op = k < reads ? RNIC_OP_RDMA_READ : k < reads + 5 ? RNIC_OP_BIND : plain_op(r);
            q.op[q.sq_ci % kMaxRd] = op;
            q.sq_ci++;
            if (op == RNIC_OP_BIND)
                q.bind_wait = true;
            // A SEND or WRITE pauses between its packets now and then (a frame waits).
            if ((op == RNIC_OP_SEND || op == RNIC_OP_RDMA_WRITE) && r.percent(30))
                q.paused = true;
            if (r.percent(10))
                q.fenced = true;   // the next one carries a fence
        } else if (act == 3) {   // the retry: resend from the oldest (or fail it), the wait over
            QpCtx &q = in.qp[want.retry_q];
            q.retry_due = false;
            q.rnr_wait = false;
            if (q.done != q.sq_ci && r.percent(20)) {   // no retries left: the oldest fails, the QP errs
                q.state = kErr;
            } else {
                q.paused = false;   // the rewind sends a paused WQE again from the oldest (rnic_completer)
            }
        } else if (act == 2) {   // flush one WQE or receive
            QpCtx &q = in.qp[want.flush_q];
            if (q.done != q.sq_ci) {
                q.done++;
                if (q.done == q.sq_ci)
                    q.paused = false;   // the paused WQE (the newest) flushed with the rest
            } else if (q.sq_ci != q.sq_pi)
                q.done = ++q.sq_ci;
            else
                q.rq_ci++;
        }
        // Fences drop once nothing is in flight.
        for (QpCtx &q : in.qp)
            if (q.fenced && q.done == q.sq_ci && r.percent(50))
                q.fenced = false;
    }
    const SchedStats &s = h.stats();
    std::printf("random_run: %llu cycles; %llu picks taken (%llu wrapping past QP 15, %llu lifted by the mutant), "
                "a ready QP waited at most %u picks; cycles with a pick %llu, a BIND due %llu, a retry due %llu "
                "(%llu beside a pick of another QP), a flush %llu; rd_at_limit %llu high / %llu low; blocked by one "
                "condition alone: fenced %llu, MAX_RD_ATOMIC %llu, READ hold %llu, BIND %llu (%llu under the "
                "mutant), RNR wait %llu (%llu under the mutant); %llu picks passing a QP in RNR wait; %llu resets\n",
                static_cast<unsigned long long>(s.steps), static_cast<unsigned long long>(s.advances),
                static_cast<unsigned long long>(s.wrapped_picks), static_cast<unsigned long long>(s.mutant_lifted),
                s.max_passed, static_cast<unsigned long long>(s.pick_cycles),
                static_cast<unsigned long long>(s.bind_cycles), static_cast<unsigned long long>(s.retry_cycles),
                static_cast<unsigned long long>(s.retry_and_pick), static_cast<unsigned long long>(s.flush_cycles),
                static_cast<unsigned long long>(s.at_limit), static_cast<unsigned long long>(s.under_limit),
                static_cast<unsigned long long>(only[0]), static_cast<unsigned long long>(only[1]),
                static_cast<unsigned long long>(only[2]), static_cast<unsigned long long>(only[3]),
                static_cast<unsigned long long>(only[5]), static_cast<unsigned long long>(only[4]),
                static_cast<unsigned long long>(only[6]), static_cast<unsigned long long>(s.rnr_skipped),
                static_cast<unsigned long long>(s.resets));
    std::printf("random_run: %llu picks of a paused QP (%llu that a hold would have blocked unpaused); paused QPs "
                "past a fence %llu, MAX_RD_ATOMIC %llu, a READ hold %llu, a BIND %llu, nothing posted %llu; held by "
                "an RNR wait %llu\n",
                static_cast<unsigned long long>(s.paused_picks), static_cast<unsigned long long>(s.paused_lifted),
                static_cast<unsigned long long>(paused_past[0]), static_cast<unsigned long long>(paused_past[1]),
                static_cast<unsigned long long>(paused_past[2]), static_cast<unsigned long long>(paused_past[3]),
                static_cast<unsigned long long>(paused_past[4]), static_cast<unsigned long long>(paused_rnr));
    std::printf("random_run: cur's READs in flight 0..8:");
    for (uint64_t n : rd_limit_seen) std::printf(" %llu", static_cast<unsigned long long>(n));
    std::printf("\n");
    uint64_t swept_least = ~0ull;
    for (unsigned q = 0; q < kNumQp; q++)
        if (h.sweep_count(q) < swept_least)
            swept_least = h.sweep_count(q);
    std::printf("random_run: %llu clock cycles, %llu of them staging cycles; %llu changes of more than four QPs "
                "at once; touch slots 0..3 naming a changed QP %llu %llu %llu "
                "%llu, a spare read %llu; every QP swept at least %llu times, none unswept more than %u cycles\n",
                static_cast<unsigned long long>(s.cycles), static_cast<unsigned long long>(s.staged),
                static_cast<unsigned long long>(s.spread),
                static_cast<unsigned long long>(s.touches_changed[0]),
                static_cast<unsigned long long>(s.touches_changed[1]),
                static_cast<unsigned long long>(s.touches_changed[2]),
                static_cast<unsigned long long>(s.touches_changed[3]), static_cast<unsigned long long>(s.touches_spare),
                static_cast<unsigned long long>(swept_least), h.max_unswept());
    CHECK(h.steps() >= kCycles);
    CHECK(s.advances > 20000);
    CHECK(s.wrapped_picks > 1000);
    CHECK(s.mutant_lifted > 100);
    CHECK(s.bind_cycles > 5000);
    CHECK(s.retry_cycles > 5000);
    CHECK(s.retry_and_pick > 1000);
    CHECK(s.rnr_skipped > 1000);
    CHECK(s.flush_cycles > 5000);
    CHECK(s.at_limit > 10000);
    CHECK(s.under_limit > 10000);
    for (int i = 0; i < 7; i++) CHECK(only[i] > 1000);
    for (unsigned n = 0; n <= kMaxRd; n++) CHECK(rd_limit_seen[n] > 100);
    CHECK(s.resets > 5);
    CHECK(s.paused_picks > 3000);
    CHECK(s.paused_lifted > 1000);
    for (int i = 0; i < 5; i++) CHECK(paused_past[i] > 100);
    CHECK(paused_rnr > 1000);
    // The touches: changes through every slot, spare reads beside them,
    // and more changes at once than one edge's touches now and then.
    for (unsigned t = 0; t < kTouch; t++) CHECK(s.touches_changed[t] > 10000);
    CHECK(s.touches_spare > 100000);
    CHECK(s.spread > 100);
    // The sweep read every QP, over and over (a reset restarts it at 0).
    CHECK(swept_least > s.cycles / kNumQp / 2);
    CHECK(h.max_unswept() < kNumQp);
}

namespace {

// A change of one QP's row that turns one of its verdicts on or off, with
// the QP the only one with work (the others quiet_qp()): `before` makes the
// context, `after` changes it, and `any` / `qp` are the output that shows
// the verdict (on before the change if on_before). Between them they change
// every member of both rows.
struct Flip {
    const char *name;
    std::function<void(QpCtx &, Rng &)> before, after;
    bool SchedOut::*any;
    unsigned SchedOut::*qp;
    bool on_before;
};
const std::vector<Flip> &flips() {
    using F = std::function<void(QpCtx &, Rng &)>;
    auto pick = [](const char *n, F b, F a, bool on) {
        return Flip{n, b, a, &SchedOut::pick_any, &SchedOut::pick_q, on};
    };
    auto read_hold = [](QpCtx &q, Rng &r) {   // two in flight, held until the oldest completes
        q = ready_qp(r);
        in_flight(q, 2, r);
        q.rd_hold = true;
        q.hold_done = q.done;
    };
    static const std::vector<Flip> f = {
        pick("ready, then fenced", [](QpCtx &q, Rng &r) { q = ready_qp(r); },
             [](QpCtx &q, Rng &) { q.fenced = true; }, true),
        pick("fenced, then the fence drops",
             [](QpCtx &q, Rng &r) {
                 q = ready_qp(r);
                 q.fenced = true;
             },
             [](QpCtx &q, Rng &) { q.fenced = false; }, false),
        pick("nothing posted, then a post (sq_pi)",
             [](QpCtx &q, Rng &r) {
                 q = ready_qp(r);
                 q.sq_pi = q.sq_ci;
             },
             [](QpCtx &q, Rng &) { q.sq_pi++; }, false),
        pick("MAX_RD_ATOMIC - 1 in flight, then one more starts (sq_ci)",
             [](QpCtx &q, Rng &r) {
                 q = ready_qp(r);
                 q.sq_pi = static_cast<uint16_t>(q.sq_ci + 5);
                 in_flight(q, kMaxRd - 1, r);
             },
             [](QpCtx &q, Rng &) { q.sq_ci++; }, true),
        pick("a READ hold, then the oldest completes (done)", read_hold, [](QpCtx &q, Rng &) { q.done++; }, false),
        pick("a READ hold, then hold_done moves", read_hold, [](QpCtx &q, Rng &) { q.hold_done--; }, false),
        pick("a READ hold, then lifted (rd_hold)", read_hold, [](QpCtx &q, Rng &) { q.rd_hold = false; }, false),
        pick("an uncommitted BIND, then committed (bind_wait)",
             [](QpCtx &q, Rng &r) {
                 q = ready_qp(r);
                 q.bind_wait = true;
             },
             [](QpCtx &q, Rng &) { q.bind_wait = false; }, false),
        pick("ready, then an RNR wait", [](QpCtx &q, Rng &r) { q = ready_qp(r); },
             [](QpCtx &q, Rng &) { q.rnr_wait = true; }, true),
        pick("paused past a fence, then resumed (paused)",
             [](QpCtx &q, Rng &r) {
                 q = paused_qp(r);
                 q.fenced = true;
             },
             [](QpCtx &q, Rng &) { q.paused = false; }, true),
        {"a BIND oldest in flight, then another opcode there (oldest_op)",
         [](QpCtx &q, Rng &r) {
             q = bind_qp(r, 2);
             q.bind_wait = true;
         },
         [](QpCtx &q, Rng &) { q.op[q.done % kMaxRd] = RNIC_OP_SEND; }, &SchedOut::bind_any, &SchedOut::bind_q, true},
        {"RTS with a retry due, then INIT (state)",
         [](QpCtx &q, Rng &r) {
             q = ready_qp(r);
             q.sq_pi = q.sq_ci;
             q.retry_due = true;
         },
         [](QpCtx &q, Rng &) { q.state = RNIC_QP_STATE_INIT; }, &SchedOut::retry_any, &SchedOut::retry_q, true},
        {"ERROR drained, then a receive posted (rq_pi)", [](QpCtx &q, Rng &r) { q = drained_error_qp(r); },
         [](QpCtx &q, Rng &) { q.rq_pi++; }, &SchedOut::flush_any, &SchedOut::flush_q, false},
        {"ERROR with a receive posted, then flushed (rq_ci)",
         [](QpCtx &q, Rng &r) {
             q = drained_error_qp(r);
             q.rq_pi = static_cast<uint16_t>(q.rq_ci + 1);
         },
         [](QpCtx &q, Rng &) { q.rq_ci++; }, &SchedOut::flush_any, &SchedOut::flush_q, true},
    };
    return f;
}

// Contexts with `f`'s QP q as it is before the change, the rest quiet.
SchedIn flip_before(const Flip &f, unsigned q, Rng &r) {
    SchedIn in = quiet_in(r);
    f.before(in.qp[q], r);
    return in;
}

// o shows the verdict `on` for QP q.
void expect_verdict(const Flip &f, const SchedOut &o, unsigned q, bool on) {
    CHECK_EQ(o.*f.any, on);
    if (on)
        CHECK_EQ(o.*f.qp, q);
    if (o.*f.any != on || (on && o.*f.qp != q))
        std::fprintf(stderr, "  qp %u, %s: expected the verdict %s\n", q, f.name, on ? "on" : "off");
}

// Cycles with nothing changed until the sweep (look 4) is at QP s.
void sweep_to(SchedHarness &h, const SchedIn &in, unsigned s) {
    for (unsigned i = 0; i < 2 * kNumQp && h.look(kTouch) != s; i++) h.cycle(in);
    CHECK_EQ(h.look(kTouch), s);
}

}  // namespace

// The harness's picture of the rows (sched_cfg_t in sched_harness.h,
// sched_xs_t in pkg_struct.h) against the package the RTL is built from: a
// member renamed, moved or resized there fails here, by name, and not as a
// puzzle of mismatches in every other test.
UNIT_TEST(layout) {
    std::printf("  package %s\n", RNIC_PKG_SV);
    std::string pkg;
    if (!read_pkg(RNIC_PKG_SV, pkg))
        return;
    expect_pkg_struct(pkg, "sched_cfg_t", kCfgDesc);
    expect_pkg_struct(pkg, "sched_xs_t", kSxDesc);
}

// The contract on touch_qp, in three parts. Named: a change named in any one
// touch slot alone (the others reading other QPs), or in all four, gives
// the new verdict in the first cycle after the edge that makes it. Named a
// cycle late: that first cycle still gives the old verdict, the next the
// new one. Never named: the old verdict stands until the sweep reads the
// QP's row; that cycle gives the new one and a_kept fails at its edge, once.
// The last two leave the unit stale on purpose: the harness counts rather
// than checks its comparisons with the model (tolerate_stale), and this
// test checks that they do differ while stale and agree after. a_kept's
// $error would end the run (Verilator stops at its error limit, 1); the
// harness raises the limit for those parts and this test counts the
// errors instead, so the assertion is shown to fire, and only there.
UNIT_TEST(touch_timing) {
    SchedHarness h(seed(0x5D0B));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    SchedHarness::Touch fill;
    fill.fill(SchedHarness::kFill);

    // Named, slot by slot (slot kTouch: all four).
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        for (unsigned slot = 0; slot <= kTouch; slot++) {
            for (const Flip &f : flips()) {
                const SchedIn a = flip_before(f, q, r);
                expect_verdict(f, h.cycle(a), q, f.on_before);
                SchedIn b = a;
                f.after(b.qp[q], r);
                CHECK(!same_row(a.qp[q], b.qp[q]));
                SchedHarness::Touch t = fill;
                for (unsigned s = 0; s < kTouch; s++)
                    if (s == slot || slot == kTouch)
                        t[s] = static_cast<int>(q);
                const SchedOut o = h.step(a, t, b, 1u << q);   // the fillers read other QPs
                expect_verdict(f, o, q, f.on_before);
                expect_verdict(f, h.after(), q, !f.on_before);   // and the harness compared it with the model
            }
        }
    }
    CHECK_EQ(h.assert_errors(), 0);

    // Named a cycle late: stale for that cycle alone. The sweep is put just
    // past the QP, so that it reads none of the rows meanwhile.
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        for (const Flip &f : flips()) {
            const SchedIn a = flip_before(f, q, r);
            h.cycle(a);
            SchedIn b = a;
            f.after(b.qp[q], r);
            sweep_to(h, a, (q + 1) % kNumQp);
            h.tolerate_stale(true);
            const uint64_t mismatches = h.stats().stale_mismatches;
            SchedOut o = h.step(a, fill, b, 1u << q);   // the change, named nowhere
            CHECK(SchedHarness::same(o, h.model().eval(a)));
            CHECK(h.look(kTouch) != q);
            expect_verdict(f, h.after(), q, f.on_before);   // the first cycle after: the old verdict
            CHECK(!SchedHarness::same(h.after(), h.model().eval(b)));
            SchedHarness::Touch late = fill;
            late[r.range(0, kTouch - 1)] = static_cast<int>(q);
            o = h.step(b, late, b);
            expect_verdict(f, o, q, f.on_before);
            expect_verdict(f, h.after(), q, !f.on_before);   // the look of the late touch: right again
            CHECK(SchedHarness::same(h.after(), h.model().eval(b)));
            CHECK_EQ(h.stats().stale_mismatches - mismatches, 2u);   // the stale cycle, before and after its edge
            h.tolerate_stale(false);
            h.cycle(b);   // checked against the model again
        }
    }
    CHECK_EQ(h.assert_errors(), 0);

    // Never named: stale until the sweep reads it, from a random distance.
    std::printf("touch_timing: %zu a_kept failures follow, each expected (a change never named in touch_qp)\n",
                2 * flips().size());
    std::fflush(stdout);
    int fired = 0;
    for (const Flip &f : flips()) {
        for (int k = 0; k < 2 && !unit_stop(failures); k++) {
            const unsigned q = r.range(0, kNumQp - 1);
            const SchedIn a = flip_before(f, q, r);
            h.cycle(a);
            SchedIn b = a;
            f.after(b.qp[q], r);
            // Anywhere but q - 1: the sweep must not read q the cycle after the edge.
            sweep_to(h, a, (q + 1 + r.range(0, kNumQp - 3)) % kNumQp);
            h.tolerate_stale(true);
            const int errors = h.assert_errors();
            h.step(a, fill, b, 1u << q);   // the change, named nowhere; the fillers never read q
            unsigned stale = 0;
            bool read = false;
            for (unsigned c = 0; c < 2 * kNumQp && !read; c++) {
                read = h.look(kTouch) == q;   // this cycle the sweep reads q's row
                const SchedOut want = h.model().eval(b);
                const SchedOut o = h.step(b, fill, b, 1u << q);
                if (read) {
                    CHECK(SchedHarness::same(o, want));
                    CHECK_EQ(h.assert_errors(), errors + 1);   // a_kept, at this cycle's edge
                } else {
                    ++stale;
                    CHECK(!SchedHarness::same(o, want));
                    expect_verdict(f, o, q, f.on_before);
                    CHECK_EQ(h.assert_errors(), errors);
                }
            }
            CHECK(read);
            CHECK(stale >= 1 && stale < kNumQp);
            fired += h.assert_errors() - errors;
            h.tolerate_stale(false);
            // Right from then on, and the assertion quiet (it would stop the run now).
            for (int i = 0; i < 3; i++) expect_verdict(f, h.cycle(b), q, !f.on_before);
            CHECK_EQ(h.assert_errors(), errors + 1);
        }
    }
    CHECK_EQ(fired, static_cast<int>(2 * flips().size()));
    std::printf("touch_timing: %d a_kept failures, as expected; %llu comparisons with the model while stale, %llu "
                "of them differing\n",
                fired, static_cast<unsigned long long>(h.stats().stale_checks),
                static_cast<unsigned long long>(h.stats().stale_mismatches));
}

// The kept verdicts alone carry a QP that is not written: with the contexts
// set once, 6 x NUM_QP cycles (picks taken, the pointer moving) with every
// output right, the sweep reading every QP, none left unread NUM_QP cycles,
// and a_kept never failing (the run would have stopped); the same after a
// reset, which starts the sweep again.
UNIT_TEST(sweep) {
    SchedHarness h(seed(0x5D0C));
    Rng &r = h.rng();
    for (int round = 0; round < 2; round++) {
        SchedIn in;
        for (QpCtx &q : in.qp)   // the ERROR QPs with a WQE posted: a flush
            q = random_qp(r, [](QpCtx &e, Rng &) { e.sq_pi = static_cast<uint16_t>(e.sq_ci + 1); });
        in.cur = r.range(0, kNumQp - 1);
        h.cycle(in);   // staged: every QP named once
        uint64_t before[kNumQp];
        for (unsigned q = 0; q < kNumQp; q++) before[q] = h.sweep_count(q);
        unsigned picks = 0;
        for (unsigned i = 0; i < 6 * kNumQp; i++) {
            in.advance = h.model().eval(in).pick_any;
            picks += h.cycle(in).pick_any && in.advance;
        }
        in.advance = false;
        CHECK(picks > 0);
        for (unsigned q = 0; q < kNumQp; q++) {
            if (h.sweep_count(q) - before[q] < 5)
                std::fprintf(stderr, "  qp %u swept %llu times in %u cycles\n", q,
                             static_cast<unsigned long long>(h.sweep_count(q) - before[q]), 6 * kNumQp);
            CHECK(h.sweep_count(q) - before[q] >= 5);
        }
        CHECK(h.max_unswept() < kNumQp);
        h.reset();
    }
    CHECK_EQ(h.assert_errors(), 0);
}
