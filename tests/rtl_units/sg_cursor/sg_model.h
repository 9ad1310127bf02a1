// A reference model of the scatter/gather cursor, written from the header
// of rtl/rnic_sg_cursor.sv, not from its code:
//   - a list of segments (host address, length) and a cursor: the segment
//     it is in and the byte offset inside it;
//   - load: the first n segments; the cursor at byte `pos` of their
//     concatenation, i.e. in the segment that holds that byte (a zero-length
//     segment holds none, so a position never lands in one), at its offset
//     there; a position at or past the total length holds no byte: the
//     cursor is at the end (more low);
//   - single: a one-segment list, cursor at its start (a zero-length single
//     is a list of one empty segment: more high, rem 0);
//   - next: on to the start of the following segment;
//   - take k: k bytes of the current segment are moved, the offset grows;
//   - more: the cursor is in a segment of the list; rem: bytes left in it
//     (0 at the end); addr: segment base + offset (64-bit, the offset
//     unsigned); seg_base: the segment's base. At the end addr and seg_base
//     name no segment: the contract says nothing of them there.
// The model finds a position by cumulative 64-bit start offsets, where the
// RTL subtracts lengths as it goes: two ways to the same answer.
#ifndef SG_MODEL_H
#define SG_MODEL_H

#include <cstdint>
#include <vector>

#include "rnic_hw.h"

struct SgSeg {
    uint64_t addr = 0;
    uint32_t len = 0;
};

class SgModel {
public:
    static constexpr unsigned kMaxSge = RNIC_MAX_SGE;

    void reset();                                  // an empty list: more low
    void load(unsigned n, const SgSeg *segs, uint32_t pos);
    void single(uint64_t addr, uint32_t len);
    void next();                                   // only with more (the bench refuses otherwise)
    void take(uint32_t n);                         // only with more and n <= rem

    bool more() const { return i_ < segs_.size(); }
    uint32_t rem() const { return more() ? segs_[i_].len - off_ : 0; }
    uint64_t seg_base() const { return more() ? segs_[i_].addr : 0; }
    uint64_t addr() const { return seg_base() + off_; }
    unsigned count() const { return static_cast<unsigned>(segs_.size()); }
    unsigned index() const { return i_; }
    uint32_t offset() const { return off_; }

private:
    std::vector<SgSeg> segs_;
    unsigned i_ = 0;
    uint32_t off_ = 0;
};

#endif
