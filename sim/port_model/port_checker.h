// Holds the NIC to its side of the DMA and link port rules
// (docs/rtl-interfaces.md), cycle by cycle, from what the platform drove and
// what the NIC answered: a request or beat, once valid, stays unchanged
// until it is taken; DMA lengths are 1..MTU; a write burst keeps its
// address, length and tag and raises last exactly on its last beat; tx
// beats are packed (tkeep contiguous from lane 0, full but for the last).
// It only watches: each violation goes to `report`, and the port model
// (port_model.h) serves the NIC the same whatever it finds. The rtl_core
// bench runs it on every cycle; the platform does not.
#pragma once

#include <cstdint>
#include <functional>

#include "port_pins.h"

class PortChecker {
public:
    explicit PortChecker(std::function<void(const char *what)> report) : report_(std::move(report)) {}

    // After eval with the clock low, before the edge: the pins of this cycle.
    void sample(const PortInputs &in, const PortOutputs &out);
    // The NIC presented a request or beat the platform has not taken yet.
    bool pending() const { return rd_pending_ || wr_pending_ || tx_pending_; }
    void reset();

private:
    void check_read(const PortInputs &in, const PortOutputs &out);
    void check_write(const PortInputs &in, const PortOutputs &out);
    void check_tx(const PortInputs &in, const PortOutputs &out);

    std::function<void(const char *)> report_;
    // What was presented and not taken, as it was.
    bool rd_pending_ = false, wr_pending_ = false, tx_pending_ = false;
    uint64_t rd_addr_ = 0, wr_addr_ = 0;
    Beat wr_data_, tx_data_;
    uint64_t tx_keep_ = 0;
    unsigned rd_len_ = 0, wr_len_ = 0;
    // The write burst in progress, as its first beat gave it.
    bool in_burst_ = false;
    uint64_t burst_addr_ = 0;
    unsigned burst_len_ = 0, burst_tag_ = 0, burst_beats_ = 0;
};
