/*
 * dat_ep_post_rdma_read(3DAT), sentence by sentence (docs/dat-conformance.md):
 * the local iov filled in order, the user cookie, every return value, the
 * completion flags, the EP states, the outstanding READ limits.
 */
#include "dat_test.h"

#include <string.h>

#define SENTINEL 0xA5

static void fill_order(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    dt_fill(b->buf, 4096, 11);
    memset(a->buf, SENTINEL, 8192);
    /* Four segments of 100 (one empty in between, ignored), 250 bytes to read:
     * the first two full, the third with 50, the fourth untouched. */
    DAT_LMR_TRIPLET iov[5] = { dt_iov(a, 0, 100), dt_iov(a, 1000, 100), dt_iov(a, 0, 0), dt_iov(a, 2000, 100),
                               dt_iov(a, 3000, 100) };
    iov[2].lmr_context = 0x12345;   /* irrelevant in an empty segment */
    DAT_RMR_TRIPLET r = dt_remote(b, 0, 250);
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 5, iov, dt_cookie(1), &r, 0), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    DAT_LMR_TRIPLET four[4] = { iov[0], iov[1], iov[3], iov[4] };
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 4, four, dt_cookie(0xC0FFEE), &r, 0));
    /* This provider copies the iov at post: the consumer gets it back at once. */
    memset(four, 0, sizeof(four));
    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 0xC0FFEE);
    CHECK_EQ(d.transfered_length, 250);
    CHECK(d.ep_handle == a->ep);
    CHECK(memcmp(a->buf, b->buf, 100) == 0);
    CHECK(memcmp(a->buf + 1000, b->buf + 100, 100) == 0);
    CHECK(memcmp(a->buf + 2000, b->buf + 200, 50) == 0);
    CHECK_EQ(a->buf[2050], SENTINEL);
    CHECK_EQ(a->buf[2099], SENTINEL);
    for (int i = 0; i < 100; i++)
        CHECK_EQ(a->buf[3000 + i], SENTINEL);
    CHECK_EQ(a->buf[100], SENTINEL);
    /* The same cookie twice is fine: cookies are the consumer's. */
    DAT_LMR_TRIPLET one = dt_iov(a, 4000, 64);
    DAT_RMR_TRIPLET r64 = dt_remote(b, 0, 64);
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &one, dt_cookie(7), &r64, 0));
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &one, dt_cookie(7), &r64, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 7);
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 7);
    /* A NULL cookie is a cookie too. */
    DAT_DTO_COOKIE nc = { .as_ptr = NULL };
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &one, nc, &r64, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK(d.user_cookie.as_ptr == NULL);
    /* SUPPRESS: no event when it succeeds. */
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &one, dt_cookie(8), &r64, DAT_COMPLETION_SUPPRESS_FLAG));
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &one, dt_cookie(9), &r64, DAT_COMPLETION_BARRIER_FENCE_FLAG));
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 9);
}

static void local_errors(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    DAT_RMR_TRIPLET r = dt_remote(b, 0, 200);
    DAT_LMR_TRIPLET small = dt_iov(a, 0, 199);
    /* The local buffer is smaller than the remote one. */
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &small, dt_cookie(1), &r, 0), DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
    /* A segment outside its LMR. */
    DAT_LMR_TRIPLET out = dt_iov(a, DT_BUF - 100, 200);
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &out, dt_cookie(1), &r, 0), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    DAT_LMR_TRIPLET below = dt_iov(a, 0, 200);
    below.virtual_address -= 1;
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &below, dt_cookie(1), &r, 0), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    /* An LMR of another PZ than the EP's: protection violation. */
    DAT_PZ_HANDLE pz2;
    CHECK_OK(dat_pz_create(a->ia, &pz2));
    DAT_REGION_DESCRIPTION reg = { .for_va = a->buf + 32768 };
    DAT_LMR_HANDLE l2, l3;
    DAT_LMR_CONTEXT c2, c3;
    CHECK_OK(dat_lmr_create(a->ia, DAT_MEM_TYPE_VIRTUAL, reg, 4096, pz2, DAT_MEM_PRIV_ALL_FLAG, &l2, &c2, NULL, NULL,
                            NULL));
    DAT_LMR_TRIPLET other_pz = { c2, 0, (DAT_VADDR)(uintptr_t)(a->buf + 32768), 200 };
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &other_pz, dt_cookie(1), &r, 0), DAT_PROTECTION_VIOLATION,
              DAT_PROTECTION_WRITE);
    /* An LMR without local write, and an LMR that does not exist:
     * privileges violation. */
    CHECK_OK(dat_lmr_create(a->ia, DAT_MEM_TYPE_VIRTUAL, reg, 4096, a->pz,
                            DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_REMOTE_READ_FLAG, &l3, &c3, NULL, NULL, NULL));
    DAT_LMR_TRIPLET ro = { c3, 0, (DAT_VADDR)(uintptr_t)(a->buf + 32768), 200 };
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &ro, dt_cookie(1), &r, 0), DAT_PRIVILEGES_VIOLATION,
              DAT_PRIVILEGES_WRITE);
    DAT_LMR_TRIPLET bogus = ro;
    bogus.lmr_context = 0x7FFF00;
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &bogus, dt_cookie(1), &r, 0), DAT_PRIVILEGES_VIOLATION,
              DAT_PRIVILEGES_WRITE);
    /* Flags: UNSIGNALLED on an EP not configured for it, SOLICITED_WAIT,
     * unknown bits. */
    DAT_LMR_TRIPLET ok = dt_iov(a, 0, 200);
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &ok, dt_cookie(1), &r, DAT_COMPLETION_UNSIGNALLED_FLAG),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &ok, dt_cookie(1), &r, DAT_COMPLETION_SOLICITED_WAIT_FLAG),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &ok, dt_cookie(1), &r, (DAT_COMPLETION_FLAGS)0x80),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &ok, dt_cookie(1), NULL, 0), DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    CHECK_RET(dat_ep_post_rdma_read(a->ep, -2, &ok, dt_cookie(1), &r, 0), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    /* Handles: an LMR handle, a stale EP, nothing. */
    CHECK_RET(dat_ep_post_rdma_read(l3, 1, &ok, dt_cookie(1), &r, 0), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    CHECK_RET(dat_ep_post_rdma_read(DAT_HANDLE_NULL, 1, &ok, dt_cookie(1), &r, 0), DAT_INVALID_HANDLE,
              DAT_INVALID_HANDLE_EP);
    DAT_EP_HANDLE gone;
    CHECK_OK(dat_ep_create(a->ia, a->pz, a->recv_evd, a->req_evd, a->conn_evd, NULL, &gone));
    CHECK_OK(dat_ep_free(gone));
    CHECK_RET(dat_ep_post_rdma_read(gone, 1, &ok, dt_cookie(1), &r, 0), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    /* None of these reached the NIC. */
    DAT_EVENT ev;
    CHECK_RET(dat_evd_wait(a->req_evd, 50, 1, &ev, &(DAT_COUNT){0}), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    CHECK_OK(dat_lmr_free(l2));
    CHECK_OK(dat_lmr_free(l3));
    CHECK_OK(dat_pz_free(pz2));
}

/* What only the remote side can check arrives as a completion, and the
 * connection breaks. */
static void remote_errors(void)
{
    for (int round = 0; round < 2; round++) {
        struct dt_pair p;
        dt_pair_open(&p, NULL, NULL);
        dt_pair_connect(&p);
        struct dt_side *a = &p.s[0], *b = &p.s[1];
        DAT_REGION_DESCRIPTION reg = { .for_va = b->buf + 32768 };
        DAT_LMR_HANDLE l;
        DAT_LMR_CONTEXT lc;
        DAT_RMR_CONTEXT rc;
        DAT_PZ_HANDLE pz2 = DAT_HANDLE_NULL;
        if (round == 0) {
            /* rmr_context without remote read (remote write only). */
            CHECK_OK(dat_lmr_create(b->ia, DAT_MEM_TYPE_VIRTUAL, reg, 4096, b->pz,
                                    DAT_MEM_PRIV_LOCAL_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &l, &lc, &rc, NULL,
                                    NULL));
        } else {
            /* rmr_context of another PZ than the remote EP's. */
            CHECK_OK(dat_pz_create(b->ia, &pz2));
            CHECK_OK(dat_lmr_create(b->ia, DAT_MEM_TYPE_VIRTUAL, reg, 4096, pz2, DAT_MEM_PRIV_ALL_FLAG, &l, &lc, &rc,
                                    NULL, NULL));
        }
        CHECK(rc != 0);
        memset(a->buf, SENTINEL, 128);
        DAT_LMR_TRIPLET v = dt_iov(a, 0, 64);
        DAT_RMR_TRIPLET r = { rc, 0, (DAT_VADDR)(uintptr_t)(b->buf + 32768), 64 };
        CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &v, dt_cookie(5), &r, 0));
        DAT_DTO_COMPLETION_EVENT_DATA d;
        CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_ERR_REMOTE_ACCESS);
        CHECK_EQ(d.user_cookie.as_64, 5);
        CHECK_EQ(a->buf[0], SENTINEL);   /* nothing was read */
        CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
        CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
        /* DISCONNECTED: a READ is accepted and flushed at once. */
        CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &v, dt_cookie(6), &r, DAT_COMPLETION_SUPPRESS_FLAG));
        DAT_EVENT ev;
        CHECK_OK(dat_evd_dequeue(a->req_evd, &ev));
        CHECK_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_ERR_FLUSHED);
        CHECK_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 6);
        dt_pair_close(&p);
    }
}

static void states(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    DAT_LMR_TRIPLET v = dt_iov(a, 0, 64);
    DAT_RMR_TRIPLET r = dt_remote(b, 0, 64);
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &v, dt_cookie(1), &r, 0), DAT_INVALID_STATE,
              DAT_INVALID_STATE_EP_UNCONNECTED);
    CHECK_OK(dat_ep_connect(a->ep, dt_addr(b->ia), p.qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT, 0));
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &v, dt_cookie(1), &r, 0), DAT_INVALID_STATE,
              DAT_INVALID_STATE_EP_ACTCONNPENDING);
    DAT_EVENT ev;
    CHECK_OK(dt_wait(b->cr_evd, DT_WAIT_US, &ev));
    CHECK_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, b->ep, 0, NULL));
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &v, dt_cookie(2), &r, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK_OK(dat_ep_disconnect(a->ep, DAT_CLOSE_ABRUPT_FLAG));
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &v, dt_cookie(3), &r, 0));
    CHECK_OK(dat_evd_dequeue(a->req_evd, &ev));
    CHECK_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_ERR_FLUSHED);
    CHECK_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 3);
    dt_pair_close(&p);
}

/* Outstanding READ limits: the requester keeps to the smaller of its
 * outgoing and the peer's incoming limit, so a burst of READs beyond the
 * peer's limit still completes, in order, without breaking the connection. */
static void read_limits(int out, int in)
{
    struct dt_side t;
    dt_side_open(&t, 0, NULL);
    DAT_EP_PARAM prm;
    CHECK_OK(dat_ep_query(t.ep, DAT_EP_FIELD_ALL, &prm));
    dt_side_close(&t);
    DAT_EP_ATTR a0 = prm.ep_attr, a1 = prm.ep_attr;
    a0.max_rdma_read_out = out;
    a0.max_rdma_read_in = in;
    a1.max_rdma_read_in = in;
    struct dt_pair p;
    dt_pair_open(&p, &a0, &a1);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    /* Receives posted before connecting survive the QP being fitted to
     * the agreed READ limits. */
    DAT_LMR_TRIPLET ra = dt_iov(a, 60000, 16), rb = dt_iov(b, 60000, 16);
    CHECK_OK(dat_ep_post_recv(a->ep, 1, &ra, dt_cookie(100), 0));
    CHECK_OK(dat_ep_post_recv(b->ep, 1, &rb, dt_cookie(200), 0));
    dt_pair_connect(&p);
    DAT_LMR_TRIPLET sa = dt_iov(a, 50000, 16), sb = dt_iov(b, 50000, 16);
    memcpy(a->buf + 50000, "from a to b ....", 16);
    memcpy(b->buf + 50000, "from b to a ....", 16);
    CHECK_OK(dat_ep_post_send(a->ep, 1, &sa, dt_cookie(101), DAT_COMPLETION_SUPPRESS_FLAG));
    CHECK_OK(dat_ep_post_send(b->ep, 1, &sb, dt_cookie(201), DAT_COMPLETION_SUPPRESS_FLAG));
    DAT_DTO_COMPLETION_EVENT_DATA rd;
    CHECK_EQ(dt_wait_dto(a->recv_evd, &rd), DAT_DTO_SUCCESS);
    CHECK_EQ(rd.user_cookie.as_64, 100);
    CHECK_EQ(dt_wait_dto(b->recv_evd, &rd), DAT_DTO_SUCCESS);
    CHECK_EQ(rd.user_cookie.as_64, 200);
    CHECK(memcmp(a->buf + 60000, "from b to a ....", 16) == 0);
    CHECK(memcmp(b->buf + 60000, "from a to b ....", 16) == 0);
    dt_fill(b->buf, 16 * 1024, (unsigned)(out * 10 + in));
    for (int i = 0; i < 12; i++) {
        DAT_LMR_TRIPLET v = dt_iov(a, (size_t)i * 1024, 1024);
        DAT_RMR_TRIPLET r = dt_remote(b, (size_t)i * 1024, 1024);
        CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &v, dt_cookie((uint64_t)i), &r, 0));
    }
    for (int i = 0; i < 12; i++) {
        DAT_DTO_COMPLETION_EVENT_DATA d;
        CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
        CHECK_EQ(d.user_cookie.as_64, i);
    }
    CHECK(memcmp(a->buf, b->buf, 12 * 1024) == 0);
    CHECK_OK(dat_ep_query(a->ep, DAT_EP_FIELD_ALL, &prm));
    CHECK_EQ(prm.ep_state, DAT_EP_STATE_CONNECTED);
    CHECK_EQ(prm.ep_attr.max_rdma_read_out, out);
    dt_pair_close(&p);
}

int main(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    fill_order(&p);
    local_errors(&p);
    dt_pair_close(&p);
    remote_errors();
    states();
    read_limits(8, 1);
    read_limits(2, 8);
    read_limits(1, 1);
    return dt_finish("test_rdma_read");
}
