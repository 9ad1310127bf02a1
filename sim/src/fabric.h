// The simulated fabric: every RNIC of the process, its host memory (IOMMU),
// and the links between them, clocked in lockstep by one SystemC thread.
// Simulated time advances only inside run(): the thread clocks every model
// in a plain loop and yields to the SystemC kernel only once per quantum
// (kQuantumCycles, tlm_quantumkeeper-style temporal decoupling) and when the
// requested cycles are done, so the kernel costs a context switch per
// quantum, not one per cycle.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "host_memory.h"
#include "link.h"
#include "rnic_device.h"
#include "rnic_sim.h"

class VerilatedContext;
class VerilatedFstC;

// The CPU side of the PCIe link: the initiator through which the C API
// performs BAR accesses on one NIC's target socket.
class HostBridge : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<HostBridge> socket;
    explicit HostBridge(sc_core::sc_module_name name) : sc_module(name), socket("socket") {}
};

class Fabric : public sc_core::sc_module {
public:
    // 250 MHz: what the trace and pcap timestamps show.
    static constexpr unsigned kPeriodNs = 4;
    // Cycles the clock thread runs between two yields to the SystemC kernel.
    static constexpr uint64_t kQuantumCycles = 4096;
    // Cycles rst_n is held low when the fabric is built.
    static constexpr uint64_t kResetCycles = 4;

    SC_HAS_PROCESS(Fabric);
    Fabric(sc_core::sc_module_name name, unsigned nics, uint64_t link_latency, const std::string &trace_path);
    ~Fabric() override;

    // Runs up to `cycles` cycles; stops early after a cycle that leaves
    // `stop_on_irq`'s interrupt line high. Returns the cycles run (0 when
    // called from inside a hook, which must not re-enter the simulation).
    uint64_t run(uint64_t cycles, RnicDevice *stop_on_irq);
    // Elaborates and resets every NIC; called once, right after construction.
    void start();
    void close_trace();
    void open_pcap(const std::string &path);

    unsigned size() const { return static_cast<unsigned>(devs_.size()); }
    RnicDevice &dev(unsigned i) { return *devs_[i]; }
    HostMemory &memory(unsigned i) { return *mems_[i]; }
    HostBridge &bridge(unsigned i) { return *bridges_[i]; }
    uint64_t cycle() const { return cycle_; }
    // Inside run(): hooks are running and must not re-enter.
    bool running() const { return running_; }
    uint64_t link_latency() const { return latency_; }
    // Frames from NIC `nic` that have reached the far end of its link.
    uint64_t frames_from(unsigned nic) const;

    // A NIC finished sending a frame in `cycle`: hook, capture, then the wire.
    void send_frame(unsigned from, std::vector<uint8_t> &&bytes, uint64_t cycle);
    void event(const rnic_sim_event &ev);
    void set_event_hook(rnic_sim_event_hook hook, void *arg) { event_hook_ = hook; event_arg_ = arg; }
    void set_hook(rnic_sim_link_hook hook, void *arg) { hook_ = hook; hook_arg_ = arg; }

private:
    void clock_thread();
    void step();
    void open_trace(const std::string &path);

    std::unique_ptr<VerilatedContext> ctx_;
    std::vector<std::unique_ptr<HostMemory>> mems_;
    std::vector<std::unique_ptr<RnicDevice>> devs_;
    std::vector<std::unique_ptr<HostBridge>> bridges_;
    std::vector<Link> links_;          // links_[i] carries frames sent by NIC i
    std::unique_ptr<VerilatedFstC> trace_;
    std::FILE *pcap_ = nullptr;     // every frame on every link, when RNIC_PCAP names a file
    uint64_t latency_;
    uint64_t cycle_ = 0;
    sc_core::sc_time period_;
    sc_core::sc_event go_;
    uint64_t budget_ = 0, ran_ = 0;
    bool running_ = false;
    RnicDevice *stop_dev_ = nullptr;
    rnic_sim_link_hook hook_ = nullptr;
    void *hook_arg_ = nullptr;
    bool log_events_ = false;
    rnic_sim_event_hook event_hook_ = nullptr;
    void *event_arg_ = nullptr;
};
