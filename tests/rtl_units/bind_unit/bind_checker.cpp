#include "bind_checker.h"

#include <cstdarg>
#include <cstdio>

#include "rnic_hw.h"

namespace {
constexpr unsigned kMaxPrinted = 10;   // violations printed per run
}

unsigned BindOp::need() const {
    unsigned n = 0;
    if (new_rights & RNIC_ACCESS_REMOTE_READ)
        n |= RNIC_ACCESS_LOCAL_READ;
    if (new_rights & RNIC_ACCESS_REMOTE_WRITE)
        n |= RNIC_ACCESS_LOCAL_WRITE;
    return n;
}

const char *BindChecker::name(Rule r) {
    static const char *const kNames[kRules] = {
        "window_check",         "region_check",  "commit_without_window", "commit_without_region",
        "commit_old_key",       "commit_fields", "commit_after_refusal",  "sequence",
        "timing",               "done",
    };
    return r < kRules ? kNames[r] : "?";
}

void BindChecker::reset() {
    step_ = Step::Idle;
    late_ = false;
    refused_ = false;
    any_ = false;
}

unsigned BindChecker::total() const {
    unsigned t = 0;
    for (unsigned c : count_) t += c;
    return t;
}

void BindChecker::clear_counts() {
    for (unsigned r = 0; r < kRules; r++) {
        count_[r] = 0;
        first_[r].clear();
    }
    printed_ = 0;
}

void BindChecker::flag(Rule r, uint64_t cycle, const char *fmt, ...) {
    char msg[256];
    std::va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ++count_[r];
    if (first_[r].empty())
        first_[r] = msg;
    if (!quiet_ && printed_++ < kMaxPrinted)
        std::fprintf(stderr, "[bind_unit cycle %llu] %s: %s\n", static_cast<unsigned long long>(cycle), name(r), msg);
}

void BindChecker::never_done(uint64_t cycle) {
    flag(kDone, cycle, "no done: the BIND never ended");
    step_ = Step::Idle;
}

void BindChecker::check_commit(uint64_t cycle, const BindPorts &p) {
    if (step_ == Step::Idle) {
        if (any_ && refused_)
            flag(kCommitAfterRefusal, cycle, "bind_valid after the BIND ended with a refused check");
        else
            flag(kSequence, cycle, "bind_valid with no BIND waiting to commit");
        return;
    }
    if (!win_granted_)
        flag(kCommitWithoutWindow, cycle, "bind_valid without a granted window check");
    if (!op_.unbind() && !lmr_granted_)
        flag(kCommitWithoutRegion, cycle, "bind_valid (length %u) without a granted region check", op_.mr_len);
    if (step_ == Step::CommitDue && cycle != due_)
        flag(kTiming, cycle, "bind_valid %lld cycle(s) from when it was due", static_cast<long long>(cycle - due_));

    const uint8_t old_key = static_cast<uint8_t>(op_.win_key & 0xFFu);
    if (p.bind_key == old_key)
        flag(kCommitOldKey, cycle, "bind_key %02x is the window's current key (new key %02x)", p.bind_key, op_.new_key);
    else if (p.bind_key != op_.new_key)
        flag(kCommitFields, cycle, "bind_key %02x, expected %02x", p.bind_key, op_.new_key);
    if (p.bind_index != op_.win_key >> 8)
        flag(kCommitFields, cycle, "bind_index %06x, expected %06x", p.bind_index, op_.win_key >> 8);
    if (p.bind_pz != op_.pz)
        flag(kCommitFields, cycle, "bind_pz %04x, expected %04x", p.bind_pz, op_.pz);
    const bool unbind = op_.unbind();
    const uint64_t base = unbind ? 0 : op_.mr_addr;
    const uint64_t len = op_.mr_len;
    const unsigned rights = unbind ? 0 : op_.new_rights;
    const unsigned state = unbind ? RNIC_PT_STATE_FREE : RNIC_PT_STATE_VALID;
    const uint32_t link = unbind ? 0 : op_.mr_lkey;
    if (p.bind_base != base || p.bind_len != len || p.bind_rights != rights || p.bind_state != state ||
        p.bind_link != link)
        flag(kCommitFields, cycle,
             "%s: base %llx len %llx rights %x state %u link %08x, expected base %llx len %llx rights %x state %u "
             "link %08x",
             unbind ? "unbind" : "bind", static_cast<unsigned long long>(p.bind_base),
             static_cast<unsigned long long>(p.bind_len), p.bind_rights, p.bind_state, p.bind_link,
             static_cast<unsigned long long>(base), static_cast<unsigned long long>(len), rights, state, link);
    step_ = Step::CommitWait;
    late_ = false;
}

void BindChecker::observe(uint64_t cycle, const BindPorts &p) {
    bool want_done = false, want_ok = false;

    // 1. The table's answer to last cycle's bind_valid: done now, or a retry
    //    due in the next cycle.
    if (step_ == Step::CommitWait) {
        if (p.bind_done) {
            want_done = true;
            want_ok = p.bind_ok;
            step_ = Step::Idle;
        } else {
            step_ = Step::CommitDue;
            due_ = cycle + 1;
            late_ = false;
        }
    }

    // 2. A check request.
    if (p.chk_valid) {
        if (step_ == Step::WinDue) {
            if (p.chk_mode != RNIC_PT_MODE_WINDOW || p.chk_key != op_.win_key || p.chk_rights != 0)
                flag(kWindowCheck, cycle, "mode %u key %08x rights %x, expected mode %u (WINDOW) key %08x rights 0",
                     p.chk_mode, p.chk_key, p.chk_rights, RNIC_PT_MODE_WINDOW, op_.win_key);
            if (cycle != due_)
                flag(kTiming, cycle, "window check %lld cycle(s) from when it was due",
                     static_cast<long long>(cycle - due_));
            step_ = Step::WinWait;
        } else if (step_ == Step::LmrDue) {
            if (p.chk_mode != RNIC_PT_MODE_LOCAL || p.chk_key != op_.mr_lkey || p.chk_rights != op_.need() ||
                p.chk_addr != op_.mr_addr || p.chk_len != op_.mr_len)
                flag(kRegionCheck, cycle,
                     "mode %u key %08x rights %x addr %llx len %x, expected mode %u (LOCAL) key %08x rights %x "
                     "addr %llx len %x",
                     p.chk_mode, p.chk_key, p.chk_rights, static_cast<unsigned long long>(p.chk_addr), p.chk_len,
                     RNIC_PT_MODE_LOCAL, op_.mr_lkey, op_.need(), static_cast<unsigned long long>(op_.mr_addr),
                     op_.mr_len);
            if (cycle != due_)
                flag(kTiming, cycle, "region check %lld cycle(s) from when it was due",
                     static_cast<long long>(cycle - due_));
            step_ = Step::LmrWait;
        } else if (step_ == Step::CommitDue && op_.unbind()) {
            flag(kRegionCheck, cycle, "a check (mode %u key %08x) for an unbind, after its window", p.chk_mode, p.chk_key);
            step_ = Step::LmrWait;
        } else {
            flag(kSequence, cycle, "a check (mode %u key %08x) nothing asked for", p.chk_mode, p.chk_key);
        }
    }

    // 3. A verdict (the fake table answers only what was asked).
    if (p.chk_rsp_valid && (step_ == Step::WinWait || step_ == Step::LmrWait)) {
        const bool window = step_ == Step::WinWait;
        if (p.chk_verdict == RNIC_PT_VERDICT_OK) {
            (window ? win_granted_ : lmr_granted_) = true;
            step_ = window && !op_.unbind() ? Step::LmrDue : Step::CommitDue;
            due_ = cycle + 1;
            late_ = false;
        } else {
            want_done = true;
            refused_ = true;
            step_ = Step::Idle;
        }
    }

    // 4. A commit.
    if (p.bind_valid)
        check_commit(cycle, p);

    // 5. done, and ok with it.
    if (p.done != want_done)
        flag(kDone, cycle, want_done ? "no done where the BIND ends" : "done where the BIND does not end");
    else if (want_done && p.ok != want_ok)
        flag(kDone, cycle, "done with ok %d, expected %d", p.ok, want_ok);

    // 6. A new BIND.
    if (p.start) {
        if (step_ != Step::Idle)
            flag(kSequence, cycle, "start while a BIND is under way");
        op_ = p.op;
        step_ = Step::WinDue;
        due_ = cycle + 1;
        late_ = false;
        win_granted_ = lmr_granted_ = refused_ = false;
        any_ = true;
    }

    // 7. A step whose cycle came and went.
    if ((step_ == Step::WinDue || step_ == Step::LmrDue || step_ == Step::CommitDue) && cycle >= due_ && !late_) {
        late_ = true;
        flag(kTiming, cycle, "%s not issued in its cycle",
             step_ == Step::WinDue ? "the window check" : step_ == Step::LmrDue ? "the region check" : "bind_valid");
    }
}
