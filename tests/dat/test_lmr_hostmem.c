/*
 * Memory the process does not have, registered or reached through an LMR
 * (docs/libdat.md, "Registration"; docs/platform.md, "DMA and the IOMMU"):
 *  - dat_lmr_create refuses an unmapped range, read-only pages with a write
 *    privilege (local or remote), and a 4 KiB buffer registered as 2^40
 *    bytes, with DAT_INVALID_PARAMETER, and nothing is registered;
 *  - read-only memory registered for reading serves an RDMA READ;
 *  - memory unmapped (or made read-only) after its registration fails the
 *    peer's RDMA WRITE and RDMA READ with an error completion: the process
 *    lives on, no other byte changes, and the LMR can still be freed.
 * Run on the coherent host and (dat_test_lmr_hostmem_noncoherent) on the
 * non-coherent one, where the platform keeps a second view of each LMR.
 */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS */
#include "dat_test.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096u
#define WRITE_PRIV (DAT_MEM_PRIV_LOCAL_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

static DAT_RETURN reg(struct dt_side *s, void *va, DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv, DAT_LMR_HANDLE *l,
                      DAT_LMR_CONTEXT *lc, DAT_RMR_CONTEXT *rc)
{
    DAT_REGION_DESCRIPTION r = { .for_va = va };
    return dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, r, len, s->pz, priv, l, lc, rc, NULL, NULL);
}

static uint8_t *map_pages(size_t pages, int prot)
{
    void *p = mmap(NULL, pages * PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "mmap failed\n");
        exit(2);
    }
    return p;
}

static bool all_are(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return false;
    return true;
}

/* A failed dat_lmr_create hands out nothing: the handle stays as it was.
 * A macro, so that a failure names the caller's line and subtype. */
#define refused(s, va, len, priv, sub)                                              \
    do {                                                                            \
        DAT_LMR_HANDLE l_ = DAT_HANDLE_NULL;                                        \
        DAT_LMR_CONTEXT lc_ = 0;                                                    \
        CHECK_RET(reg(s, va, len, priv, &l_, &lc_, NULL), DAT_INVALID_PARAMETER, sub); \
        CHECK(l_ == DAT_HANDLE_NULL);                                               \
    } while (0)

static void registration(struct dt_pair *p)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];

    /* Unmapped: a range nothing maps, and one with a hole in the middle. Not
     * a range this test unmaps: ASan's allocator took such pages back for
     * its own mappings before the registration (CI, twice). The first page
     * past the 47-bit user address space is never mapped: mmap hands out
     * nothing there unless a program asks for it by address. */
    uint8_t *gone = (uint8_t *)(uintptr_t)(UINT64_C(1) << 47);
    refused(b, gone, PAGE, DAT_MEM_PRIV_ALL_FLAG, DAT_INVALID_ARG3);
    refused(b, gone + 100, 200, DAT_MEM_PRIV_LOCAL_READ_FLAG, DAT_INVALID_ARG3);
    /* The hole is PROT_NONE, not unmapped: an unmapped page can be taken by
     * the next mapping anyone in the process makes (ASan's allocator did,
     * between the munmap and the registration), and then the range is whole. */
    uint8_t *holed = map_pages(3, PROT_READ | PROT_WRITE);
    CHECK_EQ(mprotect(holed + PAGE, PAGE, PROT_NONE), 0);
    refused(b, holed, 3 * PAGE, DAT_MEM_PRIV_ALL_FLAG, DAT_INVALID_ARG3);
    /* PROT_NONE is no memory to the NIC either. */
    CHECK_EQ(mprotect(holed, PAGE, PROT_NONE), 0);
    refused(b, holed, PAGE, DAT_MEM_PRIV_LOCAL_READ_FLAG, DAT_INVALID_ARG3);

    /* Read-only pages: refused for any privilege that lets the NIC write... */
    uint8_t *ro = map_pages(2, PROT_READ | PROT_WRITE);
    memset(ro, 0x6B, 2 * PAGE);
    CHECK_EQ(mprotect(ro, 2 * PAGE, PROT_READ), 0);
    refused(b, ro, 2 * PAGE, DAT_MEM_PRIV_LOCAL_WRITE_FLAG, DAT_INVALID_ARG6);
    refused(b, ro, 2 * PAGE, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, DAT_INVALID_ARG6);
    refused(b, ro, 2 * PAGE, DAT_MEM_PRIV_ALL_FLAG, DAT_INVALID_ARG6);
    /* ...and a range only partly read-only is read-only. */
    uint8_t *half = map_pages(2, PROT_READ | PROT_WRITE);
    CHECK_EQ(mprotect(half + PAGE, PAGE, PROT_READ), 0);
    refused(b, half + PAGE - 64, 128, DAT_MEM_PRIV_LOCAL_WRITE_FLAG, DAT_INVALID_ARG6);
    /* Registered for reading, it serves an RDMA READ. */
    DAT_LMR_HANDLE l;
    DAT_LMR_CONTEXT lc;
    DAT_RMR_CONTEXT rc = 0;
    CHECK_OK(reg(b, ro, 2 * PAGE, DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_REMOTE_READ_FLAG, &l, &lc, &rc));
    memset(a->buf, 0, 256);
    DAT_LMR_TRIPLET v = dt_iov(a, 0, 256);
    DAT_RMR_TRIPLET t = { rc, 0, (DAT_VADDR)(uintptr_t)(ro + PAGE - 128), 256 };
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &v, dt_cookie(1), &t, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK(all_are(a->buf, 256, 0x6B));
    CHECK_OK(dat_lmr_free(l));

    /* 4 KiB registered as 2^40 bytes (the largest length the IA allows):
     * the range runs past the mapping, from the heap and from mmap alike. */
    uint8_t *small = map_pages(2, PROT_READ | PROT_WRITE);
    CHECK_EQ(munmap(small + PAGE, PAGE), 0);   /* nothing after it, whatever else is mapped */
    uint8_t *heap = malloc(PAGE);
    CHECK(heap != NULL);
    refused(b, small, (DAT_VLEN)1 << 40, DAT_MEM_PRIV_ALL_FLAG, DAT_INVALID_ARG3);
    refused(b, heap, (DAT_VLEN)1 << 40, DAT_MEM_PRIV_ALL_FLAG, DAT_INVALID_ARG3);
    refused(b, small, (DAT_VLEN)1 << 40, DAT_MEM_PRIV_LOCAL_READ_FLAG, DAT_INVALID_ARG3);
    refused(b, small + PAGE - 8, 16, DAT_MEM_PRIV_LOCAL_READ_FLAG, DAT_INVALID_ARG3);
    /* The same memory at its own length registers. */
    CHECK_OK(reg(b, small, PAGE, DAT_MEM_PRIV_ALL_FLAG, &l, &lc, NULL));
    CHECK_OK(dat_lmr_free(l));
    free(heap);

    CHECK_EQ(munmap(holed, 3 * PAGE), 0);
    CHECK_EQ(munmap(ro, 2 * PAGE), 0);
    CHECK_EQ(munmap(half, 2 * PAGE), 0);
    CHECK_EQ(munmap(small, PAGE), 0);
}

/* Side 1's target sits between two neighbours; the peer (side 0) reaches it
 * with an RDMA WRITE or READ after side 1 took the memory away (`how`):
 * the operation completes with an error, and no byte anywhere changes. */
enum loss { UNMAPPED, READ_ONLY };

static void after_registration(enum loss how, bool write)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    uint8_t *mem = map_pages(6, PROT_READ | PROT_WRITE);
    uint8_t *target = mem + 2 * PAGE;
    memset(mem, 0x11, 6 * PAGE);
    memset(target, 0x22, 2 * PAGE);
    DAT_LMR_HANDLE l, around;
    DAT_LMR_CONTEXT lc, around_c;
    DAT_RMR_CONTEXT rc = 0, around_rc = 0;
    CHECK_OK(reg(b, target, 2 * PAGE, DAT_MEM_PRIV_ALL_FLAG, &l, &lc, &rc));
    /* The neighbours are registered too: the NIC may reach them, and must not. */
    CHECK_OK(reg(b, mem, 2 * PAGE, DAT_MEM_PRIV_ALL_FLAG, &around, &around_c, &around_rc));
    if (how == UNMAPPED)
        CHECK_EQ(munmap(target, 2 * PAGE), 0);
    else
        CHECK_EQ(mprotect(target, 2 * PAGE, PROT_READ), 0);

    /* 6000 bytes: two packets, two pages, bursts on both sides of the page line. */
    const size_t n = 6000;
    dt_fill(a->buf, n, 7);
    memset(a->buf + n, 0x33, DT_BUF - n);
    uint8_t *src_copy = malloc(DT_BUF);
    CHECK(src_copy != NULL);
    memcpy(src_copy, a->buf, DT_BUF);
    DAT_LMR_TRIPLET v = dt_iov(a, 0, n);
    DAT_RMR_TRIPLET t = { rc, 0, (DAT_VADDR)(uintptr_t)(target + 100), n };
    DAT_DTO_COMPLETION_EVENT_DATA d;
    if (write) {
        CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(1), &t, 0));
        CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_ERR_REMOTE_ACCESS);
    } else {
        memset(a->buf, 0x44, n);
        memcpy(src_copy, a->buf, DT_BUF);
        CHECK_OK(dat_ep_post_rdma_read(a->ep, 1, &v, dt_cookie(2), &t, 0));
        CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_ERR_REMOTE_ACCESS);
    }
    /* The connection breaks, as for any remote access error. */
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);

    /* Nothing changed: the neighbours, the peer's buffer (a READ's
     * destination got no byte), the target itself where it is still there. */
    CHECK(all_are(mem, 2 * PAGE, 0x11));
    CHECK(all_are(mem + 4 * PAGE, 2 * PAGE, 0x11));
    CHECK(memcmp(a->buf, src_copy, DT_BUF) == 0);
    if (how == READ_ONLY)
        CHECK(all_are(target, 2 * PAGE, 0x22));

    /* The LMR is still an LMR: a sync of it (which on the non-coherent
     * host reaches for the memory behind it) and its free both return. */
    DAT_LMR_TRIPLET whole = { lc, 0, (DAT_VADDR)(uintptr_t)target, 2 * PAGE };
    (void)dat_lmr_sync_rdma_write(b->ia, &whole, 1);
    (void)dat_lmr_sync_rdma_read(b->ia, &whole, 1);
    CHECK_OK(dat_lmr_free(l));
    CHECK_OK(dat_lmr_free(around));
    CHECK(all_are(mem, 2 * PAGE, 0x11));
    CHECK(all_are(mem + 4 * PAGE, 2 * PAGE, 0x11));
    if (how == READ_ONLY)
        CHECK(all_are(target, 2 * PAGE, 0x22));
    free(src_copy);
    dt_pair_close(&p);
    CHECK_EQ(munmap(mem, 2 * PAGE), 0);
    CHECK_EQ(munmap(mem + 4 * PAGE, 2 * PAGE), 0);
    if (how == READ_ONLY)
        CHECK_EQ(munmap(target, 2 * PAGE), 0);
}

/* The same memory taken away under the local side: an RDMA WRITE whose
 * source is gone completes with an error and the peer gets no byte. */
static void local_source_unmapped(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    uint8_t *src = map_pages(2, PROT_READ | PROT_WRITE);
    dt_fill(src, 2 * PAGE, 9);
    DAT_LMR_HANDLE l;
    DAT_LMR_CONTEXT lc;
    CHECK_OK(reg(a, src, 2 * PAGE, DAT_MEM_PRIV_ALL_FLAG, &l, &lc, NULL));
    CHECK_EQ(munmap(src, 2 * PAGE), 0);
    memset(b->buf, 0x55, DT_BUF);
    DAT_LMR_TRIPLET v = { lc, 0, (DAT_VADDR)(uintptr_t)src, 2 * PAGE };
    DAT_RMR_TRIPLET t = dt_remote(b, 0, 2 * PAGE);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(3), &t, 0));
    CHECK(dt_wait_dto(a->req_evd, NULL) != DAT_DTO_SUCCESS);
    CHECK(all_are(b->buf, DT_BUF, 0x55));
    CHECK_OK(dat_lmr_free(l));
    dt_pair_close(&p);
}

int main(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    registration(&p);
    dt_pair_close(&p);
    after_registration(UNMAPPED, true);
    after_registration(UNMAPPED, false);
    after_registration(READ_ONLY, true);
    local_source_unmapped();
    return dt_finish("test_lmr_hostmem");
}
