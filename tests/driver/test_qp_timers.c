/* QP timers (rnic_qp_attr.timers, the QP_TIMERS register): values a field
 * cannot hold are refused with nothing allocated, since masked they would
 * program some other timeout than the caller asked for; valid ones reach
 * the staging register before QP_CMD_INIT, and again before QP_CMD_RTS,
 * which loads it a second time from a register every QP shares. NULL is
 * the documented defaults. The NIC's use of the timers is the RTL's to
 * test; here, that software programs them. */
#include <stdlib.h>
#include <string.h>

#include "rnic_test.h"

static struct pair P;

static uint32_t word(uint32_t ack, uint32_t retry, uint32_t rnr, uint32_t min_rnr) {
    return ack << RNIC_QP_TIMERS_ACK_TIMEOUT_SHIFT | retry << RNIC_QP_TIMERS_RETRY_CNT_SHIFT |
           rnr << RNIC_QP_TIMERS_RNR_RETRY_SHIFT | min_rnr << RNIC_QP_TIMERS_MIN_RNR_TIMER_SHIFT;
}

static struct rnic_qp_attr attr(int s, rnic_cq *cq, uint16_t pz, const struct rnic_qp_timers *t) {
    return (struct rnic_qp_attr){.sq_entries = 16, .rq_entries = 16, .send_cq = cq, .recv_cq = cq, .pz = pz,
                                 .max_rd = 1, .allow_remote = s == 1 ? RNIC_ACCESS_REMOTE_WRITE : 0, .timers = t};
}

static void check_get(rnic_qp *qp, const struct rnic_qp_timers *want) {
    struct rnic_qp_timers got;
    memset(&got, 0xEE, sizeof(got));
    CHECK_EQ(rnic_qp_timers_get(qp, &got), RNIC_OK);
    CHECK_EQ(got.ack_timeout, want->ack_timeout);
    CHECK_EQ(got.retry_cnt, want->retry_cnt);
    CHECK_EQ(got.rnr_retry, want->rnr_retry);
    CHECK_EQ(got.min_rnr_timer, want->min_rnr_timer);
}

/* Every field one past its largest value, and 255 (what a uint8_t
 * computed from a negative number holds): refused, and a CQ and a PZ the
 * refused calls named are left unreferenced, QP number unused. */
static void refused(void) {
    static const struct rnic_qp_timers bad[] = {
        {32, 7, 7, 31}, {31, 8, 7, 31}, {31, 7, 8, 31}, {31, 7, 7, 32},
        {255, 0, 0, 0}, {0, 255, 0, 0}, {0, 0, 255, 0}, {0, 0, 0, 255},
    };
    rnic_dev *d = P.dev[0];
    rnic_cq *cq;
    uint16_t pz;
    CHECK_EQ(rnic_cq_create(d, 16, &cq), RNIC_OK);
    CHECK_EQ(rnic_pz_alloc(d, &pz), RNIC_OK);
    /* The staging register keeps the last word written: a refused call
     * writes nothing there. */
    const uint32_t staged = rnic_reg_read(d, RNIC_REG_QP_TIMERS);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const struct rnic_qp_attr a = attr(0, cq, pz, &bad[i]);
        rnic_qp *qp = NULL;
        CHECK_EQ(rnic_qp_create(d, &a, &qp), RNIC_E_INVAL);
        CHECK(qp == NULL);
        CHECK_EQ(rnic_reg_read(d, RNIC_REG_QP_TIMERS), staged);
    }
    /* The next QP takes the number the first refused one would have. */
    const struct rnic_qp_attr a = attr(0, cq, pz, NULL);
    rnic_qp *qp;
    CHECK_EQ(rnic_qp_create(d, &a, &qp), RNIC_OK);
    CHECK_EQ(rnic_qp_num(qp), rnic_qp_num(P.qp[0]) + 1);
    CHECK_EQ(rnic_qp_destroy(qp), RNIC_OK);
    CHECK_EQ(rnic_cq_destroy(cq), RNIC_OK);   /* RNIC_E_BUSY if a refused QP kept it */
    CHECK_EQ(rnic_pz_free(d, pz), RNIC_OK);
    CHECK_EQ(rnic_qp_timers_get(NULL, NULL), RNIC_E_INVAL);
    CHECK_EQ(rnic_qp_timers_get(P.qp[0], NULL), RNIC_E_INVAL);
}

/* Accepted values, the extremes included, each read back from the staging
 * register right after the create (the INIT command took it from there). */
static void accepted(void) {
    static const struct rnic_qp_timers good[] = {
        {31, 7, 7, 31}, {0, 0, 0, 0}, {1, 2, 3, 4}, {14, 7, 7, 12}, {20, 0, 7, 1},
    };
    rnic_dev *d = P.dev[0];
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        const struct rnic_qp_timers *t = &good[i];
        const struct rnic_qp_attr a = attr(0, P.cq[0], P.pz[0], t);
        rnic_qp *qp;
        CHECK_EQ(rnic_qp_create(d, &a, &qp), RNIC_OK);
        CHECK_EQ(rnic_reg_read(d, RNIC_REG_QP_TIMERS), word(t->ack_timeout, t->retry_cnt, t->rnr_retry, t->min_rnr_timer));
        check_get(qp, t);
        CHECK_EQ(rnic_qp_state(qp), RNIC_QP_STATE_INIT);
        CHECK_EQ(rnic_qp_destroy(qp), RNIC_OK);
    }
    /* NULL: the documented defaults, ibv_rc_pingpong's 14, 7, 7, 12. */
    const struct rnic_qp_attr a = attr(0, P.cq[0], P.pz[0], NULL);
    rnic_qp *qp;
    CHECK_EQ(rnic_qp_create(d, &a, &qp), RNIC_OK);
    CHECK_EQ(rnic_reg_read(d, RNIC_REG_QP_TIMERS), word(14, 7, 7, 12));
    CHECK_EQ(word(14, 7, 7, 12), word(RNIC_QP_DEFAULT_ACK_TIMEOUT, RNIC_QP_DEFAULT_RETRY_CNT, RNIC_QP_DEFAULT_RNR_RETRY,
                                      RNIC_QP_DEFAULT_MIN_RNR_TIMER));
    const struct rnic_qp_timers dflt = {14, 7, 7, 12};
    check_get(qp, &dflt);
    CHECK_EQ(rnic_qp_destroy(qp), RNIC_OK);
    /* The caller's struct is copied: changing it afterwards changes nothing. */
    struct rnic_qp_timers mine = {3, 3, 3, 3};
    const struct rnic_qp_attr b = attr(0, P.cq[0], P.pz[0], &mine);
    CHECK_EQ(rnic_qp_create(d, &b, &qp), RNIC_OK);
    const struct rnic_qp_timers copy = mine;
    mine.ack_timeout = 9;
    check_get(qp, &copy);
    CHECK_EQ(rnic_qp_destroy(qp), RNIC_OK);
}

/* QP a is created, then QP c with other timers, so the staging register
 * holds c's; connecting a must write a's again before the RTS command loads
 * them. Then a WRITE over the connection still works. */
static void connect_rewrites(void) {
    const struct rnic_qp_timers ta = {5, 1, 2, 3}, tc = {25, 6, 5, 4}, tb = {7, 4, 0, 20};
    rnic_qp *a, *b, *c;
    const struct rnic_qp_attr aa = attr(0, P.cq[0], P.pz[0], &ta);
    const struct rnic_qp_attr ac = attr(0, P.cq[0], P.pz[0], &tc);
    const struct rnic_qp_attr ab = attr(1, P.cq[1], P.pz[1], &tb);
    CHECK_EQ(rnic_qp_create(P.dev[0], &aa, &a), RNIC_OK);
    CHECK_EQ(rnic_qp_create(P.dev[0], &ac, &c), RNIC_OK);
    CHECK_EQ(rnic_qp_create(P.dev[1], &ab, &b), RNIC_OK);
    CHECK_EQ(rnic_reg_read(P.dev[0], RNIC_REG_QP_TIMERS), word(25, 6, 5, 4));
    CHECK_EQ(rnic_qp_connect_local(a, b), RNIC_OK);
    CHECK_EQ(rnic_reg_read(P.dev[0], RNIC_REG_QP_TIMERS), word(5, 1, 2, 3));
    CHECK_EQ(rnic_reg_read(P.dev[1], RNIC_REG_QP_TIMERS), word(7, 4, 0, 20));
    CHECK_EQ(rnic_qp_state(a), RNIC_QP_STATE_RTS);
    CHECK_EQ(rnic_qp_state(b), RNIC_QP_STATE_RTS);
    check_get(a, &ta);
    check_get(b, &tb);

    uint8_t *src = aligned_alloc(4096, 4096), *dst = aligned_alloc(4096, 4096);
    rnic_mr *ms, *md;
    CHECK_EQ(rnic_mr_reg(P.dev[0], src, 4096, P.pz[0], ALL_ACCESS, &ms), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], dst, 4096, P.pz[1], ALL_ACCESS, &md), RNIC_OK);
    fill_pattern(src, 512, 7);
    memset(dst, 0, 512);
    const struct rnic_sge s = {(uint64_t)(uintptr_t)src, 512, rnic_mr_key(ms)};
    const struct rnic_send_wr w = {.wr_id = 1, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                                   .num_sge = 1, .sg = &s, .remote_addr = (uint64_t)(uintptr_t)dst,
                                   .rkey = rnic_mr_key(md)};
    CHECK_EQ(rnic_post_send(a, &w), RNIC_OK);
    struct rnic_wc wc;
    CHECK_EQ(rnic_cq_wait(P.cq[0], &wc, BUDGET), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK(memcmp(src, dst, 512) == 0);
    CHECK_EQ(rnic_mr_dereg(ms), RNIC_OK);
    CHECK_EQ(rnic_mr_dereg(md), RNIC_OK);
    free(src);
    free(dst);
    CHECK_EQ(rnic_qp_destroy(a), RNIC_OK);
    CHECK_EQ(rnic_qp_destroy(b), RNIC_OK);
    CHECK_EQ(rnic_qp_destroy(c), RNIC_OK);
}

int main(void) {
    pair_open(&P);
    refused();
    accepted();
    connect_rewrites();
    pair_close(&P);
    return rnic_test_finish("test_qp_timers");
}
