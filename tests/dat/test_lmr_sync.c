/*
 * dat_lmr_sync_rdma_read(3DAT) / dat_lmr_sync_rdma_write(3DAT): the
 * provider says whether they are needed (lmr_sync_req), they check their
 * arguments the same way on either host, and the pattern the write page
 * describes works on both. Run twice by CTest: on the coherent host and
 * with RNIC_HOST_COHERENCY=noncoherent (test_lmr_sync_nc.c has the rest of
 * the non-coherent host).
 */
#include "dat_test.h"

#include <stdlib.h>
#include <string.h>

static bool noncoherent(void)
{
    const char *e = getenv("RNIC_HOST_COHERENCY");
    return e && strcmp(e, "noncoherent") == 0;
}

typedef DAT_RETURN (*sync_fn)(DAT_IA_HANDLE, const DAT_LMR_TRIPLET *, DAT_VLEN);

static void check_sync(sync_fn sync, struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    /* Segments of different LMRs in different PZs, in one call. */
    DAT_PZ_HANDLE pz2;
    CHECK_OK(dat_pz_create(a->ia, &pz2));
    DAT_REGION_DESCRIPTION r = { .for_va = a->buf + 32768 };
    DAT_LMR_HANDLE l2;
    DAT_LMR_CONTEXT c2;
    CHECK_OK(dat_lmr_create(a->ia, DAT_MEM_TYPE_VIRTUAL, r, 4096, pz2, DAT_MEM_PRIV_ALL_FLAG, &l2, &c2, NULL, NULL,
                            NULL));
    DAT_LMR_TRIPLET segs[3] = { dt_iov(a, 0, 100), { c2, 0, (DAT_VADDR)(uintptr_t)(a->buf + 32768), 4096 },
                                dt_iov(a, DT_BUF - 1, 1) };
    CHECK_OK(sync(a->ia, segs, 3));
    CHECK_OK(sync(a->ia, segs, 0));
    CHECK_OK(sync(a->ia, NULL, 0));
    /* An empty segment's other members are irrelevant. */
    DAT_LMR_TRIPLET empty = { 0xBAD, 0, 0, 0 };
    CHECK_OK(sync(a->ia, &empty, 1));
    /* A range outside its LMR, at either end. */
    DAT_LMR_TRIPLET out[2] = { dt_iov(a, 0, 100), dt_iov(a, DT_BUF - 1, 2) };
    CHECK_RET(sync(a->ia, out, 2), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    out[1] = dt_iov(a, 0, 16);
    out[1].virtual_address -= 1;
    CHECK_RET(sync(a->ia, out, 2), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    out[1] = segs[1];
    out[1].segment_length = 4097;
    CHECK_RET(sync(a->ia, out, 2), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    /* An LMR context that is not one (never issued, destroyed, another IA's). */
    DAT_LMR_TRIPLET bad = dt_iov(a, 0, 16);
    bad.lmr_context = 0x00FFFF01;
    CHECK_RET(sync(a->ia, &bad, 1), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_OK(dat_lmr_free(l2));
    CHECK_RET(sync(a->ia, &segs[1], 1), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    DAT_LMR_TRIPLET theirs = dt_iov(b, 0, 16);
    CHECK_RET(sync(a->ia, &theirs, 1), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_RET(sync(a->ia, NULL, 1), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    /* Handles. */
    CHECK_RET(sync(a->pz, segs, 1), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    CHECK_RET(sync(DAT_HANDLE_NULL, segs, 1), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    CHECK_OK(dat_pz_free(pz2));
}

/* The pattern the write page describes: the initiator WRITEs, then SENDs
 * the range; the target syncs it and reads the data. */
static void write_then_sync(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    DAT_LMR_TRIPLET note = dt_iov(b, 60000, 24);
    CHECK_OK(dat_ep_post_recv(b->ep, 1, &note, dt_cookie(1), 0));
    dt_fill(a->buf, 2048, 77);
    DAT_LMR_TRIPLET src = dt_iov(a, 0, 2048);
    DAT_RMR_TRIPLET dst = dt_remote(b, 4096, 2048);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &src, dt_cookie(2), &dst, DAT_COMPLETION_SUPPRESS_FLAG));
    DAT_LMR_TRIPLET range = { b->lmr_ctx, 0, dst.target_address, dst.segment_length };
    memcpy(a->buf + 8192, &range, sizeof(range));
    DAT_LMR_TRIPLET msg = dt_iov(a, 8192, sizeof(range));
    CHECK_OK(dat_ep_post_send(a->ep, 1, &msg, dt_cookie(3), 0));
    CHECK_EQ(dt_wait_dto(b->recv_evd, NULL), DAT_DTO_SUCCESS);
    DAT_LMR_TRIPLET got;
    memcpy(&got, b->buf + 60000, sizeof(got));   /* a receive buffer: libdat made it visible */
    CHECK(memcmp(&got, &range, sizeof(got)) == 0);
    /* Before the sync: the new data on a coherent host, the old (zero) on the other. */
    bool old = true;
    for (size_t i = 0; i < 2048; i++)
        old = old && b->buf[4096 + i] == 0;
    CHECK_EQ(old, noncoherent());
    CHECK_OK(dat_lmr_sync_rdma_write(b->ia, &got, 1));
    CHECK(memcmp(b->buf + 4096, a->buf, 2048) == 0);
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
}

static DAT_BOOLEAN sync_req(DAT_IA_HANDLE ia)
{
    DAT_PROVIDER_ATTR pa;
    pa.lmr_sync_req = (DAT_BOOLEAN)7;
    CHECK_OK(dat_ia_query(ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_LMR_SYNC_REQ, &pa));
    return pa.lmr_sync_req;
}

/* dat.conf's coherency= gives an IA the other host mode; the device keeps
 * it while open, and an IA asking for the other one meanwhile is refused. */
static void conf_mode(void)
{
    const char text[] =
        "other u1.2 nonthreadsafe default libdat.so.1 rnic.1.0 \"rnic1 coherency=%s\" \"\"\n"
        "same u1.2 nonthreadsafe default libdat.so.1 rnic.1.0 \"rnic1 coherency=%s\" \"\"\n"
        "bad u1.2 nonthreadsafe default libdat.so.1 rnic.1.0 \"rnic1 coherency=sometimes\" \"\"\n";
    const char *mine = noncoherent() ? "noncoherent" : "coherent";
    const char *theirs = noncoherent() ? "coherent" : "noncoherent";
    char conf[512], path[DT_CONF_PATH];
    snprintf(conf, sizeof(conf), text, theirs, mine);
    dt_conf_use(path, conf);
    char other[] = "other", same[] = "same", bad[] = "bad", builtin[] = "rnic1";
    DAT_IA_HANDLE ia, ia2;
    DAT_EVD_HANDLE e = DAT_HANDLE_NULL, e2 = DAT_HANDLE_NULL;
    CHECK_OK(dat_ia_open(other, 4, &e, &ia));
    CHECK_EQ(sync_req(ia), noncoherent() ? DAT_FALSE : DAT_TRUE);
    CHECK_RET(dat_ia_open(same, 4, &e2, &ia2), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    CHECK_OK(dat_ia_open(builtin, 4, &e2, &ia2));   /* no mode asked: the device's */
    CHECK_EQ(sync_req(ia2), noncoherent() ? DAT_FALSE : DAT_TRUE);
    CHECK_OK(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
    CHECK_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
    e = DAT_HANDLE_NULL;
    /* A line of ours with a bad value: reported on stderr, and its IA is a
     * bad parameter, not a name nobody registered (dat.conf(5)). */
    CHECK_RET(dat_ia_open(bad, 4, &e, &ia), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    dt_conf_drop(path);
}

int main(void)
{
    conf_mode();
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    for (int i = 0; i < 2; i++)   /* the run's mode again, once the device was closed */
        CHECK_EQ(sync_req(p.s[i].ia), noncoherent() ? DAT_TRUE : DAT_FALSE);
    check_sync(dat_lmr_sync_rdma_read, &p);
    check_sync(dat_lmr_sync_rdma_write, &p);
    dt_pair_connect(&p);
    write_then_sync(&p);
    dt_pair_close(&p);
    return dt_finish("test_lmr_sync");
}
