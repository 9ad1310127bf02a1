// Runs the Verilated rnic_qp_config beside the model of its contract
// (qp_model.h), one clock cycle at a time. In every cycle every output is
// compared with the model twice: before the edge (what the unit shows for
// the state the writes are judged on) and after it with the same inputs
// (the writes landed):
//   db_ok                        whenever db_valid is high (the only time
//                                the contract gives it a meaning), against
//                                the doorbell rule on the state of that
//                                moment; when the rule needs a ring size
//                                the model does not know, the unit's answer
//                                is taken and counted (QpStats::db_learned);
//   cur_*, pq_*, nxt_*, sel_*    the QP each port names, every field the
//                                model knows (configuration, flags and path
//                                MTU after an INIT, peer after an RTS;
//                                state, error and producer indices always);
//   all_state, all_flags,        every QP's slot (flags once known).
//   all_sq_pi, all_rq_pi
// A failing cycle is described in full (inputs and the QPs they name) for
// the first few, with the seed that replays it.
#ifndef QP_HARNESS_H
#define QP_HARNESS_H

#include <cstdint>
#include <memory>

#include "Vrnic_qp_config.h"
#include "qp_model.h"
#include "unit_bench.h"
#include "verilated.h"

// What the unit shows in one cycle.
struct QpOut {
    bool db_ok = false;
    uint64_t cur_sq_base = 0, cur_rq_base = 0;
    unsigned cur_sq_log = 0, cur_rq_log = 0, cur_scq = 0, cur_rcq = 0;
    uint16_t cur_pz = 0;
    uint32_t cur_remote_qpn = 0, cur_remote_ip = 0;
    uint64_t cur_remote_mac = 0;
    uint16_t cur_sq_pi = 0;
    unsigned cur_log_mtu = 0;
    unsigned pq_state = 0;
    uint64_t pq_sq_base = 0, pq_rq_base = 0;
    unsigned pq_sq_log = 0, pq_rq_log = 0, pq_scq = 0;
    uint16_t pq_pz = 0;
    uint8_t pq_flags = 0;
    unsigned pq_log_mtu = 0;
    uint16_t pq_rq_pi = 0;
    uint64_t nxt_sq_base = 0;
    unsigned nxt_sq_log = 0;
    unsigned sel_state = 0;
    uint8_t sel_err = 0;
    unsigned state[kNumQp] = {};
    uint8_t flags[kNumQp] = {};
    uint16_t sq_pi[kNumQp] = {}, rq_pi[kNumQp] = {};
};

struct QpStats {
    uint64_t cycles = 0;
    uint64_t resets = 0;
    uint64_t compared = 0;              // output fields compared
    uint64_t db_seen = 0;               // cycles with db_valid
    uint64_t db_accepted = 0;
    uint64_t db_refused[6] = {};        // by DbWhy (Accepted unused)
    uint64_t db_learned = 0;            // verdicts taken from the unit (ring size unknown)
    uint64_t db_at_ring = 0;            // accepted exactly a ring ahead of the consumer
    uint64_t db_equal = 0;              // accepted at the old producer index
    uint64_t db_wrapped = 0;            // accepted across 2^16 (value < old producer index)
    uint64_t cmds[8] = {};              // by command code, valid ones
    uint64_t rts_refused = 0;           // RTS not from INIT
    uint64_t error_cmd_in_reset = 0;
    uint64_t errs = 0, errs_kept = 0;   // engine errors; those that kept an earlier status
    uint64_t same_qp_cmd_db = 0, same_qp_cmd_err = 0, same_qp_db_err = 0, same_qp_all = 0;
};

class QpHarness {
public:
    explicit QpHarness(uint64_t seed);
    ~QpHarness();
    QpHarness(const QpHarness &) = delete;
    QpHarness &operator=(const QpHarness &) = delete;

    // Two cycles of rst_n low (junk, valid writes on every port), model reset.
    void reset();
    // One cycle with `in` on the ports; returns what the unit showed before
    // the edge (checked against the model before and after the edge).
    QpOut cycle(const QpIn &in);
    // What the unit shows for `in` with no edge (checked too).
    QpOut peek(const QpIn &in);
    // peek() with every port at QP q and no writes: q as the unit shows it.
    QpOut look(unsigned q);

    const QpModel &model() const { return model_; }
    const QpStats &stats() const { return stats_; }
    uint64_t now() const { return stats_.cycles; }
    Rng &rng() { return rng_; }

private:
    void drive(const QpIn &in, bool rst_n);
    QpOut read() const;
    // Compares `got` with the model for `in`; returns the unit's db_ok to
    // use where the model's verdict is Maybe.
    bool check(const QpIn &in, const QpOut &got, const char *when);
    void edge();
    void describe(const QpIn &in, const QpOut &got, const char *when);
    void tally(const QpIn &in);

    uint64_t seed_;
    Rng rng_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_qp_config> dut_;
    QpModel model_;
    QpStats stats_;
    unsigned reports_ = 0;
};

#endif
