#include "dma_read_channel.h"

#include <algorithm>
#include <cstring>

#include "rnic_hw.h"

namespace {
constexpr uint32_t kBeatBytes = RNIC_DATA_BYTES;
}

void DmaReadChannel::drive(uint64_t cycle, PortInputs &in, const Stall &stall) {
    const bool hold = stalled(stall);
    in.dma_rd_req_ready = !hold && (cfg_.in_flight == 0 || bursts_.size() < cfg_.in_flight);

    if (!presenting_ && !bursts_.empty() && bursts_.front().due <= cycle && !stalled(stall))
        presenting_ = true;
    if (!presenting_) {
        in.dma_rd_rsp_valid = false;
        in.dma_rd_rsp_data.clear();
        in.dma_rd_rsp_tag = 0;
        in.dma_rd_rsp_last = false;
        in.dma_rd_rsp_err = false;
        return;
    }
    Burst &b = bursts_.front();
    if (!b.fetched) {
        b.data.assign(b.len, 0);
        b.err = !mem_.dma_read(b.addr, b.data.data(), b.len);
        if (b.err)
            std::fill(b.data.begin(), b.data.end(), 0);
        b.fetched = true;
    }
    // Lanes past the burst's end are driven to zero.
    Beat beat;
    const uint32_t n = std::min<uint32_t>(kBeatBytes, b.len - b.sent);
    std::memcpy(beat.bytes, b.data.data() + b.sent, n);
    in.dma_rd_rsp_valid = true;
    in.dma_rd_rsp_data = beat;
    in.dma_rd_rsp_tag = b.tag;
    in.dma_rd_rsp_last = b.sent + n >= b.len;
    in.dma_rd_rsp_err = b.err;
}

void DmaReadChannel::sample(uint64_t cycle, const PortInputs &in, const PortOutputs &out) {
    taken_ = in.dma_rd_rsp_valid && out.dma_rd_rsp_ready;
    if (!(out.dma_rd_req_valid && in.dma_rd_req_ready))
        return;
    Burst b;
    b.addr = out.dma_rd_req_addr;
    b.len = out.dma_rd_req_len;
    b.tag = out.dma_rd_req_tag;
    b.due = cycle + cfg_.latency;
    if (b.len == 0) {
        b.len = 1;
        b.err = true;
        b.fetched = true;
        b.data.assign(1, 0);
    }
    bursts_.push_back(std::move(b));
}

void DmaReadChannel::commit() {
    if (!taken_)
        return;
    taken_ = false;
    presenting_ = false;
    Burst &b = bursts_.front();
    b.sent += std::min<uint32_t>(kBeatBytes, b.len - b.sent);
    if (b.sent >= b.len)
        bursts_.pop_front();
}

void DmaReadChannel::reset() {
    bursts_.clear();
    presenting_ = taken_ = false;
}
