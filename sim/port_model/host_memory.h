// Host memory as one NIC's DMA sees it, behind an IOMMU: DMA is served only
// inside ranges that were mapped, and only where the process's memory is
// still there with the access the burst needs (host_access.h: a program may
// unmap or protect what it registered). Everything else is a fault:
// refused, counted, remembered, and no byte of memory is touched (a burst
// only partly inside the mappings, or partly on a page that is gone, is
// refused whole).
//
// No SystemC here: the platform puts a TLM-2.0 target in front of it
// (sim/src/host_memory_target.h), the rtl_core bench calls it directly.
//
// Where the bytes are, two ways:
//  - the process's own memory, IOVA = VA (the platform, DESIGN decision 1);
//  - a Window: an IOVA range backed by a buffer someone else owns (the
//    rtl_core bench: a fixed arena per host, the same IOVAs on every run).
//    A window's host has no CPU cache model: it is always coherent, and a
//    mapping outside the window is refused.
//
// On a non-coherent host (process memory only), streaming mappings are
// served from the memory behind the CPU cache (HostCache); coherent mappings
// and a coherent host go straight to memory, with no copy and no bookkeeping.
#pragma once

#include <cstdint>
#include <map>

#include "host_cache.h"
#include "rnic_sim.h"

class HostMemory {
public:
    // An IOVA range [iova, iova + size) whose bytes live at `bytes`.
    struct Window {
        uint64_t iova;
        uint8_t *bytes;
        uint64_t size;
    };

    // The process's own memory: IOVA = VA.
    HostMemory() = default;
    // Only the window; coherent, for good.
    explicit HostMemory(const Window &w) : window_(w), windowed_(true) {}

    // A driver's memory regions are streaming mappings; its rings are
    // coherent DMA memory.
    enum class Kind { streaming, coherent };

    // 0, or -1 for a zero length, a range that wraps or one outside the
    // window; and on a non-coherent host, for a streaming mapping whose
    // second view cannot be made (memory that is not there to copy, or more
    // than the host can shadow: HostCache::adopt).
    int map(uint64_t va, uint64_t len, Kind kind = Kind::streaming);
    // Removes one mapping of exactly [va, va+len): 0, or -1 if there is none.
    int unmap(uint64_t va, uint64_t len);
    // Removes every mapping, as that many unmaps would.
    void unmap_all();
    // Whether every byte of [addr, addr+len) lies inside some mapping.
    bool mapped(uint64_t addr, uint64_t len) const;
    size_t mappings() const { return ranges_.size(); }

    // The NIC's DMA: the whole burst, or (outside the mappings) nothing and
    // a fault. A write lands with its first 8 bytes last (dma_publish.h).
    bool read(uint64_t addr, uint8_t *out, uint32_t len);
    bool write(uint64_t addr, const uint8_t *in, uint32_t len);
    // An access refused before it reached memory (a bus's own rules, e.g.
    // byte enables on TLM): counted and remembered like any fault.
    void refuse(uint64_t addr, uint32_t len, bool is_write);

    uint64_t fault_count() const { return faults_; }
    bool last_fault(rnic_sim_fault *out) const;

    // RNIC_SIM_COHERENT or RNIC_SIM_NONCOHERENT.
    int coherency() const { return mode_; }
    // The mode RNIC_SIM_COHERENCY_DEFAULT stands for; set before any mapping.
    // A window stays coherent.
    void set_default_coherency(int mode);
    // 0, or -1 for an unknown mode, a change while streaming mappings exist,
    // or a non-coherent window.
    int set_coherency(int mode);
    // 0, or -1 for a wrapping range, an unknown direction (RNIC_SIM_SYNC_*)
    // or tracked memory the program no longer has (nothing is synced then).
    int sync(uint64_t va, uint64_t len, int dir);
    const rnic_sim_cache_stats &cache_stats() const { return cache_.stats(); }
    bool cache_report(rnic_sim_cache_report *out) { return cache_.pop_report(out); }

private:
    struct Mapping {
        uint64_t len;
        Kind kind;
        bool cached;   // has a second view in the HostCache
    };

    // Where the byte at `addr` lives (after the mapping check).
    uint8_t *host(uint64_t addr) const;
    void fault(uint64_t addr, uint32_t len, bool is_write);
    void rebuild_cover();
    // Stops the second view of the bytes of [va, va+len) that no other
    // cached mapping still covers.
    void retire_uncovered(uint64_t va, uint64_t len);

    Window window_{};
    bool windowed_ = false;
    // Mappings as the driver made them (start -> length, kind); two may
    // overlap, and each is removed on its own.
    std::multimap<uint64_t, Mapping> ranges_;
    // Their union as disjoint, non-adjacent intervals (start -> end, exclusive):
    // an access is checked against this in O(log n).
    std::map<uint64_t, uint64_t> cover_;
    uint64_t faults_ = 0;
    rnic_sim_fault last_{};
    int mode_ = RNIC_SIM_COHERENT;
    int default_mode_ = RNIC_SIM_COHERENT;
    size_t streaming_ = 0;
    HostCache cache_;
};
