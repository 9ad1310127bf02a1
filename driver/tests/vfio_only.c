/*
 * A board's program in miniature: linked with the driver core and the vfio
 * backend only (driver/CMakeLists.txt). There is no board here, so a vfio
 * name is RNIC_E_NODEV (the backend finds no such PCI device), and a
 * simulated NIC's name is RNIC_E_NODEV too: the sim backend is not in this
 * program. Prints "ok" and exits 0 when every answer is the expected one.
 */
#include <stdio.h>

#include "rnic/rnic_drv.h"

static int failures;

/* An open that must fail with `want`; a device it opened anyway is closed. */
static void expect(const char *what, const char *name, const char *options, int want) {
    rnic_dev *dev = NULL;
    const int got = options ? rnic_open_with(name, options, &dev) : rnic_open(name, &dev);
    if (got != want) {
        fprintf(stderr, "%s: %d (%s), expected %d (%s)\n", what, got, rnic_strerror(got), want,
                rnic_strerror(want));
        failures++;
    }
    if (dev)
        rnic_close(dev);
}

int main(void) {
    expect("a board that is not here", "vfio:0000:00:00.0", NULL, RNIC_E_NODEV);
    expect("vfio with options", "vfio:0000:00:00.0", "mode=lockstep", RNIC_E_INVAL);
    expect("a simulated NIC", "rnic0", NULL, RNIC_E_NODEV);
    expect("a simulated NIC with options", "rnic1", "mode=lockstep", RNIC_E_NODEV);
    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
