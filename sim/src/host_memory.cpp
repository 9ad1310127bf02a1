#include "host_memory.h"

#include <cstring>

HostMemory::HostMemory(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
    socket.register_b_transport(this, &HostMemory::b_transport);
}

int HostMemory::map(uint64_t va, uint64_t len) {
    if (len == 0 || va + len < va)
        return -1;
    ranges_.emplace(va, len);
    return 0;
}

int HostMemory::unmap(uint64_t va, uint64_t len) {
    auto [lo, hi] = ranges_.equal_range(va);
    for (auto it = lo; it != hi; ++it) {
        if (it->second == len) {
            ranges_.erase(it);
            return 0;
        }
    }
    return -1;
}

// Mappings may overlap (two regions over the same buffer); an access is
// allowed when the union of the mappings covers every byte of it.
bool HostMemory::mapped(uint64_t addr, uint64_t len) const {
    if (len == 0 || addr + len < addr)
        return false;
    uint64_t covered = addr;           // bytes [addr, covered) are known mapped
    const uint64_t end = addr + len;
    for (const auto &[start, size] : ranges_) {
        if (start > covered)
            break;
        if (start + size > covered)
            covered = start + size;
        if (covered >= end)
            return true;
    }
    return false;
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
    const bool is_write = trans.is_write();
    if (!mapped(addr, len) || trans.get_byte_enable_ptr() != nullptr) {
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
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}
