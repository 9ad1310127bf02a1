/* Completion queues: a ring of CQEs the NIC writes with a phase bit that
 * flips on every pass, so new entries are recognised without a shared
 * producer index. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A CQ's bit in the bit-per-CQ register arrays (INTR_STATUS, CQ_OVERFLOWED):
 * word num / 32, bit num % 32. */
#define CQ_WORD(num) ((num) / 32u)
#define CQ_BIT(num) (1u << ((num) % 32u))

int rnic_cq_create(rnic_dev *d, uint32_t entries, rnic_cq **out) {
    if (!d || !out || entries == 0 || entries > (1u << RNIC_MAX_LOG_RING))
        return RNIC_E_INVAL;
    uint32_t num = d->info.num_cq;
    for (uint32_t i = 0; i < d->info.num_cq; i++) {
        if (!d->cqs[i]) {
            num = i;
            break;
        }
    }
    if (num == d->info.num_cq)
        return RNIC_E_FULL;
    rnic_cq *cq = calloc(1, sizeof(*cq));
    if (!cq)
        return RNIC_E_NOMEM;
    cq->dev = d;
    cq->num = num;
    cq->log = rnic_log2_ceil(entries < 2 ? 2 : entries);
    cq->ring = rnic_ring_alloc(d, (size_t)RNIC_CQE_BYTES << cq->log);
    if (!cq->ring) {
        free(cq);
        return RNIC_E_NOMEM;
    }
    uint64_t base = (uint64_t)(uintptr_t)cq->ring;
    reg_wr(d, RNIC_REG_CQ_SEL, num);
    reg_wr(d, RNIC_REG_CQ_BASE_LO, (uint32_t)base);
    reg_wr(d, RNIC_REG_CQ_BASE_HI, (uint32_t)(base >> 32));
    reg_wr(d, RNIC_REG_CQ_LOG_SIZE, cq->log);
    reg_wr(d, RNIC_REG_CQ_CMD, RNIC_CQ_CMD_CREATE);
    /* A CQE dropped for an earlier CQ of this number is not this CQ's loss. */
    reg_wr(d, RNIC_REG_CQ_OVERFLOWED_N(CQ_WORD(num)), CQ_BIT(num));
    d->cqs[num] = cq;
    *out = cq;
    return RNIC_OK;
}

int rnic_cq_destroy(rnic_cq *cq) {
    if (!cq)
        return RNIC_E_INVAL;
    if (cq->users)
        return RNIC_E_BUSY;
    rnic_dev *d = cq->dev;
    reg_wr(d, RNIC_REG_CQ_SEL, cq->num);
    reg_wr(d, RNIC_REG_CQ_CMD, RNIC_CQ_CMD_DESTROY);
    /* CQEs still in the ring go with it, and so does the interrupt they
     * raised: only a take acknowledges it, and none can come now, so it
     * would keep the device's interrupt line up for good, and a lockstep
     * wait, which returns while the line is up, would never let time pass. */
    reg_wr(d, RNIC_REG_INTR_STATUS_N(CQ_WORD(cq->num)), CQ_BIT(cq->num));
    rnic_ring_free(d, cq->ring, (size_t)RNIC_CQE_BYTES << cq->log);
    d->cqs[cq->num] = NULL;
    free(cq);
    return RNIC_OK;
}

/* Whether a CQE for this CQ could still be written: a QP that feeds it has
 * a WQE the driver has seen no CQE for. Suppressed WQEs count as well,
 * although the NIC may have finished them long ago: nothing says so until
 * a later CQE does, and an error would still make one. */
static bool cq_may_be_written(const rnic_cq *cq) {
    const rnic_dev *d = cq->dev;
    for (uint32_t i = 0; i < d->info.num_qp; i++) {
        const rnic_qp *qp = d->qps[i];
        if (!qp)
            continue;
        if (qp->send_cq == cq && qp->sq_pi != qp->sq_ci)
            return true;
        if (qp->recv_cq == cq && qp->rq_pi != qp->rq_ci)
            return true;
    }
    return false;
}

int rnic_cq_resize(rnic_cq *cq, uint32_t entries) {
    if (!cq || entries == 0 || entries > (1u << RNIC_MAX_LOG_RING))
        return RNIC_E_INVAL;
    /* CQ_CMD_CREATE moves the NIC to the new ring at producer index 0 at
     * once: a CQE being written then would be torn between the rings, one
     * not yet read would be lost. Neither can be told from here while a QP
     * has work outstanding, so the caller waits until none has. */
    if (cq_may_be_written(cq) || rnic_cq_pending(cq))
        return RNIC_E_BUSY;
    rnic_dev *d = cq->dev;
    const uint32_t log = rnic_log2_ceil(entries < 2 ? 2 : entries);
    if (log == cq->log)
        return RNIC_OK;
    uint64_t *ring = rnic_ring_alloc(d, (size_t)RNIC_CQE_BYTES << log);
    if (!ring)
        return RNIC_E_NOMEM;
    const uint64_t base = (uint64_t)(uintptr_t)ring;
    reg_wr(d, RNIC_REG_CQ_SEL, cq->num);
    reg_wr(d, RNIC_REG_CQ_BASE_LO, (uint32_t)base);
    reg_wr(d, RNIC_REG_CQ_BASE_HI, (uint32_t)(base >> 32));
    reg_wr(d, RNIC_REG_CQ_LOG_SIZE, log);
    reg_wr(d, RNIC_REG_CQ_CMD, RNIC_CQ_CMD_CREATE);
    rnic_ring_free(d, cq->ring, (size_t)RNIC_CQE_BYTES << cq->log);
    cq->ring = ring;
    cq->log = log;
    cq->ci = 0;   /* the command started the NIC's producer index over */
    return RNIC_OK;
}

/* Whether the slot of CQE number `idx` (free-running) holds that CQE: its
 * phase bit is the one of idx's pass round the ring. */
static bool slot_valid(const rnic_cq *cq, uint32_t idx) {
    const uint32_t mask = (1u << cq->log) - 1u;
    const uint64_t *e = cq->ring + (size_t)(idx & mask) * (RNIC_CQE_BYTES / 8);
    const uint64_t expect = ((idx >> cq->log) & 1u) ? 0 : 1;
    return (__atomic_load_n(&e[0], __ATOMIC_ACQUIRE) >> RNIC_CQE_PHASE_SHIFT & RNIC_CQE_PHASE_MASK) == expect;
}

bool rnic_cq_pending(const rnic_cq *cq) {
    return cq && slot_valid(cq, cq->ci);
}

int rnic_cq_poll(rnic_cq *cq, struct rnic_wc *wc, int max) {
    const int n = rnic_cq_take(cq, wc, max);
    if (n == 0)
        rnic_cpu_delay(cq->dev, RNIC_POLL_CYCLES);
    return n;
}

int rnic_cq_take(rnic_cq *cq, struct rnic_wc *wc, int max) {
    if (!cq || (!wc && max > 0) || max < 0)
        return RNIC_E_INVAL;
    rnic_dev *d = cq->dev;
    const uint32_t mask = (1u << cq->log) - 1u;
    const uint32_t first = cq->ci;
    int n = 0;
    while (n < max) {
        const uint64_t *e = cq->ring + (size_t)(cq->ci & mask) * (RNIC_CQE_BYTES / 8);
        const uint64_t expect = ((cq->ci >> cq->log) & 1u) ? 0 : 1;
        uint64_t w0 = __atomic_load_n(&e[0], __ATOMIC_ACQUIRE);
        if ((w0 >> RNIC_CQE_PHASE_SHIFT & RNIC_CQE_PHASE_MASK) != expect)
            break;
        struct rnic_wc *c = &wc[n++];
        c->status = (uint8_t)RNIC_GET(e, CQE, STATUS);
        c->opcode = (uint8_t)RNIC_GET(e, CQE, OPCODE);
        c->qpn = (uint16_t)RNIC_GET(e, CQE, QPN);
        c->is_recv = RNIC_GET(e, CQE, IS_RECV) != 0;
        c->byte_len = (uint32_t)RNIC_GET(e, CQE, BYTE_LEN);
        c->wr_id = RNIC_GET(e, CQE, WR_ID);
        c->verdict = (uint8_t)RNIC_GET(e, CQE, VERDICT);
        c->check_key = (uint32_t)RNIC_GET(e, CQE, CHECK_KEY);
        /* Every WQE up to the completed one is done: unsignaled ones too. */
        uint32_t idx = (uint32_t)RNIC_GET(e, CQE, WQE_IDX);
        if (c->qpn < d->info.num_qp && d->qps[c->qpn]) {
            rnic_qp *qp = d->qps[c->qpn];
            if (c->is_recv)
                qp->rq_ci += (uint16_t)(idx - qp->rq_ci) + 1u;
            else
                qp->sq_ci += (uint16_t)(idx - qp->sq_ci) + 1u;
        }
        cq->ci++;
    }
    if (n > 0) {
        reg_wr(d, RNIC_REG_DB_CQ_N(cq->num), cq->ci & 0xFFFFu);
        /* A CQE that lands between the read above and this acknowledgement
         * raises no new interrupt: rnic_cq_pending finds it. */
        reg_wr(d, RNIC_REG_INTR_STATUS_N(CQ_WORD(cq->num)), CQ_BIT(cq->num));
        /* The NIC drops a CQE only into a full ring, and a ring stays full
         * until the doorbell above: if the last slot before `first` came
         * round again holds a CQE now, the ring may have been full (or the
         * CQE came after the doorbell), so rnic_cq_overflowed asks the NIC.
         * One look at host memory, no register read, on every take. */
        if (slot_valid(cq, first + mask))
            cq->seen_full = true;
    }
    return n;
}

int rnic_cq_overflowed(rnic_cq *cq) {
    if (!cq)
        return RNIC_E_INVAL;
    if (!cq->seen_full)
        return 0;
    cq->seen_full = false;
    const uint32_t bit = CQ_BIT(cq->num), reg = RNIC_REG_CQ_OVERFLOWED_N(CQ_WORD(cq->num));
    if (!(reg_rd(cq->dev, reg) & bit))
        return 0;
    reg_wr(cq->dev, reg, bit);
    return 1;
}

int rnic_cq_wait(rnic_cq *cq, struct rnic_wc *wc, uint64_t max_cycles) {
    if (!cq || !wc)
        return RNIC_E_INVAL;
    rnic_dev *d = cq->dev;
    const uint64_t start = rnic_time(d);
    for (;;) {
        int n = rnic_cq_take(cq, wc, 1);
        if (n != 0)
            return n;
        const uint64_t now = rnic_time(d);
        const uint64_t spent = now > start ? now - start : 0;
        if (spent >= max_cycles)
            return RNIC_E_TIMEOUT;
        /* A line already high (another CQ's completion nobody took yet)
         * ends the wait at once: the look at the ring costs the time then. */
        if (rnic_wait(d, max_cycles - spent) == 0 && rnic_time(d) == now)
            rnic_cpu_delay(d, RNIC_POLL_CYCLES);
    }
}
