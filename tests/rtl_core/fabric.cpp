#include "fabric.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "Vrnic_top.h"
#include "rnic_hw.h"
#include "verilated.h"
#if VM_TRACE_VCD
#include "verilated_vcd_c.h"
#endif

// What the port model's DMA reaches: the host's memory (the platform's
// HostMemory over the arena), with every write burst recorded for the tests.
class Fabric::Dma : public DmaMemory {
public:
    Dma(Fabric &f, int n) : f_(f), n_(n) {}
    bool dma_read(uint64_t addr, uint8_t *out, uint32_t len) override {
        return f_.nic_[n_].mem->dma().read(addr, out, len);
    }
    bool dma_write(uint64_t addr, const uint8_t *in, uint32_t len) override {
        const bool ok = f_.nic_[n_].mem->dma().write(addr, in, len);
        f_.writes[n_].push_back(DmaWriteRecord{f_.cycle_, addr, len, !ok});
        if (f_.debug_)
            std::fprintf(stderr, "[cycle %llu] nic%d DMA write 0x%llx+%u%s\n", static_cast<unsigned long long>(f_.cycle_),
                         n_, static_cast<unsigned long long>(addr), len, ok ? "" : " REFUSED");
        f_.dma_write_bytes[n_] += len;
        return ok;
    }

private:
    Fabric &f_;
    int n_;
};

struct Fabric::Waves {
#if VM_TRACE_VCD
    std::unique_ptr<VerilatedVcdC> vcd[2];
#endif
};

namespace {
constexpr uint64_t kArenaBase[2] = {0x10000000ull, 0x20000000ull};   // distinct per host
constexpr size_t kArenaSize = 24u << 20;
constexpr unsigned kMaxReports = 20;
// The bench's links never push back: its NICs' tx_tready is the stall draw alone.
constexpr size_t kUnboundedSlack = SIZE_MAX / 4;
// Calls drive() makes to stall() per NIC in a cycle when nothing is
// presented (DMA read request ready, write ready, tx ready; the read data
// and rx frame draws are short-circuited away). A skip draws as many, so a
// run with stalls sees the same random sequence whether it skips or not.
constexpr unsigned kStallDrawsPerQuietCycle = 3;
}

Fabric::Fabric(const FabricConfig &cfg)
    : cfg_(cfg), ctx_(new VerilatedContext), rng_(cfg.seed), debug_(std::getenv("RTL_CORE_DEBUG") != nullptr) {
    // --x-initial unique: every register starts random, from a fixed seed.
    ctx_->randReset(2);
    const char *xseed = std::getenv("RTL_CORE_XSEED");   // to replay other power-up states
    ctx_->randSeed(xseed ? std::atoi(xseed) : static_cast<int>(cfg.seed));
    for (int n = 0; n < 2; n++) {
        Nic &x = nic_[n];
        x.dut.reset(new Vrnic_top(ctx_.get()));
        x.mem.reset(new HostArena(kArenaBase[n], kArenaSize));
        x.dma.reset(new Dma(*this, n));
        // The bench's timing: reads and write completions both dma_latency
        // cycles away, no limit on reads in flight, every handshake stalled
        // at random (stall_pct) from the one seeded generator.
        PortModel::Config pc;
        pc.read_latency = cfg.dma_latency;
        pc.reads_in_flight = 0;
        pc.write_cpl_latency = cfg.dma_latency;
        pc.stall = [this] { return stall(); };
        pc.name = "nic" + std::to_string(n);
        x.port.reset(new PortModel(pc, *x.dma));
        x.check.reset(new PortChecker([this, n](const char *what) { violation(n, what); }));
        x.bar.reset(new BarPort([this, n](const char *what) { violation(n, what); }));
        link_[n] = Link(cfg.link_latency, kUnboundedSlack);
    }
    for (int n = 0; n < 2; n++) nic_[n].port->connect(&link_[n], &link_[1 - n]);
#if VM_TRACE_VCD
    // A bench built with RTL_CORE_VCD=ON writes $RTL_CORE_VCD.nic0.vcd and .nic1.vcd.
    if (const char *base = std::getenv("RTL_CORE_VCD")) {
        ctx_->traceEverOn(true);
        waves_.reset(new Waves);
        for (int n = 0; n < 2; n++) {
            waves_->vcd[n].reset(new VerilatedVcdC);
            nic_[n].dut->trace(waves_->vcd[n].get(), 99);
            waves_->vcd[n]->open((std::string(base) + ".nic" + std::to_string(n) + ".vcd").c_str());
        }
    }
#endif
    reset();
}

Fabric::~Fabric() {
    for (auto &x : nic_) x.dut->final();
#if VM_TRACE_VCD
    if (waves_)
        for (auto &t : waves_->vcd) t->close();
#endif
}

void Fabric::dump() {
#if VM_TRACE_VCD
    if (waves_)
        for (auto &t : waves_->vcd) t->dump(2 * cycle_ + (nic_[0].dut->clk ? 1 : 0));
#endif
}

bool Fabric::irq(int n) const { return nic_[n].dut->irq; }

bool Fabric::idle(int n) const { return nic_[n].dut->idle; }

bool Fabric::models_quiet(bool frames_ok) const {
    for (int n = 0; n < 2; n++) {
        const Nic &x = nic_[n];
        if (!x.bar->quiet() || !x.port->quiet() || x.check->pending() || x.port->rx_busy()) return false;
        if (link_[1 - n].held_bytes() != 0 && !frames_ok) return false;
    }
    return true;
}

void Fabric::violation(int n, const char *what) {
    if (++protocol_errors <= kMaxReports)
        std::fprintf(stderr, "[cycle %llu] nic%d protocol: %s\n", static_cast<unsigned long long>(cycle_), n, what);
}

bool Fabric::stall() { return cfg_.stall_pct && (rng_() % 100u) < cfg_.stall_pct; }

void Fabric::reset() {
    for (int n = 0; n < 2; n++) {
        Nic &x = nic_[n];
        x.port->reset();
        x.check->reset();
        link_[n] = Link(cfg_.link_latency, kUnboundedSlack);
        x.bar->reset();
        x.idle_quiet_prev = false;
        x.mem->reset();
        sent[n].clear();
        events[n].clear();
        writes[n].clear();
    }
    for (int i = 0; i < 4; i++) {
        for (auto &x : nic_) {
            Vrnic_top &d = *x.dut;
            d.rst_n = 0;
            d.time_now = cycle_;
            d.bar_req_valid = 0;
            d.dma_rd_req_ready = 0;
            d.dma_rd_rsp_valid = 0;
            d.dma_wr_ready = 0;
            d.dma_wr_cpl_valid = 0;
            d.tx_tready = 0;
            d.rx_tvalid = 0;
            d.clk = 0;
            d.eval();
            d.clk = 1;
            d.eval();
        }
        cycle_++;
    }
    for (auto &x : nic_) x.dut->rst_n = 1;
    idle_streak_ = 0;
}

void Fabric::drive(int n) {
    Nic &x = nic_[n];
    Vrnic_top &d = *x.dut;

    d.time_now = cycle_;
    BarRequest bar;
    x.bar->drive(bar);
    put_bar_request(d, bar);

    x.port->drive(cycle_, x.in);
    put_port_inputs(d, x.in);
}

// The idle promise (docs/rtl-interfaces.md): a cycle with idle high in which
// nothing was presented (no BAR request, rx beat, DMA read data or write
// completion; tx_tready high) is followed by a cycle that shows no DMA read
// request, no DMA write beat, no tx beat, no trace event and no BAR
// response, the same irq, and idle still high.
void Fabric::check_idle(int n) {
    Nic &x = nic_[n];
    const Vrnic_top &d = *x.dut;
    if (x.idle_quiet_prev) {
        if (d.dma_rd_req_valid) violation(n, "DMA read request after an idle cycle with quiet inputs");
        if (d.dma_wr_valid) violation(n, "DMA write beat after an idle cycle with quiet inputs");
        if (d.tx_tvalid) violation(n, "tx beat after an idle cycle with quiet inputs");
        if (d.trace_valid) violation(n, "trace event after an idle cycle with quiet inputs");
        if (d.bar_rsp_valid) violation(n, "BAR response after an idle cycle with quiet inputs");
        if (static_cast<bool>(d.irq) != x.irq_prev) violation(n, "irq changed after an idle cycle with quiet inputs");
        if (!d.idle) violation(n, "idle dropped after an idle cycle with quiet inputs");
    }
    // A retransmission timer coming due (time_now at wake_at) is an input
    // too: the NIC may act on it.
    x.idle_quiet_prev = d.idle && !d.bar_req_valid && !d.rx_tvalid && !d.dma_rd_rsp_valid && !d.dma_wr_cpl_valid &&
                        d.tx_tready && !(d.wake_valid && d.time_now >= d.wake_at);
    x.irq_prev = d.irq;
}

void Fabric::sample(int n) {
    Nic &x = nic_[n];
    Vrnic_top &d = *x.dut;

    // BAR: a read answers exactly one cycle later, and nothing else does.
    BarResponse rsp;
    get_bar_response(d, rsp);
    x.bar->sample(rsp);
    x.bar->commit();

    // DMA and link ports: checked, counted, then served (a write burst's
    // last beat writes memory, a finished frame goes on the link).
    get_port_outputs(d, x.out);
    x.check->sample(x.in, x.out);
    if (x.out.dma_rd_req_valid && x.in.dma_rd_req_ready) dma_read_bytes[n] += x.out.dma_rd_req_len;
    x.port->sample(cycle_, x.in, x.out);
    if (x.port->frame_sent()) send(n, x.port->take_frame());
    x.port->commit();

    // The trace outputs are zero between events (waveforms show events only).
    if (!d.trace_valid && (d.trace_event || d.trace_qpn || d.trace_arg))
        violation(n, "trace outputs not zero while trace_valid is low");
    if (d.trace_valid) {
        events[n].push_back(TraceEvent{cycle_, d.trace_event, d.trace_qpn, d.trace_arg});
        if (debug_)
            std::fprintf(stderr, "[cycle %llu] nic%d event %u qp %u arg 0x%llx\n", static_cast<unsigned long long>(cycle_),
                         n, static_cast<unsigned>(d.trace_event), static_cast<unsigned>(d.trace_qpn),
                         static_cast<unsigned long long>(d.trace_arg));
    }
}

void Fabric::send(int n, std::vector<uint8_t> &&f) {
    frames_sent[n]++;
    if (debug_)
        std::fprintf(stderr, "[cycle %llu] nic%d sends %zu bytes, opcode 0x%02x psn 0x%06x\n",
                     static_cast<unsigned long long>(cycle_), n, f.size(), f.size() > 54 ? f[42] : 0,
                     f.size() > 54 ? (f[51] << 16 | f[52] << 8 | f[53]) : 0);
    if (cfg_.capture) sent[n].push_back(f);
    bool deliver = link_hook ? link_hook(n, f) : true;
    if (deliver && link_dup && link_dup(n, f)) link_[n].send(std::vector<uint8_t>(f), cycle_);
    if (deliver) link_[n].send(std::move(f), cycle_);
}

void Fabric::step() {
    for (Link &l : link_) l.tick(cycle_);
    for (int n = 0; n < 2; n++) {
        drive(n);
        nic_[n].dut->clk = 0;
        nic_[n].dut->eval();
    }
    dump();
    for (int n = 0; n < 2; n++) check_idle(n);
    idle_streak_ = (nic_[0].dut->idle && nic_[1].dut->idle) ? idle_streak_ + 1 : 0;
    for (int n = 0; n < 2; n++) sample(n);
    ctx_->timeInc(1);   // assertion messages then name the cycle
    for (auto &x : nic_) {
        x.dut->clk = 1;
        x.dut->eval();
    }
    dump();
    ctx_->timeInc(1);
    cycle_++;
}

void Fabric::run(uint64_t cycles) {
    const uint64_t end = cycle_ + cycles;
    while (cycle_ < end) {
        bool frames = false;
        uint64_t n = skip_idle ? skippable(end - cycle_, frames) : 0;
        if (n)
            skip(n, frames);
        else
            step();
    }
}

// A skip needs the NICs idle now and for the last kIdleBeforeSkip cycles,
// the last of those with nothing presented (so the state now is the state
// of that idle cycle), and models that will present nothing while it lasts.
uint64_t Fabric::skippable(uint64_t limit, bool &frames) const {
    frames = false;
    if (idle_streak_ < kIdleBeforeSkip || !models_quiet(skip_links)) return 0;
    uint64_t n = std::min(limit, skip_max);
    for (int k = 0; k < 2; k++) {
        const Nic &x = nic_[k];
        if (!x.dut->idle || !x.idle_quiet_prev) return 0;
        // Never past an armed timer's wake-up: the cycle time_now reaches it is clocked.
        if (x.dut->wake_valid) {
            if (x.dut->wake_at <= cycle_) return 0;
            n = std::min(n, x.dut->wake_at - cycle_);
        }
        if (const Link::Frame *f = link_[1 - k].oldest()) {
            // The first frame on the link starts to arrive at its due cycle.
            if (f->arrives_at <= cycle_) return 0;
            n = std::min(n, f->arrives_at - cycle_);
            frames = true;
        }
    }
    return n;
}

// The skipped cycles are idle with nothing presented: the NICs' state does
// not change, so only time moves. The idle promise then holds across the
// skip (the first clocked cycle after it is checked against the last one
// before it).
void Fabric::skip(uint64_t cycles, bool frames) {
    if (cfg_.stall_pct) rng_.discard(static_cast<unsigned long long>(kStallDrawsPerQuietCycle) * 2 /* NICs */ * cycles);
    cycle_ += cycles;
    ctx_->timeInc(2 * cycles);
    skipped_cycles += cycles;
    skips++;
    if (frames) skipped_with_frames += cycles;
}

void Fabric::bar_write(int n, uint16_t addr, uint32_t value) {
    nic_[n].bar->post(BarRequest{true, true, addr, value});
    step();
}

uint32_t Fabric::bar_read(int n, uint16_t addr) {
    nic_[n].bar->post(BarRequest{true, false, addr, 0});
    step();
    step();
    return nic_[n].bar->rdata();
}
