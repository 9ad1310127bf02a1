/*
 * The progress engine: completions moved from CQs into EVDs and, after
 * each drain, the state changes they imply done (the work completion.c
 * leaves); connection messages read and answered while the connection
 * manager has a socket open or a timer running; timers fired.
 *
 * Lockstep (a simulated platform whose time moves only inside calls): it
 * runs whenever a DAT call needs it, and waits move time themselves: they
 * run the simulation until an interrupt of any NIC libdat uses (so one
 * thread can wait on one side of a connection while the other side's
 * protocol steps and DTOs happen) or until the next deadline, the platform
 * jumping what is idle. A wait that nothing can ever end is said once on
 * stderr.
 *
 * Time runs alone (free-running simulation, a board): a progress thread
 * sleeps on the NICs' interrupts, the connection manager's sockets and its
 * timers, and does the work while the consumer computes, sleeps or polls;
 * waits sleep (dat_block) until it or another thread queues something.
 *
 * Time is the adapter's: a DAT timeout of N microseconds is
 * N * RNIC_CLOCK_MHZ NIC cycles (250 MHz by default). Free-running, an idle
 * NIC's clock keeps real time, so a timeout is never shorter than the
 * wall-clock time it names, nor than the NIC time the awaited event needs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dat_internal.h"

/* Longest run of the simulation in one step of a lockstep wait with no
 * deadline: it looks at its condition again after it. */
#define LOCKSTEP_SLICE_CYCLES (1u << 20)

static bool freerun;

/* Wall-clock nanoseconds `cycles` of an idle NIC take (the most it can take). */
static uint64_t cycles_ns(uint64_t cycles)
{
    const uint64_t per = 1000u / dat_cycles_per_us();
    return cycles > UINT64_MAX / (per ? per : 1) ? UINT64_MAX : cycles * (per ? per : 1);
}

static void progress_thread_start(void);

bool dat_time_runs_alone(void)
{
    if (!freerun) {
        for (struct dat_dev *d = dat_devs; d; d = d->next)
            if (rnic_time_runs_alone(d->rdev))
                freerun = true;
    }
    if (freerun)
        progress_thread_start();
    return freerun;
}

/* The state changes completions imply, after the drain that found them
 * (completion.c): the connection an error completion broke, the window a
 * failed bind left as it was, the graceful disconnect whose last request
 * is done. Their objects may be gone by now. */
void dat_progress_work(void)
{
    struct dat_work w;
    while (dat_work_take(&w)) {
        struct dat_ep *ep;
        switch (w.kind) {
        case DAT_WORK_RMR_READBACK:
            dat_rmr_bind_failed(w.handle);
            break;
        case DAT_WORK_EP_BROKEN:
            if ((ep = (struct dat_ep *)dat_handle_lookup(w.handle, DAT_HANDLE_TYPE_EP)) != NULL)
                dat_ep_broken(ep);
            break;
        case DAT_WORK_EP_GRACEFUL:
            if ((ep = (struct dat_ep *)dat_handle_lookup(w.handle, DAT_HANDLE_TYPE_EP)) != NULL)
                dat_ep_check_graceful(ep);
            break;
        }
    }
}

/* Connection timers, then graceful disconnects past their limit: the due
 * ones fire; returns cycles until the next (UINT64_MAX: none runs). */
static uint64_t timers(void)
{
    const uint64_t c = dat_cm_running_timers > 0 ? dat_cm_timers() : UINT64_MAX;
    const uint64_t g = dat_ep_graceful_timers();
    return g < c ? g : c;
}

static void drain_all_cqs(void)
{
    for (struct dat_dev *d = dat_devs; d; d = d->next) {
        for (struct dat_evd *e = d->cq_evds; e; e = e->cq_next)
            dat_progress_cq(e);
    }
}

/* A completion in a ring whose interrupt was acknowledged before it landed. */
static bool cq_pending(void)
{
    for (struct dat_dev *d = dat_devs; d; d = d->next)
        for (struct dat_evd *e = d->cq_evds; e; e = e->cq_next)
            if (rnic_cq_pending(e->cq))
                return true;
    return false;
}

/* The connection manager runs only while it has something to do
 * (dat_cm_busy): a socket open (a service point's listener; a connection,
 * which keeps its socket while it is up, for DISC and BROKEN) or a connect
 * timer running. With none, a pass is the drain alone. */
void dat_progress(void)
{
    if (dat_cm_busy())
        dat_cm_progress();
    drain_all_cqs();
}

void dat_progress_settled(void)
{
    if (dat_cm_busy())
        dat_cm_settle();
    drain_all_cqs();
    /* Completions may have finished a graceful disconnect, whose message
     * the peer should see before we go on. */
    if (dat_cm_busy())
        dat_cm_settle();
}

/* ------------------------------------------------------ progress thread */

static bool thread_started;

static void *progress_main(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd p[140];
        nfds_t n = 0;
        uint64_t timeout_ns;
        dat_lock();
        p[n++] = (struct pollfd){dat_progress_wake_fd(), POLLIN, 0};
        for (struct dat_dev *d = dat_devs; d && n < 8; d = d->next) {
            const int fd = rnic_event_fd(d->rdev);
            bool dup = fd < 0;
            for (nfds_t i = 0; i < n && !dup; i++)
                dup = p[i].fd == fd;
            if (!dup)
                p[n++] = (struct pollfd){fd, POLLIN, 0};
        }
        n += dat_cm_pollfds(p + n, sizeof(p) / sizeof(p[0]) - n);
        timeout_ns = cycles_ns(timers());
        dat_unlock();

        if (timeout_ns > 100000000u)
            timeout_ns = 100000000u;   /* and look again: nothing is lost for long */
        const struct timespec ts = {(time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u)};
        (void)ppoll(p, n, &ts, NULL);

        dat_lock();
        for (nfds_t i = 0; i < n; i++) {
            if (p[i].fd >= 0 && (p[i].revents & POLLIN) && i < 8 && (i == 0 || p[i].fd != p[0].fd)) {
                /* The poke fd and the NICs' event fds are eventfds: read them empty. */
                uint64_t v;
                bool is_event = i == 0;
                for (struct dat_dev *d = dat_devs; d && !is_event; d = d->next)
                    is_event = rnic_event_fd(d->rdev) == p[i].fd;
                if (is_event)
                    while (read(p[i].fd, &v, sizeof(v)) > 0) {
                    }
            }
        }
        dat_progress();
        (void)timers();
        dat_waiters_kick();
        dat_unlock();
    }
    return NULL;
}

/* Under the lock, when time is first found to run alone: the thread takes
 * the lock once the caller lets it go (or blocks in a wait). */
static void progress_thread_start(void)
{
    if (thread_started)
        return;
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (dat_progress_wake_fd() >= 0 && pthread_create(&t, &a, progress_main, NULL) == 0)
        thread_started = true;
    pthread_attr_destroy(&a);
}

/* ------------------------------------------------------------------ waits */

/* Runs the simulation, with the library lock released, until an interrupt
 * of any NIC libdat uses, or `cycles`. The devices are held so another
 * thread's dat_ia_close cannot free one meanwhile. */
static void run_unlocked(uint64_t cycles)
{
    struct dat_dev *held[16];
    rnic_dev *devs[16];
    unsigned n = 0;
    for (struct dat_dev *d = dat_devs; d && n < 16; d = d->next) {
        d->refs++;
        held[n] = d;
        devs[n++] = d->rdev;
    }
    if (n == 0)
        return;
    dat_wait_unlocked(devs, n, cycles);
    for (unsigned i = 0; i < n; i++)
        dat_dev_put(held[i]);
}

static bool all_quiescent(void)
{
    for (struct dat_dev *d = dat_devs; d; d = d->next)
        if (!rnic_quiescent(d->rdev))
            return false;
    return dat_devs != NULL;
}

DAT_RETURN dat_wait_for(struct dat_dev *dev, DAT_TIMEOUT timeout_us, bool (*cond)(void *), void *arg,
                        const char *what)
{
    const bool infinite = timeout_us == DAT_TIMEOUT_INFINITE;
    const uint64_t budget = infinite ? UINT64_MAX : (uint64_t)timeout_us * dat_cycles_per_us();
    const uint64_t start = dat_now(dev);
    bool told = false;
    for (;;) {
        const bool alone = dat_time_runs_alone();
        if (alone)
            dat_progress();
        else
            dat_progress_settled();
        const uint64_t next_timer = timers();
        /* The pass is over: the proxy agents of CNOs it triggered are
         * called now (with the lock released, as while this wait sleeps). */
        dat_agents_run();
        if (cond(arg))
            return DAT_SUCCESS;
        const uint64_t now = dat_now(dev);
        const uint64_t spent = now > start ? now - start : 0;
        if (spent >= budget)
            return DAT_ERR(DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
        if (cq_pending())
            continue;
        const bool unbounded = infinite && next_timer == UINT64_MAX;
        uint64_t step = infinite ? UINT64_MAX : budget - spent;
        if (next_timer < step)
            step = next_timer ? next_timer : 1;
        if (alone) {
            dat_block(unbounded ? UINT64_MAX : cycles_ns(step), NULL, 0);
            continue;
        }
        if (unbounded && all_quiescent()) {
            /* Lockstep, nothing in flight, no deadline: no NIC can end this
             * wait. Say so once, then wait for the only things that can: a
             * call from another thread, a connection from another process. */
            if (!told)
                fprintf(stderr,
                        "libdat: %s waits with DAT_TIMEOUT_INFINITE, but every NIC is idle and no timer runs: "
                        "only another thread or another process can end this wait\n",
                        what);
            told = true;
            struct pollfd cm[DAT_BLOCK_MAX_FDS];
            dat_block(UINT64_MAX, cm, dat_cm_pollfds(cm, DAT_BLOCK_MAX_FDS));
            continue;
        }
        /* Up to the deadline in one go (the platform jumps what is idle and
         * stops at any interrupt); an infinite wait looks again now and then. */
        run_unlocked(unbounded && step > LOCKSTEP_SLICE_CYCLES ? LOCKSTEP_SLICE_CYCLES : step);
    }
}
