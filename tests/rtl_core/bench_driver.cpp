#include "bench_driver.h"

#include <cstdio>
#include <cstdlib>

#include "rnic_hw.h"

void BenchDriver::open(int n) {
    f_.bar_write(n, RNIC_REG_MAC_HI, 0x0200);
    f_.bar_write(n, RNIC_REG_MAC_LO, static_cast<uint32_t>(n + 1));
    f_.bar_write(n, RNIC_REG_IPV4, 0x0A000001u + static_cast<uint32_t>(n));
}

void BenchDriver::pt_write(int n, uint32_t index, uint8_t key8, uint16_t pz, uint64_t base, uint64_t len,
                           unsigned rights, unsigned state) {
    f_.bar_write(n, RNIC_REG_PT_INDEX, index);
    f_.bar_write(n, RNIC_REG_PT_KEY_PZ, static_cast<uint32_t>(pz) << RNIC_PT_KEY_PZ_PZ_SHIFT | key8);
    f_.bar_write(n, RNIC_REG_PT_BASE_LO, static_cast<uint32_t>(base));
    f_.bar_write(n, RNIC_REG_PT_BASE_HI, static_cast<uint32_t>(base >> 32));
    f_.bar_write(n, RNIC_REG_PT_LEN_LO, static_cast<uint32_t>(len));
    f_.bar_write(n, RNIC_REG_PT_LEN_HI, static_cast<uint32_t>(len >> 32));
    f_.bar_write(n, RNIC_REG_PT_FLAGS, (rights & 0xFu) | (RNIC_PT_TYPE_MR << RNIC_PT_FLAGS_TYPE_SHIFT) |
                                           (state << RNIC_PT_FLAGS_STATE_SHIFT));
    f_.bar_write(n, RNIC_REG_PT_CMD, RNIC_PT_CMD_WRITE);
    f_.run(4);
}

Cq BenchDriver::cq_create(int n, unsigned num, unsigned log) {
    Cq cq;
    cq.nic = n;
    cq.num = num;
    cq.log = log;
    cq.ring = f_.mem(n).alloc(static_cast<size_t>(RNIC_CQE_BYTES) << log, 64);
    f_.bar_write(n, RNIC_REG_CQ_SEL, num);
    f_.bar_write(n, RNIC_REG_CQ_BASE_LO, static_cast<uint32_t>(cq.ring));
    f_.bar_write(n, RNIC_REG_CQ_BASE_HI, static_cast<uint32_t>(cq.ring >> 32));
    f_.bar_write(n, RNIC_REG_CQ_LOG_SIZE, log);
    f_.bar_write(n, RNIC_REG_CQ_CMD, RNIC_CQ_CMD_CREATE);
    f_.run(2);
    return cq;
}

Qp BenchDriver::qp_create(int n, unsigned num, const Cq &scq, const Cq &rcq, uint16_t pz, uint32_t flags,
                          unsigned sq_log, unsigned rq_log) {
    Qp q;
    q.nic = n;
    q.num = num;
    q.sq_log = sq_log;
    q.rq_log = rq_log;
    q.scq = scq.num;
    q.rcq = rcq.num;
    q.pz = pz;
    q.sq = f_.mem(n).alloc(static_cast<size_t>(RNIC_WQE_BYTES) << sq_log, RNIC_WQE_BYTES);
    q.rq = f_.mem(n).alloc(static_cast<size_t>(RNIC_WQE_BYTES) << rq_log, RNIC_WQE_BYTES);
    f_.bar_write(n, RNIC_REG_QP_SEL, num);
    f_.bar_write(n, RNIC_REG_QP_SQ_BASE_LO, static_cast<uint32_t>(q.sq));
    f_.bar_write(n, RNIC_REG_QP_SQ_BASE_HI, static_cast<uint32_t>(q.sq >> 32));
    f_.bar_write(n, RNIC_REG_QP_RQ_BASE_LO, static_cast<uint32_t>(q.rq));
    f_.bar_write(n, RNIC_REG_QP_RQ_BASE_HI, static_cast<uint32_t>(q.rq >> 32));
    f_.bar_write(n, RNIC_REG_QP_RINGS, sq_log << RNIC_QP_RINGS_SQ_LOG_SHIFT | rq_log << RNIC_QP_RINGS_RQ_LOG_SHIFT |
                                           scq.num << RNIC_QP_RINGS_SCQ_SHIFT | rcq.num << RNIC_QP_RINGS_RCQ_SHIFT);
    f_.bar_write(n, RNIC_REG_QP_PZ, pz);
    f_.bar_write(n, RNIC_REG_QP_FLAGS, flags);
    f_.bar_write(n, RNIC_REG_QP_TIMERS, qp_timers);
    stage_path(n);
    f_.bar_write(n, RNIC_REG_QP_CMD, RNIC_QP_CMD_INIT);
    f_.run(2);
    return q;
}

void BenchDriver::stage_path(int n) {
    if (path_staged_[n] == qp_path[n]) return;
    f_.bar_write(n, RNIC_REG_QP_PATH, qp_path[n]);
    path_staged_[n] = qp_path[n];
}

void BenchDriver::connect(Qp &a, Qp &b, uint32_t psn_a, uint32_t psn_b) {
    const Qp *side[2] = {&a, &b};
    const uint32_t psn[2] = {psn_a, psn_b};
    for (int s = 0; s < 2; s++) {
        const Qp &me = *side[s];
        const Qp &peer = *side[1 - s];
        int n = me.nic;
        f_.bar_write(n, RNIC_REG_QP_SEL, me.num);
        f_.bar_write(n, RNIC_REG_QP_REMOTE, peer.num);
        f_.bar_write(n, RNIC_REG_QP_REMOTE_IPV4, 0x0A000001u + static_cast<uint32_t>(peer.nic));
        f_.bar_write(n, RNIC_REG_QP_REMOTE_MAC_LO, static_cast<uint32_t>(peer.nic + 1));
        f_.bar_write(n, RNIC_REG_QP_REMOTE_MAC_HI, 0x0200);
        f_.bar_write(n, RNIC_REG_QP_SQ_PSN, psn[s]);
        f_.bar_write(n, RNIC_REG_QP_RQ_PSN, psn[1 - s]);
        f_.bar_write(n, RNIC_REG_QP_TIMERS, qp_timers);
        stage_path(n);
        f_.bar_write(n, RNIC_REG_QP_CMD, RNIC_QP_CMD_RTS);
        f_.run(2);
    }
}

uint32_t BenchDriver::qp_state(int n, unsigned qpn) {
    f_.bar_write(n, RNIC_REG_QP_SEL, qpn);
    return f_.bar_read(n, RNIC_REG_QP_STATE);
}

void BenchDriver::qp_cmd(int n, unsigned qpn, unsigned cmd) {
    f_.bar_write(n, RNIC_REG_QP_SEL, qpn);
    f_.bar_write(n, RNIC_REG_QP_CMD, cmd);
    f_.run(2);
}

void BenchDriver::write_wqe(const Qp &q, bool send_ring, uint16_t idx, const uint64_t w[16]) {
    unsigned lg = send_ring ? q.sq_log : q.rq_log;
    uint64_t base = send_ring ? q.sq : q.rq;
    uint64_t a = base + static_cast<uint64_t>(idx & ((1u << lg) - 1)) * RNIC_WQE_BYTES;
    for (int i = 0; i < 16; i++) f_.mem(q.nic).write64(a + 8 * i, w[i]);
}

void SgList::push_back(const Sge &s) {
    if (n_ == kSlots) {
        std::fprintf(stderr, "bench: more than %zu SGEs do not fit in a WQE\n", kSlots);
        std::abort();
    }
    e_[n_++] = s;
}

namespace {
void put_sges(uint64_t w[16], const SgList &sg) {
    for (size_t i = 0; i < sg.size(); i++) {
        uint64_t *s = w + 4 + 2 * i;
        RNIC_SET(s, SGE, ADDR, sg[i].addr);
        RNIC_SET(s, SGE, LEN, sg[i].len);
        RNIC_SET(s, SGE, LKEY, sg[i].lkey);
    }
}
}  // namespace

void BenchDriver::post_send(Qp &q, const SendWr &wr, bool ring) {
    uint64_t w[16] = {0};
    uint64_t total = 0;
    for (const Sge &s : wr.sg) total += s.len;
    RNIC_SET(w, WQE, OPCODE, wr.opcode);
    RNIC_SET(w, WQE, FLAGS, wr.flags);
    RNIC_SET(w, WQE, NUM_SGE, wr.sg.size());
    RNIC_SET(w, WQE, REMOTE_ADDR, wr.remote_addr);
    RNIC_SET(w, WQE, RKEY, wr.rkey);
    RNIC_SET(w, WQE, TOTAL_LEN, total);
    RNIC_SET(w, WQE, WR_ID, wr.wr_id);
    put_sges(w, wr.sg);
    post_raw(q, w, ring);
}

void BenchDriver::post_raw(Qp &q, const uint64_t w[16], bool ring) {
    write_wqe(q, true, q.sq_pi, w);
    q.sq_pi++;
    if (ring) ring_sq(q);
}

void BenchDriver::post_recv(Qp &q, const SgList &sg, uint64_t wr_id, bool ring) {
    uint64_t w[16] = {0};
    RNIC_SET(w, WQE, OPCODE, RNIC_OP_RECV);
    RNIC_SET(w, WQE, NUM_SGE, sg.size());
    RNIC_SET(w, WQE, WR_ID, wr_id);
    put_sges(w, sg);
    write_wqe(q, false, q.rq_pi, w);
    q.rq_pi++;
    if (ring) ring_rq(q);
}

bool BenchDriver::poll(Cq &cq, Cqe &out, bool ring_db) {
    uint64_t a = cq.ring + static_cast<uint64_t>(cq.ci & ((1u << cq.log) - 1)) * RNIC_CQE_BYTES;
    uint64_t w[4];
    f_.mem(cq.nic).read(a, w, sizeof w);
    unsigned expect_phase = ((cq.ci >> cq.log) & 1u) ? 0u : 1u;
    if (RNIC_GET(w, CQE, PHASE) != expect_phase) return false;
    out.status = static_cast<unsigned>(RNIC_GET(w, CQE, STATUS));
    out.opcode = static_cast<unsigned>(RNIC_GET(w, CQE, OPCODE));
    out.qpn = static_cast<unsigned>(RNIC_GET(w, CQE, QPN));
    out.wqe_idx = static_cast<unsigned>(RNIC_GET(w, CQE, WQE_IDX));
    out.is_recv = static_cast<unsigned>(RNIC_GET(w, CQE, IS_RECV));
    out.phase = expect_phase;
    out.byte_len = static_cast<uint32_t>(RNIC_GET(w, CQE, BYTE_LEN));
    out.wr_id = RNIC_GET(w, CQE, WR_ID);
    cq.ci++;
    if (ring_db) f_.bar_write(cq.nic, static_cast<uint16_t>(RNIC_REG_DB_CQ + 4 * cq.num), cq.ci);
    return true;
}

bool BenchDriver::wait_cqe(Cq &cq, Cqe &out, uint64_t budget) {
    if (const char *b = std::getenv("RTL_CORE_BUDGET")) budget = std::strtoull(b, nullptr, 0);   // for debugging
    for (uint64_t i = 0; i < budget; i++) {
        if (poll(cq, out)) return true;
        f_.step();
    }
    std::fprintf(stderr, "[cycle %llu] no CQE on nic%d CQ %u within %llu cycles\n",
                 static_cast<unsigned long long>(f_.now()), cq.nic, cq.num, static_cast<unsigned long long>(budget));
    for (int n = 0; n < 2; n++)
        std::fprintf(stderr, "  nic%d: STATUS 0x%x ERR_ADDR 0x%x RX_DROPS %u\n", n, f_.bar_read(n, RNIC_REG_STATUS),
                     f_.bar_read(n, RNIC_REG_ERR_ADDR), f_.bar_read(n, RNIC_REG_RX_DROPS));
    return false;
}

void BenchDriver::settle(unsigned quiet) {
    uint64_t last_rd[2] = {f_.dma_read_bytes[0], f_.dma_read_bytes[1]};
    uint64_t last_wr[2] = {f_.writes[0].size(), f_.writes[1].size()};
    uint64_t last_fr[2] = {f_.frames_sent[0], f_.frames_sent[1]};
    unsigned still = 0;
    for (uint64_t i = 0; i < 4000000 && still < quiet; i++) {
        f_.step();
        bool moved = false;
        for (int n = 0; n < 2; n++) {
            moved |= f_.dma_read_bytes[n] != last_rd[n] || f_.writes[n].size() != last_wr[n] ||
                     f_.frames_sent[n] != last_fr[n];
            last_rd[n] = f_.dma_read_bytes[n];
            last_wr[n] = f_.writes[n].size();
            last_fr[n] = f_.frames_sent[n];
        }
        still = moved ? 0 : still + 1;
    }
}
