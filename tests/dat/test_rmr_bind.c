/*
 * dat_rmr_bind(3DAT) and the other RMR calls, sentence by sentence
 * (docs/dat-conformance.md, B1..B18), through the public API with both NICs
 * in this process. Side 1 owns the windows; side 0 is the remote peer that
 * uses their rmr_contexts. The cycle-level orderings (what starts before
 * the commit) are checked on the NICs' event record in tests/scenario.
 */
#include <stdlib.h>
#include <string.h>

#include "dat_test.h"

#define WIN_OFF 4096u
#define WIN_LEN 1024u

static DAT_LMR_TRIPLET win(const struct dt_side *s, size_t off, size_t len)
{
    return dt_iov(s, off, len);
}

static void fresh_pair(struct dt_pair *p, const DAT_EP_ATTR *attr1)
{
    dt_pair_open(p, NULL, attr1);
    dt_pair_connect(p);
}

/* ------------------------------------------------------------ handles (B17) */
static void handles(void)
{
    struct dt_side s;
    dt_side_open(&s, 0, NULL);
    DAT_RMR_HANDLE rmr;
    CHECK_RET(dat_rmr_create(s.ia, &rmr), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
    CHECK_RET(dat_rmr_create(DAT_HANDLE_NULL, &rmr), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
    CHECK_RET(dat_rmr_create(s.pz, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    DAT_LMR_TRIPLET t = win(&s, WIN_OFF, 64);
    DAT_RMR_CONTEXT ctx;
    DAT_HANDLE not_rmr[] = { DAT_HANDLE_NULL, s.lmr, s.ep, s.pz, (DAT_HANDLE)0x1234 };
    for (size_t i = 0; i < sizeof(not_rmr) / sizeof(not_rmr[0]); i++) {
        CHECK_RET(dat_rmr_bind(not_rmr[i], &t, DAT_MEM_PRIV_REMOTE_READ_FLAG, s.ep, dt_rcookie(1), 0, &ctx),
                  DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
        DAT_RMR_PARAM q;
        CHECK_RET(dat_rmr_query(not_rmr[i], DAT_RMR_FIELD_ALL, &q), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
        CHECK_RET(dat_rmr_free(not_rmr[i]), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
    }
    CHECK_OK(dat_rmr_create(s.pz, &rmr));
    CHECK(dat_get_handle_type(rmr, &(DAT_HANDLE_TYPE){0}) == DAT_SUCCESS);
    /* An EP that is not one. */
    CHECK_RET(dat_rmr_bind(rmr, &t, DAT_MEM_PRIV_REMOTE_READ_FLAG, s.pz, dt_rcookie(1), 0, &ctx), DAT_INVALID_HANDLE,
              DAT_INVALID_HANDLE_EP);
    DAT_RMR_PARAM q;
    memset(&q, 0xA5, sizeof(q));
    CHECK_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
    CHECK(q.ia_handle == s.ia);
    CHECK(q.pz_handle == s.pz);
    CHECK_EQ(q.lmr_triplet.segment_length, 0);   /* not bound yet */
    CHECK_EQ(q.mem_priv, 0);
    CHECK(q.rmr_context != 0);
    CHECK_RET(dat_rmr_query(rmr, (DAT_RMR_PARAM_MASK)0x40, &q), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_RET(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    /* A PZ with an RMR in it is in use. */
    CHECK_TYPE(dat_pz_free(s.pz), DAT_INVALID_STATE);
    CHECK_OK(dat_rmr_free(rmr));
    /* Stale afterwards. */
    CHECK_RET(dat_rmr_free(rmr), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
    CHECK_RET(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
    dt_side_close(&s);
}

/* -------------------- bind, use, rebind, cookies, old context (B2 B4 B10 B11 B15) */
static void bind_use_rebind(void)
{
    struct dt_pair p;
    fresh_pair(&p, NULL);
    struct dt_side *o = &p.s[1];
    DAT_RMR_HANDLE rmr;
    CHECK_OK(dat_rmr_create(o->pz, &rmr));
    DAT_RMR_PARAM q;
    CHECK_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_RMR_CONTEXT, &q));
    DAT_LMR_TRIPLET t = win(o, WIN_OFF, WIN_LEN);
    DAT_RMR_CONTEXT c1 = 0, c2 = 0;
    CHECK_OK(dat_rmr_bind(rmr, &t, DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG, o->ep,
                          dt_rcookie(0xB1), DAT_COMPLETION_DEFAULT_FLAG, &c1));
    CHECK(c1 != q.rmr_context);                        /* a new context */
    CHECK_EQ(dt_wait_bind(o->req_evd, rmr, 0xB1), DAT_RMR_BIND_SUCCESS);   /* notified by default */
    CHECK_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
    CHECK_EQ(q.rmr_context, c1);
    CHECK_EQ(q.lmr_triplet.lmr_context, o->lmr_ctx);
    CHECK_EQ(q.lmr_triplet.virtual_address, t.virtual_address);
    CHECK_EQ(q.lmr_triplet.segment_length, WIN_LEN);
    CHECK_EQ(q.mem_priv, DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG);

    /* The peer writes and reads through the window. */
    CHECK_EQ(dt_peer_write(&p, c1, WIN_OFF + 100, 200, 5), DAT_DTO_SUCCESS);
    CHECK(memcmp(o->buf + WIN_OFF + 100, p.s[0].buf, 200) == 0);
    DAT_LMR_TRIPLET l = dt_iov(&p.s[0], 8192, 300);
    DAT_RMR_TRIPLET r = { c1, 0, (DAT_VADDR)(uintptr_t)(o->buf + WIN_OFF), 300 };
    CHECK_OK(dat_ep_post_rdma_read(p.s[0].ep, 1, &l, dt_cookie(6), &r, DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_EQ(dt_wait_dto(p.s[0].req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK(memcmp(p.s[0].buf + 8192, o->buf + WIN_OFF, 300) == 0);

    /* A rebind needs no unbind; the same cookie again is fine. */
    DAT_LMR_TRIPLET t2 = win(o, 2 * WIN_OFF, WIN_LEN);
    CHECK_OK(dat_rmr_bind(rmr, &t2, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, o->ep, dt_rcookie(0xB1), 0, &c2));
    CHECK(c2 != c1);
    CHECK_EQ(dt_wait_bind(o->req_evd, rmr, 0xB1), DAT_RMR_BIND_SUCCESS);
    CHECK_EQ(dt_peer_write(&p, c2, 2 * WIN_OFF, 64, 7), DAT_DTO_SUCCESS);
    CHECK(memcmp(o->buf + 2 * WIN_OFF, p.s[0].buf, 64) == 0);

    /* The previous context after the bind completed: a protection error at
     * the peer, no byte written, the connection broken on both sides. */
    uint8_t before[64];
    memcpy(before, o->buf + WIN_OFF, 64);
    CHECK_EQ(dt_peer_write(&p, c1, WIN_OFF, 64, 9), DAT_DTO_ERR_REMOTE_ACCESS);
    CHECK(memcmp(before, o->buf + WIN_OFF, 64) == 0);
    CHECK_EQ(dt_wait_number(p.s[0].conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(dt_wait_number(o->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    dt_pair_close(&p);
}

/* -------------------------------------------- rights and ranges (B12 B18) */
static void checks(void)
{
    struct dt_pair p;
    fresh_pair(&p, NULL);
    struct dt_side *o = &p.s[1];
    DAT_RMR_HANDLE rmr;
    CHECK_OK(dat_rmr_create(o->pz, &rmr));
    DAT_RMR_CONTEXT ctx = 0x5A5A;
    DAT_LMR_TRIPLET t = win(o, WIN_OFF, WIN_LEN);
    const DAT_MEM_PRIV_FLAGS rw = DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG;

    /* LMRs that do not back the rights asked for. */
    DAT_REGION_DESCRIPTION reg = { .for_va = o->buf };
    DAT_LMR_HANDLE l_ro, l_wo;
    DAT_LMR_CONTEXT c_ro, c_wo;
    CHECK_OK(dat_lmr_create(o->ia, DAT_MEM_TYPE_VIRTUAL, reg, DT_BUF, o->pz, DAT_MEM_PRIV_LOCAL_READ_FLAG, &l_ro,
                            &c_ro, NULL, NULL, NULL));
    CHECK_OK(dat_lmr_create(o->ia, DAT_MEM_TYPE_VIRTUAL, reg, DT_BUF, o->pz, DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &l_wo,
                            &c_wo, NULL, NULL, NULL));
    DAT_LMR_TRIPLET t_ro = { c_ro, 0, t.virtual_address, WIN_LEN }, t_wo = { c_wo, 0, t.virtual_address, WIN_LEN };
    CHECK_TYPE(dat_rmr_bind(rmr, &t_ro, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, o->ep, dt_rcookie(1), 0, &ctx),
               DAT_PRIVILEGES_VIOLATION);
    CHECK_TYPE(dat_rmr_bind(rmr, &t_wo, DAT_MEM_PRIV_REMOTE_READ_FLAG, o->ep, dt_rcookie(1), 0, &ctx),
               DAT_PRIVILEGES_VIOLATION);
    CHECK_EQ(ctx, 0x5A5A);   /* nothing returned on failure */
    /* ... but each backs its own counterpart. */
    CHECK_OK(dat_rmr_bind(rmr, &t_ro, DAT_MEM_PRIV_REMOTE_READ_FLAG, o->ep, dt_rcookie(2), 0, &ctx));
    CHECK_EQ(dt_wait_bind(o->req_evd, rmr, 2), DAT_RMR_BIND_SUCCESS);
    CHECK_OK(dat_rmr_bind(rmr, &t_wo, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, o->ep, dt_rcookie(3), 0, &ctx));
    CHECK_EQ(dt_wait_bind(o->req_evd, rmr, 3), DAT_RMR_BIND_SUCCESS);
    /* DAT_MEM_PRIV_ALL_FLAG is accepted (its local half means nothing here). */
    CHECK_OK(dat_rmr_bind(rmr, &t, DAT_MEM_PRIV_ALL_FLAG, o->ep, dt_rcookie(4), 0, &ctx));
    CHECK_EQ(dt_wait_bind(o->req_evd, rmr, 4), DAT_RMR_BIND_SUCCESS);

    /* Ranges outside the LMR. */
    DAT_LMR_TRIPLET bad = win(o, DT_BUF - 16, 32);
    CHECK_TYPE(dat_rmr_bind(rmr, &bad, rw, o->ep, dt_rcookie(1), 0, &ctx), DAT_INVALID_PARAMETER);
    bad = t;
    bad.virtual_address = (DAT_VADDR)(uintptr_t)o->buf - 8;
    CHECK_TYPE(dat_rmr_bind(rmr, &bad, rw, o->ep, dt_rcookie(1), 0, &ctx), DAT_INVALID_PARAMETER);
    /* An LMR context that names nothing, and one of a freed LMR. */
    bad = t;
    bad.lmr_context = 0x00FFFF01u;
    CHECK_TYPE(dat_rmr_bind(rmr, &bad, rw, o->ep, dt_rcookie(1), 0, &ctx), DAT_INVALID_PARAMETER);
    bad.lmr_context = c_ro;
    CHECK_OK(dat_lmr_free(l_ro));
    CHECK_TYPE(dat_rmr_bind(rmr, &bad, rw, o->ep, dt_rcookie(1), 0, &ctx), DAT_PROTECTION_VIOLATION);
    /* An LMR of another PZ; an RMR of another PZ than the EP's. */
    DAT_PZ_HANDLE pz2;
    CHECK_OK(dat_pz_create(o->ia, &pz2));
    DAT_LMR_HANDLE l_pz2;
    DAT_LMR_CONTEXT c_pz2;
    CHECK_OK(dat_lmr_create(o->ia, DAT_MEM_TYPE_VIRTUAL, reg, DT_BUF, pz2, DAT_MEM_PRIV_ALL_FLAG, &l_pz2, &c_pz2,
                            NULL, NULL, NULL));
    bad = t;
    bad.lmr_context = c_pz2;
    CHECK_TYPE(dat_rmr_bind(rmr, &bad, rw, o->ep, dt_rcookie(1), 0, &ctx), DAT_PROTECTION_VIOLATION);
    DAT_RMR_HANDLE rmr_pz2;
    CHECK_OK(dat_rmr_create(pz2, &rmr_pz2));
    CHECK_TYPE(dat_rmr_bind(rmr_pz2, &t, rw, o->ep, dt_rcookie(1), 0, &ctx), DAT_PROTECTION_VIOLATION);
    /* Privileges, flags and pointers that are not valid. */
    CHECK_RET(dat_rmr_bind(rmr, &t, (DAT_MEM_PRIV_FLAGS)0x04, o->ep, dt_rcookie(1), 0, &ctx), DAT_INVALID_PARAMETER,
              DAT_INVALID_ARG3);
    CHECK_RET(dat_rmr_bind(rmr, &t, rw, o->ep, dt_rcookie(1), (DAT_COMPLETION_FLAGS)0x40, &ctx), DAT_INVALID_PARAMETER,
              DAT_INVALID_ARG6);
    CHECK_RET(dat_rmr_bind(rmr, &t, rw, o->ep, dt_rcookie(1), DAT_COMPLETION_SOLICITED_WAIT_FLAG, &ctx),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
    CHECK_RET(dat_rmr_bind(rmr, NULL, rw, o->ep, dt_rcookie(1), 0, &ctx), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_RET(dat_rmr_bind(rmr, &t, rw, o->ep, dt_rcookie(1), 0, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
    /* UNSIGNALLED on an EP not configured for it (B14). */
    CHECK_RET(dat_rmr_bind(rmr, &t, rw, o->ep, dt_rcookie(1), DAT_COMPLETION_UNSIGNALLED_FLAG, &ctx),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
    /* None of the refused binds posted anything. */
    DAT_EVENT ev;
    CHECK_TYPE(dat_evd_dequeue(o->req_evd, &ev), DAT_QUEUE_EMPTY);
    dt_pair_close(&p);
}

/* ---------------------------------------- states (B16) and an unconnected EP */
static void states(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *o = &p.s[1];
    DAT_RMR_HANDLE rmr;
    CHECK_OK(dat_rmr_create(o->pz, &rmr));
    DAT_LMR_TRIPLET t = win(o, WIN_OFF, WIN_LEN);
    DAT_RMR_CONTEXT ctx;
    const DAT_MEM_PRIV_FLAGS rw = DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG;
    CHECK_RET(dat_rmr_bind(rmr, &t, rw, o->ep, dt_rcookie(1), 0, &ctx), DAT_INVALID_STATE,
              DAT_INVALID_STATE_EP_UNCONNECTED);
    dt_pair_connect(&p);
    DAT_RMR_PARAM q;
    CHECK_OK(dat_rmr_bind(rmr, &t, rw, o->ep, dt_rcookie(1), 0, &ctx));
    CHECK_EQ(dt_wait_bind(o->req_evd, rmr, 1), DAT_RMR_BIND_SUCCESS);
    /* DISCONNECTED: accepted, and flushed at once to the request EVD; the
     * window keeps its binding and context. */
    CHECK_OK(dat_ep_disconnect(o->ep, DAT_CLOSE_ABRUPT_FLAG));
    CHECK_EQ(dt_wait_number(o->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    DAT_EP_STATE st;
    CHECK_OK(dat_ep_get_status(o->ep, &st, NULL, NULL));
    CHECK_EQ(st, DAT_EP_STATE_DISCONNECTED);
    DAT_RMR_CONTEXT ctx2 = 0;
    DAT_LMR_TRIPLET t2 = win(o, 2 * WIN_OFF, 64);
    CHECK_OK(dat_rmr_bind(rmr, &t2, rw, o->ep, dt_rcookie(0xF1), 0, &ctx2));
    DAT_EVENT ev;
    CHECK_OK(dat_evd_dequeue(o->req_evd, &ev));   /* already there, without waiting */
    CHECK_EQ(ev.event_number, DAT_RMR_BIND_COMPLETION_EVENT);
    CHECK_EQ(ev.event_data.rmr_completion_event_data.status, DAT_RMR_BIND_FAILURE);
    CHECK_EQ(ev.event_data.rmr_completion_event_data.user_cookie.as_64, 0xF1);
    CHECK_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
    CHECK_EQ(q.rmr_context, ctx);
    CHECK_EQ(ctx2, ctx);
    CHECK_EQ(q.lmr_triplet.virtual_address, t.virtual_address);
    dt_pair_close(&p);
}

/* --------------------------- SUPPRESS and UNSIGNALLED (B3 B14) on a configured EP */
static void completion_flags(void)
{
    DAT_EP_ATTR a;
    memset(&a, 0, sizeof(a));
    struct dt_side probe;
    dt_side_open(&probe, 1, NULL);
    CHECK_OK(dat_ep_query(probe.ep, DAT_EP_FIELD_ALL, &(DAT_EP_PARAM){0}));
    DAT_EP_PARAM pp;
    CHECK_OK(dat_ep_query(probe.ep, DAT_EP_FIELD_ALL, &pp));
    a = pp.ep_attr;
    dt_side_close(&probe);
    a.request_completion_flags |= DAT_COMPLETION_UNSIGNALLED_FLAG;
    struct dt_pair p;
    fresh_pair(&p, &a);
    struct dt_side *o = &p.s[1];
    DAT_RMR_HANDLE rmr;
    CHECK_OK(dat_rmr_create(o->pz, &rmr));
    DAT_LMR_TRIPLET t = win(o, WIN_OFF, WIN_LEN);
    DAT_RMR_CONTEXT c1, c2, c3;
    const DAT_MEM_PRIV_FLAGS rw = DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG;
    /* Suppressed: no event on success, but the bind happened. */
    CHECK_OK(dat_rmr_bind(rmr, &t, rw, o->ep, dt_rcookie(11), DAT_COMPLETION_SUPPRESS_FLAG, &c1));
    CHECK_OK(dat_rmr_bind(rmr, &t, rw, o->ep, dt_rcookie(12), DAT_COMPLETION_DEFAULT_FLAG, &c2));
    CHECK_EQ(dt_wait_bind(o->req_evd, rmr, 12), DAT_RMR_BIND_SUCCESS);   /* the suppressed one never shows */
    CHECK(c1 != c2);
    CHECK_EQ(dt_peer_write(&p, c2, WIN_OFF, 32, 13), DAT_DTO_SUCCESS);
    /* Unsignalled: queued without notifying; a dequeue finds it. */
    CHECK_OK(dat_rmr_bind(rmr, &t, rw, o->ep, dt_rcookie(14), DAT_COMPLETION_UNSIGNALLED_FLAG, &c3));
    DAT_EVENT ev;
    CHECK_TYPE(dt_wait(o->req_evd, 2000, &ev), DAT_TIMEOUT_EXPIRED);   /* no wake-up */
    CHECK_OK(dat_evd_dequeue(o->req_evd, &ev));
    CHECK_EQ(ev.event_number, DAT_RMR_BIND_COMPLETION_EVENT);
    CHECK_EQ(ev.event_data.rmr_completion_event_data.user_cookie.as_64, 14);
    CHECK_EQ(dt_peer_write(&p, c3, WIN_OFF, 32, 15), DAT_DTO_SUCCESS);
    dt_pair_close(&p);
}

/* ------------------------------------------ zero length unbinds (B13), lmr_free */
static void unbind_and_lmr_free(void)
{
    struct dt_pair p;
    fresh_pair(&p, NULL);
    struct dt_side *o = &p.s[1];
    DAT_REGION_DESCRIPTION reg = { .for_va = o->buf + 3 * WIN_OFF };
    DAT_LMR_HANDLE l;
    DAT_LMR_CONTEXT lc;
    CHECK_OK(dat_lmr_create(o->ia, DAT_MEM_TYPE_VIRTUAL, reg, WIN_OFF, o->pz, DAT_MEM_PRIV_ALL_FLAG, &l, &lc, NULL,
                            NULL, NULL));
    DAT_RMR_HANDLE rmr;
    CHECK_OK(dat_rmr_create(o->pz, &rmr));
    DAT_LMR_TRIPLET t = { lc, 0, (DAT_VADDR)(uintptr_t)(o->buf + 3 * WIN_OFF), 256 };
    DAT_RMR_CONTEXT c1, c2;
    const DAT_MEM_PRIV_FLAGS rw = DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG;
    CHECK_OK(dat_rmr_bind(rmr, &t, rw, o->ep, dt_rcookie(1), 0, &c1));
    CHECK_EQ(dt_wait_bind(o->req_evd, rmr, 1), DAT_RMR_BIND_SUCCESS);
    /* An LMR with a bound RMR cannot be freed. */
    CHECK_RET(dat_lmr_free(l), DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE);
    CHECK_EQ(dt_peer_write(&p, c1, 3 * WIN_OFF, 16, 3), DAT_DTO_SUCCESS);
    /* A zero length binds no memory; the other triplet members may be anything. */
    DAT_LMR_TRIPLET zero = { 0xDEADBEEFu, 0, 0x1234, 0 };
    CHECK_OK(dat_rmr_bind(rmr, &zero, rw, o->ep, dt_rcookie(2), 0, &c2));
    CHECK_EQ(dt_wait_bind(o->req_evd, rmr, 2), DAT_RMR_BIND_SUCCESS);
    DAT_RMR_PARAM q;
    CHECK_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
    CHECK_EQ(q.lmr_triplet.segment_length, 0);
    /* ... and after the unbind it can. */
    CHECK_OK(dat_lmr_free(l));
    /* The context it had is refused. */
    uint8_t before[16];
    memcpy(before, o->buf + 3 * WIN_OFF, 16);
    CHECK_EQ(dt_peer_write(&p, c1, 3 * WIN_OFF, 16, 4), DAT_DTO_ERR_REMOTE_ACCESS);
    CHECK(memcmp(before, o->buf + 3 * WIN_OFF, 16) == 0);
    dt_pair_close(&p);
}

/* --------------- the fence: a SEND of the new context right behind the bind (B5-B7 B9) */
static void send_behind_bind(void)
{
    struct dt_pair p;
    fresh_pair(&p, NULL);
    struct dt_side *o = &p.s[1], *peer = &p.s[0];
    DAT_RMR_HANDLE rmr;
    CHECK_OK(dat_rmr_create(o->pz, &rmr));
    /* The peer's receive for the message that carries the context. */
    DAT_LMR_TRIPLET rx = dt_iov(peer, 16384, 64);
    CHECK_OK(dat_ep_post_recv(peer->ep, 1, &rx, dt_cookie(1), DAT_COMPLETION_DEFAULT_FLAG));
    /* Bind, then SEND the context at once, without waiting for the bind. */
    DAT_LMR_TRIPLET t = win(o, WIN_OFF, WIN_LEN);
    DAT_RMR_CONTEXT ctx;
    CHECK_OK(dat_rmr_bind(rmr, &t, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, o->ep, dt_rcookie(1), 0, &ctx));
    memcpy(o->buf + 8192, &ctx, sizeof(ctx));
    DAT_LMR_TRIPLET msg = dt_iov(o, 8192, sizeof(ctx));
    CHECK_OK(dat_ep_post_send(o->ep, 1, &msg, dt_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
    /* The peer uses it the moment it arrives. */
    CHECK_EQ(dt_wait_dto(peer->recv_evd, NULL), DAT_DTO_SUCCESS);
    DAT_RMR_CONTEXT got;
    memcpy(&got, peer->buf + 16384, sizeof(got));
    CHECK_EQ(got, ctx);
    CHECK_EQ(dt_peer_write(&p, got, WIN_OFF, 128, 21), DAT_DTO_SUCCESS);
    CHECK(memcmp(o->buf + WIN_OFF, peer->buf, 128) == 0);
    /* The bind completed before the SEND: in order on the request EVD. */
    CHECK_EQ(dt_wait_bind(o->req_evd, rmr, 1), DAT_RMR_BIND_SUCCESS);
    CHECK_EQ(dt_wait_dto(o->req_evd, NULL), DAT_DTO_SUCCESS);
    dt_pair_close(&p);
}

/* --------------------- a bind that fails after returning breaks the connection (B8) */
static void fails_after_return(void)
{
    struct dt_pair p;
    fresh_pair(&p, NULL);
    struct dt_side *o = &p.s[1];
    DAT_RMR_HANDLE rmr;
    CHECK_OK(dat_rmr_create(o->pz, &rmr));
    /* A long READ first keeps the bind waiting (it commits as the oldest). */
    DAT_LMR_TRIPLET l = dt_iov(o, 32768, 32768);
    DAT_RMR_TRIPLET r = dt_remote(&p.s[0], 0, 32768);
    CHECK_OK(dat_ep_post_rdma_read(o->ep, 1, &l, dt_cookie(1), &r, DAT_COMPLETION_DEFAULT_FLAG));
    DAT_LMR_TRIPLET t = win(o, WIN_OFF, WIN_LEN);
    DAT_RMR_CONTEXT ctx;
    CHECK_OK(dat_rmr_bind(rmr, &t, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, o->ep, dt_rcookie(0xFA), 0, &ctx));
    /* The window goes away before the NIC gets to the bind. */
    CHECK_OK(dat_rmr_free(rmr));
    CHECK_EQ(dt_wait_dto(o->req_evd, NULL), DAT_DTO_SUCCESS);   /* the READ */
    DAT_EVENT ev;
    CHECK_OK(dt_wait(o->req_evd, DT_WAIT_US, &ev));
    CHECK_EQ(ev.event_number, DAT_RMR_BIND_COMPLETION_EVENT);
    CHECK(ev.event_data.rmr_completion_event_data.rmr_handle == rmr);
    CHECK_EQ(ev.event_data.rmr_completion_event_data.user_cookie.as_64, 0xFA);
    CHECK(ev.event_data.rmr_completion_event_data.status != DAT_RMR_BIND_SUCCESS);
    CHECK_EQ(dt_wait_number(o->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    DAT_EP_STATE st;
    CHECK_OK(dat_ep_get_status(o->ep, &st, NULL, NULL));
    CHECK_EQ(st, DAT_EP_STATE_DISCONNECTED);
    dt_pair_close(&p);
}

/* ---------------- a window belongs to its PZ: another EP of the PZ rebinds it */
static void other_ep_same_pz(void)
{
    struct dt_pair p;
    fresh_pair(&p, NULL);
    struct dt_side *o = &p.s[1], *peer = &p.s[0];
    /* A second connection between the same two PZs. */
    DAT_EP_HANDLE o2, peer2;
    CHECK_OK(dat_ep_create(o->ia, o->pz, o->recv_evd, o->req_evd, o->conn_evd, NULL, &o2));
    CHECK_OK(dat_ep_create(peer->ia, peer->pz, peer->recv_evd, peer->req_evd, peer->conn_evd, NULL, &peer2));
    CHECK_OK(dat_ep_connect(peer2, dt_addr(o->ia), p.qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT,
                            DAT_CONNECT_DEFAULT_FLAG));
    DAT_EVENT ev;
    CHECK_OK(dt_wait(o->cr_evd, DT_WAIT_US, &ev));
    CHECK_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
    CHECK_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, o2, 0, NULL));
    CHECK_EQ(dt_wait_number(o->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_EQ(dt_wait_number(peer->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);

    DAT_RMR_HANDLE rmr;
    CHECK_OK(dat_rmr_create(o->pz, &rmr));
    DAT_LMR_TRIPLET t = win(o, WIN_OFF, WIN_LEN);
    DAT_RMR_CONTEXT c1, c2;
    CHECK_OK(dat_rmr_bind(rmr, &t, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, o->ep, dt_rcookie(1), 0, &c1));
    CHECK_EQ(dt_wait_bind(o->req_evd, rmr, 1), DAT_RMR_BIND_SUCCESS);
    /* Rebound from the other EP, without an unbind. */
    CHECK_OK(dat_rmr_bind(rmr, &t, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, o2, dt_rcookie(2), 0, &c2));
    CHECK_EQ(dt_wait_bind(o->req_evd, rmr, 2), DAT_RMR_BIND_SUCCESS);
    CHECK(c1 != c2);
    /* The new context works over either connection; the old one over neither. */
    CHECK_EQ(dt_peer_write(&p, c2, WIN_OFF, 32, 31), DAT_DTO_SUCCESS);
    dt_fill(peer->buf, 32, 32);
    DAT_LMR_TRIPLET l = dt_iov(peer, 0, 32);
    DAT_RMR_TRIPLET r = { c2, 0, t.virtual_address + 64, 32 };
    CHECK_OK(dat_ep_post_rdma_write(peer2, 1, &l, dt_cookie(33), &r, DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_EQ(dt_wait_dto(peer->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK(memcmp(o->buf + WIN_OFF + 64, peer->buf, 32) == 0);
    r.rmr_context = c1;
    CHECK_OK(dat_ep_post_rdma_write(peer2, 1, &l, dt_cookie(34), &r, DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_EQ(dt_wait_dto(peer->req_evd, NULL), DAT_DTO_ERR_REMOTE_ACCESS);
    dt_pair_close(&p);
}

int main(void)
{
    handles();
    bind_use_rebind();
    checks();
    states();
    completion_flags();
    unbind_and_lmr_free();
    send_behind_bind();
    fails_after_return();
    other_ep_same_pz();
    return dt_finish("test_rmr_bind");
}
