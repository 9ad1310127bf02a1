/*
 * The cost of one dat_lmr_sync_rdma_write / dat_lmr_sync_rdma_read call on
 * a 1 MiB LMR (docs/performance.md), in host time: medians of N rounds of
 *   - the non-coherent host with nothing to do (no byte changed),
 *   - sync_rdma_write after an incoming 1 MiB RDMA WRITE (all of it made visible),
 *   - sync_rdma_read after the CPU rewrote the 1 MiB (all of it flushed),
 *   - the coherent host (argument checks only).
 * Each round checks the data arrived where the sync says.
 *
 *   dat_bench_lmr_sync N     N rounds (default 11); exits 1 on any failure
 */
#define _DEFAULT_SOURCE   /* setenv */
#include "dat_test.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIB (1u << 20)

struct region {
    uint8_t *buf;
    DAT_LMR_HANDLE lmr;
    DAT_LMR_CONTEXT ctx;
    DAT_RMR_CONTEXT rctx;
};

static void region_open(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, struct region *r)
{
    r->buf = aligned_alloc(4096, MIB);
    memset(r->buf, 0, MIB);
    DAT_REGION_DESCRIPTION d = { .for_va = r->buf };
    CHECK_OK(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, d, MIB, pz, DAT_MEM_PRIV_ALL_FLAG, &r->lmr, &r->ctx, &r->rctx,
                            NULL, NULL));
}

static void region_close(struct region *r)
{
    CHECK_OK(dat_lmr_free(r->lmr));
    free(r->buf);
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

typedef DAT_RETURN (*sync_fn)(DAT_IA_HANDLE, const DAT_LMR_TRIPLET *, DAT_VLEN);

static double timed_sync(sync_fn sync, DAT_IA_HANDLE ia, const struct region *r)
{
    DAT_LMR_TRIPLET t = { r->ctx, 0, (DAT_VADDR)(uintptr_t)r->buf, MIB };
    double t0 = now_us();
    DAT_RETURN ret = sync(ia, &t, 1);
    double dt = now_us() - t0;
    CHECK_OK(ret);
    return dt;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_median(const char *what, double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    double med = v[n / 2];
    printf("%-64s median %9.2f us  (min %.2f, max %.2f)", what, med, v[0], v[n - 1]);
    if (med >= 1.0)   /* below a microsecond no byte was looked at */
        printf("  %.2f GB/s", MIB / med / 1e3);
    printf("\n");
}

/* An incoming 1 MiB WRITE into side 1's region; a SEND behind it says it landed. */
static void incoming_write(struct dt_pair *p, const struct region *src, const struct region *dst)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    DAT_LMR_TRIPLET note = dt_iov(b, 0, 8), from = { src->ctx, 0, (DAT_VADDR)(uintptr_t)src->buf, MIB },
                    msg = dt_iov(a, 0, 8);
    DAT_RMR_TRIPLET to = { dst->rctx, 0, (DAT_VADDR)(uintptr_t)dst->buf, MIB };
    CHECK_OK(dat_ep_post_recv(b->ep, 1, &note, dt_cookie(1), 0));
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &from, dt_cookie(2), &to, 0));
    CHECK_OK(dat_ep_post_send(a->ep, 1, &msg, dt_cookie(3), 0));
    CHECK_EQ(dt_wait_dto(b->recv_evd, NULL), DAT_DTO_SUCCESS);
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
}

static void noncoherent_figures(int rounds)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    struct region src, dst;
    region_open(p.s[0].ia, p.s[0].pz, &src);
    region_open(p.s[1].ia, p.s[1].pz, &dst);
    DAT_IA_HANDLE ia = p.s[1].ia;
    double *clean = calloc((size_t)rounds, sizeof(double)), *inval = calloc((size_t)rounds, sizeof(double)),
           *flush = calloc((size_t)rounds, sizeof(double));
    for (int i = 0; i < rounds; i++) {
        clean[i] = timed_sync(dat_lmr_sync_rdma_write, ia, &dst);
        dt_fill(src.buf, MIB, (unsigned)i + 1);
        incoming_write(&p, &src, &dst);
        CHECK(memcmp(dst.buf, src.buf, MIB) != 0);   /* not visible yet */
        inval[i] = timed_sync(dat_lmr_sync_rdma_write, ia, &dst);
        CHECK(memcmp(dst.buf, src.buf, MIB) == 0);
        for (size_t k = 0; k < MIB; k++)
            dst.buf[k] ^= 0xFF;   /* every byte changes */
        flush[i] = timed_sync(dat_lmr_sync_rdma_read, ia, &dst);
    }
    print_median("non-coherent, nothing changed: dat_lmr_sync_rdma_write", clean, rounds);
    print_median("non-coherent, after a 1 MiB RDMA WRITE: dat_lmr_sync_rdma_write", inval, rounds);
    print_median("non-coherent, after the CPU rewrote it: dat_lmr_sync_rdma_read", flush, rounds);
    free(clean);
    free(inval);
    free(flush);
    region_close(&src);
    region_close(&dst);
    dt_pair_close(&p);
}

/* The same device opened again through dat.conf as a coherent host. */
static void coherent_figure(int rounds)
{
    char path[DT_CONF_PATH];
    dt_conf_use(path, "coherent u1.2 nonthreadsafe default libdat.so.1 rnic.1.0 \"rnic1 coherency=coherent\" \"\"\n");
    char name[] = "coherent";
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
    DAT_PZ_HANDLE pz;
    CHECK_OK(dat_ia_open(name, 4, &async, &ia));
    CHECK_OK(dat_pz_create(ia, &pz));
    struct region r;
    region_open(ia, pz, &r);
    double *v = calloc((size_t)rounds, sizeof(double));
    for (int i = 0; i < rounds; i++)
        v[i] = timed_sync(dat_lmr_sync_rdma_write, ia, &r);
    print_median("coherent host: dat_lmr_sync_rdma_write (argument checks only)", v, rounds);
    free(v);
    region_close(&r);
    CHECK_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
    dt_conf_drop(path);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 11;
    if (rounds < 1)
        rounds = 1;
    setenv("RNIC_HOST_COHERENCY", "noncoherent", 1);   /* before the fabric is built */
    printf("sync of one 1 MiB LMR, %d round(s)\n", rounds);
    noncoherent_figures(rounds);
    coherent_figure(rounds);
    return dt_finish("bench_lmr_sync");
}
