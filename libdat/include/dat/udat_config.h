/*
 * Version of the DAT API these headers describe, and the thread-safety
 * model a consumer asks for when it opens an IA (dat_ia_open passes both).
 */
#ifndef DAT_UDAT_CONFIG_H
#define DAT_UDAT_CONFIG_H

#define DAT_VERSION_MAJOR 1
#define DAT_VERSION_MINOR 2

/* This provider is not thread safe (see docs/libdat.md); a consumer that
 * defines DAT_THREADSAFE to DAT_TRUE before including the headers is
 * refused at dat_ia_open with DAT_PROVIDER_NOT_FOUND / THREAD_SAFETY. */
#ifndef DAT_THREADSAFE
#define DAT_THREADSAFE DAT_FALSE
#endif

#endif
