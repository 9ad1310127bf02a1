/*
 * dat_lmr_sync_rdma_write(3DAT) (and dat_lmr_sync_rdma_read) on the
 * non-coherent host (CTest sets RNIC_HOST_COHERENCY=noncoherent), sentence
 * by sentence (docs/dat-conformance.md, 004): the provider says syncs are
 * needed; a consumer that syncs reads the peer's data, one that does not
 * reads the old data; a sync covers exactly its ranges, batched over LMRs
 * of two PZs; local writes and incoming WRITEs with and without the syncs
 * the page asks for; an incoming RDMA READ with and without
 * dat_lmr_sync_rdma_read; DTO buffers need no sync; and the report at
 * dat_ia_close of every range that missed one.
 *
 * Side 0 (rnic0) is the initiator and uses only its own DTO buffers; side 1
 * (rnic1) is the target of its RDMA WRITEs and READs.
 */
#define _DEFAULT_SOURCE   /* mkstemp, pread */
#include "dat_test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where side 1 receives the SEND that follows each WRITE. */
#define NOTE_OFF 60000u

static bool all(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return false;
    return true;
}

/* The WRITE page's pattern: side 0 WRITEs its [src, src+n) to side 1's
 * [dst, dst+n), then SENDs; once side 1 has the SEND, the WRITE has landed. */
static void write_then_note(struct dt_pair *p, size_t src, size_t dst, size_t n)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    memset(b->buf + NOTE_OFF, 0xFF, 16);   /* the CPU dirties the receive buffer: libdat copes */
    DAT_LMR_TRIPLET note = dt_iov(b, NOTE_OFF, 16);
    CHECK_OK(dat_ep_post_recv(b->ep, 1, &note, dt_cookie(1), 0));
    DAT_LMR_TRIPLET from = dt_iov(a, src, n), msg = dt_iov(a, NOTE_OFF, 16);
    DAT_RMR_TRIPLET to = dt_remote(b, dst, n);
    memcpy(a->buf + NOTE_OFF, &dst, sizeof(dst));
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &from, dt_cookie(2), &to, 0));
    CHECK_OK(dat_ep_post_send(a->ep, 1, &msg, dt_cookie(3), 0));
    CHECK_EQ(dt_wait_dto(b->recv_evd, NULL), DAT_DTO_SUCCESS);
    size_t told;
    memcpy(&told, b->buf + NOTE_OFF, sizeof(told));
    CHECK_EQ(told, dst);   /* the receive buffer is visible without a sync */
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
}

static DAT_RETURN sync_w(struct dt_side *s, size_t off, size_t n)
{
    DAT_LMR_TRIPLET t = dt_iov(s, off, n);
    return dat_lmr_sync_rdma_write(s->ia, &t, 1);
}

static DAT_RETURN sync_r(struct dt_side *s, size_t off, size_t n)
{
    DAT_LMR_TRIPLET t = dt_iov(s, off, n);
    return dat_lmr_sync_rdma_read(s->ia, &t, 1);
}

/* Closes side s with stderr in a file; returns what libdat printed. */
static char *close_capturing(struct dt_side *s)
{
    char path[] = "/tmp/dat_sync_report_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    dt_side_close(s);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    off_t len = lseek(fd, 0, SEEK_END);
    char *text = calloc(1, (size_t)len + 1);
    CHECK_EQ(pread(fd, text, (size_t)len, 0), len);
    close(fd);
    unlink(path);
    fputs(text, stderr);   /* still in the test's log */
    return text;
}

/* The report's line for one range of side s's LMR. */
static bool reported(const char *text, const char *ia, const char *kind, DAT_LMR_CONTEXT ctx, size_t off, size_t n)
{
    char want[160];
    snprintf(want, sizeof(want), "libdat: %s: sync %s: lmr_context 0x%x offset %zu length %zu ", ia, kind,
             (unsigned)ctx, off, n);
    return strstr(text, want) != NULL;
}

static int count_lines(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
        n++;
    return n;
}

/* A second connection whose EPs and buffers are in a second PZ on each
 * side: RDMA WRITEs into an LMR of another PZ. */
struct pz2 {
    DAT_PZ_HANDLE pz[2];
    DAT_EP_HANDLE ep[2];
    uint8_t *buf[2];
    DAT_LMR_HANDLE lmr[2];
    DAT_LMR_CONTEXT ctx[2];
    DAT_RMR_CONTEXT rctx[2];
};

static void pz2_open(struct dt_pair *p, struct pz2 *z)
{
    for (int i = 0; i < 2; i++) {
        struct dt_side *s = &p->s[i];
        CHECK_OK(dat_pz_create(s->ia, &z->pz[i]));
        CHECK_OK(dat_ep_create(s->ia, z->pz[i], s->recv_evd, s->req_evd, s->conn_evd, NULL, &z->ep[i]));
        z->buf[i] = aligned_alloc(4096, 8192);
        memset(z->buf[i], 0, 8192);
        DAT_REGION_DESCRIPTION r = { .for_va = z->buf[i] };
        CHECK_OK(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, r, 8192, z->pz[i], DAT_MEM_PRIV_ALL_FLAG, &z->lmr[i],
                                &z->ctx[i], &z->rctx[i], NULL, NULL));
    }
    CHECK_OK(dat_ep_connect(z->ep[0], dt_addr(p->s[1].ia), p->qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT,
                            DAT_CONNECT_DEFAULT_FLAG));
    DAT_EVENT ev;
    CHECK_OK(dt_wait(p->s[1].cr_evd, DT_WAIT_US, &ev));
    CHECK_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, z->ep[1], 0, NULL));
    for (int i = 0; i < 2; i++)
        CHECK_EQ(dt_wait_number(p->s[i].conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
}

/* S1, S3, S4, S6, S10 and the remote-write reports. */
static void visible_after_sync(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    for (int i = 0; i < 2; i++) {
        DAT_PROVIDER_ATTR pa;
        CHECK_OK(dat_ia_query(p.s[i].ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_LMR_SYNC_REQ, &pa));
        CHECK_EQ(pa.lmr_sync_req, DAT_TRUE);   /* S2 */
    }
    dt_pair_connect(&p);
    struct pz2 z;
    pz2_open(&p, &z);

    /* A consumer that does not sync reads the old data; one that syncs,
     * the new; a sync makes exactly its range visible. */
    dt_fill(a->buf, 8192, 1);
    write_then_note(&p, 0, 4096, 8192);
    CHECK(all(b->buf + 4096, 8192, 0));
    CHECK_OK(sync_w(b, 4096, 1000));
    CHECK(memcmp(b->buf + 4096, a->buf, 1000) == 0 && all(b->buf + 5096, 8192 - 1000, 0));
    CHECK_OK(sync_w(b, 5096, 8192 - 1000));
    CHECK(memcmp(b->buf + 4096, a->buf, 8192) == 0);

    /* Two WRITEs, into LMRs of two PZs, made visible by one call. */
    dt_fill(a->buf, 256, 2);
    write_then_note(&p, 0, 16384, 256);
    dt_fill(z.buf[0], 512, 3);
    DAT_LMR_TRIPLET from = { z.ctx[0], 0, (DAT_VADDR)(uintptr_t)z.buf[0], 512 };
    DAT_RMR_TRIPLET to = { z.rctx[1], 0, (DAT_VADDR)(uintptr_t)(z.buf[1] + 1024), 512 };
    CHECK_OK(dat_ep_post_rdma_write(z.ep[0], 1, &from, dt_cookie(4), &to, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    write_then_note(&p, 0, 16384 + 256, 1);   /* a SEND behind it on the same host pair */
    CHECK(all(z.buf[1] + 1024, 512, 0));
    DAT_LMR_TRIPLET both[2] = { dt_iov(b, 16384, 256), { z.ctx[1], 0, (DAT_VADDR)(uintptr_t)(z.buf[1] + 1024), 512 } };
    CHECK_OK(dat_lmr_sync_rdma_write(b->ia, both, 2));
    CHECK(memcmp(b->buf + 16384, a->buf, 256) == 0 && memcmp(z.buf[1] + 1024, z.buf[0], 512) == 0);
    CHECK_OK(sync_w(b, 16384 + 256, 1));

    /* A batch with one bad segment syncs nothing. */
    dt_fill(a->buf, 64, 4);
    write_then_note(&p, 0, 20000, 64);
    DAT_LMR_TRIPLET bad[2] = { dt_iov(b, 20000, 64), dt_iov(b, DT_BUF - 8, 16) };
    CHECK_RET(dat_lmr_sync_rdma_write(b->ia, bad, 2), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK(all(b->buf + 20000, 64, 0));
    CHECK_OK(sync_w(b, 20000, 64));
    CHECK(memcmp(b->buf + 20000, a->buf, 64) == 0);

    /* Written twice before a sync: the second WRITE's data, and a report.
     * The source changes between the WRITEs with no sync: libdat flushes
     * DTO sources itself. */
    dt_fill(a->buf, 512, 5);
    write_then_note(&p, 0, 24576, 512);
    dt_fill(a->buf, 512, 6);
    write_then_note(&p, 0, 24576, 512);
    CHECK_OK(sync_w(b, 24576, 512));
    CHECK(memcmp(b->buf + 24576, a->buf, 512) == 0);

    /* Never synced: reported at close (and not lost). */
    dt_fill(a->buf, 256, 7);
    write_then_note(&p, 0, 30000, 256);

    const DAT_LMR_CONTEXT bctx = b->lmr_ctx;
    char *rb = close_capturing(b);
    CHECK(reported(rb, "rnic1", "overwritten", bctx, 24576, 512));
    CHECK(reported(rb, "rnic1", "never-synced", bctx, 30000, 256));
    CHECK_EQ(count_lines(rb, ": sync "), 2);
    CHECK(strstr(rb, "libdat: rnic1: non-coherent host: 2 range(s) missed a sync") != NULL);
    char *ra = close_capturing(a);
    CHECK_EQ(strlen(ra), 0);   /* side 0 used only its own DTO buffers */
    free(ra);
    free(rb);
    free(z.buf[0]);
    free(z.buf[1]);
}

/* S5, S6 (writes), S11, and dat_lmr_sync_rdma_read for an incoming READ. */
static void local_writes(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    dt_fill(a->buf, 512, 11);

    /* A local write, synced before the WRITE is initiated: the WRITE's data. */
    memset(b->buf, 0x5A, 512);
    CHECK_OK(sync_w(b, 0, 512));
    write_then_note(&p, 0, 0, 512);
    CHECK_OK(sync_w(b, 0, 512));
    CHECK(memcmp(b->buf, a->buf, 512) == 0);

    /* The same without that sync: undefined (here the CPU's bytes win, as
     * a write-back cache's dirty line would), and reported. */
    memset(b->buf + 1024, 0x5A, 512);
    write_then_note(&p, 0, 1024, 512);
    CHECK_OK(sync_w(b, 1024, 512));
    CHECK(memcmp(b->buf + 1024, a->buf, 512) != 0);

    /* After a WRITE completed, a local write before the sync: undefined too. */
    write_then_note(&p, 0, 2048, 512);
    memset(b->buf + 2048, 0x77, 256);
    CHECK_OK(sync_w(b, 2048, 512));
    /* With the sync first, the local write is simply the newest data. */
    write_then_note(&p, 0, 3072, 512);
    CHECK_OK(sync_w(b, 3072, 512));
    memset(b->buf + 3072, 0x77, 256);
    CHECK_OK(sync_w(b, 3072, 512));
    CHECK(all(b->buf + 3072, 256, 0x77) && memcmp(b->buf + 3328, a->buf + 256, 256) == 0);

    /* An incoming READ of memory the CPU changed: the old data without
     * dat_lmr_sync_rdma_read, the new with it. The reader's destination
     * needs no sync: libdat made it visible when the completion came. */
    memset(b->buf + 8192, 0x3C, 1024);
    DAT_LMR_TRIPLET dst = dt_iov(a, 32768, 1024);
    DAT_RMR_TRIPLET src = dt_remote(b, 8192, 1024);
    memset(a->buf + 32768, 0xEE, 1024);
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &dst, dt_cookie(5), &src, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK(all(a->buf + 32768, 1024, 0));
    CHECK_OK(sync_r(b, 8192, 1024));
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &dst, dt_cookie(6), &src, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK(all(a->buf + 32768, 1024, 0x3C));
    /* dat_lmr_sync_rdma_read flushes; it does not make incoming WRITEs visible. */
    write_then_note(&p, 0, 12288, 64);
    CHECK_OK(sync_r(b, 12288, 64));
    CHECK(all(b->buf + 12288, 64, 0));
    CHECK_OK(sync_w(b, 12288, 64));
    CHECK(memcmp(b->buf + 12288, a->buf, 64) == 0);

    const DAT_LMR_CONTEXT bctx = b->lmr_ctx;
    char *rb = close_capturing(b);
    CHECK(reported(rb, "rnic1", "undefined", bctx, 1024, 512));
    CHECK(reported(rb, "rnic1", "undefined", bctx, 2048, 256));
    CHECK(reported(rb, "rnic1", "stale-read", bctx, 8192, 1024));
    CHECK_EQ(count_lines(rb, ": sync "), 3);
    char *ra = close_capturing(a);
    CHECK_EQ(strlen(ra), 0);
    free(ra);
    free(rb);
}

/* A consumer that uses no remote access needs no sync: SENDs both ways
 * into receive buffers the CPU wrote before posting, from sources it
 * rewrites between posts. Nothing is reported. */
static void local_only(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 2; i++) {
            struct dt_side *from = &p.s[i], *to = &p.s[1 - i];
            memset(to->buf + 4096, 0xAB, 2048);
            DAT_LMR_TRIPLET r = dt_iov(to, 4096, 2048), s = dt_iov(from, 0, 2048);
            CHECK_OK(dat_ep_post_recv(to->ep, 1, &r, dt_cookie(7), 0));
            dt_fill(from->buf, 2048, (unsigned)(20 + round * 2 + i));
            CHECK_OK(dat_ep_post_send(from->ep, 1, &s, dt_cookie(8), 0));
            CHECK_EQ(dt_wait_dto(to->recv_evd, NULL), DAT_DTO_SUCCESS);
            CHECK_EQ(dt_wait_dto(from->req_evd, NULL), DAT_DTO_SUCCESS);
            CHECK(memcmp(to->buf + 4096, from->buf, 2048) == 0);
        }
    }
    for (int i = 1; i >= 0; i--) {
        char *r = close_capturing(&p.s[i]);
        CHECK_EQ(strlen(r), 0);
        free(r);
    }
}

int main(void)
{
    visible_after_sync();
    local_writes();
    local_only();
    return dt_finish("test_lmr_sync_nc");
}
