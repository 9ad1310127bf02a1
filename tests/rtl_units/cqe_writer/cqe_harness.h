// Runs the Verilated rnic_cqe_writer beside the CQ model (cq_model.h), one
// clock cycle at a time, and checks every output in every cycle:
//   before the edge (combinational): db_ok for the doorbell driven (or, in a
//   cycle without one, for a probe index and value the harness picks, so the
//   model's pi and ci of one CQ are checked each cycle); cqe_done,
//   cqe_overflow, cqe_last_beat and the beat (w_valid, w_addr, w_len, w_tag,
//   w_data, w_last) against where the request is in its contract: first
//   cycle refused (done && overflow), or checked with its first beat
//   offered; CQE_WORDS beats each held until w_ready; done with the last
//   beat taken;
//   after the edge (registered): intr_set, fault, fault_addr against the
//   write completion of the cycle before.
// Each CQE written is decoded with rnic_hw.h's RNIC_GET and compared field by
// field, and a host view of every ring checks that no slot receives a second
// CQE before a doorbell has freed it.
#ifndef CQE_HARNESS_H
#define CQE_HARNESS_H

#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <vector>

#include "Vrnic_cqe_writer.h"
#include "cq_model.h"
#include "verilated.h"

// What the bench drives in one cycle besides the request (request()).
// The register block never sends a CQ command and a doorbell in one cycle
// (one BAR write a cycle), and software never commands a CQ the writer is
// writing to: the harness refuses both.
struct CqeIn {
    bool cmd = false;
    unsigned cmd_op = RNIC_CQ_CMD_CREATE;
    unsigned cmd_sel = 0;
    uint64_t cmd_base = 0;
    unsigned cmd_log = 1;
    bool db = false;            // db_valid; without it db_index / db_value are a probe:
    bool db_probe = false;      // these below if set, else one the harness picks
    uint32_t db_index = 0;      // 16 bits wide on the port
    uint16_t db_value = 0;
    bool w_ready = true;
    bool cpl = false;           // a write completion of a CQE burst (tag bit 7)
    unsigned cpl_cq = 0;
    bool cpl_err = false;
};

struct CqeOutcome {
    CqeFields req;
    bool refused = false;
    uint64_t first = 0;         // the cycle cqe_req was first high
    uint64_t done = 0;          // the cycle of cqe_done
    unsigned stalls = 0;        // beat cycles with w_ready low
    uint64_t addr = 0;          // written: the burst's address
    uint64_t words[RNIC_CQE_WORDS] = {};  // written: the beats the RTL sent
    uint64_t cycles() const { return done - first + 1; }
};

struct CqeStats {
    uint64_t cycles = 0;
    uint64_t written = 0;
    uint64_t phase0 = 0;        // CQEs written with phase 0 (second, fourth... pass)
    uint64_t refused_missing = 0;
    uint64_t refused_full = 0;
    uint64_t db_accepted = 0;
    uint64_t db_refused = 0;
    uint64_t probes = 0;
    uint64_t commands = 0;
    uint64_t interrupts = 0;
    uint64_t faults = 0;
    uint64_t stall_cycles = 0;
};

class CqeHarness {
public:
    explicit CqeHarness(uint32_t seed);
    ~CqeHarness();
    CqeHarness(const CqeHarness &) = delete;
    CqeHarness &operator=(const CqeHarness &) = delete;

    void reset();                            // two cycles of rst_n low, model cleared
    void request(const CqeFields &f);        // cqe_req from the next cycle until cqe_done
    bool busy() const { return ph_ != Phase::None; }
    unsigned busy_cq() const { return req_.cq; }
    void cycle(const CqeIn &in);
    void idle(unsigned n);
    // Runs the pending request to its cqe_done, w_ready low in stall_pct % of
    // the cycles, and returns how it ended.
    CqeOutcome finish(unsigned stall_pct = 0);
    // request() then finish().
    CqeOutcome post(const CqeFields &f, unsigned stall_pct = 0);

    const CqModel &model() const { return model_; }
    uint64_t now() const { return stats_.cycles; }
    const std::vector<CqeOutcome> &outcomes() const { return outcomes_; }
    // The CQ of each CQE burst written whose write completion the bench has
    // not returned yet, oldest first (the DMA answers in order).
    std::deque<unsigned> &bursts() { return bursts_; }
    // Outputs as the last cycle left them.
    bool db_ok() const { return db_ok_; }
    // The one CQ whose bit of intr_set is set, kNoIntr if none is, kManyIntr
    // if more than one is. intr_set is NUM_CQ bits wide: whatever the width,
    // a cycle raises at most one interrupt, so this says all there is.
    static constexpr int kNoIntr = -1;
    static constexpr int kManyIntr = -2;
    int intr_cq() const;
    bool fault() const { return dut_->fault; }
    uint32_t fault_addr() const { return dut_->fault_addr; }
    const CqeStats &stats() const { return stats_; }
    std::mt19937 &rng() { return rng_; }
    uint32_t seed() const { return seed_; }

private:
    enum class Phase { None, First, Beats };

    void drive(const CqeIn &in, uint32_t db_index, uint16_t db_value);
    void pick_probe(uint32_t &index, uint16_t &value);
    void check_beat();
    void burst_written();
    void context(const CqeIn &in, uint32_t db_index, uint16_t db_value);

    uint32_t seed_;
    std::mt19937 rng_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_cqe_writer> dut_;
    CqModel model_;
    CqeStats stats_;
    std::vector<CqeOutcome> outcomes_;
    std::deque<unsigned> bursts_;

    Phase ph_ = Phase::None;
    CqeFields req_;
    CqeOutcome cur_;                         // the request under way
    unsigned beat_ = 0;
    uint64_t expect_words_[RNIC_CQE_WORDS] = {};
    uint64_t expect_addr_ = 0;

    bool db_ok_ = false;
    bool fault_addr_known_ = true;           // 0 after reset
    uint32_t fault_addr_ = 0;
    unsigned probe_ = 0;
    unsigned reports_ = 0;                   // failing cycles printed

    // The host's view of each ring: slots holding a CQE no doorbell has freed.
    std::vector<bool> occupied_[CqModel::kNumCq];
};

#endif
