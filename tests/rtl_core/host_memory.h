// Host memory of one simulated machine, as the NIC's DMA sees it: a flat
// arena at a fixed IOVA, handed out by a bump allocator. Only allocated
// (mapped) ranges may be reached by DMA; every allocation is followed by an
// unmapped guard gap, so a transfer that runs one byte past its buffer is a
// DMA fault instead of a silent overwrite of the neighbour.
#ifndef RTL_CORE_HOST_MEMORY_H
#define RTL_CORE_HOST_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

class HostMemory {
public:
    HostMemory(uint64_t base, size_t size);

    // A fresh zeroed range; `mapped` false gives an address DMA must refuse.
    uint64_t alloc(size_t len, size_t align = 64, bool mapped = true);
    // Forget every allocation (the arena is zeroed again).
    void reset();

    // True when [addr, addr + len) lies inside one mapped range.
    bool dma_ok(uint64_t addr, uint64_t len) const;

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
    std::vector<std::pair<uint64_t, uint64_t>> mapped_;   // [start, end)
};

#endif
