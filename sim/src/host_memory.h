// Host memory as one NIC sees it, behind an IOMMU: a TLM-2.0 target that
// serves DMA from this process's own memory (IOVA = virtual address), but
// only inside ranges the driver mapped. Everything else is a fault: answered
// with TLM_ADDRESS_ERROR_RESPONSE, counted, remembered, and no byte of
// memory is touched (a burst only partly inside the mappings is refused whole).
#pragma once

#include <cstdint>
#include <map>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "rnic_sim.h"

class HostMemory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<HostMemory> socket;

    explicit HostMemory(sc_core::sc_module_name name);

    // 0, or -1 for a zero length or a range that wraps.
    int map(uint64_t va, uint64_t len);
    // Removes one mapping of exactly [va, va+len): 0, or -1 if there is none.
    int unmap(uint64_t va, uint64_t len);
    // Whether every byte of [addr, addr+len) lies inside some mapping.
    bool mapped(uint64_t addr, uint64_t len) const;
    size_t mappings() const { return ranges_.size(); }

    uint64_t fault_count() const { return faults_; }
    bool last_fault(rnic_sim_fault *out) const;

private:
    void b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);
    void rebuild_cover();

    // Mappings as the driver made them (start -> length); two may overlap,
    // and each is removed on its own.
    std::multimap<uint64_t, uint64_t> ranges_;
    // Their union as disjoint, non-adjacent intervals (start -> end, exclusive):
    // an access is checked against this in O(log n).
    std::map<uint64_t, uint64_t> cover_;
    uint64_t faults_ = 0;
    rnic_sim_fault last_{};
};
