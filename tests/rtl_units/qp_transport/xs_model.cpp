#include "xs_model.h"

CmdEffect cmd_effect(const XsCmd &k) {
    CmdEffect e;
    if (!k.valid)
        return e;
    switch (k.code & 7u) {
    case RNIC_QP_CMD_INIT:
        e.we = kInitClears | kInitSets;   // the values: 0, as e.v starts, but for kInitSets
        e.v[kKickWhy] = RNIC_RETRY_WHY_TIMEOUT;
        break;
    case RNIC_QP_CMD_RTS:
        if (k.in_init) {
            e.we = kRtsSets;
            e.v[kSqPsn] = k.sq_psn & mask_of(kXsDesc[kSqPsn].width);
            e.v[kRqPsn] = k.rq_psn & mask_of(kXsDesc[kRqPsn].width);
            e.v[kAckedPsn] = k.sq_psn & mask_of(kXsDesc[kAckedPsn].width);
            e.v[kRetryLeft] = k.retry_cnt & mask_of(kXsDesc[kRetryLeft].width);
            e.v[kRnrLeft] = k.rnr_retry & mask_of(kXsDesc[kRnrLeft].width);
        }
        break;
    case RNIC_QP_CMD_RESET:
        e.we = kResetCmdClears;
        break;
    default:   // ERROR: the state is rnic_qp_config's; the rest are no command
        break;
    }
    return e;
}

void XsModel::power_up() {
    for (QpXs &q : q_) q = QpXs{};
    for (Slot &s : s_) s = Slot{};
}

void XsModel::reset() {
    // Nothing is reset and nothing the ports carry meanwhile is relied on:
    // as at power-up (xs_model.h).
    power_up();
}

bool XsModel::oldest_slot(unsigned q, unsigned *s) const {
    const QpXs &x = qp(q);
    if (!x.has(kDone))
        return false;
    *s = slot_of(q, static_cast<uint32_t>(x.v[kDone]));
    return true;
}

void XsModel::edge(const XsIn &in) {
    // The command first, the job over it: both are judged on the inputs
    // alone (neither reads the store), so applying them in order of
    // priority to the same QP gives the job each field it enables.
    const CmdEffect e = cmd_effect(in.cmd);
    QpXs &c = q_[in.cmd.sel % kNumQp];
    for (unsigned f = 0; f < kXsFields; f++) {
        if (e.we & xs_we(static_cast<XsField>(f)))
            c.v[f] = e.v[f];
    }
    c.known |= e.we;

    QpXs &j = q_[in.job.qp % kNumQp];
    for (unsigned f = 0; f < kXsFields; f++) {
        if (in.job.we & xs_we(static_cast<XsField>(f)))
            j.v[f] = in.job.data[f] & mask_of(kXsDesc[f].width);
    }
    j.known |= in.job.we & kXsWeAll;

    Slot &s = s_[in.fl.slot % kSlots];
    for (unsigned f = 0; f < kFlFields; f++) {
        if (in.fl.we & fl_we(static_cast<FlField>(f)))
            s.v[f] = in.fl.data[f] & mask_of(kFlDesc[f].width);
    }
    s.known |= in.fl.we & kFlWeAll;
}
