// rnic_bind_unit against its contract (the header of rtl/rnic_bind_unit.sv,
// docs/bind-fencing.md) and a fake protection table.
//
//   tb_bind_unit TEST... | all   runs the named tests
//   tb_bind_unit --list          prints every test name, one a line (CMake
//                                registers one CTest per line)
//
// Every run is watched by the bench's rule checker (bind_checker.h), which
// knows the rules, not the RTL; the tests add the sequences' figures: which
// checks, which commit, how many cycles. mutants_detected drives the unit's
// two mutants and requires the checker to flag each. Each test prints its
// seed; RTL_UNIT_SEED=N replays another.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bind_harness.h"
#include "rnic_check.h"
#include "unit_bench.h"
#include "rnic_hw.h"

namespace {

// The test's fixed seed, or RTL_UNIT_SEED's; printed either way (unit_seed).
uint32_t seed(uint32_t fixed) { return static_cast<uint32_t>(unit_seed(fixed)); }

constexpr unsigned kRR = RNIC_ACCESS_REMOTE_READ, kRW = RNIC_ACCESS_REMOTE_WRITE;
constexpr unsigned kLR = RNIC_ACCESS_LOCAL_READ, kLW = RNIC_ACCESS_LOCAL_WRITE;
constexpr unsigned kOk = RNIC_PT_VERDICT_OK;

// A BIND of window 0x000123 (key 0x45) to 8 KiB of region 0x47 (key 0x11).
BindOp fixed_op() {
    BindOp op;
    op.win_key = 0x00012345;
    op.new_key = 0x46;
    op.new_rights = kRR | kRW;
    op.mr_lkey = 0x00004711;
    op.mr_addr = 0x00007F0000001000ull;
    op.mr_len = 0x2000;
    op.pz = 7;
    return op;
}

BindOp random_op(std::mt19937 &r, bool unbind) {
    static const unsigned kRights[] = {0, kRR, kRW, kRR | kRW};
    BindOp op;
    op.win_key = r();
    op.new_key = static_cast<uint8_t>((op.win_key & 0xFFu) + 1 + r() % 255);   // never the window's own
    op.new_rights = kRights[r() % 4];
    op.mr_lkey = r();
    op.mr_addr = static_cast<uint64_t>(r()) << 32 | r();
    op.mr_len = unbind ? 0 : 1 + r() % 0xFFFFFFFFu;
    op.pz = static_cast<uint16_t>(r());
    return op;
}

bool clean(BindHarness &h) {
    CHECK_EQ(h.checker().total(), 0);
    return h.checker().total() == 0;
}

}  // namespace

// The whole sequence with a table that grants everything at once: window
// check, region check for the local rights each remote right needs, commit
// of the full window entry; 7 cycles from start to done.
UNIT_TEST(bind_sequence) {
    BindHarness h(seed(201), RNIC_MUTANT_NONE);
    const struct {
        unsigned remote, local;
    } kNeed[] = {{0, 0}, {kRR, kLR}, {kRW, kLW}, {kRR | kRW, kLR | kLW}};
    for (const auto &n : kNeed) {
        BindOp op = fixed_op();
        op.new_rights = n.remote;
        BindResult r = h.run(op, TableCfg{});
        CHECK(r.done);
        CHECK(r.ok);
        CHECK_EQ(r.cycles(), 7);
        CHECK_EQ(r.checks.size(), 2);
        if (r.checks.size() == 2) {
            const CheckReq &w = r.checks[0], &m = r.checks[1];
            CHECK_EQ(w.cycle, r.start + 1);
            CHECK_EQ(w.mode, RNIC_PT_MODE_WINDOW);
            CHECK_EQ(w.key, 0x00012345);
            CHECK_EQ(w.rights, 0);
            CHECK_EQ(m.cycle, r.start + 3);
            CHECK_EQ(m.mode, RNIC_PT_MODE_LOCAL);
            CHECK_EQ(m.key, 0x00004711);
            CHECK_EQ(m.rights, n.local);
            CHECK_EQ(m.addr, 0x00007F0000001000ull);
            CHECK_EQ(m.len, 0x2000);
        }
        CHECK_EQ(r.commits.size(), 1);
        if (r.commits.size() == 1) {
            const Commit &c = r.commits[0];
            CHECK_EQ(c.cycle, r.start + 5);
            CHECK_EQ(c.index, 0x000123);
            CHECK_EQ(c.key, 0x46);
            CHECK_EQ(c.pz, 7);
            CHECK_EQ(c.base, 0x00007F0000001000ull);
            CHECK_EQ(c.len, 0x2000);
            CHECK_EQ(c.rights, n.remote);
            CHECK_EQ(c.state, RNIC_PT_STATE_VALID);
            CHECK_EQ(c.link, 0x00004711);
        }
    }
    // The widest values: index, key, PZ, length, address.
    BindOp op;
    op.win_key = 0xFFFFFFFEu;
    op.new_key = 0xFF;
    op.new_rights = kRW;
    op.mr_lkey = 0xFFFFFFFFu;
    op.mr_addr = ~0ull;
    op.mr_len = 0xFFFFFFFFu;
    op.pz = 0xFFFF;
    BindResult r = h.run(op, TableCfg{});
    CHECK(r.ok);
    CHECK_EQ(r.commits.size(), 1);
    if (!r.commits.empty()) {
        CHECK_EQ(r.commits[0].index, 0xFFFFFF);
        CHECK_EQ(r.commits[0].len, 0xFFFFFFFFull);   // zero-extended, not sign-extended
    }
    clean(h);
}

// An unbind (length 0): the window check only, then the window goes back to
// FREE with its new key and its PZ, and no range, rights or region.
UNIT_TEST(unbind) {
    BindHarness h(seed(202), RNIC_MUTANT_NONE);
    for (unsigned rights : {0u, kRR | kRW}) {
        BindOp op = fixed_op();
        op.mr_len = 0;
        op.new_rights = rights;   // the engine refuses rights on an unbind; the unit drops them anyway
        BindResult r = h.run(op, TableCfg{});
        CHECK(r.ok);
        CHECK_EQ(r.cycles(), 5);
        CHECK_EQ(r.checks.size(), 1);
        if (!r.checks.empty())
            CHECK_EQ(r.checks[0].mode, RNIC_PT_MODE_WINDOW);
        CHECK_EQ(r.commits.size(), 1);
        if (!r.commits.empty()) {
            const Commit &c = r.commits[0];
            CHECK_EQ(c.cycle, r.start + 3);
            CHECK_EQ(c.index, 0x000123);
            CHECK_EQ(c.key, 0x46);
            CHECK_EQ(c.pz, 7);
            CHECK_EQ(c.base, 0);
            CHECK_EQ(c.len, 0);
            CHECK_EQ(c.rights, 0);
            CHECK_EQ(c.state, RNIC_PT_STATE_FREE);
            CHECK_EQ(c.link, 0);
        }
    }
    clean(h);
}

// A window the table refuses, whatever the reason: done with ok 0 in the
// verdict's cycle, no region check, and no commit then or later.
UNIT_TEST(window_refused) {
    BindHarness h(seed(203), RNIC_MUTANT_NONE);
    for (unsigned v = 1; v <= 7; v++) {
        for (bool unbind : {false, true}) {
            for (unsigned lat : {1u, 5u}) {
                BindOp op = fixed_op();
                if (unbind)
                    op.mr_len = 0;
                TableCfg cfg;
                cfg.win_verdict = v;
                cfg.lat_min = cfg.lat_max = lat;
                BindResult r = h.run(op, cfg, 20);
                CHECK(r.done);
                CHECK(!r.ok);
                CHECK_EQ(r.checks.size(), 1);
                CHECK_EQ(r.commits.size(), 0);
                if (!r.checks.empty())
                    CHECK_EQ(r.done_cycle, r.checks[0].cycle + lat);
            }
        }
    }
    clean(h);
}

// A region the table refuses: done with ok 0 in the verdict's cycle, no
// commit.
UNIT_TEST(region_refused) {
    BindHarness h(seed(204), RNIC_MUTANT_NONE);
    for (unsigned v = 1; v <= 7; v++) {
        for (unsigned lat : {1u, 4u}) {
            TableCfg cfg;
            cfg.lmr_verdict = v;
            cfg.lat_min = cfg.lat_max = lat;
            BindResult r = h.run(fixed_op(), cfg, 20);
            CHECK(r.done);
            CHECK(!r.ok);
            CHECK_EQ(r.checks.size(), 2);
            CHECK_EQ(r.commits.size(), 0);
            if (r.checks.size() == 2)
                CHECK_EQ(r.done_cycle, r.checks[1].cycle + lat);
        }
    }
    clean(h);
}

// A table that refuses the commit (the window was freed after its check):
// done with ok 0, on the first attempt it answers or a later one.
UNIT_TEST(commit_refused) {
    BindHarness h(seed(205), RNIC_MUTANT_NONE);
    for (unsigned take : {1u, 3u}) {
        for (bool unbind : {false, true}) {
            BindOp op = fixed_op();
            if (unbind)
                op.mr_len = 0;
            TableCfg cfg;
            cfg.commit_ok = false;
            cfg.take_min = cfg.take_max = take;
            BindResult r = h.run(op, cfg, 20);
            CHECK(r.done);
            CHECK(!r.ok);
            CHECK(r.taken);
            CHECK_EQ(r.commits.size(), take);
            if (!r.commits.empty())
                CHECK_EQ(r.done_cycle, r.commits.back().cycle + 1);
        }
    }
    clean(h);
}

// bind_valid until the table takes it: every other cycle, the same entry
// each time, done the cycle the table answers.
UNIT_TEST(commit_retry) {
    BindHarness h(seed(206), RNIC_MUTANT_NONE);
    for (unsigned k = 1; k <= 6; k++) {
        TableCfg cfg;
        cfg.take_min = cfg.take_max = k;
        BindResult r = h.run(fixed_op(), cfg, 10);
        CHECK(r.ok);
        CHECK_EQ(r.commits.size(), k);
        CHECK_EQ(r.cycles(), 7 + 2 * (k - 1));
        for (size_t i = 1; i < r.commits.size(); i++) {
            const Commit &a = r.commits[i - 1], &b = r.commits[i];
            CHECK_EQ(b.cycle - a.cycle, 2);
            CHECK(a.index == b.index && a.key == b.key && a.pz == b.pz && a.base == b.base && a.len == b.len &&
                  a.rights == b.rights && a.state == b.state && a.link == b.link);
        }
        if (!r.commits.empty())
            CHECK_EQ(r.done_cycle, r.commits.back().cycle + 1);
    }
    clean(h);
}

// The unit waits as long as the table takes: verdicts 1 to 12 cycles after
// each request (the real table takes 2).
UNIT_TEST(check_latency) {
    BindHarness h(seed(207), RNIC_MUTANT_NONE);
    for (unsigned lat = 1; lat <= 12; lat++) {
        TableCfg cfg;
        cfg.lat_min = cfg.lat_max = lat;
        BindResult r = h.run(fixed_op(), cfg, 0);
        CHECK(r.ok);
        CHECK_EQ(r.cycles(), 5 + 2 * lat);
        BindOp op = fixed_op();
        op.mr_len = 0;
        r = h.run(op, cfg, 0);
        CHECK(r.ok);
        CHECK_EQ(r.cycles(), 4 + lat);
    }
    clean(h);
}

// A reset in any cycle of a BIND ends it: nothing of it comes out afterwards,
// and the next BIND runs as if it had never been.
UNIT_TEST(reset_midway) {
    BindHarness h(seed(208), RNIC_MUTANT_NONE);
    TableCfg slow;
    slow.lat_min = slow.lat_max = 2;
    slow.take_min = slow.take_max = 2;
    // Start, window check, verdict 2 cycles later, region check, verdict,
    // commit not taken, again, taken: done 10 cycles after start.
    BindResult whole = h.run(fixed_op(), slow, 0);
    CHECK_EQ(whole.done_cycle - whole.start, 10);
    for (unsigned at = 1; at <= 10; at++) {
        BindResult r = h.run(fixed_op(), slow, 0, at);
        CHECK(!r.done);
        h.idle(3);
        r = h.run(fixed_op(), TableCfg{}, 0);
        CHECK(r.ok);
        CHECK_EQ(r.cycles(), 7);
    }
    clean(h);
}

// Everything at random: binds and unbinds, verdicts (mostly granted), the
// commit refused now and then, latencies 1-6, the table taking the 1st to
// 4th attempt, gaps of 0-3 cycles, a reset now and then. The checker must
// stay silent, and ok must be what the table's answers make it.
UNIT_TEST(random_run) {
    BindHarness h(seed(0xB1D5EED), RNIC_MUTANT_NONE);
    std::mt19937 &r = h.rng();
    unsigned n_ok = 0, n_win = 0, n_lmr = 0, n_commit = 0, n_unbind = 0, n_retry = 0, n_reset = 0;
    const unsigned kBinds = 50000;
    for (unsigned i = 0; i < kBinds && h.checker().total() == 0; i++) {
        const bool unbind = r() % 100 < 15;
        const BindOp op = random_op(r, unbind);
        TableCfg cfg;
        cfg.win_verdict = r() % 100 < 88 ? kOk : 1 + r() % 7;
        cfg.lmr_verdict = r() % 100 < 88 ? kOk : 1 + r() % 7;
        cfg.commit_ok = r() % 100 < 88;
        cfg.lat_max = 1 + r() % 6;
        cfg.take_max = 1 + r() % 4;
        const unsigned reset_at = r() % 100 == 0 ? 1 + r() % 10 : 0;
        BindResult res = h.run(op, cfg, r() % 4, reset_at);
        if (reset_at && !res.done) {
            ++n_reset;
            continue;
        }
        const bool win = cfg.win_verdict == kOk, lmr = unbind || cfg.lmr_verdict == kOk;
        CHECK(res.done);
        CHECK_EQ(res.ok, win && lmr && cfg.commit_ok);
        CHECK_EQ(res.checks.size(), !win || unbind ? 1u : 2u);
        CHECK_EQ(res.commits.empty(), !(win && lmr));
        n_unbind += unbind;
        n_retry += res.commits.size() > 1;
        if (!win)
            ++n_win;
        else if (!lmr)
            ++n_lmr;
        else if (!cfg.commit_ok)
            ++n_commit;
        else
            ++n_ok;
    }
    std::printf("random_run: %llu cycles, %u committed, refused %u window / %u region / %u commit, %u unbinds, "
                "%u retried, %u reset midway\n",
                static_cast<unsigned long long>(h.now()), n_ok, n_win, n_lmr, n_commit, n_unbind, n_retry, n_reset);
    CHECK_EQ(n_ok + n_win + n_lmr + n_commit + n_reset, kBinds);
    CHECK(n_ok > 25000);
    CHECK(n_win > 1000 && n_lmr > 1000 && n_commit > 1000);
    CHECK(n_unbind > 2500 && n_retry > 10000 && n_reset > 200);
    clean(h);
}

// The unit's two mutants, driven through its mutant input, with the checker
// expecting the rules as ever: NO_BIND_LMR_CHECK commits without the region
// check, NO_BIND_KEY_CHANGE commits the window's old key. Each must be
// flagged for its rule (the bench kills it) on BINDs that pass clean
// without the mutant.
UNIT_TEST(mutants_detected) {
    const uint32_t s = seed(209);
    const struct {
        unsigned mutant;
        const char *name;
        BindChecker::Rule rule;
    } kMutants[] = {
        {RNIC_MUTANT_NO_BIND_LMR_CHECK, "NO_BIND_LMR_CHECK", BindChecker::kCommitWithoutRegion},
        {RNIC_MUTANT_NO_BIND_KEY_CHANGE, "NO_BIND_KEY_CHANGE", BindChecker::kCommitOldKey},
    };
    // The same BINDs for every run: the fixed one with each right, and random
    // ones (none unbinds: an unbind has no region check to skip).
    std::vector<BindOp> ops;
    for (unsigned rights : {0u, kRR, kRW, kRR | kRW}) {
        ops.push_back(fixed_op());
        ops.back().new_rights = rights;
    }
    std::mt19937 r(s);
    for (int i = 0; i < 16; i++) ops.push_back(random_op(r, false));

    auto run_all = [&](BindHarness &h) {
        unsigned ok = 0;
        for (const BindOp &op : ops) ok += h.run(op, TableCfg{}).ok;
        return ok;
    };
    BindHarness control(s, RNIC_MUTANT_NONE);
    CHECK_EQ(run_all(control), ops.size());
    CHECK_EQ(control.checker().total(), 0);

    for (const auto &m : kMutants) {
        BindHarness h(s, m.mutant);
        h.checker().set_quiet(true);   // violations are what this run is for
        const unsigned ok = run_all(h);
        const unsigned hits = h.checker().count(m.rule);
        std::printf("mutant %u (%s): %u of %zu BINDs flagged %s (\"%s\"), %u violation(s) in all; the unit said ok "
                    "to %u: %s\n",
                    m.mutant, m.name, hits, ops.size(), BindChecker::name(m.rule), h.checker().first(m.rule).c_str(),
                    h.checker().total(), ok, hits ? "killed" : "SURVIVED");
        CHECK_EQ(hits, ops.size());   // every BIND shows it
        CHECK_EQ(ok, ops.size());     // and the unit itself reports success: only the checker sees it
    }
}

// Mutant values that belong to other blocks (the table's checks, the
// engine's fences) or to none change nothing in the unit.
UNIT_TEST(other_mutants_inert) {
    const uint32_t s = seed(210);
    for (unsigned m = 0; m < 16; m++) {
        if (m == RNIC_MUTANT_NO_BIND_LMR_CHECK || m == RNIC_MUTANT_NO_BIND_KEY_CHANGE)
            continue;
        BindHarness h(s + m, m);
        std::mt19937 &r = h.rng();
        for (int i = 0; i < 300; i++) {
            TableCfg cfg;
            cfg.lat_max = 1 + r() % 4;
            cfg.take_max = 1 + r() % 3;
            cfg.lmr_verdict = r() % 4 ? kOk : 1 + r() % 7;
            const BindOp op = random_op(r, r() % 5 == 0);
            BindResult res = h.run(op, cfg, r() % 3);
            CHECK_EQ(res.ok, op.unbind() || cfg.lmr_verdict == kOk);
        }
        if (h.checker().total() != 0)
            std::fprintf(stderr, "mutant %u: %u violation(s)\n", m, h.checker().total());
        clean(h);
    }
}
