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

struct Fabric::Waves {
#if VM_TRACE_VCD
    std::unique_ptr<VerilatedVcdC> vcd[2];
#endif
};

namespace {
constexpr uint64_t kArenaBase[2] = {0x10000000ull, 0x20000000ull};   // distinct per host
constexpr size_t kArenaSize = 24u << 20;
constexpr unsigned kMaxReports = 20;
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
        nic_[n].dut.reset(new Vrnic_top(ctx_.get()));
        nic_[n].mem.reset(new HostMemory(kArenaBase[n], kArenaSize));
    }
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
    for (const Nic &x : nic_) {
        if (x.bar_valid || x.bar_expect_rsp) return false;
        if (!x.rd_q.empty() || x.rd_presenting || x.prev_rd_req_pending) return false;
        if (x.wr_in_burst || x.prev_wr_pending || !x.cpl_q.empty()) return false;
        if (!x.tx_acc.empty() || x.prev_tx_pending) return false;
        if (x.rx_presenting || x.rx_off != 0) return false;
        if (!x.rx_q.empty() && !frames_ok) return false;
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
        x.rd_q.clear();
        x.rd_beat = 0;
        x.rd_presenting = false;
        x.wr_in_burst = false;
        x.wr_buf.clear();
        x.cpl_q.clear();
        x.bar_valid = x.bar_expect_rsp = false;
        x.tx_acc.clear();
        x.rx_q.clear();
        x.rx_off = 0;
        x.rx_presenting = false;
        x.prev_rd_req_pending = x.prev_wr_pending = x.prev_tx_pending = false;
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
    d.bar_req_valid = x.bar_valid;
    d.bar_req_write = x.bar_write;
    d.bar_req_addr = x.bar_addr;
    d.bar_req_wdata = x.bar_wdata;

    x.rd_req_ready = !stall();
    d.dma_rd_req_ready = x.rd_req_ready;
    if (!x.rd_presenting && !x.rd_q.empty() && x.rd_q.front().due <= cycle_ && !stall())
        x.rd_presenting = true;
    d.dma_rd_rsp_valid = x.rd_presenting;
    d.dma_rd_rsp_data = 0;
    d.dma_rd_rsp_last = 0;
    d.dma_rd_rsp_err = 0;
    d.dma_rd_rsp_tag = 0;
    if (x.rd_presenting) {
        const ReadReq &r = x.rd_q.front();
        unsigned beats = (r.len + 7) / 8;
        unsigned n_bytes = std::min(8u, r.len - 8 * x.rd_beat);
        bool err = !x.mem->dma_ok(r.addr, r.len);
        uint64_t data = 0;
        if (!err) x.mem->read(r.addr + 8ull * x.rd_beat, &data, n_bytes);
        d.dma_rd_rsp_data = data;
        d.dma_rd_rsp_last = x.rd_beat + 1 == beats;
        d.dma_rd_rsp_err = err;
        d.dma_rd_rsp_tag = r.tag;
    }

    x.wr_ready = !stall();
    d.dma_wr_ready = x.wr_ready;
    d.dma_wr_cpl_valid = 0;
    d.dma_wr_cpl_tag = 0;
    d.dma_wr_cpl_err = 0;
    if (!x.cpl_q.empty() && x.cpl_q.front().due <= cycle_) {
        d.dma_wr_cpl_valid = 1;
        d.dma_wr_cpl_tag = x.cpl_q.front().tag;
        d.dma_wr_cpl_err = x.cpl_q.front().err;
    }

    x.tx_ready = !stall();
    d.tx_tready = x.tx_ready;

    if (!x.rx_presenting && !x.rx_q.empty() && x.rx_q.front().due <= cycle_ && !stall())
        x.rx_presenting = true;
    d.rx_tvalid = x.rx_presenting;
    d.rx_tdata = 0;
    d.rx_tkeep = 0;
    d.rx_tlast = 0;
    if (x.rx_presenting) {
        const std::vector<uint8_t> &f = x.rx_q.front().bytes;
        size_t k = std::min<size_t>(8, f.size() - x.rx_off);
        uint64_t data = 0;
        for (size_t i = 0; i < k; i++) data |= static_cast<uint64_t>(f[x.rx_off + i]) << (8 * i);
        d.rx_tdata = data;
        d.rx_tkeep = static_cast<uint8_t>((1u << k) - 1);
        d.rx_tlast = x.rx_off + k == f.size();
    }
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
    x.idle_quiet_prev = d.idle && !d.bar_req_valid && !d.rx_tvalid && !d.dma_rd_rsp_valid && !d.dma_wr_cpl_valid &&
                        d.tx_tready;
    x.irq_prev = d.irq;
}

void Fabric::sample(int n) {
    Nic &x = nic_[n];
    Vrnic_top &d = *x.dut;

    // BAR: a read answers exactly one cycle later, and nothing else does.
    if (x.bar_expect_rsp) {
        if (!d.bar_rsp_valid) violation(n, "no BAR read response one cycle after the request");
        x.bar_rdata = d.bar_rsp_rdata;
        x.bar_expect_rsp = false;
    } else if (d.bar_rsp_valid) {
        violation(n, "BAR response without a read request");
    }
    if (x.bar_valid && !x.bar_write) x.bar_expect_rsp = true;
    x.bar_valid = false;

    // DMA read requests.
    if (x.prev_rd_req_pending &&
        (!d.dma_rd_req_valid || d.dma_rd_req_addr != x.prev_rd_addr || d.dma_rd_req_len != x.prev_rd_len))
        violation(n, "DMA read request withdrawn or changed before it was taken");
    x.prev_rd_req_pending = false;
    if (d.dma_rd_req_valid) {
        if (d.dma_rd_req_len == 0 || d.dma_rd_req_len > RNIC_MTU) violation(n, "DMA read length outside 1..MTU");
        if (x.rd_req_ready) {
            x.rd_q.push_back(ReadReq{d.dma_rd_req_addr, d.dma_rd_req_len, d.dma_rd_req_tag, cycle_ + cfg_.dma_latency});
            dma_read_bytes[n] += d.dma_rd_req_len;
        } else {
            x.prev_rd_req_pending = true;
            x.prev_rd_addr = d.dma_rd_req_addr;
            x.prev_rd_len = d.dma_rd_req_len;
        }
    }
    if (x.rd_presenting && d.dma_rd_rsp_ready) {
        x.rd_presenting = false;
        unsigned beats = (x.rd_q.front().len + 7) / 8;
        if (++x.rd_beat == beats) {
            x.rd_beat = 0;
            x.rd_q.pop_front();
        }
    }

    // DMA writes: address, length and tag are held for the whole burst.
    if (x.prev_wr_pending && (!d.dma_wr_valid || d.dma_wr_addr != x.prev_wr_addr ||
                              d.dma_wr_len != x.prev_wr_len || d.dma_wr_data != x.prev_wr_data))
        violation(n, "DMA write beat withdrawn or changed before it was taken");
    x.prev_wr_pending = false;
    if (d.dma_wr_valid && !x.wr_ready) {
        x.prev_wr_pending = true;
        x.prev_wr_addr = d.dma_wr_addr;
        x.prev_wr_len = d.dma_wr_len;
        x.prev_wr_data = d.dma_wr_data;
    }
    if (d.dma_wr_valid && x.wr_ready) {
        if (!x.wr_in_burst) {
            x.wr_in_burst = true;
            x.wr_addr = d.dma_wr_addr;
            x.wr_len = d.dma_wr_len;
            x.wr_tag = d.dma_wr_tag;
            x.wr_beats = 0;
            x.wr_buf.clear();
            if (x.wr_len == 0 || x.wr_len > RNIC_MTU) violation(n, "DMA write length outside 1..MTU");
        } else if (d.dma_wr_addr != x.wr_addr || d.dma_wr_len != x.wr_len || d.dma_wr_tag != x.wr_tag) {
            violation(n, "DMA write address/length/tag changed inside a burst");
        }
        unsigned beats = (x.wr_len + 7) / 8;
        unsigned k = std::min(8u, x.wr_len - std::min(x.wr_len, 8 * x.wr_beats));
        uint64_t data = d.dma_wr_data;
        for (unsigned i = 0; i < k; i++) x.wr_buf.push_back(static_cast<uint8_t>(data >> (8 * i)));
        x.wr_beats++;
        bool last_expected = x.wr_beats == beats;
        if (static_cast<bool>(d.dma_wr_last) != last_expected) violation(n, "DMA write last on the wrong beat");
        if (d.dma_wr_last || x.wr_beats >= beats) {
            bool err = !x.mem->dma_ok(x.wr_addr, x.wr_len);
            if (!err) x.mem->write(x.wr_addr, x.wr_buf.data(), x.wr_len);
            writes[n].push_back(DmaWriteRecord{cycle_, x.wr_addr, x.wr_len, err});
            if (debug_)
                std::fprintf(stderr, "[cycle %llu] nic%d DMA write 0x%llx+%u%s\n", static_cast<unsigned long long>(cycle_),
                             n, static_cast<unsigned long long>(x.wr_addr), x.wr_len, err ? " REFUSED" : "");
            dma_write_bytes[n] += x.wr_len;
            x.cpl_q.push_back(Cpl{x.wr_tag, err, cycle_ + cfg_.dma_latency});
            x.wr_in_burst = false;
        }
    }
    if (d.dma_wr_cpl_valid) x.cpl_q.pop_front();

    // Transmit: beats packed, tkeep contiguous from bit 0, full except the last.
    if (x.prev_tx_pending && (!d.tx_tvalid || d.tx_tdata != x.prev_tx_data || d.tx_tkeep != x.prev_tx_keep))
        violation(n, "tx beat withdrawn or changed before it was taken");
    x.prev_tx_pending = false;
    if (d.tx_tvalid && !x.tx_ready) {
        x.prev_tx_pending = true;
        x.prev_tx_data = d.tx_tdata;
        x.prev_tx_keep = d.tx_tkeep;
    }
    if (d.tx_tvalid && x.tx_ready) {
        unsigned keep = d.tx_tkeep, k = 0;
        while (k < 8 && (keep >> k & 1u)) k++;
        if (keep != (1u << k) - 1 || k == 0) violation(n, "tx tkeep not contiguous from bit 0");
        if (!d.tx_tlast && k != 8) violation(n, "tx beat not full before the last one");
        for (unsigned i = 0; i < k; i++) x.tx_acc.push_back(static_cast<uint8_t>(d.tx_tdata >> (8 * i)));
        if (d.tx_tlast) {
            std::vector<uint8_t> f;
            f.swap(x.tx_acc);
            frames_sent[n]++;
            if (debug_)
                std::fprintf(stderr, "[cycle %llu] nic%d sends %zu bytes, opcode 0x%02x psn 0x%06x\n",
                             static_cast<unsigned long long>(cycle_), n, f.size(), f.size() > 54 ? f[42] : 0,
                             f.size() > 54 ? (f[51] << 16 | f[52] << 8 | f[53]) : 0);
            if (cfg_.capture) sent[n].push_back(f);
            bool deliver = link_hook ? link_hook(n, f) : true;
            if (deliver) nic_[1 - n].rx_q.push_back(Frame{f, cycle_ + cfg_.link_latency});
        }
    }

    // Receive.
    if (x.rx_presenting && d.rx_tready) {
        x.rx_presenting = false;
        const std::vector<uint8_t> &f = x.rx_q.front().bytes;
        x.rx_off += std::min<size_t>(8, f.size() - x.rx_off);
        if (x.rx_off == f.size()) {
            x.rx_off = 0;
            x.rx_q.pop_front();
        }
    }

    if (d.trace_valid) {
        events[n].push_back(TraceEvent{cycle_, d.trace_event, d.trace_qpn, d.trace_arg});
        if (debug_)
            std::fprintf(stderr, "[cycle %llu] nic%d event %u qp %u arg 0x%llx\n", static_cast<unsigned long long>(cycle_),
                         n, static_cast<unsigned>(d.trace_event), static_cast<unsigned>(d.trace_qpn),
                         static_cast<unsigned long long>(d.trace_arg));
    }
}

void Fabric::step() {
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
    for (const Nic &x : nic_) {
        if (!x.dut->idle || !x.idle_quiet_prev) return 0;
        if (!x.rx_q.empty()) {
            // The first frame on the link starts to arrive at its due cycle.
            if (x.rx_q.front().due <= cycle_) return 0;
            n = std::min(n, x.rx_q.front().due - cycle_);
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
    Nic &x = nic_[n];
    x.bar_valid = true;
    x.bar_write = true;
    x.bar_addr = addr;
    x.bar_wdata = value;
    step();
}

uint32_t Fabric::bar_read(int n, uint16_t addr) {
    Nic &x = nic_[n];
    x.bar_valid = true;
    x.bar_write = false;
    x.bar_addr = addr;
    x.bar_wdata = 0;
    step();
    step();
    return x.bar_rdata;
}
