/* The IOMMU: a DMA outside the ranges the driver mapped is refused,
 * reported, and touches no memory; the WQE fails with an error. */
#include <stdlib.h>
#include <string.h>

#include "rnic_sim.h"
#include "rnic_test.h"

int main(void) {
    struct pair P;
    pair_open(&P);
    rnic_sim_dev *s0, *s1;
    CHECK_EQ(rnic_sim_open("rnic0", &s0), 0);
    CHECK_EQ(rnic_sim_open("rnic1", &s1), 0);
    uint8_t *a = aligned_alloc(4096, 8192), *b = aligned_alloc(4096, 8192);
    fill_pattern(a, 8192, 3);
    memset(b, 0x5A, 8192);
    rnic_mr *ma, *mb;
    CHECK_EQ(rnic_mr_reg(P.dev[0], a, 8192, P.pz[0], ALL_ACCESS, &ma), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], b, 8192, P.pz[1], ALL_ACCESS, &mb), RNIC_OK);

    /* The responder's region is still in its table but no longer mapped in
     * its IOMMU: the write is refused by the IOMMU, not by the key check. */
    uint64_t f1 = rnic_sim_fault_count(s1);
    CHECK_EQ(rnic_sim_dma_unmap(s1, b, 8192), 0);
    struct rnic_sge s = {(uint64_t)(uintptr_t)a, 4096, rnic_mr_key(ma)};
    struct rnic_send_wr w = {.wr_id = 1, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                             .num_sge = 1, .sg = &s, .remote_addr = (uint64_t)(uintptr_t)b, .rkey = rnic_mr_key(mb)};
    struct rnic_wc wc;
    CHECK_EQ(post_and_wait(&P, 0, &w, &wc), 1);
    CHECK(wc.status != RNIC_CQE_STATUS_SUCCESS);
    CHECK(rnic_sim_fault_count(s1) > f1);
    struct rnic_sim_fault f;
    CHECK_EQ(rnic_sim_last_fault(s1, &f), 0);
    CHECK_EQ(f.addr, (uint64_t)(uintptr_t)b);
    CHECK_EQ(f.is_write, 1);
    CHECK(rnic_dev_status(P.dev[1], NULL, true) & RNIC_STATUS_DMA_FAULT_MASK);
    for (int i = 0; i < 8192; i++)
        if (b[i] != 0x5A) {
            CHECK(!"responder memory changed");
            break;
        }
    CHECK_EQ(rnic_sim_dma_map(s1, b, 8192), 0);
    rnic_qp_destroy(P.qp[0]);
    rnic_qp_destroy(P.qp[1]);
    pair_reconnect(&P);

    /* The requester's source is unmapped: its read faults, the frame is
     * poisoned (the peer drops it) and the WQE completes with DMA_FAULT. */
    uint64_t f0 = rnic_sim_fault_count(s0);
    CHECK_EQ(rnic_sim_dma_unmap(s0, a, 8192), 0);
    CHECK_EQ(post_and_wait(&P, 0, &w, &wc), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_DMA_FAULT);
    CHECK(rnic_sim_fault_count(s0) > f0);
    rnic_sim_advance(4000);   /* the poisoned frame reaches the peer */
    CHECK(rnic_reg_read(P.dev[1], RNIC_REG_RX_DROPS) >= 1);
    for (int i = 0; i < 8192; i++)
        if (b[i] != 0x5A) {
            CHECK(!"responder memory changed by a poisoned frame");
            break;
        }
    CHECK_EQ(rnic_sim_dma_map(s0, a, 8192), 0);

    /* IOMMU bookkeeping: unmapping a range that is not mapped is refused. */
    CHECK_EQ(rnic_sim_dma_unmap(s0, a + 1, 10), -1);
    CHECK_EQ(rnic_sim_dma_map(s0, a, 0), -1);

    rnic_mr_dereg(ma);
    rnic_mr_dereg(mb);
    pair_close(&P);
    free(a);
    free(b);
    return rnic_test_finish("test_dma_fault");
}
