/* The driver's host-coherency calls on the simulated platform: the mode
 * (RNIC_HOST_COHERENCY at the first open, then rnic_set_host_coherency)
 * and its refusals; on a non-coherent host an RDMA WRITE and an RDMA READ
 * whose data cross only with the syncs, while rings and CQs need none; the
 * platform's reports of missing syncs; bad input; and a backend without
 * the coherency ops (a coherent host, as vfio on x86). */
#include <stdlib.h>
#include <string.h>

#include "rnic/rnic_hal.h"
#include "rnic_test.h"

/* device.c: opens a device behind any HAL. */
int rnic_open_hal(const struct rnic_hal *hal, rnic_dev **out);

#define N 4096u

static struct pair P;
static uint8_t *mem[2];
static rnic_mr *mr[2];

static bool equal_pattern(const uint8_t *p, size_t n, unsigned seed) {
    uint8_t *want = malloc(n);
    fill_pattern(want, n, seed);
    bool same = memcmp(p, want, n) == 0;
    free(want);
    return same;
}

static bool all(const uint8_t *p, size_t n, uint8_t v) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return false;
    return true;
}

static bool next_report(rnic_dev *d, int kind, const void *addr, uint64_t len) {
    struct rnic_sync_report r;
    return rnic_sync_report(d, &r) == 1 && r.kind == kind && r.addr == (uint64_t)(uintptr_t)addr && r.len == len;
}

static int rdma(int op, size_t local_off, size_t remote_off, size_t n) {
    struct rnic_sge sg = {(uint64_t)(uintptr_t)(mem[0] + local_off), (uint32_t)n, rnic_mr_key(mr[0])};
    struct rnic_send_wr wr = {.wr_id = 1, .opcode = (uint8_t)op, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1,
                              .sg = &sg, .remote_addr = (uint64_t)(uintptr_t)(mem[1] + remote_off),
                              .rkey = rnic_mr_key(mr[1])};
    struct rnic_wc wc;
    int rc = post_and_wait(&P, 0, &wr, &wc);
    return rc == 1 ? wc.status : -1;
}

static void modes(void) {
    const char *env = getenv("RNIC_HOST_COHERENCY");
    const bool nc = env && strcmp(env, "noncoherent") == 0;
    for (int s = 0; s < 2; s++)
        CHECK_EQ(rnic_host_coherency(P.dev[s]), nc ? RNIC_HOST_NONCOHERENT : RNIC_HOST_COHERENT);
    CHECK_EQ(rnic_set_host_coherency(P.dev[0], 5), RNIC_E_INVAL);
    CHECK_EQ(rnic_set_host_coherency(NULL, RNIC_HOST_COHERENT), RNIC_E_INVAL);
    CHECK_EQ(rnic_host_coherency(NULL), RNIC_E_INVAL);
    /* Rings and CQs exist already; they are coherent memory and do not hold it back. */
    for (int s = 0; s < 2; s++) {
        CHECK_EQ(rnic_set_host_coherency(P.dev[s], RNIC_HOST_NONCOHERENT), RNIC_OK);
        CHECK_EQ(rnic_host_coherency(P.dev[s]), RNIC_HOST_NONCOHERENT);
    }
}

static void write_and_read(void) {
    for (int s = 0; s < 2; s++) {
        mem[s] = aligned_alloc(4096, 4 * N);
        memset(mem[s], 0xEE, 4 * N);
    }
    fill_pattern(mem[0], N, 1);   /* before registering: the NIC's view starts with it */
    for (int s = 0; s < 2; s++)
        CHECK_EQ(rnic_mr_reg(P.dev[s], mem[s], 4 * N, P.pz[s], ALL_ACCESS, &mr[s]), RNIC_OK);
    CHECK_EQ(rnic_set_host_coherency(P.dev[1], RNIC_HOST_COHERENT), RNIC_E_BUSY);

    /* An incoming WRITE: the CQE arrives (coherent CQ), the data only after a sync for the CPU. */
    CHECK_EQ(rdma(RNIC_OP_RDMA_WRITE, 0, 0, N), RNIC_CQE_STATUS_SUCCESS);
    CHECK(all(mem[1], N, 0xEE));
    CHECK_EQ(rnic_dma_sync(P.dev[1], mem[1], N / 2, RNIC_SYNC_FOR_CPU), RNIC_OK);
    CHECK(equal_pattern(mem[1], N / 2, 1) && all(mem[1] + N / 2, N / 2, 0xEE));
    CHECK_EQ(rnic_dma_sync(P.dev[1], mem[1] + N / 2, N / 2, RNIC_SYNC_FOR_CPU), RNIC_OK);
    CHECK(equal_pattern(mem[1], N, 1));

    /* A source the CPU changed (every byte) without a flush: the NIC sends
     * the old data, and the platform says so. */
    uint8_t *old = malloc(N);
    memcpy(old, mem[0], N);
    for (size_t i = 0; i < N; i++)
        mem[0][i] ^= 0xFF;
    CHECK_EQ(rdma(RNIC_OP_RDMA_WRITE, 0, N, N), RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(rnic_dma_sync(P.dev[1], mem[1] + N, N, RNIC_SYNC_FOR_CPU), RNIC_OK);
    CHECK(memcmp(mem[1] + N, old, N) == 0);
    CHECK(next_report(P.dev[0], RNIC_SYNC_STALE_READ, mem[0], N));
    CHECK_EQ(rnic_dma_sync(P.dev[0], mem[0], N, RNIC_SYNC_FOR_DEVICE), RNIC_OK);
    CHECK_EQ(rdma(RNIC_OP_RDMA_WRITE, 0, N, N), RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(rnic_dma_sync(P.dev[1], mem[1] + N, N, RNIC_SYNC_FOR_CPU), RNIC_OK);
    CHECK(memcmp(mem[1] + N, mem[0], N) == 0);
    free(old);

    /* An RDMA READ of memory the responder's CPU changed: old data until it flushes. */
    memset(mem[1] + 2 * N, 0x5A, N);
    CHECK_EQ(rdma(RNIC_OP_RDMA_READ, 2 * N, 2 * N, N), RNIC_CQE_STATUS_SUCCESS);
    CHECK(all(mem[0] + 2 * N, N, 0xEE));   /* the requester has not synced either */
    CHECK_EQ(rnic_dma_sync(P.dev[0], mem[0] + 2 * N, N, RNIC_SYNC_FOR_CPU), RNIC_OK);
    CHECK(all(mem[0] + 2 * N, N, 0xEE));   /* what the NIC read: the memory as registered */
    CHECK(next_report(P.dev[1], RNIC_SYNC_STALE_READ, mem[1] + 2 * N, N));
    CHECK_EQ(rnic_dma_sync(P.dev[1], mem[1] + 2 * N, N, RNIC_SYNC_FOR_DEVICE), RNIC_OK);
    CHECK_EQ(rdma(RNIC_OP_RDMA_READ, 2 * N, 2 * N, N), RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(rnic_dma_sync(P.dev[0], mem[0] + 2 * N, N, RNIC_SYNC_FOR_CPU), RNIC_OK);
    CHECK(all(mem[0] + 2 * N, N, 0x5A));

    /* A WRITE nobody syncs: reported when the region goes, and not lost. */
    CHECK_EQ(rdma(RNIC_OP_RDMA_WRITE, 0, 3 * N, 100), RNIC_CQE_STATUS_SUCCESS);
    struct rnic_sync_report r;
    CHECK_EQ(rnic_sync_report(P.dev[1], &r), 0);
    CHECK_EQ(rnic_mr_dereg(mr[1]), RNIC_OK);
    CHECK(next_report(P.dev[1], RNIC_SYNC_UNSEEN_AT_UNMAP, mem[1] + 3 * N, 100));
    CHECK(memcmp(mem[1] + 3 * N, mem[0], 100) == 0);
    CHECK_EQ(rnic_mr_dereg(mr[0]), RNIC_OK);
    CHECK_EQ(rnic_sync_report(P.dev[0], &r), 0);
    CHECK_EQ(rnic_sync_report(P.dev[0], NULL), RNIC_E_INVAL);
}

static void bad_syncs(void) {
    CHECK_EQ(rnic_dma_sync(P.dev[0], mem[0], 16, 9), RNIC_E_INVAL);
    CHECK_EQ(rnic_dma_sync(NULL, mem[0], 16, RNIC_SYNC_FOR_CPU), RNIC_E_INVAL);
    CHECK_EQ(rnic_dma_sync(P.dev[0], (void *)(uintptr_t)(UINTPTR_MAX - 7), 16, RNIC_SYNC_FOR_CPU), RNIC_E_RANGE);
    CHECK_EQ(rnic_dma_sync(P.dev[0], NULL, 0, RNIC_SYNC_FOR_DEVICE), RNIC_OK);
    /* Memory that is not registered is coherent: nothing to do. */
    CHECK_EQ(rnic_dma_sync(P.dev[0], mem[0], 64, RNIC_SYNC_FOR_CPU), RNIC_OK);
}

/* A backend without the coherency ops is a coherent host. Last: opening a
 * device resets the NIC. */
static void coherent_backend(void) {
    struct rnic_hal sim;
    CHECK_EQ(rnic_hal_open_sim("rnic0", NULL, &sim), RNIC_OK);
    struct rnic_hal_ops plain = *sim.ops;
    plain.dma_map_coherent = NULL;
    plain.coherency = NULL;
    plain.set_coherency = NULL;
    plain.dma_sync = NULL;
    plain.sync_report = NULL;
    struct rnic_hal h = {&plain, sim.ctx};
    rnic_dev *d = NULL;
    CHECK_EQ(rnic_open_hal(&h, &d), RNIC_OK);
    if (!d)
        return;
    CHECK_EQ(rnic_host_coherency(d), RNIC_HOST_COHERENT);
    CHECK_EQ(rnic_set_host_coherency(d, RNIC_HOST_NONCOHERENT), RNIC_E_INVAL);
    CHECK_EQ(rnic_set_host_coherency(d, RNIC_HOST_COHERENT), RNIC_OK);
    CHECK_EQ(rnic_set_host_coherency(d, RNIC_HOST_DEFAULT), RNIC_OK);
    CHECK_EQ(rnic_dma_sync(d, mem[0], 64, RNIC_SYNC_FOR_CPU), RNIC_OK);
    struct rnic_sync_report r;
    CHECK_EQ(rnic_sync_report(d, &r), 0);
    rnic_cq *cq = NULL;   /* rings mapped with dma_map when there is no dma_map_coherent */
    CHECK_EQ(rnic_cq_create(d, 16, &cq), RNIC_OK);
    CHECK_EQ(rnic_cq_destroy(cq), RNIC_OK);
    rnic_close(d);
}

int main(void) {
    pair_open(&P);
    modes();
    write_and_read();
    bad_syncs();
    pair_close(&P);
    coherent_backend();
    free(mem[0]);
    free(mem[1]);
    return rnic_test_finish("test_coherency");
}
