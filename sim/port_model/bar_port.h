// The platform side of rnic_top's BAR port (docs/rtl-interfaces.md, BAR0):
// one register access at a time and no handshake (the NIC is always
// ready). A request is presented for one cycle; a read is answered exactly
// one cycle later (bar_rsp_valid, with bar_rsp_rdata), a write never is,
// and nothing else raises bar_rsp_valid. The one model of that protocol:
// the SystemC platform (sim/src/rnic_device.cpp) and the rtl_core bench
// (tests/rtl_core/fabric.cpp) both run it. No SystemC, no Verilator: the
// owner copies the pins (port_pins.h: put_bar_request, get_bar_response).
//
// One cycle:
//   drive(req)    the request pins of this cycle: the access posted, if
//                 any, valid for this one cycle; between accesses the lines
//                 keep the last one's direction, address and data.
//   sample(rsp)   the response pins of the cycle after a commit(): a read
//                 taken at that edge must be answered here, and nothing
//                 else may be.
//   commit()      at the edge: the access presented is taken; a read now
//                 waits for the next sample().
// Where sample() stands is the owner's: bar_rsp_valid and bar_rsp_rdata are
// registers (rnic_regs.sv), so the next cycle's response already shows
// just after the edge. The bench samples every cycle with the clock low,
// before commit(), so a read takes it two cycles; the platform samples
// right after the edge, after commit(), so one BAR access, read or write,
// is one cycle of the fabric.
//
// A violation goes to `report` (the bench counts it as a protocol error).
// The platform gives no `report`: like the port checker, it judges no RTL;
// a read left unanswered shows in answered(), and fails its bus access.
#pragma once

#include <cstdint>
#include <functional>

#include "port_pins.h"

class BarPort {
public:
    // Empty: violations are not reported.
    explicit BarPort(std::function<void(const char *what)> report = {}) : report_(std::move(report)) {}

    // Presented in the next drive(): these lines, for one cycle if
    // bar_req_valid (an access the owner refused shows its lines with valid
    // low, and is neither taken nor answered).
    void post(const BarRequest &req);
    void drive(BarRequest &req) const { req = req_; }
    void sample(const BarResponse &rsp);
    void commit();

    // The lines as last posted.
    const BarRequest &lines() const { return req_; }
    // The access last posted was taken (a write, at its edge) or answered
    // (a read, bar_rsp_valid in the cycle after it); false until then.
    bool answered() const { return answered_; }
    // A read's bar_rsp_rdata, as the cycle that should answer it showed it.
    uint32_t rdata() const { return rdata_; }

    // Nothing waits here: no access to present, no read to be answered.
    bool quiet() const { return !req_.bar_req_valid && !awaiting_; }
    // Forgets the access in flight; the lines keep showing the last one.
    void reset() {
        req_.bar_req_valid = false;
        awaiting_ = false;
    }

private:
    void report(const char *what) const {
        if (report_)
            report_(what);
    }

    std::function<void(const char *)> report_;
    BarRequest req_;
    bool awaiting_ = false;   // a read was taken at the last commit()
    bool answered_ = false;
    uint32_t rdata_ = 0;
};
