#include "runtime.h"

#include "env.h"
#include "link_fault_spec.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

// Set while this thread runs the fabric: a hook calling back into the API
// must be refused, not deadlock on the lock its own thread holds.
thread_local bool t_in_simulation = false;

struct SimulationScope {
    SimulationScope() { t_in_simulation = true; }
    ~SimulationScope() { t_in_simulation = false; }
};

uint64_t wall_ns() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

// Cycles the simulation thread runs between two looks at the world (other
// threads' deadlines, sockets): 16 us of NIC time.
constexpr uint64_t kSliceCycles = 4096;
// Free-running waits look again at least this often (a missed wake-up costs
// this much, never a hang).
constexpr auto kWaitRecheck = std::chrono::milliseconds(50);
// The sleeping simulation thread looks again at least this often (a lost
// wake-up costs a second, never the process).
constexpr int kSleepMaxMs = 1000;

// How long the simulation thread may sleep when the fabric's next event is
// `cycles` ahead: the real time those cycles take, rounded up to poll()'s
// whole milliseconds (waking early would only clock a cycle and sleep
// again; late is harmless: the jump stops at the event), 1 to kSleepMaxMs.
int sleep_ms(uint64_t cycles) {
    constexpr uint64_t kCyclesPerMs = 1000000 / Fabric::kPeriodNs;
    const uint64_t ms = cycles / kCyclesPerMs + (cycles % kCyclesPerMs != 0);
    return static_cast<int>(std::clamp<uint64_t>(ms, 1, kSleepMaxMs));
}

// What the environment says about the fabric (docs/platform.md, "Options"),
// read at the first open. A bad value refuses the open instead of giving a
// fabric that is not the one asked for.
struct Settings {
    int choice = static_cast<int>(Runtime::Choice::automatic);
    int skip = 1;
    uint64_t nics = 2;
    uint64_t latency = 100;
    uint64_t port_base = 24790;
    int coherency = RNIC_SIM_COHERENT;
    int log = 0;
    std::string trace, wave_dir, pcap;
    std::vector<LinkFaultGroup> faults;
};

// RNIC_LINK_FAULTS has parts of its own: the message adds which part is wrong.
bool read_faults(Settings *s, std::string *error) {
    std::string why;
    const bool ok = Env::read(
        "RNIC_LINK_FAULTS", kLinkFaultSyntax,
        [&](const std::string &v) { return parse_link_faults(v, static_cast<unsigned>(s->nics), &s->faults, &why); },
        error);
    if (!ok)
        *error += " (" + why + ")";
    return ok;
}

// The first bad value stops the reading: its message is the open's one line.
bool read_settings(Settings *s, std::string *error) {
    using C = Runtime::Choice;
    Env::text("RNIC_TRACE", &s->trace);
    Env::text("RNIC_WAVE_DIR", &s->wave_dir);
    Env::text("RNIC_PCAP", &s->pcap);
    return Env::word("RNIC_SIM_MODE",
                     {{"auto", static_cast<int>(C::automatic)}, {"lockstep", static_cast<int>(C::lockstep)},
                      {"freerun", static_cast<int>(C::freerun)}, {"free-running", static_cast<int>(C::freerun)}},
                     &s->choice, error) &&
           Env::word("RNIC_SIM_SKIP", {{"0", 0}, {"1", 1}}, &s->skip, error) &&
           Env::word("RNIC_SIM_LOG", {{"0", 0}, {"1", 1}}, &s->log, error) &&
           // The NICs' interrupt lines are bits of a 32-bit mask, and the C
           // ABI keeps 16 handles.
           Env::number("RNIC_SIM_NICS", 1, 16, &s->nics, error) &&
           // A link holds latency x 8 bytes in flight; a billion cycles (4 s)
           // is already far past any link worth simulating.
           Env::number("RNIC_LINK_LATENCY", 1, 1000000000, &s->latency, error) &&
           Env::number("RNIC_LINK_PORT_BASE", 1, 65535, &s->port_base, error) &&
           Env::word("RNIC_HOST_COHERENCY", {{"coherent", RNIC_SIM_COHERENT}, {"noncoherent", RNIC_SIM_NONCOHERENT}},
                     &s->coherency, error) &&
           // After RNIC_SIM_NICS: its nic= names a NIC of the fabric.
           read_faults(s, error);
}

// A relative trace or capture name: under RNIC_WAVE_DIR, else the working
// directory, as any program's output file (an installed library has no
// tree of its own to write into).
std::string output_path(const Settings &s, const std::string &p) {
    if (p.empty() || p[0] == '/' || s.wave_dir.empty())
        return p;
    return s.wave_dir + "/" + p;
}

std::string trace_path(const Settings &s) { return output_path(s, s.trace); }

// The link endpoints of NIC i: given, else RNIC<i>_LINK_LOCAL / _PEER, else
// 127.0.0.1 at the port base + the NIC's index, so NIC 2k and 2k+1 opened in
// two processes of one machine find each other.
bool endpoint(const std::string &given, const char *env_suffix, unsigned nic, unsigned port_nic, uint64_t port_base,
              sockaddr_in *out, std::string *error) {
    if (!given.empty())
        return UdpPort::parse_address(given, out, error);
    bool from_env = false;
    const std::string name = "RNIC" + std::to_string(nic) + env_suffix;
    if (!Env::read(
            name, "host:port (an IPv4 address or host name, a port from 1 to 65535)",
            [&](const std::string &s) { return from_env = UdpPort::parse_address(s, out, nullptr); }, error))
        return false;
    if (from_env)
        return true;
    if (port_base + port_nic > 65535) {
        *error = "RNIC_LINK_PORT_BASE=" + std::to_string(port_base) + " leaves no port for rnic" + std::to_string(port_nic);
        return false;
    }
    return UdpPort::parse_address("127.0.0.1:" + std::to_string(port_base + port_nic), out, error);
}

Runtime *g_runtime;

void at_exit() {
    if (g_runtime)
        g_runtime->shutdown();
}

}  // namespace

Runtime &Runtime::get() {
    // Never destroyed: at exit SystemC's and Verilator's statics may go first.
    static Runtime *rt = [] {
        g_runtime = new Runtime();
        std::atexit(at_exit);
        return g_runtime;
    }();
    return *rt;
}

bool Runtime::in_simulation() { return t_in_simulation; }

Runtime::Runtime() {
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

// ------------------------------------------------------------------ access

Runtime::Access::Access(Runtime &rt) : rt_(rt) {
    if (t_in_simulation) {
        static bool warned = false;
        if (!warned)
            std::fprintf(stderr, "rnic_sim: a hook called back into the simulation: refused\n");
        warned = true;
        return;
    }
    rt_.waiting_.fetch_add(1, std::memory_order_relaxed);
    lk_ = std::unique_lock<std::mutex>(rt_.mu_);
    rt_.waiting_.fetch_sub(1, std::memory_order_relaxed);
    ok_ = true;
    rt_.note_thread();
    if (rt_.sleeping_)
        rt_.catch_up();
}

Runtime::Access::~Access() {
    if (!ok_)
        return;
    if (rt_.fabric_)
        rt_.publish();
    if (rt_.sleeping_) {
        const uint64_t until = rt_.fabric_->quiet_until();
        if (until > rt_.fabric_->cycle() && until >= rt_.sleep_until_) {
            // Still nothing to do before the event the sleeper waits for:
            // real time counts on from here.
            rt_.idle_cycle_ = rt_.fabric_->cycle();
            rt_.idle_wall_ns_ = wall_ns();
            rt_.sleep_until_ = until;
            rt_.set_sleeping(true);
        } else {
            // The call gave the NICs work (a doorbell), the event is due
            // (the catch-up reached it), or an earlier one came: the
            // simulation thread takes it from here.
            rt_.set_sleeping(false);
            const uint64_t one = 1;
            (void)!write(rt_.wake_fd_, &one, sizeof(one));
        }
    }
    lk_.unlock();
    if (rt_.waiting_.load(std::memory_order_relaxed) == 0)
        rt_.handover_.notify_one();
}

void Runtime::note_thread() {
    const std::thread::id me = std::this_thread::get_id();
    if (!first_seen_) {
        first_thread_ = me;
        first_seen_ = true;
    } else if (me != first_thread_ && choice_ == Choice::automatic && fabric_ && !freerun_) {
        go_freerun();
    }
}

// ------------------------------------------------------------------- build

bool Runtime::build(Choice choice, std::string *error) {
    Settings s;
    if (!read_settings(&s, error))
        return false;
    choice_ = choice != Choice::automatic ? choice : static_cast<Choice>(s.choice);
    skip_ = s.skip != 0;
    port_base_ = s.port_base;
    const unsigned nics = static_cast<unsigned>(s.nics);
    fabric_ = std::make_unique<Fabric>("fabric", nics, s.latency, trace_path(s));
    fabric_->set_log_events(s.log != 0);
    for (unsigned i = 0; i < nics; ++i)
        fabric_->memory(i).set_default_coherency(s.coherency);
    for (const LinkFaultGroup &g : s.faults)
        for (unsigned i = 0; i < nics; ++i)
            if (g.nic < 0 || static_cast<unsigned>(g.nic) == i)
                fabric_->set_faults(i, &g.faults);
    if (!s.pcap.empty())
        fabric_->open_pcap(output_path(s, s.pcap));
    fabric_->start();
    if (choice_ == Choice::lockstep) {
        // The whole fabric in this process, reset together: cycle 6 after
        // the first open, as every lockstep program has always seen it.
        fabric_->activate_all_local();
        SimulationScope s;
        fabric_->run(RunRequest{Fabric::kResetCycles + 2});
        publish();
    }
    return true;
}

int Runtime::open(unsigned index, Choice choice, const std::string &link_local, const std::string &link_peer,
                  std::string *error) {
    Access a(*this);
    if (!a.ok())
        return -1;
    if (!fabric_) {
        if (!build(choice, error))
            return -3;
    } else if ((choice == Choice::lockstep && (freerun_ || choice_ == Choice::freerun)) ||
               (choice == Choice::freerun && choice_ == Choice::lockstep)) {
        *error = std::string("the simulation already runs ") + (freerun_ ? "free-running" : "in lockstep") +
                 ": a process has one mode";
        return -3;
    }
    if (index >= fabric_->size())
        return -1;
    if (choice_ != Choice::lockstep && !fabric_->active(index)) {
        sockaddr_in local{}, peer{};
        const unsigned p = fabric_->peer_of(index);
        if (!endpoint(link_local, "_LINK_LOCAL", index, index, port_base_, &local, error) ||
            !endpoint(link_peer, "_LINK_PEER", index, p, port_base_, &peer, error))
            return -3;
        if (!fabric_->activate(index, local, peer, error))
            return -2;
        SimulationScope s;
        fabric_->run(RunRequest{Fabric::kResetCycles + 2});
    }
    if ((choice_ == Choice::freerun || choice == Choice::freerun) && !freerun_)
        go_freerun();
    return 0;
}

// --------------------------------------------------------------- free-run

void Runtime::go_freerun() {
    if (freerun_)
        return;
    freerun_.store(true, std::memory_order_release);
    stop_ = false;
    sim_ = std::thread(&Runtime::sim_loop, this);
}

void Runtime::set_sleeping(bool s) {
    seq_.fetch_add(1, std::memory_order_acq_rel);
    // The cycle the fabric has reached goes out with the state: a reader
    // that saw real time counted while asleep never sees less afterwards.
    cycle_pub_.store(fabric_->cycle(), std::memory_order_relaxed);
    sleeping_ = s;
    sleeping_pub_.store(s, std::memory_order_relaxed);
    idle_cycle_pub_.store(idle_cycle_, std::memory_order_relaxed);
    idle_wall_pub_.store(idle_wall_ns_, std::memory_order_relaxed);
    sleep_until_pub_.store(sleep_until_, std::memory_order_relaxed);
    seq_.fetch_add(1, std::memory_order_acq_rel);
}

void Runtime::publish() {
    cycle_pub_.store(fabric_->cycle(), std::memory_order_release);
    uint32_t levels = 0;
    for (unsigned i = 0; i < fabric_->size(); ++i)
        if (fabric_->active(i) && fabric_->dev(i).irq())
            levels |= 1u << i;
    irq_levels_.store(levels, std::memory_order_release);
    if (fabric_->take_irq_rises() && freerun_) {
        const uint64_t one = 1;
        (void)!write(event_fd_, &one, sizeof(one));
    }
    if (freerun_) {
        std::lock_guard<std::mutex> pl(progress_mu_);
        progress_.notify_all();
    }
}

// The fabric jumps to where real time is, or to its next event if that
// comes first (Fabric::skip stops there): the event's cycle is clocked, by
// whoever wakes the simulation thread next.
void Runtime::catch_up() {
    const uint64_t passed = (wall_ns() - idle_wall_ns_) / Fabric::kPeriodNs;
    if (passed > 0) {
        SimulationScope s;
        const uint64_t n = fabric_->skip(passed);
        idle_cycle_ += n;
        idle_wall_ns_ += n * Fabric::kPeriodNs;
    }
}

// Settled: nothing happens before the fabric's next event (or ever, when
// idle) unless software or a frame from another process acts, and each of
// those wakes the thread. Clocking the time up to the event instead would
// burn a core for nothing.
void Runtime::sleep_idle(std::unique_lock<std::mutex> &lk) {
    const uint64_t until = fabric_->quiet_until();
    if (until <= fabric_->cycle())
        return;   // something is due now: clock on
    idle_cycle_ = fabric_->cycle();
    idle_wall_ns_ = wall_ns();
    sleep_until_ = until;
    set_sleeping(true);
    std::vector<int> fds{wake_fd_};
    fabric_->port_fds(fds);
    std::vector<pollfd> p(fds.size());
    for (size_t i = 0; i < fds.size(); ++i)
        p[i] = pollfd{fds[i], POLLIN, 0};
    // Under the lock: once it is given up, a caller's catch_up moves idle_cycle_.
    const int ms = sleep_ms(until - idle_cycle_);
    lk.unlock();
    (void)poll(p.data(), p.size(), ms);
    lk.lock();
    uint64_t v;
    while (read(wake_fd_, &v, sizeof(v)) > 0) {
    }
    if (sleeping_) {
        catch_up();
        set_sleeping(false);
    }
    if (fabric_->has_ports())
        fabric_->poll_ports();
}

void Runtime::sim_loop() {
    std::unique_lock<std::mutex> lk(mu_);
    while (!stop_) {
        if (waiting_.load(std::memory_order_relaxed) > 0) {
            handover_.wait(lk, [&] { return waiting_.load(std::memory_order_relaxed) == 0 || stop_; });
            continue;
        }
        RunRequest r;
        r.max_cycles = kSliceCycles;
        r.stop_on_irq_rise = true;
        r.stop_when_idle = skip_;
        r.yield = &waiting_;
        RunResult res;
        {
            SimulationScope s;
            res = fabric_->run(r);
        }
        (void)fabric_->take_outside_traffic();
        publish();
        if (res.settled)
            sleep_idle(lk);
    }
}

void Runtime::shutdown() {
    {
        // Asked for like any caller: a simulation thread that never sleeps
        // (RNIC_SIM_SKIP=0) gives the lock up only to those who ask.
        waiting_.fetch_add(1, std::memory_order_relaxed);
        std::lock_guard<std::mutex> lk(mu_);
        waiting_.fetch_sub(1, std::memory_order_relaxed);
        stop_ = true;
    }
    const uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
    handover_.notify_all();
    if (sim_.joinable())
        sim_.join();
    std::lock_guard<std::mutex> lk(mu_);
    if (fabric_)
        fabric_->close_trace();
}

// ------------------------------------------------------------------- time

uint64_t Runtime::now() {
    if (!freerun_.load(std::memory_order_acquire))
        return cycle_pub_.load(std::memory_order_acquire);
    // Never less than an earlier answer (to any thread): waits subtract.
    const uint64_t t = now_freerun();
    uint64_t seen = now_floor_.load(std::memory_order_relaxed);
    while (seen < t && !now_floor_.compare_exchange_weak(seen, t, std::memory_order_relaxed)) {
    }
    return std::max(t, seen);
}

uint64_t Runtime::now_freerun() {
    for (;;) {
        // Acquire loads keep each read after the one before it, so the
        // second look at seq_ comes after the fields (a seqlock reader).
        const uint64_t s1 = seq_.load(std::memory_order_acquire);
        const bool sleeping = sleeping_pub_.load(std::memory_order_acquire);
        const uint64_t c = idle_cycle_pub_.load(std::memory_order_acquire);
        const uint64_t w = idle_wall_pub_.load(std::memory_order_acquire);
        const uint64_t until = sleep_until_pub_.load(std::memory_order_acquire);
        const uint64_t pub = cycle_pub_.load(std::memory_order_acquire);
        if ((s1 & 1u) || seq_.load(std::memory_order_acquire) != s1)
            continue;
        if (!sleeping)
            return pub;
        // Real time counts up to the fabric's next event, not past it: that
        // cycle is clocked, however late the simulation thread gets to it.
        const uint64_t t = wall_ns();
        return std::min(c + (t > w ? (t - w) / Fabric::kPeriodNs : 0), until);
    }
}

RunResult Runtime::run_locked(Access &a, RunRequest r) {
    r.yield = &waiting_;
    // Auto, with a link out of the process: idle time (and time up to the
    // next event) may end with a frame from there, so it is not skipped;
    // the process goes free-running.
    // Noticing idle time does not depend on jumping it (RNIC_SIM_SKIP=0 only
    // clocks it).
    const bool outside = choice_ == Choice::automatic && fabric_->has_ports();
    if (!skip_)
        r.skip_idle = false;
    if (outside) {
        r.skip_idle = false;
        r.stop_when_idle = true;
    } else if (!skip_) {
        r.stop_when_idle = false;
    }
    RunResult res;
    {
        SimulationScope s;
        res = fabric_->run(r);
    }
    publish();
    if (choice_ == Choice::automatic && (fabric_->take_outside_traffic() || (outside && res.settled)))
        go_freerun();
    if (res.yielded) {
        // Another thread asked for the fabric: let it in, then go on.
        a.lock().unlock();
        handover_.notify_one();
        while (waiting_.load(std::memory_order_relaxed) > 0)
            std::this_thread::yield();
        waiting_.fetch_add(1, std::memory_order_relaxed);
        a.lock().lock();
        waiting_.fetch_sub(1, std::memory_order_relaxed);
        if (sleeping_)
            catch_up();
    }
    return res;
}

uint64_t Runtime::wait_irq(uint32_t mask, uint64_t max_cycles) {
    uint64_t start;
    {
        Access a(*this);
        if (!a.ok() || !fabric_)
            return 0;
        start = fabric_->cycle();
        if (!freerun_) {
            while (!freerun_) {
                const uint64_t passed = fabric_->cycle() - start;
                if ((mask && fabric_->irq_any(mask)) || passed >= max_cycles)
                    return passed;
                RunRequest r;
                r.max_cycles = max_cycles - passed;
                r.irq_mask = mask;
                r.skip_idle = true;
                run_locked(a, r);
            }
            // Free-running from now on: the caller decides how to go on
            // waiting (it may have other things to look at than this line).
            return fabric_->cycle() - start;
        }
        if (sleeping_)
            catch_up();
        start = fabric_->cycle();
    }
    std::unique_lock<std::mutex> pl(progress_mu_);
    for (;;) {
        const uint64_t t = now();
        const uint64_t passed = t > start ? t - start : 0;
        if ((mask && (irq_levels_.load(std::memory_order_acquire) & mask)) || passed >= max_cycles)
            return passed;
        const uint64_t left_ns = (max_cycles - passed) * Fabric::kPeriodNs;
        progress_.wait_for(pl, std::min<std::chrono::nanoseconds>(std::chrono::nanoseconds(left_ns), kWaitRecheck));
    }
}

void Runtime::advance(uint64_t cycles) {
    if (t_in_simulation || cycles == 0)
        return;
    uint64_t done = 0;
    while (done < cycles) {
        const uint64_t n = wait_irq(0, cycles - done);
        done += n;
        if (n == 0 && !freerun_)
            return;   // no fabric
    }
}

void Runtime::cpu_delay(uint64_t cycles) {
    if (freerun_.load(std::memory_order_acquire))
        return;
    Access a(*this);
    if (!a.ok() || !fabric_ || freerun_)
        return;
    RunRequest r;
    r.max_cycles = cycles;
    r.skip_idle = true;
    while (r.max_cycles > 0 && !freerun_) {
        const RunResult res = run_locked(a, r);
        r.max_cycles -= std::min(r.max_cycles, res.cycles);
        if (res.cycles == 0)
            break;
    }
}

bool Runtime::quiescent() {
    Access a(*this);
    if (!a.ok() || !fabric_)
        return false;
    return fabric_->idle() && !fabric_->has_ports();
}

int Runtime::request_freerun() {
    Access a(*this);
    if (!a.ok())
        return -1;
    if (choice_ == Choice::lockstep)
        return -1;
    if (fabric_ && !freerun_)
        go_freerun();
    return 0;
}
