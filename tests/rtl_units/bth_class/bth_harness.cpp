#include "bth_harness.h"

#include <cstdio>

#include "rnic_check.h"
#include "rnic_names.h"

namespace {
constexpr unsigned kMaxReports = 10;   // failing evaluations described in full per harness
}  // namespace

void describe(const BthOut &o, char *buf, unsigned size) {
    std::snprintf(buf, size, "send %d write %d read_req %d read_resp %d ack %d request %d first %d last %d cont %d",
                  o.is_send, o.is_write, o.is_read_req, o.is_read_resp, o.is_ack, o.is_request, o.first, o.last,
                  o.cont);
}

BthHarness::BthHarness(uint64_t seed) : seed_(seed), rng_(seed ^ 0xB7Cull), ctx_(unit_context(seed)) {
    // Verilator 5.006 draws X values through the thread's context, not the
    // model's (tests/rtl_units/cqe_writer/cqe_harness.cpp says why).
    Verilated::threadContextp(ctx_.get());
    dut_.reset(new Vrnic_bth_class(ctx_.get()));
}

BthHarness::~BthHarness() {
    Verilated::threadContextp(ctx_.get());
    dut_->final();
    dut_.reset();
    // Not set back to none: sched_harness.cpp says why.
}

BthOut BthHarness::check(uint8_t op) {
    Vrnic_bth_class &d = *dut_;
    d.op = op;
    d.eval();
    BthOut o;
    o.is_send = d.is_send;
    o.is_write = d.is_write;
    o.is_read_req = d.is_read_req;
    o.is_read_resp = d.is_read_resp;
    o.is_ack = d.is_ack;
    o.is_request = d.is_request;
    o.first = d.first;
    o.last = d.last;
    o.cont = d.cont;

    const BthOut m = bth_model(op);
    const bool got[] = {o.is_send, o.is_write, o.is_read_req, o.is_read_resp, o.is_ack,
                        o.is_request, o.first, o.last, o.cont};
    const bool want[] = {m.is_send, m.is_write, m.is_read_req, m.is_read_resp, m.is_ack,
                         m.is_request, m.first, m.last, m.cont};
    bool ok = true;
    for (unsigned i = 0; i < sizeof got / sizeof got[0]; i++) ok &= rnic_check_record(got[i] == want[i]) != 0;
    stats_.evals++;
    stats_.compared += sizeof got / sizeof got[0];
    if (!ok && reports_ < kMaxReports) {
        reports_++;
        const RcOp *r = rc_op(op);
        const char *gen = rnic_bth_name(op);
        char gb[160], wb[160];
        describe(o, gb, sizeof gb);
        describe(m, wb, sizeof wb);
        std::fprintf(stderr,
                     "bth_class mismatch (seed 0x%llx): opcode 0x%02x (%s; rnic.toml: %s)\n  unit:  %s\n  model: %s\n",
                     static_cast<unsigned long long>(seed_), op, r ? r->name : "not an RC operation",
                     gen ? gen : "unnamed", gb, wb);
    }
    return o;
}
