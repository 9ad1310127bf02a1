#include "resp_harness.h"

#include <cstdio>

#include "rnic_check.h"
#include "rnic_names.h"

namespace {
constexpr unsigned kMaxReports = 10;   // failing evaluations described in full per harness

const char *or_q(const char *name) { return name ? name : "?"; }
}  // namespace

RespHarness::RespHarness(uint64_t seed) : seed_(seed), rng_(seed ^ 0x4E5C4Eull), ctx_(unit_context(seed)) {
    // Verilator 5.006 draws X values through the thread's context, not the
    // model's (tests/rtl_units/cqe_writer/cqe_harness.cpp says why).
    Verilated::threadContextp(ctx_.get());
    dut_.reset(new Vrnic_resp_check(ctx_.get()));
    dut_->eval();
}

RespHarness::~RespHarness() {
    Verilated::threadContextp(ctx_.get());
    dut_->final();
    dut_.reset();
    // Not set back to none: sched_harness.cpp says why.
}

void RespHarness::drive(const RespIn &in) {
    Vrnic_resp_check &d = *dut_;
    d.is_request = in.is_request;
    d.is_write = in.is_write;
    d.is_read = in.is_read;
    d.is_send = in.is_send;
    d.mutant = RNIC_MUTANT_NONE;   // the model covers the unmutated unit only
    d.first = in.first;
    d.last = in.last;
    d.ack_req = in.ack_req;
    d.psn = in.psn & kPsnMask;
    d.expected_psn = in.expected_psn & kPsnMask;
    d.nak_sent = in.nak_sent;
    d.reth_len = in.reth_len;
    d.payload_len = in.payload_len;
    d.log_mtu = in.log_mtu & 15u;
    d.allow_write = in.allow_write;
    d.allow_read = in.allow_read;
    d.write_left = in.write_left;
    d.send_open = in.send_open;
    d.recv_posted = in.recv_posted;
    d.recv_held = in.recv_held;
}

RespOut RespHarness::read() const {
    RespOut o;
    o.act = dut_->act;
    o.duplicate = dut_->duplicate;
    o.syndrome = dut_->nak_syndrome;
    o.status = dut_->nak_status;
    return o;
}

RespOut RespHarness::eval(const RespIn &in) {
    Verilated::threadContextp(ctx_.get());
    drive(in);
    dut_->eval();
    const RespOut got = read();

    RespWhy why;
    const RespOut want = resp_model(in, &why);
    ++stats_.evals;
    ++stats_.why[static_cast<unsigned>(why)];
    bool ok = rnic_check_record(got.act == want.act);
    ok &= rnic_check_record(got.duplicate == want.duplicate);
    stats_.compared += 2;
    if (want.duplicate && in.is_request && in.is_read)
        ++stats_.dup_read;
    if (want.act == RNIC_RESP_ACT_NAK) {
        ok &= rnic_check_record(got.syndrome == want.syndrome);
        ok &= rnic_check_record(got.status == want.status);
        stats_.compared += 2;
    }
    if (!ok && ++reports_ <= kMaxReports)
        describe(in, got, want, why);
    return got;
}

void RespHarness::describe(const RespIn &in, const RespOut &got, const RespOut &want, RespWhy why) {
    std::fprintf(stderr,
                 "[resp_check evaluation %llu, seed 0x%llx (RTL_UNIT_SEED=0x%llx replays it)]\n"
                 "  one-bit inputs 0x%04x (resp_model.h's kBit*)\n"
                 "  packet: is_request %d is_write %d is_read %d is_send %d first %d last %d ack_req %d psn 0x%06x "
                 "reth_len 0x%08x payload_len 0x%04x\n"
                 "  QP: log_mtu %u (path MTU 0x%x) expected_psn 0x%06x nak_sent %d allow_write %d allow_read %d "
                 "write_left 0x%08x send_open %d recv_posted %d recv_held %d\n"
                 "  rule: %s\n"
                 "  unit:  act %s duplicate %d syndrome %s status %s\n"
                 "  model: act %s duplicate %d",
                 static_cast<unsigned long long>(stats_.evals), static_cast<unsigned long long>(seed_),
                 static_cast<unsigned long long>(seed_), resp_bits(in), in.is_request, in.is_write, in.is_read, in.is_send,
                 in.first, in.last, in.ack_req, in.psn & kPsnMask, in.reth_len, in.payload_len, in.log_mtu & 15u,
                 mtu_bytes(in.log_mtu), in.expected_psn & kPsnMask, in.nak_sent, in.allow_write, in.allow_read,
                 in.write_left, in.send_open, in.recv_posted, in.recv_held, resp_why_name(why),
                 or_q(rnic_resp_act_name(got.act)), got.duplicate, or_q(rnic_aeth_name(got.syndrome)),
                 or_q(rnic_cqe_status_name(got.status)), or_q(rnic_resp_act_name(want.act)), want.duplicate);
    if (want.act == RNIC_RESP_ACT_NAK)
        std::fprintf(stderr, " syndrome %s status %s", or_q(rnic_aeth_name(want.syndrome)),
                     or_q(rnic_cqe_status_name(want.status)));
    std::fprintf(stderr, "\n");
}
