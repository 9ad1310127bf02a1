// A reference model of the per-QP retransmission timers, written from the
// header comment of rtl/rnic_ack_timer.sv, not from its code.
//
// Per QP: a timer (off, or armed for a 64-bit deadline) and a due bit.
// Besides: the earliest deadline the unit knows of (wake_valid, wake_at),
// and a scan, running or not. A deadline passes at time_now >= deadline.
//
// At a clock edge, with the inputs of the cycle before it:
//   scan      When no scan runs, wake_valid is set and time_now >= wake_at,
//             a scan starts: it reads QP 0 in the next cycle, QP 1 in the
//             one after, ..., QP NUM_QP-1 in its last, one QP a cycle
//             (idle, "no scan under way", is low exactly in those
//             cycles). Reading QP q, against the time_now of that cycle:
//               - a QP the job writes (arm or stop) in that same cycle:
//                 the job's word is the one that counts (the unit's header:
//                 "the job's write to the QP being scanned wins"), so the
//                 old deadline is neither marked nor kept; a new armed
//                 deadline is kept by the arm rule below;
//               - otherwise an armed QP whose deadline has passed: marked
//                 due, its timer stops (it has run out);
//               - otherwise an armed QP: its deadline is kept.
//             At the end of its last cycle the scan publishes the earliest
//             deadline it kept as wake_at (wake_valid low if none). Until
//             then wake_valid / wake_at stay as they were.
//   arm       arm_on: the QP's timer armed for arm_at; otherwise stopped.
//             An armed deadline in a cycle in which a scan runs or starts is
//             kept by that scan (published at its end, "an arm now is not
//             in the old wake_at"); in any other cycle it lowers wake_at at
//             once if earlier (or sets it if none).
//   kick      the QP due.
//   take      the QP not due.
//   clear     (QP_CMD_INIT) the QP's timer stops and it is not due.
// The cases the header leaves open, on one QP in one cycle, as the bench
// reads them (the unit agrees; tb_ack_timer.cpp's same_cycle and
// kick_take_clear spell them out):
//   - clear wins over everything (arm, kick, the scan's finding): the
//     connection starts again;
//   - take wins over a kick and over the scan's finding of that cycle (the
//     retry job starting now is the one they ask for); the timer that ran
//     out is stopped all the same;
//   - a clear of the QP the scan reads: not marked due, but its deadline as
//     read is kept (wake_at may be earlier than needed: the header's "a
//     timer stopped since");
//   - an arm and a kick: both (armed and due).
// Every deadline any arm of a scan's cycles gives is kept, even one stopped
// or re-armed later in the scan: wake_at may again be earlier than needed,
// never later.
// rst_n: every timer off, nothing due, no scan, wake_valid low.
#ifndef TMR_MODEL_H
#define TMR_MODEL_H

#include <cstdint>
#include <vector>

#include "rnic_hw.h"

constexpr unsigned kNumQp = RNIC_UNIT_NUM_QP;   // the unit verilated at this size (CMakeLists.txt)
static_assert((kNumQp & (kNumQp - 1)) == 0 && kNumQp >= 2, "the bench drives QP indices as all QW bits");
static_assert(kNumQp <= 32, "the bench reads due as one word");

// The inputs of one cycle; the *_qp fields of an input not valid are junk.
struct TmrIn {
    uint64_t now = 0;
    bool arm = false;
    unsigned arm_qp = 0;
    bool arm_on = false;
    uint64_t arm_at = 0;
    bool kick = false;
    unsigned kick_qp = 0;
    bool clear = false;
    unsigned clear_qp = 0;
    bool take = false;
    unsigned take_qp = 0;
};

// What one edge did, for the tallies and the tests.
struct TmrEvents {
    bool started = false;      // a scan started (it reads QP 0 in the next cycle)
    bool read = false;         // the scan read read_qp in this cycle
    unsigned read_qp = 0;
    bool expired = false;      // ... and found its deadline passed: timer stopped, due (unless taken)
    bool rewritten = false;    // ... the job wrote that QP in this cycle
    bool rewritten_passed = false;   // ... and its old deadline had passed (the write saved it)
    bool cleared_read = false; // ... cleared in this cycle, its timer armed as read
    bool arm_to_scan = false;  // an armed deadline went to the scan (running or starting)
    bool lowered = false;      // an arm lowered (or set) wake_at at once
    bool ended = false;        // the scan ended and published
    bool published_none = false;     // ... no deadline at all
};

class TmrModel {
public:
    void reset();
    TmrEvents edge(const TmrIn &in);

    bool armed(unsigned q) const { return t_[q % kNumQp].on; }
    uint64_t deadline(unsigned q) const { return t_[q % kNumQp].at; }
    bool due(unsigned q) const { return (due_ >> (q % kNumQp)) & 1u; }
    uint32_t due_mask() const { return due_; }
    bool wake_valid() const { return wake_valid_; }
    uint64_t wake_at() const { return wake_at_; }
    bool scanning() const { return scanning_; }
    // The QP the scan reads in the coming cycle (with scanning()).
    unsigned scan_next() const { return next_; }
    // Whether a scan starts in a cycle at time `now` with no scan running.
    bool starts(uint64_t now) const { return !scanning_ && wake_valid_ && now >= wake_at_; }

private:
    struct Timer {
        bool on = false;
        uint64_t at = 0;
    };
    Timer t_[kNumQp];
    uint32_t due_ = 0;             // bit q: QP q due
    bool wake_valid_ = false;
    uint64_t wake_at_ = 0;
    bool scanning_ = false;
    unsigned next_ = 0;
    std::vector<uint64_t> kept_;   // the deadlines the running scan will publish the earliest of
};

#endif
