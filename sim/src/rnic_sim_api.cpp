// The C ABI of rnic_sim.h over the SystemC fabric. One fabric per process,
// built by the first open from the environment.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <systemc>
#include <tlm>

#include "fabric.h"
#include "rnic_sim.h"

struct rnic_sim_dev {
    RnicDevice *dev;
    HostMemory *mem;
    HostBridge *host;
};

namespace {

std::unique_ptr<Fabric> g_fabric;
Fabric *g_fabric_at_exit;   // keeps the fabric reachable after exit begins
std::vector<rnic_sim_dev> g_handles;

// At exit the trace is flushed and the fabric is left alone: SystemC's and
// Verilator's own statics may already be gone when a static destructor of
// ours would run, so nothing is torn down in that phase.
void fabric_at_exit() {
    if (g_fabric) {
        g_fabric->close_trace();
        g_fabric_at_exit = g_fabric.release();
    }
}

uint64_t env_u64(const char *name, uint64_t dflt) {
    const char *v = std::getenv(name);
    if (!v || !*v)
        return dflt;
    char *end = nullptr;
    const unsigned long long x = std::strtoull(v, &end, 0);
    return (end && *end == '\0') ? x : dflt;
}

std::string trace_path() {
    const char *v = std::getenv("RNIC_TRACE");
    if (!v || !*v)
        return {};
    std::string p(v);
    if (p[0] == '/')
        return p;
    // The project's waveforms/ (its path is compiled in), or RNIC_WAVE_DIR.
    const char *dir = std::getenv("RNIC_WAVE_DIR");
    return std::string(dir && *dir ? dir : RNIC_DEFAULT_WAVE_DIR) + "/" + p;
}

// RNIC_HOST_COHERENCY: a bad value is named on stderr and the host stays
// coherent, as with no value at all.
int host_coherency() {
    const char *v = std::getenv("RNIC_HOST_COHERENCY");
    if (!v || !*v || std::strcmp(v, "coherent") == 0)
        return RNIC_SIM_COHERENT;
    if (std::strcmp(v, "noncoherent") == 0)
        return RNIC_SIM_NONCOHERENT;
    std::fprintf(stderr, "rnic_sim: RNIC_HOST_COHERENCY=%s is neither coherent nor noncoherent: coherent\n", v);
    return RNIC_SIM_COHERENT;
}

Fabric &fabric() {
    if (!g_fabric) {
        const unsigned nics = static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(16, env_u64("RNIC_SIM_NICS", 2))));
        g_fabric = std::make_unique<Fabric>("fabric", nics, env_u64("RNIC_LINK_LATENCY", 100), trace_path());
        g_handles.resize(nics);
        const int coherency = host_coherency();
        for (unsigned i = 0; i < nics; ++i) {
            g_handles[i] = rnic_sim_dev{&g_fabric->dev(i), &g_fabric->memory(i), &g_fabric->bridge(i)};
            g_fabric->memory(i).set_default_coherency(coherency);
        }
        if (const char *pcap = std::getenv("RNIC_PCAP"); pcap && *pcap)
            g_fabric->open_pcap(pcap);
        g_fabric->start();
        std::atexit(fabric_at_exit);
    }
    return *g_fabric;
}

uint32_t bar_access(rnic_sim_dev *d, bool write, uint32_t off, uint32_t value) {
    tlm::tlm_generic_payload trans;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    uint32_t data = value;
    trans.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    trans.set_address(off);
    trans.set_data_ptr(reinterpret_cast<unsigned char *>(&data));
    trans.set_data_length(4);
    trans.set_streaming_width(4);
    d->host->socket->b_transport(trans, delay);
    if (!trans.is_response_ok())
        return 0xffffffffu;   // what a PCIe read of a bad address returns
    return data;
}

}  // namespace

// libsystemc's own main() calls sc_main; programs that link this library
// have their own main(), so this is never run.
int sc_main(int, char **) { return 0; }

extern "C" {

int rnic_sim_open(const char *name, rnic_sim_dev **out) {
    if (!name || !out || std::strncmp(name, "rnic", 4) != 0)
        return -1;
    char *end = nullptr;
    const unsigned long idx = std::strtoul(name + 4, &end, 10);
    // Only the canonical spelling: "rnic1", not "rnic01" or "rnic+1".
    if (end == name + 4 || *end != '\0' || std::to_string(idx) != name + 4)
        return -1;
    Fabric &f = fabric();
    if (idx >= f.size())
        return -1;
    *out = &g_handles[idx];
    return 0;
}

void rnic_sim_close(rnic_sim_dev *) {}

unsigned rnic_sim_index(const rnic_sim_dev *dev) { return dev ? dev->dev->index() : 0; }
unsigned rnic_sim_num_nics(void) { return fabric().size(); }

uint32_t rnic_sim_bar_read32(rnic_sim_dev *dev, uint32_t offset) {
    return dev ? bar_access(dev, false, offset, 0) : 0xffffffffu;
}
void rnic_sim_bar_write32(rnic_sim_dev *dev, uint32_t offset, uint32_t value) {
    if (dev)
        bar_access(dev, true, offset, value);
}

int rnic_sim_dma_map(rnic_sim_dev *dev, void *va, size_t len) {
    return dev ? dev->mem->map(reinterpret_cast<uintptr_t>(va), len) : -1;
}
int rnic_sim_dma_unmap(rnic_sim_dev *dev, void *va, size_t len) {
    return dev ? dev->mem->unmap(reinterpret_cast<uintptr_t>(va), len) : -1;
}

int rnic_sim_coherency(const rnic_sim_dev *dev) { return dev ? dev->mem->coherency() : RNIC_SIM_COHERENT; }
int rnic_sim_set_coherency(rnic_sim_dev *dev, int mode) { return dev ? dev->mem->set_coherency(mode) : -1; }
int rnic_sim_dma_map_coherent(rnic_sim_dev *dev, void *va, size_t len) {
    return dev ? dev->mem->map(reinterpret_cast<uintptr_t>(va), len, HostMemory::Kind::coherent) : -1;
}
int rnic_sim_dma_sync(rnic_sim_dev *dev, const void *va, size_t len, int dir) {
    return dev ? dev->mem->sync(reinterpret_cast<uintptr_t>(va), len, dir) : -1;
}
int rnic_sim_get_cache_stats(const rnic_sim_dev *dev, struct rnic_sim_cache_stats *out) {
    if (!dev || !out)
        return -1;
    *out = dev->mem->cache_stats();
    return 0;
}
int rnic_sim_pop_cache_report(rnic_sim_dev *dev, struct rnic_sim_cache_report *out) {
    if (!dev || !out)
        return -1;
    return dev->mem->cache_report(out) ? 1 : 0;
}

uint64_t rnic_sim_fault_count(const rnic_sim_dev *dev) { return dev ? dev->mem->fault_count() : 0; }
int rnic_sim_last_fault(const rnic_sim_dev *dev, struct rnic_sim_fault *out) {
    return dev && out && dev->mem->last_fault(out) ? 0 : -1;
}

void rnic_sim_advance(uint64_t cycles) { fabric().run(cycles, nullptr); }
uint64_t rnic_sim_wait_irq(rnic_sim_dev *dev, uint64_t max_cycles) {
    return dev ? fabric().run(max_cycles, dev->dev) : 0;
}
uint64_t rnic_sim_cycle(void) { return fabric().cycle(); }
uint64_t rnic_sim_link_frames(unsigned from) { return fabric().frames_from(from); }
void rnic_sim_set_link_hook(rnic_sim_link_hook hook, void *arg) { fabric().set_hook(hook, arg); }
void rnic_sim_set_event_hook(rnic_sim_event_hook hook, void *arg) { fabric().set_event_hook(hook, arg); }

}
