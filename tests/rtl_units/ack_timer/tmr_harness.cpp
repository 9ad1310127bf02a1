#include "tmr_harness.h"

#include <cstdio>
#include <cstdlib>

#include "rnic_check.h"

namespace {
constexpr unsigned kMaxReports = 10;   // failing cycles described in full per harness
constexpr uint64_t kNever = ~0ull;

[[noreturn]] void bench_error(const char *what) {
    std::fprintf(stderr, "ack_timer bench error: %s\n", what);
    std::exit(2);
}

unsigned long long ull(uint64_t v) { return static_cast<unsigned long long>(v); }
}  // namespace

TmrHarness::TmrHarness(uint64_t seed, uint64_t t0)
    : seed_(seed), rng_(seed ^ 0xAC4717E5ull), ctx_(unit_context(seed)), now_(t0) {
    for (uint64_t &r : reached_) r = kNever;
    // Verilator 5.006 draws X values through the thread's context, not the
    // model's (tests/rtl_units/cqe_writer/cqe_harness.cpp says why).
    Verilated::threadContextp(ctx_.get());
    dut_.reset(new Vrnic_ack_timer(ctx_.get()));
    dut_->clk = 0;
    dut_->eval();
    reset();
}

TmrHarness::~TmrHarness() {
    Verilated::threadContextp(ctx_.get());
    dut_->final();
    dut_.reset();
    // Not set back to none: sched_harness.cpp says why.
}

TmrIn TmrHarness::quiet(uint64_t now) {
    TmrIn in;
    in.now = now;
    in.arm_qp = rng_.range(0, kNumQp - 1);
    in.arm_on = rng_.percent(50);
    in.arm_at = rng_.next();
    in.kick_qp = rng_.range(0, kNumQp - 1);
    in.clear_qp = rng_.range(0, kNumQp - 1);
    in.take_qp = rng_.range(0, kNumQp - 1);
    return in;
}

void TmrHarness::drive(const TmrIn &in, bool rst_n) {
    Vrnic_ack_timer &d = *dut_;
    d.rst_n = rst_n;
    d.now = in.now;
    d.arm_valid = in.arm;
    d.arm_qp = in.arm_qp % kNumQp;
    d.arm_on = in.arm_on;
    d.arm_at = in.arm_at;
    d.kick_valid = in.kick;
    d.kick_qp = in.kick_qp % kNumQp;
    d.clear_valid = in.clear;
    d.clear_qp = in.clear_qp % kNumQp;
    d.take_valid = in.take;
    d.take_qp = in.take_qp % kNumQp;
}

TmrOut TmrHarness::out() const {
    const Vrnic_ack_timer &d = *dut_;
    TmrOut o;
    o.due = d.due;
    o.wake_valid = d.wake_valid;
    o.wake_at = d.wake_at;
    o.idle = d.idle;
    return o;
}

void TmrHarness::edge() {
    Vrnic_ack_timer &d = *dut_;
    d.clk = 0;
    d.eval();
    ctx_->timeInc(1);
    d.clk = 1;
    d.eval();
    ctx_->timeInc(1);
    d.clk = 0;
    ++stats_.cycles;
}

void TmrHarness::reset() {
    Verilated::threadContextp(ctx_.get());
    for (int i = 0; i < 2; i++) {
        // Everything valid at random: rst_n must win.
        TmrIn junk = quiet(++now_);
        junk.arm = rng_.percent(70);
        junk.kick = rng_.percent(70);
        junk.clear = rng_.percent(70);
        junk.take = rng_.percent(70);
        drive(junk, false);
        edge();
    }
    model_.reset();
    for (uint64_t &r : reached_) r = kNever;
    events_ = TmrEvents{};
    ++stats_.resets;
    check(quiet(now_), "after reset");
}

void TmrHarness::check(const TmrIn &in, const char *when) {
    const TmrOut got = out();
    const int before = rnic_check_failures();
    uint64_t compared = 4;
    rnic_check_record(got.due == model_.due_mask());
    rnic_check_record(got.wake_valid == model_.wake_valid());
    rnic_check_record(!model_.wake_valid() || got.wake_at == model_.wake_at());
    rnic_check_record(got.idle == !model_.scanning());
    // The header's promise, whatever the model's scan did: while no scan
    // runs, every armed deadline is at or after wake_at.
    bool covered = true;
    if (got.idle)
        for (unsigned q = 0; q < kNumQp; q++)
            if (model_.armed(q)) {
                ++compared;
                ++stats_.wake_checks;
                const bool ok = got.wake_valid && got.wake_at <= model_.deadline(q);
                rnic_check_record(ok);
                covered = covered && ok;
            }
    stats_.compared += compared;
    if (rnic_check_failures() != before && ++reports_ <= kMaxReports) {
        describe(in, got, when);
        if (!covered)
            std::fprintf(stderr, "  an armed deadline before wake_at while idle\n");
    }
}

void TmrHarness::describe(const TmrIn &in, const TmrOut &got, const char *when) {
    std::fprintf(stderr,
                 "[ack_timer cycle %llu %s, seed 0x%llx (RTL_UNIT_SEED=0x%llx replays it)]\n"
                 "  in: now %llu; arm %d qp %u on %d at %llu; kick %d qp %u; clear %d qp %u; take %d qp %u\n"
                 "  unit:  due 0x%04x wake %d at %llu idle %d\n"
                 "  model: due 0x%04x wake %d at %llu scanning %d (next read qp %u)\n",
                 ull(stats_.cycles), when, ull(seed_), ull(seed_), ull(in.now), in.arm, in.arm_qp % kNumQp,
                 in.arm_on, ull(in.arm_at), in.kick, in.kick_qp % kNumQp, in.clear, in.clear_qp % kNumQp, in.take,
                 in.take_qp % kNumQp, got.due, got.wake_valid, ull(got.wake_at), got.idle, model_.due_mask(),
                 model_.wake_valid(), ull(model_.wake_at()), model_.scanning(), model_.scan_next());
    for (unsigned q = 0; q < kNumQp; q++)
        if (model_.armed(q))
            std::fprintf(stderr, "  model qp %2u armed for %llu%s\n", q, ull(model_.deadline(q)),
                         model_.deadline(q) <= in.now ? " (passed)" : "");
}

// Before the edge: the inputs against the state they meet.
void TmrHarness::tally(const TmrIn &in) {
    TmrStats &s = stats_;
    if (in.arm)
        ++(in.arm_on ? s.arms : s.stops);
    s.kicks += in.kick;
    s.clears += in.clear;
    if (in.take) {
        ++s.takes;
        s.takes_due += model_.due(in.take_qp);
    }
    if (in.now > now_ + 1) {
        if (model_.scanning()) {
            ++s.fast_scan_steps;
        } else {
            ++s.jumps;
            s.jumps_to_wake += model_.wake_valid() && in.now == model_.wake_at();
        }
    }
}

// After the edge: what it did.
void TmrHarness::tally(const TmrIn &in, const TmrEvents &ev, bool was_valid, uint64_t was_at) {
    TmrStats &s = stats_;
    s.scans += ev.started;
    if (ev.started)
        scan_marked_ = false;
    s.expiries += ev.expired;
    scan_marked_ = scan_marked_ || ev.expired;
    s.expiries_taken += ev.expired && in.take && in.take_qp % kNumQp == ev.read_qp;
    s.rewritten += ev.rewritten;
    s.rewritten_passed += ev.rewritten_passed;
    s.cleared_read += ev.cleared_read;
    s.arms_to_scan += ev.arm_to_scan;
    s.lowered += ev.lowered;
    s.published_none += ev.published_none;
    s.published_later += ev.ended && !scan_marked_ && was_valid && model_.wake_valid() && model_.wake_at() > was_at;
}

TmrOut TmrHarness::cycle(const TmrIn &in) {
    if (in.now < now_)
        bench_error("time_now going back");
    Verilated::threadContextp(ctx_.get());
    drive(in, true);
    dut_->clk = 0;
    dut_->eval();
    check(in, "before the edge");
    tally(in);

    // The cycle in which each armed deadline is first reached.
    for (unsigned q = 0; q < kNumQp; q++)
        if (model_.armed(q) && in.now >= model_.deadline(q) && reached_[q] == kNever)
            reached_[q] = stats_.cycles;

    const bool was_valid = model_.wake_valid();
    const uint64_t was_at = model_.wake_at();
    events_ = model_.edge(in);
    tally(in, events_, was_valid, was_at);
    if (events_.expired) {
        const uint64_t edges = stats_.cycles - reached_[events_.read_qp] + 1;
        stats_.latency_max = edges > stats_.latency_max ? edges : stats_.latency_max;
        ++stats_.latency_hist[edges <= kLatencyBound ? edges : kLatencyBound + 1];
        if (!rnic_check_record(edges <= kLatencyBound) && ++reports_ <= kMaxReports)
            std::fprintf(stderr,
                         "[ack_timer cycle %llu, seed 0x%llx] qp %u marked %llu edges after its deadline was "
                         "reached (at most %llu)\n",
                         ull(stats_.cycles), ull(seed_), events_.read_qp, ull(edges), ull(kLatencyBound));
    }
    edge();
    now_ = in.now;
    // A deadline re-armed, stopped, cleared or found starts over.
    for (unsigned q = 0; q < kNumQp; q++) {
        const bool written = (in.arm && in.arm_qp % kNumQp == q) || (in.clear && in.clear_qp % kNumQp == q);
        if (written || !model_.armed(q))
            reached_[q] = kNever;
    }
    // The same outputs again after the edge, the inputs still this cycle's.
    check(in, "after the edge");
    return out();
}
