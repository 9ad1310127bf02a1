/*
 * dat_evd_resize on EVDs that take DTO completions. Resizing "should not
 * cause any incoming or current events on the event queue to be lost", so
 * an EVD resized up must hold every completion it now has room for, the
 * hardware CQ beneath it included:
 *
 * - a request EVD of 32 resized to 64, then 64 signalled RDMA WRITEs, all
 *   completed by the NIC before anything drains the CQ: exactly 64 events,
 *   in order, no overflow on the async EVD, and every send-queue slot back
 *   (the EP is idle and takes max_request_dtos more at once);
 * - a resize below the number of events pending (completions the NIC has
 *   written count) is DAT_INVALID_STATE and changes nothing;
 * - a resize the provider cannot carry out right now (a receive is posted
 *   on an EP feeding the EVD, so the CQ beneath cannot be replaced) is
 *   DAT_INSUFFICIENT_RESOURCES and changes nothing: the receive completes
 *   as if nothing had been asked, and the same resize succeeds once it has.
 */
#include "dat_test.h"

#include <string.h>

#define N 64
#define LEN 64u

/* A software EVD of side 0 that stays empty: in lockstep an empty dequeue
 * of it costs a CPU's look at memory (NIC time) and drains no CQ. */
static DAT_EVD_HANDLE idle;

static void let_nic_run(void)
{
    DAT_EVENT ev;
    for (int k = 0; k < 20000; k++)
        CHECK_RET(dat_evd_dequeue(idle, &ev), DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
}

/* Called every few posts of a long run of them. In lockstep a post is one
 * NIC cycle, a doorbell each cycle, and the NIC's trace port (4 events
 * deep, one out a cycle) loses an event and stops the simulation when the
 * engine's events come on top of ~100 doorbells in a row. A program does
 * some work between its posts; this is that work. */
static void breathe(int i)
{
    DAT_EVENT ev;
    if (i % 32 == 31)
        CHECK_RET(dat_evd_dequeue(idle, &ev), DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
}

/* Dequeues everything queued on evd; each must be a successful DTO
 * completion of `len` bytes with cookie first, first + 1, ... Returns how
 * many there were. */
static int take_in_order(DAT_EVD_HANDLE evd, uint64_t first, DAT_VLEN len)
{
    DAT_EVENT ev;
    int n = 0, wrong = 0;
    while (dat_evd_dequeue(evd, &ev) == DAT_SUCCESS) {
        const DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;
        if (ev.event_number != DAT_DTO_COMPLETION_EVENT || d->status != DAT_DTO_SUCCESS ||
            d->transfered_length != len || d->user_cookie.as_64 != first + (uint64_t)n)
            wrong++;
        n++;
    }
    CHECK_EQ(wrong, 0);
    return n;
}

static void no_async_event(const struct dt_side *s)
{
    DAT_EVENT ev;
    CHECK_RET(dat_evd_dequeue(s->async_evd, &ev), DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
}

static DAT_COUNT qlen_of(DAT_EVD_HANDLE evd)
{
    DAT_EVD_PARAM q;
    CHECK_OK(dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &q));
    return q.evd_qlen;
}

static DAT_BOOLEAN request_idle(DAT_EP_HANDLE ep)
{
    DAT_EP_STATE st;
    DAT_BOOLEAN rx, tx = DAT_FALSE;
    CHECK_OK(dat_ep_get_status(ep, &st, &rx, &tx));
    return tx;
}

/* n signalled RDMA WRITEs from a to b, cookies first..first+n-1, all
 * completed by the NIC before the request EVD is looked at. */
static int write_round(struct dt_pair *p, DAT_EVD_HANDLE req_evd, int n, uint64_t first)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    dt_fill(a->buf, (size_t)n * LEN, (unsigned)first + 1u);
    memset(b->buf, 0, (size_t)n * LEN);
    for (int i = 0; i < n; i++) {
        DAT_LMR_TRIPLET v = dt_iov(a, (size_t)i * LEN, LEN);
        DAT_RMR_TRIPLET r = dt_remote(b, (size_t)i * LEN, LEN);
        CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(first + (uint64_t)i), &r,
                                        DAT_COMPLETION_DEFAULT_FLAG));
        breathe(i);
    }
    let_nic_run();
    const int got = take_in_order(req_evd, first, LEN);
    CHECK(memcmp(b->buf, a->buf, (size_t)n * LEN) == 0);
    return got;
}

int main(void)
{
    /* Side 0 may have 4N requests outstanding, side 1 4N receives: the
     * queues never limit what the EVDs are tested for. */
    DAT_EP_ATTR attr0, attr1;
    memset(&attr0, 0, sizeof(attr0));
    memset(&attr1, 0, sizeof(attr1));
    attr0.max_request_dtos = 4 * N;
    attr1.max_recv_dtos = 4 * N;
    struct dt_pair p;
    dt_pair_open(&p, &attr0, &attr1);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    DT_MUST(dat_evd_create(a->ia, 1, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &idle));

    /* A request EVD of N / 2, resized to N once the EP uses it. */
    DAT_EVD_HANDLE req_evd;
    DT_MUST(dat_evd_create(a->ia, N / 2, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &req_evd));
    DAT_EP_PARAM prm;
    memset(&prm, 0, sizeof(prm));
    prm.request_evd_handle = req_evd;
    DT_MUST(dat_ep_modify(a->ep, DAT_EP_FIELD_REQUEST_EVD_HANDLE, &prm));
    dt_pair_connect(&p);
    CHECK_OK(dat_evd_resize(req_evd, N));
    CHECK_EQ(qlen_of(req_evd), N);

    /* The user's report: N signalled WRITEs gave N / 2 events, no overflow
     * event, and send-queue slots that never came back. */
    CHECK_EQ(write_round(&p, req_evd, N, 1000), N);
    no_async_event(a);
    CHECK_EQ(request_idle(a->ep), DAT_TRUE);
    /* Every slot is back: the same again, then max_request_dtos at once. */
    CHECK_EQ(write_round(&p, req_evd, N, 2000), N);
    no_async_event(a);
    int accepted = 0;
    for (int i = 0; i < 4 * N; i++) {
        DAT_LMR_TRIPLET v = dt_iov(a, (size_t)(i % N) * LEN, LEN);
        DAT_RMR_TRIPLET r = dt_remote(b, (size_t)(i % N) * LEN, LEN);
        if (dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(3000u + (uint64_t)i), &r,
                                   DAT_COMPLETION_SUPPRESS_FLAG) == DAT_SUCCESS)
            accepted++;
        breathe(i);
    }
    CHECK_EQ(accepted, 4 * N);
    DAT_EVENT ev;
    for (int k = 0; k < 20000 && request_idle(a->ep) != DAT_TRUE; k++)
        CHECK_RET(dat_evd_dequeue(req_evd, &ev), DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
    CHECK_EQ(request_idle(a->ep), DAT_TRUE);
    no_async_event(a);

    /* Completions the NIC has written are pending events: a resize below
     * their number is refused and changes nothing; one to exactly their
     * number keeps them all. */
    dt_fill(a->buf, 8 * LEN, 5);
    for (int i = 0; i < 8; i++) {
        DAT_LMR_TRIPLET v = dt_iov(a, (size_t)i * LEN, LEN);
        DAT_RMR_TRIPLET r = dt_remote(b, (size_t)i * LEN, LEN);
        CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(4000u + (uint64_t)i), &r,
                                        DAT_COMPLETION_DEFAULT_FLAG));
    }
    let_nic_run();
    CHECK_RET(dat_evd_resize(req_evd, 7), DAT_INVALID_STATE, DAT_NO_SUBTYPE);
    CHECK_EQ(qlen_of(req_evd), N);
    CHECK_OK(dat_evd_resize(req_evd, 8));
    CHECK_EQ(qlen_of(req_evd), 8);
    CHECK_EQ(take_in_order(req_evd, 4000, LEN), 8);
    /* Back up to N: the same N again, none lost. */
    CHECK_OK(dat_evd_resize(req_evd, N));
    CHECK_EQ(write_round(&p, req_evd, N, 5000), N);
    no_async_event(a);

    /* Side 1's receive EVD (64) cannot have its CQ replaced while a receive
     * is posted on the EP that feeds it: refused, nothing changed. */
    DAT_LMR_TRIPLET rv = dt_iov(b, 0, LEN);
    CHECK_OK(dat_ep_post_recv(b->ep, 1, &rv, dt_cookie(1), DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_TYPE(dat_evd_resize(b->recv_evd, 4 * N), DAT_INSUFFICIENT_RESOURCES);
    CHECK_EQ(qlen_of(b->recv_evd), 64);
    DAT_LMR_TRIPLET sv = dt_iov(a, 0, LEN);
    CHECK_OK(dat_ep_post_send(a->ep, 1, &sv, dt_cookie(6000), DAT_COMPLETION_DEFAULT_FLAG));
    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(dt_wait_dto(b->recv_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 1);
    CHECK_EQ(d.transfered_length, LEN);
    /* Nothing posted now: the CQ grows with the queue, and 3N receives
     * completed before side 1 looks all arrive. */
    CHECK_OK(dat_evd_resize(b->recv_evd, 4 * N));
    CHECK_EQ(qlen_of(b->recv_evd), 4 * N);
    for (int i = 0; i < 3 * N; i++) {
        rv = dt_iov(b, (size_t)i * LEN, LEN);
        CHECK_OK(dat_ep_post_recv(b->ep, 1, &rv, dt_cookie(7000u + (uint64_t)i), DAT_COMPLETION_DEFAULT_FLAG));
        breathe(i);
    }
    dt_fill(a->buf, 3 * N * LEN, 9);
    for (int i = 0; i < 3 * N; i++) {
        sv = dt_iov(a, (size_t)i * LEN, LEN);
        CHECK_OK(dat_ep_post_send(a->ep, 1, &sv, dt_cookie(8000u + (uint64_t)i), DAT_COMPLETION_SUPPRESS_FLAG));
        breathe(i);
    }
    let_nic_run();
    CHECK_EQ(take_in_order(b->recv_evd, 7000, LEN), 3 * N);
    CHECK(memcmp(b->buf, a->buf, 3 * N * LEN) == 0);
    no_async_event(a);
    no_async_event(b);

    dt_pair_close(&p);
    return dt_finish("test_evd_resize");
}
