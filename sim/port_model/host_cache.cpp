#include "host_cache.h"

#include "dma_publish.h"
#include "host_access.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <new>
#include <unistd.h>

namespace {

// IOVA = VA. The CPU's view is touched only where it was found reachable
// first: by HostMemory for a DMA burst, here for syncs and unmaps.
uint8_t *at(uint64_t va) { return reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(va)); }

constexpr uint64_t kAllDirty = ~uint64_t{0};

// How many bytes the model tracks at most, all mappings together. Each
// costs two bytes and a bit of shadow, and the length is the program's to
// choose (2^40 for a 4 KiB buffer): what the host cannot shadow, an eighth
// of its memory at most, is refused before anything is allocated.
uint64_t tracked_limit() {
    static const uint64_t limit = [] {
        const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        if (pages <= 0 || size <= 0)
            return uint64_t{1} << 30;
        return static_cast<uint64_t>(pages) * static_cast<uint64_t>(size) / 8;
    }();
    return limit;
}

}  // namespace

void HostCache::Segment::set_dirty(uint64_t o, bool v) {
    const uint64_t bit = uint64_t{1} << (o % 64);
    if (v)
        nic_dirty[o / 64] |= bit;
    else
        nic_dirty[o / 64] &= ~bit;
}

bool HostCache::Segment::any_dirty(uint64_t o, uint64_t n) const {
    for (const uint64_t end = o + n; o < end;) {
        const uint64_t bit = o % 64, m = std::min<uint64_t>(64 - bit, end - o);
        const uint64_t mask = (m == 64 ? kAllDirty : (uint64_t{1} << m) - 1) << bit;
        if (nic_dirty[o / 64] & mask)
            return true;
        o += m;
    }
    return false;
}

// Whether `op` can do its work on a piece: every operation but a DMA write
// reads the CPU's view; a sync for the CPU and an unmap write it where the
// NIC wrote (and only there, so only those pages are asked about: a page
// costs a system call).
bool HostCache::reachable(Op op, const Segment &s, uint64_t off, uint64_t va, uint64_t n) {
    if (!host_access::readable(va, n))
        return false;
    if (op != Op::clean_invalidate && op != Op::retire)
        return true;
    const uint64_t page = host_access::page_size();
    for (uint64_t i = 0; i < n;) {
        const uint64_t m = std::min(n - i, page - (va + i) % page);
        if (s.any_dirty(off + i, m) && !host_access::writable(va + i, m))
            return false;
        i += m;
    }
    return true;
}

// The CPU's view of a piece is gone (unmapped, or no longer writable) at
// unmap: what the NIC wrote there can never reach the CPU, which is what
// "unseen at unmap" reports.
void HostCache::lose(Segment &s, uint64_t off, uint64_t va, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t o = off + i;
        if (o % 64 == 0 && n - i >= 64 && s.nic_dirty[o / 64] == 0) {
            i += 63;
            continue;
        }
        if (s.dirty(o)) {
            note(RNIC_SIM_CACHE_UNSEEN_AT_UNMAP, va + i);
            s.set_dirty(o, false);
        }
    }
}

template <class Fn> void HostCache::pieces(uint64_t addr, uint64_t len, Fn fn) {
    const uint64_t end = addr + len;
    auto it = segs_.upper_bound(addr);
    if (it != segs_.begin()) {
        auto p = std::prev(it);
        if (p->first + p->second.len > addr)
            it = p;
    }
    uint64_t cur = addr;
    while (cur < end) {
        if (it == segs_.end() || it->first >= end) {
            fn(nullptr, 0, cur, end - cur);
            return;
        }
        if (it->first > cur) {
            fn(nullptr, 0, cur, it->first - cur);
            cur = it->first;
        }
        const uint64_t n = std::min(end, it->first + it->second.len) - cur;
        fn(&it->second, cur - it->first, cur, n);
        cur += n;
        ++it;
    }
}

void HostCache::note(int kind, uint64_t va) {
    switch (kind) {
    case RNIC_SIM_CACHE_STALE_READ: ++stats_.stale_read_bytes; break;
    case RNIC_SIM_CACHE_OVERWRITTEN: ++stats_.overwritten_bytes; break;
    case RNIC_SIM_CACHE_UNSEEN_AT_UNMAP: ++stats_.unseen_at_unmap_bytes; break;
    case RNIC_SIM_CACHE_UNDEFINED: ++stats_.undefined_bytes; break;
    default: return;
    }
    rnic_sim_cache_report &r = runs_[kind];
    if (r.len != 0 && va >= r.addr + r.len && va - (r.addr + r.len) < kReportGap) {
        r.len = va + 1 - r.addr;
        return;
    }
    if (r.len != 0)
        report(kind, r.addr, r.len);
    r = rnic_sim_cache_report{va, 1, kind};
}

void HostCache::flush_notes() {
    for (int k = 0; k < RNIC_SIM_CACHE_KINDS; ++k) {
        if (runs_[k].len != 0)
            report(k, runs_[k].addr, runs_[k].len);
        runs_[k] = rnic_sim_cache_report{};
    }
}

// A range continuing a recent report of the same kind extends it, so one
// bad transfer is one report however many bursts it took.
void HostCache::report(int kind, uint64_t addr, uint64_t len) {
    int looked = 0;
    for (auto it = reports_.rbegin(); it != reports_.rend() && looked < RNIC_SIM_CACHE_KINDS; ++it, ++looked) {
        const uint64_t end = it->addr + it->len;
        if (it->kind == kind && addr >= end && addr - end < kReportGap) {
            it->len = addr + len - it->addr;
            return;
        }
    }
    if (reports_.size() >= kMaxReports) {
        ++stats_.reports_dropped;
        return;
    }
    reports_.push_back(rnic_sim_cache_report{addr, len, kind});
}

bool HostCache::pop_report(rnic_sim_cache_report *out) {
    if (reports_.empty())
        return false;
    *out = reports_.front();
    reports_.pop_front();
    return true;
}

// What one operation does to one byte: `cpu` is the CPU's view of it, `io`
// the DMA buffer's byte (reads and writes only).
void HostCache::byte_op(Op op, Segment &s, uint64_t o, uint64_t va, uint8_t *io) {
    uint8_t *cpu = at(va);
    const bool cpu_wrote = *cpu != s.base[o];
    const bool nic_wrote = s.dirty(o);
    switch (op) {
    case Op::read:
        *io = s.nic[o];
        if (cpu_wrote)
            note(RNIC_SIM_CACHE_STALE_READ, va);
        return;
    case Op::write:
        if (nic_wrote)
            note(RNIC_SIM_CACHE_OVERWRITTEN, va);
        s.nic[o] = *io;
        s.set_dirty(o, true);
        return;
    case Op::flush:
        if (!cpu_wrote)
            return;   // the NIC's own writes stay in memory, unseen by the CPU
        break;
    case Op::retire:
        if (nic_wrote)
            note(RNIC_SIM_CACHE_UNSEEN_AT_UNMAP, va);
        break;
    case Op::clean_invalidate:
        break;
    }
    if (cpu_wrote && nic_wrote) {
        // Both wrote with no sync in between: what a write-back cache does
        // then is write the CPU's dirty line over the NIC's data.
        note(RNIC_SIM_CACHE_UNDEFINED, va);
        s.nic[o] = s.base[o] = *cpu;
        s.set_dirty(o, false);
    } else if (cpu_wrote) {
        s.nic[o] = s.base[o] = *cpu;
        ++stats_.flushed_bytes;
    } else if (nic_wrote) {
        *cpu = s.base[o] = s.nic[o];
        s.set_dirty(o, false);
        ++stats_.invalidated_bytes;
    }
}

// 64 bytes at a bitmap word at once, when nothing needs a byte-wise look.
bool HostCache::block_op(Op op, Segment &s, uint64_t o, uint64_t va, uint8_t *io) {
    uint64_t &bits = s.nic_dirty[o / 64];
    uint8_t *cpu = at(va);
    if (op == Op::write) {
        if (bits != 0)
            return false;
        std::memcpy(&s.nic[o], io, 64);
        bits = kAllDirty;
        return true;
    }
    if (std::memcmp(cpu, &s.base[o], 64) != 0) {
        // The CPU wrote some of it: a flush copies the line when the NIC wrote none.
        if (bits != 0 || (op != Op::flush && op != Op::clean_invalidate))
            return false;
        uint64_t changed = 0;
        for (unsigned i = 0; i < 64; ++i)
            changed += cpu[i] != s.base[o + i];
        std::memcpy(&s.nic[o], cpu, 64);
        std::memcpy(&s.base[o], cpu, 64);
        stats_.flushed_bytes += changed;
        return true;
    }
    switch (op) {
    case Op::read:
        std::memcpy(io, &s.nic[o], 64);
        return true;
    case Op::flush:
        return true;
    case Op::clean_invalidate:
        if (bits == 0)
            return true;
        if (bits != kAllDirty)
            return false;
        std::memcpy(cpu, &s.nic[o], 64);
        std::memcpy(&s.base[o], &s.nic[o], 64);
        bits = 0;
        stats_.invalidated_bytes += 64;
        return true;
    default:
        return bits == 0;
    }
}

// Whether a sync has nothing to do in [o, o+len) of s: no NIC write, no CPU store.
bool HostCache::quiet(const Segment &s, uint64_t o, uint64_t va, uint64_t len) {
    for (uint64_t w = o / 64; w < (o + len) / 64; ++w)
        if (s.nic_dirty[w] != 0)
            return false;
    return std::memcmp(at(va), &s.base[o], len) == 0;
}

void HostCache::apply(Op op, Segment &s, uint64_t off, uint64_t va, uint64_t n, uint8_t *io) {
    const bool sync = op != Op::read && op != Op::write;
    for (uint64_t i = 0; i < n;) {
        const uint64_t o = off + i;
        if (sync && o % kQuietSpan == 0 && n - i >= kQuietSpan && quiet(s, o, va + i, kQuietSpan)) {
            i += kQuietSpan;
            continue;
        }
        if (o % 64 == 0 && n - i >= 64 && block_op(op, s, o, va + i, io ? io + i : nullptr)) {
            i += 64;
            continue;
        }
        byte_op(op, s, o, va + i, io ? io + i : nullptr);
        ++i;
    }
}

void HostCache::dma_read(uint64_t addr, uint8_t *out, uint64_t len) {
    pieces(addr, len, [&](Segment *s, uint64_t off, uint64_t va, uint64_t n) {
        if (s)
            apply(Op::read, *s, off, va, n, out + (va - addr));
        else
            std::memcpy(out + (va - addr), at(va), n);
    });
    flush_notes();
}

void HostCache::dma_write(uint64_t addr, const uint8_t *in, uint64_t len) {
    // The buffer is only read; apply() takes one pointer for both directions.
    uint8_t *src = const_cast<uint8_t *>(in);
    pieces(addr, len, [&](Segment *s, uint64_t off, uint64_t va, uint64_t n) {
        if (s)
            apply(Op::write, *s, off, va, n, src + (va - addr));
        else
            publish_dma_write(at(va), src + (va - addr), n);
    });
    flush_notes();
}

bool HostCache::sync(Op op, uint64_t addr, uint64_t len) {
    // All or nothing: a sync that cannot reach some of its bytes changes none.
    bool ok = true;
    pieces(addr, len, [&](Segment *s, uint64_t off, uint64_t va, uint64_t n) {
        ok = ok && (!s || reachable(op, *s, off, va, n));
    });
    if (!ok)
        return false;
    pieces(addr, len, [&](Segment *s, uint64_t off, uint64_t va, uint64_t n) {
        if (s)
            apply(op, *s, off, va, n, nullptr);
    });
    flush_notes();
    return true;
}

bool HostCache::sync_for_device(uint64_t addr, uint64_t len) {
    ++stats_.syncs_for_device;
    return sync(Op::flush, addr, len);
}

bool HostCache::sync_for_cpu(uint64_t addr, uint64_t len) {
    ++stats_.syncs_for_cpu;
    return sync(Op::clean_invalidate, addr, len);
}

HostCache::Segment HostCache::slice(const Segment &from, uint64_t off, uint64_t n) {
    Segment s(n);
    std::memcpy(s.nic.data(), from.nic.data() + off, n);
    std::memcpy(s.base.data(), from.base.data() + off, n);
    for (uint64_t i = 0; i < n; ++i)
        s.set_dirty(i, from.dirty(off + i));
    return s;
}

bool HostCache::adopt(uint64_t va, uint64_t len) {
    uint64_t lo = va, hi = va + len;
    // Tracked ranges overlapping or touching the new one merge with it.
    auto first = segs_.upper_bound(lo);
    if (first != segs_.begin() && std::prev(first)->first + std::prev(first)->second.len >= lo)
        first = std::prev(first);
    auto last = first;
    uint64_t had = 0;
    while (last != segs_.end() && last->first <= hi) {
        lo = std::min(lo, last->first);
        hi = std::max(hi, last->first + last->second.len);
        had += last->second.len;
        ++last;
    }
    if (std::distance(first, last) == 1 && first->first == lo && first->second.len == hi - lo)
        return true;   // already tracked as a whole
    const uint64_t fresh = (hi - lo) - had;
    if (fresh > tracked_limit() - std::min(stats_.tracked_bytes, tracked_limit()))
        return false;
    // The bytes new to the model start as the CPU's view: they must be
    // there to be copied, which is checked before the shadow is allocated.
    uint64_t cur = lo;
    for (auto it = first; it != last; cur = it->first + it->second.len, ++it)
        if (it->first > cur && !host_access::readable(cur, it->first - cur))
            return false;
    if (cur < hi && !host_access::readable(cur, hi - cur))
        return false;
    try {
        Segment merged(hi - lo);
        cur = lo;
        auto gap = [&](uint64_t end) {
            return end <= cur || host_access::read(cur, merged.nic.data() + (cur - lo), end - cur);
        };
        for (auto it = first; it != last; ++it) {
            if (!gap(it->first))
                return false;
            const uint64_t off = it->first - lo;
            const Segment &old = it->second;
            std::memcpy(merged.nic.data() + off, old.nic.data(), old.len);
            cur = it->first + old.len;
        }
        if (!gap(hi))
            return false;
        merged.base = merged.nic;
        for (auto it = first; it != last; ++it) {
            const uint64_t off = it->first - lo;
            const Segment &old = it->second;
            std::memcpy(merged.base.data() + off, old.base.data(), old.len);
            for (uint64_t i = 0; i < old.len; ++i)
                merged.set_dirty(off + i, old.dirty(i));
        }
        segs_.erase(first, last);
        segs_.emplace(lo, std::move(merged));
    } catch (const std::bad_alloc &) {
        return false;   // the host could not shadow it after all: nothing changed
    }
    stats_.tracked_bytes += fresh;
    return true;
}

void HostCache::retire(uint64_t va, uint64_t len) {
    // An unmap cannot fail: what is still there is handed to the CPU, page
    // by page where some of the range is gone.
    const uint64_t page = host_access::page_size();
    pieces(va, len, [&](Segment *s, uint64_t off, uint64_t pva, uint64_t n) {
        if (!s)
            return;
        if (reachable(Op::retire, *s, off, pva, n)) {
            apply(Op::retire, *s, off, pva, n, nullptr);
            return;
        }
        for (uint64_t i = 0; i < n;) {
            const uint64_t m = std::min(n - i, page - (pva + i) % page);
            if (reachable(Op::retire, *s, off + i, pva + i, m))
                apply(Op::retire, *s, off + i, pva + i, m, nullptr);
            else
                lose(*s, off + i, pva + i, m);
            i += m;
        }
    });
    flush_notes();
    const uint64_t end = va + len;
    auto it = segs_.upper_bound(va);
    if (it != segs_.begin() && std::prev(it)->first + std::prev(it)->second.len > va)
        it = std::prev(it);
    while (it != segs_.end() && it->first < end) {
        const uint64_t start = it->first, stop = start + it->second.len;
        const Segment old = std::move(it->second);
        it = segs_.erase(it);
        if (start < va)
            segs_.emplace(start, slice(old, 0, va - start));
        if (stop > end) {
            it = segs_.emplace(end, slice(old, end - start, stop - end)).first;
            ++it;
        }
        stats_.tracked_bytes -= std::min(stop, end) - std::max(start, va);
    }
}
