/* Memory windows and BIND WQEs at the driver level, bypassing libdat: the
 * hardware must enforce every window rule on its own.
 * - a bind commits a new key: the window grants with it, the old key is refused;
 * - a bind fails (BIND_FAILED, QP to ERROR, window unchanged) when its window
 *   is not a window of the QP's PZ named by its current key, or its region is
 *   not a region of that PZ, does not cover the range, or lacks the local
 *   right behind a remote one;
 * - malformed BIND WQEs are BAD_WQE; a window is no local key;
 * - a window grants nothing once its region is invalidated, even with the
 *   memory still mapped for DMA;
 * - a bind that an earlier error flushes never commits;
 * - only a BIND binds a window: a management WRITE of a bound window is refused. */
#include <stdlib.h>
#include <string.h>

#include "rnic_sim.h"
#include "rnic_test.h"

#define BUF (1u << 16)
static struct pair P;
static uint8_t *a, *b;
static rnic_mr *ma, *mb;

static uint64_t va(const uint8_t *p) { return (uint64_t)(uintptr_t)p; }

static void apply_mutant(void)
{
    const char *m = getenv("RNIC_TEST_MUTANT");
    if (m)
        for (int i = 0; i < 2; i++)
            rnic_reg_write(P.dev[i], RNIC_REG_MUTANT, (uint32_t)atoi(m));
}

/* A fresh connected QP pair (the last test may have broken it). */
static void reconnect(void)
{
    for (int s = 0; s < 2; s++) {
        struct rnic_wc wc;
        while (rnic_cq_poll(P.cq[s], &wc, 1) == 1) {
        }
        rnic_qp_destroy(P.qp[s]);
    }
    pair_reconnect(&P);
}

/* Posts a BIND on side 1 and waits for its completion; returns its status. */
/* The completion of the last bind(): a refusal says which check and key. */
static struct rnic_wc bind_wc;

static int bind(const struct rnic_bind_wr *wr)
{
    memset(&bind_wc, 0xEE, sizeof(bind_wc));
    if (rnic_post_bind(P.qp[1], wr) != RNIC_OK)
        return -1;
    if (wait_cq(&P, 1, &bind_wc) != 1)
        return -2;
    CHECK_EQ(bind_wc.opcode, RNIC_OP_BIND);
    CHECK_EQ(bind_wc.wr_id, wr->wr_id);
    return bind_wc.status;
}

static struct rnic_bind_wr bind_wr(uint32_t mw_key, uint8_t new_key, uint32_t lkey, uint64_t addr, uint32_t len,
                                   uint8_t rights)
{
    return (struct rnic_bind_wr){.wr_id = 77, .flags = RNIC_WQE_FLAG_SIGNALED, .mw_key = mw_key, .new_key = new_key,
                                 .rights = rights, .addr = addr, .len = len, .lkey = lkey};
}

/* Side 0 RDMA-writes 64 bytes of pattern `seed` to side 1 at `addr` with `rkey`. */
static int remote_write(uint32_t rkey, uint64_t addr, unsigned seed)
{
    fill_pattern(a, 64, seed);
    struct rnic_sge s = {va(a), 64, rnic_mr_key(ma)};
    struct rnic_send_wr w = {.wr_id = seed, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                             .num_sge = 1, .sg = &s, .remote_addr = addr, .rkey = rkey};
    struct rnic_wc wc;
    if (post_and_wait(&P, 0, &w, &wc) != 1)
        return -1;
    return wc.status;
}

static uint32_t next_key(uint32_t k) { return (k & ~0xFFu) | ((k + 1u) & 0xFFu); }

static void commit_and_old_key(void)
{
    rnic_mw *mw;
    CHECK_EQ(rnic_mw_alloc(P.dev[1], P.pz[1], &mw), RNIC_OK);
    uint32_t k0 = rnic_mw_key(mw), k1 = next_key(k0), k2 = next_key(k1);
    /* Unbound: refused. */
    CHECK_EQ(remote_write(k0, va(b), 1), RNIC_CQE_STATUS_REMOTE_ACCESS);
    reconnect();
    struct rnic_bind_wr w = bind_wr(k0, (uint8_t)k1, rnic_mr_key(mb), va(b) + 256, 1024,
                                    RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ);
    CHECK_EQ(bind(&w), RNIC_CQE_STATUS_SUCCESS);
    struct rnic_mw_state st;
    CHECK_EQ(rnic_mw_query(mw, &st), RNIC_OK);
    CHECK_EQ(st.key, k1);
    CHECK(st.bound);
    CHECK_EQ(st.lkey, rnic_mr_key(mb));
    CHECK_EQ(st.base, va(b) + 256);
    CHECK_EQ(st.len, 1024);
    CHECK_EQ(remote_write(k1, va(b) + 256, 2), RNIC_CQE_STATUS_SUCCESS);
    CHECK(memcmp(a, b + 256, 64) == 0);
    /* Outside the window (but inside the region): refused. */
    CHECK_EQ(remote_write(k1, va(b) + 256 + 1024 - 32, 3), RNIC_CQE_STATUS_REMOTE_ACCESS);
    reconnect();
    /* Rebind: the old key is refused, the new one works. */
    w = bind_wr(k1, (uint8_t)k2, rnic_mr_key(mb), va(b) + 4096, 1024, RNIC_ACCESS_REMOTE_WRITE);
    CHECK_EQ(bind(&w), RNIC_CQE_STATUS_SUCCESS);
    uint8_t keep[64];
    memcpy(keep, b + 4096, 64);
    CHECK_EQ(remote_write(k1, va(b) + 4096, 4), RNIC_CQE_STATUS_REMOTE_ACCESS);
    CHECK(memcmp(keep, b + 4096, 64) == 0);
    reconnect();
    CHECK_EQ(remote_write(k2, va(b) + 4096, 5), RNIC_CQE_STATUS_SUCCESS);
    CHECK(memcmp(a, b + 4096, 64) == 0);
    CHECK_EQ(rnic_mw_free(mw), RNIC_OK);
    CHECK_EQ(remote_write(k2, va(b) + 4096, 6), RNIC_CQE_STATUS_REMOTE_ACCESS);
    reconnect();
}

/* Each bind that must fail: BIND_FAILED, the QP in ERROR, the window as it was. */
static void failing_binds(void)
{
    rnic_mw *mw;
    CHECK_EQ(rnic_mw_alloc(P.dev[1], P.pz[1], &mw), RNIC_OK);
    const uint32_t k0 = rnic_mw_key(mw);
    /* Regions: of another PZ; read-only; a window used as a region. */
    uint16_t pz2;
    CHECK_EQ(rnic_pz_alloc(P.dev[1], &pz2), RNIC_OK);
    rnic_mr *other_pz, *ro;
    uint8_t *c = aligned_alloc(4096, BUF), *d = aligned_alloc(4096, BUF);
    CHECK_EQ(rnic_mr_reg(P.dev[1], c, BUF, pz2, ALL_ACCESS, &other_pz), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], d, BUF, P.pz[1], RNIC_ACCESS_LOCAL_READ, &ro), RNIC_OK);
    rnic_mw *win2, *foreign;
    CHECK_EQ(rnic_mw_alloc(P.dev[1], P.pz[1], &win2), RNIC_OK);
    CHECK_EQ(rnic_mw_alloc(P.dev[1], pz2, &foreign), RNIC_OK);
    const uint32_t lk = rnic_mr_key(mb);
    const uint8_t rw = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ;
    /* Each case's completion names the check that refused and its key:
     * the window's checks come first, then the region's. */
    struct {
        const char *what;
        struct rnic_bind_wr wr;
        uint8_t verdict;
        uint32_t key;
    } cases[] = {
        {"stale window key", bind_wr(next_key(next_key(k0)), (uint8_t)(k0 + 9), lk, va(b), 64, rw),
         RNIC_PT_VERDICT_KEY, next_key(next_key(k0))},
        {"window of another PZ", bind_wr(rnic_mw_key(foreign), (uint8_t)(rnic_mw_key(foreign) + 1), lk, va(b), 64, rw),
         RNIC_PT_VERDICT_PZ, rnic_mw_key(foreign)},
        {"a region named as the window", bind_wr(lk, (uint8_t)(lk + 1), lk, va(b), 64, rw), RNIC_PT_VERDICT_TYPE, lk},
        {"region of another PZ", bind_wr(k0, (uint8_t)(k0 + 1), rnic_mr_key(other_pz), va(c), 64, rw),
         RNIC_PT_VERDICT_PZ, rnic_mr_key(other_pz)},
        {"range past the region", bind_wr(k0, (uint8_t)(k0 + 1), lk, va(b) + BUF - 32, 64, rw), RNIC_PT_VERDICT_BOUNDS,
         lk},
        {"range before the region", bind_wr(k0, (uint8_t)(k0 + 1), lk, va(b) - 8, 64, rw), RNIC_PT_VERDICT_BOUNDS, lk},
        {"remote write on a read-only region", bind_wr(k0, (uint8_t)(k0 + 1), rnic_mr_key(ro), va(d), 64,
                                                       RNIC_ACCESS_REMOTE_WRITE),
         RNIC_PT_VERDICT_RIGHTS, rnic_mr_key(ro)},
        {"wrong region key", bind_wr(k0, (uint8_t)(k0 + 1), lk ^ 0x80u, va(b), 64, rw), RNIC_PT_VERDICT_KEY,
         lk ^ 0x80u},
        /* STATE, not TYPE: the unbound window is not valid, and that check comes first. */
        {"a window as the region", bind_wr(k0, (uint8_t)(k0 + 1), rnic_mw_key(win2), va(b), 64, rw),
         RNIC_PT_VERDICT_STATE, rnic_mw_key(win2)},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int s = bind(&cases[i].wr);
        if (s != RNIC_CQE_STATUS_BIND_FAILED || bind_wc.verdict != cases[i].verdict || bind_wc.check_key != cases[i].key)
            fprintf(stderr, "bind with %s: status %d verdict %u key 0x%08x\n", cases[i].what, s,
                    (unsigned)bind_wc.verdict, (unsigned)bind_wc.check_key);
        CHECK_EQ(s, RNIC_CQE_STATUS_BIND_FAILED);
        CHECK_EQ(bind_wc.verdict, cases[i].verdict);
        CHECK_EQ(bind_wc.check_key, cases[i].key);
        CHECK_EQ(rnic_qp_state(P.qp[1]), RNIC_QP_STATE_ERROR);
        struct rnic_mw_state st;
        CHECK_EQ(rnic_mw_query(mw, &st), RNIC_OK);
        CHECK_EQ(st.key, k0);
        CHECK(!st.bound);
        reconnect();
    }
    /* The read-only region does back remote read. */
    struct rnic_bind_wr ok = bind_wr(k0, (uint8_t)(k0 + 1), rnic_mr_key(ro), va(d), 64, RNIC_ACCESS_REMOTE_READ);
    CHECK_EQ(bind(&ok), RNIC_CQE_STATUS_SUCCESS);
    rnic_mw_free(mw);
    rnic_mw_free(win2);
    rnic_mw_free(foreign);
    rnic_mr_dereg(other_pz);
    rnic_mr_dereg(ro);
    rnic_pz_free(P.dev[1], pz2);
    free(c);
    free(d);
}

/* Malformed BIND WQEs and a window used as a local key. */
static void bad_wqes(void)
{
    rnic_mw *mw;
    CHECK_EQ(rnic_mw_alloc(P.dev[1], P.pz[1], &mw), RNIC_OK);
    const uint32_t k0 = rnic_mw_key(mw);
    struct rnic_bind_wr same = bind_wr(k0, (uint8_t)k0, rnic_mr_key(mb), va(b), 64, RNIC_ACCESS_REMOTE_WRITE);
    CHECK_EQ(rnic_post_bind(P.qp[1], &same), RNIC_E_INVAL);   /* the driver refuses what the NIC would */
    struct rnic_bind_wr local = bind_wr(k0, (uint8_t)(k0 + 1), rnic_mr_key(mb), va(b), 64, RNIC_ACCESS_LOCAL_WRITE);
    CHECK_EQ(rnic_post_bind(P.qp[1], &local), RNIC_E_INVAL);
    /* The same WQEs written raw: BAD_WQE from the hardware. */
    const uint64_t raw_cases[][3] = {
        /* {BIND_KEY, BIND_RIGHTS, NUM_SGE} */
        {k0 & 0xFFu, RNIC_ACCESS_REMOTE_WRITE, 1},
        {(k0 + 1) & 0xFFu, RNIC_ACCESS_LOCAL_WRITE, 1},
        {(k0 + 1) & 0xFFu, RNIC_ACCESS_REMOTE_WRITE, 2},
        {(k0 + 1) & 0xFFu, RNIC_ACCESS_REMOTE_WRITE, 0},
    };
    for (size_t i = 0; i < sizeof(raw_cases) / sizeof(raw_cases[0]); i++) {
        uint64_t w[RNIC_WQE_BYTES / 8] = {0};
        RNIC_SET(w, WQE, OPCODE, RNIC_OP_BIND);
        RNIC_SET(w, WQE, FLAGS, RNIC_WQE_FLAG_SIGNALED);
        RNIC_SET(w, WQE, NUM_SGE, raw_cases[i][2]);
        RNIC_SET(w, WQE, BIND_KEY, raw_cases[i][0]);
        RNIC_SET(w, WQE, BIND_RIGHTS, raw_cases[i][1]);
        RNIC_SET(w, WQE, RKEY, k0);
        RNIC_SET(w, WQE, TOTAL_LEN, raw_cases[i][2] ? 64u : 0u);
        RNIC_SET(w, WQE, WR_ID, 500 + i);
        w[4] = va(b);
        w[5] = 64u | (uint64_t)rnic_mr_key(mb) << 32;
        if (raw_cases[i][2] == 2) {
            w[6] = va(b);
            w[7] = 0u | (uint64_t)rnic_mr_key(mb) << 32;
        }
        CHECK_EQ(rnic_post_send_raw(P.qp[1], w), RNIC_OK);
        struct rnic_wc wc;
        CHECK_EQ(wait_cq(&P, 1, &wc), 1);
        CHECK_EQ(wc.status, RNIC_CQE_STATUS_BAD_WQE);
        reconnect();
    }
    /* A window is no local key, even bound. */
    struct rnic_bind_wr w = bind_wr(k0, (uint8_t)(k0 + 1), rnic_mr_key(mb), va(b), 4096,
                                    RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ);
    CHECK_EQ(bind(&w), RNIC_CQE_STATUS_SUCCESS);
    struct rnic_sge s = {va(b), 64, next_key(k0)};
    struct rnic_send_wr sw = {.wr_id = 9, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                              .num_sge = 1, .sg = &s, .remote_addr = va(a), .rkey = rnic_mr_key(ma)};
    struct rnic_wc wc;
    CHECK_EQ(post_and_wait(&P, 1, &sw, &wc), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_LOCAL_PROTECTION);
    reconnect();
    rnic_mw_free(mw);
}

/* A window grants nothing once its region is gone, even though the memory
 * is still mapped for DMA (through a second region over it). */
static void region_gone(void)
{
    uint8_t *c = aligned_alloc(4096, BUF);
    memset(c, 0x3C, BUF);
    rnic_mr *r1, *r2;
    CHECK_EQ(rnic_mr_reg(P.dev[1], c, BUF, P.pz[1], ALL_ACCESS, &r1), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], c, BUF, P.pz[1], RNIC_ACCESS_LOCAL_READ, &r2), RNIC_OK);
    rnic_mw *mw;
    CHECK_EQ(rnic_mw_alloc(P.dev[1], P.pz[1], &mw), RNIC_OK);
    const uint32_t k0 = rnic_mw_key(mw), k1 = next_key(k0);
    struct rnic_bind_wr w = bind_wr(k0, (uint8_t)k1, rnic_mr_key(r1), va(c), 4096, RNIC_ACCESS_REMOTE_WRITE);
    CHECK_EQ(bind(&w), RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(remote_write(k1, va(c), 11), RNIC_CQE_STATUS_SUCCESS);
    CHECK(memcmp(a, c, 64) == 0);
    CHECK_EQ(rnic_mr_dereg(r1), RNIC_OK);   /* what libdat refuses; the hardware must cope */
    memset(c, 0x3C, 64);
    CHECK_EQ(remote_write(k1, va(c), 12), RNIC_CQE_STATUS_REMOTE_ACCESS);
    uint8_t want[64];
    memset(want, 0x3C, sizeof(want));
    CHECK(memcmp(want, c, 64) == 0);
    reconnect();
    rnic_mw_free(mw);
    rnic_mr_dereg(r2);
    free(c);
}

/* A bind behind a WQE that fails is flushed and never commits. */
static void flushed_bind(void)
{
    rnic_mw *mw;
    CHECK_EQ(rnic_mw_alloc(P.dev[1], P.pz[1], &mw), RNIC_OK);
    const uint32_t k0 = rnic_mw_key(mw);
    /* A WRITE with a bad rkey (refused by the peer), then the bind. */
    struct rnic_sge s = {va(b), 64, rnic_mr_key(mb)};
    struct rnic_send_wr bad = {.wr_id = 1, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                               .num_sge = 1, .sg = &s, .remote_addr = va(a), .rkey = 0xFFFF00u};
    CHECK_EQ(rnic_post_send(P.qp[1], &bad), RNIC_OK);
    struct rnic_bind_wr w = bind_wr(k0, (uint8_t)(k0 + 1), rnic_mr_key(mb), va(b), 64, RNIC_ACCESS_REMOTE_WRITE);
    CHECK_EQ(rnic_post_bind(P.qp[1], &w), RNIC_OK);
    struct rnic_wc wc;
    CHECK_EQ(wait_cq(&P, 1, &wc), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_REMOTE_ACCESS);
    CHECK_EQ(wait_cq(&P, 1, &wc), 1);
    CHECK_EQ(wc.opcode, RNIC_OP_BIND);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_FLUSHED);
    struct rnic_mw_state st;
    CHECK_EQ(rnic_mw_query(mw, &st), RNIC_OK);
    CHECK_EQ(st.key, k0);
    CHECK(!st.bound);
    reconnect();
    rnic_mw_free(mw);
}

/* Only a BIND binds: a management WRITE of a bound window is refused. */
static void mgmt_cannot_bind(void)
{
    rnic_dev *d = P.dev[1];
    rnic_dev_status(d, NULL, true);
    const uint32_t idx = 1000;
    rnic_reg_write(d, RNIC_REG_PT_INDEX, idx);
    rnic_reg_write(d, RNIC_REG_PT_KEY_PZ, 5u | (uint32_t)P.pz[1] << RNIC_PT_KEY_PZ_PZ_SHIFT);
    rnic_reg_write(d, RNIC_REG_PT_BASE_LO, (uint32_t)va(b));
    rnic_reg_write(d, RNIC_REG_PT_BASE_HI, (uint32_t)(va(b) >> 32));
    rnic_reg_write(d, RNIC_REG_PT_LEN_LO, 4096);
    rnic_reg_write(d, RNIC_REG_PT_LEN_HI, 0);
    rnic_reg_write(d, RNIC_REG_PT_LINK, rnic_mr_key(mb));
    rnic_reg_write(d, RNIC_REG_PT_FLAGS, RNIC_ACCESS_REMOTE_WRITE | RNIC_PT_TYPE_MW << RNIC_PT_FLAGS_TYPE_SHIFT |
                                             RNIC_PT_STATE_VALID << RNIC_PT_FLAGS_STATE_SHIFT);
    rnic_reg_write(d, RNIC_REG_PT_CMD, RNIC_PT_CMD_WRITE);
    rnic_wait(d, 10);
    CHECK(rnic_dev_status(d, NULL, true) & RNIC_STATUS_BAD_CONFIG_MASK);
    CHECK_EQ(remote_write(idx << 8 | 5u, va(b), 13), RNIC_CQE_STATUS_REMOTE_ACCESS);
    reconnect();
}

/* Nothing but the bind's own QP waits: while a bind is held behind a 64 KiB
 * READ on one QP, a WRITE on another QP of the same NIC starts. */
static struct rnic_sim_event held_ev[4096];
static int n_held_ev;
static void record(const struct rnic_sim_event *e, void *arg)
{
    (void)arg;
    if (n_held_ev < 4096)
        held_ev[n_held_ev++] = *e;
}

static void other_qps_flow(void)
{
    rnic_qp *x[2];
    for (int s = 0; s < 2; s++) {
        struct rnic_qp_attr at = {64, 64, P.cq[s], P.cq[s], P.pz[s], 1,
                                  RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE, NULL};
        CHECK_EQ(rnic_qp_create(P.dev[s], &at, &x[s]), RNIC_OK);
    }
    CHECK_EQ(rnic_qp_connect_local(x[0], x[1]), RNIC_OK);
    rnic_mw *mw;
    CHECK_EQ(rnic_mw_alloc(P.dev[1], P.pz[1], &mw), RNIC_OK);
    const uint32_t k0 = rnic_mw_key(mw);
    n_held_ev = 0;
    rnic_sim_set_event_hook(record, NULL);
    struct rnic_sge rs = {va(b), BUF, rnic_mr_key(mb)};
    struct rnic_send_wr rd = {.wr_id = 60, .opcode = RNIC_OP_RDMA_READ, .flags = RNIC_WQE_FLAG_SIGNALED,
                              .num_sge = 1, .sg = &rs, .remote_addr = va(a), .rkey = rnic_mr_key(ma)};
    CHECK_EQ(rnic_post_send(P.qp[1], &rd), RNIC_OK);
    struct rnic_bind_wr w = bind_wr(k0, (uint8_t)(k0 + 1), rnic_mr_key(mb), va(b), 64, RNIC_ACCESS_REMOTE_WRITE);
    CHECK_EQ(rnic_post_bind(P.qp[1], &w), RNIC_OK);
    struct rnic_sge ws = {va(b) + 128, 64, rnic_mr_key(mb)};
    struct rnic_send_wr wr = {.wr_id = 61, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                              .num_sge = 1, .sg = &ws, .remote_addr = va(a) + 128, .rkey = rnic_mr_key(ma)};
    CHECK_EQ(rnic_post_send(x[1], &wr), RNIC_OK);
    struct rnic_wc wc[3];
    for (int i = 0; i < 3; i++)
        CHECK_EQ(wait_cq(&P, 1, &wc[i]), 1);
    rnic_sim_set_event_hook(NULL, NULL);
    /* All three complete, the bind last (it commits after the READ); the
     * other QP's WRITE started long before (its ACK may queue behind the
     * peer's READ responses: one engine serves both). */
    CHECK_EQ(wc[0].status + wc[1].status + wc[2].status, 0);
    CHECK_EQ(wc[2].wr_id, 77);
    CHECK(wc[0].wr_id + wc[1].wr_id == 60 + 61);
    uint64_t commit = 0, other_pkt = 0;
    for (int i = 0; i < n_held_ev; i++) {
        if (held_ev[i].nic == 1 && held_ev[i].event == RNIC_EV_BIND_COMMIT)
            commit = held_ev[i].cycle;
        if (held_ev[i].nic == 1 && held_ev[i].event == RNIC_EV_PKT_FIRST && held_ev[i].qpn == rnic_qp_num(x[1]))
            other_pkt = held_ev[i].cycle;
    }
    CHECK(commit != 0 && other_pkt != 0 && other_pkt < commit);
    printf("another QP's WRITE leaves %lld cycles before the held bind commits\n",
           (long long)commit - (long long)other_pkt);
    rnic_qp_destroy(x[0]);
    rnic_qp_destroy(x[1]);
    rnic_mw_free(mw);
}

int main(void)
{
    pair_open(&P);
    apply_mutant();
    a = aligned_alloc(4096, BUF);
    b = aligned_alloc(4096, BUF);
    memset(a, 0, BUF);
    memset(b, 0, BUF);
    CHECK_EQ(rnic_mr_reg(P.dev[0], a, BUF, P.pz[0], ALL_ACCESS, &ma), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], b, BUF, P.pz[1], ALL_ACCESS, &mb), RNIC_OK);
    commit_and_old_key();
    failing_binds();
    bad_wqes();
    region_gone();
    flushed_bind();
    mgmt_cannot_bind();
    other_qps_flow();
    return rnic_test_finish("test_bind");
}
