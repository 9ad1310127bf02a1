// Runs the Verilated rnic_comp_check beside the model of its header comment
// (comp_model.h). The unit has no clock: each check() drives every input
// (mutant 0: no mutant), evaluates, and compares
//   act          with the model's, whenever the model judges the inputs; in
//                a place where the RTL is known to disagree with its header
//                (comp_model.h lists them) the RTL's answer is accepted as
//                well, and which of the two the unit gave is counted;
//   ack_status   when the unit and the model both say FAIL (the only time
//                the header gives it a meaning): the status of the NAK's
//                reason, or, where the header names no reason, anything but
//                SUCCESS (the value the unit gives is counted in
//                CompStats::other_status).
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
    uint64_t unjudged = 0;                          // evaluations the model does not judge
    uint64_t why[static_cast<int>(Why::Count)] = {};
    uint64_t act[kCompActs] = {};                   // the unit's act, judged evaluations
    // Where the RTL disagrees with its header: the unit gave the header's
    // answer, or the RTL's other one (by the clause).
    uint64_t header_answer[static_cast<int>(Why::Count)] = {};
    uint64_t alt_answer[static_cast<int>(Why::Count)] = {};
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
    // The same without the comparison.
    CompOut eval(const CompIn &in);

    const CompStats &stats() const { return stats_; }
    uint64_t why(Why w) const { return stats_.why[static_cast<int>(w)]; }
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

// The disagreements the unit showed (CompStats::alt_answer), one line each;
// prefix names the test.
void print_disagreements(const char *prefix, const CompStats &s);

#endif
