/*
 * dat_cs: a classic uDAPL 1.2 client/server test, written against the
 * public DAT API only (<dat/udat.h>).
 *
 *   dat_cs -s [options]          server: PSP on conn_qual, accepts one client
 *   dat_cs [-h HOST] [options]   client: connects to HOST:conn_qual
 *   dat_cs -t [options]          both, one thread each, in this process
 *
 * What happens on the connection (messages are 64-byte SENDs, struct msg):
 *
 *   client                                   server
 *                                            post RQ_DEPTH RECVs, PSP, wait CR
 *   post RQ_DEPTH RECVs, connect (pdata) --> CR: check pdata, accept (pdata)
 *   ESTABLISHED                              ESTABLISHED
 *   SEND HELLO (source buffer triplet,  -->  check: the client's bytes fit
 *               bytes, pings to come)
 *   check: the server's buffer is       <--  SEND HELLO (data buffer triplet)
 *          large enough
 *   BURST RDMA WRITEs into the server's buffer, all but the last
 *   suppressed; wait for the last one
 *   SEND WRITTEN (writes, bytes)        -->  check every byte of the buffer
 *   RDMA READ of the same bytes back, check every byte
 *   PING 0                              -->  check
 *   check                               <--  PONG 0
 *   ... PINGS round trips ...
 *   SEND BYE (pings, bytes read back)   -->  check
 *   wait for BYE's send completion, then
 *   dat_ep_disconnect (graceful)             DISCONNECTED
 *   DISCONNECTED
 *   both: reap the flushed RECVs, check that every EVD is empty, free
 *   everything, dat_ia_close.
 *
 * Receive discipline: the RDMA NIC has no receiver-not-ready retry, so a
 * SEND must never arrive before its RECV is posted. Each side posts
 * RQ_DEPTH RECVs before connecting or accepting, and reposts a buffer as
 * soon as it has copied out the message it held, before it sends
 * anything. The server's HELLO goes out unprompted, and after it every
 * server message answers a client message (PONG k answers PING k), so
 * the client never has more than one server message in flight. The
 * client sends HELLO, WRITTEN and PING 0 without waiting for the server
 * to take any of them (PING k+1 waits for PONG k), so the server can have
 * three in flight, then one. RQ_DEPTH = 4 leaves a RECV posted for every
 * message with one to spare.
 *
 * The end: the client has the last word (BYE) and disconnects only after
 * BYE's send completion. Had the server sent last, its send completion
 * could race with the client's disconnect and come back flushed. The
 * server's last PONG still can: the client has it, but on a lossy link
 * the client NIC's ACK may be lost and the server NIC's resend meet the
 * disconnect. So the server reaps each PONG's completion only when the
 * next PING or BYE arrives, and once BYE has counted every PONG it takes
 * a flushed completion of the last one as delivered. After
 * DISCONNECTED each side expects every RECV still posted back, flushed,
 * in the order posted, and then every EVD empty.
 *
 * Waiting (every wait is for one event of one EVD; any other event there
 * is an error that names it, and a timeout is an error):
 *   default  dat_evd_wait with the -T timeout
 *   -p       dat_evd_dequeue loops, with a wall-clock deadline of -T
 *   -c       a CNO attached to every EVD: dat_cno_wait, then dequeue
 * DAT timeouts are the provider's time, which on a simulated NIC may run
 * far slower than the wall clock, so -W bounds the whole run on the wall
 * clock and says what each role was waiting for when it fires. With -t,
 * once one role has failed the other gets GRACE_S seconds to notice
 * through the connection and end.
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dat/udat.h>

#define DEFAULT_CONN_QUAL 18515
#define DEFAULT_BYTES (64u * 1024u)
#define DEFAULT_BURST 16u
#define DEFAULT_PINGS 32u
#define DEFAULT_TIMEOUT_S 30u
#define DEFAULT_WATCHDOG_S 600u
#define DEFAULT_SERVER_IA "rnic1"
#define DEFAULT_CLIENT_IA "rnic0"
#define DEFAULT_HOST "127.0.0.2"   /* the IA address of rnic1 */

#define RQ_DEPTH 4u                /* RECVs kept posted on each side */
#define MSG_MAGIC 0x64617463u      /* "datc" */
#define ANY_LENGTH UINT64_MAX

/* ---------------------------------------------------------------- options */

enum wait_mode { WAIT_EVD, WAIT_POLL, WAIT_CNO };

struct opts {
    int server, threads, verbose;
    enum wait_mode mode;
    char *ia_name;          /* -d, NULL: the role's default */
    const char *host;       /* -h, NULL: the default */
    DAT_CONN_QUAL qual;
    uint64_t bytes;
    unsigned burst, pings, timeout_s, watchdog_s;
};

/* ---------------------------------------------------------------- messages */

enum msg_type { MSG_HELLO = 1, MSG_WRITTEN, MSG_PING, MSG_PONG, MSG_BYE };

struct msg {
    uint32_t magic;
    uint32_t type;
    uint32_t seq;           /* PING/PONG: round trip number */
    uint32_t count;         /* HELLO: pings to come; WRITTEN: writes; BYE: pings done */
    uint64_t bytes;         /* HELLO: buffer bytes; WRITTEN: bytes written; BYE: bytes read back */
    DAT_RMR_TRIPLET rmr;    /* HELLO: the sender's buffer */
    unsigned char fill[16]; /* a function of type and seq, checked by the receiver */
};
_Static_assert(sizeof(struct msg) == 64, "struct msg is the 64-byte wire message");

static const char *msg_type_name(uint32_t t)
{
    switch (t) {
    case MSG_HELLO: return "HELLO";
    case MSG_WRITTEN: return "WRITTEN";
    case MSG_PING: return "PING";
    case MSG_PONG: return "PONG";
    case MSG_BYE: return "BYE";
    default: return "unknown";
    }
}

static unsigned char fill_byte(uint32_t type, uint32_t seq, unsigned i)
{
    return (unsigned char)(type * 61u + seq * 7u + i * 13u + 1u);
}

/* The data the client writes: byte i of the buffer. Differs between bytes
 * 256 apart, so a write landing at a wrong offset shows. The server's
 * buffer and the client's read-back buffer start as its complement, so
 * every byte that is not written shows too. */
static unsigned char pattern(uint64_t i)
{
    uint64_t x = (i + 1) * UINT64_C(0x9E3779B97F4A7C15);
    x ^= x >> 29;
    return (unsigned char)(x >> 56);
}

/* ---------------------------------------------------------------- roles */

/* A registered buffer. */
struct region {
    unsigned char *buf;
    DAT_VLEN len;
    DAT_LMR_HANDLE lmr;
    DAT_LMR_CONTEXT lmr_context;
    DAT_RMR_CONTEXT rmr_context;
};

/* Cookies: kind in the top byte, a sequence number below. */
enum cookie_kind { CK_RECV = 1, CK_SEND, CK_WRITE, CK_READ };
#define COOKIE(kind, n) (((uint64_t)(kind) << 56) | (uint64_t)(n))

/* -t: what the two role threads tell main. */
enum { SERVER, CLIENT };
struct run_sync {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    enum { LISTEN_WAITING, LISTEN_UP, LISTEN_FAILED } listen;
    char addr[INET6_ADDRSTRLEN];   /* the server IA's address */
    int ended[2], rc[2];           /* [SERVER], [CLIENT] */
};

struct role {
    const char *name;           /* "server" / "client": prefix of every line */
    const struct opts *o;
    int watch_slot;             /* where the watchdog reads what we are doing */
    char *ia_name;
    char host[256];             /* client: whom to connect to */
    struct run_sync *sync;      /* -t only */
    int sync_index;             /* SERVER or CLIENT */
    DAT_TIMEOUT timeout_us;
    double t_start;

    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async_evd;
    DAT_IA_ATTR ia_attr;
    DAT_PZ_HANDLE pz;
    DAT_CNO_HANDLE cno;
    DAT_EVD_HANDLE req_evd, recv_evd, conn_evd, cr_evd;
    DAT_EP_HANDLE ep;
    DAT_PSP_HANDLE psp;

    struct region msgs;         /* RQ_DEPTH receive slots, then one send slot */
    struct region data;         /* server: RDMA target; client: WRITE source */
    struct region back;         /* client: RDMA READ destination */

    uint64_t recv_posted, recv_done, sends;
    int send_pending;           /* a posted SEND whose completion is not reaped */
    uint32_t pending_type, pending_seq;
    uint64_t msgs_sent, msgs_recvd, msg_bytes_sent, msg_bytes_recvd;
    DAT_RMR_TRIPLET peer;       /* from the peer's HELLO */
};

#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
static void say(const struct role *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void watch_note(const struct role *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void step(const struct role *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int fail(const struct role *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int dat_fail(const struct role *r, DAT_RETURN ret, const char *fmt, ...) PRINTF_LIKE(3, 4);

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void say(const struct role *r, const char *fmt, ...)
{
    va_list ap;
    char line[512];
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    printf("%s: %s\n", r->name, line);
    fflush(stdout);
}

/* -W: a wall-clock limit on the whole run. DAT timeouts are the provider's
 * time (simulated time on a simulated NIC, which may run far slower than
 * the wall clock), so a run that hangs is ended here, saying what each
 * role was doing. */
#define WATCH_ROLES 2
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *watch_name[WATCH_ROLES];
static char watch_doing[WATCH_ROLES][256];
static int watch_ended[WATCH_ROLES];
static int watch_roles;

static void watch_register(struct role *r)
{
    pthread_mutex_lock(&watch_lock);
    r->watch_slot = watch_roles < WATCH_ROLES ? watch_roles++ : -1;
    if (r->watch_slot >= 0) {
        watch_name[r->watch_slot] = r->name;
        snprintf(watch_doing[r->watch_slot], sizeof(watch_doing[0]), "starting");
    }
    pthread_mutex_unlock(&watch_lock);
}

static void watch_vnote(const struct role *r, const char *fmt, va_list ap)
{
    if (r->watch_slot < 0)
        return;
    pthread_mutex_lock(&watch_lock);
    vsnprintf(watch_doing[r->watch_slot], sizeof(watch_doing[0]), fmt, ap);
    pthread_mutex_unlock(&watch_lock);
}

static void watch_note(const struct role *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    watch_vnote(r, fmt, ap);
    va_end(ap);
}

static void watch_end(const struct role *r)
{
    if (r->watch_slot < 0)
        return;
    pthread_mutex_lock(&watch_lock);
    watch_ended[r->watch_slot] = 1;
    pthread_mutex_unlock(&watch_lock);
}

/* Ends the process, as failed, saying what the roles still running do. */
static void give_up(const char *why)
{
    int running = 0;
    pthread_mutex_lock(&watch_lock);
    for (int i = 0; i < watch_roles; i++)
        if (!watch_ended[i]) {
            fprintf(stderr, "%s: FAILED: %s; last: %s\n", watch_name[i], why, watch_doing[i]);
            running++;
        }
    if (!running)
        fprintf(stderr, "dat_cs: FAILED: %s\n", why);
    fflush(stderr);
    fflush(stdout);
    _exit(1);
}

static void *watchdog(void *arg)
{
    const unsigned limit = *(const unsigned *)arg;
    struct timespec left = { (time_t)limit, 0 };
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ;
    char why[64];
    snprintf(why, sizeof(why), "no end after %u s (-W)", limit);
    give_up(why);
    return NULL;
}

/* One step done: remembered for the watchdog, printed with -v. */
static void step(const struct role *r, const char *fmt, ...)
{
    va_list ap;
    char line[256];
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    watch_note(r, "%s", line);
    if (r->o->verbose)
        say(r, "%s", line);
}

/* Prints what failed and returns -1. */
static int fail(const struct role *r, const char *fmt, ...)
{
    va_list ap;
    char line[512];
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: FAILED: %s\n", r->name, line);
    fflush(stderr);
    return -1;
}

static int dat_fail(const struct role *r, DAT_RETURN ret, const char *fmt, ...)
{
    va_list ap;
    char what[384];
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    const char *major = NULL, *minor = NULL;
    if (dat_strerror(ret, &major, &minor) != DAT_SUCCESS || !major)
        return fail(r, "%s: DAT_RETURN 0x%08x", what, (unsigned)ret);
    return fail(r, "%s: %s (%s) [0x%08x]", what, major, minor ? minor : "", (unsigned)ret);
}

/* Every DAT call goes through this: anything but DAT_SUCCESS is a failure. */
#define CHECK(r, call, ...)                                                                     \
    do {                                                                                        \
        DAT_RETURN ret_ = (call);                                                               \
        if (ret_ != DAT_SUCCESS)                                                                \
            return dat_fail((r), ret_, __VA_ARGS__);                                            \
    } while (0)

static const char *event_name(DAT_EVENT_NUMBER n)
{
    switch (n) {
    case DAT_DTO_COMPLETION_EVENT: return "DTO_COMPLETION";
    case DAT_RMR_BIND_COMPLETION_EVENT: return "RMR_BIND_COMPLETION";
    case DAT_CONNECTION_REQUEST_EVENT: return "CONNECTION_REQUEST";
    case DAT_CONNECTION_EVENT_ESTABLISHED: return "CONNECTION_EVENT_ESTABLISHED";
    case DAT_CONNECTION_EVENT_PEER_REJECTED: return "CONNECTION_EVENT_PEER_REJECTED";
    case DAT_CONNECTION_EVENT_NON_PEER_REJECTED: return "CONNECTION_EVENT_NON_PEER_REJECTED";
    case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR: return "CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR";
    case DAT_CONNECTION_EVENT_DISCONNECTED: return "CONNECTION_EVENT_DISCONNECTED";
    case DAT_CONNECTION_EVENT_BROKEN: return "CONNECTION_EVENT_BROKEN";
    case DAT_CONNECTION_EVENT_TIMED_OUT: return "CONNECTION_EVENT_TIMED_OUT";
    case DAT_CONNECTION_EVENT_UNREACHABLE: return "CONNECTION_EVENT_UNREACHABLE";
    case DAT_ASYNC_ERROR_EVD_OVERFLOW: return "ASYNC_ERROR_EVD_OVERFLOW";
    case DAT_ASYNC_ERROR_IA_CATASTROPHIC: return "ASYNC_ERROR_IA_CATASTROPHIC";
    case DAT_ASYNC_ERROR_EP_BROKEN: return "ASYNC_ERROR_EP_BROKEN";
    case DAT_ASYNC_ERROR_TIMED_OUT: return "ASYNC_ERROR_TIMED_OUT";
    case DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR: return "ASYNC_ERROR_PROVIDER_INTERNAL_ERROR";
    case DAT_SOFTWARE_EVENT: return "SOFTWARE_EVENT";
    default: return "unknown event";
    }
}

static const char *dto_status_name(DAT_DTO_COMPLETION_STATUS s)
{
    static const char *const names[] = {
        "SUCCESS", "ERR_FLUSHED", "ERR_LOCAL_LENGTH", "ERR_LOCAL_EP", "ERR_LOCAL_PROTECTION",
        "ERR_BAD_RESPONSE", "ERR_REMOTE_ACCESS", "ERR_REMOTE_RESPONDER", "ERR_TRANSPORT",
        "ERR_RECEIVER_NOT_READY", "ERR_PARTIAL_PACKET", "RMR_OPERATION_FAILED",
    };
    return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown status";
}

static const char *cookie_str(uint64_t c, char *buf, size_t n)
{
    static const char *const kinds[] = { "?", "RECV", "SEND", "RDMA WRITE", "RDMA READ" };
    unsigned k = (unsigned)(c >> 56);
    snprintf(buf, n, "%s #%" PRIu64 " (cookie 0x%016" PRIx64 ")", k < 5 ? kinds[k] : "?",
             c & ((UINT64_C(1) << 56) - 1), c);
    return buf;
}

static const char *evd_label(const struct role *r, DAT_EVD_HANDLE h)
{
    if (h == DAT_HANDLE_NULL)
        return "null";
    if (h == r->req_evd)
        return "request";
    if (h == r->recv_evd)
        return "receive";
    if (h == r->conn_evd)
        return "connection";
    if (h == r->cr_evd)
        return "connection-request";
    if (h == r->async_evd)
        return "async";
    return "unknown";
}

static const char *addr_str(const DAT_SOCK_ADDR *sa, char *buf, size_t n)
{
    if (!sa) {
        snprintf(buf, n, "(none)");
    } else if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *sin = (const struct sockaddr_in *)(const void *)sa;
        if (!inet_ntop(AF_INET, &sin->sin_addr, buf, (socklen_t)n))
            snprintf(buf, n, "(bad IPv4 address)");
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)(const void *)sa;
        if (!inet_ntop(AF_INET6, &sin6->sin6_addr, buf, (socklen_t)n))
            snprintf(buf, n, "(bad IPv6 address)");
    } else {
        snprintf(buf, n, "(address family %d)", sa->sa_family);
    }
    return buf;
}

/* Describes an event that was not the one waited for, and fails. */
static int unexpected(const struct role *r, const DAT_EVENT *ev, const char *evd_name, const char *what)
{
    char extra[160] = "";
    if (ev->event_number == DAT_DTO_COMPLETION_EVENT) {
        const DAT_DTO_COMPLETION_EVENT_DATA *d = &ev->event_data.dto_completion_event_data;
        char c[96];
        snprintf(extra, sizeof(extra), ": %s, status %d (%s)", cookie_str(d->user_cookie.as_64, c, sizeof(c)),
                 (int)d->status, dto_status_name(d->status));
    } else if (ev->event_number >= DAT_ASYNC_ERROR_EVD_OVERFLOW &&
               ev->event_number <= DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR) {
        snprintf(extra, sizeof(extra), ": reason %d", (int)ev->event_data.asynch_error_event_data.reason);
    }
    return fail(r, "unexpected event 0x%05x (%s%s) on the %s EVD while waiting for %s", (unsigned)ev->event_number,
                event_name(ev->event_number), extra, evd_name, what);
}

static int timed_out(const struct role *r, const char *evd_name, const char *what)
{
    return fail(r, "timed out (%u s) waiting on the %s EVD for %s", r->o->timeout_s, evd_name, what);
}

/* The next event of one EVD, in the chosen waiting mode. */
static int next_event(struct role *r, DAT_EVD_HANDLE evd, const char *what, DAT_EVENT *ev)
{
    const char *evd_name = evd_label(r, evd);
    const double deadline = now_s() + r->o->timeout_s;
    DAT_RETURN ret;

    watch_note(r, "waiting on the %s EVD for %s", evd_name, what);

    switch (r->o->mode) {
    case WAIT_EVD:
        for (;;) {
            DAT_COUNT nmore = 0;
            ret = dat_evd_wait(evd, r->timeout_us, 1, ev, &nmore);
            if (ret == DAT_SUCCESS)
                return 0;
            if (DAT_GET_TYPE(ret) == DAT_INTERRUPTED_CALL && now_s() < deadline)
                continue;
            if (DAT_GET_TYPE(ret) == DAT_TIMEOUT_EXPIRED)
                return timed_out(r, evd_name, what);
            return dat_fail(r, ret, "dat_evd_wait (%s EVD, for %s)", evd_name, what);
        }

    case WAIT_POLL: {
        unsigned spins = 0;
        while (DAT_GET_TYPE(ret = dat_evd_dequeue(evd, ev)) == DAT_QUEUE_EMPTY) {
            if ((++spins & 1023u) == 0 && now_s() >= deadline)
                return timed_out(r, evd_name, what);
        }
        if (ret != DAT_SUCCESS)
            return dat_fail(r, ret, "dat_evd_dequeue (%s EVD, for %s)", evd_name, what);
        return 0;
    }

    case WAIT_CNO:
        /* The CNO says which EVD had a notification; the event we want may
         * already be queued (the CNO fired for another EVD first, or for
         * ours before we dequeued), so dequeue before every wait. */
        for (;;) {
            ret = dat_evd_dequeue(evd, ev);
            if (ret == DAT_SUCCESS)
                return 0;
            if (DAT_GET_TYPE(ret) != DAT_QUEUE_EMPTY)
                return dat_fail(r, ret, "dat_evd_dequeue (%s EVD, for %s)", evd_name, what);
            if (now_s() >= deadline)
                return timed_out(r, evd_name, what);
            DAT_EVD_HANDLE woke = DAT_HANDLE_NULL;
            ret = dat_cno_wait(r->cno, r->timeout_us, &woke);
            if (ret == DAT_SUCCESS) {
                if (woke != evd && r->o->verbose)
                    say(r, "CNO triggered by the %s EVD while waiting on the %s EVD", evd_label(r, woke), evd_name);
                continue;
            }
            if (DAT_GET_TYPE(ret) == DAT_INTERRUPTED_CALL)
                continue;
            if (DAT_GET_TYPE(ret) == DAT_TIMEOUT_EXPIRED)
                return timed_out(r, evd_name, what);
            return dat_fail(r, ret, "dat_cno_wait (waiting on the %s EVD for %s)", evd_name, what);
        }
    }
    return fail(r, "bad wait mode");
}

static int expect_event(struct role *r, DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER want, const char *what, DAT_EVENT *ev)
{
    if (next_event(r, evd, what, ev))
        return -1;
    if (ev->event_number != want)
        return unexpected(r, ev, evd_label(r, evd), what);
    return 0;
}

/* The next event of evd: a DTO completion of our EP with this cookie, one
 * of the n_ok statuses in ok[] and, unless ANY_LENGTH, this transferred
 * length. */
static int expect_dto_of(struct role *r, DAT_EVD_HANDLE evd, uint64_t cookie, const DAT_DTO_COMPLETION_STATUS *ok,
                         unsigned n_ok, DAT_VLEN length, const char *what, DAT_DTO_COMPLETION_EVENT_DATA *out)
{
    DAT_EVENT ev;
    char want_c[96], got_c[96];
    if (expect_event(r, evd, DAT_DTO_COMPLETION_EVENT, what, &ev))
        return -1;
    const DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;
    if (d->ep_handle != r->ep)
        return fail(r, "%s: completion of %s on the %s EVD is for another EP", what,
                    cookie_str(d->user_cookie.as_64, got_c, sizeof(got_c)), evd_label(r, evd));
    unsigned i = 0;
    while (i < n_ok && d->status != ok[i])
        i++;
    if (i == n_ok)
        return fail(r, "%s: %s completed with status %d (%s), expected %s%s", what,
                    cookie_str(d->user_cookie.as_64, got_c, sizeof(got_c)), (int)d->status,
                    dto_status_name(d->status), dto_status_name(ok[0]), n_ok > 1 ? " or another allowed one" : "");
    if (d->user_cookie.as_64 != cookie)
        return fail(r, "%s: completion of %s where %s was expected", what,
                    cookie_str(d->user_cookie.as_64, got_c, sizeof(got_c)), cookie_str(cookie, want_c, sizeof(want_c)));
    if (length != ANY_LENGTH && d->transfered_length != length)
        return fail(r, "%s: %s transferred %llu bytes, expected %llu", what, cookie_str(cookie, got_c, sizeof(got_c)),
                    (unsigned long long)d->transfered_length, (unsigned long long)length);
    if (out)
        *out = *d;
    return 0;
}

/* The same with exactly one status allowed. */
static int expect_dto(struct role *r, DAT_EVD_HANDLE evd, uint64_t cookie, DAT_DTO_COMPLETION_STATUS status,
                      DAT_VLEN length, const char *what, DAT_DTO_COMPLETION_EVENT_DATA *out)
{
    return expect_dto_of(r, evd, cookie, &status, 1, length, what, out);
}

/* ---------------------------------------------------------------- buffers */

static int region_create(struct role *r, struct region *g, DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv, const char *what)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t align = page > 0 ? (size_t)page : 4096u;
    size_t alloc = (size_t)((len + align - 1) / align * align);
    void *p = NULL;
    int e = posix_memalign(&p, align, alloc);
    if (e != 0)
        return fail(r, "allocating %llu bytes for the %s buffer: %s", (unsigned long long)len, what, strerror(e));
    g->buf = p;
    g->len = len;
    memset(g->buf, 0, alloc);

    DAT_REGION_DESCRIPTION region;
    memset(&region, 0, sizeof(region));
    region.for_va = g->buf;
    DAT_VLEN reg_size = 0;
    DAT_VADDR reg_addr = 0;
    CHECK(r,
          dat_lmr_create(r->ia, DAT_MEM_TYPE_VIRTUAL, region, len, r->pz, priv, &g->lmr, &g->lmr_context,
                         &g->rmr_context, &reg_size, &reg_addr),
          "dat_lmr_create (%s buffer, %llu bytes)", what, (unsigned long long)len);
    const DAT_VADDR va = (DAT_VADDR)(uintptr_t)g->buf;
    if (reg_addr > va || reg_addr + reg_size < va + len)
        return fail(r, "dat_lmr_create (%s buffer): registered 0x%llx+%llu does not cover 0x%llx+%llu", what,
                    (unsigned long long)reg_addr, (unsigned long long)reg_size, (unsigned long long)va,
                    (unsigned long long)len);
    step(r, "registered the %s buffer: %llu bytes at 0x%llx, lmr_context 0x%x, rmr_context 0x%x", what,
         (unsigned long long)len, (unsigned long long)va, (unsigned)g->lmr_context, (unsigned)g->rmr_context);
    return 0;
}

static DAT_LMR_TRIPLET local_iov(const struct region *g, DAT_VLEN off, DAT_VLEN len)
{
    DAT_LMR_TRIPLET t = { g->lmr_context, 0, (DAT_VADDR)(uintptr_t)(g->buf + off), len };
    return t;
}

static DAT_RMR_TRIPLET advertised(const struct region *g)
{
    DAT_RMR_TRIPLET t = { g->rmr_context, 0, (DAT_VADDR)(uintptr_t)g->buf, g->len };
    return t;
}

/* Bytes [from, to) of buf must be the pattern (or, with complement, its
 * complement: never written). */
static int check_bytes(const struct role *r, const char *what, const unsigned char *buf, uint64_t from, uint64_t to,
                       int complement)
{
    uint64_t bad = 0, first = 0;
    for (uint64_t i = from; i < to; i++) {
        unsigned char want = complement ? (unsigned char)~pattern(i) : pattern(i);
        if (buf[i] != want) {
            if (bad++ == 0)
                first = i;
        }
    }
    if (bad) {
        unsigned char want = complement ? (unsigned char)~pattern(first) : pattern(first);
        return fail(r, "%s: %llu of %llu bytes wrong; the first at offset %llu is 0x%02x, expected 0x%02x", what,
                    (unsigned long long)bad, (unsigned long long)(to - from), (unsigned long long)first,
                    buf[first], want);
    }
    return 0;
}

/* ---------------------------------------------------------------- messages */

static unsigned char *recv_slot(const struct role *r, uint64_t n)
{
    return r->msgs.buf + (n % RQ_DEPTH) * sizeof(struct msg);
}

static struct msg *send_slot(const struct role *r)
{
    return (struct msg *)(void *)(r->msgs.buf + RQ_DEPTH * sizeof(struct msg));
}

static int post_recv(struct role *r)
{
    if (r->recv_posted - r->recv_done >= RQ_DEPTH)
        return fail(r, "internal: all %u receive slots are posted", RQ_DEPTH);
    DAT_LMR_TRIPLET iov = local_iov(&r->msgs, (r->recv_posted % RQ_DEPTH) * sizeof(struct msg), sizeof(struct msg));
    DAT_DTO_COOKIE c;
    c.as_64 = COOKIE(CK_RECV, r->recv_posted);
    CHECK(r, dat_ep_post_recv(r->ep, 1, &iov, c, DAT_COMPLETION_DEFAULT_FLAG), "dat_ep_post_recv #%llu",
          (unsigned long long)r->recv_posted);
    r->recv_posted++;
    return 0;
}

/* Posts one SEND from the one send slot. Its completion must be reaped
 * (wait_sent) before the slot is used again. */
static int post_msg(struct role *r, uint32_t type, uint32_t seq, uint32_t count, uint64_t bytes,
                    const DAT_RMR_TRIPLET *rmr)
{
    if (r->send_pending)
        return fail(r, "internal: %s %u posted while %s %u is not completed", msg_type_name(type), (unsigned)seq,
                    msg_type_name(r->pending_type), (unsigned)r->pending_seq);
    struct msg *m = send_slot(r);
    memset(m, 0, sizeof(*m));
    m->magic = MSG_MAGIC;
    m->type = type;
    m->seq = seq;
    m->count = count;
    m->bytes = bytes;
    if (rmr)
        m->rmr = *rmr;
    for (unsigned i = 0; i < sizeof(m->fill); i++)
        m->fill[i] = fill_byte(type, seq, i);

    DAT_LMR_TRIPLET iov = local_iov(&r->msgs, (DAT_VLEN)((unsigned char *)m - r->msgs.buf), sizeof(*m));
    DAT_DTO_COOKIE c;
    c.as_64 = COOKIE(CK_SEND, r->sends);
    CHECK(r, dat_ep_post_send(r->ep, 1, &iov, c, DAT_COMPLETION_DEFAULT_FLAG), "dat_ep_post_send (%s %u)",
          msg_type_name(type), (unsigned)seq);
    r->send_pending = 1;
    r->pending_type = type;
    r->pending_seq = seq;
    return 0;
}

/* Reaps the posted SEND's completion. flushed_ok is for a message the
 * peer has already confirmed in a message of its own: the peer may then
 * disconnect before our NIC has its ACK (on a lossy link the ACK can be
 * lost and the resend meet the disconnect), and the SEND completes
 * flushed although it arrived. */
static int wait_sent(struct role *r, int flushed_ok)
{
    char what[64];
    const uint32_t type = r->pending_type, seq = r->pending_seq;
    snprintf(what, sizeof(what), "the send completion of %s %u", msg_type_name(type), (unsigned)seq);
    const uint64_t cookie = COOKIE(CK_SEND, r->sends);
    const DAT_DTO_COMPLETION_STATUS ok[2] = { DAT_DTO_SUCCESS, DAT_DTO_ERR_FLUSHED };
    DAT_DTO_COMPLETION_EVENT_DATA d = { 0 };
    if (expect_dto_of(r, r->req_evd, cookie, ok, flushed_ok ? 2 : 1, ANY_LENGTH, what, &d))
        return -1;
    r->send_pending = 0;
    r->sends++;
    r->msgs_sent++;
    r->msg_bytes_sent += sizeof(struct msg);
    if (d.status == DAT_DTO_SUCCESS)
        step(r, "sent %s %u", msg_type_name(type), (unsigned)seq);
    else
        step(r, "sent %s %u (flushed by the disconnect; the peer had confirmed it)", msg_type_name(type),
             (unsigned)seq);
    return 0;
}

/* SENDs one message and waits for its completion (so the one send slot is
 * free again). */
static int send_msg(struct role *r, uint32_t type, uint32_t seq, uint32_t count, uint64_t bytes,
                    const DAT_RMR_TRIPLET *rmr)
{
    if (post_msg(r, type, seq, count, bytes, rmr))
        return -1;
    return wait_sent(r, 0);
}

/* Takes the next received message (its type must be in the mask of
 * 1 << type), reposts its buffer before anything else and checks it. */
static int recv_msg(struct role *r, unsigned type_mask, const char *what, struct msg *out)
{
    DAT_DTO_COMPLETION_EVENT_DATA d;
    if (r->recv_done == r->recv_posted)
        return fail(r, "internal: waiting for %s with no receive posted", what);
    if (expect_dto(r, r->recv_evd, COOKIE(CK_RECV, r->recv_done), DAT_DTO_SUCCESS, sizeof(struct msg), what, &d))
        return -1;
    memcpy(out, recv_slot(r, r->recv_done), sizeof(*out));
    r->recv_done++;
    r->msgs_recvd++;
    r->msg_bytes_recvd += d.transfered_length;
    if (post_recv(r))
        return -1;
    if (out->magic != MSG_MAGIC)
        return fail(r, "%s: message without the magic number (0x%08x)", what, (unsigned)out->magic);
    if (out->type >= 32 || !(type_mask & (1u << out->type)))
        return fail(r, "%s: got a %s message (type %u)", what, msg_type_name(out->type), (unsigned)out->type);
    for (unsigned i = 0; i < sizeof(out->fill); i++) {
        if (out->fill[i] != fill_byte(out->type, out->seq, i))
            return fail(r, "%s: %s %u has byte %u of its fill 0x%02x, expected 0x%02x", what,
                        msg_type_name(out->type), (unsigned)out->seq, (unsigned)(offsetof(struct msg, fill) + i), out->fill[i],
                        fill_byte(out->type, out->seq, i));
    }
    step(r, "received %s %u", msg_type_name(out->type), (unsigned)out->seq);
    return 0;
}

/* ---------------------------------------------------------------- setup, teardown */

static int setup(struct role *r, DAT_COUNT max_request_dtos)
{
    const struct opts *o = r->o;
    static const char *const modes[] = { "dat_evd_wait", "dat_evd_dequeue polling", "a CNO" };
    step(r, "waiting with %s, timeout %u s; -b %llu, -B %u, -P %u", modes[o->mode], o->timeout_s,
         (unsigned long long)o->bytes, o->burst, o->pings);
    r->async_evd = DAT_HANDLE_NULL;
    CHECK(r, dat_ia_open(r->ia_name, 8, &r->async_evd, &r->ia), "dat_ia_open (%s)", r->ia_name);
    CHECK(r, dat_ia_query(r->ia, NULL, DAT_IA_FIELD_ALL, &r->ia_attr, DAT_PROVIDER_FIELD_NONE, NULL),
          "dat_ia_query (%s)", r->ia_name);
    char a[INET6_ADDRSTRLEN];
    step(r, "opened IA %s (adapter %s), address %s", r->ia_name, r->ia_attr.adapter_name,
         addr_str(r->ia_attr.ia_address_ptr, a, sizeof(a)));

    if (max_request_dtos > r->ia_attr.max_dto_per_ep)
        return fail(r, "the EP would need %d requests (-B %u), IA %s allows %d", (int)max_request_dtos, o->burst,
                    r->ia_name, (int)r->ia_attr.max_dto_per_ep);
    if ((DAT_COUNT)RQ_DEPTH > r->ia_attr.max_dto_per_ep)
        return fail(r, "IA %s allows only %d DTOs per EP", r->ia_name, (int)r->ia_attr.max_dto_per_ep);
    if (o->bytes > r->ia_attr.max_lmr_block_size)
        return fail(r, "-b %llu is more than IA %s registers (%llu bytes)", (unsigned long long)o->bytes, r->ia_name,
                    (unsigned long long)r->ia_attr.max_lmr_block_size);

    CHECK(r, dat_pz_create(r->ia, &r->pz), "dat_pz_create");
    if (o->mode == WAIT_CNO) {
        CHECK(r, dat_cno_create(r->ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &r->cno), "dat_cno_create");
        step(r, "created a CNO; every EVD below is attached to it");
    }
    const DAT_COUNT req_qlen = max_request_dtos + 4, recv_qlen = (DAT_COUNT)RQ_DEPTH + 4;
    CHECK(r, dat_evd_create(r->ia, req_qlen, r->cno, DAT_EVD_DTO_FLAG, &r->req_evd), "dat_evd_create (request)");
    CHECK(r, dat_evd_create(r->ia, recv_qlen, r->cno, DAT_EVD_DTO_FLAG, &r->recv_evd), "dat_evd_create (receive)");
    CHECK(r, dat_evd_create(r->ia, 4, r->cno, DAT_EVD_CONNECTION_FLAG, &r->conn_evd), "dat_evd_create (connection)");

    DAT_EP_ATTR attr;
    memset(&attr, 0, sizeof(attr));
    attr.service_type = DAT_SERVICE_TYPE_RC;
    attr.max_message_size = r->ia_attr.max_message_size;
    attr.max_rdma_size = r->ia_attr.max_rdma_size;
    attr.qos = DAT_QOS_BEST_EFFORT;
    attr.recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
    attr.request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
    attr.max_recv_dtos = (DAT_COUNT)RQ_DEPTH;
    attr.max_request_dtos = max_request_dtos;
    attr.max_recv_iov = 1;
    attr.max_request_iov = 1;
    attr.max_rdma_read_in = r->ia_attr.max_rdma_read_per_ep_in;
    attr.max_rdma_read_out = r->ia_attr.max_rdma_read_per_ep_out;
    attr.srq_soft_hw = DAT_HW_DEFAULT;
    attr.max_rdma_read_iov = 1;
    attr.max_rdma_write_iov = 1;
    attr.ep_transport_specific_count = 0;
    attr.ep_transport_specific = NULL;
    attr.ep_provider_specific_count = 0;
    attr.ep_provider_specific = NULL;
    CHECK(r, dat_ep_create(r->ia, r->pz, r->recv_evd, r->req_evd, r->conn_evd, &attr, &r->ep), "dat_ep_create");
    step(r, "created the EP: %d request and %d receive DTOs, RDMA READs in %d / out %d", (int)max_request_dtos,
         (int)RQ_DEPTH, (int)attr.max_rdma_read_in, (int)attr.max_rdma_read_out);

    if (region_create(r, &r->msgs, (RQ_DEPTH + 1) * sizeof(struct msg),
                      DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG, "message"))
        return -1;
    return 0;
}

/* After DISCONNECTED: the RECVs still posted come back flushed, in order. */
static int reap_flushed(struct role *r)
{
    uint64_t n = r->recv_posted - r->recv_done;
    while (r->recv_done < r->recv_posted) {
        if (expect_dto(r, r->recv_evd, COOKIE(CK_RECV, r->recv_done), DAT_DTO_ERR_FLUSHED, ANY_LENGTH,
                       "a flushed receive", NULL))
            return -1;
        r->recv_done++;
    }
    step(r, "reaped %llu flushed receives", (unsigned long long)n);
    return 0;
}

/* Nothing may be left on an EVD at the end. */
static int check_empty(struct role *r, DAT_EVD_HANDLE evd)
{
    DAT_EVENT ev;
    if (evd == DAT_HANDLE_NULL)
        return 0;
    DAT_RETURN ret = dat_evd_dequeue(evd, &ev);
    if (ret == DAT_SUCCESS)
        return unexpected(r, &ev, evd_label(r, evd), "nothing (the end of the run)");
    if (DAT_GET_TYPE(ret) != DAT_QUEUE_EMPTY)
        return dat_fail(r, ret, "dat_evd_dequeue (%s EVD, at the end)", evd_label(r, evd));
    return 0;
}

static int region_free(struct role *r, struct region *g, const char *what)
{
    if (g->lmr != DAT_HANDLE_NULL) {
        CHECK(r, dat_lmr_free(g->lmr), "dat_lmr_free (%s buffer)", what);
        g->lmr = DAT_HANDLE_NULL;
    }
    return 0;
}

static int evd_free(struct role *r, DAT_EVD_HANDLE *evd)
{
    if (*evd != DAT_HANDLE_NULL) {
        CHECK(r, dat_evd_free(*evd), "dat_evd_free (%s EVD)", evd_label(r, *evd));
        *evd = DAT_HANDLE_NULL;
    }
    return 0;
}

/* The orderly end: every object freed on its own, then the IA. */
static int teardown(struct role *r)
{
    if (check_empty(r, r->req_evd) || check_empty(r, r->recv_evd) || check_empty(r, r->conn_evd) ||
        check_empty(r, r->cr_evd))
        return -1;
    if (r->psp != DAT_HANDLE_NULL) {
        CHECK(r, dat_psp_free(r->psp), "dat_psp_free");
        r->psp = DAT_HANDLE_NULL;
    }
    CHECK(r, dat_ep_free(r->ep), "dat_ep_free");
    r->ep = DAT_HANDLE_NULL;
    if (region_free(r, &r->msgs, "message") || region_free(r, &r->data, "data") || region_free(r, &r->back, "read-back"))
        return -1;
    if (evd_free(r, &r->req_evd) || evd_free(r, &r->recv_evd) || evd_free(r, &r->conn_evd) ||
        evd_free(r, &r->cr_evd))
        return -1;
    if (r->cno != DAT_HANDLE_NULL) {
        CHECK(r, dat_cno_free(r->cno), "dat_cno_free");
        r->cno = DAT_HANDLE_NULL;
    }
    CHECK(r, dat_pz_free(r->pz), "dat_pz_free");
    r->pz = DAT_HANDLE_NULL;
    if (check_empty(r, r->async_evd))
        return -1;
    CHECK(r, dat_ia_close(r->ia, DAT_CLOSE_GRACEFUL_FLAG), "dat_ia_close (graceful)");
    r->ia = DAT_HANDLE_NULL;
    step(r, "closed IA %s", r->ia_name);
    return 0;
}

/* After a failure: drop the connection so the peer sees it at once, and
 * let an abrupt dat_ia_close destroy what is left. */
static void abort_role(struct role *r)
{
    if (r->ia == DAT_HANDLE_NULL)
        return;
    if (r->ep != DAT_HANDLE_NULL)
        (void)dat_ep_disconnect(r->ep, DAT_CLOSE_ABRUPT_FLAG);
    DAT_RETURN ret = dat_ia_close(r->ia, DAT_CLOSE_ABRUPT_FLAG);
    if (ret != DAT_SUCCESS) {
        dat_fail(r, ret, "dat_ia_close (abrupt, after the failure)");
        return;   /* the NIC may still own the buffers: keep them */
    }
    r->ia = DAT_HANDLE_NULL;
}

static void release_buffers(struct role *r)
{
    if (r->ia != DAT_HANDLE_NULL)
        return;
    free(r->msgs.buf);
    free(r->data.buf);
    free(r->back.buf);
    r->msgs.buf = r->data.buf = r->back.buf = NULL;
}

/* ---------------------------------------------------------------- server */

static const char client_pdata[] = "dat_cs client v1";
static const char server_pdata[] = "dat_cs server v1";

static void listen_report(struct role *r, int up, const char *addr)
{
    if (!r->sync || r->sync_index != SERVER)
        return;
    pthread_mutex_lock(&r->sync->lock);
    if (r->sync->listen == LISTEN_WAITING) {
        r->sync->listen = up ? LISTEN_UP : LISTEN_FAILED;
        if (addr)
            snprintf(r->sync->addr, sizeof(r->sync->addr), "%s", addr);
        pthread_cond_broadcast(&r->sync->cond);
    }
    pthread_mutex_unlock(&r->sync->lock);
}

static int server_body(struct role *r)
{
    const struct opts *o = r->o;
    DAT_EVENT ev;

    if (setup(r, 4))
        return -1;
    CHECK(r, dat_evd_create(r->ia, 4, r->cno, DAT_EVD_CR_FLAG, &r->cr_evd), "dat_evd_create (connection-request)");
    if (region_create(r, &r->data, o->bytes,
                      DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_READ_FLAG |
                          DAT_MEM_PRIV_REMOTE_WRITE_FLAG,
                      "data"))
        return -1;
    for (uint64_t i = 0; i < o->bytes; i++)
        r->data.buf[i] = (unsigned char)~pattern(i);
    /* Our own writes, visible to the NIC before it writes and reads there
     * (a no-op where the host is coherent). */
    DAT_LMR_TRIPLET whole = local_iov(&r->data, 0, o->bytes);
    CHECK(r, dat_lmr_sync_rdma_read(r->ia, &whole, 1), "dat_lmr_sync_rdma_read (data buffer)");

    /* Receives first: the client's HELLO may follow the accept at once. */
    for (unsigned i = 0; i < RQ_DEPTH; i++)
        if (post_recv(r))
            return -1;
    CHECK(r, dat_psp_create(r->ia, o->qual, r->cr_evd, DAT_PSP_CONSUMER_FLAG, &r->psp), "dat_psp_create (conn_qual %llu)",
          (unsigned long long)o->qual);
    char addr[INET6_ADDRSTRLEN];
    addr_str(r->ia_attr.ia_address_ptr, addr, sizeof(addr));
    say(r, "listening on %s:%llu", addr, (unsigned long long)o->qual);
    watch_note(r, "listening on %s:%llu", addr, (unsigned long long)o->qual);
    listen_report(r, 1, addr);

    if (expect_event(r, r->cr_evd, DAT_CONNECTION_REQUEST_EVENT, "a connection request", &ev))
        return -1;
    const DAT_CR_ARRIVAL_EVENT_DATA *cra = &ev.event_data.cr_arrival_event_data;
    if (cra->sp_handle.psp_handle != r->psp)
        return fail(r, "the connection request names another PSP");
    if (cra->conn_qual != o->qual)
        return fail(r, "the connection request is for conn_qual %llu, we listen on %llu",
                    (unsigned long long)cra->conn_qual, (unsigned long long)o->qual);
    DAT_CR_HANDLE cr = cra->cr_handle;
    DAT_CR_PARAM crp;
    memset(&crp, 0, sizeof(crp));
    CHECK(r, dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp), "dat_cr_query");
    char peer[INET6_ADDRSTRLEN];
    step(r, "connection request from %s port %llu with %d bytes of private data",
         addr_str(crp.remote_ia_address_ptr, peer, sizeof(peer)), (unsigned long long)crp.remote_port_qual,
         (int)crp.private_data_size);
    if (crp.private_data_size < (DAT_COUNT)sizeof(client_pdata) || !crp.private_data ||
        memcmp(crp.private_data, client_pdata, sizeof(client_pdata)) != 0) {
        (void)dat_cr_reject(cr);
        return fail(r, "the connection request's private data (%d bytes) is not \"%s\"", (int)crp.private_data_size,
                    client_pdata);
    }
    char pdata[sizeof(server_pdata)];
    memcpy(pdata, server_pdata, sizeof(pdata));
    CHECK(r, dat_cr_accept(cr, r->ep, (DAT_COUNT)sizeof(pdata), pdata), "dat_cr_accept");
    step(r, "accepted");
    if (expect_event(r, r->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED", &ev))
        return -1;
    if (ev.event_data.connect_event_data.ep_handle != r->ep)
        return fail(r, "ESTABLISHED for another EP");
    step(r, "connected");
    /* One client: stop listening. */
    CHECK(r, dat_psp_free(r->psp), "dat_psp_free");
    r->psp = DAT_HANDLE_NULL;

    /* HELLOs both ways. */
    DAT_RMR_TRIPLET mine = advertised(&r->data);
    if (send_msg(r, MSG_HELLO, 0, 0, o->bytes, &mine))
        return -1;
    struct msg m;
    if (recv_msg(r, 1u << MSG_HELLO, "the client's HELLO", &m))
        return -1;
    const uint64_t bytes = m.bytes;
    const uint32_t pings = m.count;
    r->peer = m.rmr;
    step(r, "client: %llu bytes to write, %u pings; its buffer: rmr_context 0x%x, address 0x%llx, %llu bytes",
         (unsigned long long)bytes, (unsigned)pings, (unsigned)m.rmr.rmr_context,
         (unsigned long long)m.rmr.target_address, (unsigned long long)m.rmr.segment_length);
    if (bytes == 0 || bytes > o->bytes)
        return fail(r, "the client will write %llu bytes; the buffer has %llu (-b)", (unsigned long long)bytes,
                    (unsigned long long)o->bytes);
    if (m.rmr.segment_length != bytes)
        return fail(r, "the client's HELLO offers %llu bytes but announces %llu",
                    (unsigned long long)m.rmr.segment_length, (unsigned long long)bytes);

    /* The burst has landed when WRITTEN arrives (it was sent after the
     * last WRITE completed). */
    if (recv_msg(r, 1u << MSG_WRITTEN, "WRITTEN", &m))
        return -1;
    if (m.bytes != bytes)
        return fail(r, "WRITTEN says %llu bytes, HELLO said %llu", (unsigned long long)m.bytes,
                    (unsigned long long)bytes);
    const uint32_t writes = m.count;
    DAT_LMR_TRIPLET written = local_iov(&r->data, 0, bytes);
    CHECK(r, dat_lmr_sync_rdma_write(r->ia, &written, 1), "dat_lmr_sync_rdma_write (data buffer)");
    if (check_bytes(r, "the RDMA-written bytes", r->data.buf, 0, bytes, 0) ||
        check_bytes(r, "the bytes behind the written ones", r->data.buf, bytes, o->bytes, 1))
        return -1;
    step(r, "checked %llu bytes from %u RDMA WRITEs (and %llu untouched behind them)", (unsigned long long)bytes,
         (unsigned)writes, (unsigned long long)(o->bytes - bytes));

    /* Ping-pong until BYE. */
    uint32_t k = 0;
    for (;;) {
        char what[48];
        snprintf(what, sizeof(what), "PING %u or BYE", (unsigned)k);
        if (recv_msg(r, (1u << MSG_PING) | (1u << MSG_BYE), what, &m))
            return -1;
        if (m.type == MSG_BYE)
            break;
        if (m.seq != k)
            return fail(r, "got PING %u, expected PING %u", (unsigned)m.seq, (unsigned)k);
        if (k >= pings)
            return fail(r, "PING %u: the client announced %u pings", (unsigned)k, (unsigned)pings);
        /* PONG k's completion is reaped when PING k+1 or BYE arrives: the
         * last one may come back flushed (see "The end" above). */
        if (r->send_pending && wait_sent(r, 0))
            return -1;
        if (post_msg(r, MSG_PONG, k, 0, 0, NULL))
            return -1;
        k++;
    }
    if (m.count != k || k != pings)
        return fail(r, "BYE says %u pings, %u were answered, HELLO announced %u", (unsigned)m.count, (unsigned)k,
                    (unsigned)pings);
    if (r->send_pending && wait_sent(r, 1))
        return -1;
    const uint64_t read_back = m.bytes;

    if (expect_event(r, r->conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED", &ev))
        return -1;
    if (ev.event_data.connect_event_data.ep_handle != r->ep)
        return fail(r, "DISCONNECTED for another EP");
    step(r, "disconnected by the client");
    if (reap_flushed(r))
        return -1;
    if (teardown(r))
        return -1;
    say(r, "ok: %llu bytes in %u RDMA WRITEs checked, %llu read back by the client, %u ping-pongs, "
           "%llu messages (%llu bytes) received, %llu (%llu bytes) sent, %.3f s",
        (unsigned long long)bytes, (unsigned)writes, (unsigned long long)read_back, (unsigned)k,
        (unsigned long long)r->msgs_recvd, (unsigned long long)r->msg_bytes_recvd, (unsigned long long)r->msgs_sent,
        (unsigned long long)r->msg_bytes_sent, now_s() - r->t_start);
    return 0;
}

/* ---------------------------------------------------------------- client */

static int resolve(struct role *r, const char *host, struct sockaddr_in *out)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    int e = getaddrinfo(host, NULL, &hints, &res);
    if (e != 0)
        return fail(r, "cannot resolve %s: %s", host, gai_strerror(e));
    if (!res || res->ai_addrlen < sizeof(*out)) {
        freeaddrinfo(res);
        return fail(r, "cannot resolve %s: no IPv4 address", host);
    }
    memcpy(out, res->ai_addr, sizeof(*out));
    freeaddrinfo(res);
    out->sin_port = 0;
    return 0;
}

static int client_body(struct role *r)
{
    const struct opts *o = r->o;
    DAT_EVENT ev;
    struct sockaddr_in server;

    if (resolve(r, r->host, &server))
        return -1;
    if (setup(r, (DAT_COUNT)o->burst + 2))
        return -1;
    if (o->bytes > r->ia_attr.max_rdma_size)
        return fail(r, "-b %llu is more than one RDMA READ of IA %s may move (%llu bytes)", (unsigned long long)o->bytes,
                    r->ia_name, (unsigned long long)r->ia_attr.max_rdma_size);
    if (region_create(r, &r->data, o->bytes,
                      DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_READ_FLAG,
                      "source") ||
        region_create(r, &r->back, o->bytes, DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
                      "read-back"))
        return -1;
    for (uint64_t i = 0; i < o->bytes; i++) {
        r->data.buf[i] = pattern(i);
        r->back.buf[i] = (unsigned char)~pattern(i);
    }

    /* Receives first: the server's HELLO follows its ESTABLISHED at once. */
    for (unsigned i = 0; i < RQ_DEPTH; i++)
        if (post_recv(r))
            return -1;
    char addr[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &server.sin_addr, addr, sizeof(addr));
    step(r, "connecting to %s (%s):%llu", r->host, addr, (unsigned long long)o->qual);
    char pdata[sizeof(client_pdata)];
    memcpy(pdata, client_pdata, sizeof(pdata));
    CHECK(r,
          dat_ep_connect(r->ep, (DAT_IA_ADDRESS_PTR)(void *)&server, o->qual, r->timeout_us, (DAT_COUNT)sizeof(pdata),
                         pdata, DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG),
          "dat_ep_connect (%s:%llu)", addr, (unsigned long long)o->qual);
    if (expect_event(r, r->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED", &ev))
        return -1;
    const DAT_CONNECTION_EVENT_DATA *ce = &ev.event_data.connect_event_data;
    if (ce->ep_handle != r->ep)
        return fail(r, "ESTABLISHED for another EP");
    if (ce->private_data_size < (DAT_COUNT)sizeof(server_pdata) || !ce->private_data ||
        memcmp(ce->private_data, server_pdata, sizeof(server_pdata)) != 0)
        return fail(r, "the server's private data (%d bytes) is not \"%s\"", (int)ce->private_data_size, server_pdata);
    step(r, "connected");

    /* HELLOs both ways. */
    DAT_RMR_TRIPLET mine = advertised(&r->data);
    if (send_msg(r, MSG_HELLO, 0, o->pings, o->bytes, &mine))
        return -1;
    struct msg m;
    if (recv_msg(r, 1u << MSG_HELLO, "the server's HELLO", &m))
        return -1;
    r->peer = m.rmr;
    step(r, "server's buffer: rmr_context 0x%x, address 0x%llx, %llu bytes", (unsigned)r->peer.rmr_context,
         (unsigned long long)r->peer.target_address, (unsigned long long)r->peer.segment_length);
    if (r->peer.segment_length != m.bytes)
        return fail(r, "the server's HELLO offers %llu bytes but announces %llu",
                    (unsigned long long)r->peer.segment_length, (unsigned long long)m.bytes);
    if (r->peer.segment_length < o->bytes)
        return fail(r, "the server's buffer has %llu bytes, fewer than -b %llu",
                    (unsigned long long)r->peer.segment_length, (unsigned long long)o->bytes);

    /* The burst: every WRITE but the last one suppressed; the last one's
     * completion says they all succeeded (a failed one reports itself). */
    const DAT_VLEN bytes = o->bytes;
    for (unsigned k = 0; k < o->burst; k++) {
        DAT_VLEN off = bytes * k / o->burst, end = bytes * (k + 1) / o->burst;
        DAT_LMR_TRIPLET iov = local_iov(&r->data, off, end - off);
        DAT_RMR_TRIPLET to = { r->peer.rmr_context, 0, r->peer.target_address + off, end - off };
        DAT_DTO_COOKIE c;
        c.as_64 = COOKIE(CK_WRITE, k);
        const int last = k + 1 == o->burst;
        CHECK(r,
              dat_ep_post_rdma_write(r->ep, 1, &iov, c, &to,
                                     last ? DAT_COMPLETION_DEFAULT_FLAG : DAT_COMPLETION_SUPPRESS_FLAG),
              "dat_ep_post_rdma_write #%u of %u (%llu bytes at offset %llu)", k + 1, o->burst,
              (unsigned long long)(end - off), (unsigned long long)off);
    }
    step(r, "posted %u RDMA WRITEs (%llu bytes)", o->burst, (unsigned long long)bytes);
    if (expect_dto(r, r->req_evd, COOKIE(CK_WRITE, o->burst - 1), DAT_DTO_SUCCESS, ANY_LENGTH,
                   "the last RDMA WRITE of the burst", NULL))
        return -1;
    if (send_msg(r, MSG_WRITTEN, 0, o->burst, bytes, NULL))
        return -1;

    /* Read it all back. */
    DAT_LMR_TRIPLET into = local_iov(&r->back, 0, bytes);
    DAT_RMR_TRIPLET from = { r->peer.rmr_context, 0, r->peer.target_address, bytes };
    DAT_DTO_COOKIE c;
    c.as_64 = COOKIE(CK_READ, 0);
    CHECK(r, dat_ep_post_rdma_read(r->ep, 1, &into, c, &from, DAT_COMPLETION_DEFAULT_FLAG),
          "dat_ep_post_rdma_read (%llu bytes)", (unsigned long long)bytes);
    if (expect_dto(r, r->req_evd, c.as_64, DAT_DTO_SUCCESS, ANY_LENGTH, "the RDMA READ", NULL))
        return -1;
    if (check_bytes(r, "the bytes read back", r->back.buf, 0, bytes, 0))
        return -1;
    step(r, "read back and checked %llu bytes", (unsigned long long)bytes);

    /* Ping-pong: each PING waits for its PONG. */
    for (uint32_t k = 0; k < o->pings; k++) {
        char what[32];
        snprintf(what, sizeof(what), "PONG %u", (unsigned)k);
        if (send_msg(r, MSG_PING, k, 0, 0, NULL) || recv_msg(r, 1u << MSG_PONG, what, &m))
            return -1;
        if (m.seq != k)
            return fail(r, "got PONG %u, expected PONG %u", (unsigned)m.seq, (unsigned)k);
    }

    /* The last word is ours, so no SEND of the server can still be in
     * flight when we disconnect. */
    if (send_msg(r, MSG_BYE, 0, o->pings, bytes, NULL))
        return -1;
    CHECK(r, dat_ep_disconnect(r->ep, DAT_CLOSE_GRACEFUL_FLAG), "dat_ep_disconnect (graceful)");
    if (expect_event(r, r->conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED", &ev))
        return -1;
    if (ev.event_data.connect_event_data.ep_handle != r->ep)
        return fail(r, "DISCONNECTED for another EP");
    step(r, "disconnected");
    if (reap_flushed(r))
        return -1;
    if (teardown(r))
        return -1;
    say(r, "ok: %llu bytes in %u RDMA WRITEs, %llu read back and checked, %u ping-pongs, "
           "%llu messages (%llu bytes) sent, %llu (%llu bytes) received, %.3f s",
        (unsigned long long)bytes, o->burst, (unsigned long long)bytes, o->pings, (unsigned long long)r->msgs_sent,
        (unsigned long long)r->msg_bytes_sent, (unsigned long long)r->msgs_recvd,
        (unsigned long long)r->msg_bytes_recvd, now_s() - r->t_start);
    return 0;
}

/* ---------------------------------------------------------------- running */

static void role_init(struct role *r, const char *name, const struct opts *o, char *ia_name)
{
    memset(r, 0, sizeof(*r));
    r->name = name;
    r->o = o;
    r->ia_name = ia_name;
    r->timeout_us = (DAT_TIMEOUT)o->timeout_s * 1000000u;
    r->ia = r->async_evd = r->pz = r->cno = DAT_HANDLE_NULL;
    r->req_evd = r->recv_evd = r->conn_evd = r->cr_evd = DAT_HANDLE_NULL;
    r->ep = r->psp = DAT_HANDLE_NULL;
    r->msgs.lmr = r->data.lmr = r->back.lmr = DAT_HANDLE_NULL;
    watch_register(r);
}

/* Runs one role to its end: 0 when all went well. */
static int role_run(struct role *r, int (*body)(struct role *))
{
    r->t_start = now_s();
    int rc = body(r);
    if (rc != 0) {
        listen_report(r, 0, NULL);
        abort_role(r);
    }
    release_buffers(r);
    watch_end(r);
    if (r->sync) {
        pthread_mutex_lock(&r->sync->lock);
        r->sync->ended[r->sync_index] = 1;
        r->sync->rc[r->sync_index] = rc == 0 ? 0 : 1;
        pthread_cond_broadcast(&r->sync->cond);
        pthread_mutex_unlock(&r->sync->lock);
    }
    return rc == 0 ? 0 : 1;
}

static void *server_thread(void *arg)
{
    struct role *r = arg;
    return (void *)(intptr_t)role_run(r, server_body);
}

static void *client_thread(void *arg)
{
    struct role *r = arg;
    return (void *)(intptr_t)role_run(r, client_body);
}

static char default_server_ia[] = DEFAULT_SERVER_IA;
static char default_client_ia[] = DEFAULT_CLIENT_IA;

/* Once one role has failed, the other has this long (wall clock) to see
 * the failure through the connection and end on its own. */
#define GRACE_S 10

static int run_threads(const struct opts *o)
{
    struct run_sync sync;
    memset(&sync, 0, sizeof(sync));
    pthread_mutex_init(&sync.lock, NULL);
    pthread_cond_init(&sync.cond, NULL);
    sync.listen = LISTEN_WAITING;

    struct role server, client;
    role_init(&server, "server", o, o->ia_name ? o->ia_name : default_server_ia);
    role_init(&client, "client", o, default_client_ia);
    server.sync = client.sync = &sync;
    server.sync_index = SERVER;
    client.sync_index = CLIENT;

    pthread_t ts, tc;
    int e = pthread_create(&ts, NULL, server_thread, &server);
    if (e != 0) {
        fprintf(stderr, "dat_cs: pthread_create (server): %s\n", strerror(e));
        return 1;
    }
    /* The client connects once the server listens. */
    pthread_mutex_lock(&sync.lock);
    while (sync.listen == LISTEN_WAITING)
        pthread_cond_wait(&sync.cond, &sync.lock);
    const int up = sync.listen == LISTEN_UP;
    snprintf(client.host, sizeof(client.host), "%s", o->host ? o->host : sync.addr);
    pthread_mutex_unlock(&sync.lock);

    int client_started = 0;
    if (!up) {
        fprintf(stderr, "client: not started: the server failed before listening\n");
    } else if ((e = pthread_create(&tc, NULL, client_thread, &client)) != 0) {
        fprintf(stderr, "client: FAILED: pthread_create: %s\n", strerror(e));
    } else {
        client_started = 1;
    }
    if (!client_started) {
        watch_end(&client);
        pthread_mutex_lock(&sync.lock);
        sync.ended[CLIENT] = 1;
        sync.rc[CLIENT] = 1;
        pthread_mutex_unlock(&sync.lock);
    }

    /* Both roles end; or one fails and the other, if it does not end
     * within GRACE_S, is abandoned. */
    pthread_mutex_lock(&sync.lock);
    while (!(sync.ended[SERVER] && sync.ended[CLIENT])) {
        if ((sync.ended[SERVER] && sync.rc[SERVER]) || (sync.ended[CLIENT] && sync.rc[CLIENT])) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += GRACE_S;
            while (!(sync.ended[SERVER] && sync.ended[CLIENT]))
                if (pthread_cond_timedwait(&sync.cond, &sync.lock, &until) == ETIMEDOUT)
                    break;
            if (!(sync.ended[SERVER] && sync.ended[CLIENT])) {
                char why[96];
                snprintf(why, sizeof(why), "abandoned %d s after the %s failed", GRACE_S,
                         sync.ended[SERVER] ? "server" : "client");
                give_up(why);
            }
            break;
        }
        pthread_cond_wait(&sync.cond, &sync.lock);
    }
    const int rc = sync.rc[SERVER] || sync.rc[CLIENT];
    pthread_mutex_unlock(&sync.lock);

    pthread_join(ts, NULL);
    if (client_started)
        pthread_join(tc, NULL);
    pthread_cond_destroy(&sync.cond);
    pthread_mutex_destroy(&sync.lock);
    return rc;
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: dat_cs -s [options]          server: listen, accept one client\n"
            "       dat_cs [-h HOST] [options]   client: connect to HOST\n"
            "       dat_cs -t [options]          server and client in two threads of this process\n"
            "options:\n"
            "  -d NAME   IA to open (server %s, client %s; with -t the server's, the client's is %s)\n"
            "  -h HOST   the server's IA address: a name or a dotted quad (default %s;\n"
            "            with -t the server IA's own address)\n"
            "  -q N      connection qualifier (the TCP port) of the server's PSP (default %u)\n"
            "  -b BYTES  RDMA buffer size, suffix k, m or g allowed (default %uk); the client writes\n"
            "            and reads back this many bytes, the server's buffer must be as large\n"
            "  -B N      RDMA WRITEs in the client's burst (default %u)\n"
            "  -P N      PING/PONG round trips (default %u)\n"
            "  -T SEC    timeout of every wait, in seconds (default %u): the provider's time for\n"
            "            dat_evd_wait, dat_cno_wait and dat_ep_connect, the wall clock's for -p\n"
            "  -W SEC    end the run, as failed, if it lasts longer (wall clock; default %u, 0: never)\n"
            "  -p        poll: dat_evd_dequeue loops instead of dat_evd_wait\n"
            "  -c        wait on a CNO attached to the EVDs (dat_cno_wait, then dat_evd_dequeue)\n"
            "  -v        print each step\n"
            "  -?        this text\n"
            "exit status: 0 when every check passed, 1 otherwise\n",
            DEFAULT_SERVER_IA, DEFAULT_CLIENT_IA, DEFAULT_CLIENT_IA, DEFAULT_HOST, (unsigned)DEFAULT_CONN_QUAL,
            DEFAULT_BYTES / 1024u, DEFAULT_BURST, DEFAULT_PINGS, DEFAULT_TIMEOUT_S, DEFAULT_WATCHDOG_S);
}

static int parse_u64(const char *s, uint64_t max, int suffixes, uint64_t *out)
{
    char *end;
    if (!s || *s == '\0' || *s == '-')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno != 0 || end == s)
        return -1;
    uint64_t mult = 1;
    if (suffixes && *end != '\0' && end[1] == '\0') {
        switch (*end) {
        case 'k': case 'K': mult = UINT64_C(1) << 10; end++; break;
        case 'm': case 'M': mult = UINT64_C(1) << 20; end++; break;
        case 'g': case 'G': mult = UINT64_C(1) << 30; end++; break;
        default: break;
        }
    }
    if (*end != '\0' || v > max / mult)
        return -1;
    *out = (uint64_t)v * mult;
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o;
    memset(&o, 0, sizeof(o));
    o.mode = WAIT_EVD;
    o.qual = DEFAULT_CONN_QUAL;
    o.bytes = DEFAULT_BYTES;
    o.burst = DEFAULT_BURST;
    o.pings = DEFAULT_PINGS;
    o.timeout_s = DEFAULT_TIMEOUT_S;
    o.watchdog_s = DEFAULT_WATCHDOG_S;

    int c;
    uint64_t v;
    opterr = 0;
    while ((c = getopt(argc, argv, ":sh:d:q:b:B:P:T:W:pctv")) != -1) {
        switch (c) {
        case 's': o.server = 1; break;
        case 't': o.threads = 1; break;
        case 'v': o.verbose = 1; break;
        case 'h': o.host = optarg; break;
        case 'd': o.ia_name = optarg; break;
        case 'p':
        case 'c':
            if (o.mode != WAIT_EVD) {
                fprintf(stderr, "dat_cs: -p and -c exclude each other\n");
                usage(stderr);
                return 1;
            }
            o.mode = c == 'p' ? WAIT_POLL : WAIT_CNO;
            break;
        case 'q':
            if (parse_u64(optarg, UINT64_MAX, 0, &v))
                goto bad_value;
            o.qual = v;
            break;
        case 'b':
            if (parse_u64(optarg, UINT64_C(1) << 40, 1, &v) || v == 0 || v > SIZE_MAX / 2)
                goto bad_value;
            o.bytes = v;
            break;
        case 'B':
            if (parse_u64(optarg, 1u << 20, 0, &v) || v == 0)
                goto bad_value;
            o.burst = (unsigned)v;
            break;
        case 'P':
            if (parse_u64(optarg, UINT32_MAX / 2, 0, &v))
                goto bad_value;
            o.pings = (unsigned)v;
            break;
        case 'T':
            /* DAT timeouts are 32-bit microseconds. */
            if (parse_u64(optarg, (DAT_TIMEOUT_INFINITE - 1) / 1000000u, 0, &v) || v == 0)
                goto bad_value;
            o.timeout_s = (unsigned)v;
            break;
        case 'W':
            if (parse_u64(optarg, 1u << 30, 0, &v))
                goto bad_value;
            o.watchdog_s = (unsigned)v;
            break;
        case ':':
            fprintf(stderr, "dat_cs: option -%c needs a value\n", optopt);
            usage(stderr);
            return 1;
        case '?':
        default:
            if (optopt == '?') {
                usage(stdout);
                return 0;
            }
            fprintf(stderr, "dat_cs: unknown option -%c\n", optopt);
            usage(stderr);
            return 1;
        bad_value:
            fprintf(stderr, "dat_cs: bad value for -%c: %s\n", c, optarg);
            usage(stderr);
            return 1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "dat_cs: unexpected argument %s\n", argv[optind]);
        usage(stderr);
        return 1;
    }
    if (o.server && (o.threads || o.host)) {
        fprintf(stderr, "dat_cs: -s excludes -t and -h\n");
        usage(stderr);
        return 1;
    }
    if (!o.server && o.burst > o.bytes) {
        fprintf(stderr, "dat_cs: -B %u writes need at least as many bytes (-b %llu)\n", o.burst,
                (unsigned long long)o.bytes);
        return 1;
    }

    if (o.watchdog_s > 0) {
        pthread_t tw;
        int e = pthread_create(&tw, NULL, watchdog, &o.watchdog_s);
        if (e != 0) {
            fprintf(stderr, "dat_cs: pthread_create (watchdog): %s\n", strerror(e));
            return 1;
        }
        pthread_detach(tw);
    }
    if (o.threads)
        return run_threads(&o);
    struct role r;
    if (o.server) {
        role_init(&r, "server", &o, o.ia_name ? o.ia_name : default_server_ia);
        return role_run(&r, server_body);
    }
    role_init(&r, "client", &o, o.ia_name ? o.ia_name : default_client_ia);
    snprintf(r.host, sizeof(r.host), "%s", o.host ? o.host : DEFAULT_HOST);
    return role_run(&r, client_body);
}
