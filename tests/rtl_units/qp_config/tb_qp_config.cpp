// rnic_qp_config against its contract (the header of rtl/rnic_qp_config.sv,
// rnic.toml's QP_CMD, QP_STATE, DB_KIND and QP_PATH).
//
//   tb_rtl_qp_config TEST... | all   runs the named tests
//   tb_rtl_qp_config --list          prints every test name, one a line
//                                    (CMake registers one CTest per line)
//
// Every test runs the unit beside the model of its contract (qp_model.h),
// every output compared before and after every clock edge, the read ports
// at random QPs and the looks at QPs of the harness's choosing (qp_harness.h);
// the tests below state, by hand, what the contract says of each case:
//
//   reset_state           after power-up and after every rst_n (junk writes
//                         on every port meanwhile): every QP RESET with no
//                         error status at sel, pq and every look (the
//                         indices: reset_indices); nothing but INIT leaves
//                         RESET (RTS, the ERROR command and doorbells of
//                         every kind do nothing there, the indices stay)
//   reset_indices         the indices a QP holds after rst_n read 0 (their
//                         fresh bits), whatever their RAM words hold:
//                         a doorbell at them that passes every clause but
//                         the state is refused and writes nothing; the
//                         engine's error does not take the QP out of RESET
//                         (the doorbells stay refused); INIT clears both,
//                         nonzero ones a RESET or ERROR left (cur, pq and
//                         every look show 0)
//   init_and_rts          INIT's fields land at every port, from every
//                         state, clearing the indices and the error; RTS
//                         from INIT sets the peer, the flags and the path
//                         MTU and nothing else; RTS from RESET, RTS or
//                         ERROR does nothing;
//                         ERROR and RESET commands; codes that are no
//                         command, and a command without cmd_valid, do
//                         nothing
//   doorbell_rules        each clause at its edge, send and receive, ring
//                         sizes 1 to 2^15: exactly a ring ahead of the
//                         consumer accepted, one more refused; back behind
//                         the old index refused, equal to it accepted;
//                         every offset around both edges with the consumer
//                         just short of 2^16; indices carried across 2^16;
//                         RESET refused, INIT / RTS / ERROR accepted; the
//                         queue's own consumer index and ring size; kinds
//                         CQ and 3 never ok; without db_valid nothing
//   error_first_status_kept  the first status stays through later errors,
//                         the ERROR and RESET commands, until INIT (or
//                         rst_n); the engine's error leaves a QP in RESET
//                         alone; status 0 counts as none; other QPs' errors
//   error_status_after_reset  after power-up and after an rst_n that found a
//                         status on every QP: sel_err 0; the engine's error
//                         on a QP in RESET shows nothing; after INIT an
//                         error's status is taken, a second keeps the
//                         first; INIT clears it; an error in the cycle of an
//                         INIT keeps its own, with a status before or none
//                         (on a QP in RESET, none: the error was the old QP's)
//   same_cycle_priority   a command, a doorbell and an error on one QP in
//                         one cycle, every combination from every state:
//                         the error's state wins over the command's (but
//                         not over RESET, nor on a QP in RESET), an
//                         accepted doorbell's index over INIT's clear, the
//                         rule judged on the state before the edge; the
//                         named cases spelled out; writes to three
//                         different QPs in one cycle all land
//   read_ports            cur, pq, nxt and sel at four different QPs in one
//                         cycle, each showing its own QP (the path MTU at
//                         cur and pq, the flags at cur), and the looks at
//                         random QPs, two at one often, each showing its
//                         QP's state and indices; the ports and looks
//                         follow their index with no clock; a write shows
//                         after its edge, not before (the looks at the
//                         written QPs too)
//   path_mtu              cmd_log_mtu stored per QP: INIT loads every 4-bit
//                         value, from every state; RTS loads it from INIT
//                         only (not from RTS, ERROR or RESET); the ERROR and
//                         RESET commands, codes that are no command, a
//                         command without cmd_valid, doorbells, the engine's
//                         error and another QP's commands leave it; an RTS
//                         meeting an error in its cycle still loads it; cur
//                         and pq each show their own QP's; after rst_n an
//                         INIT loads it again
//   random_run            200,000 cycles of commands, doorbells (mostly at
//                         the rule's edges), errors and resets, often all on
//                         one QP; the figures at the end say every rule was
//                         exercised, every QP seen at every look, the looks
//                         at written QPs and repeated, and indices unknown
//                         after rst_n met
//
// Each test prints its seed; RTL_UNIT_SEED=N replays another.
#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "qp_harness.h"
#include "rnic_check.h"
#include "unit_bench.h"

namespace {

uint64_t seed(uint64_t fixed) { return unit_seed(fixed); }

constexpr unsigned kReset = RNIC_QP_STATE_RESET, kInit = RNIC_QP_STATE_INIT, kRts = RNIC_QP_STATE_RTS,
                   kError = RNIC_QP_STATE_ERROR;
constexpr unsigned kSq = RNIC_DB_KIND_SQ, kRq = RNIC_DB_KIND_RQ;
// The three codes of QP_CMD's 3 bits that are no command.
constexpr unsigned kNotCmds[] = {0u, 5u, 6u, 7u};
static_assert(RNIC_QP_CMD_INIT == 1 && RNIC_QP_CMD_RESET == 4, "kNotCmds assumes QP_CMD is 1..4");

uint16_t u16(uint32_t v) { return static_cast<uint16_t>(v); }

// No write; every read port and every field of the idle write ports random.
QpIn idle(Rng &r) {
    QpIn in;
    in.cmd.cmd = r.range(0, 7);
    in.cmd.sel = r.range(0, kNumQp - 1);
    in.cmd.sq_base = r.next();
    in.cmd.sq_log = r.range(0, 15);
    in.cmd.flags = r.byte();
    in.cmd.remote_qpn = r.u32();
    in.cmd.log_mtu = r.range(0, 15);
    in.db.kind = r.range(0, 3);
    in.db.index = r.range(0, kNumQp - 1);
    in.db.value = u16(r.u32());
    in.db.sq_ci = u16(r.u32());
    in.db.rq_ci = u16(r.u32());
    in.err.qp = r.range(0, kNumQp - 1);
    in.err.status = r.byte();
    in.cur = r.range(0, kNumQp - 1);
    in.pq = r.range(0, kNumQp - 1);
    in.nxt = r.range(0, kNumQp - 1);
    return in;
}

// A command with every field random (logs as given).
QpCmd random_cmd(Rng &r, unsigned code, unsigned q, unsigned sq_log, unsigned rq_log) {
    QpCmd k;
    k.valid = true;
    k.cmd = code;
    k.sel = q;
    k.sq_base = r.next();
    k.rq_base = r.next();
    k.sq_log = sq_log;
    k.rq_log = rq_log;
    k.scq = r.range(0, kNumCq - 1);
    k.rcq = r.range(0, kNumCq - 1);
    k.pz = u16(r.u32());
    k.flags = r.byte();
    k.remote_qpn = r.u32() & 0xFFFFFFu;
    k.remote_ip = r.u32();
    k.remote_mac = r.next() & 0xFFFFFFFFFFFFull;
    k.log_mtu = r.range(0, 15);   // a plain store: any 4 bits, not just path_log_mtu's 8..12
    return k;
}

QpOut command(QpHarness &h, const QpCmd &k) {
    QpIn in = idle(h.rng());
    in.cmd = k;
    return h.cycle(in);
}
QpCmd init(QpHarness &h, unsigned q, unsigned sq_log, unsigned rq_log) {
    const QpCmd k = random_cmd(h.rng(), RNIC_QP_CMD_INIT, q, sq_log, rq_log);
    command(h, k);
    return k;
}
QpCmd rts(QpHarness &h, unsigned q) {
    const QpCmd k = random_cmd(h.rng(), RNIC_QP_CMD_RTS, q, h.rng().range(0, 15), h.rng().range(0, 15));
    command(h, k);
    return k;
}
void simple(QpHarness &h, unsigned code, unsigned q) { command(h, random_cmd(h.rng(), code, q, 0, 0)); }

// A doorbell of `kind` on q at `value`, `ci` the consumer index of that
// queue (the other queue's random); returns db_ok.
bool doorbell(QpHarness &h, unsigned q, unsigned kind, uint16_t value, uint16_t ci) {
    QpIn in = idle(h.rng());
    in.db.valid = true;
    in.db.kind = kind;
    in.db.index = q;
    in.db.value = value;
    (kind == kRq ? in.db.rq_ci : in.db.sq_ci) = ci;
    return h.cycle(in).db_ok;
}
// The same, without a clock edge: db_ok for these inputs, nothing written.
bool probe(QpHarness &h, unsigned q, unsigned kind, uint16_t value, uint16_t ci) {
    QpIn in = idle(h.rng());
    in.db.valid = true;
    in.db.kind = kind;
    in.db.index = q;
    in.db.value = value;
    (kind == kRq ? in.db.rq_ci : in.db.sq_ci) = ci;
    return h.peek(in).db_ok;
}
void error(QpHarness &h, unsigned q, uint8_t status) {
    QpIn in = idle(h.rng());
    in.err.valid = true;
    in.err.qp = q;
    in.err.status = status;
    h.cycle(in);
}
// An index of the QP look() showed, as its first look shows it (the
// harness compares the others, and check_pis below does by hand).
uint16_t pi_of(const QpOut &o, unsigned kind) { return kind == kRq ? o.look[0].rq_pi : o.look[0].sq_pi; }

// q's configuration fields as cur, pq and nxt show them, against an INIT's.
void check_config(const QpOut &o, const QpCmd &k) {
    CHECK_EQ(o.cur_sq_base, k.sq_base);
    CHECK_EQ(o.cur_rq_base, k.rq_base);
    CHECK_EQ(o.cur_sq_log, k.sq_log);
    CHECK_EQ(o.cur_rq_log, k.rq_log);
    CHECK_EQ(o.cur_scq, k.scq);
    CHECK_EQ(o.cur_rcq, k.rcq);
    CHECK_EQ(o.cur_pz, k.pz);
    CHECK_EQ(o.pq_sq_base, k.sq_base);
    CHECK_EQ(o.pq_rq_base, k.rq_base);
    CHECK_EQ(o.pq_sq_log, k.sq_log);
    CHECK_EQ(o.pq_rq_log, k.rq_log);
    CHECK_EQ(o.pq_scq, k.scq);
    CHECK_EQ(o.pq_pz, k.pz);
    CHECK_EQ(o.nxt_sq_base, k.sq_base);
    CHECK_EQ(o.nxt_sq_log, k.sq_log);
}
void check_peer(const QpOut &o, const QpCmd &k) {
    CHECK_EQ(o.cur_remote_qpn, k.remote_qpn);
    CHECK_EQ(o.cur_remote_ip, k.remote_ip);
    CHECK_EQ(o.cur_remote_mac, k.remote_mac);
}
// What look(q) shows of q's state, error, flags and indices, every port
// and every look (all at q).
void check_state(const QpOut &o, unsigned q, unsigned state, uint8_t err) {
    CHECK_EQ(o.sel_state, state);
    CHECK_EQ(o.pq_state, state);
    for (const QpOut::Look &l : o.look) {
        CHECK_EQ(l.qp, q);
        CHECK_EQ(l.state, state);
    }
    CHECK_EQ(o.sel_err, err);
}
void check_pis(const QpOut &o, unsigned q, uint16_t sq_pi, uint16_t rq_pi) {
    CHECK_EQ(o.cur_sq_pi, sq_pi);
    CHECK_EQ(o.pq_rq_pi, rq_pi);
    for (const QpOut::Look &l : o.look) {
        CHECK_EQ(l.qp, q);
        CHECK_EQ(l.sq_pi, sq_pi);
        CHECK_EQ(l.rq_pi, rq_pi);
    }
}
// What INIT and RTS both set, against the command that set it last.
void check_flags(const QpOut &o, const QpCmd &k) {
    CHECK_EQ(o.pq_flags, k.flags);
    CHECK_EQ(o.cur_flags, k.flags);
    CHECK_EQ(o.cur_log_mtu, k.log_mtu);
    CHECK_EQ(o.pq_log_mtu, k.log_mtu);
}

// Every QP as after a reset: RESET, no error status, through sel, pq and
// every look. Not the indices: reset_indices has those.
void check_all_reset(QpHarness &h) {
    for (unsigned q = 0; q < kNumQp; q++) check_state(h.look(q), q, kReset, 0);
}

// q's indices as the unit holds them (after rst_n, or after RESET, before
// INIT), the same at cur, pq and every look.
std::pair<uint16_t, uint16_t> unknown_pis(QpHarness &h, unsigned q) {
    const QpOut o = h.look(q);
    check_pis(o, q, o.cur_sq_pi, o.pq_rq_pi);
    return {o.cur_sq_pi, o.pq_rq_pi};
}

}  // namespace

// ------------------------------------------------------------------ tests

UNIT_TEST(reset_state) {
    QpHarness h(seed(0x9C01));
    Rng &r = h.rng();
    check_all_reset(h);

    // Nothing but INIT leaves RESET: RTS, the ERROR command, doorbells of
    // every kind (reset_indices has the ones that would pass at the unit's
    // own indices); the indices stay as they were.
    for (unsigned q = 0; q < kNumQp; q++) {
        const auto [sq, rq] = unknown_pis(h, q);
        rts(h, q);
        simple(h, RNIC_QP_CMD_ERROR, q);
        simple(h, RNIC_QP_CMD_RESET, q);
        for (unsigned kind = 0; kind < 4; kind++) {
            CHECK(!doorbell(h, q, kind, 0, 0));
            CHECK(!doorbell(h, q, kind, 1, 0));
        }
        const QpOut o = h.look(q);
        check_state(o, q, kReset, 0);
        check_pis(o, q, sq, rq);
    }

    // Every QP busy (INIT, RTS, indices, errors), then rst_n, several times.
    for (int round = 0; round < 4; round++) {
        for (unsigned q = 0; q < kNumQp; q++) {
            init(h, q, 4, 4);
            if (r.percent(60))
                rts(h, q);
            CHECK(doorbell(h, q, kSq, u16(1 + q % 16), 0));
            CHECK(doorbell(h, q, kRq, u16(16 - q % 16), 0));
            if (r.percent(40))
                error(h, q, static_cast<uint8_t>(1 + q));
            else if (r.percent(30))
                simple(h, RNIC_QP_CMD_RESET, q);
        }
        for (unsigned q = 0; q < kNumQp; q++) {
            const QpOut o = h.look(q);
            CHECK(o.look[0].sq_pi != 0 && o.look[0].rq_pi != 0);
        }
        h.reset();
        check_all_reset(h);
        // And RESET holds: the doorbells that passed before are refused
        // (they would pass again, at the same index, in any other state).
        for (unsigned q = 0; q < kNumQp; q++) {
            CHECK(!doorbell(h, q, kSq, u16(1 + q % 16), 0));
            CHECK(!doorbell(h, q, kRq, u16(16 - q % 16), 0));
        }
    }
    check_all_reset(h);
}

// The indices' RAM words are not reset, but rst_n sets their fresh bits:
// after rst_n every QP's indices read 0 whatever the words hold (random from
// power-up, or the old indices). A doorbell that passes every clause but the
// state is refused, and writes nothing. INIT clears both indices, also when a
// RESET left them nonzero (INIT, doorbells, RESET first). The indices are
// read from the unit, at cur, pq and every look alike.
UNIT_TEST(reset_indices) {
    QpHarness h(seed(0x9C08));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    unsigned cleared = 0;   // nonzero indices INIT was seen to clear
    for (int round = 0; round < 4 && !unit_stop(failures); round++) {
        // Round 0 at power-up (the constructor's rst_n); the others after
        // every QP was busy, some in ERROR, some in RESET, then rst_n.
        if (round > 0) {
            for (unsigned q = 0; q < kNumQp; q++) {
                init(h, q, r.range(0, 15), r.range(0, 15));
                CHECK(doorbell(h, q, kSq, 1, 0));
                CHECK(doorbell(h, q, kRq, 1, 0));
                if (r.percent(30))
                    error(h, q, RNIC_CQE_STATUS_TRANSPORT);
                else if (r.percent(30))
                    simple(h, RNIC_QP_CMD_RESET, q);
            }
            h.reset();
        }
        check_all_reset(h);
        for (unsigned q = 0; q < kNumQp; q++) {
            const auto [sq, rq] = unknown_pis(h, q);
            CHECK_EQ(sq, 0);   // rst_n set the fresh bits
            CHECK_EQ(rq, 0);
            // At the old index with the consumer there (nothing posted),
            // and one ahead: within any ring, not behind. Refused.
            for (unsigned kind : {kSq, kRq}) {
                const uint16_t pi = kind == kSq ? sq : rq;
                CHECK(!probe(h, q, kind, pi, pi));
                CHECK(!doorbell(h, q, kind, pi, pi));
                CHECK(!doorbell(h, q, kind, u16(pi + 1), pi));
            }
            const auto [sq2, rq2] = unknown_pis(h, q);   // a refused doorbell writes nothing
            CHECK_EQ(sq2, sq);
            CHECK_EQ(rq2, rq);
            check_state(h.look(q), q, kReset, 0);
        }
        // The engine's error does not take a QP out of RESET (software ended
        // it): state and status stay, and the doorbells that would pass on
        // the kept index are still refused.
        for (unsigned q = round % 2; q < kNumQp; q += 2) {
            const auto [sq, rq] = unknown_pis(h, q);
            error(h, q, RNIC_CQE_STATUS_RNR);
            check_state(h.look(q), q, kReset, 0);
            for (unsigned kind : {kSq, kRq}) {
                const uint16_t pi = kind == kSq ? sq : rq;
                CHECK(!doorbell(h, q, kind, u16(pi + 1), pi));
            }
            check_pis(h.look(q), q, sq, rq);
        }
        // INIT clears both, in RESET or in ERROR; doorbells from 0 pass.
        // The indices are nonzero first: rst_n left them 0.
        for (unsigned q = 0; q < kNumQp; q++) {
            init(h, q, 4, 4);
            CHECK(doorbell(h, q, kSq, u16(1 + q % 16), 0));
            CHECK(doorbell(h, q, kRq, u16(16 - q % 16), 0));
            if (r.percent(50))
                error(h, q, RNIC_CQE_STATUS_TRANSPORT);
            else
                simple(h, RNIC_QP_CMD_RESET, q);
        }
        for (unsigned q = 0; q < kNumQp; q++) {
            const auto [sq, rq] = unknown_pis(h, q);
            cleared += (sq != 0) + (rq != 0);
            init(h, q, 4, 4);
            QpOut o = h.look(q);
            check_state(o, q, kInit, 0);
            check_pis(o, q, 0, 0);
            CHECK(doorbell(h, q, kSq, 16, 0));
            CHECK(!doorbell(h, q, kRq, 17, 0));
            o = h.look(q);
            check_pis(o, q, 16, 0);
        }
    }
    std::printf("reset_indices: INIT cleared %u nonzero indices\n", cleared);
    CHECK(cleared > 0);   // else the clear above proved nothing
}

UNIT_TEST(init_and_rts) {
    QpHarness h(seed(0x9C02));
    Rng &r = h.rng();
    std::vector<QpCmd> cfg(kNumQp);
    // INIT lands on every port, each QP its own fields, all ring sizes.
    for (unsigned q = 0; q < kNumQp; q++) {
        cfg[q] = init(h, q, q % 16, 15 - q % 16);
        const QpOut o = h.look(q);
        check_state(o, q, kInit, 0);
        check_config(o, cfg[q]);
        check_flags(o, cfg[q]);
        check_pis(o, q, 0, 0);
    }
    for (unsigned q = 0; q < kNumQp; q++) check_config(h.look(q), cfg[q]);   // none overwrote another

    const unsigned q = 5 % kNumQp;
    // RTS from INIT: the peer and the flags, nothing else.
    const QpCmd peer = rts(h, q);
    QpOut o = h.look(q);
    check_state(o, q, kRts, 0);
    check_peer(o, peer);
    check_flags(o, peer);
    check_config(o, cfg[q]);
    // RTS again, from RTS: nothing.
    rts(h, q);
    o = h.look(q);
    check_state(o, q, kRts, 0);
    check_peer(o, peer);
    check_flags(o, peer);
    // Codes that are no command, and INIT without cmd_valid: nothing.
    CHECK(doorbell(h, q, kSq, 3, 0));
    for (unsigned code : kNotCmds) command(h, random_cmd(r, code, q, 1, 1));
    QpCmd quiet = random_cmd(r, RNIC_QP_CMD_INIT, q, 2, 2);
    quiet.valid = false;
    command(h, quiet);
    o = h.look(q);
    check_state(o, q, kRts, 0);
    check_config(o, cfg[q]);
    check_peer(o, peer);
    check_flags(o, peer);
    check_pis(o, q, 3, 0);
    // ERROR; RTS from ERROR: nothing.
    simple(h, RNIC_QP_CMD_ERROR, q);
    rts(h, q);
    o = h.look(q);
    check_state(o, q, kError, 0);
    check_peer(o, peer);
    check_flags(o, peer);
    // The ERROR command again: still ERROR.
    simple(h, RNIC_QP_CMD_ERROR, q);
    check_state(h.look(q), q, kError, 0);
    // RESET: the state only (indices and configuration stay); RTS from RESET: nothing.
    simple(h, RNIC_QP_CMD_RESET, q);
    rts(h, q);
    o = h.look(q);
    check_state(o, q, kReset, 0);
    check_peer(o, peer);
    check_flags(o, peer);
    check_config(o, cfg[q]);
    check_pis(o, q, 3, 0);

    // INIT from every state: new fields, indices and error cleared, the peer kept.
    for (unsigned from : {kReset, kInit, kRts, kError}) {
        cfg[q] = init(h, q, 3, 2);
        if (from == kRts || from == kError)
            rts(h, q);
        CHECK(doorbell(h, q, kSq, 8, 0));
        CHECK(doorbell(h, q, kRq, 4, 0));
        if (from == kError)
            error(h, q, RNIC_CQE_STATUS_TRANSPORT);
        if (from == kReset)
            simple(h, RNIC_QP_CMD_RESET, q);
        o = h.look(q);
        CHECK_EQ(o.sel_state, from);
        check_pis(o, q, 8, 4);
        cfg[q] = init(h, q, r.range(0, 15), r.range(0, 15));
        o = h.look(q);
        check_state(o, q, kInit, 0);
        check_config(o, cfg[q]);
        check_flags(o, cfg[q]);
        check_pis(o, q, 0, 0);
    }
    // A peer after RTS from the new INIT.
    const QpCmd peer2 = rts(h, q);
    o = h.look(q);
    check_state(o, q, kRts, 0);
    check_peer(o, peer2);
    // The others untouched throughout.
    for (unsigned p = 0; p < kNumQp; p++) {
        if (p == q)
            continue;
        o = h.look(p);
        check_state(o, p, kInit, 0);
        check_config(o, cfg[p]);
        check_flags(o, cfg[p]);
    }
}

UNIT_TEST(doorbell_rules) {
    QpHarness h(seed(0x9C03));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();

    // The edges, for each kind and ring size, the consumer at 0 and moving.
    unsigned q = 0;
    for (unsigned kind : {kSq, kRq}) {
        for (unsigned log : {0u, 1u, 3u, 8u, 14u, 15u}) {
            q = (q + 1) % kNumQp;
            const unsigned other = (log + 5) % 16;   // the other queue's ring: a different size
            init(h, q, kind == kSq ? log : other, kind == kRq ? log : other);
            if (r.percent(50))
                rts(h, q);
            const uint16_t R = u16(1u << log);
            CHECK(!doorbell(h, q, kind, u16(R + 1), 0));   // one past the ring
            CHECK(doorbell(h, q, kind, R, 0));             // exactly the ring
            CHECK_EQ(pi_of(h.look(q), kind), R);
            CHECK(!doorbell(h, q, kind, u16(R - 1), 0));   // back by one
            CHECK(!doorbell(h, q, kind, 0, 0));            // back to the consumer
            CHECK(doorbell(h, q, kind, R, 0));             // equal to the old index
            CHECK_EQ(pi_of(h.look(q), kind), R);
            // The consumer takes one: one more fits, two do not.
            CHECK(!doorbell(h, q, kind, u16(R + 2), 1));
            CHECK(doorbell(h, q, kind, u16(R + 1), 1));
            // The consumer catches up: a whole ring again.
            const uint16_t c = u16(R + 1);
            CHECK(!doorbell(h, q, kind, u16(c + R + 1), c));
            CHECK(doorbell(h, q, kind, u16(c + R), c));
            const QpOut o = h.look(q);
            CHECK_EQ(pi_of(o, kind), u16(c + R));
            CHECK_EQ(pi_of(o, kind == kSq ? kRq : kSq), 0);   // the other queue untouched
        }
    }

    // Every offset around both edges, rings 1..32, the consumer just short
    // of 2^16 (the index 0 after INIT is k ahead of it, so every
    // comparison crosses 2^16), probed with no edge, then one taken.
    for (unsigned kind : {kSq, kRq}) {
        for (unsigned log = 0; log <= 5; log++) {
            const uint16_t R = u16(1u << log);
            for (unsigned k = 0; k <= R && !unit_stop(failures); k++) {
                q = (q + 1) % kNumQp;
                init(h, q, kind == kSq ? log : 15 - log, kind == kRq ? log : 15 - log);
                const uint16_t ci = u16(0x10000u - k);   // pi 0 is k ahead
                for (int a = -3; a <= static_cast<int>(R) + 3; a++) {
                    const uint16_t ahead = u16(static_cast<uint32_t>(a));
                    const bool want = ahead <= R && ahead >= k;
                    const bool got = probe(h, q, kind, u16(ci + ahead), ci);
                    if (got != want)
                        std::fprintf(stderr, "ring %u, old index %u ahead of the consumer 0x%04x: %d ahead -> db_ok %d\n",
                                     R, k, ci, a, got);
                    CHECK_EQ(got, want);
                }
                const uint16_t take = u16(r.range(k, R));
                CHECK(doorbell(h, q, kind, u16(ci + take), ci));
                CHECK_EQ(pi_of(h.look(q), kind), u16(ci + take));
            }
        }
    }

    // The producer index itself across 2^16, the consumer following: ring
    // 16 in steps, ring 2^15 in two, to half a ring short of 2^16; then a
    // quarter of the ring in use, so a ring ahead of the consumer wraps.
    for (unsigned log : {4u, 15u}) {
        for (unsigned kind : {kSq, kRq}) {
            q = (q + 1) % kNumQp;
            init(h, q, log, log);
            rts(h, q);
            const uint32_t R = 1u << log, top = 0x10000u - R / 2;
            uint32_t at = 0;
            while (at < top && !unit_stop(failures)) {
                const uint16_t ci = u16(at);
                at = at + R < top ? at + R : top;
                CHECK(doorbell(h, q, kind, u16(at), ci));
            }
            uint16_t pi = u16(at);
            uint16_t ci = u16(pi - R / 4);
            CHECK(!doorbell(h, q, kind, u16(pi - 1), ci));
            CHECK(!doorbell(h, q, kind, u16(ci + R + 1), ci));   // past the ring, wrapped
            CHECK(doorbell(h, q, kind, u16(ci + R), ci));        // exactly the ring, wrapped
            pi = u16(ci + R);
            CHECK(pi < ci);
            CHECK_EQ(pi_of(h.look(q), kind), pi);
            CHECK(!doorbell(h, q, kind, 0xFFFF, ci));   // numerically above, but behind
            CHECK(!doorbell(h, q, kind, u16(pi - 1), ci));
            CHECK(doorbell(h, q, kind, pi, ci));        // equal
            ci = u16(pi - 1);                           // the consumer across 2^16 too
            CHECK(!doorbell(h, q, kind, u16(ci + R + 1), ci));
            CHECK(doorbell(h, q, kind, u16(ci + R), ci));
            CHECK_EQ(pi_of(h.look(q), kind), u16(ci + R));
        }
    }

    // The queue's own consumer index: the other one would judge otherwise.
    q = 7 % kNumQp;
    init(h, q, 3, 3);
    {
        QpIn in = idle(r);
        in.db.valid = true;
        in.db.index = q;
        in.db.kind = kSq;
        in.db.value = 8;
        in.db.sq_ci = 0;
        in.db.rq_ci = 0x8000;   // 8 is far past the ring of a consumer at 0x8000
        CHECK(h.peek(in).db_ok);
        in.db.sq_ci = 0x8000;
        in.db.rq_ci = 0;
        CHECK(!h.peek(in).db_ok);
        in.db.kind = kRq;
        CHECK(h.peek(in).db_ok);
        in.db.rq_ci = 0x8000;
        in.db.sq_ci = 0;
        CHECK(!h.peek(in).db_ok);
    }
    // The queue's own ring: send 2^1, receive 2^6, a doorbell 10 ahead.
    init(h, q, 1, 6);
    CHECK(!probe(h, q, kSq, 10, 0));
    CHECK(probe(h, q, kRq, 10, 0));
    init(h, q, 6, 1);
    CHECK(probe(h, q, kSq, 10, 0));
    CHECK(!probe(h, q, kRq, 10, 0));

    // The state: RESET refused (even what would be fine), the others accepted.
    q = 9 % kNumQp;
    init(h, q, 4, 4);
    CHECK(doorbell(h, q, kSq, 2, 0));                   // INIT
    rts(h, q);
    CHECK(doorbell(h, q, kSq, 3, 0));                   // RTS
    simple(h, RNIC_QP_CMD_ERROR, q);
    CHECK(doorbell(h, q, kSq, 4, 0));                   // ERROR (the command)
    CHECK(doorbell(h, q, kRq, 4, 0));
    init(h, q, 4, 4);
    error(h, q, RNIC_CQE_STATUS_RNR);
    CHECK(doorbell(h, q, kRq, 5, 0));                   // ERROR (the engine's)
    simple(h, RNIC_QP_CMD_RESET, q);
    for (uint16_t v : {5, 6, 16}) {
        CHECK(!doorbell(h, q, kSq, v, 0));
        CHECK(!doorbell(h, q, kRq, v, 0));
    }
    CHECK(!doorbell(h, q, kRq, 5, 5));                  // no change at all, still refused
    QpOut o = h.look(q);
    check_pis(o, q, 0, 5);

    // Kinds CQ and 3: never ok, nothing written, whatever would pass as SQ or RQ.
    q = 11 % kNumQp;
    init(h, q, 5, 5);
    rts(h, q);
    for (unsigned kind : {static_cast<unsigned>(RNIC_DB_KIND_CQ), kDbKindUnused}) {
        for (uint16_t v = 0; v <= 33; v++) {
            QpIn in = idle(r);
            in.db.valid = true;
            in.db.index = q;
            in.db.kind = kind;
            in.db.value = v;
            in.db.sq_ci = in.db.rq_ci = 0;
            CHECK(!h.cycle(in).db_ok);
        }
    }
    check_pis(h.look(q), q, 0, 0);

    // Without db_valid, an acceptable doorbell writes nothing.
    for (int i = 0; i < 50; i++) {
        QpIn in = idle(r);
        in.db.valid = false;
        in.db.index = q;
        in.db.kind = r.range(0, 1);
        in.db.value = u16(r.range(0, 32));
        in.db.sq_ci = in.db.rq_ci = 0;
        h.cycle(in);
    }
    check_pis(h.look(q), q, 0, 0);
    // And a doorbell on q touches no other QP (the harness compares them all).
    CHECK(doorbell(h, q, kSq, 32, 0));
    CHECK(doorbell(h, q, kRq, 31, 0));
    check_pis(h.look(q), q, 32, 31);
}

UNIT_TEST(error_first_status_kept) {
    QpHarness h(seed(0x9C04));
    const unsigned q = 3 % kNumQp, p = 12 % kNumQp;
    const uint8_t s1 = RNIC_CQE_STATUS_LOCAL_LENGTH, s2 = RNIC_CQE_STATUS_REMOTE_ACCESS,
                  s3 = RNIC_CQE_STATUS_TRANSPORT, s4 = RNIC_CQE_STATUS_BAD_RESPONSE, s5 = 0xA5;
    init(h, q, 4, 4);
    rts(h, q);
    error(h, q, s1);
    check_state(h.look(q), q, kError, s1);
    error(h, q, s2);   // a second error: the first status stays
    check_state(h.look(q), q, kError, s1);
    simple(h, RNIC_QP_CMD_ERROR, q);
    check_state(h.look(q), q, kError, s1);
    simple(h, RNIC_QP_CMD_RESET, q);   // RESET keeps it too: only INIT clears
    check_state(h.look(q), q, kReset, s1);
    error(h, q, s3);   // the engine's error leaves a QP in RESET alone: s1 kept, RESET
    check_state(h.look(q), q, kReset, s1);
    rts(h, q);
    check_state(h.look(q), q, kReset, s1);
    init(h, q, 4, 4);   // INIT clears
    check_state(h.look(q), q, kInit, 0);
    error(h, q, s4);    // the error from INIT
    check_state(h.look(q), q, kError, s4);

    // Another QP's errors leave q's alone, and q's leave it.
    init(h, p, 2, 2);
    error(h, p, s5);
    check_state(h.look(p), p, kError, s5);
    check_state(h.look(q), q, kError, s4);
    error(h, q, s1);
    check_state(h.look(p), p, kError, s5);
    check_state(h.look(q), q, kError, s4);

    // Status 0 is none: the next error's status is taken.
    init(h, q, 4, 4);
    error(h, q, RNIC_CQE_STATUS_SUCCESS);
    check_state(h.look(q), q, kError, 0);
    error(h, q, s2);
    check_state(h.look(q), q, kError, s2);
    error(h, q, s3);
    check_state(h.look(q), q, kError, s2);

    // Every QP, every status value once, then rst_n clears them all.
    for (unsigned i = 0; i < kNumQp; i++) init(h, i, 1, 1);
    for (unsigned v = 1; v < 256; v++) error(h, v % kNumQp, static_cast<uint8_t>(v));
    for (unsigned i = 0; i < kNumQp; i++) check_state(h.look(i), i, kError, static_cast<uint8_t>(i == 0 ? kNumQp : i));
    h.reset();
    for (unsigned i = 0; i < kNumQp; i++) check_state(h.look(i), i, kReset, 0);
    // After rst_n every QP is in RESET: the engine's error leaves it there,
    // with no status; after INIT it takes one again.
    error(h, q, s5);
    check_state(h.look(q), q, kReset, 0);
    init(h, q, 4, 4);
    error(h, q, s5);
    check_state(h.look(q), q, kError, s5);
}

// Only whether a QP keeps an error status is reset, not the status itself:
// after rst_n the unit's status array holds what it held before (random
// from power-up), and none of it may show or stop the next error's status
// from being the first. Per QP, at power-up and after a reset that found a
// status on every QP: the engine's error takes it (from RESET, no INIT
// since), a second keeps the first, INIT clears it (sel_err 0), an error
// after INIT is taken, and an error in the same cycle as an INIT keeps its
// own status, whether the QP had one or not.
UNIT_TEST(error_status_after_reset) {
    QpHarness h(seed(0x9C09));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    auto status = [](unsigned q, unsigned k) { return static_cast<uint8_t>(0x10 * k + q % 16 + 1); };
    auto init_and_error = [&](unsigned q, uint8_t st) {
        QpIn in = idle(r);
        in.cmd = random_cmd(r, RNIC_QP_CMD_INIT, q, 3, 3);
        in.err.valid = true;
        in.err.qp = q;
        in.err.status = st;
        h.cycle(in);
    };
    // A status on every QP, then rst_n: none shows.
    auto reset_with_status = [&]() {
        for (unsigned q = 0; q < kNumQp; q++) {
            error(h, q, status(q, 7));
            check_state(h.look(q), q, kError, status(q, 7));
        }
        h.reset();
    };
    for (int round = 0; round < 3 && !unit_stop(failures); round++) {
        if (round > 0)
            reset_with_status();   // round 0: power-up, the statuses random
        check_all_reset(h);        // sel_err 0 everywhere
        for (unsigned q = 0; q < kNumQp; q++) {
            const uint8_t s1 = status(q, 1), s2 = status(q, 2), s3 = status(q, 3), s4 = status(q, 4),
                          s5 = status(q, 5);
            if (q % 2) {
                // The engine's error on a QP in RESET: nothing, and no old
                // status shows. INIT, then an error: its status.
                error(h, q, s1);
                check_state(h.look(q), q, kReset, 0);
                init(h, q, 3, 3);
                error(h, q, s1);
                check_state(h.look(q), q, kError, s1);
                error(h, q, s2);   // a second: the first kept
                check_state(h.look(q), q, kError, s1);
            } else {
                // INIT and an error in one cycle on a QP in RESET since
                // rst_n: the error was the old QP's, judged before the edge;
                // INIT's state, no status. Then an error: its status.
                init_and_error(q, s2);
                check_state(h.look(q), q, kInit, 0);
                error(h, q, s1);
                check_state(h.look(q), q, kError, s1);
            }
            init(h, q, 3, 3);   // INIT clears it
            check_state(h.look(q), q, kInit, 0);
            error(h, q, s3);    // from INIT: taken
            check_state(h.look(q), q, kError, s3);
            error(h, q, s4);
            check_state(h.look(q), q, kError, s3);
            init_and_error(q, s5);   // INIT with an error, the QP with a status: the error's
            check_state(h.look(q), q, kError, s5);
            init(h, q, 3, 3);
            check_state(h.look(q), q, kInit, 0);
        }
    }
    reset_with_status();
    check_all_reset(h);
}

namespace {

// One QP at `start` (err as given), both indices at 40 of a ring of 64
// (posted with the consumers at 0; the cases' consumers are at 8).
struct Start {
    const char *name;
    unsigned state;
    uint8_t err;
};
constexpr uint16_t kPi = 40, kCi = 8;

void prepare(QpHarness &h, unsigned q, const Start &s) {
    init(h, q, 6, 6);
    CHECK(doorbell(h, q, kSq, kPi, 0));
    CHECK(doorbell(h, q, kRq, kPi, 0));
    if (s.state == kRts || (s.state == kError && s.err == 0))
        rts(h, q);
    if (s.state == kError && s.err == 0)
        simple(h, RNIC_QP_CMD_ERROR, q);
    if (s.err != 0)
        error(h, q, s.err);
    if (s.state == kReset)
        simple(h, RNIC_QP_CMD_RESET, q);
    const QpOut o = h.look(q);
    check_state(o, q, s.state, s.err);
    check_pis(o, q, kPi, kPi);
}

}  // namespace

UNIT_TEST(same_cycle_priority) {
    QpHarness h(seed(0x9C05));
    Rng &r = h.rng();
    const uint8_t kOld = RNIC_CQE_STATUS_LOCAL_PROTECTION, kNew = RNIC_CQE_STATUS_REMOTE_OPERATION;
    const Start starts[] = {{"RESET", kReset, 0}, {"RESET after an error", kReset, kOld}, {"INIT", kInit, 0},
                            {"RTS", kRts, 0},     {"ERROR", kError, kOld},                {"ERROR, status 0", kError, 0}};
    // Commands: none, the four, and a code that is none.
    const unsigned cmds[] = {0, RNIC_QP_CMD_INIT, RNIC_QP_CMD_RTS, RNIC_QP_CMD_ERROR, RNIC_QP_CMD_RESET, 6};
    // Doorbells: none, send within the ring, send past it, receive within.
    struct Db {
        bool valid;
        unsigned kind;
        uint16_t value;
        bool fits;   // passes every clause but the state
    };
    const Db dbs[] = {{false, kSq, 0, false}, {true, kSq, 50, true}, {true, kSq, kCi + 65, false}, {true, kRq, 72, true}};

    unsigned q = 0, cases = 0;
    const int failures = rnic_check_failures();
    for (const Start &s : starts) {
        for (unsigned code : cmds) {
            for (const Db &db : dbs) {
                for (bool err : {false, true}) {
                    if (unit_stop(failures))
                        return;
                    q = (q + 1) % kNumQp;
                    prepare(h, q, s);
                    QpIn in = idle(r);
                    in.cmd = random_cmd(r, code, q, 2, 3);
                    in.cmd.valid = code != 0;
                    in.db.valid = db.valid;
                    in.db.kind = db.kind;
                    in.db.index = q;
                    in.db.value = db.value;
                    in.db.sq_ci = in.db.rq_ci = kCi;
                    in.err.valid = err;
                    in.err.qp = q;
                    in.err.status = kNew;
                    const QpOut before = h.cycle(in);

                    // By hand. The doorbell is judged on the state before the edge.
                    const bool db_ok = db.valid && db.fits && s.state != kReset;
                    if (db.valid)
                        CHECK_EQ(before.db_ok, db_ok);
                    // State: the error over the command; RTS from INIT only,
                    // the ERROR command not from RESET.
                    unsigned state = s.state;
                    switch (code) {
                    case RNIC_QP_CMD_INIT: state = kInit; break;
                    case RNIC_QP_CMD_RTS: state = s.state == kInit ? kRts : s.state; break;
                    case RNIC_QP_CMD_ERROR: state = s.state == kReset ? kReset : kError; break;
                    case RNIC_QP_CMD_RESET: state = kReset; break;
                    default: break;
                    }
                    // The error: not on a QP in RESET before the edge, nor
                    // on one this cycle's RESET command ends.
                    const bool err_taken = err && s.state != kReset && code != RNIC_QP_CMD_RESET;
                    if (err_taken)
                        state = kError;
                    // Indices: an accepted doorbell over INIT's clear.
                    const uint16_t cleared = code == RNIC_QP_CMD_INIT ? 0 : kPi;
                    const uint16_t sq_pi = db_ok && db.kind == kSq ? db.value : cleared;
                    const uint16_t rq_pi = db_ok && db.kind == kRq ? db.value : cleared;
                    // Error: the new status if the QP had none before the
                    // edge or an INIT clears it now; else INIT's 0, or the
                    // old status.
                    uint8_t status = code == RNIC_QP_CMD_INIT ? 0 : s.err;
                    if (err_taken && (s.err == 0 || code == RNIC_QP_CMD_INIT))
                        status = kNew;
                    const QpOut o = h.look(q);
                    const int failures = rnic_check_failures();
                    check_state(o, q, state, status);
                    check_pis(o, q, sq_pi, rq_pi);
                    if (rnic_check_failures() != failures)
                        std::fprintf(stderr, "same_cycle_priority: from %s, command %u, doorbell kind %u value %u%s, error %d\n",
                                     s.name, code, db.kind, db.value, db.valid ? "" : " (none)", err);
                    ++cases;
                }
            }
        }
    }
    CHECK_EQ(cases, 6u * 6u * 4u * 2u);

    // The cases by name.
    q = 4 % kNumQp;
    auto one = [&](const Start &s, unsigned code, bool db, uint16_t value, bool err) {
        prepare(h, q, s);
        QpIn in = idle(r);
        in.cmd = random_cmd(r, code, q, 2, 3);
        in.db.valid = db;
        in.db.kind = kSq;
        in.db.index = q;
        in.db.value = value;
        in.db.sq_ci = kCi;
        in.err.valid = err;
        in.err.qp = q;
        in.err.status = kNew;
        const bool ok = h.cycle(in).db_ok;
        return std::make_pair(ok, h.look(q));
    };
    // INIT and a doorbell: the doorbell's index, not INIT's 0; the receive index cleared.
    auto [ok1, o1] = one(starts[3], RNIC_QP_CMD_INIT, true, 50, false);
    CHECK(ok1);
    check_state(o1, q, kInit, 0);
    check_pis(o1, q, 50, 0);
    // INIT of a RESET QP and a doorbell: judged on RESET, refused; both cleared.
    auto [ok2, o2] = one(starts[0], RNIC_QP_CMD_INIT, true, 50, false);
    CHECK(!ok2);
    check_state(o2, q, kInit, 0);
    check_pis(o2, q, 0, 0);
    // RESET and a doorbell: judged on RTS, accepted, and the QP is RESET.
    auto [ok3, o3] = one(starts[3], RNIC_QP_CMD_RESET, true, 50, false);
    CHECK(ok3);
    check_state(o3, q, kReset, 0);
    check_pis(o3, q, 50, kPi);
    // RESET and an error: RESET, no status (software's end of the QP wins).
    auto [ok4, o4] = one(starts[3], RNIC_QP_CMD_RESET, false, 0, true);
    (void)ok4;
    check_state(o4, q, kReset, 0);
    // INIT of a RESET QP and an error: the error was the old QP's, INIT's state.
    auto [ok4b, o4b] = one(starts[0], RNIC_QP_CMD_INIT, false, 0, true);
    (void)ok4b;
    check_state(o4b, q, kInit, 0);
    // RTS and an error: ERROR, the peer and flags of the RTS landed.
    auto [ok5, o5] = one(starts[2], RNIC_QP_CMD_RTS, false, 0, true);
    (void)ok5;
    check_state(o5, q, kError, kNew);
    // INIT and an error, the QP without a status: ERROR with the new status,
    // INIT's configuration and cleared indices.
    auto [ok6, o6] = one(starts[3], RNIC_QP_CMD_INIT, false, 0, true);
    (void)ok6;
    check_state(o6, q, kError, kNew);
    check_pis(o6, q, 0, 0);
    CHECK_EQ(o6.cur_sq_log, 2);
    // INIT and an error, the QP already with a status: INIT clears the old
    // status, so the error's is the first and is kept (never ERROR with none).
    auto [ok7, o7] = one(starts[4], RNIC_QP_CMD_INIT, false, 0, true);
    (void)ok7;
    check_state(o7, q, kError, kNew);
    // All three: the error's state, the doorbell's index, the new status.
    auto [ok8, o8] = one(starts[3], RNIC_QP_CMD_INIT, true, 50, true);
    CHECK(ok8);
    check_state(o8, q, kError, kNew);
    check_pis(o8, q, 50, 0);

    // Three writers on three QPs in one cycle: all land.
    for (int i = 0; i < 50 && !unit_stop(failures); i++) {
        const unsigned a = r.range(0, kNumQp - 1), b = (a + r.range(1, kNumQp - 1)) % kNumQp;
        unsigned c;
        do
            c = r.range(0, kNumQp - 1);
        while (c == a || c == b);
        prepare(h, b, starts[3]);
        prepare(h, c, starts[3]);
        QpIn in = idle(r);
        in.cmd = random_cmd(r, RNIC_QP_CMD_INIT, a, 1, 1);
        in.db.valid = true;
        in.db.kind = kRq;
        in.db.index = b;
        in.db.value = 60;
        in.db.rq_ci = kCi;
        in.err.valid = true;
        in.err.qp = c;
        in.err.status = kNew;
        CHECK(h.cycle(in).db_ok);
        QpOut o = h.look(a);
        check_state(o, a, kInit, 0);
        check_pis(o, a, 0, 0);
        o = h.look(b);
        check_state(o, b, kRts, 0);
        check_pis(o, b, kPi, 60);
        o = h.look(c);
        check_state(o, c, kError, kNew);
        check_pis(o, c, kPi, kPi);
    }
}

UNIT_TEST(read_ports) {
    QpHarness h(seed(0x9C06));
    Rng &r = h.rng();
    // Every QP its own fields, peer and indices.
    std::vector<QpCmd> cfg(kNumQp), peer(kNumQp);
    std::vector<uint16_t> sq(kNumQp), rq(kNumQp);
    std::vector<unsigned> state(kNumQp);
    std::vector<uint8_t> err(kNumQp);
    for (unsigned q = 0; q < kNumQp; q++) {
        cfg[q] = init(h, q, 5 + q % 11, 15 - q % 11);
        peer[q] = rts(h, q);
        sq[q] = u16(1 + q);
        rq[q] = u16(20 - q % 20);
        CHECK(doorbell(h, q, kSq, sq[q], 0));
        CHECK(doorbell(h, q, kRq, rq[q], 0));
        state[q] = kRts;
        err[q] = 0;
        if (q % 3 == 1) {
            error(h, q, static_cast<uint8_t>(0x40 + q));
            state[q] = kError;
            err[q] = static_cast<uint8_t>(0x40 + q);
        }
    }
    // cur, pq, nxt and sel at four different QPs, each its own; the looks
    // at random QPs, often two at one.
    const int failures = rnic_check_failures();
    for (int i = 0; i < 2000 && !unit_stop(failures); i++) {
        unsigned pick[4];
        for (unsigned j = 0; j < 4; j++) {
            bool again;
            do {
                pick[j] = r.range(0, kNumQp - 1);
                again = false;
                for (unsigned k = 0; k < j; k++) again |= pick[k] == pick[j];
            } while (again);
        }
        QpIn in = idle(r);
        in.cur = pick[0];
        in.pq = pick[1];
        in.nxt = pick[2];
        in.cmd.sel = pick[3];
        in.look_given = true;
        for (unsigned l = 0; l < kLooks; l++)
            in.look[l] = l > 0 && r.percent(30) ? in.look[r.range(0, l - 1)] : r.range(0, kNumQp - 1);
        const QpOut o = (i % 2) ? h.peek(in) : h.cycle(in);
        const QpCmd &c = cfg[pick[0]], &p = cfg[pick[1]], &n = cfg[pick[2]];
        CHECK_EQ(o.cur_sq_base, c.sq_base);
        CHECK_EQ(o.cur_rq_base, c.rq_base);
        CHECK_EQ(o.cur_sq_log, c.sq_log);
        CHECK_EQ(o.cur_rq_log, c.rq_log);
        CHECK_EQ(o.cur_scq, c.scq);
        CHECK_EQ(o.cur_rcq, c.rcq);
        CHECK_EQ(o.cur_pz, c.pz);
        check_peer(o, peer[pick[0]]);
        CHECK_EQ(o.cur_flags, peer[pick[0]].flags);   // the RTS's, over the INIT's
        CHECK_EQ(o.cur_sq_pi, sq[pick[0]]);
        CHECK_EQ(o.cur_log_mtu, peer[pick[0]].log_mtu);   // the RTS's, over the INIT's
        CHECK_EQ(o.pq_state, state[pick[1]]);
        CHECK_EQ(o.pq_sq_base, p.sq_base);
        CHECK_EQ(o.pq_rq_base, p.rq_base);
        CHECK_EQ(o.pq_sq_log, p.sq_log);
        CHECK_EQ(o.pq_rq_log, p.rq_log);
        CHECK_EQ(o.pq_scq, p.scq);
        CHECK_EQ(o.pq_pz, p.pz);
        CHECK_EQ(o.pq_flags, peer[pick[1]].flags);
        CHECK_EQ(o.pq_log_mtu, peer[pick[1]].log_mtu);
        CHECK_EQ(o.pq_rq_pi, rq[pick[1]]);
        CHECK_EQ(o.nxt_sq_base, n.sq_base);
        CHECK_EQ(o.nxt_sq_log, n.sq_log);
        CHECK_EQ(o.sel_state, state[pick[3]]);
        CHECK_EQ(o.sel_err, err[pick[3]]);
        for (unsigned l = 0; l < kLooks; l++) {
            const unsigned q = in.look[l];
            CHECK_EQ(o.look[l].qp, q);
            CHECK_EQ(o.look[l].state, state[q]);
            CHECK_EQ(o.look[l].sq_pi, sq[q]);
            CHECK_EQ(o.look[l].rq_pi, rq[q]);
        }
    }
    // The ports follow their index with no clock: every QP at each port in turn.
    QpIn in = idle(r);
    for (unsigned q = 0; q < kNumQp; q++) {
        in.cur = q;
        in.pq = (q + 1) % kNumQp;
        in.nxt = (q + 2) % kNumQp;
        in.cmd.sel = (q + 3) % kNumQp;
        in.look_given = true;
        for (unsigned l = 0; l < kLooks; l++) in.look[l] = (q + 4 + l) % kNumQp;
        const QpOut o = h.peek(in);
        CHECK_EQ(o.cur_sq_base, cfg[q].sq_base);
        CHECK_EQ(o.cur_log_mtu, peer[q].log_mtu);
        CHECK_EQ(o.pq_sq_base, cfg[(q + 1) % kNumQp].sq_base);
        CHECK_EQ(o.pq_log_mtu, peer[(q + 1) % kNumQp].log_mtu);
        CHECK_EQ(o.nxt_sq_base, cfg[(q + 2) % kNumQp].sq_base);
        CHECK_EQ(o.sel_state, state[(q + 3) % kNumQp]);
        for (unsigned l = 0; l < kLooks; l++) {
            const unsigned p = (q + 4 + l) % kNumQp;
            CHECK_EQ(o.look[l].state, state[p]);
            CHECK_EQ(o.look[l].sq_pi, sq[p]);
            CHECK_EQ(o.look[l].rq_pi, rq[p]);
        }
    }
    // A write shows after its edge, not in its own cycle.
    const unsigned q = 6 % kNumQp;
    in = idle(r);
    in.cmd = random_cmd(r, RNIC_QP_CMD_INIT, q, 1, 2);
    in.cmd.log_mtu = (peer[q].log_mtu + 1) % 16;   // a change to see
    in.db.valid = true;
    in.db.kind = kSq;
    in.db.index = (q + 1) % kNumQp;
    in.db.value = u16(sq[(q + 1) % kNumQp] + 1);
    in.db.sq_ci = 0;
    in.cur = in.pq = in.nxt = q;
    // The looks at both written QPs, alternately, as the scheduler's would
    // be in the next cycle.
    const unsigned b = (q + 1) % kNumQp;
    in.look_given = true;
    for (unsigned l = 0; l < kLooks; l++) in.look[l] = l % 2 ? b : q;
    QpOut o = h.cycle(in);
    CHECK_EQ(o.cur_sq_base, cfg[q].sq_base);
    CHECK_EQ(o.cur_log_mtu, peer[q].log_mtu);
    CHECK_EQ(o.pq_log_mtu, peer[q].log_mtu);
    CHECK_EQ(o.sel_state, state[q]);
    for (unsigned l = 0; l < kLooks; l++) {
        CHECK_EQ(o.look[l].state, l % 2 ? state[b] : state[q]);
        CHECK_EQ(o.look[l].sq_pi, l % 2 ? sq[b] : sq[q]);
    }
    o = h.look(q);
    CHECK_EQ(o.cur_sq_base, in.cmd.sq_base);
    CHECK_EQ(o.cur_flags, in.cmd.flags);
    CHECK_EQ(o.cur_log_mtu, in.cmd.log_mtu);
    CHECK_EQ(o.pq_log_mtu, in.cmd.log_mtu);
    CHECK_EQ(o.nxt_sq_log, 1);
    CHECK_EQ(o.sel_state, kInit);
    // The same looks, the writes gone: both landed.
    in.cmd.valid = in.db.valid = false;
    o = h.peek(in);
    for (unsigned l = 0; l < kLooks; l++) {
        CHECK_EQ(o.look[l].state, l % 2 ? state[b] : kInit);
        CHECK_EQ(o.look[l].sq_pi, l % 2 ? u16(sq[b] + 1) : 0);
        CHECK_EQ(o.look[l].rq_pi, l % 2 ? rq[b] : 0);
    }
}

namespace {
// A command of `code` on q carrying path MTU lg, every other field random.
void command_mtu(QpHarness &h, unsigned code, unsigned q, unsigned lg, bool valid = true) {
    QpCmd k = random_cmd(h.rng(), code, q, 3, 3);
    k.log_mtu = lg;
    k.valid = valid;
    command(h, k);
}
// q's path MTU as cur and pq show it.
void check_mtu(QpHarness &h, unsigned q, unsigned lg) {
    const QpOut o = h.look(q);
    CHECK_EQ(o.cur_log_mtu, lg);
    CHECK_EQ(o.pq_log_mtu, lg);
}
}  // namespace

UNIT_TEST(path_mtu) {
    QpHarness h(seed(0x9C07));
    Rng &r = h.rng();
    // INIT stores every 4-bit value (the RTL is given 8..12, rnic_pkg::
    // path_log_mtu; the store holds what it is given).
    for (unsigned lg = 0; lg < 16; lg++) {
        command_mtu(h, RNIC_QP_CMD_INIT, lg % kNumQp, lg);
        check_mtu(h, lg % kNumQp, lg);
    }
    // Every QP its own, cur and pq at different QPs in one cycle.
    for (unsigned q = 0; q < kNumQp; q++) command_mtu(h, RNIC_QP_CMD_INIT, q, 8 + q % 5);
    for (unsigned q = 0; q < kNumQp; q++) {
        for (unsigned d = 1; d < kNumQp; d++) {
            QpIn in = idle(r);
            in.cur = q;
            in.pq = (q + d) % kNumQp;
            const QpOut o = d % 2 ? h.peek(in) : h.cycle(in);
            CHECK_EQ(o.cur_log_mtu, 8 + q % 5);
            CHECK_EQ(o.pq_log_mtu, 8 + (q + d) % kNumQp % 5);
        }
    }

    const unsigned q = 2 % kNumQp, p = 9 % kNumQp;
    command_mtu(h, RNIC_QP_CMD_INIT, q, 8);
    check_mtu(h, q, 8);
    command_mtu(h, RNIC_QP_CMD_RTS, q, 12);            // from INIT: loaded
    check_mtu(h, q, 12);
    command_mtu(h, RNIC_QP_CMD_RTS, q, 9);             // from RTS: nothing
    check_mtu(h, q, 12);
    for (unsigned code : kNotCmds) command_mtu(h, code, q, 10);
    command_mtu(h, RNIC_QP_CMD_INIT, q, 10, false);    // INIT without cmd_valid
    command_mtu(h, RNIC_QP_CMD_INIT, p, 10);           // another QP's INIT and RTS
    command_mtu(h, RNIC_QP_CMD_RTS, p, 11);
    CHECK(doorbell(h, q, kSq, 1, 0));
    CHECK(doorbell(h, q, kRq, 1, 0));
    check_mtu(h, q, 12);
    check_mtu(h, p, 11);
    command_mtu(h, RNIC_QP_CMD_ERROR, q, 10);          // the ERROR command
    check_mtu(h, q, 12);
    command_mtu(h, RNIC_QP_CMD_RTS, q, 11);            // from ERROR: nothing
    check_mtu(h, q, 12);
    command_mtu(h, RNIC_QP_CMD_RESET, q, 10);          // the RESET command
    check_mtu(h, q, 12);
    command_mtu(h, RNIC_QP_CMD_RTS, q, 11);            // from RESET: nothing
    check_mtu(h, q, 12);
    error(h, q, RNIC_CQE_STATUS_TRANSPORT);            // the engine's error
    check_mtu(h, q, 12);
    // INIT from ERROR, RTS from INIT, INIT from RTS, INIT from RESET.
    command_mtu(h, RNIC_QP_CMD_INIT, q, 9);
    check_mtu(h, q, 9);
    command_mtu(h, RNIC_QP_CMD_RTS, q, 10);
    check_mtu(h, q, 10);
    command_mtu(h, RNIC_QP_CMD_INIT, q, 11);
    check_mtu(h, q, 11);
    command_mtu(h, RNIC_QP_CMD_RESET, q, 8);
    command_mtu(h, RNIC_QP_CMD_INIT, q, 12);
    check_mtu(h, q, 12);
    // An RTS and the engine's error in one cycle: ERROR, and the RTS's path
    // MTU landed (as its flags do).
    {
        QpIn in = idle(r);
        in.cmd = random_cmd(r, RNIC_QP_CMD_RTS, q, 3, 3);
        in.cmd.log_mtu = 8;
        in.err.valid = true;
        in.err.qp = q;
        in.err.status = RNIC_CQE_STATUS_TRANSPORT;
        h.cycle(in);
        const QpOut o = h.look(q);
        check_state(o, q, kError, RNIC_CQE_STATUS_TRANSPORT);
        check_flags(o, in.cmd);
    }
    // rst_n: the model forgets the store (the RTL does not reset it); an
    // INIT loads it again.
    h.reset();
    command_mtu(h, RNIC_QP_CMD_INIT, q, 10);
    check_mtu(h, q, 10);
}

namespace {
// The engine's side of the random run: its consumer indices.
struct Engine {
    uint16_t sq_ci[kNumQp] = {}, rq_ci[kNumQp] = {};
};
}  // namespace

UNIT_TEST(random_run) {
    QpHarness h(seed(0x9C0FF));
    Rng &r = h.rng();
    Engine e;
    const uint64_t kCycles = 200000;
    const int failures = rnic_check_failures();
    while (h.now() < kCycles && !unit_stop(failures)) {
        if (r.percent(1) && r.percent(2)) {
            h.reset();
            e = Engine{};
        }
        const QpModel &m = h.model();
        QpIn in = idle(r);
        // One QP in the thick of it: all three writers on it, often.
        const unsigned hot = r.range(0, kNumQp - 1);
        const bool pile = r.percent(25);
        auto target = [&]() { return pile || r.percent(20) ? hot : r.range(0, kNumQp - 1); };

        // Commands: mostly INIT and RTS, sometimes a big ring.
        if (r.percent(7)) {
            const unsigned k = r.range(0, 99);
            const unsigned code = k < 30 ? RNIC_QP_CMD_INIT
                                  : k < 60 ? RNIC_QP_CMD_RTS
                                  : k < 75 ? RNIC_QP_CMD_ERROR
                                  : k < 90 ? RNIC_QP_CMD_RESET
                                           : kNotCmds[r.range(0, 3)];
            auto log = [&]() { return r.percent(30) ? r.range(12, 15) : r.range(0, 6); };
            in.cmd = random_cmd(r, code, target(), log(), log());
        }
        // Doorbells: mostly at the rule's edges.
        if (r.percent(65)) {
            QpDb &d = in.db;
            d.valid = true;
            const unsigned k = r.range(0, 99);
            d.kind = k < 46 ? kSq : k < 92 ? kRq : k < 96 ? RNIC_DB_KIND_CQ : kDbKindUnused;
            d.index = target();
            const QpCtx &c = m.qp(d.index);
            const bool rq = d.kind == kRq;
            d.sq_ci = e.sq_ci[d.index];
            d.rq_ci = e.rq_ci[d.index];
            if (r.percent(3))
                d.sq_ci = u16(r.u32());
            if (r.percent(3))
                d.rq_ci = u16(r.u32());
            const uint16_t ci = rq ? d.rq_ci : d.sq_ci, pi = rq ? c.rq_pi : c.sq_pi;
            const uint16_t R = QpModel::ring(rq ? c.rq_log : c.sq_log);
            switch (r.range(0, 9)) {
            case 0: case 1: d.value = u16(ci + R); break;          // exactly the ring
            case 2: d.value = u16(ci + R + 1); break;              // one past
            case 3: d.value = pi; break;                           // equal
            case 4: d.value = u16(pi - 1); break;                  // back by one
            case 5: case 6: d.value = u16(pi + r.range(1, R)); break;
            case 7: d.value = u16(ci + r.range(0, R)); break;
            case 8: d.value = u16(pi + r.range(0, 3)); break;
            default: d.value = u16(r.u32()); break;
            }
        }
        // The engine's errors.
        if (r.percent(4)) {
            in.err.valid = true;
            in.err.qp = target();
            // The engine errs the QPs it serves; now and then one never set up.
            if (!m.qp(in.err.qp).cfg_known && r.percent(80))
                in.err.valid = false;
            in.err.status = r.percent(10) ? 0 : static_cast<uint8_t>(r.range(1, 255));
        }
        if (r.percent(30))
            in.cur = hot;
        if (r.percent(30))
            in.pq = hot;
        if (r.percent(30))
            in.nxt = hot;

        h.cycle(in);

        // The engine: INIT zeroes its indices; it consumes what was posted.
        if (in.cmd.valid && in.cmd.cmd == RNIC_QP_CMD_INIT)
            e.sq_ci[in.cmd.sel] = e.rq_ci[in.cmd.sel] = 0;
        const unsigned c = r.range(0, kNumQp - 1);
        const QpCtx &cq = m.qp(c);
        // (Only what it knows was posted: an index unknown since rst_n is no work.)
        if (cq.sq_pi_known && r.percent(40)) {
            const uint16_t left = u16(cq.sq_pi - e.sq_ci[c]);
            if (left <= QpModel::ring(15))
                e.sq_ci[c] = r.percent(50) ? cq.sq_pi : u16(e.sq_ci[c] + r.range(0, left));
        }
        if (cq.rq_pi_known && r.percent(40)) {
            const uint16_t left = u16(cq.rq_pi - e.rq_ci[c]);
            if (left <= QpModel::ring(15))
                e.rq_ci[c] = r.percent(50) ? cq.rq_pi : u16(e.rq_ci[c] + r.range(0, left));
        }
    }
    const QpStats &s = h.stats();
    std::printf("random_run: %llu cycles, %llu resets, %llu output fields compared; %llu doorbells: %llu accepted "
                "(%llu exactly a ring ahead, %llu equal to the old index, %llu across 2^16), refused: not a QP's "
                "%llu, RESET %llu, past the ring %llu, backwards %llu; %llu judged by the unit (ring or old index "
                "unknown)\n",
                static_cast<unsigned long long>(s.cycles), static_cast<unsigned long long>(s.resets),
                static_cast<unsigned long long>(s.compared), static_cast<unsigned long long>(s.db_seen),
                static_cast<unsigned long long>(s.db_accepted), static_cast<unsigned long long>(s.db_at_ring),
                static_cast<unsigned long long>(s.db_equal), static_cast<unsigned long long>(s.db_wrapped),
                static_cast<unsigned long long>(s.db_refused[static_cast<int>(DbWhy::NotQpKind)]),
                static_cast<unsigned long long>(s.db_refused[static_cast<int>(DbWhy::Reset)]),
                static_cast<unsigned long long>(s.db_refused[static_cast<int>(DbWhy::PastRing)]),
                static_cast<unsigned long long>(s.db_refused[static_cast<int>(DbWhy::Backwards)]),
                static_cast<unsigned long long>(s.db_learned));
    std::printf("random_run: commands INIT %llu RTS %llu (%llu not from INIT) ERROR %llu (%llu in RESET) RESET %llu, "
                "no command %llu; engine errors %llu (%llu kept an earlier status); on one QP in one cycle: command "
                "and doorbell %llu, command and error %llu, doorbell and error %llu, all three %llu\n",
                static_cast<unsigned long long>(s.cmds[RNIC_QP_CMD_INIT]),
                static_cast<unsigned long long>(s.cmds[RNIC_QP_CMD_RTS]),
                static_cast<unsigned long long>(s.rts_refused),
                static_cast<unsigned long long>(s.cmds[RNIC_QP_CMD_ERROR]),
                static_cast<unsigned long long>(s.error_cmd_in_reset),
                static_cast<unsigned long long>(s.cmds[RNIC_QP_CMD_RESET]),
                static_cast<unsigned long long>(s.cmds[0] + s.cmds[5] + s.cmds[6] + s.cmds[7]),
                static_cast<unsigned long long>(s.errs), static_cast<unsigned long long>(s.errs_kept),
                static_cast<unsigned long long>(s.same_qp_cmd_db), static_cast<unsigned long long>(s.same_qp_cmd_err),
                static_cast<unsigned long long>(s.same_qp_db_err), static_cast<unsigned long long>(s.same_qp_all));
    uint64_t least_seen = ~uint64_t{0};
    for (const auto &slot : s.look_seen)
        for (uint64_t n : slot) least_seen = std::min(least_seen, n);
    std::printf("random_run: looks: each QP at each look at least %llu times; %llu looks at a QP written in their "
                "cycle, %llu cycles with two looks at one QP, %llu look indices unknown (since rst_n)\n",
                static_cast<unsigned long long>(least_seen), static_cast<unsigned long long>(s.look_written),
                static_cast<unsigned long long>(s.look_repeated), static_cast<unsigned long long>(s.look_pi_unknown));
    CHECK(h.now() >= kCycles);
    CHECK(s.resets > 3);
    CHECK(s.db_accepted > 10000);
    CHECK(s.db_at_ring > 1000);
    CHECK(s.db_equal > 1000);
    CHECK(s.db_wrapped > 100);
    for (DbWhy why : {DbWhy::NotQpKind, DbWhy::Reset, DbWhy::PastRing, DbWhy::Backwards})
        CHECK(s.db_refused[static_cast<int>(why)] > 1000);
    CHECK(s.rts_refused > 500);
    CHECK(s.error_cmd_in_reset > 100);
    CHECK(s.errs_kept > 1000);
    CHECK(s.same_qp_cmd_db > 1000);
    CHECK(s.same_qp_cmd_err > 60);
    CHECK(s.same_qp_db_err > 1000);
    CHECK(s.same_qp_all > 30);
    CHECK(least_seen > 1000);
    CHECK(s.look_written > 100000);
    CHECK(s.look_repeated > 100000);
    CHECK(s.look_pi_unknown > 1000);
    // Only INIT takes a QP out of RESET (the engine's error no longer does),
    // and INIT sets every index and ring size: no doorbell is ever judged
    // on a value the model does not know.
    CHECK_EQ(s.db_learned, 0u);
}
