// Who clocks the fabric, and when (DESIGN decisions 3, 4 and 11;
// docs/platform.md, "Time").
//
// Lockstep: time moves only inside calls. The calling thread runs the fabric
// itself: a BAR access is one cycle, a wait runs until its interrupt or its
// budget, a CPU delay (an empty poll) a few cycles. When every NIC is idle
// the time up to the fabric's next event (a held frame, a NIC's timer), or
// the rest of a budget when there is none, is jumped, not clocked. One
// thread, one program: the same cycle counts on every run.
//
// Free-running: a simulation thread clocks the NICs beside the application,
// as hardware runs beside a CPU. Calls from the application take the
// fabric's lock between two slices of the simulation thread (which gives it
// up as soon as someone asks), do their BAR access or mapping, and leave.
// While the fabric is settled (every NIC idle, nothing on a link) the
// simulation thread sleeps until a call, a frame from another process or the
// fabric's next event (a held frame's release, a NIC's timer) needs it, and
// the NICs' clock keeps real time meanwhile (one cycle per 4 ns, up to that
// event), so a timeout counted in NIC cycles is never shorter in wall-clock
// time than it says.
//
// Auto (the default) starts in lockstep and turns free-running for good when
// the program shows it needs it: a second thread calls in, a frame leaves
// for or comes from another process, or a wait would skip idle time (or
// time up to the next event) while a link leads out of the process
// (something may come from there).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fabric.h"

class Runtime {
public:
    enum class Mode { lockstep, freerun };
    enum class Choice { automatic, lockstep, freerun };

    // The process's runtime; the fabric is built by the first open().
    static Runtime &get();

    // Held by every API call while it touches the fabric: the lock, taken
    // ahead of the simulation thread, with idle time caught up first.
    // A call from inside the simulation (a hook) gets no access: ok() is false.
    class Access {
    public:
        explicit Access(Runtime &rt);
        ~Access();
        Access(const Access &) = delete;
        Access &operator=(const Access &) = delete;
        bool ok() const { return ok_; }
        std::unique_lock<std::mutex> &lock() { return lk_; }

    private:
        Runtime &rt_;
        std::unique_lock<std::mutex> lk_;
        bool ok_ = false;
    };

    // Builds the fabric on first use (from the environment, with `choice`
    // when the caller names one) and lets NIC `index` join it. 0; -1 for an
    // index outside the fabric; -2 when its link socket cannot be opened
    // (*error says why); -3 for a bad value in the environment or a bad
    // endpoint (*error names it), or a mode that contradicts the one in force.
    int open(unsigned index, Choice choice, const std::string &link_local, const std::string &link_peer,
             std::string *error);

    bool built() const { return fabric_ != nullptr; }
    Fabric &fabric() { return *fabric_; }
    Mode mode() const { return freerun_.load(std::memory_order_acquire) ? Mode::freerun : Mode::lockstep; }
    bool skips() const { return skip_; }

    // NIC cycles now; in free-running, idle time is counted up to this moment.
    uint64_t now();
    // Lockstep: runs exactly `cycles`. Free-running: returns once that many
    // have passed.
    void advance(uint64_t cycles);
    // Until one of the NICs in `mask` has its interrupt line high, or
    // `max_cycles` have passed. Returns the cycles that passed (0 if a line
    // already was high).
    uint64_t wait_irq(uint32_t mask, uint64_t max_cycles);
    // The CPU spent this long looking at memory (an empty completion poll):
    // lockstep runs it; free-running time passes by itself.
    void cpu_delay(uint64_t cycles);
    // Readable (eventfd) after an interrupt line rose in free-running.
    int event_fd() const { return event_fd_; }
    // The fabric idle (no held frame, no NIC timer armed) and nothing can
    // come from outside the process.
    bool quiescent();
    // The program asks for free-running (auto goes now); -1 if forced lockstep.
    int request_freerun();

    // Hooks run inside the simulation: true on the thread running it.
    static bool in_simulation();
    // At exit: the simulation thread stops, the trace is flushed.
    void shutdown();

private:
    Runtime();
    // False, with *error naming the variable, for a bad value in the
    // environment: no fabric is built, and the next open reads it again.
    bool build(Choice choice, std::string *error);
    void go_freerun();
    void sim_loop();
    // Sleeps while the fabric is settled: until a call or a frame wakes it,
    // or its next event is due in real time.
    void sleep_idle(std::unique_lock<std::mutex> &lk);
    // Free-running while the simulation thread sleeps: jump the fabric to
    // the cycle real time has reached, never past its next event.
    void catch_up();
    void note_thread();
    // Runs the fabric for a lockstep call (the caller holds `a`), lets other
    // threads in when they ask, and turns free-running when auto says so.
    RunResult run_locked(Access &a, RunRequest r);
    // After the fabric moved: the time, the interrupt lines and their rises
    // are told to free-running waiters and to event_fd().
    void publish();
    void set_sleeping(bool s);
    uint64_t now_freerun();

    std::mutex mu_;
    std::unique_ptr<Fabric> fabric_;
    Choice choice_ = Choice::automatic;
    bool skip_ = true;
    uint64_t port_base_ = 0;             // RNIC_LINK_PORT_BASE, once built
    std::atomic<bool> freerun_{false};
    std::atomic<int> waiting_{0};        // API calls waiting for the lock
    std::condition_variable handover_;   // the simulation thread waits here while they do
    std::mutex progress_mu_;             // free-running waits sleep on progress_ under this, not mu_
    std::condition_variable progress_;   // cycles passed, a line rose
    std::thread sim_;
    bool stop_ = false;
    int wake_fd_ = -1;                   // wakes the sleeping simulation thread
    int event_fd_ = -1;                  // tells the application an interrupt line rose
    // Free-running, while the simulation thread sleeps: real time since
    // (idle_wall_ns_) counts as idle cycles from idle_cycle_ on, up to
    // sleep_until_ (the fabric's next event; Fabric::kNoEvent: none).
    bool sleeping_ = false;
    uint64_t idle_cycle_ = 0, idle_wall_ns_ = 0;
    uint64_t sleep_until_ = Fabric::kNoEvent;
    // What now() reads without the lock: the cycle after the last run, and
    // the sleeping state above, consistent through seq_ (odd while written).
    std::atomic<uint64_t> cycle_pub_{0};
    std::atomic<uint64_t> seq_{0};
    std::atomic<bool> sleeping_pub_{false};
    std::atomic<uint64_t> idle_cycle_pub_{0}, idle_wall_pub_{0};
    std::atomic<uint64_t> sleep_until_pub_{Fabric::kNoEvent};
    std::atomic<uint32_t> irq_levels_{0};
    std::atomic<uint64_t> now_floor_{0};
    std::thread::id first_thread_;
    bool first_seen_ = false;
};
