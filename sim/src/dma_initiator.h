// The NIC's DMA as a TLM-2.0 initiator: each burst the port model reads or
// writes (DmaMemory) is one b_transport into the host memory's target
// socket (HostMemoryTarget), with no wait: the fabric's clock thread calls
// it inside its loop, and the memory answers at once.
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "dma_memory.h"

class DmaInitiator : public sc_core::sc_module, public DmaMemory {
public:
    tlm_utils::simple_initiator_socket<DmaInitiator> socket;

    explicit DmaInitiator(sc_core::sc_module_name name) : sc_module(name), socket("socket") {}

    bool dma_read(uint64_t addr, uint8_t *out, uint32_t len) override { return access(false, addr, out, len); }
    bool dma_write(uint64_t addr, const uint8_t *in, uint32_t len) override {
        // A TLM payload's data pointer is not const; the target only reads it for a write.
        return access(true, addr, const_cast<uint8_t *>(in), len);
    }

private:
    bool access(bool write, uint64_t addr, uint8_t *data, uint32_t len) {
        tlm::tlm_generic_payload trans;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        trans.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        trans.set_address(addr);
        trans.set_data_ptr(data);
        trans.set_data_length(len);
        trans.set_streaming_width(len);
        trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(trans, delay);
        return trans.is_response_ok();
    }
};
