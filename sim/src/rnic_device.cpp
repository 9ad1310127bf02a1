// Verilated headers first: they must not see SystemC's macros.
#include "Vrnic_top.h"

#include "rnic_device.h"

#include <cstdio>
#include <cstring>

#include "fabric.h"

namespace {
unsigned popcount8(unsigned v) { return static_cast<unsigned>(__builtin_popcount(v & 0xffu)); }
}

RnicDevice::RnicDevice(sc_core::sc_module_name name, unsigned index, VerilatedContext *ctx, Fabric &fabric)
    : sc_module(name), bar("bar"), dma("dma"), index_(index), fabric_(fabric),
      model_(std::make_unique<Vrnic_top>(ctx, basename())) {
    bar.register_b_transport(this, &RnicDevice::bar_transport);
    auto &m = *model_;
    m.clk = 0;
    m.rst_n = 0;
    m.tx_tready = 1;
    m.dma_wr_ready = 1;
}

RnicDevice::~RnicDevice() { model_->final(); }

bool RnicDevice::irq() const { return model_->irq; }

void RnicDevice::set_reset(bool asserted) { model_->rst_n = asserted ? 0 : 1; }

// A BAR access is one bus cycle of the whole fabric: the access is applied
// at the next clock edge and a read returns what the register block drove.
void RnicDevice::bar_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &) {
    const uint64_t addr = trans.get_address();
    if (trans.get_data_length() != 4 || (addr & 3u) != 0 || addr > 0xffffu) {
        trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    bar_pending_ = true;
    bar_write_ = trans.is_write();
    bar_addr_ = static_cast<uint32_t>(addr);
    if (bar_write_)
        std::memcpy(&bar_wdata_, trans.get_data_ptr(), 4);
    fabric_.run(1, nullptr);
    if (!bar_write_)
        std::memcpy(trans.get_data_ptr(), &bar_rdata_, 4);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool RnicDevice::dma_access(bool write, uint64_t addr, uint8_t *data, uint32_t len) {
    tlm::tlm_generic_payload trans;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    trans.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    trans.set_address(addr);
    trans.set_data_ptr(data);
    trans.set_data_length(len);
    trans.set_streaming_width(len);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    dma->b_transport(trans, delay);
    return trans.is_response_ok();
}

void RnicDevice::drive(uint64_t cycle) {
    auto &m = *model_;
    m.clk = 0;

    m.bar_req_valid = bar_pending_;
    m.bar_req_write = bar_write_;
    m.bar_req_addr = static_cast<uint16_t>(bar_addr_);
    m.bar_req_wdata = bar_wdata_;

    m.dma_rd_req_ready = reads_.size() < 4;
    m.dma_rd_rsp_valid = 0;
    if (!reads_.empty() && reads_.front().due <= cycle) {
        ReadBurst &r = reads_.front();
        if (!r.fetched) {
            r.data.assign(r.len, 0);
            r.err = !dma_access(false, r.addr, r.data.data(), r.len);
            if (r.err)
                std::fill(r.data.begin(), r.data.end(), 0);
            r.fetched = true;
        }
        uint64_t beat = 0;
        const uint32_t n = std::min<uint32_t>(8, r.len - r.sent);
        std::memcpy(&beat, r.data.data() + r.sent, n);
        m.dma_rd_rsp_valid = 1;
        m.dma_rd_rsp_data = beat;
        m.dma_rd_rsp_tag = r.tag;
        m.dma_rd_rsp_last = r.sent + n >= r.len;
        m.dma_rd_rsp_err = r.err;
    }

    m.dma_wr_cpl_valid = 0;
    if (!write_cpls_.empty() && write_cpls_.front().due <= cycle) {
        m.dma_wr_cpl_valid = 1;
        m.dma_wr_cpl_tag = write_cpls_.front().tag;
        m.dma_wr_cpl_err = write_cpls_.front().err;
    }

    // Idle lanes are driven to zero: the model's per-lane logic then skips them.
    m.rx_tvalid = 0;
    m.rx_tkeep = 0;
    if (rx_link_ && !rx_link_->in_flight.empty() && rx_link_->in_flight.front().arrives_at <= cycle) {
        const Frame &f = rx_link_->in_flight.front();
        const size_t left = f.bytes.size() - f.delivered;
        const unsigned n = static_cast<unsigned>(std::min<size_t>(8, left));
        uint64_t beat = 0;
        std::memcpy(&beat, f.bytes.data() + f.delivered, n);
        m.rx_tvalid = 1;
        m.rx_tdata = beat;
        m.rx_tkeep = static_cast<uint8_t>((1u << n) - 1u);
        m.rx_tlast = left <= 8;
        rx_bytes_ = n;
    }

    m.eval();

    fire_rd_req_ = m.dma_rd_req_valid && m.dma_rd_req_ready;
    fire_rd_rsp_ = m.dma_rd_rsp_valid && m.dma_rd_rsp_ready;
    fire_wr_ = m.dma_wr_valid && m.dma_wr_ready;
    fire_tx_ = m.tx_tvalid && m.tx_tready;
    fire_rx_ = m.rx_tvalid && m.rx_tready;
    fire_cpl_ = m.dma_wr_cpl_valid;

    if (fire_rd_req_) {
        ReadBurst r;
        r.addr = m.dma_rd_req_addr;
        r.len = m.dma_rd_req_len;
        r.tag = m.dma_rd_req_tag;
        r.due = cycle + kDmaReadLatency;
        if (r.len == 0) {   // a zero-length burst is malformed: answer it as a fault
            r.len = 1;
            r.err = true;
            r.fetched = true;
            r.data.assign(1, 0);
        }
        reads_.push_back(std::move(r));
    }
    if (fire_wr_) {
        const uint32_t len = m.dma_wr_len;
        const uint32_t n = std::min<uint32_t>(8, len - std::min<uint32_t>(len, static_cast<uint32_t>(write_buf_.size())));
        const uint64_t data = m.dma_wr_data;
        const uint8_t *p = reinterpret_cast<const uint8_t *>(&data);
        write_buf_.insert(write_buf_.end(), p, p + n);
        if (m.dma_wr_last) {
            bool ok = write_buf_.size() == len && len != 0 &&
                      dma_access(true, m.dma_wr_addr, write_buf_.data(), len);
            write_cpls_.push_back(WriteCompletion{cycle + 1, m.dma_wr_tag, !ok});
            write_buf_.clear();
        }
    }
    if (fire_tx_) {
        const uint64_t data = m.tx_tdata;
        const uint8_t *p = reinterpret_cast<const uint8_t *>(&data);
        tx_frame_.insert(tx_frame_.end(), p, p + popcount8(m.tx_tkeep));
        if (m.tx_tlast) {
            fabric_.send_frame(index_, tx_frame_, cycle);
            tx_frame_.clear();
        }
    }
}

void RnicDevice::edge(uint64_t cycle) {
    auto &m = *model_;
    m.clk = 1;
    m.eval();
    if (m.trace_valid)
        fabric_.event(rnic_sim_event{cycle, index_, m.trace_event, m.trace_qpn, m.trace_arg});

    if (bar_pending_) {
        if (!bar_write_)
            bar_rdata_ = m.bar_rsp_rdata;
        bar_pending_ = false;
    }
    if (fire_rd_rsp_) {
        ReadBurst &r = reads_.front();
        r.sent += std::min<uint32_t>(8, r.len - r.sent);
        if (r.sent >= r.len)
            reads_.pop_front();
    }
    if (fire_cpl_)
        write_cpls_.pop_front();
    if (fire_rx_) {
        Frame &f = rx_link_->in_flight.front();
        f.delivered += rx_bytes_;
        if (f.delivered >= f.bytes.size())
            rx_link_->in_flight.pop_front();
    }
}
