/*
 * An EVD's event queue: a ring of DAT_EVENTs in host memory. Events are
 * pushed by whoever produces them (the completion path, the connection
 * manager, software events); a full ring reports the overflow on the IA's
 * async EVD. A notifying event wakes the waiters and triggers the EVD's
 * CNO (its proxy agent is called once the DAT call ends). Popping is
 * inline (dat_internal.h): the dequeue path counts instructions.
 *
 * The queue knows nothing of EPs, CQs or connections.
 */
#include <string.h>

#include "dat_internal.h"

/* The proxy agent is not called from here: whoever pushes may be in the
 * middle of a drain or of a connection manager's pass. The call is made
 * when the DAT call ends (lock.c, "consumer callbacks"). */
static void cno_trigger(struct dat_evd *evd)
{
    struct dat_cno *cno = evd->cno;
    if (cno->triggered)
        return;
    cno->triggered = evd;
    if (cno->agent.proxy_agent_func)
        dat_agent_defer(DAT_H(cno), cno->agent, DAT_H(evd));
}

void dat_evd_overflow(struct dat_evd *evd)
{
    evd->overflowed = true;
    struct dat_evd *async = evd->hdr.ia->async_evd;
    if (async && async != evd && async->count < (uint32_t)async->qlen) {
        DAT_EVENT a;
        memset(&a, 0, sizeof(a));
        a.event_number = DAT_ASYNC_ERROR_EVD_OVERFLOW;
        a.event_data.asynch_error_event_data.dat_handle = DAT_H(evd);
        a.event_data.asynch_error_event_data.reason = DAT_EVD_OVERFLOW_ERROR;
        dat_evd_push(async, &a, true);
    }
}

void dat_evd_push(struct dat_evd *evd, const DAT_EVENT *ev, bool notify)
{
    if (DAT_UNLIKELY(evd->count == (uint32_t)evd->qlen)) {
        dat_evd_overflow(evd);
        return;
    }
    struct dat_evq_entry *e = &evd->q[(evd->head + evd->count) % (uint32_t)evd->qlen];
    e->ev = *ev;
    e->ev.evd_handle = DAT_H(evd);
    e->notify = notify;
    evd->count++;
    dat_waiters_kick();
    if (notify) {
        evd->n_notify++;
        if (evd->enabled && evd->cno)
            cno_trigger(evd);
    }
}
