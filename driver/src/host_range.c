/* Whether the process has the memory a region names (docs/driver.md,
 * "Registration"). The NIC reaches host memory by address: a region over
 * memory that is not there, or that is read-only while the NIC may write
 * it, would be found out only by the first DMA into it (an IOMMU fault on
 * a board, a refused burst on the simulated platform), long after the call
 * that made the mistake returned success. The kernel's own list of the
 * process's mappings says so at registration, for any length, in one pass
 * over the mappings rather than the pages: a length of 2^40 costs what a
 * page does. */
#define _POSIX_C_SOURCE 200809L   /* getline */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

int rnic_host_range_check(const void *addr, uint64_t len, bool write) {
    /* Without procfs nothing can be seen here; the DMA-time checks remain. */
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return RNIC_OK;
    uintptr_t want = (uintptr_t)addr;   /* bytes before it are covered */
    const uintptr_t end = (uintptr_t)addr + (uintptr_t)len;
    int rc = RNIC_E_RANGE;
    bool read_only = false;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        unsigned long lo, hi;
        char perms[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3)
            continue;
        if (hi <= want)
            continue;
        /* Mappings are listed in address order: a gap before `want` is a
         * byte nothing maps. A mapping the process cannot read (PROT_NONE,
         * a guard) is no memory to the NIC either. */
        if (lo > want || perms[0] != 'r')
            break;
        if (write && perms[1] != 'w')
            read_only = true;
        if (end <= hi) {
            rc = read_only ? RNIC_E_ACCESS : RNIC_OK;
            break;
        }
        want = hi;   /* the range goes on in the next mapping */
    }
    free(line);
    fclose(f);
    return rc;
}
