// What the port model's DMA channels reach: the host's memory, one whole
// burst per call. The platform answers through its TLM-2.0 DMA initiator
// (sim/src/dma_initiator.h), the rtl_core bench straight from HostMemory.
#pragma once

#include <cstdint>

class DmaMemory {
public:
    virtual ~DmaMemory() = default;
    // false: refused; nothing was written, and `out` holds nothing to use
    // (the channel answers a refused read with zeros).
    virtual bool dma_read(uint64_t addr, uint8_t *out, uint32_t len) = 0;
    virtual bool dma_write(uint64_t addr, const uint8_t *in, uint32_t len) = 0;
};
