// Verilated headers first: they must not see SystemC's macros.
#include "Vrnic_top.h"

#include "rnic_device.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "fabric.h"
#include "rnic_hw.h"

static_assert(RnicDevice::kLaneBytes == RNIC_DATA_BYTES, "the ports are 64 bits wide");

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
    m.rst_n = cycle < reset_until_ ? 0 : 1;
    // The NIC's time base: CYCLE reads it, so idle cycles the fabric skips
    // without clocking still count.
    m.time_now = cycle;

    m.bar_req_valid = bar_pending_;
    m.bar_req_write = bar_write_;
    m.bar_req_addr = static_cast<uint16_t>(bar_addr_);
    m.bar_req_wdata = bar_wdata_;

    // DMA read data: the oldest burst, once its latency has passed, is read
    // from memory in one go and handed out one packed beat per cycle.
    m.dma_rd_req_ready = reads_.size() < kDmaReadsInFlight;
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
        const uint32_t n = std::min<uint32_t>(kLaneBytes, r.len - r.sent);
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
    m.rx_tdata = 0;
    m.rx_tlast = 0;
    if (const Link::Frame *f = rx_link_ ? rx_link_->offered() : nullptr) {
        const size_t left = f->bytes.size() - f->delivered;
        const unsigned n = static_cast<unsigned>(std::min<size_t>(kLaneBytes, left));
        uint64_t beat = 0;
        std::memcpy(&beat, f->bytes.data() + f->delivered, n);
        m.rx_tvalid = 1;
        m.rx_tdata = beat;
        m.rx_tkeep = static_cast<uint8_t>((1u << n) - 1u);
        m.rx_tlast = left <= kLaneBytes;
        rx_bytes_ = n;
    }
    m.tx_tready = !tx_link_ || tx_link_->can_accept();

    m.eval();

    fire_rd_rsp_ = m.dma_rd_rsp_valid && m.dma_rd_rsp_ready;
    fire_rx_ = m.rx_tvalid && m.rx_tready;
    fire_cpl_ = m.dma_wr_cpl_valid;

    if (m.dma_rd_req_valid && m.dma_rd_req_ready) {
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
    if (m.dma_wr_valid && m.dma_wr_ready)
        take_write_beat(cycle);
    if (m.tx_tvalid && m.tx_tready)
        take_tx_beat(cycle);
}

// A write burst is collected beat by beat and applied to memory, whole or
// not at all, when its last beat arrives; its completion follows a cycle
// later, behind every earlier one.
void RnicDevice::take_write_beat(uint64_t cycle) {
    auto &m = *model_;
    const uint32_t len = m.dma_wr_len;
    const uint32_t have = static_cast<uint32_t>(write_buf_.size());
    if (have >= len)
        write_bad_ = true;   // more beats than the length needs
    if (!write_bad_) {
        const uint64_t data = m.dma_wr_data;
        const uint32_t n = std::min<uint32_t>(kLaneBytes, len - have);
        const uint8_t *p = reinterpret_cast<const uint8_t *>(&data);
        write_buf_.insert(write_buf_.end(), p, p + n);
    }
    if (!m.dma_wr_last)
        return;
    const bool ok = !write_bad_ && len != 0 && write_buf_.size() == len &&
                    dma_access(true, m.dma_wr_addr, write_buf_.data(), len);
    write_cpls_.push_back(WriteCompletion{cycle + 1, m.dma_wr_tag, !ok});
    write_buf_.clear();
    write_bad_ = false;
}

void RnicDevice::take_tx_beat(uint64_t cycle) {
    auto &m = *model_;
    const uint64_t data = m.tx_tdata;
    const unsigned keep = m.tx_tkeep;
    if (!tx_overlong_) {
        for (unsigned j = 0; j < kLaneBytes; ++j)
            if (keep >> j & 1u)
                tx_frame_.push_back(static_cast<uint8_t>(data >> (8 * j)));
        if (tx_frame_.size() > kMaxFrameBytes) {
            std::fprintf(stderr, "rnic_sim: rnic%u sent a frame of more than %zu bytes: dropped\n", index_,
                         kMaxFrameBytes);
            tx_overlong_ = true;
            tx_frame_.clear();
        }
    }
    if (m.tx_tlast) {
        if (!tx_overlong_ && !tx_frame_.empty())
            fabric_.send_frame(index_, std::move(tx_frame_), cycle);
        tx_frame_.clear();
        tx_overlong_ = false;
    }
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
    if (fire_rd_rsp_) {
        ReadBurst &r = reads_.front();
        r.sent += std::min<uint32_t>(kLaneBytes, r.len - r.sent);
        if (r.sent >= r.len)
            reads_.pop_front();
    }
    if (fire_cpl_)
        write_cpls_.pop_front();
    if (fire_rx_)
        rx_link_->consume(rx_bytes_);

    const bool platform_quiet = !bar_pending_ && reads_.empty() && write_buf_.empty() && write_cpls_.empty() &&
                                tx_frame_.empty() && cycle >= reset_until_;
    idle_cycles_ = (m.idle && platform_quiet) ? idle_cycles_ + 1 : 0;
}
