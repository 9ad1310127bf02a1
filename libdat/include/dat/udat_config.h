/*
 * Version of the DAT API these headers describe, and the thread-safety
 * model a consumer asks for when it opens an IA (dat_ia_open passes both).
 */
#ifndef DAT_UDAT_CONFIG_H
#define DAT_UDAT_CONFIG_H

#define DAT_VERSION_MAJOR 1
#define DAT_VERSION_MINOR 2

/* The standard's default. This provider is thread safe either way (see
 * docs/libdat.md): a consumer that defines DAT_THREADSAFE to DAT_TRUE
 * before including the headers gets the IA it asks for. */
#ifndef DAT_THREADSAFE
#define DAT_THREADSAFE DAT_FALSE
#endif

#endif
