#include "bind_harness.h"

#include "rnic_hw.h"

namespace {
constexpr unsigned kLimit = 1000;   // cycles a BIND may take before the run gives up on its done
}

BindHarness::BindHarness(uint32_t seed, unsigned mutant)
    : seed_(seed), rng_(seed), mutant_(mutant), ctx_(new VerilatedContext) {
    // --x-initial unique: the unit's state starts random, from the seed.
    ctx_->randReset(2);
    ctx_->randSeed(static_cast<int>(seed & 0x7FFFFFFF));
    // Verilator 5.006 draws X values (--x-assign / --x-initial unique) and
    // erases a model's scopes through the thread's context
    // (Verilated::threadContextp(): the context or model made last), not
    // the model's own (verilator/verilator#8265). With two harnesses alive,
    // the younger one's death leaves it pointing at freed memory, and the
    // older one would draw from it and, dying, lock a freed mutex. So it
    // points at ours whenever our model is built, reset or clocked, and at
    // none once our model is gone.
    Verilated::threadContextp(ctx_.get());
    dut_.reset(new Vrnic_bind_unit(ctx_.get()));
    dut_->clk = 0;
    dut_->eval();
    reset();
}

BindHarness::~BindHarness() {
    Verilated::threadContextp(ctx_.get());
    dut_->final();
    dut_.reset();
    Verilated::threadContextp(nullptr);
}

unsigned BindHarness::junk_verdict() {
    return rng_() & 7u;
}

void BindHarness::reset() {
    Verilated::threadContextp(ctx_.get());
    Vrnic_bind_unit &d = *dut_;
    d.rst_n = 0;
    d.start = 0;
    d.chk_rsp_valid = 0;
    d.bind_done = 0;
    d.bind_ok = 0;
    for (int i = 0; i < 2; i++) {
        d.clk = 0;
        d.eval();
        d.clk = 1;
        d.eval();
        ++cycles_;
    }
    d.clk = 0;
    checker_.reset();
    chk_ = Pending{};
    bind_answer_ = bind_answer_ok_ = false;
}

BindPorts BindHarness::cycle(bool start, const BindOp *op, const TableCfg &cfg, BindResult *res) {
    Verilated::threadContextp(ctx_.get());   // another harness may have run since (the constructor says why)
    Vrnic_bind_unit &d = *dut_;
    d.rst_n = 1;
    d.mutant = mutant_ & 0x1Fu;
    d.start = start;
    // The engine holds the BIND's fields from start to done; outside a BIND
    // they are whatever its WQE register holds: junk.
    BindOp j;
    if (!op) {
        j.win_key = rng_();
        j.new_key = static_cast<uint8_t>(rng_());
        j.new_rights = rng_() & 0xFu;
        j.mr_lkey = rng_();
        j.mr_addr = static_cast<uint64_t>(rng_()) << 32 | rng_();
        j.mr_len = rng_() % 4 ? rng_() : 0;
        j.pz = static_cast<uint16_t>(rng_());
        op = &j;
    }
    d.win_key = op->win_key;
    d.new_key = op->new_key;
    d.new_rights = op->new_rights & 0xFu;
    d.mr_lkey = op->mr_lkey;
    d.mr_addr = op->mr_addr;
    d.mr_len = op->mr_len;
    d.pz = op->pz;
    const bool rsp = chk_.valid && chk_.due == cycles_;
    d.chk_rsp_valid = rsp;
    d.chk_verdict = rsp ? chk_.verdict : junk_verdict();
    d.bind_done = bind_answer_;
    d.bind_ok = bind_answer_ && bind_answer_ok_;
    d.clk = 0;
    d.eval();

    BindPorts p;
    p.start = start;
    p.op = *op;
    p.done = d.done;
    p.ok = d.ok;
    p.chk_valid = d.chk_valid;
    p.chk_mode = d.chk_mode;
    p.chk_key = d.chk_key;
    p.chk_rights = d.chk_rights;
    p.chk_addr = d.chk_addr;
    p.chk_len = d.chk_len;
    p.chk_rsp_valid = rsp;
    p.chk_verdict = d.chk_verdict;
    p.bind_valid = d.bind_valid;
    p.bind_index = d.bind_index;
    p.bind_key = d.bind_key;
    p.bind_pz = d.bind_pz;
    p.bind_base = d.bind_base;
    p.bind_len = d.bind_len;
    p.bind_rights = d.bind_rights;
    p.bind_state = d.bind_state;
    p.bind_link = d.bind_link;
    p.bind_done = d.bind_done;
    p.bind_ok = d.bind_ok;
    checker_.observe(cycles_, p);

    // The table takes this cycle's requests.
    if (rsp)
        chk_.valid = false;
    if (p.chk_valid) {
        if (res)
            res->checks.push_back(CheckReq{cycles_, p.chk_mode, p.chk_key, p.chk_rights, p.chk_addr, p.chk_len});
        const unsigned span = cfg.lat_max > cfg.lat_min ? cfg.lat_max - cfg.lat_min + 1 : 1;
        chk_.valid = true;
        chk_.due = cycles_ + cfg.lat_min + rng_() % span;
        chk_.verdict = p.chk_mode == RNIC_PT_MODE_WINDOW  ? cfg.win_verdict
                       : p.chk_mode == RNIC_PT_MODE_LOCAL ? cfg.lmr_verdict
                                                          : RNIC_PT_VERDICT_TYPE;   // a mode no BIND uses
    }
    bind_answer_ = false;
    if (p.bind_valid) {
        if (res)
            res->commits.push_back(Commit{cycles_, p.bind_index, p.bind_key, p.bind_pz, p.bind_base, p.bind_len,
                                          p.bind_rights, p.bind_state, p.bind_link});
        if (++attempts_ >= take_on_) {
            bind_answer_ = true;
            bind_answer_ok_ = cfg.commit_ok;
            if (res)
                res->taken = true;
        }
    }
    if (res && p.done && !res->done) {
        res->done = true;
        res->ok = p.ok;
        res->done_cycle = cycles_;
    }
    d.clk = 1;
    d.eval();
    ++cycles_;
    return p;
}

BindResult BindHarness::run(const BindOp &op, const TableCfg &cfg, unsigned tail, unsigned reset_at) {
    BindResult res;
    res.start = cycles_;
    attempts_ = 0;
    const unsigned span = cfg.take_max > cfg.take_min ? cfg.take_max - cfg.take_min + 1 : 1;
    take_on_ = cfg.take_min + rng_() % span;
    cycle(true, &op, cfg, &res);
    for (unsigned n = 1; !res.done; n++) {
        if (reset_at && n == reset_at) {
            reset();
            return res;
        }
        if (n > kLimit) {
            checker_.never_done(cycles_);
            break;
        }
        cycle(false, &op, cfg, &res);
    }
    for (unsigned i = 0; i < tail; i++) cycle(false, nullptr, cfg, &res);
    return res;
}

void BindHarness::idle(unsigned n) {
    for (unsigned i = 0; i < n; i++) cycle(false, nullptr, TableCfg{}, nullptr);
}
