// rnic_top's DMA write channel, into host memory (docs/platform.md, "DMA
// timing"; docs/rtl-interfaces.md). A burst is collected beat by beat
// (address, length and tag as its first beat gave them) and applied to
// memory, whole or not at all, when its last beat arrives; its completion
// is presented `cpl_latency` cycles later, behind every earlier one, for
// one cycle (completions have no ready). A burst that breaks the port rules
// (zero length, more beats than its length needs, last beat early) gets an
// error completion and touches nothing.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "dma_memory.h"
#include "port_pins.h"
#include "stall.h"

class DmaWriteChannel {
public:
    DmaWriteChannel(uint64_t cpl_latency, DmaMemory &mem) : cpl_latency_(cpl_latency), mem_(mem) {}

    // Before eval: write ready (one stall draw), the completion due.
    void drive(uint64_t cycle, PortInputs &in, const Stall &stall);
    // After eval, clock low: a beat taken (a last beat writes memory).
    void sample(uint64_t cycle, const PortInputs &in, const PortOutputs &out);
    // At the edge: the completion presented leaves.
    void commit();

    // No burst half collected, no completion waiting.
    bool empty() const { return !in_burst_ && cpls_.empty(); }
    void reset();

private:
    struct Completion {
        uint64_t due;
        uint16_t tag;
        bool err;
    };

    void take_beat(uint64_t cycle, const PortOutputs &out);

    uint64_t cpl_latency_;
    DmaMemory &mem_;
    bool in_burst_ = false;
    uint64_t addr_ = 0;
    uint32_t len_ = 0;
    uint16_t tag_ = 0;
    bool bad_ = false;   // the burst in progress broke the port rules
    std::vector<uint8_t> buf_;
    std::deque<Completion> cpls_;
    bool cpl_shown_ = false;   // a completion was presented this cycle
};
