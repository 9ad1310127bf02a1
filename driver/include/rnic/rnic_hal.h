/*
 * The platform HAL: the only way the driver reaches a device. A backend
 * provides BAR access, DMA mapping (IOVA = process virtual address) and a
 * way to wait for the interrupt. Backends: `sim` (the SystemC platform in
 * this process) and `vfio` (a real board behind the kernel's VFIO).
 * Tests may supply their own ops table (a fake device).
 */
#ifndef RNIC_HAL_H
#define RNIC_HAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rnic_sync_report;

struct rnic_hal_ops {
    const char *name;
    uint32_t (*bar_read32)(void *ctx, uint32_t off);
    void (*bar_write32)(void *ctx, uint32_t off, uint32_t val);
    int (*dma_map)(void *ctx, void *va, size_t len);     /* 0 or -1 */
    int (*dma_unmap)(void *ctx, void *va, size_t len);   /* 0 or -1 */
    /* Wait for the interrupt or max_cycles device cycles; returns cycles waited (0 if unknown). */
    uint64_t (*wait)(void *ctx, uint64_t max_cycles);
    unsigned (*index)(void *ctx);                        /* port number: sets MAC and IPv4 */
    void (*close)(void *ctx);
    /* Host coherency (rnic_drv.h). dma_map is a streaming mapping (a
     * region's memory); dma_map_coherent maps memory that stays coherent
     * (rings). Each may be NULL: a coherent host, where these do nothing
     * and coherent memory is mapped with dma_map. */
    int (*dma_map_coherent)(void *ctx, void *va, size_t len);           /* 0 or -1 */
    int (*coherency)(void *ctx);                                         /* RNIC_HOST_* */
    int (*set_coherency)(void *ctx, int mode);                           /* 0 or -1: refused */
    int (*dma_sync)(void *ctx, const void *va, size_t len, int dir);     /* 0 or -1 */
    int (*sync_report)(void *ctx, struct rnic_sync_report *out);         /* 1, or 0: none */
    /* Time (rnic_drv.h, "time"). Each may be NULL: hardware, whose time
     * passes by itself and whose cycle counter is read over the BAR. */
    uint64_t (*now)(void *ctx);                           /* device cycles, no bus access */
    /* Like wait, for the first interrupt of any of n devices of this backend. */
    uint64_t (*wait_any)(void *const *ctxs, unsigned n, uint64_t max_cycles);
    void (*cpu_delay)(void *ctx, uint64_t cycles);        /* the CPU looked at memory this long */
    int (*event_fd)(void *ctx);                           /* readable on an interrupt, or -1 */
    int (*runs_alone)(void *ctx);                         /* 1: time passes without calls */
    int (*quiescent)(void *ctx);                          /* 1: nothing happens until software acts */
    int (*let_time_run)(void *ctx);                       /* make time run alone if it can (0, or -1) */
};

struct rnic_hal {
    const struct rnic_hal_ops *ops;
    void *ctx;
};

/* "rnicN": the simulated NIC N. `options` (may be NULL): space-separated
 * key=value words, mode=auto|lockstep|freerun, link_local=host:port,
 * link_peer=host:port (docs/platform.md). Returns 0, RNIC_E_NODEV,
 * RNIC_E_BUSY (its link socket's port is taken) or RNIC_E_INVAL (a bad
 * option, a bad value of one of the platform's environment variables,
 * named on stderr, or a mode other than the process's). */
int rnic_hal_open_sim(const char *name, const char *options, struct rnic_hal *out);
/* "vfio:<pci address>", e.g. "vfio:0000:01:00.0". Returns 0, RNIC_E_NODEV or
 * RNIC_E_NOMEM. Called through rnic_open, either backend's failure leaves
 * its reason for rnic_open_error() (rnic_drv.h). */
int rnic_hal_open_vfio(const char *name, struct rnic_hal *out);

#ifdef __cplusplus
}
#endif

#endif
