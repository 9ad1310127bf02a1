// Host memory as the NIC sees it: a TLM-2.0 target that serves DMA from
// this process's own memory (IOVA = virtual address), but only inside
// ranges the driver mapped. Everything else is an IOMMU fault: answered
// with TLM_ADDRESS_ERROR_RESPONSE, recorded, and no byte is touched.
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

    int map(uint64_t va, uint64_t len);
    int unmap(uint64_t va, uint64_t len);
    bool mapped(uint64_t addr, uint64_t len) const;

    uint64_t fault_count() const { return faults_; }
    bool last_fault(rnic_sim_fault *out) const;

private:
    void b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);

    std::multimap<uint64_t, uint64_t> ranges_;  // start -> length; may overlap
    uint64_t faults_ = 0;
    rnic_sim_fault last_{};
};
