// The simulated fabric: the RNICs of this process, their host memories
// (IOMMU), and the links between them, clocked together by one SystemC
// thread. Simulated time advances only inside run(): the thread clocks every
// active model in a plain loop and yields to the SystemC kernel only once per
// quantum (kQuantumCycles, tlm_quantumkeeper-style temporal decoupling) and
// when the request is done, so the kernel costs a context switch per
// quantum, not one per cycle.
//
// Who calls run(), and when, is the Runtime's business (runtime.h): the
// application's thread in lockstep, the simulation thread when free-running.
// The fabric itself is not thread safe; the Runtime's lock guards it.
//
// A NIC whose link peer is not simulated here reaches it over UDP
// (UdpPort: one Ethernet frame per datagram).
//
// Calls go one way, down: Runtime -> Fabric -> RnicDevice -> port model ->
// links and the DMA initiator -> host memory. The devices never call the
// fabric: each cycle the fabric asks them what happened (a frame sent, a
// trace event, an interrupt line risen), and a BAR access reaches the
// fabric first (it is the TLM target of the host bridges, as a PCIe fabric
// routes a CPU's access to a device): it posts the access to the device,
// runs the one cycle the access takes, and reads the answer back.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "host_memory.h"
#include "host_memory_target.h"
#include "link.h"
#include "link_faults.h"
#include "rnic_device.h"
#include "rnic_sim.h"
#include "udp_port.h"

class VerilatedContext;
class VerilatedFstC;

// The CPU side of the PCIe link: the initiator through which the C API
// performs BAR accesses on one NIC's BAR (the fabric's target socket for it).
class HostBridge : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<HostBridge> socket;
    explicit HostBridge(sc_core::sc_module_name name) : sc_module(name), socket("socket") {}
};

// What one call of Fabric::run() may do, and when it stops.
struct RunRequest {
    uint64_t max_cycles = 0;
    // Stop after a cycle that leaves the interrupt line of one of these NICs
    // (bit i: NIC i) high; with a line already high, run nothing.
    uint32_t irq_mask = 0;
    // Stop after a cycle in which any NIC's interrupt line rose.
    bool stop_on_irq_rise = false;
    // When the fabric is settled, jump instead of clocking: the rest of
    // max_cycles when it is idle (idle()), else up to its next event
    // (next_event()), which is then clocked. Exact: nothing can happen in
    // the cycles jumped.
    bool skip_idle = false;
    // When the fabric is settled and its next event (if any) is in the
    // future, return (the caller sleeps until then, or until something
    // else can happen).
    bool stop_when_idle = false;
    // Stop as soon as this is non-zero (another thread wants the fabric).
    const std::atomic<int> *yield = nullptr;
};

struct RunResult {
    uint64_t cycles = 0;     // cycles the fabric moved, skipped ones included
    uint64_t skipped = 0;    // of which jumped without clocking
    bool irq = false;        // stopped for an interrupt line
    bool settled = false;    // stopped (or jumped the rest) because nothing happens before quiet_until()
    bool yielded = false;    // stopped because another thread asked
};

class Fabric : public sc_core::sc_module {
public:
    // 250 MHz: what the trace and pcap timestamps show.
    static constexpr unsigned kPeriodNs = 4;
    // Cycles the clock thread runs between two yields to the SystemC kernel.
    static constexpr uint64_t kQuantumCycles = 4096;
    // Cycles rst_n is held low when a NIC joins the fabric.
    static constexpr uint64_t kResetCycles = 4;
    // Cycles every NIC must have been idle before the fabric counts as idle.
    static constexpr uint64_t kIdleSettleCycles = 4;
    // Link sockets are read every this many cycles while the fabric runs.
    static constexpr uint64_t kPortPollCycles = 64;

    SC_HAS_PROCESS(Fabric);
    Fabric(sc_core::sc_module_name name, unsigned nics, uint64_t link_latency, const std::string &trace_path);
    ~Fabric() override;

    // Elaborates; called once, right after construction. No NIC is active yet.
    void start();
    // Every NIC joins at once, each joined to its pair (2k <-> 2k+1) inside
    // this process, and is reset: the lockstep fabric of one process.
    void activate_all_local();
    // NIC i joins. Its link is local when its peer is active here (the peer's
    // socket, if it had one, is closed: the pair is now in this process);
    // otherwise it reaches the peer through a UDP socket bound to `local`
    // and sending to `peer`. Returns false (and why) when the socket cannot
    // be opened. The NIC is held in reset for the next kResetCycles cycles.
    bool activate(unsigned i, const sockaddr_in &local, const sockaddr_in &peer, std::string *error);
    bool active(unsigned i) const { return i < active_.size() && active_[i]; }
    unsigned peer_of(unsigned i) const { return (i ^ 1u) < size() ? (i ^ 1u) : i; }

    RunResult run(const RunRequest &req);
    // Jumps up to `cycles` ahead without clocking, never past quiet_until()
    // (nothing while the fabric is not settled). Returns the cycles jumped.
    uint64_t skip(uint64_t cycles);
    // No event: a cycle no time base reaches.
    static constexpr uint64_t kNoEvent = UINT64_MAX;
    // The first cycle in which something happens without software or
    // another process acting, the fabric being settled: a held frame's
    // release or a NIC's timer (wake_at). kNoEvent when there is none.
    uint64_t next_event() const;
    // How far the fabric may jump: the cycles before this one hold nothing
    // to clock, and this one is clocked. cycle() while the fabric is not
    // settled, else next_event() (kNoEvent: idle); an event already due (at
    // or before cycle()) gives cycle(): it is clocked, not jumped.
    uint64_t quiet_until() const;
    // Nothing can change until software or another process acts: settled,
    // and no event ahead (no frame held back by a link fault, no NIC timer
    // armed).
    bool idle() const { return quiet_until() == kNoEvent; }
    // Some NIC's link leaves this process.
    bool has_ports() const { return ports_ > 0; }
    // Reads every link socket now; true if a frame arrived.
    bool poll_ports();
    // Link sockets (for poll() while the fabric sleeps).
    void port_fds(std::vector<int> &out) const;
    // A frame left for, or came from, another process since the last call.
    bool take_outside_traffic() {
        const bool t = outside_traffic_;
        outside_traffic_ = false;
        return t;
    }
    // NICs whose interrupt line rose since the last call (bit i: NIC i).
    uint32_t take_irq_rises() {
        const uint32_t m = irq_rises_;
        irq_rises_ = 0;
        return m;
    }
    bool irq_any(uint32_t mask) const;
    const UdpPort *port(unsigned i) const { return i < udp_.size() ? udp_[i].get() : nullptr; }

    void close_trace();
    void open_pcap(const std::string &path);

    unsigned size() const { return static_cast<unsigned>(devs_.size()); }
    RnicDevice &dev(unsigned i) { return *devs_[i]; }
    HostMemory &memory(unsigned i) { return *mems_[i]; }
    HostBridge &bridge(unsigned i) { return *bridges_[i]; }
    uint64_t cycle() const { return cycle_; }
    // Cycles jumped instead of clocked (idle time skipped), since the build.
    uint64_t skipped() const { return skipped_; }
    uint64_t link_latency() const { return latency_; }
    // Frames from NIC `nic` that have reached the far end of its link.
    uint64_t frames_from(unsigned nic) const;

    void set_event_hook(rnic_sim_event_hook hook, void *arg) { event_hook_ = hook; event_arg_ = arg; }
    // RNIC_SIM_LOG: every trace-port event on stderr, by name, with its cycle.
    void set_log_events(bool on) { log_events_ = on; }
    void set_hook(rnic_sim_link_hook hook, void *arg) { hook_ = hook; hook_arg_ = arg; }
    // Fault injection on the link out of NIC i (link_faults.h; checked by
    // the caller); nullptr: none.
    void set_faults(unsigned i, const rnic_sim_link_faults *f) { faults_[i].configure(f); }
    rnic_sim_link_fault_stats fault_stats(unsigned i) const { return faults_[i].stats(); }

private:
    using BarSocket = tlm_utils::simple_target_socket_tagged<Fabric>;
    // A BAR transaction from NIC `nic`'s host bridge: one cycle of the fabric.
    void bar_transport(int nic, tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);
    // A NIC finished sending a frame in `cycle`: hook, faults, then the wire.
    void send_frame(unsigned from, std::vector<uint8_t> &&bytes, uint64_t cycle);
    // A frame goes on the wire in `cycle`: capture, then the link or the socket.
    void wire(unsigned from, std::vector<uint8_t> &&bytes, uint64_t cycle);
    // Frames the faults held that are due by `cycle` go on the wire.
    void release_held(uint64_t cycle);
    void note_held();
    // Every active NIC idle for kIdleSettleCycles, nothing on any link.
    bool settled() const;
    void event(const rnic_sim_event &ev);
    static void log_event(const rnic_sim_event &ev);
    void clock_thread();
    RunResult clock(const RunRequest &req);
    void step();
    // Moves `n` cycles ahead without clocking them (the time is accounted).
    void jump(uint64_t n, tlm_utils::tlm_quantumkeeper &qk, RunResult &res);
    void open_trace(const std::string &path);
    void capture(const std::vector<uint8_t> &bytes, uint64_t cycle);
    void join(unsigned i);

    std::unique_ptr<VerilatedContext> ctx_;
    std::vector<std::unique_ptr<HostMemory>> mems_;
    std::vector<std::unique_ptr<HostMemoryTarget>> mem_targets_;   // mems_[i] on the TLM bus
    std::vector<std::unique_ptr<RnicDevice>> devs_;
    std::vector<std::unique_ptr<HostBridge>> bridges_;
    std::vector<std::unique_ptr<BarSocket>> bars_;   // bars_[i]: NIC i's BAR, bound to bridges_[i]
    std::vector<Link> links_;          // links_[i] carries frames sent by NIC i (from another process too)
    std::vector<std::unique_ptr<UdpPort>> udp_;   // udp_[i]: NIC i's link leaves the process
    std::vector<bool> active_;
    std::vector<RnicDevice *> clocked_;   // the active NICs, in index order
    unsigned ports_ = 0;
    std::unique_ptr<VerilatedFstC> trace_;
    std::FILE *pcap_ = nullptr;     // every frame on every link, when RNIC_PCAP names a file
    uint64_t latency_;
    uint64_t cycle_ = 0;
    uint64_t skipped_ = 0;
    sc_core::sc_time period_;
    sc_core::sc_event go_;
    RunRequest req_;
    RunResult res_;
    uint64_t skip_now_ = 0;         // a skip() in progress (the clock thread does it)
    bool running_ = false;
    bool outside_traffic_ = false;
    uint32_t irq_rises_ = 0;
    rnic_sim_link_hook hook_ = nullptr;
    void *hook_arg_ = nullptr;
    std::vector<LinkFaults> faults_;   // faults_[i]: on frames sent by NIC i
    // The first cycle a held frame is due in, over every NIC: step() looks
    // at nothing else while no frame is held.
    uint64_t next_release_ = LinkFaults::kNever;
    bool log_events_ = false;
    rnic_sim_event_hook event_hook_ = nullptr;
    void *event_arg_ = nullptr;
};
