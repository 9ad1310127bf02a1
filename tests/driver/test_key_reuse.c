/*
 * How long a freed key stays unique (docs/driver.md, "Keys"). The table
 * index of a deregistered region or freed window goes to the back of the
 * free list, so it is handed out again only after every index free at that
 * moment; each time it is, its 8-bit key moves on by one. With H entries held
 * and one registered and freed over and over (regions and windows mixed),
 * every index comes back exactly F = pt_entries - 1 - H allocations later,
 * with the next key, so a key comes back after 256 * F registrations and no
 * sooner. Then the key of the first registration, long stale, is refused by
 * the NIC and leaves the memory registered last untouched.
 */
#include <stdlib.h>
#include <string.h>

#include "rnic_test.h"

#define HELD 3
#define LEN 4096u

int main(void) {
    struct pair P;
    pair_open(&P);
    rnic_dev *d = P.dev[1];
    struct rnic_dev_info info;
    CHECK_EQ(rnic_query(d, &info), RNIC_OK);
    const uint32_t entries = info.pt_entries;

    uint8_t *held_buf = aligned_alloc(4096, HELD * LEN), *buf = aligned_alloc(4096, LEN);
    uint8_t *src = aligned_alloc(4096, LEN);
    rnic_mr *held[HELD];
    for (int i = 0; i < HELD; i++)
        CHECK_EQ(rnic_mr_reg(d, held_buf + i * LEN, LEN, P.pz[1], ALL_ACCESS, &held[i]), RNIC_OK);

    /* Which allocation last had each index, and the key it got. */
    uint32_t *last_at = calloc(entries, sizeof(*last_at));
    uint8_t *last_key = calloc(entries, 1);
    const uint32_t free_entries = entries - 1u - HELD;
    const uint32_t rounds = 2u * entries + 10u;
    uint32_t first_key = 0, bad_index = 0, bad_distance = 0, bad_key = 0, reused = 0;
    rnic_mr *mr = NULL;
    for (uint32_t n = 1; n <= rounds; n++) {
        uint32_t key;
        rnic_mw *mw = NULL;
        mr = NULL;
        if (n % 3 == 0 && n != rounds) {
            CHECK_EQ(rnic_mw_alloc(d, P.pz[1], &mw), RNIC_OK);
            key = rnic_mw_key(mw);
        } else {
            CHECK_EQ(rnic_mr_reg(d, buf, LEN, P.pz[1], ALL_ACCESS, &mr), RNIC_OK);
            key = rnic_mr_key(mr);
        }
        if (n == 1)
            first_key = key;
        const uint32_t idx = key >> 8;
        if (idx == 0 || idx >= entries) {
            bad_index++;
        } else if (last_at[idx] != 0) {
            reused++;
            if (n - last_at[idx] != free_entries)
                bad_distance++;
            if ((uint8_t)key != (uint8_t)(last_key[idx] + 1u))
                bad_key++;
        }
        if (idx < entries) {
            last_at[idx] = n;
            last_key[idx] = (uint8_t)key;
        }
        if (mw)
            CHECK_EQ(rnic_mw_free(mw), RNIC_OK);
        else if (n != rounds)
            CHECK_EQ(rnic_mr_dereg(mr), RNIC_OK);
    }
    CHECK(mr != NULL);   /* the last registration is a region, and stays */
    CHECK_EQ(bad_index, 0);
    CHECK_EQ(bad_distance, 0);
    CHECK_EQ(bad_key, 0);
    CHECK(reused >= rounds - free_entries - 1u);
    printf("table of %u entries, %d held: an index comes back every %u allocations, a key after %u\n", entries,
           HELD, free_entries, 256u * free_entries);

    /* The first key, stale for 2 * entries registrations: refused, and the
     * memory registered last is not written. */
    memset(buf, 0x5A, LEN);
    fill_pattern(src, LEN, 11);
    rnic_mr *lmr;
    CHECK_EQ(rnic_mr_reg(P.dev[0], src, LEN, P.pz[0], ALL_ACCESS, &lmr), RNIC_OK);
    struct rnic_sge s = {(uint64_t)(uintptr_t)src, 256, rnic_mr_key(lmr)};
    struct rnic_send_wr w = {.wr_id = 1, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1,
                             .sg = &s, .remote_addr = (uint64_t)(uintptr_t)buf, .rkey = first_key};
    struct rnic_wc wc;
    CHECK_EQ(post_and_wait(&P, 0, &w, &wc), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_REMOTE_ACCESS);
    int landed = 0;
    for (size_t i = 0; i < LEN; i++)
        landed += buf[i] != 0x5A;
    CHECK_EQ(landed, 0);

    rnic_mr_dereg(lmr);
    rnic_mr_dereg(mr);
    for (int i = 0; i < HELD; i++)
        rnic_mr_dereg(held[i]);
    pair_close(&P);
    free(last_at);
    free(last_key);
    free(held_buf);
    free(buf);
    free(src);
    return rnic_test_finish("test_key_reuse");
}
