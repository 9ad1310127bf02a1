/* A CQ destroyed with a CQE nobody took: the interrupt that CQE raised goes
 * with it. Left set, it kept the device's interrupt line up for a CQ that no
 * longer exists, and a lockstep wait (it returns while the line is up) never
 * let time pass again: every later wait of the process spun (found by
 * tests/fuzz/dat_fuzz). A CQ whose CQE is taken keeps working as before. */
#include "rnic_test.h"

static struct pair P;

/* A CQ fed by a loopback-connected QP, with one signalled NOP completed in
 * it and not taken; returns its interrupt bit. */
static uint32_t cq_with_unread_cqe(rnic_cq **cq, rnic_qp **qp, rnic_qp **peer) {
    const uint32_t before = rnic_reg_read(P.dev[0], RNIC_REG_INTR_STATUS_N(0));
    CHECK_EQ(rnic_cq_create(P.dev[0], 16, cq), RNIC_OK);
    struct rnic_qp_attr a = {16, 16, *cq, *cq, P.pz[0], 1, 0, NULL};
    CHECK_EQ(rnic_qp_create(P.dev[0], &a, qp), RNIC_OK);
    struct rnic_qp_attr b = {16, 16, P.cq[1], P.cq[1], P.pz[1], 1, 0, NULL};
    CHECK_EQ(rnic_qp_create(P.dev[1], &b, peer), RNIC_OK);
    CHECK_EQ(rnic_qp_connect_local(*qp, *peer), RNIC_OK);
    struct rnic_send_wr wr = {.wr_id = 7, .opcode = RNIC_OP_NOP, .flags = RNIC_WQE_FLAG_SIGNALED};
    CHECK_EQ(rnic_post_send(*qp, &wr), RNIC_OK);
    rnic_cpu_delay(P.dev[0], 20000);
    const uint32_t bit = rnic_reg_read(P.dev[0], RNIC_REG_INTR_STATUS_N(0)) & ~before;
    CHECK(bit != 0 && (bit & (bit - 1)) == 0);   /* exactly the new CQ's */
    return bit;
}

int main(void) {
    pair_open(&P);
    CHECK_EQ(rnic_reg_read(P.dev[0], RNIC_REG_INTR_STATUS_N(0)), 0u);

    /* Destroyed unread: no interrupt left, and a wait lets time pass. */
    rnic_cq *cq;
    rnic_qp *qp, *peer;
    const uint32_t bit = cq_with_unread_cqe(&cq, &qp, &peer);
    CHECK_EQ(rnic_wait(P.dev[0], 1000), 0u);   /* the line is up: no time passes */
    CHECK_EQ(rnic_qp_destroy(qp), RNIC_OK);
    CHECK_EQ(rnic_qp_destroy(peer), RNIC_OK);
    CHECK_EQ(rnic_cq_destroy(cq), RNIC_OK);
    CHECK_EQ(rnic_reg_read(P.dev[0], RNIC_REG_INTR_STATUS_N(0)) & bit, 0u);
    CHECK_EQ(rnic_wait(P.dev[0], 1000), 1000u);

    /* A CQ of the same number afterwards: its CQE is taken and acknowledged. */
    const uint32_t bit2 = cq_with_unread_cqe(&cq, &qp, &peer);
    CHECK_EQ(bit2, bit);
    struct rnic_wc wc;
    CHECK_EQ(rnic_cq_take(cq, &wc, 1), 1);
    CHECK_EQ(wc.wr_id, 7u);
    CHECK_EQ(rnic_reg_read(P.dev[0], RNIC_REG_INTR_STATUS_N(0)) & bit, 0u);
    CHECK_EQ(rnic_qp_destroy(qp), RNIC_OK);
    CHECK_EQ(rnic_qp_destroy(peer), RNIC_OK);
    CHECK_EQ(rnic_cq_destroy(cq), RNIC_OK);
    pair_close(&P);
    return rnic_test_finish("test_cq_destroy_intr");
}
