/*
 * Every handle type, given to every call that takes it as a stale handle
 * (its object freed), a live handle of another type, DAT_HANDLE_NULL and a
 * value that never was a handle: DAT_INVALID_HANDLE with the subtype that
 * names the handle's role. Nothing crashes and nothing changes.
 */
#include "dat_test.h"

#include <string.h>

/* Four bad values for a handle of one type: stale, wrong type, NULL, junk. */
static DAT_HANDLE bad[4];
static const char *const bad_name[4] = { "stale", "wrong type", "NULL", "junk" };

static void set_bad(DAT_HANDLE stale, DAT_HANDLE wrong)
{
    bad[0] = stale;
    bad[1] = wrong;
    bad[2] = DAT_HANDLE_NULL;
    bad[3] = (DAT_HANDLE)(uintptr_t)0xDEADBEEF00ull;
}

/* Runs `call` (which uses H) with each bad value; first is 0, or 3 to skip
 * the NULL case where NULL means something. */
#define EACH_BAD(call, sub)                                                             \
    for (int k_ = 0; k_ < 4; k_++) {                                                    \
        DAT_HANDLE H = bad[k_];                                                         \
        DAT_RETURN r_ = (call);                                                         \
        if (!rnic_check_record(DAT_GET_TYPE(r_) == DAT_INVALID_HANDLE &&                \
                               DAT_GET_SUBTYPE(r_) == (DAT_UINT32)(sub))) {             \
            const char *ma, *mi;                                                        \
            dat_strerror(r_, &ma, &mi);                                                 \
            fprintf(stderr, "%s:%d: %s with a %s handle -> %s/%s, expected %s\n", __FILE__, __LINE__, #call, \
                    bad_name[k_], ma, mi, #sub);                                        \
        }                                                                               \
    }
#define EACH_BAD_NOT_NULL(call, sub)                                                    \
    for (int k_ = 0; k_ < 4; k_++) {                                                    \
        if (k_ == 2)                                                                    \
            continue;                                                                   \
        DAT_HANDLE H = bad[k_];                                                         \
        DAT_RETURN r_ = (call);                                                         \
        if (!rnic_check_record(DAT_GET_TYPE(r_) == DAT_INVALID_HANDLE &&                \
                               DAT_GET_SUBTYPE(r_) == (DAT_UINT32)(sub))) {             \
            const char *ma, *mi;                                                        \
            dat_strerror(r_, &ma, &mi);                                                 \
            fprintf(stderr, "%s:%d: %s with a %s handle -> %s/%s, expected %s\n", __FILE__, __LINE__, #call, \
                    bad_name[k_], ma, mi, #sub);                                        \
        }                                                                               \
    }

int main(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *s = &p.s[0], *t = &p.s[1];
    /* A pending connection request on side 1, for the CR calls. */
    CHECK_OK(dat_ep_connect(s->ep, dt_addr(t->ia), p.qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT, 0));
    DAT_EVENT ev;
    CHECK_OK(dt_wait(t->cr_evd, DT_WAIT_US, &ev));
    DAT_CR_HANDLE cr = ev.event_data.cr_arrival_event_data.cr_handle;

    /* Stale handles of every type. */
    char name[] = "rnic0";
    DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
    DAT_IA_HANDLE ia_x;
    CHECK_OK(dat_ia_open(name, 4, &async, &ia_x));
    CHECK_OK(dat_ia_close(ia_x, DAT_CLOSE_ABRUPT_FLAG));
    DAT_EVD_HANDLE evd_x;
    CHECK_OK(dat_evd_create(s->ia, 4, DAT_HANDLE_NULL, DAT_EVD_DEFAULT_FLAG | DAT_EVD_SOFTWARE_FLAG, &evd_x));
    CHECK_OK(dat_evd_free(evd_x));
    DAT_PZ_HANDLE pz_x;
    CHECK_OK(dat_pz_create(s->ia, &pz_x));
    CHECK_OK(dat_pz_free(pz_x));
    DAT_LMR_HANDLE lmr_x;
    DAT_LMR_CONTEXT lc;
    DAT_REGION_DESCRIPTION reg = { .for_va = s->buf };
    CHECK_OK(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, reg, 64, s->pz, 0, &lmr_x, &lc, NULL, NULL, NULL));
    CHECK_OK(dat_lmr_free(lmr_x));
    DAT_EP_HANDLE ep_x;
    CHECK_OK(dat_ep_create(s->ia, s->pz, s->recv_evd, s->req_evd, s->conn_evd, NULL, &ep_x));
    CHECK_OK(dat_ep_free(ep_x));
    DAT_PSP_HANDLE psp_x;
    DAT_CONN_QUAL q_x;
    CHECK_OK(dat_psp_create_any(s->ia, &q_x, s->cr_evd, DAT_PSP_CONSUMER_FLAG, &psp_x));
    CHECK_OK(dat_psp_free(psp_x));
    DAT_EP_HANDLE ep_r;
    CHECK_OK(dat_ep_create(s->ia, s->pz, s->recv_evd, s->req_evd, s->conn_evd, NULL, &ep_r));
    DAT_RSP_HANDLE rsp_x;
    CHECK_OK(dat_rsp_create(s->ia, q_x, ep_r, s->cr_evd, &rsp_x));
    CHECK_OK(dat_rsp_free(rsp_x));
    DAT_CNO_HANDLE cno_x;
    CHECK_OK(dat_cno_create(s->ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno_x));
    CHECK_OK(dat_cno_free(cno_x));
    DAT_CR_HANDLE cr_x;
    {
        /* A CR that was answered. */
        DAT_EP_HANDLE e1, e2;
        DAT_CONN_QUAL q2;
        DAT_PSP_HANDLE psp2;
        CHECK_OK(dat_ep_create(s->ia, s->pz, s->recv_evd, s->req_evd, s->conn_evd, NULL, &e1));
        CHECK_OK(dat_ep_create(t->ia, t->pz, t->recv_evd, t->req_evd, t->conn_evd, NULL, &e2));
        CHECK_OK(dat_psp_create_any(t->ia, &q2, t->cr_evd, DAT_PSP_CONSUMER_FLAG, &psp2));
        CHECK_OK(dat_ep_connect(e1, dt_addr(t->ia), q2, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT, 0));
        CHECK_OK(dt_wait(t->cr_evd, DT_WAIT_US, &ev));
        cr_x = ev.event_data.cr_arrival_event_data.cr_handle;
        CHECK_OK(dat_cr_reject(cr_x));
        CHECK_EQ(dt_wait_number(s->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_PEER_REJECTED);
        CHECK_OK(dat_ep_free(e1));
        CHECK_OK(dat_ep_free(e2));
        CHECK_OK(dat_psp_free(psp2));
    }

    DAT_EVENT out;
    DAT_COUNT n;
    DAT_LMR_TRIPLET iov = dt_iov(s, 0, 16);
    DAT_RMR_TRIPLET rt = dt_remote(t, 0, 16);
    DAT_EP_PARAM epp;
    memset(&epp, 0, sizeof(epp));
    DAT_CONN_QUAL q;
    DAT_HANDLE h;
    DAT_CONTEXT ctx = {.as_64 = 0};   /* passed by value to dat_set_consumer_context */
    DAT_HANDLE_TYPE ht;

    /* IA */
    set_bad(ia_x, s->pz);
    {
        DAT_IA_ATTR ia_attr;
        EACH_BAD(dat_ia_query(H, NULL, DAT_IA_FIELD_ALL, &ia_attr, 0, NULL), DAT_INVALID_HANDLE_IA);
    }
    EACH_BAD(dat_ia_close(H, DAT_CLOSE_ABRUPT_FLAG), DAT_INVALID_HANDLE_IA);
    EACH_BAD(dat_pz_create(H, &h), DAT_INVALID_HANDLE_IA);
    EACH_BAD(dat_evd_create(H, 4, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &h), DAT_INVALID_HANDLE_IA);
    EACH_BAD(dat_cno_create(H, DAT_OS_WAIT_PROXY_AGENT_NULL, &h), DAT_INVALID_HANDLE_IA);
    EACH_BAD(dat_ep_create(H, s->pz, s->recv_evd, s->req_evd, s->conn_evd, NULL, &h), DAT_INVALID_HANDLE_IA);
    EACH_BAD(dat_lmr_create(H, DAT_MEM_TYPE_VIRTUAL, reg, 64, s->pz, 0, &h, &lc, NULL, NULL, NULL),
             DAT_INVALID_HANDLE_IA);
    EACH_BAD(dat_psp_create(H, 7777, s->cr_evd, DAT_PSP_CONSUMER_FLAG, &h), DAT_INVALID_HANDLE_IA);
    EACH_BAD(dat_psp_create_any(H, &q, s->cr_evd, DAT_PSP_CONSUMER_FLAG, &h), DAT_INVALID_HANDLE_IA);
    EACH_BAD(dat_rsp_create(H, 7777, ep_r, s->cr_evd, &h), DAT_INVALID_HANDLE_IA);
    EACH_BAD(dat_lmr_sync_rdma_read(H, &iov, 1), DAT_INVALID_HANDLE_IA);
    EACH_BAD(dat_lmr_sync_rdma_write(H, &iov, 1), DAT_INVALID_HANDLE_IA);
    EACH_BAD(dat_srq_create(H, s->pz, NULL, &h), DAT_INVALID_HANDLE_IA);
    EACH_BAD(dat_ep_create_with_srq(H, s->pz, s->recv_evd, s->req_evd, s->conn_evd, DAT_HANDLE_NULL, NULL, &h),
             DAT_INVALID_HANDLE_IA);

    /* EVD: in its own calls it is handle 1; in a role, the role's subtype. */
    set_bad(evd_x, s->pz);
    EACH_BAD(dat_evd_query(H, DAT_EVD_FIELD_ALL, &(DAT_EVD_PARAM){0}), DAT_INVALID_HANDLE1);
    EACH_BAD(dat_evd_free(H), DAT_INVALID_HANDLE1);
    EACH_BAD(dat_evd_resize(H, 8), DAT_INVALID_HANDLE1);
    out.event_number = DAT_SOFTWARE_EVENT;
    EACH_BAD(dat_evd_post_se(H, &out), DAT_INVALID_HANDLE1);
    EACH_BAD(dat_evd_dequeue(H, &out), DAT_INVALID_HANDLE1);
    EACH_BAD(dat_evd_wait(H, 10, 1, &out, &n), DAT_INVALID_HANDLE1);
    EACH_BAD(dat_evd_enable(H), DAT_INVALID_HANDLE1);
    EACH_BAD(dat_evd_disable(H), DAT_INVALID_HANDLE1);
    EACH_BAD(dat_evd_set_unwaitable(H), DAT_INVALID_HANDLE1);
    EACH_BAD(dat_evd_clear_unwaitable(H), DAT_INVALID_HANDLE1);
    EACH_BAD(dat_evd_modify_cno(H, DAT_HANDLE_NULL), DAT_INVALID_HANDLE1);
    EACH_BAD(dat_psp_create(s->ia, 7777, H, DAT_PSP_CONSUMER_FLAG, &h), DAT_INVALID_HANDLE_EVD_CR);
    EACH_BAD(dat_psp_create_any(s->ia, &q, H, DAT_PSP_CONSUMER_FLAG, &h), DAT_INVALID_HANDLE_EVD_CR);
    EACH_BAD(dat_rsp_create(s->ia, 7777, ep_r, H, &h), DAT_INVALID_HANDLE_EVD_CR);
    EACH_BAD_NOT_NULL(dat_ep_create(s->ia, s->pz, H, s->req_evd, s->conn_evd, NULL, &h), DAT_INVALID_HANDLE_EVD_RECV);
    EACH_BAD_NOT_NULL(dat_ep_create(s->ia, s->pz, s->recv_evd, H, s->conn_evd, NULL, &h),
                      DAT_INVALID_HANDLE_EVD_REQUEST);
    EACH_BAD_NOT_NULL(dat_ep_create(s->ia, s->pz, s->recv_evd, s->req_evd, H, NULL, &h), DAT_INVALID_HANDLE_EVD_CONN);
    /* An EVD of the wrong kind in a role is refused the same way. */
    CHECK_RET(dat_ep_create(s->ia, s->pz, s->conn_evd, s->req_evd, s->conn_evd, NULL, &h), DAT_INVALID_HANDLE,
              DAT_INVALID_HANDLE_EVD_RECV);
    CHECK_RET(dat_ep_create(s->ia, s->pz, s->recv_evd, s->cr_evd, s->conn_evd, NULL, &h), DAT_INVALID_HANDLE,
              DAT_INVALID_HANDLE_EVD_REQUEST);
    CHECK_RET(dat_ep_create(s->ia, s->pz, s->recv_evd, s->req_evd, s->req_evd, NULL, &h), DAT_INVALID_HANDLE,
              DAT_INVALID_HANDLE_EVD_CONN);
    CHECK_RET(dat_psp_create(s->ia, 7777, s->conn_evd, DAT_PSP_CONSUMER_FLAG, &h), DAT_INVALID_HANDLE,
              DAT_INVALID_HANDLE_EVD_CR);
    EACH_BAD_NOT_NULL(dat_ia_open(name, 4, &(DAT_EVD_HANDLE){ H }, &h), DAT_INVALID_HANDLE_EVD_ASYNC);
    CHECK_RET(dat_ia_open(name, 4, &(DAT_EVD_HANDLE){ s->req_evd }, &h), DAT_INVALID_HANDLE,
              DAT_INVALID_HANDLE_EVD_ASYNC);
    {
        DAT_EP_PARAM mp = epp;
        mp.recv_evd_handle = evd_x;
        CHECK_RET(dat_ep_modify(ep_r, DAT_EP_FIELD_RECV_EVD_HANDLE, &mp), DAT_INVALID_HANDLE,
                  DAT_INVALID_HANDLE_EVD_RECV);
    }

    /* PZ */
    set_bad(pz_x, s->ia);
    EACH_BAD(dat_pz_query(H, DAT_PZ_FIELD_ALL, &(DAT_PZ_PARAM){0}), DAT_INVALID_HANDLE_PZ);
    EACH_BAD(dat_pz_free(H), DAT_INVALID_HANDLE_PZ);
    EACH_BAD(dat_rmr_create(H, &h), DAT_INVALID_HANDLE_PZ);
    EACH_BAD(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, reg, 64, H, 0, &h, &lc, NULL, NULL, NULL),
             DAT_INVALID_HANDLE_PZ);
    EACH_BAD_NOT_NULL(dat_ep_create(s->ia, H, s->recv_evd, s->req_evd, s->conn_evd, NULL, &h), DAT_INVALID_HANDLE_PZ);
    EACH_BAD(dat_srq_create(s->ia, H, NULL, &h), DAT_INVALID_HANDLE_PZ);

    /* LMR */
    set_bad(lmr_x, s->pz);
    EACH_BAD(dat_lmr_query(H, DAT_LMR_FIELD_ALL, &(DAT_LMR_PARAM){0}), DAT_INVALID_HANDLE_LMR);
    EACH_BAD(dat_lmr_free(H), DAT_INVALID_HANDLE_LMR);
    EACH_BAD(dat_lmr_create(s->ia, DAT_MEM_TYPE_LMR, ((DAT_REGION_DESCRIPTION){ .for_lmr_handle = H }), 0, s->pz, 0,
                            &h, &lc, NULL, NULL, NULL),
             DAT_INVALID_HANDLE_LMR);

    /* EP */
    set_bad(ep_x, s->lmr);
    EACH_BAD(dat_ep_query(H, DAT_EP_FIELD_ALL, &epp), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_ep_modify(H, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &epp), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_ep_connect(H, dt_addr(t->ia), p.qual, 10, 0, NULL, DAT_QOS_BEST_EFFORT, 0), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_ep_dup_connect(H, s->ep, 10, 0, NULL, DAT_QOS_BEST_EFFORT), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_ep_dup_connect(ep_r, H, 10, 0, NULL, DAT_QOS_BEST_EFFORT), DAT_INVALID_HANDLE2);
    EACH_BAD(dat_ep_disconnect(H, DAT_CLOSE_ABRUPT_FLAG), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_ep_post_send(H, 1, &iov, dt_cookie(1), 0), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_ep_post_recv(H, 1, &iov, dt_cookie(1), 0), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_ep_post_rdma_read(H, 1, &iov, dt_cookie(1), &rt, 0), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_ep_post_rdma_write(H, 1, &iov, dt_cookie(1), &rt, 0), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_ep_get_status(H, NULL, NULL, NULL), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_ep_free(H), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_ep_reset(H), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_ep_recv_query(H, &n, &n), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_ep_set_watermark(H, 1, 1), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_rsp_create(s->ia, 7777, H, s->cr_evd, &h), DAT_INVALID_HANDLE_EP);
    EACH_BAD(dat_cr_accept(cr, H, 0, NULL), DAT_INVALID_HANDLE_EP);

    /* PSP, RSP */
    set_bad(psp_x, s->ep);
    EACH_BAD(dat_psp_query(H, DAT_PSP_FIELD_ALL, &(DAT_PSP_PARAM){0}), DAT_INVALID_HANDLE_PSP);
    EACH_BAD(dat_psp_free(H), DAT_INVALID_HANDLE_PSP);
    set_bad(rsp_x, p.psp);
    EACH_BAD(dat_rsp_query(H, DAT_RSP_FIELD_ALL, &(DAT_RSP_PARAM){0}), DAT_INVALID_HANDLE_RSP);
    EACH_BAD(dat_rsp_free(H), DAT_INVALID_HANDLE_RSP);

    /* CR */
    set_bad(cr_x, t->ep);
    EACH_BAD(dat_cr_query(H, DAT_CR_FIELD_ALL, &(DAT_CR_PARAM){0}), DAT_INVALID_HANDLE_CR);
    EACH_BAD(dat_cr_accept(H, t->ep, 0, NULL), DAT_INVALID_HANDLE_CR);
    EACH_BAD(dat_cr_reject(H), DAT_INVALID_HANDLE_CR);
    EACH_BAD(dat_cr_handoff(H, 1), DAT_INVALID_HANDLE_CR);

    /* CNO */
    set_bad(cno_x, s->conn_evd);
    EACH_BAD(dat_cno_query(H, DAT_CNO_FIELD_ALL, &(DAT_CNO_PARAM){0}), DAT_INVALID_HANDLE_CNO);
    EACH_BAD(dat_cno_free(H), DAT_INVALID_HANDLE_CNO);
    EACH_BAD(dat_cno_wait(H, 10, &h), DAT_INVALID_HANDLE_CNO);
    EACH_BAD(dat_cno_modify_agent(H, DAT_OS_WAIT_PROXY_AGENT_NULL), DAT_INVALID_HANDLE_CNO);
    EACH_BAD_NOT_NULL(dat_evd_create(s->ia, 4, H, DAT_EVD_DTO_FLAG, &h), DAT_INVALID_HANDLE_CNO);
    EACH_BAD_NOT_NULL(dat_evd_modify_cno(s->req_evd, H), DAT_INVALID_HANDLE_CNO);

    /* SRQ: none can exist. */
    set_bad(s->ep, s->pz);
    EACH_BAD(dat_srq_free(H), DAT_INVALID_HANDLE_SRQ);
    EACH_BAD(dat_srq_post_recv(H, 1, &iov, dt_cookie(1)), DAT_INVALID_HANDLE_SRQ);
    EACH_BAD(dat_srq_query(H, DAT_SRQ_FIELD_ALL, &(DAT_SRQ_PARAM){0}), DAT_INVALID_HANDLE_SRQ);
    EACH_BAD(dat_srq_resize(H, 4), DAT_INVALID_HANDLE_SRQ);
    EACH_BAD(dat_srq_set_lw(H, 4), DAT_INVALID_HANDLE_SRQ);
    EACH_BAD(dat_ep_create_with_srq(s->ia, s->pz, s->recv_evd, s->req_evd, s->conn_evd, H, NULL, &h),
             DAT_INVALID_HANDLE_SRQ);

    /* Any handle: the generic calls. */
    set_bad(ep_x, (DAT_HANDLE)(uintptr_t)0x55);
    EACH_BAD(dat_set_consumer_context(H, ctx), DAT_INVALID_HANDLE1);
    EACH_BAD(dat_get_consumer_context(H, &ctx), DAT_INVALID_HANDLE1);
    EACH_BAD(dat_get_handle_type(H, &ht), DAT_INVALID_HANDLE1);

    /* The live objects are untouched by all of that: the pending request
     * can still be accepted and data flows. */
    CHECK_OK(dat_cr_accept(cr, t->ep, 0, NULL));
    CHECK_EQ(dt_wait_number(s->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_EQ(dt_wait_number(t->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_OK(dat_ep_post_rdma_write(s->ep, 1, &iov, dt_cookie(1), &rt, 0));
    CHECK_EQ(dt_wait_dto(s->req_evd, NULL), DAT_DTO_SUCCESS);
    dt_pair_close(&p);
    return dt_finish("test_handles");
}
