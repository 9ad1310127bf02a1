/* Interface adapters: open (with the version check), query, close. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dat_internal.h"

struct dat_ia *dat_ias;

#define RO_AWARE_PREFIX "RO_AWARE_"

static struct dat_ia *ia_lookup(DAT_IA_HANDLE h)
{
    return (struct dat_ia *)dat_handle_lookup(h, DAT_HANDLE_TYPE_IA);
}

DAT_RETURN dat_ia_openv(const DAT_NAME_PTR ia_name, DAT_COUNT async_evd_min_qlen,
                        DAT_EVD_HANDLE *async_evd_handle, DAT_IA_HANDLE *ia_handle,
                        DAT_UINT32 dat_major, DAT_UINT32 dat_minor, DAT_BOOLEAN thread_safety)
{
    DAT_API_LOCK();
    if (!ia_name || strnlen(ia_name, DAT_NAME_MAX_LENGTH) == DAT_NAME_MAX_LENGTH)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    if (!async_evd_handle)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    if (!ia_handle)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);

    /* Before anything is found or opened: a bad value fails the open. */
    struct rnic_qp_timers timers;
    DAT_RETURN r = dat_env_check(&timers);
    if (r != DAT_SUCCESS)
        return r;
    const char *name = ia_name;
    bool ro_aware = strncmp(name, RO_AWARE_PREFIX, strlen(RO_AWARE_PREFIX)) == 0;
    if (ro_aware)
        name += strlen(RO_AWARE_PREFIX);
    struct dat_ia_entry e;
    r = dat_registry_find(name, &e);
    if (r != DAT_SUCCESS)
        return r;
    if (dat_major != e.major)
        return DAT_ERR(DAT_PROVIDER_NOT_FOUND, DAT_MAJOR_NOT_FOUND);
    if (dat_minor > e.minor)
        return DAT_ERR(DAT_PROVIDER_NOT_FOUND, DAT_MINOR_NOT_FOUND);
    /* Thread safe always (lock.c): a consumer that asks for it, or not, gets it. */
    if (thread_safety != DAT_FALSE && thread_safety != DAT_TRUE)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);

    struct dat_evd *given = NULL;
    if (*async_evd_handle == DAT_HANDLE_NULL) {
        if (async_evd_min_qlen <= 0 || async_evd_min_qlen > DAT_RNIC_MAX_EVD_QLEN)
            return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    } else if (*async_evd_handle != DAT_EVD_ASYNC_EXISTS) {
        given = (struct dat_evd *)dat_handle_lookup(*async_evd_handle, DAT_HANDLE_TYPE_EVD);
        if (!given || !(given->flags & DAT_EVD_ASYNC_FLAG))
            return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_ASYNC);
    }

    struct dat_ia *ia = dat_zalloc(sizeof(*ia));
    if (!ia)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    r = dat_dev_get(&e, ia_name, &ia->dev);
    if (r != DAT_SUCCESS) {
        free(ia);
        return r;
    }
    if (given && given->hdr.ia->dev != ia->dev) {
        dat_dev_put(ia->dev);
        free(ia);
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_ASYNC);
    }
    if (dat_handle_new(&ia->hdr, DAT_HANDLE_TYPE_IA, ia) == DAT_HANDLE_NULL) {
        dat_dev_put(ia->dev);
        free(ia);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    snprintf(ia->name, sizeof(ia->name), "%s", ia_name);
    ia->ro_aware = ro_aware;
    ia->addr = ia->dev->cm_addr;
    /* The IA keeps them, rather than each EP reading the environment: its
     * QPs then all get what was checked, even if the program changes the
     * environment after the open. */
    ia->qp_timers = timers;
    if (*async_evd_handle == DAT_HANDLE_NULL) {
        r = dat_evd_make(ia, async_evd_min_qlen, NULL, DAT_EVD_ASYNC_FLAG, &ia->async_evd);
        if (r != DAT_SUCCESS) {
            dat_handle_release(&ia->hdr);
            dat_dev_put(ia->dev);
            free(ia);
            return r;
        }
        ia->owns_async_evd = true;
        *async_evd_handle = DAT_H(ia->async_evd);
    } else if (given) {
        ia->async_evd = given;
        given->refs++;
    }
    ia->next = dat_ias;
    dat_ias = ia;
    *ia_handle = DAT_H(ia);
    return DAT_SUCCESS;
}

static void fill_ia_attr(const struct dat_ia *ia, DAT_IA_ATTR *a)
{
    const struct rnic_dev_info *in = &ia->dev->info;
    memset(a, 0, sizeof(*a));
    snprintf(a->adapter_name, DAT_NAME_MAX_LENGTH, "%s", ia->dev->name);
    snprintf(a->vendor_name, DAT_NAME_MAX_LENGTH, "%s", DAT_RNIC_PROVIDER_NAME);
    a->hardware_version_major = in->version >> 16;
    a->hardware_version_minor = in->version & 0xFFFFu;
    a->ia_address_ptr = (DAT_IA_ADDRESS_PTR)&((struct dat_ia *)ia)->addr;
    a->max_eps = (DAT_COUNT)in->num_qp - 2;   /* QPs 0 and 1 are never handed out */
    a->max_dto_per_ep = DAT_RNIC_MAX_DTOS;
    a->max_rdma_read_per_ep_in = (DAT_COUNT)in->max_rd;
    a->max_rdma_read_per_ep_out = (DAT_COUNT)in->max_rd;
    a->max_evds = (DAT_COUNT)in->num_cq;
    a->max_evd_qlen = DAT_RNIC_MAX_EVD_QLEN;
    a->max_iov_segments_per_dto = (DAT_COUNT)in->max_sge;
    a->max_lmrs = (DAT_COUNT)in->pt_entries - 1;
    a->max_lmr_block_size = DAT_RNIC_MAX_LMR_BLOCK;
    a->max_lmr_virtual_address = UINT64_MAX;
    a->max_pzs = 255;
    a->max_message_size = DAT_RNIC_MAX_MESSAGE;
    a->max_rdma_size = DAT_RNIC_MAX_MESSAGE;
    a->max_rmrs = 0;                          /* memory windows: issue 4 */
    a->max_rmr_target_address = 0;
    a->max_iov_segments_per_rdma_read = (DAT_COUNT)in->max_sge;
    a->max_iov_segments_per_rdma_write = (DAT_COUNT)in->max_sge;
    a->max_rdma_read_in = (DAT_COUNT)(in->max_rd * (in->num_qp - 2));
    a->max_rdma_read_out = (DAT_COUNT)(in->max_rd * (in->num_qp - 2));
    a->max_rdma_read_per_ep_in_guaranteed = DAT_TRUE;
    a->max_rdma_read_per_ep_out_guaranteed = DAT_TRUE;
}

static void fill_provider_attr(const struct dat_ia *ia, DAT_PROVIDER_ATTR *p)
{
    memset(p, 0, sizeof(*p));
    snprintf(p->provider_name, DAT_NAME_MAX_LENGTH, "%s", DAT_RNIC_PROVIDER_NAME);
    p->provider_version_major = DAT_RNIC_PROVIDER_VERSION_MAJOR;
    p->provider_version_minor = DAT_RNIC_PROVIDER_VERSION_MINOR;
    p->dapl_version_major = DAT_VERSION_MAJOR;
    p->dapl_version_minor = DAT_VERSION_MINOR;
    /* The memory types are values, not bits: report the highest supported,
     * all of 0..3 are. */
    p->lmr_mem_types_supported = DAT_MEM_TYPE_SO_VIRTUAL;
    p->iov_ownership_on_return = DAT_IOV_CONSUMER;   /* the WQE holds a copy */
    p->dat_qos_supported = DAT_QOS_BEST_EFFORT;
    p->completion_flags_supported = (DAT_COMPLETION_FLAGS)0x1F;
    p->is_thread_safe = DAT_TRUE;
    p->max_private_data_size = DAT_RNIC_MAX_PDATA;
    p->supports_multipath = DAT_FALSE;
    p->ep_creator = DAT_PSP_CREATES_EP_NEVER;
    p->pz_support = DAT_PZ_UNIQUE;
    p->optimal_buffer_alignment = DAT_OPTIMAL_ALIGNMENT;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            p->evd_stream_merging_supported[i][j] = DAT_TRUE;
    p->srq_supported = DAT_FALSE;
    /* docs/libdat.md, "Non-coherent host" */
    p->lmr_sync_req = ia->dev->noncoherent ? DAT_TRUE : DAT_FALSE;
    p->dto_async_return_guaranteed = DAT_FALSE;
    p->rdma_write_for_rdma_read_req = DAT_FALSE;
}

DAT_RETURN dat_ia_query(DAT_IA_HANDLE ia_handle, DAT_EVD_HANDLE *async_evd_handle,
                        DAT_IA_ATTR_MASK ia_attr_mask, DAT_IA_ATTR *ia_attr,
                        DAT_PROVIDER_ATTR_MASK provider_attr_mask, DAT_PROVIDER_ATTR *provider_attr)
{
    DAT_API_LOCK();
    struct dat_ia *ia = ia_lookup(ia_handle);
    if (!ia)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    if (ia_attr_mask & ~DAT_IA_FIELD_ALL)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    if (ia_attr_mask && !ia_attr)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
    if (provider_attr_mask & ~DAT_PROVIDER_FIELD_ALL)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    if (provider_attr_mask && !provider_attr)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
    if (async_evd_handle)
        *async_evd_handle = ia->async_evd ? DAT_H(ia->async_evd) : DAT_EVD_OUT_OF_SCOPE;
    if (ia_attr)
        fill_ia_attr(ia, ia_attr);
    if (provider_attr)
        fill_provider_attr(ia, provider_attr);
    return DAT_SUCCESS;
}

/* Other IAs given one of this IA's EVDs as their async EVD (dat_ia_open)
 * are left without one: the EVD goes with the IA that made it. */
static void drop_async_users(const struct dat_ia *ia, struct dat_evd *evd)
{
    for (struct dat_ia *o = dat_ias; o; o = o->next) {
        if (o != ia && o->async_evd == evd) {
            o->async_evd = NULL;
            evd->refs--;
        }
    }
}

/* Frees every object of one type on the IA; dependants go first. */
static void destroy_all(struct dat_ia *ia, DAT_HANDLE_TYPE type)
{
    bool again = true;
    while (again) {
        again = false;
        for (struct dat_obj *o = ia->objs; o; o = o->ia_next) {
            if (o->type != type)
                continue;
            switch (type) {
            case DAT_HANDLE_TYPE_CR: dat_cr_destroy((struct dat_cr *)o); break;
            case DAT_HANDLE_TYPE_EP: dat_ep_destroy((struct dat_ep *)o); break;
            case DAT_HANDLE_TYPE_PSP: dat_psp_destroy((struct dat_psp *)o); break;
            case DAT_HANDLE_TYPE_RSP: dat_rsp_destroy((struct dat_rsp *)o); break;
            case DAT_HANDLE_TYPE_LMR: dat_lmr_destroy((struct dat_lmr *)o); break;
            case DAT_HANDLE_TYPE_RMR: dat_rmr_destroy((struct dat_rmr *)o); break;
            case DAT_HANDLE_TYPE_EVD: {
                /* The async EVD too, if the IA made it: before the CNOs,
                 * which it may be attached to. */
                struct dat_evd *e = (struct dat_evd *)o;
                drop_async_users(ia, e);
                if (e == ia->async_evd) {
                    ia->async_evd = NULL;
                    ia->owns_async_evd = false;
                }
                dat_evd_destroy(e);
                break;
            }
            case DAT_HANDLE_TYPE_CNO: dat_cno_destroy((struct dat_cno *)o); break;
            case DAT_HANDLE_TYPE_PZ: dat_pz_destroy((struct dat_pz *)o); break;
            default: continue;
            }
            again = true;
            break;   /* the list changed: start over */
        }
    }
}

/* An EP of another IA on the same NIC may take its EVDs from this one. */
static bool feeds(const struct dat_ep *ep, const struct dat_ia *ia)
{
    return (ep->recv_evd && ep->recv_evd->hdr.ia == ia) || (ep->req_evd && ep->req_evd->hdr.ia == ia) ||
           (ep->conn_evd && ep->conn_evd->hdr.ia == ia);
}

/* The EPs of other IAs that feed this IA's EVDs go with them: they are
 * associated with this IA indirectly (the dat_evd_free page: freeing an IA
 * destroys all objects associated with it, directly and indirectly). */
static void destroy_feeding_eps(struct dat_ia *ia)
{
    bool again = true;
    while (again) {
        again = false;
        for (struct dat_ia *o = dat_ias; o && !again; o = o->next) {
            if (o == ia)
                continue;
            for (struct dat_obj *x = o->objs; x; x = x->ia_next) {
                if (x->type == DAT_HANDLE_TYPE_EP && feeds((struct dat_ep *)x, ia)) {
                    dat_ep_destroy((struct dat_ep *)x);
                    again = true;   /* the lists changed: start over */
                    break;
                }
            }
        }
    }
}

static bool ia_in_use(const struct dat_ia *ia)
{
    for (const struct dat_obj *o = ia->objs; o; o = o->ia_next) {
        if (!(ia->owns_async_evd && o == &ia->async_evd->hdr))
            return true;
    }
    /* Its async EVD, given to another IA (or fed by an EP of one). */
    return ia->owns_async_evd && ia->async_evd->refs > 0;
}

/* A call of the agent of one of the IA's CNOs is under way in another thread. */
static bool agents_running(const struct dat_ia *ia)
{
    for (const struct dat_obj *o = ia->objs; o; o = o->ia_next)
        if (o->type == DAT_HANDLE_TYPE_CNO && dat_agent_running(dat_handle_of(o)))
            return true;
    return false;
}

/* docs/libdat.md, "Closing an IA". */
DAT_RETURN dat_ia_close(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS close_flags)
{
    DAT_API_LOCK();
    /* Its CNOs' agents return first (their data may be freed after this
     * call); the lock is released meanwhile, so the IA is looked up again. */
    struct dat_ia *ia;
    while ((ia = ia_lookup(ia_handle)) != NULL && agents_running(ia))
        dat_agent_wait_returned();
    if (!ia)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    if (close_flags != DAT_CLOSE_ABRUPT_FLAG && close_flags != DAT_CLOSE_GRACEFUL_FLAG)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (close_flags == DAT_CLOSE_GRACEFUL_FLAG && ia_in_use(ia))
        return DAT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE);
    /* Not even abruptly while another thread waits in one of its EVDs or
     * CNOs: that thread would wake up in freed memory. */
    for (const struct dat_obj *o = ia->objs; o; o = o->ia_next)
        if ((o->type == DAT_HANDLE_TYPE_EVD && ((const struct dat_evd *)o)->waiters > 0) ||
            (o->type == DAT_HANDLE_TYPE_CNO && ((const struct dat_cno *)o)->waiters > 0))
            return DAT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE);

    /* The phased, cascading destroy: what uses an object goes before it.
     * EPs of other IAs that feed this IA's EVDs go with this IA's EPs;
     * other IAs that were given one of its EVDs as their async EVD lose it
     * when it goes, with the other EVDs, before the CNOs. */
    static const DAT_HANDLE_TYPE order[] = {
        DAT_HANDLE_TYPE_CR, DAT_HANDLE_TYPE_EP, DAT_HANDLE_TYPE_PSP, DAT_HANDLE_TYPE_RSP,
        DAT_HANDLE_TYPE_RMR, DAT_HANDLE_TYPE_LMR, DAT_HANDLE_TYPE_EVD, DAT_HANDLE_TYPE_CNO,
        DAT_HANDLE_TYPE_PZ,
    };
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        destroy_all(ia, order[i]);
        if (order[i] == DAT_HANDLE_TYPE_EP)
            destroy_feeding_eps(ia);
    }
    dat_sync_collect(ia->dev, ia);
    dat_sync_tell(ia);
    /* An async EVD it was given stays with the IA that made it (the
     * dat_ia_close page). */
    if (ia->async_evd)
        ia->async_evd->refs--;
    for (struct dat_ia **p = &dat_ias; *p; p = &(*p)->next) {
        if (*p == ia) {
            *p = ia->next;
            break;
        }
    }
    dat_handle_release(&ia->hdr);
    dat_dev_put(ia->dev);
    free(ia);
    return DAT_SUCCESS;
}
