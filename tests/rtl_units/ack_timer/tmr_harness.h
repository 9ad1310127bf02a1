// Runs the Verilated rnic_ack_timer beside the model of its contract
// (tmr_model.h), one clock cycle at a time. The bench is the platform (it
// drives time_now, which never goes back) and the engine (arms, stops,
// kicks, takes, clears). In every cycle the outputs are compared with the
// model twice: before the edge, with the cycle's inputs on the ports (every
// output is a function of flip-flops, so the inputs must not show), and
// after it (the edge's work landed):
//   due                        every bit;
//   wake_valid, wake_at        wake_at while wake_valid (it means nothing
//                              without);
//   idle                       low exactly while the model's scan runs.
// And, from the header's promises rather than the model's state:
//   wake covers                while idle, every QP the model has armed has
//                              wake_valid set and wake_at at or before its
//                              deadline (what lets a platform skip idle
//                              time up to wake_at);
//   latency                    a deadline is found (the QP marked) at most
//                              NUM_QP + 1 edges after the first cycle in
//                              which time_now had reached it: a scan under
//                              way ends, the next one starts at once and
//                              reaches the QP (kLatencyBound).
// A failing cycle is described in full (inputs, unit, model) for the first
// few, with the seed that replays it.
#ifndef TMR_HARNESS_H
#define TMR_HARNESS_H

#include <cstdint>
#include <memory>

#include "Vrnic_ack_timer.h"
#include "tmr_model.h"
#include "unit_bench.h"
#include "verilated.h"

// Edges from the first cycle with time_now >= deadline to the edge that
// marks the QP, at most (the harness's latency check).
constexpr uint64_t kLatencyBound = kNumQp + 1;

// What the unit shows.
struct TmrOut {
    uint32_t due = 0;
    bool wake_valid = false;
    uint64_t wake_at = 0;
    bool idle = false;
};

struct TmrStats {
    uint64_t cycles = 0;
    uint64_t resets = 0;
    uint64_t compared = 0;            // output fields compared
    uint64_t wake_checks = 0;         // (idle cycle, armed QP) pairs held against wake_at
    uint64_t arms = 0, stops = 0, kicks = 0, takes = 0, takes_due = 0, clears = 0;
    uint64_t scans = 0, expiries = 0;
    uint64_t expiries_taken = 0;      // a take of the QP in the cycle the scan marked it
    uint64_t rewritten = 0;           // the job wrote the QP the scan read in that cycle
    uint64_t rewritten_passed = 0;    // ... whose old deadline had passed
    uint64_t cleared_read = 0;        // a clear of the armed QP the scan read in that cycle
    uint64_t arms_to_scan = 0;        // armed deadlines a running or starting scan kept
    uint64_t lowered = 0;             // arms that lowered (or set) wake_at at once
    uint64_t published_none = 0;      // scans that ended with no deadline (wake_valid low)
    uint64_t published_later = 0;     // scans that moved wake_at later without marking anything
    uint64_t jumps = 0;               // cycles time_now moved by more than 1 while idle
    uint64_t jumps_to_wake = 0;       // ... landing exactly on wake_at
    uint64_t fast_scan_steps = 0;     // cycles time_now moved by more than 1 during a scan
    uint64_t latency_max = 0;         // edges, from a deadline reached to its QP marked
    uint64_t latency_hist[kLatencyBound + 2] = {};
};

class TmrHarness {
public:
    // Time starts at t0 (time_now of the first cycle is at least that).
    explicit TmrHarness(uint64_t seed, uint64_t t0 = 0);
    ~TmrHarness();
    TmrHarness(const TmrHarness &) = delete;
    TmrHarness &operator=(const TmrHarness &) = delete;

    // Two cycles of rst_n low (junk, valid inputs at random; time goes on), model reset.
    void reset();
    // One cycle with `in` on the ports (in.now >= now()); returns what the
    // unit shows after the edge. Checks before and after the edge.
    TmrOut cycle(const TmrIn &in);
    // Nothing valid, every other field junk, at time `now`.
    TmrIn quiet(uint64_t now);
    // What the unit shows now (after the last edge).
    TmrOut out() const;

    const TmrModel &model() const { return model_; }
    const TmrStats &stats() const { return stats_; }
    // What the model says the last edge did.
    const TmrEvents &events() const { return events_; }
    uint64_t now() const { return now_; }   // time_now of the last cycle
    uint64_t cycles() const { return stats_.cycles; }
    Rng &rng() { return rng_; }

private:
    void drive(const TmrIn &in, bool rst_n);
    void check(const TmrIn &in, const char *when);
    void edge();
    void describe(const TmrIn &in, const TmrOut &got, const char *when);
    void tally(const TmrIn &in);
    void tally(const TmrIn &in, const TmrEvents &ev, bool was_valid, uint64_t was_at);

    uint64_t seed_;
    Rng rng_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_ack_timer> dut_;
    TmrModel model_;
    TmrStats stats_;
    TmrEvents events_;
    uint64_t now_;
    // Per QP: the cycle in which time_now first reached its armed deadline
    // (kNever: not reached, or not armed), for the latency check.
    uint64_t reached_[kNumQp];
    bool scan_marked_ = false;   // the running (or last) scan marked a QP due
    unsigned reports_ = 0;
};

#endif
