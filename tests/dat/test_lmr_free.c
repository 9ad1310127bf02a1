/*
 * dat_lmr_free(3DAT): the handle is dead afterwards, the memory is not
 * touched, a DTO using the destroyed LMR fails with a protection violation
 * (at post, or as a completion when it was posted before the free), and a
 * remote RDMA with its rmr_context completes with DAT_DTO_ERR_REMOTE_ACCESS
 * and breaks the connection.
 */
#include "dat_test.h"

#include <string.h>

static void make_lmr(struct dt_side *s, uint8_t *va, size_t len, DAT_LMR_HANDLE *l, DAT_LMR_CONTEXT *c,
                     DAT_RMR_CONTEXT *rc)
{
    DAT_REGION_DESCRIPTION r = { .for_va = va };
    CHECK_OK(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, r, len, s->pz, DAT_MEM_PRIV_ALL_FLAG, l, c, rc, NULL, NULL));
}

static void handle_and_memory(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0];
    DAT_LMR_HANDLE l, l2;
    DAT_LMR_CONTEXT c;
    make_lmr(a, a->buf + 8192, 4096, &l, &c, NULL);
    memset(a->buf + 8192, 0x3C, 4096);
    CHECK_OK(dat_lmr_free(l));
    /* Every later use of the handle fails, dat_lmr_free included. */
    CHECK_RET(dat_lmr_free(l), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
    DAT_LMR_PARAM q;
    CHECK_RET(dat_lmr_query(l, DAT_LMR_FIELD_ALL, &q), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
    DAT_REGION_DESCRIPTION over = { .for_lmr_handle = l };
    CHECK_RET(dat_lmr_create(a->ia, DAT_MEM_TYPE_LMR, over, 0, a->pz, 0, &l2, &c, NULL, NULL, NULL),
              DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
    CHECK_RET(dat_lmr_free(a->pz), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
    CHECK_RET(dat_lmr_free(DAT_HANDLE_NULL), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
    /* The memory is neither freed nor changed, and can be registered again. */
    for (int i = 0; i < 4096; i += 512)
        CHECK_EQ(a->buf[8192 + i], 0x3C);
    make_lmr(a, a->buf + 8192, 4096, &l, &c, NULL);
    CHECK_OK(dat_lmr_free(l));
}

static void local_use_after_free(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    DAT_LMR_HANDLE l;
    DAT_LMR_CONTEXT c;
    make_lmr(a, a->buf + 16384, 4096, &l, &c, NULL);
    DAT_LMR_TRIPLET v = { c, 0, (DAT_VADDR)(uintptr_t)(a->buf + 16384), 256 };
    DAT_RMR_TRIPLET r = dt_remote(b, 0, 256);
    /* Before the free it works. */
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(1), &r, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    /* Posted before, carried out after the free: the NIC refuses the key. */
    memset(b->buf, 0, 256);
    dt_fill(a->buf + 16384, 256, 5);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(2), &r, 0));
    CHECK_OK(dat_lmr_free(l));
    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_ERR_LOCAL_PROTECTION);
    CHECK_EQ(d.user_cookie.as_64, 2);
    CHECK_EQ(b->buf[0], 0);
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    /* Posted after the free: refused at once, a protection violation. */
    CHECK_OK(dat_ep_reset(a->ep));
    CHECK_OK(dat_ep_reset(b->ep));
    dt_pair_connect(p);
    CHECK_RET(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(3), &r, 0), DAT_PROTECTION_VIOLATION,
              DAT_PROTECTION_READ);
    CHECK_RET(dat_ep_post_send(a->ep, 1, &v, dt_cookie(4), 0), DAT_PROTECTION_VIOLATION, DAT_PROTECTION_READ);
    CHECK_RET(dat_ep_post_recv(a->ep, 1, &v, dt_cookie(5), 0), DAT_PROTECTION_VIOLATION, DAT_PROTECTION_WRITE);
    CHECK_RET(dat_ep_post_rdma_read(a->ep, 1, &v, dt_cookie(6), &r, 0), DAT_PROTECTION_VIOLATION,
              DAT_PROTECTION_WRITE);
}

static void remote_use_after_free(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    DAT_LMR_HANDLE l;
    DAT_LMR_CONTEXT c;
    DAT_RMR_CONTEXT rc;
    make_lmr(b, b->buf + 16384, 4096, &l, &c, &rc);
    DAT_LMR_TRIPLET v = dt_iov(a, 0, 128);
    DAT_RMR_TRIPLET r = { rc, 0, (DAT_VADDR)(uintptr_t)(b->buf + 16384), 128 };
    dt_fill(a->buf, 128, 6);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(1), &r, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK(memcmp(b->buf + 16384, a->buf, 128) == 0);
    /* The peer frees the LMR; the rmr_context it advertised is dead. */
    CHECK_OK(dat_lmr_free(l));
    memset(b->buf + 16384, 0, 128);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(2), &r, 0));
    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_ERR_REMOTE_ACCESS);
    CHECK_EQ(d.user_cookie.as_64, 2);
    CHECK_EQ(b->buf[16384], 0);   /* not a byte written */
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    /* A request already on its way when the peer frees the LMR: in this
     * lockstep simulation it reaches the peer after the free returned, so
     * it fails the same way. */
    CHECK_OK(dat_ep_reset(a->ep));
    CHECK_OK(dat_ep_reset(b->ep));
    dt_pair_connect(p);
    make_lmr(b, b->buf + 20480, 4096, &l, &c, &rc);
    DAT_RMR_TRIPLET r2 = { rc, 0, (DAT_VADDR)(uintptr_t)(b->buf + 20480), 128 };
    memset(b->buf + 20480, 0, 128);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(7), &r2, 0));
    CHECK_OK(dat_lmr_free(l));
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_ERR_REMOTE_ACCESS);
    CHECK_EQ(b->buf[20480], 0);
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    r = r2;
    /* RDMA READ likewise. */
    CHECK_OK(dat_ep_reset(a->ep));
    CHECK_OK(dat_ep_reset(b->ep));
    dt_pair_connect(p);
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &v, dt_cookie(3), &r, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_ERR_REMOTE_ACCESS);
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
}

int main(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    handle_and_memory(&p);
    local_use_after_free(&p);   /* leaves the pair connected again */
    remote_use_after_free(&p);
    dt_pair_close(&p);
    return dt_finish("test_lmr_free");
}
