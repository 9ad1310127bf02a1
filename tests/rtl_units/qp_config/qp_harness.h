// Runs the Verilated rnic_qp_config beside the model of its contract
// (qp_model.h), one clock cycle at a time. In every cycle every output is
// compared with the model twice: before the edge (what the unit shows for
// the state the writes are judged on) and after it with the same inputs
// (the writes landed):
//   db_ok                        whenever db_valid is high (the only time
//                                the contract gives it a meaning), against
//                                the doorbell rule on the state of that
//                                moment; when the rule needs a ring size or
//                                a producer index the model does not know,
//                                the unit's answer is taken and counted
//                                (QpStats::db_learned);
//   cur_*, pq_*, nxt_*, sel_*    the QP each port names, every field the
//                                model knows (configuration, flags and path
//                                MTU after an INIT, peer after an RTS,
//                                producer indices after an INIT or an
//                                accepted doorbell; state and error always);
//   look_cfg                     each look's QP: its state always, its
//                                producer indices when known. The test names
//                                the looks' QPs or the harness picks them
//                                (choose_looks: every QP at every look over
//                                time, the QPs written this cycle and the
//                                one before, two looks at one QP).
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
    uint8_t cur_flags = 0;
    unsigned cur_log_mtu = 0;
    unsigned cur_state = 0;
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
    // Look l: the QP on look_qp (as driven) and its row on look_cfg.
    struct Look {
        unsigned qp = 0, state = 0;
        uint16_t sq_pi = 0, rq_pi = 0;
    } look[kLooks];
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
    uint64_t look_seen[kLooks][kNumQp] = {};   // cycles look l was at QP q
    uint64_t look_written = 0;          // looks at a QP written in their cycle
    uint64_t look_repeated = 0;         // cycles with two looks at one QP
    uint64_t look_pi_unknown = 0;       // look indices not compared (unknown to the model)
};

class QpHarness {
public:
    explicit QpHarness(uint64_t seed);
    ~QpHarness();
    QpHarness(const QpHarness &) = delete;
    QpHarness &operator=(const QpHarness &) = delete;

    // Two cycles of rst_n low (junk, valid writes on every port), model reset.
    void reset();
    // One cycle with `in` on the ports (the looks the harness's unless
    // in.look_given); returns what the unit showed before the edge (checked
    // against the model before and after the edge), QpOut::look naming the
    // looks' QPs.
    QpOut cycle(const QpIn &in);
    // What the unit shows for `in` with no edge (checked too).
    QpOut peek(const QpIn &in);
    // peek() with every port and every look at QP q and no writes: q as the
    // unit shows it.
    QpOut look(unsigned q);

    const QpModel &model() const { return model_; }
    const QpStats &stats() const { return stats_; }
    uint64_t now() const { return stats_.cycles; }
    Rng &rng() { return rng_; }

private:
    // The looks' QPs when the test names none (in.look_given false).
    void choose_looks(QpIn &in);
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
    Rng look_rng_;              // the looks' own: the tests' draws stay as they were
    unsigned sweep_ = 0;        // the QP of the sweeping look
    unsigned wrote_[3] = {};    // the QPs written in the last cycle (cmd, db, err) ...
    bool wrote_valid_[3] = {};  // ... where one was
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_qp_config> dut_;
    QpModel model_;
    QpStats stats_;
    unsigned reports_ = 0;
};

#endif
