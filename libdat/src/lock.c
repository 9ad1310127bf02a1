/*
 * The library lock, and how a thread sleeps without it.
 *
 * One lock serializes every DAT call: the objects, the handle table and the
 * driver underneath are then touched by one thread at a time. A thread may
 * take it again (the depth is counted). A wait never sleeps holding it:
 * dat_block releases it (however deeply held) and sleeps on an eventfd
 * that dat_waiters_kick makes readable when the lock is next released, so a
 * thread blocked in dat_evd_wait never stops another thread's posts.
 *
 * The progress thread (progress.c) sleeps without the lock too, in ppoll on
 * its own eventfd (dat_progress_wake_fd) besides the NICs and the
 * connection manager's sockets; dat_progress_poke wakes it when a socket or
 * a timer was added, so it looks again at what it waits on.
 *
 * The first call from a second thread marks the library threaded; a
 * simulated platform in auto mode then lets its time run alone (it goes
 * free-running), since the other thread may post while this one waits.
 *
 * Consumer callbacks (a CNO's proxy agent) are made here, never where they
 * were asked for: a trigger only records the call (dat_agent_defer), and
 * it is made when the thread lets the lock go at the end of its DAT call,
 * or between the passes of a wait (dat_agents_run), with the lock released.
 * So no consumer code runs while the progress engine or the connection
 * manager is in a pass, holding pointers into libdat's objects: a callback
 * that calls back in (dequeues, frees, runs a pass of its own) finds every
 * engine at rest, as any other DAT call does.
 *
 * Nothing here calls into the rest of libdat: the engines above it hand in
 * what a sleep also waits on, and the consumer's functions to call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "dat_internal.h"

/* Recursion is counted here, not by a recursive mutex: on the DTO path the
 * lock costs a plain mutex's fast path and one thread-local (initial-exec:
 * no call to find it). */
static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static __thread int depth __attribute__((tls_model("initial-exec")));   /* how often this thread holds `big` */
static pthread_t first_thread;
static bool first_seen;
bool dat_threaded;

/* The eventfds of the threads now in dat_block; each thread has its own. */
#define MAX_BLOCKED 64
static int blocked_fd[MAX_BLOCKED];
static unsigned blocked;
static __thread int my_wake_fd = -1;
static bool kick_pending;

static void note_thread(void)
{
    if (!first_seen) {
        first_thread = pthread_self();
        first_seen = true;
        return;
    }
    if (pthread_equal(first_thread, pthread_self()))
        return;
    dat_threaded = true;
    for (struct dat_dev *d = dat_devs; d; d = d->next)
        rnic_time_run_alone(d->rdev);
}

void dat_lock(void)
{
    if (depth++ > 0)
        return;
    pthread_mutex_lock(&big);
    if (DAT_UNLIKELY(!dat_threaded))
        note_thread();
}

/* Consumer callbacks asked for and not made yet, in the order asked. */
struct agent_call {
    DAT_CNO_HANDLE cno;
    DAT_EVD_HANDLE evd;
    DAT_OS_WAIT_PROXY_AGENT agent;
};
static struct agent_call *calls;
static size_t n_calls, cap_calls;
static __thread bool in_agent __attribute__((tls_model("initial-exec")));   /* this thread makes the calls */
/* The calls under way (popped, not yet returned), one per thread at most:
 * nodes on the callers' stacks, linked while the lock is held. */
struct running_call {
    DAT_CNO_HANDLE cno;
    pthread_t thread;
    struct running_call *next;
};
static struct running_call *running;
/* Out of line: the fast path of dat_unlock stays what it was. */
static void run_calls(void) __attribute__((noinline, cold));

static void flush_kicks(void)
{
    if (DAT_UNLIKELY(kick_pending)) {
        kick_pending = false;
        const uint64_t one = 1;
        for (unsigned i = 0; i < blocked; i++)
            (void)!write(blocked_fd[i], &one, sizeof(one));
    }
}

void dat_unlock(void)
{
    if (depth != 1) {
        depth--;
        return;
    }
    /* The end of a DAT call (or of a pass of the progress thread): nothing
     * up the stack holds a pointer into libdat any more. */
    if (DAT_UNLIKELY(n_calls > 0) && !in_agent)
        run_calls();
    flush_kicks();
    depth = 0;
    pthread_mutex_unlock(&big);
}

void dat_waiters_kick(void)
{
    kick_pending = true;
}

static int release_all(void)
{
    const int held = depth;
    depth = 0;
    if (held > 0)
        pthread_mutex_unlock(&big);
    return held;
}

static void reacquire(int held)
{
    if (held > 0)
        pthread_mutex_lock(&big);
    depth = held;
}

void dat_block(uint64_t timeout_ns, const struct pollfd *also, size_t n_also)
{
    if (my_wake_fd < 0)
        my_wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct pollfd p[1 + DAT_BLOCK_MAX_FDS];
    nfds_t n = 0;
    p[n++] = (struct pollfd){my_wake_fd, POLLIN, 0};
    for (size_t i = 0; i < n_also && i < DAT_BLOCK_MAX_FDS; i++)
        p[n++] = also[i];
    /* A second at most: the caller looks at the clock and its condition
     * again, so a kick lost in any way costs a second, never a hang. */
    if (timeout_ns > 1000000000u)
        timeout_ns = 1000000000u;
    const struct timespec ts = {(time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u)};
    const bool listed = blocked < MAX_BLOCKED && my_wake_fd >= 0;
    if (listed)
        blocked_fd[blocked++] = my_wake_fd;
    const int held = release_all();
    while (ppoll(p, n, &ts, NULL) < 0 && errno == EINTR) {
    }
    reacquire(held);
    if (listed) {
        for (unsigned i = 0; i < blocked; i++) {
            if (blocked_fd[i] == my_wake_fd) {
                blocked_fd[i] = blocked_fd[--blocked];
                break;
            }
        }
    }
    uint64_t v;
    while (read(my_wake_fd, &v, sizeof(v)) > 0) {
    }
}

void dat_wait_unlocked(rnic_dev *const *devs, unsigned n, uint64_t cycles)
{
    const int held = release_all();
    rnic_wait_any(devs, n, cycles);
    reacquire(held);
}

/* ------------------------------------------------------ consumer callbacks */

void dat_agent_defer(DAT_CNO_HANDLE cno, DAT_OS_WAIT_PROXY_AGENT agent, DAT_EVD_HANDLE evd)
{
    if (n_calls == cap_calls) {
        const size_t ncap = cap_calls ? 2 * cap_calls : 8;
        struct agent_call *c = realloc(calls, ncap * sizeof(*c));
        if (!c)
            return;   /* the CNO is triggered all the same: dat_cno_wait sees it */
        calls = c;
        cap_calls = ncap;
    }
    calls[n_calls++] = (struct agent_call){cno, evd, agent};
}

void dat_agent_cancel(DAT_HANDLE h)
{
    size_t k = 0;
    for (size_t i = 0; i < n_calls; i++)
        if (calls[i].cno != h && calls[i].evd != h)
            calls[k++] = calls[i];
    n_calls = k;
}

/* Makes the calls, oldest first, each with the lock released (a call may
 * ask for more: they are made too). The caller holds the lock and nothing
 * that a DAT call of the consumer could take from under it. */
static void run_calls(void)
{
    in_agent = true;
    while (n_calls > 0) {
        const struct agent_call c = calls[0];
        memmove(calls, calls + 1, --n_calls * sizeof(*calls));
        struct running_call me = {c.cno, pthread_self(), running};
        running = &me;
        flush_kicks();
        const int held = release_all();
        c.agent.proxy_agent_func(c.agent.instance_data, c.evd);
        reacquire(held);
        for (struct running_call **p = &running; *p; p = &(*p)->next) {
            if (*p == &me) {
                *p = me.next;
                break;
            }
        }
        dat_waiters_kick();   /* a dat_cno_free may wait for this call */
    }
    in_agent = false;
}

bool dat_agent_running(DAT_CNO_HANDLE cno)
{
    for (const struct running_call *r = running; r; r = r->next)
        if (r->cno == cno && !pthread_equal(r->thread, pthread_self()))
            return true;
    return false;
}

void dat_agent_wait_returned(void)
{
    dat_block(10000000u, NULL, 0);   /* 10 ms at most: the caller looks again */
}

void dat_agents_run(void)
{
    if (DAT_UNLIKELY(n_calls > 0) && !in_agent)
        run_calls();
}

/* ------------------------------------------------------ progress thread */

static int progress_wake_fd = -1;

int dat_progress_wake_fd(void)
{
    if (progress_wake_fd < 0)
        progress_wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return progress_wake_fd;
}

void dat_progress_poke(void)
{
    if (progress_wake_fd >= 0) {
        const uint64_t one = 1;
        (void)!write(progress_wake_fd, &one, sizeof(one));
    }
}
