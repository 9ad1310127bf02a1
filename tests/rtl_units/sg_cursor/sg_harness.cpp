#include "sg_harness.h"

#include <cstdio>
#include <cstdlib>

#include "rnic_check.h"

namespace {
constexpr unsigned kMaxReports = 10;   // failing cycles described in full per harness

[[noreturn]] void bench_error(const char *what) {
    std::fprintf(stderr, "sg_cursor bench error: %s\n", what);
    std::exit(2);
}

const char *kind_name(SgCmd::Kind k) {
    switch (k) {
    case SgCmd::Load: return "load";
    case SgCmd::Single: return "single";
    case SgCmd::Next: return "next";
    case SgCmd::Take: return "take";
    case SgCmd::None: break;
    }
    return "none";
}
}  // namespace

SgCmd SgCmd::load(unsigned n, const SgSeg *s, uint32_t pos) {
    SgCmd c;
    c.kind = Load;
    c.n = n;
    for (unsigned i = 0; i < n && i < kSge; i++) c.segs[i] = s[i];
    c.pos = pos;
    return c;
}

SgCmd SgCmd::single(uint64_t addr, uint32_t len) {
    SgCmd c;
    c.kind = Single;
    c.addr = addr;
    c.len = len;
    return c;
}

SgHarness::SgHarness(uint64_t seed) : seed_(seed), rng_(seed ^ 0x5C5C5C5Cull), ctx_(unit_context(seed)) {
    // Verilator 5.006 draws X values through the thread's context, not the
    // model's (cqe_harness.cpp says why): ours whenever our model is built,
    // reset or clocked.
    Verilated::threadContextp(ctx_.get());
    dut_.reset(new Vrnic_sg_cursor(ctx_.get()));
    dut_->clk = 0;
    dut_->eval();
    reset();
}

SgHarness::~SgHarness() {
    Verilated::threadContextp(ctx_.get());
    dut_->final();
    dut_.reset();
    // Not set back to none, as cqe_harness.cpp does: GCC 12 with UBSan
    // miscompiles that store here (its null check of the thread-local's
    // address reads stale flags and reports a null pointer). A harness
    // never outlives the test that made it, and the next VerilatedContext
    // made becomes the thread's in its constructor.
}

void SgHarness::reset() {
    Verilated::threadContextp(ctx_.get());
    Vrnic_sg_cursor &d = *dut_;
    for (int i = 0; i < 2; i++) {
        // Commands during reset are ignored: any may be high.
        SgCmd junk;
        switch (rng_.range(0, 4)) {
        case 0: junk.kind = SgCmd::Load; junk.n = rng_.range(0, kSge); break;
        case 1: junk.kind = SgCmd::Single; break;
        case 2: junk.kind = SgCmd::Next; break;
        case 3: junk.kind = SgCmd::Take; break;
        default: break;
        }
        drive(junk);
        d.rst_n = 0;
        edge();
    }
    d.rst_n = 1;
    model_.reset();
    ++stats_.resets;
    check();
}

// Every field a command does not use carries junk, so nothing may depend on it.
void SgHarness::drive(const SgCmd &c) {
    Vrnic_sg_cursor &d = *dut_;
    d.load = c.kind == SgCmd::Load;
    d.single = c.kind == SgCmd::Single;
    d.next = c.kind == SgCmd::Next;
    d.take = c.kind == SgCmd::Take;
    const bool load = c.kind == SgCmd::Load;
    d.load_n = load ? c.n : rng_.range(0, kSge);
    for (unsigned i = 0; i < kSge; i++) {
        const bool used = load && (i < c.n || c.tail);
        const uint64_t a = used ? c.segs[i].addr : rng_.next();
        const uint32_t l = used ? c.segs[i].len : rng_.u32();
        d.load_addr[2 * i] = static_cast<uint32_t>(a);
        d.load_addr[2 * i + 1] = static_cast<uint32_t>(a >> 32);
        d.load_len[i] = l;
    }
    d.load_pos = load ? c.pos : rng_.u32();
    const bool single = c.kind == SgCmd::Single;
    d.single_addr = single ? c.addr : rng_.next();
    d.single_len = single ? c.len : rng_.u32();
    d.take_n = c.kind == SgCmd::Take ? c.take_n : rng_.u32();
}

void SgHarness::edge() {
    Vrnic_sg_cursor &d = *dut_;
    d.clk = 0;
    d.eval();
    ctx_->timeInc(1);
    d.clk = 1;
    d.eval();
    ctx_->timeInc(1);
    d.clk = 0;
    ++stats_.cycles;
}

void SgHarness::check() {
    const Vrnic_sg_cursor &d = *dut_;
    CHECK_EQ(d.more, model_.more());
    CHECK_EQ(d.rem, model_.rem());
    if (model_.more()) {
        CHECK_EQ(d.seg_base, model_.seg_base());
        CHECK_EQ(d.addr, model_.addr());
    }
}

void SgHarness::context(const SgCmd &c) {
    if (++reports_ > kMaxReports)
        return;
    std::fprintf(stderr,
                 "[sg_cursor cycle %llu, seed 0x%llx] model: %u segment(s), cursor in %u at offset %u (more %d rem %u "
                 "addr 0x%llx); unit: more %u rem %u addr 0x%llx seg_base 0x%llx; command this cycle: %s\n",
                 static_cast<unsigned long long>(stats_.cycles), static_cast<unsigned long long>(seed_),
                 model_.count(), model_.index(), model_.offset(), model_.more(), model_.rem(),
                 static_cast<unsigned long long>(model_.addr()), dut_->more, dut_->rem,
                 static_cast<unsigned long long>(dut_->addr), static_cast<unsigned long long>(dut_->seg_base),
                 kind_name(c.kind));
}

void SgHarness::cycle(const SgCmd &c) {
    // The engine's side of the contract (and of the unit's assertions).
    switch (c.kind) {
    case SgCmd::Load:
        if (c.n > kSge)
            bench_error("a load of more than MAX_SGE segments");
        break;
    case SgCmd::Next:
        if (!model_.more())
            bench_error("next past the end of the list");
        break;
    case SgCmd::Take:
        if (!model_.more() || c.take_n > model_.rem())
            bench_error("take past the current segment");
        break;
    default: break;
    }
    Verilated::threadContextp(ctx_.get());
    const int failures = rnic_check_failures();
    drive(c);
    dut_->clk = 0;
    dut_->eval();
    check();
    if (rnic_check_failures() != failures)
        context(c);

    switch (c.kind) {
    case SgCmd::Load: {
        model_.load(c.n, c.segs, c.pos);
        ++stats_.loads;
        if (c.n == 0)
            ++stats_.loads_empty;
        if (!model_.more())
            ++stats_.loads_end;
        else if (model_.offset() == 0 && c.pos != 0)
            ++stats_.loads_boundary;
        for (unsigned i = 0; i < model_.index() && i < c.n; i++)
            if (c.segs[i].len == 0) {
                ++stats_.loads_zero_skipped;
                break;
            }
        break;
    }
    case SgCmd::Single:
        model_.single(c.addr, c.len);
        ++stats_.singles;
        if (c.len == 0)
            ++stats_.singles_empty;
        break;
    case SgCmd::Next:
        model_.next();
        ++stats_.nexts;
        if (!model_.more())
            ++stats_.nexts_to_end;
        else if (model_.rem() == 0)
            ++stats_.nexts_onto_empty;
        break;
    case SgCmd::Take:
        if (c.take_n == 0)
            ++stats_.takes_zero;
        else if (c.take_n == model_.rem())
            ++stats_.takes_whole;
        model_.take(c.take_n);
        ++stats_.takes;
        break;
    case SgCmd::None: ++stats_.idles; break;
    }
    edge();
    // The same outputs again after the edge, the inputs still this cycle's:
    // the new state is checked as soon as it exists, and with other junk
    // on the ports than the next cycle's check sees.
    const int after = rnic_check_failures();
    check();
    if (rnic_check_failures() != after)
        context(c);
}

void SgHarness::idle(unsigned n) {
    for (unsigned i = 0; i < n; i++) cycle(SgCmd{});
}
