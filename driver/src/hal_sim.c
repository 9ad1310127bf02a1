/* The `sim` backend: the SystemC platform in this process. */
#include <stdio.h>
#include <string.h>

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

static uint64_t sim_now(void *c) {
    (void)c;
    return rnic_sim_cycle();
}

/* Every simulated NIC of the process is in one fabric: one wait for all. */
static uint64_t sim_wait_any(void *const *ctxs, unsigned n, uint64_t max) {
    uint32_t mask = 0;
    for (unsigned i = 0; i < n; i++)
        mask |= 1u << rnic_sim_index(ctxs[i]);
    return rnic_sim_wait_irq_mask(mask, max);
}

static void sim_cpu_delay(void *c, uint64_t cycles) {
    (void)c;
    rnic_sim_cpu_delay(cycles);
}

static int sim_event_fd(void *c) {
    (void)c;
    return rnic_sim_event_fd();
}

static int sim_runs_alone(void *c) {
    (void)c;
    return rnic_sim_mode() == RNIC_SIM_MODE_FREERUN;
}

static int sim_quiescent(void *c) {
    (void)c;
    return rnic_sim_quiescent();
}

static int sim_let_time_run(void *c) {
    (void)c;
    return rnic_sim_go_freerun();
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
    .now = sim_now,
    .wait_any = sim_wait_any,
    .cpu_delay = sim_cpu_delay,
    .event_fd = sim_event_fd,
    .runs_alone = sim_runs_alone,
    .quiescent = sim_quiescent,
    .let_time_run = sim_let_time_run,
};

/* Copies the value of `key=` out of the options into out[len]; 1 if found,
 * 0 if not, -1 if too long. */
static int option(const char *opts, const char *key, char *out, size_t len) {
    const size_t k = strlen(key);
    for (const char *p = opts; p && *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *end = p;
        while (*end && *end != ' ' && *end != '\t')
            end++;
        if ((size_t)(end - p) > k && strncmp(p, key, k) == 0 && p[k] == '=') {
            const size_t n = (size_t)(end - p) - k - 1;
            if (n >= len)
                return -1;
            memcpy(out, p + k + 1, n);
            out[n] = '\0';
            return 1;
        }
        p = end;
    }
    return 0;
}

/* Every word must be a key this backend knows. */
static int options_known(const char *opts) {
    static const char *const keys[] = {"mode=", "link_local=", "link_peer="};
    for (const char *p = opts; p && *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        int ok = 0;
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
            ok |= strncmp(p, keys[i], strlen(keys[i])) == 0;
        if (!ok)
            return 0;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
    return 1;
}

int rnic_hal_open_sim(const char *name, const char *options, struct rnic_hal *out) {
    char mode[16] = "", local[128] = "", peer[128] = "";
    if (!options_known(options) || option(options, "mode", mode, sizeof(mode)) < 0 ||
        option(options, "link_local", local, sizeof(local)) < 0 || option(options, "link_peer", peer, sizeof(peer)) < 0)
        return RNIC_E_INVAL;
    struct rnic_sim_open_options o = {RNIC_SIM_MODE_AUTO, local[0] ? local : NULL, peer[0] ? peer : NULL};
    if (strcmp(mode, "lockstep") == 0)
        o.mode = RNIC_SIM_MODE_LOCKSTEP;
    else if (strcmp(mode, "freerun") == 0)
        o.mode = RNIC_SIM_MODE_FREERUN;
    else if (mode[0] && strcmp(mode, "auto") != 0)
        return RNIC_E_INVAL;
    rnic_sim_dev *dev = NULL;
    const int rc = rnic_sim_open_with(name, &o, &dev);
    if (rc == -2)
        return RNIC_E_BUSY;
    if (rc == -3)
        return RNIC_E_INVAL;
    if (rc != 0)
        return RNIC_E_NODEV;
    out->ops = &sim_ops;
    out->ctx = dev;
    return RNIC_OK;
}
