/*
 * The DAT registry interface, as the standard defines it for providers
 * that plug into a separate registry library. This libdat is registry and
 * provider in one (its IAs are named by dat.conf, see docs/libdat.md), so
 * a consumer never needs this header; it is here so that code written
 * against the full standard set compiles.
 */
#ifndef DAT_REGISTRY_H
#define DAT_REGISTRY_H

#include <dat/udat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A provider's dispatch table; opaque here because this library has no
 * pluggable providers. */
typedef struct dat_provider DAT_PROVIDER;

/* Both return DAT_NOT_IMPLEMENTED: the set of IAs is fixed by dat.conf. */
extern DAT_RETURN dat_registry_add_provider(IN DAT_PROVIDER *provider,
                                            IN const DAT_PROVIDER_INFO *provider_info);
extern DAT_RETURN dat_registry_remove_provider(IN DAT_PROVIDER *provider,
                                               IN const DAT_PROVIDER_INFO *provider_info);

#define DAT_PROVIDER_INIT_FUNC_NAME dat_provider_init
#define DAT_PROVIDER_FINI_FUNC_NAME dat_provider_fini
#define DAT_PROVIDER_INIT_FUNC_STR "dat_provider_init"
#define DAT_PROVIDER_FINI_FUNC_STR "dat_provider_fini"

typedef void (*DAT_PROVIDER_INIT_FUNC)(IN const DAT_PROVIDER_INFO *provider_info,
                                       IN const char *instance_data);
typedef void (*DAT_PROVIDER_FINI_FUNC)(IN const DAT_PROVIDER_INFO *provider_info);

#ifdef __cplusplus
}
#endif

#endif
