/*
 * A CNO's proxy agent that calls back into libdat when a connection event
 * triggers it: it dequeues from the connect EVD until it is empty and asks
 * for the EP's status, and both run the connection manager. The events come
 * from the connection manager's handling of a message (the DISCONNECTED a
 * DISC brings, the PEER_REJECTED of a REJ, the ESTABLISHED of a REP): the
 * agent is not called from inside that handling, so no nested pass of the
 * connection manager frees the connection the message came on while it is
 * in use (docs/libdat.md, "Consumer callbacks"). Each event comes once.
 *
 * The use of freed memory shows under ASan; in the normal build CTest runs
 * this with glibc's malloc poisoning freed memory (CMakeLists.txt).
 */
#include "dat_test.h"

#include <string.h>

static DAT_EVD_HANDLE watched;
static DAT_EP_HANDLE watched_ep;
static DAT_EVENT_NUMBER evs[16];
static int n_evs, agent_calls;

static void record(const DAT_EVENT *ev)
{
    if (n_evs < 16)
        evs[n_evs] = ev->event_number;
    n_evs++;
}

static void agent(DAT_PVOID data, DAT_EVD_HANDLE evd)
{
    (void)data;
    agent_calls++;
    CHECK(evd == watched);
    DAT_EVENT ev;
    while (dat_evd_dequeue(evd, &ev) == DAT_SUCCESS)
        record(&ev);
    DAT_EP_STATE st;
    CHECK_OK(dat_ep_get_status(watched_ep, &st, NULL, NULL));
}

static void watch(DAT_CNO_HANDLE cno, DAT_EVD_HANDLE evd, DAT_EP_HANDLE ep)
{
    CHECK_OK(dat_evd_modify_cno(evd, cno));
    watched = evd;
    watched_ep = ep;
    n_evs = agent_calls = 0;
}

/* Waits on the CNO (re-arming it) until `want` events were seen. */
static void collect(DAT_CNO_HANDLE cno, int want)
{
    for (int rounds = 0; n_evs < want && rounds < 8; rounds++) {
        DAT_EVD_HANDLE got = DAT_HANDLE_NULL;
        if (dat_cno_wait(cno, DT_WAIT_US, &got) != DAT_SUCCESS)
            break;
        CHECK(got == watched);
        DAT_EVENT ev;
        while (dat_evd_dequeue(watched, &ev) == DAT_SUCCESS)
            record(&ev);
    }
}

/* Exactly `want`, and nothing after it. */
static void saw_once(DAT_EVENT_NUMBER want)
{
    CHECK_EQ(n_evs, 1);
    CHECK_EQ(evs[0], want);
    CHECK(agent_calls >= 1);
    DAT_EVENT ev;
    CHECK_RET(dat_evd_dequeue(watched, &ev), DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
    DAT_EP_STATE st;
    CHECK_OK(dat_ep_get_status(watched_ep, &st, NULL, NULL));
    CHECK_EQ(st, want == DAT_CONNECTION_EVENT_ESTABLISHED ? DAT_EP_STATE_CONNECTED : DAT_EP_STATE_DISCONNECTED);
}

static DAT_CR_HANDLE next_cr(struct dt_side *s)
{
    DAT_EVENT ev;
    DT_MUST(dt_wait(s->cr_evd, DT_WAIT_US, &ev));
    CHECK_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
    return ev.event_data.cr_arrival_event_data.cr_handle;
}

int main(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    DAT_OS_WAIT_PROXY_AGENT ag = { NULL, agent };
    DAT_CNO_HANDLE cno_a, cno_b;
    CHECK_OK(dat_cno_create(a->ia, ag, &cno_a));
    CHECK_OK(dat_cno_create(b->ia, ag, &cno_b));

    /* ESTABLISHED, from the REP: the active side's agent. */
    watch(cno_a, a->conn_evd, a->ep);
    CHECK_OK(dat_ep_connect(a->ep, dt_addr(b->ia), p.qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT,
                            DAT_CONNECT_DEFAULT_FLAG));
    CHECK_OK(dat_cr_accept(next_cr(b), b->ep, 0, NULL));
    collect(cno_a, 1);
    saw_once(DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_OK(dat_evd_modify_cno(a->conn_evd, DAT_HANDLE_NULL));

    /* DISCONNECTED, from the DISC: the passive side's agent. */
    watch(cno_b, b->conn_evd, b->ep);
    CHECK_OK(dat_ep_disconnect(a->ep, DAT_CLOSE_ABRUPT_FLAG));
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    collect(cno_b, 1);
    saw_once(DAT_CONNECTION_EVENT_DISCONNECTED);
    CHECK_OK(dat_evd_modify_cno(b->conn_evd, DAT_HANDLE_NULL));

    /* PEER_REJECTED, from the REJ: the active side's agent. */
    CHECK_OK(dat_ep_reset(a->ep));
    CHECK_OK(dat_ep_reset(b->ep));
    watch(cno_a, a->conn_evd, a->ep);
    CHECK_OK(dat_ep_connect(a->ep, dt_addr(b->ia), p.qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT,
                            DAT_CONNECT_DEFAULT_FLAG));
    CHECK_OK(dat_cr_reject(next_cr(b)));
    collect(cno_a, 1);
    saw_once(DAT_CONNECTION_EVENT_PEER_REJECTED);
    CHECK_OK(dat_evd_modify_cno(a->conn_evd, DAT_HANDLE_NULL));

    /* The pair still connects afterwards. */
    CHECK_OK(dat_ep_reset(a->ep));
    dt_pair_connect(&p);

    CHECK_OK(dat_cno_free(cno_a));
    CHECK_OK(dat_cno_free(cno_b));
    dt_pair_close(&p);
    return dt_finish("test_cno_agent_cm");
}
