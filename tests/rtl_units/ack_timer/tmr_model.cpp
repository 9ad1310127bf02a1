#include "tmr_model.h"

#include <algorithm>

void TmrModel::reset() {
    for (Timer &t : t_) t = Timer{};
    due_ = 0;
    wake_valid_ = false;
    wake_at_ = 0;
    scanning_ = false;
    next_ = 0;
    kept_.clear();
}

TmrEvents TmrModel::edge(const TmrIn &in) {
    TmrEvents ev;
    Timer next[kNumQp];
    for (unsigned q = 0; q < kNumQp; q++) next[q] = t_[q];
    const unsigned arm_qp = in.arm_qp % kNumQp, kick_qp = in.kick_qp % kNumQp;
    const unsigned clear_qp = in.clear_qp % kNumQp, take_qp = in.take_qp % kNumQp;

    // Judged on the state before the edge.
    const bool start = starts(in.now);
    if (start) {
        ev.started = true;
        kept_.clear();
    }

    // The scan's read of this cycle: the word as it stood before the edge.
    bool found_due = false;
    unsigned found_qp = 0;
    if (scanning_) {
        const unsigned q = next_;
        const Timer &w = t_[q];
        const bool passed = w.on && in.now >= w.at;
        ev.read = true;
        ev.read_qp = q;
        if (in.arm && arm_qp == q) {
            ev.rewritten = true;
            ev.rewritten_passed = passed;
        } else if (in.clear && clear_qp == q) {
            ev.cleared_read = w.on;
            if (w.on)
                kept_.push_back(w.at);
        } else if (passed) {
            found_due = true;
            found_qp = q;
            ev.expired = true;
        } else if (w.on) {
            kept_.push_back(w.at);
        }
    }

    // An armed deadline: to the scan, or to wake_at at once.
    if (in.arm && in.arm_on) {
        if (scanning_ || start) {
            kept_.push_back(in.arm_at);
            ev.arm_to_scan = true;
        } else if (!wake_valid_ || in.arm_at < wake_at_) {
            wake_valid_ = true;
            wake_at_ = in.arm_at;
            ev.lowered = true;
        }
    }

    // The scan moves on, or ends and publishes.
    if (start) {
        scanning_ = true;
        next_ = 0;
    } else if (scanning_) {
        if (next_ + 1 == kNumQp) {
            scanning_ = false;
            ev.ended = true;
            wake_valid_ = !kept_.empty();
            ev.published_none = kept_.empty();
            if (wake_valid_)
                wake_at_ = *std::min_element(kept_.begin(), kept_.end());
            kept_.clear();
        } else {
            next_++;
        }
    }

    // The timers and due bits, in the order they win.
    uint32_t due = due_;
    if (found_due) {
        next[found_qp].on = false;
        due |= 1u << found_qp;
    }
    if (in.arm) {
        next[arm_qp].on = in.arm_on;
        next[arm_qp].at = in.arm_at;
    }
    if (in.kick)
        due |= 1u << kick_qp;
    if (in.take)
        due &= ~(1u << take_qp);
    if (in.clear) {
        next[clear_qp].on = false;
        due &= ~(1u << clear_qp);
    }
    for (unsigned q = 0; q < kNumQp; q++) t_[q] = next[q];
    due_ = due;
    return ev;
}
