#include "link_port.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "rnic_hw.h"

namespace {
constexpr unsigned kBeatBytes = RNIC_DATA_BYTES;
}

void LinkPort::drive(PortInputs &in, const Stall &stall) {
    const bool hold = stalled(stall);
    in.tx_tready = !hold && (!tx_ || tx_->can_accept());

    // Idle lanes are driven to zero: the model's per-lane logic then skips them.
    if (!rx_presenting_ && rx_ && rx_->offered() && !stalled(stall))
        rx_presenting_ = true;
    if (!rx_presenting_) {
        in.rx_tvalid = false;
        in.rx_tdata.clear();
        in.rx_tkeep = 0;
        in.rx_tlast = false;
        return;
    }
    const Link::Frame *f = rx_->offered();
    const size_t left = f->bytes.size() - f->delivered;
    const unsigned n = static_cast<unsigned>(std::min<size_t>(kBeatBytes, left));
    Beat beat;
    std::memcpy(beat.bytes, f->bytes.data() + f->delivered, n);
    in.rx_tvalid = true;
    in.rx_tdata = beat;
    in.rx_tkeep = beat_lanes(n);
    in.rx_tlast = left <= kBeatBytes;
    rx_bytes_ = n;
}

void LinkPort::sample(const PortInputs &in, const PortOutputs &out) {
    rx_taken_ = in.rx_tvalid && out.rx_tready;
    if (out.tx_tvalid && in.tx_tready)
        take_tx_beat(out);
}

void LinkPort::take_tx_beat(const PortOutputs &out) {
    if (!overlong_) {
        for (unsigned j = 0; j < kBeatBytes; ++j)
            if (out.tx_tkeep >> j & 1u)
                frame_.push_back(out.tx_tdata.bytes[j]);
        if (frame_.size() > kMaxFrameBytes) {
            std::fprintf(stderr, "%s sent a frame of more than %zu bytes: dropped\n", name_.c_str(), kMaxFrameBytes);
            overlong_ = true;
            frame_.clear();
        }
    }
    if (out.tx_tlast) {
        if (!overlong_ && !frame_.empty()) {
            done_ = std::move(frame_);
            sent_ = true;
        }
        frame_.clear();
        overlong_ = false;
    }
}

void LinkPort::commit() {
    if (!rx_taken_)
        return;
    rx_taken_ = false;
    rx_presenting_ = false;
    rx_->consume(rx_bytes_);
}

bool LinkPort::rx_busy() const {
    if (rx_presenting_)
        return true;
    const Link::Frame *f = rx_ ? rx_->offered() : nullptr;
    return f && f->delivered != 0;
}

void LinkPort::reset() {
    frame_.clear();
    done_.clear();
    overlong_ = sent_ = rx_presenting_ = rx_taken_ = false;
}
