#include "link_faults.h"

#include <utility>

namespace {

constexpr size_t kEthBytes = 14;

// RoCEv2's ICRC replaces these bytes with ones before computing (routers
// may change them: IPv4 TOS, TTL and checksum, the UDP checksum, the BTH
// byte with FECN/BECN). A flip there is no corruption a receiver has to
// notice, so corrupt() never picks them in a RoCE frame.
constexpr size_t kIcrcInvariant[] = {15, 22, 24, 25, 40, 41, 46};

bool icrc_invariant(size_t at) {
    for (const size_t m : kIcrcInvariant)
        if (at == m)
            return true;
    return false;
}

// Probabilities are compared with their sum: a tolerance keeps
// 0.1 + 0.2 + 0.7 (1.0000000000000002 in binary) acceptable.
constexpr double kSumSlack = 1e-9;

bool probability(double p) { return p >= 0.0 && p <= 1.0; }   // false for NaN too

}  // namespace

std::string LinkFaults::check(const rnic_sim_link_faults &f) {
    const std::pair<const char *, double> ps[] = {
        {"drop", f.drop}, {"dup", f.dup}, {"corrupt", f.corrupt}, {"delay", f.delay}, {"reorder", f.reorder}};
    double sum = 0;
    for (const auto &p : ps) {
        if (!probability(p.second))
            return std::string(p.first) + " is not a probability from 0 to 1";
        sum += p.second;
    }
    if (sum > 1.0 + kSumSlack)
        return "the probabilities add up to more than 1";
    if (f.delay_cycles > kMaxCycles || f.reorder_cycles > kMaxCycles)
        return "delay_cycles and reorder_cycles are at most " + std::to_string(kMaxCycles);
    if (f.rule < RNIC_SIM_FAULT_NONE || f.rule > RNIC_SIM_FAULT_REORDER)
        return "the rule is not a fault kind";
    return {};
}

void LinkFaults::configure(const rnic_sim_link_faults *f) {
    configured_ = f != nullptr;
    cfg_ = f ? *f : rnic_sim_link_faults{};
    if (cfg_.delay_cycles == 0)
        cfg_.delay_cycles = kDefaultDelayCycles;
    if (cfg_.reorder_cycles == 0)
        cfg_.reorder_cycles = kDefaultReorderCycles;
    if (cfg_.rule_count == 0)
        cfg_.rule_count = 1;
    // The NIC's index is mixed in so that one seed given to every NIC (the
    // environment's default) does not hit every link in the same frames.
    rng_ = cfg_.seed ^ (0xD1B54A32D192ED03ull * (nic_ + 1));
    rule_seen_ = 0;
    st_ = rnic_sim_link_fault_stats{};
}

// splitmix64: one 64-bit state, every value of it a full-period sequence.
uint64_t LinkFaults::draw() {
    uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

bool LinkFaults::is_roce(const uint8_t *f, size_t len) {
    return len > kBthOffset && f[12] == 0x08 && f[13] == 0x00 &&   // IPv4
           f[14] == 0x45 &&                                       // version 4, 20-byte header
           f[23] == 17 &&                                         // UDP
           (f[36] << 8 | f[37]) == 4791;                          // RoCEv2
}

int LinkFaults::judge(const std::vector<uint8_t> &f) {
    // Drawn before the rule is looked at: a frame the rule takes still uses
    // its draw, so the random faults of the others stay where they were.
    const double u = static_cast<double>(draw() >> 11) * 0x1.0p-53;
    int ruled = RNIC_SIM_FAULT_NONE;
    if (cfg_.rule != RNIC_SIM_FAULT_NONE &&
        (!cfg_.rule_by_opcode || (is_roce(f.data(), f.size()) && f[kBthOffset] == cfg_.rule_opcode))) {
        const uint64_t n = rule_seen_++;
        if (n >= cfg_.rule_frame && n - cfg_.rule_frame < cfg_.rule_count)
            ruled = cfg_.rule;
    }
    if (ruled != RNIC_SIM_FAULT_NONE)
        return ruled;
    const std::pair<int, double> ps[] = {{RNIC_SIM_FAULT_DROP, cfg_.drop},
                                         {RNIC_SIM_FAULT_DUP, cfg_.dup},
                                         {RNIC_SIM_FAULT_CORRUPT, cfg_.corrupt},
                                         {RNIC_SIM_FAULT_DELAY, cfg_.delay},
                                         {RNIC_SIM_FAULT_REORDER, cfg_.reorder}};
    double edge = 0;
    for (const auto &p : ps) {
        edge += p.second;
        if (u < edge)
            return p.first;
    }
    return RNIC_SIM_FAULT_NONE;
}

// One byte after the Ethernet header (which no check covers) XORed with a
// non-zero value: CRC-32 catches every single-byte error, so the receiver's
// ICRC check drops the frame. False if the frame has no such byte.
bool LinkFaults::corrupt(std::vector<uint8_t> &f) {
    if (f.size() <= kEthBytes)
        return false;
    const bool roce = is_roce(f.data(), f.size());
    size_t choices = f.size() - kEthBytes;
    if (roce)
        for (const size_t m : kIcrcInvariant)
            choices -= m < f.size() ? 1 : 0;
    const uint64_t r = draw();
    size_t k = static_cast<size_t>((r >> 8) % choices);
    size_t at = kEthBytes;
    for (;; ++at) {
        if (roce && icrc_invariant(at))
            continue;
        if (k == 0)
            break;
        --k;
    }
    f[at] ^= static_cast<uint8_t>(1 + (r & 0xFF) % 255);
    return true;
}

void LinkFaults::enqueue(std::vector<uint8_t> &&f, uint64_t at) { queue_.push_back(Held{std::move(f), at}); }

void LinkFaults::submit(std::vector<uint8_t> &&frame, uint64_t cycle) {
    int fate = RNIC_SIM_FAULT_NONE;
    if (configured_) {
        ++st_.seen;
        fate = judge(frame);
    }
    uint64_t at = cycle;
    switch (fate) {
    case RNIC_SIM_FAULT_DROP:
        ++st_.dropped;
        return;   // a frame held for reordering waits for one that is sent
    case RNIC_SIM_FAULT_DUP:
        ++st_.duplicated;
        enqueue(std::vector<uint8_t>(frame), at);
        break;
    case RNIC_SIM_FAULT_CORRUPT:
        if (corrupt(frame))
            ++st_.corrupted;
        break;
    case RNIC_SIM_FAULT_DELAY:
        ++st_.delayed;
        at = cycle + cfg_.delay_cycles;
        break;
    case RNIC_SIM_FAULT_REORDER:
        // One frame held at a time: with the slot taken, this frame is the
        // next one sent, the one the held frame goes after.
        if (!reorder_) {
            ++st_.reordered;
            reorder_ = Held{std::move(frame), cycle + cfg_.reorder_cycles};
            return;
        }
        break;
    default: break;
    }
    enqueue(std::move(frame), at);
    if (reorder_) {
        enqueue(std::move(reorder_->bytes), at);
        reorder_.reset();
    }
}

void LinkFaults::release(uint64_t cycle, const Emit &emit) {
    if (reorder_ && reorder_->at <= cycle) {
        enqueue(std::move(reorder_->bytes), reorder_->at);
        reorder_.reset();
    }
    while (!queue_.empty() && queue_.front().at <= cycle) {
        std::vector<uint8_t> f = std::move(queue_.front().bytes);
        queue_.pop_front();
        emit(std::move(f));
    }
}

uint64_t LinkFaults::next_release() const {
    uint64_t at = queue_.empty() ? kNever : queue_.front().at;
    if (reorder_ && reorder_->at < at)
        at = reorder_->at;
    return at;
}

rnic_sim_link_fault_stats LinkFaults::stats() const {
    rnic_sim_link_fault_stats s = st_;
    s.held = queue_.size() + (reorder_ ? 1 : 0);
    return s;
}
