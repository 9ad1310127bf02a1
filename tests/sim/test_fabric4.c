/* A fabric of four NICs (run with RNIC_SIM_NICS=4): rnic2 and rnic3 form
 * their own pair, so an RDMA WRITE between them crosses only their link,
 * and the rnic0-rnic1 link stays silent. */
#include <stdlib.h>
#include <string.h>

#include "rnic_sim.h"
#include "rnic_test.h"

int main(void) {
    const char *env = getenv("RNIC_SIM_NICS");
    if (!env || strcmp(env, "4") != 0) {
        fprintf(stderr, "test_fabric4: run with RNIC_SIM_NICS=4\n");
        return 1;
    }
    rnic_dev *d[2];
    CHECK_EQ(rnic_open("rnic2", &d[0]), RNIC_OK);
    CHECK_EQ(rnic_open("rnic3", &d[1]), RNIC_OK);
    rnic_sim_dev *s;
    CHECK_EQ(rnic_sim_open("rnic4", &s), -1);
    CHECK_EQ(rnic_sim_num_nics(), 4);
    CHECK_EQ(rnic_sim_open("rnic3", &s), 0);
    CHECK_EQ(rnic_sim_index(s), 3);
    if (rnic_check_failures())
        return rnic_test_finish("test_fabric4");

    struct rnic_dev_info info;
    CHECK_EQ(rnic_query(d[1], &info), RNIC_OK);
    CHECK_EQ(info.ipv4, 0x0A000004u);   /* NIC i is 10.0.0.(i+1) */

    uint16_t pz[2];
    rnic_cq *cq[2];
    rnic_qp *qp[2];
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(rnic_pz_alloc(d[i], &pz[i]), RNIC_OK);
        CHECK_EQ(rnic_cq_create(d[i], 64, &cq[i]), RNIC_OK);
        struct rnic_qp_attr a = {16, 16, cq[i], cq[i], pz[i], 1, RNIC_ACCESS_REMOTE_WRITE, NULL};
        CHECK_EQ(rnic_qp_create(d[i], &a, &qp[i]), RNIC_OK);
    }
    CHECK_EQ(rnic_qp_connect_local(qp[0], qp[1]), RNIC_OK);

    enum { N = 10000 };
    uint8_t *a = aligned_alloc(4096, 3 * 4096), *b = aligned_alloc(4096, 3 * 4096);
    fill_pattern(a, N, 21);
    memset(b, 0, N);
    rnic_mr *ma, *mb;
    CHECK_EQ(rnic_mr_reg(d[0], a, N, pz[0], ALL_ACCESS, &ma), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(d[1], b, N, pz[1], ALL_ACCESS, &mb), RNIC_OK);

    uint64_t before[4];
    for (unsigned i = 0; i < 4; i++)
        before[i] = rnic_sim_link_frames(i);
    struct rnic_sge sg = {(uint64_t)(uintptr_t)a, N, rnic_mr_key(ma)};
    struct rnic_send_wr w = {.wr_id = 5, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1,
                             .sg = &sg, .remote_addr = (uint64_t)(uintptr_t)b, .rkey = rnic_mr_key(mb)};
    CHECK_EQ(rnic_post_send(qp[0], &w), RNIC_OK);
    struct rnic_wc wc;
    CHECK_EQ(rnic_cq_wait(cq[0], &wc, BUDGET), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(wc.wr_id, 5);
    CHECK_EQ(memcmp(a, b, N), 0);
    CHECK_EQ(rnic_sim_link_frames(2) - before[2], 3);   /* 10000 bytes at MTU 4096 */
    CHECK(rnic_sim_link_frames(3) - before[3] >= 1);    /* the ACKs */
    CHECK_EQ(rnic_sim_link_frames(0), before[0]);
    CHECK_EQ(rnic_sim_link_frames(1), before[1]);
    CHECK_EQ(rnic_sim_link_frames(4), 0);               /* no such NIC */

    rnic_mr_dereg(ma);
    rnic_mr_dereg(mb);
    free(a);
    free(b);
    return rnic_test_finish("test_fabric4");
}
