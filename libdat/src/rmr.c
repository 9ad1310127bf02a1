/*
 * Remote memory regions: memory windows of the NIC's protection table. A
 * window belongs to a PZ, not to an EP (an InfiniBand type-1 window): any
 * EP of its PZ may bind, rebind or unbind it, and a rebind needs no unbind.
 *
 * dat_rmr_bind posts a BIND WQE on the EP's send queue. The NIC commits it
 * as the oldest WQE in flight, holds every later WQE of the EP until then
 * (the fence the man page promises), and gives the window the new key
 * libdat chose, so the rmr_context returned at once is the one the window
 * will have: the previous one is refused from the commit on. libdat checks
 * what the man page makes a return code; the NIC checks the window and the
 * region again and fails the bind (breaking the connection) if they do not
 * hold.
 *
 * An RMR is "bound" to an LMR from the successful dat_rmr_bind on (so
 * dat_lmr_free refuses that LMR) until a bind away from it or dat_rmr_free.
 * A bind that completes in error leaves the window as it was: libdat then
 * reads the window's state back from the NIC.
 */
#include <stdlib.h>
#include <string.h>

#include "dat_internal.h"

#define RMR_BIND_FLAGS                                                                                         \
    (DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_BARRIER_FENCE_FLAG)
#define REMOTE_PRIVS (DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

/* Moves the RMR's binding to `lmr` (NULL: unbound), keeping the LMRs'
 * counts of the RMRs bound into them. */
static void rmr_attach(struct dat_rmr *rmr, struct dat_lmr *lmr)
{
    if (rmr->lmr)
        rmr->lmr->rmr_binds--;
    rmr->lmr = lmr;
    if (lmr)
        lmr->rmr_binds++;
}

DAT_RETURN dat_rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle)
{
    DAT_API_LOCK();
    struct dat_pz *pz = (struct dat_pz *)dat_handle_lookup(pz_handle, DAT_HANDLE_TYPE_PZ);
    if (!pz)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
    if (!rmr_handle)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    struct dat_rmr *rmr = dat_zalloc(sizeof(*rmr));
    if (!rmr)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    struct dat_ia *ia = pz->hdr.ia;
    int rc = rnic_mw_alloc(ia->dev->rdev, pz->pz, &rmr->mw);
    if (rc != RNIC_OK) {
        free(rmr);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY_REGION);
    }
    if (dat_handle_new(&rmr->hdr, DAT_HANDLE_TYPE_RMR, ia) == DAT_HANDLE_NULL) {
        rnic_mw_free(rmr->mw);
        free(rmr);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    rmr->pz = pz;
    pz->refs++;
    rmr->context = rnic_mw_key(rmr->mw);
    dat_ia_link(ia, &rmr->hdr);
    *rmr_handle = DAT_H(rmr);
    return DAT_SUCCESS;
}

DAT_RETURN dat_rmr_query(DAT_RMR_HANDLE rmr_handle, DAT_RMR_PARAM_MASK rmr_param_mask, DAT_RMR_PARAM *rmr_param)
{
    DAT_API_LOCK();
    struct dat_rmr *rmr = (struct dat_rmr *)dat_handle_lookup(rmr_handle, DAT_HANDLE_TYPE_RMR);
    if (!rmr)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
    if (rmr_param_mask & ~DAT_RMR_FIELD_ALL)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (!rmr_param)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    rmr_param->ia_handle = DAT_H(rmr->hdr.ia);
    rmr_param->pz_handle = DAT_H(rmr->pz);
    rmr_param->lmr_triplet = rmr->triplet;
    rmr_param->mem_priv = rmr->priv;
    rmr_param->rmr_context = rmr->context;
    return DAT_SUCCESS;
}

void dat_rmr_destroy(struct dat_rmr *rmr)
{
    /* The hardware entry goes first: from here on its context is refused. */
    rnic_mw_free(rmr->mw);
    rmr_attach(rmr, NULL);
    rmr->pz->refs--;
    dat_ia_unlink(&rmr->hdr);
    dat_handle_release(&rmr->hdr);
    free(rmr);
}

DAT_RETURN dat_rmr_free(DAT_RMR_HANDLE rmr_handle)
{
    DAT_API_LOCK();
    struct dat_rmr *rmr = (struct dat_rmr *)dat_handle_lookup(rmr_handle, DAT_HANDLE_TYPE_RMR);
    if (!rmr)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
    dat_rmr_destroy(rmr);
    return DAT_SUCCESS;
}

/* The LMR a bind's triplet names, with the man page's return codes. */
static DAT_RETURN bind_target(const struct dat_ep *ep, const DAT_LMR_TRIPLET *t, DAT_MEM_PRIV_FLAGS priv,
                              struct dat_lmr **out)
{
    const struct dat_dev *dev = ep->hdr.ia->dev;
    struct dat_lmr *l = dat_lmr_by_context(dev, t->lmr_context);
    if (!l || l->hdr.ia->dev != dev) {
        uint32_t idx = t->lmr_context >> 8;
        if (idx < dev->info.pt_entries && dev->freed_ctx[idx] == t->lmr_context && t->lmr_context)
            return DAT_ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE);   /* a destroyed LMR */
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    }
    if (l->pz != ep->pz)
        return DAT_ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE);
    if (t->virtual_address < l->base || t->segment_length > l->size ||
        t->virtual_address - l->base > l->size - t->segment_length || t->segment_length > UINT32_MAX)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    /* Remote read needs local read on the LMR, remote write local write. */
    if (((priv & DAT_MEM_PRIV_REMOTE_READ_FLAG) && !(l->priv & DAT_MEM_PRIV_LOCAL_READ_FLAG)) ||
        ((priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG) && !(l->priv & DAT_MEM_PRIV_LOCAL_WRITE_FLAG)))
        return DAT_ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE);
    *out = l;
    return DAT_SUCCESS;
}

/* The next 8-bit key of a window: never its current one. */
static DAT_RMR_CONTEXT next_context(DAT_RMR_CONTEXT c)
{
    return (c & ~0xFFu) | ((c + 1u) & 0xFFu);
}

DAT_RETURN dat_rmr_bind(DAT_RMR_HANDLE rmr_handle, const DAT_LMR_TRIPLET *lmr_triplet,
                        DAT_MEM_PRIV_FLAGS mem_privileges, DAT_EP_HANDLE ep_handle, DAT_RMR_COOKIE user_cookie,
                        DAT_COMPLETION_FLAGS completion_flags, DAT_RMR_CONTEXT *rmr_context)
{
    DAT_API_LOCK();
    struct dat_rmr *rmr = (struct dat_rmr *)dat_handle_lookup(rmr_handle, DAT_HANDLE_TYPE_RMR);
    if (!rmr)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
    struct dat_ep *ep = (struct dat_ep *)dat_handle_lookup(ep_handle, DAT_HANDLE_TYPE_EP);
    if (!ep || ep->hdr.ia->dev != rmr->hdr.ia->dev)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    if (!lmr_triplet)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    /* ALL (0x33) is accepted: its local bits mean nothing to a window. */
    if (mem_privileges & ~(DAT_MEM_PRIV_FLAGS)DAT_MEM_PRIV_ALL_FLAG)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    if (!rmr_context)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
    if ((unsigned)completion_flags & ~(unsigned)RMR_BIND_FLAGS)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
    if ((completion_flags & DAT_COMPLETION_UNSIGNALLED_FLAG) &&
        !(ep->attr.request_completion_flags & DAT_COMPLETION_UNSIGNALLED_FLAG))
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
    if (ep->state != DAT_EP_STATE_CONNECTED && ep->state != DAT_EP_STATE_DISCONNECTED)
        return dat_ep_state_error(ep->state);
    if (!ep->pz || ep->pz != rmr->pz)
        return DAT_ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE);
    const DAT_MEM_PRIV_FLAGS priv = mem_privileges & REMOTE_PRIVS;
    struct dat_lmr *lmr = NULL;
    if (lmr_triplet->segment_length != 0) {
        DAT_RETURN r = bind_target(ep, lmr_triplet, priv, &lmr);
        if (r != DAT_SUCCESS)
            return r;
    }
    if (ep->state == DAT_EP_STATE_DISCONNECTED) {
        /* Flushed at once: the window stays as it is. */
        DAT_EVENT ev;
        memset(&ev, 0, sizeof(ev));
        ev.event_number = DAT_RMR_BIND_COMPLETION_EVENT;
        ev.event_data.rmr_completion_event_data.rmr_handle = rmr_handle;
        ev.event_data.rmr_completion_event_data.user_cookie = user_cookie;
        ev.event_data.rmr_completion_event_data.status = DAT_RMR_BIND_FAILURE;
        dat_evd_push(ep->req_evd, &ev, true);
        *rmr_context = rmr->context;
        return DAT_SUCCESS;
    }
    /* A bind takes a place on the request queue, as a DTO does. */
    if (ep->sq_head - ep->sq_tail >= ep->sq_depth)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);

    const DAT_RMR_CONTEXT next = next_context(rmr->context);
    uint64_t seq = ep->sq_head;
    struct dat_req_desc *d = &ep->sq[seq & ep->sq_mask];
    memset(d, 0, sizeof(*d));
    d->cookie = user_cookie;
    d->deliver = !(completion_flags & DAT_COMPLETION_SUPPRESS_FLAG);
    d->notify = !(completion_flags & DAT_COMPLETION_UNSIGNALLED_FLAG);
    d->rmr = rmr_handle;
    struct rnic_bind_wr wr = {
        .wr_id = seq,
        .mw_key = rmr->context,
        .new_key = (uint8_t)next,
        .rights = (uint8_t)(((priv & DAT_MEM_PRIV_REMOTE_READ_FLAG) ? RNIC_ACCESS_REMOTE_READ : 0) |
                            ((priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG) ? RNIC_ACCESS_REMOTE_WRITE : 0)),
        .addr = lmr ? lmr_triplet->virtual_address : 0,
        .len = lmr ? (uint32_t)lmr_triplet->segment_length : 0,
        .lkey = lmr ? lmr->lmr_context : 0,
    };
    wr.flags = dat_req_wqe_flags(ep, seq, d->deliver, completion_flags);
    int rc = rnic_post_bind(ep->qp, &wr);
    if (rc != RNIC_OK)
        return rc == RNIC_E_FULL ? DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP)
                                 : DAT_ERR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
    ep->sq_head = seq + 1;
    rmr->context = next;
    rmr_attach(rmr, lmr);
    rmr->priv = lmr ? priv : 0;
    if (lmr) {
        rmr->triplet = *lmr_triplet;
    } else {
        memset(&rmr->triplet, 0, sizeof(rmr->triplet));
    }
    *rmr_context = next;
    return DAT_SUCCESS;
}

/* A bind completed in error: its window is as the NIC last committed it.
 * Work the completion path leaves for the progress engine (progress.c),
 * done after the drain that found the completion, before its event. */
void dat_rmr_bind_failed(DAT_RMR_HANDLE rmr_handle)
{
    struct dat_rmr *rmr = (struct dat_rmr *)dat_handle_lookup(rmr_handle, DAT_HANDLE_TYPE_RMR);
    struct rnic_mw_state hw;
    if (!rmr || rnic_mw_query(rmr->mw, &hw) != RNIC_OK)
        return;
    rmr->context = hw.key;
    struct dat_lmr *lmr = hw.bound ? dat_lmr_by_context(rmr->hdr.ia->dev, hw.lkey) : NULL;
    rmr_attach(rmr, lmr);
    if (!lmr) {
        rmr->priv = 0;
        memset(&rmr->triplet, 0, sizeof(rmr->triplet));
    } else {
        rmr->triplet.lmr_context = hw.lkey;
        rmr->triplet.virtual_address = hw.base;
        rmr->triplet.segment_length = hw.len;
        rmr->priv = ((hw.rights & RNIC_ACCESS_REMOTE_READ) ? DAT_MEM_PRIV_REMOTE_READ_FLAG : 0) |
                    ((hw.rights & RNIC_ACCESS_REMOTE_WRITE) ? DAT_MEM_PRIV_REMOTE_WRITE_FLAG : 0);
    }
}
