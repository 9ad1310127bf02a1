#include "host_arena.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
constexpr uint64_t kGuard = 256;   // unmapped bytes after every allocation
}

HostArena::HostArena(uint64_t base, size_t size)
    : base_(base), mem_(size, 0), brk_(base), dma_(HostMemory::Window{base, mem_.data(), size}) {}

uint64_t HostArena::alloc(size_t len, size_t align, bool mapped) {
    uint64_t a = (brk_ + align - 1) / align * align;
    if (a + len + kGuard > base_ + mem_.size()) {
        std::fprintf(stderr, "host memory: arena exhausted (%zu bytes asked)\n", len);
        std::abort();
    }
    brk_ = a + len + kGuard;
    // Bench memory is like a kernel driver's coherent DMA memory: no CPU
    // cache model (HostMemory's window is always coherent).
    if (mapped && len)
        dma_.map(a, len, HostMemory::Kind::coherent);
    return a;
}

void HostArena::reset() {
    std::fill(mem_.begin(), mem_.end(), 0);
    dma_.unmap_all();
    brk_ = base_;
}

uint8_t *HostArena::ptr(uint64_t addr, size_t len) {
    if (addr < base_ || addr + len > base_ + mem_.size()) {
        std::fprintf(stderr, "host memory: access 0x%llx+%zu outside the arena\n",
                     static_cast<unsigned long long>(addr), len);
        std::abort();
    }
    return mem_.data() + (addr - base_);
}

const uint8_t *HostArena::ptr(uint64_t addr, size_t len) const {
    return const_cast<HostArena *>(this)->ptr(addr, len);
}

void HostArena::write(uint64_t addr, const void *src, size_t len) {
    if (len)
        std::memcpy(ptr(addr, len), src, len);
}

void HostArena::read(uint64_t addr, void *dst, size_t len) const {
    if (len)
        std::memcpy(dst, ptr(addr, len), len);
}

uint64_t HostArena::read64(uint64_t addr) const {
    uint64_t v;
    read(addr, &v, 8);
    return v;
}

void HostArena::write64(uint64_t addr, uint64_t v) { write(addr, &v, 8); }
