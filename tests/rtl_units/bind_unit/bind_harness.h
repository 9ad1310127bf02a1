// Runs the Verilated rnic_bind_unit against a fake protection table, with
// the bench's rule checker (bind_checker.h) watching its ports every cycle.
//
// The fake table is the engine's local check port and rnic_ptable's bind
// port as docs/ptable-interface.md gives them, with the timing left random
// where the contract leaves it open: a check's verdict comes after a random
// latency of at least one cycle (the real table takes two), WINDOW checks
// get the configured window verdict and LOCAL ones the region verdict; a
// commit is taken on a random attempt (the real table takes it in a cycle
// without a management command) and answered the cycle after with
// bind_done and the configured bind_ok. Inputs that mean nothing in a cycle
// (a verdict without chk_rsp_valid, the BIND's fields outside a BIND) carry
// junk.
#ifndef BIND_HARNESS_H
#define BIND_HARNESS_H

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "Vrnic_bind_unit.h"
#include "bind_checker.h"
#include "verilated.h"

struct TableCfg {
    unsigned win_verdict = 0;   // RNIC_PT_VERDICT_* for the window check
    unsigned lmr_verdict = 0;   // ... and for the region check
    bool commit_ok = true;      // bind_ok with bind_done (false: the window changed meanwhile)
    unsigned lat_min = 1, lat_max = 1;    // a verdict's latency, cycles after the request
    unsigned take_min = 1, take_max = 1;  // the commit attempt the table takes
};

struct CheckReq {
    uint64_t cycle = 0;
    unsigned mode = 0;
    uint32_t key = 0;
    unsigned rights = 0;
    uint64_t addr = 0;
    uint32_t len = 0;
};

struct Commit {
    uint64_t cycle = 0;
    uint32_t index = 0;
    uint8_t key = 0;
    uint16_t pz = 0;
    uint64_t base = 0, len = 0;
    unsigned rights = 0, state = 0;
    uint32_t link = 0;
};

struct BindResult {
    bool done = false, ok = false;
    uint64_t start = 0;         // the cycle start was high
    uint64_t done_cycle = 0;
    std::vector<CheckReq> checks;
    std::vector<Commit> commits;   // every bind_valid cycle
    bool taken = false;            // the table took a commit (and wrote it if commit_ok)
    uint64_t cycles() const { return done_cycle - start + 1; }
};

class BindHarness {
public:
    BindHarness(uint32_t seed, unsigned mutant);
    ~BindHarness();
    BindHarness(const BindHarness &) = delete;
    BindHarness &operator=(const BindHarness &) = delete;

    void reset();                // two cycles of rst_n low
    void set_mutant(unsigned m) { mutant_ = m; }
    // One BIND from start to done, then `tail` quiet cycles (nothing may
    // happen in them). reset_at > 0: rst_n falls that many cycles after
    // start instead, and the run ends there.
    BindResult run(const BindOp &op, const TableCfg &cfg, unsigned tail = 4, unsigned reset_at = 0);
    void idle(unsigned n);
    BindChecker &checker() { return checker_; }
    uint64_t now() const { return cycles_; }
    std::mt19937 &rng() { return rng_; }
    uint32_t seed() const { return seed_; }

private:
    struct Pending {
        bool valid = false;
        uint64_t due = 0;
        unsigned verdict = 0;
    };
    // One clock cycle; returns the ports as the checker saw them.
    BindPorts cycle(bool start, const BindOp *op, const TableCfg &cfg, BindResult *res);
    unsigned junk_verdict();

    uint32_t seed_;
    std::mt19937 rng_;
    unsigned mutant_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_bind_unit> dut_;
    BindChecker checker_;
    uint64_t cycles_ = 0;
    Pending chk_;                // the verdict the table owes
    bool bind_answer_ = false;   // bind_done in the next cycle
    bool bind_answer_ok_ = false;
    unsigned attempts_ = 0, take_on_ = 1;
};

#endif
