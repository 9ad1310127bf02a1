/* Memory regions and memory windows: a protection-table entry each,
 * programmed through the PT_* staging registers. A window starts FREE; only
 * a BIND WQE (rnic_post_bind) binds it, after the hardware's checks. */
#include <stdlib.h>

#include "internal.h"

/* Issues a PT command and waits until the table has carried it out, so a
 * caller that returns has its entry in force (PT_CMD reads 1 until then, a
 * few cycles). */
static int pt_command(rnic_dev *d, uint32_t cmd) {
    reg_wr(d, RNIC_REG_PT_CMD, cmd);
    for (int polls = 0; reg_rd(d, RNIC_REG_PT_CMD) != 0; polls++)
        if (polls > 1000)
            return RNIC_E_HW;
    return RNIC_OK;
}

static void pt_write(rnic_dev *d, uint32_t index, uint8_t key, uint16_t pz, uint64_t base, uint64_t len,
                     uint32_t rights, uint32_t type, uint32_t state) {
    reg_wr(d, RNIC_REG_PT_INDEX, index);
    reg_wr(d, RNIC_REG_PT_KEY_PZ, (uint32_t)key | (uint32_t)pz << RNIC_PT_KEY_PZ_PZ_SHIFT);
    reg_wr(d, RNIC_REG_PT_BASE_LO, (uint32_t)base);
    reg_wr(d, RNIC_REG_PT_BASE_HI, (uint32_t)(base >> 32));
    reg_wr(d, RNIC_REG_PT_LEN_LO, (uint32_t)len);
    reg_wr(d, RNIC_REG_PT_LEN_HI, (uint32_t)(len >> 32));
    reg_wr(d, RNIC_REG_PT_FLAGS, rights | type << RNIC_PT_FLAGS_TYPE_SHIFT | state << RNIC_PT_FLAGS_STATE_SHIFT);
    reg_wr(d, RNIC_REG_PT_LINK, 0);
    (void)pt_command(d, RNIC_PT_CMD_WRITE);
}

/* Table indices are handed out least recently freed first: a freed index
 * waits behind every index free at that moment, so a key kept after its
 * region or window went (a peer's rkey, a consumer's stale context) names
 * an index that is reused as seldom as the table allows. Taking the lowest
 * free index instead reused the same one at once, and its 8-bit key came
 * round to the stale value after 256 registrations. Index 0 is never in the
 * list, so key 0 names nothing. */
static uint32_t pt_take_index(rnic_dev *d) {
    const uint32_t idx = d->pt_free[d->pt_free_head];
    d->pt_free_head = (d->pt_free_head + 1u) % d->info.pt_entries;
    d->pt_free_n--;
    return idx;
}

static void pt_give_back(rnic_dev *d, uint32_t idx) {
    d->pt_free[(d->pt_free_head + d->pt_free_n) % d->info.pt_entries] = idx;
    d->pt_free_n++;
}

/* A new 8-bit key each time an index is reused, so a stale key misses. */
static uint8_t pt_next_key(rnic_dev *d, uint32_t idx) {
    d->pt_key[idx] = (uint8_t)(d->pt_key[idx] + 1u);
    return d->pt_key[idx];
}

int rnic_mr_reg(rnic_dev *d, void *addr, uint64_t len, uint16_t pz, uint32_t access, rnic_mr **out) {
    if (!d || !addr || !out || len == 0 || (access & ~0xFu) != 0)
        return RNIC_E_INVAL;
    if (pz == 0 || pz >= RNIC_MAX_PZ || !d->pz_used[pz])
        return RNIC_E_INVAL;
    if ((uintptr_t)addr + len < (uintptr_t)addr)
        return RNIC_E_RANGE;
    const int host = rnic_host_range_check(addr, len, (access & (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE)) != 0);
    if (host != RNIC_OK)
        return host;
    if (d->pt_free_n == 0)
        return RNIC_E_FULL;
    rnic_mr *mr = calloc(1, sizeof(*mr));
    if (!mr)
        return RNIC_E_NOMEM;
    if (d->hal.ops->dma_map(d->hal.ctx, addr, len) != 0) {
        free(mr);
        return RNIC_E_RANGE;   /* the platform refused the mapping (VFIO: an overlap) */
    }
    const uint32_t idx = pt_take_index(d);
    const uint8_t key = pt_next_key(d, idx);
    d->pz_refs[pz]++;
    pt_write(d, idx, key, pz, (uint64_t)(uintptr_t)addr, len, access, RNIC_PT_TYPE_MR, RNIC_PT_STATE_VALID);
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
    (void)pt_command(d, RNIC_PT_CMD_INVALIDATE);
    d->hal.ops->dma_unmap(d->hal.ctx, mr->addr, mr->len);
    pt_give_back(d, mr->index);
    d->pz_refs[mr->pz]--;
    free(mr);
    return RNIC_OK;
}

int rnic_mw_alloc(rnic_dev *d, uint16_t pz, rnic_mw **out) {
    if (!d || !out || pz == 0 || pz >= RNIC_MAX_PZ || !d->pz_used[pz])
        return RNIC_E_INVAL;
    if (d->pt_free_n == 0)
        return RNIC_E_FULL;
    rnic_mw *mw = calloc(1, sizeof(*mw));
    if (!mw)
        return RNIC_E_NOMEM;
    const uint32_t idx = pt_take_index(d);
    const uint8_t key = pt_next_key(d, idx);
    d->pz_refs[pz]++;
    pt_write(d, idx, key, pz, 0, 0, 0, RNIC_PT_TYPE_MW, RNIC_PT_STATE_FREE);
    mw->dev = d;
    mw->index = idx;
    mw->key = idx << 8 | key;
    mw->pz = pz;
    *out = mw;
    return RNIC_OK;
}

uint32_t rnic_mw_key(const rnic_mw *mw) { return mw ? mw->key : 0; }

int rnic_mw_free(rnic_mw *mw) {
    if (!mw)
        return RNIC_E_INVAL;
    rnic_dev *d = mw->dev;
    reg_wr(d, RNIC_REG_PT_INDEX, mw->index);
    (void)pt_command(d, RNIC_PT_CMD_INVALIDATE);
    pt_give_back(d, mw->index);
    d->pz_refs[mw->pz]--;
    free(mw);
    return RNIC_OK;
}

int rnic_mw_query(rnic_mw *mw, struct rnic_mw_state *out) {
    if (!mw || !out)
        return RNIC_E_INVAL;
    rnic_dev *d = mw->dev;
    reg_wr(d, RNIC_REG_PT_INDEX, mw->index);
    if (pt_command(d, RNIC_PT_CMD_READ) != RNIC_OK)
        return RNIC_E_HW;
    const uint32_t key_pz = reg_rd(d, RNIC_REG_PT_KEY_PZ);
    const uint32_t flags = reg_rd(d, RNIC_REG_PT_FLAGS);
    const uint32_t type = (flags & RNIC_PT_FLAGS_TYPE_MASK) >> RNIC_PT_FLAGS_TYPE_SHIFT;
    const uint32_t state = (flags & RNIC_PT_FLAGS_STATE_MASK) >> RNIC_PT_FLAGS_STATE_SHIFT;
    if (type != RNIC_PT_TYPE_MW || state == RNIC_PT_STATE_INVALID)
        return RNIC_E_STATE;
    out->key = mw->index << 8 | (key_pz & RNIC_PT_KEY_PZ_KEY_MASK);
    out->bound = state == RNIC_PT_STATE_VALID;
    out->lkey = out->bound ? reg_rd(d, RNIC_REG_PT_LINK) : 0;
    out->base = (uint64_t)reg_rd(d, RNIC_REG_PT_BASE_HI) << 32 | reg_rd(d, RNIC_REG_PT_BASE_LO);
    out->len = (uint64_t)reg_rd(d, RNIC_REG_PT_LEN_HI) << 32 | reg_rd(d, RNIC_REG_PT_LEN_LO);
    out->rights = (flags & RNIC_PT_FLAGS_RIGHTS_MASK) >> RNIC_PT_FLAGS_RIGHTS_SHIFT;
    return RNIC_OK;
}
