/*
 * Consumer notification objects. A CNO is triggered by the first notifying
 * event that reaches an enabled EVD attached to it; dat_cno_wait returns
 * that EVD and re-arms the CNO. The proxy agent, if any, is called for the
 * trigger once the DAT call in which it happened ends (or between the
 * passes of a wait), never from inside the engine that queued the event
 * (lock.c, "consumer callbacks").
 */
#include <stdio.h>
#include <stdlib.h>

#include "dat_internal.h"

static struct dat_cno *cno_lookup(DAT_CNO_HANDLE h)
{
    return (struct dat_cno *)dat_handle_lookup(h, DAT_HANDLE_TYPE_CNO);
}

DAT_RETURN dat_cno_create(DAT_IA_HANDLE ia_handle, DAT_OS_WAIT_PROXY_AGENT agent, DAT_CNO_HANDLE *cno_handle)
{
    DAT_API_LOCK();
    struct dat_ia *ia = (struct dat_ia *)dat_handle_lookup(ia_handle, DAT_HANDLE_TYPE_IA);
    if (!ia)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    if (!cno_handle)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    struct dat_cno *cno = dat_zalloc(sizeof(*cno));
    if (!cno)
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    if (dat_handle_new(&cno->hdr, DAT_HANDLE_TYPE_CNO, ia) == DAT_HANDLE_NULL) {
        free(cno);
        return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
    }
    cno->agent = agent;
    dat_ia_link(ia, &cno->hdr);
    *cno_handle = DAT_H(cno);
    return DAT_SUCCESS;
}

/* The CNO, once no call of its agent is under way in another thread (the
 * consumer may free the old agent's data when the call returns); NULL if
 * it is gone meanwhile. */
static struct dat_cno *cno_lookup_idle(DAT_CNO_HANDLE h)
{
    struct dat_cno *cno;
    while ((cno = cno_lookup(h)) != NULL && dat_agent_running(h))
        dat_agent_wait_returned();
    return cno;
}

DAT_RETURN dat_cno_modify_agent(DAT_CNO_HANDLE cno_handle, DAT_OS_WAIT_PROXY_AGENT agent)
{
    DAT_API_LOCK();
    struct dat_cno *cno = cno_lookup_idle(cno_handle);
    if (!cno)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
    cno->agent = agent;
    return DAT_SUCCESS;
}

DAT_RETURN dat_cno_query(DAT_CNO_HANDLE cno_handle, DAT_CNO_PARAM_MASK cno_param_mask, DAT_CNO_PARAM *cno_param)
{
    DAT_API_LOCK();
    struct dat_cno *cno = cno_lookup(cno_handle);
    if (!cno)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
    if (cno_param_mask & ~DAT_CNO_FIELD_ALL)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (!cno_param)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    cno_param->ia_handle = DAT_H(cno->hdr.ia);
    cno_param->agent = cno->agent;
    return DAT_SUCCESS;
}

void dat_cno_destroy(struct dat_cno *cno)
{
    dat_agent_cancel(DAT_H(cno));
    dat_ia_unlink(&cno->hdr);
    dat_handle_release(&cno->hdr);
    free(cno);
}

DAT_RETURN dat_cno_free(DAT_CNO_HANDLE cno_handle)
{
    DAT_API_LOCK();
    struct dat_cno *cno = cno_lookup_idle(cno_handle);
    if (!cno)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
    if (cno->refs > 0 || cno->waiters > 0)
        return DAT_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_CNO_IN_USE);
    dat_cno_destroy(cno);
    return DAT_SUCCESS;
}

static bool cno_triggered(void *arg)
{
    return ((struct dat_cno *)arg)->triggered != NULL;
}

DAT_RETURN dat_cno_wait(DAT_CNO_HANDLE cno_handle, DAT_TIMEOUT timeout, DAT_EVD_HANDLE *evd_handle)
{
    DAT_API_LOCK();
    struct dat_cno *cno = cno_lookup(cno_handle);
    if (!cno)
        return DAT_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
    if (!evd_handle)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    char what[DAT_NAME_MAX_LENGTH + 64];
    snprintf(what, sizeof(what), "dat_cno_wait on a CNO of IA %s", cno->hdr.ia->name);
    cno->waiters++;
    DAT_RETURN r = dat_wait_for(cno->hdr.ia->dev, timeout, cno_triggered, cno, what);
    cno->waiters--;
    if (r != DAT_SUCCESS)
        return r;
    *evd_handle = DAT_H(cno->triggered);
    cno->triggered = NULL;
    return DAT_SUCCESS;
}
