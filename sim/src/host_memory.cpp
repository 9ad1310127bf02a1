#include "host_memory.h"

#include <cstring>

HostMemory::HostMemory(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
    socket.register_b_transport(this, &HostMemory::b_transport);
}

int HostMemory::map(uint64_t va, uint64_t len) {
    if (len == 0 || va + len <= va)
        return -1;
    ranges_.emplace(va, len);
    rebuild_cover();
    return 0;
}

int HostMemory::unmap(uint64_t va, uint64_t len) {
    auto [lo, hi] = ranges_.equal_range(va);
    for (auto it = lo; it != hi; ++it) {
        if (it->second == len) {
            ranges_.erase(it);
            rebuild_cover();
            return 0;
        }
    }
    return -1;
}

// Mapping changes are rare (registration time), accesses are every DMA
// burst: the union is recomputed here so that the check stays cheap.
void HostMemory::rebuild_cover() {
    cover_.clear();
    auto cur = cover_.end();
    for (const auto &[start, len] : ranges_) {
        const uint64_t end = start + len;
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
    if (is_write)
        std::memcpy(host, trans.get_data_ptr(), len);
    else
        std::memcpy(trans.get_data_ptr(), host, len);
    trans.set_dmi_allowed(false);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}
