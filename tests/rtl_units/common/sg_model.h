// The bench's own rnic_sg_cursor, for the units that move a payload through
// it (rnic_tx_gather, rnic_rx_scatter): a list of segments and a cursor
// into it, answering more / rem / addr / seg_base as the cursor's ports do
// and taking the units' next and take commands, each held to the cursor's
// rules (one command a cycle, next only on a used-up segment inside the
// list, take of 1..rem bytes). And the reference cut of a payload into DMA
// bursts: from the cursor on, as much as the segment, the bytes left and
// the MTU allow, empty segments skipped, so no burst crosses a segment or
// exceeds the MTU. Header-only: it has nothing to link.
#ifndef RTL_UNIT_SG_MODEL_H
#define RTL_UNIT_SG_MODEL_H

#include <cstdint>
#include <utility>
#include <vector>

#include "unit_bench.h"

namespace sg {

struct Seg {
    uint64_t addr = 0;
    uint32_t len = 0;
};

// One DMA burst of the reference cut.
struct Piece {
    uint64_t addr;
    uint32_t len;
    unsigned seg;   // index in the list
};

class Cursor {
public:
    // The list, cursor at byte `off` of segment `first` (a later packet of a
    // message resumes inside the list); first == size(): past the end.
    void load(const std::vector<Seg> &segs, unsigned first, uint32_t off) {
        segs_ = segs;
        i_ = first;
        off_ = off;
    }
    bool more() const { return i_ < segs_.size(); }
    uint32_t rem() const { return more() ? segs_[i_].len - off_ : 0; }
    uint64_t addr() const { return more() ? segs_[i_].addr + off_ : 0; }
    uint64_t base() const { return more() ? segs_[i_].addr : 0; }
    unsigned index() const { return i_; }
    uint32_t offset() const { return off_; }

    // One cycle's commands from the unit; a broken rule is a failed check
    // (and the command is not applied, so one slip is reported once).
    void command(bool next, bool take, uint32_t take_n) {
        CHECK(!(next && take));
        if (next && take) return;
        if (next) {
            CHECK(more());          // not past the end of the list
            CHECK_EQ(rem(), 0u);    // only a used-up segment is left
            if (more()) {
                i_++;
                off_ = 0;
            }
        } else if (take) {
            CHECK(more());
            CHECK(take_n >= 1);
            CHECK(take_n <= rem());   // never past the current segment
            if (more() && take_n <= rem()) off_ += take_n;
        }
    }

private:
    std::vector<Seg> segs_;
    unsigned i_ = 0;
    uint32_t off_ = 0;
};

// The reference cut of `len` bytes from (first, off): the bursts in order,
// how many bytes have a place (`fit`, len unless the list is too short) and
// how many segments the mover steps over (`nexts`: the used-up segments it
// meets while bytes are left).
struct Cut {
    std::vector<Piece> pieces;
    uint32_t fit = 0;
    unsigned nexts = 0;
};

inline Cut cut(const std::vector<Seg> &segs, unsigned first, uint32_t off, uint32_t len, uint32_t mtu) {
    Cut c;
    unsigned i = first;
    uint32_t o = off;
    uint32_t left = len;
    while (left && i < segs.size()) {
        const uint32_t rem = segs[i].len - o;
        if (rem == 0) {
            c.nexts++;
            i++;
            o = 0;
            continue;
        }
        uint32_t n = left < rem ? left : rem;
        if (n > mtu) n = mtu;
        c.pieces.push_back(Piece{segs[i].addr + o, n, i});
        o += n;
        left -= n;
    }
    c.fit = len - left;
    return c;
}

// Bytes the list holds from (first, off) on.
inline uint64_t room(const std::vector<Seg> &segs, unsigned first, uint32_t off) {
    uint64_t n = 0;
    for (unsigned i = first; i < segs.size(); i++) n += segs[i].len - (i == first ? off : 0);
    return n;
}

// A host address: mostly in the low 4 GiB or around 2^32 (a fault reports
// 32 bits), sometimes with high bits set; any byte alignment.
inline uint64_t random_addr(Rng &r) {
    switch (r.range(0, 5)) {
    case 0: return 0x100000000ull - r.range(1, 8192);             // just below 4 GiB
    case 1: return (r.next() & 0x0000FFFFFFFFFFFFull);           // anywhere in 48 bits
    case 2: return 0xFFFF800000000000ull | (r.next() & 0x7FFFFFFFFFFFull);
    default: return (r.u32() & 0xFFFFF000u) | r.range(0, 4095);
    }
}

// A list holding `need` bytes from its cursor on, plus `extra` (which may
// be negative: a list that runs dry that many bytes early, down to none):
// 1..max_segs segments of random lengths (with `empties`, cut points may
// repeat, so some segments are empty), at random addresses, the cursor at a random segment and
// offset (the segments before it used up).
struct List {
    std::vector<Seg> segs;
    unsigned first = 0;
    uint32_t off = 0;
};

inline List random_list(Rng &r, uint32_t need, int64_t extra, unsigned max_segs, bool empties) {
    List l;
    int64_t total = static_cast<int64_t>(need) + extra;
    if (total < 0) total = 0;
    const unsigned before = r.percent(30) ? r.range(1, 2) : 0;   // used-up segments before the cursor
    for (unsigned i = 0; i < before; i++) l.segs.push_back(Seg{random_addr(r), r.range(1, 3000)});
    l.first = before;
    const unsigned n = r.range(1, max_segs);
    // Cut `total` at n - 1 random points (sorted), some cuts repeated when
    // empties are allowed.
    std::vector<uint32_t> cuts;
    for (unsigned i = 0; i + 1 < n; i++) {
        uint32_t c = total ? r.range(0, static_cast<uint32_t>(total)) : 0;
        if (!empties && total >= n) c = r.range(1, static_cast<uint32_t>(total) - 1);
        cuts.push_back(c);
    }
    for (size_t a = 0; a < cuts.size(); a++)   // insertion sort: a handful of numbers
        for (size_t b = a; b > 0 && cuts[b - 1] > cuts[b]; b--) std::swap(cuts[b - 1], cuts[b]);
    uint32_t prev = 0;
    for (unsigned i = 0; i < n; i++) {
        const uint32_t end = i + 1 < n ? cuts[i] : static_cast<uint32_t>(total);
        l.segs.push_back(Seg{random_addr(r), end - prev});
        prev = end;
    }
    // The cursor inside the first segment it points at: that segment grows
    // in front of the cursor by `off` bytes already moved.
    if (r.percent(30)) {
        l.off = r.range(1, 5000);
        l.segs[l.first].len += l.off;
        l.segs[l.first].addr -= l.off;
    }
    return l;
}

}  // namespace sg

#endif
