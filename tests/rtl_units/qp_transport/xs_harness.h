// Runs the Verilated rnic_qp_transport beside the model of its contract
// (xs_model.h), one clock cycle at a time. In every cycle every output is
// compared with the model twice: before the edge (what the unit shows for
// the store the writes are judged on) and after it with the same inputs
// (the writes landed):
//   cur_xs, pq_xs                 every known field of the QP each names;
//   cur_oldest, pq_oldest         every known field of the slot
//                                 {QP, done mod MAX_RD_ATOMIC} of that QP;
//   db_sq_ci, db_rq_ci,           the QP each names (nxt_sq_ci: sq_ci less
//   nxt_sq_ci, nxt_done           paused, once both are known);
//   all_fenced ... all_rq_ci      every QP's slot of the view (all_fenced,
//                                 all_bind_wait, all_rd_hold, all_rnr_wait,
//                                 all_paused, all_hold_done, all_sq_ci,
//                                 all_done, all_rq_ci);
//   all_op                        every in-flight slot's opcode, once known.
// A failing cycle is described in full (inputs, the fields that differ) for
// the first few, with the seed that replays it.
#ifndef XS_HARNESS_H
#define XS_HARNESS_H

#include <cstdint>
#include <memory>

#include "Vrnic_qp_transport.h"
#include "unit_bench.h"
#include "verilated.h"
#include "xs_model.h"

// The ports' word counts are the layout's (xs_layout.h): a member added,
// dropped or resized in rnic_engine_types.svh fails to compile here.
static_assert(wide_words<decltype(Vrnic_qp_transport::wr_data)> == words_of(kXsBits), "wr_data is a qp_xs_t");
static_assert(wide_words<decltype(Vrnic_qp_transport::cur_xs)> == words_of(kXsBits), "cur_xs is a qp_xs_t");
static_assert(wide_words<decltype(Vrnic_qp_transport::fl_data)> == words_of(kFlBits), "fl_data is a flight_t");
static_assert(wide_words<decltype(Vrnic_qp_transport::cur_oldest)> == words_of(kFlBits), "cur_oldest is a flight_t");
static_assert(wide_words<decltype(Vrnic_qp_transport::all_op)> == words_of(8 * kSlots), "all_op: 8 bits a slot");
static_assert(wide_words<decltype(Vrnic_qp_transport::all_done)> == words_of(16 * kNumQp), "all_done: 16 bits a QP");

// What the unit shows in one cycle.
struct XsOut {
    Xs cur_xs{}, pq_xs{};
    Flight cur_oldest{}, pq_oldest{};
    uint16_t db_sq_ci = 0, db_rq_ci = 0, nxt_sq_ci = 0, nxt_done = 0;
    bool fenced[kNumQp] = {}, bind_wait[kNumQp] = {}, rd_hold[kNumQp] = {}, rnr_wait[kNumQp] = {},
         paused[kNumQp] = {};
    uint16_t hold_done[kNumQp] = {}, sq_ci[kNumQp] = {}, done[kNumQp] = {}, rq_ci[kNumQp] = {};
    uint8_t op[kSlots] = {};
};

struct XsStats {
    uint64_t cycles = 0;
    uint64_t resets = 0;
    uint64_t compared = 0;              // output fields compared
    uint64_t cmds[8] = {};              // cmd_valid cycles by code
    uint64_t rts_applied = 0, rts_ignored = 0;   // RTS with and without cmd_in_init
    uint64_t job_writes = 0;            // cycles with a write enable set
    uint64_t field_writes[kXsFields] = {};
    uint64_t same_qp_overlap = 0;       // command and job on one QP, a field both write (the job's)
    uint64_t same_qp_disjoint = 0;      // command and job on one QP, no field in common
    uint64_t same_qp_reliability = 0;   // ... a reliability field (retry_left .. nak_sent) both write
    uint64_t rts_counts = 0;            // retry counts an RTS from INIT loads, other than 0 and 7
    uint64_t fl_writes = 0;             // cycles with an in-flight write enable set
    uint64_t fl_to_oldest = 0;          // ... into a slot cur or pq shows as oldest
    uint64_t oldest_compared = 0;       // oldest views compared with a known slot
    uint64_t oldest_nonzero = 0;        // ... of which at done mod MAX_RD_ATOMIC != 0
    uint64_t nxt_paused = 0;            // nxt_sq_ci compared for a paused QP (sq_ci - 1)
    uint64_t init_paused = 0;           // INIT on a QP with a paused WQE
};

class XsHarness {
public:
    explicit XsHarness(uint64_t seed);
    ~XsHarness();
    XsHarness(const XsHarness &) = delete;
    XsHarness &operator=(const XsHarness &) = delete;

    // `cycles` cycles of rst_n low, model reset. On the write ports: junk
    // (a command, every enable at random), or `during` if given.
    void reset(unsigned cycles = 2, const XsIn *during = nullptr);
    // One cycle with `in` on the ports; returns what the unit showed before
    // the edge (checked against the model before and after the edge).
    XsOut cycle(const XsIn &in);
    // What the unit shows for `in` with no edge (checked too).
    XsOut peek(const XsIn &in);
    // peek() with every read port at QP q and no writes.
    XsOut look(unsigned q);
    // cur's two struct ports as the unit drives them (as of the last
    // evaluation), for the layout test.
    VlWide<words_of(kXsBits)> raw_cur_xs() const;
    VlWide<words_of(kFlBits)> raw_cur_oldest() const;

    const XsModel &model() const { return model_; }
    const XsStats &stats() const { return stats_; }
    uint64_t now() const { return stats_.cycles; }
    Rng &rng() { return rng_; }
    uint64_t seed() const { return seed_; }

private:
    void drive(const XsIn &in, bool rst_n);
    XsOut read() const;
    void check(const XsIn &in, const XsOut &got, const char *when);
    void edge();
    void describe(const XsIn &in, const char *when);
    void tally(const XsIn &in);

    uint64_t seed_;
    Rng rng_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_qp_transport> dut_;
    XsModel model_;
    XsStats stats_;
    unsigned reports_ = 0;
};

#endif
