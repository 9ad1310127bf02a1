// Runs the Verilated rnic_ptable and the C reference model in lockstep, one
// clock cycle at a time, and compares every output the interface defines:
// mgmt_done / mgmt_err one cycle after a command, the fields a READ returns,
// bind_done / bind_ok one cycle after a bind commit, and on both check ports
// req_ready, and rsp_valid / verdict / base two cycles after a request (three
// for a remote access a window grants: its region is read in the second).
#ifndef PTABLE_HARNESS_H
#define PTABLE_HARNESS_H

#include <cstdint>
#include <memory>

#include "Vrnic_ptable.h"
#include "ptable_model.h"
#include "verilated.h"

// What the bench drives in one cycle. A check is driven only while its
// port is ready (the harness refuses to drive a busy port).
struct CycleIn {
    bool reset = false;  // rst_n low this cycle
    bool mgmt = false;
    unsigned cmd = 0;
    uint32_t index = 0;
    ptm_entry entry{};
    bool bind = false;   // a bind commit (taken only without a management command)
    uint32_t bind_index = 0;
    ptm_entry bind_entry{};
    bool lchk = false;
    ptm_request lreq{};  // any mode
    bool rchk = false;
    ptm_request rreq{};  // the remote port's mode is always REMOTE
};

struct HarnessStats {
    uint64_t cycles = 0;
    uint64_t checks = 0;          // verdicts compared
    uint64_t window_checks = 0;   // of which a window's region was looked up
    uint64_t mgmt_cmds = 0;       // management commands compared
    uint64_t binds = 0;           // bind commits compared
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
    bool l_ready() const { return !l_.s1.valid && !l_.s2.valid; }
    bool r_ready() const { return !r_.s1.valid && !r_.s2.valid; }
    const ptable_model &model() const { return model_; }
    const HarnessStats &stats() const { return stats_; }
    uint32_t entries() const { return entries_; }

private:
    struct Expect {
        bool valid = false;
        bool looked_up = false;   // a window's region was read for it
        ptm_verdict want{};       // model with this run's mutant
        ptm_verdict strict{};     // model with no mutant
        ptm_request req{};
    };
    // A check port as the model sees it: the request of the cycle before (s1)
    // and a window's region lookup (s2).
    struct Port {
        Expect s1, s2;
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
    Expect advance(Port &p, bool issue, const ptm_request &req);
    void compare_port(const char *port, const Expect &e, bool rsp_valid, unsigned verdict, uint64_t base);
    void compare_mgmt();
    void fail(const char *fmt, ...) __attribute__((format(printf, 2, 3)));

    uint32_t entries_;
    unsigned mutant_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_ptable> dut_;
    ptable_model model_{};
    HarnessStats stats_{};
    Port l_, r_;
    MgmtExpect mgmt_prev_;        // command of this cycle, answered after its edge
};

#endif
