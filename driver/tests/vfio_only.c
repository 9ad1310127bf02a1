/*
 * A board's program in miniature: linked with the driver core and the vfio
 * backend only (driver/CMakeLists.txt). There is no board here, so a vfio
 * name is RNIC_E_NODEV (the backend finds no such PCI device), and a
 * simulated NIC's name is RNIC_E_NODEV too: the sim backend is not in this
 * program. rnic_open_error() must say which of those it was. Prints "ok"
 * and exits 0 when every answer is the expected one.
 */
#include <stdio.h>
#include <string.h>

#include "rnic/rnic_drv.h"

static int failures;

/* An open that must fail with `want` and a reason holding `why`; a device
 * it opened anyway is closed. */
static void expect(const char *what, const char *name, const char *options, int want, const char *why) {
    rnic_dev *dev = NULL;
    const int got = options ? rnic_open_with(name, options, &dev) : rnic_open(name, &dev);
    if (got != want) {
        fprintf(stderr, "%s: %d (%s), expected %d (%s)\n", what, got, rnic_strerror(got), want,
                rnic_strerror(want));
        failures++;
    }
    if (!strstr(rnic_open_error(), why)) {
        fprintf(stderr, "%s: rnic_open_error() \"%s\" does not say \"%s\"\n", what, rnic_open_error(), why);
        failures++;
    }
    if (dev)
        rnic_close(dev);
}

int main(void) {
    /* A bus number no machine here has, so the first VFIO step fails. */
    expect("a board that is not here", "vfio:0000:ff:1f.7", NULL, RNIC_E_NODEV,
           "sysfs iommu_group lookup: readlink /sys/bus/pci/devices/0000:ff:1f.7/iommu_group: ");
    expect("vfio with options", "vfio:0000:00:00.0", "mode=lockstep", RNIC_E_INVAL, "takes no options");
    expect("a simulated NIC", "rnic0", NULL, RNIC_E_NODEV, "the sim backend");
    expect("a simulated NIC with options", "rnic1", "mode=lockstep", RNIC_E_NODEV, "is not linked into this program");
    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
