// A reference model of the QP context store, written from the header
// comment of rtl/rnic_qp_config.sv (and rnic.toml's QP_CMD, QP_STATE,
// DB_KIND and QP_PATH), not from its code. Per QP: the state, the error
// status, the configuration an INIT sets (rings, CQs, PZ, flags, path MTU),
// the peer an RTS sets (QPN, IP, MAC; the flags and path MTU again), and the
// send and receive producer indices.
//
// Writers, applied in this order at a clock edge, a later one overriding an
// earlier one on the same field of the same QP (the header's "in the order
// they win": command, then doorbell, then error), every condition judged on
// the QP as it was before the edge:
//   command  (cmd_valid) INIT: state INIT, error none, the configuration,
//            both producer indices 0, from any state. RTS: from INIT only;
//            state RTS, the peer, the flags and the path MTU (cmd_log_mtu,
//            4 bits stored as given). ERROR: state ERROR unless in RESET.
//            RESET: state RESET (nothing else changes). Other codes do
//            nothing.
//   doorbell (db_valid) db_kind SQ or RQ sets that producer index to the
//            value when db_ok; other kinds are not a QP's and never ok.
//            db_ok when the QP is not in RESET and, with d(x) = x - ci mod
//            2^16 (ci the engine's consumer index of that queue, db_sq_ci
//            or db_rq_ci): d(value) <= ring (1 << log of that queue) and
//            d(value) >= d(old producer index).
//   error    (err_valid) state ERROR, from any state but RESET (a QP in
//            RESET before the edge, or reset by this cycle's command, keeps
//            its state and status: software ended it); the status is taken
//            only when the QP has none (before the edge), so the first one
//            is kept until an INIT clears it. Status 0 is none: the next
//            error's is taken. With an INIT on the same QP in the same cycle
//            the INIT clears the old status first, so the error's is kept
//            (the QP is never in ERROR with none; same_cycle_priority in
//            tb_qp_config.cpp).
// rst_n: every QP RESET, error none. Nothing else is reset (the unit keeps
// only the state and whether it holds an error status in registers; the
// rest may be RAM): the model forgets the producer indices, the
// configuration and the peer (unknown from power-up, where --x-initial
// unique makes them random, and after a reset) until the next INIT (indices
// and configuration), accepted doorbell (that index) or RTS (peer) sets
// them. An unknown field is not compared, and a doorbell rule that needs an
// unknown ring size or producer index is "maybe" (the harness then takes
// the unit's answer). A QP in RESET takes no doorbell and no error, so an
// index stays unknown until INIT.
#ifndef QP_MODEL_H
#define QP_MODEL_H

#include <cstdint>

#include "rnic_hw.h"

constexpr unsigned kNumQp = RNIC_UNIT_NUM_QP;   // the unit verilated at this size (CMakeLists.txt)
constexpr unsigned kNumCq = RNIC_NUM_CQ;
static_assert((kNumQp & (kNumQp - 1)) == 0 && kNumQp >= 2, "the bench drives QP indices as all QW bits");
static_assert((kNumCq & (kNumCq - 1)) == 0 && kNumCq >= 2, "the bench drives CQ numbers as all CQW bits");

// A doorbell kind that is no one's: db_kind is 2 bits, rnic.toml names 0..2.
constexpr unsigned kDbKindUnused = RNIC_DB_KIND_CQ + 1;

// The scheduler's looks: rnic_qp_config's LOOKS at its default (the bench
// takes the unit's parameters as they are, see CMakeLists.txt).
constexpr unsigned kLooks = 5;

struct QpCmd {
    bool valid = false;
    unsigned cmd = RNIC_QP_CMD_INIT;   // RNIC_QP_CMD_*, or any 3-bit value
    unsigned sel = 0;                  // also the sel read port's QP, valid or not
    uint64_t sq_base = 0, rq_base = 0;
    unsigned sq_log = 0, rq_log = 0;   // 4 bits
    unsigned scq = 0, rcq = 0;
    uint16_t pz = 0;
    uint8_t flags = 0;
    uint32_t remote_qpn = 0;           // 24 bits
    uint32_t remote_ip = 0;
    uint64_t remote_mac = 0;           // 48 bits
    unsigned log_mtu = 0;              // 4 bits: the path MTU, log2 bytes (INIT and RTS)
};

struct QpDb {
    bool valid = false;
    unsigned kind = RNIC_DB_KIND_SQ;   // 2 bits
    unsigned index = 0;
    uint16_t value = 0;
    uint16_t sq_ci = 0, rq_ci = 0;     // the engine's consumer indices of that QP
};

struct QpErr {
    bool valid = false;
    unsigned qp = 0;
    uint8_t status = 0;
};

struct QpIn {
    QpCmd cmd;
    QpDb db;
    QpErr err;
    unsigned cur = 0, pq = 0, nxt = 0;   // read ports; sel is cmd.sel
    // The looks' QPs, when look_given; else the harness picks them
    // (QpHarness::choose_looks).
    bool look_given = false;
    unsigned look[kLooks] = {};
};

// One QP as the model knows it.
struct QpCtx {
    unsigned state = RNIC_QP_STATE_RESET;
    uint8_t err = 0;                   // 0: none
    uint16_t sq_pi = 0, rq_pi = 0;     // meaningful only when known:
    bool sq_pi_known = false;          // set by an INIT or an accepted doorbell
    bool rq_pi_known = false;
    bool cfg_known = false;            // set by an INIT
    uint64_t sq_base = 0, rq_base = 0;
    unsigned sq_log = 0, rq_log = 0;
    unsigned scq = 0, rcq = 0;
    uint16_t pz = 0;
    uint8_t flags = 0;
    unsigned log_mtu = 0;              // as the flags: set by INIT, again by RTS
    bool peer_known = false;           // set by an RTS
    uint32_t remote_qpn = 0, remote_ip = 0;
    uint64_t remote_mac = 0;
};

enum class Verdict { No, Yes, Maybe };

// Why the model refused (or accepted) a doorbell: the first clause that
// failed, for the tallies (Unknown: a Maybe, the ring size or the old
// producer index unknown).
enum class DbWhy { Accepted, NotQpKind, Reset, PastRing, Backwards, Unknown };

class QpModel {
public:
    void reset();   // rst_n: RESET, no error status, every other field forgotten
    // db_ok for these doorbell inputs (db_valid aside) in the current state.
    Verdict db_ok(const QpDb &db, DbWhy *why = nullptr) const;
    // The clock edge. `unit_db_ok`: the unit's db_ok this cycle, used only
    // when the model's own verdict is Maybe.
    void edge(const QpIn &in, bool unit_db_ok);

    const QpCtx &qp(unsigned q) const { return q_[q % kNumQp]; }

    static uint16_t ring(unsigned log) { return static_cast<uint16_t>(1u << (log & 15u)); }

private:
    QpCtx q_[kNumQp];
};

#endif
