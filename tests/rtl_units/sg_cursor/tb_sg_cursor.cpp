// rnic_sg_cursor against its contract (the header of rtl/rnic_sg_cursor.sv).
//
//   tb_rtl_sg_cursor TEST... | all   runs the named tests
//   tb_rtl_sg_cursor --list          prints every test name, one a line
//                                    (CMake registers one CTest per line)
//
// Every test runs the unit beside the cursor model (sg_model.h) and checks
// every output in every cycle (sg_harness.h); the tests below add, by hand,
// where the contract puts the cursor in each case:
//
//   load_at_zero    position 0: the start of the first segment, for 1..4
//                   segments, from wherever the cursor was
//   load_inside     a position inside a segment: that segment, at that
//                   offset (first, last and middle bytes of each segment)
//   load_boundary   a position exactly where a segment starts: that
//                   segment at offset 0, not the end of the one before;
//                   the byte before a boundary: the last of the segment before
//   load_past_end   the total length or more, or no SGE at all: the end
//                   (more low, rem 0), whatever the SGEs past load_n hold
//   zero_length     zero-length segments first, between, last, only: a
//                   position never lands in one; next walks through them
//                   (more high, rem 0 in each)
//   single          one segment at its start, a zero-length one too; it
//                   replaces a longer list (next after it is the end)
//   next_take       take by 0, 1, pieces, the rest; next at the end of a
//                   segment and before it; the cursor's address contiguous
//                   through a segment; the walk of a whole list to its end
//   wide_values     64-bit addresses with a carry out of the low word and
//                   a wrap past 2^64, offsets of 2^31 and more (unsigned),
//                   lengths of 2^32 - 1, positions up to 2^32 - 1
//   reset           reset in the middle of a list: an empty list
//   random_run      250,000 cycles of legal command sequences: random lists
//                   (zero-length and huge segments among them), positions
//                   at and around every boundary, inside, past the end;
//                   the figures at the end say every case was reached
//
// Each test prints its seed; RTL_UNIT_SEED=N replays another.
#include <cstdio>
#include <vector>

#include "rnic_check.h"
#include "sg_harness.h"
#include "unit_bench.h"

namespace {

uint64_t seed(uint64_t fixed) { return unit_seed(fixed); }

SgSeg seg(uint64_t addr, uint32_t len) {
    SgSeg s;
    s.addr = addr;
    s.len = len;
    return s;
}

// The cursor is at offset `off` of segment s.
void expect_at(const SgHarness &h, const SgSeg &s, uint32_t off) {
    CHECK(h.more());
    CHECK_EQ(h.rem(), s.len - off);
    CHECK_EQ(h.seg_base(), s.addr);
    CHECK_EQ(h.addr(), s.addr + off);
}

void expect_end(const SgHarness &h) {
    CHECK(!h.more());
    CHECK_EQ(h.rem(), 0);
}

// Where segment k starts in the concatenation.
uint64_t start_of(const SgSeg *l, unsigned k) {
    uint64_t s = 0;
    for (unsigned i = 0; i < k; i++) s += l[i].len;
    return s;
}

const SgSeg kList[kSge] = {
    {0x0000100000001000ull, 100},
    {0x0000000000002000ull, 1},
    {0x7FFFFFFF00000000ull, 4096},
    {0x0000000000003005ull, 37},
};

// A random list: addresses anywhere, lengths from 1 (or 0, zero_pct % of
// the segments) to huge.
void random_list(Rng &r, SgSeg *l, unsigned zero_pct) {
    for (unsigned i = 0; i < kSge; i++) {
        l[i].addr = r.next();
        if (r.percent(zero_pct)) {
            l[i].len = 0;
            continue;
        }
        switch (r.range(0, 9)) {
        case 0: case 1: l[i].len = 1; break;
        case 2: case 3: l[i].len = r.range(1, 64); break;
        case 4: case 5: case 6: l[i].len = r.range(1, 1u << 16); break;
        case 7: l[i].len = r.range(1, 0x3FFFFFFF); break;
        default: l[i].len = r.range(1, 9000); break;
        }
    }
}

}  // namespace

// Position 0: the start of segment 0, for lists of 1 to 4 segments, from a
// fresh cursor, from the middle of a list and from the end.
UNIT_TEST(load_at_zero) {
    SgHarness h(seed(0x5601));
    for (unsigned n = 1; n <= kSge; n++) {
        h.load(n, kList, 0);
        expect_at(h, kList[0], 0);
        h.take(60);           // somewhere inside
        h.load(n, kList, 0);  // back to 0
        expect_at(h, kList[0], 0);
        h.load(n, kList, 0xFFFFFFFFu);   // the end
        expect_end(h);
        h.load(n, kList, 0);
        expect_at(h, kList[0], 0);
    }
    Rng &r = h.rng();
    for (int t = 0; t < 200; t++) {
        SgSeg l[kSge];
        random_list(r, l, 0);
        const unsigned n = r.range(1, kSge);
        h.load(n, l, 0);
        expect_at(h, l[0], 0);
    }
    h.idle(2);
}

// A position inside a segment: that segment, at that offset.
UNIT_TEST(load_inside) {
    SgHarness h(seed(0x5602));
    for (unsigned n = 1; n <= kSge; n++) {
        for (unsigned k = 0; k < n; k++) {
            const uint32_t len = kList[k].len;
            const uint64_t s = start_of(kList, k);
            for (uint32_t off : {0u, 1u, len / 2, len - 1}) {
                if (off >= len)
                    continue;
                h.load(n, kList, static_cast<uint32_t>(s + off));
                expect_at(h, kList[k], off);
            }
        }
    }
    Rng &r = h.rng();
    for (int t = 0; t < 2000; t++) {
        SgSeg l[kSge];
        random_list(r, l, 0);
        const unsigned n = r.range(1, kSge);
        const unsigned k = r.range(0, n - 1);
        const uint32_t off = r.range(0, l[k].len - 1);
        const uint64_t pos = start_of(l, k) + off;
        if (pos > 0xFFFFFFFFull)
            continue;
        h.load(n, l, static_cast<uint32_t>(pos));
        expect_at(h, l[k], off);
    }
    h.idle(2);
}

// Exactly at a boundary: the next segment at offset 0 with all its bytes;
// one byte before it: the last byte of the segment before; at the total:
// the end, one byte before it the last byte of the last segment.
UNIT_TEST(load_boundary) {
    SgHarness h(seed(0x5603));
    for (unsigned n = 1; n <= kSge; n++) {
        for (unsigned k = 1; k < n; k++) {
            const uint32_t b = static_cast<uint32_t>(start_of(kList, k));
            h.load(n, kList, b);
            expect_at(h, kList[k], 0);
            h.load(n, kList, b - 1);
            expect_at(h, kList[k - 1], kList[k - 1].len - 1);
            h.load(n, kList, b + 1);
            if (kList[k].len > 1)
                expect_at(h, kList[k], 1);
            else if (k + 1 < n)
                expect_at(h, kList[k + 1], 0);   // kList[1] is one byte long
            else
                expect_end(h);
        }
        const uint32_t total = static_cast<uint32_t>(start_of(kList, n));
        h.load(n, kList, total);
        expect_end(h);
        h.load(n, kList, total - 1);
        expect_at(h, kList[n - 1], kList[n - 1].len - 1);
    }
    // Segments of one byte: every position is a boundary.
    const SgSeg ones[kSge] = {{0x100, 1}, {0x200, 1}, {0x300, 1}, {0x400, 1}};
    for (uint32_t p = 0; p < kSge; p++) {
        h.load(kSge, ones, p);
        expect_at(h, ones[p], 0);
        CHECK_EQ(h.rem(), 1);
    }
    h.load(kSge, ones, kSge);
    expect_end(h);
    Rng &r = h.rng();
    for (int t = 0; t < 2000; t++) {
        SgSeg l[kSge];
        random_list(r, l, 0);
        const unsigned n = r.range(1, kSge);
        const unsigned k = r.range(1, n);
        const uint64_t b = start_of(l, k);
        if (b > 0xFFFFFFFFull)
            continue;
        h.load(n, l, static_cast<uint32_t>(b));
        if (k == n)
            expect_end(h);
        else
            expect_at(h, l[k], 0);
    }
    h.idle(2);
}

// At or past the total length, or an empty list: the end, more low and rem
// 0, whatever the SGEs past load_n hold (the harness drives junk there:
// here, on purpose, segments long enough to hold the position).
UNIT_TEST(load_past_end) {
    SgHarness h(seed(0x5604));
    for (unsigned n = 0; n <= kSge; n++) {
        const uint32_t total = static_cast<uint32_t>(start_of(kList, n));
        for (uint32_t pos : {total, total + 1, total + 4096, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu}) {
            h.load(0, kList, 0);   // from the end
            h.load(n, kList, pos);
            expect_end(h);
            if (n > 0) {
                h.load(n, kList, 0);   // from the start of a list
                h.take(1);
                h.load(n, kList, pos);
                expect_end(h);
            }
        }
    }
    // The SGEs past load_n hold the position: still the end.
    const SgSeg big[kSge] = {{0x1000, 10}, {0x2000, 10}, {0x3000, 0x1000}, {0x4000, 0xFFFFE000u}};
    for (unsigned n = 0; n < kSge; n++) {
        SgCmd c = SgCmd::load(kSge, big, 0);
        c.n = n;
        c.tail = true;   // SGEs n.. on the port as the WQE held them, not junk
        for (uint32_t pos : {static_cast<uint32_t>(start_of(big, n)), static_cast<uint32_t>(start_of(big, n)) + 5}) {
            c.pos = pos;
            h.cycle(c);
            expect_end(h);
        }
    }
    // An empty list at position 0.
    h.load(0, kList, 0);
    expect_end(h);
    h.idle(3);
    expect_end(h);
}

// Zero-length segments hold no byte: a position lands in the first segment
// that holds it; next still walks through each (more high, rem 0).
UNIT_TEST(zero_length) {
    SgHarness h(seed(0x5605));
    const SgSeg first[kSge] = {{0xA000, 0}, {0xB000, 10}, {0xC000, 20}, {0xD000, 30}};
    h.load(kSge, first, 0);
    expect_at(h, first[1], 0);
    h.load(kSge, first, 10);
    expect_at(h, first[2], 0);
    h.load(kSge, first, 9);
    expect_at(h, first[1], 9);

    const SgSeg middle[kSge] = {{0xA000, 10}, {0xB000, 0}, {0xC000, 0}, {0xD000, 20}};
    h.load(kSge, middle, 10);
    expect_at(h, middle[3], 0);
    h.load(kSge, middle, 9);
    expect_at(h, middle[0], 9);
    h.load(kSge, middle, 29);
    expect_at(h, middle[3], 19);
    h.load(kSge, middle, 30);
    expect_end(h);

    const SgSeg last[kSge] = {{0xA000, 10}, {0xB000, 20}, {0xC000, 0}, {0xD000, 0}};
    h.load(kSge, last, 30);
    expect_end(h);
    h.load(kSge, last, 29);
    expect_at(h, last[1], 19);
    h.load(3, last, 30);
    expect_end(h);

    const SgSeg none[kSge] = {{0xA000, 0}, {0xB000, 0}, {0xC000, 0}, {0xD000, 0}};
    for (unsigned n = 0; n <= kSge; n++) {
        h.load(n, none, 0);
        expect_end(h);
    }

    // next through zero-length segments, as the gather and the scatter do
    // (next when rem is 0): each is visited with rem 0 at its base.
    const SgSeg mixed[kSge] = {{0xA000, 10}, {0xB000, 0}, {0xC000, 20}, {0xD000, 0}};
    h.load(kSge, mixed, 0);
    expect_at(h, mixed[0], 0);
    h.take(10);
    expect_at(h, mixed[0], 10);
    h.next();
    expect_at(h, mixed[1], 0);
    h.take(0);   // a take of 0 bytes is within rem 0
    expect_at(h, mixed[1], 0);
    h.next();
    expect_at(h, mixed[2], 0);
    h.take(20);
    h.next();
    expect_at(h, mixed[3], 0);
    h.next();
    expect_end(h);
    // Loaded at 0 with only empty segments before: the walk starts past them.
    h.load(kSge, none, 0);
    h.load(kSge, first, 0);
    h.take(10);
    h.next();
    expect_at(h, first[2], 0);
    h.idle(2);
}

// A one-segment list at its start; a zero-length single is a list of one
// empty segment; a single replaces whatever list was loaded.
UNIT_TEST(single) {
    SgHarness h(seed(0x5606));
    h.single(0x123456789ABCull, 500);
    expect_at(h, seg(0x123456789ABCull, 500), 0);
    h.take(499);
    expect_at(h, seg(0x123456789ABCull, 500), 499);
    h.take(1);
    expect_at(h, seg(0x123456789ABCull, 500), 500);
    h.next();
    expect_end(h);

    // Zero length (the engine's WRITE MIDDLE/LAST without payload).
    h.single(0xFEEDull, 0);
    expect_at(h, seg(0xFEED, 0), 0);
    h.next();
    expect_end(h);

    // A single after a four-segment load, in the middle of its first segment:
    // one segment, and the old list's second one is gone.
    h.load(kSge, kList, 50);
    h.single(0x9000, 8);
    expect_at(h, seg(0x9000, 8), 0);
    h.next();
    expect_end(h);
    // From the end of a list; then a load replaces the single.
    h.load(kSge, kList, 0xFFFFFFFFu);
    h.single(0x9000, 8);
    expect_at(h, seg(0x9000, 8), 0);
    h.load(kSge, kList, 101);
    expect_at(h, kList[2], 0);
    // The widest length, and back to back singles.
    h.single(0x1, 0xFFFFFFFFu);
    expect_at(h, seg(0x1, 0xFFFFFFFFu), 0);
    for (uint32_t i = 0; i < 16; i++) {
        h.single(0x1000ull * i, i);
        expect_at(h, seg(0x1000ull * i, i), 0);
    }
    h.idle(2);
}

// take moves the cursor by its bytes inside the segment (0 changes nothing);
// next goes to the start of the following segment, whether or not the
// current one was used up; a list walked piece by piece to its end.
UNIT_TEST(next_take) {
    SgHarness h(seed(0x5607));
    h.load(kSge, kList, 0);
    h.take(0);
    expect_at(h, kList[0], 0);
    for (uint32_t i = 1; i <= 10; i++) {
        h.take(1);
        expect_at(h, kList[0], i);
    }
    h.take(40);
    expect_at(h, kList[0], 50);
    h.take(50);   // the rest
    expect_at(h, kList[0], 100);
    h.take(0);
    expect_at(h, kList[0], 100);
    h.next();
    expect_at(h, kList[1], 0);
    h.next();     // before seg 1's byte is taken: on anyway
    expect_at(h, kList[2], 0);
    h.take(4000);
    h.next();     // 96 bytes left in seg 2: on anyway
    expect_at(h, kList[3], 0);
    h.take(37);
    h.next();
    expect_end(h);

    // From a loaded position: take and next from the middle.
    h.load(kSge, kList, 150);   // seg 2 at 49
    expect_at(h, kList[2], 49);
    h.take(4047);
    expect_at(h, kList[2], 4096);
    h.next();
    expect_at(h, kList[3], 0);

    // Whole lists walked as the gather walks them: a piece of at most
    // `piece` bytes, next when the segment is used up; every byte of each
    // segment visited once, in order, at contiguous addresses.
    Rng &r = h.rng();
    for (int t = 0; t < 300; t++) {
        SgSeg l[kSge];
        for (unsigned i = 0; i < kSge; i++) {
            l[i].addr = r.next();
            l[i].len = r.percent(20) ? 0 : r.range(1, 3000);
        }
        const unsigned n = r.range(1, kSge);
        h.load(n, l, 0);
        const uint32_t piece = r.range(1, 1024);
        uint64_t moved = 0;
        unsigned k = 0;   // the load skips leading zero-length segments
        while (k < n && l[k].len == 0) k++;
        uint32_t off = 0;
        unsigned steps = 0;
        while (h.more() && steps++ < 100000) {
            CHECK(k < n);
            if (k >= n)
                break;
            expect_at(h, l[k], off);
            if (h.rem() == 0) {
                h.next();
                k++;
                off = 0;
            } else {
                const uint32_t take = h.rem() < piece ? h.rem() : piece;
                h.take(take);
                off += take;
                moved += take;
            }
        }
        CHECK_EQ(k, n);
        CHECK_EQ(moved, start_of(l, n));
    }
    h.idle(2);
}

// Full widths: a 64-bit address whose low word carries, one that wraps past
// 2^64, an offset of 2^31 and more added unsigned, lengths of 2^32 - 1,
// positions up to 2^32 - 1.
UNIT_TEST(wide_values) {
    SgHarness h(seed(0x5608));
    h.single(0x00000000FFFFFFF0ull, 0x100);
    h.take(0x20);
    CHECK_EQ(h.addr(), 0x0000000100000010ull);
    CHECK_EQ(h.seg_base(), 0x00000000FFFFFFF0ull);
    CHECK_EQ(h.rem(), 0xE0);

    h.single(0xFFFFFFFFFFFFFF00ull, 0xFFFFFFFFu);
    h.take(0x80000000u);
    CHECK_EQ(h.addr(), 0x000000007FFFFF00ull);   // wraps mod 2^64
    CHECK_EQ(h.rem(), 0x7FFFFFFFu);
    h.take(0x7FFFFFFFu);
    CHECK_EQ(h.addr(), 0x00000000FFFFFEFFull);
    CHECK_EQ(h.rem(), 0);

    const SgSeg huge[kSge] = {{0x1000000000000000ull, 0xFFFFFFFFu},
                              {0x2000000000000000ull, 0xFFFFFFFFu},
                              {0x3000000000000000ull, 0xFFFFFFFFu},
                              {0x4000000000000000ull, 0xFFFFFFFFu}};
    h.load(kSge, huge, 0xFFFFFFFFu);   // the first byte of the second segment
    expect_at(h, huge[1], 0);
    h.load(kSge, huge, 0xFFFFFFFEu);
    expect_at(h, huge[0], 0xFFFFFFFEu);
    CHECK_EQ(h.addr(), 0x10000000FFFFFFFEull);
    h.load(1, huge, 0xFFFFFFFFu);      // one segment: the end
    expect_end(h);

    const SgSeg halves[2] = {{0x8000000000000000ull, 0x80000000u}, {0xC000000000000000ull, 0x80000000u}};
    h.load(2, halves, 0x80000000u);
    expect_at(h, halves[1], 0);
    h.load(2, halves, 0x7FFFFFFFu);
    expect_at(h, halves[0], 0x7FFFFFFFu);
    CHECK_EQ(h.addr(), 0x800000007FFFFFFFull);
    h.load(2, halves, 0xFFFFFFFFu);
    expect_at(h, halves[1], 0x7FFFFFFFu);
    CHECK_EQ(h.addr(), 0xC00000007FFFFFFFull);
    CHECK_EQ(h.rem(), 1);
    h.load(2, halves, 0xC0000000u);
    CHECK_EQ(h.addr(), 0xC000000040000000ull);
    h.take(h.rem());
    CHECK_EQ(h.addr(), 0xC000000080000000ull);   // offset 2^31, not sign-extended
    h.idle(2);
}

// Reset in the middle of a list, or at its end: an empty list.
UNIT_TEST(reset) {
    SgHarness h(seed(0x5609));
    h.load(kSge, kList, 150);
    expect_at(h, kList[2], 49);
    h.reset();
    expect_end(h);
    h.idle(3);
    expect_end(h);
    h.single(0x77, 7);
    h.reset();
    expect_end(h);
    h.load(kSge, kList, 0);
    expect_at(h, kList[0], 0);
    h.load(kSge, kList, 0xFFFFFFFFu);
    h.reset();
    expect_end(h);
    h.load(2, kList, 100);
    expect_at(h, kList[1], 0);
}

// Legal command sequences at random, every output against the model every
// cycle: loads of random lists at positions chosen at and around the
// boundaries, inside segments and past the end; singles; next and take as
// the gather and scatter give them, and some they never give (next with
// bytes left, take 0); idle cycles; a reset now and then.
UNIT_TEST(random_run) {
    SgHarness h(seed(0x5C0DE5));
    Rng &r = h.rng();
    const uint64_t kCycles = 250000;
    const int failures = rnic_check_failures();
    while (h.now() < kCycles && !unit_stop(failures)) {
        const SgModel &m = h.model();
        const unsigned pick = r.range(0, 999);
        if (pick < 2) {
            h.reset();
        } else if (pick < 120 || (!m.more() && pick < 700)) {   // at the end: mostly a new list
            SgSeg l[kSge];
            random_list(r, l, 20);
            const unsigned n = r.percent(60) ? kSge : r.range(0, kSge);
            const unsigned k = n ? r.range(0, n - 1) : 0;
            const uint64_t s = start_of(l, k), total = start_of(l, n);
            uint64_t pos;
            switch (r.range(0, 9)) {
            case 0: pos = 0; break;
            case 1: pos = s; break;                              // a boundary
            case 2: pos = s + l[k].len; break;                   // the next one
            case 3: pos = s ? s - 1 : 0; break;                  // the byte before
            case 4: pos = total; break;                          // the end
            case 5: pos = total + r.range(0, 100); break;        // past it
            case 6: pos = r.u32(); break;
            default: pos = s + (l[k].len ? r.range(0, l[k].len - 1) : 0); break;   // inside
            }
            h.load(n, l, static_cast<uint32_t>(pos));
        } else if (pick < 150 || (!m.more() && pick < 850)) {
            // One draw a statement: the order of a call's arguments is the
            // compiler's, and a seed must replay the same run under any.
            const uint64_t addr = r.next();
            const uint32_t len = r.percent(25) ? 0 : r.percent(10) ? r.u32() : r.range(1, 9000);
            h.single(addr, len);
        } else if (m.more() && (m.rem() == 0 ? pick < 600 : pick < 190)) {
            h.next();
        } else if (m.more() && pick < 750) {
            const uint32_t rem = m.rem();
            uint32_t k;
            switch (r.range(0, 5)) {
            case 0: k = rem; break;
            case 1: k = rem ? 1 : 0; break;
            case 2: k = 0; break;
            default: k = rem ? r.range(0, rem < 4096 ? rem : 4096) : 0; break;
            }
            h.take(k);
        } else {
            h.idle(1);
        }
    }
    const SgStats &s = h.stats();
    std::printf("random_run: %llu cycles; %llu loads (%llu at the end, %llu of no SGE, %llu at a boundary, %llu past "
                "a zero-length segment); %llu singles (%llu empty); %llu next (%llu to the end, %llu onto an empty "
                "segment); %llu takes (%llu of the rest, %llu of 0); %llu resets; %llu idle\n",
                static_cast<unsigned long long>(s.cycles), static_cast<unsigned long long>(s.loads),
                static_cast<unsigned long long>(s.loads_end), static_cast<unsigned long long>(s.loads_empty),
                static_cast<unsigned long long>(s.loads_boundary),
                static_cast<unsigned long long>(s.loads_zero_skipped), static_cast<unsigned long long>(s.singles),
                static_cast<unsigned long long>(s.singles_empty), static_cast<unsigned long long>(s.nexts),
                static_cast<unsigned long long>(s.nexts_to_end), static_cast<unsigned long long>(s.nexts_onto_empty),
                static_cast<unsigned long long>(s.takes), static_cast<unsigned long long>(s.takes_whole),
                static_cast<unsigned long long>(s.takes_zero), static_cast<unsigned long long>(s.resets),
                static_cast<unsigned long long>(s.idles));
    CHECK(h.now() >= kCycles);
    CHECK(s.loads > 20000);
    CHECK(s.loads_end > 2000);
    CHECK(s.loads_empty > 500);
    CHECK(s.loads_boundary > 2000);
    CHECK(s.loads_zero_skipped > 500);
    CHECK(s.singles > 5000);
    CHECK(s.singles_empty > 1000);
    CHECK(s.nexts > 10000);
    CHECK(s.nexts_to_end > 2000);
    CHECK(s.nexts_onto_empty > 1000);
    CHECK(s.takes > 20000);
    CHECK(s.takes_whole > 2000);
    CHECK(s.takes_zero > 2000);
    CHECK(s.resets > 100);
}
