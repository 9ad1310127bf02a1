// How a DMA write reaches the process's memory, which another thread may be
// polling at that moment (the driver watches the phase bit in the first
// word of the next CQE). A NIC's valid bit lands after the rest of its
// entry; so here: the first 8 bytes of a burst are stored last, atomically
// and with release order, and a reader that sees them sees the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

inline void publish_dma_write(void *dst, const void *src, size_t n) {
    auto *d = static_cast<uint8_t *>(dst);
    const auto *s = static_cast<const uint8_t *>(src);
    if (n < 8 || reinterpret_cast<uintptr_t>(d) % 8 != 0) {
        std::memcpy(d, s, n);
        return;
    }
    std::memcpy(d + 8, s + 8, n - 8);
    uint64_t first;
    std::memcpy(&first, s, 8);
    __atomic_store_n(reinterpret_cast<uint64_t *>(d), first, __ATOMIC_RELEASE);
}
