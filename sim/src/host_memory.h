// Host memory as one NIC sees it, behind an IOMMU: a TLM-2.0 target that
// serves DMA from this process's own memory (IOVA = virtual address), but
// only inside ranges the driver mapped. Everything else is a fault: answered
// with TLM_ADDRESS_ERROR_RESPONSE, counted, remembered, and no byte of
// memory is touched (a burst only partly inside the mappings is refused whole).
//
// On a non-coherent host, streaming mappings are served from the memory
// behind the CPU cache (HostCache); coherent mappings and a coherent host
// go straight to the process's memory, with no copy and no bookkeeping.
#pragma once

#include <cstdint>
#include <map>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "host_cache.h"
#include "rnic_sim.h"

class HostMemory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<HostMemory> socket;

    explicit HostMemory(sc_core::sc_module_name name);

    // A driver's memory regions are streaming mappings; its rings are
    // coherent DMA memory.
    enum class Kind { streaming, coherent };

    // 0, or -1 for a zero length or a range that wraps.
    int map(uint64_t va, uint64_t len, Kind kind = Kind::streaming);
    // Removes one mapping of exactly [va, va+len): 0, or -1 if there is none.
    int unmap(uint64_t va, uint64_t len);
    // Whether every byte of [addr, addr+len) lies inside some mapping.
    bool mapped(uint64_t addr, uint64_t len) const;
    size_t mappings() const { return ranges_.size(); }

    uint64_t fault_count() const { return faults_; }
    bool last_fault(rnic_sim_fault *out) const;

    // RNIC_SIM_COHERENT or RNIC_SIM_NONCOHERENT.
    int coherency() const { return mode_; }
    // The mode RNIC_SIM_COHERENCY_DEFAULT stands for; set before any mapping.
    void set_default_coherency(int mode) { default_mode_ = mode_ = mode; }
    // 0, or -1 for an unknown mode or a change while streaming mappings exist.
    int set_coherency(int mode);
    // 0, or -1 for a wrapping range or an unknown direction (RNIC_SIM_SYNC_*).
    int sync(uint64_t va, uint64_t len, int dir);
    const rnic_sim_cache_stats &cache_stats() const { return cache_.stats(); }
    bool cache_report(rnic_sim_cache_report *out) { return cache_.pop_report(out); }

private:
    struct Mapping {
        uint64_t len;
        Kind kind;
        bool cached;   // has a second view in the HostCache
    };

    void b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);
    void rebuild_cover();
    // Stops the second view of the bytes of [va, va+len) that no other
    // cached mapping still covers.
    void retire_uncovered(uint64_t va, uint64_t len);

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
