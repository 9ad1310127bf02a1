#include "bar_port.h"

void BarPort::post(const BarRequest &req) {
    req_ = req;
    answered_ = false;
}

void BarPort::sample(const BarResponse &rsp) {
    if (awaiting_) {
        if (!rsp.bar_rsp_valid)
            report("no BAR read response one cycle after the request");
        answered_ = rsp.bar_rsp_valid;
        rdata_ = rsp.bar_rsp_rdata;
        awaiting_ = false;
    } else if (rsp.bar_rsp_valid) {
        report("BAR response without a read request");
    }
}

void BarPort::commit() {
    if (req_.bar_req_valid) {
        if (req_.bar_req_write)
            answered_ = true;
        else
            awaiting_ = true;
    }
    req_.bar_req_valid = false;
}
