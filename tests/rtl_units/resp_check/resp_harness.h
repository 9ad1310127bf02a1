// Runs the Verilated rnic_resp_check beside the model of its contract
// (resp_model.h). The unit has no clock: each evaluation sets every input
// (mutant 0: no mutant), calls eval() and compares
//   act, duplicate          always, against the model's;
//   nak_syndrome, nak_status when the model's act is NAK (the header gives
//                           them a meaning only then).
// A failing evaluation is described in full (every input, the rule the
// model applied, both answers by name) for the first few, with the seed
// that replays it.
#ifndef RESP_HARNESS_H
#define RESP_HARNESS_H

#include <cstdint>
#include <memory>

#include "Vrnic_resp_check.h"
#include "resp_model.h"
#include "unit_bench.h"
#include "verilated.h"

struct RespStats {
    uint64_t evals = 0;
    uint64_t compared = 0;         // output fields compared
    uint64_t why[kNumWhy] = {};    // evaluations by the rule the model applied
    uint64_t dup_read = 0;         // duplicate READ requests (checked as new ones)
};

class RespHarness {
public:
    explicit RespHarness(uint64_t seed);
    ~RespHarness();
    RespHarness(const RespHarness &) = delete;
    RespHarness &operator=(const RespHarness &) = delete;

    // The unit's answer for `in` (checked against the model).
    RespOut eval(const RespIn &in);

    const RespStats &stats() const { return stats_; }
    uint64_t why(RespWhy w) const { return stats_.why[static_cast<unsigned>(w)]; }
    Rng &rng() { return rng_; }

private:
    void drive(const RespIn &in);
    RespOut read() const;
    void describe(const RespIn &in, const RespOut &got, const RespOut &want, RespWhy why);

    uint64_t seed_;
    Rng rng_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_resp_check> dut_;
    RespStats stats_;
    unsigned reports_ = 0;
};

#endif
