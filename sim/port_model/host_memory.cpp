#include "host_memory.h"

#include "dma_publish.h"
#include "host_access.h"

#include <algorithm>
#include <cstring>

int HostMemory::map(uint64_t va, uint64_t len, Kind kind) {
    if (len == 0 || va + len <= va)
        return -1;
    if (windowed_ && (va < window_.iova || va + len > window_.iova + window_.size))
        return -1;
    const bool cached = kind == Kind::streaming && mode_ == RNIC_SIM_NONCOHERENT;
    // The second view starts as a copy of the memory: memory that is not
    // there, or more of it than the host could shadow, is refused here.
    if (cached && !cache_.adopt(va, len))
        return -1;
    ranges_.emplace(va, Mapping{len, kind, cached});
    if (kind == Kind::streaming)
        ++streaming_;
    rebuild_cover();
    return 0;
}

int HostMemory::unmap(uint64_t va, uint64_t len) {
    auto [lo, hi] = ranges_.equal_range(va);
    for (auto it = lo; it != hi; ++it) {
        if (it->second.len == len) {
            const Mapping m = it->second;
            ranges_.erase(it);
            if (m.kind == Kind::streaming)
                --streaming_;
            if (m.cached)
                retire_uncovered(va, len);
            rebuild_cover();
            return 0;
        }
    }
    return -1;
}

void HostMemory::unmap_all() {
    while (!ranges_.empty()) {
        const auto it = ranges_.begin();
        unmap(it->first, it->second.len);
    }
}

void HostMemory::retire_uncovered(uint64_t va, uint64_t len) {
    const uint64_t end = va + len;
    uint64_t cur = va;   // bytes before cur are decided
    for (const auto &[start, m] : ranges_) {
        if (start >= end)
            break;
        if (!m.cached || start + m.len <= cur)
            continue;
        if (start > cur)
            cache_.retire(cur, start - cur);
        cur = std::max(cur, start + m.len);
        if (cur >= end)
            return;
    }
    if (cur < end)
        cache_.retire(cur, end - cur);
}

void HostMemory::set_default_coherency(int mode) {
    if (!windowed_)
        default_mode_ = mode_ = mode;
}

int HostMemory::set_coherency(int mode) {
    if (mode == RNIC_SIM_COHERENCY_DEFAULT)
        mode = default_mode_;
    if (mode != RNIC_SIM_COHERENT && mode != RNIC_SIM_NONCOHERENT)
        return -1;
    // The HostCache keeps the CPU's view at the IOVA itself (IOVA = VA):
    // a window has no cache model.
    if (windowed_ && mode != RNIC_SIM_COHERENT)
        return -1;
    if (mode == mode_)
        return 0;
    if (streaming_ != 0)
        return -1;
    mode_ = mode;
    return 0;
}

int HostMemory::sync(uint64_t va, uint64_t len, int dir) {
    if (dir != RNIC_SIM_SYNC_FOR_DEVICE && dir != RNIC_SIM_SYNC_FOR_CPU)
        return -1;
    if (len == 0)
        return 0;
    if (va + len < va)
        return -1;
    const bool ok = dir == RNIC_SIM_SYNC_FOR_DEVICE ? cache_.sync_for_device(va, len) : cache_.sync_for_cpu(va, len);
    return ok ? 0 : -1;
}

// Mapping changes are rare (registration time), accesses are every DMA
// burst: the union is recomputed here so that the check stays cheap.
void HostMemory::rebuild_cover() {
    cover_.clear();
    auto cur = cover_.end();
    for (const auto &[start, m] : ranges_) {
        const uint64_t end = start + m.len;
        if (cur != cover_.end() && start <= cur->second) {
            if (end > cur->second)
                cur->second = end;
        } else {
            cur = cover_.emplace_hint(cover_.end(), start, end);
        }
    }
}

bool HostMemory::mapped(uint64_t addr, uint64_t len) const {
    if (len == 0 || addr + len <= addr)
        return false;
    auto it = cover_.upper_bound(addr);   // first interval starting after addr
    if (it == cover_.begin())
        return false;
    --it;
    return addr + len <= it->second;
}

bool HostMemory::last_fault(rnic_sim_fault *out) const {
    if (faults_ == 0)
        return false;
    *out = last_;
    return true;
}

uint8_t *HostMemory::host(uint64_t addr) const {
    if (windowed_)
        return window_.bytes + (addr - window_.iova);
    // IOVA = VA: the mapping check and the host's own (host_access.h) are
    // what make this pointer safe.
    return reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(addr));
}

void HostMemory::fault(uint64_t addr, uint32_t len, bool is_write) {
    ++faults_;
    last_ = rnic_sim_fault{addr, len, is_write ? 1 : 0};
}

void HostMemory::refuse(uint64_t addr, uint32_t len, bool is_write) { fault(addr, len, is_write); }

// Two checks, in order: the IOMMU's (is the range mapped for the NIC?) and
// the host's (is the memory still there, with the access the burst needs?
// host_access.h). A mapping says what the driver allowed; only the second
// check knows whether the program unmapped or protected the memory since.
// Either refusal is the same fault to the NIC.
bool HostMemory::read(uint64_t addr, uint8_t *out, uint32_t len) {
    if (!mapped(addr, len)) {
        fault(addr, len, false);
        return false;
    }
    if (windowed_) {
        std::memcpy(out, host(addr), len);
        return true;
    }
    // The common case copies and checks in one system call; the cache
    // model reads the CPU's view byte by byte, so it asks first.
    const bool ok = cache_.empty() ? host_access::read(addr, out, len) : host_access::readable(addr, len);
    if (!ok) {
        fault(addr, len, false);
        return false;
    }
    if (!cache_.empty())
        cache_.dma_read(addr, out, len);
    return true;
}

bool HostMemory::write(uint64_t addr, const uint8_t *in, uint32_t len) {
    // Every page is checked before the first byte lands: a burst is
    // applied whole or not at all, here as at the IOMMU.
    if (!mapped(addr, len) || (!windowed_ && !host_access::writable(addr, len))) {
        fault(addr, len, true);
        return false;
    }
    if (!cache_.empty())
        cache_.dma_write(addr, in, len);
    else
        publish_dma_write(host(addr), in, len);
    return true;
}
