/* A burst of posts with nothing in between, as a tight loop in a program
 * writes them: 256 RDMA WRITEs on one QP, each its own doorbell, then one
 * wait for the last (the only signalled one). In lockstep each post is one
 * NIC cycle, so a doorbell comes every cycle while the engine starts the
 * first WRITEs. Every WRITE must land and the last complete; the trace port
 * (one event out a cycle) must not stop the simulation on the way. */
#include "rnic_test.h"

#include <stdlib.h>
#include <string.h>

enum { N = 256, LEN = 64 };

int main(void) {
    struct pair p;
    pair_open(&p);
    /* QPs deep enough for the whole burst. */
    for (int s = 0; s < 2; s++)
        rnic_qp_destroy(p.qp[s]);
    for (int s = 0; s < 2; s++) {
        struct rnic_qp_attr a = {N, N, p.cq[s], p.cq[s], p.pz[s], 1, RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE, NULL};
        CHECK_EQ(rnic_qp_create(p.dev[s], &a, &p.qp[s]), RNIC_OK);
    }
    CHECK_EQ(rnic_qp_connect_local(p.qp[0], p.qp[1]), RNIC_OK);

    uint8_t *src = aligned_alloc(4096, N * LEN), *dst = aligned_alloc(4096, N * LEN);
    CHECK(src && dst);
    fill_pattern(src, N * LEN, 9);
    memset(dst, 0, N * LEN);
    rnic_mr *ms, *md;
    CHECK_EQ(rnic_mr_reg(p.dev[0], src, N * LEN, p.pz[0], ALL_ACCESS, &ms), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(p.dev[1], dst, N * LEN, p.pz[1], ALL_ACCESS, &md), RNIC_OK);

    int refused = 0;
    for (int i = 0; i < N; i++) {
        struct rnic_sge sg = {(uint64_t)(uintptr_t)(src + i * LEN), LEN, rnic_mr_key(ms)};
        struct rnic_send_wr wr = {
            .wr_id = (uint64_t)i,
            .opcode = RNIC_OP_RDMA_WRITE,
            .flags = i == N - 1 ? RNIC_WQE_FLAG_SIGNALED : 0,
            .num_sge = 1,
            .sg = &sg,
            .remote_addr = (uint64_t)(uintptr_t)(dst + i * LEN),
            .rkey = rnic_mr_key(md),
        };
        refused += rnic_post_send(p.qp[0], &wr) != RNIC_OK;
    }
    CHECK_EQ(refused, 0);
    struct rnic_wc wc;
    CHECK_EQ(wait_cq(&p, 0, &wc), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(wc.wr_id, (uint64_t)(N - 1));
    CHECK(memcmp(src, dst, N * LEN) == 0);

    rnic_mr_dereg(ms);
    rnic_mr_dereg(md);
    free(src);
    free(dst);
    pair_close(&p);
    return rnic_test_finish("test_post_burst");
}
