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
                  "oldest_op %u (%s) first 0x%06x last 0x%06x got %u (0x%x) sq_psn 0x%06x retrying %d "
                  "acked_psn 0x%06x log_mtu %u (path MTU %u)",
                  in.is_ack, in.is_read_resp, in.syndrome, aeth_kind(in.syndrome),
                  or_q(rnic_aeth_kind_name(aeth_kind(in.syndrome))), aeth_value(in.syndrome), in.psn & kPsnMask,
                  in.in_flight, in.oldest_op, or_q(rnic_op_name(in.oldest_op)), in.oldest_first & kPsnMask,
                  in.oldest_last & kPsnMask, in.oldest_got, in.oldest_got, in.sq_psn & kPsnMask, in.retrying,
                  in.acked_psn & kPsnMask, in.log_mtu & 15u, mtu_bytes(in.log_mtu & 15u));
}

void print_disagreements(const char *prefix, const CompStats &s) {
    for (int w = 0; w < static_cast<int>(Why::Count); w++) {
        if (!s.header_answer[w] && !s.alt_answer[w])
            continue;
        std::printf("%s: RTL against its header, \"%s\": the header's answer %llu, the RTL's other %llu\n", prefix,
                    why_name(static_cast<Why>(w)), static_cast<unsigned long long>(s.header_answer[w]),
                    static_cast<unsigned long long>(s.alt_answer[w]));
    }
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
    d.mutant = RNIC_MUTANT_NONE;   // the model covers the unmutated unit only
    d.is_ack = in.is_ack;
    d.is_read_resp = in.is_read_resp;
    d.syndrome = in.syndrome;
    d.psn = in.psn & kPsnMask;
    d.in_flight = in.in_flight;
    d.oldest_op = in.oldest_op;
    d.oldest_first = in.oldest_first & kPsnMask;
    d.oldest_last = in.oldest_last & kPsnMask;
    d.oldest_got = in.oldest_got;
    d.sq_psn = in.sq_psn & kPsnMask;
    d.retrying = in.retrying;
    d.acked_psn = in.acked_psn & kPsnMask;
    d.log_mtu = in.log_mtu & 15u;
    d.eval();
    CompOut o;
    o.act = d.act;
    o.ack_status = d.ack_status;
    return o;
}

CompOut CompHarness::check(const CompIn &in) {
    const CompOut o = eval(in);
    const CompExpect e = comp_model(in);
    stats_.evals++;
    stats_.why[static_cast<int>(e.why)]++;
    if (!e.judged) {
        stats_.unjudged++;
        return o;
    }
    if (o.act < kCompActs)
        stats_.act[o.act]++;

    bool ok = true;
    stats_.compared++;
    const bool as_header = o.act == e.act, as_alt = e.has_alt && o.act == e.alt;
    ok &= rnic_check_record(as_header || as_alt) != 0;
    if (e.has_alt && as_header)
        stats_.header_answer[static_cast<int>(e.why)]++;
    else if (as_alt)
        stats_.alt_answer[static_cast<int>(e.why)]++;
    if (o.act == COMP_ACT_FAIL && (as_header || as_alt) && e.status_rule != StatusRule::None) {
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
        char buf[480];
        describe(in, buf, sizeof buf);
        std::fprintf(stderr, "comp_check mismatch (seed 0x%llx): %s\n", static_cast<unsigned long long>(seed_), buf);
        std::fprintf(stderr, "  model: %s (%s)", comp_act_name(e.act), why_name(e.why));
        if (e.has_alt)
            std::fprintf(stderr, " or the RTL's known %s", comp_act_name(e.alt));
        if (e.status_rule == StatusRule::Exact)
            std::fprintf(stderr, ", a FAIL's ack_status %u (%s)", e.status, or_q(rnic_cqe_status_name(e.status)));
        else if (e.status_rule == StatusRule::NotSuccess)
            std::fprintf(stderr, ", a FAIL's ack_status not SUCCESS");
        std::fprintf(stderr, "; unit: %s, ack_status %u (%s)\n", comp_act_name(o.act), o.ack_status,
                     or_q(rnic_cqe_status_name(o.ack_status)));
    }
    return o;
}
