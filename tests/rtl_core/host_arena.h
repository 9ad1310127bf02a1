// The bench's host: memory of one simulated machine and its allocator. A
// flat arena at a fixed IOVA (the same addresses on every run), handed out
// by a bump allocator; every allocation is mapped for DMA unless asked not
// to be, and is followed by an unmapped guard gap, so a transfer that runs
// one byte past its buffer is a DMA fault instead of a silent overwrite of
// the neighbour.
//
// What the NIC's DMA reaches is the platform's own HostMemory
// (sim/port_model/host_memory.h) over this arena (a Window: no CPU cache
// model, always coherent); this class is the CPU's side: allocating and
// looking at memory.
#ifndef RTL_CORE_HOST_ARENA_H
#define RTL_CORE_HOST_ARENA_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "host_memory.h"

class HostArena {
public:
    HostArena(uint64_t base, size_t size);
    HostArena(const HostArena &) = delete;
    HostArena &operator=(const HostArena &) = delete;

    // A fresh zeroed range; `mapped` false gives an address DMA must refuse.
    uint64_t alloc(size_t len, size_t align = 64, bool mapped = true);
    // Forget every allocation (the arena is zeroed again).
    void reset();

    // True when DMA may reach every byte of [addr, addr + len).
    bool dma_ok(uint64_t addr, uint64_t len) const { return dma_.mapped(addr, len); }
    // The memory as the NIC's DMA sees it.
    HostMemory &dma() { return dma_; }

    uint8_t *ptr(uint64_t addr, size_t len);
    const uint8_t *ptr(uint64_t addr, size_t len) const;
    void write(uint64_t addr, const void *src, size_t len);
    void read(uint64_t addr, void *dst, size_t len) const;
    uint64_t read64(uint64_t addr) const;
    void write64(uint64_t addr, uint64_t v);

    uint64_t base() const { return base_; }

private:
    uint64_t base_;
    std::vector<uint8_t> mem_;
    uint64_t brk_;
    HostMemory dma_;
};

#endif
