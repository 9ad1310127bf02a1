// One direction of a point-to-point link between two NIC ports, a cable
// with nothing between its ends. A frame is handed to the link in the cycle
// its last beat leaves the sender (the hook and the faults see it whole, and
// between processes it is one datagram). Each beat reaches the far end
// `latency` cycles after it left, at the line rate (the datapath,
// RNIC_DATA_BYTES a cycle), so a frame is serialized once, as on a wire: its
// first beat is offered to the receiver `latency` cycles after the first
// beat left, C + latency - (beats - 1) for a frame whose last beat left in
// cycle C. A frame longer than the latency cannot be offered before it has
// left whole, so it starts at C + 1 (its beats then arrive later than on a
// wire, never earlier). Frames stay in order. Frames that have arrived wait
// while the receiver holds rx_tready low; the sender is held (tx_tready low)
// once the link holds more than the wire itself carries plus a slack
// (kSlackBytes on the platform), so nothing is lost and nothing grows
// without bound. The rtl_core bench gives its links a slack nothing
// reaches: there the sender waits only on the bench's random stalls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "rnic_hw.h"

class Link {
public:
    struct Frame {
        std::vector<uint8_t> bytes;
        uint64_t arrives_at = 0;
        size_t delivered = 0;   // bytes already taken by the receiver
    };

    // The line rate: one datapath beat a cycle.
    static constexpr size_t kLineBytes = RNIC_DATA_BYTES;
    // Room beyond the wire for frames waiting at the far end.
    static constexpr size_t kSlackBytes = 64 * 1024;

    explicit Link(uint64_t latency = 1, size_t slack_bytes = kSlackBytes)
        : latency_(latency < 1 ? 1 : latency), slack_(slack_bytes) {}

    uint64_t latency() const { return latency_; }
    // For frames sent from now on.
    void set_latency(uint64_t latency) { latency_ = latency < 1 ? 1 : latency; }

    // The frame whose last beat left in `cycle`.
    void send(std::vector<uint8_t> &&bytes, uint64_t cycle) {
        const uint64_t beats = (bytes.size() + kLineBytes - 1) / kLineBytes;
        uint64_t at = cycle + 1;
        if (latency_ > beats)
            at = cycle + latency_ - (beats - 1);
        // A frame never passes the one before it (a short frame behind a
        // long one would otherwise be due first).
        if (!frames_.empty() && frames_.back().arrives_at > at)
            at = frames_.back().arrives_at;
        held_bytes_ += bytes.size();
        frames_.push_back(Frame{std::move(bytes), at, 0});
        ++frames_sent_;
    }

    // Called once at the start of every cycle: counts what reaches the far end in it.
    void tick(uint64_t cycle) {
        while (arrived_ < frames_.size() && frames_[arrived_].arrives_at <= cycle) {
            ++arrived_;
            ++frames_arrived_;
        }
    }

    // The frame whose next beat is offered to the receiver this cycle, or null.
    const Frame *offered() const { return arrived_ > 0 ? &frames_.front() : nullptr; }
    // The oldest frame on the link, arrived or not, or null.
    const Frame *oldest() const { return frames_.empty() ? nullptr : &frames_.front(); }

    // The receiver took `n` bytes of the offered frame.
    void consume(size_t n) {
        Frame &f = frames_.front();
        f.delivered += n;
        held_bytes_ -= n;
        if (f.delivered >= f.bytes.size()) {
            frames_.pop_front();
            --arrived_;
        }
    }

    // Whether the sender may put another beat on the link.
    bool can_accept() const { return held_bytes_ < latency_ * kLineBytes + slack_; }

    uint64_t frames_sent() const { return frames_sent_; }
    uint64_t frames_arrived() const { return frames_arrived_; }
    size_t held_bytes() const { return held_bytes_; }

private:
    uint64_t latency_;
    size_t slack_;
    std::deque<Frame> frames_;
    size_t arrived_ = 0;          // frames_[0, arrived_) have reached the far end
    size_t held_bytes_ = 0;       // bytes sent and not yet taken by the receiver
    uint64_t frames_sent_ = 0, frames_arrived_ = 0;
};
