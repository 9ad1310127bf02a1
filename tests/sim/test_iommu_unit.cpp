// The IOMMU and host-memory model (sim/port_model/host_memory.*) as a TLM-2.0
// target on its own, driven through a socket as the NIC's DMA drives it:
// mapping bookkeeping (overlaps counted on their own, exact unmap), reads
// and writes served only inside the union of the mappings, every refusal
// answered with TLM_ADDRESS_ERROR_RESPONSE, counted and remembered, and
// never touching memory (a write only partly inside is refused whole).
#include <cstring>
#include <vector>

#include "host_memory.h"
#include "host_memory_target.h"
#include "tlm_dma.h"

using namespace tlm_dma;

// A SystemC program of its own: libsystemc's main() calls this.
int sc_main(int, char **) {
    HostMemory mem;
    HostMemoryTarget target("mem", mem);
    Dma dma("dma");
    dma.socket.bind(target.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);   // elaboration completes the socket binding

    alignas(64) static uint8_t host[8192];
    std::memset(host, 0x11, sizeof(host));
    std::vector<uint8_t> buf(8192, 0xEE);
    rnic_sim_fault f{};

    // Nothing mapped: refused, counted, remembered, memory untouched.
    CHECK(!mem.last_fault(&f));
    CHECK(dma.access(true, iova(host), buf.data(), 16) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(all(host, sizeof(host), 0x11));
    CHECK(mem.fault_count() == 1);
    CHECK(mem.last_fault(&f) && f.addr == iova(host) && f.len == 16 && f.is_write == 1);

    // Bookkeeping: zero length and wrapping ranges refused; unmap needs the exact range.
    CHECK(mem.map(iova(host), 0) == -1);
    CHECK(mem.map(~0ull - 15, 32) == -1);
    CHECK(mem.map(iova(host), 4096) == 0);
    CHECK(mem.unmap(iova(host), 4095) == -1);
    CHECK(mem.unmap(iova(host + 1), 4095) == -1);
    CHECK(mem.unmap(iova(host + 8192), 64) == -1);
    CHECK(mem.mappings() == 1);

    // Inside the mapping: a read sees memory, a write changes exactly its bytes.
    CHECK(dma.access(false, iova(host + 100), buf.data(), 200) == tlm::TLM_OK_RESPONSE);
    CHECK(all(buf.data(), 200, 0x11) && buf[200] == 0xEE);
    std::memset(buf.data(), 0x5A, buf.size());
    CHECK(dma.access(true, iova(host + 4096 - 8), buf.data(), 8) == tlm::TLM_OK_RESPONSE);
    CHECK(all(host + 4096 - 8, 8, 0x5A) && host[4096 - 9] == 0x11 && host[4096] == 0x11);
    CHECK(mem.fault_count() == 1);

    // A write burst that runs one byte past the mapping is refused whole.
    std::memset(buf.data(), 0x77, buf.size());
    CHECK(dma.access(true, iova(host + 4096 - 64), buf.data(), 65) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(all(host + 4096 - 64, 56, 0x11) && all(host + 4096 - 8, 8, 0x5A) && host[4096] == 0x11);
    CHECK(mem.fault_count() == 2);
    CHECK(mem.last_fault(&f) && f.addr == iova(host + 4096 - 64) && f.len == 65 &&
          f.is_write == 1);
    // A read that starts before the mapping is refused, and its buffer is not filled.
    std::memset(buf.data(), 0xEE, buf.size());
    CHECK(dma.access(false, iova(host) - 1, buf.data(), 2) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(all(buf.data(), 2, 0xEE));
    CHECK(mem.last_fault(&f) && f.is_write == 0 && f.len == 2);
    // Byte enables are not part of the NIC's bus: refused.
    unsigned char be[4] = {0xFF, 0, 0xFF, 0};
    CHECK(dma.access(true, iova(host), buf.data(), 4, be) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(all(host, 4, 0x11));
    CHECK(mem.fault_count() == 4);

    // Overlaps and neighbours: the union counts, each mapping is removed on its own.
    CHECK(mem.map(iova(host + 4096), 4096) == 0);      // adjacent
    CHECK(dma.access(false, iova(host + 4000), buf.data(), 200) == tlm::TLM_OK_RESPONSE);   // spans both
    CHECK(mem.map(iova(host + 1000), 100) == 0);       // inside the first
    CHECK(mem.map(iova(host + 1000), 100) == 0);       // the same range twice
    CHECK(mem.mappings() == 4);
    CHECK(mem.unmap(iova(host), 4096) == 0);
    CHECK(dma.access(false, iova(host + 1000), buf.data(), 100) == tlm::TLM_OK_RESPONSE);   // still mapped twice
    CHECK(dma.access(false, iova(host + 999), buf.data(), 2) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(dma.access(false, iova(host + 4000), buf.data(), 200) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(mem.unmap(iova(host + 1000), 100) == 0);
    CHECK(dma.access(false, iova(host + 1000), buf.data(), 100) == tlm::TLM_OK_RESPONSE);
    CHECK(mem.unmap(iova(host + 1000), 100) == 0);
    CHECK(mem.unmap(iova(host + 1000), 100) == -1);    // no third copy
    CHECK(dma.access(false, iova(host + 1000), buf.data(), 100) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(mem.unmap(iova(host), 4096) == -1);          // already gone
    CHECK(dma.access(false, iova(host + 4096), buf.data(), 4096) == tlm::TLM_OK_RESPONSE);
    CHECK(mem.unmap(iova(host + 4096), 4096) == 0);
    CHECK(mem.mappings() == 0);
    CHECK(dma.access(true, iova(host + 4096), buf.data(), 1) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(mem.fault_count() == 8);

    // A zero-length or wrapping access is a fault, whatever is mapped.
    CHECK(mem.map(iova(host), 8192) == 0);
    CHECK(dma.access(false, iova(host), buf.data(), 0) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(mem.fault_count() == 9);
    CHECK(all(host + 4096 + 8, 4096 - 8, 0x11));   // nothing above was ever written there

    return rnic_check_summary("test_iommu_unit");
}
