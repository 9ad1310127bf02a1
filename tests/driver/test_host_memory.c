/* Memory the process does not have, at the driver (docs/driver.md,
 * "Registration"): rnic_mr_reg refuses an unmapped range and a length past
 * the mapping (RNIC_E_RANGE) and read-only pages with a right that lets the
 * NIC write (RNIC_E_ACCESS); memory unmapped after registration is the
 * platform's to refuse at DMA time: the peer's RDMA WRITE and READ complete
 * with REMOTE_ACCESS, the responder reports a fault at that address and
 * STATUS.DMA_FAULT, and no other byte changes. Run on both hosts. */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rnic_sim.h"
#include "rnic_test.h"

#define PAGE 4096u
#define READ_ONLY_ACCESS (RNIC_ACCESS_LOCAL_READ | RNIC_ACCESS_REMOTE_READ)

static uint8_t *pages(size_t n) {
    void *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    return p;
}

static bool all_are(const uint8_t *p, size_t n, uint8_t v) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return false;
    return true;
}

static void registration(struct pair *P) {
    rnic_dev *d = P->dev[1];
    uint16_t pz = P->pz[1];
    rnic_mr *mr = NULL;
    uint8_t *p = pages(4);
    CHECK_EQ(munmap(p + PAGE, PAGE), 0);
    CHECK_EQ(mprotect(p + 2 * PAGE, PAGE, PROT_READ), 0);
    CHECK_EQ(mprotect(p + 3 * PAGE, PAGE, PROT_NONE), 0);
    CHECK_EQ(rnic_mr_reg(d, p + PAGE, PAGE, pz, RNIC_ACCESS_LOCAL_READ, &mr), RNIC_E_RANGE);
    CHECK_EQ(rnic_mr_reg(d, p, 2 * PAGE, pz, ALL_ACCESS, &mr), RNIC_E_RANGE);          /* a hole */
    CHECK_EQ(rnic_mr_reg(d, p, PAGE + 1, pz, RNIC_ACCESS_LOCAL_READ, &mr), RNIC_E_RANGE);
    CHECK_EQ(rnic_mr_reg(d, p, (uint64_t)1 << 40, pz, RNIC_ACCESS_LOCAL_READ, &mr), RNIC_E_RANGE);
    CHECK_EQ(rnic_mr_reg(d, p + 3 * PAGE, 8, pz, RNIC_ACCESS_LOCAL_READ, &mr), RNIC_E_RANGE);   /* PROT_NONE */
    CHECK_EQ(rnic_mr_reg(d, p + 2 * PAGE, PAGE, pz, RNIC_ACCESS_LOCAL_READ | RNIC_ACCESS_LOCAL_WRITE, &mr),
             RNIC_E_ACCESS);
    CHECK_EQ(rnic_mr_reg(d, p + 2 * PAGE, PAGE, pz, RNIC_ACCESS_LOCAL_READ | RNIC_ACCESS_REMOTE_WRITE, &mr),
             RNIC_E_ACCESS);
    /* Read-only and PROT_NONE together: what is not there counts first. */
    CHECK_EQ(rnic_mr_reg(d, p + 2 * PAGE, 2 * PAGE, pz, ALL_ACCESS, &mr), RNIC_E_RANGE);
    CHECK(mr == NULL);
    CHECK_EQ(rnic_mr_reg(d, p + 2 * PAGE, PAGE, pz, READ_ONLY_ACCESS, &mr), RNIC_OK);
    CHECK_EQ(rnic_mr_dereg(mr), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(d, p, PAGE, pz, ALL_ACCESS, &mr), RNIC_OK);
    CHECK_EQ(rnic_mr_dereg(mr), RNIC_OK);
    CHECK(strcmp(rnic_strerror(RNIC_E_ACCESS), "unknown error") != 0);
    munmap(p, PAGE);
    munmap(p + 2 * PAGE, 2 * PAGE);
}

/* rnic1's target, between two registered neighbours, is unmapped after
 * registration; rnic0 writes or reads it. */
static void unmapped_after(struct pair *P, rnic_sim_dev *s1, bool write) {
    uint8_t *mem = pages(6), *target = mem + 2 * PAGE;
    memset(mem, 0x11, 6 * PAGE);
    uint8_t *local = aligned_alloc(PAGE, 2 * PAGE);
    memset(local, write ? 0x33 : 0x44, 2 * PAGE);
    rnic_mr *ml, *mt, *mn;
    CHECK_EQ(rnic_mr_reg(P->dev[0], local, 2 * PAGE, P->pz[0], ALL_ACCESS, &ml), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P->dev[1], target, 2 * PAGE, P->pz[1], ALL_ACCESS, &mt), RNIC_OK);
    CHECK_EQ(rnic_mr_reg(P->dev[1], mem, 6 * PAGE, P->pz[1], ALL_ACCESS, &mn), RNIC_OK);
    CHECK_EQ(munmap(target, 2 * PAGE), 0);
    (void)rnic_dev_status(P->dev[1], NULL, true);

    const uint64_t f1 = rnic_sim_fault_count(s1);
    struct rnic_sge s = {(uint64_t)(uintptr_t)local, 6000, rnic_mr_key(ml)};
    struct rnic_send_wr w = {.wr_id = 1, .opcode = write ? RNIC_OP_RDMA_WRITE : RNIC_OP_RDMA_READ,
                             .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1, .sg = &s,
                             .remote_addr = (uint64_t)(uintptr_t)(target + 100), .rkey = rnic_mr_key(mt)};
    struct rnic_wc wc;
    CHECK_EQ(post_and_wait(P, 0, &w, &wc), 1);
    CHECK_EQ(wc.status, RNIC_CQE_STATUS_REMOTE_ACCESS);
    CHECK(rnic_sim_fault_count(s1) > f1);
    struct rnic_sim_fault f;
    CHECK_EQ(rnic_sim_last_fault(s1, &f), 0);
    CHECK(f.addr >= (uint64_t)(uintptr_t)target && f.addr < (uint64_t)(uintptr_t)(target + 2 * PAGE));
    CHECK_EQ(f.is_write, write ? 1 : 0);
    CHECK(rnic_dev_status(P->dev[1], NULL, true) & RNIC_STATUS_DMA_FAULT_MASK);
    CHECK(all_are(mem, 2 * PAGE, 0x11) && all_are(mem + 4 * PAGE, 2 * PAGE, 0x11));
    CHECK(all_are(local, 2 * PAGE, write ? 0x33 : 0x44));

    CHECK_EQ(rnic_mr_dereg(mt), RNIC_OK);
    CHECK_EQ(rnic_mr_dereg(mn), RNIC_OK);
    CHECK_EQ(rnic_mr_dereg(ml), RNIC_OK);
    munmap(mem, 2 * PAGE);
    munmap(mem + 4 * PAGE, 2 * PAGE);
    free(local);
    rnic_qp_destroy(P->qp[0]);
    rnic_qp_destroy(P->qp[1]);
    pair_reconnect(P);
}

int main(void) {
    struct pair P;
    pair_open(&P);
    rnic_sim_dev *s1;
    CHECK_EQ(rnic_sim_open("rnic1", &s1), 0);
    registration(&P);
    unmapped_after(&P, s1, true);
    unmapped_after(&P, s1, false);
    pair_close(&P);
    return rnic_test_finish("test_host_memory");
}
