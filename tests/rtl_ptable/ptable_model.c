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
    case RNIC_PT_CMD_WRITE: {
        const unsigned type = in->type & 0x3u, state = in->state & 0x3u;
        if (type != RNIC_PT_TYPE_MR && !(type == RNIC_PT_TYPE_MW && state == RNIC_PT_STATE_FREE))
            return true;
        m->fields[index] = *in;
        m->fields[index].rights &= 0xFu;
        m->fields[index].type = (uint8_t)type;
        m->fields[index].state = (uint8_t)state;
        m->live[index] = true;
        return false;
    }
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

bool ptm_bind(struct ptable_model *m, uint32_t index, const struct ptm_entry *in) {
    if (index >= m->entries || !m->live[index])
        return false;
    m->fields[index] = *in;
    m->fields[index].rights &= 0xFu;
    m->fields[index].type = RNIC_PT_TYPE_MW;
    m->fields[index].state &= 0x3u;
    return true;
}

/* Which entry types a check in `mode` accepts. */
static bool type_fits(unsigned mode, unsigned type) {
    switch (mode) {
    case RNIC_PT_MODE_LOCAL:
        return type == RNIC_PT_TYPE_MR;
    case RNIC_PT_MODE_REMOTE:
        return type == RNIC_PT_TYPE_MR || type == RNIC_PT_TYPE_MW;
    case RNIC_PT_MODE_WINDOW:
        return type == RNIC_PT_TYPE_MW;
    default:
        return false;
    }
}

struct ptm_verdict ptm_check(const struct ptable_model *m, const struct ptm_request *req, unsigned mutant) {
    struct ptm_verdict v = {RNIC_PT_VERDICT_OK, 0, false, 0};
    const uint32_t index = req->key >> 8;
    if (index >= m->entries) {
        v.verdict = RNIC_PT_VERDICT_INDEX;
        return v;
    }
    const struct ptm_entry *e = &m->fields[index];
    /* A BIND names a window that may be bound or free, and replaces its
     * range and rights: those are not checked for it. */
    const bool window = req->mode == RNIC_PT_MODE_WINDOW;
    const bool state_ok = m->live[index] && (e->state == RNIC_PT_STATE_VALID ||
                                             (window && e->state == RNIC_PT_STATE_FREE));
    const bool type_ok = type_fits(req->mode, e->type);
    const bool key_ok = e->key == (uint8_t)(req->key & 0xFFu);
    const bool pz_ok = e->pz == req->pz;
    const bool rights_ok = window || (req->rights & 0xFu & ~e->rights) == 0;
    const bool bounds_ok = window || in_bounds(e->base, e->len, req->addr, req->len);

    if (!state_ok && mutant != RNIC_MUTANT_NO_STATE_CHECK)
        v.verdict = RNIC_PT_VERDICT_STATE;
    else if (!type_ok && mutant != RNIC_MUTANT_NO_TYPE_CHECK)
        v.verdict = RNIC_PT_VERDICT_TYPE;
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
    if (v.verdict == RNIC_PT_VERDICT_OK && req->mode == RNIC_PT_MODE_REMOTE && e->type == RNIC_PT_TYPE_MW &&
        mutant != RNIC_MUTANT_NO_LINK_CHECK) {
        v.link = true;
        v.link_key = e->link;
    }
    return v;
}

/* A window grants only while its region is live and VALID, with the key it
 * had when the window was bound to it. */
struct ptm_verdict ptm_check_link(const struct ptable_model *m, const struct ptm_verdict *first) {
    struct ptm_verdict v = *first;
    const uint32_t index = first->link_key >> 8;
    v.link = false;
    const bool ok = index < m->entries && m->live[index] && m->fields[index].type == RNIC_PT_TYPE_MR &&
                    m->fields[index].state == RNIC_PT_STATE_VALID &&
                    m->fields[index].key == (uint8_t)(first->link_key & 0xFFu);
    if (!ok) {
        v.verdict = RNIC_PT_VERDICT_STATE;
        v.base = 0;
    }
    return v;
}
