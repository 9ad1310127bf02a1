/*
 * The progress engine. Nothing runs in the background: completions are
 * moved from CQs into EVDs, and connection messages are read and answered,
 * whenever a DAT call runs it. Waits advance the simulated NIC through the
 * driver (rnic_wait) in slices, running the engine in between, so one
 * thread can wait on one side of a connection while the other side's
 * protocol steps happen.
 *
 * Time is the adapter's: a DAT timeout of N microseconds is
 * N * RNIC_CLOCK_MHZ NIC cycles (250 MHz by default), never wall-clock time,
 * so a test behaves the same on a loaded machine.
 */
#include <stdlib.h>

#include "dat_internal.h"

/* Longest slice of simulation between two progress passes. */
#define WAIT_SLICE_CYCLES 4096u

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    return (*end == '\0' && v > 0) ? (uint64_t)v : dflt;
}

uint64_t dat_cycles_per_us(void)
{
    static uint64_t mhz;
    if (!mhz)
        mhz = env_u64("RNIC_CLOCK_MHZ", 250);
    return mhz;
}

uint64_t dat_wait_limit_us(void)
{
    static uint64_t lim;
    if (!lim)
        lim = env_u64("DAT_RNIC_WAIT_LIMIT_US", 100000);   /* 100 ms of NIC time */
    return lim;
}

static void drain_all_cqs(void)
{
    for (struct dat_dev *d = dat_devs; d; d = d->next) {
        for (struct dat_evd *e = d->cq_evds; e; e = e->cq_next)
            dat_evd_drain_cq(e);
    }
}

void dat_progress_settled(void)
{
    dat_cm_settle();
    drain_all_cqs();
    /* Completions may have finished a graceful disconnect, whose message
     * the peer should see before we go on. */
    dat_cm_settle();
}

DAT_RETURN dat_wait_for(struct dat_dev *dev, DAT_TIMEOUT timeout_us, bool (*cond)(void *), void *arg)
{
    uint64_t us = timeout_us == DAT_TIMEOUT_INFINITE ? dat_wait_limit_us() : timeout_us;
    uint64_t budget = us * dat_cycles_per_us();
    uint64_t start = rnic_cycles(dev->rdev);
    for (;;) {
        dat_progress_settled();
        uint64_t next_timer = dat_cm_timers();
        if (cond(arg))
            return DAT_SUCCESS;
        uint64_t spent = rnic_cycles(dev->rdev) - start;
        if (spent >= budget)
            return DAT_ERR(DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
        uint64_t step = budget - spent;
        if (step > WAIT_SLICE_CYCLES)
            step = WAIT_SLICE_CYCLES;
        if (next_timer < step)
            step = next_timer ? next_timer : 1;
        rnic_wait(dev->rdev, step);
    }
}
