// The protection table against its reference model: every combination of
// key, PZ, rights, bounds and entry state, on both check ports; then every
// mutant, each of which the same cases must catch.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "Vrnic_ptable.h"
#include "ptable_model.h"
#include "rnic_hw.h"
#include "verilated.h"

namespace {

constexpr uint32_t kEntries = 64;   // the bench builds the table with this size

struct Bench {
    Vrnic_ptable m;
    uint64_t cycles = 0;
    void tick() {
        m.clk = 0;
        m.eval();
        m.clk = 1;
        m.eval();
        ++cycles;
    }
    void reset() {
        m.rst_n = 0;
        tick();
        tick();
        m.rst_n = 1;
        tick();
    }
    void mgmt(unsigned cmd, uint32_t index, const pt_entry &e) {
        m.mgmt_valid = 1;
        m.mgmt_cmd = cmd;
        m.mgmt_index = index;
        m.mgmt_key = e.key;
        m.mgmt_pz = e.pz;
        m.mgmt_base = e.base;
        m.mgmt_len = e.len;
        m.mgmt_rights = e.rights;
        m.mgmt_type = RNIC_PT_TYPE_MR;
        m.mgmt_state = e.state;
        m.mgmt_link = 0;
        tick();
        m.mgmt_valid = 0;
        tick();
    }
    // Issues the same request on both ports; returns the two verdicts.
    void check(const pt_request &r, unsigned &lv, unsigned &rv) {
        m.lchk_valid = m.rchk_valid = 1;
        m.lchk_key = m.rchk_key = r.key;
        m.lchk_pz = m.rchk_pz = r.pz;
        m.lchk_rights = m.rchk_rights = r.rights;
        m.lchk_addr = m.rchk_addr = r.addr;
        m.lchk_len = m.rchk_len = r.len;
        tick();
        m.lchk_valid = m.rchk_valid = 0;
        tick();
        // Exactly two cycles after the request.
        if (!m.lchk_rsp_valid || !m.rchk_rsp_valid) {
            std::fprintf(stderr, "verdict not valid two cycles after the request\n");
            std::exit(1);
        }
        lv = m.lchk_verdict;
        rv = m.rchk_verdict;
        tick();
    }
};

struct Case {
    pt_entry e;
    uint32_t index;
    pt_request r;
};

std::vector<Case> make_cases() {
    std::vector<Case> cases;
    const uint64_t B = 0x10000, L = 0x100;
    pt_entry base_e{true, 0x3C, 5, B, L, 0xF, RNIC_PT_STATE_VALID};
    pt_request base_r{7u << 8 | 0x3C, 5, RNIC_ACCESS_REMOTE_WRITE, B + 0x10, 0x20};
    // Rights: every granted x required combination.
    for (unsigned g = 0; g < 16; ++g)
        for (unsigned q = 0; q < 16; ++q) {
            Case c{base_e, 7, base_r};
            c.e.rights = static_cast<uint8_t>(g);
            c.r.rights = static_cast<uint8_t>(q);
            cases.push_back(c);
        }
    // Key and PZ mismatches, alone and together, and an index past the table.
    for (unsigned k = 0; k < 4; ++k) {
        Case c{base_e, 7, base_r};
        if (k & 1) c.r.key ^= 0x01;
        if (k & 2) c.r.pz ^= 0x40;
        cases.push_back(c);
    }
    {
        Case c{base_e, 7, base_r};
        c.r.key = (kEntries + 3) << 8 | 0x3C;
        cases.push_back(c);
    }
    // Bounds: inside, at the start, at the last byte, the whole region, one
    // past the end, one before the start, zero length at and past the end.
    const struct { uint64_t addr; uint32_t len; } b[] = {
        {B + 0x10, 0x20}, {B, 1}, {B + L - 1, 1}, {B, static_cast<uint32_t>(L)}, {B + L - 1, 2},
        {B - 1, 1}, {B + L, 0}, {B + L + 1, 0}, {B, static_cast<uint32_t>(L + 1)}, {B + L, 1},
        {0, 0xFFFFFFFFu}, {~0ull, 2}};
    for (const auto &x : b) {
        Case c{base_e, 7, base_r};
        c.r.addr = x.addr;
        c.r.len = x.len;
        cases.push_back(c);
    }
    // An entry at the very top of the address space; accesses that wrap.
    {
        Case c{base_e, 9, base_r};
        c.e.base = ~0ull - 0xFF;
        c.e.len = 0x100;   // ends exactly at 2^64: refused, it would wrap
        c.r.key = 9u << 8 | 0x3C;
        c.r.addr = ~0ull - 0x10;
        c.r.len = 0x8;
        cases.push_back(c);
        c.e.len = 0xFF;
        cases.push_back(c);
        c.r.len = 0x20;   // past 2^64
        cases.push_back(c);
    }
    // Entry states: valid, free, invalid, and invalidated by command.
    for (unsigned s = 0; s < 3; ++s) {
        Case c{base_e, 11, base_r};
        c.e.state = static_cast<uint8_t>(s);
        c.r.key = 11u << 8 | 0x3C;
        cases.push_back(c);
    }
    {
        Case c{base_e, 12, base_r};
        c.e.written = false;
        c.r.key = 12u << 8 | 0x3C;
        cases.push_back(c);
    }
    return cases;
}

// Runs every case with `mutant`; returns how many verdicts differ from the
// model's rules without the mutant (0 expected when mutant == 0).
unsigned run(const std::vector<Case> &cases, unsigned mutant, unsigned &errors) {
    Bench b;
    b.m.mutant = mutant;
    b.reset();
    unsigned differ = 0;
    for (const Case &c : cases) {
        // An invalidated entry keeps its contents: write it, then invalidate it,
        // so a mutant that skips the state check sees known fields.
        b.mgmt(RNIC_PT_CMD_WRITE, c.index, c.e);
        if (!c.e.written)
            b.mgmt(RNIC_PT_CMD_INVALIDATE, c.index, c.e);
        unsigned lv, rv;
        b.check(c.r, lv, rv);
        const pt_entry *e = c.r.key >> 8 == c.index ? &c.e : nullptr;
        if (!e && (c.r.key >> 8) < kEntries) {
            std::fprintf(stderr, "bench error: case names another index\n");
            std::exit(1);
        }
        const unsigned want = ptable_model_check(e, kEntries, &c.r, mutant);
        const unsigned strict = ptable_model_check(e, kEntries, &c.r, 0);
        if (lv != want || rv != want) {
            ++errors;
            std::fprintf(stderr, "mutant %u: key %08x pz %u rights %x addr %llx len %u: rtl %u/%u model %u\n", mutant,
                         c.r.key, c.r.pz, c.r.rights, (unsigned long long)c.r.addr, c.r.len, lv, rv, want);
        }
        if (lv != strict)
            ++differ;
    }
    // Management read-back of the last entry written.
    b.m.mgmt_valid = 1;
    b.m.mgmt_cmd = RNIC_PT_CMD_READ;
    b.m.mgmt_index = 7;
    b.tick();
    b.m.mgmt_valid = 0;
    b.tick();
    if (b.m.mgmt_r_key != 0x3C || b.m.mgmt_r_pz != 5 || b.m.mgmt_r_base != 0x10000) {
        ++errors;
        std::fprintf(stderr, "management read-back wrong\n");
    }
    b.m.final();
    return differ;
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    const auto cases = make_cases();
    unsigned errors = 0;
    unsigned passed = 0, failed = 0;
    if (run(cases, 0, errors) != 0 || errors != 0) {
        std::printf("rnic_ptable vs model: %u mismatches\n", errors);
        ++failed;
    } else {
        ++passed;
    }
    std::printf("rnic_ptable: %zu cases x 2 ports agree with the model\n", cases.size());
    // Mutant kill table: each broken rule must change at least one verdict.
    const char *names[] = {"", "NO_KEY_CHECK", "NO_PZ_CHECK", "NO_RIGHTS_CHECK", "NO_BOUNDS_CHECK", "NO_STATE_CHECK"};
    for (unsigned mu = 1; mu <= 5; ++mu) {
        unsigned e = 0;
        const unsigned differ = run(cases, mu, e);
        const bool killed = differ > 0 && e == 0;
        std::printf("mutant %-16s %s (%u verdicts changed)\n", names[mu], killed ? "killed" : "SURVIVED", differ);
        killed ? ++passed : ++failed;
    }
    std::printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
