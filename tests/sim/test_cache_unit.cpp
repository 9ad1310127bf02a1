// The non-coherent host model (sim/port_model/host_cache.*, through
// HostMemoryTarget's socket as the NIC's DMA drives it): the NIC's writes
// stay invisible to the CPU until a sync for the CPU, the CPU's writes
// invisible to the NIC until a flush; a sync covers exactly the named
// bytes; stale reads, overwritten and never-synced NIC writes and CPU/NIC
// write conflicts are counted and reported as ranges; nothing is lost at
// unmap; coherent mappings and a coherent host have no second view. Then
// the 64-byte fast path against the byte-by-byte path, on random operations.
#include <cstring>
#include <random>
#include <vector>

#include "host_memory.h"
#include "host_memory_target.h"
#include "tlm_dma.h"

using namespace tlm_dma;

namespace {

uint64_t kind_bytes(const rnic_sim_cache_stats &s, int kind) {
    switch (kind) {
    case RNIC_SIM_CACHE_STALE_READ: return s.stale_read_bytes;
    case RNIC_SIM_CACHE_OVERWRITTEN: return s.overwritten_bytes;
    case RNIC_SIM_CACHE_UNSEEN_AT_UNMAP: return s.unseen_at_unmap_bytes;
    default: return s.undefined_bytes;
    }
}

// The next report is exactly this one.
bool next_report(HostMemory &m, int kind, const uint8_t *addr, uint64_t len) {
    rnic_sim_cache_report r{};
    if (!m.cache_report(&r)) {
        std::fprintf(stderr, "no report (wanted kind %d)\n", kind);
        return false;
    }
    if (r.kind != kind || r.addr != iova(addr) || r.len != len) {
        std::fprintf(stderr, "report kind %d +%lld len %llu, wanted kind %d +%lld len %llu\n", r.kind,
                     (long long)(r.addr - iova(addr)), (unsigned long long)r.len, kind, 0LL,
                     (unsigned long long)len);
        return false;
    }
    return true;
}

bool no_report(HostMemory &m) {
    rnic_sim_cache_report r{};
    return !m.cache_report(&r);
}

void coherent_host(HostMemory &mem, Dma &dma) {
    alignas(64) static uint8_t host[4096];
    std::memset(host, 1, sizeof(host));
    CHECK(mem.coherency() == RNIC_SIM_COHERENT);
    CHECK(mem.map(iova(host), sizeof(host)) == 0);
    uint8_t v[16];
    std::memset(v, 2, sizeof(v));
    CHECK(dma.access(true, iova(host), v, 16) == tlm::TLM_OK_RESPONSE);
    CHECK(all(host, 16, 2));   // visible at once
    CHECK(mem.sync(iova(host), 16, RNIC_SIM_SYNC_FOR_CPU) == 0);
    CHECK(mem.cache_stats().tracked_bytes == 0);
    // A mode change waits until no streaming mapping is left.
    CHECK(mem.set_coherency(RNIC_SIM_NONCOHERENT) == -1);
    CHECK(mem.set_coherency(7) == -1);
    CHECK(mem.set_coherency(RNIC_SIM_COHERENT) == 0);   // no change
    CHECK(mem.unmap(iova(host), sizeof(host)) == 0);
    CHECK(mem.map(iova(host), 64, HostMemory::Kind::coherent) == 0);   // coherent memory does not block it
    CHECK(mem.set_coherency(RNIC_SIM_NONCOHERENT) == 0);
    CHECK(mem.coherency() == RNIC_SIM_NONCOHERENT);
    CHECK(mem.set_coherency(RNIC_SIM_COHERENCY_DEFAULT) == 0);
    CHECK(mem.coherency() == RNIC_SIM_COHERENT);
    CHECK(mem.unmap(iova(host), 64) == 0);
    CHECK(mem.set_coherency(RNIC_SIM_NONCOHERENT) == 0);
    // Bad syncs.
    CHECK(mem.sync(iova(host), 16, 2) == -1);
    CHECK(mem.sync(~0ull - 3, 16, RNIC_SIM_SYNC_FOR_CPU) == -1);
    CHECK(mem.sync(iova(host), 0, RNIC_SIM_SYNC_FOR_CPU) == 0);
}

void two_views(HostMemory &mem, Dma &dma) {
    alignas(64) static uint8_t host[8192];
    std::memset(host, 0x11, sizeof(host));
    CHECK(mem.map(iova(host), sizeof(host)) == 0);
    CHECK(mem.cache_stats().tracked_bytes == sizeof(host));
    const rnic_sim_cache_stats s0 = mem.cache_stats();
    std::vector<uint8_t> buf(256);

    // The CPU writes after the map: the NIC reads the old data until a
    // flush, and the flush covers exactly the named bytes.
    std::memset(host, 0xA1, 16);
    CHECK(dma.access(false, iova(host), buf.data(), 16) == tlm::TLM_OK_RESPONSE);
    CHECK(all(buf.data(), 16, 0x11));
    CHECK(next_report(mem, RNIC_SIM_CACHE_STALE_READ, host, 16));
    CHECK(mem.sync(iova(host), 8, RNIC_SIM_SYNC_FOR_DEVICE) == 0);
    CHECK(dma.access(false, iova(host), buf.data(), 16) == tlm::TLM_OK_RESPONSE);
    CHECK(all(buf.data(), 8, 0xA1) && all(buf.data() + 8, 8, 0x11));
    CHECK(next_report(mem, RNIC_SIM_CACHE_STALE_READ, host + 8, 8));
    CHECK(mem.cache_stats().stale_read_bytes - s0.stale_read_bytes == 24);
    CHECK(mem.cache_stats().flushed_bytes - s0.flushed_bytes == 8);
    CHECK(mem.sync(iova(host), 16, RNIC_SIM_SYNC_FOR_DEVICE) == 0);

    // The NIC writes: the CPU keeps the old data until a sync for the CPU;
    // a flush does not make it visible; a sync for the CPU covers exactly
    // its range.
    std::memset(buf.data(), 0xB2, buf.size());
    CHECK(dma.access(true, iova(host + 100), buf.data(), 100) == tlm::TLM_OK_RESPONSE);
    CHECK(all(host + 100, 100, 0x11));
    CHECK(mem.sync(iova(host + 100), 100, RNIC_SIM_SYNC_FOR_DEVICE) == 0);
    CHECK(all(host + 100, 100, 0x11));
    CHECK(mem.sync(iova(host + 100), 50, RNIC_SIM_SYNC_FOR_CPU) == 0);
    CHECK(all(host + 100, 50, 0xB2) && all(host + 150, 50, 0x11) && host[99] == 0x11);
    CHECK(mem.cache_stats().invalidated_bytes - s0.invalidated_bytes == 50);
    CHECK(no_report(mem));
    // The NIC reads its own write back (what memory holds).
    CHECK(dma.access(false, iova(host + 150), buf.data(), 50) == tlm::TLM_OK_RESPONSE);
    CHECK(all(buf.data(), 50, 0xB2));
    CHECK(no_report(mem));

    // Written again before the CPU saw it: reported once for the range.
    std::memset(buf.data(), 0xC3, buf.size());
    CHECK(dma.access(true, iova(host + 140), buf.data(), 70) == tlm::TLM_OK_RESPONSE);
    CHECK(next_report(mem, RNIC_SIM_CACHE_OVERWRITTEN, host + 150, 50));
    CHECK(mem.cache_stats().overwritten_bytes == 50);
    CHECK(mem.sync(iova(host + 140), 70, RNIC_SIM_SYNC_FOR_CPU) == 0);
    CHECK(all(host + 140, 70, 0xC3));

    // A CPU write, then a NIC write to the same bytes, no sync between:
    // undefined, reported; the CPU's dirty bytes win, as a write-back would.
    std::memset(host + 300, 0xD4, 10);
    std::memset(buf.data(), 0xE5, buf.size());
    CHECK(dma.access(true, iova(host + 300), buf.data(), 10) == tlm::TLM_OK_RESPONSE);
    CHECK(mem.sync(iova(host + 300), 10, RNIC_SIM_SYNC_FOR_CPU) == 0);
    CHECK(all(host + 300, 10, 0xD4));
    CHECK(next_report(mem, RNIC_SIM_CACHE_UNDEFINED, host + 300, 10));
    CHECK(mem.cache_stats().undefined_bytes == 10);
    // The same with the sync between the CPU write and the NIC write: the NIC's data.
    std::memset(host + 400, 0xD4, 10);
    CHECK(mem.sync(iova(host + 400), 10, RNIC_SIM_SYNC_FOR_CPU) == 0);
    CHECK(dma.access(true, iova(host + 400), buf.data(), 10) == tlm::TLM_OK_RESPONSE);
    CHECK(mem.sync(iova(host + 400), 10, RNIC_SIM_SYNC_FOR_CPU) == 0);
    CHECK(all(host + 400, 10, 0xE5));
    // The other order: the NIC writes, the CPU writes before syncing.
    CHECK(dma.access(true, iova(host + 500), buf.data(), 10) == tlm::TLM_OK_RESPONSE);
    std::memset(host + 500, 0xF6, 4);
    CHECK(mem.sync(iova(host + 500), 10, RNIC_SIM_SYNC_FOR_CPU) == 0);
    CHECK(all(host + 500, 4, 0xF6) && all(host + 504, 6, 0xE5));
    CHECK(next_report(mem, RNIC_SIM_CACHE_UNDEFINED, host + 500, 4));
    CHECK(mem.cache_stats().undefined_bytes == 14);
    CHECK(no_report(mem));

    // Runs of one kind less than a cache line apart are one report (a CPU
    // store of the value a byte had is no store); a line or more apart, two.
    const uint64_t stale0 = mem.cache_stats().stale_read_bytes;
    std::memset(host + 1000, 0x77, 10);
    std::memset(host + 1020, 0x77, 10);
    std::memset(host + 1200, 0x77, 10);
    CHECK(dma.access(false, iova(host + 1000), buf.data(), 210) == tlm::TLM_OK_RESPONSE);
    CHECK(next_report(mem, RNIC_SIM_CACHE_STALE_READ, host + 1000, 30));
    CHECK(next_report(mem, RNIC_SIM_CACHE_STALE_READ, host + 1200, 10));
    CHECK(mem.cache_stats().stale_read_bytes - stale0 == 30);
    CHECK(mem.sync(iova(host + 1000), 210, RNIC_SIM_SYNC_FOR_DEVICE) == 0);

    // Coherent memory on this host: no second view.
    alignas(64) static uint8_t ring[256];
    CHECK(mem.map(iova(ring), sizeof(ring), HostMemory::Kind::coherent) == 0);
    std::memset(buf.data(), 0xE5, buf.size());
    CHECK(dma.access(true, iova(ring), buf.data(), 64) == tlm::TLM_OK_RESPONSE);
    CHECK(all(ring, 64, 0xE5));
    CHECK(mem.unmap(iova(ring), sizeof(ring)) == 0);
    CHECK(mem.cache_stats().tracked_bytes == sizeof(host));

    // Unmap with a NIC write the CPU never saw: reported, and handed to the
    // CPU's view (nothing lost).
    std::memset(buf.data(), 0x5C, buf.size());
    CHECK(dma.access(true, iova(host + 4000), buf.data(), 200) == tlm::TLM_OK_RESPONSE);
    CHECK(all(host + 4000, 200, 0x11));
    CHECK(mem.unmap(iova(host), sizeof(host)) == 0);
    CHECK(all(host + 4000, 200, 0x5C));
    CHECK(next_report(mem, RNIC_SIM_CACHE_UNSEEN_AT_UNMAP, host + 4000, 200));
    CHECK(mem.cache_stats().tracked_bytes == 0);
    CHECK(no_report(mem));
}

// Two streaming mappings over the same bytes share one second view; the
// bytes stay tracked until no mapping covers them.
void overlaps(HostMemory &mem, Dma &dma) {
    alignas(64) static uint8_t host[8192];
    std::memset(host, 0x22, sizeof(host));
    const uint64_t unseen0 = mem.cache_stats().unseen_at_unmap_bytes;
    CHECK(mem.map(iova(host), 4096) == 0);
    CHECK(mem.map(iova(host + 2048), 4096) == 0);
    CHECK(mem.map(iova(host + 6144), 1024) == 0);   // adjacent: one tracked range
    CHECK(mem.cache_stats().tracked_bytes == 7168);
    std::vector<uint8_t> buf(4096, 0x33);
    CHECK(dma.access(true, iova(host + 2000), buf.data(), 200) == tlm::TLM_OK_RESPONSE);
    CHECK(dma.access(true, iova(host + 6100), buf.data(), 100) == tlm::TLM_OK_RESPONSE);   // across the seam
    CHECK(mem.unmap(iova(host), 4096) == 0);
    // Bytes 2000..2048 left every mapping: handed over and reported; the rest waits.
    CHECK(all(host + 2000, 48, 0x33) && all(host + 2048, 152, 0x22));
    CHECK(next_report(mem, RNIC_SIM_CACHE_UNSEEN_AT_UNMAP, host + 2000, 48));
    CHECK(no_report(mem));
    CHECK(mem.cache_stats().tracked_bytes == 5120);
    CHECK(mem.sync(iova(host + 2048), 152, RNIC_SIM_SYNC_FOR_CPU) == 0);
    CHECK(all(host + 2048, 152, 0x33));
    CHECK(mem.unmap(iova(host + 2048), 4096) == 0);
    CHECK(mem.unmap(iova(host + 6144), 1024) == 0);
    CHECK(all(host + 6100, 100, 0x33));
    CHECK(next_report(mem, RNIC_SIM_CACHE_UNSEEN_AT_UNMAP, host + 6100, 100));
    CHECK(mem.cache_stats().unseen_at_unmap_bytes - unseen0 == 148);
    CHECK(mem.cache_stats().tracked_bytes == 0);
}

// The same random operations on two caches: one in whole ranges (64-byte
// blocks where it can), one byte by byte. Views and byte counts must agree:
// the fast path is only faster.
void fast_path_agrees() {
    constexpr size_t kSize = 4096 + 128;
    alignas(64) static uint8_t a[kSize], b[kSize];
    std::mt19937 rng(12345);
    for (size_t i = 0; i < kSize; ++i)
        a[i] = b[i] = static_cast<uint8_t>(rng());
    HostCache whole, bytes;
    whole.adopt(iova(a + 3), kSize - 3);
    bytes.adopt(iova(b + 3), kSize - 3);
    std::vector<uint8_t> in(kSize), out_a(kSize), out_b(kSize);
    bool same = true;
    for (int step = 0; step < 400; ++step) {
        const uint64_t off = 3 + rng() % (kSize - 3);
        const uint64_t len = 1 + rng() % std::min<uint64_t>(kSize - off, 700);
        const unsigned op = rng() % 5;
        for (auto &x : in)
            x = static_cast<uint8_t>(rng() % 4);   // few values: equal bytes happen
        switch (op) {
        case 0:   // CPU stores
            std::memcpy(a + off, in.data(), len);
            std::memcpy(b + off, in.data(), len);
            break;
        case 1:
            whole.dma_write(iova(a + off), in.data(), len);
            for (uint64_t i = 0; i < len; ++i)
                bytes.dma_write(iova(b + off + i), in.data() + i, 1);
            break;
        case 2:
            whole.dma_read(iova(a + off), out_a.data(), len);
            for (uint64_t i = 0; i < len; ++i)
                bytes.dma_read(iova(b + off + i), out_b.data() + i, 1);
            same = same && std::memcmp(out_a.data(), out_b.data(), len) == 0;
            break;
        case 3:
            whole.sync_for_device(iova(a + off), len);
            for (uint64_t i = 0; i < len; ++i)
                bytes.sync_for_device(iova(b + off + i), 1);
            break;
        default:
            whole.sync_for_cpu(iova(a + off), len);
            for (uint64_t i = 0; i < len; ++i)
                bytes.sync_for_cpu(iova(b + off + i), 1);
            break;
        }
        same = same && std::memcmp(a, b, kSize) == 0;
    }
    CHECK(same);
    const rnic_sim_cache_stats &sa = whole.stats(), &sb = bytes.stats();
    CHECK(sa.flushed_bytes == sb.flushed_bytes && sa.invalidated_bytes == sb.invalidated_bytes);
    CHECK(sa.flushed_bytes > 0 && sa.invalidated_bytes > 0);
    for (int k = 0; k < RNIC_SIM_CACHE_KINDS; ++k)
        CHECK(kind_bytes(sa, k) == kind_bytes(sb, k));
    CHECK(sa.stale_read_bytes > 0 && sa.undefined_bytes > 0 && sa.overwritten_bytes > 0);
    // Every kind counted was reported, in ranges inside the tracked bytes.
    bool seen[RNIC_SIM_CACHE_KINDS] = {}, inside = true;
    rnic_sim_cache_report r{};
    while (whole.pop_report(&r)) {
        seen[r.kind] = true;
        inside = inside && r.addr >= iova(a + 3) && r.addr + r.len <= iova(a + kSize);
    }
    for (int k = 0; k < RNIC_SIM_CACHE_KINDS; ++k)
        CHECK(seen[k] == (kind_bytes(sa, k) > 0));
    CHECK(inside);
    // Retiring hands every NIC write to the CPU: the views end equal.
    whole.retire(iova(a + 3), kSize - 3);
    bytes.retire(iova(b + 3), kSize - 3);
    CHECK(std::memcmp(a, b, kSize) == 0);
    CHECK(whole.empty() && bytes.empty());
}

}  // namespace

// A SystemC program of its own: libsystemc's main() calls this.
int sc_main(int, char **) {
    HostMemory mem;
    HostMemoryTarget target("mem", mem);
    Dma dma("dma");
    dma.socket.bind(target.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);   // elaboration completes the socket binding

    coherent_host(mem, dma);
    two_views(mem, dma);
    overlaps(mem, dma);
    fast_path_agrees();
    CHECK(mem.fault_count() == 0);
    return rnic_check_summary("test_cache_unit");
}
