/* Reference model of the protection table's check: what the RTL must
 * answer, written from the rules in docs/ptable-interface.md. */
#ifndef PTABLE_MODEL_H
#define PTABLE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pt_entry {
    bool written;      /* a WRITE command stored it and no INVALIDATE followed */
    uint8_t key;
    uint16_t pz;
    uint64_t base, len;
    uint8_t rights;    /* RNIC_ACCESS_* */
    uint8_t state;     /* RNIC_PT_STATE_* */
};

struct pt_request {
    uint32_t key;      /* index << 8 | key8 */
    uint16_t pz;
    uint8_t rights;    /* all must be granted */
    uint64_t addr;
    uint32_t len;
};

/* RNIC_PT_VERDICT_* for `req` against the entry at its index (`e`, NULL when
 * the index is past a table of `entries`), with rule `mutant` switched off. */
unsigned ptable_model_check(const struct pt_entry *e, uint32_t entries, const struct pt_request *req, unsigned mutant);

#ifdef __cplusplus
}
#endif
#endif
