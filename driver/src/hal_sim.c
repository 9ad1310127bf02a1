/* The `sim` backend: the SystemC platform in this process. */
#include "internal.h"
#include "rnic_sim.h"

static uint32_t sim_rd(void *c, uint32_t off) { return rnic_sim_bar_read32(c, off); }
static void sim_wr(void *c, uint32_t off, uint32_t v) { rnic_sim_bar_write32(c, off, v); }
static int sim_map(void *c, void *va, size_t len) { return rnic_sim_dma_map(c, va, len); }
static int sim_unmap(void *c, void *va, size_t len) { return rnic_sim_dma_unmap(c, va, len); }
static uint64_t sim_wait(void *c, uint64_t max) { return rnic_sim_wait_irq(c, max); }
static unsigned sim_index(void *c) { return rnic_sim_index(c); }
static void sim_close(void *c) { rnic_sim_close(c); }

/* The driver's coherency names are the platform's numbers. */
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(RNIC_HOST_DEFAULT, RNIC_SIM_COHERENCY_DEFAULT) && SAME(RNIC_HOST_COHERENT, RNIC_SIM_COHERENT) &&
                   SAME(RNIC_HOST_NONCOHERENT, RNIC_SIM_NONCOHERENT),
               "coherency modes");
_Static_assert(SAME(RNIC_SYNC_FOR_DEVICE, RNIC_SIM_SYNC_FOR_DEVICE) && SAME(RNIC_SYNC_FOR_CPU, RNIC_SIM_SYNC_FOR_CPU),
               "sync directions");
_Static_assert(SAME(RNIC_SYNC_STALE_READ, RNIC_SIM_CACHE_STALE_READ) &&
                   SAME(RNIC_SYNC_OVERWRITTEN, RNIC_SIM_CACHE_OVERWRITTEN) &&
                   SAME(RNIC_SYNC_UNSEEN_AT_UNMAP, RNIC_SIM_CACHE_UNSEEN_AT_UNMAP) &&
                   SAME(RNIC_SYNC_UNDEFINED, RNIC_SIM_CACHE_UNDEFINED),
               "report kinds");

static int sim_map_coherent(void *c, void *va, size_t len) { return rnic_sim_dma_map_coherent(c, va, len); }
static int sim_coherency(void *c) { return rnic_sim_coherency(c); }
static int sim_set_coherency(void *c, int mode) { return rnic_sim_set_coherency(c, mode); }
static int sim_sync(void *c, const void *va, size_t len, int dir) { return rnic_sim_dma_sync(c, va, len, dir); }

static int sim_report(void *c, struct rnic_sync_report *out) {
    struct rnic_sim_cache_report r;
    if (rnic_sim_pop_cache_report(c, &r) != 1)
        return 0;
    out->addr = r.addr;
    out->len = r.len;
    out->kind = r.kind;
    return 1;
}

static const struct rnic_hal_ops sim_ops = {
    .name = "sim",
    .bar_read32 = sim_rd,
    .bar_write32 = sim_wr,
    .dma_map = sim_map,
    .dma_unmap = sim_unmap,
    .wait = sim_wait,
    .index = sim_index,
    .close = sim_close,
    .dma_map_coherent = sim_map_coherent,
    .coherency = sim_coherency,
    .set_coherency = sim_set_coherency,
    .dma_sync = sim_sync,
    .sync_report = sim_report,
};

int rnic_hal_open_sim(const char *name, struct rnic_hal *out) {
    rnic_sim_dev *dev = NULL;
    if (rnic_sim_open(name, &dev) != 0)
        return RNIC_E_NODEV;
    out->ops = &sim_ops;
    out->ctx = dev;
    return RNIC_OK;
}
