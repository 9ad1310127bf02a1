// The host memory (HostMemory: IOMMU, non-coherent cache) as the TLM-2.0
// target the NIC's DMA initiator reaches. This class only speaks TLM: the
// NIC's bursts are packed and contiguous, so a transaction with byte
// enables, a short streaming width or the ignore command is refused (a
// fault like any other); the rest is HostMemory's to serve or refuse.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "host_memory.h"

class HostMemoryTarget : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<HostMemoryTarget> socket;

    HostMemoryTarget(sc_core::sc_module_name name, HostMemory &mem);

private:
    void b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);

    HostMemory &mem_;
};
