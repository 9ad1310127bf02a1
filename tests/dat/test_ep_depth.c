/*
 * An EP's queues hold exactly what the consumer asked for: with
 * max_request_dtos and max_recv_dtos of 1, 3, 5 and 17 (a ring of 2, 4, 8
 * and 32 underneath), that many requests and receives may be outstanding, and the
 * next post is DAT_INSUFFICIENT_RESOURCES ("the operation failed due to
 * resource limitations", the dat_ep_post_* pages). dat_ep_query reports the
 * numbers asked for. Both EPs of a connection, in both directions: SENDs
 * into receives, then RDMA WRITEs, then the receive queues filled again
 * once their receives have completed. Then a queue filled with suppressed
 * WRITEs must empty by itself (no event reports them; the one that fills
 * the queue has the NIC write a CQE), and a depth of 1 too.
 */
#include "dat_test.h"

#include <string.h>

#define LEN 64u

static void check_query(DAT_EP_HANDLE ep, DAT_COUNT n)
{
    DAT_EP_PARAM prm;
    CHECK_OK(dat_ep_query(ep, DAT_EP_FIELD_ALL, &prm));
    CHECK_EQ(prm.ep_attr.max_request_dtos, n);
    CHECK_EQ(prm.ep_attr.max_recv_dtos, n);
}

/* Posts receives on s until one is refused; returns how many were taken.
 * The one refused must be refused for resources. */
static int fill_receives(struct dt_side *s, int limit, uint64_t cookie)
{
    int n = 0;
    for (; n <= limit; n++) {
        DAT_LMR_TRIPLET v = dt_iov(s, (size_t)n * LEN, LEN);
        DAT_RETURN r = dat_ep_post_recv(s->ep, 1, &v, dt_cookie(cookie + (uint64_t)n), DAT_COMPLETION_DEFAULT_FLAG);
        if (r != DAT_SUCCESS) {
            CHECK_EQ(DAT_GET_TYPE(r), DAT_INSUFFICIENT_RESOURCES);
            break;
        }
    }
    return n;
}

/* Posts n + 1 requests from `from` to `to` (SENDs, or RDMA WRITEs into
 * to's buffer) without letting libdat look at a completion: n are taken,
 * the last refused. Then all n complete. */
static void fill_requests(struct dt_pair *p, int from, int n, bool send, uint64_t cookie)
{
    struct dt_side *s = &p->s[from], *t = &p->s[1 - from];
    dt_fill(s->buf, (size_t)(n + 1) * LEN, (unsigned)cookie);
    int taken = 0;
    for (int i = 0; i <= n; i++) {
        DAT_LMR_TRIPLET v = dt_iov(s, (size_t)i * LEN, LEN);
        DAT_RMR_TRIPLET r = dt_remote(t, (size_t)i * LEN, LEN);
        DAT_DTO_COOKIE c = dt_cookie(cookie + (uint64_t)i);
        DAT_RETURN ret = send ? dat_ep_post_send(s->ep, 1, &v, c, DAT_COMPLETION_DEFAULT_FLAG)
                              : dat_ep_post_rdma_write(s->ep, 1, &v, c, &r, DAT_COMPLETION_DEFAULT_FLAG);
        if (i < n) {
            CHECK_OK(ret);
            taken += ret == DAT_SUCCESS;
        } else {
            CHECK_TYPE(ret, DAT_INSUFFICIENT_RESOURCES);
        }
    }
    for (int i = 0; i < taken; i++) {
        DAT_DTO_COMPLETION_EVENT_DATA d;
        CHECK_EQ(dt_wait_dto(s->req_evd, &d), DAT_DTO_SUCCESS);
        CHECK_EQ(d.user_cookie.as_64, cookie + (uint64_t)i);
    }
    if (send) {
        for (int i = 0; i < taken; i++) {
            DAT_DTO_COMPLETION_EVENT_DATA d;
            CHECK_EQ(dt_wait_dto(t->recv_evd, &d), DAT_DTO_SUCCESS);
            CHECK_EQ(d.transfered_length, LEN);
        }
    }
    CHECK(memcmp(t->buf, s->buf, (size_t)n * LEN) == 0);
}

static void depth(DAT_COUNT n)
{
    const int before = rnic_check_failures();
    DAT_EP_ATTR attr;
    memset(&attr, 0, sizeof(attr));
    attr.max_request_dtos = n;
    attr.max_recv_dtos = n;
    struct dt_pair p;
    dt_pair_open(&p, &attr, &attr);
    for (int s = 0; s < 2; s++) {
        check_query(p.s[s].ep, n);
        /* Receives may be posted before the connection exists. */
        CHECK_EQ(fill_receives(&p.s[s], n, 100), n);
    }
    dt_pair_connect(&p);
    for (int s = 0; s < 2; s++) {
        fill_requests(&p, s, n, true, 1000u * (uint64_t)(s + 1));
        fill_requests(&p, s, n, false, 1000u * (uint64_t)(s + 1) + 500u);
        /* The peer's receives are all used: its queue takes n again. */
        CHECK_EQ(fill_receives(&p.s[1 - s], n, 200), n);
    }
    /* Suppressed: no events, but the queue empties without help. */
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i <= n; i++) {
            DAT_LMR_TRIPLET v = dt_iov(a, (size_t)i * LEN, LEN);
            DAT_RMR_TRIPLET r = dt_remote(b, (size_t)i * LEN, LEN);
            DAT_RETURN ret = dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(9000), &r, DAT_COMPLETION_SUPPRESS_FLAG);
            if (i < n)
                CHECK_OK(ret);
            else
                CHECK_TYPE(ret, DAT_INSUFFICIENT_RESOURCES);
        }
        DAT_EP_STATE st;
        DAT_BOOLEAN rx, tx = DAT_FALSE;
        DAT_EVENT ev;
        for (int k = 0; k < 10000 && tx != DAT_TRUE; k++) {
            CHECK_OK(dat_ep_get_status(a->ep, &st, &rx, &tx));
            if (tx != DAT_TRUE)
                CHECK_RET(dat_evd_dequeue(a->req_evd, &ev), DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
        }
        CHECK_EQ(tx, DAT_TRUE);
    }
    for (int s = 0; s < 2; s++)
        check_query(p.s[s].ep, n);
    dt_pair_close(&p);
    if (rnic_check_failures() != before)
        fprintf(stderr, "depth %d failed\n", (int)n);
}

int main(void)
{
    depth(1);
    depth(3);
    depth(5);
    depth(17);
    return dt_finish("test_ep_depth");
}
