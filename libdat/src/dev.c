/*
 * Driver devices behind IAs. Opening the same device twice (two IAs named
 * rnic0, or an alias from dat.conf) shares one rnic_dev: QP numbers and
 * memory keys are per device, and so is the host's coherency: the first IA
 * sets it (its dat.conf coherency=, else the platform's own mode), and an
 * IA that asks for the other mode while the device is open is refused.
 *
 * Time is a device's: its clock, in cycles of RNIC_CLOCK_MHZ.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "dat_internal.h"

struct dat_dev *dat_devs;

DAT_RETURN dat_dev_get(const struct dat_ia_entry *e, const char *ia_name, struct dat_dev **out)
{
    for (struct dat_dev *d = dat_devs; d; d = d->next) {
        if (strcmp(d->name, e->device) == 0) {
            if (e->coherency != RNIC_HOST_DEFAULT && (e->coherency == RNIC_HOST_NONCOHERENT) != d->noncoherent)
                return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
            d->refs++;
            *out = d;
            return DAT_SUCCESS;
        }
    }
    struct dat_dev *d = dat_zalloc(sizeof(*d));
    if (!d)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    int rc = rnic_open_with(e->device, e->options[0] ? e->options : NULL, &d->rdev);
    if (rc != RNIC_OK) {
        free(d);
        /* One DAT code stands for many causes (a NIC the platform does not
         * have, each VFIO step): the driver's reason is what the user can
         * act on, and the IA name ties it to the call when dat.conf maps
         * the name to another device. */
        fprintf(stderr, "libdat: dat_ia_open(\"%s\"): device %s: %s\n", ia_name, e->device,
                rnic_open_error()[0] ? rnic_open_error() : rnic_strerror(rc));
        if (rc == RNIC_E_NOMEM)
            return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
        /* The NIC exists but its link socket's port is taken (the platform
         * says which on stderr): another process has this NIC open. */
        if (rc == RNIC_E_BUSY)
            return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE);
        /* A sim_mode= or link_*= value the platform refused. */
        if (rc == RNIC_E_INVAL)
            return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
        return DAT_ERR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
    }
    if (dat_threaded)
        rnic_time_run_alone(d->rdev);
    /* Set even to DEFAULT: a simulated NIC keeps the mode an IA closed
     * earlier gave it. */
    if (rnic_set_host_coherency(d->rdev, e->coherency) != RNIC_OK) {
        rnic_close(d->rdev);
        free(d);
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    }
    d->noncoherent = rnic_host_coherency(d->rdev) == RNIC_HOST_NONCOHERENT;
    rnic_query(d->rdev, &d->info);
    d->ep_by_qpn = calloc(d->info.num_qp, sizeof(*d->ep_by_qpn));
    d->lmr_by_index = calloc(d->info.pt_entries, sizeof(*d->lmr_by_index));
    d->freed_ctx = calloc(d->info.pt_entries, sizeof(*d->freed_ctx));
    if (!d->ep_by_qpn || !d->lmr_by_index || !d->freed_ctx) {
        free(d->ep_by_qpn);
        free(d->lmr_by_index);
        free(d->freed_ctx);
        rnic_close(d->rdev);
        free(d);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    snprintf(d->name, sizeof(d->name), "%s", e->device);
    d->cm_addr.sin_family = AF_INET;
    if (e->cm_addr.s_addr != 0) {
        d->cm_addr.sin_addr = e->cm_addr;
    } else {
        /* One loopback address per NIC: NIC i (IPv4 10.0.0.(i+1)) is 127.0.0.(i+1). */
        d->cm_addr.sin_addr.s_addr = htonl(0x7F000000u | (d->info.ipv4 & 0xFFu));
    }
    d->refs = 1;
    d->next = dat_devs;
    dat_devs = d;
    *out = d;
    return DAT_SUCCESS;
}

void dat_dev_put(struct dat_dev *dev)
{
    if (--dev->refs > 0)
        return;
    for (struct dat_dev **p = &dat_devs; *p; p = &(*p)->next) {
        if (*p == dev) {
            *p = dev->next;
            break;
        }
    }
    rnic_close(dev->rdev);
    free(dev->ep_by_qpn);
    free(dev->lmr_by_index);
    free(dev->freed_ctx);
    free(dev);
}

/* ------------------------------------------------------------------ time */

uint64_t dat_now(const struct dat_dev *dev)
{
    return rnic_time(dev->rdev);
}
