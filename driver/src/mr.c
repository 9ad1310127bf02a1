/* Memory regions: a protection-table entry per region, programmed through
 * the PT_* staging registers. */
#include <stdlib.h>

#include "internal.h"

static void pt_write(rnic_dev *d, uint32_t index, uint8_t key, uint16_t pz, uint64_t base, uint64_t len,
                     uint32_t rights) {
    reg_wr(d, RNIC_REG_PT_INDEX, index);
    reg_wr(d, RNIC_REG_PT_KEY_PZ, (uint32_t)key | (uint32_t)pz << RNIC_PT_KEY_PZ_PZ_SHIFT);
    reg_wr(d, RNIC_REG_PT_BASE_LO, (uint32_t)base);
    reg_wr(d, RNIC_REG_PT_BASE_HI, (uint32_t)(base >> 32));
    reg_wr(d, RNIC_REG_PT_LEN_LO, (uint32_t)len);
    reg_wr(d, RNIC_REG_PT_LEN_HI, (uint32_t)(len >> 32));
    reg_wr(d, RNIC_REG_PT_FLAGS, rights | RNIC_PT_TYPE_MR << RNIC_PT_FLAGS_TYPE_SHIFT |
                                     RNIC_PT_STATE_VALID << RNIC_PT_FLAGS_STATE_SHIFT);
    reg_wr(d, RNIC_REG_PT_CMD, RNIC_PT_CMD_WRITE);
}

int rnic_mr_reg(rnic_dev *d, void *addr, uint64_t len, uint16_t pz, uint32_t access, rnic_mr **out) {
    if (!d || !addr || !out || len == 0 || (access & ~0xFu) != 0)
        return RNIC_E_INVAL;
    if (pz == 0 || pz >= RNIC_MAX_PZ || !d->pz_used[pz])
        return RNIC_E_INVAL;
    if ((uintptr_t)addr + len < (uintptr_t)addr)
        return RNIC_E_RANGE;
    uint32_t idx = 0;
    for (uint32_t i = 1; i < d->info.pt_entries; i++) {
        if (!d->pt_used[i]) {
            idx = i;
            break;
        }
    }
    if (idx == 0)
        return RNIC_E_FULL;
    rnic_mr *mr = calloc(1, sizeof(*mr));
    if (!mr)
        return RNIC_E_NOMEM;
    if (d->hal.ops->dma_map(d->hal.ctx, addr, len) != 0) {
        free(mr);
        return RNIC_E_RANGE;   /* overlaps a region already registered */
    }
    /* A new 8-bit key each time the index is reused, so a stale key misses. */
    uint8_t key = (uint8_t)(d->pt_key[idx] + 1u);
    d->pt_key[idx] = key;
    d->pt_used[idx] = 1;
    d->pz_refs[pz]++;
    pt_write(d, idx, key, pz, (uint64_t)(uintptr_t)addr, len, access);
    mr->dev = d;
    mr->addr = addr;
    mr->len = len;
    mr->index = idx;
    mr->key = idx << 8 | key;
    mr->pz = pz;
    *out = mr;
    return RNIC_OK;
}

uint32_t rnic_mr_key(const rnic_mr *mr) { return mr ? mr->key : 0; }

int rnic_mr_dereg(rnic_mr *mr) {
    if (!mr)
        return RNIC_E_INVAL;
    rnic_dev *d = mr->dev;
    reg_wr(d, RNIC_REG_PT_INDEX, mr->index);
    reg_wr(d, RNIC_REG_PT_CMD, RNIC_PT_CMD_INVALIDATE);
    d->hal.ops->dma_unmap(d->hal.ctx, mr->addr, mr->len);
    d->pt_used[mr->index] = 0;
    d->pz_refs[mr->pz]--;
    free(mr);
    return RNIC_OK;
}
