/*
 * Data transfer operations. libdat checks what the man pages make a return
 * code (handles, state, flags, the LMRs of the local iov: known, same PZ,
 * inside the region, privileges; lengths); the NIC checks every key again,
 * and everything remote is reported as a completion.
 *
 * This is the path the instruction budget counts (tests/dat/bench): no
 * allocation, no system call, one pass over the iov. On a non-coherent host
 * the iov is also synced (coherency.c); a coherent one pays one branch.
 */
#include <string.h>

#include "dat_internal.h"

enum dto_dir { DIR_READ_LOCAL, DIR_WRITE_LOCAL };

/* Checks the local iov and turns it into SGEs (empty segments dropped). */
static inline DAT_RETURN build_sges(const struct dat_ep *ep, DAT_COUNT n, const DAT_LMR_TRIPLET *iov,
                                    DAT_COUNT max_iov, enum dto_dir dir, struct rnic_sge *sg, int *nsg,
                                    uint64_t *total)
{
    if (DAT_UNLIKELY(n < 0 || n > max_iov))
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (DAT_UNLIKELY(n > 0 && !iov))
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    const struct dat_dev *dev = ep->hdr.ia->dev;
    uint64_t sum = 0;
    int k = 0;
    for (DAT_COUNT i = 0; i < n; i++) {
        const DAT_LMR_TRIPLET *t = &iov[i];
        if (t->segment_length == 0)
            continue;   /* the other members of an empty triplet may be anything */
        const struct dat_lmr *l = dat_lmr_by_context(dev, t->lmr_context);
        if (DAT_UNLIKELY(!l)) {
            /* A destroyed LMR's context is a protection violation (the
             * dat_lmr_free page); one never issued is an invalid LMR, a
             * privileges violation (the DTO pages). */
            uint32_t idx = t->lmr_context >> 8;
            if (idx < dev->info.pt_entries && dev->freed_ctx[idx] == t->lmr_context && t->lmr_context)
                return DAT_ERR(DAT_PROTECTION_VIOLATION, dir == DIR_WRITE_LOCAL ? DAT_PROTECTION_WRITE
                                                                                  : DAT_PROTECTION_READ);
            return DAT_ERR(DAT_PRIVILEGES_VIOLATION, dir == DIR_WRITE_LOCAL ? DAT_PRIVILEGES_WRITE
                                                                             : DAT_PRIVILEGES_READ);
        }
        if (DAT_UNLIKELY(l->pz != ep->pz))
            return DAT_ERR(DAT_PROTECTION_VIOLATION, dir == DIR_WRITE_LOCAL ? DAT_PROTECTION_WRITE
                                                                              : DAT_PROTECTION_READ);
        if (DAT_UNLIKELY(t->virtual_address < l->base || t->segment_length > l->size ||
                         t->virtual_address - l->base > l->size - t->segment_length ||
                         t->segment_length > UINT32_MAX))
            return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
        if (DAT_UNLIKELY(dir == DIR_WRITE_LOCAL && !(l->priv & DAT_MEM_PRIV_LOCAL_WRITE_FLAG)))
            return DAT_ERR(DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_WRITE);
        sg[k].addr = t->virtual_address;
        sg[k].len = (uint32_t)t->segment_length;
        sg[k].lkey = t->lmr_context;
        sum += t->segment_length;
        k++;
    }
    if (DAT_UNLIKELY(sum > DAT_RNIC_MAX_MESSAGE))
        return DAT_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
    *nsg = k;
    *total = sum;
    return DAT_SUCCESS;
}

/* A DTO posted on a DISCONNECTED EP completes flushed: at once when nothing
 * earlier of its queue is outstanding; else it goes to the QP (in error),
 * whose flush completes it behind the earlier ones, in the order posted. */
static void flush_now(struct dat_ep *ep, struct dat_evd *evd, DAT_DTO_COOKIE cookie)
{
    DAT_EVENT ev;
    memset(&ev, 0, sizeof(ev));
    ev.event_number = DAT_DTO_COMPLETION_EVENT;
    ev.event_data.dto_completion_event_data.ep_handle = DAT_H(ep);
    ev.event_data.dto_completion_event_data.user_cookie = cookie;
    ev.event_data.dto_completion_event_data.status = DAT_DTO_ERR_FLUSHED;
    ev.event_data.dto_completion_event_data.transfered_length = 0;
    dat_evd_push(evd, &ev, true);
}

static inline DAT_RETURN check_flags(DAT_COMPLETION_FLAGS f, unsigned allowed,
                                     DAT_COMPLETION_FLAGS ep_flags, DAT_RETURN_SUBTYPE arg)
{
    if (DAT_UNLIKELY((unsigned)f & ~allowed))
        return DAT_ERR(DAT_INVALID_PARAMETER, arg);
    /* Unsignalled completions only on an EP configured for them. */
    if (DAT_UNLIKELY((f & DAT_COMPLETION_UNSIGNALLED_FLAG) && !(ep_flags & DAT_COMPLETION_UNSIGNALLED_FLAG)))
        return DAT_ERR(DAT_INVALID_PARAMETER, arg);
    return DAT_SUCCESS;
}

static DAT_RETURN post_request(struct dat_ep *ep, uint8_t op, struct rnic_sge *sg, int nsg, uint64_t len,
                               const DAT_RMR_TRIPLET *remote, DAT_DTO_COOKIE cookie, DAT_COMPLETION_FLAGS f)
{
    /* Checked and accepted on a DISCONNECTED EP, then flushed. */
    if (DAT_UNLIKELY(ep->state == DAT_EP_STATE_DISCONNECTED && ep->sq_head == ep->sq_tail)) {
        flush_now(ep, ep->req_evd, cookie);
        return DAT_SUCCESS;
    }
    /* What the consumer asked for, not the ring's power of two. */
    if (DAT_UNLIKELY(ep->sq_head - ep->sq_tail >= ep->sq_depth))
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
    uint64_t seq = ep->sq_head;
    struct dat_req_desc *d = &ep->sq[seq & ep->sq_mask];
    d->cookie = cookie;
    d->len = len;
    d->rmr = DAT_HANDLE_NULL;
    d->deliver = !(f & DAT_COMPLETION_SUPPRESS_FLAG);
    d->notify = !(f & DAT_COMPLETION_UNSIGNALLED_FLAG);
    struct rnic_send_wr wr = {
        .wr_id = seq,
        .opcode = op,
        .num_sge = nsg,
        .sg = sg,
        .remote_addr = remote ? remote->target_address : 0,
        .rkey = remote ? remote->rmr_context : 0,
    };
    wr.flags = dat_req_wqe_flags(ep, seq, d->deliver, f);
    if (f & DAT_COMPLETION_SOLICITED_WAIT_FLAG)
        wr.flags |= RNIC_WQE_FLAG_SOLICITED;
    if (DAT_UNLIKELY(ep->noncoherent))
        dat_dto_prepare(ep, seq, op, sg, nsg);
    int rc = rnic_post_send(ep->qp, &wr);
    if (DAT_UNLIKELY(rc != RNIC_OK))
        return rc == RNIC_E_FULL ? DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP)
                                 : DAT_ERR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
    ep->sq_head = seq + 1;
    return DAT_SUCCESS;
}

#define REQ_FLAGS_RDMA                                                                                         \
    (DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_BARRIER_FENCE_FLAG)
#define REQ_FLAGS_SEND (REQ_FLAGS_RDMA | DAT_COMPLETION_SOLICITED_WAIT_FLAG)
#define RECV_FLAGS                                                                                             \
    (DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_SOLICITED_WAIT_FLAG)

/* Requests are valid CONNECTED (posted) and DISCONNECTED (flushed). */
static inline DAT_RETURN request_state(const struct dat_ep *ep)
{
    if (DAT_LIKELY(ep->state == DAT_EP_STATE_CONNECTED) || ep->state == DAT_EP_STATE_DISCONNECTED)
        return DAT_SUCCESS;
    return dat_ep_state_error(ep->state);
}

/* What every request post checks first: the EP handle, its state, the flags. */
static inline DAT_RETURN request_prologue(DAT_EP_HANDLE h, DAT_COMPLETION_FLAGS f, unsigned allowed,
                                          DAT_RETURN_SUBTYPE flag_arg, struct dat_ep **out)
{
    struct dat_ep *ep = (struct dat_ep *)dat_handle_lookup(h, DAT_HANDLE_TYPE_EP);
    if (DAT_UNLIKELY(!ep))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    DAT_RETURN r = request_state(ep);
    if (DAT_UNLIKELY(r != DAT_SUCCESS))
        return r;
    r = check_flags(f, allowed, ep->attr.request_completion_flags, flag_arg);
    if (DAT_UNLIKELY(r != DAT_SUCCESS))
        return r;
    *out = ep;
    return DAT_SUCCESS;
}

DAT_RETURN dat_ep_post_send(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments, DAT_LMR_TRIPLET *local_iov,
                            DAT_DTO_COOKIE user_cookie, DAT_COMPLETION_FLAGS completion_flags)
{
    DAT_API_LOCK();
    struct dat_ep *ep;
    DAT_RETURN r = request_prologue(ep_handle, completion_flags, REQ_FLAGS_SEND, DAT_INVALID_ARG5, &ep);
    if (DAT_UNLIKELY(r != DAT_SUCCESS))
        return r;
    struct rnic_sge sg[RNIC_MAX_SGE];
    int nsg;
    uint64_t total;
    r = build_sges(ep, num_segments, local_iov, ep->attr.max_request_iov, DIR_READ_LOCAL, sg, &nsg, &total);
    if (DAT_UNLIKELY(r != DAT_SUCCESS))
        return r;
    if (DAT_UNLIKELY(total > ep->attr.max_message_size))
        return DAT_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
    return post_request(ep, RNIC_OP_SEND, sg, nsg, total, NULL, user_cookie, completion_flags);
}

DAT_RETURN dat_ep_post_rdma_write(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments, DAT_LMR_TRIPLET *local_iov,
                                  DAT_DTO_COOKIE user_cookie, const DAT_RMR_TRIPLET *remote_buffer,
                                  DAT_COMPLETION_FLAGS completion_flags)
{
    DAT_API_LOCK();
    struct dat_ep *ep;
    DAT_RETURN r = request_prologue(ep_handle, completion_flags, REQ_FLAGS_RDMA, DAT_INVALID_ARG6, &ep);
    if (DAT_UNLIKELY(r != DAT_SUCCESS))
        return r;
    if (DAT_UNLIKELY(!remote_buffer))
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    struct rnic_sge sg[RNIC_MAX_SGE];
    int nsg;
    uint64_t total;
    r = build_sges(ep, num_segments, local_iov, ep->attr.max_rdma_write_iov, DIR_READ_LOCAL, sg, &nsg, &total);
    if (DAT_UNLIKELY(r != DAT_SUCCESS))
        return r;
    /* The remote buffer must hold everything the local iov sends. */
    if (DAT_UNLIKELY(total > remote_buffer->segment_length || total > ep->attr.max_rdma_size))
        return DAT_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
    return post_request(ep, RNIC_OP_RDMA_WRITE, sg, nsg, total, remote_buffer, user_cookie, completion_flags);
}

DAT_RETURN dat_ep_post_rdma_read(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments, DAT_LMR_TRIPLET *local_iov,
                                 DAT_DTO_COOKIE user_cookie, const DAT_RMR_TRIPLET *remote_buffer,
                                 DAT_COMPLETION_FLAGS completion_flags)
{
    DAT_API_LOCK();
    struct dat_ep *ep;
    DAT_RETURN r = request_prologue(ep_handle, completion_flags, REQ_FLAGS_RDMA, DAT_INVALID_ARG6, &ep);
    if (DAT_UNLIKELY(r != DAT_SUCCESS))
        return r;
    if (DAT_UNLIKELY(!remote_buffer))
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    struct rnic_sge sg[RNIC_MAX_SGE];
    int nsg;
    uint64_t total;
    r = build_sges(ep, num_segments, local_iov, ep->attr.max_rdma_read_iov, DIR_WRITE_LOCAL, sg, &nsg, &total);
    if (DAT_UNLIKELY(r != DAT_SUCCESS))
        return r;
    uint64_t want = remote_buffer->segment_length;
    if (DAT_UNLIKELY(want > total || want > ep->attr.max_rdma_size))
        return DAT_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
    /* Fill the iov in order: whole front segments, at most one partly,
     * none of the rest. */
    uint64_t left = want;
    int k = 0;
    while (k < nsg && left > 0) {
        if (sg[k].len > left)
            sg[k].len = (uint32_t)left;
        left -= sg[k].len;
        k++;
    }
    return post_request(ep, RNIC_OP_RDMA_READ, sg, k, want, remote_buffer, user_cookie, completion_flags);
}

DAT_RETURN dat_ep_post_recv(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments, DAT_LMR_TRIPLET *local_iov,
                            DAT_DTO_COOKIE user_cookie, DAT_COMPLETION_FLAGS completion_flags)
{
    DAT_API_LOCK();
    struct dat_ep *ep = (struct dat_ep *)dat_handle_lookup(ep_handle, DAT_HANDLE_TYPE_EP);
    if (DAT_UNLIKELY(!ep))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    /* Receives may be posted before the connection exists. */
    if (DAT_UNLIKELY(!ep->qp || ep->state == DAT_EP_STATE_DISCONNECT_PENDING))
        return dat_ep_state_error(ep->state);
    if (DAT_UNLIKELY(!ep->recv_evd))
        return DAT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_EVD_RECV);
    if (DAT_UNLIKELY((unsigned)completion_flags & ~(unsigned)RECV_FLAGS))
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    /* Unsignalled and solicited receives need the EP configured for them. */
    if (DAT_UNLIKELY((completion_flags & ~ep->attr.recv_completion_flags) &
                     (DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_SOLICITED_WAIT_FLAG)))
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    struct rnic_sge sg[RNIC_MAX_SGE];
    int nsg;
    uint64_t total;
    DAT_RETURN r = build_sges(ep, num_segments, local_iov, ep->attr.max_recv_iov, DIR_WRITE_LOCAL, sg, &nsg, &total);
    if (DAT_UNLIKELY(r != DAT_SUCCESS))
        return r;
    if (DAT_UNLIKELY(ep->state == DAT_EP_STATE_DISCONNECTED && ep->rq_head == ep->rq_tail)) {
        flush_now(ep, ep->recv_evd, user_cookie);
        return DAT_SUCCESS;
    }
    if (DAT_UNLIKELY(ep->rq_head - ep->rq_tail >= ep->rq_depth))
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
    uint64_t seq = ep->rq_head;
    struct dat_recv_desc *d = &ep->rq[seq & ep->rq_mask];
    d->cookie = user_cookie;
    d->deliver = !(completion_flags & DAT_COMPLETION_SUPPRESS_FLAG);
    d->notify = !(completion_flags & DAT_COMPLETION_UNSIGNALLED_FLAG);
    d->nsge = (uint8_t)nsg;
    memcpy(d->sge, sg, (size_t)nsg * sizeof(sg[0]));
    /* Flushed now, synced for the CPU when the completion is reaped. */
    if (DAT_UNLIKELY(ep->noncoherent))
        dat_dma_sync_sges(ep->hdr.ia->dev, sg, nsg, RNIC_SYNC_FOR_DEVICE);
    int rc = rnic_post_recv(ep->qp, seq, sg, nsg);
    if (DAT_UNLIKELY(rc != RNIC_OK))
        return rc == RNIC_E_FULL ? DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP)
                                 : DAT_ERR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
    ep->rq_head = seq + 1;
    return DAT_SUCCESS;
}
