// Shared by the unit tests of the host-memory model: a TLM-2.0 initiator
// that drives a target's socket the way the NIC's DMA does, and the checks
// (rnic_check.h, the same as every other test's).
#pragma once

#include <cstdint>
#include <cstdio>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "rnic_check.h"

namespace tlm_dma {

struct Dma : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Dma> socket;
    explicit Dma(sc_core::sc_module_name n) : sc_module(n), socket("socket") {}

    tlm::tlm_response_status access(bool write, uint64_t addr, void *data, uint32_t len,
                                    unsigned char *byte_enable = nullptr) {
        tlm::tlm_generic_payload t;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        t.set_address(addr);
        t.set_data_ptr(static_cast<unsigned char *>(data));
        t.set_data_length(len);
        t.set_streaming_width(len);
        t.set_byte_enable_ptr(byte_enable);
        t.set_byte_enable_length(byte_enable ? len : 0);
        t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(t, delay);
        return t.get_response_status();
    }
};

// The IOVA of a host pointer: its address (IOVA = VA).
inline uint64_t iova(const void *p) { return reinterpret_cast<uintptr_t>(p); }

inline bool all(const uint8_t *p, size_t n, uint8_t v) {
    for (size_t i = 0; i < n; ++i)
        if (p[i] != v)
            return false;
    return true;
}

}  // namespace tlm_dma
