/*
 * dat_rnic_ep_last_error (udat_vendor_specific.h): a failed completion's
 * DAT status is one for several refusals; the NIC's reason (its status, the
 * protection check that refused, the key) is kept per EP and, with
 * DAT_RNIC_LOG_ERRORS=1, printed on stderr. A flush behind the failure does
 * not hide it; a remote refusal has no check to name.
 */
#define _DEFAULT_SOURCE   /* setenv */
#include "dat_test.h"

#include <string.h>

static void arguments(struct dt_pair *p)
{
    DAT_RNIC_ERROR_DETAIL e;
    /* Nothing failed yet. */
    CHECK_RET(dat_rnic_ep_last_error(p->s[0].ep, &e), DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
    CHECK_RET(dat_rnic_ep_last_error(p->s[0].ep, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_RET(dat_rnic_ep_last_error(p->s[0].pz, &e), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    CHECK_RET(dat_rnic_ep_last_error(DAT_HANDLE_NULL, &e), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
}

/* An LMR freed while a WRITE from it is posted: the NIC's local check
 * refuses its key (the entry is no longer valid: STATE), and the WRITE
 * posted behind it is flushed without replacing that reason. */
static void local_refusal(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    DAT_LMR_HANDLE l;
    DAT_LMR_CONTEXT c;
    DAT_REGION_DESCRIPTION r = { .for_va = a->buf + 16384 };
    CHECK_OK(dat_lmr_create(a->ia, DAT_MEM_TYPE_VIRTUAL, r, 4096, a->pz, DAT_MEM_PRIV_ALL_FLAG, &l, &c, NULL, NULL,
                            NULL));
    DAT_LMR_TRIPLET v = { c, 0, (DAT_VADDR)(uintptr_t)(a->buf + 16384), 256 };
    DAT_LMR_TRIPLET good = dt_iov(a, 0, 64);
    DAT_RMR_TRIPLET rt = dt_remote(b, 0, 256);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(41), &rt, DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &good, dt_cookie(42), &rt, DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_OK(dat_lmr_free(l));
    dt_capture_start();
    DAT_DTO_COMPLETION_EVENT_DATA d;
    int first = dt_wait_dto(a->req_evd, &d);
    int second = dt_wait_dto(a->req_evd, NULL);
    const char *log = dt_capture_end();
    CHECK_EQ(first, DAT_DTO_ERR_LOCAL_PROTECTION);
    CHECK_EQ(d.user_cookie.as_64, 41);
    CHECK_EQ(second, DAT_DTO_ERR_FLUSHED);

    DAT_RNIC_ERROR_DETAIL e;
    memset(&e, 0, sizeof(e));
    CHECK_OK(dat_rnic_ep_last_error(a->ep, &e));
    CHECK_EQ(e.user_cookie, 41);
    CHECK_EQ(e.is_recv, DAT_FALSE);
    CHECK(e.nic_status_name && strcmp(e.nic_status_name, "LOCAL_PROTECTION") == 0);
    CHECK(e.verdict_name && strcmp(e.verdict_name, "STATE") == 0);
    CHECK(e.verdict != 0);
    CHECK_EQ(e.check_key, c);
    /* One line for the failure, none for the flush. */
    char want[128];
    snprintf(want, sizeof(want), "cookie 0x29 failed: LOCAL_PROTECTION, check STATE refused key 0x%08x", (unsigned)c);
    CHECK(strstr(log, want) != NULL);
    CHECK(strstr(log, "cookie 0x2a") == NULL);

    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_OK(dat_ep_reset(a->ep));
    CHECK_OK(dat_ep_reset(b->ep));
    dt_pair_connect(p);
}

/* A wrong rkey: the responder refuses, the requester learns only that. */
static void remote_refusal(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    DAT_LMR_TRIPLET v = dt_iov(a, 0, 64);
    DAT_RMR_TRIPLET rt = dt_remote(b, 0, 64);
    rt.rmr_context ^= 0x5Au;
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(77), &rt, DAT_COMPLETION_DEFAULT_FLAG));
    dt_capture_start();
    int st = dt_wait_dto(a->req_evd, NULL);
    const char *log = dt_capture_end();
    CHECK_EQ(st, DAT_DTO_ERR_REMOTE_ACCESS);
    DAT_RNIC_ERROR_DETAIL e;
    CHECK_OK(dat_rnic_ep_last_error(a->ep, &e));
    CHECK_EQ(e.user_cookie, 77);
    CHECK(strcmp(e.nic_status_name, "REMOTE_ACCESS") == 0);
    CHECK_EQ(e.verdict, 0);
    CHECK(strcmp(e.verdict_name, "OK") == 0);
    CHECK_EQ(e.check_key, 0);
    CHECK(strstr(log, "cookie 0x4d failed: REMOTE_ACCESS\n") != NULL);
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
}

int main(void)
{
    /* Read by dat_ia_open, as every variable libdat takes. */
    setenv("DAT_RNIC_LOG_ERRORS", "1", 1);
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    arguments(&p);
    local_refusal(&p);
    remote_refusal(&p);
    dt_pair_close(&p);
    return dt_finish("test_error_detail");
}
