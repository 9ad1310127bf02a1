/*
 * The cost of the DTO path in libdat and the driver: one
 * dat_ep_post_rdma_write and one dat_evd_dequeue of its completion.
 *
 * Run under callgrind by bench_post_cost.sh, which collects instructions
 * only inside those two calls and leaves out the simulated platform
 * (rnic_sim_*: the BAR doorbell write and the CQ doorbell). Between the
 * measured calls the fabric is advanced directly (rnic_sim_advance), so the
 * completion is waiting in the hardware CQ when dat_evd_dequeue runs: the
 * measured dequeue includes polling the CQ and building the event.
 *
 *   bench_post_cost N     N rounds (default 1000); exits 1 on any failure
 */
#include <dat/udat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_sim.h"

#define MUST(call)                                                                      \
    do {                                                                                \
        DAT_RETURN r_ = (call);                                                         \
        if (r_ != DAT_SUCCESS) {                                                        \
            fprintf(stderr, "%s failed: 0x%x\n", #call, (unsigned)r_);                  \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

struct side {
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async, dto, conn, cr;
    DAT_PZ_HANDLE pz;
    DAT_EP_HANDLE ep;
    DAT_LMR_HANDLE lmr;
    DAT_LMR_CONTEXT lctx;
    DAT_RMR_CONTEXT rctx;
    char *buf;
};

static void open_side(struct side *s, char *name)
{
    s->async = DAT_HANDLE_NULL;
    MUST(dat_ia_open(name, 8, &s->async, &s->ia));
    MUST(dat_pz_create(s->ia, &s->pz));
    MUST(dat_evd_create(s->ia, 64, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &s->dto));
    MUST(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &s->conn));
    MUST(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &s->cr));
    MUST(dat_ep_create(s->ia, s->pz, s->dto, s->dto, s->conn, NULL, &s->ep));
    s->buf = aligned_alloc(4096, 8192);
    memset(s->buf, 1, 8192);
    DAT_REGION_DESCRIPTION r = { .for_va = s->buf };
    MUST(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, r, 8192, s->pz, DAT_MEM_PRIV_ALL_FLAG, &s->lmr, &s->lctx,
                        &s->rctx, NULL, NULL));
}

static DAT_EVENT wait_one(DAT_EVD_HANDLE evd)
{
    DAT_EVENT ev;
    DAT_COUNT more;
    MUST(dat_evd_wait(evd, 100000, 1, &ev, &more));
    return ev;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 1000;
    struct side a, b;
    char n0[] = "rnic0", n1[] = "rnic1";
    open_side(&a, n0);
    open_side(&b, n1);
    DAT_PSP_HANDLE psp;
    DAT_CONN_QUAL q;
    MUST(dat_psp_create_any(b.ia, &q, b.cr, DAT_PSP_CONSUMER_FLAG, &psp));
    DAT_IA_ATTR attr;
    MUST(dat_ia_query(b.ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &attr, 0, NULL));
    MUST(dat_ep_connect(a.ep, attr.ia_address_ptr, q, 100000, 0, NULL, DAT_QOS_BEST_EFFORT, 0));
    DAT_EVENT ev = wait_one(b.cr);
    MUST(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, b.ep, 0, NULL));
    if (wait_one(a.conn).event_number != DAT_CONNECTION_EVENT_ESTABLISHED ||
        wait_one(b.conn).event_number != DAT_CONNECTION_EVENT_ESTABLISHED) {
        fprintf(stderr, "not connected\n");
        return 1;
    }
    DAT_LMR_TRIPLET iov = { a.lctx, 0, (DAT_VADDR)(uintptr_t)a.buf, 64 };
    DAT_RMR_TRIPLET dst = { b.rctx, 0, (DAT_VADDR)(uintptr_t)b.buf, 64 };
    for (int i = 0; i < rounds; i++) {
        DAT_DTO_COOKIE c = { .as_64 = (DAT_UINT64)i };
        MUST(dat_ep_post_rdma_write(a.ep, 1, &iov, c, &dst, DAT_COMPLETION_DEFAULT_FLAG));
        rnic_sim_advance(2000);   /* the WRITE completes: a CQE in the CQ */
        DAT_RETURN r = dat_evd_dequeue(a.dto, &ev);
        if (r != DAT_SUCCESS || ev.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS ||
            ev.event_data.dto_completion_event_data.user_cookie.as_64 != (DAT_UINT64)i) {
            fprintf(stderr, "round %d: dequeue 0x%x\n", i, (unsigned)r);
            return 1;
        }
    }
    MUST(dat_ia_close(a.ia, DAT_CLOSE_ABRUPT_FLAG));
    MUST(dat_ia_close(b.ia, DAT_CLOSE_ABRUPT_FLAG));
    printf("bench_post_cost: %d rounds ok\n", rounds);
    return 0;
}
