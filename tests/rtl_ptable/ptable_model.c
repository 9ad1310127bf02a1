#include "ptable_model.h"

#include "rnic_hw.h"

unsigned ptable_model_check(const struct pt_entry *e, uint32_t entries, const struct pt_request *r, unsigned mutant) {
    if ((r->key >> 8) >= entries || !e)
        return RNIC_PT_VERDICT_INDEX;
    bool state_ok = e->written && e->state == RNIC_PT_STATE_VALID;
    bool key_ok = e->key == (uint8_t)(r->key & 0xFFu);
    bool pz_ok = e->pz == r->pz;
    bool rights_ok = (r->rights & ~e->rights & 0xFu) == 0;
    /* Bounds in 65-bit arithmetic: nothing may wrap past 2^64. */
    unsigned __int128 acc_end = (unsigned __int128)r->addr + r->len;
    unsigned __int128 ent_end = (unsigned __int128)e->base + e->len;
    unsigned __int128 top = (unsigned __int128)1 << 64;
    bool bounds_ok = r->addr >= e->base && acc_end <= ent_end && acc_end < top && ent_end < top;
    if (mutant == RNIC_MUTANT_NO_STATE_CHECK) state_ok = true;
    if (mutant == RNIC_MUTANT_NO_KEY_CHECK) key_ok = true;
    if (mutant == RNIC_MUTANT_NO_PZ_CHECK) pz_ok = true;
    if (mutant == RNIC_MUTANT_NO_RIGHTS_CHECK) rights_ok = true;
    if (mutant == RNIC_MUTANT_NO_BOUNDS_CHECK) bounds_ok = true;
    if (!state_ok) return RNIC_PT_VERDICT_STATE;
    if (!key_ok) return RNIC_PT_VERDICT_KEY;
    if (!pz_ok) return RNIC_PT_VERDICT_PZ;
    if (!rights_ok) return RNIC_PT_VERDICT_RIGHTS;
    if (!bounds_ok) return RNIC_PT_VERDICT_BOUNDS;
    return RNIC_PT_VERDICT_OK;
}
