// rnic_qp_transport against its contract (the header of
// rtl/rnic_qp_transport.sv, the field comments of rnic_pkg::qp_xs_t and
// flight_t in rtl/rnic_engine_types.svh, rnic.toml's QP_CMD).
//
//   tb_rtl_qp_transport TEST... | all   runs the named tests
//   tb_rtl_qp_transport --list          prints every test name, one a line
//                                       (CMake registers one CTest per line)
//
// Every test runs the unit beside the model of its contract (xs_model.h),
// every output compared before and after every clock edge (xs_harness.h);
// the tests below state, by hand, what the contract says of each case:
//
//   layout              the bench's picture of the packed structs (member
//                       names, order, widths) is the generated package's;
//                       each qp_xs_t and flight_t member written alone with
//                       all ones comes back at exactly its bits of the
//                       unit's vector, and nothing above the struct; each
//                       sched_xs_t member alone at exactly its bits of each
//                       look's row (XSW l up), the other looks at a QP
//                       of zeros; every row all ones fills look_xs to its
//                       top; each of cur's slots alone at its byte of cur_ops
//   reset_state         rst_n is relied on for nothing: before INIT the
//                       model knows no field (no check compares one); after
//                       power-up (every field random) and after rst_n on
//                       QPs with every field written (every kind of writer
//                       on the ports throughout), INIT on each QP gives
//                       every field it sets INIT's value on every port and
//                       look, whatever was there, and leaves the rest
//                       unknown; RTS then its PSNs and counts; RESET alone
//                       after rst_n drops fenced and bind_wait; the job,
//                       the commands and the in-flight table write on the
//                       first cycle after rst_n
//   each_command        INIT, RTS (with cmd_in_init), RESET, ERROR and the
//                       codes that are no command, alone on every QP: exactly
//                       the fields each names change, and no other QP;
//                       nothing without cmd_valid
//   rts_outside_init    RTS without cmd_in_init changes nothing, at any PSN
//                       or retry count; cmd_in_init without cmd_valid
//                       nothing; then the same RTS with it sets both PSNs,
//                       acked_psn and the retry counts and nothing else
//   job_fields          each field written alone (0, all ones, random),
//                       the other fields' data junk: only that field moves;
//                       no enable, nothing; every enable, every field
//   cmd_and_job         a command and a job write on one QP in one cycle,
//                       every command (RTS in and outside INIT, no command)
//                       by 32 enable masks (none, all, the command's, the
//                       rest, each of the 25 fields alone, three random):
//                       each enabled field the job's, the command's other
//                       fields its own, the rest kept;
//                       named cases spelled out; command and job on two
//                       QPs in one cycle both land whole
//   flight_table        the oldest views (cur_oldest, pq_oldest, the looks'
//                       oldest_op) as done moves through three laps of
//                       MAX_RD_ATOMIC and across 2^16, every QP its own
//                       slots; each field's enable alone; a write to the
//                       oldest slot shows after its edge; done and the slot
//                       written in one cycle; INIT's done 0
//   cur_ops             every slot its own op: cur at each QP in turn, no
//                       clock, shows its slots in slot order, whatever its
//                       done; an op written alone shows after its edge, in
//                       its QP's cur_ops only; the other fields' enables
//                       leave it
//   looks               every look at every QP (the others elsewhere), at
//                       one QP all together, at random QPs with repeats:
//                       each shows its QP's row (distinct values in every
//                       member, each flag of each QP set alone); the looks
//                       follow look_qp with no clock; a write shows in the
//                       looks at its QP after its edge, not in its cycle, in
//                       no other; sq_ci itself while paused; oldest_op
//                       follows done through the slots and a write of op
//   read_ports          cur, pq, db and nxt at four different QPs in one
//                       cycle, each its own QP (nxt_sq_ci less its paused),
//                       the looks at random QPs their own;
//                       the ports follow their index
//                       with no clock; a write shows after its edge
//   rts_retry_counts    RTS from INIT with every pair of cmd_retry_cnt and
//                       cmd_rnr_retry: retry_left, rnr_left loaded, acked_psn
//                       cmd_sq_psn (not cmd_rq_psn), no other QP; RTS outside
//                       INIT, without cmd_valid, and every other command
//                       leave the three; a reconnect (INIT keeps what the job
//                       spent, the next RTS loads afresh)
//   init_clears_retry_state
//                       INIT from all 32 combinations of rnr_wait, retrying,
//                       nak_sent, kick_why: the flags 0, kick_why
//                       RETRY_WHY_TIMEOUT, retry counts and acked_psn kept,
//                       other QPs' flags kept; no other command clears them
//   job_beats_cmd_retry a job write of each retry field with INIT (rnr_wait,
//                       retrying, nak_sent, kick_why) or RTS from INIT
//                       (retry_left, rnr_left, acked_psn) on its QP in one
//                       cycle: the job's value, the command's other fields
//                       its own; the job's sq_psn is not RTS's acked_psn
//   look_rnr_wait       every QP's rnr_wait through the looks: each QP's
//                       alone, walking, random patterns; not in the cycle of
//                       the write; other fields' writes, other commands
//                       leave it; INIT its QP's; after rst_n, INIT each
//   paused_fields       paused and pause_pkts through the job write on every
//                       QP, each alone (the other's data the opposite) and
//                       together, at 0, all ones, random: cur_xs, pq_xs, the
//                       looks' paused (that QP's alone); nxt_sq_ci sq_ci - 1
//                       while paused (0 -> 0xFFFF across 2^16), sq_ci once
//                       cleared, while db_sq_ci and the looks' sq_ci stay
//                       sq_ci; not in the cycle of the write; sq_ci and
//                       paused in one write; INIT clears paused (nxt_sq_ci
//                       0) and keeps pause_pkts, on its QP only; the job's
//                       paused beats INIT's; RTS, RESET, ERROR and no
//                       command leave both; after rst_n, INIT on every
//                       paused QP clears it
//   fresh_collisions    a command and the job's writes around it, on its QP
//                       and another, in the orders the unit's fresh bits
//                       (rtl/rnic_qp_transport.sv's header) tell apart:
//                       INIT, RTS from INIT or RESET with a job write to
//                       its QP in the same cycle, or to another QP, then
//                       later partial writes to both; the command twice
//                       before the job (RTS again: the second RTS's values);
//                       INIT then RTS then a job write naming neither's
//                       fields; each partial write (random masks, the
//                       command's fields, one field) the job's fields
//                       its own, the rest the commands', by hand
//   random_run          200,000 cycles of commands (random retry counts),
//                       job writes and in-flight writes, often all on one
//                       QP, and resets, the looks where the harness points
//                       them; the figures at the end say every writer,
//                       collision and look was exercised
//
// Each test prints its seed; RTL_UNIT_SEED=N replays another.
#include <cstdio>
#include <string>
#include <vector>

#include "pkg_struct.h"
#include "rnic_check.h"
#include "unit_bench.h"
#include "xs_harness.h"

namespace {

uint64_t seed(uint64_t fixed) { return unit_seed(fixed); }

uint64_t rand_field(Rng &r, unsigned width) { return r.next() & mask_of(width); }

// Every field random.
Xs random_xs(Rng &r) {
    Xs v;
    for (unsigned f = 0; f < kXsFields; f++) v[f] = rand_field(r, kXsDesc[f].width);
    return v;
}
Flight random_flight(Rng &r) {
    Flight v;
    for (unsigned f = 0; f < kFlFields; f++) v[f] = rand_field(r, kFlDesc[f].width);
    return v;
}
// Every field non-zero (the flags set), so that a clear shows.
Xs busy_xs(Rng &r) {
    Xs v = random_xs(r);
    for (unsigned f = 0; f < kXsFields; f++)
        if (v[f] == 0)
            v[f] = 1;
    return v;
}

// No write; every read port and every field of the idle write ports random.
XsIn idle(Rng &r) {
    XsIn in;
    in.cmd.code = r.range(0, 7);
    in.cmd.sel = r.range(0, kNumQp - 1);
    in.cmd.in_init = r.percent(50);
    in.cmd.sq_psn = r.u32() & 0xFFFFFFu;
    in.cmd.rq_psn = r.u32() & 0xFFFFFFu;
    in.cmd.retry_cnt = r.range(0, 7);
    in.cmd.rnr_retry = r.range(0, 7);
    in.job.qp = r.range(0, kNumQp - 1);
    in.job.data = random_xs(r);
    in.fl.slot = r.range(0, kSlots - 1);
    in.fl.data = random_flight(r);
    in.cur = r.range(0, kNumQp - 1);
    in.pq = r.range(0, kNumQp - 1);
    in.db = r.range(0, kNumQp - 1);
    in.nxt = r.range(0, kNumQp - 1);
    return in;
}

XsOut job(XsHarness &h, unsigned q, uint32_t we, const Xs &data) {
    XsIn in = idle(h.rng());
    in.job.qp = q;
    in.job.we = we;
    in.job.data = data;
    return h.cycle(in);
}
void fill(XsHarness &h, unsigned q, const Xs &v) { job(h, q, kXsWeAll, v); }
void set_done(XsHarness &h, unsigned q, uint16_t done) {
    Xs d = random_xs(h.rng());
    d[kDone] = done;
    job(h, q, xs_we(kDone), d);
}
void fill_slot(XsHarness &h, unsigned s, uint32_t we, const Flight &v) {
    XsIn in = idle(h.rng());
    in.fl.slot = s;
    in.fl.we = we;
    in.fl.data = v;
    h.cycle(in);
}
XsCmd make_cmd(Rng &r, unsigned code, unsigned q, bool in_init) {
    XsCmd k;
    k.valid = true;
    k.code = code;
    k.sel = q;
    k.in_init = in_init;
    k.sq_psn = r.u32() & 0xFFFFFFu;
    k.rq_psn = r.u32() & 0xFFFFFFu;
    k.retry_cnt = r.range(0, 7);
    k.rnr_retry = r.range(0, 7);
    return k;
}
XsOut command(XsHarness &h, const XsCmd &k) {
    XsIn in = idle(h.rng());
    in.cmd = k;
    return h.cycle(in);
}

// A QP after command k, by hand from the contract.
Xs after_command(Xs v, const XsCmd &k) {
    if (!k.valid)
        return v;
    switch (k.code & 7u) {
    case RNIC_QP_CMD_INIT:   // a new connection: indices, holds, counters, MSN, the open WRITE and SEND,
                             // and the old connection's RNR wait, resend, NAK and paused WQE; the next
                             // retry a timeout's
        v[kSqCi] = v[kRqCi] = v[kDone] = 0;
        v[kFenced] = v[kBindWait] = v[kRdHold] = 0;
        v[kOutGot] = v[kRcvGot] = 0;
        v[kSndOpen] = v[kWrLeft] = 0;
        v[kMsn] = 0;
        v[kRnrWait] = v[kRetrying] = v[kNakSent] = 0;
        v[kKickWhy] = RNIC_RETRY_WHY_TIMEOUT;
        v[kPaused] = 0;   // no WQE paused: sq_ci is 0 (pause_pkts kept, read only under paused)
        break;
    case RNIC_QP_CMD_RTS:    // the starting PSNs and retry counts, from INIT only
        if (k.in_init) {
            v[kSqPsn] = k.sq_psn & 0xFFFFFFu;
            v[kRqPsn] = k.rq_psn & 0xFFFFFFu;
            v[kAckedPsn] = k.sq_psn & 0xFFFFFFu;   // the responder expects the first PSN
            v[kRetryLeft] = k.retry_cnt & 7u;
            v[kRnrLeft] = k.rnr_retry & 7u;
        }
        break;
    case RNIC_QP_CMD_RESET:  // its fence holds
        v[kFenced] = v[kBindWait] = 0;
        break;
    default:
        break;
    }
    return v;
}

// Every look at q in `o` (a look elsewhere is not q's), against `want`:
// each row member but oldest_op is q's field of that name. The number of
// looks compared.
unsigned expect_rows(const XsOut &o, unsigned q, const Xs &want, const char *what) {
    unsigned n = 0;
    for (unsigned l = 0; l < kLooks; l++) {
        if (o.look_qp[l] != q)
            continue;
        ++n;
        for (unsigned i = 0; i < kSxOldestOp; i++) {
            CHECK_EQ(o.look[l][i], want[kSxFrom[i]]);
            if (o.look[l][i] != want[kSxFrom[i]])
                std::fprintf(stderr, "  %s: look %u at qp %u: %s 0x%llx, expected 0x%llx\n", what, l, q,
                             kSxDesc[i].name, static_cast<unsigned long long>(o.look[l][i]),
                             static_cast<unsigned long long>(want[kSxFrom[i]]));
        }
    }
    return n;
}

// q as every port shows it (look(q) puts them all at q), against `want`;
// a differing field is named, with `what` saying which case.
void expect_xs(const XsOut &o, unsigned q, const Xs &want, const char *what) {
    const int before = rnic_check_failures();
    for (unsigned f = 0; f < kXsFields; f++) {
        CHECK_EQ(o.cur_xs[f], want[f]);
        CHECK_EQ(o.pq_xs[f], want[f]);
        if (o.cur_xs[f] != want[f] || o.pq_xs[f] != want[f])
            std::fprintf(stderr, "  %s: qp %u %s: cur_xs 0x%llx pq_xs 0x%llx, expected 0x%llx\n", what, q,
                         kXsDesc[f].name, static_cast<unsigned long long>(o.cur_xs[f]),
                         static_cast<unsigned long long>(o.pq_xs[f]), static_cast<unsigned long long>(want[f]));
    }
    CHECK_EQ(o.db_sq_ci, want[kSqCi]);
    CHECK_EQ(o.db_rq_ci, want[kRqCi]);
    CHECK_EQ(o.nxt_sq_ci, (want[kSqCi] - want[kPaused]) & 0xFFFFu);   // a paused WQE is fetched again
    CHECK_EQ(o.nxt_done, want[kDone]);
    expect_rows(o, q, want, what);
    if (rnic_check_failures() != before)
        std::fprintf(stderr, "  (%s, qp %u)\n", what, q);
}
void expect_flight(const Flight &got, const Flight &want, const char *port, unsigned s) {
    for (unsigned f = 0; f < kFlFields; f++) {
        CHECK_EQ(got[f], want[f]);
        if (got[f] != want[f])
            std::fprintf(stderr, "  %s, slot %u (qp %u, %u): %s 0x%llx, expected 0x%llx\n", port, s, s / kDepth,
                         s % kDepth, kFlDesc[f].name, static_cast<unsigned long long>(got[f]),
                         static_cast<unsigned long long>(want[f]));
    }
}
// The oldest WQE of slot s's QP, at both ports (both at that QP), every
// look at it and, in cur_ops, at s's byte, against the slot that holds
// `want`.
void expect_oldest(const XsOut &o, unsigned s, const Flight &want) {
    const unsigned q = s / kDepth;
    expect_flight(o.cur_oldest, want, "cur_oldest", s);
    expect_flight(o.pq_oldest, want, "pq_oldest", s);
    CHECK_EQ(o.cur, q);   // the caller's read ports: at s's QP
    CHECK_EQ(o.cur_ops[s % kDepth], want[kFlOp]);
    for (unsigned l = 0; l < kLooks; l++) {
        if (o.look_qp[l] != q)
            continue;
        CHECK_EQ(o.look[l][kSxOldestOp], want[kFlOp]);
        if (o.look[l][kSxOldestOp] != want[kFlOp])
            std::fprintf(stderr, "  look %u at qp %u: oldest_op 0x%llx, expected 0x%llx (slot %u)\n", l, q,
                         static_cast<unsigned long long>(o.look[l][kSxOldestOp]),
                         static_cast<unsigned long long>(want[kFlOp]), s);
    }
}

// Every read port at q, the looks taking turns at q and p: look l at p for odd
// l. For a check of q's row and a neighbour's in one peek.
XsOut look_two(XsHarness &h, unsigned q, unsigned p) {
    XsIn in;
    in.cmd.sel = in.job.qp = in.cur = in.pq = in.db = in.nxt = q;
    for (unsigned l = 0; l < kLooks; l++) in.look[l] = l % 2 ? p : q;
    in.looks_given = true;
    return h.peek(in);
}

// ---------------------------------------------------------------- layout

template <std::size_t N> unsigned popcount(const VlWide<N> &w) {
    unsigned n = 0;
    for (std::size_t i = 0; i < N; i++) n += static_cast<unsigned>(__builtin_popcount(w[i]));
    return n;
}

}  // namespace

// ------------------------------------------------------------------ tests

UNIT_TEST(layout) {
    XsHarness h(seed(0x7A00));
    std::string pkg;
    if (read_pkg(RNIC_PKG_SV, pkg)) {
        expect_pkg_struct(pkg, "qp_xs_t", kXsDesc);
        expect_pkg_struct(pkg, "qp_xs_we_t", kXsDesc, true);   // a bit per member, of its name
        expect_pkg_struct(pkg, "flight_t", kFlDesc);
        expect_pkg_struct(pkg, "flight_we_t", kFlDesc, true);
        expect_pkg_struct(pkg, "sched_xs_t", kSxDesc);
    }

    // Each member alone through the unit: exactly its bits set.
    const unsigned q = 5 % kNumQp;
    const Xs zero{};
    for (unsigned m = 0; m < kXsFields; m++) {
        fill(h, q, zero);
        Xs ones{};
        ones[m] = mask_of(kXsDesc[m].width);
        job(h, q, xs_we(static_cast<XsField>(m)), ones);
        h.look(q);
        const auto raw = h.raw_cur_xs();
        CHECK_EQ(popcount(raw), kXsDesc[m].width);
        CHECK_EQ(wide_get(raw, lsb_of(kXsDesc, m), kXsDesc[m].width), mask_of(kXsDesc[m].width));
    }
    // Every member all ones: the top bit is the struct's last, nothing above.
    Xs all;
    for (unsigned m = 0; m < kXsFields; m++) all[m] = mask_of(kXsDesc[m].width);
    fill(h, q, all);
    h.look(q);
    const auto raw_all = h.raw_cur_xs();
    CHECK_EQ(popcount(raw_all), kXsBits);
    CHECK_EQ(wide_get(raw_all, kXsBits - 1, 1), 1u);

    // The same for flight_t, through q's oldest slot (done 0).
    set_done(h, q, 0);
    const unsigned s = XsModel::slot_of(q, 0);
    for (unsigned m = 0; m < kFlFields; m++) {
        fill_slot(h, s, kFlWeAll, Flight{});
        Flight ones{};
        ones[m] = mask_of(kFlDesc[m].width);
        fill_slot(h, s, fl_we(static_cast<FlField>(m)), ones);
        h.look(q);
        const auto raw = h.raw_cur_oldest();
        CHECK_EQ(popcount(raw), kFlDesc[m].width);
        CHECK_EQ(wide_get(raw, lsb_of(kFlDesc, m), kFlDesc[m].width), mask_of(kFlDesc[m].width));
    }
    Flight fall;
    for (unsigned m = 0; m < kFlFields; m++) fall[m] = mask_of(kFlDesc[m].width);
    fill_slot(h, s, kFlWeAll, fall);
    h.look(q);
    const auto fl_all = h.raw_cur_oldest();
    CHECK_EQ(popcount(fl_all), kFlBits);
    CHECK_EQ(wide_get(fl_all, kFlBits - 1, 1), 1u);

    // sched_xs_t: each member alone, all ones, in q's row, through each
    // look in turn, the other looks at a QP p of zeros: exactly that
    // member's bits of that look's row. Every slot of both QPs zero, and
    // oldest_op's member through q's oldest slot (done 0).
    const unsigned p = 9 % kNumQp;
    for (unsigned i = 0; i < kDepth; i++) {
        fill_slot(h, XsModel::slot_of(q, i), kFlWeAll, Flight{});
        fill_slot(h, XsModel::slot_of(p, i), kFlWeAll, Flight{});
    }
    fill(h, p, zero);
    for (unsigned l = 0; l < kLooks; l++) {
        for (unsigned m = 0; m < kSxFields; m++) {
            fill(h, q, zero);
            Flight op{};
            if (m == kSxOldestOp)
                op[kFlOp] = 0xFF;
            fill_slot(h, XsModel::slot_of(q, 0), fl_we(kFlOp), op);
            if (m != kSxOldestOp) {
                Xs ones{};
                ones[kSxFrom[m]] = mask_of(kSxDesc[m].width);
                job(h, q, xs_we(kSxFrom[m]), ones);
            }
            XsIn in;
            for (unsigned k = 0; k < kLooks; k++) in.look[k] = k == l ? q : p;
            in.looks_given = true;
            h.peek(in);
            const auto raw = h.raw_look_xs();
            CHECK_EQ(popcount(raw), kSxDesc[m].width);
            CHECK_EQ(wide_get(raw, kSxBits * l + lsb_of(kSxDesc, m), kSxDesc[m].width), mask_of(kSxDesc[m].width));
            if (popcount(raw) != kSxDesc[m].width)
                std::fprintf(stderr, "  sched_xs_t member %s alone in look %u: %u bits of look_xs set\n",
                             kSxDesc[m].name, l, popcount(raw));
        }
    }
    // Every member of every row all ones: look_xs full to its top bit.
    for (unsigned m = 0; m < kSxOldestOp; m++) all[kSxFrom[m]] = mask_of(kSxDesc[m].width);
    fill(h, q, all);
    fill_slot(h, XsModel::slot_of(q, 0xFFFF), kFlWeAll, fall);   // done all ones: its slot
    h.look(q);
    const auto looks_all = h.raw_look_xs();
    CHECK_EQ(popcount(looks_all), kLooks * kSxBits);
    CHECK_EQ(wide_get(looks_all, kLooks * kSxBits - 1, 1), 1u);

    // cur_ops: each of cur's slots alone all ones, at its byte.
    for (unsigned i = 0; i < kDepth; i++) fill_slot(h, XsModel::slot_of(q, i), kFlWeAll, Flight{});
    for (unsigned i = 0; i < kDepth; i++) {
        Flight op{};
        op[kFlOp] = 0xFF;
        fill_slot(h, XsModel::slot_of(q, i), fl_we(kFlOp), op);
        h.look(q);
        CHECK_EQ(h.raw_cur_ops(), uint64_t{0xFF} << (8 * i));
        op[kFlOp] = 0;
        fill_slot(h, XsModel::slot_of(q, i), fl_we(kFlOp), op);
    }
}

// What INIT sets, on every port and look at q (read by look(q)): every
// field it clears 0, kick_why RETRY_WHY_TIMEOUT; so nxt_sq_ci 0 (sq_ci 0, not
// paused).
void expect_init(const XsOut &o, unsigned q, const char *what) {
    const int before = rnic_check_failures();
    for (unsigned f = 0; f < kXsFields; f++) {
        if (!(kInitClears & xs_we(static_cast<XsField>(f))))
            continue;
        CHECK_EQ(o.cur_xs[f], 0u);
        CHECK_EQ(o.pq_xs[f], 0u);
    }
    CHECK_EQ(o.cur_xs[kKickWhy], RNIC_RETRY_WHY_TIMEOUT);
    CHECK_EQ(o.pq_xs[kKickWhy], RNIC_RETRY_WHY_TIMEOUT);
    CHECK_EQ(o.db_sq_ci, 0u);
    CHECK_EQ(o.db_rq_ci, 0u);
    CHECK_EQ(o.nxt_sq_ci, 0u);
    CHECK_EQ(o.nxt_done, 0u);
    unsigned looks = 0;
    for (unsigned l = 0; l < kLooks; l++) {
        if (o.look_qp[l] != q)
            continue;
        ++looks;
        for (SxField i : {kSxSqCi, kSxDone, kSxRqCi, kSxFenced, kSxBindWait, kSxRdHold, kSxRnrWait, kSxPaused})
            CHECK_EQ(o.look[l][i], 0u);   // hold_done and oldest_op are not INIT's
    }
    CHECK_EQ(looks, kLooks);
    if (rnic_check_failures() != before)
        std::fprintf(stderr, "  (%s, qp %u)\n", what, q);
}

UNIT_TEST(reset_state) {
    XsHarness h(seed(0x7A01));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    // The model knows nothing of q: no field and no slot of it is compared.
    auto knows_nothing = [&h](unsigned q) {
        bool none = h.model().qp(q).known == 0;
        for (unsigned i = 0; i < kDepth; i++) none &= h.model().slot(XsModel::slot_of(q, i)).known == 0;
        return none;
    };

    // Power-up (and its rst_n): every field random. Nothing is compared
    // until INIT.
    for (unsigned q = 0; q < kNumQp; q++) {
        CHECK(knows_nothing(q));
        const uint64_t compared = h.stats().compared;
        h.look(q);
        CHECK_EQ(h.stats().compared, compared);
    }
    // INIT on each: what INIT says; the fields it does not set still
    // unknown (INIT and RTS set the fields, rst_n none).
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        command(h, make_cmd(r, RNIC_QP_CMD_INIT, q, r.percent(50)));
        expect_init(h.look(q), q, "INIT after power-up");
        CHECK_EQ(h.model().qp(q).known, kInitClears | kInitSets);
    }
    // The unit may show INIT's values before any INIT (rst_n makes its QPs
    // INIT-fresh), so INIT "whatever was there" is shown here on fields the
    // job made non-zero first: two partial writes (a QP's first write
    // after INIT, whatever it names, is where the unit fills INIT's fields
    // in its RAM), the fields INIT sets not all 0, then INIT again.
    unsigned junk = 0;
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        const Xs b = busy_xs(r);
        const uint32_t part = static_cast<uint32_t>(r.next()) & kXsWeAll;
        job(h, q, part, b);
        job(h, q, kXsWeAll & ~part, b);
        const XsOut o = h.look(q);
        for (unsigned f = 0; f < kXsFields; f++)
            junk += (kInitClears & xs_we(static_cast<XsField>(f))) && o.cur_xs[f] != 0;
        command(h, make_cmd(r, RNIC_QP_CMD_INIT, q, r.percent(50)));
        expect_init(h.look(q), q, "INIT after job writes");
    }
    CHECK(junk > kNumQp);

    // Every field and slot written, then rst_n with a writer of every kind
    // on the ports throughout (a command, every job enable, every in-flight
    // enable, all aimed at one QP and one of its slots); then on each QP,
    // INIT, RTS, or RESET then INIT then RTS.
    const unsigned codes[] = {RNIC_QP_CMD_INIT, RNIC_QP_CMD_RTS, RNIC_QP_CMD_RESET, RNIC_QP_CMD_ERROR, 6u};
    const unsigned lengths[] = {1, 2, 5, 1, 3};
    for (unsigned round = 0; round < 5 && !unit_stop(failures); round++) {
        std::vector<Xs> v(kNumQp);
        for (unsigned q = 0; q < kNumQp; q++) fill(h, q, v[q] = busy_xs(r));   // every flag set
        for (unsigned s = 0; s < kSlots; s++) fill_slot(h, s, kFlWeAll, random_flight(r));

        const unsigned q = (3 + 5 * round) % kNumQp;
        XsIn during = idle(r);
        during.cmd = make_cmd(r, codes[round], q, true);
        during.job.qp = q;
        during.job.we = kXsWeAll;
        during.job.data = busy_xs(r);
        during.fl.slot = XsModel::slot_of(q, round);
        during.fl.we = kFlWeAll;
        during.fl.data = random_flight(r);
        h.reset(lengths[round], &during);

        for (unsigned p = 0; p < kNumQp; p++) {
            CHECK(knows_nothing(p));
            // RESET alone first on some: its fence holds dropped, nothing
            // else known.
            if ((p + round) % 3 == 0) {
                command(h, make_cmd(r, RNIC_QP_CMD_RESET, p, r.percent(50)));
                const XsOut o = h.look(p);
                CHECK_EQ(o.cur_xs[kFenced], 0u);
                CHECK_EQ(o.cur_xs[kBindWait], 0u);
                for (unsigned l = 0; l < kLooks; l++) {
                    CHECK_EQ(o.look[l][kSxFenced], 0u);
                    CHECK_EQ(o.look[l][kSxBindWait], 0u);
                }
                CHECK_EQ(h.model().qp(p).known, kResetCmdClears);
            }
            const XsCmd init = make_cmd(r, RNIC_QP_CMD_INIT, p, r.percent(50));
            command(h, init);
            expect_init(h.look(p), p, "INIT after rst_n");
            // RTS from INIT: the PSNs and counts, INIT's fields kept.
            const XsCmd rts = make_cmd(r, RNIC_QP_CMD_RTS, p, true);
            command(h, rts);
            const XsOut o = h.look(p);
            expect_init(o, p, "RTS after INIT after rst_n");
            CHECK_EQ(o.cur_xs[kSqPsn], rts.sq_psn);
            CHECK_EQ(o.cur_xs[kRqPsn], rts.rq_psn);
            CHECK_EQ(o.cur_xs[kAckedPsn], rts.sq_psn);
            CHECK_EQ(o.cur_xs[kRetryLeft], rts.retry_cnt);
            CHECK_EQ(o.cur_xs[kRnrLeft], rts.rnr_retry);
        }
    }

    // The writers work on the first cycle after rst_n: the job (every
    // field), a command (INIT on another QP), the in-flight table (the
    // job's QP's oldest slot, done written in the same cycle).
    for (unsigned round = 0; round < 4 && !unit_stop(failures); round++) {
        h.reset(r.range(1, 3));
        const unsigned q = r.range(0, kNumQp - 1), p = (q + r.range(1, kNumQp - 1)) % kNumQp;
        XsIn in = idle(r);
        in.job.qp = q;
        in.job.we = kXsWeAll;
        in.job.data = busy_xs(r);
        in.cmd = make_cmd(r, RNIC_QP_CMD_INIT, p, false);
        in.fl.slot = XsModel::slot_of(q, static_cast<uint32_t>(in.job.data[kDone]));
        in.fl.we = kFlWeAll;
        in.fl.data = random_flight(r);
        h.cycle(in);
        const XsOut o = h.look(q);
        expect_xs(o, q, in.job.data, "the first job write after rst_n");
        expect_oldest(o, in.fl.slot, in.fl.data);
        expect_init(h.look(p), p, "INIT in the first cycle after rst_n");
    }
}

UNIT_TEST(each_command) {
    XsHarness h(seed(0x7A02));
    Rng &r = h.rng();
    const unsigned codes[] = {RNIC_QP_CMD_INIT, RNIC_QP_CMD_RTS, RNIC_QP_CMD_RESET, RNIC_QP_CMD_ERROR,
                              kNotCmds[0],      kNotCmds[1],     kNotCmds[2],       kNotCmds[3]};
    std::vector<Xs> v(kNumQp);
    for (unsigned q = 0; q < kNumQp; q++) fill(h, q, v[q] = busy_xs(r));
    const int failures = rnic_check_failures();
    for (unsigned code : codes) {
        for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
            fill(h, q, v[q] = busy_xs(r));
            // cmd_in_init set: it matters to RTS alone.
            const XsCmd k = make_cmd(r, code, q, true);
            command(h, k);
            v[q] = after_command(v[q], k);
            char what[64];
            std::snprintf(what, sizeof what, "command %u alone", code);
            expect_xs(h.look(q), q, v[q], what);
            const unsigned p = (q + 1) % kNumQp;
            expect_xs(h.look(p), p, v[p], "a QP no command named");
        }
    }
    // The commands spelled out on one QP.
    const unsigned q = 7 % kNumQp;
    Xs b = busy_xs(r);
    fill(h, q, b);
    command(h, make_cmd(r, RNIC_QP_CMD_INIT, q, false));
    XsOut o = h.look(q);
    for (XsField f : {kSqCi, kRqCi, kDone, kFenced, kBindWait, kRdHold, kOutGot, kRcvGot, kSndOpen, kWrLeft, kMsn,
                      kRnrWait, kRetrying, kNakSent, kPaused})
        CHECK_EQ(o.cur_xs[f], 0u);
    CHECK_EQ(o.cur_xs[kKickWhy], RNIC_RETRY_WHY_TIMEOUT);
    for (XsField f : {kSqPsn, kRqPsn, kHoldDone, kWrVa, kWrRkey, kRetryLeft, kRnrLeft, kAckedPsn, kPausePkts})
        CHECK_EQ(o.cur_xs[f], b[f]);
    fill(h, q, b = busy_xs(r));
    const XsCmd rts = make_cmd(r, RNIC_QP_CMD_RTS, q, true);
    command(h, rts);
    o = h.look(q);
    CHECK_EQ(o.cur_xs[kSqPsn], rts.sq_psn);
    CHECK_EQ(o.cur_xs[kRqPsn], rts.rq_psn);
    CHECK_EQ(o.cur_xs[kAckedPsn], rts.sq_psn);
    CHECK_EQ(o.cur_xs[kRetryLeft], rts.retry_cnt);
    CHECK_EQ(o.cur_xs[kRnrLeft], rts.rnr_retry);
    for (unsigned f = kMsn; f < kRetryLeft; f++) CHECK_EQ(o.cur_xs[f], b[f]);
    for (XsField f : {kRnrWait, kRetrying, kKickWhy, kNakSent, kPaused, kPausePkts}) CHECK_EQ(o.cur_xs[f], b[f]);
    fill(h, q, b = busy_xs(r));
    command(h, make_cmd(r, RNIC_QP_CMD_RESET, q, false));
    o = h.look(q);
    CHECK_EQ(o.cur_xs[kFenced], 0u);
    CHECK_EQ(o.cur_xs[kBindWait], 0u);
    CHECK_EQ(o.cur_xs[kRdHold], 1u);   // a READ hold is no fence hold
    CHECK_EQ(o.cur_xs[kSqCi], b[kSqCi]);
    for (unsigned f = kRetryLeft; f < kXsFields; f++) CHECK_EQ(o.cur_xs[f], b[f]);   // nor any retry or pause state
    // Without cmd_valid, no command does anything.
    fill(h, q, b = busy_xs(r));
    for (unsigned code : codes) {
        XsCmd k = make_cmd(r, code, q, true);
        k.valid = false;
        command(h, k);
    }
    expect_xs(h.look(q), q, b, "commands without cmd_valid");
}

UNIT_TEST(rts_outside_init) {
    XsHarness h(seed(0x7A03));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        const Xs b = busy_xs(r);
        fill(h, q, b);
        for (uint32_t psn : {0u, 1u, 0xFFFFFFu, r.u32() & 0xFFFFFFu}) {
            XsCmd k = make_cmd(r, RNIC_QP_CMD_RTS, q, false);
            k.sq_psn = psn;
            k.rq_psn = psn ^ 0x5A5A5Au;
            k.retry_cnt = (b[kRetryLeft] + 1 + psn) & 7u;   // never the value held: a load would show
            k.rnr_retry = (b[kRnrLeft] + 1 + psn) & 7u;
            if (k.retry_cnt == b[kRetryLeft])
                k.retry_cnt ^= 1u;
            if (k.rnr_retry == b[kRnrLeft])
                k.rnr_retry ^= 1u;
            command(h, k);
        }
        expect_xs(h.look(q), q, b, "RTS outside INIT");
        XsCmd quiet = make_cmd(r, RNIC_QP_CMD_RTS, q, true);
        quiet.valid = false;
        command(h, quiet);
        expect_xs(h.look(q), q, b, "RTS with cmd_in_init, no cmd_valid");
        // The same RTS from INIT: both PSNs, acked_psn and the retry counts, nothing else.
        const XsCmd k = make_cmd(r, RNIC_QP_CMD_RTS, q, true);
        command(h, k);
        Xs want = b;
        want[kSqPsn] = k.sq_psn;
        want[kRqPsn] = k.rq_psn;
        want[kAckedPsn] = k.sq_psn;
        want[kRetryLeft] = k.retry_cnt;
        want[kRnrLeft] = k.rnr_retry;
        expect_xs(h.look(q), q, want, "RTS from INIT");
        // And outside INIT again, after it: still nothing.
        command(h, make_cmd(r, RNIC_QP_CMD_RTS, q, false));
        expect_xs(h.look(q), q, want, "RTS outside INIT after an RTS");
    }
}

UNIT_TEST(job_fields) {
    XsHarness h(seed(0x7A04));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (unsigned q = 0; q < kNumQp; q++) {
        for (unsigned f = 0; f < kXsFields && !unit_stop(failures); f++) {
            const unsigned w = kXsDesc[f].width;
            for (uint64_t value : {uint64_t{0}, mask_of(w), rand_field(r, w)}) {
                Xs b = busy_xs(r);
                fill(h, q, b);
                // The other fields' data: every bit the opposite of the store's.
                Xs data;
                for (unsigned g = 0; g < kXsFields; g++) data[g] = ~b[g] & mask_of(kXsDesc[g].width);
                data[f] = value;
                job(h, q, xs_we(static_cast<XsField>(f)), data);
                b[f] = value;
                char what[64];
                std::snprintf(what, sizeof what, "job writes %s alone", kXsDesc[f].name);
                expect_xs(h.look(q), q, b, what);
            }
        }
        // No enable: nothing, whatever the data; every enable: every field.
        const Xs b = busy_xs(r);
        fill(h, q, b);
        for (int i = 0; i < 8; i++) job(h, q, 0, random_xs(r));
        expect_xs(h.look(q), q, b, "no enable");
        const Xs all = random_xs(r);
        fill(h, q, all);
        expect_xs(h.look(q), q, all, "every enable");
    }
}

UNIT_TEST(cmd_and_job) {
    XsHarness h(seed(0x7A05));
    Rng &r = h.rng();
    struct Cmd {
        const char *name;
        bool valid;
        unsigned code;
        bool in_init;
    };
    const Cmd cmds[] = {{"INIT", true, RNIC_QP_CMD_INIT, false},  {"RTS from INIT", true, RNIC_QP_CMD_RTS, true},
                        {"RTS not from INIT", true, RNIC_QP_CMD_RTS, false},
                        {"RESET", true, RNIC_QP_CMD_RESET, true}, {"ERROR", true, RNIC_QP_CMD_ERROR, true},
                        {"code 6", true, 6u, true},                {"no cmd_valid", false, RNIC_QP_CMD_INIT, true}};
    // The fields each command writes, by hand: the masks that overlap them
    // exactly, and their complement.
    auto cmd_fields = [](const Cmd &c) -> uint32_t {
        if (!c.valid)
            return 0;
        switch (c.code) {
        case RNIC_QP_CMD_INIT:
            return xs_we(kSqCi) | xs_we(kRqCi) | xs_we(kDone) | xs_we(kFenced) | xs_we(kBindWait) | xs_we(kRdHold) |
                   xs_we(kOutGot) | xs_we(kRcvGot) | xs_we(kSndOpen) | xs_we(kWrLeft) | xs_we(kMsn) |
                   xs_we(kRnrWait) | xs_we(kRetrying) | xs_we(kKickWhy) | xs_we(kNakSent) | xs_we(kPaused);
        case RNIC_QP_CMD_RTS:
            return c.in_init ? xs_we(kSqPsn) | xs_we(kRqPsn) | xs_we(kAckedPsn) | xs_we(kRetryLeft) | xs_we(kRnrLeft)
                             : 0;
        case RNIC_QP_CMD_RESET: return xs_we(kFenced) | xs_we(kBindWait);
        default: return 0;
        }
    };

    unsigned q = 0, cases = 0;
    const int failures = rnic_check_failures();
    for (const Cmd &c : cmds) {
        std::vector<uint32_t> masks = {0u, kXsWeAll, cmd_fields(c), kXsWeAll & ~cmd_fields(c)};
        for (unsigned f = 0; f < kXsFields; f++) masks.push_back(xs_we(static_cast<XsField>(f)));
        for (int i = 0; i < 3; i++) masks.push_back(static_cast<uint32_t>(r.next()) & kXsWeAll);
        for (uint32_t we : masks) {
            if (unit_stop(failures))
                return;
            q = (q + 1) % kNumQp;
            const Xs old = busy_xs(r);
            fill(h, q, old);
            XsIn in = idle(r);
            in.cmd = make_cmd(r, c.code, q, c.in_init);
            in.cmd.valid = c.valid;
            in.job.qp = q;
            in.job.we = we;
            in.job.data = random_xs(r);
            // Data that differs from what the command would write, so the
            // winner shows.
            in.job.data[kSqPsn] = in.cmd.sq_psn ^ 0x800001u;
            in.job.data[kRqPsn] = in.cmd.rq_psn ^ 0x800001u;
            in.job.data[kAckedPsn] = in.cmd.sq_psn ^ 0x400002u;
            in.job.data[kRetryLeft] = (in.cmd.retry_cnt + 1 + r.range(0, 6)) & 7u;
            in.job.data[kRnrLeft] = (in.cmd.rnr_retry + 1 + r.range(0, 6)) & 7u;
            for (XsField z : {kSqCi, kRqCi, kDone, kOutGot, kRcvGot, kWrLeft, kMsn, kFenced, kBindWait, kRdHold,
                              kSndOpen, kRnrWait, kRetrying, kKickWhy, kNakSent, kPaused})
                in.job.data[z] |= 1;   // INIT's 0 (kick_why: TIMEOUT, 0) would not show
            h.cycle(in);
            // By hand: each enabled field the job's; the others the command's
            // where it writes them; the rest as they were.
            Xs want = after_command(old, in.cmd);
            for (unsigned f = 0; f < kXsFields; f++)
                if (we & xs_we(static_cast<XsField>(f)))
                    want[f] = in.job.data[f] & mask_of(kXsDesc[f].width);
            char what[96];
            std::snprintf(what, sizeof what, "%s and a job write, enables 0x%04x, one QP", c.name, we);
            expect_xs(h.look(q), q, want, what);
            ++cases;
        }
    }
    CHECK_EQ(cases, 7u * (4u + kXsFields + 3u));

    // The cases by name.
    q = 9 % kNumQp;
    Xs old = busy_xs(r);
    fill(h, q, old);
    XsIn in = idle(r);
    in.cmd = make_cmd(r, RNIC_QP_CMD_INIT, q, false);
    in.job.qp = q;
    in.job.we = xs_we(kSqCi) | xs_we(kHoldDone);
    in.job.data[kSqCi] = 5;
    in.job.data[kHoldDone] = 0x1234;
    h.cycle(in);
    XsOut o = h.look(q);
    CHECK_EQ(o.cur_xs[kSqCi], 5u);                 // the job's, over INIT's 0
    CHECK_EQ(o.cur_xs[kRqCi], 0u);                 // INIT's, the job not writing it
    CHECK_EQ(o.cur_xs[kDone], 0u);
    CHECK_EQ(o.cur_xs[kMsn], 0u);
    CHECK_EQ(o.cur_xs[kHoldDone], 0x1234u);        // the job's; INIT does not write it
    CHECK_EQ(o.cur_xs[kSqPsn], old[kSqPsn]);       // neither writes it

    fill(h, q, old = busy_xs(r));
    in = idle(r);
    in.cmd = make_cmd(r, RNIC_QP_CMD_RTS, q, true);
    in.job.qp = q;
    in.job.we = xs_we(kSqPsn);
    in.job.data[kSqPsn] = in.cmd.sq_psn ^ 0xFFFFFFu;
    h.cycle(in);
    o = h.look(q);
    CHECK_EQ(o.cur_xs[kSqPsn], in.cmd.sq_psn ^ 0xFFFFFFu);   // the job's
    CHECK_EQ(o.cur_xs[kRqPsn], in.cmd.rq_psn);               // RTS's

    fill(h, q, old = busy_xs(r));
    in = idle(r);
    in.cmd = make_cmd(r, RNIC_QP_CMD_RESET, q, false);
    in.job.qp = q;
    in.job.we = xs_we(kFenced) | xs_we(kRdHold);
    in.job.data[kFenced] = 1;
    in.job.data[kRdHold] = 0;
    h.cycle(in);
    o = h.look(q);
    CHECK_EQ(o.cur_xs[kFenced], 1u);      // the job's, over RESET's clear
    CHECK_EQ(o.cur_xs[kBindWait], 0u);    // RESET's
    CHECK_EQ(o.cur_xs[kRdHold], 0u);      // the job's

    // On two QPs in one cycle: both land whole.
    for (const Cmd &c : cmds) {
        for (int i = 0; i < 8 && !unit_stop(failures); i++) {
            const unsigned a = r.range(0, kNumQp - 1), b = (a + r.range(1, kNumQp - 1)) % kNumQp;
            const Xs va = busy_xs(r), vb = busy_xs(r);
            fill(h, a, va);
            fill(h, b, vb);
            XsIn two = idle(r);
            two.cmd = make_cmd(r, c.code, a, c.in_init);
            two.cmd.valid = c.valid;
            two.job.qp = b;
            two.job.we = i < 4 ? kXsWeAll : static_cast<uint32_t>(r.next()) & kXsWeAll;
            two.job.data = random_xs(r);
            h.cycle(two);
            expect_xs(h.look(a), a, after_command(va, two.cmd), "the command's QP, a job on another");
            Xs wb = vb;
            for (unsigned f = 0; f < kXsFields; f++)
                if (two.job.we & xs_we(static_cast<XsField>(f)))
                    wb[f] = two.job.data[f];
            expect_xs(h.look(b), b, wb, "the job's QP, a command on another");
        }
    }
}

UNIT_TEST(flight_table) {
    XsHarness h(seed(0x7A06));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    // Every slot its own contents.
    std::vector<Flight> sl(kSlots);
    for (unsigned s = 0; s < kSlots; s++) {
        sl[s] = random_flight(r);
        sl[s][kFlOp] = (s * 37 + 11) & 0xFF;   // distinct: a neighbour's slot would show
        fill_slot(h, s, kFlWeAll, sl[s]);
    }
    // done through three laps of the slots, then across 2^16, for every QP.
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        for (uint32_t d = 0; d < 3 * kDepth; d++) {
            set_done(h, q, static_cast<uint16_t>(d));
            const XsOut o = h.look(q);
            CHECK_EQ(o.look[0][kSxDone], d);
            expect_oldest(o, XsModel::slot_of(q, d), sl[XsModel::slot_of(q, d)]);
        }
        for (uint32_t d = 0x10000u - 2 * kDepth - 1; d < 0x10000u + 2 * kDepth; d++) {
            set_done(h, q, static_cast<uint16_t>(d));
            const unsigned s = q * kDepth + (d & 0xFFFFu) % kDepth;
            expect_oldest(h.look(q), s, sl[s]);
        }
    }
    // cur and pq at two QPs: each its own oldest; the looks, taking turns
    // at the two, each its QP's oldest op.
    for (int i = 0; i < 200 && !unit_stop(failures); i++) {
        const unsigned a = r.range(0, kNumQp - 1), b = (a + r.range(1, kNumQp - 1)) % kNumQp;
        const uint16_t da = static_cast<uint16_t>(r.u32()), db = static_cast<uint16_t>(r.u32());
        set_done(h, a, da);
        set_done(h, b, db);
        XsIn in = idle(r);
        in.cur = a;
        in.pq = b;
        for (unsigned l = 0; l < kLooks; l++) in.look[l] = (l + i) % 2 ? b : a;
        in.looks_given = true;
        const XsOut o = h.peek(in);
        const unsigned sa = XsModel::slot_of(a, da), sb = XsModel::slot_of(b, db);
        expect_flight(o.cur_oldest, sl[sa], "cur_oldest", sa);
        expect_flight(o.pq_oldest, sl[sb], "pq_oldest", sb);
        for (unsigned l = 0; l < kLooks; l++) CHECK_EQ(o.look[l][kSxOldestOp], sl[(l + i) % 2 ? sb : sa][kFlOp]);
    }

    // Each field's enable alone, the other fields' data junk.
    const unsigned q = 3 % kNumQp;
    for (uint32_t d = 0; d < kDepth && !unit_stop(failures); d++) {
        set_done(h, q, static_cast<uint16_t>(d));
        const unsigned s = XsModel::slot_of(q, d);
        for (unsigned f = 0; f < kFlFields; f++) {
            Flight data;
            for (unsigned g = 0; g < kFlFields; g++) data[g] = ~sl[s][g] & mask_of(kFlDesc[g].width);
            fill_slot(h, s, fl_we(static_cast<FlField>(f)), data);
            sl[s][f] = data[f];
            expect_oldest(h.look(q), s, sl[s]);
        }
        // No enable: nothing.
        fill_slot(h, s, 0, random_flight(r));
        expect_oldest(h.look(q), s, sl[s]);
    }

    // A write to the oldest slot shows after its edge, not in its cycle.
    set_done(h, q, 2);
    unsigned s = XsModel::slot_of(q, 2);
    XsIn in = idle(r);
    in.cur = in.pq = q;
    in.fl.slot = s;
    in.fl.we = kFlWeAll;
    in.fl.data = random_flight(r);
    const XsOut before = h.cycle(in);
    expect_oldest(before, s, sl[s]);
    sl[s] = in.fl.data;
    expect_oldest(h.look(q), s, sl[s]);

    // done moved and the new oldest slot written in one cycle: after the
    // edge, the new slot with the new contents.
    in = idle(r);
    in.cur = in.pq = q;
    in.job.qp = q;
    in.job.we = xs_we(kDone);
    in.job.data[kDone] = 3;
    s = XsModel::slot_of(q, 3);
    in.fl.slot = s;
    in.fl.we = kFlWeAll;
    in.fl.data = random_flight(r);
    const XsOut mid = h.cycle(in);
    expect_oldest(mid, XsModel::slot_of(q, 2), sl[XsModel::slot_of(q, 2)]);
    sl[s] = in.fl.data;
    expect_oldest(h.look(q), s, sl[s]);

    // INIT puts done at 0: the first slot, on every QP.
    for (unsigned p = 0; p < kNumQp; p++) {
        set_done(h, p, static_cast<uint16_t>(kDepth * p + 1 + p % (kDepth - 1)));   // never slot 0
        command(h, make_cmd(r, RNIC_QP_CMD_INIT, p, false));
        expect_oldest(h.look(p), XsModel::slot_of(p, 0), sl[XsModel::slot_of(p, 0)]);
    }
}

UNIT_TEST(cur_ops) {
    XsHarness h(seed(0x7A07));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    // Every slot its own op (distinct: a neighbour's slot, or another QP's,
    // would show), and every QP a done, so that cur_ops is seen not to
    // follow it.
    std::vector<Flight> sl(kSlots);
    for (unsigned s = 0; s < kSlots; s++) {
        sl[s] = random_flight(r);
        sl[s][kFlOp] = (s * 29 + 3) & 0xFF;
        fill_slot(h, s, kFlWeAll, sl[s]);
    }
    for (unsigned q = 0; q < kNumQp; q++) set_done(h, q, static_cast<uint16_t>(r.u32()));
    auto expect_ops = [&](const XsOut &o, unsigned q, const char *what) {
        for (unsigned j = 0; j < kDepth; j++) {
            const unsigned s = XsModel::slot_of(q, j);
            CHECK_EQ(o.cur_ops[j], sl[s][kFlOp]);
            if (o.cur_ops[j] != sl[s][kFlOp])
                std::fprintf(stderr, "  %s: cur %u, cur_ops byte %u 0x%02x, expected slot %u's 0x%02x\n", what, q, j,
                             o.cur_ops[j], s, static_cast<unsigned>(sl[s][kFlOp]));
        }
    };
    // cur at each QP in turn, no clock between, the other ports anywhere.
    for (int lap = 0; lap < 3; lap++) {
        for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
            XsIn in = idle(r);
            in.cur = (q * 7 + lap) % kNumQp;
            expect_ops(h.peek(in), in.cur, "cur at each QP");
        }
    }
    // Whatever done is: done through a lap of the slots, cur_ops the same.
    const unsigned q = 5 % kNumQp;
    for (uint32_t d = 0; d < kDepth && !unit_stop(failures); d++) {
        set_done(h, q, static_cast<uint16_t>(d));
        expect_ops(h.look(q), q, "done moved");
    }
    // An op written alone, the other fields' data junk, from cur's QP and
    // from another QP: after its edge, in its own QP's cur_ops only.
    for (int i = 0; i < 200 && !unit_stop(failures); i++) {
        const unsigned s = r.range(0, kSlots - 1), owner = s / kDepth;
        XsIn in = idle(r);
        in.cur = r.percent(50) ? owner : r.range(0, kNumQp - 1);
        in.fl.slot = s;
        in.fl.we = fl_we(kFlOp);
        in.fl.data = random_flight(r);
        in.fl.data[kFlOp] = ~sl[s][kFlOp] & 0xFF;
        const XsOut before = h.cycle(in);
        expect_ops(before, in.cur, "in the cycle of the write");   // not yet
        sl[s][kFlOp] = in.fl.data[kFlOp];
        expect_ops(h.look(owner), owner, "after an op's write");
        const unsigned other = (owner + r.range(1, kNumQp - 1)) % kNumQp;
        expect_ops(h.look(other), other, "another QP's op written");
    }
    // The other fields' enables leave it.
    for (int i = 0; i < 50 && !unit_stop(failures); i++) {
        const unsigned s = r.range(0, kSlots - 1);
        Flight data = random_flight(r);
        data[kFlOp] = ~sl[s][kFlOp] & 0xFF;
        fill_slot(h, s, kFlWeAll & ~fl_we(kFlOp), data);
        for (unsigned f = 0; f < kFlFields; f++)
            if (f != kFlOp)
                sl[s][f] = data[f];
        expect_ops(h.look(s / kDepth), s / kDepth, "the other fields written");
    }
}

UNIT_TEST(looks) {
    XsHarness h(seed(0x7A0E));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    std::vector<Xs> v(kNumQp);
    std::vector<uint8_t> ops(kSlots);
    // The op of q's oldest slot, as its row shows it.
    auto oldest_op = [&](unsigned q) { return ops[XsModel::slot_of(q, static_cast<uint32_t>(v[q][kDone]))]; };
    // Each look's row in `o` against its QP's, oldest_op too.
    auto expect_looks = [&](const XsOut &o, const char *what) {
        for (unsigned l = 0; l < kLooks; l++) {
            const unsigned q = o.look_qp[l];
            for (unsigned i = 0; i < kSxOldestOp; i++) {
                CHECK_EQ(o.look[l][i], v[q][kSxFrom[i]]);
                if (o.look[l][i] != v[q][kSxFrom[i]])
                    std::fprintf(stderr, "  %s: look %u at qp %u: %s 0x%llx, expected 0x%llx\n", what, l, q,
                                 kSxDesc[i].name, static_cast<unsigned long long>(o.look[l][i]),
                                 static_cast<unsigned long long>(v[q][kSxFrom[i]]));
            }
            CHECK_EQ(o.look[l][kSxOldestOp], oldest_op(q));
        }
    };
    auto at = [&](const std::array<unsigned, kLooks> &qs) {
        XsIn in = idle(r);
        in.look = qs;
        in.looks_given = true;
        return h.peek(in);
    };

    // Each flag of each QP set alone, every QP read through every look.
    for (unsigned q = 0; q < kNumQp; q++) {
        v[q] = random_xs(r);
        v[q][kFenced] = v[q][kBindWait] = v[q][kRdHold] = v[q][kRnrWait] = v[q][kPaused] = 0;
        fill(h, q, v[q]);
    }
    for (unsigned s = 0; s < kSlots; s++) {
        Flight f = random_flight(r);
        f[kFlOp] = ops[s] = static_cast<uint8_t>(s ^ 0xA5);   // distinct
        fill_slot(h, s, kFlWeAll, f);
    }
    const SxField flags[] = {kSxFenced, kSxBindWait, kSxRdHold, kSxRnrWait, kSxPaused};
    for (SxField flag : flags) {
        for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
            Xs one{};
            one[kSxFrom[flag]] = 1;
            job(h, q, xs_we(kSxFrom[flag]), one);
            v[q][kSxFrom[flag]] = 1;
            const auto rows = h.rows(idle(r), q);
            for (unsigned p = 0; p < kNumQp; p++) {
                CHECK_EQ(rows[p][flag], p == q);
                if (rows[p][flag] != (p == q))
                    std::fprintf(stderr, "  %s of qp %u with only qp %u's set\n", kSxDesc[flag].name, p, q);
            }
            one[kSxFrom[flag]] = 0;
            job(h, q, xs_we(kSxFrom[flag]), one);
            v[q][kSxFrom[flag]] = 0;
        }
    }

    // Distinct values in every member of every QP's row (and every QP at
    // its own done, so its own oldest slot): look l at each QP in turn, the
    // other looks at the QPs after it.
    for (unsigned q = 0; q < kNumQp; q++) {
        v[q] = random_xs(r);
        v[q][kHoldDone] = 0x1000u + q;
        v[q][kSqCi] = 0x2000u + 0x11u * q;
        v[q][kDone] = 0x3000u + 0x101u * q;
        v[q][kRqCi] = 0xF000u - q;
        fill(h, q, v[q]);
    }
    for (unsigned l = 0; l < kLooks; l++) {
        for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
            std::array<unsigned, kLooks> qs;
            for (unsigned k = 0; k < kLooks; k++) qs[k] = (q + 1 + k) % kNumQp;
            qs[l] = q;
            expect_looks(at(qs), "look l at each QP");
        }
    }
    // All at one QP; pairs; random QPs, repeats and all: no clock between.
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        std::array<unsigned, kLooks> qs;
        qs.fill(q);
        expect_looks(at(qs), "every look at one QP");
        for (unsigned k = 0; k < kLooks; k++) qs[k] = k % 2 ? (q + 1) % kNumQp : q;
        expect_looks(at(qs), "looks taking turns at two QPs");
    }
    for (int i = 0; i < 1000 && !unit_stop(failures); i++) {
        std::array<unsigned, kLooks> qs;
        qs[0] = r.range(0, kNumQp - 1);
        for (unsigned k = 1; k < kLooks; k++) qs[k] = r.percent(20) ? qs[r.range(0, k - 1)] : r.range(0, kNumQp - 1);
        expect_looks(at(qs), "random looks");
    }

    // A write shows in the looks at its QP after its edge, not in its own
    // cycle, and in no look at another QP: every row member and done's
    // oldest slot, one QP at a time, the looks at it and its neighbours.
    uint32_t row_we = 0;
    for (unsigned i = 0; i < kSxOldestOp; i++) row_we |= xs_we(kSxFrom[i]);
    for (int i = 0; i < 300 && !unit_stop(failures); i++) {
        const unsigned q = r.range(0, kNumQp - 1);
        XsIn in = idle(r);
        for (unsigned k = 0; k < kLooks; k++) in.look[k] = r.percent(50) ? q : (q + 1 + k) % kNumQp;
        in.look[r.range(0, kLooks - 1)] = q;
        in.looks_given = true;
        in.job.qp = q;
        in.job.we = r.percent(30) ? xs_we(kSxFrom[r.range(0, kSxOldestOp - 1)])
                                  : static_cast<uint32_t>(r.next()) & row_we;
        in.job.data = random_xs(r);
        const XsOut before = h.cycle(in);
        expect_looks(before, "in the cycle of a write");
        for (unsigned f = 0; f < kXsFields; f++)
            if (in.job.we & xs_we(static_cast<XsField>(f)))
                v[q][f] = in.job.data[f];
        in.job.we = 0;
        expect_looks(h.peek(in), "after the edge of a write");
    }

    // sq_ci itself while paused (a pick's nxt_sq_ci is sq_ci - 1; the row
    // is the store's).
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        Xs d = random_xs(r);
        d[kPaused] = 1;
        job(h, q, xs_we(kPaused), d);
        v[q][kPaused] = 1;
        const XsOut o = h.look(q);
        CHECK_EQ(o.nxt_sq_ci, static_cast<uint16_t>(v[q][kSqCi] - 1));
        for (unsigned l = 0; l < kLooks; l++) CHECK_EQ(o.look[l][kSxSqCi], v[q][kSqCi]);
        CHECK_EQ(o.look[0][kSxPaused], 1u);
    }

    // oldest_op follows done through two laps of the slots and across
    // 2^16, and an op written alone (the other fields' data junk) after its
    // edge.
    const unsigned q = 11 % kNumQp;
    for (uint32_t d = 0x10000u - kDepth; d < 0x10000u + kDepth && !unit_stop(failures); d++) {
        set_done(h, q, static_cast<uint16_t>(d));
        v[q][kDone] = d & 0xFFFFu;
        std::array<unsigned, kLooks> qs;
        for (unsigned k = 0; k < kLooks; k++) qs[k] = (k + d) % 2 ? q : (q + k) % kNumQp;
        expect_looks(at(qs), "done walking the slots");
        const unsigned s = XsModel::slot_of(q, d);
        Flight f = random_flight(r);
        f[kFlOp] = ops[s] = static_cast<uint8_t>(~ops[s]);
        fill_slot(h, s, fl_we(kFlOp), f);
        expect_looks(at(qs), "the oldest slot's op written");
    }
}

UNIT_TEST(read_ports) {
    XsHarness h(seed(0x7A08));
    Rng &r = h.rng();
    std::vector<Xs> v(kNumQp);
    for (unsigned q = 0; q < kNumQp; q++) fill(h, q, v[q] = random_xs(r));
    // cur, pq, db and nxt at four different QPs, each its own.
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
        XsIn in = idle(r);
        in.cur = pick[0];
        in.pq = pick[1];
        in.db = pick[2];
        in.nxt = pick[3];
        for (unsigned &l : in.look) l = r.range(0, kNumQp - 1);
        in.looks_given = true;
        const XsOut o = (i % 2) ? h.peek(in) : h.cycle(in);
        for (unsigned f = 0; f < kXsFields; f++) {
            CHECK_EQ(o.cur_xs[f], v[pick[0]][f]);
            CHECK_EQ(o.pq_xs[f], v[pick[1]][f]);
        }
        unsigned looks = 0;
        for (unsigned q = 0; q < kNumQp; q++) looks += expect_rows(o, q, v[q], "a look at a random QP");
        CHECK_EQ(looks, kLooks);   // each look compared, with its QP's row
        CHECK_EQ(o.db_sq_ci, v[pick[2]][kSqCi]);
        CHECK_EQ(o.db_rq_ci, v[pick[2]][kRqCi]);
        CHECK_EQ(o.nxt_sq_ci, (v[pick[3]][kSqCi] - v[pick[3]][kPaused]) & 0xFFFFu);
        CHECK_EQ(o.nxt_done, v[pick[3]][kDone]);
    }
    // The ports follow their index with no clock: every QP at each in turn.
    XsIn in = idle(r);
    for (unsigned q = 0; q < kNumQp; q++) {
        in.cur = q;
        in.pq = (q + 1) % kNumQp;
        in.db = (q + 2) % kNumQp;
        in.nxt = (q + 3) % kNumQp;
        const XsOut o = h.peek(in);
        CHECK_EQ(o.cur_xs[kWrVa], v[q][kWrVa]);
        CHECK_EQ(o.pq_xs[kWrVa], v[(q + 1) % kNumQp][kWrVa]);
        CHECK_EQ(o.db_rq_ci, v[(q + 2) % kNumQp][kRqCi]);
        CHECK_EQ(o.nxt_done, v[(q + 3) % kNumQp][kDone]);
    }
    // A write shows after its edge, not in its own cycle.
    const unsigned q = 6 % kNumQp;
    in = idle(r);
    in.cur = in.pq = in.db = in.nxt = q;
    in.job.qp = q;
    in.job.we = kXsWeAll;
    in.job.data = random_xs(r);
    in.cmd = make_cmd(r, RNIC_QP_CMD_INIT, (q + 1) % kNumQp, false);
    const XsOut before = h.cycle(in);
    expect_xs(before, q, v[q], "before the edge of a write");
    v[q] = in.job.data;
    expect_xs(h.look(q), q, v[q], "after the edge of a write");
}

// RTS from INIT loads retry_left from cmd_retry_cnt, rnr_left from
// cmd_rnr_retry and acked_psn from cmd_sq_psn (not cmd_rq_psn); RTS outside
// INIT, cmd_in_init without cmd_valid and every other command leave all
// three, whatever the counts on the ports.
UNIT_TEST(rts_retry_counts) {
    XsHarness h(seed(0x7A09));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    const unsigned others[] = {RNIC_QP_CMD_INIT, RNIC_QP_CMD_RESET, RNIC_QP_CMD_ERROR,
                               kNotCmds[0],      kNotCmds[1],       kNotCmds[2],       kNotCmds[3]};
    // Every pair of counts, the QPs in turn.
    for (unsigned rc = 0; rc < 8; rc++) {
        for (unsigned rn = 0; rn < 8 && !unit_stop(failures); rn++) {
            const unsigned q = (rc * 8 + rn) % kNumQp, p = (q + 1) % kNumQp;
            Xs b = busy_xs(r);
            b[kRetryLeft] = 7 - rc;   // never the value loaded
            b[kRnrLeft] = 7 - rn;
            fill(h, q, b);
            const Xs bp = busy_xs(r);
            fill(h, p, bp);
            XsCmd k = make_cmd(r, RNIC_QP_CMD_RTS, q, true);
            k.retry_cnt = rc;
            k.rnr_retry = rn;
            if (k.sq_psn == b[kAckedPsn])
                k.sq_psn ^= 0x800000u;
            k.rq_psn = k.sq_psn ^ 0xA5A5A5u;   // acked_psn must be the send PSN, not this
            command(h, k);
            Xs want = b;
            want[kSqPsn] = want[kAckedPsn] = k.sq_psn;
            want[kRqPsn] = k.rq_psn;
            want[kRetryLeft] = rc;
            want[kRnrLeft] = rn;
            expect_xs(h.look(q), q, want, "RTS from INIT, retry counts loaded");
            expect_xs(h.look(p), p, bp, "a QP the RTS did not name");

            // RTS outside INIT: other counts, another PSN, nothing of it.
            XsCmd late = make_cmd(r, RNIC_QP_CMD_RTS, q, false);
            late.retry_cnt = 7 - rc;
            late.rnr_retry = 7 - rn;
            late.sq_psn = k.sq_psn ^ 0xFFFFFFu;
            command(h, late);
            expect_xs(h.look(q), q, want, "RTS outside INIT, other retry counts");
            // cmd_in_init but no cmd_valid: nothing.
            late.in_init = true;
            late.valid = false;
            command(h, late);
            expect_xs(h.look(q), q, want, "RTS from INIT without cmd_valid");
            // Every other command, cmd_in_init and other counts on the ports:
            // the counts and acked_psn stay.
            for (unsigned code : others) {
                XsCmd o = make_cmd(r, code, q, true);
                o.retry_cnt = 7 - rc;
                o.rnr_retry = 7 - rn;
                command(h, o);
                want = after_command(want, o);
                const XsOut out = h.look(q);
                CHECK_EQ(out.cur_xs[kRetryLeft], rc);
                CHECK_EQ(out.cur_xs[kRnrLeft], rn);
                CHECK_EQ(out.cur_xs[kAckedPsn], k.sq_psn);
                char what[64];
                std::snprintf(what, sizeof what, "command %u after an RTS", code);
                expect_xs(out, q, want, what);
            }
        }
    }
    // acked_psn at the ends of the 24-bit range; the counts at 0 and 7.
    const unsigned q = 4 % kNumQp;
    for (uint32_t psn : {0u, 0xFFFFFFu, 0x800000u, 0x7FFFFFu}) {
        fill(h, q, busy_xs(r));
        XsCmd k = make_cmd(r, RNIC_QP_CMD_RTS, q, true);
        k.sq_psn = psn;
        k.rq_psn = ~psn & 0xFFFFFFu;
        k.retry_cnt = psn & 1 ? 7 : 0;
        k.rnr_retry = psn & 1 ? 0 : 7;
        command(h, k);
        const XsOut o = h.look(q);
        CHECK_EQ(o.cur_xs[kAckedPsn], psn);
        CHECK_EQ(o.pq_xs[kAckedPsn], psn);
        CHECK_EQ(o.cur_xs[kRetryLeft], k.retry_cnt);
        CHECK_EQ(o.cur_xs[kRnrLeft], k.rnr_retry);
    }
    // A connection's life: RTS loads, the job spends retries and moves
    // acked_psn, INIT keeps them, the next RTS loads afresh.
    for (unsigned p = 0; p < kNumQp && !unit_stop(failures); p++) {
        fill(h, p, busy_xs(r));
        command(h, make_cmd(r, RNIC_QP_CMD_INIT, p, false));
        XsCmd k = make_cmd(r, RNIC_QP_CMD_RTS, p, true);
        k.retry_cnt = 7;
        k.rnr_retry = 6;
        command(h, k);
        Xs spent{};
        spent[kRetryLeft] = 2;
        spent[kRnrLeft] = 1;
        spent[kAckedPsn] = (k.sq_psn + 17) & 0xFFFFFFu;
        job(h, p, xs_we(kRetryLeft) | xs_we(kRnrLeft) | xs_we(kAckedPsn), spent);
        command(h, make_cmd(r, RNIC_QP_CMD_INIT, p, false));
        XsOut o = h.look(p);
        CHECK_EQ(o.cur_xs[kRetryLeft], 2u);
        CHECK_EQ(o.cur_xs[kRnrLeft], 1u);
        CHECK_EQ(o.cur_xs[kAckedPsn], spent[kAckedPsn]);
        XsCmd again = make_cmd(r, RNIC_QP_CMD_RTS, p, true);
        again.retry_cnt = 3;
        again.rnr_retry = 5;
        command(h, again);
        o = h.look(p);
        CHECK_EQ(o.cur_xs[kRetryLeft], 3u);
        CHECK_EQ(o.cur_xs[kRnrLeft], 5u);
        CHECK_EQ(o.cur_xs[kAckedPsn], again.sq_psn);
    }
}

// INIT clears the old connection's rnr_wait, retrying and nak_sent and sets
// kick_why to RETRY_WHY_TIMEOUT, from every combination of them, and keeps
// the retry counts and acked_psn; no other command touches the four, and
// INIT on one QP leaves every other's.
UNIT_TEST(init_clears_retry_state) {
    XsHarness h(seed(0x7A0A));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (unsigned q = 0; q < kNumQp; q++) {
        for (unsigned m = 0; m < 32 && !unit_stop(failures); m++) {
            // Every QP with its flags set, so that a neighbour cleared shows.
            const unsigned p = (q + 1 + m % (kNumQp - 1)) % kNumQp;
            Xs bp = busy_xs(r);
            bp[kRnrWait] = bp[kRetrying] = bp[kNakSent] = 1;
            bp[kKickWhy] = RNIC_RETRY_WHY_RNR;
            fill(h, p, bp);
            Xs b = busy_xs(r);
            b[kRnrWait] = m & 1;
            b[kRetrying] = (m >> 1) & 1;
            b[kNakSent] = (m >> 2) & 1;
            b[kKickWhy] = (m >> 3) & 3;
            fill(h, q, b);
            command(h, make_cmd(r, RNIC_QP_CMD_INIT, q, r.percent(50)));
            const XsOut o = look_two(h, q, p);   // look 0 at q, look 1 at p
            CHECK_EQ(o.cur_xs[kRnrWait], 0u);
            CHECK_EQ(o.cur_xs[kRetrying], 0u);
            CHECK_EQ(o.cur_xs[kNakSent], 0u);
            CHECK_EQ(o.cur_xs[kKickWhy], RNIC_RETRY_WHY_TIMEOUT);
            CHECK_EQ(o.look[0][kSxRnrWait], 0u);
            CHECK_EQ(o.cur_xs[kRetryLeft], b[kRetryLeft]);
            CHECK_EQ(o.cur_xs[kRnrLeft], b[kRnrLeft]);
            CHECK_EQ(o.cur_xs[kAckedPsn], b[kAckedPsn]);
            CHECK_EQ(o.look[1][kSxRnrWait], 1u);
            expect_xs(o, q, after_command(b, make_cmd(r, RNIC_QP_CMD_INIT, q, false)), "INIT from retry state");
            expect_xs(h.look(p), p, bp, "a QP INIT did not name");
        }
        // The other commands leave all four set, whatever cmd_in_init.
        for (unsigned code : {static_cast<unsigned>(RNIC_QP_CMD_RTS), static_cast<unsigned>(RNIC_QP_CMD_RESET),
                              static_cast<unsigned>(RNIC_QP_CMD_ERROR), kNotCmds[0], kNotCmds[3]}) {
            for (bool in_init : {false, true}) {
                Xs b = busy_xs(r);
                b[kRnrWait] = b[kRetrying] = b[kNakSent] = 1;
                b[kKickWhy] = r.range(1, 3);
                fill(h, q, b);
                const XsCmd k = make_cmd(r, code, q, in_init);
                command(h, k);
                const XsOut o = h.look(q);
                CHECK_EQ(o.cur_xs[kRnrWait], 1u);
                CHECK_EQ(o.cur_xs[kRetrying], 1u);
                CHECK_EQ(o.cur_xs[kNakSent], 1u);
                CHECK_EQ(o.cur_xs[kKickWhy], b[kKickWhy]);
                CHECK_EQ(o.look[0][kSxRnrWait], 1u);
                expect_xs(o, q, after_command(b, k), "a command other than INIT on retry state");
            }
        }
        // INIT without cmd_valid: nothing.
        Xs b = busy_xs(r);
        b[kRnrWait] = b[kRetrying] = b[kNakSent] = 1;
        fill(h, q, b);
        XsCmd k = make_cmd(r, RNIC_QP_CMD_INIT, q, false);
        k.valid = false;
        command(h, k);
        expect_xs(h.look(q), q, b, "INIT without cmd_valid");
    }
}

// A job write of a retry field beats the command on its QP in the same
// cycle; the command's other fields land.
UNIT_TEST(job_beats_cmd_retry) {
    XsHarness h(seed(0x7A0B));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    // INIT against each field it clears or sets, the job writing a value
    // INIT would not: the job's; INIT's other three its own.
    struct One {
        XsField f;
        uint64_t value;
    };
    const One init_cases[] = {{kRnrWait, 1},
                              {kRetrying, 1},
                              {kNakSent, 1},
                              {kKickWhy, RNIC_RETRY_WHY_SEQ_NAK},
                              {kKickWhy, RNIC_RETRY_WHY_IMPLICIT},
                              {kKickWhy, RNIC_RETRY_WHY_RNR}};
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        for (const One &c : init_cases) {
            const Xs old = busy_xs(r);
            fill(h, q, old);
            XsIn in = idle(r);
            in.cmd = make_cmd(r, RNIC_QP_CMD_INIT, q, r.percent(50));
            in.job.qp = q;
            in.job.we = xs_we(c.f);
            in.job.data[c.f] = c.value;
            h.cycle(in);
            Xs want = after_command(old, in.cmd);
            want[c.f] = c.value;
            const XsOut o = h.look(q);
            CHECK_EQ(o.cur_xs[c.f], c.value);
            for (XsField g : {kRnrWait, kRetrying, kNakSent})
                if (g != c.f)
                    CHECK_EQ(o.cur_xs[g], 0u);
            if (c.f != kKickWhy)
                CHECK_EQ(o.cur_xs[kKickWhy], RNIC_RETRY_WHY_TIMEOUT);
            CHECK_EQ(o.look[0][kSxRnrWait], c.f == kRnrWait);
            char what[80];
            std::snprintf(what, sizeof what, "INIT and a job write of %s", kXsDesc[c.f].name);
            expect_xs(o, q, want, what);
        }
        // All four at once: every one the job's.
        fill(h, q, busy_xs(r));
        XsIn in = idle(r);
        in.cmd = make_cmd(r, RNIC_QP_CMD_INIT, q, false);
        in.job.qp = q;
        in.job.we = xs_we(kRnrWait) | xs_we(kRetrying) | xs_we(kNakSent) | xs_we(kKickWhy);
        in.job.data[kRnrWait] = in.job.data[kRetrying] = in.job.data[kNakSent] = 1;
        in.job.data[kKickWhy] = RNIC_RETRY_WHY_RNR;
        h.cycle(in);
        XsOut o = h.look(q);
        CHECK(o.cur_xs[kRnrWait] && o.cur_xs[kRetrying] && o.cur_xs[kNakSent] && o.look[0][kSxRnrWait]);
        CHECK_EQ(o.cur_xs[kKickWhy], RNIC_RETRY_WHY_RNR);
        CHECK_EQ(o.cur_xs[kSqCi], 0u);   // INIT's, the job not writing it

        // RTS from INIT against each field it loads, and all three.
        const uint32_t loads[] = {xs_we(kRetryLeft), xs_we(kRnrLeft), xs_we(kAckedPsn),
                                  xs_we(kRetryLeft) | xs_we(kRnrLeft) | xs_we(kAckedPsn)};
        for (uint32_t we : loads) {
            fill(h, q, busy_xs(r));
            in = idle(r);
            in.cmd = make_cmd(r, RNIC_QP_CMD_RTS, q, true);
            in.job.qp = q;
            in.job.we = we;
            in.job.data[kRetryLeft] = (in.cmd.retry_cnt + r.range(1, 7)) & 7u;
            in.job.data[kRnrLeft] = (in.cmd.rnr_retry + r.range(1, 7)) & 7u;
            in.job.data[kAckedPsn] = (in.cmd.sq_psn + r.range(1, 0xFFFFFE)) & 0xFFFFFFu;
            h.cycle(in);
            o = h.look(q);
            CHECK_EQ(o.cur_xs[kRetryLeft], we & xs_we(kRetryLeft) ? in.job.data[kRetryLeft] : in.cmd.retry_cnt);
            CHECK_EQ(o.cur_xs[kRnrLeft], we & xs_we(kRnrLeft) ? in.job.data[kRnrLeft] : in.cmd.rnr_retry);
            CHECK_EQ(o.cur_xs[kAckedPsn], we & xs_we(kAckedPsn) ? in.job.data[kAckedPsn] : in.cmd.sq_psn);
            CHECK_EQ(o.cur_xs[kSqPsn], in.cmd.sq_psn);   // RTS's, the job not writing it
            CHECK_EQ(o.cur_xs[kRqPsn], in.cmd.rq_psn);
        }
        // The job's sq_psn does not become acked_psn: RTS takes cmd_sq_psn.
        fill(h, q, busy_xs(r));
        in = idle(r);
        in.cmd = make_cmd(r, RNIC_QP_CMD_RTS, q, true);
        in.job.qp = q;
        in.job.we = xs_we(kSqPsn);
        in.job.data[kSqPsn] = in.cmd.sq_psn ^ 0x0F0F0Fu;
        h.cycle(in);
        o = h.look(q);
        CHECK_EQ(o.cur_xs[kSqPsn], in.cmd.sq_psn ^ 0x0F0F0Fu);
        CHECK_EQ(o.cur_xs[kAckedPsn], in.cmd.sq_psn);
        CHECK_EQ(o.cur_xs[kRetryLeft], in.cmd.retry_cnt);

        // RTS outside INIT and RESET with a job write of every retry field:
        // the job's, the command's nothing of them.
        for (unsigned code : {static_cast<unsigned>(RNIC_QP_CMD_RTS), static_cast<unsigned>(RNIC_QP_CMD_RESET)}) {
            const Xs old = busy_xs(r);
            fill(h, q, old);
            in = idle(r);
            in.cmd = make_cmd(r, code, q, false);
            in.job.qp = q;
            in.job.we = xs_we(kRetryLeft) | xs_we(kRnrLeft) | xs_we(kRnrWait) | xs_we(kRetrying) | xs_we(kKickWhy) |
                        xs_we(kAckedPsn) | xs_we(kNakSent);
            in.job.data = random_xs(r);
            h.cycle(in);
            Xs want = after_command(old, in.cmd);
            for (unsigned f = kRetryLeft; f < kXsFields; f++)
                if (in.job.we & xs_we(static_cast<XsField>(f)))
                    want[f] = in.job.data[f];
            expect_xs(h.look(q), q, want, "RTS outside INIT or RESET, a job write of the retry fields");
        }
    }
}

// rnr_wait through the looks: each look at QP q shows q's, whatever the
// other ports name; it changes after the edge of a write, with INIT on its
// QP, and with nothing else. After rst_n nothing is known until INIT, which
// clears it whatever it was.
UNIT_TEST(look_rnr_wait) {
    XsHarness h(seed(0x7A0C));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    bool want[kNumQp] = {};
    unsigned turn = 0;   // which look reads which QP, moved on at each view
    // Every QP's rnr_wait, through every look over the views.
    auto expect_view = [&](const char *what) {
        const auto rows = h.rows(idle(r), turn++);
        for (unsigned p = 0; p < kNumQp; p++) {
            CHECK_EQ(rows[p][kSxRnrWait], want[p]);
            if (rows[p][kSxRnrWait] != want[p])
                std::fprintf(stderr, "  %s: rnr_wait of qp %u is %d\n", what, p, static_cast<int>(rows[p][kSxRnrWait]));
        }
    };
    // The looks of one cycle (the harness's: one at the QP written).
    auto expect_looks = [&](const XsOut &o, const char *what) {
        for (unsigned l = 0; l < kLooks; l++) {
            CHECK_EQ(o.look[l][kSxRnrWait], want[o.look_qp[l]]);
            if (o.look[l][kSxRnrWait] != want[o.look_qp[l]])
                std::fprintf(stderr, "  %s: look %u at qp %u: rnr_wait %d\n", what, l, o.look_qp[l],
                             static_cast<int>(o.look[l][kSxRnrWait]));
        }
    };
    // rnr_wait set on every QP, one job write each.
    auto set_every_qp = [&]() {
        for (unsigned q = 0; q < kNumQp; q++) {
            Xs one{};
            one[kRnrWait] = 1;
            job(h, q, xs_we(kRnrWait), one);
            want[q] = true;
        }
    };
    // Everything else set, rnr_wait clear, on every QP.
    for (unsigned q = 0; q < kNumQp; q++) {
        Xs v = busy_xs(r);
        v[kRnrWait] = 0;
        fill(h, q, v);
    }
    expect_view("all clear");
    // Each QP's alone, read with the ports anywhere.
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        Xs one{};
        one[kRnrWait] = 1;
        const XsOut before = job(h, q, xs_we(kRnrWait), one);
        expect_looks(before, "in the cycle of the write");   // not yet
        want[q] = true;
        expect_view("one QP's set");
        one[kRnrWait] = 0;
        job(h, q, xs_we(kRnrWait), one);
        want[q] = false;
        expect_view("that one cleared again");
    }
    // Every one set, then each cleared alone.
    set_every_qp();
    expect_view("every one set");
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        Xs zero{};
        job(h, q, xs_we(kRnrWait), zero);
        want[q] = false;
        expect_view("cleared one by one");
        zero[kRnrWait] = 1;
        job(h, q, xs_we(kRnrWait), zero);
        want[q] = true;
    }
    // Random patterns, one job write per changed QP; the looks of each
    // write's cycle too.
    for (int i = 0; i < 100 && !unit_stop(failures); i++) {
        const uint32_t mask = r.u32();
        for (unsigned q = 0; q < kNumQp; q++) {
            const bool bit = (mask >> q) & 1;
            if (bit == want[q] && r.percent(70))
                continue;
            Xs d = random_xs(r);
            d[kRnrWait] = bit;
            expect_looks(job(h, q, xs_we(kRnrWait), d), "a random pattern, before the edge");
            want[q] = bit;
        }
        expect_view("a random pattern");
    }
    // Writes of every other field, rnr_wait's data the opposite: no change.
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        Xs d = random_xs(r);
        d[kRnrWait] = !want[q];
        job(h, q, kXsWeAll & ~xs_we(kRnrWait), d);
        expect_looks(h.look(q), "other fields written");
    }
    // The other commands leave it; INIT clears its QP's alone.
    set_every_qp();
    for (unsigned code : {static_cast<unsigned>(RNIC_QP_CMD_RTS), static_cast<unsigned>(RNIC_QP_CMD_RESET),
                          static_cast<unsigned>(RNIC_QP_CMD_ERROR), kNotCmds[2]}) {
        command(h, make_cmd(r, code, r.range(0, kNumQp - 1), true));
        expect_view("a command other than INIT");
    }
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q += 3) {
        command(h, make_cmd(r, RNIC_QP_CMD_INIT, q, false));
        want[q] = false;
        expect_view("INIT on one QP");
    }
    // rst_n from every one set: nothing known (nothing compared) until
    // INIT, which clears each, whatever it was.
    set_every_qp();
    h.reset();
    for (unsigned q = 0; q < kNumQp; q++) {
        CHECK(!h.model().qp(q).has(kRnrWait));
        command(h, make_cmd(r, RNIC_QP_CMD_INIT, q, r.percent(50)));
        want[q] = false;
    }
    expect_view("INIT on every QP after rst_n");
}

// paused and pause_pkts: the job writes them like every field, per QP;
// a look at a QP shows its paused; nxt_sq_ci is the WQE a pick of nxt
// fetches, the paused one (sq_ci - 1) again, where db_sq_ci, the looks'
// sq_ci and the struct ports keep sq_ci. INIT clears paused (on its QP
// alone) and keeps pause_pkts; no other command touches either; after
// rst_n, INIT clears paused whatever it was.
UNIT_TEST(paused_fields) {
    XsHarness h(seed(0x7A0D));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    // A job write on q with every read port at q: what the unit showed
    // before the edge.
    auto write = [&h](unsigned q, uint32_t we, const Xs &data, const XsCmd *k = nullptr) {
        XsIn in = idle(h.rng());
        in.cur = in.pq = in.db = in.nxt = q;
        in.job.qp = q;
        in.job.we = we;
        in.job.data = data;
        if (k)
            in.cmd = *k;
        return h.cycle(in);
    };
    // Every QP busy but not paused, so that one QP's pause stands out.
    std::vector<Xs> v(kNumQp);
    for (unsigned q = 0; q < kNumQp; q++) {
        v[q] = busy_xs(r);
        v[q][kPaused] = 0;
        fill(h, q, v[q]);
    }
    // Every QP's row through the looks, which look reads which QP moved on
    // each time: paused, and sq_ci itself, paused or not.
    unsigned turn = 0;
    auto expect_view = [&](const char *what) {
        const auto rows = h.rows(idle(r), turn++);
        for (unsigned p = 0; p < kNumQp; p++) {
            CHECK_EQ(rows[p][kSxPaused], v[p][kPaused]);
            CHECK_EQ(rows[p][kSxSqCi], v[p][kSqCi]);
            if (rows[p][kSxPaused] != v[p][kPaused])
                std::fprintf(stderr, "  %s: paused of qp %u is %d\n", what, p, static_cast<int>(rows[p][kSxPaused]));
        }
    };

    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        // Each alone, at all ones, 0 and random, the other fields' data
        // every bit the opposite of the store's: only that field moves.
        for (XsField f : {kPaused, kPausePkts}) {
            const unsigned w = kXsDesc[f].width;
            for (uint64_t value : {mask_of(w), uint64_t{0}, rand_field(r, w), mask_of(w)}) {
                Xs data;
                for (unsigned g = 0; g < kXsFields; g++) data[g] = ~v[q][g] & mask_of(kXsDesc[g].width);
                data[f] = value;
                const XsOut before = write(q, xs_we(f), data);
                expect_xs(before, q, v[q], "in the cycle of the write");   // not yet
                v[q][f] = value;
                char what[64];
                std::snprintf(what, sizeof what, "job writes %s alone", kXsDesc[f].name);
                expect_xs(h.look(q), q, v[q], what);
                expect_view(what);
            }
        }
        // Paused (the loop above left it set): the pick fetches sq_ci - 1,
        // the doorbell port still reads sq_ci; another QP at nxt its own.
        XsOut o = h.look(q);
        CHECK_EQ(v[q][kPaused], 1u);
        CHECK_EQ(o.nxt_sq_ci, static_cast<uint16_t>(v[q][kSqCi] - 1));
        CHECK_EQ(o.db_sq_ci, v[q][kSqCi]);
        CHECK_EQ(o.cur_xs[kSqCi], v[q][kSqCi]);
        const unsigned p = (q + 1 + r.range(0, kNumQp - 2)) % kNumQp;
        XsIn at = idle(r);
        at.cur = q;
        at.nxt = p;
        CHECK_EQ(h.peek(at).nxt_sq_ci, v[p][kSqCi]);
        // Both in one write; then sq_ci and paused in one write, across 2^16.
        Xs both = random_xs(r);
        both[kPaused] = 1;
        write(q, xs_we(kPaused) | xs_we(kPausePkts), both);
        v[q][kPaused] = 1;
        v[q][kPausePkts] = both[kPausePkts];
        expect_xs(h.look(q), q, v[q], "paused and pause_pkts in one write");
        for (uint16_t ci : {uint16_t{0}, uint16_t{1}, uint16_t{0x8000}}) {
            Xs d = random_xs(r);
            d[kSqCi] = ci;
            d[kPaused] = 1;
            write(q, xs_we(kSqCi) | xs_we(kPaused), d);
            v[q][kSqCi] = ci;
            o = h.look(q);
            CHECK_EQ(o.nxt_sq_ci, static_cast<uint16_t>(ci - 1));   // 0 -> 0xFFFF
            CHECK_EQ(o.look[0][kSxSqCi], ci);
            expect_xs(o, q, v[q], "sq_ci and paused in one write");
        }
        // Cleared: nxt_sq_ci is sq_ci again, pause_pkts kept.
        Xs zero = random_xs(r);
        zero[kPaused] = 0;
        write(q, xs_we(kPaused), zero);
        v[q][kPaused] = 0;
        o = h.look(q);
        CHECK_EQ(o.nxt_sq_ci, v[q][kSqCi]);
        CHECK_EQ(o.cur_xs[kPausePkts], v[q][kPausePkts]);
        expect_view("paused cleared");
    }

    // INIT on a paused QP: paused 0 (nxt_sq_ci INIT's sq_ci, 0), pause_pkts
    // kept, a paused neighbour kept.
    for (unsigned q = 0; q < kNumQp && !unit_stop(failures); q++) {
        const unsigned p = (q + 1) % kNumQp;
        for (unsigned x : {q, p}) {
            v[x] = busy_xs(r);   // paused
            fill(h, x, v[x]);
        }
        const XsCmd k = make_cmd(r, RNIC_QP_CMD_INIT, q, r.percent(50));
        command(h, k);
        v[q] = after_command(v[q], k);
        const XsOut o = look_two(h, q, p);   // look 0 at q, look 1 at p
        CHECK_EQ(o.cur_xs[kPaused], 0u);
        CHECK_EQ(o.look[0][kSxPaused], 0u);
        CHECK_EQ(o.nxt_sq_ci, 0u);
        CHECK_EQ(o.cur_xs[kPausePkts], v[q][kPausePkts]);
        CHECK_EQ(o.look[1][kSxPaused], 1u);
        expect_xs(o, q, v[q], "INIT on a paused QP");
        expect_xs(h.look(p), p, v[p], "a paused QP INIT did not name");
        expect_view("INIT on one QP");
        // The job's paused and pause_pkts beat INIT's in one cycle: paused
        // at sq_ci 0, so a pick would fetch 0xFFFF.
        Xs d = random_xs(r);
        d[kPaused] = 1;
        const XsCmd again = make_cmd(r, RNIC_QP_CMD_INIT, q, false);
        write(q, xs_we(kPaused) | xs_we(kPausePkts), d, &again);
        v[q] = after_command(v[q], again);
        v[q][kPaused] = 1;
        v[q][kPausePkts] = d[kPausePkts];
        const XsOut j = h.look(q);
        CHECK_EQ(j.look[0][kSxPaused], 1u);
        CHECK_EQ(j.nxt_sq_ci, 0xFFFFu);
        expect_xs(j, q, v[q], "INIT and a job write of paused");
        // Every other command, and INIT without cmd_valid: both kept.
        for (unsigned code : {static_cast<unsigned>(RNIC_QP_CMD_RTS), static_cast<unsigned>(RNIC_QP_CMD_RESET),
                              static_cast<unsigned>(RNIC_QP_CMD_ERROR), kNotCmds[0], kNotCmds[3]}) {
            for (bool in_init : {false, true}) {
                const XsCmd c = make_cmd(r, code, q, in_init);
                command(h, c);
                v[q] = after_command(v[q], c);
                const XsOut k2 = h.look(q);
                CHECK_EQ(k2.look[0][kSxPaused], 1u);
                CHECK_EQ(k2.cur_xs[kPausePkts], d[kPausePkts]);
                expect_xs(k2, q, v[q], "a command other than INIT on a paused QP");
            }
        }
        XsCmd quiet = make_cmd(r, RNIC_QP_CMD_INIT, q, false);
        quiet.valid = false;
        command(h, quiet);
        expect_xs(h.look(q), q, v[q], "INIT without cmd_valid on a paused QP");
    }

    // rst_n from every QP paused: nothing known until INIT, which clears
    // paused on each (nxt_sq_ci 0, not 0xFFFF), whatever it was; pause_pkts
    // not INIT's, unknown.
    for (unsigned q = 0; q < kNumQp; q++) {
        v[q] = busy_xs(r);
        fill(h, q, v[q]);
    }
    expect_view("every QP paused");
    h.reset();
    for (unsigned q = 0; q < kNumQp; q++) {
        CHECK(!h.model().qp(q).has(kPaused));
        command(h, make_cmd(r, RNIC_QP_CMD_INIT, q, r.percent(50)));
        const XsOut o = h.look(q);
        CHECK_EQ(o.look[0][kSxPaused], 0u);
        CHECK_EQ(o.cur_xs[kPaused], 0u);
        CHECK_EQ(o.nxt_sq_ci, 0u);
        CHECK(!h.model().qp(q).has(kPausePkts));
        v[q] = after_command(v[q], make_cmd(r, RNIC_QP_CMD_INIT, q, false));   // sq_ci 0, paused 0
    }
    expect_view("INIT on every QP after rst_n");
}

UNIT_TEST(fresh_collisions) {
    XsHarness h(seed(0x7A10));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    std::vector<Xs> v(kNumQp);
    for (unsigned q = 0; q < kNumQp; q++) fill(h, q, v[q] = busy_xs(r));
    // Job data that differs from what any command writes, so the winner shows.
    auto job_data = [&r](const XsCmd &k) {
        Xs d = busy_xs(r);
        d[kSqPsn] = (k.sq_psn ^ 0x800001u) & 0xFFFFFFu;
        d[kRqPsn] = (k.rq_psn ^ 0x800001u) & 0xFFFFFFu;
        d[kAckedPsn] = (k.sq_psn ^ 0x400002u) & 0xFFFFFFu;
        d[kRetryLeft] = (k.retry_cnt + 1 + r.range(0, 6)) & 7u;
        d[kRnrLeft] = (k.rnr_retry + 1 + r.range(0, 6)) & 7u;
        d[kKickWhy] = (RNIC_RETRY_WHY_TIMEOUT + 1 + r.range(0, 2)) & 3u;
        return d;
    };
    auto pick_mask = [&r](uint32_t cmd_we) -> uint32_t {
        switch (r.range(0, 4)) {
        case 0: return xs_we(static_cast<XsField>(r.range(0, kXsFields - 1)));
        case 1: return cmd_we & static_cast<uint32_t>(r.next());
        case 2: return ~cmd_we & kXsWeAll & static_cast<uint32_t>(r.next());
        default: return static_cast<uint32_t>(r.next()) & kXsWeAll;
        }
    };
    auto apply = [](Xs &x, uint32_t we, const Xs &d) {
        for (unsigned f = 0; f < kXsFields; f++)
            if (we & xs_we(static_cast<XsField>(f)))
                x[f] = d[f] & mask_of(kXsDesc[f].width);
    };
    const unsigned codes[] = {RNIC_QP_CMD_INIT, RNIC_QP_CMD_RTS, RNIC_QP_CMD_RESET};
    unsigned cases = 0;
    for (unsigned round = 0; round < 600 && !unit_stop(failures); round++) {
        const unsigned q = r.range(0, kNumQp - 1), p = (q + r.range(1, kNumQp - 1)) % kNumQp;
        const unsigned code = codes[round % 3];
        const XsCmd k = make_cmd(r, code, q, true);
        const uint32_t cmd_we = cmd_effect(k).we;
        const unsigned shape = (round / 3) % 5;
        // 0: the job on q in the command's cycle; 1: on p in that cycle;
        // 2: the command twice (new values the second time), the job on q
        // with the second; 3: INIT, then RTS from INIT with the job on q,
        // naming any field; 4: the command alone, the job on p, then on q.
        if (shape == 2) {
            const XsCmd first = make_cmd(r, code, q, true);
            command(h, first);
            v[q] = after_command(v[q], first);
        }
        if (shape == 3) {
            const XsCmd init = make_cmd(r, RNIC_QP_CMD_INIT, q, false);
            command(h, init);
            v[q] = after_command(v[q], init);
        }
        const XsCmd kk = shape == 3 ? make_cmd(r, RNIC_QP_CMD_RTS, q, true) : k;
        XsIn in = idle(r);
        in.cmd = kk;
        if (shape == 4) {
            h.cycle(in);
            v[q] = after_command(v[q], kk);
            in = idle(r);
        }
        in.job.qp = shape == 1 || shape == 4 ? p : q;
        in.job.we = pick_mask(cmd_effect(kk).we | cmd_we);
        in.job.data = job_data(kk);
        h.cycle(in);
        if (shape != 4)
            v[q] = after_command(v[q], kk);
        apply(v[in.job.qp], in.job.we, in.job.data);
        expect_xs(h.look(q), q, v[q], "the command's QP after the collision");
        expect_xs(h.look(p), p, v[p], "the other QP after the collision");
        // Later partial writes to both: what the first left stays.
        for (unsigned w = 0; w < 2; w++) {
            const unsigned t = w ? p : q;
            const uint32_t we = pick_mask(cmd_effect(kk).we);
            const Xs d = job_data(kk);
            job(h, t, we, d);
            apply(v[t], we, d);
        }
        expect_xs(h.look(q), q, v[q], "the command's QP after later writes");
        expect_xs(h.look(p), p, v[p], "the other QP after later writes");
        ++cases;
    }
    CHECK_EQ(cases, 600u);
}

UNIT_TEST(random_run) {
    XsHarness h(seed(0x7A0FF));
    Rng &r = h.rng();
    const uint64_t kCycles = 200000;
    const int failures = rnic_check_failures();
    while (h.now() < kCycles && !unit_stop(failures)) {
        if (r.percent(1) && r.percent(3))
            h.reset(r.range(1, 3));
        const XsModel &m = h.model();
        XsIn in = idle(r);
        // One QP in the thick of it: every writer on it, often.
        const unsigned hot = r.range(0, kNumQp - 1);
        const bool pile = r.percent(30);
        auto target = [&]() { return pile || r.percent(20) ? hot : r.range(0, kNumQp - 1); };

        if (r.percent(12)) {
            const unsigned k = r.range(0, 99);
            const unsigned code = k < 30 ? RNIC_QP_CMD_INIT
                                  : k < 60 ? RNIC_QP_CMD_RTS
                                  : k < 80 ? RNIC_QP_CMD_RESET
                                  : k < 90 ? RNIC_QP_CMD_ERROR
                                           : kNotCmds[r.range(0, 3)];
            in.cmd = make_cmd(r, code, target(), r.percent(50));
        }
        if (r.percent(60)) {
            in.job.qp = target();
            const unsigned k = r.range(0, 99);
            const uint32_t cmd_we = cmd_effect(in.cmd).we;
            if (k < 30)
                in.job.we = xs_we(static_cast<XsField>(r.range(0, kXsFields - 1)));
            else if (k < 60)
                in.job.we = static_cast<uint32_t>(r.next()) & kXsWeAll;
            else if (k < 70)
                in.job.we = kXsWeAll;
            else if (k < 85)
                in.job.we = cmd_we ? cmd_we & static_cast<uint32_t>(r.next()) : xs_we(kDone);
            else
                in.job.we = ~cmd_we & kXsWeAll;
            for (unsigned f = 0; f < kXsFields; f++) {
                const unsigned w = kXsDesc[f].width;
                in.job.data[f] = r.percent(15) ? mask_of(w) : r.percent(10) ? 0 : rand_field(r, w);
            }
        }
        if (r.percent(50)) {
            unsigned s;
            in.fl.slot = r.percent(50) && m.oldest_slot(hot, &s) ? s : r.range(0, kSlots - 1);
            in.fl.we = r.percent(40) ? kFlWeAll : static_cast<uint32_t>(r.next()) & kFlWeAll;
            in.fl.data = random_flight(r);
        }
        if (r.percent(40))
            in.cur = hot;
        if (r.percent(40))
            in.pq = hot;
        if (r.percent(30))
            in.db = hot;
        if (r.percent(30))
            in.nxt = hot;
        h.cycle(in);
    }
    const XsStats &s = h.stats();
    std::printf("random_run: %llu cycles, %llu resets, %llu output fields compared; commands INIT %llu RTS %llu "
                "(%llu outside INIT, ignored) RESET %llu ERROR %llu no command %llu; %llu job writes; command and "
                "job on one QP: %llu with a field in common, %llu without; %llu in-flight writes (%llu to a slot "
                "shown as oldest); oldest views compared %llu times (%llu at a slot past the QP's first); %llu "
                "retry counts other than 0 and 7 loaded by RTS; command and job on one retry field of one QP %llu\n",
                static_cast<unsigned long long>(s.cycles), static_cast<unsigned long long>(s.resets),
                static_cast<unsigned long long>(s.compared),
                static_cast<unsigned long long>(s.cmds[RNIC_QP_CMD_INIT]),
                static_cast<unsigned long long>(s.cmds[RNIC_QP_CMD_RTS]),
                static_cast<unsigned long long>(s.rts_ignored),
                static_cast<unsigned long long>(s.cmds[RNIC_QP_CMD_RESET]),
                static_cast<unsigned long long>(s.cmds[RNIC_QP_CMD_ERROR]),
                static_cast<unsigned long long>(s.cmds[0] + s.cmds[5] + s.cmds[6] + s.cmds[7]),
                static_cast<unsigned long long>(s.job_writes), static_cast<unsigned long long>(s.same_qp_overlap),
                static_cast<unsigned long long>(s.same_qp_disjoint), static_cast<unsigned long long>(s.fl_writes),
                static_cast<unsigned long long>(s.fl_to_oldest), static_cast<unsigned long long>(s.oldest_compared),
                static_cast<unsigned long long>(s.oldest_nonzero), static_cast<unsigned long long>(s.rts_counts),
                static_cast<unsigned long long>(s.same_qp_reliability));
    std::printf("random_run: nxt_sq_ci compared for a paused QP %llu times; INIT on a paused QP %llu\n",
                static_cast<unsigned long long>(s.nxt_paused), static_cast<unsigned long long>(s.init_paused));
    std::printf("random_run: look row fields compared %llu (oldest_op %llu); looks at a QP the edge wrote %llu; "
                "cycles with two looks at one QP %llu; cur_ops slots compared %llu\n",
                static_cast<unsigned long long>(s.look_fields), static_cast<unsigned long long>(s.look_oldest),
                static_cast<unsigned long long>(s.look_written), static_cast<unsigned long long>(s.look_repeats),
                static_cast<unsigned long long>(s.cur_ops_compared));
    CHECK(h.now() >= kCycles);
    CHECK(s.resets > 3);
    for (unsigned code : {static_cast<unsigned>(RNIC_QP_CMD_INIT), static_cast<unsigned>(RNIC_QP_CMD_RTS),
                          static_cast<unsigned>(RNIC_QP_CMD_RESET), static_cast<unsigned>(RNIC_QP_CMD_ERROR)})
        CHECK(s.cmds[code] > 1000);
    CHECK(s.rts_applied > 1000);
    CHECK(s.rts_ignored > 1000);
    for (unsigned f = 0; f < kXsFields; f++) CHECK(s.field_writes[f] > 10000);
    CHECK(s.same_qp_overlap > 1000);
    CHECK(s.same_qp_disjoint > 300);
    CHECK(s.rts_counts > 1000);
    CHECK(s.same_qp_reliability > 300);
    CHECK(s.fl_to_oldest > 10000);
    CHECK(s.oldest_nonzero > 100000);
    CHECK(s.nxt_paused > 50000);
    CHECK(s.init_paused > 1000);
    CHECK(s.look_fields > 8000000);
    CHECK(s.look_oldest > 800000);
    CHECK(s.look_written > 60000);
    CHECK(s.look_repeats > 60000);
    CHECK(s.cur_ops_compared > 1000000);
    // Every look at every QP, with something known to compare.
    for (unsigned l = 0; l < kLooks; l++) CHECK_EQ(s.look_seen[l], mask_of(kNumQp));
}
