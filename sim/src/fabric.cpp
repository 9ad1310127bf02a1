// Verilated headers first: they must not see SystemC's macros.
#include <verilated.h>
#include <verilated_fst_c.h>

#include "Vrnic_top.h"

#include "fabric.h"
#include "rnic_names.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>

Fabric::Fabric(sc_core::sc_module_name name, unsigned nics, uint64_t link_latency, const std::string &trace_path)
    : sc_module(name), ctx_(std::make_unique<VerilatedContext>()), latency_(link_latency < 1 ? 1 : link_latency),
      period_(kPeriodNs, sc_core::SC_NS) {
    if (!trace_path.empty())
        ctx_->traceEverOn(true);
    for (unsigned i = 0; i < nics; ++i)
        links_.emplace_back(latency_);
    for (unsigned i = 0; i < nics; ++i) {
        const std::string n = "rnic" + std::to_string(i);
        mems_.push_back(std::make_unique<HostMemory>());
        mem_targets_.push_back(std::make_unique<HostMemoryTarget>((n + "_mem").c_str(), *mems_[i]));
        devs_.push_back(std::make_unique<RnicDevice>(n.c_str(), i, ctx_.get()));
        devs_[i]->dma.socket.bind(mem_targets_[i]->socket);
        bridges_.push_back(std::make_unique<HostBridge>((n + "_host").c_str()));
        bars_.push_back(std::make_unique<BarSocket>((n + "_bar").c_str()));
        bars_[i]->register_b_transport(this, &Fabric::bar_transport, static_cast<int>(i));
        bridges_[i]->socket.bind(*bars_[i]);
    }
    udp_.resize(nics);
    active_.assign(nics, false);
    for (unsigned i = 0; i < nics; ++i)
        faults_.emplace_back(i);
    // NIC 2k and 2k+1 face each other; an odd last NIC is looped to itself.
    // The wiring is fixed; whether a peer's frames come from its model here
    // or from a socket is decided when NICs join.
    for (unsigned i = 0; i < nics; ++i)
        devs_[i]->connect(&links_[i], &links_[peer_of(i)]);
    if (!trace_path.empty())
        open_trace(trace_path);
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

// Elaborates and lets the clock thread reach its first wait.
void Fabric::start() { sc_core::sc_start(sc_core::SC_ZERO_TIME); }

void Fabric::join(unsigned i) {
    active_[i] = true;
    devs_[i]->reset_until(cycle_ + kResetCycles);
    clocked_.clear();
    for (unsigned k = 0; k < size(); ++k)
        if (active_[k])
            clocked_.push_back(devs_[k].get());
}

void Fabric::activate_all_local() {
    for (unsigned i = 0; i < size(); ++i)
        join(i);
}

bool Fabric::activate(unsigned i, const sockaddr_in &local, const sockaddr_in &peer, std::string *error) {
    if (i >= size())
        return false;
    if (active_[i])
        return true;
    const unsigned p = peer_of(i);
    if (p != i && !active_[p]) {
        std::unique_ptr<UdpPort> port = UdpPort::open(local, peer, error);
        if (!port)
            return false;
        udp_[i] = std::move(port);
        ++ports_;
    } else if (p != i && udp_[p]) {
        // The pair is whole in this process now: whatever came from outside
        // for the peer's model is not this fabric's any more.
        udp_[p].reset();
        --ports_;
        links_[i] = Link(latency_);
    }
    join(i);
    return true;
}

// One line an event, its name and its arg's fields named by rnic.toml's
// layouts: "cycle 1234 rnic1 RKEY_CHECK qp 1 rkey=0x00000105 verdict=KEY".
void Fabric::log_event(const rnic_sim_event &ev) {
    char args[192];
    rnic_ev_arg_format(ev.event, ev.arg, args, sizeof(args));
    const char *name = rnic_ev_name(ev.event);
    const std::string code = name ? name : "event " + std::to_string(ev.event);
    std::fprintf(stderr, "cycle %llu rnic%u %s qp %u %s\n", (unsigned long long)ev.cycle, ev.nic, code.c_str(),
                 (unsigned)ev.qpn, args);
}

void Fabric::event(const rnic_sim_event &ev) {
    if (log_events_)
        log_event(ev);
    if (event_hook_)
        event_hook_(&ev, event_arg_);
}

uint64_t Fabric::frames_from(unsigned nic) const { return nic < links_.size() ? links_[nic].frames_arrived() : 0; }

void Fabric::capture(const std::vector<uint8_t> &bytes, uint64_t cycle) {
    if (!pcap_)
        return;
    const uint64_t ns = cycle * kPeriodNs;
    const uint32_t rec[4] = {static_cast<uint32_t>(ns / 1000000000u), static_cast<uint32_t>(ns % 1000000000u),
                             static_cast<uint32_t>(bytes.size()), static_cast<uint32_t>(bytes.size())};
    std::fwrite(rec, sizeof(rec), 1, pcap_);
    std::fwrite(bytes.data(), 1, bytes.size(), pcap_);
}

void Fabric::send_frame(unsigned from, std::vector<uint8_t> &&bytes, uint64_t cycle) {
    if (hook_ && hook_(from, bytes.data(), bytes.size(), hook_arg_) != 0)
        return;
    LinkFaults &lf = faults_[from];
    if (lf.bypass()) {
        wire(from, std::move(bytes), cycle);
        return;
    }
    lf.submit(std::move(bytes), cycle);
    lf.release(cycle, [&](std::vector<uint8_t> &&f) { wire(from, std::move(f), cycle); });
    note_held();
}

void Fabric::wire(unsigned from, std::vector<uint8_t> &&bytes, uint64_t cycle) {
    capture(bytes, cycle);
    if (udp_[from]) {
        udp_[from]->send(bytes.data(), bytes.size());
        outside_traffic_ = true;
        return;
    }
    links_[from].send(std::move(bytes), cycle);
}

void Fabric::release_held(uint64_t cycle) {
    for (unsigned i = 0; i < size(); ++i)
        if (faults_[i].next_release() <= cycle)
            faults_[i].release(cycle, [&](std::vector<uint8_t> &&f) { wire(i, std::move(f), cycle); });
    note_held();
}

void Fabric::note_held() {
    next_release_ = LinkFaults::kNever;
    for (const LinkFaults &lf : faults_)
        next_release_ = std::min(next_release_, lf.next_release());
}

// A frame from another process is on the wire from now: it reaches the NIC
// `latency` cycles later, as a frame of this fabric would.
bool Fabric::poll_ports() {
    bool got = false;
    for (unsigned i = 0; i < size(); ++i) {
        if (!udp_[i])
            continue;
        const unsigned p = peer_of(i);
        udp_[i]->receive([&](std::vector<uint8_t> &&frame) {
            capture(frame, cycle_);
            links_[p].send(std::move(frame), cycle_);
            got = true;
        });
    }
    if (got)
        outside_traffic_ = true;
    return got;
}

void Fabric::port_fds(std::vector<int> &out) const {
    for (const auto &u : udp_)
        if (u)
            out.push_back(u->fd());
}

bool Fabric::irq_any(uint32_t mask) const {
    for (unsigned i = 0; i < size(); ++i)
        if ((mask >> i & 1u) && active_[i] && devs_[i]->irq())
            return true;
    return false;
}

bool Fabric::settled() const {
    for (const RnicDevice *d : clocked_)
        if (d->idle_cycles() < kIdleSettleCycles)
            return false;
    for (const Link &l : links_)
        if (l.held_bytes() != 0)
            return false;
    return true;
}

static_assert(Fabric::kNoEvent == LinkFaults::kNever, "a held frame's release is an event");

uint64_t Fabric::next_event() const {
    uint64_t next = next_release_;
    for (const RnicDevice *d : clocked_)
        if (d->wake_valid())
            // A timer armed for the cycle that means "none" is still armed:
            // one cycle earlier keeps the fabric from counting as idle, and
            // is never past it.
            next = std::min(next, std::min(d->wake_at(), kNoEvent - 1));
    return next;
}

uint64_t Fabric::quiet_until() const { return settled() ? std::max(next_event(), cycle_) : cycle_; }

// One cycle of the whole fabric. Every NIC's inputs are settled before any
// NIC is clocked, so no NIC sees another's future.
void Fabric::step() {
    if (ports_ && cycle_ % kPortPollCycles == 0)
        poll_ports();
    // Before the links move: a frame released now is on the wire from now.
    if (cycle_ >= next_release_)
        release_held(cycle_);
    for (auto &l : links_)
        l.tick(cycle_);
    for (RnicDevice *d : clocked_) {
        d->drive(cycle_);
        if (d->frame_sent())
            send_frame(d->index(), d->take_frame(), cycle_);
    }
    if (trace_)
        trace_->dump(cycle_ * kPeriodNs);
    for (RnicDevice *d : clocked_) {
        d->edge(cycle_);
        if (const rnic_sim_event *ev = d->event())
            event(*ev);
        if (d->irq_rose())
            irq_rises_ |= 1u << d->index();
    }
    if (trace_)
        trace_->dump(cycle_ * kPeriodNs + kPeriodNs / 2);
    ++cycle_;
}

void Fabric::jump(uint64_t n, tlm_utils::tlm_quantumkeeper &qk, RunResult &res) {
    cycle_ += n;
    qk.inc(period_ * static_cast<double>(n));
    res.cycles += n;
    res.skipped += n;
    skipped_ += n;
}

RunResult Fabric::clock(const RunRequest &req) {
    RunResult res;
    tlm_utils::tlm_quantumkeeper qk;
    qk.reset();
    if (skip_now_) {
        jump(skip_now_, qk, res);
        skip_now_ = 0;
    }
    const uint32_t rises_before = irq_rises_;
    while (res.cycles < req.max_cycles) {
        step();
        ++res.cycles;
        qk.inc(period_);
        if (req.irq_mask && irq_any(req.irq_mask)) {
            res.irq = true;
            break;
        }
        if (req.stop_on_irq_rise && irq_rises_ != rises_before) {
            res.irq = true;
            break;
        }
        if (req.yield && req.yield->load(std::memory_order_relaxed) != 0) {
            res.yielded = true;
            break;
        }
        if (req.skip_idle || req.stop_when_idle) {
            // Settled: nothing happens before `until` (a held frame's
            // release, a NIC's timer), or ever (idle).
            const uint64_t until = quiet_until();
            if (until > cycle_) {
                if (!req.skip_idle) {
                    res.settled = true;
                    break;
                }
                // Up to the event, never past it: the cycle it is due in is
                // the next one clocked.
                jump(std::min(until - cycle_, req.max_cycles - res.cycles), qk, res);
                if (until == kNoEvent) {
                    res.settled = true;
                    break;
                }
            }
        }
        if (qk.need_sync())
            qk.sync();
    }
    qk.sync();   // SystemC time catches up: sc_time_stamp() is cycle() periods
    return res;
}

void Fabric::clock_thread() {
    for (;;) {
        sc_core::wait(go_);
        res_ = clock(req_);
    }
}

RunResult Fabric::run(const RunRequest &req) {
    if (running_) {
        static bool warned = false;
        if (!warned)
            std::fprintf(stderr, "rnic_sim: a hook called back into the simulation: refused\n");
        warned = true;
        return {};
    }
    if ((req.max_cycles == 0 && skip_now_ == 0) || (req.irq_mask && irq_any(req.irq_mask)))
        return {};
    running_ = true;
    req_ = req;
    res_ = RunResult{};
    go_.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
    running_ = false;
    return res_;
}

// A BAR access is one bus cycle of the whole fabric, whatever its outcome:
// the request is presented for one cycle and a read returns what the
// register block drives in the next (bar_rsp_valid). An offset outside the
// 64 KiB BAR never reaches the NIC and reads as all ones, as an unsupported
// request does on PCIe; a misaligned offset inside it is the RTL's to judge
// (it sets STATUS.BAD_REG).
void Fabric::bar_transport(int nic, tlm::tlm_generic_payload &trans, sc_core::sc_time &) {
    const uint64_t addr = trans.get_address();
    const bool valid = trans.get_data_length() == 4 && trans.get_byte_enable_ptr() == nullptr &&
                       trans.get_command() != tlm::TLM_IGNORE_COMMAND && addr < RnicDevice::kBarBytes;
    if (running_) {   // called from inside a hook: refused, the access in progress untouched
        trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
    }
    RnicDevice &d = *devs_[nic];
    const bool write = trans.is_write();
    uint32_t wdata = 0;
    if (valid && write)
        std::memcpy(&wdata, trans.get_data_ptr(), 4);
    d.post_bar(RnicDevice::BarAccess{valid, write, static_cast<uint32_t>(addr), wdata});
    run(RunRequest{1});
    if (!valid) {
        trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    if (!write) {
        if (!d.bar_answered()) {   // the RTL broke its one-cycle response promise
            trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        const uint32_t rdata = d.bar_rdata();
        std::memcpy(trans.get_data_ptr(), &rdata, 4);
    }
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

uint64_t Fabric::skip(uint64_t cycles) {
    const uint64_t until = quiet_until();
    const uint64_t n = std::min(cycles, until - cycle_);
    if (n == 0 || running_)   // running_: a hook, refused by run() (the jump must not linger)
        return 0;
    skip_now_ = n;
    return run(RunRequest{}).skipped;
}
