/* The demo: two simulated RNICs, one connection, data moved by SEND, RDMA
 * WRITE and RDMA READ, every byte checked, and a cycle-level summary.
 * Set RNIC_TRACE=file.fst to record a waveform (under RNIC_WAVE_DIR, else
 * the working directory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/rnic_drv.h"
#include "rnic_hw.h"

#define SIZE (256u * 1024u)
#define BUDGET 10000000u

/* Never returns: main's setup chains rely on that (a handle an earlier
 * call failed to make is never read). */
static _Noreturn void die(const char *what, int rc) {
    fprintf(stderr, "rnic_demo: %s: %s\n", what, rnic_strerror(rc));
    exit(1);
}

static void fill(uint8_t *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 31u + seed);
}

/* Posts one work request, waits for its completion, returns the cycles it took. */
static uint64_t run_op(rnic_dev *dev, rnic_qp *qp, rnic_cq *cq, const struct rnic_send_wr *wr) {
    uint64_t t0 = rnic_cycles(dev);
    int rc = rnic_post_send(qp, wr);
    if (rc)
        die("post", rc);
    struct rnic_wc wc;
    rc = rnic_cq_wait(cq, &wc, BUDGET);
    if (rc != 1)
        die("completion", rc);
    if (wc.status != RNIC_CQE_STATUS_SUCCESS || wc.wr_id != wr->wr_id) {
        fprintf(stderr, "rnic_demo: completion status %u wr_id %llu\n", wc.status, (unsigned long long)wc.wr_id);
        exit(1);
    }
    return rnic_cycles(dev) - t0;
}

int main(void) {
    rnic_dev *a, *b;
    int rc;
    if ((rc = rnic_open("rnic0", &a)) || (rc = rnic_open("rnic1", &b)))
        die("open", rc);
    uint16_t pza, pzb;
    rnic_cq *cqa, *cqb;
    if ((rc = rnic_pz_alloc(a, &pza)) || (rc = rnic_pz_alloc(b, &pzb)) || (rc = rnic_cq_create(a, 64, &cqa)) ||
        (rc = rnic_cq_create(b, 64, &cqb)))
        die("setup", rc);
    const uint32_t all = RNIC_ACCESS_LOCAL_READ | RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_READ |
                         RNIC_ACCESS_REMOTE_WRITE;
    struct rnic_qp_attr qa = {16, 16, cqa, cqa, pza, 1, RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE, NULL};
    struct rnic_qp_attr qb = {16, 16, cqb, cqb, pzb, 1, RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE, NULL};
    rnic_qp *qpa, *qpb;
    if ((rc = rnic_qp_create(a, &qa, &qpa)) || (rc = rnic_qp_create(b, &qb, &qpb)) ||
        (rc = rnic_qp_connect_local(qpa, qpb)))
        die("connect", rc);

    uint8_t *src = aligned_alloc(4096, SIZE), *dst = aligned_alloc(4096, SIZE), *back = aligned_alloc(4096, SIZE);
    if (!src || !dst || !back)
        die("alloc", RNIC_E_NOMEM);
    fill(src, SIZE, 7);
    memset(dst, 0, SIZE);
    memset(back, 0, SIZE);
    rnic_mr *msrc, *mdst, *mback;
    if ((rc = rnic_mr_reg(a, src, SIZE, pza, all, &msrc)) || (rc = rnic_mr_reg(b, dst, SIZE, pzb, all, &mdst)) ||
        (rc = rnic_mr_reg(a, back, SIZE, pza, all, &mback)))
        die("register", rc);

    /* SEND 4 KiB into a posted receive. */
    struct rnic_sge rsg = {(uint64_t)(uintptr_t)dst, 4096, rnic_mr_key(mdst)};
    if ((rc = rnic_post_recv(qpb, 11, &rsg, 1)))
        die("post_recv", rc);
    struct rnic_sge ssg = {(uint64_t)(uintptr_t)src, 4096, rnic_mr_key(msrc)};
    struct rnic_send_wr send = {.wr_id = 1, .opcode = RNIC_OP_SEND, .flags = RNIC_WQE_FLAG_SIGNALED,
                                .num_sge = 1, .sg = &ssg};
    uint64_t c_send = run_op(a, qpa, cqa, &send);
    struct rnic_wc rwc;
    if (rnic_cq_wait(cqb, &rwc, BUDGET) != 1 || rwc.status || rwc.byte_len != 4096 || memcmp(dst, src, 4096))
        die("send data", RNIC_E_HW);

    /* RDMA WRITE the whole buffer into the peer. */
    struct rnic_sge wsg = {(uint64_t)(uintptr_t)src, SIZE, rnic_mr_key(msrc)};
    struct rnic_send_wr wr = {.wr_id = 2, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED,
                              .num_sge = 1, .sg = &wsg, .remote_addr = (uint64_t)(uintptr_t)dst,
                              .rkey = rnic_mr_key(mdst)};
    uint64_t c_write = run_op(a, qpa, cqa, &wr);
    if (memcmp(dst, src, SIZE))
        die("write data", RNIC_E_HW);

    /* RDMA READ it back into a third buffer. */
    struct rnic_sge bsg = {(uint64_t)(uintptr_t)back, SIZE, rnic_mr_key(mback)};
    struct rnic_send_wr rd = {.wr_id = 3, .opcode = RNIC_OP_RDMA_READ, .flags = RNIC_WQE_FLAG_SIGNALED,
                              .num_sge = 1, .sg = &bsg, .remote_addr = (uint64_t)(uintptr_t)dst,
                              .rkey = rnic_mr_key(mdst)};
    uint64_t c_read = run_op(a, qpa, cqa, &rd);
    if (memcmp(back, src, SIZE))
        die("read data", RNIC_E_HW);

    struct rnic_dev_info info;
    rnic_query(a, &info);
    printf("rnic_demo: SEND, RDMA WRITE and RDMA READ between rnic0 and rnic1: every byte checked\n");
    printf("%-12s %10s %10s %14s\n", "operation", "bytes", "cycles", "bytes/cycle");
    printf("%-12s %10u %10llu %14.2f\n", "SEND", 4096u, (unsigned long long)c_send, 4096.0 / (double)c_send);
    printf("%-12s %10u %10llu %14.2f\n", "RDMA WRITE", SIZE, (unsigned long long)c_write, (double)SIZE / (double)c_write);
    printf("%-12s %10u %10llu %14.2f\n", "RDMA READ", SIZE, (unsigned long long)c_read, (double)SIZE / (double)c_read);
    printf("datapath width: %u bytes/cycle; cycles include posting (BAR writes) and polling\n", info.data_bytes);
    const char *name = getenv("RNIC_TRACE");
    if (name && *name) {
        const char *dir = getenv("RNIC_WAVE_DIR");
        const int under = name[0] != '/' && dir && *dir;
        printf("waveform: %s%s%s (open with the view waveforms/demo.gtkw)\n", under ? dir : "", under ? "/" : "",
               name);
    }

    rnic_mr_dereg(msrc);
    rnic_mr_dereg(mdst);
    rnic_mr_dereg(mback);
    rnic_qp_destroy(qpa);
    rnic_qp_destroy(qpb);
    rnic_cq_destroy(cqa);
    rnic_cq_destroy(cqb);
    rnic_close(a);
    rnic_close(b);
    free(src);
    free(dst);
    free(back);
    return 0;
}
