/*
 * A stale rmr_context never names new memory. A consumer registers an LMR,
 * hands its rmr_context to the peer, frees it, and then registers and frees
 * other memory 300 times (more than the 256 values of a key's 8-bit part).
 * No registration may get the freed context back, and an RDMA WRITE from the
 * peer through the stale context into the memory registered last must
 * complete with DAT_DTO_ERR_REMOTE_ACCESS and leave that memory untouched
 * (docs/driver.md, "Keys", says how long a key stays unique).
 */
#include "dat_test.h"

#include <string.h>

#define ROUNDS 300
#define LEN 256u
#define VICTIM 4096u

static DAT_LMR_HANDLE reg(struct dt_side *s, void *mem, DAT_RMR_CONTEXT *rmr_ctx)
{
    DAT_REGION_DESCRIPTION r = { .for_va = mem };
    DAT_LMR_HANDLE lmr;
    DAT_LMR_CONTEXT lctx;
    DAT_VLEN size;
    DAT_VADDR addr;
    DT_MUST(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, r, VICTIM, s->pz, DAT_MEM_PRIV_ALL_FLAG, &lmr, &lctx,
                           rmr_ctx, &size, &addr));
    return lmr;
}

int main(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    struct dt_side *a = &p.s[0], *b = &p.s[1];

    uint8_t *first = aligned_alloc(4096, VICTIM), *victim = aligned_alloc(4096, VICTIM);
    DAT_RMR_CONTEXT stale;
    DT_MUST(dat_lmr_free(reg(b, first, &stale)));

    /* Other memory, registered and freed again and again; the last one
     * stays (and so does one that got the stale context, if one did). */
    DAT_LMR_HANDLE live = DAT_HANDLE_NULL;
    int repeats = 0;
    for (int i = 0; i < ROUNDS; i++) {
        DAT_RMR_CONTEXT ctx;
        live = reg(b, victim, &ctx);
        if (ctx == stale) {
            repeats++;
            fprintf(stderr, "registration %d got the stale rmr_context 0x%x back\n", i + 1, (unsigned)stale);
            break;
        }
        if (i < ROUNDS - 1)
            DT_MUST(dat_lmr_free(live));
    }
    CHECK_EQ(repeats, 0);

    memset(victim, 0x5A, VICTIM);
    dt_fill(a->buf, LEN, 3);
    DAT_LMR_TRIPLET l = dt_iov(a, 0, LEN);
    DAT_RMR_TRIPLET r = { stale, 0, (DAT_VADDR)(uintptr_t)victim, LEN };
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &l, dt_cookie(1), &r, DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_ERR_REMOTE_ACCESS);
    int landed = 0;
    for (size_t i = 0; i < VICTIM; i++)
        landed += victim[i] != 0x5A;
    CHECK_EQ(landed, 0);

    CHECK_OK(dat_lmr_free(live));
    dt_pair_close(&p);
    free(first);
    free(victim);
    return dt_finish("test_lmr_stale_key");
}
