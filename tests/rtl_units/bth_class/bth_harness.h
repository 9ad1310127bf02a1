// Runs the Verilated rnic_bth_class beside the model of its contract
// (bth_model.h). The unit has no clock: each check() drives the opcode,
// evaluates, and compares all nine outputs with the model's; a mismatch is
// described in full (the opcode, the table's name for it, every output of
// both) for the first few.
#ifndef BTH_HARNESS_H
#define BTH_HARNESS_H

#include <cstdint>
#include <memory>

#include "Vrnic_bth_class.h"
#include "bth_model.h"
#include "unit_bench.h"
#include "verilated.h"

struct BthStats {
    uint64_t evals = 0;
    uint64_t compared = 0;   // output fields compared
};

class BthHarness {
public:
    explicit BthHarness(uint64_t seed);
    ~BthHarness();
    BthHarness(const BthHarness &) = delete;
    BthHarness &operator=(const BthHarness &) = delete;

    // Drives op, evaluates, compares with the model; returns the outputs.
    BthOut check(uint8_t op);

    const BthStats &stats() const { return stats_; }
    Rng &rng() { return rng_; }

private:
    uint64_t seed_;
    Rng rng_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_bth_class> dut_;
    BthStats stats_;
    unsigned reports_ = 0;
};

// "is_send is_write ..." with the set ones named, for reports.
void describe(const BthOut &o, char *buf, unsigned size);

#endif
