// rnic_top's DMA read channel, served from host memory (docs/platform.md,
// "DMA timing"; docs/rtl-interfaces.md). A request is taken while fewer
// than `in_flight` are waiting (0: any number); its data starts `latency`
// cycles after it was taken, one packed beat (RNIC_DATA_BYTES) per cycle,
// bursts in request order and never interleaved. Memory is read once, the
// whole burst, when its first beat is presented; a refused burst answers
// every beat with err and data 0. A zero-length request breaks the port
// rules: it is answered as one refused beat.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "dma_memory.h"
#include "port_pins.h"
#include "stall.h"

class DmaReadChannel {
public:
    struct Config {
        uint64_t latency;
        size_t in_flight;
    };

    DmaReadChannel(const Config &cfg, DmaMemory &mem) : cfg_(cfg), mem_(mem) {}

    // Before eval: request ready (one stall draw), then the data beat due
    // (one more draw when a burst is waiting to start a beat).
    void drive(uint64_t cycle, PortInputs &in, const Stall &stall);
    // After eval, clock low: a request taken, a beat taken.
    void sample(uint64_t cycle, const PortInputs &in, const PortOutputs &out);
    // At the edge: the beat taken leaves.
    void commit();

    bool empty() const { return bursts_.empty(); }
    void reset();

private:
    struct Burst {
        uint64_t addr;
        uint32_t len;
        uint8_t tag;
        uint64_t due;           // cycle of the first data beat
        bool fetched = false;   // memory read (when the first beat is presented)
        bool err = false;
        std::vector<uint8_t> data;
        uint32_t sent = 0;      // bytes handed to the NIC
    };

    Config cfg_;
    DmaMemory &mem_;
    std::deque<Burst> bursts_;
    bool presenting_ = false;   // the front burst's next beat is on the port until taken
    bool taken_ = false;        // ... and was taken this cycle
};
