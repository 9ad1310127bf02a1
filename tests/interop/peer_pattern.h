/*
 * What rxe_rdma_check (in the VM, on libibverbs) and rnic_rdma_check (here,
 * on the driver) share: the byte pattern one side puts in memory and the
 * other must find there after an RDMA WRITE or READ, and the address line
 * each sends the other once (docs/interop.md, "Every byte of RDMA WRITE
 * and READ").
 */
#ifndef PEER_PATTERN_H
#define PEER_PATTERN_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A hash of the seed and the position rather than a counter: a pattern
 * that repeats every 256 bytes, or at any power of two, cannot tell a
 * packet landing one MTU or one page off from one landing right; and each
 * command has its own seed, so a buffer left over from the one before
 * does not pass. */
static inline uint8_t peer_pattern(uint32_t seed, uint32_t i) {
    /* murmur3's 32-bit finalizer: every input bit reaches the top byte,
     * the one kept. */
    uint32_t x = seed * 0x9E3779B1u ^ (i + 0x7F4A7C15u) * 0x85EBCA77u;
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return (uint8_t)(x >> 24);
}

/* The address line, the client's first, then the server's, fixed width
 * (a forwarded port that closes before the guest listens is told from a
 * short answer by its length): "QPN PSN GID VA RKEY LEN\n", QPN and PSN 6
 * hex digits, the GID 32 (its 16 bytes in order), the buffer's address
 * 16, its rkey 8 and its length in bytes 8. */
#define PEER_CHECK_LINE_BYTES 82

struct peer_check_addr {
    uint32_t qpn, psn, rkey, len;
    uint64_t va;
    uint8_t gid[16];
};

static inline void peer_check_format(const struct peer_check_addr *a, char line[PEER_CHECK_LINE_BYTES + 1]) {
    char gid[33];
    for (int i = 0; i < 16; i++) snprintf(gid + 2 * i, 3, "%02x", a->gid[i]);
    snprintf(line, PEER_CHECK_LINE_BYTES + 1,
             "%06" PRIx32 " %06" PRIx32 " %s %016" PRIx64 " %08" PRIx32 " %08" PRIx32 "\n", a->qpn & 0xFFFFFFu,
             a->psn & 0xFFFFFFu, gid, a->va, a->rkey, a->len);
}

static inline bool peer_check_parse(const char *line, struct peer_check_addr *a) {
    char gid[33] = {0};
    int used = 0;
    if (sscanf(line, "%6" SCNx32 " %6" SCNx32 " %32[0-9a-fA-F] %16" SCNx64 " %8" SCNx32 " %8" SCNx32 "%n", &a->qpn,
               &a->psn, gid, &a->va, &a->rkey, &a->len, &used) != 6 ||
        strlen(gid) != 32 || used != PEER_CHECK_LINE_BYTES - 1)
        return false;
    for (int i = 0; i < 16; i++) {
        unsigned b;
        if (sscanf(gid + 2 * i, "%2x", &b) != 1) return false;
        a->gid[i] = (uint8_t)b;
    }
    return true;
}

#endif
