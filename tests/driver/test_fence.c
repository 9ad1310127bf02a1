/* Pipelining and the barrier fence, checked on the per-cycle event record:
 * - WQEs of one QP overlap: eight small WRITEs posted together finish in a
 *   fraction of eight round trips, completing in order;
 * - an unfenced WRITE behind a large RDMA READ starts before the READ has
 *   completed (nothing waits without a reason);
 * - a WRITE with the fence flag behind the same READ starts only after the
 *   READ's completion, and the engine records that it held it. */
#include <stdlib.h>
#include <string.h>

#include "rnic_sim.h"
#include "rnic_test.h"

#define MAX_EV 4096
static struct rnic_sim_event ev[MAX_EV];
static int nev;
static struct pair P;
static uint8_t *a, *b;
static rnic_mr *ma, *mb;

static void record(const struct rnic_sim_event *e, void *arg) {
    (void)arg;
    if (nev < MAX_EV)
        ev[nev++] = *e;
}

/* Cycle of the first event `kind` on rnic0 whose WQE index (low 16 bits of arg) is `idx`; 0 if none. */
static uint64_t when(unsigned kind, uint32_t idx) {
    for (int i = 0; i < nev; i++)
        if (ev[i].nic == 0 && ev[i].event == kind && (ev[i].arg & 0xFFFFu) == idx)
            return ev[i].cycle;
    return 0;
}

static struct rnic_send_wr wr(uint8_t op, uint8_t flags, uint32_t len, uint64_t id, struct rnic_sge *s, size_t off) {
    *s = (struct rnic_sge){(uint64_t)(uintptr_t)(a + off), len, rnic_mr_key(ma)};
    return (struct rnic_send_wr){.wr_id = id, .opcode = op, .flags = (uint8_t)(RNIC_WQE_FLAG_SIGNALED | flags),
                                 .num_sge = 1, .sg = s, .remote_addr = (uint64_t)(uintptr_t)(b + off),
                                 .rkey = rnic_mr_key(mb)};
}

/* A 64 KiB READ then an 8-byte WRITE (fenced or not); returns the WRITE's
 * first-packet cycle minus the READ's completion cycle. */
static long long read_then_write(bool fenced, bool *held) {
    struct rnic_sge s1, s2;
    struct rnic_send_wr r = wr(RNIC_OP_RDMA_READ, 0, 65536, 100, &s1, 0);
    struct rnic_send_wr w = wr(RNIC_OP_RDMA_WRITE, fenced ? RNIC_WQE_FLAG_FENCE : 0, 8, 101, &s2, 70000);
    nev = 0;
    CHECK_EQ(rnic_post_send(P.qp[0], &r), RNIC_OK);
    CHECK_EQ(rnic_post_send(P.qp[0], &w), RNIC_OK);
    struct rnic_wc wc;
    CHECK_EQ(wait_cq(&P, 0, &wc), 1);
    CHECK_EQ(wc.wr_id, 100);
    CHECK_EQ(wc.status, 0);
    CHECK_EQ(wait_cq(&P, 0, &wc), 1);
    CHECK_EQ(wc.wr_id, 101);
    CHECK_EQ(wc.status, 0);
    /* The WRITE is the last WQE fetched (a held WQE is fetched again when it
     * is released); the READ is the one before it. */
    uint32_t widx = 0;
    for (int i = 0; i < nev; i++)
        if (ev[i].nic == 0 && ev[i].event == RNIC_EV_WQE_FETCHED)
            widx = (uint32_t)(ev[i].arg & 0xFFFFu);
    uint32_t rdx = (widx - 1u) & 0xFFFFu;
    uint64_t read_done = when(RNIC_EV_CQE_WRITTEN, rdx);
    uint64_t write_start = when(RNIC_EV_PKT_FIRST, widx);
    *held = when(RNIC_EV_FENCE_HOLD, widx) != 0;
    CHECK(read_done != 0 && write_start != 0);
    return (long long)write_start - (long long)read_done;
}

int main(void) {
    pair_open(&P);
    const char *mutant = getenv("RNIC_TEST_MUTANT");
    if (mutant)
        for (int i = 0; i < 2; i++)
            rnic_reg_write(P.dev[i], RNIC_REG_MUTANT, (uint32_t)atoi(mutant));
    a = aligned_alloc(4096, 1 << 17);
    b = aligned_alloc(4096, 1 << 17);
    fill_pattern(a, 1 << 17, 21);
    fill_pattern(b, 1 << 17, 22);
    CHECK_EQ(rnic_mr_reg(P.dev[0], a, 1 << 17, P.pz[0], ALL_ACCESS, &ma), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], b, 1 << 17, P.pz[1], ALL_ACCESS, &mb), RNIC_OK);
    rnic_sim_set_event_hook(record, NULL);

    /* One 8-byte WRITE alone, then eight together. */
    struct rnic_sge s[8];
    struct rnic_send_wr w;
    struct rnic_wc wc;
    uint64_t t0 = rnic_sim_cycle();
    w = wr(RNIC_OP_RDMA_WRITE, 0, 8, 1, &s[0], 0);
    CHECK_EQ(post_and_wait(&P, 0, &w, &wc), 1);
    uint64_t one = rnic_sim_cycle() - t0;
    t0 = rnic_sim_cycle();
    for (int i = 0; i < 8; i++) {
        w = wr(RNIC_OP_RDMA_WRITE, 0, 8, 10 + (uint64_t)i, &s[i], 64 * (size_t)i);
        CHECK_EQ(rnic_post_send(P.qp[0], &w), RNIC_OK);
    }
    for (int i = 0; i < 8; i++) {
        CHECK_EQ(wait_cq(&P, 0, &wc), 1);
        CHECK_EQ(wc.wr_id, 10 + (uint64_t)i);   /* in order */
        CHECK_EQ(wc.status, 0);
    }
    uint64_t eight = rnic_sim_cycle() - t0;
    printf("one 8-byte WRITE: %llu cycles; eight posted together: %llu cycles\n", (unsigned long long)one,
           (unsigned long long)eight);
    CHECK(eight < 3 * one);
    for (int i = 0; i < 8; i++)
        CHECK(memcmp(a + 64 * i, b + 64 * i, 8) == 0);

    bool held;
    long long d = read_then_write(false, &held);
    printf("unfenced WRITE starts %lld cycles after the READ completes\n", d);
    CHECK(d < 0);      /* it overtook the READ's completion */
    CHECK(!held);
    d = read_then_write(true, &held);
    printf("fenced WRITE starts %lld cycles after the READ completes\n", d);
    CHECK(d > 0);      /* it waited for the READ */
    CHECK(held);
    CHECK(memcmp(a, b, 65536) == 0);   /* the READ brought b's bytes into a */

    rnic_sim_set_event_hook(NULL, NULL);
    return rnic_test_finish("test_fence");
}
