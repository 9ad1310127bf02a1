// One simulated RNIC: the Verilated rnic_top, a TLM-2.0 target for its BAR
// and a TLM-2.0 initiator for its DMA. Its DMA and link ports are served by
// the port model (sim/port_model/port_model.h), which the rtl_core bench
// runs too; this class adds the platform's timing, the BAR and the trace
// port. The fabric clocks it in two phases per cycle: drive() settles the
// inputs and records which handshakes fire at the coming edge; edge()
// clocks the model and completes them.
#pragma once

#include <cstdint>
#include <memory>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "dma_initiator.h"
#include "link.h"
#include "port_model.h"
#include "port_pins.h"

class Vrnic_top;
class VerilatedContext;
class Fabric;

class RnicDevice : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<RnicDevice> bar;
    DmaInitiator dma;

    RnicDevice(sc_core::sc_module_name name, unsigned index, VerilatedContext *ctx, Fabric &fabric);
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

    void drive(uint64_t cycle);
    void edge(uint64_t cycle);

    // Fixed cycles from an accepted DMA read request to its first data beat.
    static constexpr uint64_t kDmaReadLatency = 16;
    // Read requests the platform accepts before the first one is answered.
    static constexpr size_t kDmaReadsInFlight = 4;
    // BAR0 size: 64 KiB (bar_req_addr is 16 bits).
    static constexpr uint64_t kBarBytes = 0x10000;
    // Cycles from a DMA write burst's last beat to its completion.
    static constexpr uint64_t kDmaWriteCplLatency = 1;

private:
    void bar_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);

    unsigned index_;
    Fabric &fabric_;
    std::unique_ptr<Vrnic_top> model_;
    PortModel ports_;
    PortInputs in_;
    PortOutputs out_;

    // The BAR access of this cycle, if any.
    bool bar_pending_ = false;
    bool bar_write_ = false;
    bool bar_ok_ = false;
    uint32_t bar_addr_ = 0, bar_wdata_ = 0, bar_rdata_ = 0;

    uint64_t reset_until_ = 0;
    uint64_t idle_cycles_ = 0;
    bool irq_rose_ = false;
};
