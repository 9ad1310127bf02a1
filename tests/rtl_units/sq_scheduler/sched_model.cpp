#include "sched_model.h"

bool SchedModel::ready(const QpCtx &q, unsigned mutant) {
    if (q.state != RNIC_QP_STATE_RTS)
        return false;
    if (q.rnr_wait)   // an RNR NAK's delay: the retry, not a new WQE, comes next
        return false;
    if (q.paused)     // the rest of a started WQE: the holds below concern later ones
        return true;
    if (q.fenced)
        return false;
    if (q.sq_ci == q.sq_pi)   // nothing posted
        return false;
    if (in_flight(q) >= kMaxRd)
        return false;
    if (q.rd_hold && q.done == q.hold_done)   // the READ waits for the oldest to complete
        return false;
    if (q.bind_wait && mutant != RNIC_MUTANT_NO_BIND_FENCE)
        return false;
    return true;
}

bool SchedModel::bind_due(const QpCtx &q) {
    return q.state == RNIC_QP_STATE_RTS && in_flight(q) != 0 && q.op[q.done % kMaxRd] == RNIC_OP_BIND;
}

bool SchedModel::retry(const QpCtx &q) { return q.state == RNIC_QP_STATE_RTS && q.retry_due; }

bool SchedModel::has_flush(const QpCtx &q) {
    return q.state == RNIC_QP_STATE_ERROR && (in_flight(q) != 0 || q.sq_ci != q.sq_pi || q.rq_ci != q.rq_pi);
}

unsigned SchedModel::rd_limit(uint8_t flags) {
    const unsigned m = (flags & RNIC_QP_FLAGS_MAX_RD_MASK) >> RNIC_QP_FLAGS_MAX_RD_SHIFT;
    if (m == 0)
        return 1;
    return m > kMaxRd ? kMaxRd : m;
}

unsigned SchedModel::reads_in_flight(const QpCtx &q) {
    unsigned n = 0;
    for (uint16_t i = q.done; i != q.sq_ci; ++i) {
        if (static_cast<uint16_t>(i - q.done) >= kMaxRd)   // never more than MAX_RD_ATOMIC in flight
            break;
        if (q.op[i % kMaxRd] == RNIC_OP_RDMA_READ)
            n++;
    }
    return n;
}

SchedOut SchedModel::eval(const SchedIn &in) const {
    SchedOut o;
    for (unsigned k = 0; k < kNumQp; k++) {
        const unsigned q = (rr_ + k) % kNumQp;
        if (!o.pick_any && ready(in.qp[q], in.mutant)) {
            o.pick_any = true;
            o.pick_q = q;
        }
        if (!o.bind_any && bind_due(in.qp[q])) {
            o.bind_any = true;
            o.bind_q = q;
        }
        if (!o.retry_any && retry(in.qp[q])) {
            o.retry_any = true;
            o.retry_q = q;
        }
        if (!o.flush_any && has_flush(in.qp[q])) {
            o.flush_any = true;
            o.flush_q = q;
        }
    }
    const QpCtx &c = in.qp[in.cur % kNumQp];
    o.rd_at_limit = reads_in_flight(c) >= rd_limit(c.flags);
    return o;
}

void SchedModel::edge(const SchedIn &in) {
    if (!in.advance)
        return;
    const SchedOut o = eval(in);
    rr_ = (o.pick_q + 1) % kNumQp;
}
