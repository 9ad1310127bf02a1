/*
 * Helpers for the DAT conformance tests: the checks (rnic_check.h, and here
 * the ones on a DAT_RETURN, which need dat_strerror), and a fixture with
 * both NICs open through DAT (rnic0 = side 0, rnic1 = side 1), a connected
 * EP pair and registered buffers. Public API only.
 */
#ifndef DAT_TEST_H
#define DAT_TEST_H

#include <dat/udat.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rnic_check.h"

/* A call's result: type and subtype both. */
#define CHECK_RET(call, type, sub)                                                      \
    do {                                                                                \
        DAT_RETURN r_ = (call);                                                         \
        if (!rnic_check_record(DAT_GET_TYPE(r_) == (DAT_UINT32)(type) &&                \
                               DAT_GET_SUBTYPE(r_) == (DAT_UINT32)(sub))) {             \
            const char *ma = "?", *mi = "?";                                            \
            dat_strerror(r_, &ma, &mi);                                                 \
            fprintf(stderr, "%s:%d: %s -> %s/%s (0x%x), expected %s/%s\n", __FILE__, __LINE__, #call, ma, mi, \
                    (unsigned)r_, #type, #sub);                                         \
        }                                                                               \
    } while (0)
#define CHECK_OK(call) CHECK_RET(call, DAT_SUCCESS, DAT_NO_SUBTYPE)
/* Only the type (the man pages name no subtype). */
#define CHECK_TYPE(call, type)                                                          \
    do {                                                                                \
        DAT_RETURN r_ = (call);                                                         \
        if (!rnic_check_record(DAT_GET_TYPE(r_) == (DAT_UINT32)(type))) {               \
            const char *ma = "?", *mi = "?";                                            \
            dat_strerror(r_, &ma, &mi);                                                 \
            fprintf(stderr, "%s:%d: %s -> %s/%s, expected %s\n", __FILE__, __LINE__, #call, ma, mi, #type); \
        }                                                                               \
    } while (0)

int dt_finish(const char *name);

/* A step the test cannot go on without: on failure, say which and exit 2. */
#define DT_MUST(call)                                                                   \
    do {                                                                                \
        DAT_RETURN r__ = (call);                                                        \
        if (r__ != DAT_SUCCESS) {                                                       \
            const char *ma = "?", *mi = "?";                                            \
            dat_strerror(r__, &ma, &mi);                                                \
            fprintf(stderr, "%s:%d: %s -> %s/%s\n", __FILE__, __LINE__, #call, ma, mi); \
            exit(2);                                                                    \
        }                                                                               \
    } while (0)

/* Microseconds of NIC time the tests wait for something that must come. */
#define DT_WAIT_US 20000u   /* 5 M cycles: ~3 s of host time at worst */

#define DT_BUF 65536u

struct dt_side {
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async_evd, req_evd, recv_evd, conn_evd, cr_evd;
    DAT_PZ_HANDLE pz;
    DAT_EP_HANDLE ep;
    uint8_t *buf;                      /* DT_BUF bytes, registered with every privilege */
    DAT_LMR_HANDLE lmr;
    DAT_LMR_CONTEXT lmr_ctx;
    DAT_RMR_CONTEXT rmr_ctx;
};

struct dt_pair {
    struct dt_side s[2];
    DAT_PSP_HANDLE psp;
    DAT_CONN_QUAL qual;
};

/* Opens side i on rnic<i> with its PZ, EVDs, an EP (ep_attr may be NULL)
 * and its buffer. */
void dt_side_open(struct dt_side *s, int i, const DAT_EP_ATTR *ep_attr);
void dt_side_close(struct dt_side *s);
/* Both sides, and side 0 connected to side 1 (through a PSP on side 1). */
void dt_pair_open(struct dt_pair *p, const DAT_EP_ATTR *attr0, const DAT_EP_ATTR *attr1);
void dt_pair_connect(struct dt_pair *p);
/* The same with every wait bounded by timeout_us (threads, processes). */
void dt_pair_connect_within(struct dt_pair *p, DAT_TIMEOUT timeout_us);
void dt_pair_close(struct dt_pair *p);

/* The next event of evd (DAT_TIMEOUT_EXPIRED if none in timeout_us). */
DAT_RETURN dt_wait(DAT_EVD_HANDLE evd, DAT_TIMEOUT timeout_us, DAT_EVENT *ev);
/* Waits for one DTO completion and returns its status (-1: none came). */
int dt_wait_dto(DAT_EVD_HANDLE evd, DAT_DTO_COMPLETION_EVENT_DATA *out);
/* Waits for one event and returns its number (0: none came). */
DAT_EVENT_NUMBER dt_wait_number(DAT_EVD_HANDLE evd, DAT_TIMEOUT timeout_us);

DAT_LMR_TRIPLET dt_iov(const struct dt_side *s, size_t off, size_t len);
DAT_RMR_COOKIE dt_rcookie(uint64_t v);
/* The next event of evd must be a bind completion; returns its status (-1:
 * something else, or nothing). With rmr != NULL, also checks its handle and cookie. */
int dt_wait_bind(DAT_EVD_HANDLE evd, DAT_RMR_HANDLE rmr, uint64_t cookie);
/* Side 0 RDMA-writes len bytes of pattern `seed` into side 1's buf + off
 * through `ctx`; returns the completion status (-2: the post was refused). */
int dt_peer_write(struct dt_pair *p, DAT_RMR_CONTEXT ctx, size_t off, size_t len, unsigned seed);
DAT_RMR_TRIPLET dt_remote(const struct dt_side *s, size_t off, size_t len);
DAT_DTO_COOKIE dt_cookie(uint64_t v);
void dt_fill(uint8_t *b, size_t n, unsigned seed);

/* A dat.conf with `text` in a temporary file that DAT_OVERRIDE names, until
 * dt_conf_drop. */
#define DT_CONF_PATH 64
void dt_conf_use(char path[DT_CONF_PATH], const char *text);
void dt_conf_drop(const char *path);

/* What the calls between dt_capture_start and dt_capture_end write on
 * stderr (libdat's diagnostics): returned, kept in dt_captured until the
 * next capture, and still shown on the real stderr. */
#define DT_CAPTURED 4096
extern char dt_captured[DT_CAPTURED];
void dt_capture_start(void);
const char *dt_capture_end(void);

/* The IA address of side s (what dat_ia_query reports). */
DAT_IA_ADDRESS_PTR dt_addr(DAT_IA_HANDLE ia);

#endif
