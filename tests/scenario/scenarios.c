/*
 * Bind-fencing scenarios, checked cycle by cycle. Each runs a DAT program on
 * the two simulated NICs (side 1, rnic1, owns the memory and its windows;
 * side 0, rnic0, is the remote peer), records every event of both NICs with
 * its cycle, and checks what happened and in which order.
 *
 *   scenarios NAME...   bind_send old_context race barrier unbind free_inflight, or all
 *   scenarios bench     figures: cycles from a bind's doorbell to its commit and
 *                       completion, and what a SEND behind a bind waits
 *
 * RNIC_TEST_MUTANT=n switches rule n off in a mutant build (tests/mutants);
 * RNIC_SCENARIO_DIR=dir writes each scenario's record to dir/NAME.csv.
 */
#include <stdlib.h>
#include <string.h>

#include "dat_test.h"
#include "record.h"
#include "rnic_hw.h"

#define OWNER 1
#define PEER 0
#define WIN_OFF 4096u
#define WIN_LEN 8192u
#define RW (DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

/* Arg fields of the trace events (rnic.toml, enum EV). */
#define IDX(e) ((uint32_t)((e)->arg & 0xFFFFu))
#define KIND(e) ((unsigned)(((e)->arg >> 16) & 0x3u))
#define RKEY(e) ((uint32_t)((e)->arg >> 32))
#define VERDICT(e) ((unsigned)((e)->arg & 0x7u))
#define CQE_STATUS(e) ((unsigned)(((e)->arg >> 32) & 0xFFu))

static void apply_mutant(void)
{
    const char *m = getenv("RNIC_TEST_MUTANT");
    if (!m)
        return;
    for (unsigned i = 0; i < 2; i++) {
        char name[16];
        rnic_sim_dev *d;
        snprintf(name, sizeof(name), "rnic%u", i);
        if (rnic_sim_open(name, &d) == 0)
            rnic_sim_bar_write32(d, RNIC_REG_MUTANT, (uint32_t)atoi(m));
    }
}

static void open_pair(struct dt_pair *p)
{
    dt_pair_open(p, NULL, NULL);
    apply_mutant();
    dt_pair_connect(p);
}

/* The owner's QP: the one its first send doorbell rang after rec_start. */
static int owner_qp(void)
{
    size_t i = rec_find(0, OWNER, RNIC_EV_DOORBELL, REC_ANY, 0x30000u, 0);
    return i == REC_NONE ? -1 : rec_at(i)->qpn;
}

/* The owner starts a READ of `len` bytes from the peer: a WQE that stays in
 * flight for a while (a 32 KiB READ takes ~4,600 cycles). */
static void owner_read(struct dt_pair *p, size_t off, size_t len, uint64_t cookie)
{
    DAT_LMR_TRIPLET l = dt_iov(&p->s[OWNER], off, len);
    DAT_RMR_TRIPLET r = dt_remote(&p->s[PEER], 0, len);
    CHECK_OK(dat_ep_post_rdma_read(p->s[OWNER].ep, 1, &l, dt_cookie(cookie), &r, DAT_COMPLETION_DEFAULT_FLAG));
}

/* ------------------------------------------------------------------------
 * A bind behind an outstanding READ, then a SEND of the new context on the
 * same EP at once; the peer uses the context the moment it arrives. It must
 * work, and the record must show: the bind held its QP (FENCE_HOLD kind 1),
 * committed only after the READ completed, nothing of the QP was fetched or
 * sent between hold and commit, the SEND's first packet after the commit,
 * and the peer's access checked after the commit and granted. */
static void bind_send(void)
{
    struct dt_pair p;
    open_pair(&p);
    struct dt_side *o = &p.s[OWNER], *peer = &p.s[PEER];
    DAT_RMR_HANDLE rmr;
    CHECK_OK(dat_rmr_create(o->pz, &rmr));
    DAT_LMR_TRIPLET rx = dt_iov(peer, 32768, 64);
    CHECK_OK(dat_ep_post_recv(peer->ep, 1, &rx, dt_cookie(1), DAT_COMPLETION_DEFAULT_FLAG));
    rec_start();
    owner_read(&p, 32768, 32768, 10);
    DAT_LMR_TRIPLET t = dt_iov(o, WIN_OFF, WIN_LEN);
    DAT_RMR_CONTEXT ctx;
    CHECK_OK(dat_rmr_bind(rmr, &t, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, o->ep, dt_rcookie(11), 0, &ctx));
    memcpy(o->buf + 16384, &ctx, sizeof(ctx));
    DAT_LMR_TRIPLET msg = dt_iov(o, 16384, sizeof(ctx));
    CHECK_OK(dat_ep_post_send(o->ep, 1, &msg, dt_cookie(12), DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_EQ(dt_wait_dto(peer->recv_evd, NULL), DAT_DTO_SUCCESS);
    DAT_RMR_CONTEXT got;
    memcpy(&got, peer->buf + 32768, sizeof(got));
    CHECK_EQ(got, ctx);
    CHECK_EQ(dt_peer_write(&p, got, WIN_OFF, 4096, 13), DAT_DTO_SUCCESS);
    CHECK(memcmp(o->buf + WIN_OFF, peer->buf, 4096) == 0);
    CHECK_EQ(dt_wait_dto(o->req_evd, NULL), DAT_DTO_SUCCESS);   /* the READ */
    CHECK_EQ(dt_wait_bind(o->req_evd, DAT_HANDLE_NULL, 0), DAT_RMR_BIND_SUCCESS);
    CHECK_EQ(dt_wait_dto(o->req_evd, NULL), DAT_DTO_SUCCESS);   /* the SEND */
    rec_stop();
    rec_dump("bind_send");

    const int q = owner_qp();
    CHECK(q >= 0);
    size_t hold = rec_find(0, OWNER, RNIC_EV_FENCE_HOLD, q, 0x30000u, 0x10000u);
    size_t commit = rec_find(0, OWNER, RNIC_EV_BIND_COMMIT, q, 0xFFFFFFFF00000000ull, (uint64_t)ctx << 32);
    CHECK(hold != REC_NONE && commit != REC_NONE);
    if (hold == REC_NONE || commit == REC_NONE) {
        dt_pair_close(&p);
        return;
    }
    const uint32_t bind_idx = IDX(rec_at(hold)), read_idx = bind_idx - 1u, send_idx = bind_idx + 1u;
    CHECK_EQ(IDX(rec_at(commit)), bind_idx);
    const uint64_t t_hold = rec_cycle(hold), t_commit = rec_cycle(commit);
    size_t read_done = rec_find(0, OWNER, RNIC_EV_CQE_WRITTEN, q, 0xFFFFu, read_idx);
    CHECK(read_done != REC_NONE && rec_cycle(read_done) < t_commit);   /* committed as the oldest */
    /* The fence: nothing of the QP fetched or sent while the bind waited. */
    CHECK(!rec_any_between(OWNER, RNIC_EV_WQE_FETCHED, q, t_hold, t_commit));
    CHECK(!rec_any_between(OWNER, RNIC_EV_PKT_FIRST, q, t_hold, t_commit));
    size_t send_fetch = rec_find(0, OWNER, RNIC_EV_WQE_FETCHED, q, 0xFFFFu, send_idx);
    size_t send_pkt = rec_find(0, OWNER, RNIC_EV_PKT_FIRST, q, 0xFFFFu, send_idx);
    CHECK(send_fetch != REC_NONE && rec_cycle(send_fetch) > t_commit);
    CHECK(send_pkt != REC_NONE && rec_cycle(send_pkt) > t_commit);
    /* The peer's WRITE, checked against the window after the commit, granted. */
    size_t use = rec_find(0, OWNER, RNIC_EV_RKEY_CHECK, REC_ANY, 0xFFFFFFFF00000000ull, (uint64_t)ctx << 32);
    CHECK(use != REC_NONE && rec_cycle(use) > t_commit && VERDICT(rec_at(use)) == RNIC_PT_VERDICT_OK);
    printf("bind_send: bind held %llu cycles behind the READ; SEND's first packet %lld cycles after the commit\n",
           (unsigned long long)(t_commit - t_hold),
           send_pkt == REC_NONE ? 0 : (long long)rec_cycle(send_pkt) - (long long)t_commit);
    dt_pair_close(&p);
}

/* ------------------------------------------------------------------------
 * A rebind, then the peer uses the context the window had before: refused
 * (key) by the check after the commit, DAT_DTO_ERR_REMOTE_ACCESS at the
 * peer, the connection broken on both sides, no byte written. */
static void old_context(void)
{
    struct dt_pair p;
    open_pair(&p);
    struct dt_side *o = &p.s[OWNER];
    DAT_RMR_HANDLE rmr;
    CHECK_OK(dat_rmr_create(o->pz, &rmr));
    DAT_LMR_TRIPLET t = dt_iov(o, WIN_OFF, WIN_LEN);
    DAT_RMR_CONTEXT c1, c2;
    rec_start();
    CHECK_OK(dat_rmr_bind(rmr, &t, RW, o->ep, dt_rcookie(1), 0, &c1));
    CHECK_EQ(dt_wait_bind(o->req_evd, DAT_HANDLE_NULL, 0), DAT_RMR_BIND_SUCCESS);
    CHECK_EQ(dt_peer_write(&p, c1, WIN_OFF, 64, 3), DAT_DTO_SUCCESS);   /* it worked before */
    CHECK_OK(dat_rmr_bind(rmr, &t, RW, o->ep, dt_rcookie(2), 0, &c2));
    CHECK_EQ(dt_wait_bind(o->req_evd, DAT_HANDLE_NULL, 0), DAT_RMR_BIND_SUCCESS);
    CHECK(c1 != c2);
    uint8_t before[256];
    memcpy(before, o->buf + WIN_OFF, sizeof(before));
    CHECK_EQ(dt_peer_write(&p, c1, WIN_OFF, sizeof(before), 4), DAT_DTO_ERR_REMOTE_ACCESS);
    CHECK(memcmp(before, o->buf + WIN_OFF, sizeof(before)) == 0);
    CHECK_EQ(dt_wait_number(p.s[PEER].conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(dt_wait_number(o->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    rec_stop();
    rec_dump("old_context");
    size_t commit2 = rec_find(0, OWNER, RNIC_EV_BIND_COMMIT, REC_ANY, 0xFFFFFFFF00000000ull, (uint64_t)c2 << 32);
    CHECK(commit2 != REC_NONE);
    size_t grant = rec_find(0, OWNER, RNIC_EV_RKEY_CHECK, REC_ANY, 0xFFFFFFFF00000007ull, (uint64_t)c1 << 32);
    size_t refuse = commit2 == REC_NONE ? REC_NONE
                                       : rec_find(commit2, OWNER, RNIC_EV_RKEY_CHECK, REC_ANY, 0xFFFFFFFF00000000ull,
                                                  (uint64_t)c1 << 32);
    CHECK(grant != REC_NONE && grant < commit2);                     /* granted before the rebind */
    CHECK(refuse != REC_NONE && VERDICT(rec_at(refuse)) == RNIC_PT_VERDICT_KEY);
    CHECK(rec_find(refuse == REC_NONE ? 0 : refuse, OWNER, RNIC_EV_NAK_SENT, REC_ANY, 0xFFu, 0x62u) != REC_NONE);
    dt_pair_close(&p);
}

/* ------------------------------------------------------------------------
 * The peer uses the new context of a rebind that has not committed yet (the
 * bind waits behind a READ): a 16 KiB (four-packet) WRITE, refused at its
 * first packet, so not one byte of it lands; the connection breaks, the
 * bind is flushed without committing, and the window keeps its old context. */
static void race(void)
{
    struct dt_pair p;
    open_pair(&p);
    struct dt_side *o = &p.s[OWNER];
    DAT_RMR_HANDLE rmr;
    CHECK_OK(dat_rmr_create(o->pz, &rmr));
    DAT_LMR_TRIPLET a = dt_iov(o, 0, 16384), b = dt_iov(o, 16384, 16384);
    DAT_RMR_CONTEXT c1, c2;
    CHECK_OK(dat_rmr_bind(rmr, &a, RW, o->ep, dt_rcookie(1), 0, &c1));
    CHECK_EQ(dt_wait_bind(o->req_evd, DAT_HANDLE_NULL, 0), DAT_RMR_BIND_SUCCESS);
    memset(o->buf + 16384, 0x77, 16384);
    rec_start();
    owner_read(&p, 49152, 16384, 20);
    CHECK_OK(dat_rmr_bind(rmr, &b, RW, o->ep, dt_rcookie(2), 0, &c2));
    CHECK_EQ(dt_peer_write(&p, c2, 16384, 16384, 5), DAT_DTO_ERR_REMOTE_ACCESS);
    int intact = 1;
    for (size_t i = 0; i < 16384; i++)
        intact &= o->buf[16384 + i] == 0x77;
    CHECK(intact);
    CHECK_EQ(dt_wait_number(o->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    /* The READ and the bind complete, the bind flushed. */
    DAT_EVENT ev;
    int bind_status = -1;
    for (int i = 0; i < 2; i++) {
        if (dt_wait(o->req_evd, DT_WAIT_US, &ev) == DAT_SUCCESS && ev.event_number == DAT_RMR_BIND_COMPLETION_EVENT)
            bind_status = (int)ev.event_data.rmr_completion_event_data.status;
    }
    CHECK(bind_status != DAT_RMR_BIND_SUCCESS && bind_status != -1);
    DAT_RMR_PARAM q;
    CHECK_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
    CHECK_EQ(q.rmr_context, c1);
    CHECK_EQ(q.lmr_triplet.virtual_address, a.virtual_address);
    rec_stop();
    rec_dump("race");
    size_t refuse = rec_find(0, OWNER, RNIC_EV_RKEY_CHECK, REC_ANY, 0xFFFFFFFF00000000ull, (uint64_t)c2 << 32);
    CHECK(refuse != REC_NONE && VERDICT(rec_at(refuse)) != RNIC_PT_VERDICT_OK);
    CHECK(rec_find(0, OWNER, RNIC_EV_BIND_COMMIT, REC_ANY, 0xFFFFFFFF00000000ull, (uint64_t)c2 << 32) == REC_NONE);
    dt_pair_close(&p);
}

/* ------------------------------------------------------------------------
 * The barrier fence behind two outstanding READs: a WRITE with
 * DAT_COMPLETION_BARRIER_FENCE_FLAG starts only after both READs completed;
 * the same WRITE unfenced starts before the first READ completes. */
static uint64_t write_after_reads(struct dt_pair *p, DAT_COMPLETION_FLAGS flags, int *held)
{
    struct dt_side *o = &p->s[OWNER];
    rec_start();
    owner_read(p, 16384, 16384, 30);
    owner_read(p, 32768, 16384, 31);
    DAT_LMR_TRIPLET l = dt_iov(o, 0, 64);
    DAT_RMR_TRIPLET r = dt_remote(&p->s[PEER], 60000, 64);
    CHECK_OK(dat_ep_post_rdma_write(o->ep, 1, &l, dt_cookie(32), &r, flags));
    for (int i = 0; i < 3; i++)
        CHECK_EQ(dt_wait_dto(o->req_evd, NULL), DAT_DTO_SUCCESS);
    rec_stop();
    const int q = owner_qp();
    size_t first = rec_find(0, OWNER, RNIC_EV_WQE_FETCHED, q, 0, 0);
    uint32_t r0 = first == REC_NONE ? 0 : IDX(rec_at(first));
    size_t d0 = rec_find(0, OWNER, RNIC_EV_CQE_WRITTEN, q, 0xFFFFu, r0);
    size_t d1 = rec_find(0, OWNER, RNIC_EV_CQE_WRITTEN, q, 0xFFFFu, (r0 + 1u) & 0xFFFFu);
    size_t w = rec_find(0, OWNER, RNIC_EV_PKT_FIRST, q, 0xFFFFu, (r0 + 2u) & 0xFFFFu);
    *held = rec_find(0, OWNER, RNIC_EV_FENCE_HOLD, q, 0x3FFFFu, (r0 + 2u) & 0xFFFFu) != REC_NONE;
    CHECK(d0 != REC_NONE && d1 != REC_NONE && w != REC_NONE);
    if (d0 == REC_NONE || d1 == REC_NONE || w == REC_NONE)
        return 0;
    /* > 0: cycles after the second READ completed; wraps below 0 as huge. */
    return rec_cycle(w) > rec_cycle(d1) ? rec_cycle(w) - rec_cycle(d1) : 0;
}

static void barrier(void)
{
    struct dt_pair p;
    open_pair(&p);
    int held;
    uint64_t after = write_after_reads(&p, DAT_COMPLETION_BARRIER_FENCE_FLAG, &held);
    rec_dump("barrier");
    CHECK(after > 0);
    CHECK(held);
    after = write_after_reads(&p, DAT_COMPLETION_DEFAULT_FLAG, &held);
    CHECK_EQ(after, 0);   /* it overtook the READs' completions */
    CHECK(!held);
    dt_pair_close(&p);
}

/* ------------------------------------------------------------------------
 * A zero-length bind unbinds: the commit, then the old context refused (the
 * window is FREE), and the LMR can be freed. */
static void unbind(void)
{
    struct dt_pair p;
    open_pair(&p);
    struct dt_side *o = &p.s[OWNER];
    DAT_RMR_HANDLE rmr;
    CHECK_OK(dat_rmr_create(o->pz, &rmr));
    DAT_REGION_DESCRIPTION reg = { .for_va = o->buf + WIN_OFF };
    DAT_LMR_HANDLE l;
    DAT_LMR_CONTEXT lc;
    CHECK_OK(dat_lmr_create(o->ia, DAT_MEM_TYPE_VIRTUAL, reg, WIN_LEN, o->pz, DAT_MEM_PRIV_ALL_FLAG, &l, &lc, NULL,
                            NULL, NULL));
    DAT_LMR_TRIPLET t = { lc, 0, (DAT_VADDR)(uintptr_t)(o->buf + WIN_OFF), WIN_LEN }, zero = { 0, 0, 0, 0 };
    DAT_RMR_CONTEXT c1, c2;
    rec_start();
    CHECK_OK(dat_rmr_bind(rmr, &t, RW, o->ep, dt_rcookie(1), 0, &c1));
    CHECK_EQ(dt_wait_bind(o->req_evd, DAT_HANDLE_NULL, 0), DAT_RMR_BIND_SUCCESS);
    CHECK_EQ(dt_peer_write(&p, c1, WIN_OFF, 64, 6), DAT_DTO_SUCCESS);
    CHECK_RET(dat_lmr_free(l), DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE);
    CHECK_OK(dat_rmr_bind(rmr, &zero, RW, o->ep, dt_rcookie(2), 0, &c2));
    CHECK_EQ(dt_wait_bind(o->req_evd, DAT_HANDLE_NULL, 0), DAT_RMR_BIND_SUCCESS);
    CHECK_OK(dat_lmr_free(l));
    uint8_t before[64];
    memcpy(before, o->buf + WIN_OFF, 64);
    CHECK_EQ(dt_peer_write(&p, c1, WIN_OFF, 64, 7), DAT_DTO_ERR_REMOTE_ACCESS);
    CHECK(memcmp(before, o->buf + WIN_OFF, 64) == 0);
    rec_stop();
    rec_dump("unbind");
    size_t unbound = rec_find(0, OWNER, RNIC_EV_BIND_COMMIT, REC_ANY, 0xFFFFFFFF00000000ull, (uint64_t)c2 << 32);
    CHECK(unbound != REC_NONE);
    size_t refuse = unbound == REC_NONE ? REC_NONE
                                        : rec_find(unbound, OWNER, RNIC_EV_RKEY_CHECK, REC_ANY,
                                                   0xFFFFFFFF00000000ull, (uint64_t)c1 << 32);
    CHECK(refuse != REC_NONE && VERDICT(rec_at(refuse)) != RNIC_PT_VERDICT_OK);
    dt_pair_close(&p);
}

/* ------------------------------------------------------------------------
 * dat_lmr_free while the peer's 1 MiB RDMA WRITE into the LMR is in
 * flight: nothing of it is placed after the free, so the WRITE
 * fails with DAT_DTO_ERR_REMOTE_ACCESS (the page allows success or this
 * error, nothing else), the connection breaks, the end of the buffer is
 * untouched, and a later request with the context is refused. */
static void free_inflight(void)
{
    struct dt_pair p;
    open_pair(&p);
    struct dt_side *o = &p.s[OWNER], *peer = &p.s[PEER];
    /* Long enough to be still in flight after the first wait below (20 us,
     * 5,000 cycles) at every datapath width: at 64 bytes a cycle 256 KiB
     * was all in by then, 1 MiB takes about 19,000 cycles. */
    const size_t len = 1024 * 1024;
    uint8_t *dst = aligned_alloc(4096, len), *src = aligned_alloc(4096, len);
    memset(dst, 0x5C, len);
    dt_fill(src, len, 8);
    DAT_REGION_DESCRIPTION rd = { .for_va = dst }, rs = { .for_va = src };
    DAT_LMR_HANDLE ld, ls;
    DAT_LMR_CONTEXT cd, cs;
    DAT_RMR_CONTEXT rctx;
    CHECK_OK(dat_lmr_create(o->ia, DAT_MEM_TYPE_VIRTUAL, rd, len, o->pz, DAT_MEM_PRIV_ALL_FLAG, &ld, &cd, &rctx, NULL,
                            NULL));
    CHECK_OK(dat_lmr_create(peer->ia, DAT_MEM_TYPE_VIRTUAL, rs, len, peer->pz, DAT_MEM_PRIV_ALL_FLAG, &ls, &cs, NULL,
                            NULL, NULL));
    rec_start();
    DAT_LMR_TRIPLET l = { cs, 0, (DAT_VADDR)(uintptr_t)src, len };
    DAT_RMR_TRIPLET r = { rctx, 0, (DAT_VADDR)(uintptr_t)dst, len };
    CHECK_OK(dat_ep_post_rdma_write(peer->ep, 1, &l, dt_cookie(40), &r, DAT_COMPLETION_DEFAULT_FLAG));
    /* Let the first packets in: advance NIC time until the owner has granted one. */
    DAT_EVENT ev;
    size_t granted = REC_NONE;
    for (int i = 0; i < 200 && granted == REC_NONE; i++) {
        CHECK_TYPE(dt_wait(o->req_evd, 20, &ev), DAT_TIMEOUT_EXPIRED);
        granted = rec_find(0, OWNER, RNIC_EV_RKEY_CHECK, REC_ANY, 0xFFFFFFFF00000007ull, (uint64_t)rctx << 32);
    }
    CHECK(granted != REC_NONE);
    CHECK_OK(dat_lmr_free(ld));
    const size_t freed_at = rec_count();   /* the free has completed: the entry is gone */
    CHECK_EQ(dt_wait_dto(peer->req_evd, NULL), DAT_DTO_ERR_REMOTE_ACCESS);
    CHECK_EQ(dt_wait_number(peer->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    int tail_intact = 1;
    for (size_t i = len - 4096; i < len; i++)
        tail_intact &= dst[i] == 0x5C;
    CHECK(tail_intact);
    rec_stop();
    rec_dump("free_inflight");
    /* From the free on, no packet with the context is granted, and the owner
     * NAKs with a remote access error (the packet being placed at the free
     * meets the IOMMU, the next ones the table). */
    CHECK(rec_find(freed_at, OWNER, RNIC_EV_RKEY_CHECK, REC_ANY, 0xFFFFFFFF00000007ull, (uint64_t)rctx << 32) ==
          REC_NONE);
    CHECK(rec_find(freed_at, OWNER, RNIC_EV_NAK_SENT, REC_ANY, 0xFFu, 0x62u) != REC_NONE);
    dt_pair_close(&p);
    /* A request that arrives after the free: refused too. */
    open_pair(&p);
    memset(dst, 0x5C, 64);
    CHECK_EQ(dt_peer_write(&p, rctx, 0, 64, 9), DAT_DTO_ERR_REMOTE_ACCESS);
    (void)dst;
    dt_pair_close(&p);
    free(dst);
    free(src);
}

/* ------------------------------------------------------------------------
 * Figures (docs/performance.md): a bind with nothing in flight, from its
 * doorbell to its commit and to its CQE; and a SEND posted right behind a
 * bind against the same SEND alone, doorbell to first packet. */
static uint64_t median(uint64_t *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[n / 2];
}

static void bench(void)
{
    enum { N = 9 };
    uint64_t to_commit[N], to_cqe[N], send_alone[N], send_behind[N];
    struct dt_pair p;
    open_pair(&p);
    struct dt_side *o = &p.s[OWNER], *peer = &p.s[PEER];
    DAT_RMR_HANDLE rmr;
    CHECK_OK(dat_rmr_create(o->pz, &rmr));
    DAT_LMR_TRIPLET t = dt_iov(o, WIN_OFF, WIN_LEN), msg = dt_iov(o, 16384, 8), rx = dt_iov(peer, 32768, 64);
    for (int i = 0; i < N; i++) {
        DAT_RMR_CONTEXT ctx;
        for (int k = 0; k < 2; k++)
            CHECK_OK(dat_ep_post_recv(peer->ep, 1, &rx, dt_cookie(1), DAT_COMPLETION_DEFAULT_FLAG));
        /* The SEND alone. */
        rec_start();
        CHECK_OK(dat_ep_post_send(o->ep, 1, &msg, dt_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
        CHECK_EQ(dt_wait_dto(o->req_evd, NULL), DAT_DTO_SUCCESS);
        rec_stop();
        const int q = owner_qp();
        size_t db = rec_find(0, OWNER, RNIC_EV_DOORBELL, q, 0x30000u, 0);
        size_t pk = rec_find(0, OWNER, RNIC_EV_PKT_FIRST, q, 0, 0);
        send_alone[i] = db != REC_NONE && pk != REC_NONE ? rec_cycle(pk) - rec_cycle(db) : 0;
        /* A bind, then the same SEND at once. */
        rec_start();
        CHECK_OK(dat_rmr_bind(rmr, &t, RW, o->ep, dt_rcookie(3), 0, &ctx));
        CHECK_OK(dat_ep_post_send(o->ep, 1, &msg, dt_cookie(4), DAT_COMPLETION_DEFAULT_FLAG));
        CHECK_EQ(dt_wait_bind(o->req_evd, DAT_HANDLE_NULL, 0), DAT_RMR_BIND_SUCCESS);
        CHECK_EQ(dt_wait_dto(o->req_evd, NULL), DAT_DTO_SUCCESS);
        rec_stop();
        size_t bdb = rec_find(0, OWNER, RNIC_EV_DOORBELL, q, 0x30000u, 0);
        size_t sdb = bdb == REC_NONE ? REC_NONE : rec_find(bdb + 1, OWNER, RNIC_EV_DOORBELL, q, 0x30000u, 0);
        size_t cm = rec_find(0, OWNER, RNIC_EV_BIND_COMMIT, q, 0, 0);
        size_t bidx = cm == REC_NONE ? REC_NONE : IDX(rec_at(cm));
        size_t cq = cm == REC_NONE ? REC_NONE : rec_find(cm, OWNER, RNIC_EV_CQE_WRITTEN, q, 0xFFFFu, bidx);
        size_t spk = rec_find(0, OWNER, RNIC_EV_PKT_FIRST, q, 0, 0);
        CHECK(bdb != REC_NONE && sdb != REC_NONE && cm != REC_NONE && cq != REC_NONE && spk != REC_NONE);
        if (bdb == REC_NONE || sdb == REC_NONE || cm == REC_NONE || cq == REC_NONE || spk == REC_NONE)
            break;
        to_commit[i] = rec_cycle(cm) - rec_cycle(bdb);
        to_cqe[i] = rec_cycle(cq) - rec_cycle(bdb);
        send_behind[i] = rec_cycle(spk) - rec_cycle(sdb);
        for (int k = 0; k < 2; k++)
            CHECK_EQ(dt_wait_dto(peer->recv_evd, NULL), DAT_DTO_SUCCESS);
    }
    printf("bind, nothing in flight: doorbell to commit %llu cycles, doorbell to CQE %llu cycles (median of %d)\n",
           (unsigned long long)median(to_commit, N), (unsigned long long)median(to_cqe, N), N);
    uint64_t a = median(send_alone, N), b = median(send_behind, N);
    printf("SEND doorbell to first packet: alone %llu cycles, right behind a bind %llu cycles (waits %llu more)\n",
           (unsigned long long)a, (unsigned long long)b, (unsigned long long)(b > a ? b - a : 0));
    dt_pair_close(&p);
}

struct scenario {
    const char *name;
    void (*fn)(void);
};

static const struct scenario kScenarios[] = {
    {"bind_send", bind_send}, {"old_context", old_context}, {"race", race},
    {"barrier", barrier},     {"unbind", unbind},           {"free_inflight", free_inflight},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s NAME... | all | bench\n", argv[0]);
        return 2;
    }
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "bench") == 0) {
            bench();
            continue;
        }
        int found = 0;
        for (size_t i = 0; i < sizeof(kScenarios) / sizeof(kScenarios[0]); i++) {
            if (strcmp(argv[a], "all") != 0 && strcmp(argv[a], kScenarios[i].name) != 0)
                continue;
            found = 1;
            int before = rnic_check_failures();
            kScenarios[i].fn();
            printf("%-14s %s\n", kScenarios[i].name, rnic_check_failures() == before ? "ok" : "FAILED");
        }
        if (!found) {
            fprintf(stderr, "unknown scenario %s\n", argv[a]);
            return 2;
        }
    }
    return dt_finish("scenarios");
}
