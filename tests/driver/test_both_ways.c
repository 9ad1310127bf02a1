/* Data crossing the link both ways at once: rnic0 and rnic1 each post a
 * transfer to the other before either NIC runs a cycle, and both complete
 * with every byte. Before the requester paused a SEND or WRITE between its
 * packets for the peer's frames, two 80,000-byte WRITEs posted this way
 * never completed (docs/reliability.md, "Both ways at once").
 *   WRITE, SEND   80,000 bytes and 1 MiB each way: each NIC takes the
 *                 peer's frames in between its own packets, so no frame
 *                 waits at a full receive buffer long enough to be dropped
 *                 (RX_DROPS stays 0) and nothing is sent twice;
 *   READ          64 KiB each way: what the links hold, nothing dropped.
 *                 128 KiB each way: a READ's responses go out as one job
 *                 that does not pause, so the links fill and both NICs
 *                 wait on the link at once, each for the other to drain
 *                 its receive buffer; the buffer's pause limit
 *                 (RX_PAUSE_MAX) then drops frames and the READs ask again
 *                 for what they miss: both complete (without the limit they
 *                 never do). Slowly: 410,369 cycles and 322 frames dropped,
 *                 a known problem (docs/reliability.md);
 *   READ + WRITE  one NIC READs 1 MiB while the other WRITEs 1 MiB to it.
 * Lockstep, so the cycle counts printed are the same on every run. */
#include <stdlib.h>
#include <string.h>

#include "rnic_test.h"

#define LEN (1u << 20)
/* Cycles each completion may take: a 1 MiB transfer takes ~140,000, and a
 * lost READ response waits out an ACK timeout of 1024 x 2^10 cycles. */
#define BOTH_BUDGET 20000000u

static struct pair P;
static uint8_t *src[2], *dst[2];
static rnic_mr *msrc[2], *mdst[2];

static uint32_t rx_drops(int s) { return rnic_reg_read(P.dev[s], RNIC_REG_RX_DROPS); }

/* Side s's transfer of n bytes to (or, a READ, from) side 1 - s. */
static void post(int s, uint8_t op, uint32_t n) {
    const int t = 1 - s;
    if (op == RNIC_OP_SEND) {
        struct rnic_sge r = {(uint64_t)(uintptr_t)dst[t], n, rnic_mr_key(mdst[t])};
        CHECK_EQ(rnic_post_recv(P.qp[t], 500u + (unsigned)t, &r, 1), RNIC_OK);
    }
    /* A READ pulls the peer's src into our dst; a WRITE or SEND pushes our
     * src into the peer's dst. */
    const bool rd = op == RNIC_OP_RDMA_READ;
    struct rnic_sge l = {(uint64_t)(uintptr_t)(rd ? dst[s] : src[s]), n, rnic_mr_key(rd ? mdst[s] : msrc[s])};
    struct rnic_send_wr wr = {.wr_id = 100u + (unsigned)s, .opcode = op, .flags = RNIC_WQE_FLAG_SIGNALED,
                              .num_sge = 1, .sg = &l,
                              .remote_addr = (uint64_t)(uintptr_t)(rd ? src[t] : dst[t]),
                              .rkey = rnic_mr_key(rd ? msrc[t] : mdst[t])};
    CHECK_EQ(rnic_post_send(P.qp[s], &wr), RNIC_OK);
}

/* Side 0 does op0 and side 1 op1, posted together; both complete. With a
 * SEND, each CQ also gets the receive of the peer's SEND: every completion
 * of both CQs is waited for and must be a success. */
static void run(const char *what, uint8_t op0, uint32_t n0, uint8_t op1, uint32_t n1, bool no_drops) {
    for (int s = 0; s < 2; s++) {
        fill_pattern(src[s], LEN, (unsigned)(7 * s + op0 + 3 * op1) + n0);
        memset(dst[s], 0xEE, LEN);
    }
    const uint32_t d0 = rx_drops(0) + rx_drops(1);
    const uint64_t c0 = rnic_cycles(P.dev[0]);
    post(0, op0, n0);
    post(1, op1, n1);
    unsigned want[2] = {1u + (op1 == RNIC_OP_SEND), 1u + (op0 == RNIC_OP_SEND)};
    for (int s = 0; s < 2; s++) {
        for (unsigned k = 0; k < want[s]; k++) {
            struct rnic_wc wc;
            CHECK_EQ(rnic_cq_wait(P.cq[s], &wc, BOTH_BUDGET), 1);
            CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
            CHECK_EQ(wc.wr_id, wc.is_recv ? 500u + (unsigned)s : 100u + (unsigned)s);
        }
    }
    /* Where the bytes went. */
    const uint8_t op[2] = {op0, op1};
    const uint32_t n[2] = {n0, n1};
    for (int s = 0; s < 2; s++) {
        const int t = 1 - s;
        if (op[s] == RNIC_OP_RDMA_READ)
            CHECK(memcmp(dst[s], src[t], n[s]) == 0);
        else
            CHECK(memcmp(dst[t], src[s], n[s]) == 0);
    }
    const uint32_t drops = rx_drops(0) + rx_drops(1) - d0;
    if (no_drops)
        CHECK_EQ(drops, 0u);
    CHECK_EQ(rnic_qp_state(P.qp[0]), RNIC_QP_STATE_RTS);
    CHECK_EQ(rnic_qp_state(P.qp[1]), RNIC_QP_STATE_RTS);
    printf("%-28s %9llu cycles, %u frames dropped at a full receive buffer\n", what,
           (unsigned long long)(rnic_cycles(P.dev[0]) - c0), drops);
}

int main(void) {
    static const struct rnic_qp_timers timers = {.ack_timeout = 10, .retry_cnt = 7, .rnr_retry = 7,
                                                 .min_rnr_timer = 12};
    pair_open(&P);
    P.timers = &timers;
    pair_reconnect(&P);
    for (int s = 0; s < 2; s++) {
        src[s] = aligned_alloc(4096, LEN);
        dst[s] = aligned_alloc(4096, LEN);
        CHECK_EQ(rnic_mr_reg(P.dev[s], src[s], LEN, P.pz[s], ALL_ACCESS, &msrc[s]), RNIC_OK);
        CHECK_EQ(rnic_mr_reg(P.dev[s], dst[s], LEN, P.pz[s], ALL_ACCESS, &mdst[s]), RNIC_OK);
    }
    run("WRITE 80,000 both ways", RNIC_OP_RDMA_WRITE, 80000, RNIC_OP_RDMA_WRITE, 80000, true);
    run("WRITE 1 MiB both ways", RNIC_OP_RDMA_WRITE, LEN, RNIC_OP_RDMA_WRITE, LEN, true);
    run("SEND 1 MiB both ways", RNIC_OP_SEND, LEN, RNIC_OP_SEND, LEN, true);
    run("READ 64 KiB both ways", RNIC_OP_RDMA_READ, 65536, RNIC_OP_RDMA_READ, 65536, true);
    run("READ 128 KiB both ways", RNIC_OP_RDMA_READ, 131072, RNIC_OP_RDMA_READ, 131072, false);
    run("READ 1 MiB + WRITE 1 MiB", RNIC_OP_RDMA_READ, LEN, RNIC_OP_RDMA_WRITE, LEN, false);
    for (int s = 0; s < 2; s++) {
        rnic_mr_dereg(msrc[s]);
        rnic_mr_dereg(mdst[s]);
        free(src[s]);
        free(dst[s]);
    }
    pair_close(&P);
    return rnic_test_finish("test_both_ways");
}
