/* The platform's own promises: BAR access, IOMMU bookkeeping, link latency,
 * the link hook, and a corrupted frame dropped by the receiver's ICRC check
 * without touching memory. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rnic_sim.h"
#include "rnic_test.h"

static uint64_t first_arrival;
static unsigned hook_mode;      /* 0 pass, 1 record, 2 corrupt the next data frame */
static uint64_t hooked_frames;

static unsigned icrc_ok, icrc_bad, ipsum_bad;

/* The ICRC recomputed with zlib's CRC-32, independently of the RTL: the
 * masked fields set to 0xFF, eight 0xFF bytes in front, the Ethernet
 * header left out, the result stored least significant byte first. */
static void check_frame(const uint8_t *f, size_t len) {
    if (len < 58)
        return;
    uint8_t buf[8 + 4200];
    size_t n = len - 14 - 4;
    if (n > sizeof(buf) - 8)
        return;
    memset(buf, 0xFF, 8);
    memcpy(buf + 8, f + 14, n);
    const size_t masked[] = {15, 22, 24, 25, 40, 41, 46};
    for (size_t i = 0; i < sizeof(masked) / sizeof(masked[0]); i++)
        buf[8 + masked[i] - 14] = 0xFF;
    uint32_t crc = (uint32_t)crc32(0L, buf, (uInt)(n + 8));
    uint32_t got = (uint32_t)f[len - 4] | (uint32_t)f[len - 3] << 8 | (uint32_t)f[len - 2] << 16 |
                   (uint32_t)f[len - 1] << 24;
    crc == got ? icrc_ok++ : icrc_bad++;
    /* IPv4 header checksum: the ones' complement sum over the header is 0xFFFF. */
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
        sum += (uint32_t)f[14 + i] << 8 | f[15 + i];
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    if (sum != 0xFFFF)
        ipsum_bad++;
}

static int hook(unsigned from, uint8_t *frame, size_t len, void *arg) {
    (void)arg;
    hooked_frames++;
    check_frame(frame, len);
    if (from == 0 && hook_mode == 1 && first_arrival == 0)
        first_arrival = rnic_sim_cycle();
    if (from == 0 && hook_mode == 2 && len > 100) {
        frame[80] ^= 0x01;   /* one payload bit */
        hook_mode = 0;
    }
    return 0;
}

int main(void) {
    rnic_sim_dev *d0, *d1, *bad;
    CHECK_EQ(rnic_sim_open("rnic0", &d0), 0);
    CHECK_EQ(rnic_sim_open("rnic1", &d1), 0);
    CHECK_EQ(rnic_sim_open("rnic9", &bad), -1);
    CHECK_EQ(rnic_sim_open("eth0", &bad), -1);
    CHECK_EQ(rnic_sim_num_nics(), 2);
    CHECK_EQ(rnic_sim_index(d1), 1);

    /* BAR: identity, and each access is one fabric cycle. */
    uint64_t c0 = rnic_sim_cycle();
    CHECK_EQ(rnic_sim_bar_read32(d0, RNIC_REG_ID), RNIC_DEVICE_ID);
    CHECK_EQ(rnic_sim_bar_read32(d1, RNIC_REG_VERSION), RNIC_VERSION);
    CHECK_EQ(rnic_sim_cycle() - c0, 2);
    CHECK_EQ(rnic_sim_bar_read32(d0, 0x3), 0xFFFFFFFFu);   /* misaligned: a bus error */
    rnic_sim_advance(10);
    CHECK_EQ(rnic_sim_cycle() - c0, 12);

    /* IOMMU bookkeeping. */
    static uint8_t buf[4096];
    CHECK_EQ(rnic_sim_dma_map(d0, buf, sizeof(buf)), 0);
    CHECK_EQ(rnic_sim_dma_map(d0, buf + 100, 10), 0);        /* overlaps are counted separately */
    CHECK_EQ(rnic_sim_dma_unmap(d0, buf + 100, 10), 0);
    CHECK_EQ(rnic_sim_dma_unmap(d0, buf + 100, 10), -1);
    CHECK_EQ(rnic_sim_dma_unmap(d0, buf, sizeof(buf)), 0);
    CHECK_EQ(rnic_sim_dma_map(d0, buf, 0), -1);

    /* Link latency and the hook: a WRITE's first frame leaves rnic0 and
     * reaches rnic1 RNIC_LINK_LATENCY (100) cycles after its last byte left. */
    struct pair P;
    pair_open(&P);
    uint8_t *a = aligned_alloc(4096, 8192), *b = aligned_alloc(4096, 8192);
    fill_pattern(a, 8192, 5);
    memset(b, 0, 8192);
    rnic_mr *ma, *mb;
    CHECK_EQ(rnic_mr_reg(P.dev[0], a, 8192, P.pz[0], ALL_ACCESS, &ma), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], b, 8192, P.pz[1], ALL_ACCESS, &mb), RNIC_OK);
    rnic_sim_set_link_hook(hook, NULL);
    hook_mode = 1;
    uint64_t frames0 = rnic_sim_link_frames(0);
    struct rnic_sge s = {(uint64_t)(uintptr_t)a, 64, rnic_mr_key(ma)};
    struct rnic_send_wr w = {.wr_id = 1, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1,
                             .sg = &s, .remote_addr = (uint64_t)(uintptr_t)b, .rkey = rnic_mr_key(mb)};
    struct rnic_wc wc;
    CHECK_EQ(post_and_wait(&P, 0, &w, &wc), 1);
    CHECK_EQ(wc.status, 0);
    CHECK_EQ(rnic_sim_link_frames(0) - frames0, 1);
    CHECK(hooked_frames >= 2);   /* the WRITE and its ACK */
    CHECK(first_arrival != 0);
    /* Every frame so far carried a correct ICRC and IPv4 checksum. */
    CHECK(icrc_ok >= 2);
    CHECK_EQ(icrc_bad, 0);
    CHECK_EQ(ipsum_bad, 0);
    /* The round trip cannot be shorter than two link latencies. */
    CHECK(rnic_sim_cycle() - first_arrival >= 100);

    /* A corrupted frame: dropped by the receiver (bad ICRC), memory untouched,
     * counted; without retransmission the WQE does not complete. */
    memset(b, 0, 8192);
    uint32_t drops = rnic_sim_bar_read32(d1, RNIC_REG_RX_DROPS);
    hook_mode = 2;
    s.len = 512;
    CHECK_EQ(rnic_post_send(P.qp[0], &w), RNIC_OK);
    CHECK_EQ(rnic_cq_wait(P.cq[0], &wc, 20000), RNIC_E_TIMEOUT);
    CHECK_EQ(rnic_sim_bar_read32(d1, RNIC_REG_RX_DROPS), drops + 1);
    CHECK(rnic_sim_bar_read32(d1, RNIC_REG_STATUS) & RNIC_STATUS_RX_DROP_MASK);
    for (int i = 0; i < 8192; i++)
        if (b[i] != 0) {
            CHECK(!"memory changed by a corrupted frame");
            break;
        }
    rnic_sim_set_link_hook(NULL, NULL);
    free(a);
    free(b);
    return rnic_test_finish("test_platform");
}
