// Host memory that the program took away (sim/port_model/host_access.*,
// host_memory.*, host_cache.*), through HostMemoryTarget's socket as the
// NIC's DMA drives it: a mapping over pages that were unmapped, made
// read-only or PROT_NONE is refused like an IOMMU fault (counted,
// remembered, no byte touched, a burst across a good and a bad page refused
// whole) and never faults the process; on the non-coherent host, a mapping
// of memory that is not there (a 4 KiB buffer as 2^40 bytes) fails without
// allocating its shadow, a sync over memory that is gone fails and changes
// nothing, and an unmap hands what it can to the CPU and reports the rest.
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include "host_access.h"
#include "host_memory.h"
#include "host_memory_target.h"
#include "tlm_dma.h"

using namespace tlm_dma;

namespace {

const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));

uint8_t *pages(size_t n) {
    void *p = mmap(nullptr, n * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        std::perror("mmap");
        std::exit(2);
    }
    return static_cast<uint8_t *>(p);
}

bool refused(HostMemory &mem, uint64_t faults_before, const void *addr, uint32_t len, int is_write) {
    rnic_sim_fault f{};
    return mem.fault_count() == faults_before + 1 && mem.last_fault(&f) && f.addr == iova(addr) && f.len == len &&
           f.is_write == is_write;
}

void probes() {
    uint8_t *p = pages(4);
    std::memset(p, 7, 4 * kPage);
    CHECK(munmap(p + kPage, kPage) == 0);
    CHECK(mprotect(p + 2 * kPage, kPage, PROT_READ) == 0);
    CHECK(mprotect(p + 3 * kPage, kPage, PROT_NONE) == 0);
    uint8_t out[64];
    CHECK(host_access::read(iova(p), out, 64) && all(out, 64, 7));
    CHECK(!host_access::read(iova(p + kPage - 8), out, 16));   // runs into the hole
    CHECK(host_access::readable(iova(p), kPage) && !host_access::readable(iova(p), kPage + 1));
    CHECK(host_access::readable(iova(p + 2 * kPage), kPage));
    CHECK(!host_access::readable(iova(p + 3 * kPage), 1));
    CHECK(host_access::writable(iova(p + 3), kPage - 3));
    CHECK(!host_access::writable(iova(p + 2 * kPage), 1));
    CHECK(!host_access::writable(iova(p + kPage), 1));
    CHECK(all(p, kPage, 7) && all(p + 2 * kPage, kPage, 7));   // probing wrote nothing
    // Far past what is mapped: an answer, at once (it stops at the first hole).
    CHECK(!host_access::readable(iova(p), uint64_t{1} << 40));
    CHECK(!host_access::writable(iova(p), uint64_t{1} << 40));
    // More pages than one system call takes.
    const size_t big = 1100;
    uint8_t *q = pages(big);
    CHECK(host_access::readable(iova(q), big * kPage));
    CHECK(munmap(q + (big - 1) * kPage, kPage) == 0);
    CHECK(!host_access::readable(iova(q), big * kPage));
    CHECK(host_access::readable(iova(q), (big - 1) * kPage));
    munmap(q, (big - 1) * kPage);
    munmap(p, kPage);
    munmap(p + 2 * kPage, 2 * kPage);
}

void coherent_host(HostMemory &mem, Dma &dma) {
    uint8_t *p = pages(4);
    std::memset(p, 0x11, 4 * kPage);
    CHECK(mem.map(iova(p), 4 * kPage) == 0);
    std::vector<uint8_t> buf(2 * kPage, 0xEE);
    CHECK(munmap(p + kPage, kPage) == 0);
    CHECK(mprotect(p + 2 * kPage, kPage, PROT_READ) == 0);
    CHECK(mprotect(p + 3 * kPage, kPage, PROT_NONE) == 0);

    uint64_t f = mem.fault_count();
    CHECK(dma.access(false, iova(p + 8), buf.data(), 64) == tlm::TLM_OK_RESPONSE && all(buf.data(), 64, 0x11));
    // Unmapped after the mapping was made: refused both ways, like an IOMMU fault.
    CHECK(dma.access(false, iova(p + kPage), buf.data(), 64) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(refused(mem, f++, p + kPage, 64, 0));
    CHECK(dma.access(true, iova(p + kPage + 100), buf.data(), 64) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(refused(mem, f++, p + kPage + 100, 64, 1));
    // A burst across the page line: refused whole, the good page untouched.
    std::memset(buf.data(), 0x5A, buf.size());
    CHECK(dma.access(true, iova(p + kPage - 512), buf.data(), 1024) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(refused(mem, f++, p + kPage - 512, 1024, 1));
    CHECK(all(p, kPage, 0x11));
    CHECK(dma.access(false, iova(p + kPage - 512), buf.data(), 1024) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(refused(mem, f++, p + kPage - 512, 1024, 0));
    // Read-only: read, not written.
    CHECK(dma.access(false, iova(p + 2 * kPage), buf.data(), 128) == tlm::TLM_OK_RESPONSE && all(buf.data(), 128, 0x11));
    CHECK(dma.access(true, iova(p + 2 * kPage + 8), buf.data(), 32) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(refused(mem, f++, p + 2 * kPage + 8, 32, 1));
    CHECK(all(p + 2 * kPage, kPage, 0x11));
    // PROT_NONE: neither.
    CHECK(dma.access(false, iova(p + 3 * kPage), buf.data(), 8) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(refused(mem, f++, p + 3 * kPage, 8, 0));
    CHECK(dma.access(true, iova(p + 3 * kPage), buf.data(), 8) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(refused(mem, f++, p + 3 * kPage, 8, 1));
    // The first page still works both ways.
    std::memset(buf.data(), 0x5A, buf.size());
    CHECK(dma.access(true, iova(p + 16), buf.data(), 16) == tlm::TLM_OK_RESPONSE && all(p + 16, 16, 0x5A));
    CHECK(mem.fault_count() == f);
    CHECK(mem.unmap(iova(p), 4 * kPage) == 0);
    munmap(p, kPage);
    munmap(p + 2 * kPage, 2 * kPage);
}

void noncoherent_host(HostMemory &mem, Dma &dma) {
    CHECK(mem.set_coherency(RNIC_SIM_NONCOHERENT) == 0);
    // One page with nothing after it, whatever else the process has mapped.
    uint8_t *small = pages(2);
    munmap(small + kPage, kPage);
    // 4 KiB as 2^40 bytes, and memory that is gone: refused, no shadow made
    // (a shadow of 2^40 bytes would be std::bad_alloc, or the OOM killer).
    CHECK(mem.map(iova(small), uint64_t{1} << 40) == -1);
    CHECK(mem.map(iova(small), uint64_t{1} << 30) == -1);
    uint8_t *gone = pages(2);
    munmap(gone, 2 * kPage);
    CHECK(mem.map(iova(gone), 2 * kPage) == -1);
    CHECK(mem.map(iova(small) + kPage - 8, 16) == -1);   // runs past the buffer
    CHECK(mem.cache_stats().tracked_bytes == 0 && mem.mappings() == 0);
    CHECK(mem.map(iova(small), kPage) == 0);
    CHECK(mem.cache_stats().tracked_bytes == kPage);
    // Over a tracked range and past it into nothing: refused, the tracked range kept.
    CHECK(mem.map(iova(small), 2 * kPage) == -1);
    CHECK(mem.cache_stats().tracked_bytes == kPage && mem.mappings() == 1);
    CHECK(mem.unmap(iova(small), kPage) == 0);
    munmap(small, kPage);

    // Three pages, the NIC writes all of them, then the middle one goes.
    uint8_t *p = pages(3);
    std::memset(p, 0x11, 3 * kPage);
    CHECK(mem.map(iova(p), 3 * kPage) == 0);
    std::vector<uint8_t> buf(3 * kPage, 0x77);
    for (size_t off = 0; off < 3 * kPage; off += 1024)
        CHECK(dma.access(true, iova(p + off), buf.data(), 1024) == tlm::TLM_OK_RESPONSE);
    CHECK(all(p, 3 * kPage, 0x11));   // not synced: the CPU sees its old data
    CHECK(munmap(p + kPage, kPage) == 0);
    uint64_t f = mem.fault_count();
    CHECK(dma.access(false, iova(p + kPage + 4), buf.data(), 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(refused(mem, f++, p + kPage + 4, 4, 0));
    CHECK(dma.access(true, iova(p + kPage - 4), buf.data(), 8) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(refused(mem, f++, p + kPage - 4, 8, 1));
    // A sync that reaches the hole syncs nothing; one beside it works.
    const rnic_sim_cache_stats before = mem.cache_stats();
    CHECK(mem.sync(iova(p), 3 * kPage, RNIC_SIM_SYNC_FOR_CPU) == -1);
    CHECK(mem.sync(iova(p), 3 * kPage, RNIC_SIM_SYNC_FOR_DEVICE) == -1);
    CHECK(mem.cache_stats().invalidated_bytes == before.invalidated_bytes);
    CHECK(all(p, kPage, 0x11) && all(p + 2 * kPage, kPage, 0x11));
    CHECK(mem.sync(iova(p), kPage, RNIC_SIM_SYNC_FOR_CPU) == 0);
    CHECK(all(p, kPage, 0x77));
    // Read-only with NIC writes in it: a sync for the CPU would store, so it fails...
    CHECK(mprotect(p + 2 * kPage, kPage, PROT_READ) == 0);
    CHECK(mem.sync(iova(p + 2 * kPage), kPage, RNIC_SIM_SYNC_FOR_CPU) == -1);
    // ...and a flush, which only reads the CPU's view, works.
    CHECK(mem.sync(iova(p + 2 * kPage), kPage, RNIC_SIM_SYNC_FOR_DEVICE) == 0);
    // The unmap hands nothing to the pages it cannot reach and reports them;
    // the process lives on.
    rnic_sim_cache_report r{};
    while (mem.cache_report(&r)) {
    }
    const uint64_t unseen = mem.cache_stats().unseen_at_unmap_bytes;
    CHECK(mem.unmap(iova(p), 3 * kPage) == 0);
    CHECK(mem.cache_stats().unseen_at_unmap_bytes - unseen == 2 * kPage);
    CHECK(mem.cache_stats().tracked_bytes == 0);
    CHECK(all(p + 2 * kPage, kPage, 0x11));
    CHECK(mem.fault_count() == f);
    munmap(p, kPage);
    munmap(p + 2 * kPage, kPage);
    CHECK(mem.set_coherency(RNIC_SIM_COHERENT) == 0);
}

}  // namespace

// A SystemC program of its own: libsystemc's main() calls this.
int sc_main(int, char **) {
    HostMemory mem;
    HostMemoryTarget target("mem", mem);
    Dma dma("dma");
    dma.socket.bind(target.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);   // elaboration completes the socket binding

    probes();
    coherent_host(mem, dma);
    noncoherent_host(mem, dma);
    return rnic_check_summary("test_host_access_unit");
}
