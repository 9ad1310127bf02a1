#include "qp_model.h"

void QpModel::reset() {
    // RESET, no error status; the indices, configuration and peer forgotten
    // (the unit does not reset the RAM words; the indices read 0 through
    // their fresh bits, which reset_indices checks).
    for (QpCtx &c : q_) c = QpCtx{};
}

Verdict QpModel::db_ok(const QpDb &db, DbWhy *why) const {
    DbWhy w = DbWhy::Accepted;
    Verdict v = Verdict::Yes;
    const QpCtx &c = qp(db.index);
    const bool sq = db.kind == RNIC_DB_KIND_SQ;
    const uint16_t ci = sq ? db.sq_ci : db.rq_ci;
    const uint16_t pi = sq ? c.sq_pi : c.rq_pi;
    const bool pi_known = sq ? c.sq_pi_known : c.rq_pi_known;
    const uint16_t ahead = static_cast<uint16_t>(db.value - ci);
    const uint16_t was = static_cast<uint16_t>(pi - ci);
    // The largest ring the QP may have: its own, or any a 4-bit log gives.
    const uint16_t most = ring(c.cfg_known ? (sq ? c.sq_log : c.rq_log) : 15);
    if (db.kind != RNIC_DB_KIND_SQ && db.kind != RNIC_DB_KIND_RQ) {
        w = DbWhy::NotQpKind;
        v = Verdict::No;
    } else if (c.state == RNIC_QP_STATE_RESET) {
        w = DbWhy::Reset;
        v = Verdict::No;
    } else if (pi_known && ahead < was) {
        w = DbWhy::Backwards;
        v = Verdict::No;
    } else if (ahead > most) {
        w = DbWhy::PastRing;
        v = Verdict::No;
    } else if (!pi_known || (!c.cfg_known && ahead > ring(0))) {
        // Behind an index the model does not know, or within some rings
        // and not others.
        w = DbWhy::Unknown;
        v = Verdict::Maybe;
    }
    if (why)
        *why = w;
    return v;
}

void QpModel::edge(const QpIn &in, bool unit_db_ok) {
    QpCtx next[kNumQp];
    for (unsigned i = 0; i < kNumQp; i++) next[i] = q_[i];

    // Commands, judged on the state before the edge.
    if (in.cmd.valid) {
        const QpCmd &k = in.cmd;
        const QpCtx &old = qp(k.sel);
        QpCtx &n = next[k.sel % kNumQp];
        switch (k.cmd & 7u) {
        case RNIC_QP_CMD_INIT:
            n.state = RNIC_QP_STATE_INIT;
            n.err = 0;
            n.cfg_known = true;
            n.sq_base = k.sq_base;
            n.rq_base = k.rq_base;
            n.sq_log = k.sq_log & 15u;
            n.rq_log = k.rq_log & 15u;
            n.scq = k.scq % kNumCq;
            n.rcq = k.rcq % kNumCq;
            n.pz = k.pz;
            n.flags = k.flags;
            n.log_mtu = k.log_mtu & 15u;
            n.sq_pi = 0;
            n.rq_pi = 0;
            n.sq_pi_known = n.rq_pi_known = true;
            break;
        case RNIC_QP_CMD_RTS:
            if (old.state == RNIC_QP_STATE_INIT) {
                n.state = RNIC_QP_STATE_RTS;
                n.peer_known = true;
                n.remote_qpn = k.remote_qpn & 0xFFFFFFu;
                n.remote_ip = k.remote_ip;
                n.remote_mac = k.remote_mac & 0xFFFFFFFFFFFFull;
                n.flags = k.flags;
                n.log_mtu = k.log_mtu & 15u;
            }
            break;
        case RNIC_QP_CMD_ERROR:
            if (old.state != RNIC_QP_STATE_RESET)
                n.state = RNIC_QP_STATE_ERROR;
            break;
        case RNIC_QP_CMD_RESET:
            n.state = RNIC_QP_STATE_RESET;
            break;
        default:
            break;
        }
    }

    // The doorbell, judged on the state before the edge.
    if (in.db.valid) {
        const Verdict v = db_ok(in.db);
        const bool ok = v == Verdict::Yes || (v == Verdict::Maybe && unit_db_ok);
        if (ok) {
            QpCtx &n = next[in.db.index % kNumQp];
            const bool sq = in.db.kind == RNIC_DB_KIND_SQ;
            (sq ? n.sq_pi : n.rq_pi) = in.db.value;
            (sq ? n.sq_pi_known : n.rq_pi_known) = true;
        }
    }

    // The engine's error, the first status kept (judged before the edge);
    // none for a QP in RESET, or reset by this cycle's command.
    const bool err_reset = qp(in.err.qp).state == RNIC_QP_STATE_RESET ||
                           (in.cmd.valid && in.cmd.cmd == RNIC_QP_CMD_RESET && in.cmd.sel % kNumQp == in.err.qp % kNumQp);
    if (in.err.valid && !err_reset) {
        QpCtx &n = next[in.err.qp % kNumQp];
        n.state = RNIC_QP_STATE_ERROR;
        // An INIT in the same cycle has cleared the old status.
        const bool init = in.cmd.valid && in.cmd.cmd == RNIC_QP_CMD_INIT && in.cmd.sel % kNumQp == in.err.qp % kNumQp;
        if (qp(in.err.qp).err == 0 || init)
            n.err = in.err.status;
    }

    for (unsigned i = 0; i < kNumQp; i++) q_[i] = next[i];
}
