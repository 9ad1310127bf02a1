/*
 * DTOs end to end between rnic0 and rnic1: SEND/RECV, RDMA WRITE, the
 * completion flags (SUPPRESS, UNSIGNALLED, BARRIER_FENCE, SOLICITED_WAIT),
 * completion events (cookie, length, status), the EP states where a post is
 * refused or flushed, and empty triplets.
 */
#include "dat_test.h"

#include <string.h>

static void send_recv(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    dt_fill(a->buf, 3000, 1);
    memset(b->buf, 0, 8192);
    /* Receive into two segments; the sender gathers from two. */
    DAT_LMR_TRIPLET rv[2] = { dt_iov(b, 100, 1000), dt_iov(b, 4096, 4000) };
    CHECK_OK(dat_ep_post_recv(b->ep, 2, rv, dt_cookie(77), DAT_COMPLETION_DEFAULT_FLAG));
    DAT_LMR_TRIPLET sv[2] = { dt_iov(a, 0, 1200), dt_iov(a, 1200, 1800) };
    CHECK_OK(dat_ep_post_send(a->ep, 2, sv, dt_cookie(55), DAT_COMPLETION_DEFAULT_FLAG));
    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 55);
    CHECK_EQ(d.transfered_length, 3000);
    CHECK(d.ep_handle == a->ep);
    CHECK_EQ(dt_wait_dto(b->recv_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 77);
    CHECK_EQ(d.transfered_length, 3000);
    CHECK(d.ep_handle == b->ep);
    CHECK(memcmp(b->buf + 100, a->buf, 1000) == 0);
    CHECK(memcmp(b->buf + 4096, a->buf + 1000, 2000) == 0);
    CHECK_EQ(b->buf[4096 + 2000], 0);
}

static void rdma_write(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    dt_fill(a->buf, 20000, 2);
    memset(b->buf, 0, 32768);
    DAT_LMR_TRIPLET v[3] = { dt_iov(a, 0, 5000), dt_iov(a, 5000, 0), dt_iov(a, 8000, 9000) };
    v[1].lmr_context = 0xDEAD;   /* an empty triplet's other members are irrelevant */
    DAT_RMR_TRIPLET r = dt_remote(b, 1000, 14000);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 3, v, dt_cookie(9), &r, DAT_COMPLETION_DEFAULT_FLAG));
    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 9);
    CHECK_EQ(d.transfered_length, 14000);
    CHECK(memcmp(b->buf + 1000, a->buf, 5000) == 0);
    CHECK(memcmp(b->buf + 6000, a->buf + 8000, 9000) == 0);
    CHECK_EQ(b->buf[999], 0);
    CHECK_EQ(b->buf[15000], 0);
    /* The target need not be filled: a shorter message is fine... */
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, v, dt_cookie(10), &r, DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    /* ...a longer one is a length error. */
    DAT_RMR_TRIPLET small = dt_remote(b, 0, 4999);
    CHECK_RET(dat_ep_post_rdma_write(a->ep, 1, v, dt_cookie(11), &small, DAT_COMPLETION_DEFAULT_FLAG),
              DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
}

static void suppress(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    dt_fill(a->buf, 256, 3);
    DAT_LMR_TRIPLET v = dt_iov(a, 0, 128), w = dt_iov(a, 128, 128);
    DAT_RMR_TRIPLET r1 = dt_remote(b, 0, 128), r2 = dt_remote(b, 128, 128);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(1), &r1, DAT_COMPLETION_SUPPRESS_FLAG));
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &w, dt_cookie(2), &r2, DAT_COMPLETION_DEFAULT_FLAG));
    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 2);   /* the suppressed one made no event */
    DAT_EVENT ev;
    CHECK_RET(dat_evd_dequeue(a->req_evd, &ev), DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
    CHECK(memcmp(b->buf, a->buf, 256) == 0);
    /* Suppressed DTOs alone: a hidden completion now and then frees their
     * queue slots (16 here) even though the consumer sees no event. */
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 12; i++)
            CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(100 + (uint64_t)i), &r1,
                                            DAT_COMPLETION_SUPPRESS_FLAG));
        CHECK_RET(dat_evd_wait(a->req_evd, 100, 1, &ev, &(DAT_COUNT){0}), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    }
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(999), &r1, DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 999);
}

static void flags_refused(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    DAT_LMR_TRIPLET v = dt_iov(a, 0, 64);
    DAT_RMR_TRIPLET r = dt_remote(b, 0, 64);
    /* UNSIGNALLED needs an EP configured for it. */
    CHECK_RET(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(1), &r, DAT_COMPLETION_UNSIGNALLED_FLAG),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
    CHECK_RET(dat_ep_post_send(a->ep, 1, &v, dt_cookie(1), DAT_COMPLETION_UNSIGNALLED_FLAG), DAT_INVALID_PARAMETER,
              DAT_INVALID_ARG5);
    CHECK_RET(dat_ep_post_recv(a->ep, 1, &v, dt_cookie(1), DAT_COMPLETION_UNSIGNALLED_FLAG), DAT_INVALID_PARAMETER,
              DAT_INVALID_ARG5);
    /* SOLICITED_WAIT belongs to sends, not RDMA. */
    CHECK_RET(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(1), &r, DAT_COMPLETION_SOLICITED_WAIT_FLAG),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
    /* Bits no DTO knows. */
    CHECK_RET(dat_ep_post_send(a->ep, 1, &v, dt_cookie(1), (DAT_COMPLETION_FLAGS)0x40), DAT_INVALID_PARAMETER,
              DAT_INVALID_ARG5);
    CHECK_RET(dat_ep_post_send(a->ep, 1, &v, dt_cookie(1), DAT_COMPLETION_EVD_THRESHOLD_FLAG),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    CHECK_RET(dat_ep_post_recv(a->ep, 1, &v, dt_cookie(1), DAT_COMPLETION_BARRIER_FENCE_FLAG),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    /* Segment counts and iov pointers. */
    CHECK_RET(dat_ep_post_send(a->ep, -1, &v, dt_cookie(1), 0), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_RET(dat_ep_post_send(a->ep, 5, &v, dt_cookie(1), 0), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_RET(dat_ep_post_send(a->ep, 1, NULL, dt_cookie(1), 0), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    CHECK_RET(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(1), NULL, 0), DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    /* A segment outside its LMR. */
    DAT_LMR_TRIPLET out = dt_iov(a, DT_BUF - 10, 11);
    CHECK_RET(dat_ep_post_send(a->ep, 1, &out, dt_cookie(1), 0), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    /* Nothing was posted by any of these. */
    DAT_EVENT ev;
    CHECK_RET(dat_evd_wait(a->req_evd, 20, 1, &ev, &(DAT_COUNT){0}), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
}

static void fence_and_solicited(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    dt_fill(a->buf, 512, 4);
    DAT_LMR_TRIPLET v = dt_iov(a, 0, 256), rd = dt_iov(a, 1024, 256);
    DAT_RMR_TRIPLET r = dt_remote(b, 0, 256);
    /* READ back what a WRITE put there: the fenced READ starts after it. */
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(1), &r, DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &rd, dt_cookie(2), &r, DAT_COMPLETION_BARRIER_FENCE_FLAG));
    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 1);
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 2);
    CHECK(memcmp(a->buf + 1024, a->buf, 256) == 0);
    /* A solicited send is delivered like any other. */
    DAT_LMR_TRIPLET rv = dt_iov(b, 8192, 256);
    CHECK_OK(dat_ep_post_recv(b->ep, 1, &rv, dt_cookie(3), DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_OK(dat_ep_post_send(a->ep, 1, &v, dt_cookie(4), DAT_COMPLETION_SOLICITED_WAIT_FLAG));
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK_EQ(dt_wait_dto(b->recv_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.transfered_length, 256);
}

/* An EP configured for unsignalled completions: the event is there to
 * dequeue but does not wake a waiter. */
static void unsignalled(void)
{
    DAT_EP_ATTR attr;
    struct dt_pair p;
    dt_side_open(&p.s[0], 0, NULL);
    DAT_EP_PARAM prm;
    CHECK_OK(dat_ep_query(p.s[0].ep, DAT_EP_FIELD_ALL, &prm));
    attr = prm.ep_attr;
    attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
    dt_side_close(&p.s[0]);
    dt_pair_open(&p, &attr, NULL);
    dt_pair_connect(&p);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    DAT_LMR_TRIPLET v = dt_iov(a, 0, 64);
    DAT_RMR_TRIPLET r = dt_remote(b, 0, 64);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(21), &r, DAT_COMPLETION_UNSIGNALLED_FLAG));
    DAT_EVENT ev;
    DAT_COUNT more = -1;
    CHECK_RET(dat_evd_wait(a->req_evd, 200, 1, &ev, &more), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    CHECK_EQ(more, 1);   /* it is queued, without notification */
    CHECK_OK(dat_evd_dequeue(a->req_evd, &ev));
    CHECK_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
    CHECK_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 21);
    CHECK_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_SUCCESS);
    /* A signalled one behind an unsignalled one wakes the waiter. */
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(22), &r, DAT_COMPLETION_UNSIGNALLED_FLAG));
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(23), &r, DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_OK(dat_evd_wait(a->req_evd, DT_WAIT_US, 2, &ev, &more));
    CHECK_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 22);
    CHECK_EQ(more, 1);
    dt_pair_close(&p);
}

static void states(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    DAT_LMR_TRIPLET v = dt_iov(a, 0, 64);
    DAT_RMR_TRIPLET r = dt_remote(b, 0, 64);
    /* Unconnected: requests are refused; receives may be posted ahead. */
    CHECK_RET(dat_ep_post_send(a->ep, 1, &v, dt_cookie(1), 0), DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED);
    CHECK_RET(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(1), &r, 0), DAT_INVALID_STATE,
              DAT_INVALID_STATE_EP_UNCONNECTED);
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &v, dt_cookie(1), &r, 0), DAT_INVALID_STATE,
              DAT_INVALID_STATE_EP_UNCONNECTED);
    DAT_LMR_TRIPLET rv = dt_iov(b, 0, 64);
    CHECK_OK(dat_ep_post_recv(b->ep, 1, &rv, dt_cookie(5), 0));
    dt_pair_connect(&p);
    dt_fill(a->buf, 64, 5);
    CHECK_OK(dat_ep_post_send(a->ep, 1, &v, dt_cookie(6), 0));
    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(b->recv_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 5);
    CHECK(memcmp(b->buf, a->buf, 64) == 0);
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    /* A posted receive is flushed by the disconnect. */
    CHECK_OK(dat_ep_post_recv(b->ep, 1, &rv, dt_cookie(7), 0));
    CHECK_OK(dat_ep_disconnect(a->ep, DAT_CLOSE_ABRUPT_FLAG));
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    CHECK_EQ(dt_wait_dto(b->recv_evd, &d), DAT_DTO_ERR_FLUSHED);
    CHECK_EQ(d.user_cookie.as_64, 7);
    /* DISCONNECTED: accepted, and flushed at once to the request EVD. */
    CHECK_OK(dat_ep_post_send(a->ep, 1, &v, dt_cookie(8), 0));
    DAT_EVENT ev;
    CHECK_OK(dat_evd_dequeue(a->req_evd, &ev));
    CHECK_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_ERR_FLUSHED);
    CHECK_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 8);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(9), &r, DAT_COMPLETION_SUPPRESS_FLAG));
    CHECK_OK(dat_evd_dequeue(a->req_evd, &ev));
    CHECK_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_ERR_FLUSHED);
    CHECK_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 9);
    CHECK_OK(dat_ep_post_recv(a->ep, 1, &v, dt_cookie(10), 0));
    CHECK_OK(dat_evd_dequeue(a->recv_evd, &ev));
    CHECK_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_ERR_FLUSHED);
    CHECK_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 10);
    dt_pair_close(&p);
}

/* The request queue holds max_request_dtos: one more is refused. */
static void queue_full(void)
{
    DAT_EP_ATTR attr;
    struct dt_side tmp;
    dt_side_open(&tmp, 0, NULL);
    DAT_EP_PARAM prm;
    CHECK_OK(dat_ep_query(tmp.ep, DAT_EP_FIELD_ALL, &prm));
    dt_side_close(&tmp);
    attr = prm.ep_attr;
    attr.max_request_dtos = 2;
    struct dt_pair p;
    dt_pair_open(&p, &attr, NULL);
    dt_pair_connect(&p);
    DAT_LMR_TRIPLET v = dt_iov(&p.s[0], 0, 64);
    DAT_RMR_TRIPLET r = dt_remote(&p.s[1], 0, 64);
    CHECK_OK(dat_ep_post_rdma_write(p.s[0].ep, 1, &v, dt_cookie(1), &r, 0));
    CHECK_OK(dat_ep_post_rdma_write(p.s[0].ep, 1, &v, dt_cookie(2), &r, 0));
    CHECK_RET(dat_ep_post_rdma_write(p.s[0].ep, 1, &v, dt_cookie(3), &r, 0), DAT_INSUFFICIENT_RESOURCES,
              DAT_RESOURCE_TEP);
    CHECK_EQ(dt_wait_dto(p.s[0].req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK_OK(dat_ep_post_rdma_write(p.s[0].ep, 1, &v, dt_cookie(3), &r, 0));
    CHECK_EQ(dt_wait_dto(p.s[0].req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK_EQ(dt_wait_dto(p.s[0].req_evd, NULL), DAT_DTO_SUCCESS);
    dt_pair_close(&p);
}

int main(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    send_recv(&p);
    rdma_write(&p);
    suppress(&p);
    flags_refused(&p);
    fence_and_solicited(&p);
    dt_pair_close(&p);
    unsignalled();
    states();
    queue_full();
    return dt_finish("test_dto");
}
