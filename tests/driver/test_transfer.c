/* SEND, RDMA WRITE and RDMA READ between rnic0 and rnic1 for sizes from
 * 1 B to 1 MiB and for multi-segment lists; every byte checked, and the
 * bytes around each destination checked untouched. */
#include <stdlib.h>
#include <string.h>

#include "rnic_test.h"

#define GUARD 64u

static struct pair P;
static uint8_t *src, *dst;
static rnic_mr *msrc, *mdst;
static const size_t CAP = (1u << 20) + 8192;   /* a multiple of the 4 KiB alignment */

static void reset_buffers(size_t n, unsigned seed) {
    fill_pattern(src, CAP, seed);
    memset(dst, 0xEE, CAP);
    (void)n;
}

static bool guards_intact(size_t off, size_t n) {
    for (size_t i = 0; i < off; i++)
        if (dst[i] != 0xEE)
            return false;
    for (size_t i = off + n; i < off + n + GUARD && i < CAP; i++)
        if (dst[i] != 0xEE)
            return false;
    return true;
}

/* op on side 0: SEND into a posted receive, or WRITE/READ against side 1. */
static void one(uint8_t op, size_t n, size_t soff, size_t doff) {
    reset_buffers(n, (unsigned)(n + op));
    struct rnic_wc wc;
    uint64_t sa = (uint64_t)(uintptr_t)(src + soff), da = (uint64_t)(uintptr_t)(dst + doff);
    if (op == RNIC_OP_SEND) {
        struct rnic_sge r = {da, (uint32_t)n, rnic_mr_key(mdst)};
        CHECK_EQ(rnic_post_recv(P.qp[1], 77, &r, 1), RNIC_OK);
    }
    /* READ pulls from the peer's dst into our src: swap the roles of the buffers. */
    struct rnic_sge s = {op == RNIC_OP_RDMA_READ ? da : sa, (uint32_t)n,
                         op == RNIC_OP_RDMA_READ ? rnic_mr_key(mdst) : rnic_mr_key(msrc)};
    struct rnic_send_wr wr = {.wr_id = 1000 + n, .opcode = op, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1,
                              .sg = &s, .remote_addr = op == RNIC_OP_RDMA_READ ? sa : da,
                              .rkey = op == RNIC_OP_RDMA_READ ? rnic_mr_key(msrc) : rnic_mr_key(mdst)};
    CHECK_EQ(post_and_wait(&P, 0, &wr, &wc), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(wc.wr_id, 1000 + n);
    CHECK_EQ(wc.opcode, op);
    if (op != RNIC_OP_SEND)
        CHECK_EQ(wc.byte_len, n);
    if (op == RNIC_OP_SEND) {
        struct rnic_wc rc;
        CHECK_EQ(wait_cq(&P, 1, &rc), 1);
        CHECK_EQ(rc.status, RNIC_CQE_STATUS_SUCCESS);
        CHECK(rc.is_recv);
        CHECK_EQ(rc.wr_id, 77);
        CHECK_EQ(rc.byte_len, n);
    }
    /* For READ the data went side1.src -> side0 dst region named by s: both buffers are in this process. */
    CHECK(memcmp(src + soff, dst + doff, n) == 0);
    CHECK(guards_intact(doff, n));
}

/* Four segments of odd lengths at odd offsets, gathered on one side and
 * scattered on the other. */
static void multi_sge(uint8_t op) {
    const uint32_t lens[4] = {13, 4099, 1, 777};
    const size_t soffs[4] = {3, 101, 9001, 20003};
    const size_t doffs[4] = {GUARD + 5, GUARD + 30001, GUARD + 40007, GUARD + 50000};
    uint32_t total = 0;
    for (int i = 0; i < 4; i++)
        total += lens[i];
    fill_pattern(src, CAP, op);
    memset(dst, 0xEE, CAP);
    struct rnic_sge gs[4], ss[4];
    for (int i = 0; i < 4; i++) {
        gs[i] = (struct rnic_sge){(uint64_t)(uintptr_t)(src + soffs[i]), lens[i], rnic_mr_key(msrc)};
        ss[i] = (struct rnic_sge){(uint64_t)(uintptr_t)(dst + doffs[i]), lens[i], rnic_mr_key(mdst)};
    }
    struct rnic_wc wc;
    if (op == RNIC_OP_SEND) {
        CHECK_EQ(rnic_post_recv(P.qp[1], 5, ss, 4), RNIC_OK);
        struct rnic_send_wr wr = {.wr_id = 6, .opcode = op, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 4, .sg = gs};
        CHECK_EQ(post_and_wait(&P, 0, &wr, &wc), 1);
        CHECK_EQ(wc.status, 0);
        CHECK_EQ(wait_cq(&P, 1, &wc), 1);
        CHECK_EQ(wc.status, 0);
        CHECK_EQ(wc.byte_len, total);
    } else {
        /* READ: a contiguous remote range (rnic1's dst) scattered into four
         * local segments (rnic0's src). */
        fill_pattern(dst, CAP, 99);
        memset(src, 0xEE, CAP);
        uint8_t *remote = dst + 100000;
        struct rnic_send_wr wr = {.wr_id = 7, .opcode = op, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 4, .sg = gs,
                                  .remote_addr = (uint64_t)(uintptr_t)remote, .rkey = rnic_mr_key(mdst)};
        CHECK_EQ(post_and_wait(&P, 0, &wr, &wc), 1);
        CHECK_EQ(wc.status, 0);
        CHECK_EQ(wc.byte_len, total);
        size_t at = 0;
        for (int i = 0; i < 4; i++) {
            CHECK(memcmp(src + soffs[i], remote + at, lens[i]) == 0);
            CHECK(src[soffs[i] - 1] == 0xEE && src[soffs[i] + lens[i]] == 0xEE);
            at += lens[i];
        }
        return;
    }
    size_t at = 0;
    for (int i = 0; i < 4; i++) {
        CHECK(memcmp(dst + doffs[i], src + soffs[i], lens[i]) == 0);
        CHECK(dst[doffs[i] - 1] == 0xEE && dst[doffs[i] + lens[i]] == 0xEE);
        at += lens[i];
    }
    (void)at;
}

int main(void) {
    pair_open(&P);
    src = aligned_alloc(4096, CAP);
    dst = aligned_alloc(4096, CAP);
    /* src is registered on rnic0 and dst on rnic1; both live in this process. */
    CHECK_EQ(rnic_mr_reg(P.dev[0], src, CAP, P.pz[0], ALL_ACCESS, &msrc), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], dst, CAP, P.pz[1], ALL_ACCESS, &mdst), RNIC_OK);

    const size_t sizes[] = {1, 7, 8, 9, 4095, 4096, 4097, 65536, 1u << 20};
    const uint8_t ops[] = {RNIC_OP_SEND, RNIC_OP_RDMA_WRITE};
    for (size_t o = 0; o < 2; o++)
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
            one(ops[o], sizes[i], 3, GUARD + (i % 8));
    multi_sge(RNIC_OP_SEND);
    multi_sge(RNIC_OP_RDMA_READ);

    /* READ: side 0 reads side 1's memory. Swap the MRs' roles with a second pair of registrations. */
    rnic_mr *rsrc, *rdst;
    uint8_t *rbuf = aligned_alloc(4096, CAP), *lbuf = aligned_alloc(4096, CAP);
    CHECK_EQ(rnic_mr_reg(P.dev[1], rbuf, CAP, P.pz[1], ALL_ACCESS, &rsrc), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[0], lbuf, CAP, P.pz[0], ALL_ACCESS, &rdst), RNIC_OK);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t n = sizes[i];
        fill_pattern(rbuf, CAP, (unsigned)n);
        memset(lbuf, 0xEE, CAP);
        struct rnic_sge s = {(uint64_t)(uintptr_t)(lbuf + GUARD), (uint32_t)n, rnic_mr_key(rdst)};
        struct rnic_send_wr wr = {.wr_id = n, .opcode = RNIC_OP_RDMA_READ, .flags = RNIC_WQE_FLAG_SIGNALED,
                                  .num_sge = 1, .sg = &s, .remote_addr = (uint64_t)(uintptr_t)(rbuf + 5),
                                  .rkey = rnic_mr_key(rsrc)};
        struct rnic_wc wc;
        CHECK_EQ(post_and_wait(&P, 0, &wr, &wc), 1);
        CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
        CHECK_EQ(wc.byte_len, n);
        CHECK(memcmp(lbuf + GUARD, rbuf + 5, n) == 0);
        CHECK(lbuf[GUARD - 1] == 0xEE && lbuf[GUARD + n] == 0xEE);
    }
    rnic_mr_dereg(rsrc);
    rnic_mr_dereg(rdst);
    rnic_mr_dereg(msrc);
    rnic_mr_dereg(mdst);
    pair_close(&P);
    free(src);
    free(dst);
    free(rbuf);
    free(lbuf);
    return rnic_test_finish("test_transfer");
}
