/* Connection requests and the active side's connect calls. */
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "dat_internal.h"

static struct dat_cr *cr_lookup(DAT_CR_HANDLE h)
{
    return (struct dat_cr *)dat_handle_lookup(h, DAT_HANDLE_TYPE_CR);
}

void dat_cr_destroy(struct dat_cr *cr)
{
    if (cr->conn)
        dat_cm_reject(cr);
    if (cr->local_ep) {
        if (cr->local_ep->state == DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING)
            cr->local_ep->state = cr->local_ep->rsp ? DAT_EP_STATE_RESERVED : DAT_EP_STATE_UNCONNECTED;
        cr->local_ep->cr = NULL;
    }
    dat_ia_unlink(&cr->hdr);
    dat_handle_release(&cr->hdr);
    free(cr);
}

DAT_RETURN dat_cr_query(DAT_CR_HANDLE cr_handle, DAT_CR_PARAM_MASK cr_param_mask, DAT_CR_PARAM *cr_param)
{
    DAT_API_LOCK();
    struct dat_cr *cr = cr_lookup(cr_handle);
    if (!cr)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
    if (cr_param_mask & ~DAT_CR_FIELD_ALL)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (!cr_param)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    cr_param->remote_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&cr->remote_addr;
    cr_param->remote_port_qual = cr->remote_port;
    cr_param->private_data_size = cr->pdata_len;
    cr_param->private_data = cr->pdata_len ? cr->pdata : NULL;
    cr_param->local_ep_handle = cr->local_ep ? DAT_H(cr->local_ep) : DAT_HANDLE_NULL;
    return DAT_SUCCESS;
}

DAT_RETURN dat_cr_accept(DAT_CR_HANDLE cr_handle, DAT_EP_HANDLE ep_handle, DAT_COUNT private_data_size,
                         const DAT_PVOID private_data)
{
    DAT_API_LOCK();
    struct dat_cr *cr = cr_lookup(cr_handle);
    if (!cr)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
    struct dat_ep *ep;
    if (ep_handle == DAT_HANDLE_NULL && cr->local_ep) {
        ep = cr->local_ep;   /* the RSP's EP */
    } else {
        ep = (struct dat_ep *)dat_handle_lookup(ep_handle, DAT_HANDLE_TYPE_EP);
        if (!ep || ep->hdr.ia != cr->hdr.ia || (cr->local_ep && ep != cr->local_ep))
            return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    }
    if (private_data_size < 0 || private_data_size > DAT_RNIC_MAX_PDATA)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    if (private_data_size > 0 && !private_data)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
    DAT_EP_STATE want = cr->local_ep ? DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING : DAT_EP_STATE_UNCONNECTED;
    if (ep->state != want)
        return dat_ep_state_error(ep->state);
    if (!ep->qp || !ep->conn_evd)
        return DAT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONFIGURED);
    DAT_RETURN r = dat_cm_accept(cr, ep, private_data_size, private_data);
    if (r != DAT_SUCCESS)
        return r;
    /* The CR is used up either way. */
    if (cr->local_ep) {
        cr->local_ep->cr = NULL;
        cr->local_ep = NULL;
    }
    dat_cr_destroy(cr);
    return DAT_SUCCESS;
}

DAT_RETURN dat_cr_reject(DAT_CR_HANDLE cr_handle)
{
    DAT_API_LOCK();
    struct dat_cr *cr = cr_lookup(cr_handle);
    if (!cr)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
    dat_cr_destroy(cr);
    return DAT_SUCCESS;
}

DAT_RETURN dat_cr_handoff(DAT_CR_HANDLE cr_handle, DAT_CONN_QUAL handoff)
{
    DAT_API_LOCK();
    (void)handoff;
    if (!cr_lookup(cr_handle))
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
    return DAT_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
}

static DAT_RETURN connect_common(struct dat_ep *ep, const struct sockaddr_in *addr, DAT_CONN_QUAL qual,
                                 DAT_TIMEOUT timeout, DAT_COUNT pdlen, const void *pdata, DAT_QOS qos,
                                 DAT_RETURN_SUBTYPE pd_arg)
{
    if (pdlen < 0 || pdlen > DAT_RNIC_MAX_PDATA)
        return DAT_ERR(DAT_INVALID_PARAMETER, pd_arg);
    if (pdlen > 0 && !pdata)
        return DAT_ERR(DAT_INVALID_PARAMETER, pd_arg + 1);
    if (qos != DAT_QOS_BEST_EFFORT)
        return DAT_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
    if (ep->state != DAT_EP_STATE_UNCONNECTED)
        return dat_ep_state_error(ep->state);
    if (!ep->qp || !ep->conn_evd)
        return DAT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONFIGURED);
    return dat_cm_connect(ep, addr, qual, timeout, pdlen, pdata);
}

DAT_RETURN dat_ep_connect(DAT_EP_HANDLE ep_handle, DAT_IA_ADDRESS_PTR remote_ia_address,
                          DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout, DAT_COUNT private_data_size,
                          const DAT_PVOID private_data, DAT_QOS quality_of_service,
                          DAT_CONNECT_FLAGS connect_flags)
{
    DAT_API_LOCK();
    struct dat_ep *ep = (struct dat_ep *)dat_handle_lookup(ep_handle, DAT_HANDLE_TYPE_EP);
    if (!ep)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    if (!remote_ia_address)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (remote_ia_address->sa_family != AF_INET)
        return DAT_ERR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNSUPPORTED);
    if (dat_cm_port_of(remote_conn_qual) == 0)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    if ((unsigned)connect_flags > DAT_CONNECT_MULTIPATH_FLAG)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);
    if (connect_flags == DAT_CONNECT_MULTIPATH_FLAG)
        return DAT_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);   /* supports_multipath is DAT_FALSE */
    struct sockaddr_in a;
    memcpy(&a, remote_ia_address, sizeof(a));
    return connect_common(ep, &a, remote_conn_qual, timeout, private_data_size, private_data, quality_of_service,
                          DAT_INVALID_ARG5);
}

DAT_RETURN dat_ep_dup_connect(DAT_EP_HANDLE ep_handle, DAT_EP_HANDLE ep_dup_handle, DAT_TIMEOUT timeout,
                              DAT_COUNT private_data_size, const DAT_PVOID private_data,
                              DAT_QOS quality_of_service)
{
    DAT_API_LOCK();
    struct dat_ep *ep = (struct dat_ep *)dat_handle_lookup(ep_handle, DAT_HANDLE_TYPE_EP);
    if (!ep)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    struct dat_ep *dup = (struct dat_ep *)dat_handle_lookup(ep_dup_handle, DAT_HANDLE_TYPE_EP);
    if (!dup)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE2);
    /* The same remote service point as the connected dup EP. */
    if (dup->state != DAT_EP_STATE_CONNECTED || !dup->active)
        return dat_ep_state_error(dup->state);
    return connect_common(ep, &dup->remote_addr, dup->remote_port, timeout, private_data_size, private_data,
                          quality_of_service, DAT_INVALID_ARG4);
}
