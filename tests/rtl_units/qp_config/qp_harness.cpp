#include "qp_harness.h"

#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>

#include "rnic_check.h"

namespace {
constexpr unsigned kMaxReports = 10;        // failing cycles described in full per harness
constexpr unsigned kMaxFieldsShown = 12;    // mismatched fields listed per failing cycle

// QW, the bits of a QP index, and CFW, the bits of one look's row
// (rnic_pkg::sched_cfg_t: state[1:0], sq_pi[15:0], rq_pi[15:0], MSB first).
constexpr unsigned qw() {
    unsigned w = 0;
    while ((1u << w) < kNumQp) ++w;
    return w;
}
constexpr unsigned kQw = qw();
constexpr unsigned kCfgW = 2 + 16 + 16;
constexpr unsigned kCfgState = 32, kCfgSqPi = 16, kCfgRqPi = 0;   // each field's lsb in the row
// The ports as Verilator declares them (references, at the top) for these
// widths: look_qp in one word, look_cfg in as many as its bits need (a LOOKS
// or a row of another size mostly shows here, not as a wrong field).
template <class T> using port_t = std::remove_cv_t<std::remove_reference_t<T>>;
static_assert(kLooks * kQw <= 32, "look_qp is driven as one word");
static_assert(std::is_same_v<port_t<decltype(Vrnic_qp_config::look_qp)>, IData>, "look_qp: LOOKS * QW bits");
static_assert(std::is_same_v<port_t<decltype(Vrnic_qp_config::look_cfg)>, VlWide<(kLooks * kCfgW + 31) / 32>>,
              "look_cfg: LOOKS rows of sched_cfg_t");

// A field of `width` bits (up to 32) at bit `lsb` of a wide port; a row is
// 34 bits, so its fields straddle words.
template <std::size_t N> uint32_t get(const VlWide<N> &w, unsigned lsb, unsigned width) {
    const unsigned word = lsb / 32, shift = lsb % 32;
    if (width > 32 || lsb + width > 32 * N) {
        std::fprintf(stderr, "qp_config bench error: bits %u..%u of a %zu-word port\n", lsb, lsb + width - 1, N);
        std::exit(2);
    }
    uint64_t v = w[word] >> shift;
    if (shift + width > 32)
        v |= static_cast<uint64_t>(w[word + 1]) << (32 - shift);
    return static_cast<uint32_t>(v & ((uint64_t{1} << width) - 1));
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

QpHarness::QpHarness(uint64_t seed)
    : seed_(seed), rng_(seed ^ 0x0C0F16ull), look_rng_(seed ^ 0x100C5ull), ctx_(unit_context(seed)) {
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

// The scheduler reads the rows of the QPs written the cycle before, at
// registered addresses, so that is what the looks must get right: up to
// three of the QPs written in this cycle (seen before the edge with their
// old rows, after it with the write landed) or the one before, the rest
// random; one look sweeping every QP in turn; and one at the QP of
// another (two reads of one row in a cycle). Shuffled, so each kind of
// look lands in every slot and the sweep puts every QP at every slot over
// time.
void QpHarness::choose_looks(QpIn &in) {
    static_assert(kLooks >= 3, "a sweep, a repeat and at least one other");
    if (in.look_given)
        return;
    unsigned pool[6];
    unsigned n = 0;
    auto add = [&](bool valid, unsigned q) {
        if (valid)
            pool[n++] = q % kNumQp;
    };
    add(in.cmd.valid, in.cmd.sel);
    add(in.db.valid, in.db.index);
    add(in.err.valid, in.err.qp);
    for (unsigned i = 0; i < 3; i++) add(wrote_valid_[i], wrote_[i]);
    unsigned pick[kLooks];
    pick[0] = sweep_++ % kNumQp;
    for (unsigned l = 1; l + 1 < kLooks; l++) {
        if (n && !look_rng_.percent(20)) {
            const unsigned i = look_rng_.range(0, n - 1);
            pick[l] = pool[i];
            pool[i] = pool[--n];
        } else {
            pick[l] = look_rng_.range(0, kNumQp - 1);
        }
    }
    pick[kLooks - 1] = look_rng_.percent(80) ? pick[look_rng_.range(0, kLooks - 2)] : look_rng_.range(0, kNumQp - 1);
    for (unsigned l = kLooks - 1; l > 0; l--) std::swap(pick[l], pick[look_rng_.range(0, l)]);
    for (unsigned l = 0; l < kLooks; l++) in.look[l] = pick[l];
    in.look_given = true;
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
    uint32_t looks = 0;
    for (unsigned l = 0; l < kLooks; l++) looks |= (in.look[l] % kNumQp) << (kQw * l);
    d.look_qp = looks;
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
    o.cur_flags = d.cur_flags;
    o.cur_log_mtu = d.cur_log_mtu;
    o.cur_state = d.cur_state;
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
    for (unsigned l = 0; l < kLooks; l++) {
        QpOut::Look &k = o.look[l];
        k.qp = (static_cast<uint32_t>(d.look_qp) >> (kQw * l)) & (kNumQp - 1);
        k.state = get(d.look_cfg, kCfgW * l + kCfgState, 2);
        k.sq_pi = static_cast<uint16_t>(get(d.look_cfg, kCfgW * l + kCfgSqPi, 16));
        k.rq_pi = static_cast<uint16_t>(get(d.look_cfg, kCfgW * l + kCfgRqPi, 16));
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
    cmp("cur_state", cur, got.cur_state, c.state);
    if (c.cfg_known) {
        cmp("cur_sq_base", cur, got.cur_sq_base, c.sq_base);
        cmp("cur_rq_base", cur, got.cur_rq_base, c.rq_base);
        cmp("cur_sq_log", cur, got.cur_sq_log, c.sq_log);
        cmp("cur_rq_log", cur, got.cur_rq_log, c.rq_log);
        cmp("cur_scq", cur, got.cur_scq, c.scq);
        cmp("cur_rcq", cur, got.cur_rcq, c.rcq);
        cmp("cur_pz", cur, got.cur_pz, c.pz);
        cmp("cur_flags", cur, got.cur_flags, c.flags);
        cmp("cur_log_mtu", cur, got.cur_log_mtu, c.log_mtu);
    }
    if (c.peer_known) {
        cmp("cur_remote_qpn", cur, got.cur_remote_qpn, c.remote_qpn);
        cmp("cur_remote_ip", cur, got.cur_remote_ip, c.remote_ip);
        cmp("cur_remote_mac", cur, got.cur_remote_mac, c.remote_mac);
    }
    if (c.sq_pi_known)
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
    if (p.rq_pi_known)
        cmp("pq_rq_pi", pq, got.pq_rq_pi, p.rq_pi);

    const QpCtx &n = model_.qp(nxt);
    if (n.cfg_known) {
        cmp("nxt_sq_base", nxt, got.nxt_sq_base, n.sq_base);
        cmp("nxt_sq_log", nxt, got.nxt_sq_log, n.sq_log);
    }

    const QpCtx &s = model_.qp(sel);
    cmp("sel_state", sel, got.sel_state, s.state);
    cmp("sel_err", sel, got.sel_err, s.err);

    static const char *const kLookState[] = {"look0_state", "look1_state", "look2_state", "look3_state", "look4_state"};
    static const char *const kLookSq[] = {"look0_sq_pi", "look1_sq_pi", "look2_sq_pi", "look3_sq_pi", "look4_sq_pi"};
    static const char *const kLookRq[] = {"look0_rq_pi", "look1_rq_pi", "look2_rq_pi", "look3_rq_pi", "look4_rq_pi"};
    static_assert(sizeof kLookState / sizeof kLookState[0] == kLooks, "a name per look");
    for (unsigned l = 0; l < kLooks; l++) {
        const unsigned lq = in.look[l] % kNumQp;
        const QpCtx &q = model_.qp(lq);
        cmp(kLookState[l], lq, got.look[l].state, q.state);
        if (q.sq_pi_known)
            cmp(kLookSq[l], lq, got.look[l].sq_pi, q.sq_pi);
        if (q.rq_pi_known)
            cmp(kLookRq[l], lq, got.look[l].rq_pi, q.rq_pi);
        stats_.look_pi_unknown += !q.sq_pi_known + !q.rq_pi_known;
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
                 "0x%04x rq_ci 0x%04x -> unit db_ok %d; err valid %d qp %u status %u; cur %u pq %u nxt %u; looks",
                 static_cast<unsigned long long>(stats_.cycles), when, static_cast<unsigned long long>(seed_),
                 static_cast<unsigned long long>(seed_), cmd_name(in.cmd.cmd & 7u), in.cmd.valid, in.cmd.cmd & 7u,
                 in.cmd.sel % kNumQp, in.cmd.log_mtu & 15u, in.db.valid, in.db.kind & 3u, in.db.index % kNumQp,
                 in.db.value, in.db.sq_ci, in.db.rq_ci, got.db_ok, in.err.valid, in.err.qp % kNumQp, in.err.status,
                 in.cur % kNumQp, in.pq % kNumQp, in.nxt % kNumQp);
    for (unsigned l = 0; l < kLooks; l++) std::fprintf(stderr, " %u", in.look[l] % kNumQp);
    std::fprintf(stderr, "\n");
    unsigned named[6 + kLooks] = {in.cmd.sel, in.db.index, in.err.qp, in.cur, in.pq, in.nxt};
    for (unsigned l = 0; l < kLooks; l++) named[6 + l] = in.look[l];
    bool shown[kNumQp] = {};
    for (unsigned q : named) {
        q %= kNumQp;
        if (shown[q])
            continue;
        shown[q] = true;
        const QpCtx &c = model_.qp(q);
        char sq[8] = "?", rq[8] = "?";
        if (c.sq_pi_known)
            std::snprintf(sq, sizeof sq, "0x%04x", c.sq_pi);
        if (c.rq_pi_known)
            std::snprintf(rq, sizeof rq, "0x%04x", c.rq_pi);
        std::fprintf(stderr,
                     "  model qp %2u: %s err %u sq_pi %s rq_pi %s; config %s (sq log %u rq log %u flags "
                     "0x%02x log_mtu %u); peer %s\n",
                     q, state_name(c.state), c.err, sq, rq, c.cfg_known ? "known" : "unknown", c.sq_log, c.rq_log,
                     c.flags, c.log_mtu, c.peer_known ? "known" : "unknown");
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
        junk.look_given = true;
        for (unsigned &q : junk.look) q = look_rng_.range(0, kNumQp - 1);
        drive(junk, false);
        edge();
    }
    model_.reset();
    for (bool &w : wrote_valid_) w = false;   // what reset swept away is no write to look at
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
    bool repeated = false;
    for (unsigned l = 0; l < kLooks; l++) {
        const unsigned q = in.look[l] % kNumQp;
        ++s.look_seen[l][q];
        s.look_written += (in.cmd.valid && q == sel) || (in.db.valid && q == dbq) || (in.err.valid && q == eq);
        for (unsigned k = 0; k < l; k++) repeated |= in.look[k] % kNumQp == q;
    }
    s.look_repeated += repeated;
}

QpOut QpHarness::peek(const QpIn &given) {
    Verilated::threadContextp(ctx_.get());
    QpIn in = given;
    choose_looks(in);
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
    in.look_given = true;
    for (unsigned &l : in.look) l = q % kNumQp;
    return peek(in);
}

QpOut QpHarness::cycle(const QpIn &given) {
    Verilated::threadContextp(ctx_.get());
    QpIn in = given;
    choose_looks(in);
    drive(in, true);
    dut_->clk = 0;
    dut_->eval();
    const QpOut got = read();
    const bool unit_db_ok = check(in, got, "before the edge");
    tally(in);
    model_.edge(in, unit_db_ok);
    edge();
    check(in, read(), "after the edge");
    wrote_[0] = in.cmd.sel % kNumQp;
    wrote_[1] = in.db.index % kNumQp;
    wrote_[2] = in.err.qp % kNumQp;
    wrote_valid_[0] = in.cmd.valid;
    wrote_valid_[1] = in.db.valid;
    wrote_valid_[2] = in.err.valid;
    return got;
}
