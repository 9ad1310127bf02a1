#include "xs_harness.h"

#include <cstdio>
#include <vector>

#include "rnic_check.h"

namespace {
constexpr unsigned kMaxReports = 10;        // failing cycles described in full per harness
constexpr unsigned kMaxFieldsShown = 12;    // mismatched fields listed per failing cycle

const char *cmd_name(unsigned c) {
    switch (c) {
    case RNIC_QP_CMD_INIT: return "INIT";
    case RNIC_QP_CMD_RTS: return "RTS";
    case RNIC_QP_CMD_ERROR: return "ERROR";
    case RNIC_QP_CMD_RESET: return "RESET";
    default: return "(none)";
    }
}

// Bits [lsb, lsb + width) of a port held in an integer (look_qp, cur_ops).
template <class T> uint64_t narrow(T v, unsigned lsb, unsigned width) {
    return (static_cast<uint64_t>(v) >> lsb) & mask_of(width);
}

// The mismatch report's name of look l's row.
const char *look_name(unsigned l) {
    static const char *const names[] = {"look_xs[0]", "look_xs[1]", "look_xs[2]", "look_xs[3]",
                                        "look_xs[4]", "look_xs[5]", "look_xs[6]", "look_xs[7]"};
    static_assert(kLooks <= sizeof names / sizeof names[0], "a name for every look");
    return names[l];
}
}  // namespace

XsHarness::XsHarness(uint64_t seed) : seed_(seed), rng_(seed ^ 0x9715ull), ctx_(unit_context(seed)) {
    // Verilator 5.006 draws X values through the thread's context, not the
    // model's (tests/rtl_units/cqe_writer/cqe_harness.cpp says why).
    Verilated::threadContextp(ctx_.get());
    dut_.reset(new Vrnic_qp_transport(ctx_.get()));
    dut_->clk = 0;
    dut_->eval();
    model_.power_up();
    reset();
}

XsHarness::~XsHarness() {
    Verilated::threadContextp(ctx_.get());
    dut_->final();
    dut_.reset();
    // Not set back to none: sched_harness.cpp says why.
}

void XsHarness::drive(const XsIn &in, bool rst_n) {
    Vrnic_qp_transport &d = *dut_;
    d.rst_n = rst_n;
    d.cmd_valid = in.cmd.valid;
    d.cmd = in.cmd.code & 7u;
    d.cmd_sel = in.cmd.sel % kNumQp;
    d.cmd_in_init = in.cmd.in_init;
    d.cmd_sq_psn = in.cmd.sq_psn & 0xFFFFFFu;
    d.cmd_rq_psn = in.cmd.rq_psn & 0xFFFFFFu;
    d.cmd_retry_cnt = in.cmd.retry_cnt & 7u;
    d.cmd_rnr_retry = in.cmd.rnr_retry & 7u;
    d.wr_qp = in.job.qp % kNumQp;
    d.wr_we = in.job.we & kXsWeAll;
    pack(d.wr_data, kXsDesc, in.job.data);
    d.fl_slot = in.fl.slot % kSlots;
    d.fl_we = in.fl.we & kFlWeAll;
    pack(d.fl_data, kFlDesc, in.fl.data);
    d.cur = in.cur % kNumQp;
    d.pq = in.pq % kNumQp;
    d.db = in.db % kNumQp;
    d.nxt = in.nxt % kNumQp;
    uint32_t looks = 0;
    for (unsigned l = 0; l < kLooks; l++) looks |= (in.look[l] % kNumQp) << (kQw * l);
    d.look_qp = looks;
}

XsOut XsHarness::read() const {
    const Vrnic_qp_transport &d = *dut_;
    XsOut o;
    o.cur_xs = unpack(d.cur_xs, kXsDesc);
    o.pq_xs = unpack(d.pq_xs, kXsDesc);
    o.cur_oldest = unpack(d.cur_oldest, kFlDesc);
    o.pq_oldest = unpack(d.pq_oldest, kFlDesc);
    o.db_sq_ci = d.db_sq_ci;
    o.db_rq_ci = d.db_rq_ci;
    o.nxt_sq_ci = d.nxt_sq_ci;
    o.nxt_done = d.nxt_done;
    o.cur = static_cast<unsigned>(d.cur);
    for (unsigned j = 0; j < kDepth; j++) o.cur_ops[j] = static_cast<uint8_t>(narrow(d.cur_ops, 8 * j, 8));
    for (unsigned l = 0; l < kLooks; l++) {
        o.look_qp[l] = static_cast<unsigned>(narrow(d.look_qp, kQw * l, kQw));
        o.look[l] = unpack(d.look_xs, kSxDesc, kSxBits * l);
    }
    return o;
}

VlWide<words_of(kXsBits)> XsHarness::raw_cur_xs() const { return dut_->cur_xs; }
VlWide<words_of(kFlBits)> XsHarness::raw_cur_oldest() const { return dut_->cur_oldest; }
VlWide<words_of(kLooks * kSxBits)> XsHarness::raw_look_xs() const { return dut_->look_xs; }
uint64_t XsHarness::raw_cur_ops() const { return dut_->cur_ops; }

void XsHarness::check(const XsIn &in, const XsOut &got, const char *when) {
    struct Mismatch {
        const char *port, *field, *at_what;   // at_what: "qp" or "slot"
        unsigned at;
        uint64_t got, want;
    } mm[kMaxFieldsShown];
    unsigned n = 0;
    uint64_t compared = 0;
    auto cmp = [&](const char *port, const char *field, const char *at_what, unsigned at, uint64_t g, uint64_t w) {
        ++compared;
        if (!rnic_check_record(g == w) && n < kMaxFieldsShown)
            mm[n++] = {port, field, at_what, at, g, w};
    };

    auto xs_port = [&](const char *port, unsigned q, const Xs &g) {
        const QpXs &m = model_.qp(q);
        for (unsigned f = 0; f < kXsFields; f++)
            if (m.has(static_cast<XsField>(f)))
                cmp(port, kXsDesc[f].name, "qp", q, g[f], m.v[f]);
    };
    auto oldest_port = [&](const char *port, unsigned q, const Flight &g) {
        unsigned s;
        if (!model_.oldest_slot(q, &s))
            return;
        const Slot &m = model_.slot(s);
        if (m.known) {
            ++stats_.oldest_compared;
            stats_.oldest_nonzero += s % kDepth != 0;
        }
        for (unsigned f = 0; f < kFlFields; f++)
            if (m.has(static_cast<FlField>(f)))
                cmp(port, kFlDesc[f].name, "slot", s, g[f], m.v[f]);
    };
    auto one = [&](const char *port, unsigned q, XsField f, uint64_t g) {
        const QpXs &m = model_.qp(q);
        if (m.has(f))
            cmp(port, kXsDesc[f].name, "qp", q, g, m.v[f]);
    };

    const unsigned cur = in.cur % kNumQp, pq = in.pq % kNumQp, db = in.db % kNumQp, nxt = in.nxt % kNumQp;
    xs_port("cur_xs", cur, got.cur_xs);
    xs_port("pq_xs", pq, got.pq_xs);
    oldest_port("cur_oldest", cur, got.cur_oldest);
    oldest_port("pq_oldest", pq, got.pq_oldest);
    one("db_sq_ci", db, kSqCi, got.db_sq_ci);
    one("db_rq_ci", db, kRqCi, got.db_rq_ci);
    // The WQE a pick of nxt fetches: a paused one (before sq_ci) again.
    if (model_.qp(nxt).has(kSqCi) && model_.qp(nxt).has(kPaused)) {
        const QpXs &m = model_.qp(nxt);
        stats_.nxt_paused += m.v[kPaused] != 0;
        cmp("nxt_sq_ci", "sq_ci-paused", "qp", nxt, got.nxt_sq_ci, (m.v[kSqCi] - m.v[kPaused]) & 0xFFFFu);
    }
    one("nxt_done", nxt, kDone, got.nxt_done);
    // Each of cur's slots, in slot order.
    for (unsigned j = 0; j < kDepth; j++) {
        const unsigned s = XsModel::slot_of(cur, j);
        const Slot &m = model_.slot(s);
        if (m.has(kFlOp)) {
            ++stats_.cur_ops_compared;
            cmp("cur_ops", "op", "slot", s, got.cur_ops[j], m.v[kFlOp]);
        }
    }
    // Each look's row: its QP's fields, and the op of that QP's oldest slot.
    for (unsigned l = 0; l < kLooks; l++) {
        const unsigned q = in.look[l] % kNumQp;
        const QpXs &m = model_.qp(q);
        const uint64_t before = compared;
        for (unsigned i = 0; i < kSxOldestOp; i++)
            if (m.has(kSxFrom[i]))
                cmp(look_name(l), kSxDesc[i].name, "qp", q, got.look[l][i], m.v[kSxFrom[i]]);
        unsigned s;
        if (model_.oldest_slot(q, &s) && model_.slot(s).has(kFlOp)) {
            ++stats_.look_oldest;
            cmp(look_name(l), "oldest_op", "slot", s, got.look[l][kSxOldestOp], model_.slot(s).v[kFlOp]);
        }
        stats_.look_fields += compared - before;
        if (compared != before)
            stats_.look_seen[l] |= uint64_t{1} << q;
    }
    stats_.compared += compared;

    if (n && ++reports_ <= kMaxReports) {
        describe(in, when);
        for (unsigned i = 0; i < n; i++)
            std::fprintf(stderr, "  %-13s %-9s %-4s %3u: unit 0x%llx, model 0x%llx\n", mm[i].port, mm[i].field,
                         mm[i].at_what, mm[i].at,
                         static_cast<unsigned long long>(mm[i].got), static_cast<unsigned long long>(mm[i].want));
    }
}

void XsHarness::describe(const XsIn &in, const char *when) {
    std::fprintf(stderr,
                 "[qp_transport cycle %llu %s, seed 0x%llx (RTL_UNIT_SEED=0x%llx replays it)]\n"
                 "  cmd %s valid %d (code %u) sel %u in_init %d sq_psn 0x%06x rq_psn 0x%06x retry_cnt %u "
                 "rnr_retry %u; job qp %u we 0x%06x; flight slot %u (qp %u, %u) we 0x%x; cur %u pq %u db %u nxt %u; "
                 "looks at qp",
                 static_cast<unsigned long long>(stats_.cycles), when, static_cast<unsigned long long>(seed_),
                 static_cast<unsigned long long>(seed_), cmd_name(in.cmd.code & 7u), in.cmd.valid, in.cmd.code & 7u,
                 in.cmd.sel % kNumQp, in.cmd.in_init, in.cmd.sq_psn & 0xFFFFFFu, in.cmd.rq_psn & 0xFFFFFFu,
                 in.cmd.retry_cnt & 7u, in.cmd.rnr_retry & 7u, in.job.qp % kNumQp, in.job.we & kXsWeAll,
                 in.fl.slot % kSlots, in.fl.slot % kSlots / kDepth,
                 in.fl.slot % kDepth, in.fl.we & kFlWeAll, in.cur % kNumQp, in.pq % kNumQp, in.db % kNumQp,
                 in.nxt % kNumQp);
    for (unsigned l = 0; l < kLooks; l++) std::fprintf(stderr, " %u", in.look[l] % kNumQp);
    std::fprintf(stderr, "\n");
    if (in.job.we & kXsWeAll) {
        std::fprintf(stderr, "  job writes:");
        for (unsigned f = 0; f < kXsFields; f++)
            if (in.job.we & xs_we(static_cast<XsField>(f)))
                std::fprintf(stderr, " %s=0x%llx", kXsDesc[f].name,
                             static_cast<unsigned long long>(in.job.data[f] & mask_of(kXsDesc[f].width)));
        std::fprintf(stderr, "\n");
    }
    // The model's picture of every QP a read port or the job named, once each.
    uint64_t shown = 0;
    std::vector<unsigned> qs = {in.cur % kNumQp, in.pq % kNumQp, in.job.qp % kNumQp};
    for (unsigned l = 0; l < kLooks; l++) qs.push_back(in.look[l] % kNumQp);
    for (unsigned q : qs) {
        if (shown & (uint64_t{1} << q))
            continue;
        shown |= uint64_t{1} << q;
        const QpXs &m = model_.qp(q);
        std::fprintf(stderr, "  model qp %2u:", q);
        for (unsigned f = 0; f < kXsFields; f++) {
            if (m.has(static_cast<XsField>(f)))
                std::fprintf(stderr, " %s=0x%llx", kXsDesc[f].name, static_cast<unsigned long long>(m.v[f]));
            else
                std::fprintf(stderr, " %s=?", kXsDesc[f].name);
        }
        std::fprintf(stderr, "\n");
    }
}

void XsHarness::edge() {
    Vrnic_qp_transport &d = *dut_;
    d.clk = 0;
    d.eval();
    ctx_->timeInc(1);
    d.clk = 1;
    d.eval();
    ctx_->timeInc(1);
    d.clk = 0;
    ++stats_.cycles;
}

void XsHarness::reset(unsigned cycles, const XsIn *during) {
    Verilated::threadContextp(ctx_.get());
    // Junk on every write port, every enable at random: the model relies on
    // nothing across rst_n (xs_model.h), so the unit may do what it likes
    // with it, and what comes after must not depend on it.
    for (unsigned i = 0; i < cycles; i++) {
        if (during) {
            drive(*during, false);
            edge();
            continue;
        }
        XsIn junk;
        junk.cmd.valid = rng_.percent(80);
        junk.cmd.code = rng_.range(0, 7);
        junk.cmd.sel = rng_.range(0, kNumQp - 1);
        junk.cmd.in_init = rng_.percent(70);
        junk.cmd.sq_psn = rng_.u32();
        junk.cmd.rq_psn = rng_.u32();
        junk.cmd.retry_cnt = rng_.u32();
        junk.cmd.rnr_retry = rng_.u32();
        junk.job.qp = rng_.range(0, kNumQp - 1);
        junk.job.we = rng_.percent(50) ? kXsWeAll : static_cast<uint32_t>(rng_.next());
        for (uint64_t &v : junk.job.data) v = rng_.next();
        junk.fl.slot = rng_.range(0, kSlots - 1);
        junk.fl.we = rng_.percent(50) ? kFlWeAll : static_cast<uint32_t>(rng_.next());
        for (uint64_t &v : junk.fl.data) v = rng_.next();
        junk.cur = rng_.range(0, kNumQp - 1);
        junk.pq = rng_.range(0, kNumQp - 1);
        junk.db = rng_.range(0, kNumQp - 1);
        junk.nxt = rng_.range(0, kNumQp - 1);
        for (unsigned &l : junk.look) l = rng_.range(0, kNumQp - 1);
        drive(junk, false);
        edge();
    }
    model_.reset();
    ++stats_.resets;
}

void XsHarness::tally(const XsIn &in) {
    XsStats &s = stats_;
    if (in.cmd.valid) {
        const unsigned code = in.cmd.code & 7u;
        ++s.cmds[code];
        const QpXs &sel = model_.qp(in.cmd.sel);
        s.init_paused += code == RNIC_QP_CMD_INIT && sel.has(kPaused) && sel.v[kPaused] != 0;
        if (code == RNIC_QP_CMD_RTS) {
            ++(in.cmd.in_init ? s.rts_applied : s.rts_ignored);
            for (uint32_t c : {in.cmd.retry_cnt & 7u, in.cmd.rnr_retry & 7u})
                s.rts_counts += in.cmd.in_init && c != 0 && c != 7;
        }
    }
    const uint32_t we = in.job.we & kXsWeAll;
    if (we) {
        ++s.job_writes;
        for (unsigned f = 0; f < kXsFields; f++) s.field_writes[f] += (we & xs_we(static_cast<XsField>(f))) != 0;
        const CmdEffect e = cmd_effect(in.cmd);
        if (e.we && in.cmd.sel % kNumQp == in.job.qp % kNumQp) {
            ++((e.we & we) ? s.same_qp_overlap : s.same_qp_disjoint);
            constexpr uint32_t kReliability = xs_we(kRetryLeft) | xs_we(kRnrLeft) | xs_we(kRnrWait) |
                                              xs_we(kRetrying) | xs_we(kKickWhy) | xs_we(kAckedPsn) |
                                              xs_we(kNakSent);
            s.same_qp_reliability += (e.we & we & kReliability) != 0;
        }
    }
    if (in.fl.we & kFlWeAll) {
        ++s.fl_writes;
        unsigned o;
        const unsigned slot = in.fl.slot % kSlots;
        if ((model_.oldest_slot(in.cur, &o) && o == slot) || (model_.oldest_slot(in.pq, &o) && o == slot))
            ++s.fl_to_oldest;
    }
}

XsIn XsHarness::resolve(const XsIn &in) {
    if (in.looks_given)
        return in;
    // The roles (xs_harness.h): the QPs this edge writes, the QP the last
    // edge wrote, a random one (a third of the time another role's: two
    // looks at one QP), the sweep; rotated over the looks each call.
    static_assert(kLooks >= 4, "four roles at least");
    unsigned role[kLooks];
    role[0] = in.job.qp % kNumQp;
    role[1] = in.cmd.sel % kNumQp;
    role[2] = last_written_;
    for (unsigned i = 3; i + 1 < kLooks; i++)
        role[i] = rng_.percent(33) ? role[rng_.range(0, i - 1)] : rng_.range(0, kNumQp - 1);
    role[kLooks - 1] = sweep_ % kNumQp;
    const unsigned turn = sweep_ % kLooks;
    ++sweep_;
    XsIn r = in;
    for (unsigned i = 0; i < kLooks; i++) r.look[(i + turn) % kLooks] = role[i];
    return r;
}

XsOut XsHarness::peek(const XsIn &given) {
    Verilated::threadContextp(ctx_.get());
    const XsIn in = resolve(given);
    drive(in, true);
    dut_->clk = 0;
    dut_->eval();
    const XsOut got = read();
    check(in, got, "peek");
    return got;
}

XsOut XsHarness::look(unsigned q) {
    XsIn in;
    in.cmd.sel = in.job.qp = in.cur = in.pq = in.db = in.nxt = q % kNumQp;
    for (unsigned &l : in.look) l = q % kNumQp;
    in.looks_given = true;
    return peek(in);
}

std::array<Sched, kNumQp> XsHarness::rows(const XsIn &base, unsigned turn) {
    std::array<Sched, kNumQp> out{};
    XsIn in = base;
    in.looks_given = true;
    // QP q is read by look (q + turn) % kLooks, kLooks QPs a peek.
    for (unsigned first = 0; first < kNumQp; first += kLooks) {
        for (unsigned l = 0; l < kLooks; l++) in.look[l] = first;   // the spare looks: a QP read anyway
        for (unsigned q = first; q < first + kLooks && q < kNumQp; q++) in.look[(q + turn) % kLooks] = q;
        const XsOut o = peek(in);
        for (unsigned q = first; q < first + kLooks && q < kNumQp; q++) out[q] = o.look[(q + turn) % kLooks];
    }
    return out;
}

XsOut XsHarness::cycle(const XsIn &given) {
    Verilated::threadContextp(ctx_.get());
    const XsIn in = resolve(given);
    drive(in, true);
    dut_->clk = 0;
    dut_->eval();
    const XsOut got = read();
    check(in, got, "before the edge");
    tally(in);
    model_.edge(in);
    edge();
    check(in, read(), "after the edge");
    // Looks at a QP whose row this edge wrote, compared just now.
    uint32_t row_we = 0;
    for (unsigned i = 0; i < kSxOldestOp; i++) row_we |= xs_we(kSxFrom[i]);
    const unsigned job_qp = in.job.qp % kNumQp, sel = in.cmd.sel % kNumQp;
    const bool job_row = (in.job.we & row_we) != 0, cmd_row = (cmd_effect(in.cmd).we & row_we) != 0;
    for (unsigned l = 0; l < kLooks; l++) {
        const unsigned q = in.look[l] % kNumQp;
        stats_.look_written += (job_row && q == job_qp) || (cmd_row && q == sel);
    }
    for (unsigned a = 0; a < kLooks; a++) {
        bool repeat = false;
        for (unsigned b = a + 1; b < kLooks; b++) repeat |= in.look[a] % kNumQp == in.look[b] % kNumQp;
        if (repeat) {
            ++stats_.look_repeats;
            break;
        }
    }
    if (in.job.we & kXsWeAll)
        last_written_ = job_qp;
    else if (cmd_effect(in.cmd).we)
        last_written_ = sel;
    return got;
}
