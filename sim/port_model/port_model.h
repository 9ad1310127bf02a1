// The platform side of rnic_top's DMA and link ports, one NIC's worth: the
// DMA read channel, the DMA write channel and the NIC's end of its link,
// clocked together. The one model of that port protocol: the SystemC
// platform (sim/src/rnic_device.cpp) and the rtl_core bench
// (tests/rtl_core/fabric.cpp) both run it, each with its own timing
// (Config) and its own memory behind it (DmaMemory). No SystemC, no
// Verilator: the owner copies the pins to and from its verilated model
// (port_pins.h).
//
// One cycle, for every NIC of a fabric:
//   drive(cycle, in)        what the platform presents this cycle; then the
//                           owner puts `in` on the model and evaluates it
//                           with the clock low, and reads `out`;
//   sample(cycle, in, out)  the handshakes that fire at the coming edge:
//                           requests and beats taken, a write burst's
//                           memory written, a frame completed (take_frame);
//   commit()                at the edge, after every NIC of the fabric was
//                           driven: what was taken leaves (a read beat, a
//                           completion, an rx beat off the link).
// Stall draws, when the owner gives a Stall, come in this order per cycle:
// read request ready, read data (only when a burst waits to start a beat),
// write ready, tx ready, rx beat (only when a frame waits to start a beat).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dma_memory.h"
#include "dma_read_channel.h"
#include "dma_write_channel.h"
#include "link.h"
#include "link_port.h"
#include "port_pins.h"
#include "stall.h"

class PortModel {
public:
    struct Config {
        // Cycles from a read request taken to its first data beat.
        uint64_t read_latency = 16;
        // Read requests taken before the first is answered; 0: no limit.
        size_t reads_in_flight = 0;
        // Cycles from a write burst's last beat to its completion.
        uint64_t write_cpl_latency = 1;
        // Holds off handshakes at random (the bench); empty: never.
        Stall stall;
        // Names the NIC in warnings.
        std::string name = "nic";
    };

    PortModel(const Config &cfg, DmaMemory &mem)
        : stall_(cfg.stall), reads_({cfg.read_latency, cfg.reads_in_flight}, mem),
          writes_(cfg.write_cpl_latency, mem), link_(cfg.name) {}

    // tx: the link this NIC's frames go out on; rx: the one its frames come
    // in from (the same link for a NIC looped to itself). Either may be null.
    void connect(Link *tx, Link *rx) { link_.connect(tx, rx); }

    void drive(uint64_t cycle, PortInputs &in) {
        reads_.drive(cycle, in, stall_);
        writes_.drive(cycle, in, stall_);
        link_.drive(in, stall_);
    }
    void sample(uint64_t cycle, const PortInputs &in, const PortOutputs &out) {
        reads_.sample(cycle, in, out);
        writes_.sample(cycle, in, out);
        link_.sample(in, out);
    }
    void commit() {
        reads_.commit();
        writes_.commit();
        link_.commit();
    }

    // A frame whose last beat left in the last sample(), until taken.
    bool frame_sent() const { return link_.frame_sent(); }
    std::vector<uint8_t> take_frame() { return link_.take_frame(); }

    // Nothing of the NIC's waits here: no DMA read, no write burst or
    // completion, no frame half sent. (Frames on their way in are the
    // link's: Link::held_bytes.)
    bool quiet() const { return reads_.empty() && writes_.empty() && link_.tx_empty(); }
    // A received frame is on the rx port or half taken.
    bool rx_busy() const { return link_.rx_busy(); }

    // Forgets everything in flight (the links are their owner's).
    void reset() {
        reads_.reset();
        writes_.reset();
        link_.reset();
    }

private:
    Stall stall_;
    DmaReadChannel reads_;
    DmaWriteChannel writes_;
    LinkPort link_;
};
