// A reference model of the QP transport-state store, written from the
// header comment of rtl/rnic_qp_transport.sv and the field comments of
// rnic_pkg::qp_xs_t and flight_t (rtl/rnic_engine_types.svh), not from its
// code. Per QP a qp_xs_t; NUM_QP * MAX_RD_ATOMIC slots of flight_t, the
// slot of WQE index i of QP q being {q, i mod MAX_RD_ATOMIC}.
//
// Writers at a clock edge, each judged on the inputs of that cycle:
//   rst_n low   nothing the bench relies on. The header: nothing in the
//               unit is reset (each field can be a RAM); a QP leaves RESET
//               only through INIT, and RTS sets its PSNs and counts before
//               it sends. So after rst_n every field of every QP and every
//               in-flight slot is unknown, as at power-up (--x-initial
//               unique makes them random), whatever the write ports carry
//               meanwhile: a QP's fields become known again field by field,
//               through INIT and RTS or the job, a slot's through an
//               in-flight write. (The unit takes no write while rst_n is
//               low and keeps its RAM words, but rst_n makes the fields
//               INIT sets read as INIT's values; the header promises
//               none of it to a reader and no QP reads a field before
//               INIT, nor a slot before its WQE starts, so none is
//               checked.)
//   command     (cmd_valid) on cmd_sel. INIT: kInitClears (a new
//               connection: indices, holds, counters, MSN, wr_left so that
//               no WRITE continues from a previous one, and the reliability
//               state of the old one: no RNR wait, no resend under way, no
//               NAK sent, no WQE paused: a paused WQE is the one before
//               sq_ci, which INIT moves to 0) to 0, and kick_why to
//               RETRY_WHY_TIMEOUT (what the timer's retry is for); not the
//               PSNs, retry counts or acked_psn (RTS sets them) nor
//               hold_done, wr_va, wr_rkey, pause_pkts (read only under
//               rd_hold, wr_left and paused, which INIT clears).
//               RTS, only with cmd_in_init: sq_psn and rq_psn from
//               cmd_sq_psn and cmd_rq_psn, acked_psn from cmd_sq_psn (what
//               the responder will expect first), retry_left from
//               cmd_retry_cnt, rnr_left from cmd_rnr_retry. RESET: fenced
//               and bind_wait to 0 (its fence holds), nothing else. ERROR
//               and codes that are no command: nothing.
//   job         wr_qp, one write enable per field (qp_xs_we_t): each enabled
//               field takes wr_data's. It wins over the command on the same
//               QP and field; the command's other fields still change.
//   in-flight   fl_slot, one write enable per field (flight_we_t).
// Read ports, combinational: cur_xs / pq_xs the QP named; cur_oldest /
// pq_oldest the slot {QP, done mod MAX_RD_ATOMIC} of that QP (its oldest
// WQE in flight); cur_ops the op of each of cur's slots, slot j's at
// [8 j +: 8]; db_sq_ci / db_rq_ci, nxt_done; nxt_sq_ci the WQE a pick of
// nxt fetches: sq_ci, or sq_ci - 1 (mod 2^16) while paused (the paused WQE
// again); look_xs, for each of the LOOKS looks l, the sched_xs_t row of QP
// look_qp[QW l +: QW] at [XSW l +: XSW]: its sq_ci (itself, paused or
// not), done, rq_ci, hold_done, fenced, bind_wait, rd_hold, rnr_wait,
// paused, and oldest_op, the op of its slot {QP, done mod MAX_RD_ATOMIC}.
//
// A field is unknown from power-up and from every rst_n until something
// writes it; unknown fields and slots are not compared (a row's oldest_op
// needs both the QP's done and that slot's op known).
#ifndef XS_MODEL_H
#define XS_MODEL_H

#include <array>
#include <cstdint>

#include "rnic_hw.h"
#include "xs_layout.h"

constexpr unsigned kNumQp = RNIC_UNIT_NUM_QP;   // the unit verilated at this size (CMakeLists.txt)
constexpr unsigned kDepth = RNIC_MAX_RD_ATOMIC;
constexpr unsigned kSlots = kNumQp * kDepth;
static_assert((kNumQp & (kNumQp - 1)) == 0 && kNumQp >= 2, "the bench drives QP indices as all QW bits");
static_assert((kDepth & (kDepth - 1)) == 0 && kDepth >= 2, "the bench drives slots as all QW + DW bits");
constexpr unsigned log2_of(unsigned n) { return n <= 1 ? 0 : 1 + log2_of(n / 2); }
constexpr unsigned kQw = log2_of(kNumQp);   // QW: the bits of a QP index
// LOOKS: the unit's default, the one rnic_engine instantiates it with (the
// bench verilates the default; xs_harness.h checks look_xs's width).
constexpr unsigned kLooks = 5;
static_assert(kLooks * kQw <= 32, "look_qp is driven as one 32-bit word");
constexpr uint32_t kInitClears = xs_we(kSqCi) | xs_we(kRqCi) | xs_we(kDone) | xs_we(kFenced) | xs_we(kBindWait) |
                                 xs_we(kRdHold) | xs_we(kOutGot) | xs_we(kRcvGot) | xs_we(kSndOpen) |
                                 xs_we(kWrLeft) | xs_we(kMsn) | xs_we(kRnrWait) | xs_we(kRetrying) |
                                 xs_we(kNakSent) | xs_we(kPaused);
// INIT writes these too, to the spec's value (RETRY_WHY_TIMEOUT), not assumed to be 0.
constexpr uint32_t kInitSets = xs_we(kKickWhy);
constexpr uint32_t kRtsSets = xs_we(kSqPsn) | xs_we(kRqPsn) | xs_we(kAckedPsn) | xs_we(kRetryLeft) | xs_we(kRnrLeft);
constexpr uint32_t kResetCmdClears = xs_we(kFenced) | xs_we(kBindWait);

// The QP_CMD codes of cmd's 3 bits that are no command.
constexpr unsigned kNotCmds[] = {0u, 5u, 6u, 7u};
static_assert(RNIC_QP_CMD_INIT == 1 && RNIC_QP_CMD_RESET == 4, "kNotCmds assumes QP_CMD is 1..4");

struct XsCmd {
    bool valid = false;
    unsigned code = RNIC_QP_CMD_INIT;   // any 3-bit value
    unsigned sel = 0;
    bool in_init = false;
    uint32_t sq_psn = 0, rq_psn = 0;    // 24 bits
    uint32_t retry_cnt = 0, rnr_retry = 0;   // 3 bits each
};

struct XsJob {
    unsigned qp = 0;
    uint32_t we = 0;                    // qp_xs_we_t: xs_we(field) bits
    Xs data{};
};

struct FlWrite {
    unsigned slot = 0;                  // {qp, index mod MAX_RD_ATOMIC}
    uint32_t we = 0;                    // flight_we_t: fl_we(field) bits
    Flight data{};
};

struct XsIn {
    XsCmd cmd;
    XsJob job;
    FlWrite fl;
    unsigned cur = 0, pq = 0, db = 0, nxt = 0;
    // The QP each look names. Left to the harness unless looks_given: it
    // then puts them where the scheduler would look and more (xs_harness.h).
    std::array<unsigned, kLooks> look{};
    bool looks_given = false;
};

struct QpXs {
    Xs v{};
    uint32_t known = 0;                 // xs_we(field) bits
    bool has(XsField f) const { return (known & xs_we(f)) != 0; }
};

struct Slot {
    Flight v{};
    uint32_t known = 0;                 // fl_we(field) bits
    bool has(FlField f) const { return (known & fl_we(f)) != 0; }
};

// What a command does to one QP: the fields it writes and their values.
struct CmdEffect {
    uint32_t we = 0;
    Xs v{};
};
CmdEffect cmd_effect(const XsCmd &k);

class XsModel {
public:
    void power_up();   // everything unknown
    void reset();      // rst_n low: everything unknown again
    void edge(const XsIn &in);

    const QpXs &qp(unsigned q) const { return q_[q % kNumQp]; }
    const Slot &slot(unsigned s) const { return s_[s % kSlots]; }
    // The slot of q's oldest WQE in flight; false while q's done is unknown.
    bool oldest_slot(unsigned q, unsigned *s) const;

    static unsigned slot_of(unsigned q, uint32_t index) { return (q % kNumQp) * kDepth + index % kDepth; }

private:
    std::array<QpXs, kNumQp> q_{};
    std::array<Slot, kSlots> s_{};
};

#endif
