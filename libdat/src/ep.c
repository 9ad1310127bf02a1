/*
 * Endpoints: one hardware QP each, created as soon as the EP has a PZ and
 * a request EVD (so receives can be posted before connecting). Request and
 * receive queues keep, per posted DTO, what its completion event needs;
 * the WQE's wr_id is the DTO's sequence number on its queue.
 *
 * Here: attributes, the QP's life, create, query, modify, free, reset and
 * status. The EP's connection (its events, loss and disconnect) is
 * ep_conn.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "dat_internal.h"

/* Cycles the flush of a freed EP may take before its QP number goes, and
 * the waits it may take them in (a bound of its own: should the NIC's
 * clock not move, the cycles alone would never run out). */
#define QUIESCE_LIMIT_CYCLES 200000u
#define QUIESCE_MAX_WAITS 1024u

static struct dat_ep *ep_lookup(DAT_EP_HANDLE h)
{
    return (struct dat_ep *)dat_handle_lookup(h, DAT_HANDLE_TYPE_EP);
}

/* ------------------------------------------------------------ attributes */

static void default_attr(const struct dat_dev *dev, DAT_EP_ATTR *a)
{
    memset(a, 0, sizeof(*a));
    a->service_type = DAT_SERVICE_TYPE_RC;
    a->max_message_size = DAT_RNIC_MAX_MESSAGE;
    a->max_rdma_size = DAT_RNIC_MAX_MESSAGE;
    a->qos = DAT_QOS_BEST_EFFORT;
    a->recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
    a->request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
    a->max_recv_dtos = 16;
    a->max_request_dtos = 16;
    a->max_recv_iov = (DAT_COUNT)dev->info.max_sge;
    a->max_request_iov = (DAT_COUNT)dev->info.max_sge;
    a->max_rdma_read_in = (DAT_COUNT)dev->info.max_rd;
    a->max_rdma_read_out = (DAT_COUNT)dev->info.max_rd;
    a->srq_soft_hw = DAT_HW_DEFAULT;
    a->max_rdma_read_iov = (DAT_COUNT)dev->info.max_sge;
    a->max_rdma_write_iov = (DAT_COUNT)dev->info.max_sge;
}

/* DAT 1.1 consumers, and those written for other uDAPL providers, memset a
 * DAT_EP_ATTR to zero and set only the fields they know; 1.1 has no
 * max_rdma_read_iov, max_rdma_write_iov nor srq_soft_hw at all. A zero in a
 * field where zero is no usable limit takes the provider's default (what
 * default_attr gives), so such an EP can SEND and RDMA READ and WRITE, and
 * dat_ep_query reports the value in force. The rules and their reasons are
 * docs/libdat.md, "EP attributes from DAT 1.1 consumers". Only the fields
 * of mask are looked at (dat_ep_modify's mask; every field at create).
 * Non-zero values are left alone for attr_valid to judge.
 *
 * service_type, qos and the completion flags need no rule: their zero is
 * already the default value (DAT_SERVICE_TYPE_RC, DAT_QOS_BEST_EFFORT,
 * DAT_COMPLETION_DEFAULT_FLAG). The counts of transport and provider
 * specific attributes mean what they say at 0: none. */
_Static_assert(DAT_SERVICE_TYPE_RC == 0, "a zeroed service_type must be RC");
_Static_assert(DAT_QOS_BEST_EFFORT == 0, "a zeroed qos must be best effort");
_Static_assert(DAT_COMPLETION_DEFAULT_FLAG == 0, "zeroed completion flags must be the default");

static void attr_zero_defaults(const struct dat_dev *dev, DAT_EP_ATTR *a, DAT_EP_PARAM_MASK m)
{
    DAT_EP_ATTR d;
    default_attr(dev, &d);
#define ZERO_IS_DEFAULT(bit, field)                                                                            \
    do {                                                                                                       \
        if ((m & (bit)) && a->field == 0)                                                                      \
            a->field = d.field;                                                                                \
    } while (0)
    /* A 0-byte limit would refuse every SEND, RDMA WRITE and READ with data. */
    ZERO_IS_DEFAULT(DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, max_message_size);
    ZERO_IS_DEFAULT(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, max_rdma_size);
    /* A queue of no entries: the EP could post nothing (refused until now). */
    ZERO_IS_DEFAULT(DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, max_recv_dtos);
    ZERO_IS_DEFAULT(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS, max_request_dtos);
    /* No segments: only empty messages and empty receives. */
    ZERO_IS_DEFAULT(DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV, max_recv_iov);
    ZERO_IS_DEFAULT(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV, max_request_iov);
    ZERO_IS_DEFAULT(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV, max_rdma_read_iov);
    ZERO_IS_DEFAULT(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV, max_rdma_write_iov);
    /* Not "no RDMA READs": the QP cannot refuse READs (its limit is 1..max_rd,
     * and dat_ep_qp_build and the CM raised 0 to 1), so 0 always meant one
     * READ at a time in each direction, a silent throttle. Whether a peer
     * may READ memory is the RMR's and LMR's privileges' business. */
    ZERO_IS_DEFAULT(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, max_rdma_read_in);
    ZERO_IS_DEFAULT(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, max_rdma_read_out);
    /* DAT_HW_DEFAULT is ~0, not 0. A soft high watermark of 0 would fire at
     * once; with no SRQ (srq_supported is DAT_FALSE) none is in force. */
    ZERO_IS_DEFAULT(DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW, srq_soft_hw);
#undef ZERO_IS_DEFAULT
}

static bool attr_valid(const struct dat_dev *dev, const DAT_EP_ATTR *a)
{
    const DAT_COUNT sge = (DAT_COUNT)dev->info.max_sge, rd = (DAT_COUNT)dev->info.max_rd;
    const unsigned recv_ok = DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_SOLICITED_WAIT_FLAG |
                             DAT_COMPLETION_EVD_THRESHOLD_FLAG;
    return a->service_type == DAT_SERVICE_TYPE_RC && a->max_message_size <= DAT_RNIC_MAX_MESSAGE &&
           a->max_rdma_size <= DAT_RNIC_MAX_MESSAGE && a->qos == DAT_QOS_BEST_EFFORT &&
           ((unsigned)a->recv_completion_flags & ~recv_ok) == 0 &&
           ((unsigned)a->request_completion_flags & ~(unsigned)DAT_COMPLETION_UNSIGNALLED_FLAG) == 0 &&
           a->max_recv_dtos >= 1 && a->max_recv_dtos <= DAT_RNIC_MAX_DTOS && a->max_request_dtos >= 1 &&
           a->max_request_dtos <= DAT_RNIC_MAX_DTOS && a->max_recv_iov >= 0 && a->max_recv_iov <= sge &&
           a->max_request_iov >= 0 && a->max_request_iov <= sge && a->max_rdma_read_in >= 0 &&
           a->max_rdma_read_in <= rd && a->max_rdma_read_out >= 0 && a->max_rdma_read_out <= rd &&
           a->max_rdma_read_iov >= 0 && a->max_rdma_read_iov <= sge && a->max_rdma_write_iov >= 0 &&
           a->max_rdma_write_iov <= sge;
}

/* ------------------------------------------------------------------- QP */

static bool configured(const struct dat_ep *ep)
{
    return ep->pz && ep->req_evd && ep->conn_evd;
}

static DAT_RETURN rings_alloc(struct dat_ep *ep)
{
    uint32_t sqn = dat_pow2_at_least((uint32_t)ep->attr.max_request_dtos);
    uint32_t rqn = dat_pow2_at_least((uint32_t)ep->attr.max_recv_dtos);
    if (sqn < 2)
        sqn = 2;
    if (rqn < 2)
        rqn = 2;
    struct dat_req_desc *sq = calloc(sqn, sizeof(*sq));
    struct dat_recv_desc *rq = calloc(rqn, sizeof(*rq));
    struct dat_dto_dst *dst = ep->noncoherent ? calloc(sqn, sizeof(*dst)) : NULL;
    if (!sq || !rq || (ep->noncoherent && !dst)) {
        free(sq);
        free(rq);
        free(dst);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    free(ep->sq);
    free(ep->rq);
    free(ep->sq_dst);
    ep->sq = sq;
    ep->rq = rq;
    ep->sq_dst = dst;
    ep->sq_mask = sqn - 1;
    ep->rq_mask = rqn - 1;
    ep->sq_depth = (uint32_t)ep->attr.max_request_dtos;
    ep->rq_depth = (uint32_t)ep->attr.max_recv_dtos;
    ep->sq_head = ep->sq_tail = 0;
    /* No request signalled yet: "before request 0", so that request 0 is
     * not taken for a signalled one (a graceful disconnect asks). */
    ep->sq_last_signaled = UINT64_MAX;
    ep->rq_head = ep->rq_tail = 0;
    return DAT_SUCCESS;
}

DAT_RETURN dat_ep_qp_build(struct dat_ep *ep, uint8_t max_rd)
{
    struct dat_dev *dev = ep->hdr.ia->dev;
    struct rnic_qp_attr qa = {
        .sq_entries = ep->sq_mask + 1,
        .rq_entries = ep->rq_mask + 1,
        .send_cq = ep->req_evd->cq,
        .recv_cq = ep->recv_evd ? ep->recv_evd->cq : ep->req_evd->cq,
        .pz = ep->pz->pz,
        .max_rd = max_rd ? max_rd : 1,
        .allow_remote = RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE,
        .timers = &ep->hdr.ia->qp_timers,
    };
    int rc = rnic_qp_create(dev->rdev, &qa, &ep->qp);
    if (rc != RNIC_OK) {
        ep->qp = NULL;
        return rc == RNIC_E_NOMEM ? DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY)
                                  : DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
    }
    ep->qpn = rnic_qp_num(ep->qp);
    ep->qp_max_rd = qa.max_rd;
    dev->ep_by_qpn[ep->qpn] = ep;
    return DAT_SUCCESS;
}

static void qp_drop(struct dat_ep *ep)
{
    if (!ep->qp)
        return;
    ep->hdr.ia->dev->ep_by_qpn[ep->qpn] = NULL;
    rnic_qp_destroy(ep->qp);
    ep->qp = NULL;
}

static bool ep_idle(const struct dat_ep *ep)
{
    return ep->sq_tail == ep->sq_head && ep->rq_tail == ep->rq_head;
}

/* Every CQ of the device is drained, not only the EP's: in lockstep a
 * wait returns at once while any CQ of the NIC has its interrupt raised, so
 * a completion left in another CQ let no NIC time pass, and the flush was
 * given up unseen. The QP then went with receives or requests still posted,
 * whose late flush completions were taken for those of the next EP given
 * the QP number, or, when their EVD was freed first, left the NIC's
 * interrupt raised for good, and every lockstep wait of the process spun
 * without end. The limit is NIC time that passed, not time asked for. */
void dat_ep_quiesce(struct dat_ep *ep)
{
    if (!ep->qp)
        return;
    rnic_qp_set_error(ep->qp);
    struct dat_dev *dev = ep->hdr.ia->dev;
    const uint64_t start = dat_now(dev);
    for (unsigned waits = 0;; waits++) {
        for (struct dat_evd *e = dev->cq_evds; e; e = e->cq_next)
            dat_progress_cq(e);
        if (ep_idle(ep) || dat_now(dev) - start >= QUIESCE_LIMIT_CYCLES || waits == QUIESCE_MAX_WAITS)
            break;
        rnic_wait(dev->rdev, 1024);
    }
}

/* --------------------------------------------------------------- create */

static DAT_RETURN lookup_evd(DAT_EVD_HANDLE h, struct dat_ia *ia, DAT_EVD_FLAGS need, DAT_RETURN_SUBTYPE sub,
                             struct dat_evd **out)
{
    *out = NULL;
    if (h == DAT_HANDLE_NULL)
        return DAT_SUCCESS;
    struct dat_evd *e = (struct dat_evd *)dat_handle_lookup(h, DAT_HANDLE_TYPE_EVD);
    if (!e || e->hdr.ia->dev != ia->dev || !(e->flags & need))
        return DAT_ERR(DAT_INVALID_HANDLE, sub);
    *out = e;
    return DAT_SUCCESS;
}

static void ref_swap_evd(struct dat_evd **slot, struct dat_evd *nv)
{
    if (*slot)
        (*slot)->refs--;
    *slot = nv;
    if (nv)
        nv->refs++;
}

static void ref_swap_pz(struct dat_pz **slot, struct dat_pz *nv)
{
    if (*slot)
        (*slot)->refs--;
    *slot = nv;
    if (nv)
        nv->refs++;
}

static void set_configured_state(struct dat_ep *ep)
{
    ep->state = configured(ep) ? DAT_EP_STATE_UNCONNECTED : DAT_EP_STATE_UNCONFIGURED_UNCONNECTED;
}

DAT_RETURN dat_ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle, DAT_EVD_HANDLE recv_evd_handle,
                         DAT_EVD_HANDLE request_evd_handle, DAT_EVD_HANDLE connect_evd_handle,
                         const DAT_EP_ATTR *ep_attributes, DAT_EP_HANDLE *ep_handle)
{
    DAT_API_LOCK();
    struct dat_ia *ia = (struct dat_ia *)dat_handle_lookup(ia_handle, DAT_HANDLE_TYPE_IA);
    if (!ia)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    struct dat_pz *pz = NULL;
    if (pz_handle != DAT_HANDLE_NULL) {
        pz = (struct dat_pz *)dat_handle_lookup(pz_handle, DAT_HANDLE_TYPE_PZ);
        if (!pz || pz->hdr.ia != ia)
            return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
    }
    struct dat_evd *recv, *req, *conn;
    DAT_RETURN r;
    if ((r = lookup_evd(recv_evd_handle, ia, DAT_EVD_DTO_FLAG, DAT_INVALID_HANDLE_EVD_RECV, &recv)) != DAT_SUCCESS ||
        (r = lookup_evd(request_evd_handle, ia, DAT_EVD_DTO_FLAG, DAT_INVALID_HANDLE_EVD_REQUEST, &req)) != DAT_SUCCESS ||
        (r = lookup_evd(connect_evd_handle, ia, DAT_EVD_CONNECTION_FLAG, DAT_INVALID_HANDLE_EVD_CONN, &conn)) != DAT_SUCCESS)
        return r;
    DAT_EP_ATTR attr;
    if (ep_attributes) {
        attr = *ep_attributes;
        attr_zero_defaults(ia->dev, &attr, DAT_EP_FIELD_EP_ATTR_ALL);
        if (!attr_valid(ia->dev, &attr))
            return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
    } else {
        default_attr(ia->dev, &attr);
    }
    if (!ep_handle)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);

    struct dat_ep *ep = dat_zalloc(sizeof(*ep));
    if (!ep)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    ep->hdr.ia = ia;   /* the QP is built before the handle exists */
    ep->noncoherent = ia->dev->noncoherent;
    ep->attr = attr;
    ep->pz = pz;
    ep->recv_evd = recv;
    ep->req_evd = req;
    ep->conn_evd = conn;
    r = rings_alloc(ep);
    if (r == DAT_SUCCESS && pz && req)
        r = dat_ep_qp_build(ep, (uint8_t)attr.max_rdma_read_out);
    if (r != DAT_SUCCESS || dat_handle_new(&ep->hdr, DAT_HANDLE_TYPE_EP, ia) == DAT_HANDLE_NULL) {
        if (ep->qp)
            rnic_qp_destroy(ep->qp), ia->dev->ep_by_qpn[ep->qpn] = NULL;
        free(ep->sq);
        free(ep->rq);
        free(ep->sq_dst);
        free(ep);
        return r != DAT_SUCCESS ? r : DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    if (pz)
        pz->refs++;
    if (recv)
        recv->refs++;
    if (req)
        req->refs++;
    if (conn)
        conn->refs++;
    set_configured_state(ep);
    dat_ia_link(ia, &ep->hdr);
    *ep_handle = DAT_H(ep);
    return DAT_SUCCESS;
}

DAT_RETURN dat_ep_create_with_srq(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle, DAT_EVD_HANDLE recv_evd_handle,
                                  DAT_EVD_HANDLE request_evd_handle, DAT_EVD_HANDLE connect_evd_handle,
                                  DAT_SRQ_HANDLE srq_handle, const DAT_EP_ATTR *ep_attributes,
                                  DAT_EP_HANDLE *ep_handle)
{
    DAT_API_LOCK();
    (void)pz_handle;
    (void)recv_evd_handle;
    (void)request_evd_handle;
    (void)connect_evd_handle;
    (void)ep_attributes;
    (void)ep_handle;
    if (!dat_handle_lookup(ia_handle, DAT_HANDLE_TYPE_IA))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    /* No SRQ can exist (srq_supported is DAT_FALSE). */
    (void)srq_handle;
    return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
}

/* ----------------------------------------------------------- query, modify */

DAT_RETURN dat_rnic_ep_last_error(DAT_EP_HANDLE ep_handle, DAT_RNIC_ERROR_DETAIL *detail)
{
    DAT_API_LOCK();
    struct dat_ep *ep = ep_lookup(ep_handle);
    if (!ep)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    if (!detail)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (!ep->has_error)
        return DAT_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
    *detail = ep->last_error;
    return DAT_SUCCESS;
}

DAT_RETURN dat_ep_query(DAT_EP_HANDLE ep_handle, DAT_EP_PARAM_MASK ep_param_mask, DAT_EP_PARAM *ep_param)
{
    DAT_API_LOCK();
    struct dat_ep *ep = ep_lookup(ep_handle);
    if (!ep)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    if (ep_param_mask & ~DAT_EP_FIELD_ALL)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (!ep_param)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    dat_progress_settled();
    memset(ep_param, 0, sizeof(*ep_param));
    ep_param->ia_handle = DAT_H(ep->hdr.ia);
    ep_param->ep_state = ep->state;
    ep_param->local_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ep->hdr.ia->addr;
    ep_param->local_port_qual = ep->local_port;
    ep_param->remote_ia_address_ptr = ep->remote_addr.sin_family ? (DAT_IA_ADDRESS_PTR)&ep->remote_addr : NULL;
    ep_param->remote_port_qual = ep->remote_port;
    ep_param->pz_handle = ep->pz ? DAT_H(ep->pz) : DAT_HANDLE_NULL;
    ep_param->recv_evd_handle = ep->recv_evd ? DAT_H(ep->recv_evd) : DAT_HANDLE_NULL;
    ep_param->request_evd_handle = ep->req_evd ? DAT_H(ep->req_evd) : DAT_HANDLE_NULL;
    ep_param->connect_evd_handle = ep->conn_evd ? DAT_H(ep->conn_evd) : DAT_HANDLE_NULL;
    ep_param->srq_handle = DAT_HANDLE_NULL;
    /* The values in force: zeros that took a default (attr_zero_defaults)
     * were replaced when the attributes were set. */
    ep_param->ep_attr = ep->attr;
    return DAT_SUCCESS;
}

#define EP_MODIFIABLE                                                                                          \
    (DAT_EP_FIELD_PZ_HANDLE | DAT_EP_FIELD_RECV_EVD_HANDLE | DAT_EP_FIELD_REQUEST_EVD_HANDLE |                  \
     DAT_EP_FIELD_CONNECT_EVD_HANDLE | DAT_EP_FIELD_EP_ATTR_ALL)

static void attr_merge(DAT_EP_ATTR *a, DAT_EP_PARAM_MASK m, const DAT_EP_ATTR *n)
{
#define TAKE(bit, field) if (m & (bit)) a->field = n->field
    TAKE(DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, service_type);
    TAKE(DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, max_message_size);
    TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, max_rdma_size);
    TAKE(DAT_EP_FIELD_EP_ATTR_QOS, qos);
    TAKE(DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, recv_completion_flags);
    TAKE(DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS, request_completion_flags);
    TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, max_recv_dtos);
    TAKE(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS, max_request_dtos);
    TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV, max_recv_iov);
    TAKE(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV, max_request_iov);
    TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, max_rdma_read_in);
    TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, max_rdma_read_out);
    TAKE(DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW, srq_soft_hw);
    TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV, max_rdma_read_iov);
    TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV, max_rdma_write_iov);
    TAKE(DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR, ep_transport_specific_count);
    TAKE(DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR, ep_transport_specific);
    TAKE(DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR, ep_provider_specific_count);
    TAKE(DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR, ep_provider_specific);
#undef TAKE
}

DAT_RETURN dat_ep_modify(DAT_EP_HANDLE ep_handle, DAT_EP_PARAM_MASK ep_param_mask, const DAT_EP_PARAM *ep_param)
{
    DAT_API_LOCK();
    struct dat_ep *ep = ep_lookup(ep_handle);
    if (!ep)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    if (ep_param_mask & ~(DAT_EP_PARAM_MASK)EP_MODIFIABLE)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (!ep_param)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    if (ep->state != DAT_EP_STATE_UNCONNECTED && ep->state != DAT_EP_STATE_UNCONFIGURED_UNCONNECTED)
        return dat_ep_state_error(ep->state);
    /* The QP is rebuilt: receives already posted would be lost. */
    if (!ep_idle(ep))
        return DAT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_RECV_WATERMARK);
    struct dat_ia *ia = ep->hdr.ia;
    struct dat_pz *pz = ep->pz;
    struct dat_evd *recv = ep->recv_evd, *req = ep->req_evd, *conn = ep->conn_evd;
    DAT_RETURN r;
    if (ep_param_mask & DAT_EP_FIELD_PZ_HANDLE) {
        pz = NULL;
        if (ep_param->pz_handle != DAT_HANDLE_NULL) {
            pz = (struct dat_pz *)dat_handle_lookup(ep_param->pz_handle, DAT_HANDLE_TYPE_PZ);
            if (!pz || pz->hdr.ia != ia)
                return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
        }
    }
    if ((ep_param_mask & DAT_EP_FIELD_RECV_EVD_HANDLE) &&
        (r = lookup_evd(ep_param->recv_evd_handle, ia, DAT_EVD_DTO_FLAG, DAT_INVALID_HANDLE_EVD_RECV, &recv)))
        return r;
    if ((ep_param_mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE) &&
        (r = lookup_evd(ep_param->request_evd_handle, ia, DAT_EVD_DTO_FLAG, DAT_INVALID_HANDLE_EVD_REQUEST, &req)))
        return r;
    if ((ep_param_mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE) &&
        (r = lookup_evd(ep_param->connect_evd_handle, ia, DAT_EVD_CONNECTION_FLAG, DAT_INVALID_HANDLE_EVD_CONN, &conn)))
        return r;
    DAT_EP_ATTR attr = ep->attr;
    attr_merge(&attr, ep_param_mask, &ep_param->ep_attr);
    attr_zero_defaults(ia->dev, &attr, ep_param_mask);
    if (!attr_valid(ia->dev, &attr))
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);

    qp_drop(ep);
    ep->attr = attr;
    ref_swap_pz(&ep->pz, pz);
    ref_swap_evd(&ep->recv_evd, recv);
    ref_swap_evd(&ep->req_evd, req);
    ref_swap_evd(&ep->conn_evd, conn);
    r = rings_alloc(ep);
    if (r == DAT_SUCCESS && ep->pz && ep->req_evd)
        r = dat_ep_qp_build(ep, (uint8_t)attr.max_rdma_read_out);
    set_configured_state(ep);
    if (r != DAT_SUCCESS)
        ep->state = DAT_EP_STATE_UNCONFIGURED_UNCONNECTED;
    return r;
}

/* ------------------------------------------------------- free, reset, status */

void dat_ep_destroy(struct dat_ep *ep)
{
    if (ep->conn) {
        /* Abrupt: the peer learns the connection is gone. */
        if (ep->state == DAT_EP_STATE_CONNECTED || ep->state == DAT_EP_STATE_DISCONNECT_PENDING ||
            ep->state == DAT_EP_STATE_PASSIVE_CONNECTION_PENDING ||
            ep->state == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING)
            dat_cm_send_disconnect(ep, false);
        dat_cm_conn_release(ep->conn);
        ep->conn = NULL;
    }
    if (ep->cr) {
        ep->cr->local_ep = NULL;
        ep->cr = NULL;
    }
    if (ep->rsp) {
        ep->rsp->ep = NULL;
        ep->rsp = NULL;
    }
    ep->freeing = true;
    dat_ep_quiesce(ep);
    qp_drop(ep);
    ref_swap_pz(&ep->pz, NULL);
    ref_swap_evd(&ep->recv_evd, NULL);
    ref_swap_evd(&ep->req_evd, NULL);
    ref_swap_evd(&ep->conn_evd, NULL);
    dat_ia_unlink(&ep->hdr);
    dat_handle_release(&ep->hdr);
    free(ep->sq);
    free(ep->rq);
    free(ep->sq_dst);
    free(ep);
}

DAT_RETURN dat_ep_free(DAT_EP_HANDLE ep_handle)
{
    DAT_API_LOCK();
    struct dat_ep *ep = ep_lookup(ep_handle);
    if (!ep)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    /* Reserved for an RSP: free the RSP first. */
    if (ep->rsp)
        return dat_ep_state_error(ep->state);
    dat_ep_destroy(ep);
    return DAT_SUCCESS;
}

DAT_RETURN dat_ep_reset(DAT_EP_HANDLE ep_handle)
{
    DAT_API_LOCK();
    struct dat_ep *ep = ep_lookup(ep_handle);
    if (!ep)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    if (ep->state == DAT_EP_STATE_UNCONNECTED)
        return DAT_SUCCESS;
    if (ep->state != DAT_EP_STATE_DISCONNECTED)
        return dat_ep_state_error(ep->state);
    /* Flushed completions of the old connection are still reported. */
    dat_ep_quiesce(ep);
    qp_drop(ep);
    DAT_RETURN r = rings_alloc(ep);
    if (r == DAT_SUCCESS)
        r = dat_ep_qp_build(ep, (uint8_t)ep->attr.max_rdma_read_out);
    if (r != DAT_SUCCESS)
        return r;
    memset(&ep->remote_addr, 0, sizeof(ep->remote_addr));
    ep->local_port = ep->remote_port = 0;
    ep->pdata_len = 0;
    ep->state = DAT_EP_STATE_UNCONNECTED;
    return DAT_SUCCESS;
}

DAT_RETURN dat_ep_get_status(DAT_EP_HANDLE ep_handle, DAT_EP_STATE *ep_state, DAT_BOOLEAN *recv_idle,
                             DAT_BOOLEAN *request_idle)
{
    DAT_API_LOCK();
    struct dat_ep *ep = ep_lookup(ep_handle);
    if (!ep)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    dat_progress_settled();
    if (ep_state)
        *ep_state = ep->state;
    if (recv_idle)
        *recv_idle = ep->rq_tail == ep->rq_head ? DAT_TRUE : DAT_FALSE;
    if (request_idle)
        *request_idle = ep->sq_tail == ep->sq_head ? DAT_TRUE : DAT_FALSE;
    return DAT_SUCCESS;
}

DAT_RETURN dat_ep_recv_query(DAT_EP_HANDLE ep_handle, DAT_COUNT *nbufs_allocated, DAT_COUNT *bufs_alloc_span)
{
    DAT_API_LOCK();
    (void)nbufs_allocated;
    (void)bufs_alloc_span;
    if (!ep_lookup(ep_handle))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    return DAT_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);   /* ep_recv_info_supported is 0 */
}

DAT_RETURN dat_ep_set_watermark(DAT_EP_HANDLE ep_handle, DAT_COUNT soft_high_watermark,
                                DAT_COUNT hard_high_watermark)
{
    DAT_API_LOCK();
    (void)soft_high_watermark;
    (void)hard_high_watermark;
    if (!ep_lookup(ep_handle))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    return DAT_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);   /* watermarks are for SRQs */
}
