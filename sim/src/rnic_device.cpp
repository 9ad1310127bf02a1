// Verilated headers first: they must not see SystemC's macros.
#include "Vrnic_top.h"

#include "rnic_device.h"

#include <string>

namespace {

// The platform's side of the DMA and link ports: its DMA timing
// (docs/platform.md, "DMA timing"), no stalls.
PortModel::Config port_config(unsigned index) {
    PortModel::Config c;
    c.read_latency = RnicDevice::kDmaReadLatency;
    c.reads_in_flight = RnicDevice::kDmaReadsInFlight;
    c.write_cpl_latency = RnicDevice::kDmaWriteCplLatency;
    c.name = "rnic_sim: rnic" + std::to_string(index);
    return c;
}

}  // namespace

RnicDevice::RnicDevice(sc_core::sc_module_name name, unsigned index, VerilatedContext *ctx)
    : sc_module(name), dma("dma"), index_(index), model_(std::make_unique<Vrnic_top>(ctx, basename())),
      ports_(port_config(index), dma) {
    auto &m = *model_;
    m.clk = 0;
    m.rst_n = 0;
    m.tx_tready = 1;
    m.dma_wr_ready = 1;
}

RnicDevice::~RnicDevice() { model_->final(); }

bool RnicDevice::irq() const { return model_->irq; }

void RnicDevice::post_bar(const BarAccess &a) {
    BarRequest r;
    r.bar_req_valid = a.valid;
    r.bar_req_write = a.write;
    r.bar_req_addr = static_cast<uint16_t>(a.addr);
    // The data lines keep the last write's data through reads and refused accesses.
    r.bar_req_wdata = a.valid && a.write ? a.wdata : bar_.lines().bar_req_wdata;
    bar_.post(r);
}

void RnicDevice::drive(uint64_t cycle) {
    auto &m = *model_;
    m.clk = 0;
    m.rst_n = cycle < reset_until_ ? 0 : 1;
    // The NIC's time base: CYCLE reads it, so idle cycles the fabric skips
    // without clocking still count.
    m.time_now = cycle;

    BarRequest bar;
    bar_.drive(bar);
    put_bar_request(m, bar);

    ports_.drive(cycle, in_);
    put_port_inputs(m, in_);
    m.eval();
    get_port_outputs(m, out_);
    ports_.sample(cycle, in_, out_);
}

void RnicDevice::edge(uint64_t cycle) {
    auto &m = *model_;
    const bool irq_before = m.irq;
    m.clk = 1;
    m.eval();
    irq_rose_ = m.irq && !irq_before;
    event_valid_ = m.trace_valid;
    if (event_valid_)
        event_ = rnic_sim_event{cycle, index_, m.trace_event, m.trace_qpn, m.trace_arg};

    // The BAR access of this cycle is taken, and a read's answer, a register
    // of the NIC, already shows: one access, one cycle (bar_port.h).
    bar_.commit();
    BarResponse rsp;
    get_bar_response(m, rsp);
    bar_.sample(rsp);
    ports_.commit();

    const bool platform_quiet = bar_.quiet() && ports_.quiet() && cycle >= reset_until_;
    idle_cycles_ = (m.idle && platform_quiet) ? idle_cycles_ + 1 : 0;
    // Functions of flip-flops, like idle: what they say now holds until the
    // next edge, however many cycles the fabric jumps before it.
    wake_valid_ = m.wake_valid;
    wake_at_ = m.wake_at;
}
