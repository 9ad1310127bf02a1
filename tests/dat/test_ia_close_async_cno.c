/*
 * dat_ia_close of an IA whose async EVD has a CNO: the phased destroy takes
 * the EVDs (the async EVD among them) before the CNOs they are attached to,
 * so no EVD lets go of a CNO already freed. Afterwards both handles are
 * stale (DAT_INVALID_HANDLE).
 */
#include "dat_test.h"

#include <string.h>

static void agent(DAT_PVOID data, DAT_EVD_HANDLE evd)
{
    (void)evd;
    (*(int *)data)++;
}

static void gone(DAT_EVD_HANDLE evd, DAT_CNO_HANDLE cno)
{
    DAT_EVD_PARAM q;
    CHECK_RET(dat_evd_query(evd, DAT_EVD_FIELD_ALL, &q), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
    DAT_CNO_PARAM c;
    CHECK_RET(dat_cno_query(cno, DAT_CNO_FIELD_ALL, &c), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
    CHECK_RET(dat_cno_free(cno), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
}

/* The async EVD dat_ia_open made, given a CNO afterwards. */
static void opened_async_evd(void)
{
    static int calls;
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async_evd = DAT_HANDLE_NULL;
    DT_MUST(dat_ia_open("rnic0", 8, &async_evd, &ia));
    DAT_CNO_HANDLE cno;
    DAT_OS_WAIT_PROXY_AGENT ag = { &calls, agent };
    CHECK_OK(dat_cno_create(ia, ag, &cno));
    CHECK_OK(dat_evd_modify_cno(async_evd, cno));
    DAT_EVD_PARAM q;
    CHECK_OK(dat_evd_query(async_evd, DAT_EVD_FIELD_CNO, &q));
    CHECK(q.cno_handle == cno);
    CHECK_RET(dat_cno_free(cno), DAT_INVALID_STATE, DAT_INVALID_STATE_CNO_IN_USE);
    CHECK_RET(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG), DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE);
    CHECK_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
    gone(async_evd, cno);
    CHECK_EQ(calls, 0);
}

/* An IA opened without one adopts the first async-stream EVD it creates:
 * here one created with a CNO. */
static void adopted_async_evd(void)
{
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE none = DAT_EVD_ASYNC_EXISTS;
    DT_MUST(dat_ia_open("rnic0", 8, &none, &ia));
    DAT_CNO_HANDLE cno;
    CHECK_OK(dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
    DAT_EVD_HANDLE evd, got = DAT_HANDLE_NULL;
    CHECK_OK(dat_evd_create(ia, 8, cno, DAT_EVD_DEFAULT_FLAG, &evd));
    CHECK_OK(dat_ia_query(ia, &got, 0, NULL, 0, NULL));
    CHECK(got == evd);
    CHECK_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
    gone(evd, cno);
}

/* A triggered CNO on the async EVD: an event is queued and notified. */
static void triggered(void)
{
    static int calls;
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async_evd = DAT_HANDLE_NULL;
    DT_MUST(dat_ia_open("rnic0", 8, &async_evd, &ia));
    DAT_CNO_HANDLE cno;
    DAT_OS_WAIT_PROXY_AGENT ag = { &calls, agent };
    CHECK_OK(dat_cno_create(ia, ag, &cno));
    CHECK_OK(dat_evd_modify_cno(async_evd, cno));
    /* A software event on the async EVD triggers the CNO, whose agent is
     * called; the CNO stays triggered (nobody waits on it). */
    DAT_EVENT se;
    memset(&se, 0, sizeof(se));
    se.event_number = DAT_SOFTWARE_EVENT;
    se.event_data.software_event_data.pointer = NULL;
    CHECK_OK(dat_evd_post_se(async_evd, &se));
    CHECK_EQ(calls, 1);
    CHECK_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
    gone(async_evd, cno);
}

int main(void)
{
    opened_async_evd();
    adopted_async_evd();
    triggered();
    return dt_finish("test_ia_close_async_cno");
}
