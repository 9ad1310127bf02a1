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
    EXPECT(!mem.last_fault(&f));
    EXPECT(dma.access(true, iova(host), buf.data(), 16) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT(all(host, sizeof(host), 0x11));
    EXPECT(mem.fault_count() == 1);
    EXPECT(mem.last_fault(&f) && f.addr == iova(host) && f.len == 16 && f.is_write == 1);

    // Bookkeeping: zero length and wrapping ranges refused; unmap needs the exact range.
    EXPECT(mem.map(iova(host), 0) == -1);
    EXPECT(mem.map(~0ull - 15, 32) == -1);
    EXPECT(mem.map(iova(host), 4096) == 0);
    EXPECT(mem.unmap(iova(host), 4095) == -1);
    EXPECT(mem.unmap(iova(host + 1), 4095) == -1);
    EXPECT(mem.unmap(iova(host + 8192), 64) == -1);
    EXPECT(mem.mappings() == 1);

    // Inside the mapping: a read sees memory, a write changes exactly its bytes.
    EXPECT(dma.access(false, iova(host + 100), buf.data(), 200) == tlm::TLM_OK_RESPONSE);
    EXPECT(all(buf.data(), 200, 0x11) && buf[200] == 0xEE);
    std::memset(buf.data(), 0x5A, buf.size());
    EXPECT(dma.access(true, iova(host + 4096 - 8), buf.data(), 8) == tlm::TLM_OK_RESPONSE);
    EXPECT(all(host + 4096 - 8, 8, 0x5A) && host[4096 - 9] == 0x11 && host[4096] == 0x11);
    EXPECT(mem.fault_count() == 1);

    // A write burst that runs one byte past the mapping is refused whole.
    std::memset(buf.data(), 0x77, buf.size());
    EXPECT(dma.access(true, iova(host + 4096 - 64), buf.data(), 65) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT(all(host + 4096 - 64, 56, 0x11) && all(host + 4096 - 8, 8, 0x5A) && host[4096] == 0x11);
    EXPECT(mem.fault_count() == 2);
    EXPECT(mem.last_fault(&f) && f.addr == iova(host + 4096 - 64) && f.len == 65 &&
           f.is_write == 1);
    // A read that starts before the mapping is refused, and its buffer is not filled.
    std::memset(buf.data(), 0xEE, buf.size());
    EXPECT(dma.access(false, iova(host) - 1, buf.data(), 2) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT(all(buf.data(), 2, 0xEE));
    EXPECT(mem.last_fault(&f) && f.is_write == 0 && f.len == 2);
    // Byte enables are not part of the NIC's bus: refused.
    unsigned char be[4] = {0xFF, 0, 0xFF, 0};
    EXPECT(dma.access(true, iova(host), buf.data(), 4, be) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT(all(host, 4, 0x11));
    EXPECT(mem.fault_count() == 4);

    // Overlaps and neighbours: the union counts, each mapping is removed on its own.
    EXPECT(mem.map(iova(host + 4096), 4096) == 0);      // adjacent
    EXPECT(dma.access(false, iova(host + 4000), buf.data(), 200) == tlm::TLM_OK_RESPONSE);   // spans both
    EXPECT(mem.map(iova(host + 1000), 100) == 0);       // inside the first
    EXPECT(mem.map(iova(host + 1000), 100) == 0);       // the same range twice
    EXPECT(mem.mappings() == 4);
    EXPECT(mem.unmap(iova(host), 4096) == 0);
    EXPECT(dma.access(false, iova(host + 1000), buf.data(), 100) == tlm::TLM_OK_RESPONSE);   // still mapped twice
    EXPECT(dma.access(false, iova(host + 999), buf.data(), 2) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT(dma.access(false, iova(host + 4000), buf.data(), 200) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT(mem.unmap(iova(host + 1000), 100) == 0);
    EXPECT(dma.access(false, iova(host + 1000), buf.data(), 100) == tlm::TLM_OK_RESPONSE);
    EXPECT(mem.unmap(iova(host + 1000), 100) == 0);
    EXPECT(mem.unmap(iova(host + 1000), 100) == -1);    // no third copy
    EXPECT(dma.access(false, iova(host + 1000), buf.data(), 100) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT(mem.unmap(iova(host), 4096) == -1);          // already gone
    EXPECT(dma.access(false, iova(host + 4096), buf.data(), 4096) == tlm::TLM_OK_RESPONSE);
    EXPECT(mem.unmap(iova(host + 4096), 4096) == 0);
    EXPECT(mem.mappings() == 0);
    EXPECT(dma.access(true, iova(host + 4096), buf.data(), 1) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT(mem.fault_count() == 8);

    // A zero-length or wrapping access is a fault, whatever is mapped.
    EXPECT(mem.map(iova(host), 8192) == 0);
    EXPECT(dma.access(false, iova(host), buf.data(), 0) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT(mem.fault_count() == 9);
    EXPECT(all(host + 4096 + 8, 4096 - 8, 0x11));   // nothing above was ever written there

    return finish("test_iommu_unit");
}
