#include "port_checker.h"

#include "rnic_hw.h"

namespace {
constexpr unsigned kBeatBytes = RNIC_DATA_BYTES;
}

void PortChecker::sample(const PortInputs &in, const PortOutputs &out) {
    check_read(in, out);
    check_write(in, out);
    check_tx(in, out);
}

void PortChecker::check_read(const PortInputs &in, const PortOutputs &out) {
    if (rd_pending_ && (!out.dma_rd_req_valid || out.dma_rd_req_addr != rd_addr_ || out.dma_rd_req_len != rd_len_))
        report_("DMA read request withdrawn or changed before it was taken");
    rd_pending_ = false;
    if (!out.dma_rd_req_valid)
        return;
    if (out.dma_rd_req_len == 0 || out.dma_rd_req_len > RNIC_MTU)
        report_("DMA read length outside 1..MTU");
    if (!in.dma_rd_req_ready) {
        rd_pending_ = true;
        rd_addr_ = out.dma_rd_req_addr;
        rd_len_ = out.dma_rd_req_len;
    }
}

void PortChecker::check_write(const PortInputs &in, const PortOutputs &out) {
    if (wr_pending_ && (!out.dma_wr_valid || out.dma_wr_addr != wr_addr_ || out.dma_wr_len != wr_len_ ||
                        out.dma_wr_data != wr_data_))
        report_("DMA write beat withdrawn or changed before it was taken");
    wr_pending_ = false;
    if (out.dma_wr_valid && !in.dma_wr_ready) {
        wr_pending_ = true;
        wr_addr_ = out.dma_wr_addr;
        wr_len_ = out.dma_wr_len;
        wr_data_ = out.dma_wr_data;
    }
    if (!(out.dma_wr_valid && in.dma_wr_ready))
        return;
    if (!in_burst_) {
        in_burst_ = true;
        burst_addr_ = out.dma_wr_addr;
        burst_len_ = out.dma_wr_len;
        burst_tag_ = out.dma_wr_tag;
        burst_beats_ = 0;
        if (burst_len_ == 0 || burst_len_ > RNIC_MTU)
            report_("DMA write length outside 1..MTU");
    } else if (out.dma_wr_addr != burst_addr_ || out.dma_wr_len != burst_len_ || out.dma_wr_tag != burst_tag_) {
        report_("DMA write address/length/tag changed inside a burst");
    }
    const unsigned beats = (burst_len_ + kBeatBytes - 1) / kBeatBytes;
    ++burst_beats_;
    if (out.dma_wr_last != (burst_beats_ == beats))
        report_("DMA write last on the wrong beat");
    if (out.dma_wr_last || burst_beats_ >= beats)
        in_burst_ = false;
}

void PortChecker::check_tx(const PortInputs &in, const PortOutputs &out) {
    if (tx_pending_ && (!out.tx_tvalid || out.tx_tdata != tx_data_ || out.tx_tkeep != tx_keep_))
        report_("tx beat withdrawn or changed before it was taken");
    tx_pending_ = false;
    if (out.tx_tvalid && !in.tx_tready) {
        tx_pending_ = true;
        tx_data_ = out.tx_tdata;
        tx_keep_ = out.tx_tkeep;
    }
    if (!(out.tx_tvalid && in.tx_tready))
        return;
    const uint64_t keep = out.tx_tkeep;
    unsigned k = 0;
    while (k < kBeatBytes && (keep >> k & 1u))
        ++k;
    if (keep != beat_lanes(k) || k == 0)
        report_("tx tkeep not contiguous from bit 0");
    if (!out.tx_tlast && k != kBeatBytes)
        report_("tx beat not full before the last one");
}

void PortChecker::reset() {
    rd_pending_ = wr_pending_ = tx_pending_ = false;
    in_burst_ = false;
}
