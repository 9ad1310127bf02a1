#include "dma_write_channel.h"

#include <algorithm>

#include "rnic_hw.h"

namespace {
constexpr uint32_t kBeatBytes = RNIC_DATA_BYTES;
}

void DmaWriteChannel::drive(uint64_t cycle, PortInputs &in, const Stall &stall) {
    in.dma_wr_ready = !stalled(stall);
    if (!cpls_.empty() && cpls_.front().due <= cycle) {
        in.dma_wr_cpl_valid = true;
        in.dma_wr_cpl_tag = cpls_.front().tag;
        in.dma_wr_cpl_err = cpls_.front().err;
    } else {
        in.dma_wr_cpl_valid = false;
        in.dma_wr_cpl_tag = 0;
        in.dma_wr_cpl_err = false;
    }
}

void DmaWriteChannel::sample(uint64_t cycle, const PortInputs &in, const PortOutputs &out) {
    cpl_shown_ = in.dma_wr_cpl_valid;
    if (out.dma_wr_valid && in.dma_wr_ready)
        take_beat(cycle, out);
}

void DmaWriteChannel::take_beat(uint64_t cycle, const PortOutputs &out) {
    if (!in_burst_) {
        in_burst_ = true;
        addr_ = out.dma_wr_addr;
        len_ = out.dma_wr_len;
        tag_ = out.dma_wr_tag;
        bad_ = false;
        buf_.clear();
    }
    const uint32_t have = static_cast<uint32_t>(buf_.size());
    if (have >= len_)
        bad_ = true;   // more beats than the length needs
    if (!bad_) {
        const uint32_t n = std::min<uint32_t>(kBeatBytes, len_ - have);
        const uint8_t *p = out.dma_wr_data.bytes;   // lane 0 first
        buf_.insert(buf_.end(), p, p + n);
    }
    if (!out.dma_wr_last)
        return;
    const bool ok = !bad_ && len_ != 0 && buf_.size() == len_ && mem_.dma_write(addr_, buf_.data(), len_);
    cpls_.push_back(Completion{cycle + cpl_latency_, tag_, !ok});
    in_burst_ = false;
}

void DmaWriteChannel::commit() {
    if (cpl_shown_)
        cpls_.pop_front();
    cpl_shown_ = false;
}

void DmaWriteChannel::reset() {
    in_burst_ = bad_ = cpl_shown_ = false;
    buf_.clear();
    cpls_.clear();
}
