/* Remote and local protection: every refused access completes with an
 * error, moves the connection to ERROR, flushes what follows, and leaves
 * the target memory byte for byte unchanged. */
#include <stdlib.h>
#include <string.h>

#include "rnic_test.h"

#define N 8192u

static struct pair P;
static uint8_t *lbuf, *rbuf, *snap;
static rnic_mr *lmr, *rmr;

/* Posts a bad WR and a good one behind it; expects `status` then FLUSHED,
 * the peer's memory unchanged and both QPs in ERROR. A local refusal names
 * its check and key (`verdict`, `key`); a remote one cannot (OK and 0): the
 * NAK on the wire carries no reason. */
static void expect_refused_by(const char *what, const struct rnic_send_wr *bad, uint8_t status, uint8_t verdict,
                              uint32_t key) {
    fprintf(stderr, "case: %s\n", what);
    memcpy(snap, rbuf, N);
    struct rnic_sge s = {(uint64_t)(uintptr_t)lbuf, 64, rnic_mr_key(lmr)};
    struct rnic_send_wr good = {.wr_id = 2, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                                .num_sge = 1, .sg = &s, .remote_addr = (uint64_t)(uintptr_t)rbuf,
                                .rkey = rnic_mr_key(rmr)};
    CHECK_EQ(rnic_post_send(P.qp[0], bad), RNIC_OK);
    CHECK_EQ(rnic_post_send(P.qp[0], &good), RNIC_OK);
    struct rnic_wc wc;
    CHECK_EQ(wait_cq(&P, 0, &wc), 1);
    CHECK_EQ(wc.wr_id, bad->wr_id);
    CHECK_EQ(wc.status, status);
    CHECK_EQ(wc.verdict, verdict);
    CHECK_EQ(wc.check_key, key);
    CHECK_EQ(wait_cq(&P, 0, &wc), 1);
    CHECK_EQ(wc.wr_id, 2);
    CHECK_EQ(wc.verdict, RNIC_PT_VERDICT_OK);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_FLUSHED);
    CHECK(memcmp(snap, rbuf, N) == 0);
    CHECK_EQ(rnic_qp_state(P.qp[0]), RNIC_QP_STATE_ERROR);
    if (status == RNIC_CQE_STATUS_REMOTE_ACCESS)
        CHECK_EQ(rnic_qp_state(P.qp[1]), RNIC_QP_STATE_ERROR);
    rnic_qp_destroy(P.qp[0]);
    rnic_qp_destroy(P.qp[1]);
    pair_reconnect(&P);
}

static void expect_refused(const char *what, const struct rnic_send_wr *bad, uint8_t status) {
    expect_refused_by(what, bad, status, RNIC_PT_VERDICT_OK, 0);
}

static struct rnic_send_wr wr_of(uint8_t op, uint64_t raddr, uint32_t rkey, uint32_t len, struct rnic_sge *s) {
    *s = (struct rnic_sge){(uint64_t)(uintptr_t)lbuf, len, rnic_mr_key(lmr)};
    return (struct rnic_send_wr){.wr_id = 1, .opcode = op, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1, .sg = s,
                                 .remote_addr = raddr, .rkey = rkey};
}

int main(void) {
    pair_open(&P);
    /* In a build made with RNIC_MUTANTS, break one rule on purpose: this
     * test must then fail (tests/mutants/run_mutants.sh checks it does). */
    const char *mutant = getenv("RNIC_TEST_MUTANT");
    if (mutant) {
        for (int i = 0; i < 2; i++)
            rnic_reg_write(P.dev[i], RNIC_REG_MUTANT, (uint32_t)atoi(mutant));
        CHECK_EQ(rnic_reg_read(P.dev[0], RNIC_REG_MUTANT), atoi(mutant));
    }
    lbuf = aligned_alloc(4096, N);
    rbuf = aligned_alloc(4096, N);
    snap = malloc(N);
    fill_pattern(lbuf, N, 1);
    fill_pattern(rbuf, N, 2);
    CHECK_EQ(rnic_mr_reg(P.dev[0], lbuf, N, P.pz[0], ALL_ACCESS, &lmr), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], rbuf, N, P.pz[1], ALL_ACCESS, &rmr), RNIC_OK);
    const uint64_t ra = (uint64_t)(uintptr_t)rbuf;
    const uint32_t rk = rnic_mr_key(rmr);
    struct rnic_sge s;
    struct rnic_send_wr w;

    /* Wrong 8-bit key, same index. */
    w = wr_of(RNIC_OP_RDMA_WRITE, ra, rk ^ 0x01u, 256, &s);
    expect_refused("write, wrong key", &w, RNIC_CQE_STATUS_REMOTE_ACCESS);
    /* Index past the table. */
    w = wr_of(RNIC_OP_RDMA_WRITE, ra, 0xFFFFFF00u | (rk & 0xFFu), 256, &s);
    expect_refused("write, index out of range", &w, RNIC_CQE_STATUS_REMOTE_ACCESS);
    /* Outside the bounds: one byte past the end, and before the start. */
    w = wr_of(RNIC_OP_RDMA_WRITE, ra + N - 255, rk, 256, &s);
    expect_refused("write, one past the end", &w, RNIC_CQE_STATUS_REMOTE_ACCESS);
    w = wr_of(RNIC_OP_RDMA_WRITE, ra - 1, rk, 16, &s);
    expect_refused("write, before the start", &w, RNIC_CQE_STATUS_REMOTE_ACCESS);
    w = wr_of(RNIC_OP_RDMA_READ, ra + N - 7, rk, 8, &s);
    expect_refused("read, one past the end", &w, RNIC_CQE_STATUS_REMOTE_ACCESS);

    /* Missing rights: a region without REMOTE_WRITE / REMOTE_READ. */
    rnic_mr *ro, *wo;
    CHECK_EQ(rnic_mr_reg(P.dev[1], rbuf, 4096, P.pz[1], RNIC_ACCESS_LOCAL_READ | RNIC_ACCESS_REMOTE_READ, &ro), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], rbuf + 4096, 4096, P.pz[1], RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, &wo),
             RNIC_OK);
    w = wr_of(RNIC_OP_RDMA_WRITE, ra, rnic_mr_key(ro), 64, &s);
    expect_refused("write without remote write", &w, RNIC_CQE_STATUS_REMOTE_ACCESS);
    w = wr_of(RNIC_OP_RDMA_READ, ra + 4096, rnic_mr_key(wo), 64, &s);
    expect_refused("read without remote read", &w, RNIC_CQE_STATUS_REMOTE_ACCESS);
    /* The rights that are there work. */
    {
        struct rnic_wc wc;
        w = wr_of(RNIC_OP_RDMA_READ, ra, rnic_mr_key(ro), 64, &s);
        CHECK_EQ(post_and_wait(&P, 0, &w, &wc), 1);
        CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
        CHECK(memcmp(lbuf, rbuf, 64) == 0);
    }

    /* Another PZ: a valid key of a region in a different protection zone. */
    uint16_t other;
    rnic_mr *opz;
    CHECK_EQ(rnic_pz_alloc(P.dev[1], &other), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], rbuf, N, other, ALL_ACCESS, &opz), RNIC_OK);
    w = wr_of(RNIC_OP_RDMA_WRITE, ra, rnic_mr_key(opz), 64, &s);
    expect_refused("write, other PZ", &w, RNIC_CQE_STATUS_REMOTE_ACCESS);

    /* A stale key: deregistered, and the same memory registered again. */
    uint32_t stale = rnic_mr_key(opz);
    rnic_mr_dereg(opz);
    CHECK_EQ(rnic_mr_reg(P.dev[1], rbuf, N, other, ALL_ACCESS, &opz), RNIC_OK);
    CHECK(rnic_mr_key(opz) != stale);
    w = wr_of(RNIC_OP_RDMA_WRITE, ra, stale, 64, &s);
    expect_refused("write, stale key", &w, RNIC_CQE_STATUS_REMOTE_ACCESS);

    /* A deregistered region: its entry is invalid, its old key refused
     * (the buffer stays mapped through rmr, so only the table can refuse). */
    rnic_mr *gone;
    CHECK_EQ(rnic_mr_reg(P.dev[1], rbuf, 1024, P.pz[1], ALL_ACCESS, &gone), RNIC_OK);
    uint32_t gone_key = rnic_mr_key(gone);
    rnic_mr_dereg(gone);
    w = wr_of(RNIC_OP_RDMA_WRITE, ra, gone_key, 64, &s);
    expect_refused("write, deregistered region", &w, RNIC_CQE_STATUS_REMOTE_ACCESS);

    /* Local protection: a bad lkey, and an lkey without local write as a READ target. */
    w = wr_of(RNIC_OP_RDMA_WRITE, ra, rk, 64, &s);
    s.lkey ^= 0x02u;
    expect_refused_by("bad local key", &w, RNIC_CQE_STATUS_LOCAL_PROTECTION, RNIC_PT_VERDICT_KEY, s.lkey);
    rnic_mr *lro;
    CHECK_EQ(rnic_mr_reg(P.dev[0], lbuf, 4096, P.pz[0], RNIC_ACCESS_LOCAL_READ, &lro), RNIC_OK);
    w = wr_of(RNIC_OP_RDMA_READ, ra, rk, 64, &s);
    s.lkey = rnic_mr_key(lro);
    expect_refused_by("read into a region without local write", &w, RNIC_CQE_STATUS_LOCAL_PROTECTION,
                      RNIC_PT_VERDICT_RIGHTS, rnic_mr_key(lro));
    w = wr_of(RNIC_OP_RDMA_WRITE, ra, rk, 64, &s);
    s.addr = (uint64_t)(uintptr_t)lbuf + N - 32;
    expect_refused_by("local segment past its region", &w, RNIC_CQE_STATUS_LOCAL_PROTECTION, RNIC_PT_VERDICT_BOUNDS,
                      rnic_mr_key(lmr));

    rnic_mr_dereg(lro);
    rnic_mr_dereg(opz);
    rnic_mr_dereg(ro);
    rnic_mr_dereg(wo);
    rnic_mr_dereg(lmr);
    rnic_mr_dereg(rmr);
    pair_close(&P);
    free(lbuf);
    free(rbuf);
    free(snap);
    return rnic_test_finish("test_protection");
}
