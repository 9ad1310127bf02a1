/*
 * Provider-specific additions to the user-level API. None beyond the
 * provider identity in dat_vendor_specific.h.
 */
#ifndef DAT_UDAT_VENDOR_SPECIFIC_H
#define DAT_UDAT_VENDOR_SPECIFIC_H

#include <dat/dat_vendor_specific.h>

#endif
