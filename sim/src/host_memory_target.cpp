#include "host_memory_target.h"

HostMemoryTarget::HostMemoryTarget(sc_core::sc_module_name name, HostMemory &mem)
    : sc_module(name), socket("socket"), mem_(mem) {
    socket.register_b_transport(this, &HostMemoryTarget::b_transport);
}

void HostMemoryTarget::b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &) {
    const uint64_t addr = trans.get_address();
    const uint32_t len = trans.get_data_length();
    const tlm::tlm_command cmd = trans.get_command();
    const bool is_write = cmd == tlm::TLM_WRITE_COMMAND;
    const bool plain = cmd != tlm::TLM_IGNORE_COMMAND && trans.get_byte_enable_ptr() == nullptr &&
                       trans.get_streaming_width() >= len;
    if (!plain) {
        mem_.refuse(addr, len, is_write);
        trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    const bool ok = is_write ? mem_.write(addr, trans.get_data_ptr(), len) : mem_.read(addr, trans.get_data_ptr(), len);
    if (!ok) {
        trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    // DMI is not offered: DMA copies are about 2 % of the run time.
    trans.set_dmi_allowed(false);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}
