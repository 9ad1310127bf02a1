/* The IOMMU as the RTL meets it, with no driver in between: rnic0 is
 * programmed register by register with
 *  - a send ring in memory that was never mapped: the WQE fetch is refused,
 *    reported (count, address, direction), and STATUS.DMA_FAULT latches;
 *  - a completion ring that is not mapped: the CQE write is refused and
 *    reported, and not one byte of the ring changes; the same ring mapped
 *    receives the CQE. */
#include <stdlib.h>
#include <string.h>

#include "rnic_sim.h"
#include "rnic_test.h"

#define LOG_RING 4
#define RING_WQES (1u << LOG_RING)

static rnic_sim_dev *nic;

/* Page-aligned (aligned_alloc wants the size to be a multiple of the alignment). */
static void *page_alloc(size_t n) { return aligned_alloc(4096, (n + 4095) & ~(size_t)4095); }

static void wr(uint32_t off, uint32_t v) { rnic_sim_bar_write32(nic, off, v); }
static uint32_t rd(uint32_t off) { return rnic_sim_bar_read32(nic, off); }

static void make_cq(uint32_t num, const void *ring) {
    uint64_t base = (uint64_t)(uintptr_t)ring;
    wr(RNIC_REG_CQ_SEL, num);
    wr(RNIC_REG_CQ_BASE_LO, (uint32_t)base);
    wr(RNIC_REG_CQ_BASE_HI, (uint32_t)(base >> 32));
    wr(RNIC_REG_CQ_LOG_SIZE, LOG_RING);
    wr(RNIC_REG_CQ_CMD, RNIC_CQ_CMD_CREATE);
}

static int qp_reaches(uint32_t num, uint32_t state) {
    wr(RNIC_REG_QP_SEL, num);
    for (int i = 0; i < 32; i++)
        if ((rd(RNIC_REG_QP_STATE) & 0xFFu) == state)
            return 1;
    return 0;
}

/* A QP in RTS whose send completions go to `cq`; its peer is QP `num` on rnic1. */
static void make_qp(uint32_t num, const void *sq, const void *rq, uint32_t cq) {
    uint64_t s = (uint64_t)(uintptr_t)sq, r = (uint64_t)(uintptr_t)rq;
    wr(RNIC_REG_QP_SEL, num);
    wr(RNIC_REG_QP_SQ_BASE_LO, (uint32_t)s);
    wr(RNIC_REG_QP_SQ_BASE_HI, (uint32_t)(s >> 32));
    wr(RNIC_REG_QP_RQ_BASE_LO, (uint32_t)r);
    wr(RNIC_REG_QP_RQ_BASE_HI, (uint32_t)(r >> 32));
    wr(RNIC_REG_QP_RINGS, LOG_RING << RNIC_QP_RINGS_SQ_LOG_SHIFT | LOG_RING << RNIC_QP_RINGS_RQ_LOG_SHIFT |
                              cq << RNIC_QP_RINGS_SCQ_SHIFT | cq << RNIC_QP_RINGS_RCQ_SHIFT);
    wr(RNIC_REG_QP_PZ, 1);
    wr(RNIC_REG_QP_FLAGS, 0);
    wr(RNIC_REG_QP_CMD, RNIC_QP_CMD_INIT);
    CHECK(qp_reaches(num, RNIC_QP_STATE_INIT));
    wr(RNIC_REG_QP_SEL, num);
    wr(RNIC_REG_QP_REMOTE, num);
    wr(RNIC_REG_QP_REMOTE_IPV4, 0x0A000002u);
    wr(RNIC_REG_QP_REMOTE_MAC_HI, 0x0200u);
    wr(RNIC_REG_QP_REMOTE_MAC_LO, 0x00000002u);
    wr(RNIC_REG_QP_SQ_PSN, 0x100);
    wr(RNIC_REG_QP_RQ_PSN, 0x200);
    wr(RNIC_REG_QP_CMD, RNIC_QP_CMD_RTS);
    CHECK(qp_reaches(num, RNIC_QP_STATE_RTS));
}

/* A signalled WQE with an opcode no NIC knows: it completes locally with
 * BAD_WQE (a CQE written by DMA) and sends nothing. */
#define OP_UNKNOWN 0xEEu
static void put_bad_wqe(uint64_t *wqe, uint64_t wr_id) {
    memset(wqe, 0, RNIC_WQE_BYTES);
    RNIC_SET(wqe, WQE, OPCODE, OP_UNKNOWN);
    RNIC_SET(wqe, WQE, FLAGS, RNIC_WQE_FLAG_SIGNALED);
    RNIC_SET(wqe, WQE, WR_ID, wr_id);
}

int main(void) {
    CHECK_EQ(rnic_sim_open("rnic0", &nic), 0);
    const size_t ring = (size_t)RNIC_WQE_BYTES * RING_WQES, cq_ring = (size_t)RNIC_CQE_BYTES * RING_WQES;
    uint64_t *sq_unmapped = page_alloc(ring), *sq = page_alloc(ring);
    uint8_t *rq = page_alloc(ring), *cq = page_alloc(cq_ring), *cq_unmapped = page_alloc(cq_ring);
    memset(sq, 0, ring);
    memset(rq, 0, ring);
    memset(cq, 0, cq_ring);
    memset(cq_unmapped, 0xA5, cq_ring);
    CHECK_EQ(rnic_sim_dma_map(nic, sq, ring), 0);
    CHECK_EQ(rnic_sim_dma_map(nic, rq, ring), 0);
    CHECK_EQ(rnic_sim_dma_map(nic, cq, cq_ring), 0);

    wr(RNIC_REG_CTRL, RNIC_CTRL_SOFT_RESET_MASK | RNIC_CTRL_ENABLE_MASK);
    CHECK_EQ(rd(RNIC_REG_ID), RNIC_DEVICE_ID);
    wr(RNIC_REG_MAC_HI, 0x0200u);
    wr(RNIC_REG_MAC_LO, 0x00000001u);
    wr(RNIC_REG_IPV4, 0x0A000001u);
    make_cq(0, cq);
    make_cq(1, cq_unmapped);
    wr(RNIC_REG_STATUS, 0xFFFFFFFFu);
    CHECK_EQ(rnic_sim_fault_count(nic), 0);

    /* 1. The send ring is not mapped: the WQE fetch is a read fault at the ring base. */
    make_qp(2, sq_unmapped, rq, 0);
    put_bad_wqe(sq_unmapped, 7);
    wr(RNIC_REG_DB_SQ_N(2), 1);
    rnic_sim_advance(500);
    CHECK(rnic_sim_fault_count(nic) >= 1);
    struct rnic_sim_fault f;
    CHECK_EQ(rnic_sim_last_fault(nic, &f), 0);
    CHECK_EQ(f.addr, (uint64_t)(uintptr_t)sq_unmapped);
    CHECK_EQ(f.is_write, 0);
    CHECK(f.len >= 1 && f.len <= RNIC_WQE_BYTES);
    CHECK(rd(RNIC_REG_STATUS) & RNIC_STATUS_DMA_FAULT_MASK);
    CHECK_EQ(rd(RNIC_REG_ERR_ADDR), (uint32_t)(uintptr_t)sq_unmapped);

    /* 2. The completion ring is not mapped: the CQE write is refused whole. */
    wr(RNIC_REG_STATUS, 0xFFFFFFFFu);
    uint64_t faults = rnic_sim_fault_count(nic);
    make_qp(3, sq, rq, 1);
    put_bad_wqe(sq, 9);
    wr(RNIC_REG_DB_SQ_N(3), 1);
    rnic_sim_advance(500);
    CHECK(rnic_sim_fault_count(nic) > faults);
    CHECK_EQ(rnic_sim_last_fault(nic, &f), 0);
    CHECK_EQ(f.is_write, 1);
    CHECK(f.addr >= (uint64_t)(uintptr_t)cq_unmapped && f.addr + f.len <= (uint64_t)(uintptr_t)cq_unmapped + cq_ring);
    for (size_t i = 0; i < cq_ring; i++)
        if (cq_unmapped[i] != 0xA5) {
            CHECK(!"an unmapped completion ring was written");
            break;
        }
    /* The same WQE with a mapped ring gets its CQE: the fault above was the IOMMU's doing. */
    wr(RNIC_REG_CQ_SEL, 1);
    wr(RNIC_REG_CQ_CMD, RNIC_CQ_CMD_DESTROY);
    memset(cq, 0, cq_ring);
    make_cq(1, cq);
    faults = rnic_sim_fault_count(nic);
    wr(RNIC_REG_QP_SEL, 3);
    wr(RNIC_REG_QP_CMD, RNIC_QP_CMD_RESET);
    make_qp(3, sq, rq, 1);
    wr(RNIC_REG_DB_SQ_N(3), 1);
    rnic_sim_advance(500);
    CHECK_EQ(rnic_sim_fault_count(nic), faults);
    const uint64_t *cqe = (const uint64_t *)cq;
    CHECK_EQ(RNIC_GET(cqe, CQE, PHASE), 1);
    CHECK_EQ(RNIC_GET(cqe, CQE, STATUS), RNIC_CQE_STATUS_BAD_WQE);
    CHECK_EQ(RNIC_GET(cqe, CQE, WR_ID), 9);

    free(sq_unmapped);
    free(sq);
    free(rq);
    free(cq);
    free(cq_unmapped);
    return rnic_test_finish("test_iommu_rtl");
}
