// Verilated headers first: they must not see SystemC's macros.
#include <verilated.h>
#include <verilated_fst_c.h>

#include "Vrnic_top.h"

#include "fabric.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <tlm_utils/tlm_quantumkeeper.h>

Fabric::Fabric(sc_core::sc_module_name name, unsigned nics, uint64_t link_latency, const std::string &trace_path)
    : sc_module(name), ctx_(std::make_unique<VerilatedContext>()), latency_(link_latency < 1 ? 1 : link_latency),
      period_(kPeriodNs, sc_core::SC_NS) {
    if (!trace_path.empty())
        ctx_->traceEverOn(true);
    for (unsigned i = 0; i < nics; ++i)
        links_.emplace_back(latency_);
    for (unsigned i = 0; i < nics; ++i) {
        const std::string n = "rnic" + std::to_string(i);
        mems_.push_back(std::make_unique<HostMemory>((n + "_mem").c_str()));
        devs_.push_back(std::make_unique<RnicDevice>(n.c_str(), i, ctx_.get(), *this));
        devs_[i]->dma.bind(mems_[i]->socket);
        bridges_.push_back(std::make_unique<HostBridge>((n + "_host").c_str()));
        bridges_[i]->socket.bind(devs_[i]->bar);
    }
    // NIC 2k and 2k+1 face each other; an odd last NIC is looped to itself.
    for (unsigned i = 0; i < nics; ++i) {
        const unsigned peer = (i ^ 1u) < nics ? (i ^ 1u) : i;
        devs_[i]->connect(&links_[i], &links_[peer]);
    }
    if (!trace_path.empty())
        open_trace(trace_path);
    log_events_ = std::getenv("RNIC_SIM_LOG") != nullptr;
    tlm::tlm_global_quantum::instance().set(period_ * static_cast<double>(kQuantumCycles));
    SC_THREAD(clock_thread);
}

Fabric::~Fabric() { close_trace(); }

// The trace's directory is created when missing; a file that cannot be
// written leaves tracing off (with a warning) rather than stopping the run.
void Fabric::open_trace(const std::string &path) {
    const std::filesystem::path p(path);
    std::error_code ec;
    if (p.has_parent_path())
        std::filesystem::create_directories(p.parent_path(), ec);
    if (std::FILE *probe = std::fopen(path.c_str(), "wb")) {
        std::fclose(probe);
    } else {
        std::fprintf(stderr, "rnic_sim: cannot write the trace %s: tracing off\n", path.c_str());
        return;
    }
    trace_ = std::make_unique<VerilatedFstC>();
    for (auto &d : devs_)
        d->model().trace(trace_.get(), 99);
    // Timestamps are nanoseconds: a cycle is kPeriodNs, the clock rises half-way.
    trace_->set_time_unit("1ns");
    trace_->set_time_resolution("1ns");
    trace_->open(path.c_str());
}

void Fabric::close_trace() {
    if (trace_) {
        trace_->close();
        trace_.reset();
    }
    if (pcap_) {
        std::fclose(pcap_);
        pcap_ = nullptr;
    }
}

// Classic pcap, Ethernet link type: tshark and Wireshark decode the frames
// as RoCEv2 (UDP port 4791). Timestamps are simulated time.
void Fabric::open_pcap(const std::string &path) {
    pcap_ = std::fopen(path.c_str(), "wb");
    if (!pcap_) {
        std::fprintf(stderr, "rnic_sim: cannot write the capture %s\n", path.c_str());
        return;
    }
    const uint32_t hdr[6] = {0xa1b23c4du /* nanosecond resolution */, 0x00040002u, 0, 0, 65535, 1};
    std::fwrite(hdr, sizeof(hdr), 1, pcap_);
}

// Elaborates, lets the clock thread reach its first wait, and resets every NIC.
void Fabric::start() {
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    for (auto &d : devs_)
        d->set_reset(true);
    run(kResetCycles, nullptr);
    for (auto &d : devs_)
        d->set_reset(false);
    run(2, nullptr);
}

void Fabric::event(const rnic_sim_event &ev) {
    if (log_events_)
        std::fprintf(stderr, "cycle %llu rnic%u event %u qp %u arg %016llx\n", (unsigned long long)ev.cycle, ev.nic,
                     (unsigned)ev.event, (unsigned)ev.qpn, (unsigned long long)ev.arg);
    if (event_hook_)
        event_hook_(&ev, event_arg_);
}

uint64_t Fabric::frames_from(unsigned nic) const { return nic < links_.size() ? links_[nic].frames_arrived() : 0; }

void Fabric::send_frame(unsigned from, std::vector<uint8_t> &&bytes, uint64_t cycle) {
    if (hook_ && hook_(from, bytes.data(), bytes.size(), hook_arg_) != 0)
        return;
    if (pcap_) {
        const uint64_t ns = cycle * kPeriodNs;
        const uint32_t rec[4] = {static_cast<uint32_t>(ns / 1000000000u), static_cast<uint32_t>(ns % 1000000000u),
                                 static_cast<uint32_t>(bytes.size()), static_cast<uint32_t>(bytes.size())};
        std::fwrite(rec, sizeof(rec), 1, pcap_);
        std::fwrite(bytes.data(), 1, bytes.size(), pcap_);
    }
    links_[from].send(std::move(bytes), cycle);
}

// One cycle of the whole fabric. Every NIC's inputs are settled before any
// NIC is clocked, so no NIC sees another's future.
void Fabric::step() {
    for (auto &l : links_)
        l.tick(cycle_);
    for (auto &d : devs_)
        d->drive(cycle_);
    if (trace_)
        trace_->dump(cycle_ * kPeriodNs);
    for (auto &d : devs_)
        d->edge(cycle_);
    if (trace_)
        trace_->dump(cycle_ * kPeriodNs + kPeriodNs / 2);
    ++cycle_;
}

void Fabric::clock_thread() {
    tlm_utils::tlm_quantumkeeper qk;
    for (;;) {
        sc_core::wait(go_);
        qk.reset();
        uint64_t ran = 0;
        while (ran < budget_) {
            step();
            ++ran;
            qk.inc(period_);
            if (stop_dev_ && stop_dev_->irq())
                break;
            if (qk.need_sync())
                qk.sync();
        }
        ran_ = ran;
        qk.sync();   // SystemC time catches up: sc_time_stamp() is cycle() periods
    }
}

uint64_t Fabric::run(uint64_t cycles, RnicDevice *stop_on_irq) {
    if (running_) {
        static bool warned = false;
        if (!warned)
            std::fprintf(stderr, "rnic_sim: a hook called back into the simulation: refused\n");
        warned = true;
        return 0;
    }
    if (cycles == 0 || (stop_on_irq && stop_on_irq->irq()))
        return 0;
    running_ = true;
    budget_ = cycles;
    stop_dev_ = stop_on_irq;
    ran_ = 0;
    go_.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
    running_ = false;
    return ran_;
}
