#include "cq_model.h"

void CqModel::reset() {
    for (CqState &q : q_) q = CqState{};
}

void CqModel::command(unsigned op, unsigned sel, uint64_t base, unsigned log) {
    CqState &q = q_[sel];
    q = CqState{};
    if (op == RNIC_CQ_CMD_CREATE) {
        q.valid = true;
        q.base_known = true;
        q.base = base;
        q.log = log;
    }
}

bool CqModel::doorbell_ok(uint32_t index, uint16_t value) const {
    if (index >= kNumCq || !q_[index].valid)
        return false;
    const CqState &q = q_[index];
    // value in [ci .. pi], counted mod 2^16 from ci.
    return static_cast<uint16_t>(value - q.ci) <= static_cast<uint16_t>(q.pi - q.ci);
}

bool CqModel::doorbell(uint32_t index, uint16_t value) {
    if (!doorbell_ok(index, value))
        return false;
    q_[index].ci = value;
    return true;
}

bool CqModel::full(unsigned cq) const {
    return used(cq) > mask(cq);
}

uint64_t CqModel::slot_addr(unsigned cq) const {
    const CqState &q = q_[cq];
    return q.base + static_cast<uint64_t>(q.pi & mask(cq)) * RNIC_CQE_BYTES;
}

void CqModel::produced(unsigned cq) {
    ++q_[cq].pi;
}

void cqe_encode(const CqeFields &f, unsigned phase, uint64_t words[RNIC_CQE_WORDS]) {
    for (unsigned i = 0; i < RNIC_CQE_WORDS; i++) words[i] = 0;
    RNIC_SET(words, CQE, STATUS, f.status);
    RNIC_SET(words, CQE, OPCODE, f.op);
    RNIC_SET(words, CQE, QPN, f.qpn);
    RNIC_SET(words, CQE, WQE_IDX, f.idx);
    RNIC_SET(words, CQE, IS_RECV, f.recv ? 1u : 0u);
    RNIC_SET(words, CQE, PHASE, phase);
    RNIC_SET(words, CQE, BYTE_LEN, f.len);
    RNIC_SET(words, CQE, WR_ID, f.wrid);
    RNIC_SET(words, CQE, VERDICT, f.verdict);
    RNIC_SET(words, CQE, CHECK_KEY, f.check_key);
}
