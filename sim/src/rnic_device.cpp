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
    bar_write_ = a.write;
    bar_addr_ = a.addr;
    bar_ok_ = false;
    if (a.valid && a.write)
        bar_wdata_ = a.wdata;
    bar_pending_ = a.valid;
}

void RnicDevice::drive(uint64_t cycle) {
    auto &m = *model_;
    m.clk = 0;
    m.rst_n = cycle < reset_until_ ? 0 : 1;
    // The NIC's time base: CYCLE reads it, so idle cycles the fabric skips
    // without clocking still count.
    m.time_now = cycle;

    m.bar_req_valid = bar_pending_;
    m.bar_req_write = bar_write_;
    m.bar_req_addr = static_cast<uint16_t>(bar_addr_);
    m.bar_req_wdata = bar_wdata_;

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

    if (bar_pending_) {
        if (!bar_write_) {
            bar_ok_ = m.bar_rsp_valid;
            bar_rdata_ = m.bar_rsp_rdata;
        } else {
            bar_ok_ = true;
        }
        bar_pending_ = false;
    }
    ports_.commit();

    const bool platform_quiet = !bar_pending_ && ports_.quiet() && cycle >= reset_until_;
    idle_cycles_ = (m.idle && platform_quiet) ? idle_cycles_ + 1 : 0;
}
