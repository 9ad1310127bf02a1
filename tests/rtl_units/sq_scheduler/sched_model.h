// A reference model of the send-queue scheduler's rules, written from the
// header comment of rtl/rnic_sq_scheduler.sv (and rnic.toml's QP_FLAGS and
// MUTANT), not from its code. Per QP, with "in flight" the WQEs from done
// (the oldest not completed) up to sq_ci (the next to start), mod 2^16:
//   ready      (a pick may start its next WQE) when all of: the QP is in RTS;
//              it is not held by a barrier fence; a WQE is posted (sq_ci !=
//              sq_pi); fewer than MAX_RD_ATOMIC are in flight; it is not a
//              READ over the READ limit waiting for the oldest to complete
//              (rd_hold while done is still hold_done); and no BIND in
//              flight is uncommitted (bind_wait) -- the bind fence, which
//              the mutant NO_BIND_FENCE, and only it, lifts; and it is not
//              waiting out an RNR NAK's delay (rnr_wait; no mutant lifts
//              that). Or: the QP is in RTS, not in rnr_wait, and has a WQE
//              paused between its packets (paused: rnic_requester stopped
//              the WQE before sq_ci for a waiting frame); the rest of a
//              started WQE waits for none of the holds above, which all
//              concern later WQEs (a fence, the window, a READ hold, a BIND
//              fence, nothing more posted), but the RNR delay and the state
//              still hold it. A retransmission due is none of these: a QP
//              can be ready and due at once (the engine takes the retry
//              first);
//   bind due   the QP is in RTS and its oldest WQE in flight is a BIND (the
//              opcode in slot done mod MAX_RD_ATOMIC);
//   retry      the QP is in RTS and its retransmission is due (retry_due,
//              from rnic_ack_timer); the header names nothing else, so
//              nothing that holds a pick holds it (fences, READ holds,
//              nothing posted, rnr_wait: an RNR delay that has passed is
//              what makes a QP still in rnr_wait due), nor the mutant;
//   has flush  the QP is in ERROR and still has WQEs in flight or posted,
//              or receive WQEs posted (rq_ci != rq_pi).
// Each kind (pick, bind, retry, flush) is found round-robin: the first QP
// with it in the order rr, rr + 1, ... (mod NUM_QP), where rr is the QP
// after the last one picked for a new WQE: it moves to pick_q + 1 when the
// engine takes a pick (advance), and only then; it is 0 after reset.
// The READ limit of cur: QP_FLAGS.MAX_RD, 0 meaning 1, above MAX_RD_ATOMIC
// meaning MAX_RD_ATOMIC; rd_at_limit when the READs among cur's WQEs in
// flight number at least that.
#ifndef SCHED_MODEL_H
#define SCHED_MODEL_H

#include <cstdint>

#include "rnic_hw.h"

constexpr unsigned kNumQp = RNIC_UNIT_NUM_QP;   // the unit verilated at this size (CMakeLists.txt)
constexpr unsigned kMaxRd = RNIC_MAX_RD_ATOMIC;

// One QP's context fields, as the engine hands them to the scheduler.
struct QpCtx {
    unsigned state = RNIC_QP_STATE_RESET;
    bool fenced = false;
    bool bind_wait = false;
    bool rd_hold = false;
    bool rnr_wait = false;             // waiting out an RNR NAK's delay
    bool paused = false;               // the WQE before sq_ci has packets left to send (rnic_requester)
    bool retry_due = false;            // its retransmission is due (rnic_ack_timer)
    uint16_t hold_done = 0;
    uint16_t sq_pi = 0, sq_ci = 0, done = 0;
    uint16_t rq_pi = 0, rq_ci = 0;
    uint8_t flags = 0;                 // QP_FLAGS
    uint8_t op[kMaxRd] = {};           // opcode of the WQE in flight at ring index i, in slot i mod MAX_RD_ATOMIC
};

struct SchedIn {
    unsigned mutant = RNIC_MUTANT_NONE;
    QpCtx qp[kNumQp];
    unsigned cur = 0;
    bool advance = false;
};

struct SchedOut {
    bool pick_any = false, bind_any = false, retry_any = false, flush_any = false;
    unsigned pick_q = 0, bind_q = 0, retry_q = 0, flush_q = 0;   // meaningful with their *_any
    bool rd_at_limit = false;
};

class SchedModel {
public:
    void reset() { rr_ = 0; }
    SchedOut eval(const SchedIn &in) const;
    // The clock edge: the pointer moves past a pick the engine takes.
    void edge(const SchedIn &in);
    unsigned rr() const { return rr_; }

    static uint16_t in_flight(const QpCtx &q) { return static_cast<uint16_t>(q.sq_ci - q.done); }
    static bool ready(const QpCtx &q, unsigned mutant);
    static bool bind_due(const QpCtx &q);
    static bool retry(const QpCtx &q);
    static bool has_flush(const QpCtx &q);
    static unsigned rd_limit(uint8_t flags);
    static unsigned reads_in_flight(const QpCtx &q);

private:
    unsigned rr_ = 0;
};

#endif
