/*
 * A CNO's proxy agent that calls back into libdat: it dequeues from the EVD
 * that triggered, until the EVD is empty (an empty dequeue drains the CQ).
 * 64 signalled RDMA WRITEs, all completed before anything drains their CQ,
 * must give exactly 64 completion events, in the order posted, none lost
 * or duplicated, however the agent's dequeues and the consumer's share
 * them (docs/libdat.md, "Consumer callbacks").
 */
#include "dat_test.h"

#include <string.h>

#define N 64
#define LEN 64u

static DAT_EVD_HANDLE req_evd;
static uint64_t seen[4 * N];
static int n_seen, agent_calls, bad_events;

static void take(const DAT_EVENT *ev)
{
    const DAT_DTO_COMPLETION_EVENT_DATA *d = &ev->event_data.dto_completion_event_data;
    if (ev->event_number != DAT_DTO_COMPLETION_EVENT || d->status != DAT_DTO_SUCCESS || d->transfered_length != LEN) {
        bad_events++;
        return;
    }
    if (n_seen < 4 * N)
        seen[n_seen] = d->user_cookie.as_64;
    n_seen++;
}

static void agent(DAT_PVOID data, DAT_EVD_HANDLE evd)
{
    (void)data;
    agent_calls++;
    CHECK(evd == req_evd);
    DAT_EVENT ev;
    while (dat_evd_dequeue(evd, &ev) == DAT_SUCCESS)
        take(&ev);
}

int main(void)
{
    /* Room for all 64 on the request queue. */
    DAT_EP_ATTR attr;
    memset(&attr, 0, sizeof(attr));
    attr.max_request_dtos = 2 * N;
    struct dt_pair p;
    dt_pair_open(&p, &attr, NULL);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    /* A request EVD (and CQ) with room for all 64 completions, and a CNO
     * whose agent dequeues from it. */
    DAT_CNO_HANDLE cno;
    DAT_OS_WAIT_PROXY_AGENT ag = { NULL, agent };
    CHECK_OK(dat_cno_create(a->ia, ag, &cno));
    DT_MUST(dat_evd_create(a->ia, 4 * N, cno, DAT_EVD_DTO_FLAG, &req_evd));
    DAT_EP_PARAM prm;
    memset(&prm, 0, sizeof(prm));
    prm.request_evd_handle = req_evd;
    DT_MUST(dat_ep_modify(a->ep, DAT_EP_FIELD_REQUEST_EVD_HANDLE, &prm));
    dt_pair_connect(&p);

    dt_fill(a->buf, N * LEN, 7);
    memset(b->buf, 0, N * LEN);
    for (int i = 0; i < N; i++) {
        DAT_LMR_TRIPLET v = dt_iov(a, (size_t)i * LEN, LEN);
        DAT_RMR_TRIPLET r = dt_remote(b, (size_t)i * LEN, LEN);
        CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie((uint64_t)i), &r, DAT_COMPLETION_DEFAULT_FLAG));
    }
    /* Let the NIC complete them all before anything drains the CQ: in
     * lockstep an empty dequeue of a software EVD moves NIC time (a CPU's
     * look at memory) and drains nothing. */
    DAT_EVD_HANDLE idle;
    DT_MUST(dat_evd_create(a->ia, 1, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &idle));
    DAT_EVENT ev;
    for (int k = 0; k < 20000; k++)
        CHECK_RET(dat_evd_dequeue(idle, &ev), DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);

    /* The consumer waits on the CNO, re-arming it, and takes what the agent
     * left; the agent takes what it finds when the CNO triggers. */
    for (int rounds = 0; n_seen + bad_events < N && rounds < 2 * N; rounds++) {
        DAT_EVD_HANDLE got = DAT_HANDLE_NULL;
        if (dat_cno_wait(cno, DT_WAIT_US, &got) != DAT_SUCCESS)
            break;
        CHECK(got == req_evd);
        while (dat_evd_dequeue(req_evd, &ev) == DAT_SUCCESS)
            take(&ev);
    }
    /* Nothing more comes. */
    CHECK_RET(dat_evd_wait(req_evd, 100, 1, &ev, &(DAT_COUNT){0}), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);

    CHECK_EQ(bad_events, 0);
    CHECK_EQ(n_seen, N);
    CHECK(agent_calls >= 1);
    int first_wrong = -1;
    for (int i = 0; i < N && i < n_seen; i++) {
        if (seen[i] != (uint64_t)i) {
            first_wrong = i;
            break;
        }
    }
    CHECK_EQ(first_wrong, -1);
    if (first_wrong >= 0)
        fprintf(stderr, "event %d has cookie %llu\n", first_wrong, (unsigned long long)seen[first_wrong]);
    CHECK(memcmp(b->buf, a->buf, N * LEN) == 0);

    CHECK_RET(dat_cno_free(cno), DAT_INVALID_STATE, DAT_INVALID_STATE_CNO_IN_USE);   /* req_evd's */
    dt_pair_close(&p);
    return dt_finish("test_cno_agent_dequeue");
}
