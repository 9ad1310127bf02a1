/* The path MTU (rnic_qp_remote.path_mtu, the QP_PATH register): sizes that
 * are not one of InfiniBand's five, or exceed the NIC's MTU, are refused
 * before anything is written; a valid one reaches QP_PATH before
 * QP_CMD_RTS. What the NIC does with it (packets cut at it, READ responses
 * counted by it) is the RTL's to test (rtl_core path_mtu); here, that the
 * connection uses what software asked: both ends at 1,024 or 256 bytes
 * move a WRITE, a READ and a SEND intact, and two ends that disagree fail
 * the first WRITE, as they must. */
#include <stdlib.h>
#include <string.h>

#include "rnic_test.h"

enum { LEN = 10000, BUF = 64 * 1024 };

static struct pair P;

static struct rnic_qp_attr attr(int s) {
    return (struct rnic_qp_attr){.sq_entries = 16, .rq_entries = 16, .send_cq = P.cq[s], .recv_cq = P.cq[s],
                                 .pz = P.pz[s], .max_rd = 1,
                                 .allow_remote = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ};
}

static struct rnic_qp_remote toward(rnic_qp *peer, uint32_t path_mtu) {
    struct rnic_qp_remote r = {.qpn = rnic_qp_num(peer), .sq_psn = 0x100, .rq_psn = 0x100, .path_mtu = path_mtu};
    return r;
}

/* Two new QPs, one per NIC, connected with these path MTUs. */
static void connect_pair(rnic_qp *q[2], uint32_t mtu0, uint32_t mtu1) {
    for (int s = 0; s < 2; s++) {
        const struct rnic_qp_attr a = attr(s);
        CHECK_EQ(rnic_qp_create(P.dev[s], &a, &q[s]), RNIC_OK);
    }
    const uint32_t mtu[2] = {mtu0, mtu1};
    for (int s = 0; s < 2; s++) {
        struct rnic_dev_info peer;
        CHECK_EQ(rnic_query(P.dev[1 - s], &peer), RNIC_OK);
        struct rnic_qp_remote r = {.qpn = rnic_qp_num(q[1 - s]), .ipv4 = peer.ipv4, .sq_psn = 0x100,
                                   .rq_psn = 0x100, .path_mtu = mtu[s]};
        memcpy(r.mac, peer.mac, 6);
        CHECK_EQ(rnic_qp_connect(q[s], &r), RNIC_OK);
    }
}

/* Not a size InfiniBand names, or above this NIC's MTU: RNIC_E_INVAL, the
 * QP still in INIT and QP_PATH as it was. */
static void refused(void) {
    static const uint32_t bad[] = {1, 128, 300, 1000, 1025, 3072, 8192, 65536, 0xFFFFFFFFu};
    rnic_qp *q;
    const struct rnic_qp_attr a = attr(0);
    CHECK_EQ(rnic_qp_create(P.dev[0], &a, &q), RNIC_OK);
    const uint32_t staged = rnic_reg_read(P.dev[0], RNIC_REG_QP_PATH);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct rnic_qp_remote r = toward(P.qp[1], bad[i]);
        CHECK_EQ(rnic_qp_connect(q, &r), RNIC_E_INVAL);
        CHECK_EQ(rnic_qp_state(q), RNIC_QP_STATE_INIT);
        CHECK_EQ(rnic_reg_read(P.dev[0], RNIC_REG_QP_PATH), staged);
    }
    CHECK_EQ(rnic_qp_destroy(q), RNIC_OK);
}

/* Each valid size is staged as its code (256 is 1, each next doubles; 0
 * is the NIC's MTU, code 0). */
static void staged_codes(void) {
    static const uint32_t sizes[] = {0, 256, 512, 1024, 2048, 4096};
    for (uint32_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        rnic_qp *q;
        const struct rnic_qp_attr a = attr(0);
        CHECK_EQ(rnic_qp_create(P.dev[0], &a, &q), RNIC_OK);
        struct rnic_qp_remote r = toward(P.qp[1], sizes[i]);
        CHECK_EQ(rnic_qp_connect(q, &r), RNIC_OK);
        CHECK_EQ(rnic_reg_read(P.dev[0], RNIC_REG_QP_PATH), i);
        CHECK_EQ(rnic_qp_destroy(q), RNIC_OK);
    }
}

static int run(rnic_qp *q, int s, const struct rnic_send_wr *w) {
    CHECK_EQ(rnic_post_send(q, w), RNIC_OK);
    struct rnic_wc wc;
    CHECK_EQ(rnic_cq_wait(P.cq[s], &wc, BUDGET), 1);
    return wc.status;
}

/* A WRITE, a READ back and a SEND of LEN bytes between two QPs at
 * (mtu0, mtu1); returns the WRITE's status, after checking the rest when
 * it succeeded. */
static int transfers(uint32_t mtu0, uint32_t mtu1) {
    rnic_qp *q[2];
    connect_pair(q, mtu0, mtu1);
    uint8_t *src = aligned_alloc(4096, BUF), *dst = aligned_alloc(4096, BUF);
    rnic_mr *ms, *md;
    CHECK_EQ(rnic_mr_reg(P.dev[0], src, BUF, P.pz[0], ALL_ACCESS, &ms), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], dst, BUF, P.pz[1], ALL_ACCESS, &md), RNIC_OK);
    fill_pattern(src, BUF, mtu0 + 3 * mtu1);
    memset(dst, 0x5A, BUF);
    uint8_t *back = src + 2 * LEN;
    struct rnic_sge s = {(uint64_t)(uintptr_t)src, LEN, rnic_mr_key(ms)};
    struct rnic_send_wr w = {.wr_id = 1, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                             .num_sge = 1, .sg = &s, .remote_addr = (uint64_t)(uintptr_t)dst,
                             .rkey = rnic_mr_key(md)};
    const int status = run(q[0], 0, &w);
    if (status == RNIC_CQE_STATUS_SUCCESS) {
        CHECK(memcmp(src, dst, LEN) == 0);
        s.addr = (uint64_t)(uintptr_t)back;
        w.opcode = RNIC_OP_RDMA_READ;
        CHECK_EQ(run(q[0], 0, &w), RNIC_CQE_STATUS_SUCCESS);
        CHECK(memcmp(back, dst, LEN) == 0);
        uint8_t *inbox = dst + 2 * LEN;
        const struct rnic_sge rs = {(uint64_t)(uintptr_t)inbox, LEN, rnic_mr_key(md)};
        CHECK_EQ(rnic_post_recv(q[1], 3, &rs, 1), RNIC_OK);
        s.addr = (uint64_t)(uintptr_t)src;
        w.opcode = RNIC_OP_SEND;
        CHECK_EQ(run(q[0], 0, &w), RNIC_CQE_STATUS_SUCCESS);
        struct rnic_wc wc;
        CHECK_EQ(rnic_cq_wait(P.cq[1], &wc, BUDGET), 1);
        CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
        CHECK_EQ(wc.byte_len, LEN);
        CHECK(memcmp(inbox, src, LEN) == 0);
    } else {
        /* Refused at the first packet: nothing placed. */
        for (size_t i = 0; i < LEN; i++)
            if (dst[i] != 0x5A) {
                CHECK(dst[i] == 0x5A);
                break;
            }
        struct rnic_wc wc;
        while (rnic_cq_wait(P.cq[1], &wc, BUDGET / 16) == 1) {
        }
    }
    CHECK_EQ(rnic_mr_dereg(ms), RNIC_OK);
    CHECK_EQ(rnic_mr_dereg(md), RNIC_OK);
    free(src);
    free(dst);
    CHECK_EQ(rnic_qp_destroy(q[0]), RNIC_OK);
    CHECK_EQ(rnic_qp_destroy(q[1]), RNIC_OK);
    return status;
}

int main(void) {
    pair_open(&P);
    refused();
    staged_codes();
    CHECK_EQ(transfers(1024, 1024), RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(transfers(256, 256), RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(transfers(0, 4096), RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(transfers(4096, 1024), RNIC_CQE_STATUS_REMOTE_OPERATION);
    pair_close(&P);
    return rnic_test_finish("test_path_mtu");
}
