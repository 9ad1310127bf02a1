// Fault injection on the link out of one NIC (rnic_sim.h, "Link faults";
// docs/platform.md): each frame the NIC sends is judged once, by a rule or
// by a seeded random draw, and then passed, dropped, sent twice, corrupted,
// delayed or reordered.
//
// The model owns the frames it holds back and hands them to the wire in
// wire order through release(): the fabric calls it every cycle something
// is due (next_release()), so a held frame leaves on time even when the NIC
// sends nothing more. The wire behind it (a Link in this process, a UDP
// socket out of it) only ever sees frames in the order they are to arrive,
// at non-decreasing cycles, which is what Link's FIFO needs.
//
// Delay keeps order: a delayed frame holds back the frames sent after it,
// as a stalled wire would; only reorder changes the order.
//
// Deterministic: the draws come from splitmix64 seeded with the
// configuration's seed and the NIC's index, one draw per frame judged (and
// one more for a corrupted frame's byte), so a seed gives the same faults
// for the same frame sequence on every run. No SystemC here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rnic_sim.h"

class LinkFaults {
public:
    static constexpr uint64_t kNever = UINT64_MAX;
    // What a zero delay_cycles / reorder_cycles stands for: ten link
    // latencies at the default latency.
    static constexpr uint32_t kDefaultDelayCycles = 1000;
    static constexpr uint32_t kDefaultReorderCycles = 1000;
    // As RNIC_LINK_LATENCY's bound: 4 s of simulated time.
    static constexpr uint32_t kMaxCycles = 1000000000;

    using Emit = std::function<void(std::vector<uint8_t> &&)>;

    explicit LinkFaults(unsigned nic) : nic_(nic) {}

    // Empty when the configuration is acceptable, else what is wrong with it.
    static std::string check(const rnic_sim_link_faults &f);
    // A new configuration (nullptr: none): counters, rule and draws start
    // over. Frames already held are kept and still leave in order.
    void configure(const rnic_sim_link_faults *f);

    // Nothing configured and nothing held: frames may bypass the model.
    bool bypass() const { return !configured_ && queue_.empty() && !reorder_; }
    // A frame the NIC finished sending in `cycle`.
    void submit(std::vector<uint8_t> &&frame, uint64_t cycle);
    // Hands every frame due by `cycle` to `emit`, in wire order.
    void release(uint64_t cycle, const Emit &emit);
    // The first cycle a held frame is due in; kNever when none is held.
    uint64_t next_release() const;

    rnic_sim_link_fault_stats stats() const;

    // A RoCEv2 frame over IPv4 with no IP options (its BTH at kBthOffset).
    static bool is_roce(const uint8_t *f, size_t len);
    static constexpr size_t kBthOffset = 14 + 20 + 8;

private:
    struct Held {
        std::vector<uint8_t> bytes;
        uint64_t at;   // due in this cycle (the reorder slot: its deadline)
    };

    uint64_t draw();
    int judge(const std::vector<uint8_t> &f);
    bool corrupt(std::vector<uint8_t> &f);
    void enqueue(std::vector<uint8_t> &&f, uint64_t at);

    unsigned nic_;
    bool configured_ = false;
    rnic_sim_link_faults cfg_{};
    uint64_t rng_ = 0;
    uint64_t rule_seen_ = 0;   // frames the rule's filter matched
    rnic_sim_link_fault_stats st_{};
    std::deque<Held> queue_;      // in wire order; the front leaves once due
    std::optional<Held> reorder_; // waits for the next frame sent, or its deadline
};
