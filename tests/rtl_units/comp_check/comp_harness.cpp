#include "comp_harness.h"

#include <cstdio>

#include "rnic_check.h"
#include "rnic_names.h"

namespace {
constexpr unsigned kMaxReports = 10;   // failing evaluations described in full per harness

const char *or_q(const char *s) { return s ? s : "?"; }
}  // namespace

void describe(const CompIn &in, char *buf, unsigned size) {
    std::snprintf(buf, size,
                  "is_ack %d is_read_resp %d syndrome 0x%02x (kind %u %s, value %u) psn 0x%06x in_flight %d "
                  "oldest_op %u (%s) first 0x%06x last 0x%06x got %u (0x%x)",
                  in.is_ack, in.is_read_resp, in.syndrome, aeth_kind(in.syndrome),
                  or_q(rnic_aeth_kind_name(aeth_kind(in.syndrome))), aeth_value(in.syndrome), in.psn & kPsnMask,
                  in.in_flight, in.oldest_op, or_q(rnic_op_name(in.oldest_op)), in.oldest_first & kPsnMask,
                  in.oldest_last & kPsnMask, in.oldest_got, in.oldest_got);
}

CompHarness::CompHarness(uint64_t seed) : seed_(seed), rng_(seed ^ 0xC0C4Eull), ctx_(unit_context(seed)) {
    // Verilator 5.006 draws X values through the thread's context, not the
    // model's (tests/rtl_units/cqe_writer/cqe_harness.cpp says why).
    Verilated::threadContextp(ctx_.get());
    dut_.reset(new Vrnic_comp_check(ctx_.get()));
}

CompHarness::~CompHarness() {
    Verilated::threadContextp(ctx_.get());
    dut_->final();
    dut_.reset();
    // Not set back to none: sched_harness.cpp says why.
}

CompOut CompHarness::eval(const CompIn &in) {
    Vrnic_comp_check &d = *dut_;
    d.is_ack = in.is_ack;
    d.is_read_resp = in.is_read_resp;
    d.syndrome = in.syndrome;
    d.psn = in.psn & kPsnMask;
    d.in_flight = in.in_flight;
    d.oldest_op = in.oldest_op;
    d.oldest_first = in.oldest_first & kPsnMask;
    d.oldest_last = in.oldest_last & kPsnMask;
    d.oldest_got = in.oldest_got;
    d.eval();
    CompOut o;
    o.accept = d.accept;
    o.ack_status = d.ack_status;
    return o;
}

CompOut CompHarness::check(const CompIn &in) {
    const CompOut o = eval(in);
    const CompExpect e = comp_model(in);
    stats_.evals++;
    stats_.why[static_cast<int>(e.why)]++;

    bool ok = true;
    stats_.compared++;
    ok &= rnic_check_record(o.accept == e.accept) != 0;
    if (e.accept && e.status_rule != StatusRule::None) {
        stats_.compared++;
        if (e.status_rule == StatusRule::Exact) {
            stats_.status_exact++;
            ok &= rnic_check_record(o.ack_status == e.status) != 0;
        } else {
            stats_.status_not_success++;
            stats_.other_status[o.ack_status]++;
            ok &= rnic_check_record(o.ack_status != RNIC_CQE_STATUS_SUCCESS) != 0;
        }
    }
    if (!ok && reports_ < kMaxReports) {
        reports_++;
        char buf[400];
        describe(in, buf, sizeof buf);
        std::fprintf(stderr, "comp_check mismatch (seed 0x%llx): %s\n", static_cast<unsigned long long>(seed_), buf);
        std::fprintf(stderr, "  model: %s, %s", e.accept ? "accept" : "drop", why_name(e.why));
        if (e.accept && e.status_rule == StatusRule::Exact)
            std::fprintf(stderr, ", ack_status %u (%s)", e.status, or_q(rnic_cqe_status_name(e.status)));
        else if (e.accept && e.status_rule == StatusRule::NotSuccess)
            std::fprintf(stderr, ", ack_status not SUCCESS");
        std::fprintf(stderr, "; unit: %s, ack_status %u (%s)\n", o.accept ? "accept" : "drop", o.ack_status,
                     or_q(rnic_cqe_status_name(o.ack_status)));
    }
    return o;
}
