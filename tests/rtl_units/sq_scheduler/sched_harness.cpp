#include "sched_harness.h"

#include <cstdio>
#include <cstdlib>

#include "rnic_check.h"

namespace {
constexpr unsigned kMaxReports = 10;   // failing cycles described in full per harness

[[noreturn]] void bench_error(const char *what) {
    std::fprintf(stderr, "sq_scheduler bench error: %s\n", what);
    std::exit(2);
}

// A field of `width` bits at bit `lsb` of a wide port; the scheduler's
// fields are 1, 2, 8 or 16 bits at multiples of their width, so none
// straddles a 32-bit word.
template <std::size_t N> void put(VlWide<N> &w, unsigned lsb, unsigned width, uint32_t v) {
    const unsigned word = lsb / 32, shift = lsb % 32;
    if (word >= N || shift + width > 32)
        bench_error("a field across a word of a wide port");
    const uint32_t mask = (width == 32 ? ~0u : ((1u << width) - 1u)) << shift;
    w[word] = (w[word] & ~mask) | ((v << shift) & mask);
}
}  // namespace

SchedHarness::SchedHarness(uint64_t seed) : seed_(seed), rng_(seed ^ 0x5C4ED000ull), ctx_(unit_context(seed)) {
    // Verilator 5.006 draws X values through the thread's context, not the
    // model's (tests/rtl_units/cqe_writer/cqe_harness.cpp says why).
    Verilated::threadContextp(ctx_.get());
    dut_.reset(new Vrnic_sq_scheduler(ctx_.get()));
    dut_->clk = 0;
    dut_->eval();
    reset();
}

SchedHarness::~SchedHarness() {
    Verilated::threadContextp(ctx_.get());
    dut_->final();
    dut_.reset();
    // Not set back to none, as cqe_harness.cpp does: GCC 12 with UBSan
    // miscompiles that store here (its null check of the thread-local's
    // address reads stale flags and reports a null pointer). A harness
    // never outlives the test that made it, and the next VerilatedContext
    // made becomes the thread's in its constructor.
}

void SchedHarness::reset() {
    Verilated::threadContextp(ctx_.get());
    SchedIn junk;
    for (int i = 0; i < 2; i++) {
        drive(junk, rng_.percent(50));   // advance during reset is ignored
        dut_->rst_n = 0;
        edge();
    }
    dut_->rst_n = 1;
    model_.reset();
    for (unsigned &p : passed_) p = 0;
    ++stats_.resets;
}

void SchedHarness::drive(const SchedIn &in, bool advance) {
    Vrnic_sq_scheduler &d = *dut_;
    d.rst_n = 1;
    d.mutant = in.mutant & 0x1Fu;
    d.cur = in.cur % kNumQp;
    d.advance = advance;
    uint32_t state = 0, fenced = 0, bind_wait = 0, rd_hold = 0, rnr_wait = 0, paused = 0, retry_due = 0;
    for (unsigned i = 0; i < kNumQp; i++) {
        const QpCtx &q = in.qp[i];
        state |= (q.state & 3u) << (2 * i);
        fenced |= (q.fenced ? 1u : 0u) << i;
        bind_wait |= (q.bind_wait ? 1u : 0u) << i;
        rd_hold |= (q.rd_hold ? 1u : 0u) << i;
        rnr_wait |= (q.rnr_wait ? 1u : 0u) << i;
        paused |= (q.paused ? 1u : 0u) << i;
        retry_due |= (q.retry_due ? 1u : 0u) << i;
        put(d.hold_done, 16 * i, 16, q.hold_done);
        put(d.sq_pi, 16 * i, 16, q.sq_pi);
        put(d.sq_ci, 16 * i, 16, q.sq_ci);
        put(d.done, 16 * i, 16, q.done);
        put(d.rq_pi, 16 * i, 16, q.rq_pi);
        put(d.rq_ci, 16 * i, 16, q.rq_ci);
        put(d.flags, 8 * i, 8, q.flags);
        for (unsigned s = 0; s < kMaxRd; s++) put(d.inflight_op, 8 * (i * kMaxRd + s), 8, q.op[s]);
    }
    d.state = state;
    d.fenced = static_cast<uint16_t>(fenced);
    d.bind_wait = static_cast<uint16_t>(bind_wait);
    d.rd_hold = static_cast<uint16_t>(rd_hold);
    d.rnr_wait = static_cast<uint16_t>(rnr_wait);
    d.paused = static_cast<uint16_t>(paused);
    d.retry_due = static_cast<uint16_t>(retry_due);
}

void SchedHarness::edge() {
    Vrnic_sq_scheduler &d = *dut_;
    d.clk = 0;
    d.eval();
    ctx_->timeInc(1);
    d.clk = 1;
    d.eval();
    ctx_->timeInc(1);
    d.clk = 0;
    ++stats_.cycles;
}

SchedOut SchedHarness::read_and_check(const SchedIn &in, const char *when) {
    const Vrnic_sq_scheduler &d = *dut_;
    SchedOut got;
    got.pick_any = d.pick_any;
    got.pick_q = d.pick_q;
    got.bind_any = d.bind_any;
    got.bind_q = d.bind_q;
    got.retry_any = d.retry_any;
    got.retry_q = d.retry_q;
    got.flush_any = d.flush_any;
    got.flush_q = d.flush_q;
    got.rd_at_limit = d.rd_at_limit;
    const SchedOut want = model_.eval(in);
    const int failures = rnic_check_failures();
    CHECK_EQ(got.pick_any, want.pick_any);
    if (want.pick_any)
        CHECK_EQ(got.pick_q, want.pick_q);
    CHECK_EQ(got.bind_any, want.bind_any);
    if (want.bind_any)
        CHECK_EQ(got.bind_q, want.bind_q);
    CHECK_EQ(got.retry_any, want.retry_any);
    if (want.retry_any)
        CHECK_EQ(got.retry_q, want.retry_q);
    CHECK_EQ(got.flush_any, want.flush_any);
    if (want.flush_any)
        CHECK_EQ(got.flush_q, want.flush_q);
    CHECK_EQ(got.rd_at_limit, want.rd_at_limit);
    if (rnic_check_failures() != failures && ++reports_ <= kMaxReports) {
        std::fprintf(stderr,
                     "[sq_scheduler cycle %llu %s, seed 0x%llx] pointer %u, mutant %u, cur %u (%u READs in flight, "
                     "limit %u); unit: pick %u/%u bind %u/%u retry %u/%u flush %u/%u at_limit %u; model: pick %u/%u "
                     "bind %u/%u retry %u/%u flush %u/%u at_limit %u\n",
                     static_cast<unsigned long long>(stats_.cycles), when, static_cast<unsigned long long>(seed_),
                     model_.rr(), in.mutant, in.cur, SchedModel::reads_in_flight(in.qp[in.cur % kNumQp]),
                     SchedModel::rd_limit(in.qp[in.cur % kNumQp].flags), got.pick_any, got.pick_q, got.bind_any,
                     got.bind_q, got.retry_any, got.retry_q, got.flush_any, got.flush_q, got.rd_at_limit,
                     want.pick_any, want.pick_q, want.bind_any, want.bind_q, want.retry_any, want.retry_q,
                     want.flush_any, want.flush_q, want.rd_at_limit);
        for (unsigned i = 0; i < kNumQp; i++) {
            const QpCtx &q = in.qp[i];
            std::fprintf(stderr,
                         "  qp %2u: state %u fenced %d bind_wait %d rd_hold %d rnr_wait %d paused %d retry_due %d "
                         "hold_done %u sq pi %u ci %u done %u rq pi %u ci %u flags 0x%02x oldest op %u -> ready %d "
                         "bind %d retry %d flush %d\n",
                         i, q.state, q.fenced, q.bind_wait, q.rd_hold, q.rnr_wait, q.paused, q.retry_due, q.hold_done,
                         q.sq_pi,
                         q.sq_ci, q.done, q.rq_pi, q.rq_ci, q.flags, q.op[q.done % kMaxRd],
                         SchedModel::ready(q, in.mutant), SchedModel::bind_due(q), SchedModel::retry(q),
                         SchedModel::has_flush(q));
        }
    }
    return got;
}

SchedOut SchedHarness::peek(const SchedIn &in) {
    Verilated::threadContextp(ctx_.get());
    drive(in, false);
    dut_->clk = 0;
    dut_->eval();
    return read_and_check(in, "peek");
}

SchedOut SchedHarness::cycle(const SchedIn &in) {
    Verilated::threadContextp(ctx_.get());
    const SchedOut want = model_.eval(in);
    if (in.advance && !want.pick_any)
        bench_error("advance without a pick");
    drive(in, in.advance);
    dut_->clk = 0;
    dut_->eval();
    const SchedOut got = read_and_check(in, "before the edge");

    if (want.pick_any)
        ++stats_.pick_cycles;
    if (want.bind_any)
        ++stats_.bind_cycles;
    if (want.retry_any)
        ++stats_.retry_cycles;
    if (want.retry_any && want.pick_any && want.retry_q != want.pick_q)
        ++stats_.retry_and_pick;
    if (want.flush_any)
        ++stats_.flush_cycles;
    ++(want.rd_at_limit ? stats_.at_limit : stats_.under_limit);
    if (in.advance) {
        ++stats_.advances;
        const QpCtx &p = in.qp[want.pick_q];
        if (p.bind_wait && !p.paused)   // a paused QP passes the bind fence without the mutant
            ++stats_.mutant_lifted;
        if (p.paused) {
            ++stats_.paused_picks;
            QpCtx unpaused = p;
            unpaused.paused = false;
            stats_.paused_lifted += !SchedModel::ready(unpaused, in.mutant);
        }
        if (want.pick_q < model_.rr())
            ++stats_.wrapped_picks;
        for (const QpCtx &q : in.qp) {
            QpCtx free = q;
            free.rnr_wait = false;
            stats_.rnr_skipped += q.rnr_wait && SchedModel::ready(free, in.mutant);
        }
        // Fairness, as the bench sees it: a QP ready at this pick and not
        // picked has waited one more pick.
        for (unsigned i = 0; i < kNumQp; i++) {
            if (i == want.pick_q || !SchedModel::ready(in.qp[i], in.mutant)) {
                passed_[i] = 0;
                continue;
            }
            if (++passed_[i] > stats_.max_passed)
                stats_.max_passed = passed_[i];
            if (passed_[i] >= kNumQp && ++reports_ <= kMaxReports)
                std::fprintf(stderr, "[sq_scheduler cycle %llu] qp %u ready and passed over %u picks in a row\n",
                             static_cast<unsigned long long>(stats_.cycles), i, passed_[i]);
            CHECK(passed_[i] < kNumQp);
        }
    }
    model_.edge(in);
    edge();
    read_and_check(in, "after the edge");
    return got;
}
