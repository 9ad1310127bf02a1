/*
 * Local memory regions: one protection-table entry each (the driver's MR).
 *
 * Local read is always granted to the NIC: an LMR registered with local
 * write only may still be the source of a SEND or RDMA WRITE, as on
 * InfiniBand providers. An rmr_context is generated only when remote read
 * or write is asked for; it is the same key as the lmr_context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dat_internal.h"

#define PRIV_ALL (DAT_MEM_PRIV_ALL_FLAG | DAT_MEM_PRIV_RO_DISABLE_FLAG)

/* Shared memory regions by cookie. The cookie names the memory (the file
 * or shm object and offset behind the range): the same cookie for other
 * memory is refused. */
struct dat_shm_region {
    uint8_t cookie[DAT_LMR_COOKIE_SIZE];
    unsigned long long dev, ino, off;
    int refs;
    struct dat_shm_region *next;
};

static struct dat_shm_region *shm_regions;

/* Whether [va, va+len) lies in shared mappings of this process
 * (/proc/self/maps, 's' permission), and which object backs its start. */
static bool shared_mapping(uintptr_t va, uint64_t len, unsigned long long *dev, unsigned long long *ino,
                           unsigned long long *off)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return false;
    uintptr_t want = va, end = va + len;
    bool first = true, ok = false;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        unsigned long long o, inode;
        unsigned maj, min;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s %llx %x:%x %llu", &lo, &hi, perms, &o, &maj, &min, &inode) != 7)
            continue;
        if (want < lo || want >= hi)
            continue;
        if (perms[3] != 's')
            break;
        if (first) {
            *dev = (unsigned long long)maj << 32 | min;
            *ino = inode;
            *off = o + (want - lo);
            first = false;
        }
        if (end <= hi) {
            ok = true;
            break;
        }
        want = hi;   /* the range continues in the next mapping */
    }
    fclose(f);
    return ok;
}

static DAT_RETURN shm_attach(const DAT_SHARED_MEMORY *sm, uint64_t len, struct dat_shm_region **out)
{
    unsigned long long dev = 0, ino = 0, off = 0;
    if (!shared_mapping((uintptr_t)sm->virtual_address, len, &dev, &ino, &off))
        return DAT_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
    for (struct dat_shm_region *r = shm_regions; r; r = r->next) {
        /* All 40 bytes: a cookie is not a string. */
        if (memcmp(r->cookie, *sm->shared_memory_id, DAT_LMR_COOKIE_SIZE) != 0)
            continue;
        if (r->dev != dev || r->ino != ino || r->off != off)
            return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
        r->refs++;
        *out = r;
        return DAT_SUCCESS;
    }
    struct dat_shm_region *r = dat_zalloc(sizeof(*r));
    if (!r)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    memcpy(r->cookie, *sm->shared_memory_id, DAT_LMR_COOKIE_SIZE);
    r->dev = dev;
    r->ino = ino;
    r->off = off;
    r->refs = 1;
    r->next = shm_regions;
    shm_regions = r;
    *out = r;
    return DAT_SUCCESS;
}

static void shm_detach(struct dat_shm_region *r)
{
    if (--r->refs > 0)
        return;
    for (struct dat_shm_region **p = &shm_regions; *p; p = &(*p)->next) {
        if (*p == r) {
            *p = r->next;
            break;
        }
    }
    free(r);
}

static uint32_t hw_access(DAT_MEM_PRIV_FLAGS priv)
{
    uint32_t a = RNIC_ACCESS_LOCAL_READ;
    if (priv & DAT_MEM_PRIV_LOCAL_WRITE_FLAG)
        a |= RNIC_ACCESS_LOCAL_WRITE;
    if (priv & DAT_MEM_PRIV_REMOTE_READ_FLAG)
        a |= RNIC_ACCESS_REMOTE_READ;
    if (priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG)
        a |= RNIC_ACCESS_REMOTE_WRITE;
    return a;
}

DAT_RETURN dat_lmr_create(DAT_IA_HANDLE ia_handle, DAT_MEM_TYPE mem_type, DAT_REGION_DESCRIPTION region_description,
                          DAT_VLEN length, DAT_PZ_HANDLE pz_handle, DAT_MEM_PRIV_FLAGS mem_privileges,
                          DAT_LMR_HANDLE *lmr_handle, DAT_LMR_CONTEXT *lmr_context, DAT_RMR_CONTEXT *rmr_context,
                          DAT_VLEN *registered_size, DAT_VADDR *registered_address)
{
    DAT_API_LOCK();
    struct dat_ia *ia = (struct dat_ia *)dat_handle_lookup(ia_handle, DAT_HANDLE_TYPE_IA);
    if (!ia)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    if ((unsigned)mem_type > DAT_MEM_TYPE_SO_VIRTUAL)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    struct dat_pz *pz = (struct dat_pz *)dat_handle_lookup(pz_handle, DAT_HANDLE_TYPE_PZ);
    if (!pz || pz->hdr.ia != ia)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
    if ((unsigned)mem_privileges & ~(unsigned)PRIV_ALL)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
    if (!lmr_handle)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
    if (!lmr_context)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);

    uintptr_t addr = 0;
    uint64_t len = length;
    struct dat_lmr *parent = NULL;
    switch (mem_type) {
    case DAT_MEM_TYPE_VIRTUAL:
    case DAT_MEM_TYPE_SO_VIRTUAL:
        addr = (uintptr_t)region_description.for_va;
        if (!addr)
            return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
        break;
    case DAT_MEM_TYPE_LMR:
        /* The length is ignored: the new LMR covers the old one's memory. */
        parent = (struct dat_lmr *)dat_handle_lookup(region_description.for_lmr_handle, DAT_HANDLE_TYPE_LMR);
        if (!parent || parent->hdr.ia->dev != ia->dev)
            return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
        addr = (uintptr_t)parent->base;
        len = parent->size;
        break;
    case DAT_MEM_TYPE_SHARED_VIRTUAL:
        addr = (uintptr_t)region_description.for_shared_memory.virtual_address;
        if (!addr || !region_description.for_shared_memory.shared_memory_id)
            return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
        break;
    }
    if (len == 0 || len > DAT_RNIC_MAX_LMR_BLOCK || addr + len < addr)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);

    struct dat_lmr *lmr = dat_zalloc(sizeof(*lmr));
    if (!lmr)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    if (mem_type == DAT_MEM_TYPE_SHARED_VIRTUAL) {
        DAT_RETURN r = shm_attach(&region_description.for_shared_memory, len, &lmr->shm);
        if (r != DAT_SUCCESS) {
            free(lmr);
            return r;
        }
        memcpy(lmr->cookie, *region_description.for_shared_memory.shared_memory_id, DAT_LMR_COOKIE_SIZE);
    }
    int rc = rnic_mr_reg(ia->dev->rdev, (void *)addr, len, pz->pz, hw_access(mem_privileges), &lmr->mr);
    if (rc != RNIC_OK || dat_handle_new(&lmr->hdr, DAT_HANDLE_TYPE_LMR, ia) == DAT_HANDLE_NULL) {
        if (rc == RNIC_OK)
            rnic_mr_dereg(lmr->mr);
        if (lmr->shm)
            shm_detach(lmr->shm);
        free(lmr);
        if (rc == RNIC_E_FULL)
            return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY_REGION);
        /* Memory the process does not have (the driver looked: docs/libdat.md,
         * "Registration") is a bad region description; read-only memory
         * asked to take the NIC's writes, bad privileges for it. */
        if (rc == RNIC_E_RANGE)
            return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
        if (rc == RNIC_E_ACCESS)
            return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    /* Without RO_AWARE_ in the IA name, virtual memory is strongly ordered
     * memory (the Solaris rule the dat_lmr_create page gives). */
    lmr->mem_type = (mem_type == DAT_MEM_TYPE_VIRTUAL && !ia->ro_aware) ? DAT_MEM_TYPE_SO_VIRTUAL : mem_type;
    lmr->region = region_description;
    lmr->length = length;
    lmr->pz = pz;
    lmr->priv = mem_privileges;
    lmr->lmr_context = rnic_mr_key(lmr->mr);
    lmr->rmr_context = (mem_privileges & (DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG))
                           ? lmr->lmr_context : 0;
    lmr->base = addr;
    lmr->size = len;
    pz->refs++;
    struct dat_dev *dev = ia->dev;
    uint32_t idx = lmr->lmr_context >> 8;
    dev->lmr_by_index[idx] = lmr;
    if (dev->freed_ctx[idx] == lmr->lmr_context)
        dev->freed_ctx[idx] = 0;
    dat_ia_link(ia, &lmr->hdr);

    *lmr_handle = DAT_H(lmr);
    *lmr_context = lmr->lmr_context;
    if (rmr_context)
        *rmr_context = lmr->rmr_context;
    if (registered_size)
        *registered_size = lmr->size;
    if (registered_address)
        *registered_address = lmr->base;
    return DAT_SUCCESS;
}

DAT_RETURN dat_lmr_query(DAT_LMR_HANDLE lmr_handle, DAT_LMR_PARAM_MASK lmr_param_mask, DAT_LMR_PARAM *lmr_param)
{
    DAT_API_LOCK();
    struct dat_lmr *lmr = (struct dat_lmr *)dat_handle_lookup(lmr_handle, DAT_HANDLE_TYPE_LMR);
    if (!lmr)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
    if (lmr_param_mask & ~DAT_LMR_FIELD_ALL)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (!lmr_param)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    lmr_param->ia_handle = DAT_H(lmr->hdr.ia);
    lmr_param->mem_type = lmr->mem_type;
    lmr_param->region_desc = lmr->region;
    lmr_param->length = lmr->length;
    lmr_param->pz_handle = DAT_H(lmr->pz);
    lmr_param->mem_priv = lmr->priv;
    lmr_param->lmr_context = lmr->lmr_context;
    lmr_param->rmr_context = lmr->rmr_context;
    lmr_param->registered_size = lmr->size;
    lmr_param->registered_address = lmr->base;
    return DAT_SUCCESS;
}

void dat_lmr_destroy(struct dat_lmr *lmr)
{
    struct dat_dev *dev = lmr->hdr.ia->dev;
    uint32_t idx = lmr->lmr_context >> 8;
    /* Reports are tied to LMRs by address while the LMR still exists; the
     * unmap may add its own (NIC writes never synced). */
    dat_sync_collect(dev, lmr->hdr.ia);
    /* The hardware entry goes first: from here on the key is refused. */
    rnic_mr_dereg(lmr->mr);
    dat_sync_collect(dev, lmr->hdr.ia);
    dev->lmr_by_index[idx] = NULL;
    dev->freed_ctx[idx] = lmr->lmr_context;
    lmr->pz->refs--;
    if (lmr->shm)
        shm_detach(lmr->shm);
    dat_ia_unlink(&lmr->hdr);
    dat_handle_release(&lmr->hdr);
    free(lmr);
}

DAT_RETURN dat_lmr_free(DAT_LMR_HANDLE lmr_handle)
{
    DAT_API_LOCK();
    struct dat_lmr *lmr = (struct dat_lmr *)dat_handle_lookup(lmr_handle, DAT_HANDLE_TYPE_LMR);
    if (!lmr)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
    if (lmr->rmr_binds > 0)
        return DAT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE);
    dat_lmr_destroy(lmr);
    return DAT_SUCCESS;
}

/* Checks every segment first, so a call either syncs them all or none. On
 * a coherent host (lmr_sync_req is DAT_FALSE) that is all it does. */
static DAT_RETURN lmr_sync(DAT_IA_HANDLE ia_handle, const DAT_LMR_TRIPLET *segs, DAT_VLEN n, int dir)
{
    struct dat_ia *ia = (struct dat_ia *)dat_handle_lookup(ia_handle, DAT_HANDLE_TYPE_IA);
    if (!ia)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    if (n > 0 && !segs)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    for (DAT_VLEN i = 0; i < n; i++) {
        const DAT_LMR_TRIPLET *t = &segs[i];
        if (t->segment_length == 0)
            continue;   /* the other members of an empty triplet may be anything */
        struct dat_lmr *lmr = dat_lmr_by_context(ia->dev, t->lmr_context);
        if (!lmr || lmr->hdr.ia != ia)
            return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
        if (t->virtual_address < lmr->base || t->segment_length > lmr->size ||
            t->virtual_address - lmr->base > lmr->size - t->segment_length)
            return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    }
    if (!ia->dev->noncoherent)
        return DAT_SUCCESS;
    for (DAT_VLEN i = 0; i < n; i++) {
        if (segs[i].segment_length != 0)
            rnic_dma_sync(ia->dev->rdev, (const void *)(uintptr_t)segs[i].virtual_address, segs[i].segment_length,
                          dir);
    }
    return DAT_SUCCESS;
}

DAT_RETURN dat_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle, const DAT_LMR_TRIPLET *local_segments,
                                  DAT_VLEN num_segments)
{
    DAT_API_LOCK();
    /* What the CPU wrote becomes visible to an incoming RDMA READ: a flush. */
    return lmr_sync(ia_handle, local_segments, num_segments, RNIC_SYNC_FOR_DEVICE);
}

DAT_RETURN dat_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle, const DAT_LMR_TRIPLET *local_segments,
                                   DAT_VLEN num_segments)
{
    DAT_API_LOCK();
    /* What an incoming RDMA WRITE put there becomes visible to the CPU, and
     * what the CPU wrote there is written back first, so a later incoming
     * WRITE is not overwritten by it (the page's "local writes" rule). */
    return lmr_sync(ia_handle, local_segments, num_segments, RNIC_SYNC_FOR_CPU);
}
