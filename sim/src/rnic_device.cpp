// Verilated headers first: they must not see SystemC's macros.
#include "Vrnic_top.h"

#include "rnic_device.h"

#include <cstring>
#include <string>

#include "fabric.h"
#include "rnic_hw.h"

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

RnicDevice::RnicDevice(sc_core::sc_module_name name, unsigned index, VerilatedContext *ctx, Fabric &fabric)
    : sc_module(name), bar("bar"), dma("dma"), index_(index), fabric_(fabric),
      model_(std::make_unique<Vrnic_top>(ctx, basename())), ports_(port_config(index), dma) {
    bar.register_b_transport(this, &RnicDevice::bar_transport);
    auto &m = *model_;
    m.clk = 0;
    m.rst_n = 0;
    m.tx_tready = 1;
    m.dma_wr_ready = 1;
}

RnicDevice::~RnicDevice() { model_->final(); }

bool RnicDevice::irq() const { return model_->irq; }

// A BAR access is one bus cycle of the whole fabric, whatever its outcome:
// the request is presented for one cycle and a read returns what the
// register block drives in the next (bar_rsp_valid). An offset outside the
// 64 KiB BAR never reaches the NIC and reads as all ones, as an unsupported
// request does on PCIe; a misaligned offset inside it is the RTL's to judge
// (it sets STATUS.BAD_REG).
void RnicDevice::bar_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &) {
    const uint64_t addr = trans.get_address();
    const bool valid = trans.get_data_length() == 4 && trans.get_byte_enable_ptr() == nullptr &&
                       trans.get_command() != tlm::TLM_IGNORE_COMMAND && addr < kBarBytes;
    if (fabric_.running()) {   // called from inside a hook: refused, the access in progress untouched
        trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
    }
    bar_write_ = trans.is_write();
    bar_addr_ = static_cast<uint32_t>(addr);
    bar_ok_ = false;
    if (valid && bar_write_)
        std::memcpy(&bar_wdata_, trans.get_data_ptr(), 4);
    bar_pending_ = valid;
    fabric_.run(RunRequest{1});
    if (!valid) {
        trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    if (!bar_write_) {
        if (!bar_ok_) {   // the RTL broke its one-cycle response promise
            trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        std::memcpy(trans.get_data_ptr(), &bar_rdata_, 4);
    }
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
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
    if (ports_.frame_sent())
        fabric_.send_frame(index_, ports_.take_frame(), cycle);
}

void RnicDevice::edge(uint64_t cycle) {
    auto &m = *model_;
    const bool irq_before = m.irq;
    m.clk = 1;
    m.eval();
    irq_rose_ = m.irq && !irq_before;
    if (m.trace_valid)
        fabric_.event(rnic_sim_event{cycle, index_, m.trace_event, m.trace_qpn, m.trace_arg});

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
