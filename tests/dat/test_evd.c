/*
 * EVDs and CNOs: create/query/resize/free, software events, dequeue and
 * wait (threshold, timeouts in NIC time, nmore), enable/disable,
 * unwaitable, overflow reported on the async EVD, CNO wait and its agent.
 */
#include "dat_test.h"

#include <string.h>

static DAT_EVENT soft(void *ptr)
{
    DAT_EVENT e;
    memset(&e, 0, sizeof(e));
    e.event_number = DAT_SOFTWARE_EVENT;
    e.event_data.software_event_data.pointer = ptr;
    return e;
}

static void software_events(struct dt_side *s)
{
    DAT_EVD_HANDLE evd;
    CHECK_RET(dat_evd_create(s->ia, 0, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &evd), DAT_INVALID_PARAMETER,
              DAT_INVALID_ARG2);
    CHECK_RET(dat_evd_create(s->ia, 4, DAT_HANDLE_NULL, (DAT_EVD_FLAGS)0, &evd), DAT_INVALID_PARAMETER,
              DAT_INVALID_ARG4);
    CHECK_RET(dat_evd_create(s->ia, 4, DAT_HANDLE_NULL, (DAT_EVD_FLAGS)0x2, &evd), DAT_INVALID_PARAMETER,
              DAT_INVALID_ARG4);
    CHECK_RET(dat_evd_create(s->ia, 4, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, NULL), DAT_INVALID_PARAMETER,
              DAT_INVALID_ARG5);
    CHECK_OK(dat_evd_create(s->ia, 3, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &evd));
    DAT_EVD_PARAM q;
    CHECK_OK(dat_evd_query(evd, DAT_EVD_FIELD_ALL, &q));
    CHECK(q.ia_handle == s->ia && q.cno_handle == DAT_HANDLE_NULL);
    CHECK_EQ(q.evd_qlen, 3);
    CHECK_EQ(q.evd_flags, DAT_EVD_SOFTWARE_FLAG);
    CHECK(q.evd_state & DAT_EVD_STATE_ENABLED);
    CHECK(q.evd_state & DAT_EVD_STATE_WAITABLE);
    CHECK_RET(dat_evd_query(evd, (DAT_EVD_PARAM_MASK)0x40, &q), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    DAT_EVENT e, out;
    DAT_COUNT more;
    CHECK_RET(dat_evd_dequeue(evd, &out), DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
    CHECK_RET(dat_evd_wait(evd, 30, 1, &out, &more), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    CHECK_EQ(more, 0);
    int marks[3];
    for (int i = 0; i < 3; i++) {
        e = soft(&marks[i]);
        CHECK_OK(dat_evd_post_se(evd, &e));
    }
    e = soft(NULL);
    CHECK_RET(dat_evd_post_se(evd, &e), DAT_QUEUE_FULL, DAT_NO_SUBTYPE);
    e.event_number = DAT_DTO_COMPLETION_EVENT;
    CHECK_RET(dat_evd_post_se(evd, &e), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_RET(dat_evd_post_se(evd, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    /* Shrinking below what is queued is refused; growing keeps the order. */
    CHECK_RET(dat_evd_resize(evd, 2), DAT_INVALID_STATE, DAT_NO_SUBTYPE);
    CHECK_RET(dat_evd_resize(evd, 0), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_OK(dat_evd_resize(evd, 5));
    CHECK_OK(dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &q));
    CHECK_EQ(q.evd_qlen, 5);
    /* Threshold: wait until that many are queued; more than the queue
     * holds, or less than one, is invalid. */
    CHECK_RET(dat_evd_wait(evd, 30, 6, &out, &more), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    CHECK_RET(dat_evd_wait(evd, 30, 0, &out, &more), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    CHECK_RET(dat_evd_wait(evd, 30, 4, &out, &more), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    CHECK_EQ(more, 3);
    CHECK_RET(dat_evd_wait(evd, 30, 1, NULL, &more), DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
    CHECK_RET(dat_evd_wait(evd, 30, 1, &out, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    CHECK_OK(dat_evd_wait(evd, 30, 3, &out, &more));
    CHECK_EQ(out.event_number, DAT_SOFTWARE_EVENT);
    CHECK(out.evd_handle == evd);
    CHECK(out.event_data.software_event_data.pointer == &marks[0]);
    CHECK_EQ(more, 2);
    CHECK_OK(dat_evd_dequeue(evd, &out));
    CHECK(out.event_data.software_event_data.pointer == &marks[1]);
    CHECK_OK(dat_evd_wait(evd, 0, 1, &out, &more));
    CHECK(out.event_data.software_event_data.pointer == &marks[2]);
    CHECK_EQ(more, 0);
    CHECK_RET(dat_evd_dequeue(evd, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    /* Unwaitable: waits are refused until cleared; dequeue still works. */
    e = soft(NULL);
    CHECK_OK(dat_evd_post_se(evd, &e));
    CHECK_OK(dat_evd_set_unwaitable(evd));
    CHECK_OK(dat_evd_query(evd, DAT_EVD_FIELD_EVD_STATE, &q));
    CHECK(q.evd_state & DAT_EVD_STATE_UNWAITABLE);
    CHECK_RET(dat_evd_wait(evd, 30, 1, &out, &more), DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_UNWAITABLE);
    CHECK_OK(dat_evd_clear_unwaitable(evd));
    CHECK_OK(dat_evd_wait(evd, 30, 1, &out, &more));
    CHECK_OK(dat_evd_free(evd));
}

/* A zero timeout only looks; a finite one expires (in NIC time: the
 * connect timeout in test_connect shows the event comes after it, not
 * before). */
static void timeouts_are_nic_time(struct dt_side *s)
{
    DAT_EVD_HANDLE evd;
    CHECK_OK(dat_evd_create(s->ia, 2, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &evd));
    DAT_EVENT out;
    DAT_COUNT more;
    CHECK_RET(dat_evd_wait(evd, 0, 1, &out, &more), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    CHECK_RET(dat_evd_wait(evd, 1000, 1, &out, &more), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    CHECK_OK(dat_evd_free(evd));
}

static int agent_calls;
static DAT_EVD_HANDLE agent_evd;
static void agent(DAT_PVOID data, DAT_EVD_HANDLE evd)
{
    agent_calls += *(int *)data;
    agent_evd = evd;
}

static void cno(struct dt_side *s)
{
    static int one = 1;
    DAT_OS_WAIT_PROXY_AGENT ag = { &one, agent };
    DAT_CNO_HANDLE cno;
    CHECK_RET(dat_cno_create(s->ia, ag, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    CHECK_OK(dat_cno_create(s->ia, ag, &cno));
    DAT_CNO_PARAM cp;
    CHECK_OK(dat_cno_query(cno, DAT_CNO_FIELD_ALL, &cp));
    CHECK(cp.ia_handle == s->ia && cp.agent.proxy_agent_func == agent && cp.agent.instance_data == &one);
    DAT_EVD_HANDLE e1, e2;
    CHECK_OK(dat_evd_create(s->ia, 4, cno, DAT_EVD_SOFTWARE_FLAG, &e1));
    CHECK_OK(dat_evd_create(s->ia, 4, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &e2));
    CHECK_OK(dat_evd_modify_cno(e2, cno));
    DAT_EVD_PARAM q;
    CHECK_OK(dat_evd_query(e2, DAT_EVD_FIELD_CNO, &q));
    CHECK(q.cno_handle == cno);
    DAT_EVD_HANDLE got = DAT_HANDLE_NULL;
    CHECK_RET(dat_cno_wait(cno, 20, &got), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    CHECK_RET(dat_cno_wait(cno, 20, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    DAT_EVENT e = soft(NULL), out;
    CHECK_OK(dat_evd_post_se(e2, &e));
    CHECK_EQ(agent_calls, 1);
    CHECK(agent_evd == e2);
    CHECK_OK(dat_cno_wait(cno, 20, &got));
    CHECK(got == e2);
    CHECK_RET(dat_cno_wait(cno, 20, &got), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    CHECK_OK(dat_evd_dequeue(e2, &out));
    /* A disabled EVD does not trigger its CNO; its events still queue. */
    CHECK_OK(dat_evd_disable(e1));
    CHECK_OK(dat_evd_query(e1, DAT_EVD_FIELD_EVD_STATE, &q));
    CHECK(q.evd_state & DAT_EVD_STATE_DISABLED);
    CHECK_OK(dat_evd_post_se(e1, &e));
    CHECK_RET(dat_cno_wait(cno, 20, &got), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    CHECK_EQ(agent_calls, 1);
    CHECK_OK(dat_evd_dequeue(e1, &out));
    CHECK_OK(dat_evd_enable(e1));
    CHECK_OK(dat_evd_post_se(e1, &e));
    CHECK_OK(dat_cno_wait(cno, 20, &got));
    CHECK(got == e1);
    CHECK_EQ(agent_calls, 2);
    /* Without the agent the CNO still triggers. */
    CHECK_OK(dat_cno_modify_agent(cno, DAT_OS_WAIT_PROXY_AGENT_NULL));
    CHECK_OK(dat_evd_post_se(e1, &e));
    CHECK_EQ(agent_calls, 2);
    CHECK_OK(dat_cno_wait(cno, 20, &got));
    /* A CNO in use by EVDs is not freed. */
    CHECK_RET(dat_cno_free(cno), DAT_INVALID_STATE, DAT_INVALID_STATE_CNO_IN_USE);
    CHECK_OK(dat_evd_modify_cno(e2, DAT_HANDLE_NULL));
    CHECK_OK(dat_evd_free(e1));
    CHECK_OK(dat_cno_free(cno));
    CHECK_OK(dat_evd_free(e2));
}

/* DTO completions beyond an EVD's queue: lost, and reported on the IA's
 * async EVD as DAT_ASYNC_ERROR_EVD_OVERFLOW. An EVD in use is not freed. */
static void overflow_and_in_use(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    DAT_EVD_HANDLE tiny, conn;
    CHECK_OK(dat_evd_create(a->ia, 1, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &tiny));
    CHECK_OK(dat_evd_create(a->ia, 2, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &conn));
    DAT_EP_PARAM mp;
    memset(&mp, 0, sizeof(mp));
    mp.request_evd_handle = tiny;
    CHECK_OK(dat_ep_modify(a->ep, DAT_EP_FIELD_REQUEST_EVD_HANDLE, &mp));
    CHECK_RET(dat_evd_free(tiny), DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE);
    CHECK_OK(dat_evd_free(a->req_evd));   /* no longer used by the EP */
    dt_pair_connect(&p);
    DAT_LMR_TRIPLET v = dt_iov(a, 0, 64);
    DAT_RMR_TRIPLET r = dt_remote(b, 0, 64);
    for (int i = 0; i < 3; i++)
        CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie((uint64_t)i), &r, 0));
    DAT_EVENT ev;
    CHECK_OK(dt_wait(a->async_evd, DT_WAIT_US, &ev));
    CHECK_EQ(ev.event_number, DAT_ASYNC_ERROR_EVD_OVERFLOW);
    CHECK(ev.event_data.asynch_error_event_data.dat_handle == tiny);
    CHECK_OK(dat_evd_dequeue(tiny, &ev));
    CHECK_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 0);
    CHECK_OK(dat_evd_free(conn));
    dt_pair_close(&p);
}

int main(void)
{
    struct dt_side s;
    dt_side_open(&s, 0, NULL);
    software_events(&s);
    timeouts_are_nic_time(&s);
    cno(&s);
    dt_side_close(&s);
    overflow_and_in_use();
    return dt_finish("test_evd");
}
