/* A CQ ring that fills: the NIC drops the CQE it cannot write and marks the
 * CQ in CQ_OVERFLOWED; rnic_cq_overflowed reports each loss once, and only
 * a loss. Three cases on a CQ of two slots fed by signalled NOPs, with the
 * CQ left unread while the NIC completes them:
 *   two NOPs: the ring fills but nothing is lost (the register is read, 0);
 *   three NOPs: the third CQE is dropped: reported once, then not again;
 *   one NOP after a loss was reported: nothing new. */
#include "rnic_test.h"

#include <string.h>

static struct pair P;
static rnic_cq *small;
static rnic_qp *qp;
static uint64_t next_id;

/* Posts n signalled NOPs and gives the NIC time to complete them all with
 * nobody taking CQEs. */
static void post_nops(int n) {
    for (int i = 0; i < n; i++) {
        struct rnic_send_wr wr = {.wr_id = next_id++, .opcode = RNIC_OP_NOP, .flags = RNIC_WQE_FLAG_SIGNALED};
        CHECK_EQ(rnic_post_send(qp, &wr), RNIC_OK);
    }
    rnic_cpu_delay(P.dev[0], 20000);
}

static int take_all(uint64_t *last_id) {
    struct rnic_wc wc[8];
    int got = 0, n;
    while ((n = rnic_cq_take(small, wc, 8)) > 0) {
        for (int i = 0; i < n; i++) {
            CHECK_EQ(wc[i].status, RNIC_CQE_STATUS_SUCCESS);
            *last_id = wc[i].wr_id;
        }
        got += n;
    }
    return got;
}

int main(void) {
    pair_open(&P);
    CHECK_EQ(rnic_cq_create(P.dev[0], 2, &small), RNIC_OK);
    struct rnic_qp_attr a = {16, 16, small, small, P.pz[0], 1, 0, NULL};
    CHECK_EQ(rnic_qp_create(P.dev[0], &a, &qp), RNIC_OK);
    rnic_qp *peer;
    struct rnic_qp_attr b = {16, 16, P.cq[1], P.cq[1], P.pz[1], 1, 0, NULL};
    CHECK_EQ(rnic_qp_create(P.dev[1], &b, &peer), RNIC_OK);
    CHECK_EQ(rnic_qp_connect_local(qp, peer), RNIC_OK);
    uint64_t last = ~0ull;

    CHECK_EQ(rnic_cq_overflowed(small), 0);   /* nothing taken yet: nothing known */
    /* Full, not overflowed. */
    post_nops(2);
    CHECK_EQ(take_all(&last), 2);
    CHECK_EQ(last, 1);
    CHECK_EQ(rnic_cq_overflowed(small), 0);
    CHECK_EQ(rnic_dev_status(P.dev[0], NULL, false) & RNIC_STATUS_CQ_OVERFLOW_MASK, 0);

    /* One CQE more than the ring: it is dropped, and said so once. */
    post_nops(3);
    CHECK_EQ(take_all(&last), 2);
    CHECK_EQ(last, 3);   /* NOPs 2 and 3 completed; 4 was dropped */
    CHECK_EQ(rnic_cq_overflowed(small), 1);
    CHECK_EQ(rnic_cq_overflowed(small), 0);
    CHECK(rnic_dev_status(P.dev[0], NULL, true) & RNIC_STATUS_CQ_OVERFLOW_MASK);

    /* Room again: the next CQE lands, and no loss is reported. */
    post_nops(1);
    CHECK_EQ(take_all(&last), 1);
    CHECK_EQ(last, 5);
    CHECK_EQ(rnic_cq_overflowed(small), 0);

    /* Another CQ number's loss is not this CQ's. */
    CHECK_EQ(rnic_cq_overflowed(P.cq[0]), 0);
    CHECK_EQ(rnic_cq_overflowed(NULL), RNIC_E_INVAL);

    rnic_qp_destroy(qp);
    rnic_qp_destroy(peer);
    CHECK_EQ(rnic_cq_destroy(small), RNIC_OK);
    pair_close(&P);
    return rnic_test_finish("test_cq_overflow");
}
