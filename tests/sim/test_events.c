/* Trace-level checks: the order of what each NIC did, cycle by cycle, as
 * recorded from the RTL's trace port. A WRITE: the requester fetches the
 * WQE, sends, the responder checks the rkey (OK) a link latency later, then
 * the requester writes the CQE. A WRITE with a bad key: the responder's
 * verdict is KEY, it NAKs, both QPs go to ERROR and the requester's CQE says
 * REMOTE_ACCESS, and no CQE is written before the verdict. */
#include <stdlib.h>
#include <string.h>

#include "rnic_sim.h"
#include "rnic_test.h"

#define MAX_EV 256
static struct rnic_sim_event ev[MAX_EV];
static int nev;

static void record(const struct rnic_sim_event *e, void *arg) {
    (void)arg;
    if (nev < MAX_EV)
        ev[nev++] = *e;
}

/* Index of the first event of `kind` on `nic` at or after `from`, or -1. */
static int find(int from, unsigned nic, unsigned kind) {
    for (int i = from < 0 ? 0 : from; i < nev; i++)
        if (ev[i].nic == nic && ev[i].event == kind)
            return i;
    return -1;
}

int main(void) {
    struct pair P;
    pair_open(&P);
    uint8_t *a = aligned_alloc(4096, 4096), *b = aligned_alloc(4096, 4096);
    fill_pattern(a, 4096, 8);
    memset(b, 0, 4096);
    rnic_mr *ma, *mb;
    CHECK_EQ(rnic_mr_reg(P.dev[0], a, 4096, P.pz[0], ALL_ACCESS, &ma), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], b, 4096, P.pz[1], ALL_ACCESS, &mb), RNIC_OK);
    struct rnic_sge s = {(uint64_t)(uintptr_t)a, 512, rnic_mr_key(ma)};
    struct rnic_send_wr w = {.wr_id = 1, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1,
                             .sg = &s, .remote_addr = (uint64_t)(uintptr_t)b, .rkey = rnic_mr_key(mb)};
    struct rnic_wc wc;

    rnic_sim_set_event_hook(record, NULL);
    CHECK_EQ(post_and_wait(&P, 0, &w, &wc), 1);
    CHECK_EQ(wc.status, 0);
    int f = find(0, 0, RNIC_EV_WQE_FETCHED);
    int p = find(f, 0, RNIC_EV_PKT_FIRST);
    int k = find(p, 1, RNIC_EV_RKEY_CHECK);
    int c = find(k, 0, RNIC_EV_CQE_WRITTEN);
    CHECK(f >= 0 && p > f && k > p && c > k);
    if (c > 0) {
        CHECK_EQ(ev[k].arg & 7u, RNIC_PT_VERDICT_OK);
        CHECK_EQ(ev[k].arg >> 32, rnic_mr_key(mb));
        /* The frame needs its serialization (512 B = 64+ cycles) plus the link latency. */
        CHECK(ev[k].cycle - ev[p].cycle >= 100 + 64);
        CHECK_EQ((ev[c].arg >> 32) & 0xFF, RNIC_CQE_STATUS_SUCCESS);
        CHECK_EQ(find(0, 1, RNIC_EV_NAK_SENT), -1);
    }

    nev = 0;
    w.rkey ^= 0x10;
    CHECK_EQ(post_and_wait(&P, 0, &w, &wc), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_REMOTE_ACCESS);
    k = find(0, 1, RNIC_EV_RKEY_CHECK);
    int n = find(k, 1, RNIC_EV_NAK_SENT);
    int e1 = find(n, 1, RNIC_EV_QP_ERROR);
    c = find(0, 0, RNIC_EV_CQE_WRITTEN);
    int e0 = find(c, 0, RNIC_EV_QP_ERROR);
    CHECK(k >= 0 && n > k && e1 > n && c > k && e0 > c);
    if (e0 > 0) {
        CHECK_EQ(ev[k].arg & 7u, RNIC_PT_VERDICT_KEY);
        CHECK_EQ(ev[n].arg & 0xFF, 0x62);   /* NAK: remote access error */
        CHECK_EQ((ev[c].arg >> 32) & 0xFF, RNIC_CQE_STATUS_REMOTE_ACCESS);
        CHECK_EQ(find(0, 1, RNIC_EV_CQE_WRITTEN), -1);   /* the responder completed nothing */
    }
    for (int i = 0; i < 4096; i++)
        if (b[i] != (i < 512 ? a[i] : 0)) {
            CHECK(!"responder memory differs from the first WRITE's result");
            break;
        }
    rnic_sim_set_event_hook(NULL, NULL);
    free(a);
    free(b);
    return rnic_test_finish("test_events");
}
