// Runs the Verilated rnic_ptable and the C reference model in lockstep, one
// clock cycle at a time, and compares every output the interface defines:
// mgmt_done / mgmt_err one cycle after a command, the fields a READ returns,
// and rsp_valid / verdict / base on both check ports exactly two cycles after
// each request.
#ifndef PTABLE_HARNESS_H
#define PTABLE_HARNESS_H

#include <cstdint>
#include <memory>

#include "Vrnic_ptable.h"
#include "ptable_model.h"
#include "verilated.h"

// What the bench drives in one cycle.
struct CycleIn {
    bool reset = false;  // rst_n low this cycle
    bool mgmt = false;
    unsigned cmd = 0;
    uint32_t index = 0;
    ptm_entry entry{};
    bool lchk = false;
    ptm_request lreq{};
    bool rchk = false;
    ptm_request rreq{};
};

struct HarnessStats {
    uint64_t cycles = 0;
    uint64_t checks = 0;          // verdicts compared
    uint64_t mgmt_cmds = 0;       // management commands compared
    uint64_t mismatches = 0;      // RTL differs from the model run with the same mutant
    uint64_t differ_strict = 0;   // RTL verdict differs from the model with no mutant
    uint64_t let_through = 0;     // RTL says OK where the model with no mutant refuses
};

class PtableHarness {
public:
    // `mutant` drives the RTL's mutant input and selects the model's broken rule.
    PtableHarness(uint32_t entries, unsigned mutant);
    ~PtableHarness();
    PtableHarness(const PtableHarness &) = delete;
    PtableHarness &operator=(const PtableHarness &) = delete;

    void cycle(const CycleIn &in);
    void idle(unsigned n);         // cycles with nothing driven
    void reset();                  // two reset cycles, then one idle
    const ptable_model &model() const { return model_; }
    const HarnessStats &stats() const { return stats_; }
    uint32_t entries() const { return entries_; }

private:
    struct Expect {
        bool valid = false;
        ptm_verdict want{};       // model with this run's mutant
        ptm_verdict strict{};     // model with no mutant
        ptm_request req{};
    };
    struct MgmtExpect {
        bool valid = false;
        bool err = false;
        bool read = false;
        unsigned cmd = 0;
        uint32_t index = 0;
        ptm_entry fields{};
    };

    void drive(const CycleIn &in);
    void compare_port(const char *port, const Expect &e, bool rsp_valid, unsigned verdict, uint64_t base);
    void compare_mgmt();
    void fail(const char *fmt, ...) __attribute__((format(printf, 2, 3)));

    uint32_t entries_;
    unsigned mutant_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_ptable> dut_;
    ptable_model model_{};
    HarnessStats stats_{};
    Expect l_prev_, r_prev_;      // requests of the previous cycle, answered after this one
    MgmtExpect mgmt_prev_;        // command of this cycle, answered after its edge
};

#endif
