// The bench's own statement of rnic_bind_unit's rules (the header of
// rtl/rnic_bind_unit.sv, docs/bind-fencing.md), checked on its ports alone,
// cycle by cycle: it does not read the unit's state or its assertions, so a
// unit that breaks a rule is caught here whatever its mutant input says.
//
//   1. the cycle after start: one check of the window, mode WINDOW, key
//      win_key, rights 0;
//   2. the cycle after a granted window verdict, unless it unbinds (mr_len
//      0): one check of the region, mode LOCAL, key mr_lkey, the local
//      rights the new remote rights need (remote read -> local read, remote
//      write -> local write), over [mr_addr, mr_addr + mr_len);
//   3. the cycle after the last granted verdict: bind_valid, with
//      bind_index the window's index, bind_key the new key (never the
//      window's own), bind_pz the QP's PZ, and base / len / rights / VALID /
//      link mr_lkey, or for an unbind 0 / 0 / 0 / FREE / 0; repeated every
//      other cycle until the table answers (bind_done, the cycle after a
//      bind_valid it took), never in the cycle of that answer;
//   4. done in the cycle of a refusing verdict (ok 0) or of bind_done (ok =
//      bind_ok), and at no other time; nothing after a refusal.
#ifndef BIND_CHECKER_H
#define BIND_CHECKER_H

#include <cstdint>
#include <string>

// What a BIND hands the unit: the WQE's fields and the QP's PZ, steady
// from start to done.
struct BindOp {
    uint32_t win_key = 0;      // the window's current key: index << 8 | key8
    uint8_t new_key = 0;
    unsigned new_rights = 0;   // RNIC_ACCESS_REMOTE_* only
    uint32_t mr_lkey = 0;
    uint64_t mr_addr = 0;
    uint32_t mr_len = 0;       // 0 unbinds
    uint16_t pz = 0;
    bool unbind() const { return mr_len == 0; }
    unsigned need() const;     // the local rights the region must grant
};

// The unit's ports in one cycle, before the clock edge.
struct BindPorts {
    bool start = false;
    BindOp op;
    bool done = false, ok = false;
    bool chk_valid = false;
    unsigned chk_mode = 0;
    uint32_t chk_key = 0;
    unsigned chk_rights = 0;
    uint64_t chk_addr = 0;
    uint32_t chk_len = 0;
    bool chk_rsp_valid = false;
    unsigned chk_verdict = 0;
    bool bind_valid = false;
    uint32_t bind_index = 0;
    uint8_t bind_key = 0;
    uint16_t bind_pz = 0;
    uint64_t bind_base = 0, bind_len = 0;
    unsigned bind_rights = 0, bind_state = 0;
    uint32_t bind_link = 0;
    bool bind_done = false, bind_ok = false;
};

class BindChecker {
public:
    enum Rule {
        kWindowCheck,          // the window check's mode, key or rights
        kRegionCheck,          // the region check's mode, key, rights or range, or one for an unbind
        kCommitWithoutWindow,  // bind_valid without a granted window check
        kCommitWithoutRegion,  // bind_valid (not an unbind) without a granted region check
        kCommitOldKey,         // bind_key is the window's current key
        kCommitFields,         // any other bind_* field
        kCommitAfterRefusal,   // bind_valid after a refused check
        kSequence,             // a check or commit nothing asked for, or two checks at once
        kTiming,               // a step not in the cycle the contract gives it
        kDone,                 // done missing, early or late, or ok wrong
        kRules
    };
    static const char *name(Rule r);

    void reset();              // rst_n: forget the BIND under way
    void observe(uint64_t cycle, const BindPorts &p);
    // The run's driver gave up waiting for done.
    void never_done(uint64_t cycle);
    bool busy() const { return step_ != Step::Idle; }

    unsigned count(Rule r) const { return count_[r]; }
    unsigned total() const;
    const std::string &first(Rule r) const { return first_[r]; }
    void clear_counts();
    // Each violation is printed as it is found (the first few of a run)
    // unless quiet, for the runs that expect them.
    void set_quiet(bool q) { quiet_ = q; }

private:
    enum class Step { Idle, WinDue, WinWait, LmrDue, LmrWait, CommitDue, CommitWait };
    void flag(Rule r, uint64_t cycle, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
    void check_commit(uint64_t cycle, const BindPorts &p);

    Step step_ = Step::Idle;
    BindOp op_;
    uint64_t due_ = 0;          // the cycle the next step is due in
    bool late_ = false;         // the due step was already reported late
    bool win_granted_ = false, lmr_granted_ = false;
    bool refused_ = false;      // the last BIND ended with a refused check
    bool any_ = false;          // a BIND was started since reset
    unsigned count_[kRules] = {};
    std::string first_[kRules];
    unsigned printed_ = 0;
    bool quiet_ = false;
};

#endif
