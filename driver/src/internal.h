/* Driver internals shared by its source files. */
#ifndef RNIC_INTERNAL_H
#define RNIC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "rnic/rnic_drv.h"
#include "rnic/rnic_hal.h"
#include "rnic_hw.h"

#define RNIC_MAX_PZ 256u

/* RNIC_OK, RNIC_E_RANGE (a byte of the range is not mapped, or not
 * readable) or RNIC_E_ACCESS (all there, some of it read-only and `write`
 * asked). host_range.c. */
int rnic_host_range_check(const void *addr, uint64_t len, bool write);

struct rnic_dev {
    struct rnic_hal hal;
    struct rnic_dev_info info;
    uint8_t pz_used[RNIC_MAX_PZ];
    uint16_t pz_refs[RNIC_MAX_PZ];      /* MRs and QPs in the PZ */
    uint8_t *pt_key;                    /* last 8-bit key used at each index */
    uint32_t *pt_free;                  /* free indices, a ring: least recently freed at pt_free_head */
    uint32_t pt_free_head, pt_free_n;
    rnic_cq **cqs;
    rnic_qp **qps;
};

struct rnic_mr {
    rnic_dev *dev;
    void *addr;
    uint64_t len;
    uint32_t index;
    uint32_t key;
    uint16_t pz;
};

struct rnic_mw {
    rnic_dev *dev;
    uint32_t index;
    uint32_t key;          /* its key when allocated */
    uint16_t pz;
};

struct rnic_cq {
    rnic_dev *dev;
    uint32_t num;
    uint32_t log;
    uint64_t *ring;        /* CQE words */
    uint32_t ci;           /* next CQE to read (free-running) */
    uint32_t users;
    bool seen_full;        /* the ring was full before a consumer doorbell: a CQE may be lost */
};

struct rnic_qp {
    rnic_dev *dev;
    uint32_t num;
    uint16_t pz;
    rnic_cq *send_cq, *recv_cq;
    uint32_t sq_log, rq_log;
    uint64_t *sq, *rq;     /* rings of RNIC_WQE_BYTES entries */
    uint32_t sq_pi, sq_ci, rq_pi, rq_ci;   /* free-running, 16 bits used by the NIC */
    uint32_t flags;        /* QP_FLAGS as programmed (the RTS command loads them again) */
    uint32_t timers;       /* QP_TIMERS as programmed (the same) */
};

static inline uint32_t reg_rd(rnic_dev *d, uint32_t off) { return d->hal.ops->bar_read32(d->hal.ctx, off); }
static inline void reg_wr(rnic_dev *d, uint32_t off, uint32_t v) { d->hal.ops->bar_write32(d->hal.ctx, off, v); }

/* Ring memory: page-aligned, zeroed, mapped for DMA. */
void *rnic_ring_alloc(rnic_dev *dev, size_t bytes);
void rnic_ring_free(rnic_dev *dev, void *ring, size_t bytes);

uint32_t rnic_log2_ceil(uint32_t n);

/* Records why the open in progress fails, for rnic_open_error(): the step
 * that failed and what it was given. The backends call it too, so it lives
 * in the core (device.c), which both link against. */
void rnic_open_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
