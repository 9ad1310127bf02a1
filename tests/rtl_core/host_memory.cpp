#include "host_memory.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
constexpr uint64_t kGuard = 256;   // unmapped bytes after every allocation
}

HostMemory::HostMemory(uint64_t base, size_t size) : base_(base), mem_(size, 0), brk_(base) {}

uint64_t HostMemory::alloc(size_t len, size_t align, bool mapped) {
    uint64_t a = (brk_ + align - 1) / align * align;
    if (a + len + kGuard > base_ + mem_.size()) {
        std::fprintf(stderr, "host memory: arena exhausted (%zu bytes asked)\n", len);
        std::abort();
    }
    brk_ = a + len + kGuard;
    if (mapped && len)
        mapped_.emplace_back(a, a + len);
    return a;
}

void HostMemory::reset() {
    std::fill(mem_.begin(), mem_.end(), 0);
    mapped_.clear();
    brk_ = base_;
}

bool HostMemory::dma_ok(uint64_t addr, uint64_t len) const {
    if (len == 0 || addr + len < addr)
        return false;
    for (const auto &r : mapped_)
        if (addr >= r.first && addr + len <= r.second)
            return true;
    return false;
}

uint8_t *HostMemory::ptr(uint64_t addr, size_t len) {
    if (addr < base_ || addr + len > base_ + mem_.size()) {
        std::fprintf(stderr, "host memory: access 0x%llx+%zu outside the arena\n",
                     static_cast<unsigned long long>(addr), len);
        std::abort();
    }
    return mem_.data() + (addr - base_);
}

const uint8_t *HostMemory::ptr(uint64_t addr, size_t len) const {
    return const_cast<HostMemory *>(this)->ptr(addr, len);
}

void HostMemory::write(uint64_t addr, const void *src, size_t len) {
    if (len)
        std::memcpy(ptr(addr, len), src, len);
}

void HostMemory::read(uint64_t addr, void *dst, size_t len) const {
    if (len)
        std::memcpy(dst, ptr(addr, len), len);
}

uint64_t HostMemory::read64(uint64_t addr) const {
    uint64_t v;
    read(addr, &v, 8);
    return v;
}

void HostMemory::write64(uint64_t addr, uint64_t v) { write(addr, &v, 8); }
