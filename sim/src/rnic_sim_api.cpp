// The C ABI of rnic_sim.h over the Runtime (runtime.h): every call that
// touches the fabric holds a Runtime::Access, so threads take turns with
// each other and with the simulation thread.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <systemc>
#include <tlm>

#include "runtime.h"
#include "rnic_sim.h"

struct rnic_sim_dev {
    RnicDevice *dev;
    HostMemory *mem;
    HostBridge *host;
    unsigned index;
};

namespace {

rnic_sim_dev g_handles[16];

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

// "rnic<N>" in its canonical spelling only: "rnic1", not "rnic01" or "rnic+1".
bool parse_name(const char *name, unsigned long *idx) {
    if (!name || std::strncmp(name, "rnic", 4) != 0)
        return false;
    char *end = nullptr;
    *idx = std::strtoul(name + 4, &end, 10);
    return end != name + 4 && *end == '\0' && std::to_string(*idx) == name + 4;
}

Runtime::Choice choice_of(int mode) {
    switch (mode) {
    case RNIC_SIM_MODE_LOCKSTEP: return Runtime::Choice::lockstep;
    case RNIC_SIM_MODE_FREERUN: return Runtime::Choice::freerun;
    default: return Runtime::Choice::automatic;
    }
}

}  // namespace

// libsystemc's own main() calls sc_main; programs that link this library
// have their own main(), so this is never run.
int sc_main(int, char **) { return 0; }

extern "C" {

int rnic_sim_open_with(const char *name, const struct rnic_sim_open_options *opt, rnic_sim_dev **out) {
    unsigned long idx;
    if (!out || !parse_name(name, &idx) || idx >= 16)
        return -1;
    if (opt && (opt->mode < RNIC_SIM_MODE_AUTO || opt->mode > RNIC_SIM_MODE_FREERUN))
        return -3;
    Runtime &rt = Runtime::get();
    std::string error;
    const int rc = rt.open(static_cast<unsigned>(idx), choice_of(opt ? opt->mode : RNIC_SIM_MODE_AUTO),
                           opt && opt->link_local ? opt->link_local : "", opt && opt->link_peer ? opt->link_peer : "",
                           &error);
    if (rc != 0) {
        if (!error.empty())
            std::fprintf(stderr, "rnic_sim: %s: %s\n", name, error.c_str());
        return rc;
    }
    Fabric &f = rt.fabric();
    rnic_sim_dev &h = g_handles[idx];
    h = rnic_sim_dev{&f.dev(static_cast<unsigned>(idx)), &f.memory(static_cast<unsigned>(idx)),
                     &f.bridge(static_cast<unsigned>(idx)), static_cast<unsigned>(idx)};
    *out = &h;
    return 0;
}

int rnic_sim_open(const char *name, rnic_sim_dev **out) { return rnic_sim_open_with(name, nullptr, out); }

void rnic_sim_close(rnic_sim_dev *) {}

int rnic_sim_mode(void) {
    return Runtime::get().mode() == Runtime::Mode::freerun ? RNIC_SIM_MODE_FREERUN : RNIC_SIM_MODE_LOCKSTEP;
}

int rnic_sim_go_freerun(void) { return Runtime::get().request_freerun(); }

unsigned rnic_sim_index(const rnic_sim_dev *dev) { return dev ? dev->index : 0; }
long rnic_sim_name_index(const char *name) {
    unsigned long idx;
    return parse_name(name, &idx) && idx <= 1000000ul ? static_cast<long>(idx) : -1;
}

unsigned rnic_sim_num_nics(void) {
    Runtime &rt = Runtime::get();
    Runtime::Access a(rt);
    return a.ok() && rt.built() ? rt.fabric().size() : 0;
}

uint32_t rnic_sim_bar_read32(rnic_sim_dev *dev, uint32_t offset) {
    if (!dev)
        return 0xffffffffu;
    Runtime::Access a(Runtime::get());
    return a.ok() ? bar_access(dev, false, offset, 0) : 0xffffffffu;
}
void rnic_sim_bar_write32(rnic_sim_dev *dev, uint32_t offset, uint32_t value) {
    if (!dev)
        return;
    Runtime::Access a(Runtime::get());
    if (a.ok())
        bar_access(dev, true, offset, value);
}

// DMA mappings and syncs take the lock: the simulation thread may be in the
// middle of a DMA access through the same IOMMU.
#define WITH_ACCESS(fail, ...)                                                                                \
    do {                                                                                                      \
        if (!dev)                                                                                             \
            return fail;                                                                                      \
        Runtime::Access a(Runtime::get());                                                                    \
        if (!a.ok())                                                                                          \
            return fail;                                                                                      \
        __VA_ARGS__;                                                                                          \
    } while (0)

int rnic_sim_dma_map(rnic_sim_dev *dev, void *va, size_t len) {
    WITH_ACCESS(-1, return dev->mem->map(reinterpret_cast<uintptr_t>(va), len));
}
int rnic_sim_dma_unmap(rnic_sim_dev *dev, void *va, size_t len) {
    WITH_ACCESS(-1, return dev->mem->unmap(reinterpret_cast<uintptr_t>(va), len));
}
int rnic_sim_coherency(const rnic_sim_dev *dev) {
    WITH_ACCESS(RNIC_SIM_COHERENT, return dev->mem->coherency());
}
int rnic_sim_set_coherency(rnic_sim_dev *dev, int mode) { WITH_ACCESS(-1, return dev->mem->set_coherency(mode)); }
int rnic_sim_dma_map_coherent(rnic_sim_dev *dev, void *va, size_t len) {
    WITH_ACCESS(-1, return dev->mem->map(reinterpret_cast<uintptr_t>(va), len, HostMemory::Kind::coherent));
}
int rnic_sim_dma_sync(rnic_sim_dev *dev, const void *va, size_t len, int dir) {
    WITH_ACCESS(-1, return dev->mem->sync(reinterpret_cast<uintptr_t>(va), len, dir));
}
int rnic_sim_get_cache_stats(const rnic_sim_dev *dev, struct rnic_sim_cache_stats *out) {
    if (!out)
        return -1;
    WITH_ACCESS(-1, *out = dev->mem->cache_stats(); return 0);
}
int rnic_sim_pop_cache_report(rnic_sim_dev *dev, struct rnic_sim_cache_report *out) {
    if (!out)
        return -1;
    WITH_ACCESS(-1, return dev->mem->cache_report(out) ? 1 : 0);
}
uint64_t rnic_sim_fault_count(const rnic_sim_dev *dev) { WITH_ACCESS(0, return dev->mem->fault_count()); }
int rnic_sim_last_fault(const rnic_sim_dev *dev, struct rnic_sim_fault *out) {
    if (!out)
        return -1;
    WITH_ACCESS(-1, return dev->mem->last_fault(out) ? 0 : -1);
}

int rnic_sim_get_link_stats(const rnic_sim_dev *dev, struct rnic_sim_link_stats *out) {
    if (!out)
        return -1;
    WITH_ACCESS(-1, {
        *out = rnic_sim_link_stats{};
        if (const UdpPort *p = Runtime::get().fabric().port(dev->index)) {
            const UdpPort::Stats s = p->stats();
            *out = rnic_sim_link_stats{1,           s.sent,      s.send_errors, s.received,    s.delivered,
                                       s.runts,     s.oversize,  s.strangers,   s.kernel_drops};
        }
        return 0;
    });
}

void rnic_sim_advance(uint64_t cycles) { Runtime::get().advance(cycles); }
uint64_t rnic_sim_wait_irq(rnic_sim_dev *dev, uint64_t max_cycles) {
    return dev ? Runtime::get().wait_irq(1u << dev->index, max_cycles) : 0;
}
uint64_t rnic_sim_wait_irq_mask(uint32_t nic_mask, uint64_t max_cycles) {
    return Runtime::get().wait_irq(nic_mask, max_cycles);
}
void rnic_sim_cpu_delay(uint64_t cycles) { Runtime::get().cpu_delay(cycles); }
uint64_t rnic_sim_cycle(void) { return Runtime::get().now(); }
uint64_t rnic_sim_skipped_cycles(void) {
    Runtime &rt = Runtime::get();
    Runtime::Access a(rt);
    return a.ok() && rt.built() ? rt.fabric().skipped() : 0;
}
int rnic_sim_event_fd(void) { return Runtime::get().event_fd(); }
int rnic_sim_quiescent(void) { return Runtime::get().quiescent() ? 1 : 0; }

uint64_t rnic_sim_link_frames(unsigned from) {
    Runtime &rt = Runtime::get();
    Runtime::Access a(rt);
    return a.ok() && rt.built() ? rt.fabric().frames_from(from) : 0;
}
void rnic_sim_set_link_hook(rnic_sim_link_hook hook, void *arg) {
    Runtime &rt = Runtime::get();
    Runtime::Access a(rt);
    if (a.ok() && rt.built())
        rt.fabric().set_hook(hook, arg);
}
// The faults are checked before the lock is taken: a bad value is the
// caller's mistake whatever state the fabric is in.
int rnic_sim_set_link_faults(unsigned from, const struct rnic_sim_link_faults *f) {
    if (f && !LinkFaults::check(*f).empty())
        return -2;
    Runtime &rt = Runtime::get();
    Runtime::Access a(rt);
    if (!a.ok())
        return -3;
    if (!rt.built() || from >= rt.fabric().size())
        return -1;
    rt.fabric().set_faults(from, f);
    return 0;
}
int rnic_sim_get_link_fault_stats(unsigned from, struct rnic_sim_link_fault_stats *out) {
    if (!out)
        return -1;
    Runtime &rt = Runtime::get();
    Runtime::Access a(rt);
    if (!a.ok())
        return -3;
    if (!rt.built() || from >= rt.fabric().size())
        return -1;
    *out = rt.fabric().fault_stats(from);
    return 0;
}
void rnic_sim_set_event_hook(rnic_sim_event_hook hook, void *arg) {
    Runtime &rt = Runtime::get();
    Runtime::Access a(rt);
    if (a.ok() && rt.built())
        rt.fabric().set_event_hook(hook, arg);
}

}
