// Runs the Verilated rnic_sq_scheduler beside the model of its rules
// (sched_model.h), one clock cycle at a time. In every cycle every output
// is compared with the model twice: before the edge, and after it (the
// pointer may have moved, and the contexts may have changed at the edge):
// pick_any, bind_any, retry_any, flush_any and rd_at_limit always, pick_q /
// bind_q / retry_q / flush_q whenever their *_any is high (without it the
// engine does not read them).
//
// The unit keeps its verdicts per QP and reads a QP's row (sched_cfg_t,
// sched_xs_t) only the cycle after the QP is named in touch_qp, and the
// sweep's; so the harness keeps the contexts itself, as the engine's RAMs
// do, answers look_qp with them after every edge (look_cfg / look_xs, then
// evaluates again before reading outputs), and names in touch_qp every QP
// whose row changes at the edge that ends the cycle. A test still hands
// cycle() the contexts it wants the outputs for, as many changed as it
// likes: the harness spreads the change over staging cycles, each applying
// the changes of at most TOUCH (4) QPs at its edge and naming them in
// touch_qp (in random slots), with no advance and every output checked on
// the contexts of the moment; then the test's cycle runs on the contexts it
// gave. Staging rather than tests rewritten to change four QPs a cycle: a
// test needs no restructuring, every check it makes is about its own
// contexts, and the pointer moves only where it did before (staging never
// advances). A QP "changes" when its row does: retry_due, the flags
// and the in-flight slots other than the oldest are not in the row (the
// unit takes retry_due as a vector and cur's READ limit from cur_* ports,
// driven every cycle from the contexts of cur), so they change any cycle.
// A touch slot with no change to announce names a random QP: a read of a
// row that has not changed must change no verdict. After a reset every QP is in RESET with
// every other member of its row random, as RAMs that are not reset hold
// them: a RESET row gives no verdict whatever it holds, as the unit's reset
// leaves them all, and the sweep reads such rows until the test's first
// cycle stages its contexts over them.
//
// After every edge the harness checks what it can see of the looks: looks
// 0..3 are the previous cycle's touch_qp, slot by slot, and look 4 (the
// sweep) is tallied per QP with the longest run of cycles a QP went
// unswept (sweep_count(), max_unswept()).
//
// step() is the cycle cycle() is made of, for the tests of touch_qp itself:
// the contexts this cycle, the touches, the contexts after the edge. A
// change at an edge that touch_qp does not name is refused (a bench error)
// unless the test has said, by tolerate_stale(true), that it means to leave
// the unit's verdicts stale: then the comparisons with the model are only
// counted (stats().stale_mismatches; the test checks what it expects), and
// Verilator's error limit is raised so that the RTL's a_kept assertion,
// which fires when the sweep finds a kept verdict its row does not give,
// is counted (assert_errors()) instead of ending the program (not
// Verilated::assertOn(false), which would hide whether it fires).
//
// The bench is the engine: it raises advance only in a cycle with a pick
// (the engine's condition includes pick_any; the harness refuses
// otherwise). It watches fairness itself at every pick of a test's cycle:
// a QP ready at every pick is picked within NUM_QP picks (the unit has no
// assertion of it any more).
#ifndef SCHED_HARNESS_H
#define SCHED_HARNESS_H

#include <array>
#include <cstdint>
#include <memory>

#include "Vrnic_sq_scheduler.h"
#include "pkg_struct.h"
#include "sched_model.h"
#include "unit_bench.h"
#include "verilated.h"

constexpr unsigned kTouch = 4;             // TOUCH in rnic_sq_scheduler
constexpr unsigned kLooks = kTouch + 1;    // and the sweep, look kLooks - 1
constexpr unsigned kQw = 4;                // $clog2(NUM_QP)
static_assert((1u << kQw) == kNumQp, "the QP indices in touch_qp / look_qp are kQw bits");
static_assert(kNumQp <= 32, "sets of QPs are uint32_t masks");

// The rows' packed structs (rnic_pkg's sched_cfg_t and sched_xs_t, in
// rtl/rnic_engine_types.svh) as the bench packs them (pkg_struct.h):
// members in declaration order, the first in the most significant bits.
// sched_xs_t's table is pkg_struct.h's kSxDesc, the one the qp_transport
// bench reads the same rows with. The `layout` test checks names, order and
// widths against the generated package.
enum CfgField : unsigned { kCfgState, kCfgSqPi, kCfgRqPi, kCfgFields };
inline constexpr FieldDesc kCfgDesc[kCfgFields] = {{"state", 2}, {"sq_pi", 16}, {"rq_pi", 16}};
constexpr unsigned kCfgBits = total_bits(kCfgDesc);   // CFW in rnic_sq_scheduler (kSxBits: XSW)

using CfgRow = std::array<uint32_t, kCfgFields>;
using XsRow = std::array<uint32_t, kSxFields>;
CfgRow cfg_row(const QpCtx &q);
XsRow xs_row(const QpCtx &q);   // oldest_op: the opcode in slot done mod MAX_RD_ATOMIC
bool same_row(const QpCtx &a, const QpCtx &b);

struct SchedStats {
    uint64_t cycles = 0;             // clock edges, staging and reset ones too
    uint64_t steps = 0;              // the tests' cycles (cycle() calls)
    uint64_t staged = 0;             // staging cycles cycle() ran before them
    uint64_t spread = 0;             // changes of more QPs than one edge's touches, over several cycles
    uint64_t advances = 0;
    uint64_t pick_cycles = 0, bind_cycles = 0, retry_cycles = 0, flush_cycles = 0;
    uint64_t retry_and_pick = 0;     // cycles with a retry due and a pick, of different QPs
    uint64_t rnr_skipped = 0;        // picks with an RTS QP with work passed over for rnr_wait alone
    uint64_t at_limit = 0, under_limit = 0;
    uint64_t mutant_lifted = 0;      // picks of a QP whose bind_wait the mutant ignored
    uint64_t paused_picks = 0;       // picks of a QP with a paused WQE
    uint64_t paused_lifted = 0;      // ... that a hold would have blocked without the pause
    uint64_t wrapped_picks = 0;      // picks below the pointer (the search wrapped)
    unsigned max_passed = 0;         // most picks a ready QP waited through
    uint64_t resets = 0;
    uint64_t touches_changed[kTouch] = {};   // touch slot t naming a QP whose row changed at the edge
    uint64_t touches_spare = 0;              // a slot naming one whose row did not (a harmless read)
    uint64_t stale_checks = 0;       // comparisons made under tolerate_stale
    uint64_t stale_mismatches = 0;   // ... that differed from the model
};

class SchedHarness {
public:
    // A touch slot step() fills with a random QP.
    static constexpr int kFill = -1;
    using Touch = std::array<int, kTouch>;

    explicit SchedHarness(uint64_t seed);
    ~SchedHarness();
    SchedHarness(const SchedHarness &) = delete;
    SchedHarness &operator=(const SchedHarness &) = delete;

    // Two cycles of rst_n low (junk advance and touches); every row RESET
    // with junk in the rest; the model cleared.
    void reset();
    // One cycle of the test's with `in` on the ports (after staging cycles
    // if its rows differ from the unit's contexts); returns what the unit
    // gave before the edge (checked against the model).
    SchedOut cycle(const SchedIn &in);
    // The outputs for `in` with no edge of its own (checked too; staged
    // first like cycle()): a look before deciding advance.
    SchedOut peek(const SchedIn &in);

    // One clock cycle: `now` the contexts this cycle (their rows must be
    // the unit's contexts: a row changes only at an edge), `next` those
    // after the edge. touch_qp names touch[t] in slot t, and a random QP
    // where touch[t] is kFill, never one in `avoid` nor one whose row
    // changes at the edge. Returns the outputs before the edge; after()
    // has those after it. No stats, no fairness watch (cycle() keeps them).
    SchedOut step(const SchedIn &now, const Touch &touch, const SchedIn &next, uint32_t avoid = 0);
    const SchedOut &after() const { return after_; }

    // On: changes touch_qp does not name are allowed, the comparisons with
    // the model counted rather than checked, the unit's $errors counted.
    // Off again: the error limit back, so the next assertion stops the run.
    void tolerate_stale(bool on);
    int assert_errors() const;              // the $errors (assertions failed) since the harness was made
    // As the harness compares: every *_any, each *_q where the model's *_any is high.
    static bool same(const SchedOut &got, const SchedOut &want);

    unsigned look(unsigned l) const;        // look_qp's QP l now
    uint64_t sweep_count(unsigned q) const { return swept_[q]; }
    unsigned max_unswept() const { return max_unswept_; }   // most cycles in a row a QP went unswept

    const SchedModel &model() const { return model_; }
    const SchedStats &stats() const { return stats_; }
    uint64_t steps() const { return stats_.steps; }
    Rng &rng() { return rng_; }

private:
    void stage(const SchedIn &in);
    void drive(const SchedIn &in, bool advance, const Touch &touch);
    void answer_looks(const SchedIn &ctx);
    SchedOut read_and_check(const SchedIn &in, const char *when);
    void edge(const SchedIn &next, bool in_reset);

    uint64_t seed_;
    Rng rng_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_sq_scheduler> dut_;
    SchedModel model_;
    SchedStats stats_;
    SchedIn now_;                           // the contexts as they are now (the rows looks read)
    Touch touched_ = {};                    // touch_qp as driven this cycle
    SchedOut after_;
    bool tolerate_ = false;
    int error_limit_ = 1;                   // Verilator's, restored when tolerate_stale ends
    uint64_t swept_[kNumQp] = {};
    unsigned unswept_[kNumQp] = {};
    unsigned max_unswept_ = 0;
    unsigned passed_[kNumQp] = {};
    unsigned reports_ = 0;
};

#endif
