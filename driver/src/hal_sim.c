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

static const struct rnic_hal_ops sim_ops = {
    .name = "sim",
    .bar_read32 = sim_rd,
    .bar_write32 = sim_wr,
    .dma_map = sim_map,
    .dma_unmap = sim_unmap,
    .wait = sim_wait,
    .index = sim_index,
    .close = sim_close,
};

int rnic_hal_open_sim(const char *name, struct rnic_hal *out) {
    rnic_sim_dev *dev = NULL;
    if (rnic_sim_open(name, &dev) != 0)
        return RNIC_E_NODEV;
    out->ops = &sim_ops;
    out->ctx = dev;
    return RNIC_OK;
}
