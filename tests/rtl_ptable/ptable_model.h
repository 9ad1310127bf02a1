/* Reference model of the protection table (rtl/rnic_ptable.sv), written from
 * the rules in docs/ptable-interface.md and nothing in the RTL: the bench
 * runs both side by side and every difference is a failure. */
#ifndef PTABLE_MODEL_H
#define PTABLE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The fields of one entry, as the management port writes and reads them. */
struct ptm_entry {
    uint8_t key;
    uint16_t pz;
    uint64_t base;
    uint64_t len;
    uint8_t rights; /* RNIC_ACCESS_* bits */
    uint8_t type;   /* RNIC_PT_TYPE_* (2 bits) */
    uint8_t state;  /* RNIC_PT_STATE_* (2 bits) */
    uint32_t link;  /* for a bound window: its region's lkey (index << 8 | key) */
};

/* One access to check, as a check port receives it. */
struct ptm_request {
    unsigned mode;  /* RNIC_PT_MODE_* (2 bits) */
    uint32_t key;   /* index << 8 | key8 */
    uint16_t pz;
    uint8_t rights; /* every bit must be granted */
    uint64_t addr;
    uint32_t len;
};

struct ptm_verdict {
    unsigned verdict; /* RNIC_PT_VERDICT_* */
    uint64_t base;    /* the entry's base when OK, else 0 */
    bool link;        /* a window's grant: the verdict waits for its region (ptm_check_link) */
    uint32_t link_key;
};

struct ptable_model {
    uint32_t entries;
    struct ptm_entry *fields; /* what the last WRITE stored; kept by reset and INVALIDATE */
    bool *live;               /* written since reset and not invalidated */
};

/* false when out of memory or entries is outside 4 .. 2^24. */
bool ptm_init(struct ptable_model *m, uint32_t entries);
void ptm_free(struct ptable_model *m);

/* rst_n low for a cycle: every entry becomes INVALID. */
void ptm_reset(struct ptable_model *m);

/* One management command (RNIC_PT_CMD_*). Returns the mgmt_err it must
 * report. WRITE takes `in` (refused for a type other than MR and MW, and for
 * a window in any state but FREE); READ fills `out` (state INVALID for an
 * entry that is not live, the other fields as stored). `in` and `out` may be
 * NULL when the command does not use them. */
bool ptm_mgmt(struct ptable_model *m, unsigned cmd, uint32_t index, const struct ptm_entry *in,
              struct ptm_entry *out);

/* A BIND's commit of window `index` (type MW): stored only if the entry is
 * live. Returns whether it was stored (bind_ok). */
bool ptm_bind(struct ptable_model *m, uint32_t index, const struct ptm_entry *in);

/* The verdict for `req` with rule `mutant` (RNIC_MUTANT_*) switched off, as
 * the table stands in the request's cycle. When the result's `link` is set,
 * the final verdict is ptm_check_link's, on the table one cycle later. */
struct ptm_verdict ptm_check(const struct ptable_model *m, const struct ptm_request *req, unsigned mutant);
struct ptm_verdict ptm_check_link(const struct ptable_model *m, const struct ptm_verdict *first);

#ifdef __cplusplus
}
#endif
#endif
