// Runs the Verilated rnic_qp_transport beside the model of its contract
// (xs_model.h), one clock cycle at a time. In every cycle every output is
// compared with the model twice: before the edge (what the unit shows for
// the store the writes are judged on) and after it with the same inputs
// (the writes landed):
//   cur_xs, pq_xs                 every known field of the QP each names;
//   cur_oldest, pq_oldest         every known field of the slot
//                                 {QP, done mod MAX_RD_ATOMIC} of that QP;
//   cur_ops                       each of cur's MAX_RD_ATOMIC slots' op,
//                                 once known;
//   db_sq_ci, db_rq_ci,           the QP each names (nxt_sq_ci: sq_ci less
//   nxt_sq_ci, nxt_done           paused, once both are known);
//   look_xs                       each look's row: every known field of the
//                                 QP its look_qp names, and oldest_op once
//                                 that QP's done and the slot's op are known.
// The looks are the bench's to point (XsIn::look), and unless a test names
// them the harness does, each cycle: at the QP the job writes and the QP
// the command names (after the edge their rows show the writes), at the
// QP written the cycle before (where the scheduler looks), at a sweep that
// walks every QP one a cycle, and at a random QP, a third of the time
// another look's (two looks at one QP); the roles rotate over the looks
// cycle by cycle, so each look takes each.
// A failing cycle is described in full (inputs, the fields that differ) for
// the first few, with the seed that replays it.
#ifndef XS_HARNESS_H
#define XS_HARNESS_H

#include <array>
#include <cstdint>
#include <memory>
#include <type_traits>

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
static_assert(wide_words<decltype(Vrnic_qp_transport::look_xs)> == words_of(kLooks * kSxBits),
              "look_xs: LOOKS sched_xs_t rows");
// The narrow ports the bench reads and drives as integers.
template <class T> constexpr unsigned port_bits = 8 * sizeof(std::remove_reference_t<T>);
static_assert(std::is_integral_v<std::remove_reference_t<decltype(Vrnic_qp_transport::look_qp)>> &&
                  port_bits<decltype(Vrnic_qp_transport::look_qp)> >= kLooks * kQw,
              "look_qp: LOOKS QP indices in one integer");
static_assert(std::is_integral_v<std::remove_reference_t<decltype(Vrnic_qp_transport::cur_ops)>> &&
                  port_bits<decltype(Vrnic_qp_transport::cur_ops)> >= 8 * kDepth,
              "cur_ops: 8 bits a slot in one integer");
static_assert(kNumQp <= 64, "XsStats::look_seen holds a bit a QP");

// What the unit shows in one cycle.
struct XsOut {
    Xs cur_xs{}, pq_xs{};
    Flight cur_oldest{}, pq_oldest{};
    unsigned cur = 0;                   // the QP cur named
    uint8_t cur_ops[kDepth] = {};       // slot j of cur: {cur, j}
    uint16_t db_sq_ci = 0, db_rq_ci = 0, nxt_sq_ci = 0, nxt_done = 0;
    unsigned look_qp[kLooks] = {};      // the QP each look named (the harness's choice, or the test's)
    Sched look[kLooks] = {};            // its row
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
    uint64_t look_fields = 0;           // look row fields compared with a known field
    uint64_t look_oldest = 0;           // ... of which oldest_op, with a known slot
    uint64_t look_written = 0;          // after an edge, a look at a QP that edge wrote a row field of
    uint64_t look_repeats = 0;          // cycles with two looks at one QP
    uint64_t look_seen[kLooks] = {};    // bit q: look l named QP q with a known field compared
    uint64_t cur_ops_compared = 0;      // cur_ops slots compared with a known op
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
    // peek() with every read port and every look at QP q and no writes.
    XsOut look(unsigned q);
    // Every QP's row as the looks show it, read by peeks of kLooks QPs at a
    // time (checked too) with no clock between, so one moment's picture of
    // every QP; which look reads which QP shifts with `turn`, so a test
    // that moves it on reads each QP through each look; `in`'s other ports
    // as given.
    std::array<Sched, kNumQp> rows(const XsIn &in, unsigned turn = 0);
    // The struct ports and cur_ops as the unit drives them (as of the last
    // evaluation), for the layout tests.
    VlWide<words_of(kXsBits)> raw_cur_xs() const;
    VlWide<words_of(kFlBits)> raw_cur_oldest() const;
    VlWide<words_of(kLooks * kSxBits)> raw_look_xs() const;
    uint64_t raw_cur_ops() const;

    const XsModel &model() const { return model_; }
    const XsStats &stats() const { return stats_; }
    uint64_t now() const { return stats_.cycles; }
    Rng &rng() { return rng_; }
    uint64_t seed() const { return seed_; }

private:
    // `in` with its looks pointed (the harness's policy above) unless given.
    XsIn resolve(const XsIn &in);
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
    unsigned sweep_ = 0;          // the look that walks every QP
    unsigned last_written_ = 0;   // the QP the job (or else a command) wrote at the last edge
};

#endif
