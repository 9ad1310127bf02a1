// The protection table against its reference model.
//
//   tb_ptable            every combination of key match, PZ match, granted x
//                        required rights (16 x 16), bounds case and entry
//                        state, on both check ports and in every mode; indices
//                        past the table; windows bound through the bind port
//                        to regions in every state, checked in every mode;
//                        management WRITE / READ / INVALIDATE and bad
//                        commands; same-cycle command/bind/check collisions
//                        and a seeded random mix with resets. No mutant: the
//                        RTL must match the model on every output.
//   tb_ptable --mutants  the mutant kill table: each mutant in turn must
//                        still match the model run with that mutant, and
//                        must let through at least one access the model with
//                        no mutant refuses (a survivor fails the test); a
//                        mutant number the table has no rule for changes
//                        nothing.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "ptable_harness.h"
#include "rnic_hw.h"

namespace {

constexpr uint32_t kEntries = RNIC_PT_ENTRIES;  // the bench verilates the default size
constexpr uint64_t kTop = ~0ull;                // the last byte of the address space

// ----------------------------------------------------------------- bounds
// An entry's range and one access against it.
struct BoundsCase {
    const char *what;
    uint64_t base, len;   // the entry
    uint64_t addr;        // the access
    uint32_t len_access;
};

constexpr uint64_t B = 0x10000, L = 0x100;

const BoundsCase kBounds[] = {
    {"inside", B, L, B + 0x10, 0x20},
    {"first byte", B, L, B, 1},
    {"whole entry", B, L, B, static_cast<uint32_t>(L)},
    {"last byte", B, L, B + L - 1, 1},
    {"ends exactly at the end", B, L, B + 0x80, 0x80},
    {"one past the end", B, L, B + L - 1, 2},
    {"starts at the end", B, L, B + L, 1},
    {"one longer than the entry", B, L, B, static_cast<uint32_t>(L + 1)},
    {"one before the start", B, L, B - 1, 1},
    {"straddles the start", B, L, B - 1, 2},
    {"zero length at the start", B, L, B, 0},
    {"zero length at the end", B, L, B + L, 0},
    {"zero length one past the end", B, L, B + L + 1, 0},
    {"zero length one before the start", B, L, B - 1, 0},
    {"wraps past 2^64", B, L, kTop - 7, 16},
    {"last byte of memory", B, L, kTop, 1},
    {"maximum length from the start", B, L, B, 0xFFFFFFFFu},
    {"maximum length from 0", B, L, 0, 0xFFFFFFFFu},
    // An entry that ends exactly at 2^64 does not wrap.
    {"top entry: last 16 bytes", kTop - 0xFF, 0x100, kTop - 0xF, 0x10},
    {"top entry: wraps by one", kTop - 0xFF, 0x100, kTop - 0xF, 0x11},
    {"top entry: last byte", kTop - 0xFF, 0x100, kTop, 1},
    {"top entry: zero length at the end", kTop - 0xFF, 0x100, kTop, 0},
    {"top entry: whole", kTop - 0xFF, 0x100, kTop - 0xFF, 0x100},
    {"top entry: one before", kTop - 0xFF, 0x100, kTop - 0x100, 1},
    {"top entry: maximum length wraps", kTop - 0xFF, 0x100, kTop, 0xFFFFFFFFu},
    // An entry whose range wraps past 2^64 accepts nothing.
    {"wrapping entry: first byte", kTop - 0x7F, 0x100, kTop - 0x7F, 1},
    {"wrapping entry: last byte of memory", kTop - 0x7F, 0x100, kTop, 1},
    {"wrapping entry: zero length", kTop - 0x7F, 0x100, kTop - 0x7F, 0},
    // A zero-length entry.
    {"empty entry: zero length at base", B, 0, B, 0},
    {"empty entry: one byte", B, 0, B, 1},
    {"empty entry: zero length past base", B, 0, B + 1, 0},
    {"empty entry: zero length before base", B, 0, B - 1, 0},
    // Maximum entry lengths.
    {"max entry at 0: maximum access", 0, kTop, 0, 0xFFFFFFFFu},
    {"max entry at 0: ends at its last byte", 0, kTop, kTop - 0xFFFFFFFFull, 0xFFFFFFFFu},
    {"max entry at 0: last byte of memory", 0, kTop, kTop, 1},
    {"max entry at 0: zero length at the end", 0, kTop, kTop, 0},
    {"max entry at 1: last byte of memory", 1, kTop, kTop, 1},
    {"max entry at 1: maximum access", 1, kTop, 1, 0xFFFFFFFFu},
    {"max entry at 1: byte 0", 1, kTop, 0, 1},
    {"max entry at 1: wraps", 1, kTop, kTop, 2},
    {"max entry at 2: wraps by one byte", 2, kTop, 2, 1},
    {"max entry at 2: last byte of memory", 2, kTop, kTop, 1},
};
constexpr unsigned kNumBounds = sizeof kBounds / sizeof kBounds[0];

// ----------------------------------------------------------------- states
// How an entry ends up in the state a check finds it in.
enum StateHow : unsigned {
    kValid,          // WRITE with state VALID
    kFree,           // WRITE with state FREE
    kWrittenInvalid, // WRITE with state INVALID
    kState3,         // WRITE with the unused state encoding 3
    kInvalidated,    // WRITE VALID, then INVALIDATE
    kReset,          // WRITE VALID, then reset and never written again
    kNumStates
};

// Entry shapes: the distinct (base, len) pairs of kBounds.
struct Shape {
    uint64_t base, len;
};

std::vector<Shape> shapes() {
    std::vector<Shape> s;
    for (const BoundsCase &b : kBounds) {
        bool seen = false;
        for (const Shape &x : s)
            seen = seen || (x.base == b.base && x.len == b.len);
        if (!seen)
            s.push_back({b.base, b.len});
    }
    return s;
}

unsigned shape_of(const std::vector<Shape> &s, const BoundsCase &b) {
    for (unsigned i = 0; i < s.size(); ++i)
        if (s[i].base == b.base && s[i].len == b.len)
            return i;
    return 0;
}

// The table holds one entry per (shape, granted rights, state); the rest of
// the table gets filler entries so every word of the RAM is defined.
uint32_t entry_index(unsigned shape, unsigned granted, unsigned state) {
    return (shape * 16 + granted) * kNumStates + state;
}

ptm_entry make_entry(uint32_t index, uint64_t base, uint64_t len, unsigned rights, unsigned state) {
    ptm_entry e{};
    e.key = static_cast<uint8_t>(index * 37u + 5u);   // differs between neighbours: an aliased read shows
    e.pz = static_cast<uint16_t>(0x4000u + index);
    e.base = base;
    e.len = len;
    e.rights = static_cast<uint8_t>(rights);
    e.type = RNIC_PT_TYPE_MR;
    e.state = static_cast<uint8_t>(state);
    e.link = index * 0x1010101u;   // a region's link means nothing: stored and read back only
    return e;
}

void mgmt(PtableHarness &h, unsigned cmd, uint32_t index, const ptm_entry &e = ptm_entry{}) {
    CycleIn c;
    c.mgmt = true;
    c.cmd = cmd;
    c.index = index;
    c.entry = e;
    h.cycle(c);
}

// Fills the table so each (shape, granted, state) entry is in its state.
void load_table(PtableHarness &h, const std::vector<Shape> &sh) {
    const uint32_t used = static_cast<uint32_t>(sh.size()) * 16 * kNumStates;
    if (used > kEntries) {
        std::fprintf(stderr, "bench error: %u entries needed, table has %u\n", used, kEntries);
        std::exit(2);
    }
    // Everything VALID first, so the entries reset later hold known fields.
    for (uint32_t i = 0; i < kEntries; ++i) {
        const unsigned s = i < used ? i / (16 * kNumStates) : 0;
        const unsigned g = i < used ? i / kNumStates % 16 : 0xF;
        mgmt(h, RNIC_PT_CMD_WRITE, i, make_entry(i, sh[s].base, sh[s].len, g, RNIC_PT_STATE_VALID));
    }
    h.reset();
    for (uint32_t i = 0; i < kEntries; ++i) {
        const unsigned s = i < used ? i / (16 * kNumStates) : 0;
        const unsigned g = i < used ? i / kNumStates % 16 : 0xF;
        const unsigned how = i < used ? i % kNumStates : kValid;
        // The state each way of getting there writes (kReset writes nothing).
        static const unsigned kWritten[kNumStates] = {
            RNIC_PT_STATE_VALID, RNIC_PT_STATE_FREE, RNIC_PT_STATE_INVALID, 3u, RNIC_PT_STATE_VALID, 0};
        if (how == kReset)
            continue;
        mgmt(h, RNIC_PT_CMD_WRITE, i, make_entry(i, sh[s].base, sh[s].len, g, kWritten[how]));
        if (how == kInvalidated)
            mgmt(h, RNIC_PT_CMD_INVALIDATE, i);
    }
    h.idle(2);
}

// ------------------------------------------------------------- the cross
// Every (bounds case, granted, state, required, key match, PZ match).
std::vector<ptm_request> cross_product(const PtableHarness &h, const std::vector<Shape> &sh) {
    std::vector<ptm_request> reqs;
    for (unsigned b = 0; b < kNumBounds; ++b)
        for (unsigned g = 0; g < 16; ++g)
            for (unsigned st = 0; st < kNumStates; ++st)
                for (unsigned q = 0; q < 16; ++q)
                    for (unsigned km = 0; km < 2; ++km)
                        for (unsigned pm = 0; pm < 2; ++pm) {
                            const uint32_t i = entry_index(shape_of(sh, kBounds[b]), g, st);
                            const ptm_entry &e = h.model().fields[i];
                            ptm_request r{};
                            r.key = i << 8 | (km ? e.key ^ (1u << (i % 8)) : e.key);
                            r.pz = static_cast<uint16_t>(pm ? e.pz ^ (1u << (i % 16)) : e.pz);
                            r.rights = static_cast<uint8_t>(q);
                            r.addr = kBounds[b].addr;
                            r.len = kBounds[b].len_access;
                            reqs.push_back(r);
                        }
    // Indices past the table, including ones whose low bits name a real entry.
    for (uint32_t i = 0; i < 64; ++i) {
        const ptm_entry &e = h.model().fields[i];
        for (uint32_t past : {kEntries + i, (kEntries << 1) + i, 0x800000u | i, 0xFFFFFFu}) {
            ptm_request r{};
            r.key = past << 8 | e.key;
            r.pz = e.pz;
            r.rights = 0;
            r.addr = e.base;
            r.len = 0;
            reqs.push_back(r);
        }
    }
    return reqs;
}

// The modes the local port cycles through: mostly LOCAL (the cross is about
// the rules), and each other mode on every fourth request.
unsigned local_mode(size_t i) {
    static const unsigned kOther[] = {RNIC_PT_MODE_WINDOW, 3u, RNIC_PT_MODE_REMOTE};
    return i % 4 == 3 ? kOther[i / 4 % 3] : RNIC_PT_MODE_LOCAL;
}

// Each port sees every request once, each as soon as it is ready; the two
// ports carry different requests, so a port answering with the other's
// verdict shows.
void run_requests(PtableHarness &h, const std::vector<ptm_request> &lreqs, const std::vector<ptm_request> &rreqs) {
    size_t li = 0, ri = 0;
    while (li < lreqs.size() || ri < rreqs.size()) {
        CycleIn c;
        if (li < lreqs.size() && h.l_ready()) {
            c.lchk = true;
            c.lreq = lreqs[li++];
        }
        if (ri < rreqs.size() && h.r_ready()) {
            c.rchk = true;
            c.rreq = rreqs[ri++];
        }
        h.cycle(c);
    }
    h.idle(4);
}

void run_cross(PtableHarness &h, const std::vector<ptm_request> &reqs) {
    const size_t n = reqs.size();
    std::vector<ptm_request> l(reqs), r(n);
    for (size_t i = 0; i < n; ++i) {
        l[i].mode = local_mode(i);
        r[i] = reqs[(i + n / 2) % n];
    }
    run_requests(h, l, r);
}

// ------------------------------------------------------------- windows
// Windows at the top of the table, bound through the bind port to regions in
// every state a window's region can be found in, then checked in every mode:
// a window grants a remote access only while its region is live, VALID and
// keeps the key the window was bound to.
enum RegionHow : unsigned {
    kRegionValid,        // a VALID region
    kRegionOtherKey,     // the window names the region's key plus one
    kRegionInvalidated,  // written, then INVALIDATE
    kRegionFree,         // a region in state FREE
    kRegionIsWindow,     // the "region" is itself a window
    kRegionPast,         // an index past the table
    kRegionReregistered, // INVALIDATE, then WRITE again with a new key
    kNumRegionHows
};

void run_windows(PtableHarness &h) {
    const uint32_t first = kEntries - 2 * kNumRegionHows * 3;   // regions, then windows
    const uint64_t rb = 0x40000, rl = 0x10000, wb = rb + 0x100, wl = 0x200;
    std::vector<uint32_t> windows;
    for (unsigned how = 0; how < kNumRegionHows; ++how) {
        for (unsigned wstate = 0; wstate < 3; ++wstate) {   // bound, bound then unbound, freed
            const uint32_t ri = first + 2 * (how * 3 + wstate), wi = ri + 1;
            ptm_entry region = make_entry(ri, rb, rl, 0xF, how == kRegionFree ? RNIC_PT_STATE_FREE : RNIC_PT_STATE_VALID);
            if (how == kRegionIsWindow) {
                region.type = RNIC_PT_TYPE_MW;
                region.state = RNIC_PT_STATE_FREE;
            }
            mgmt(h, RNIC_PT_CMD_WRITE, ri, region);
            ptm_entry w = make_entry(wi, 0, 0, 0, RNIC_PT_STATE_FREE);
            w.type = RNIC_PT_TYPE_MW;
            mgmt(h, RNIC_PT_CMD_WRITE, wi, w);
            // The bind: a new key, the window's range and remote rights, the link.
            CycleIn b;
            b.bind = true;
            b.bind_index = wi;
            b.bind_entry = w;
            b.bind_entry.key = static_cast<uint8_t>(w.key + 1);
            b.bind_entry.base = wb;
            b.bind_entry.len = wl;
            b.bind_entry.rights = static_cast<uint8_t>(RNIC_ACCESS_REMOTE_READ | (wstate == 0 ? RNIC_ACCESS_REMOTE_WRITE : 0));
            b.bind_entry.state = RNIC_PT_STATE_VALID;
            b.bind_entry.link = (how == kRegionPast ? (kEntries + ri) : ri) << 8 |
                                static_cast<uint8_t>(region.key + (how == kRegionOtherKey ? 1 : 0));
            h.cycle(b);
            if (wstate == 1) {   // unbind: zero length, FREE, another key
                b.bind_entry.key = static_cast<uint8_t>(w.key + 2);
                b.bind_entry.base = 0;
                b.bind_entry.len = 0;
                b.bind_entry.state = RNIC_PT_STATE_FREE;
                h.cycle(b);
            }
            if (wstate == 2)
                mgmt(h, RNIC_PT_CMD_INVALIDATE, wi);
            if (how == kRegionInvalidated)
                mgmt(h, RNIC_PT_CMD_INVALIDATE, ri);
            if (how == kRegionReregistered) {
                mgmt(h, RNIC_PT_CMD_INVALIDATE, ri);
                region.key = static_cast<uint8_t>(region.key + 9);
                mgmt(h, RNIC_PT_CMD_WRITE, ri, region);
            }
            windows.push_back(wi);
        }
    }
    // Every window, by its current key and a stale one, in every mode, from
    // its PZ and another, inside and outside its range, with each right.
    std::vector<ptm_request> l, r;
    for (uint32_t wi : windows) {
        const ptm_entry &w = h.model().fields[wi];
        for (unsigned mode = 0; mode < 4; ++mode)
            for (unsigned stale = 0; stale < 2; ++stale)
                for (unsigned other_pz = 0; other_pz < 2; ++other_pz)
                    for (unsigned inside = 0; inside < 2; ++inside)
                        for (unsigned right : {RNIC_ACCESS_REMOTE_READ, RNIC_ACCESS_REMOTE_WRITE, RNIC_ACCESS_LOCAL_READ}) {
                            ptm_request q{};
                            q.mode = mode;
                            q.key = wi << 8 | static_cast<uint8_t>(w.key - stale);
                            q.pz = static_cast<uint16_t>(w.pz ^ other_pz);
                            q.rights = static_cast<uint8_t>(right);
                            q.addr = inside ? wb + 0x10 : wb + wl - 4;
                            q.len = 0x10;
                            l.push_back(q);
                            if (mode == RNIC_PT_MODE_REMOTE)
                                r.push_back(q);
                        }
    }
    run_requests(h, l, r);
}

// The bind port: taken only without a management command, written only for
// a live entry; checks see the old window in the bind's cycle, the new one
// from the next.
void run_binds(PtableHarness &h) {
    const uint32_t wi = 9, ri = 10;
    ptm_entry region = make_entry(ri, 0x8000, 0x1000, 0xF, RNIC_PT_STATE_VALID);
    mgmt(h, RNIC_PT_CMD_WRITE, ri, region);
    ptm_entry w = make_entry(wi, 0, 0, 0, RNIC_PT_STATE_FREE);
    w.type = RNIC_PT_TYPE_MW;
    mgmt(h, RNIC_PT_CMD_WRITE, wi, w);
    ptm_entry bound = w;
    bound.key = static_cast<uint8_t>(w.key + 1);
    bound.base = 0x8100;
    bound.len = 0x100;
    bound.rights = RNIC_ACCESS_REMOTE_WRITE;
    bound.state = RNIC_PT_STATE_VALID;
    bound.link = ri << 8 | region.key;
    ptm_request use{RNIC_PT_MODE_REMOTE, wi << 8 | bound.key, bound.pz, RNIC_ACCESS_REMOTE_WRITE, 0x8100, 0x10};
    // A bind beside a command: not taken; then taken, with checks around it.
    for (int k = 0; k < 6; ++k) {
        CycleIn c;
        c.bind = k == 0 || k == 1;
        c.bind_index = wi;
        c.bind_entry = bound;
        c.mgmt = k == 0;
        c.cmd = RNIC_PT_CMD_READ;
        c.index = ri;
        c.rchk = h.r_ready();
        c.rreq = use;
        c.lchk = h.l_ready();
        c.lreq = use;
        h.cycle(c);
    }
    // Binds to an index past the table, and to an entry not live: refused.
    for (uint32_t bad : {kEntries, 0xFFFFFFu, 11u}) {
        mgmt(h, RNIC_PT_CMD_INVALIDATE, 11);
        CycleIn c;
        c.bind = true;
        c.bind_index = bad;
        c.bind_entry = bound;
        h.cycle(c);
    }
    // A region freed while a window is bound to it: the window stops granting.
    mgmt(h, RNIC_PT_CMD_INVALIDATE, ri);
    run_requests(h, {use}, {use});
    h.idle(4);
}

// ------------------------------------------------------------- management
void run_management(PtableHarness &h) {
    // Read back every entry, back to back.
    for (uint32_t i = 0; i < kEntries; ++i)
        mgmt(h, RNIC_PT_CMD_READ, i);
    // Bad index or command: an error, and no entry changes.
    const ptm_entry junk = make_entry(999, 0x1234, 0x10, 0xF, RNIC_PT_STATE_VALID);
    mgmt(h, RNIC_PT_CMD_WRITE, kEntries + 3, junk);
    mgmt(h, RNIC_PT_CMD_WRITE, 0xFFFFFF, junk);
    mgmt(h, RNIC_PT_CMD_INVALIDATE, kEntries + 3);
    mgmt(h, RNIC_PT_CMD_READ, kEntries);
    mgmt(h, 0, 3, junk);
    mgmt(h, 0, kEntries, junk);
    for (uint32_t i : {0u, 3u, kEntries - 1})
        mgmt(h, RNIC_PT_CMD_READ, i);
    // WRITE then READ in the next cycle; INVALIDATE then READ.
    mgmt(h, RNIC_PT_CMD_WRITE, 5, junk);
    mgmt(h, RNIC_PT_CMD_READ, 5);
    mgmt(h, RNIC_PT_CMD_INVALIDATE, 5);
    mgmt(h, RNIC_PT_CMD_READ, 5);
    mgmt(h, RNIC_PT_CMD_WRITE, kEntries - 1, junk);
    mgmt(h, RNIC_PT_CMD_READ, kEntries - 1);
    // Only a BIND binds a window; unknown types are refused; a FREE window is fine.
    for (unsigned type = 0; type < 4; ++type)
        for (unsigned state = 0; state < 4; ++state) {
            ptm_entry e = junk;
            e.type = static_cast<uint8_t>(type);
            e.state = static_cast<uint8_t>(state);
            mgmt(h, RNIC_PT_CMD_WRITE, 6, e);
            mgmt(h, RNIC_PT_CMD_READ, 6);
        }
    h.idle(2);
}

// A command and checks of the same index in the same cycle see the old entry;
// the next cycle sees the new one.
void run_collisions(PtableHarness &h) {
    const uint32_t i = 7;
    ptm_entry a = make_entry(i, 0x9000, 0x1000, 0xF, RNIC_PT_STATE_VALID);
    ptm_entry b = a;
    b.key ^= 0x5A;
    b.base = 0xA000;
    ptm_request ra{RNIC_PT_MODE_LOCAL, i << 8 | a.key, a.pz, RNIC_ACCESS_REMOTE_WRITE, 0x9000, 0x10};
    ptm_request rb{RNIC_PT_MODE_LOCAL, i << 8 | b.key, b.pz, RNIC_ACCESS_REMOTE_WRITE, 0xA000, 0x10};
    mgmt(h, RNIC_PT_CMD_WRITE, i, a);
    for (unsigned cmd : {RNIC_PT_CMD_WRITE, RNIC_PT_CMD_INVALIDATE, RNIC_PT_CMD_WRITE, RNIC_PT_CMD_READ}) {
        for (int k = 0; k < 3; ++k) {  // the colliding cycle, then two after it
            CycleIn c;
            c.mgmt = k == 0;
            c.cmd = cmd;
            c.index = i;
            c.entry = b;
            c.lchk = h.l_ready();
            c.rchk = h.r_ready();
            c.lreq = ra;
            c.rreq = rb;
            h.cycle(c);
        }
        h.idle(2);
        std::swap(a, b);
        std::swap(ra, rb);
    }
    h.idle(3);
}

// ------------------------------------------------------------- random mix
// A seeded xorshift: the same sequence on every run.
struct Rng {
    uint64_t s;
    uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    unsigned below(unsigned n) { return static_cast<unsigned>(next() % n); }
};

// Few indices and few field values, so commands and checks keep landing on
// the same entries and verdicts of every kind come up.
void run_random(PtableHarness &h, unsigned cycles) {
    Rng rng{0x9E3779B97F4A7C15ull};
    const uint32_t idx[] = {0, 1, 2, kEntries - 1, kEntries};
    const uint64_t bases[] = {0x1000, kTop - 0xFF, 0};
    const uint64_t lens[] = {0x100, 0, kTop};
    const unsigned states[] = {RNIC_PT_STATE_VALID, RNIC_PT_STATE_VALID, RNIC_PT_STATE_FREE, RNIC_PT_STATE_INVALID};
    auto request = [&](ptm_request &r) {
        r.mode = rng.below(4);
        r.key = idx[rng.below(5)] << 8 | (1u + rng.below(2));
        r.pz = static_cast<uint16_t>(7 + rng.below(2));
        r.rights = static_cast<uint8_t>(rng.below(16));
        const uint64_t base = bases[rng.below(3)];
        r.addr = base + rng.below(0x120) - 0x10;
        r.len = rng.below(4) == 0 ? 0xFFFFFFFFu : rng.below(0x110);
    };
    for (unsigned n = 0; n < cycles; ++n) {
        CycleIn c;
        c.reset = rng.below(1000) == 0;
        c.mgmt = rng.below(2) == 0;
        const unsigned pick = rng.below(20);
        c.cmd = pick < 10 ? RNIC_PT_CMD_WRITE : pick < 15 ? RNIC_PT_CMD_READ : pick < 19 ? RNIC_PT_CMD_INVALIDATE : 0;
        c.index = idx[rng.below(5)];
        c.entry.key = static_cast<uint8_t>(1 + rng.below(2));
        c.entry.pz = static_cast<uint16_t>(7 + rng.below(2));
        c.entry.base = bases[rng.below(3)];
        c.entry.len = lens[rng.below(3)];
        c.entry.rights = static_cast<uint8_t>(rng.below(16));
        // Mostly what a WRITE may store (regions, FREE windows), sometimes not.
        c.entry.type = static_cast<uint8_t>(rng.below(8) == 0 ? rng.below(4) : rng.below(2));
        c.entry.state = static_cast<uint8_t>(c.entry.type == RNIC_PT_TYPE_MW && rng.below(4) != 0
                                                 ? static_cast<unsigned>(RNIC_PT_STATE_FREE)
                                                 : states[rng.below(4)]);
        c.entry.link = idx[rng.below(5)] << 8 | (1u + rng.below(2));
        c.bind = rng.below(4) == 0;
        c.bind_index = idx[rng.below(5)];
        c.bind_entry = c.entry;
        c.bind_entry.state = static_cast<uint8_t>(states[rng.below(4)]);
        c.lchk = rng.below(5) != 0 && h.l_ready();
        c.rchk = rng.below(5) != 0 && h.r_ready();
        request(c.lreq);
        request(c.rreq);
        h.cycle(c);
    }
    h.idle(3);
}

// ------------------------------------------------------------- the runs
// The table's own rules (the other mutants are the engine's).
struct TableMutant {
    unsigned id;
    const char *name;
};
const TableMutant kTableMutants[] = {
    {RNIC_MUTANT_NO_KEY_CHECK, "NO_KEY_CHECK"},       {RNIC_MUTANT_NO_PZ_CHECK, "NO_PZ_CHECK"},
    {RNIC_MUTANT_NO_RIGHTS_CHECK, "NO_RIGHTS_CHECK"}, {RNIC_MUTANT_NO_BOUNDS_CHECK, "NO_BOUNDS_CHECK"},
    {RNIC_MUTANT_NO_STATE_CHECK, "NO_STATE_CHECK"},   {RNIC_MUTANT_NO_LINK_CHECK, "NO_LINK_CHECK"},
    {RNIC_MUTANT_NO_TYPE_CHECK, "NO_TYPE_CHECK"},
};
const unsigned kOtherMutants[] = {RNIC_MUTANT_NO_FENCE, RNIC_MUTANT_NO_BIND_FENCE, RNIC_MUTANT_NO_BIND_KEY_CHANGE,
                                  RNIC_MUTANT_NO_BIND_LMR_CHECK};

// Everything, with `mutant` on. Returns the run's statistics.
HarnessStats run_all(unsigned mutant, size_t *ncross) {
    PtableHarness h(kEntries, mutant);
    const std::vector<Shape> sh = shapes();
    load_table(h, sh);
    const std::vector<ptm_request> reqs = cross_product(h, sh);
    *ncross = reqs.size();
    run_cross(h, reqs);
    run_windows(h);
    run_binds(h);
    run_management(h);
    run_collisions(h);
    run_random(h, 50000);
    return h.stats();
}

int run_plain() {
    size_t ncross = 0;
    const HarnessStats s = run_all(RNIC_MUTANT_NONE, &ncross);
    std::printf("rnic_ptable vs model: %zu cross-product requests on each port, %llu verdicts (%llu through a "
                "window's region), %llu management commands, %llu binds, %llu cycles: %llu mismatches\n",
                ncross, static_cast<unsigned long long>(s.checks), static_cast<unsigned long long>(s.window_checks),
                static_cast<unsigned long long>(s.mgmt_cmds), static_cast<unsigned long long>(s.binds),
                static_cast<unsigned long long>(s.cycles), static_cast<unsigned long long>(s.mismatches));
    // A bench that compared nothing would pass too: insist on the volume.
    const bool ok = s.mismatches == 0 && s.checks >= 2 * ncross && s.mgmt_cmds > kEntries && s.window_checks >= 28 &&
                    s.binds > 50;
    std::printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

int run_mutants() {
    unsigned survived = 0;
    std::printf("%-16s %-9s %s\n", "mutant", "verdict", "refused accesses let through / verdicts changed / compared");
    for (const TableMutant &m : kTableMutants) {
        size_t ncross = 0;
        const HarnessStats s = run_all(m.id, &ncross);
        // Killed: the mutant lets through an access the rules refuse, and the
        // RTL does exactly what the model with that mutant does.
        const bool killed = s.let_through > 0 && s.mismatches == 0;
        std::printf("%-16s %-9s %llu / %llu / %llu%s\n", m.name, killed ? "killed" : "SURVIVED",
                    static_cast<unsigned long long>(s.let_through), static_cast<unsigned long long>(s.differ_strict),
                    static_cast<unsigned long long>(s.checks),
                    s.mismatches ? " (RTL differs from the mutant model)" : "");
        survived += killed ? 0 : 1;
    }
    // Mutants of other blocks (the engine's fences and binds) must leave every
    // verdict as it is.
    bool untouched = true;
    for (unsigned m : kOtherMutants) {
        size_t ncross = 0;
        const HarnessStats other = run_all(m, &ncross);
        const bool same = other.differ_strict == 0 && other.mismatches == 0;
        std::printf("mutant %-9u %-9s %llu / %llu / %llu\n", m, same ? "no effect" : "CHANGED",
                    static_cast<unsigned long long>(other.let_through),
                    static_cast<unsigned long long>(other.differ_strict), static_cast<unsigned long long>(other.checks));
        untouched = untouched && same;
    }
    const unsigned n = sizeof kTableMutants / sizeof kTableMutants[0];
    std::printf("mutants: %u killed, %u survived\n", n - survived, survived);
    return survived || !untouched ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
    const bool mutants = argc > 1 && std::strcmp(argv[1], "--mutants") == 0;
    return mutants ? run_mutants() : run_plain();
}
