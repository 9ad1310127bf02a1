/* Device open/reset/query, raw register access, PZs, ring memory. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *rnic_strerror(int err) {
    switch (err) {
    case RNIC_OK: return "success";
    case RNIC_E_INVAL: return "invalid argument";
    case RNIC_E_NOMEM: return "out of host memory";
    case RNIC_E_NODEV: return "no such device";
    case RNIC_E_BUSY: return "object in use";
    case RNIC_E_FULL: return "queue or table full";
    case RNIC_E_TIMEOUT: return "cycle budget exhausted";
    case RNIC_E_STATE: return "wrong state";
    case RNIC_E_HW: return "device reported an error";
    case RNIC_E_RANGE: return "address range invalid";
    case RNIC_E_ACCESS: return "host memory does not allow the access";
    default: return "unknown error";
    }
}

uint32_t rnic_log2_ceil(uint32_t n) {
    uint32_t l = 0;
    while ((1u << l) < n && l < 31)
        l++;
    return l;
}

/* Rings are what a kernel driver allocates as coherent DMA memory: the CPU
 * and the NIC see each other's writes at once, on any host. */
void *rnic_ring_alloc(rnic_dev *dev, size_t bytes) {
    size_t sz = (bytes + 4095u) & ~(size_t)4095u;
    void *p = aligned_alloc(4096, sz);
    if (!p)
        return NULL;
    memset(p, 0, sz);
    const struct rnic_hal_ops *ops = dev->hal.ops;
    if ((ops->dma_map_coherent ? ops->dma_map_coherent : ops->dma_map)(dev->hal.ctx, p, sz) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

void rnic_ring_free(rnic_dev *dev, void *ring, size_t bytes) {
    if (!ring)
        return;
    size_t sz = (bytes + 4095u) & ~(size_t)4095u;
    dev->hal.ops->dma_unmap(dev->hal.ctx, ring, sz);
    free(ring);
}

/* The backend for a name (hal_backends.c): the core knows no backend's
 * symbols; one that is not linked in is RNIC_E_NODEV. */
int rnic_hal_open_named(const char *name, const char *options, struct rnic_hal *hal);

int rnic_open_hal(const struct rnic_hal *hal, rnic_dev **out);

/* Per thread: two threads opening devices at once must each read their own
 * reason, and rnic_open_error() needs no lock. Large enough for a sysfs
 * path and an errno text; a longer reason is cut, never overrun. */
static _Thread_local char open_error[512];

const char *rnic_open_error(void) { return open_error; }

void rnic_open_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(open_error, sizeof(open_error), fmt, ap);
    va_end(ap);
}

int rnic_open(const char *name, rnic_dev **out) { return rnic_open_with(name, NULL, out); }

static int reset_device(rnic_dev *d, bool opening);

int rnic_open_with(const char *name, const char *options, rnic_dev **out) {
    open_error[0] = '\0';
    if (!name || !out) {
        rnic_open_fail("%s is NULL", !name ? "the device name" : "the place for the device (out)");
        return RNIC_E_INVAL;
    }
    struct rnic_hal hal;
    int rc = rnic_hal_open_named(name, options, &hal);
    if (rc != RNIC_OK) {
        /* A backend that forgot to say why still leaves a reason. */
        if (!open_error[0])
            rnic_open_fail("the %s backend refused it: %s", strncmp(name, "vfio:", 5) == 0 ? "vfio" : "sim",
                           rnic_strerror(rc));
        return rc;
    }
    rc = rnic_open_hal(&hal, out);
    if (rc != RNIC_OK && hal.ops->close)
        hal.ops->close(hal.ctx);
    return rc;
}

/* Opens a device behind any HAL (the tests' fake device too). */
int rnic_open_hal(const struct rnic_hal *hal, rnic_dev **out) {
    open_error[0] = '\0';
    if (!hal || !hal->ops || !out) {
        rnic_open_fail("no HAL, no HAL ops or no place for the device given");
        return RNIC_E_INVAL;
    }
    rnic_dev *d = calloc(1, sizeof(*d));
    if (!d) {
        rnic_open_fail("out of host memory for the device");
        return RNIC_E_NOMEM;
    }
    d->hal = *hal;
    int rc = reset_device(d, true);
    if (rc != RNIC_OK) {
        free(d);
        return rc;
    }
    *out = d;
    return RNIC_OK;
}

static void free_tables(rnic_dev *d) {
    free(d->pt_key);
    free(d->pt_free);
    free(d->cqs);
    free(d->qps);
    d->pt_key = NULL;
    d->pt_free = NULL;
    d->cqs = NULL;
    d->qps = NULL;
}

int rnic_reset(rnic_dev *d) { return d ? reset_device(d, false) : RNIC_E_INVAL; }

/* The open's reason is only the open's: a later rnic_reset of an open
 * device must not overwrite what rnic_open_error() says about the last open. */
#define RESET_FAIL(rc, ...)                  \
    do {                                     \
        if (opening)                         \
            rnic_open_fail(__VA_ARGS__);     \
        return (rc);                         \
    } while (0)

static int reset_device(rnic_dev *d, bool opening) {
    reg_wr(d, RNIC_REG_CTRL, RNIC_CTRL_SOFT_RESET_MASK | RNIC_CTRL_ENABLE_MASK);
    const uint32_t id = reg_rd(d, RNIC_REG_ID);
    if (id != RNIC_DEVICE_ID)
        RESET_FAIL(RNIC_E_NODEV, "identity check: the ID register reads 0x%08x, an RNIC's is 0x%08x", (unsigned)id,
                   (unsigned)RNIC_DEVICE_ID);
    uint32_t ver = reg_rd(d, RNIC_REG_VERSION);
    if ((ver >> 16) != (RNIC_VERSION >> 16))
        RESET_FAIL(RNIC_E_NODEV,
                   "identity check: the VERSION register reads 0x%08x, major %u; this driver knows major %u",
                   (unsigned)ver, (unsigned)(ver >> 16), (unsigned)(RNIC_VERSION >> 16));
    uint32_t cq = reg_rd(d, RNIC_REG_CAP_QUEUES);
    uint32_t tb = reg_rd(d, RNIC_REG_CAP_TABLE);
    struct rnic_dev_info *i = &d->info;
    memset(i, 0, sizeof(*i));
    i->version = ver;
    i->num_qp = (cq & RNIC_CAP_QUEUES_NUM_QP_MASK) >> RNIC_CAP_QUEUES_NUM_QP_SHIFT;
    i->num_cq = (cq & RNIC_CAP_QUEUES_NUM_CQ_MASK) >> RNIC_CAP_QUEUES_NUM_CQ_SHIFT;
    i->pt_entries = (tb & RNIC_CAP_TABLE_PT_ENTRIES_MASK) >> RNIC_CAP_TABLE_PT_ENTRIES_SHIFT;
    i->data_bytes = 1u << ((tb & RNIC_CAP_TABLE_LOG_DATA_BYTES_MASK) >> RNIC_CAP_TABLE_LOG_DATA_BYTES_SHIFT);
    i->max_sge = (tb & RNIC_CAP_TABLE_MAX_SGE_MASK) >> RNIC_CAP_TABLE_MAX_SGE_SHIFT;
    i->mtu = 1u << ((tb & RNIC_CAP_TABLE_LOG_MTU_MASK) >> RNIC_CAP_TABLE_LOG_MTU_SHIFT);
    i->max_rd = (tb & RNIC_CAP_TABLE_MAX_RD_MASK) >> RNIC_CAP_TABLE_MAX_RD_SHIFT;
    /* QP_RINGS names a CQ in its SCQ and RCQ fields: that many at most. */
    const uint32_t max_cq = (RNIC_QP_RINGS_SCQ_MASK >> RNIC_QP_RINGS_SCQ_SHIFT) + 1u;
    if (i->num_qp == 0 || i->num_cq == 0 || i->pt_entries == 0 || i->num_cq > max_cq)
        RESET_FAIL(RNIC_E_NODEV,
                   "capability check: %u QPs, %u CQs (at most %u), %u protection table entries; none may be 0",
                   (unsigned)i->num_qp, (unsigned)i->num_cq, (unsigned)max_cq, (unsigned)i->pt_entries);
    unsigned port = d->hal.ops->index(d->hal.ctx);
    i->ipv4 = 0x0A000001u + port;
    uint8_t mac[6] = {0x02, 0, 0, 0, 0, (uint8_t)(port + 1)};
    memcpy(i->mac, mac, 6);
    reg_wr(d, RNIC_REG_MAC_HI, (uint32_t)mac[0] << 8 | mac[1]);
    reg_wr(d, RNIC_REG_MAC_LO, (uint32_t)mac[2] << 24 | (uint32_t)mac[3] << 16 | (uint32_t)mac[4] << 8 | mac[5]);
    reg_wr(d, RNIC_REG_IPV4, i->ipv4);

    free_tables(d);
    memset(d->pz_used, 0, sizeof(d->pz_used));
    memset(d->pz_refs, 0, sizeof(d->pz_refs));
    d->pt_key = calloc(i->pt_entries, 1);
    d->pt_free = calloc(i->pt_entries, sizeof(*d->pt_free));
    d->cqs = calloc(i->num_cq, sizeof(*d->cqs));
    d->qps = calloc(i->num_qp, sizeof(*d->qps));
    if (!d->pt_key || !d->pt_free || !d->cqs || !d->qps) {
        free_tables(d);
        RESET_FAIL(RNIC_E_NOMEM, "out of host memory for the device's tables (%u QPs, %u CQs, %u table entries)",
                   (unsigned)i->num_qp, (unsigned)i->num_cq, (unsigned)i->pt_entries);
    }
    /* Every index but 0, which is never handed out: key 0 stays invalid. */
    d->pt_free_head = 0;
    d->pt_free_n = 0;
    for (uint32_t k = 1; k < i->pt_entries; k++)
        d->pt_free[d->pt_free_n++] = k;
    return RNIC_OK;
}

#undef RESET_FAIL

void rnic_close(rnic_dev *d) {
    if (!d)
        return;
    reg_wr(d, RNIC_REG_CTRL, RNIC_CTRL_SOFT_RESET_MASK);
    if (d->hal.ops->close)
        d->hal.ops->close(d->hal.ctx);
    free_tables(d);
    free(d);
}

int rnic_query(rnic_dev *d, struct rnic_dev_info *info) {
    if (!d || !info)
        return RNIC_E_INVAL;
    *info = d->info;
    return RNIC_OK;
}

uint64_t rnic_cycles(rnic_dev *d) {
    uint32_t lo = reg_rd(d, RNIC_REG_CYCLE_LO);
    uint32_t hi = reg_rd(d, RNIC_REG_CYCLE_HI);
    return (uint64_t)hi << 32 | lo;
}

uint32_t rnic_dev_status(rnic_dev *d, uint32_t *err_addr, bool clear) {
    uint32_t st = reg_rd(d, RNIC_REG_STATUS);
    if (err_addr)
        *err_addr = reg_rd(d, RNIC_REG_ERR_ADDR);
    if (clear && st)
        reg_wr(d, RNIC_REG_STATUS, st);
    return st;
}

uint32_t rnic_reg_read(rnic_dev *d, uint32_t off) { return reg_rd(d, off); }
void rnic_reg_write(rnic_dev *d, uint32_t off, uint32_t val) { reg_wr(d, off, val); }

uint64_t rnic_wait(rnic_dev *d, uint64_t max_cycles) {
    return d->hal.ops->wait(d->hal.ctx, max_cycles);
}

uint64_t rnic_time(rnic_dev *d) {
    return d->hal.ops->now ? d->hal.ops->now(d->hal.ctx) : rnic_cycles(d);
}

uint64_t rnic_wait_any(rnic_dev *const *devs, unsigned n, uint64_t max_cycles) {
    if (n == 0 || !devs || !devs[0])
        return 0;
    const struct rnic_hal_ops *ops = devs[0]->hal.ops;
    bool same = ops->wait_any != NULL && n <= 16;
    for (unsigned i = 1; i < n && same; i++)
        same = devs[i] && devs[i]->hal.ops == ops;
    if (!same)
        return rnic_wait(devs[0], max_cycles);
    void *ctxs[16];
    for (unsigned i = 0; i < n; i++)
        ctxs[i] = devs[i]->hal.ctx;
    return ops->wait_any(ctxs, n, max_cycles);
}

void rnic_cpu_delay(rnic_dev *d, uint64_t cycles) {
    if (d && d->hal.ops->cpu_delay)
        d->hal.ops->cpu_delay(d->hal.ctx, cycles);
}

int rnic_event_fd(rnic_dev *d) { return d && d->hal.ops->event_fd ? d->hal.ops->event_fd(d->hal.ctx) : -1; }

bool rnic_time_runs_alone(rnic_dev *d) { return !d->hal.ops->runs_alone || d->hal.ops->runs_alone(d->hal.ctx); }

int rnic_time_run_alone(rnic_dev *d) {
    if (!d)
        return RNIC_E_INVAL;
    if (!d->hal.ops->let_time_run)
        return RNIC_OK;
    return d->hal.ops->let_time_run(d->hal.ctx) == 0 ? RNIC_OK : RNIC_E_STATE;
}

bool rnic_quiescent(rnic_dev *d) { return d->hal.ops->quiescent && d->hal.ops->quiescent(d->hal.ctx); }

int rnic_pz_alloc(rnic_dev *d, uint16_t *pz) {
    if (!d || !pz)
        return RNIC_E_INVAL;
    for (uint32_t i = 1; i < RNIC_MAX_PZ; i++) {
        if (!d->pz_used[i]) {
            d->pz_used[i] = 1;
            *pz = (uint16_t)i;
            return RNIC_OK;
        }
    }
    return RNIC_E_FULL;
}

int rnic_pz_free(rnic_dev *d, uint16_t pz) {
    if (!d || pz == 0 || pz >= RNIC_MAX_PZ || !d->pz_used[pz])
        return RNIC_E_INVAL;
    if (d->pz_refs[pz])
        return RNIC_E_BUSY;
    d->pz_used[pz] = 0;
    return RNIC_OK;
}
