/* Host coherency: the mode, syncs of streaming DMA memory, and the
 * platform's reports of missing syncs. A backend without these ops is a
 * coherent host: syncs succeed and do nothing. */
#include "internal.h"

int rnic_host_coherency(rnic_dev *d) {
    if (!d)
        return RNIC_E_INVAL;
    return d->hal.ops->coherency ? d->hal.ops->coherency(d->hal.ctx) : RNIC_HOST_COHERENT;
}

int rnic_set_host_coherency(rnic_dev *d, int mode) {
    if (!d || mode < RNIC_HOST_DEFAULT || mode > RNIC_HOST_NONCOHERENT)
        return RNIC_E_INVAL;
    if (!d->hal.ops->set_coherency)
        return mode == RNIC_HOST_NONCOHERENT ? RNIC_E_INVAL : RNIC_OK;
    return d->hal.ops->set_coherency(d->hal.ctx, mode) == 0 ? RNIC_OK : RNIC_E_BUSY;
}

int rnic_dma_sync(rnic_dev *d, const void *addr, uint64_t len, int dir) {
    if (!d || (dir != RNIC_SYNC_FOR_DEVICE && dir != RNIC_SYNC_FOR_CPU))
        return RNIC_E_INVAL;
    if (len == 0)
        return RNIC_OK;
    if ((uintptr_t)addr + len < (uintptr_t)addr || len > SIZE_MAX)
        return RNIC_E_RANGE;
    if (!d->hal.ops->dma_sync)
        return RNIC_OK;
    return d->hal.ops->dma_sync(d->hal.ctx, addr, (size_t)len, dir) == 0 ? RNIC_OK : RNIC_E_RANGE;
}

int rnic_sync_report(rnic_dev *d, struct rnic_sync_report *out) {
    if (!d || !out)
        return RNIC_E_INVAL;
    return d->hal.ops->sync_report ? d->hal.ops->sync_report(d->hal.ctx, out) : 0;
}
