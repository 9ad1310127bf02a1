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

/* Every word must be a key this backend knows; 1, or 0 with the first
 * word that is not one recorded as the open's reason. */
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
        const char *end = p;
        while (*end && *end != ' ' && *end != '\t')
            end++;
        if (!ok) {
            rnic_open_fail("sim backend option %.*s is no key it knows (mode=, link_local=, link_peer=)",
                           (int)(end - p > 200 ? 200 : end - p), p);
            return 0;
        }
        p = end;
    }
    return 1;
}

/* option() for a key whose value must fit out[len]; 0 with the reason
 * recorded when it does not. */
static int option_fits(const char *opts, const char *key, char *out, size_t len) {
    if (option(opts, key, out, len) >= 0)
        return 1;
    rnic_open_fail("sim backend option %s= has a value longer than %zu bytes", key, len - 1);
    return 0;
}

/* The platform answers -1 both for a name it cannot parse and for an index
 * past its fabric; only its NIC count tells the user which to fix. */
static void no_such_nic(const char *name) {
    const unsigned n = rnic_sim_num_nics();   /* 0 until the fabric is built */
    const long idx = rnic_sim_name_index(name);
    if (n == 0 || idx < 0)
        rnic_open_fail("no such NIC: the simulated platform has no NIC named %.64s (its NICs are rnic0, rnic1, ...)",
                       name);
    else if (n == 1)
        rnic_open_fail("no such NIC: the simulated platform has 1 NIC, rnic0 (RNIC_SIM_NICS)");
    else
        rnic_open_fail("no such NIC: the simulated platform has %u NICs, rnic0 to rnic%u (RNIC_SIM_NICS)", n, n - 1);
}

int rnic_hal_open_sim(const char *name, const char *options, struct rnic_hal *out) {
    char mode[16] = "", local[128] = "", peer[128] = "";
    if (!options_known(options) || !option_fits(options, "mode", mode, sizeof(mode)) ||
        !option_fits(options, "link_local", local, sizeof(local)) ||
        !option_fits(options, "link_peer", peer, sizeof(peer)))
        return RNIC_E_INVAL;
    struct rnic_sim_open_options o = {RNIC_SIM_MODE_AUTO, local[0] ? local : NULL, peer[0] ? peer : NULL};
    if (strcmp(mode, "lockstep") == 0)
        o.mode = RNIC_SIM_MODE_LOCKSTEP;
    else if (strcmp(mode, "freerun") == 0)
        o.mode = RNIC_SIM_MODE_FREERUN;
    else if (mode[0] && strcmp(mode, "auto") != 0) {
        rnic_open_fail("sim backend option mode=%s is none of auto, lockstep, freerun", mode);
        return RNIC_E_INVAL;
    }
    rnic_sim_dev *dev = NULL;
    const int rc = rnic_sim_open_with(name, &o, &dev);
    /* -2 and -3: the platform has printed the details (port, variable,
     * value) on stderr itself and returns no text, so point there. */
    if (rc == -2) {
        rnic_open_fail("link port busy: the NIC's link socket cannot be bound (another process has this NIC "
                       "open?); the platform's rnic_sim: line on stderr names the port");
        return RNIC_E_BUSY;
    }
    if (rc == -3) {
        rnic_open_fail("the simulated platform refused a setting (a bad environment value, a bad link endpoint "
                       "or a mode other than the process's); its rnic_sim: line on stderr says which");
        return RNIC_E_INVAL;
    }
    if (rc != 0) {
        no_such_nic(name);
        return RNIC_E_NODEV;
    }
    out->ops = &sim_ops;
    out->ctx = dev;
    return RNIC_OK;
}
