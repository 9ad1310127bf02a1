// One simulated RNIC: the Verilated rnic_top and a TLM-2.0 initiator for its
// DMA. Its DMA and link ports are served by the port model
// (sim/port_model/port_model.h), and its BAR port by sim/port_model/bar_port.h,
// both of which the rtl_core bench runs too; this class adds the platform's
// timing and the trace port.
//
// It knows nothing above it: the fabric drives it and asks it what it has.
// Per cycle, drive() settles the inputs and records which handshakes fire at
// the coming edge (a frame whose last beat leaves is then frame_sent());
// edge() clocks the model and completes them (a trace event is then
// event()). A BAR access is posted by the fabric (post_bar), presented in the
// next cycle, and its answer read back after it (bar_answered, bar_rdata).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>

#include "bar_port.h"
#include "dma_initiator.h"
#include "link.h"
#include "port_model.h"
#include "port_pins.h"
#include "rnic_sim.h"

class Vrnic_top;
class VerilatedContext;

class RnicDevice : public sc_core::sc_module {
public:
    DmaInitiator dma;

    RnicDevice(sc_core::sc_module_name name, unsigned index, VerilatedContext *ctx);
    ~RnicDevice() override;

    unsigned index() const { return index_; }
    Vrnic_top &model() { return *model_; }
    bool irq() const;
    // rst_n is held low in every cycle before `cycle` (a NIC is reset when it
    // joins the fabric, in the cycles the fabric runs next).
    void reset_until(uint64_t cycle) { reset_until_ = cycle; idle_cycles_ = 0; }
    void connect(Link *tx, Link *rx) { ports_.connect(tx, rx); }

    // Consecutive cycles, up to the last one clocked, in which the RTL said
    // it was idle and nothing of this NIC waited in the platform (a BAR
    // access, DMA data or completions, a frame half sent). Skipping idle time
    // needs a few: registers that follow their inputs settle in that time.
    uint64_t idle_cycles() const { return idle_cycles_; }
    // The interrupt line rose in the last cycle clocked.
    bool irq_rose() const { return irq_rose_; }
    // After the last cycle clocked: a timer of the NIC is armed, and the
    // cycle (time_now) in which it may have work again, idle or not. A
    // platform that jumps idle time must clock that cycle.
    bool wake_valid() const { return wake_valid_; }
    uint64_t wake_at() const { return wake_at_; }

    void drive(uint64_t cycle);
    void edge(uint64_t cycle);

    // One BAR access. `valid` false (an offset the fabric refused) presents
    // nothing, but the lines still show its address and direction, as they
    // always have.
    struct BarAccess {
        bool valid;
        bool write;
        uint32_t addr;
        uint32_t wdata;
    };
    // Presented in the next cycle clocked.
    void post_bar(const BarAccess &a);
    // After that cycle: a write was taken, or a read answered (bar_rsp_valid
    // in the cycle after the request), with this data.
    bool bar_answered() const { return bar_.answered(); }
    uint32_t bar_rdata() const { return bar_.rdata(); }

    // After drive(): a frame whose last beat left in this cycle, until taken.
    bool frame_sent() const { return ports_.frame_sent(); }
    std::vector<uint8_t> take_frame() { return ports_.take_frame(); }
    // After edge(): the trace port's event in this cycle, or null.
    const rnic_sim_event *event() const { return event_valid_ ? &event_ : nullptr; }

    // Fixed cycles from an accepted DMA read request to its first data beat.
    static constexpr uint64_t kDmaReadLatency = 16;
    // Read requests the platform accepts before the first one is answered.
    static constexpr size_t kDmaReadsInFlight = 4;
    // BAR0 size: 64 KiB (bar_req_addr is 16 bits).
    static constexpr uint64_t kBarBytes = 0x10000;
    // Cycles from a DMA write burst's last beat to its completion.
    static constexpr uint64_t kDmaWriteCplLatency = 1;

private:
    unsigned index_;
    std::unique_ptr<Vrnic_top> model_;
    PortModel ports_;
    PortInputs in_;
    PortOutputs out_;

    // The BAR port, unchecked: a read left unanswered fails its bus access.
    BarPort bar_;

    bool event_valid_ = false;
    rnic_sim_event event_{};

    uint64_t reset_until_ = 0;
    uint64_t idle_cycles_ = 0;
    bool irq_rose_ = false;
    bool wake_valid_ = false;
    uint64_t wake_at_ = 0;
};
