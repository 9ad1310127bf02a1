/*
 * The DAT objects of the fault campaign, made as a consumer makes them.
 *
 * Side 0 is an IA on rnic0, side 1 an IA on rnic1: the two NICs of a pair,
 * in this process. Each side has one PZ, one DTO EVD that every EP of the
 * side uses for requests, receives and binds, one connection EVD, one
 * buffer registered as one LMR (FC_SLOT bytes per pair and slot: a
 * transfer owns its slot on both sides) and an RMR per slot. Side 1 listens
 * on a PSP; side 0 connects each EP pair to it, the pair's index as
 * private data, so the accept goes to the right EP whatever the order.
 */
#define _POSIX_C_SOURCE 200809L
#include "fc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_sim.h"

struct fc_side fc_side[2];
struct fc_pair fc_pair[FC_PAIRS_MAX];

static DAT_PSP_HANDLE psp;
static DAT_CONN_QUAL psp_qual;

/* NIC time a connection may take (dat_ep_connect's timeout). */
#define FC_CONNECT_US 200000u

const char *fc_ret_str(DAT_RETURN r)
{
    static char b[160];
    const char *ma = "?", *mi = "?";
    dat_strerror(r, &ma, &mi);
    snprintf(b, sizeof(b), "%s/%s (0x%08x)", ma, mi, (unsigned)r);
    return b;
}

void fc_must(DAT_RETURN r, const char *what, const char *file, int line)
{
    if (r == DAT_SUCCESS)
        return;
    fflush(stdout);
    fprintf(stderr, "fault_campaign: %s:%d: %s -> %s\n", file, line, what, fc_ret_str(r));
    fprintf(stderr, "fault_campaign: the campaign cannot go on (seed %" PRIu64 ")\n", fc_opt.seed);
    fc_st.t_end_cycle = rnic_sim_cycle();
    fc_report_figures();
    printf("fault_campaign: FAIL (setup: %s)\n", what);
    fflush(stdout);
    _Exit(2);
}

uint8_t *fc_slot(int side, int pair, int slot)
{
    return fc_side[side].buf + ((size_t)pair * (size_t)fc_opt.depth + (size_t)slot) * FC_SLOT;
}

static void side_open(struct fc_side *s, int idx)
{
    memset(s, 0, sizeof(*s));
    s->idx = idx;
    char name[16];
    snprintf(name, sizeof(name), "rnic%d", idx);
    s->async_evd = DAT_HANDLE_NULL;
    FC_MUST(dat_ia_open(name, 64, &s->async_evd, &s->ia));
    FC_MUST(dat_pz_create(s->ia, &s->pz));
    /* Room for every completion the side can have outstanding (a request,
     * a receive and a bind per transfer), and the flushes of a teardown. */
    const DAT_COUNT dto_len = 4 * FC_PAIRS_MAX * FC_DEPTH_MAX * 2;
    FC_MUST(dat_evd_create(s->ia, dto_len, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG, &s->dto_evd));
    FC_MUST(dat_evd_create(s->ia, 4 * FC_PAIRS_MAX, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &s->conn_evd));
    if (idx == 1)
        FC_MUST(dat_evd_create(s->ia, 4 * FC_PAIRS_MAX, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &s->cr_evd));
    DAT_IA_ATTR a;
    FC_MUST(dat_ia_query(s->ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &a, 0, NULL));
    s->addr = a.ia_address_ptr;

    s->buf_len = (size_t)fc_opt.pairs * (size_t)fc_opt.depth * FC_SLOT;
    s->buf = aligned_alloc(4096, s->buf_len);
    if (!s->buf) {
        fprintf(stderr, "fault_campaign: out of memory (%zu bytes)\n", s->buf_len);
        exit(2);
    }
    s->ref = malloc(s->buf_len);
    if (!s->ref) {
        fprintf(stderr, "fault_campaign: out of memory (%zu bytes)\n", s->buf_len);
        exit(2);
    }
    fc_pattern_fill(s->buf, s->buf_len, fc_key_background(fc_opt.seed, idx), 0);
    memcpy(s->ref, s->buf, s->buf_len);
    DAT_REGION_DESCRIPTION r = { .for_va = s->buf };
    FC_MUST(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, r, s->buf_len, s->pz, DAT_MEM_PRIV_ALL_FLAG, &s->lmr,
                           &s->lctx, &s->rctx, NULL, NULL));
    for (int p = 0; p < fc_opt.pairs; p++)
        for (int k = 0; k < fc_opt.depth; k++)
            FC_MUST(dat_rmr_create(s->pz, &s->rmr[p][k]));
}

void fc_fabric_open(void)
{
    side_open(&fc_side[0], 0);
    side_open(&fc_side[1], 1);
    FC_MUST(dat_psp_create_any(fc_side[1].ia, &psp_qual, fc_side[1].cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
    for (int p = 0; p < fc_opt.pairs; p++) {
        memset(&fc_pair[p], 0, sizeof(fc_pair[p]));
        fc_pair[p].idx = p;
        fc_pair[p].st = PS_DOWN;
    }
}

void fc_fabric_close(void)
{
    /* Abrupt: the EPs, windows, LMRs, EVDs and PSP go with their IA. */
    for (int i = 0; i < 2; i++) {
        FC_MUST(dat_ia_close(fc_side[i].ia, DAT_CLOSE_ABRUPT_FLAG));
        free(fc_side[i].buf);
        free(fc_side[i].ref);
        fc_side[i].buf = fc_side[i].ref = NULL;
    }
}

void fc_pair_connect(struct fc_pair *p)
{
    for (int i = 0; i < 2; i++) {
        struct fc_side *s = &fc_side[i];
        FC_MUST(dat_ep_create(s->ia, s->pz, s->dto_evd, s->dto_evd, s->conn_evd, NULL, &p->ep[i]));
        p->established[i] = false;
    }
    p->accepted = false;
    uint32_t pdata = (uint32_t)p->idx;
    FC_MUST(dat_ep_connect(p->ep[0], fc_side[1].addr, psp_qual, FC_CONNECT_US, sizeof(pdata), &pdata,
                           DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
    p->st = PS_CONNECTING;
    p->broken_reported = false;
    p->hung = false;
    p->connect_deadline = rnic_sim_cycle() + (uint64_t)(FC_CONNECT_US + 50000u) * FC_CYCLES_PER_US;
}

void fc_accept(const DAT_CR_ARRIVAL_EVENT_DATA *cr)
{
    DAT_CR_PARAM q;
    FC_MUST(dat_cr_query(cr->cr_handle, DAT_CR_FIELD_ALL, &q));
    uint32_t idx = UINT32_MAX;
    if (q.private_data_size == (DAT_COUNT)sizeof(idx) && q.private_data)
        memcpy(&idx, q.private_data, sizeof(idx));
    if (idx >= (uint32_t)fc_opt.pairs || fc_pair[idx].st != PS_CONNECTING) {
        fprintf(stderr, "fault_campaign: a connection request for no connecting pair (%u): rejected\n", idx);
        FC_MUST(dat_cr_reject(cr->cr_handle));
        return;
    }
    FC_MUST(dat_cr_accept(cr->cr_handle, fc_pair[idx].ep[1], 0, NULL));
    fc_pair[idx].accepted = true;
}

void fc_pair_free_eps(struct fc_pair *p)
{
    for (int i = 0; i < 2; i++) {
        if (p->ep[i] != DAT_HANDLE_NULL)
            FC_MUST(dat_ep_free(p->ep[i]));
        p->ep[i] = DAT_HANDLE_NULL;
        p->established[i] = false;
    }
    p->st = PS_DOWN;
}

bool fc_ep_owner(DAT_EP_HANDLE ep, int *pair, int *side)
{
    if (ep == DAT_HANDLE_NULL)
        return false;
    for (int p = 0; p < fc_opt.pairs; p++)
        for (int i = 0; i < 2; i++)
            if (fc_pair[p].ep[i] == ep) {
                *pair = p;
                *side = i;
                return true;
            }
    return false;
}

bool fc_rmr_owner(DAT_RMR_HANDLE rmr, int side, int *pair, int *slot)
{
    for (int p = 0; p < fc_opt.pairs; p++)
        for (int k = 0; k < fc_opt.depth; k++)
            if (fc_side[side].rmr[p][k] == rmr) {
                *pair = p;
                *slot = k;
                return true;
            }
    return false;
}
