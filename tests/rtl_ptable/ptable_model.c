#include "ptable_model.h"

#include <stdlib.h>
#include <string.h>

#include "rnic_hw.h"

bool ptm_init(struct ptable_model *m, uint32_t entries) {
    memset(m, 0, sizeof *m);
    if (entries < 4 || entries > (1u << 24))
        return false;
    m->fields = calloc(entries, sizeof *m->fields);
    m->live = calloc(entries, sizeof *m->live);
    if (!m->fields || !m->live) {
        ptm_free(m);
        return false;
    }
    m->entries = entries;
    return true;
}

void ptm_free(struct ptable_model *m) {
    free(m->fields);
    free(m->live);
    memset(m, 0, sizeof *m);
}

void ptm_reset(struct ptable_model *m) {
    memset(m->live, 0, m->entries * sizeof *m->live);
}

bool ptm_mgmt(struct ptable_model *m, unsigned cmd, uint32_t index, const struct ptm_entry *in,
              struct ptm_entry *out) {
    if (index >= m->entries)
        return true;
    switch (cmd) {
    case RNIC_PT_CMD_WRITE:
        m->fields[index] = *in;
        m->fields[index].rights &= 0xFu;
        m->fields[index].type &= 0x3u;
        m->fields[index].state &= 0x3u;
        m->fields[index].link &= 0xFFFFFFu;
        m->live[index] = true;
        return false;
    case RNIC_PT_CMD_READ:
        if (out) {
            *out = m->fields[index];
            if (!m->live[index])
                out->state = RNIC_PT_STATE_INVALID;
        }
        return false;
    case RNIC_PT_CMD_INVALIDATE:
        m->live[index] = false;
        return false;
    default:
        return true;
    }
}

/* The access [addr, addr + len) must lie inside [base, base + elen), both
 * taken as exact integers: nothing wraps past 2^64, so an entry whose range
 * would wrap accepts no access at all. A zero-length access only needs
 * base <= addr <= base + elen. */
static bool in_bounds(uint64_t base, uint64_t elen, uint64_t addr, uint32_t len) {
    if (addr < base)
        return false;
    if (base != 0 && elen > UINT64_MAX - base + 1u) /* base + elen > 2^64 */
        return false;
    const uint64_t off = addr - base;           /* < 2^64 */
    if (off > elen)
        return false;
    return len <= elen - off;
}

struct ptm_verdict ptm_check(const struct ptable_model *m, const struct ptm_request *req, unsigned mutant) {
    struct ptm_verdict v = {RNIC_PT_VERDICT_OK, 0};
    const uint32_t index = req->key >> 8;
    if (index >= m->entries) {
        v.verdict = RNIC_PT_VERDICT_INDEX;
        return v;
    }
    const struct ptm_entry *e = &m->fields[index];
    const bool state_ok = m->live[index] && e->state == RNIC_PT_STATE_VALID;
    const bool key_ok = e->key == (uint8_t)(req->key & 0xFFu);
    const bool pz_ok = e->pz == req->pz;
    const bool rights_ok = (req->rights & 0xFu & ~e->rights) == 0;
    const bool bounds_ok = in_bounds(e->base, e->len, req->addr, req->len);

    if (!state_ok && mutant != RNIC_MUTANT_NO_STATE_CHECK)
        v.verdict = RNIC_PT_VERDICT_STATE;
    else if (!key_ok && mutant != RNIC_MUTANT_NO_KEY_CHECK)
        v.verdict = RNIC_PT_VERDICT_KEY;
    else if (!pz_ok && mutant != RNIC_MUTANT_NO_PZ_CHECK)
        v.verdict = RNIC_PT_VERDICT_PZ;
    else if (!rights_ok && mutant != RNIC_MUTANT_NO_RIGHTS_CHECK)
        v.verdict = RNIC_PT_VERDICT_RIGHTS;
    else if (!bounds_ok && mutant != RNIC_MUTANT_NO_BOUNDS_CHECK)
        v.verdict = RNIC_PT_VERDICT_BOUNDS;
    else
        v.base = e->base;
    return v;
}
