/*
 * DAT 1.2 platform types for Linux (LP64 and ILP32).
 *
 * The standard leaves the width of a few types to each platform; these are
 * the choices every Linux uDAPL made, so consumers built against another
 * Linux uDAPL 1.2 see the same sizes here.
 */
#ifndef DAT_PLATFORM_SPECIFIC_H
#define DAT_PLATFORM_SPECIFIC_H

#include <stdint.h>     /* UINT64_C, which the IA/EP field masks use */
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t DAT_UINT32;
typedef uint64_t DAT_UINT64;
typedef unsigned long DAT_UVERYLONG;
typedef void *DAT_PVOID;
typedef int DAT_COUNT;
typedef DAT_UINT64 DAT_PADDR;

/* IA addresses are the host's own socket addresses. */
typedef struct sockaddr DAT_SOCK_ADDR;
typedef struct sockaddr_in6 DAT_SOCK_ADDR6;
#define DAT_AF_INET AF_INET
#define DAT_AF_INET6 AF_INET6

/* Buffer alignment that gives the best DMA performance, in bytes. */
#ifndef DAT_OPTIMAL_ALIGNMENT
#define DAT_OPTIMAL_ALIGNMENT 256
#endif

/* Parameter direction markers used in the standard's prototypes. */
#ifndef IN
#define IN
#endif
#ifndef OUT
#define OUT
#endif
#ifndef INOUT
#define INOUT
#endif

#ifdef __cplusplus
}
#endif

#endif
