// Two verilated RNICs back to back, each with its own host memory, served
// cycle by cycle by C++ models of the platform. The DMA read and write
// channels and the link ports are the platform's own port model
// (sim/port_model/port_model.h, no SystemC), here with the bench's timing
// and optional random back-pressure on every handshake; behind them the
// platform's HostMemory over each host's arena (host_arena.h: an IOMMU that
// refuses unmapped ranges), and a Link per direction (latency; here a hook
// can drop or corrupt a frame, and every frame is captured). The BAR port is
// the platform's too (sim/port_model/bar_port.h). The bench adds the trace
// port and its checks: the port checker (sim/port_model/port_checker.h)
// holds the NIC to its side of every DMA and link handshake
// (docs/rtl-interfaces.md), the BAR port to the BAR's, and each violation
// counts in protocol_errors; and the NIC is held to its idle promise: a
// cycle with idle high and nothing presented is followed by one with no DMA
// request, no write or tx beat, no trace event, the same irq and idle still
// high. The bench's cycle counter is the NICs' time_now.
//
// With skip_idle set, run() does what a platform that skips idle time does:
// once both NICs have been idle for a few cycles and the models have nothing
// in flight, it moves the cycle counter (and with it time_now) ahead without
// clocking the NICs.
#ifndef RTL_CORE_FABRIC_H
#define RTL_CORE_FABRIC_H

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "bar_port.h"
#include "host_arena.h"
#include "link.h"
#include "port_checker.h"
#include "port_model.h"
#include "port_pins.h"

class VerilatedContext;
class Vrnic_top;

struct FabricConfig {
    unsigned dma_latency = 16;    // cycles from request to first data / burst to completion
    unsigned link_latency = 20;   // cycles from the last beat of a frame out to its first beat in
    unsigned stall_pct = 0;       // chance (%) per cycle of a stall on each platform handshake
    uint32_t seed = 1;
    bool capture = true;          // keep every frame sent, per sender
};

struct TraceEvent {
    uint64_t cycle;
    unsigned event;
    unsigned qpn;
    uint64_t arg;
};

struct DmaWriteRecord {
    uint64_t cycle, addr;
    unsigned len;
    bool err;
};

class Fabric {
public:
    explicit Fabric(const FabricConfig &cfg);
    ~Fabric();

    Vrnic_top &dut(int n) { return *nic_[n].dut; }
    HostArena &mem(int n) { return *nic_[n].mem; }
    uint64_t now() const { return cycle_; }
    bool irq(int n) const;    // the interrupt line as it is now
    bool idle(int n) const;   // the NIC's idle output as it is now (a function of its state)
    // Nothing in flight in the models: no BAR access, no DMA read or write
    // (request, data or completion), no frame half sent or half delivered,
    // and no frame on a link (unless frames_ok).
    bool models_quiet(bool frames_ok = false) const;

    void reset();                 // rst_n low for a few cycles, every model emptied
    void step();                  // one clock cycle of both NICs and the platform
    // `cycles` cycles: clocked one by one, or with skip_idle partly skipped.
    void run(uint64_t cycles);

    // Skipping idle time. run() skips when both NICs have been idle for
    // kIdleBeforeSkip cycles, the last of them with nothing presented, and
    // models_quiet(skip_links) holds: it jumps by up to skip_max cycles,
    // never past the end of the run nor, with skip_links, past the arrival
    // of the first frame on a link. Whatever runs with skipping must give the
    // same frames, trace events and DMA writes, at the same cycles, as with
    // every cycle clocked.
    static constexpr unsigned kIdleBeforeSkip = 4;
    bool skip_idle = false;
    bool skip_links = false;      // also skip while frames are on a link
    uint64_t skip_max = 1000;
    uint64_t skipped_cycles = 0, skips = 0;
    uint64_t skipped_with_frames = 0;   // skipped cycles while a frame was on a link

    void bar_write(int n, uint16_t addr, uint32_t value);   // one cycle
    uint32_t bar_read(int n, uint16_t addr);                // two cycles

    // Called on every frame leaving NIC `from` before it reaches the peer;
    // return false to drop it. It may change the bytes.
    std::function<bool(int from, std::vector<uint8_t> &frame)> link_hook;
    // Called on every frame the hook let through: return true to deliver it
    // twice (a duplicate on the link, right behind the original).
    std::function<bool(int from, const std::vector<uint8_t> &frame)> link_dup;

    std::vector<std::vector<uint8_t>> sent[2];   // frames each NIC sent (capture on)
    uint64_t frames_sent[2] = {0, 0};
    std::vector<TraceEvent> events[2];
    std::vector<DmaWriteRecord> writes[2];       // every DMA write burst, in order
    uint64_t dma_read_bytes[2] = {0, 0}, dma_write_bytes[2] = {0, 0};
    unsigned protocol_errors = 0;

    void set_stall_pct(unsigned pct) { cfg_.stall_pct = pct; }
    void set_link_latency(unsigned c) {
        cfg_.link_latency = c;
        for (Link &l : link_) l.set_latency(c);
    }

private:
    class Dma;   // what the port model's DMA reaches: the host's memory, every write recorded
    struct Nic {
        std::unique_ptr<Vrnic_top> dut;
        std::unique_ptr<HostArena> mem;
        std::unique_ptr<Dma> dma;
        std::unique_ptr<PortModel> port;
        std::unique_ptr<PortChecker> check;
        std::unique_ptr<BarPort> bar;
        PortInputs in;
        PortOutputs out;
        // idle promise: the previous cycle had idle high and nothing presented
        bool idle_quiet_prev = false;
        bool irq_prev = false;
    };

    bool stall();
    void drive(int n);
    void send(int n, std::vector<uint8_t> &&frame);   // NIC n finished a frame: hook, capture, link
    void check_idle(int n);   // after drive(): the idle promise, then this cycle's idle and inputs
    void sample(int n);
    uint64_t skippable(uint64_t limit, bool &frames) const;   // cycles run() may skip now (0: none)
    void skip(uint64_t cycles, bool frames);
    void violation(int n, const char *what);
    void dump();   // waveform sample (bench built with RTL_CORE_VCD=ON)

    FabricConfig cfg_;
    std::unique_ptr<VerilatedContext> ctx_;
    Nic nic_[2];
    Link link_[2];   // link_[n] carries the frames NIC n sends
    struct Waves;
    std::unique_ptr<Waves> waves_;   // null unless waveforms were asked for
    uint64_t cycle_ = 0;
    unsigned idle_streak_ = 0;   // consecutive cycles with both NICs idle
    std::mt19937 rng_;
    bool debug_;   // RTL_CORE_DEBUG set: print every frame and trace event
};

#endif
