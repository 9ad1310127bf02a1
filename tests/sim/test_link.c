/* The link between rnic0 and rnic1: each beat of a frame reaches the far end
 * RNIC_LINK_LATENCY cycles after it left, so a frame whose last beat left in
 * cycle C arrives (its first beat is offered) in C + latency - (beats - 1),
 * or in C + 1 when it is longer than the latency, and never before the frame
 * ahead of it (seen through the hook and rnic_sim_link_frames, cycle by
 * cycle, in both directions);
 * the hook sees well-formed frames (ICRC and IPv4 checksum recomputed here
 * with zlib), can drop a frame (it never arrives, no byte of memory
 * changes) and can modify one (the receiver's ICRC check then drops it);
 * a hook that calls back into the API is refused without harm. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rnic_hw.h"
#include "rnic_sim.h"
#include "rnic_test.h"

enum mode { PASS, DROP_NEXT, CORRUPT_NEXT };
static enum mode hook_mode = PASS;
static uint64_t hooked[2];

/* Cycles the frames on each direction not yet seen arriving are due in. */
#define FIFO 64
static uint64_t due_at[2][FIFO];
static uint64_t last_due[2];
static uint64_t lat;
static unsigned sent_head[2], sent_tail[2];

static unsigned icrc_ok, icrc_bad, ipsum_bad;

/* Hooks run inside the simulation: calling back in is refused, harmlessly. */
static rnic_sim_dev *sim0;
static int reentry_checked;
static uint32_t reentry_read;
static uint64_t reentry_cycles;

static void try_reentry(void) {
    uint64_t c = rnic_sim_cycle();
    reentry_read = rnic_sim_bar_read32(sim0, RNIC_REG_ID);
    rnic_sim_advance(5);
    reentry_cycles = rnic_sim_cycle() - c;
    reentry_checked = 1;
}

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
    uint32_t sum = 0;   /* IPv4 header: the ones' complement sum is 0xFFFF */
    for (int i = 0; i < 20; i += 2)
        sum += (uint32_t)f[14 + i] << 8 | f[15 + i];
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    if (sum != 0xFFFF)
        ipsum_bad++;
}

static int hook(unsigned from, uint8_t *frame, size_t len, void *arg) {
    (void)arg;
    if (from > 1)
        return 0;
    hooked[from]++;
    check_frame(frame, len);
    if (!reentry_checked)
        try_reentry();
    if (from == 0 && hook_mode == DROP_NEXT) {
        hook_mode = PASS;
        return 1;
    }
    if (from == 0 && hook_mode == CORRUPT_NEXT && len > 100) {
        frame[80] ^= 0x01;   /* one payload bit */
        hook_mode = PASS;
    }
    /* Sent now (its last beat left in this cycle), one beat a cycle. */
    const uint64_t beats = (len + RNIC_DATA_BYTES - 1) / RNIC_DATA_BYTES;
    uint64_t due = rnic_sim_cycle() + (lat > beats ? lat - (beats - 1) : 1);
    if (due < last_due[from])
        due = last_due[from];
    last_due[from] = due;
    due_at[from][sent_tail[from]++ % FIFO] = due;
    return 0;
}

static uint64_t latency(void) {
    const char *v = getenv("RNIC_LINK_LATENCY");
    return v && *v ? strtoull(v, NULL, 0) : 100;
}

/* Steps `cycles` cycles one at a time, checking each arrival cycle against
 * the cycle it was due in. Returns the arrivals checked. */
static unsigned watch_arrivals(uint64_t cycles) {
    uint64_t arrived[2] = {rnic_sim_link_frames(0), rnic_sim_link_frames(1)};
    unsigned checked = 0;
    for (uint64_t c = 0; c < cycles; c++) {
        rnic_sim_advance(1);
        for (unsigned d = 0; d < 2; d++) {
            uint64_t now = rnic_sim_link_frames(d);
            CHECK(now - arrived[d] <= 1);   /* one frame's first beat per cycle at most */
            if (now == arrived[d])
                continue;
            arrived[d] = now;
            CHECK(sent_head[d] != sent_tail[d]);
            if (sent_head[d] == sent_tail[d])
                continue;
            uint64_t due = due_at[d][sent_head[d]++ % FIFO];
            CHECK_EQ(rnic_sim_cycle() - 1, due);   /* the cycle it arrived in */
            checked++;
        }
    }
    return checked;
}

int main(void) {
    lat = latency();
    struct pair P;
    pair_open(&P);
    enum { N = 3 * 4096 + 512 };
    uint8_t *a = aligned_alloc(4096, 4 * 4096), *b = aligned_alloc(4096, 4 * 4096);
    fill_pattern(a, N, 5);
    memset(b, 0, N);
    rnic_mr *ma, *mb;
    CHECK_EQ(rnic_mr_reg(P.dev[0], a, 4 * 4096, P.pz[0], ALL_ACCESS, &ma), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P.dev[1], b, 4 * 4096, P.pz[1], ALL_ACCESS, &mb), RNIC_OK);
    CHECK_EQ(rnic_sim_open("rnic0", &sim0), 0);
    rnic_sim_set_link_hook(hook, NULL);

    /* One frame each way (WRITE, ACK), then four back-to-back MTU frames:
     * every arrival exactly in the cycle it is due in. */
    struct rnic_sge s = {(uint64_t)(uintptr_t)a, 64, rnic_mr_key(ma)};
    struct rnic_send_wr w = {.wr_id = 1, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1,
                             .sg = &s, .remote_addr = (uint64_t)(uintptr_t)b, .rkey = rnic_mr_key(mb)};
    struct rnic_wc wc;
    uint64_t f0 = rnic_sim_link_frames(0), f1 = rnic_sim_link_frames(1);
    CHECK_EQ(rnic_post_send(P.qp[0], &w), RNIC_OK);
    CHECK(watch_arrivals(2 * lat + 3000) >= 2);
    CHECK_EQ(rnic_sim_link_frames(0) - f0, 1);
    CHECK(rnic_sim_link_frames(1) - f1 >= 1);
    CHECK_EQ(wait_cq(&P, 0, &wc), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);

    s.len = N;
    f0 = rnic_sim_link_frames(0);
    CHECK_EQ(rnic_post_send(P.qp[0], &w), RNIC_OK);
    CHECK(watch_arrivals(2 * lat + 8000) >= 5);
    CHECK_EQ(sent_head[0], sent_tail[0]);   /* every frame sent has arrived */
    CHECK_EQ(rnic_sim_link_frames(0) - f0, 4);
    CHECK_EQ(wait_cq(&P, 0, &wc), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(memcmp(a, b, N), 0);
    CHECK_EQ(reentry_checked, 1);
    CHECK_EQ(reentry_read, 0xFFFFFFFFu);
    CHECK_EQ(reentry_cycles, 0);
    CHECK(icrc_ok >= 7);
    CHECK_EQ(icrc_bad, 0);
    CHECK_EQ(ipsum_bad, 0);

    /* A dropped frame: the hook saw it, it never arrives, no byte changes. */
    memset(b, 0, N);
    f0 = rnic_sim_link_frames(0);
    uint64_t h0 = hooked[0];
    hook_mode = DROP_NEXT;
    s.len = 256;
    CHECK_EQ(rnic_post_send(P.qp[0], &w), RNIC_OK);
    rnic_sim_advance(lat + 2000);
    CHECK_EQ(hook_mode, PASS);
    CHECK_EQ(hooked[0] - h0, 1);
    CHECK_EQ(rnic_sim_link_frames(0), f0);
    for (int i = 0; i < N; i++)
        if (b[i] != 0) {
            CHECK(!"memory changed by a dropped frame");
            break;
        }
    rnic_qp_destroy(P.qp[0]);
    rnic_qp_destroy(P.qp[1]);
    pair_reconnect(&P);

    /* A corrupted frame arrives, fails the receiver's ICRC check, is dropped
     * and counted; memory untouched. */
    uint32_t drops = rnic_sim_bar_read32(NULL, 0);   /* refused: a null device reads as all ones */
    CHECK_EQ(drops, 0xFFFFFFFFu);
    drops = rnic_reg_read(P.dev[1], RNIC_REG_RX_DROPS);
    f0 = rnic_sim_link_frames(0);
    hook_mode = CORRUPT_NEXT;
    s.len = 512;
    CHECK_EQ(rnic_post_send(P.qp[0], &w), RNIC_OK);
    rnic_sim_advance(lat + 2000);
    CHECK_EQ(hook_mode, PASS);
    CHECK_EQ(rnic_sim_link_frames(0) - f0, 1);
    CHECK_EQ(rnic_reg_read(P.dev[1], RNIC_REG_RX_DROPS), drops + 1);
    CHECK(rnic_reg_read(P.dev[1], RNIC_REG_STATUS) & RNIC_STATUS_RX_DROP_MASK);
    for (int i = 0; i < N; i++)
        if (b[i] != 0) {
            CHECK(!"memory changed by a corrupted frame");
            break;
        }

    rnic_sim_set_link_hook(NULL, NULL);
    free(a);
    free(b);
    return rnic_test_finish("test_link");
}
