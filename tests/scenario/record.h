/*
 * The scenario harness's record: every event of every NIC's trace port,
 * with the cycle it happened in (rnic_sim_set_event_hook), and queries that
 * scenario tests state their orderings with. The record can be written out
 * as CSV (RNIC_SCENARIO_DIR) for the fence diagram (docs/) and for people.
 */
#ifndef SCENARIO_RECORD_H
#define SCENARIO_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "rnic_sim.h"

#define REC_NONE ((size_t)-1)
#define REC_ANY (-1)

/* Starts recording afresh (drops what was recorded). */
void rec_start(void);
void rec_stop(void);
size_t rec_count(void);
const struct rnic_sim_event *rec_at(size_t i);

/* The first event at or after index `from` with this NIC, event code and QP
 * (REC_ANY for any QP) whose arg, masked, equals `val`; REC_NONE if none. */
size_t rec_find(size_t from, int nic, unsigned event, int qpn, uint64_t mask, uint64_t val);
/* Whether any event of this kind lies strictly between cycles t0 and t1. */
int rec_any_between(int nic, unsigned event, int qpn, uint64_t t0, uint64_t t1);
uint64_t rec_cycle(size_t i);

/* Writes the record as CSV to $RNIC_SCENARIO_DIR/<name>.csv when that is set. */
void rec_dump(const char *name);

/* Event-code name ("BIND_COMMIT"), for messages and the CSV. */
const char *rec_event_name(unsigned event);

#endif
