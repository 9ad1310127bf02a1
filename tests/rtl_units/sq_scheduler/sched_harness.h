// Runs the Verilated rnic_sq_scheduler beside the model of its rules
// (sched_model.h), one clock cycle at a time. In every cycle every output
// is compared with the model twice: before the edge, and after it with the
// same inputs (the pointer may have moved): pick_any, bind_any, retry_any,
// flush_any and rd_at_limit always, pick_q / bind_q / retry_q / flush_q
// whenever their *_any is high (without it the engine does not read them).
//
// The bench is the engine: it raises advance only in a cycle with a pick
// (the engine's condition includes pick_any; the harness refuses
// otherwise). It also watches fairness itself: a QP ready at every pick is
// picked within NUM_QP picks (the unit's a_fair states the same).
#ifndef SCHED_HARNESS_H
#define SCHED_HARNESS_H

#include <cstdint>
#include <memory>

#include "Vrnic_sq_scheduler.h"
#include "sched_model.h"
#include "unit_bench.h"
#include "verilated.h"

struct SchedStats {
    uint64_t cycles = 0;
    uint64_t advances = 0;
    uint64_t pick_cycles = 0, bind_cycles = 0, retry_cycles = 0, flush_cycles = 0;
    uint64_t retry_and_pick = 0;     // cycles with a retry due and a pick, of different QPs
    uint64_t rnr_skipped = 0;        // picks with an RTS QP with work passed over for rnr_wait alone
    uint64_t at_limit = 0, under_limit = 0;
    uint64_t mutant_lifted = 0;      // picks of a QP whose bind_wait the mutant ignored
    uint64_t paused_picks = 0;       // picks of a QP with a paused WQE
    uint64_t paused_lifted = 0;      // ... that a hold would have blocked without the pause
    uint64_t wrapped_picks = 0;      // picks below the pointer (the search wrapped)
    unsigned max_passed = 0;         // most picks a ready QP waited through
    uint64_t resets = 0;
};

class SchedHarness {
public:
    explicit SchedHarness(uint64_t seed);
    ~SchedHarness();
    SchedHarness(const SchedHarness &) = delete;
    SchedHarness &operator=(const SchedHarness &) = delete;

    void reset();                           // two cycles of rst_n low (junk advance), model cleared
    // One cycle with `in` on the ports; returns what the unit gave before
    // the edge (checked against the model).
    SchedOut cycle(const SchedIn &in);
    // The outputs for `in` with no edge (checked too): a look before deciding advance.
    SchedOut peek(const SchedIn &in);

    const SchedModel &model() const { return model_; }
    const SchedStats &stats() const { return stats_; }
    uint64_t now() const { return stats_.cycles; }
    Rng &rng() { return rng_; }

private:
    void drive(const SchedIn &in, bool advance);
    SchedOut read_and_check(const SchedIn &in, const char *when);
    void edge();

    uint64_t seed_;
    Rng rng_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_sq_scheduler> dut_;
    SchedModel model_;
    SchedStats stats_;
    unsigned passed_[kNumQp] = {};
    unsigned reports_ = 0;
};

#endif
