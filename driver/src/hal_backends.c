/*
 * How the core finds a backend by the device's name: "vfio:<pci address>"
 * is the `vfio` backend, any other name the `sim` backend.
 *
 * The core library (rnic_driver_core) is built from this file as it is:
 * it refers to each backend's open function weakly, so it links without
 * any backend, and a backend that is not in the program is RNIC_E_NODEV.
 * A weak reference does not pull an object out of a static archive: the
 * backend libraries (rnic_hal_sim, rnic_hal_vfio) ask the linker for their
 * open function themselves (--undefined, see driver/CMakeLists.txt).
 *
 * The all-in-one rnic_driver builds this file with RNIC_HAL_ALL_BACKENDS:
 * strong references, so `-lrnic_driver` alone pulls both backends out of
 * its own archive, as it did when it was one library.
 */
#include <string.h>

#include "internal.h"

#ifdef RNIC_HAL_ALL_BACKENDS
#define BACKEND_LINKED(open_fn) 1
#else
int rnic_hal_open_sim(const char *name, const char *options, struct rnic_hal *out) __attribute__((weak));
int rnic_hal_open_vfio(const char *name, struct rnic_hal *out) __attribute__((weak));
#define BACKEND_LINKED(open_fn) ((open_fn) != NULL)
#endif

int rnic_hal_open_named(const char *name, const char *options, struct rnic_hal *hal);

int rnic_hal_open_named(const char *name, const char *options, struct rnic_hal *hal) {
    if (strncmp(name, "vfio:", 5) == 0) {
        if (options && *options) {
            rnic_open_fail("the vfio backend takes no options, given \"%.200s\"", options);
            return RNIC_E_INVAL;
        }
        if (!BACKEND_LINKED(rnic_hal_open_vfio)) {
            /* The program links without it: say how to link it in, since
             * nothing at run time can. */
            rnic_open_fail("the vfio backend is not linked into this program (rnic_hal_vfio, "
                           "-Wl,--undefined=rnic_hal_open_vfio)");
            return RNIC_E_NODEV;
        }
        return rnic_hal_open_vfio(name, hal);
    }
    if (!BACKEND_LINKED(rnic_hal_open_sim)) {
        /* A board's program: any name but vfio:<address> lands here. */
        rnic_open_fail("the sim backend, which opens every name but vfio:<pci address>, is not linked into this "
                       "program (rnic_hal_sim, -Wl,--undefined=rnic_hal_open_sim)");
        return RNIC_E_NODEV;
    }
    return rnic_hal_open_sim(name, options, hal);
}
