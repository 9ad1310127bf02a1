/* Every CQ the NIC has (CAP_QUEUES.NUM_CQ, more than the 32 one register
 * word holds): the driver creates them all, and the last one, in the last
 * word of INTR_STATUS and CQ_OVERFLOWED, works like CQ 0:
 *   its CQE lands in its own ring and raises its own bit (word num / 32,
 *   bit num % 32) and no other; taking it clears the bit;
 *   a CQE dropped into its full ring marks its own CQ_OVERFLOWED bit, which
 *   rnic_cq_overflowed reports once, and no other CQ's;
 *   one CQ more than the NIC has is refused (RNIC_E_FULL). */
#include <stdlib.h>

#include "rnic_test.h"

static struct pair P;

/* Whether bit `num` of a bit-per-CQ register array, and no other, is set
 * (num >= num_cq: whether none is). */
static int only_bit_set(uint32_t base, uint32_t num_cq, uint32_t num) {
    int ok = 1;
    for (uint32_t w = 0; w < (num_cq + 31u) / 32u; w++) {
        const uint32_t v = rnic_reg_read(P.dev[0], base + 4u * w);
        const uint32_t want = w == num / 32u ? 1u << (num % 32u) : 0u;
        if (v != want)
            ok = 0;
    }
    return ok;
}

static void post_nops(rnic_qp *qp, int n, uint64_t first_id) {
    for (int i = 0; i < n; i++) {
        struct rnic_send_wr wr = {.wr_id = first_id + (uint64_t)i, .opcode = RNIC_OP_NOP,
                                  .flags = RNIC_WQE_FLAG_SIGNALED};
        CHECK_EQ(rnic_post_send(qp, &wr), RNIC_OK);
    }
    rnic_cpu_delay(P.dev[0], 20000);
}

int main(void) {
    pair_open(&P);
    struct rnic_dev_info info;
    CHECK_EQ(rnic_query(P.dev[0], &info), RNIC_OK);
    CHECK(info.num_cq > 32);   /* the point of this test: a second register word */

    /* Take every CQ left; the last one created has the highest number. */
    rnic_cq **cqs = calloc(info.num_cq, sizeof(*cqs));
    uint32_t made = 0;
    rnic_cq *cq;
    while (made < info.num_cq && rnic_cq_create(P.dev[0], 2, &cq) == RNIC_OK)
        cqs[made++] = cq;
    CHECK(made > 0 && made < info.num_cq);   /* pair_open holds some */
    CHECK_EQ(rnic_cq_create(P.dev[0], 2, &cq), RNIC_E_FULL);
    rnic_cq *last = cqs[made - 1];
    const uint32_t num = info.num_cq - 1;   /* created in order: the highest */

    struct rnic_qp_attr a = {16, 16, last, last, P.pz[0], 1, 0, NULL};
    rnic_qp *qp, *peer;
    CHECK_EQ(rnic_qp_create(P.dev[0], &a, &qp), RNIC_OK);
    struct rnic_qp_attr b = {16, 16, P.cq[1], P.cq[1], P.pz[1], 1, 0, NULL};
    CHECK_EQ(rnic_qp_create(P.dev[1], &b, &peer), RNIC_OK);
    CHECK_EQ(rnic_qp_connect_local(qp, peer), RNIC_OK);

    /* One CQE: its bit alone, in the last word; taken, cleared. */
    post_nops(qp, 1, 100);
    CHECK(only_bit_set(RNIC_REG_INTR_STATUS, info.num_cq, num));
    struct rnic_wc wc[4];
    CHECK_EQ(rnic_cq_take(last, wc, 4), 1);
    CHECK_EQ(wc[0].wr_id, 100u);
    CHECK_EQ(wc[0].status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(wc[0].qpn, rnic_qp_num(qp));
    CHECK(only_bit_set(RNIC_REG_INTR_STATUS, info.num_cq, info.num_cq));   /* none */

    /* Three CQEs into two slots: the third is dropped, its own bit says so. */
    CHECK_EQ(rnic_cq_overflowed(last), 0);
    post_nops(qp, 3, 200);
    CHECK(only_bit_set(RNIC_REG_CQ_OVERFLOWED, info.num_cq, num));
    CHECK_EQ(rnic_cq_take(last, wc, 4), 2);
    CHECK_EQ(wc[1].wr_id, 201u);
    CHECK_EQ(rnic_cq_overflowed(last), 1);
    CHECK_EQ(rnic_cq_overflowed(last), 0);
    CHECK_EQ(rnic_cq_overflowed(cqs[0]), 0);
    CHECK(only_bit_set(RNIC_REG_CQ_OVERFLOWED, info.num_cq, info.num_cq));   /* none */
    rnic_dev_status(P.dev[0], NULL, true);

    CHECK_EQ(rnic_qp_destroy(qp), RNIC_OK);
    CHECK_EQ(rnic_qp_destroy(peer), RNIC_OK);
    for (uint32_t i = 0; i < made; i++)
        CHECK_EQ(rnic_cq_destroy(cqs[i]), RNIC_OK);
    free(cqs);
    pair_close(&P);
    return rnic_test_finish("test_cq_many");
}
