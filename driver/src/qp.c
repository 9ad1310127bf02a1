/* Queue pairs: send and receive rings in host memory, programmed into the
 * NIC's QP context; posting writes a WQE and rings the doorbell. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define WQE_WORDS (RNIC_WQE_BYTES / 8u)

/* A command takes effect a few cycles after its register write: poll. */
static bool reaches_state(rnic_dev *d, uint32_t num, uint32_t want) {
    reg_wr(d, RNIC_REG_QP_SEL, num);
    for (int i = 0; i < 16; i++) {
        if ((reg_rd(d, RNIC_REG_QP_STATE) & 0xFFu) == want)
            return true;
    }
    return false;
}

/* Field width from the generated mask, so a check follows the register map. */
#define TIMER_MAX(F) (RNIC_QP_TIMERS_##F##_MASK >> RNIC_QP_TIMERS_##F##_SHIFT)
#define TIMER_PUT(F, v) ((uint32_t)(v) << RNIC_QP_TIMERS_##F##_SHIFT & RNIC_QP_TIMERS_##F##_MASK)
#define TIMER_GET(F, w) ((uint8_t)(((w) & RNIC_QP_TIMERS_##F##_MASK) >> RNIC_QP_TIMERS_##F##_SHIFT))

/* The QP_TIMERS word of t (NULL: the defaults), or false for a value its
 * field cannot hold: cut to the field's width, it would program some other
 * setting than the caller asked for, silently. */
static bool timers_word(const struct rnic_qp_timers *t, uint32_t *out) {
    static const struct rnic_qp_timers dflt = {RNIC_QP_DEFAULT_ACK_TIMEOUT, RNIC_QP_DEFAULT_RETRY_CNT,
                                               RNIC_QP_DEFAULT_RNR_RETRY, RNIC_QP_DEFAULT_MIN_RNR_TIMER};
    if (!t)
        t = &dflt;
    if (t->ack_timeout > TIMER_MAX(ACK_TIMEOUT) || t->retry_cnt > TIMER_MAX(RETRY_CNT) ||
        t->rnr_retry > TIMER_MAX(RNR_RETRY) || t->min_rnr_timer > TIMER_MAX(MIN_RNR_TIMER))
        return false;
    *out = TIMER_PUT(ACK_TIMEOUT, t->ack_timeout) | TIMER_PUT(RETRY_CNT, t->retry_cnt) |
           TIMER_PUT(RNR_RETRY, t->rnr_retry) | TIMER_PUT(MIN_RNR_TIMER, t->min_rnr_timer);
    return true;
}

int rnic_qp_create(rnic_dev *d, const struct rnic_qp_attr *a, rnic_qp **out) {
    if (!d || !a || !out || !a->send_cq || !a->recv_cq || a->send_cq->dev != d || a->recv_cq->dev != d)
        return RNIC_E_INVAL;
    if (a->sq_entries == 0 || a->rq_entries == 0 || a->sq_entries > (1u << RNIC_MAX_LOG_RING) ||
        a->rq_entries > (1u << RNIC_MAX_LOG_RING) || (a->allow_remote & ~(RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE)))
        return RNIC_E_INVAL;
    if (a->pz == 0 || a->pz >= RNIC_MAX_PZ || !d->pz_used[a->pz])
        return RNIC_E_INVAL;
    uint32_t timers;
    if (!timers_word(a->timers, &timers))
        return RNIC_E_INVAL;
    /* QPs 0 and 1 are InfiniBand's management QPs (SMI, GSI): an RC
     * connection never uses them, and capture tools decode them as MADs. */
    uint32_t num = d->info.num_qp;
    for (uint32_t i = 2; i < d->info.num_qp; i++) {
        if (!d->qps[i]) {
            num = i;
            break;
        }
    }
    if (num == d->info.num_qp)
        return RNIC_E_FULL;
    rnic_qp *qp = calloc(1, sizeof(*qp));
    if (!qp)
        return RNIC_E_NOMEM;
    qp->dev = d;
    qp->num = num;
    qp->pz = a->pz;
    qp->send_cq = a->send_cq;
    qp->recv_cq = a->recv_cq;
    qp->sq_log = rnic_log2_ceil(a->sq_entries < 2 ? 2 : a->sq_entries);
    qp->rq_log = rnic_log2_ceil(a->rq_entries < 2 ? 2 : a->rq_entries);
    qp->flags = 0;
    qp->sq = rnic_ring_alloc(d, (size_t)RNIC_WQE_BYTES << qp->sq_log);
    qp->rq = rnic_ring_alloc(d, (size_t)RNIC_WQE_BYTES << qp->rq_log);
    if (!qp->sq || !qp->rq) {
        rnic_ring_free(d, qp->sq, (size_t)RNIC_WQE_BYTES << qp->sq_log);
        rnic_ring_free(d, qp->rq, (size_t)RNIC_WQE_BYTES << qp->rq_log);
        free(qp);
        return RNIC_E_NOMEM;
    }
    uint64_t sq = (uint64_t)(uintptr_t)qp->sq, rq = (uint64_t)(uintptr_t)qp->rq;
    uint32_t flags = 0;
    if (a->allow_remote & RNIC_ACCESS_REMOTE_READ)
        flags |= RNIC_QP_FLAGS_ALLOW_RD_MASK;
    if (a->allow_remote & RNIC_ACCESS_REMOTE_WRITE)
        flags |= RNIC_QP_FLAGS_ALLOW_WR_MASK;
    flags |= (uint32_t)(a->max_rd ? a->max_rd : 1u) << RNIC_QP_FLAGS_MAX_RD_SHIFT & RNIC_QP_FLAGS_MAX_RD_MASK;
    qp->flags = flags;
    qp->timers = timers;
    reg_wr(d, RNIC_REG_QP_SEL, num);
    reg_wr(d, RNIC_REG_QP_SQ_BASE_LO, (uint32_t)sq);
    reg_wr(d, RNIC_REG_QP_SQ_BASE_HI, (uint32_t)(sq >> 32));
    reg_wr(d, RNIC_REG_QP_RQ_BASE_LO, (uint32_t)rq);
    reg_wr(d, RNIC_REG_QP_RQ_BASE_HI, (uint32_t)(rq >> 32));
    reg_wr(d, RNIC_REG_QP_RINGS, qp->sq_log << RNIC_QP_RINGS_SQ_LOG_SHIFT | qp->rq_log << RNIC_QP_RINGS_RQ_LOG_SHIFT |
                                     a->send_cq->num << RNIC_QP_RINGS_SCQ_SHIFT | a->recv_cq->num << RNIC_QP_RINGS_RCQ_SHIFT);
    reg_wr(d, RNIC_REG_QP_PZ, a->pz);
    reg_wr(d, RNIC_REG_QP_FLAGS, flags);
    reg_wr(d, RNIC_REG_QP_TIMERS, timers);
    reg_wr(d, RNIC_REG_QP_PATH, 0);   /* INIT loads it too: the NIC's MTU until connected */
    reg_wr(d, RNIC_REG_QP_CMD, RNIC_QP_CMD_INIT);
    if (!reaches_state(d, num, RNIC_QP_STATE_INIT)) {
        rnic_ring_free(d, qp->sq, (size_t)RNIC_WQE_BYTES << qp->sq_log);
        rnic_ring_free(d, qp->rq, (size_t)RNIC_WQE_BYTES << qp->rq_log);
        free(qp);
        return RNIC_E_HW;
    }
    a->send_cq->users++;
    a->recv_cq->users++;
    d->pz_refs[a->pz]++;
    d->qps[num] = qp;
    *out = qp;
    return RNIC_OK;
}

uint32_t rnic_qp_num(const rnic_qp *qp) { return qp ? qp->num : 0; }

int rnic_qp_timers_get(const rnic_qp *qp, struct rnic_qp_timers *out) {
    if (!qp || !out)
        return RNIC_E_INVAL;
    out->ack_timeout = TIMER_GET(ACK_TIMEOUT, qp->timers);
    out->retry_cnt = TIMER_GET(RETRY_CNT, qp->timers);
    out->rnr_retry = TIMER_GET(RNR_RETRY, qp->timers);
    out->min_rnr_timer = TIMER_GET(MIN_RNR_TIMER, qp->timers);
    return RNIC_OK;
}

/* QP_PATH.PATH_MTU for a path MTU in bytes (InfiniBand's code: 1 is 256
 * bytes, each next one doubles), or -1 for a size that is not one. */
static int path_mtu_code(uint32_t bytes, uint32_t nic_mtu) {
    if (bytes == 0)
        return 0;
    for (int code = 1; code <= 5; code++)
        if (bytes == 128u << code)
            return bytes <= nic_mtu ? code : -1;
    return -1;
}

int rnic_qp_connect(rnic_qp *qp, const struct rnic_qp_remote *r) {
    if (!qp || !r || r->qpn > 0xFFFFFFu || r->sq_psn > 0xFFFFFFu || r->rq_psn > 0xFFFFFFu ||
        r->max_rd > qp->dev->info.max_rd)
        return RNIC_E_INVAL;
    int mtu_code = path_mtu_code(r->path_mtu, qp->dev->info.mtu);
    if (mtu_code < 0)
        return RNIC_E_INVAL;
    rnic_dev *d = qp->dev;
    if (rnic_qp_state(qp) != (int)RNIC_QP_STATE_INIT)
        return RNIC_E_STATE;
    reg_wr(d, RNIC_REG_QP_SEL, qp->num);
    reg_wr(d, RNIC_REG_QP_REMOTE, r->qpn);
    reg_wr(d, RNIC_REG_QP_REMOTE_IPV4, r->ipv4);
    reg_wr(d, RNIC_REG_QP_REMOTE_MAC_HI, (uint32_t)r->mac[0] << 8 | r->mac[1]);
    reg_wr(d, RNIC_REG_QP_REMOTE_MAC_LO,
           (uint32_t)r->mac[2] << 24 | (uint32_t)r->mac[3] << 16 | (uint32_t)r->mac[4] << 8 | r->mac[5]);
    reg_wr(d, RNIC_REG_QP_SQ_PSN, r->sq_psn);
    reg_wr(d, RNIC_REG_QP_RQ_PSN, r->rq_psn);
    /* The RTS command loads QP_FLAGS again: this QP's own, with the READ
     * limit the connection settled on. */
    if (r->max_rd)
        qp->flags = (qp->flags & ~(uint32_t)RNIC_QP_FLAGS_MAX_RD_MASK) |
                    ((uint32_t)r->max_rd << RNIC_QP_FLAGS_MAX_RD_SHIFT & RNIC_QP_FLAGS_MAX_RD_MASK);
    reg_wr(d, RNIC_REG_QP_FLAGS, qp->flags);
    /* QP_TIMERS too: one staging register serves every QP, so it holds
     * whichever QP's were written last, not necessarily this one's. */
    reg_wr(d, RNIC_REG_QP_TIMERS, qp->timers);
    reg_wr(d, RNIC_REG_QP_PATH, (uint32_t)mtu_code);
    reg_wr(d, RNIC_REG_QP_CMD, RNIC_QP_CMD_RTS);
    return reaches_state(d, qp->num, RNIC_QP_STATE_RTS) ? RNIC_OK : RNIC_E_HW;
}

int rnic_qp_connect_local(rnic_qp *a, rnic_qp *b) {
    if (!a || !b)
        return RNIC_E_INVAL;
    /* Different first PSNs per direction make a PSN mix-up visible. */
    struct rnic_qp_remote ra = {.qpn = b->num, .ipv4 = b->dev->info.ipv4, .sq_psn = 0x100, .rq_psn = 0x200};
    struct rnic_qp_remote rb = {.qpn = a->num, .ipv4 = a->dev->info.ipv4, .sq_psn = 0x200, .rq_psn = 0x100};
    memcpy(ra.mac, b->dev->info.mac, 6);
    memcpy(rb.mac, a->dev->info.mac, 6);
    int rc = rnic_qp_connect(a, &ra);
    return rc != RNIC_OK ? rc : rnic_qp_connect(b, &rb);
}

int rnic_qp_state(rnic_qp *qp) {
    if (!qp)
        return RNIC_E_INVAL;
    reg_wr(qp->dev, RNIC_REG_QP_SEL, qp->num);
    return (int)(reg_rd(qp->dev, RNIC_REG_QP_STATE) & 0xFFu);
}

int rnic_qp_set_error(rnic_qp *qp) {
    if (!qp)
        return RNIC_E_INVAL;
    reg_wr(qp->dev, RNIC_REG_QP_SEL, qp->num);
    reg_wr(qp->dev, RNIC_REG_QP_CMD, RNIC_QP_CMD_ERROR);
    return RNIC_OK;
}

int rnic_qp_destroy(rnic_qp *qp) {
    if (!qp)
        return RNIC_E_INVAL;
    rnic_dev *d = qp->dev;
    reg_wr(d, RNIC_REG_QP_SEL, qp->num);
    reg_wr(d, RNIC_REG_QP_CMD, RNIC_QP_CMD_RESET);
    rnic_ring_free(d, qp->sq, (size_t)RNIC_WQE_BYTES << qp->sq_log);
    rnic_ring_free(d, qp->rq, (size_t)RNIC_WQE_BYTES << qp->rq_log);
    qp->send_cq->users--;
    qp->recv_cq->users--;
    d->pz_refs[qp->pz]--;
    d->qps[qp->num] = NULL;
    free(qp);
    return RNIC_OK;
}

static int ring_post(rnic_qp *qp, bool send, const uint64_t *wqe) {
    rnic_dev *d = qp->dev;
    uint32_t log = send ? qp->sq_log : qp->rq_log;
    uint32_t *pi = send ? &qp->sq_pi : &qp->rq_pi;
    uint32_t ci = send ? qp->sq_ci : qp->rq_ci;
    if (*pi - ci >= (1u << log))
        return RNIC_E_FULL;
    uint64_t *slot = (send ? qp->sq : qp->rq) + (size_t)(*pi & ((1u << log) - 1u)) * WQE_WORDS;
    memcpy(slot, wqe, RNIC_WQE_BYTES);
    /* The WQE must be visible before the doorbell. ThreadSanitizer cannot
     * model a bare fence; its builds only run on the simulated platform,
     * where the doorbell is a call through a lock, which orders as well. */
#if !defined(__SANITIZE_THREAD__)
    __atomic_thread_fence(__ATOMIC_RELEASE);
#endif
    (*pi)++;
    reg_wr(d, send ? RNIC_REG_DB_SQ_N(qp->num) : RNIC_REG_DB_RQ_N(qp->num), *pi & 0xFFFFu);
    return RNIC_OK;
}

static void put_sges(uint64_t *w, const struct rnic_sge *sg, int n) {
    for (int i = 0; i < n; i++) {
        uint64_t *s = w + 4 + 2 * i;
        RNIC_SET(s, SGE, ADDR, sg[i].addr);
        RNIC_SET(s, SGE, LEN, sg[i].len);
        RNIC_SET(s, SGE, LKEY, sg[i].lkey);
    }
}

int rnic_post_send(rnic_qp *qp, const struct rnic_send_wr *wr) {
    if (!qp || !wr || wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->dev->info.max_sge || (wr->num_sge && !wr->sg))
        return RNIC_E_INVAL;
    /* A NOP moves nothing and completes in order after every request before
     * it: signalled, it tells software when unsignalled work has finished. */
    if (wr->opcode != RNIC_OP_SEND && wr->opcode != RNIC_OP_RDMA_WRITE && wr->opcode != RNIC_OP_RDMA_READ &&
        !(wr->opcode == RNIC_OP_NOP && wr->num_sge == 0))
        return RNIC_E_INVAL;
    if (wr->flags & ~(RNIC_WQE_FLAG_SIGNALED | RNIC_WQE_FLAG_FENCE | RNIC_WQE_FLAG_SOLICITED))
        return RNIC_E_INVAL;
    uint64_t total = 0;
    for (int i = 0; i < wr->num_sge; i++)
        total += wr->sg[i].len;
    if (total > 0x7FFFFFFFu)
        return RNIC_E_RANGE;
    uint64_t w[WQE_WORDS] = {0};
    RNIC_SET(w, WQE, OPCODE, wr->opcode);
    RNIC_SET(w, WQE, FLAGS, wr->flags);
    RNIC_SET(w, WQE, NUM_SGE, wr->num_sge);
    RNIC_SET(w, WQE, REMOTE_ADDR, wr->remote_addr);
    RNIC_SET(w, WQE, RKEY, wr->rkey);
    RNIC_SET(w, WQE, TOTAL_LEN, total);
    RNIC_SET(w, WQE, WR_ID, wr->wr_id);
    put_sges(w, wr->sg, wr->num_sge);
    return ring_post(qp, true, w);
}

int rnic_post_recv(rnic_qp *qp, uint64_t wr_id, const struct rnic_sge *sg, int num_sge) {
    if (!qp || num_sge < 0 || (uint32_t)num_sge > qp->dev->info.max_sge || (num_sge && !sg))
        return RNIC_E_INVAL;
    uint64_t w[WQE_WORDS] = {0};
    RNIC_SET(w, WQE, OPCODE, RNIC_OP_RECV);
    RNIC_SET(w, WQE, NUM_SGE, num_sge);
    RNIC_SET(w, WQE, WR_ID, wr_id);
    put_sges(w, sg, num_sge);
    return ring_post(qp, false, w);
}

int rnic_post_bind(rnic_qp *qp, const struct rnic_bind_wr *wr) {
    if (!qp || !wr || (wr->flags & ~(RNIC_WQE_FLAG_SIGNALED | RNIC_WQE_FLAG_FENCE)) ||
        (wr->rights & ~(RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE)) || wr->new_key == (uint8_t)wr->mw_key)
        return RNIC_E_INVAL;
    const struct rnic_sge sg = {wr->addr, wr->len, wr->lkey};
    uint64_t w[WQE_WORDS] = {0};
    RNIC_SET(w, WQE, OPCODE, RNIC_OP_BIND);
    RNIC_SET(w, WQE, FLAGS, wr->flags);
    RNIC_SET(w, WQE, NUM_SGE, 1);
    RNIC_SET(w, WQE, BIND_KEY, wr->new_key);
    RNIC_SET(w, WQE, BIND_RIGHTS, wr->rights);
    RNIC_SET(w, WQE, RKEY, wr->mw_key);
    RNIC_SET(w, WQE, TOTAL_LEN, wr->len);
    RNIC_SET(w, WQE, WR_ID, wr->wr_id);
    put_sges(w, &sg, 1);
    const int rc = ring_post(qp, true, w);
    if (rc == RNIC_OK && (wr->mw_key >> 8) < qp->dev->info.pt_entries)
        qp->dev->pt_key[wr->mw_key >> 8] = wr->new_key;
    return rc;
}

int rnic_post_send_raw(rnic_qp *qp, const uint64_t *wqe) {
    if (!qp || !wqe)
        return RNIC_E_INVAL;
    return ring_post(qp, true, wqe);
}
