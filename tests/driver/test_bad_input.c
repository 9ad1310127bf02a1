/* Bad input to the hardware: unknown registers, malformed WQEs, doorbells
 * past the ring, bad commands. Each gives an error status or an error
 * completion, and the NIC keeps working afterwards. */
#include <stdlib.h>
#include <string.h>

#include "rnic_sim.h"
#include "rnic_test.h"

/* Register commands take effect a few cycles after the write. */
static void settle(void) { rnic_sim_advance(16); }

static struct pair P;

static void expect_bad_wqe(uint64_t *wqe, const char *what) {
    fprintf(stderr, "case: %s\n", what);
    CHECK_EQ(rnic_post_send_raw(P.qp[0], wqe), RNIC_OK);
    struct rnic_wc wc;
    CHECK_EQ(wait_cq(&P, 0, &wc), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_BAD_WQE);
    CHECK_EQ(wc.wr_id, RNIC_GET(wqe, WQE, WR_ID));
    CHECK_EQ(rnic_qp_state(P.qp[0]), RNIC_QP_STATE_ERROR);
    rnic_qp_destroy(P.qp[0]);
    rnic_qp_destroy(P.qp[1]);
    pair_reconnect(&P);
}

/* A small WRITE that must still work. */
static void still_works(uint8_t *a, uint8_t *b, rnic_mr *ma, rnic_mr *mb) {
    fill_pattern(a, 256, 42);
    memset(b, 0, 256);
    struct rnic_sge s = {(uint64_t)(uintptr_t)a, 256, rnic_mr_key(ma)};
    struct rnic_send_wr w = {.wr_id = 9, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                             .num_sge = 1, .sg = &s, .remote_addr = (uint64_t)(uintptr_t)b, .rkey = rnic_mr_key(mb)};
    struct rnic_wc wc;
    CHECK_EQ(post_and_wait(&P, 0, &w, &wc), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK(memcmp(a, b, 256) == 0);
}

int main(void) {
    pair_open(&P);
    rnic_dev *d = P.dev[0];
    uint8_t *a = aligned_alloc(4096, 4096), *b = aligned_alloc(4096, 4096);
    rnic_mr *ma, *mb;
    CHECK_EQ(rnic_mr_reg(P.dev[0], a, 4096, P.pz[0], ALL_ACCESS, &ma), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], b, 4096, P.pz[1], ALL_ACCESS, &mb), RNIC_OK);
    uint32_t addr;

    /* Registers. */
    rnic_dev_status(d, NULL, true);
    CHECK_EQ(rnic_reg_read(d, 0x0F00), 0);
    CHECK(rnic_dev_status(d, &addr, false) & RNIC_STATUS_BAD_REG_MASK);
    CHECK_EQ(addr, 0x0F00);
    rnic_dev_status(d, NULL, true);
    rnic_reg_write(d, 0x0F04, 0xDEADBEEF);
    CHECK(rnic_dev_status(d, &addr, false) & RNIC_STATUS_BAD_REG_MASK);
    CHECK_EQ(addr, 0x0F04);
    CHECK_EQ(rnic_dev_status(d, NULL, true) & ~RNIC_STATUS_BAD_REG_MASK, 0);
    CHECK_EQ(rnic_dev_status(d, NULL, false), 0);   /* write-one-to-clear worked */
    /* Read-only registers ignore writes. */
    rnic_reg_write(d, RNIC_REG_ID, 0);
    CHECK_EQ(rnic_reg_read(d, RNIC_REG_ID), RNIC_DEVICE_ID);
    /* A QP command with an out-of-range CQ is refused with BAD_CONFIG. */
    rnic_reg_write(d, RNIC_REG_QP_SEL, 15);
    rnic_reg_write(d, RNIC_REG_QP_RINGS, 0x00FF0011u);
    rnic_reg_write(d, RNIC_REG_QP_CMD, RNIC_QP_CMD_INIT);
    CHECK(rnic_dev_status(d, NULL, true) & RNIC_STATUS_BAD_CONFIG_MASK);
    rnic_reg_write(d, RNIC_REG_QP_SEL, 15);
    CHECK_EQ(rnic_reg_read(d, RNIC_REG_QP_STATE) & 0xFF, RNIC_QP_STATE_RESET);
    /* A protection-table command past the table. */
    rnic_reg_write(d, RNIC_REG_PT_INDEX, 0x00FFFFFF);
    rnic_reg_write(d, RNIC_REG_PT_CMD, RNIC_PT_CMD_WRITE);
    settle();
    CHECK(rnic_dev_status(d, NULL, true) & RNIC_STATUS_BAD_CONFIG_MASK);
    still_works(a, b, ma, mb);

    /* WQEs the driver would never write. */
    uint64_t w[RNIC_WQE_BYTES / 8];
    memset(w, 0, sizeof(w));
    RNIC_SET(w, WQE, OPCODE, 0x77);
    RNIC_SET(w, WQE, WR_ID, 501);
    expect_bad_wqe(w, "unknown opcode");
    memset(w, 0, sizeof(w));
    RNIC_SET(w, WQE, OPCODE, RNIC_OP_RDMA_WRITE);
    RNIC_SET(w, WQE, NUM_SGE, RNIC_MAX_SGE + 1);
    RNIC_SET(w, WQE, WR_ID, 502);
    expect_bad_wqe(w, "too many segments");
    memset(w, 0, sizeof(w));
    RNIC_SET(w, WQE, OPCODE, RNIC_OP_RECV);
    RNIC_SET(w, WQE, WR_ID, 503);
    expect_bad_wqe(w, "receive opcode on the send queue");
    still_works(a, b, ma, mb);

    /* The driver refuses what it can see is wrong. */
    struct rnic_send_wr bad = {.opcode = 0x42};
    CHECK_EQ(rnic_post_send(P.qp[0], &bad), RNIC_E_INVAL);
    struct rnic_sge many[8] = {{0}};
    struct rnic_send_wr toomany = {.opcode = RNIC_OP_SEND, .num_sge = 8, .sg = many};
    CHECK_EQ(rnic_post_send(P.qp[0], &toomany), RNIC_E_INVAL);
    CHECK_EQ(rnic_post_send(NULL, &bad), RNIC_E_INVAL);

    /* A doorbell past the ring (more WQEs than the ring holds) is refused. */
    rnic_dev_status(d, NULL, true);
    rnic_reg_write(d, RNIC_REG_DB_SQ_N(rnic_qp_num(P.qp[0])), 0x4000);
    settle();
    CHECK(rnic_dev_status(d, &addr, true) & RNIC_STATUS_BAD_DOORBELL_MASK);
    CHECK_EQ(addr, rnic_qp_num(P.qp[0]));
    /* A doorbell for a QP that does not exist. */
    rnic_reg_write(d, RNIC_REG_DB_SQ_N(14), 1);
    settle();
    CHECK(rnic_dev_status(d, NULL, true) & RNIC_STATUS_BAD_DOORBELL_MASK);
    still_works(a, b, ma, mb);

    rnic_mr_dereg(ma);
    rnic_mr_dereg(mb);
    pair_close(&P);
    free(a);
    free(b);
    return rnic_test_finish("test_bad_input");
}
