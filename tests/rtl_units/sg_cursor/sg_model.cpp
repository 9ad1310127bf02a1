#include "sg_model.h"

void SgModel::reset() {
    segs_.clear();
    i_ = 0;
    off_ = 0;
}

void SgModel::load(unsigned n, const SgSeg *segs, uint32_t pos) {
    segs_.assign(segs, segs + n);
    i_ = n;   // no segment holds byte pos: the end
    off_ = 0;
    uint64_t start = 0;   // byte offset of segment k in the concatenation
    for (unsigned k = 0; k < n; k++) {
        const uint64_t end = start + segs[k].len;
        if (pos >= start && pos < end) {
            i_ = k;
            off_ = static_cast<uint32_t>(pos - start);
            return;
        }
        start = end;
    }
}

void SgModel::single(uint64_t addr, uint32_t len) {
    SgSeg s;
    s.addr = addr;
    s.len = len;
    segs_.assign(1, s);
    i_ = 0;
    off_ = 0;
}

void SgModel::next() {
    ++i_;
    off_ = 0;
}

void SgModel::take(uint32_t n) {
    off_ += n;
}
