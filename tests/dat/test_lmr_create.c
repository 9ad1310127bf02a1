/*
 * dat_lmr_create(3DAT) and dat_lmr_query: the four memory types, the
 * registered size and address, privileges (no rmr_context without remote
 * privileges; the NIC enforces what was granted), the PZ, every error.
 */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS */
#include "dat_test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PRIV_LOCAL (DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)

static DAT_RETURN reg_va(struct dt_side *s, void *va, DAT_VLEN len, DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv,
                         DAT_LMR_HANDLE *l, DAT_LMR_CONTEXT *lc, DAT_RMR_CONTEXT *rc)
{
    DAT_REGION_DESCRIPTION r = { .for_va = va };
    DAT_VLEN size = 0;
    DAT_VADDR addr = 0;
    DAT_RETURN ret = dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, r, len, pz, priv, l, lc, rc, &size, &addr);
    if (ret == DAT_SUCCESS) {
        CHECK_EQ(size, len);
        CHECK_EQ(addr, (DAT_VADDR)(uintptr_t)va);
    }
    return ret;
}

static void virtual_and_privileges(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    uint8_t *mem = b->buf + 40960;
    DAT_LMR_HANDLE l_local, l_rd, l_wr;
    DAT_LMR_CONTEXT c_local, c_rd, c_wr;
    DAT_RMR_CONTEXT r_local = 0x1234, r_rd = 0, r_wr = 0;
    /* Local privileges only: no rmr_context (NULL, i.e. 0, is returned). */
    CHECK_OK(reg_va(b, mem, 4096, b->pz, PRIV_LOCAL, &l_local, &c_local, &r_local));
    CHECK_EQ(r_local, 0);
    CHECK(c_local != 0);
    CHECK_OK(reg_va(b, mem + 4096, 4096, b->pz, DAT_MEM_PRIV_REMOTE_READ_FLAG, &l_rd, &c_rd, &r_rd));
    CHECK(r_rd != 0);
    CHECK_OK(reg_va(b, mem + 8192, 4096, b->pz, DAT_MEM_PRIV_LOCAL_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG,
                    &l_wr, &c_wr, &r_wr));
    CHECK(r_wr != 0);
    CHECK(c_local != c_rd && c_rd != c_wr);

    DAT_LMR_TRIPLET v = dt_iov(a, 0, 64);
    DAT_DTO_COMPLETION_EVENT_DATA d;
    /* Remote read only: READ works, WRITE is refused by the NIC. */
    dt_fill(mem + 4096, 64, 21);
    DAT_RMR_TRIPLET t_rd = { r_rd, 0, (DAT_VADDR)(uintptr_t)(mem + 4096), 64 };
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &v, dt_cookie(1), &t_rd, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK(memcmp(a->buf, mem + 4096, 64) == 0);
    /* Remote write only: WRITE works. */
    dt_fill(a->buf, 64, 22);
    DAT_RMR_TRIPLET t_wr = { r_wr, 0, (DAT_VADDR)(uintptr_t)(mem + 8192), 64 };
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(2), &t_wr, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK(memcmp(a->buf, mem + 8192, 64) == 0);
    /* No remote privileges unless asked: the lmr_context used as an rkey
     * is refused by the NIC, and the connection breaks. */
    memset(mem, 0, 64);
    DAT_RMR_TRIPLET t_local = { c_local, 0, (DAT_VADDR)(uintptr_t)mem, 64 };
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(3), &t_local, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_ERR_REMOTE_ACCESS);
    CHECK_EQ(mem[0], 0);
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);

    /* dat_lmr_query reports what was registered. */
    DAT_LMR_PARAM q;
    CHECK_OK(dat_lmr_query(l_rd, DAT_LMR_FIELD_ALL, &q));
    CHECK(q.ia_handle == b->ia && q.pz_handle == b->pz);
    CHECK_EQ(q.mem_priv, DAT_MEM_PRIV_REMOTE_READ_FLAG);
    CHECK_EQ(q.lmr_context, c_rd);
    CHECK_EQ(q.rmr_context, r_rd);
    CHECK_EQ(q.length, 4096);
    CHECK_EQ(q.registered_size, 4096);
    CHECK_EQ(q.registered_address, (DAT_VADDR)(uintptr_t)(mem + 4096));
    CHECK(q.region_desc.for_va == mem + 4096);
    /* Opened without RO_AWARE_: virtual memory is strongly ordered memory. */
    CHECK_EQ(q.mem_type, DAT_MEM_TYPE_SO_VIRTUAL);
    CHECK_RET(dat_lmr_query(l_rd, (DAT_LMR_PARAM_MASK)0x400, &q), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_RET(dat_lmr_query(l_rd, DAT_LMR_FIELD_ALL, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    CHECK_OK(dat_lmr_free(l_local));
    CHECK_OK(dat_lmr_free(l_rd));
    CHECK_OK(dat_lmr_free(l_wr));
}

/* Local write only may still be the source of a SEND or RDMA WRITE (local
 * read is implied); a destination needs local write. */
static void local_read_implied(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    DAT_LMR_HANDLE lw, lr;
    DAT_LMR_CONTEXT cw, cr;
    CHECK_OK(reg_va(a, a->buf + 32768, 4096, a->pz, DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &lw, &cw, NULL));
    CHECK_OK(reg_va(a, a->buf + 40960, 4096, a->pz, DAT_MEM_PRIV_LOCAL_READ_FLAG, &lr, &cr, NULL));
    dt_fill(a->buf + 32768, 256, 31);
    DAT_LMR_TRIPLET src = { cw, 0, (DAT_VADDR)(uintptr_t)(a->buf + 32768), 256 };
    DAT_RMR_TRIPLET dst = dt_remote(b, 0, 256);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &src, dt_cookie(1), &dst, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK(memcmp(b->buf, a->buf + 32768, 256) == 0);
    DAT_LMR_TRIPLET rv = dt_iov(b, 1024, 256);
    CHECK_OK(dat_ep_post_recv(b->ep, 1, &rv, dt_cookie(2), 0));
    CHECK_OK(dat_ep_post_send(a->ep, 1, &src, dt_cookie(3), 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK_EQ(dt_wait_dto(b->recv_evd, NULL), DAT_DTO_SUCCESS);
    CHECK(memcmp(b->buf + 1024, a->buf + 32768, 256) == 0);
    /* Local read only: not a receive buffer. */
    DAT_LMR_TRIPLET ro = { cr, 0, (DAT_VADDR)(uintptr_t)(a->buf + 40960), 256 };
    CHECK_RET(dat_ep_post_recv(a->ep, 1, &ro, dt_cookie(4), 0), DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_WRITE);
    dt_pair_close(&p);
}

/* DAT_MEM_TYPE_LMR: a new LMR over an existing LMR's memory, with another
 * PZ and other privileges; the length argument is ignored. */
static void lmr_over_lmr(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    DAT_PZ_HANDLE pz2;
    CHECK_OK(dat_pz_create(b->ia, &pz2));
    DAT_EP_HANDLE ep2;
    CHECK_OK(dat_ep_create(b->ia, pz2, b->recv_evd, b->req_evd, b->conn_evd, NULL, &ep2));
    DAT_REGION_DESCRIPTION r = { .for_lmr_handle = b->lmr };
    DAT_LMR_HANDLE l2;
    DAT_LMR_CONTEXT c2;
    DAT_RMR_CONTEXT r2 = 0x77;
    DAT_VLEN size = 0;
    DAT_VADDR addr = 0;
    CHECK_OK(dat_lmr_create(b->ia, DAT_MEM_TYPE_LMR, r, 12345, pz2, DAT_MEM_PRIV_LOCAL_READ_FLAG, &l2, &c2, &r2,
                            &size, &addr));
    CHECK_EQ(size, DT_BUF);
    CHECK_EQ(addr, (DAT_VADDR)(uintptr_t)b->buf);
    CHECK_EQ(r2, 0);
    CHECK(c2 != b->lmr_ctx);
    DAT_LMR_PARAM q;
    CHECK_OK(dat_lmr_query(l2, DAT_LMR_FIELD_ALL, &q));
    CHECK_EQ(q.mem_type, DAT_MEM_TYPE_LMR);
    CHECK(q.region_desc.for_lmr_handle == b->lmr);
    CHECK(q.pz_handle == pz2);
    /* The PZ decides which EP may use which LMR... */
    DAT_LMR_TRIPLET old_ctx = dt_iov(b, 0, 64), new_ctx = old_ctx;
    new_ctx.lmr_context = c2;
    CHECK_RET(dat_ep_post_recv(ep2, 1, &old_ctx, dt_cookie(1), 0), DAT_PROTECTION_VIOLATION, DAT_PROTECTION_WRITE);
    /* ...and the privileges what it may do: read only here. */
    CHECK_RET(dat_ep_post_recv(ep2, 1, &new_ctx, dt_cookie(1), 0), DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_WRITE);
    /* Data sent through the new LMR reaches the peer. */
    CHECK_OK(dat_psp_free(p.psp));
    CHECK_OK(dat_psp_create_any(b->ia, &p.qual, b->cr_evd, DAT_PSP_CONSUMER_FLAG, &p.psp));
    CHECK_OK(dat_ep_connect(a->ep, dt_addr(b->ia), p.qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT, 0));
    DAT_EVENT ev;
    CHECK_OK(dt_wait(b->cr_evd, DT_WAIT_US, &ev));
    CHECK_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, ep2, 0, NULL));
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    DAT_LMR_TRIPLET rv = dt_iov(a, 0, 64);
    CHECK_OK(dat_ep_post_recv(a->ep, 1, &rv, dt_cookie(2), 0));
    dt_fill(b->buf, 64, 41);
    CHECK_OK(dat_ep_post_send(ep2, 1, &new_ctx, dt_cookie(3), 0));
    CHECK_EQ(dt_wait_dto(b->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK_EQ(dt_wait_dto(a->recv_evd, NULL), DAT_DTO_SUCCESS);
    CHECK(memcmp(a->buf, b->buf, 64) == 0);
    /* Freeing the original leaves the new one working. */
    CHECK_OK(dat_lmr_free(b->lmr));
    CHECK_OK(dat_ep_post_recv(a->ep, 1, &rv, dt_cookie(4), 0));
    CHECK_OK(dat_ep_post_send(ep2, 1, &new_ctx, dt_cookie(5), 0));
    CHECK_EQ(dt_wait_dto(b->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK_EQ(dt_wait_dto(a->recv_evd, NULL), DAT_DTO_SUCCESS);
    /* An LMR handle that is not one. */
    r.for_lmr_handle = b->lmr;   /* freed */
    CHECK_RET(dat_lmr_create(b->ia, DAT_MEM_TYPE_LMR, r, 0, pz2, 0, &l2, &c2, NULL, NULL, NULL), DAT_INVALID_HANDLE,
              DAT_INVALID_HANDLE_LMR);
    r.for_lmr_handle = b->pz;
    CHECK_RET(dat_lmr_create(b->ia, DAT_MEM_TYPE_LMR, r, 0, pz2, 0, &l2, &c2, NULL, NULL, NULL), DAT_INVALID_HANDLE,
              DAT_INVALID_HANDLE_LMR);
    dt_pair_close(&p);
}

static DAT_RETURN reg_shared(struct dt_side *s, void *va, DAT_VLEN len, const char cookie[40], DAT_LMR_HANDLE *l)
{
    static char ids[8][DAT_LMR_COOKIE_SIZE];
    static int n;
    char (*id)[DAT_LMR_COOKIE_SIZE] = &ids[n++ % 8];
    memcpy(*id, cookie, DAT_LMR_COOKIE_SIZE);
    DAT_REGION_DESCRIPTION r;
    r.for_shared_memory.virtual_address = va;
    r.for_shared_memory.shared_memory_id = id;
    DAT_LMR_CONTEXT c;
    DAT_VLEN size;
    DAT_VADDR addr;
    return dat_lmr_create(s->ia, DAT_MEM_TYPE_SHARED_VIRTUAL, r, len, s->pz, DAT_MEM_PRIV_ALL_FLAG, l, &c, NULL,
                          &size, &addr);
}

/* DAT_MEM_TYPE_SHARED_VIRTUAL: shared memory named by a 40-byte cookie,
 * compared whole. */
static void shared_virtual(void)
{
    struct dt_side s;
    dt_side_open(&s, 0, NULL);
    uint8_t *m1 = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    uint8_t *m2 = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(m1 != MAP_FAILED && m2 != MAP_FAILED);
    char c1[40] = "region-one", c2[40] = "region-one";
    c2[39] = 'x';   /* equal as strings, different as cookies */
    DAT_LMR_HANDLE l1, l1b, l2, bad;
    CHECK_OK(reg_shared(&s, m1, 8192, c1, &l1));
    /* Another consumer of the same region: same cookie, same memory. */
    CHECK_OK(reg_shared(&s, m1, 8192, c1, &l1b));
    /* A cookie that differs only after the string's end names another region. */
    CHECK_OK(reg_shared(&s, m2, 8192, c2, &l2));
    /* The same cookie for other memory is refused. */
    CHECK_RET(reg_shared(&s, m2, 8192, c1, &bad), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    /* Memory that is not shared memory. */
    char c3[40] = "private";
    CHECK_RET(reg_shared(&s, s.buf, 4096, c3, &bad), DAT_INVALID_STATE, DAT_NO_SUBTYPE);
    DAT_LMR_PARAM q;
    CHECK_OK(dat_lmr_query(l2, DAT_LMR_FIELD_ALL, &q));
    CHECK_EQ(q.mem_type, DAT_MEM_TYPE_SHARED_VIRTUAL);
    CHECK(q.region_desc.for_shared_memory.virtual_address == m2);
    CHECK_EQ(q.registered_size, 8192);
    DAT_REGION_DESCRIPTION r;
    r.for_shared_memory.virtual_address = m1;
    r.for_shared_memory.shared_memory_id = NULL;
    DAT_LMR_CONTEXT c;
    CHECK_RET(dat_lmr_create(s.ia, DAT_MEM_TYPE_SHARED_VIRTUAL, r, 8192, s.pz, 0, &bad, &c, NULL, NULL, NULL),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    /* Once every LMR of a cookie is gone, the cookie may name other memory. */
    CHECK_OK(dat_lmr_free(l1));
    CHECK_OK(dat_lmr_free(l1b));
    CHECK_OK(reg_shared(&s, m2, 8192, c1, &l1));
    CHECK_OK(dat_lmr_free(l1));
    CHECK_OK(dat_lmr_free(l2));
    dt_side_close(&s);
    munmap(m1, 8192);
    munmap(m2, 8192);
}

static void so_virtual_and_ro_aware(void)
{
    char name[] = "RO_AWARE_rnic0";
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
    CHECK_OK(dat_ia_open(name, 4, &async, &ia));
    DAT_PZ_HANDLE pz;
    CHECK_OK(dat_pz_create(ia, &pz));
    static uint8_t mem[8192];
    DAT_REGION_DESCRIPTION r = { .for_va = mem };
    DAT_LMR_HANDLE l1, l2;
    DAT_LMR_CONTEXT c;
    DAT_LMR_PARAM q;
    CHECK_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, 4096, pz, 0, &l1, &c, NULL, NULL, NULL));
    CHECK_OK(dat_lmr_query(l1, DAT_LMR_FIELD_MEM_TYPE, &q));
    CHECK_EQ(q.mem_type, DAT_MEM_TYPE_VIRTUAL);   /* kept: the IA is RO aware */
    r.for_va = mem + 4096;
    CHECK_OK(dat_lmr_create(ia, DAT_MEM_TYPE_SO_VIRTUAL, r, 4096, pz, 0, &l2, &c, NULL, NULL, NULL));
    CHECK_OK(dat_lmr_query(l2, DAT_LMR_FIELD_MEM_TYPE, &q));
    CHECK_EQ(q.mem_type, DAT_MEM_TYPE_SO_VIRTUAL);
    CHECK_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

static void errors(void)
{
    struct dt_side s, t;
    dt_side_open(&s, 0, NULL);
    dt_side_open(&t, 1, NULL);
    static uint8_t mem[4096];
    DAT_REGION_DESCRIPTION r = { .for_va = mem };
    DAT_LMR_HANDLE l;
    DAT_LMR_CONTEXT c;
    CHECK_RET(dat_lmr_create(s.pz, DAT_MEM_TYPE_VIRTUAL, r, 4096, s.pz, 0, &l, &c, NULL, NULL, NULL),
              DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    CHECK_RET(dat_lmr_create(s.ia, (DAT_MEM_TYPE)4, r, 4096, s.pz, 0, &l, &c, NULL, NULL, NULL),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_RET(dat_lmr_create(s.ia, DAT_MEM_TYPE_VIRTUAL, r, 4096, s.ia, 0, &l, &c, NULL, NULL, NULL),
              DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
    CHECK_RET(dat_lmr_create(s.ia, DAT_MEM_TYPE_VIRTUAL, r, 4096, t.pz, 0, &l, &c, NULL, NULL, NULL),
              DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);   /* another IA's PZ */
    CHECK_RET(dat_lmr_create(s.ia, DAT_MEM_TYPE_VIRTUAL, r, 4096, s.pz, (DAT_MEM_PRIV_FLAGS)0x04, &l, &c, NULL, NULL,
                             NULL),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
    CHECK_RET(dat_lmr_create(s.ia, DAT_MEM_TYPE_VIRTUAL, r, 0, s.pz, 0, &l, &c, NULL, NULL, NULL),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
    CHECK_RET(dat_lmr_create(s.ia, DAT_MEM_TYPE_VIRTUAL, r, UINT64_MAX - 10, s.pz, 0, &l, &c, NULL, NULL, NULL),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
    DAT_REGION_DESCRIPTION none = { .for_va = NULL };
    CHECK_RET(dat_lmr_create(s.ia, DAT_MEM_TYPE_VIRTUAL, none, 4096, s.pz, 0, &l, &c, NULL, NULL, NULL),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    CHECK_RET(dat_lmr_create(s.ia, DAT_MEM_TYPE_VIRTUAL, r, 4096, s.pz, 0, NULL, &c, NULL, NULL, NULL),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
    CHECK_RET(dat_lmr_create(s.ia, DAT_MEM_TYPE_VIRTUAL, r, 4096, s.pz, 0, &l, NULL, NULL, NULL, NULL),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);
    /* The protection table runs out: DAT_INSUFFICIENT_RESOURCES, not a crash. */
    DAT_IA_ATTR ia_attr;
    CHECK_OK(dat_ia_query(s.ia, NULL, DAT_IA_FIELD_IA_MAX_LMRS, &ia_attr, 0, NULL));
    int made = 0;
    DAT_RETURN ret = DAT_SUCCESS;
    while (made <= ia_attr.max_lmrs + 1) {
        ret = dat_lmr_create(s.ia, DAT_MEM_TYPE_VIRTUAL, r, 4096, s.pz, 0, &l, &c, NULL, NULL, NULL);
        if (ret != DAT_SUCCESS)
            break;
        made++;
    }
    CHECK_RET(ret, DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY_REGION);
    CHECK_EQ(made, ia_attr.max_lmrs - 1);   /* the fixture's LMR holds one entry */
    dt_side_close(&s);
    dt_side_close(&t);
}

int main(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    virtual_and_privileges(&p);
    dt_pair_close(&p);
    local_read_implied();
    lmr_over_lmr();
    shared_virtual();
    so_virtual_and_ro_aware();
    errors();
    return dt_finish("test_lmr_create");
}
