/*
 * Event dispatchers: the DAT calls. Each EVD is a queue of DAT_EVENTs
 * (evd_queue.c); an EVD that takes DTO or RMR-bind completions also owns a
 * hardware CQ, which the completion path (completion.c) drains into the
 * queue whenever libdat runs (dequeue, wait, progress). Connection events
 * are pushed by the connection manager.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dat_internal.h"

#define EVD_FLAGS_ALL (DAT_EVD_SOFTWARE_FLAG | DAT_EVD_DEFAULT_FLAG)
#define EVD_HW_FLAGS (DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG)

static struct dat_evd *evd_lookup(DAT_EVD_HANDLE h)
{
    return (struct dat_evd *)dat_handle_lookup(h, DAT_HANDLE_TYPE_EVD);
}

/* The standard has no subtype for an EVD handle outside a role (CR,
 * request, receive, connect, async): EVD calls name it as handle 1. */
#define BAD_EVD DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1)

static DAT_RETURN cq_make(struct dat_evd *evd, uint32_t entries)
{
    struct dat_dev *dev = evd->hdr.ia->dev;
    if (entries < DAT_RNIC_MIN_CQ)
        entries = DAT_RNIC_MIN_CQ;
    entries = dat_pow2_at_least(entries);
    int rc = rnic_cq_create(dev->rdev, entries, &evd->cq);
    if (rc == RNIC_E_NOMEM)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    if (rc != RNIC_OK)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEVD);
    evd->cq_entries = entries;
    evd->cq_next = dev->cq_evds;
    dev->cq_evds = evd;
    return DAT_SUCCESS;
}

static void cq_unmake(struct dat_evd *evd)
{
    struct dat_dev *dev = evd->hdr.ia->dev;
    for (struct dat_evd **p = &dev->cq_evds; *p; p = &(*p)->cq_next) {
        if (*p == evd) {
            *p = evd->cq_next;
            break;
        }
    }
    rnic_cq_destroy(evd->cq);
    evd->cq = NULL;
}

DAT_RETURN dat_evd_make(struct dat_ia *ia, DAT_COUNT qlen, struct dat_cno *cno, DAT_EVD_FLAGS flags,
                        struct dat_evd **out)
{
    struct dat_evd *evd = dat_zalloc(sizeof(*evd));
    if (!evd)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    evd->q = calloc((size_t)qlen, sizeof(*evd->q));
    if (!evd->q) {
        free(evd);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    evd->flags = flags;
    evd->qlen = qlen;
    evd->enabled = true;
    evd->waitable = true;
    if (dat_handle_new(&evd->hdr, DAT_HANDLE_TYPE_EVD, ia) == DAT_HANDLE_NULL) {
        free(evd->q);
        free(evd);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    if (flags & EVD_HW_FLAGS) {
        DAT_RETURN r = cq_make(evd, (uint32_t)qlen);
        if (r != DAT_SUCCESS) {
            dat_handle_release(&evd->hdr);
            free(evd->q);
            free(evd);
            return r;
        }
    }
    if (cno) {
        evd->cno = cno;
        cno->refs++;
    }
    dat_ia_link(ia, &evd->hdr);
    *out = evd;
    return DAT_SUCCESS;
}

DAT_RETURN dat_evd_create(DAT_IA_HANDLE ia_handle, DAT_COUNT evd_min_qlen, DAT_CNO_HANDLE cno_handle,
                          DAT_EVD_FLAGS evd_flags, DAT_EVD_HANDLE *evd_handle)
{
    DAT_API_LOCK();
    struct dat_ia *ia = (struct dat_ia *)dat_handle_lookup(ia_handle, DAT_HANDLE_TYPE_IA);
    if (!ia)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    if (evd_min_qlen <= 0 || evd_min_qlen > DAT_RNIC_MAX_EVD_QLEN)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    struct dat_cno *cno = NULL;
    if (cno_handle != DAT_HANDLE_NULL) {
        cno = (struct dat_cno *)dat_handle_lookup(cno_handle, DAT_HANDLE_TYPE_CNO);
        if (!cno || cno->hdr.ia != ia)
            return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
    }
    if (evd_flags == 0 || (evd_flags & ~EVD_FLAGS_ALL))
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
    if (!evd_handle)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    struct dat_evd *evd;
    DAT_RETURN r = dat_evd_make(ia, evd_min_qlen, cno, evd_flags, &evd);
    if (r != DAT_SUCCESS)
        return r;
    /* Async errors go to the IA's one async EVD (DAT_EVD_DEFAULT_FLAG
     * names the async stream too); an IA opened without one takes the first
     * EVD created for that stream. */
    if ((evd_flags & DAT_EVD_ASYNC_FLAG) && !ia->async_evd) {
        ia->async_evd = evd;
        ia->owns_async_evd = true;
    }
    *evd_handle = DAT_H(evd);
    return DAT_SUCCESS;
}

void dat_evd_destroy(struct dat_evd *evd)
{
    dat_agent_cancel(DAT_H(evd));
    if (evd->cq)
        cq_unmake(evd);
    if (evd->cno) {
        if (evd->cno->triggered == evd)
            evd->cno->triggered = NULL;
        evd->cno->refs--;
    }
    dat_ia_unlink(&evd->hdr);
    dat_handle_release(&evd->hdr);
    free(evd->q);
    free(evd);
}

DAT_RETURN dat_evd_free(DAT_EVD_HANDLE evd_handle)
{
    DAT_API_LOCK();
    struct dat_evd *evd = evd_lookup(evd_handle);
    if (!evd)
        return BAD_EVD;
    if (evd->refs > 0 || evd == evd->hdr.ia->async_evd)
        return DAT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE);
    if (evd->waiters > 0)
        return DAT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_WAITER);
    dat_evd_destroy(evd);
    return DAT_SUCCESS;
}

DAT_RETURN dat_evd_query(DAT_EVD_HANDLE evd_handle, DAT_EVD_PARAM_MASK evd_param_mask, DAT_EVD_PARAM *evd_param)
{
    DAT_API_LOCK();
    struct dat_evd *evd = evd_lookup(evd_handle);
    if (!evd)
        return BAD_EVD;
    if (evd_param_mask & ~DAT_EVD_FIELD_ALL)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (!evd_param)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    evd_param->ia_handle = DAT_H(evd->hdr.ia);
    evd_param->evd_qlen = evd->qlen;
    evd_param->evd_state = (DAT_EVD_STATE)((evd->enabled ? DAT_EVD_STATE_ENABLED : DAT_EVD_STATE_DISABLED) |
                                           (evd->waitable ? DAT_EVD_STATE_WAITABLE : DAT_EVD_STATE_UNWAITABLE) |
                                           DAT_EVD_STATE_CONFIG_NOTIFY);
    evd_param->cno_handle = evd->cno ? DAT_H(evd->cno) : DAT_HANDLE_NULL;
    evd_param->evd_flags = evd->flags;
    return DAT_SUCCESS;
}

/* The CQ beneath a DTO EVD holds at least as many completions as the
 * queue holds events: a completion the NIC cannot write into a full CQ is
 * lost without a trace (no event, no overflow report, and the send-queue
 * slots it would have freed stay taken), so the queue must not outgrow it.
 * The CQ keeps its number (the QPs that feed it have it in their context),
 * and can only move to a bigger ring while no CQE can arrive. */
static DAT_RETURN cq_grow(struct dat_evd *evd, uint32_t qlen)
{
    uint32_t entries = dat_pow2_at_least(qlen < DAT_RNIC_MIN_CQ ? DAT_RNIC_MIN_CQ : qlen);
    if (entries <= evd->cq_entries)
        return DAT_SUCCESS;
    int rc = rnic_cq_resize(evd->cq, entries);
    if (rc == RNIC_E_NOMEM)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    /* Busy: an EP that feeds the EVD has requests or receives outstanding.
     * The page's "resource limitations": the consumer may try again once
     * they have completed. */
    if (rc != RNIC_OK)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEVD);
    evd->cq_entries = entries;
    return DAT_SUCCESS;
}

/* The queue in an array of qlen entries, oldest first. */
static DAT_RETURN queue_relen(struct dat_evd *evd, DAT_COUNT qlen)
{
    struct dat_evq_entry *q = calloc((size_t)qlen, sizeof(*q));
    if (!q)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    for (uint32_t i = 0; i < evd->count; i++)
        q[i] = evd->q[(evd->head + i) % (uint32_t)evd->qlen];
    free(evd->q);
    evd->q = q;
    evd->head = 0;
    evd->qlen = qlen;
    return DAT_SUCCESS;
}

DAT_RETURN dat_evd_resize(DAT_EVD_HANDLE evd_handle, DAT_COUNT evd_min_qlen)
{
    DAT_API_LOCK();
    struct dat_evd *evd = evd_lookup(evd_handle);
    if (!evd)
        return BAD_EVD;
    if (evd_min_qlen <= 0 || evd_min_qlen > DAT_RNIC_MAX_EVD_QLEN)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    const DAT_COUNT old = evd->qlen;
    /* What the NIC has completed is pending on the EVD as much as what is
     * queued, so the CQ is drained before the new length is judged; into
     * the new queue when it is bigger, since a consumer that grows an EVD
     * may be doing so because the old one is about to overflow. */
    if (evd_min_qlen > old) {
        DAT_RETURN r = queue_relen(evd, evd_min_qlen);
        if (r != DAT_SUCCESS)
            return r;
    }
    if (evd->cq)
        dat_progress_cq(evd);
    DAT_RETURN r = DAT_SUCCESS;
    if ((uint32_t)evd_min_qlen < evd->count)
        r = DAT_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
    else if (evd->cq)
        r = cq_grow(evd, (uint32_t)evd_min_qlen);
    if (r != DAT_SUCCESS) {
        /* Refused: the old length again, unless the completions just
         * drained need more room (the CQ could not grow while more were on
         * their way): losing them would be worse than a longer queue. */
        DAT_COUNT keep = (uint32_t)old < evd->count ? (DAT_COUNT)evd->count : old;
        if (keep != evd->qlen)
            (void)queue_relen(evd, keep);   /* out of memory: the longer queue stays */
        return r;
    }
    return evd_min_qlen == evd->qlen ? DAT_SUCCESS : queue_relen(evd, evd_min_qlen);
}

DAT_RETURN dat_evd_post_se(DAT_EVD_HANDLE evd_handle, const DAT_EVENT *event)
{
    DAT_API_LOCK();
    struct dat_evd *evd = evd_lookup(evd_handle);
    if (!evd)
        return BAD_EVD;
    if (!event || event->event_number != DAT_SOFTWARE_EVENT)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (evd->count == (uint32_t)evd->qlen)
        return DAT_ERR(DAT_QUEUE_FULL, DAT_NO_SUBTYPE);
    dat_evd_push(evd, event, true);
    return DAT_SUCCESS;
}

DAT_RETURN dat_evd_dequeue(DAT_EVD_HANDLE evd_handle, DAT_EVENT *event)
{
    DAT_API_LOCK();
    struct dat_evd *evd = evd_lookup(evd_handle);
    if (DAT_UNLIKELY(!evd))
        return BAD_EVD;
    if (DAT_UNLIKELY(!event))
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (evd->count == 0) {
        /* A DTO-only EVD needs only its CQ; connection streams need the
         * connection manager to run. */
        if (evd->flags & (DAT_EVD_CR_FLAG | DAT_EVD_CONNECTION_FLAG | DAT_EVD_ASYNC_FLAG))
            dat_progress_settled();
        else if (evd->cq)
            dat_progress_cq(evd);
        if (evd->count == 0) {
            /* Looking costs the CPU time: in lockstep it is NIC time too, so
             * a polling loop sees the NIC move, the same way every run. */
            if (!dat_time_runs_alone())
                rnic_cpu_delay(evd->hdr.ia->dev->rdev, RNIC_POLL_CYCLES);
            return DAT_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
        }
    }
    dat_evd_pop(evd, event);
    return DAT_SUCCESS;
}

struct wait_arg {
    struct dat_evd *evd;
    uint32_t threshold;
};

static bool evd_ready(void *p)
{
    const struct wait_arg *w = p;
    return w->evd->n_notify > 0 && w->evd->count >= w->threshold;
}

DAT_RETURN dat_evd_wait(DAT_EVD_HANDLE evd_handle, DAT_TIMEOUT timeout, DAT_COUNT threshold, DAT_EVENT *event,
                        DAT_COUNT *nmore)
{
    DAT_API_LOCK();
    struct dat_evd *evd = evd_lookup(evd_handle);
    if (!evd)
        return BAD_EVD;
    if (threshold < 1 || threshold > evd->qlen)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    if (!event)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
    if (!nmore)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    if (!evd->waitable)
        return DAT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_UNWAITABLE);
    struct wait_arg w = { evd, (uint32_t)threshold };
    char what[DAT_NAME_MAX_LENGTH + 96];
    snprintf(what, sizeof(what), "dat_evd_wait on an EVD of IA %s (streams 0x%x, threshold %d)", evd->hdr.ia->name,
             (unsigned)evd->flags, (int)threshold);
    evd->waiters++;
    DAT_RETURN r = dat_wait_for(evd->hdr.ia->dev, timeout, evd_ready, &w, what);
    evd->waiters--;
    if (r != DAT_SUCCESS) {
        *nmore = (DAT_COUNT)evd->count;
        return r;
    }
    dat_evd_pop(evd, event);
    *nmore = (DAT_COUNT)evd->count;
    return DAT_SUCCESS;
}

DAT_RETURN dat_evd_enable(DAT_EVD_HANDLE evd_handle)
{
    DAT_API_LOCK();
    struct dat_evd *evd = evd_lookup(evd_handle);
    if (!evd)
        return BAD_EVD;
    evd->enabled = true;
    return DAT_SUCCESS;
}

DAT_RETURN dat_evd_disable(DAT_EVD_HANDLE evd_handle)
{
    DAT_API_LOCK();
    struct dat_evd *evd = evd_lookup(evd_handle);
    if (!evd)
        return BAD_EVD;
    evd->enabled = false;
    return DAT_SUCCESS;
}

DAT_RETURN dat_evd_set_unwaitable(DAT_EVD_HANDLE evd_handle)
{
    DAT_API_LOCK();
    struct dat_evd *evd = evd_lookup(evd_handle);
    if (!evd)
        return BAD_EVD;
    evd->waitable = false;
    return DAT_SUCCESS;
}

DAT_RETURN dat_evd_clear_unwaitable(DAT_EVD_HANDLE evd_handle)
{
    DAT_API_LOCK();
    struct dat_evd *evd = evd_lookup(evd_handle);
    if (!evd)
        return BAD_EVD;
    evd->waitable = true;
    return DAT_SUCCESS;
}

DAT_RETURN dat_evd_modify_cno(DAT_EVD_HANDLE evd_handle, DAT_CNO_HANDLE cno_handle)
{
    DAT_API_LOCK();
    struct dat_evd *evd = evd_lookup(evd_handle);
    if (!evd)
        return BAD_EVD;
    struct dat_cno *cno = NULL;
    if (cno_handle != DAT_HANDLE_NULL) {
        cno = (struct dat_cno *)dat_handle_lookup(cno_handle, DAT_HANDLE_TYPE_CNO);
        if (!cno || cno->hdr.ia != evd->hdr.ia)
            return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
    }
    if (evd->cno) {
        if (evd->cno->triggered == evd)
            evd->cno->triggered = NULL;
        evd->cno->refs--;
    }
    evd->cno = cno;
    if (cno)
        cno->refs++;
    return DAT_SUCCESS;
}
