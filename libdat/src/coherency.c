/*
 * The non-coherent host (docs/libdat.md, "Non-coherent host"): what libdat
 * does so that a consumer using no remote access needs no sync, and the
 * report, at dat_ia_close, of every range where the platform saw a sync
 * missing. Nothing here runs on a coherent host.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dat_internal.h"

/* At most this many ranges are kept per IA; the rest are counted. */
#define MAX_NOTES 256u

void dat_dma_sync_sges(const struct dat_dev *dev, const struct rnic_sge *sg, int nsg, int dir)
{
    /* The ranges were checked against their LMRs: a sync cannot fail. */
    for (int i = 0; i < nsg; i++)
        rnic_dma_sync(dev->rdev, (const void *)(uintptr_t)sg[i].addr, sg[i].len, dir);
}

/* Every local iov is flushed, destinations too: a dirty line written back
 * later would land on the NIC's data. */
void dat_dto_prepare(struct dat_ep *ep, uint64_t seq, uint8_t op, const struct rnic_sge *sg, int nsg)
{
    dat_dma_sync_sges(ep->hdr.ia->dev, sg, nsg, RNIC_SYNC_FOR_DEVICE);
    struct dat_dto_dst *d = &ep->sq_dst[seq & ep->sq_mask];
    d->nsge = op == RNIC_OP_RDMA_READ ? (uint8_t)nsg : 0;
    for (int i = 0; i < d->nsge; i++)
        d->sge[i] = sg[i];
}

void dat_dto_reaped(struct dat_ep *ep, uint64_t first, uint64_t last)
{
    for (uint64_t s = first; s <= last; s++) {
        struct dat_dto_dst *d = &ep->sq_dst[s & ep->sq_mask];
        dat_dma_sync_sges(ep->hdr.ia->dev, d->sge, d->nsge, RNIC_SYNC_FOR_CPU);
        d->nsge = 0;
    }
}

static const struct dat_lmr *lmr_at(const struct dat_dev *dev, uint64_t addr)
{
    for (uint32_t i = 0; i < dev->info.pt_entries; i++) {
        const struct dat_lmr *l = dev->lmr_by_index[i];
        if (l && addr >= l->base && addr - l->base < l->size)
            return l;
    }
    return NULL;
}

static void note_add(struct dat_ia *ia, const struct dat_sync_note *n)
{
    if (ia->n_sync_notes == ia->cap_sync_notes) {
        uint32_t cap = ia->cap_sync_notes ? ia->cap_sync_notes * 2 : 8;
        struct dat_sync_note *p = ia->n_sync_notes < MAX_NOTES ? realloc(ia->sync_notes, cap * sizeof(*p)) : NULL;
        if (!p) {
            ia->sync_notes_dropped++;
            return;
        }
        ia->sync_notes = p;
        ia->cap_sync_notes = cap;
    }
    ia->sync_notes[ia->n_sync_notes++] = *n;
}

void dat_sync_collect(struct dat_dev *dev, struct dat_ia *fallback)
{
    if (!dev->noncoherent)
        return;
    struct rnic_sync_report r;
    while (rnic_sync_report(dev->rdev, &r) == 1) {
        struct dat_sync_note n = { r.kind, r.addr, r.len, 0, 0 };
        const struct dat_lmr *l = lmr_at(dev, r.addr);
        struct dat_ia *ia = fallback;
        if (l) {
            n.lmr_context = l->lmr_context;
            n.lmr_base = l->base;
            ia = l->hdr.ia;
        }
        note_add(ia, &n);
    }
}

static const char *kind_word(int kind)
{
    switch (kind) {
    case RNIC_SYNC_STALE_READ: return "stale-read";
    case RNIC_SYNC_OVERWRITTEN: return "overwritten";
    case RNIC_SYNC_UNSEEN_AT_UNMAP: return "never-synced";
    default: return "undefined";
    }
}

static const char *kind_story(int kind)
{
    switch (kind) {
    case RNIC_SYNC_STALE_READ:
        return "changed by the CPU, then read by the NIC with no dat_lmr_sync_rdma_read in between "
               "(an incoming RDMA READ got the old data)";
    case RNIC_SYNC_OVERWRITTEN:
        return "written by the NIC (an incoming RDMA WRITE), then written again before "
               "dat_lmr_sync_rdma_write made the first write visible";
    case RNIC_SYNC_UNSEEN_AT_UNMAP:
        return "written by the NIC (an incoming RDMA WRITE) and never made visible by "
               "dat_lmr_sync_rdma_write before its LMR was freed or the IA closed";
    default:
        return "written by the CPU and by the NIC with no dat_lmr_sync_rdma_write in between: "
               "its contents are undefined";
    }
}

void dat_sync_tell(struct dat_ia *ia)
{
    if (ia->n_sync_notes == 0 && ia->sync_notes_dropped == 0)
        return;
    fprintf(stderr, "libdat: %s: non-coherent host: %u range(s) missed a sync (docs/libdat.md, \"Non-coherent host\")\n",
            ia->name, ia->n_sync_notes + ia->sync_notes_dropped);
    for (uint32_t i = 0; i < ia->n_sync_notes; i++) {
        const struct dat_sync_note *n = &ia->sync_notes[i];
        fprintf(stderr, "libdat: %s: sync %s: lmr_context 0x%x offset %llu length %llu (address 0x%llx): %s\n",
                ia->name, kind_word(n->kind), (unsigned)n->lmr_context,
                (unsigned long long)(n->lmr_context ? n->addr - n->lmr_base : 0), (unsigned long long)n->len,
                (unsigned long long)n->addr, kind_story(n->kind));
    }
    if (ia->sync_notes_dropped)
        fprintf(stderr, "libdat: %s: ... and %u more\n", ia->name, ia->sync_notes_dropped);
    free(ia->sync_notes);
    ia->sync_notes = NULL;
    ia->n_sync_notes = ia->cap_sync_notes = ia->sync_notes_dropped = 0;
}
