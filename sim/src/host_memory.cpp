#include "host_memory.h"

#include "dma_publish.h"

#include <algorithm>
#include <cstring>

HostMemory::HostMemory(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
    socket.register_b_transport(this, &HostMemory::b_transport);
}

int HostMemory::map(uint64_t va, uint64_t len, Kind kind) {
    if (len == 0 || va + len <= va)
        return -1;
    const bool cached = kind == Kind::streaming && mode_ == RNIC_SIM_NONCOHERENT;
    if (cached)
        cache_.adopt(va, len);
    ranges_.emplace(va, Mapping{len, kind, cached});
    if (kind == Kind::streaming)
        ++streaming_;
    rebuild_cover();
    return 0;
}

int HostMemory::unmap(uint64_t va, uint64_t len) {
    auto [lo, hi] = ranges_.equal_range(va);
    for (auto it = lo; it != hi; ++it) {
        if (it->second.len == len) {
            const Mapping m = it->second;
            ranges_.erase(it);
            if (m.kind == Kind::streaming)
                --streaming_;
            if (m.cached)
                retire_uncovered(va, len);
            rebuild_cover();
            return 0;
        }
    }
    return -1;
}

void HostMemory::retire_uncovered(uint64_t va, uint64_t len) {
    const uint64_t end = va + len;
    uint64_t cur = va;   // bytes before cur are decided
    for (const auto &[start, m] : ranges_) {
        if (start >= end)
            break;
        if (!m.cached || start + m.len <= cur)
            continue;
        if (start > cur)
            cache_.retire(cur, start - cur);
        cur = std::max(cur, start + m.len);
        if (cur >= end)
            return;
    }
    if (cur < end)
        cache_.retire(cur, end - cur);
}

int HostMemory::set_coherency(int mode) {
    if (mode == RNIC_SIM_COHERENCY_DEFAULT)
        mode = default_mode_;
    if (mode != RNIC_SIM_COHERENT && mode != RNIC_SIM_NONCOHERENT)
        return -1;
    if (mode == mode_)
        return 0;
    if (streaming_ != 0)
        return -1;
    mode_ = mode;
    return 0;
}

int HostMemory::sync(uint64_t va, uint64_t len, int dir) {
    if (dir != RNIC_SIM_SYNC_FOR_DEVICE && dir != RNIC_SIM_SYNC_FOR_CPU)
        return -1;
    if (len == 0)
        return 0;
    if (va + len < va)
        return -1;
    if (dir == RNIC_SIM_SYNC_FOR_DEVICE)
        cache_.sync_for_device(va, len);
    else
        cache_.sync_for_cpu(va, len);
    return 0;
}

// Mapping changes are rare (registration time), accesses are every DMA
// burst: the union is recomputed here so that the check stays cheap.
void HostMemory::rebuild_cover() {
    cover_.clear();
    auto cur = cover_.end();
    for (const auto &[start, m] : ranges_) {
        const uint64_t end = start + m.len;
        if (cur != cover_.end() && start <= cur->second) {
            if (end > cur->second)
                cur->second = end;
        } else {
            cur = cover_.emplace_hint(cover_.end(), start, end);
        }
    }
}

bool HostMemory::mapped(uint64_t addr, uint64_t len) const {
    if (len == 0 || addr + len <= addr)
        return false;
    auto it = cover_.upper_bound(addr);   // first interval starting after addr
    if (it == cover_.begin())
        return false;
    --it;
    return addr + len <= it->second;
}

bool HostMemory::last_fault(rnic_sim_fault *out) const {
    if (faults_ == 0)
        return false;
    *out = last_;
    return true;
}

void HostMemory::b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &) {
    const uint64_t addr = trans.get_address();
    const uint32_t len = trans.get_data_length();
    const tlm::tlm_command cmd = trans.get_command();
    const bool is_write = cmd == tlm::TLM_WRITE_COMMAND;
    // The NIC's bursts are packed and contiguous: byte enables and streaming
    // widths are not part of this bus, so a transaction using them is refused.
    const bool plain = cmd != tlm::TLM_IGNORE_COMMAND && trans.get_byte_enable_ptr() == nullptr &&
                       trans.get_streaming_width() >= len;
    if (!plain || !mapped(addr, len)) {
        ++faults_;
        last_ = rnic_sim_fault{addr, len, is_write ? 1 : 0};
        trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    // IOVA = VA: the mapping check above is what makes this pointer safe.
    void *host = reinterpret_cast<void *>(static_cast<uintptr_t>(addr));
    if (!cache_.empty() && is_write)
        cache_.dma_write(addr, trans.get_data_ptr(), len);
    else if (!cache_.empty())
        cache_.dma_read(addr, trans.get_data_ptr(), len);
    else if (is_write)
        publish_dma_write(host, trans.get_data_ptr(), len);
    else
        std::memcpy(trans.get_data_ptr(), host, len);
    trans.set_dmi_allowed(false);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}
