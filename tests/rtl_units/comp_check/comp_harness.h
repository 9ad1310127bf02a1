// Runs the Verilated rnic_comp_check beside the model of its header comment
// (comp_model.h). The unit has no clock: each check() drives every input,
// evaluates, and compares
//   accept       always, with the model's verdict;
//   ack_status   when the model accepts an ACK (the only time the contract
//                gives it a meaning): equal to the status of the NAK's
//                reason (SUCCESS for kind ACK), or, where the header names
//                no reason, anything but SUCCESS (the value the unit gives
//                is counted in CompStats::other_status).
// A failing evaluation is described in full (every input, the model's
// reason) for the first few, with the seed that replays it.
#ifndef COMP_HARNESS_H
#define COMP_HARNESS_H

#include <cstdint>
#include <map>
#include <memory>

#include "Vrnic_comp_check.h"
#include "comp_model.h"
#include "unit_bench.h"
#include "verilated.h"

struct CompStats {
    uint64_t evals = 0;
    uint64_t compared = 0;                          // output fields compared
    uint64_t why[static_cast<int>(Why::Count)] = {};
    uint64_t status_exact = 0, status_not_success = 0;
    std::map<uint8_t, uint64_t> other_status;       // unit's status where the header names no reason
};

class CompHarness {
public:
    explicit CompHarness(uint64_t seed);
    ~CompHarness();
    CompHarness(const CompHarness &) = delete;
    CompHarness &operator=(const CompHarness &) = delete;

    // Drives `in`, evaluates, compares with the model; returns the outputs.
    CompOut check(const CompIn &in);
    // The same without the comparison (the breaks' probe, the report).
    CompOut eval(const CompIn &in);

    const CompStats &stats() const { return stats_; }
    Rng &rng() { return rng_; }
    uint64_t seed() const { return seed_; }

private:
    uint64_t seed_;
    Rng rng_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_comp_check> dut_;
    CompStats stats_;
    unsigned reports_ = 0;
};

// One line naming every input, for reports.
void describe(const CompIn &in, char *buf, unsigned size);

#endif
