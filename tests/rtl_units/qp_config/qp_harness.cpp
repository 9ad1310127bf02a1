#include "qp_harness.h"

#include <cstdio>
#include <cstdlib>

#include "rnic_check.h"

namespace {
constexpr unsigned kMaxReports = 10;        // failing cycles described in full per harness
constexpr unsigned kMaxFieldsShown = 12;    // mismatched fields listed per failing cycle

// A field of `width` bits at bit `lsb` of a wide port; the all_* fields are
// 2, 8 or 16 bits at multiples of their width, so none straddles a word.
template <std::size_t N> uint32_t get(const VlWide<N> &w, unsigned lsb, unsigned width) {
    const unsigned word = lsb / 32, shift = lsb % 32;
    if (word >= N || shift + width > 32) {
        std::fprintf(stderr, "qp_config bench error: a field across a word of a wide port\n");
        std::exit(2);
    }
    return (w[word] >> shift) & (width == 32 ? ~0u : ((1u << width) - 1u));
}

const char *state_name(unsigned s) {
    switch (s) {
    case RNIC_QP_STATE_RESET: return "RESET";
    case RNIC_QP_STATE_INIT: return "INIT";
    case RNIC_QP_STATE_RTS: return "RTS";
    case RNIC_QP_STATE_ERROR: return "ERROR";
    default: return "?";
    }
}

const char *cmd_name(unsigned c) {
    switch (c) {
    case RNIC_QP_CMD_INIT: return "INIT";
    case RNIC_QP_CMD_RTS: return "RTS";
    case RNIC_QP_CMD_ERROR: return "ERROR";
    case RNIC_QP_CMD_RESET: return "RESET";
    default: return "(none)";
    }
}

// The mismatches of one comparison, for the report.
struct Mismatches {
    unsigned n = 0;
    struct {
        const char *field;
        unsigned qp;
        uint64_t got, want;
    } f[kMaxFieldsShown];
};
}  // namespace

QpHarness::QpHarness(uint64_t seed) : seed_(seed), rng_(seed ^ 0x0C0F16ull), ctx_(unit_context(seed)) {
    // Verilator 5.006 draws X values through the thread's context, not the
    // model's (tests/rtl_units/cqe_writer/cqe_harness.cpp says why).
    Verilated::threadContextp(ctx_.get());
    dut_.reset(new Vrnic_qp_config(ctx_.get()));
    dut_->clk = 0;
    dut_->eval();
    reset();
}

QpHarness::~QpHarness() {
    Verilated::threadContextp(ctx_.get());
    dut_->final();
    dut_.reset();
    // Not set back to none: sched_harness.cpp says why.
}

void QpHarness::drive(const QpIn &in, bool rst_n) {
    Vrnic_qp_config &d = *dut_;
    const QpCmd &k = in.cmd;
    d.rst_n = rst_n;
    d.cmd_valid = k.valid;
    d.cmd = k.cmd & 7u;
    d.cmd_sel = k.sel % kNumQp;
    d.cmd_sq_base = k.sq_base;
    d.cmd_rq_base = k.rq_base;
    d.cmd_sq_log = k.sq_log & 15u;
    d.cmd_rq_log = k.rq_log & 15u;
    d.cmd_scq = k.scq % kNumCq;
    d.cmd_rcq = k.rcq % kNumCq;
    d.cmd_pz = k.pz;
    d.cmd_flags = k.flags;
    d.cmd_remote_qpn = k.remote_qpn & 0xFFFFFFu;
    d.cmd_remote_ip = k.remote_ip;
    d.cmd_remote_mac = k.remote_mac & 0xFFFFFFFFFFFFull;
    d.cmd_log_mtu = k.log_mtu & 15u;
    d.db_valid = in.db.valid;
    d.db_kind = in.db.kind & 3u;
    d.db_index = in.db.index % kNumQp;
    d.db_value = in.db.value;
    d.db_sq_ci = in.db.sq_ci;
    d.db_rq_ci = in.db.rq_ci;
    d.err_valid = in.err.valid;
    d.err_qp = in.err.qp % kNumQp;
    d.err_status = in.err.status;
    d.cur = in.cur % kNumQp;
    d.pq = in.pq % kNumQp;
    d.nxt = in.nxt % kNumQp;
}

QpOut QpHarness::read() const {
    const Vrnic_qp_config &d = *dut_;
    QpOut o;
    o.db_ok = d.db_ok;
    o.cur_sq_base = d.cur_sq_base;
    o.cur_rq_base = d.cur_rq_base;
    o.cur_sq_log = d.cur_sq_log;
    o.cur_rq_log = d.cur_rq_log;
    o.cur_scq = d.cur_scq;
    o.cur_rcq = d.cur_rcq;
    o.cur_pz = d.cur_pz;
    o.cur_remote_qpn = d.cur_remote_qpn;
    o.cur_remote_ip = d.cur_remote_ip;
    o.cur_remote_mac = d.cur_remote_mac;
    o.cur_sq_pi = d.cur_sq_pi;
    o.cur_log_mtu = d.cur_log_mtu;
    o.pq_state = d.pq_state;
    o.pq_sq_base = d.pq_sq_base;
    o.pq_rq_base = d.pq_rq_base;
    o.pq_sq_log = d.pq_sq_log;
    o.pq_rq_log = d.pq_rq_log;
    o.pq_scq = d.pq_scq;
    o.pq_pz = d.pq_pz;
    o.pq_flags = d.pq_flags;
    o.pq_log_mtu = d.pq_log_mtu;
    o.pq_rq_pi = d.pq_rq_pi;
    o.nxt_sq_base = d.nxt_sq_base;
    o.nxt_sq_log = d.nxt_sq_log;
    o.sel_state = d.sel_state;
    o.sel_err = d.sel_err;
    static_assert(2 * kNumQp <= 32, "all_state is read as one word");
    for (unsigned i = 0; i < kNumQp; i++) {
        o.state[i] = (static_cast<uint32_t>(d.all_state) >> (2 * i)) & 3u;
        o.flags[i] = static_cast<uint8_t>(get(d.all_flags, 8 * i, 8));
        o.sq_pi[i] = static_cast<uint16_t>(get(d.all_sq_pi, 16 * i, 16));
        o.rq_pi[i] = static_cast<uint16_t>(get(d.all_rq_pi, 16 * i, 16));
    }
    return o;
}

bool QpHarness::check(const QpIn &in, const QpOut &got, const char *when) {
    Mismatches mm;
    uint64_t compared = 0;
    auto cmp = [&](const char *field, unsigned qp, uint64_t g, uint64_t w) {
        ++compared;
        if (!rnic_check_record(g == w) && mm.n < kMaxFieldsShown)
            mm.f[mm.n++] = {field, qp, g, w};
    };

    bool db_ok = got.db_ok;
    if (in.db.valid) {
        const Verdict v = model_.db_ok(in.db);
        if (v != Verdict::Maybe)
            cmp("db_ok", in.db.index % kNumQp, got.db_ok, v == Verdict::Yes);
    }

    const unsigned cur = in.cur % kNumQp, pq = in.pq % kNumQp, nxt = in.nxt % kNumQp, sel = in.cmd.sel % kNumQp;
    const QpCtx &c = model_.qp(cur);
    if (c.cfg_known) {
        cmp("cur_sq_base", cur, got.cur_sq_base, c.sq_base);
        cmp("cur_rq_base", cur, got.cur_rq_base, c.rq_base);
        cmp("cur_sq_log", cur, got.cur_sq_log, c.sq_log);
        cmp("cur_rq_log", cur, got.cur_rq_log, c.rq_log);
        cmp("cur_scq", cur, got.cur_scq, c.scq);
        cmp("cur_rcq", cur, got.cur_rcq, c.rcq);
        cmp("cur_pz", cur, got.cur_pz, c.pz);
        cmp("cur_log_mtu", cur, got.cur_log_mtu, c.log_mtu);
    }
    if (c.peer_known) {
        cmp("cur_remote_qpn", cur, got.cur_remote_qpn, c.remote_qpn);
        cmp("cur_remote_ip", cur, got.cur_remote_ip, c.remote_ip);
        cmp("cur_remote_mac", cur, got.cur_remote_mac, c.remote_mac);
    }
    cmp("cur_sq_pi", cur, got.cur_sq_pi, c.sq_pi);

    const QpCtx &p = model_.qp(pq);
    cmp("pq_state", pq, got.pq_state, p.state);
    if (p.cfg_known) {
        cmp("pq_sq_base", pq, got.pq_sq_base, p.sq_base);
        cmp("pq_rq_base", pq, got.pq_rq_base, p.rq_base);
        cmp("pq_sq_log", pq, got.pq_sq_log, p.sq_log);
        cmp("pq_rq_log", pq, got.pq_rq_log, p.rq_log);
        cmp("pq_scq", pq, got.pq_scq, p.scq);
        cmp("pq_pz", pq, got.pq_pz, p.pz);
        cmp("pq_flags", pq, got.pq_flags, p.flags);
        cmp("pq_log_mtu", pq, got.pq_log_mtu, p.log_mtu);
    }
    cmp("pq_rq_pi", pq, got.pq_rq_pi, p.rq_pi);

    const QpCtx &n = model_.qp(nxt);
    if (n.cfg_known) {
        cmp("nxt_sq_base", nxt, got.nxt_sq_base, n.sq_base);
        cmp("nxt_sq_log", nxt, got.nxt_sq_log, n.sq_log);
    }

    const QpCtx &s = model_.qp(sel);
    cmp("sel_state", sel, got.sel_state, s.state);
    cmp("sel_err", sel, got.sel_err, s.err);

    for (unsigned i = 0; i < kNumQp; i++) {
        const QpCtx &q = model_.qp(i);
        cmp("all_state", i, got.state[i], q.state);
        if (q.cfg_known)
            cmp("all_flags", i, got.flags[i], q.flags);
        cmp("all_sq_pi", i, got.sq_pi[i], q.sq_pi);
        cmp("all_rq_pi", i, got.rq_pi[i], q.rq_pi);
    }
    stats_.compared += compared;

    if (mm.n && ++reports_ <= kMaxReports) {
        describe(in, got, when);
        for (unsigned i = 0; i < mm.n; i++)
            std::fprintf(stderr, "  %-15s qp %2u: unit 0x%llx, model 0x%llx\n", mm.f[i].field, mm.f[i].qp,
                         static_cast<unsigned long long>(mm.f[i].got), static_cast<unsigned long long>(mm.f[i].want));
    }
    return db_ok;
}

void QpHarness::describe(const QpIn &in, const QpOut &got, const char *when) {
    std::fprintf(stderr,
                 "[qp_config cycle %llu %s, seed 0x%llx (RTL_UNIT_SEED=0x%llx replays it)]\n"
                 "  cmd %s valid %d (code %u) sel %u log_mtu %u; db valid %d kind %u qp %u value 0x%04x sq_ci "
                 "0x%04x rq_ci 0x%04x -> unit db_ok %d; err valid %d qp %u status %u; cur %u pq %u nxt %u\n",
                 static_cast<unsigned long long>(stats_.cycles), when, static_cast<unsigned long long>(seed_),
                 static_cast<unsigned long long>(seed_), cmd_name(in.cmd.cmd & 7u), in.cmd.valid, in.cmd.cmd & 7u,
                 in.cmd.sel % kNumQp, in.cmd.log_mtu & 15u, in.db.valid, in.db.kind & 3u, in.db.index % kNumQp,
                 in.db.value, in.db.sq_ci, in.db.rq_ci, got.db_ok, in.err.valid, in.err.qp % kNumQp, in.err.status,
                 in.cur % kNumQp, in.pq % kNumQp, in.nxt % kNumQp);
    const unsigned named[] = {in.cmd.sel, in.db.index, in.err.qp, in.cur, in.pq, in.nxt};
    bool shown[kNumQp] = {};
    for (unsigned q : named) {
        q %= kNumQp;
        if (shown[q])
            continue;
        shown[q] = true;
        const QpCtx &c = model_.qp(q);
        std::fprintf(stderr,
                     "  model qp %2u: %s err %u sq_pi 0x%04x rq_pi 0x%04x; config %s (sq log %u rq log %u flags "
                     "0x%02x log_mtu %u); peer %s\n",
                     q, state_name(c.state), c.err, c.sq_pi, c.rq_pi, c.cfg_known ? "known" : "unknown", c.sq_log,
                     c.rq_log, c.flags, c.log_mtu, c.peer_known ? "known" : "unknown");
    }
}

void QpHarness::edge() {
    Vrnic_qp_config &d = *dut_;
    d.clk = 0;
    d.eval();
    ctx_->timeInc(1);
    d.clk = 1;
    d.eval();
    ctx_->timeInc(1);
    d.clk = 0;
    ++stats_.cycles;
}

void QpHarness::reset() {
    Verilated::threadContextp(ctx_.get());
    // Junk on every port, writes valid at random: rst_n must win.
    for (int i = 0; i < 2; i++) {
        QpIn junk;
        junk.cmd.valid = rng_.percent(70);
        junk.cmd.cmd = rng_.range(0, 7);
        junk.cmd.sel = rng_.range(0, kNumQp - 1);
        junk.cmd.sq_base = rng_.next();
        junk.cmd.sq_log = rng_.range(0, 15);
        junk.cmd.flags = rng_.byte();
        junk.db.valid = rng_.percent(70);
        junk.db.kind = rng_.range(0, 3);
        junk.db.index = rng_.range(0, kNumQp - 1);
        junk.db.value = static_cast<uint16_t>(rng_.range(0, 3));
        junk.err.valid = rng_.percent(70);
        junk.err.qp = rng_.range(0, kNumQp - 1);
        junk.err.status = rng_.byte();
        drive(junk, false);
        edge();
    }
    model_.reset();
    ++stats_.resets;
}

void QpHarness::tally(const QpIn &in) {
    QpStats &s = stats_;
    if (in.db.valid) {
        ++s.db_seen;
        DbWhy why;
        const Verdict v = model_.db_ok(in.db, &why);
        if (v == Verdict::Yes) {
            ++s.db_accepted;
            const QpCtx &c = model_.qp(in.db.index);
            const bool sq = in.db.kind == RNIC_DB_KIND_SQ;
            const uint16_t ci = sq ? in.db.sq_ci : in.db.rq_ci, pi = sq ? c.sq_pi : c.rq_pi;
            if (static_cast<uint16_t>(in.db.value - ci) == QpModel::ring(sq ? c.sq_log : c.rq_log))
                ++s.db_at_ring;
            if (in.db.value == pi)
                ++s.db_equal;
            if (in.db.value < pi)
                ++s.db_wrapped;
        } else if (v == Verdict::No) {
            ++s.db_refused[static_cast<int>(why)];
        } else {
            ++s.db_learned;
        }
    }
    if (in.cmd.valid) {
        ++s.cmds[in.cmd.cmd & 7u];
        const QpCtx &c = model_.qp(in.cmd.sel);
        if ((in.cmd.cmd & 7u) == RNIC_QP_CMD_RTS && c.state != RNIC_QP_STATE_INIT)
            ++s.rts_refused;
        if ((in.cmd.cmd & 7u) == RNIC_QP_CMD_ERROR && c.state == RNIC_QP_STATE_RESET)
            ++s.error_cmd_in_reset;
    }
    if (in.err.valid) {
        ++s.errs;
        if (model_.qp(in.err.qp).err != 0)
            ++s.errs_kept;
    }
    const unsigned sel = in.cmd.sel % kNumQp, dbq = in.db.index % kNumQp, eq = in.err.qp % kNumQp;
    const bool cd = in.cmd.valid && in.db.valid && sel == dbq;
    const bool ce = in.cmd.valid && in.err.valid && sel == eq;
    const bool de = in.db.valid && in.err.valid && dbq == eq;
    s.same_qp_cmd_db += cd;
    s.same_qp_cmd_err += ce;
    s.same_qp_db_err += de;
    s.same_qp_all += cd && ce;
}

QpOut QpHarness::peek(const QpIn &in) {
    Verilated::threadContextp(ctx_.get());
    drive(in, true);
    dut_->clk = 0;
    dut_->eval();
    const QpOut got = read();
    check(in, got, "peek");
    return got;
}

QpOut QpHarness::look(unsigned q) {
    QpIn in;
    in.cmd.sel = in.db.index = in.err.qp = in.cur = in.pq = in.nxt = q % kNumQp;
    return peek(in);
}

QpOut QpHarness::cycle(const QpIn &in) {
    Verilated::threadContextp(ctx_.get());
    drive(in, true);
    dut_->clk = 0;
    dut_->eval();
    const QpOut got = read();
    const bool unit_db_ok = check(in, got, "before the edge");
    tally(in);
    model_.edge(in, unit_db_ok);
    edge();
    check(in, read(), "after the edge");
    return got;
}
