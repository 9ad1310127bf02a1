#include "sched_harness.h"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

#include "rnic_check.h"

namespace {
constexpr unsigned kMaxReports = 10;   // failing cycles described in full per harness
constexpr uint32_t kAllQps = kNumQp == 32 ? ~0u : (1u << kNumQp) - 1u;

[[noreturn]] void bench_error(const char *what) {
    std::fprintf(stderr, "sq_scheduler bench error: %s\n", what);
    std::exit(2);
}

// The rows' widths typed in sched_harness.h and pkg_struct.h, checked
// against the ports at compile time.
static_assert(wide_words<decltype(Vrnic_sq_scheduler::look_cfg)> == words_of(kLooks * kCfgBits),
              "look_cfg is LOOKS rows of kCfgBits: sched_harness.h's picture of sched_cfg_t is out of date");
static_assert(wide_words<decltype(Vrnic_sq_scheduler::look_xs)> == words_of(kLooks * kSxBits),
              "look_xs is LOOKS rows of kSxBits: pkg_struct.h's picture of sched_xs_t is out of date");
}  // namespace

CfgRow cfg_row(const QpCtx &q) { return {q.state & 3u, q.sq_pi, q.rq_pi}; }

XsRow xs_row(const QpCtx &q) {
    return {q.sq_ci,   q.done,     q.rq_ci,      q.hold_done, q.fenced,
            q.bind_wait, q.rd_hold, q.rnr_wait, q.paused,    q.op[q.done % kMaxRd]};
}

bool same_row(const QpCtx &a, const QpCtx &b) { return cfg_row(a) == cfg_row(b) && xs_row(a) == xs_row(b); }

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
    // What the rows hold across a reset: in RESET, the rest whatever it was
    // (the contexts are RAMs; only the state is reset).
    SchedIn junk;
    for (QpCtx &q : junk.qp) {
        q.state = RNIC_QP_STATE_RESET;
        q.fenced = rng_.percent(50);
        q.bind_wait = rng_.percent(50);
        q.rd_hold = rng_.percent(50);
        q.rnr_wait = rng_.percent(50);
        q.paused = rng_.percent(50);
        q.hold_done = static_cast<uint16_t>(rng_.u32());
        q.sq_pi = static_cast<uint16_t>(rng_.u32());
        q.sq_ci = static_cast<uint16_t>(rng_.u32());
        q.done = static_cast<uint16_t>(rng_.u32());
        q.rq_pi = static_cast<uint16_t>(rng_.u32());
        q.rq_ci = static_cast<uint16_t>(rng_.u32());
        q.flags = rng_.byte();
        for (uint8_t &o : q.op) o = rng_.percent(50) ? RNIC_OP_BIND : rng_.byte();
    }
    for (int i = 0; i < 2; i++) {
        Touch t;
        for (int &q : t) q = static_cast<int>(rng_.range(0, kNumQp - 1));
        drive(junk, rng_.percent(50), t);   // advance during reset is ignored
        dut_->rst_n = 0;
        edge(junk, true);
    }
    now_ = junk;
    dut_->rst_n = 1;
    drive(now_, false, touched_);
    dut_->eval();
    model_.reset();
    for (unsigned &p : passed_) p = 0;
    for (unsigned &u : unswept_) u = 0;   // the sweep starts again (at 0)
    ++stats_.resets;
}

unsigned SchedHarness::look(unsigned l) const { return (dut_->look_qp >> (kQw * l)) & (kNumQp - 1); }

void SchedHarness::answer_looks(const SchedIn &ctx) {
    Vrnic_sq_scheduler &d = *dut_;
    for (std::size_t i = 0; i < wide_words<decltype(d.look_cfg)>; i++) d.look_cfg[i] = 0;
    for (std::size_t i = 0; i < wide_words<decltype(d.look_xs)>; i++) d.look_xs[i] = 0;
    for (unsigned l = 0; l < kLooks; l++) {
        const QpCtx &q = ctx.qp[look(l)];
        // Rows end to end, five of each (34 and 77 bits): members straddle words.
        put_struct(d.look_cfg, kCfgBits * l, kCfgDesc, cfg_row(q));
        put_struct(d.look_xs, kSxBits * l, kSxDesc, xs_row(q));
    }
}

void SchedHarness::drive(const SchedIn &in, bool advance, const Touch &touch) {
    Vrnic_sq_scheduler &d = *dut_;
    d.mutant = in.mutant & 0x1Fu;
    d.advance = advance;
    uint32_t t = 0, retry_due = 0, bit = 1;
    for (unsigned s = 0; s < kTouch; s++) t |= static_cast<uint32_t>(touch[s]) << (kQw * s);
    d.touch_qp = static_cast<uint16_t>(t);
    touched_ = touch;
    for (const QpCtx &q : in.qp) {
        retry_due |= q.retry_due ? bit : 0u;
        bit <<= 1;
    }
    d.retry_due = static_cast<uint16_t>(retry_due);
    // cur's READ limit: its slots, indices and flags, straight from its context.
    const QpCtx &c = in.qp[in.cur % kNumQp];
    uint64_t ops = 0;
    for (unsigned s = 0; s < kMaxRd; s++) ops |= static_cast<uint64_t>(c.op[s]) << (8 * s);
    d.cur_ops = ops;
    d.cur_sq_ci = c.sq_ci;
    d.cur_done = c.done;
    d.cur_flags = c.flags;
    answer_looks(in);
}

void SchedHarness::edge(const SchedIn &next, bool in_reset) {
    Vrnic_sq_scheduler &d = *dut_;
    d.clk = 0;
    d.eval();
    ctx_->timeInc(1);
    d.clk = 1;
    d.eval();
    ctx_->timeInc(1);
    d.clk = 0;
    ++stats_.cycles;
    if (!in_reset) {
        // Looks 0..3 read the QPs touch_qp named in the cycle just ended,
        // slot by slot (the port's contract); look 4 is the sweep.
        for (unsigned t = 0; t < kTouch; t++) CHECK_EQ(look(t), static_cast<unsigned>(touched_[t]));
        const unsigned s = look(kTouch);
        ++swept_[s];
        for (unsigned q = 0; q < kNumQp; q++) {
            unswept_[q] = q == s ? 0 : unswept_[q] + 1;
            if (unswept_[q] > max_unswept_)
                max_unswept_ = unswept_[q];
        }
    }
    // The rows as they are after the edge, for the looks just made.
    now_ = next;
    drive(next, false, touched_);
    d.eval();
}

bool SchedHarness::same(const SchedOut &got, const SchedOut &want) {
    return got.pick_any == want.pick_any && (!want.pick_any || got.pick_q == want.pick_q) &&
           got.bind_any == want.bind_any && (!want.bind_any || got.bind_q == want.bind_q) &&
           got.retry_any == want.retry_any && (!want.retry_any || got.retry_q == want.retry_q) &&
           got.flush_any == want.flush_any && (!want.flush_any || got.flush_q == want.flush_q) &&
           got.rd_at_limit == want.rd_at_limit;
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
    if (tolerate_) {   // the test checks what it expects of stale verdicts
        ++stats_.stale_checks;
        stats_.stale_mismatches += !same(got, want);
        return got;
    }
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
                     "[sq_scheduler cycle %llu (test cycle %llu) %s, seed 0x%llx] pointer %u, mutant %u, cur %u (%u "
                     "READs in flight, limit %u); looks %u %u %u %u sweep %u, touching %d %d %d %d; unit: pick %u/%u "
                     "bind %u/%u retry %u/%u flush %u/%u at_limit %u; model: pick %u/%u bind %u/%u retry %u/%u flush "
                     "%u/%u at_limit %u\n",
                     static_cast<unsigned long long>(stats_.cycles), static_cast<unsigned long long>(stats_.steps),
                     when, static_cast<unsigned long long>(seed_), model_.rr(), in.mutant, in.cur,
                     SchedModel::reads_in_flight(in.qp[in.cur % kNumQp]),
                     SchedModel::rd_limit(in.qp[in.cur % kNumQp].flags), look(0), look(1), look(2), look(3),
                     look(kTouch), touched_[0], touched_[1], touched_[2], touched_[3], got.pick_any, got.pick_q,
                     got.bind_any, got.bind_q, got.retry_any, got.retry_q, got.flush_any, got.flush_q,
                     got.rd_at_limit, want.pick_any, want.pick_q, want.bind_any, want.bind_q, want.retry_any,
                     want.retry_q, want.flush_any, want.flush_q, want.rd_at_limit);
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

void SchedHarness::tolerate_stale(bool on) {
    Verilated::threadContextp(ctx_.get());
    if (on == tolerate_)
        return;
    tolerate_ = on;
    if (on) {
        // A failed assertion ($error) counts an error and stops the run once
        // the count reaches the limit (Verilator's vl_stop_maybe): raised,
        // the stale verdicts' a_kept is counted.
        error_limit_ = ctx_->errorLimit();
        ctx_->errorLimit(std::numeric_limits<int>::max());
    } else {
        ctx_->errorLimit(ctx_->errorCount() + error_limit_);
    }
}

int SchedHarness::assert_errors() const { return ctx_->errorCount(); }

SchedOut SchedHarness::step(const SchedIn &now, const Touch &touch, const SchedIn &next, uint32_t avoid) {
    Verilated::threadContextp(ctx_.get());
    uint32_t changed = 0, named = 0;
    for (unsigned q = 0; q < kNumQp; q++) {
        if (!same_row(now.qp[q], now_.qp[q]))
            bench_error("step(): a row differs from the unit's contexts without an edge");
        changed |= (same_row(now.qp[q], next.qp[q]) ? 0u : 1u) << q;
    }
    for (int t : touch) {
        if (t >= static_cast<int>(kNumQp) || t < kFill)
            bench_error("step(): a touch outside 0..NUM_QP-1");
        if (t >= 0)
            named |= 1u << t;
    }
    const uint32_t unnamed = changed & ~named;
    if (unnamed && !tolerate_)
        bench_error("step(): a row changes at an edge touch_qp does not name (tolerate_stale() is off)");
    const uint32_t barred = avoid | unnamed;
    if ((barred & kAllQps) == kAllQps)
        bench_error("step(): no QP left to fill a touch slot with");
    Touch t = touch;
    for (unsigned slot = 0; slot < kTouch; slot++) {
        int &q = t[slot];
        if (q == kFill) {
            do {
                q = static_cast<int>(rng_.range(0, kNumQp - 1));
            } while ((barred >> q) & 1);
        }
        ++((changed >> q) & 1 ? stats_.touches_changed[slot] : stats_.touches_spare);
    }
    if (now.advance && !model_.eval(now).pick_any)
        bench_error("advance without a pick");
    drive(now, now.advance, t);
    dut_->clk = 0;
    dut_->eval();
    const SchedOut got = read_and_check(now, "before the edge");
    model_.edge(now);
    edge(next, false);
    after_ = read_and_check(next, "after the edge");
    return got;
}

// The rows that differ from the unit's contexts, at most TOUCH a cycle,
// each named in touch_qp at a random slot of the cycle whose edge applies
// it; the other slots random. The direct inputs (mutant, cur) are the
// test's from the first staging cycle on: they may change in any cycle.
void SchedHarness::stage(const SchedIn &in) {
    unsigned list[kNumQp], n = 0;
    for (unsigned q = 0; q < kNumQp; q++)
        if (!same_row(now_.qp[q], in.qp[q]))
            list[n++] = q;
    for (unsigned j = n; j > 1; j--) std::swap(list[j - 1], list[rng_.range(0, j - 1)]);
    stats_.spread += n > kTouch;
    SchedIn from = now_;
    from.mutant = in.mutant;
    from.cur = in.cur;
    from.advance = false;   // the pointer moves only in the test's own cycle
    for (unsigned done = 0; done < n;) {
        SchedIn to = from;
        Touch touch;
        touch.fill(kFill);
        unsigned slots[kTouch] = {0, 1, 2, 3};
        for (unsigned j = kTouch; j > 1; j--) std::swap(slots[j - 1], slots[rng_.range(0, j - 1)]);
        for (unsigned k = 0; k < kTouch && done < n; k++, done++) {
            const unsigned q = list[done];
            to.qp[q] = in.qp[q];   // the whole context: its row and what is not in it
            touch[slots[k]] = static_cast<int>(q);
        }
        step(from, touch, to);
        ++stats_.staged;
        from = to;
    }
}

SchedOut SchedHarness::peek(const SchedIn &in) {
    Verilated::threadContextp(ctx_.get());
    stage(in);
    drive(in, false, touched_);
    dut_->clk = 0;
    dut_->eval();
    return read_and_check(in, "peek");
}

SchedOut SchedHarness::cycle(const SchedIn &in) {
    Verilated::threadContextp(ctx_.get());
    stage(in);
    const SchedOut want = model_.eval(in);
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
    if (in.advance && want.pick_any) {
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
    Touch fill;
    fill.fill(kFill);
    const SchedOut got = step(in, fill, in);   // nothing changes at this edge: every slot a spare read
    ++stats_.steps;
    return got;
}
