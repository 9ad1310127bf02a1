/*
 * Provider-specific additions shared by user and kernel DAT. This provider
 * (the RNIC co-simulation libdat) adds none; the header exists because the
 * standard set includes it.
 */
#ifndef DAT_VENDOR_SPECIFIC_H
#define DAT_VENDOR_SPECIFIC_H

/* Name and version this provider reports in DAT_PROVIDER_ATTR. */
#define DAT_RNIC_PROVIDER_NAME "rnic-cosim"
#define DAT_RNIC_PROVIDER_VERSION_MAJOR 1
#define DAT_RNIC_PROVIDER_VERSION_MINOR 0

#endif
