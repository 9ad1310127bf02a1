// The BAR port model (sim/port_model/bar_port.*) on its own, cycle by cycle
// against a NIC played by hand: a read is presented for one cycle and
// answered in the next, at either place its owners sample (the bench with
// the clock low before the edge, the platform just after it); a write is
// presented for one cycle and never answered; a response with no read
// before it, and a read left unanswered, are reported with the words the
// rtl_core bench prints; without a report callback (the platform) they are
// not, and an unanswered read shows only in answered(). No SystemC, no RTL.
#include <string>
#include <vector>

#include "bar_port.h"
#include "rnic_check.h"

namespace {

struct Reports {
    std::vector<std::string> seen;
    BarPort port() {
        return BarPort([this](const char *what) { seen.push_back(what); });
    }
};

BarResponse response(bool valid, uint32_t rdata = 0) {
    BarResponse r;
    r.bar_rsp_valid = valid;
    r.bar_rsp_rdata = rdata;
    return r;
}

// One cycle as the bench runs it: pins driven, the NIC's response of this
// cycle sampled with the clock low, then the edge.
BarRequest bench_cycle(BarPort &bar, const BarResponse &rsp) {
    BarRequest req;
    bar.drive(req);
    bar.sample(rsp);
    bar.commit();
    return req;
}

void test_read() {
    Reports r;
    BarPort bar = r.port();
    CHECK(bar.quiet());
    bar.post(BarRequest{true, false, 0x0124, 0});
    CHECK(!bar.quiet());
    CHECK(!bar.answered());
    const BarRequest req = bench_cycle(bar, response(false));
    CHECK(req.bar_req_valid && !req.bar_req_write);
    CHECK_EQ(req.bar_req_addr, 0x0124);
    CHECK(!bar.quiet());   // its answer is due in the next cycle
    CHECK(!bar.answered());
    const BarRequest next = bench_cycle(bar, response(true, 0xCAFEF00D));
    CHECK(!next.bar_req_valid);   // presented for one cycle only...
    CHECK_EQ(next.bar_req_addr, 0x0124);   // ...the lines stay
    CHECK(bar.quiet());
    CHECK(bar.answered());
    CHECK_EQ(bar.rdata(), 0xCAFEF00Du);
    CHECK(r.seen.empty());

    // The platform: the edge first, then the response that already shows.
    bar.post(BarRequest{true, false, 0x0200, 0});
    BarRequest pins;
    bar.drive(pins);
    CHECK(pins.bar_req_valid);
    bar.commit();
    CHECK(!bar.quiet());
    bar.sample(response(true, 0x12345678));
    CHECK(bar.quiet());
    CHECK(bar.answered());
    CHECK_EQ(bar.rdata(), 0x12345678u);
    CHECK(r.seen.empty());
}

void test_write() {
    Reports r;
    BarPort bar = r.port();
    bar.post(BarRequest{true, true, 0x0040, 0xA5A5A5A5u});
    const BarRequest req = bench_cycle(bar, response(false));
    CHECK(req.bar_req_valid && req.bar_req_write);
    CHECK_EQ(req.bar_req_addr, 0x0040);
    CHECK_EQ(req.bar_req_wdata, 0xA5A5A5A5u);
    // Taken at its edge, nothing to wait for.
    CHECK(bar.quiet());
    CHECK(bar.answered());
    const BarRequest next = bench_cycle(bar, response(false));
    CHECK(!next.bar_req_valid);
    CHECK_EQ(next.bar_req_wdata, 0xA5A5A5A5u);
    CHECK(r.seen.empty());

    // A write has no response: one in the cycle after it is a violation.
    bar.post(BarRequest{true, true, 0x0044, 1});
    bench_cycle(bar, response(false));
    bench_cycle(bar, response(true));
    CHECK_EQ(r.seen.size(), 1u);
    if (!r.seen.empty())
        CHECK(r.seen[0] == "BAR response without a read request");
}

void test_violations() {
    Reports r;
    BarPort bar = r.port();
    // A response out of nowhere.
    bench_cycle(bar, response(true, 7));
    CHECK_EQ(r.seen.size(), 1u);
    if (r.seen.size() == 1)
        CHECK(r.seen[0] == "BAR response without a read request");
    CHECK(bar.quiet());

    // A read not answered in the cycle after it, then answered a cycle late:
    // both reported, and the read counts as unanswered.
    r.seen.clear();
    bar.post(BarRequest{true, false, 0x0008, 0});
    bench_cycle(bar, response(false));
    bench_cycle(bar, response(false, 0x55));
    CHECK(bar.quiet());
    CHECK(!bar.answered());
    CHECK_EQ(bar.rdata(), 0x55u);   // what the lines showed in that cycle
    bench_cycle(bar, response(true, 0x66));
    CHECK_EQ(r.seen.size(), 2u);
    if (r.seen.size() == 2) {
        CHECK(r.seen[0] == "no BAR read response one cycle after the request");
        CHECK(r.seen[1] == "BAR response without a read request");
    }
    CHECK(!bar.answered());

    // Without a callback (the platform) nothing is reported; answered() says it.
    BarPort quiet_owner;
    quiet_owner.post(BarRequest{true, false, 0x0008, 0});
    bench_cycle(quiet_owner, response(false));
    bench_cycle(quiet_owner, response(false));
    CHECK(!quiet_owner.answered());
    bench_cycle(quiet_owner, response(true));
    CHECK(quiet_owner.quiet());
}

void test_refused_and_reset() {
    Reports r;
    BarPort bar = r.port();
    // An access the owner refused: its lines, valid low; neither taken nor answered.
    bar.post(BarRequest{false, false, 0xFFFF, 0});
    CHECK(bar.quiet());
    const BarRequest req = bench_cycle(bar, response(false));
    CHECK(!req.bar_req_valid);
    CHECK_EQ(req.bar_req_addr, 0xFFFF);
    CHECK(!bar.answered());

    // reset() forgets a read in flight (its answer is not due any more) but
    // keeps the lines.
    bar.post(BarRequest{true, false, 0x0010, 0});
    bench_cycle(bar, response(false));
    CHECK(!bar.quiet());
    bar.reset();
    CHECK(bar.quiet());
    const BarRequest after = bench_cycle(bar, response(false));
    CHECK(!after.bar_req_valid);
    CHECK_EQ(after.bar_req_addr, 0x0010);
    CHECK(r.seen.empty());
}

}  // namespace

int main() {
    test_read();
    test_write();
    test_violations();
    test_refused_and_reset();
    return rnic_check_summary("test_bar_port_unit");
}
