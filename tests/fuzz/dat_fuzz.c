/*
 * A seeded random-call generator over the public DAT 1.2 API (<dat/udat.h>).
 *
 *   dat_fuzz --seed 1 --calls 100000 [--trace] [--hang-seconds 60]
 *
 * It keeps a pool of live handles per type (IA, PZ, EVD, CNO, EP, LMR, RMR,
 * PSP, RSP, CR) over two IAs per NIC (rnic0, rnic1), and makes random calls
 * whose arguments are valid handles, handles just freed, handles of another
 * type or of another IA, DAT_HANDLE_NULL, pointers into a static pool of
 * memory that is no handle, bad lengths, flags and sizes. Nothing it passes
 * points at memory the process does not own: a library cannot tell a wild
 * pointer from a good one, and what a consumer must not do is no finding.
 *
 * What it asserts: every return is a DAT return code of a known type (with
 * a subtype that belongs to it); a bad handle in the handle a call is
 * about is DAT_INVALID_HANDLE, and a call with an argument known to be bad
 * does not succeed; what a create returns is a live handle of its type and
 * what a free (or an IA close, with its cascade) destroyed is a stale one;
 * events name the EVD they came from and a known event number; closing
 * every IA at the end succeeds. ASan and UBSan (the sanitizer build) see
 * the rest; every wait has a short timeout, and a watchdog reports a call
 * that does not return. A failure prints the seed and the call index,
 * which `--calls <index+1> --trace` replays.
 *
 * In lockstep (one thread, both NICs in the process) a run is determined
 * by its seed: connections are only made to this process's own service
 * points, whose setup libdat makes independent of the host's scheduling.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include <dat/udat.h>

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#ifdef FUZZ_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

/* ------------------------------------------------------------- the run */

static uint64_t seed = 1;
static uint64_t budget = 100000;
static bool trace;
static unsigned hang_seconds = 60;

static uint64_t step;                    /* index of the random call being made */
static const char *cur_fn = "(start)";   /* the DAT function being called */
static volatile uint64_t progress_mark;  /* moves on every DAT call: the watchdog looks */

/* splitmix64: small, and its stream is the same on every platform. */
static uint64_t rng;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint32_t below(uint32_t n)
{
    return n ? (uint32_t)(rnd() % n) : 0;
}
static bool chance(unsigned pct)
{
    return below(100) < pct;
}

static void print_repro(FILE *f)
{
    fprintf(f, "dat_fuzz: reproduce with: dat_fuzz --seed %" PRIu64 " --calls %" PRIu64 " --trace\n", seed,
            step + 1);
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    fflush(stdout);
    fprintf(stderr, "dat_fuzz: FAIL at seed %" PRIu64 " call %" PRIu64 " (%s): ", seed, step, cur_fn);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    print_repro(stderr);
    fflush(stderr);
    /* Not exit(): LeakSanitizer would report the run's live objects as
     * leaks and bury the message. */
    _exit(1);
}

/* ------------------------------------------- crash and hang reporting */

/* Async-signal-safe: the seed and the call index, for a crash or a hang. */
static void put_u64(char *buf, size_t *n, uint64_t v)
{
    char d[24];
    int k = 0;
    do {
        d[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k)
        buf[(*n)++] = d[--k];
}
static void put_str(char *buf, size_t *n, const char *s)
{
    while (*s && *n < 400)
        buf[(*n)++] = *s++;
}
static void say_where(const char *what)
{
    char b[512];
    size_t n = 0;
    put_str(b, &n, "dat_fuzz: ");
    put_str(b, &n, what);
    put_str(b, &n, " at seed ");
    put_u64(b, &n, seed);
    put_str(b, &n, " call ");
    put_u64(b, &n, step);
    put_str(b, &n, " (");
    put_str(b, &n, cur_fn);
    put_str(b, &n, "); reproduce with: dat_fuzz --seed ");
    put_u64(b, &n, seed);
    put_str(b, &n, " --calls ");
    put_u64(b, &n, step + 1);
    put_str(b, &n, " --trace\n");
    (void)!write(2, b, n);
}

#ifdef FUZZ_ASAN
static void on_sanitizer_death(void)
{
    say_where("sanitizer error");
}
#endif

#ifndef FUZZ_ASAN
static void on_fatal_signal(int sig)
{
    say_where(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE" : "SIGABRT/SIGILL");
    signal(sig, SIG_DFL);
    raise(sig);
}
#endif

static uint64_t watch_last;
static unsigned watch_still;
static void on_watchdog(int sig)
{
    (void)sig;
    if (progress_mark != watch_last) {
        watch_last = progress_mark;
        watch_still = 0;
        return;
    }
    if (++watch_still * 5 >= hang_seconds) {
        say_where("HANG (no DAT call returned for the watchdog's limit)");
        signal(SIGABRT, SIG_DFL);
        abort();
    }
}

static void install_reporting(void)
{
#ifdef FUZZ_ASAN
    __sanitizer_set_death_callback(on_sanitizer_death);
#else
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        signal(sigs[i], on_fatal_signal);
#endif
    if (hang_seconds > 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_watchdog;
        sa.sa_flags = SA_RESTART;
        sigaction(SIGALRM, &sa, NULL);
        /* Every 5 s: libdat retries the few system calls a signal can
         * interrupt (poll in its waits), so the ticks change nothing. */
        struct itimerval it = {{5, 0}, {5, 0}};
        setitimer(ITIMER_REAL, &it, NULL);
    }
}

/* --------------------------------------------------- call accounting */

#define FNS(X)                                                                                             \
    X(ia_openv) X(ia_close) X(ia_query) X(pz_create) X(pz_free) X(pz_query) X(evd_create) X(evd_free)      \
    X(evd_resize) X(evd_dequeue) X(evd_wait) X(evd_query) X(evd_post_se) X(evd_enable) X(evd_disable)      \
    X(evd_set_unwaitable) X(evd_clear_unwaitable) X(evd_modify_cno) X(cno_create) X(cno_free) X(cno_wait)  \
    X(cno_query) X(cno_modify_agent) X(ep_create) X(ep_create_with_srq) X(ep_free) X(ep_query)             \
    X(ep_modify) X(ep_connect) X(ep_dup_connect) X(ep_disconnect) X(ep_reset) X(ep_get_status)             \
    X(ep_post_send) X(ep_post_recv) X(ep_post_rdma_write) X(ep_post_rdma_read) X(ep_recv_query)            \
    X(ep_set_watermark) X(rnic_ep_last_error) X(lmr_create) X(lmr_free) X(lmr_query)                       \
    X(lmr_sync_rdma_read) X(lmr_sync_rdma_write) X(rmr_create) X(rmr_free) X(rmr_query) X(rmr_bind)        \
    X(psp_create) X(psp_create_any) X(psp_free) X(psp_query) X(rsp_create) X(rsp_free) X(rsp_query)        \
    X(cr_accept) X(cr_reject) X(cr_query) X(cr_handoff) X(get_consumer_context) X(set_consumer_context)    \
    X(get_handle_type) X(srq_create) X(srq_free) X(srq_post_recv) X(srq_query) X(srq_resize)               \
    X(srq_set_lw) X(registry_list_providers) X(strerror)

#define AS_ENUM(n) F_##n,
#define AS_NAME(n) "dat_" #n,
enum fn { FNS(AS_ENUM) F_COUNT };
static const char *const fn_name[F_COUNT] = {FNS(AS_NAME)};

/* Return types by index: (type >> 16) for 0..0x14, and DAT_NOT_IMPLEMENTED. */
#define NRET 22
static const char *const ret_name[NRET] = {
    "SUCCESS", "ABORT", "CONN_QUAL_IN_USE", "INSUFFICIENT_RESOURCES", "INTERNAL_ERROR", "INVALID_HANDLE",
    "INVALID_PARAMETER", "INVALID_STATE", "LENGTH_ERROR", "MODEL_NOT_SUPPORTED", "PROVIDER_NOT_FOUND",
    "PRIVILEGES_VIOLATION", "PROTECTION_VIOLATION", "QUEUE_EMPTY", "QUEUE_FULL", "TIMEOUT_EXPIRED",
    "PROVIDER_ALREADY_REGISTERED", "PROVIDER_IN_USE", "INVALID_ADDRESS", "INTERRUPTED_CALL",
    "CONN_QUAL_UNAVAILABLE", "NOT_IMPLEMENTED"};

static uint64_t fn_calls[F_COUNT], fn_ret[F_COUNT][NRET], fn_ns[F_COUNT];
static uint64_t total_calls, agent_calls, events_seen, dto_status[12];

static int ret_index(DAT_RETURN r)
{
    const uint32_t t = DAT_GET_TYPE(r);
    if (t == DAT_NOT_IMPLEMENTED)
        return NRET - 1;
    return (t >> 16) < NRET - 1 ? (int)(t >> 16) : -1;
}

/* The subtypes each type may carry (dat_error.h groups them so). */
static bool subtype_fits(uint32_t type, uint32_t sub)
{
    switch (type) {
    case DAT_INVALID_HANDLE: return sub >= DAT_INVALID_HANDLE_IA && sub <= DAT_INVALID_HANDLE10;
    case DAT_INVALID_PARAMETER: return sub >= DAT_INVALID_ARG1 && sub <= DAT_INVALID_ARG10;
    case DAT_INVALID_STATE:
        return sub == DAT_NO_SUBTYPE ||
               (sub >= DAT_INVALID_STATE_EP_UNCONNECTED && sub <= DAT_INVALID_STATE_SRQ_IN_USE);
    case DAT_INSUFFICIENT_RESOURCES: return sub >= DAT_RESOURCE_MEMORY && sub <= DAT_RESOURCE_SRQ;
    case DAT_PRIVILEGES_VIOLATION:
        return sub == DAT_NO_SUBTYPE || (sub >= DAT_PRIVILEGES_READ && sub <= DAT_PRIVILEGES_RDMA_WRITE);
    case DAT_PROTECTION_VIOLATION:
        return sub == DAT_NO_SUBTYPE || (sub >= DAT_PROTECTION_READ && sub <= DAT_PROTECTION_RDMA_WRITE);
    case DAT_INVALID_ADDRESS: return sub >= DAT_INVALID_ADDRESS_UNSUPPORTED && sub <= DAT_INVALID_ADDRESS_MALFORMED;
    case DAT_PROVIDER_NOT_FOUND: return sub >= DAT_NAME_NOT_REGISTERED && sub <= DAT_THREAD_SAFETY_NOT_FOUND;
    default: return sub == DAT_NO_SUBTYPE || sub == DAT_SUB_INTERRUPTED;
    }
}

/* What the caller knows of its arguments. */
enum expect {
    E_ANY = 0,
    E_BAD_HANDLE = 1,   /* the handle the call is about is no live handle of its type */
    E_FAIL = 2,         /* another argument is known to be bad: no success */
};

static char targs[256];   /* the arguments, for --trace */
#define TARGS(...) (trace ? (void)snprintf(targs, sizeof(targs), __VA_ARGS__) : (void)0)

static struct timespec call_t0;

static void pre(enum fn f)
{
    cur_fn = fn_name[f];
    progress_mark++;
    if (trace) {
        printf("[%" PRIu64 "] %s(%s)", step, fn_name[f], targs);
        fflush(stdout);
        targs[0] = '\0';
    }
    clock_gettime(CLOCK_MONOTONIC, &call_t0);
}

static DAT_RETURN post(enum fn f, DAT_RETURN r, unsigned expect)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    progress_mark++;
    const uint64_t ns = (uint64_t)(t1.tv_sec - call_t0.tv_sec) * 1000000000u + (uint64_t)(t1.tv_nsec - call_t0.tv_nsec);
    fn_ns[f] += ns;
    const int ri = ret_index(r);
    const uint32_t type = DAT_GET_TYPE(r), sub = DAT_GET_SUBTYPE(r);
    if (trace) {
        if (ns >= 10000000u)
            printf(" -> %s/%u (%.0f ms)\n", ri >= 0 ? ret_name[ri] : "?", (unsigned)sub, (double)ns / 1e6);
        else
            printf(" -> %s/%u\n", ri >= 0 ? ret_name[ri] : "?", (unsigned)sub);
        fflush(stdout);
    }
    if (ri < 0)
        fail("%s returned 0x%08x: no DAT return type", fn_name[f], (unsigned)r);
    if (type == DAT_SUCCESS ? r != DAT_SUCCESS : (r & 0xC0000000u) != DAT_CLASS_ERROR)
        fail("%s returned 0x%08x: the class bits do not go with type %s", fn_name[f], (unsigned)r, ret_name[ri]);
    if (type != DAT_SUCCESS && !subtype_fits(type, sub))
        fail("%s returned 0x%08x: subtype %u does not belong to %s", fn_name[f], (unsigned)r, (unsigned)sub,
             ret_name[ri]);
    if ((expect & E_BAD_HANDLE) && type != DAT_INVALID_HANDLE)
        fail("%s with a bad handle returned %s/%u, not DAT_INVALID_HANDLE", fn_name[f], ret_name[ri], (unsigned)sub);
    if ((expect & (E_BAD_HANDLE | E_FAIL)) && type == DAT_SUCCESS)
        fail("%s succeeded with an argument known to be bad", fn_name[f]);
    fn_calls[f]++;
    fn_ret[f][ri]++;
    total_calls++;
    return r;
}

/* Every DAT call goes through this: accounted, checked, traced. */
#define DO(f, expect, call) (pre(F_##f), post(F_##f, (call), (expect)))

/* --------------------------------------------------------- memory */

/* Memory that is no handle: "garbage" pointers point in here, so a
 * library that took one for an object would read this process's bytes,
 * not wild ones. Large enough for any output structure at any offset used. */
static _Alignas(64) unsigned char junk[16384];
#define JUNK_SLOTS 64   /* junk + 64 * k, k < JUNK_SLOTS: 4 KiB of room past the last */

static void *junk_ptr(void)
{
    return junk + 64u * below(JUNK_SLOTS);
}
static void junk_stir(void)
{
    const size_t at = 64u * below(JUNK_SLOTS);
    for (size_t i = 0; i < 512; i += 8) {
        const uint64_t v = rnd();
        memcpy(junk + at + i, &v, 8);
    }
}

/* Buffers LMRs are made over. They are freed (and others allocated) only
 * while no IA is open: then no registration, DTO or remote access can
 * reach them, whatever libdat did with the LMRs over them. */
#define NBUF 6
struct buf {
    uint8_t *p;
    size_t len;
};
static struct buf bufs[NBUF];

/* Pages mapped for the "memory taken away after registration" case: made
 * PROT_NONE and back while registered (never unmapped while an IA is open:
 * an unmapped range can be mapped again by anyone, ASan's allocator too). */
#define NMAP 2
#define MAP_PAGES 2
static uint8_t *maps[NMAP];
static bool map_revoked[NMAP];
static size_t page;

/* Shared memory, for DAT_MEM_TYPE_SHARED_VIRTUAL. */
static uint8_t *shm;
static char shm_cookie[DAT_LMR_COOKIE_SIZE];

static void bufs_alloc(void)
{
    for (int i = 0; i < NBUF; i++) {
        static const size_t sizes[] = {256, 1024, 4096, 8192, 16384, 65536};
        bufs[i].len = sizes[below(6)] + (chance(30) ? below(512) : 0);
        bufs[i].p = malloc(bufs[i].len);
        if (!bufs[i].p)
            fail("out of memory for a buffer");
        memset(bufs[i].p, (int)i, bufs[i].len);
    }
}
static void bufs_free(void)
{
    for (int i = 0; i < NBUF; i++) {
        free(bufs[i].p);
        bufs[i].p = NULL;
    }
}

static void maps_setup(void)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < NMAP; i++) {
        maps[i] = mmap(NULL, MAP_PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (maps[i] == MAP_FAILED)
            fail("mmap failed: %s", strerror(errno));
    }
    shm = mmap(NULL, MAP_PAGES * page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shm == MAP_FAILED)
        fail("mmap (shared) failed: %s", strerror(errno));
    memcpy(shm_cookie, "dat_fuzz shared memory cookie, 40 bytes!", DAT_LMR_COOKIE_SIZE);
}
static void maps_teardown(void)
{
    for (int i = 0; i < NMAP; i++)
        munmap(maps[i], MAP_PAGES * page);
    munmap(shm, MAP_PAGES * page);
}

/* ------------------------------------------------------------ pools */

#define NTYPE 11   /* DAT_HANDLE_TYPE_CR .. DAT_HANDLE_TYPE_SRQ */
#define T_CR DAT_HANDLE_TYPE_CR
#define T_EP DAT_HANDLE_TYPE_EP
#define T_EVD DAT_HANDLE_TYPE_EVD
#define T_IA DAT_HANDLE_TYPE_IA
#define T_LMR DAT_HANDLE_TYPE_LMR
#define T_PSP DAT_HANDLE_TYPE_PSP
#define T_PZ DAT_HANDLE_TYPE_PZ
#define T_RMR DAT_HANDLE_TYPE_RMR
#define T_RSP DAT_HANDLE_TYPE_RSP
#define T_CNO DAT_HANDLE_TYPE_CNO
static const char *const type_name[NTYPE] = {"CR", "EP", "EVD", "IA", "LMR", "PSP", "PZ", "RMR", "RSP", "CNO", "SRQ"};

struct obj {
    DAT_HANDLE h;
    DAT_IA_HANDLE ia;                 /* the IA it belongs to (an IA: itself) */
    int nic;
    /* IA */
    struct sockaddr_in addr;          /* a copy: the IA's own goes with it */
    DAT_EVD_HANDLE async;             /* its async EVD, NULL if none */
    bool owns_async;
    bool lost_crs;                    /* an EVD of its that takes requests was freed: a request
                                         queued there left a CR no handle of this run names */
    /* EVD */
    DAT_EVD_FLAGS flags;
    /* EP, LMR, RMR: the PZ; EP: its EVDs */
    DAT_PZ_HANDLE pz;
    DAT_EVD_HANDLE recv, req, conn;
    bool connected;                   /* an ESTABLISHED was seen last: a bias for DTOs */
    DAT_PORT_QUAL lport, rport;       /* its connection's ports, as dat_ep_query says: they
                                         name the peer EP (its ports the other way round) */
    /* LMR */
    uint64_t va, len;
    DAT_LMR_CONTEXT lctx;
    DAT_RMR_CONTEXT rctx;             /* LMR: its rmr_context; RMR: the last bind's */
    DAT_MEM_PRIV_FLAGS priv;
    /* PSP, RSP */
    DAT_CONN_QUAL qual;
    DAT_EVD_HANDLE evd;               /* where its connection requests go */
};

#define POOL_MAX 48
#define STALE_N 16
struct pool {
    int n, cap;
    struct obj o[POOL_MAX];
    DAT_HANDLE stale[STALE_N];
    unsigned nstale;
};
static struct pool P[NTYPE];

/* Contexts of freed LMRs, for DTOs and binds that name one. */
static DAT_LMR_CONTEXT stale_ctx[8];
static unsigned nstale_ctx;

static void pools_init(void)
{
    static const int caps[NTYPE] = {[T_CR] = 32, [T_EP] = 28, [T_EVD] = 44, [T_IA] = 6,  [T_LMR] = 48,
                                    [T_PSP] = 12, [T_PZ] = 16, [T_RMR] = 24, [T_RSP] = 6, [T_CNO] = 12};
    for (int t = 0; t < NTYPE; t++)
        P[t].cap = caps[t];
}

static bool full(int t)
{
    return P[t].n >= P[t].cap;
}

static struct obj *obj_add(int t, DAT_HANDLE h, DAT_IA_HANDLE ia, int nic)
{
    if (full(t))
        fail("pool %s is full (the caller checks)", type_name[t]);
    struct obj *o = &P[t].o[P[t].n++];
    memset(o, 0, sizeof(*o));
    o->h = h;
    o->ia = ia;
    o->nic = nic;
    return o;
}

static void stale_push(int t, DAT_HANDLE h)
{
    P[t].stale[P[t].nstale++ % STALE_N] = h;
}

static void obj_kill(int t, int i)
{
    struct pool *p = &P[t];
    stale_push(t, p->o[i].h);
    if (t == T_LMR && p->o[i].lctx)
        stale_ctx[nstale_ctx++ % 8] = p->o[i].lctx;
    p->o[i] = p->o[--p->n];
}

static int obj_find(int t, DAT_HANDLE h)
{
    for (int i = 0; i < P[t].n; i++)
        if (P[t].o[i].h == h)
            return i;
    return -1;
}

static struct obj *obj_of(int t, DAT_HANDLE h)
{
    const int i = obj_find(t, h);
    return i < 0 ? NULL : &P[t].o[i];
}

typedef bool (*obj_pred)(const struct obj *o, const void *arg);

/* A random live object of type t that pred accepts (NULL: any); -1 if none. */
static int pick_where(int t, obj_pred pred, const void *arg)
{
    int chosen = -1, seen = 0;
    for (int i = 0; i < P[t].n; i++) {
        if (pred && !pred(&P[t].o[i], arg))
            continue;
        if (below((uint32_t)++seen) == 0)
            chosen = i;
    }
    return chosen;
}

static bool of_ia(const struct obj *o, const void *ia)
{
    return o->ia == (DAT_IA_HANDLE)ia;
}

/* Mostly one of `ia`'s own, sometimes any IA's: handles from another IA. */
static int pick_prefer(int t, DAT_IA_HANDLE ia)
{
    if (ia && chance(88)) {
        const int i = pick_where(t, of_ia, ia);
        if (i >= 0)
            return i;
    }
    return pick_where(t, NULL, NULL);
}

/* ---------------------------------------------------- handle arguments */

enum hkind { HK_VALID, HK_STALE, HK_WRONG, HK_NULL, HK_JUNK, HK_FORGED };
static const char hk_char[] = "vswnjf";

struct harg {
    DAT_HANDLE h;
    enum hkind kind;
    int idx;   /* HK_VALID: index in its pool */
};

/* A value in the handle's shape (libdat's tag in the low byte) whose
 * generation 0 no live handle ever has; or any value without the tag. */
static DAT_HANDLE forged(void)
{
    if (chance(50))
        return (DAT_HANDLE)(uintptr_t)(((uint64_t)below(4096) << 8) | 0xD5u);
    return (DAT_HANDLE)(uintptr_t)((rnd() & ~0xFFull) | 0x42u);
}

static struct harg bad_handle(int t)
{
    for (;;) {
        switch (below(5)) {
        case 0:
            if (P[t].nstale)
                return (struct harg){P[t].stale[below(P[t].nstale < STALE_N ? P[t].nstale : STALE_N)], HK_STALE, -1};
            break;
        case 1: {
            const int w = (int)below(NTYPE - 1);
            if (w != t && P[w].n)
                return (struct harg){P[w].o[below((uint32_t)P[w].n)].h, HK_WRONG, -1};
            break;
        }
        case 2: return (struct harg){DAT_HANDLE_NULL, HK_NULL, -1};
        case 3: return (struct harg){junk_ptr(), HK_JUNK, -1};
        default: return (struct harg){forged(), HK_FORGED, -1};
        }
    }
}

/* A handle of type t: live (one of `prefer`'s mostly) unless bad_pct says
 * otherwise or there is none. */
static struct harg handle_arg(int t, unsigned bad_pct, DAT_IA_HANDLE prefer)
{
    if (!chance(bad_pct)) {
        const int i = pick_prefer(t, prefer);
        if (i >= 0)
            return (struct harg){P[t].o[i].h, HK_VALID, i};
    }
    return bad_handle(t);
}

static struct harg handle_where(int t, unsigned bad_pct, obj_pred pred, const void *arg)
{
    if (!chance(bad_pct)) {
        int i = pick_where(t, pred, arg);
        if (i < 0 && chance(20))
            i = pick_where(t, NULL, NULL);
        if (i >= 0)
            return (struct harg){P[t].o[i].h, HK_VALID, i};
    }
    return bad_handle(t);
}

static bool hbad(struct harg a)
{
    return a.kind != HK_VALID;
}
/* A handle where DAT_HANDLE_NULL means "none" and is fine. */
static bool hbad_nullok(struct harg a)
{
    return a.kind != HK_VALID && a.kind != HK_NULL;
}
static struct obj *hobj(int t, struct harg a)
{
    return a.kind == HK_VALID ? &P[t].o[a.idx] : NULL;
}

/* Any handle at all, for the calls that take every type. */
static struct harg any_handle(unsigned bad_pct, int *type)
{
    *type = -1;
    if (!chance(bad_pct)) {
        for (int tries = 0; tries < 8; tries++) {
            const int t = (int)below(NTYPE - 1);
            if (P[t].n) {
                *type = t;
                const int i = (int)below((uint32_t)P[t].n);
                return (struct harg){P[t].o[i].h, HK_VALID, i};
            }
        }
    }
    struct harg b = bad_handle((int)below(NTYPE - 1));
    if (b.kind == HK_WRONG)   /* a live handle of some type: good here */
        b = (struct harg){DAT_HANDLE_NULL, HK_NULL, -1};
    return b;
}

/* ---------------------------------------------------------- checks */

/* The handle's type, or -1 if libdat does not know it. A check, not a
 * random call: it is accounted all the same. */
static int live_type(DAT_HANDLE h)
{
    DAT_HANDLE_TYPE ht;
    TARGS("%p", h);
    if (DO(get_handle_type, E_ANY, dat_get_handle_type(h, &ht)) != DAT_SUCCESS)
        return -1;
    return (int)ht;
}

/* What a create handed out is a live handle of its type. */
static void check_created(int t, DAT_HANDLE h)
{
    if (trace)
        printf("  new %s %p\n", type_name[t], h);
    const int lt = live_type(h);
    if (lt != t)
        fail("a new %s handle %p is %s", type_name[t], h, lt < 0 ? "not live" : type_name[lt]);
}

/* What was destroyed is refused by the next call that uses it. */
static void check_gone(int t, DAT_HANDLE h)
{
    if (live_type(h) >= 0)
        fail("%s %p is still live after it was destroyed", type_name[t], h);
    DAT_RETURN r;
    const unsigned e = E_BAD_HANDLE;
    TARGS("%p (destroyed)", h);
    switch (t) {
    case T_IA: r = DO(ia_query, e, dat_ia_query(h, NULL, 0, NULL, 0, NULL)); break;
    case T_PZ: r = DO(pz_query, e, dat_pz_query(h, DAT_PZ_FIELD_ALL, &(DAT_PZ_PARAM){0})); break;
    case T_EVD: r = DO(evd_query, e, dat_evd_query(h, DAT_EVD_FIELD_ALL, &(DAT_EVD_PARAM){0})); break;
    case T_CNO: r = DO(cno_query, e, dat_cno_query(h, DAT_CNO_FIELD_ALL, &(DAT_CNO_PARAM){0})); break;
    case T_EP: r = DO(ep_get_status, e, dat_ep_get_status(h, NULL, NULL, NULL)); break;
    case T_LMR: r = DO(lmr_query, e, dat_lmr_query(h, DAT_LMR_FIELD_ALL, &(DAT_LMR_PARAM){0})); break;
    case T_RMR: r = DO(rmr_query, e, dat_rmr_query(h, DAT_RMR_FIELD_ALL, &(DAT_RMR_PARAM){0})); break;
    case T_PSP: r = DO(psp_query, e, dat_psp_query(h, DAT_PSP_FIELD_ALL, &(DAT_PSP_PARAM){0})); break;
    case T_RSP: r = DO(rsp_query, e, dat_rsp_query(h, DAT_RSP_FIELD_ALL, &(DAT_RSP_PARAM){0})); break;
    case T_CR: r = DO(cr_query, e, dat_cr_query(h, DAT_CR_FIELD_ALL, &(DAT_CR_PARAM){0})); break;
    default: return;
    }
    (void)r;
}

/* The object at P[t].o[i] was destroyed by a call that said so. */
static void destroyed(int t, int i)
{
    const DAT_HANDLE h = P[t].o[i].h;
    obj_kill(t, i);
    check_gone(t, h);
}

/* 1: the EP takes an EVD of `ia` (an IA close destroys it); 0: it does
 * not; -1: an EVD this run does not know (either is right). */
static int ep_feeds(const struct obj *ep, DAT_IA_HANDLE ia)
{
    const DAT_EVD_HANDLE e[3] = {ep->recv, ep->req, ep->conn};
    int r = 0;
    for (int k = 0; k < 3; k++) {
        if (!e[k])
            continue;
        const struct obj *evd = obj_of(T_EVD, e[k]);
        if (!evd)
            r = -1;
        else if (evd->ia == ia)
            return 1;
    }
    return r;
}

/* Every pooled object is live in libdat unless `closed` (an IA just
 * closed, or NULL) took it: its own objects, and the EPs of other IAs that
 * take one of its EVDs (docs/libdat.md, "Closing an IA"). */
static void sweep(DAT_IA_HANDLE closed)
{
    for (int t = 0; t < NTYPE; t++) {
        for (int i = 0; i < P[t].n;) {
            struct obj *o = &P[t].o[i];
            int expect_dead = 0;
            if (closed && (o->ia == closed || o->h == closed))
                expect_dead = 1;
            else if (closed && t == T_EP)
                expect_dead = ep_feeds(o, closed);
            const int lt = live_type(o->h);
            const bool dead = lt != t;
            if (dead && lt >= 0)
                fail("%s %p is live as a %s", type_name[t], o->h, type_name[lt]);
            if (dead && expect_dead == 0)
                fail("%s %p of IA %p vanished%s", type_name[t], o->h, o->ia, closed ? " with another IA's close" : "");
            if (!dead && expect_dead == 1)
                fail("%s %p outlived the close of IA %p", type_name[t], o->h, closed);
            if (dead) {
                obj_kill(t, i);
                continue;
            }
            i++;
        }
    }
    /* An IA given the closed IA's async EVD is left without one. */
    for (int i = 0; i < P[T_IA].n; i++) {
        struct obj *ia = &P[T_IA].o[i];
        if (ia->async && obj_find(T_EVD, ia->async) < 0) {
            ia->async = DAT_HANDLE_NULL;
            ia->owns_async = false;
        }
    }
}

/* ------------------------------------------------------------ events */

/* EVDs an event is probably on its way to (a connect's PSP, an EP that
 * posted): dequeues and waits look there often, or a connection would
 * rarely get past its request among dozens of EVDs. */
#define HOT_N 16
static DAT_EVD_HANDLE hot[HOT_N];
static unsigned nhot;

static void heat(DAT_EVD_HANDLE evd)
{
    if (evd)
        hot[nhot++ % HOT_N] = evd;
}

static struct harg hot_or_any_evd(unsigned bad_pct)
{
    if (nhot && chance(50)) {
        const DAT_EVD_HANDLE h = hot[below(nhot < HOT_N ? nhot : HOT_N)];
        const int i = obj_find(T_EVD, h);
        if (i >= 0)
            return (struct harg){h, HK_VALID, i};
    }
    return handle_arg(T_EVD, bad_pct, NULL);
}

static void on_event(const DAT_EVENT *ev, DAT_EVD_HANDLE from);

/* A CNO's proxy agent. Two instances: one counts, the other also takes an
 * event from the EVD that triggered the CNO, as agents may (libdat calls
 * them with its lock released, after the DAT call that triggered them). */
struct agent_data {
    uint32_t magic;
    uint64_t calls;
};
static struct agent_data agent_count = {0xA6E71u, 0}, agent_take = {0xA6E72u, 0};

static void agent_fn(DAT_PVOID instance, DAT_EVD_HANDLE evd)
{
    struct agent_data *a = instance;
    if (a != &agent_count && a != &agent_take)
        fail("a proxy agent was called with instance data %p it was never given", instance);
    a->calls++;
    agent_calls++;
    if (a == &agent_take) {
        const char *outer = cur_fn;
        DAT_EVENT ev;
        TARGS("%p (in a proxy agent)", evd);
        if (DO(evd_dequeue, E_ANY, dat_evd_dequeue(evd, &ev)) == DAT_SUCCESS)
            on_event(&ev, evd);
        cur_fn = outer;
    }
}

static DAT_OS_WAIT_PROXY_AGENT rnd_agent(void)
{
    switch (below(4)) {
    case 0: return (DAT_OS_WAIT_PROXY_AGENT){&agent_count, agent_fn};
    case 1: return (DAT_OS_WAIT_PROXY_AGENT){&agent_take, agent_fn};
    case 2: return (DAT_OS_WAIT_PROXY_AGENT){junk_ptr(), NULL};   /* no function: never called */
    default: return DAT_OS_WAIT_PROXY_AGENT_NULL;
    }
}

static void on_event(const DAT_EVENT *ev, DAT_EVD_HANDLE from)
{
    events_seen++;
    if (ev->evd_handle != from)
        fail("event 0x%x from EVD %p names EVD %p", (unsigned)ev->event_number, from, ev->evd_handle);
    const struct obj *evd = obj_of(T_EVD, from);
    switch (ev->event_number) {
    case DAT_CONNECTION_REQUEST_EVENT: {
        const DAT_CR_HANDLE cr = ev->event_data.cr_arrival_event_data.cr_handle;
        if (live_type(cr) != T_CR)
            fail("a connection request event names CR %p, which is not live", cr);
        if (evd && !full(T_CR)) {
            obj_add(T_CR, cr, evd->ia, evd->nic);
        } else {
            /* Untracked, it would keep its IA in use to the end: answered now. */
            TARGS("%p (no room to keep it)", cr);
            DO(cr_reject, E_ANY, dat_cr_reject(cr));
        }
        return;
    }
    case DAT_CONNECTION_EVENT_ESTABLISHED:
    case DAT_CONNECTION_EVENT_PEER_REJECTED:
    case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:
    case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR:
    case DAT_CONNECTION_EVENT_DISCONNECTED:
    case DAT_CONNECTION_EVENT_BROKEN:
    case DAT_CONNECTION_EVENT_TIMED_OUT:
    case DAT_CONNECTION_EVENT_UNREACHABLE: {
        struct obj *ep = obj_of(T_EP, ev->event_data.connect_event_data.ep_handle);
        if (ep) {
            ep->connected = ev->event_number == DAT_CONNECTION_EVENT_ESTABLISHED;
            DAT_EP_PARAM prm;
            TARGS("%p (its ports)", ep->h);
            if (ep->connected && DO(ep_query, E_ANY, dat_ep_query(ep->h, DAT_EP_FIELD_ALL, &prm)) == DAT_SUCCESS) {
                ep->lport = prm.local_port_qual;
                ep->rport = prm.remote_port_qual;
            }
        }
        const DAT_COUNT n = ev->event_data.connect_event_data.private_data_size;
        if (n < 0 || n > 256 || (n > 0 && !ev->event_data.connect_event_data.private_data))
            fail("connection event 0x%x carries %d bytes of private data at %p", (unsigned)ev->event_number, (int)n,
                 ev->event_data.connect_event_data.private_data);
        return;
    }
    case DAT_DTO_COMPLETION_EVENT: {
        const unsigned s = (unsigned)ev->event_data.dto_completion_event_data.status;
        if (s > DAT_RMR_OPERATION_FAILED)
            fail("a DTO completion with status %u", s);
        dto_status[s]++;
        return;
    }
    case DAT_RMR_BIND_COMPLETION_EVENT: {
        const unsigned s = (unsigned)ev->event_data.rmr_completion_event_data.status;
        if (s > DAT_RMR_OPERATION_FAILED)
            fail("an RMR bind completion with status %u", s);
        return;
    }
    case DAT_ASYNC_ERROR_EVD_OVERFLOW:
    case DAT_ASYNC_ERROR_IA_CATASTROPHIC:
    case DAT_ASYNC_ERROR_EP_BROKEN:
    case DAT_ASYNC_ERROR_TIMED_OUT:
    case DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR:
    case DAT_SOFTWARE_EVENT:
        return;
    default:
        fail("an event with number 0x%x, which DAT does not have", (unsigned)ev->event_number);
    }
}

/* ------------------------------------------------------ value helpers */

static DAT_COUNT rnd_qlen(bool *bad)
{
    *bad = false;
    switch (below(20)) {
    case 0: *bad = true; return 0;
    case 1: *bad = true; return -(DAT_COUNT)below(5) - 1;
    case 2: *bad = true; return (1 << 15) + 1 + (DAT_COUNT)below(100);
    case 3: return 64 + (DAT_COUNT)below(200);
    default: return 1 + (DAT_COUNT)below(32);
    }
}

/* Waits are short: the run must never block on the NIC for long. */
static DAT_TIMEOUT rnd_timeout(void)
{
    static const DAT_TIMEOUT t[] = {0, 0, 1, 5, 20, 50, 100, 300, 1000};
    return t[below(sizeof(t) / sizeof(t[0]))];
}

static DAT_CONTEXT rnd_cookie(void)
{
    DAT_CONTEXT c;
    c.as_64 = rnd();
    return c;
}

/* ------------------------------------------------------------ IA ops */

static char name_rnic[2][8] = {"rnic0", "rnic1"};
static char name_ro[2][20] = {"RO_AWARE_rnic0", "RO_AWARE_rnic1"};

static int open_ias_on(int nic)
{
    int n = 0;
    for (int i = 0; i < P[T_IA].n; i++)
        n += P[T_IA].o[i].nic == nic;
    return n;
}

static void op_ia_open(void)
{
    if (P[T_IA].n == 0 && chance(50)) {
        /* Nothing is registered while no IA is open: new buffers now. */
        bufs_free();
        bufs_alloc();
    }
    /* Two IAs per NIC, opened and closed again and again. */
    int nic = (int)below(2);
    if (open_ias_on(nic) >= 2)
        nic ^= 1;
    unsigned e = E_ANY;
    char *name = name_rnic[nic];
    static char bad_names[4][300];
    if (!bad_names[0][0]) {
        snprintf(bad_names[0], 300, "%s", "no-such-ia");
        snprintf(bad_names[1], 300, "%s", "rnic9");
        memset(bad_names[2], 'r', 299);   /* longer than DAT_NAME_MAX_LENGTH */
        bad_names[3][0] = '\0';
    }
    const unsigned pick = below(100);
    if (pick < 2 || full(T_IA) || open_ias_on(nic) >= 2) {
        /* rnic9 (no such NIC) seldom: libdat says why on stderr each time. */
        unsigned k = below(5);
        if (k == 1 && chance(90))
            k = 0;
        name = k == 4 ? NULL : bad_names[k];
        e |= E_FAIL;
    } else if (pick < 10) {
        name = name_ro[nic];
    }
    DAT_COUNT qlen = 1 + (DAT_COUNT)below(16);
    DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
    struct harg shared = {DAT_HANDLE_NULL, HK_NULL, -1};
    const unsigned a = below(100);
    if (a < 60 && !full(T_EVD)) {
        bool bad;
        qlen = rnd_qlen(&bad);
        if (bad)
            e |= E_FAIL;
    } else if (a < 80) {
        async = DAT_EVD_ASYNC_EXISTS;
    } else {
        /* Another IA's async EVD, shared: only one of this NIC's, of the async stream. */
        shared = handle_where(T_EVD, 20, NULL, NULL);
        async = shared.h;
        if (shared.kind == HK_NULL) {
            if (full(T_EVD))
                async = DAT_EVD_ASYNC_EXISTS;   /* no room to keep the one it would make */
        } else if (hbad(shared) || !(P[T_EVD].o[shared.idx].flags & DAT_EVD_ASYNC_FLAG) ||
                   P[T_EVD].o[shared.idx].nic != nic) {
            e |= E_FAIL;
        }
    }
    DAT_EVD_HANDLE *async_p = &async;
    DAT_IA_HANDLE ia = DAT_HANDLE_NULL, *ia_p = &ia;
    if (chance(2)) {
        async_p = NULL;
        e |= E_FAIL;
    } else if (chance(2)) {
        ia_p = NULL;
        e |= E_FAIL;
    }
    DAT_UINT32 major = DAT_VERSION_MAJOR, minor = DAT_VERSION_MINOR;
    DAT_BOOLEAN ts = chance(50) ? DAT_TRUE : DAT_FALSE;
    switch (below(30)) {
    case 0: major = 2; e |= E_FAIL; break;
    case 1: minor = 3; e |= E_FAIL; break;
    case 2: minor = 1; break;
    case 3: ts = (DAT_BOOLEAN)7; e |= E_FAIL; break;
    default: break;
    }
    const DAT_EVD_HANDLE async_in = async;
    TARGS("%.20s, %d, %p, ia, %u.%u, %d", name ? name : "NULL", (int)qlen, async_in, (unsigned)major,
          (unsigned)minor, (int)ts);
    const DAT_RETURN r = DO(ia_openv, e, dat_ia_openv(name, qlen, async_p, ia_p, major, minor, ts));
    if (r != DAT_SUCCESS) {
        if (async_p && async != async_in)
            fail("a failed dat_ia_open changed the async EVD handle from %p to %p", async_in, async);
        return;
    }
    check_created(T_IA, ia);
    struct obj *o = obj_add(T_IA, ia, ia, nic);
    DAT_IA_ATTR attr;
    TARGS("%p (its address)", ia);
    if (DO(ia_query, E_ANY, dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &attr, 0, NULL)) != DAT_SUCCESS)
        fail("dat_ia_query of a new IA failed");
    memcpy(&o->addr, attr.ia_address_ptr, sizeof(o->addr));
    if (async_in == DAT_HANDLE_NULL) {
        check_created(T_EVD, async);
        struct obj *ev = obj_add(T_EVD, async, ia, nic);
        ev->flags = DAT_EVD_ASYNC_FLAG;
        o->async = async;
        o->owns_async = true;
    } else if (async_in != DAT_EVD_ASYNC_EXISTS) {
        o->async = async_in;
    }
}

static void ia_closed(DAT_IA_HANDLE ia)
{
    sweep(ia);
    check_gone(T_IA, ia);
}

/* Objects that keep a graceful close from succeeding, as far as this run
 * knows: any of the IA's own but the async EVD it made, its async EVD given
 * to another IA, an EP of another IA on one of its EVDs. */
static bool ia_busy(const struct obj *ia)
{
    for (int t = 0; t < NTYPE; t++) {
        for (int i = 0; i < P[t].n; i++) {
            const struct obj *o = &P[t].o[i];
            if (t == T_IA) {
                if (o->h != ia->h && ia->owns_async && o->async == ia->async)
                    return true;
                continue;
            }
            if (o->ia == ia->h && !(t == T_EVD && ia->owns_async && o->h == ia->async))
                return true;
            if (t == T_EP && o->ia != ia->h && ep_feeds(o, ia->h) != 0)
                return true;
        }
    }
    return false;
}

static void op_ia_close(void)
{
    const struct harg ia = handle_arg(T_IA, 10, NULL);
    unsigned e = hbad(ia) ? E_BAD_HANDLE : E_ANY;
    DAT_CLOSE_FLAGS f = chance(75) ? DAT_CLOSE_ABRUPT_FLAG : DAT_CLOSE_GRACEFUL_FLAG;
    if (chance(4)) {
        f = (DAT_CLOSE_FLAGS)(2 + below(100));
        e |= E_FAIL;
    }
    const bool busy = !hbad(ia) && ia_busy(hobj(T_IA, ia));
    TARGS("%p%c, %d", ia.h, hk_char[ia.kind], (int)f);
    const DAT_RETURN r = DO(ia_close, e, dat_ia_close(ia.h, f));
    if (r != DAT_SUCCESS)
        return;
    if (f == DAT_CLOSE_GRACEFUL_FLAG && busy)
        fail("a graceful dat_ia_close succeeded on an IA still in use");
    ia_closed(ia.h);
}

static bool frees_in_order(DAT_IA_HANDLE ia);

/* Everything of an IA freed through the API, then a graceful close: it must
 * succeed when nothing else uses the IA. */
static void op_ia_drain_close(void)
{
    const int i = pick_where(T_IA, NULL, NULL);
    if (i < 0)
        return;
    const DAT_IA_HANDLE ia = P[T_IA].o[i].h;
    const bool all_freed = frees_in_order(ia);
    const struct obj *o = obj_of(T_IA, ia);
    const bool busy = ia_busy(o);
    TARGS("%p, graceful (after freeing its objects)", ia);
    const DAT_RETURN r = DO(ia_close, E_ANY, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
    if (r == DAT_SUCCESS) {
        if (busy)
            fail("a graceful dat_ia_close succeeded on an IA still in use");
        ia_closed(ia);
        return;
    }
    if (all_freed && !busy && !o->lost_crs)
        fail("a graceful dat_ia_close of an IA with nothing left failed: 0x%08x", (unsigned)r);
    TARGS("%p, abrupt", ia);
    if (DO(ia_close, E_ANY, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG)) != DAT_SUCCESS)
        fail("an abrupt dat_ia_close failed");
    ia_closed(ia);
}

static void op_ia_query(void)
{
    const struct harg ia = handle_arg(T_IA, 10, NULL);
    unsigned e = hbad(ia) ? E_BAD_HANDLE : E_ANY;
    DAT_IA_ATTR_MASK m = chance(50) ? DAT_IA_FIELD_ALL : rnd() & DAT_IA_FIELD_ALL;
    DAT_PROVIDER_ATTR_MASK pm = chance(50) ? DAT_PROVIDER_FIELD_ALL : rnd() & DAT_PROVIDER_FIELD_ALL;
    DAT_IA_ATTR attr, *ap = &attr;
    DAT_PROVIDER_ATTR pattr, *pp = &pattr;
    DAT_EVD_HANDLE async, *asp = chance(80) ? &async : NULL;
    switch (below(12)) {
    case 0: m |= UINT64_C(1) << 40; e |= E_FAIL; break;
    case 1: pm |= UINT64_C(1) << 30; e |= E_FAIL; break;
    case 2: ap = NULL; if (m) e |= E_FAIL; break;
    case 3: pp = NULL; if (pm) e |= E_FAIL; break;
    case 4: ap = junk_ptr(); break;
    case 5: pp = junk_ptr(); break;
    case 6: m = 0; ap = NULL; pm = 0; pp = NULL; break;
    default: break;
    }
    TARGS("%p%c, %s, 0x%" PRIx64 ", 0x%" PRIx64, ia.h, hk_char[ia.kind], asp ? "&async" : "NULL", (uint64_t)m,
          (uint64_t)pm);
    DO(ia_query, e, dat_ia_query(ia.h, asp, m, ap, pm, pp));
}

/* ------------------------------------------------------------ PZ ops */

static void op_pz_create(void)
{
    const struct harg ia = handle_arg(T_IA, 8, NULL);
    unsigned e = hbad(ia) ? E_BAD_HANDLE : E_ANY;
    DAT_PZ_HANDLE pz = DAT_HANDLE_NULL, *pzp = &pz;
    if (chance(3) || full(T_PZ)) {
        pzp = NULL;
        e |= E_FAIL;
    }
    TARGS("%p%c", ia.h, hk_char[ia.kind]);
    if (DO(pz_create, e, dat_pz_create(ia.h, pzp)) != DAT_SUCCESS)
        return;
    check_created(T_PZ, pz);
    obj_add(T_PZ, pz, ia.h, hobj(T_IA, ia)->nic);
}

static void op_pz_free(void)
{
    const struct harg pz = handle_arg(T_PZ, 10, NULL);
    TARGS("%p%c", pz.h, hk_char[pz.kind]);
    if (DO(pz_free, hbad(pz) ? E_BAD_HANDLE : E_ANY, dat_pz_free(pz.h)) == DAT_SUCCESS)
        destroyed(T_PZ, pz.idx);
}

static void op_pz_query(void)
{
    const struct harg pz = handle_arg(T_PZ, 15, NULL);
    unsigned e = hbad(pz) ? E_BAD_HANDLE : E_ANY;
    DAT_PZ_PARAM prm, *pp = &prm;
    DAT_PZ_PARAM_MASK m = DAT_PZ_FIELD_ALL;
    if (chance(5)) {
        pp = NULL;
        e |= E_FAIL;
    } else if (chance(5)) {
        m = (DAT_PZ_PARAM_MASK)0x10;
        e |= E_FAIL;
    }
    TARGS("%p%c", pz.h, hk_char[pz.kind]);
    if (DO(pz_query, e, dat_pz_query(pz.h, m, pp)) == DAT_SUCCESS && pz.kind == HK_VALID &&
        prm.ia_handle != P[T_PZ].o[pz.idx].ia)
        fail("dat_pz_query names IA %p, not %p", prm.ia_handle, P[T_PZ].o[pz.idx].ia);
}

/* ----------------------------------------------------------- EVD ops */

static DAT_EVD_FLAGS rnd_evd_flags(bool *bad)
{
    *bad = false;
    switch (below(20)) {
    case 0: *bad = true; return (DAT_EVD_FLAGS)0;
    case 1: *bad = true; return (DAT_EVD_FLAGS)(DAT_EVD_DTO_FLAG | 0x2);
    case 2: *bad = true; return (DAT_EVD_FLAGS)0x800;
    case 3: case 4: return DAT_EVD_DEFAULT_FLAG;
    case 5: return (DAT_EVD_FLAGS)(DAT_EVD_SOFTWARE_FLAG | (rnd() & DAT_EVD_DEFAULT_FLAG));
    case 6: return DAT_EVD_ASYNC_FLAG;
    case 7: return DAT_EVD_RMR_BIND_FLAG;
    case 8: case 9: case 10: return DAT_EVD_CR_FLAG;
    case 11: case 12: case 13: return DAT_EVD_CONNECTION_FLAG;
    default: return DAT_EVD_DTO_FLAG;
    }
}

static void op_evd_create(void)
{
    const struct harg ia = handle_arg(T_IA, 8, NULL);
    unsigned e = hbad(ia) ? E_BAD_HANDLE : E_ANY;
    bool bad;
    const DAT_COUNT qlen = rnd_qlen(&bad);
    if (bad)
        e |= E_FAIL;
    const DAT_EVD_FLAGS f = rnd_evd_flags(&bad);
    if (bad)
        e |= E_FAIL;
    struct harg cno = {DAT_HANDLE_NULL, HK_NULL, -1};
    if (chance(25)) {
        cno = ia.kind == HK_VALID ? handle_where(T_CNO, 25, of_ia, ia.h) : handle_arg(T_CNO, 25, NULL);
        if (hbad_nullok(cno) || (cno.kind == HK_VALID && P[T_CNO].o[cno.idx].ia != ia.h))
            e |= E_FAIL;
    }
    DAT_EVD_HANDLE evd = DAT_HANDLE_NULL, *ep = &evd;
    if (chance(3) || full(T_EVD)) {
        ep = NULL;
        e |= E_FAIL;
    }
    TARGS("%p%c, %d, %p%c, 0x%x", ia.h, hk_char[ia.kind], (int)qlen, cno.h, hk_char[cno.kind], (unsigned)f);
    if (DO(evd_create, e, dat_evd_create(ia.h, qlen, cno.h, f, ep)) != DAT_SUCCESS)
        return;
    check_created(T_EVD, evd);
    struct obj *iao = hobj(T_IA, ia);
    struct obj *o = obj_add(T_EVD, evd, ia.h, iao->nic);
    o->flags = f;
    if ((f & DAT_EVD_ASYNC_FLAG) && !iao->async) {
        /* An IA without an async EVD adopts the first made for that stream. */
        iao->async = evd;
        iao->owns_async = true;
    }
}

static void op_evd_free(void)
{
    const struct harg evd = handle_arg(T_EVD, 10, NULL);
    TARGS("%p%c", evd.h, hk_char[evd.kind]);
    if (DO(evd_free, hbad(evd) ? E_BAD_HANDLE : E_ANY, dat_evd_free(evd.h)) != DAT_SUCCESS)
        return;
    for (int i = 0; i < P[T_IA].n; i++)
        if (P[T_IA].o[i].async == evd.h)
            fail("dat_evd_free freed EVD %p, the async EVD of IA %p", evd.h, P[T_IA].o[i].h);
    struct obj *ia = obj_of(T_IA, P[T_EVD].o[evd.idx].ia);
    if (ia && (P[T_EVD].o[evd.idx].flags & DAT_EVD_CR_FLAG))
        ia->lost_crs = true;
    destroyed(T_EVD, evd.idx);
}

static void op_evd_resize(void)
{
    const struct harg evd = handle_arg(T_EVD, 10, NULL);
    unsigned e = hbad(evd) ? E_BAD_HANDLE : E_ANY;
    bool bad;
    const DAT_COUNT q = rnd_qlen(&bad);
    if (bad)
        e |= E_FAIL;
    TARGS("%p%c, %d", evd.h, hk_char[evd.kind], (int)q);
    if (DO(evd_resize, e, dat_evd_resize(evd.h, q)) != DAT_SUCCESS || hbad(evd))
        return;
    DAT_EVD_PARAM prm;
    TARGS("%p (its new length)", evd.h);
    if (DO(evd_query, E_ANY, dat_evd_query(evd.h, DAT_EVD_FIELD_EVD_QLEN, &prm)) != DAT_SUCCESS || prm.evd_qlen != q)
        fail("EVD %p resized to %d reports %d", evd.h, (int)q, (int)prm.evd_qlen);
}

static void op_evd_dequeue(void)
{
    const struct harg evd = hot_or_any_evd(6);
    unsigned e = hbad(evd) ? E_BAD_HANDLE : E_ANY;
    DAT_EVENT ev, *evp = &ev;
    if (chance(3)) {
        evp = NULL;
        e |= E_FAIL;
    }
    /* A few in a row: events pile up otherwise. */
    const unsigned n = 1 + below(4);
    for (unsigned k = 0; k < n; k++) {
        TARGS("%p%c", evd.h, hk_char[evd.kind]);
        if (DO(evd_dequeue, e, dat_evd_dequeue(evd.h, evp)) != DAT_SUCCESS)
            return;
        on_event(&ev, evd.h);
    }
}

static void op_evd_wait(void)
{
    const struct harg evd = hot_or_any_evd(6);
    unsigned e = hbad(evd) ? E_BAD_HANDLE : E_ANY;
    const DAT_TIMEOUT to = rnd_timeout();
    DAT_COUNT threshold = 1;
    switch (below(12)) {
    case 0: threshold = 0; e |= E_FAIL; break;
    case 1: threshold = -1; e |= E_FAIL; break;
    case 2: threshold = 2 + (DAT_COUNT)below(3); break;
    case 3: threshold = 1 << 20; e |= E_FAIL; break;
    default: break;
    }
    DAT_EVENT ev, *evp = &ev;
    DAT_COUNT nmore, *np = &nmore;
    if (chance(3)) {
        evp = NULL;
        e |= E_FAIL;
    } else if (chance(3)) {
        np = NULL;
        e |= E_FAIL;
    }
    TARGS("%p%c, %u us, %d", evd.h, hk_char[evd.kind], (unsigned)to, (int)threshold);
    if (DO(evd_wait, e, dat_evd_wait(evd.h, to, threshold, evp, np)) == DAT_SUCCESS)
        on_event(&ev, evd.h);
}

static void op_evd_query(void)
{
    const struct harg evd = handle_arg(T_EVD, 10, NULL);
    unsigned e = hbad(evd) ? E_BAD_HANDLE : E_ANY;
    DAT_EVD_PARAM prm, *pp = &prm;
    DAT_EVD_PARAM_MASK m = chance(80) ? DAT_EVD_FIELD_ALL : (DAT_EVD_PARAM_MASK)(rnd() & DAT_EVD_FIELD_ALL);
    switch (below(16)) {
    case 0: pp = NULL; e |= E_FAIL; break;
    case 1: m = (DAT_EVD_PARAM_MASK)0x100; e |= E_FAIL; break;
    case 2: pp = junk_ptr(); break;
    default: break;
    }
    TARGS("%p%c, 0x%x", evd.h, hk_char[evd.kind], (unsigned)m);
    if (DO(evd_query, e, dat_evd_query(evd.h, m, pp)) != DAT_SUCCESS || pp != &prm || hbad(evd) ||
        m != DAT_EVD_FIELD_ALL)
        return;
    const struct obj *o = &P[T_EVD].o[evd.idx];
    if (prm.ia_handle != o->ia || prm.evd_flags != o->flags)
        fail("dat_evd_query of EVD %p: IA %p flags 0x%x, made on IA %p with 0x%x", evd.h, prm.ia_handle,
             (unsigned)prm.evd_flags, o->ia, (unsigned)o->flags);
}

static void op_evd_post_se(void)
{
    const struct harg evd = handle_arg(T_EVD, 10, NULL);
    unsigned e = hbad(evd) ? E_BAD_HANDLE : E_ANY;
    DAT_EVENT ev, *evp = &ev;
    memset(&ev, 0, sizeof(ev));
    ev.event_number = DAT_SOFTWARE_EVENT;
    ev.event_data.software_event_data.pointer = junk_ptr();
    switch (below(10)) {
    case 0: evp = NULL; e |= E_FAIL; break;
    case 1: ev.event_number = DAT_DTO_COMPLETION_EVENT; e |= E_FAIL; break;
    case 2: {
        junk_stir();
        evp = junk_ptr();
        DAT_EVENT_NUMBER n;
        memcpy(&n, (const unsigned char *)evp + offsetof(DAT_EVENT, event_number), sizeof(n));
        if (n != DAT_SOFTWARE_EVENT)
            e |= E_FAIL;
        break;
    }
    default: break;
    }
    TARGS("%p%c", evd.h, hk_char[evd.kind]);
    DO(evd_post_se, e, dat_evd_post_se(evd.h, evp));
}

static void op_evd_misc(void)
{
    const struct harg evd = handle_arg(T_EVD, 10, NULL);
    const unsigned e = hbad(evd) ? E_BAD_HANDLE : E_ANY;
    TARGS("%p%c", evd.h, hk_char[evd.kind]);
    switch (below(5)) {
    case 0: DO(evd_enable, e, dat_evd_enable(evd.h)); break;
    case 1: DO(evd_disable, e, dat_evd_disable(evd.h)); break;
    case 2: DO(evd_set_unwaitable, e, dat_evd_set_unwaitable(evd.h)); break;
    case 3: DO(evd_clear_unwaitable, e, dat_evd_clear_unwaitable(evd.h)); break;
    default: {
        const DAT_IA_HANDLE ia = hbad(evd) ? NULL : P[T_EVD].o[evd.idx].ia;
        struct harg cno = chance(30) ? (struct harg){DAT_HANDLE_NULL, HK_NULL, -1} : handle_arg(T_CNO, 15, ia);
        unsigned e2 = e;
        if (hbad_nullok(cno) || (cno.kind == HK_VALID && P[T_CNO].o[cno.idx].ia != ia))
            e2 |= E_FAIL;
        TARGS("%p%c, %p%c", evd.h, hk_char[evd.kind], cno.h, hk_char[cno.kind]);
        DO(evd_modify_cno, e2, dat_evd_modify_cno(evd.h, cno.h));
        break;
    }
    }
}

/* ----------------------------------------------------------- CNO ops */

static void op_cno_create(void)
{
    const struct harg ia = handle_arg(T_IA, 8, NULL);
    unsigned e = hbad(ia) ? E_BAD_HANDLE : E_ANY;
    DAT_CNO_HANDLE cno = DAT_HANDLE_NULL, *cp = &cno;
    if (chance(3) || full(T_CNO)) {
        cp = NULL;
        e |= E_FAIL;
    }
    TARGS("%p%c", ia.h, hk_char[ia.kind]);
    if (DO(cno_create, e, dat_cno_create(ia.h, rnd_agent(), cp)) != DAT_SUCCESS)
        return;
    check_created(T_CNO, cno);
    obj_add(T_CNO, cno, ia.h, hobj(T_IA, ia)->nic);
}

static void op_cno_free(void)
{
    const struct harg cno = handle_arg(T_CNO, 10, NULL);
    TARGS("%p%c", cno.h, hk_char[cno.kind]);
    if (DO(cno_free, hbad(cno) ? E_BAD_HANDLE : E_ANY, dat_cno_free(cno.h)) == DAT_SUCCESS)
        destroyed(T_CNO, cno.idx);
}

static void op_cno_wait(void)
{
    const struct harg cno = handle_arg(T_CNO, 10, NULL);
    unsigned e = hbad(cno) ? E_BAD_HANDLE : E_ANY;
    DAT_EVD_HANDLE evd, *ep = &evd;
    if (chance(4)) {
        ep = NULL;
        e |= E_FAIL;
    }
    const DAT_TIMEOUT to = rnd_timeout();
    TARGS("%p%c, %u us", cno.h, hk_char[cno.kind], (unsigned)to);
    if (DO(cno_wait, e, dat_cno_wait(cno.h, to, ep)) == DAT_SUCCESS && live_type(evd) != T_EVD)
        fail("dat_cno_wait returned EVD %p, which is not live", evd);
}

static void op_cno_query_modify(void)
{
    const struct harg cno = handle_arg(T_CNO, 10, NULL);
    unsigned e = hbad(cno) ? E_BAD_HANDLE : E_ANY;
    TARGS("%p%c", cno.h, hk_char[cno.kind]);
    if (chance(50)) {
        DO(cno_modify_agent, e, dat_cno_modify_agent(cno.h, rnd_agent()));
        return;
    }
    DAT_CNO_PARAM prm, *pp = &prm;
    DAT_CNO_PARAM_MASK m = DAT_CNO_FIELD_ALL;
    if (chance(6)) {
        pp = NULL;
        e |= E_FAIL;
    } else if (chance(6)) {
        m = (DAT_CNO_PARAM_MASK)0x40;
        e |= E_FAIL;
    }
    DO(cno_query, e, dat_cno_query(cno.h, m, pp));
}

/* ------------------------------------------------------------ EP ops */

struct evd_need {
    int nic;
    DAT_EVD_FLAGS flag;
};
static bool evd_fits(const struct obj *o, const void *arg)
{
    const struct evd_need *n = arg;
    return o->nic == n->nic && (o->flags & n->flag);
}

/* An EVD argument of an EP: mostly one of the right stream on the EP's NIC;
 * sets *e's E_FAIL when what is passed cannot serve. */
static struct harg ep_evd_arg(int nic, DAT_EVD_FLAGS need, unsigned *e)
{
    if (chance(12))
        return (struct harg){DAT_HANDLE_NULL, HK_NULL, -1};
    const struct evd_need n = {nic, need};
    struct harg a = handle_where(T_EVD, 8, evd_fits, &n);
    if (hbad_nullok(a))
        *e |= E_FAIL;
    else if (a.kind == HK_VALID && !evd_fits(&P[T_EVD].o[a.idx], &n))
        *e |= E_FAIL;
    return a;
}

static void rnd_ep_attr(DAT_EP_ATTR *a, bool *bad)
{
    memset(a, 0, sizeof(*a));
    *bad = false;
    if (chance(20))
        return;   /* a DAT 1.1 consumer's zeroes: the provider's defaults */
    a->service_type = DAT_SERVICE_TYPE_RC;
    a->max_message_size = chance(80) ? 0 : 1 + below(1 << 20);
    a->max_rdma_size = chance(80) ? 0 : 1 + below(1 << 20);
    a->qos = DAT_QOS_BEST_EFFORT;
    a->recv_completion_flags = chance(30) ? DAT_COMPLETION_UNSIGNALLED_FLAG : DAT_COMPLETION_DEFAULT_FLAG;
    a->request_completion_flags = chance(30) ? DAT_COMPLETION_UNSIGNALLED_FLAG : DAT_COMPLETION_DEFAULT_FLAG;
    a->max_recv_dtos = 1 + (DAT_COUNT)below(20);
    a->max_request_dtos = 1 + (DAT_COUNT)below(20);
    a->max_recv_iov = (DAT_COUNT)below(5);
    a->max_request_iov = (DAT_COUNT)below(5);
    a->max_rdma_read_in = (DAT_COUNT)below(9);
    a->max_rdma_read_out = (DAT_COUNT)below(9);
    a->max_rdma_read_iov = (DAT_COUNT)below(5);
    a->max_rdma_write_iov = (DAT_COUNT)below(5);
    a->srq_soft_hw = DAT_HW_DEFAULT;
    if (chance(85))
        return;
    *bad = true;
    switch (below(9)) {
    case 0: a->service_type = (DAT_SERVICE_TYPE)1; break;
    case 1: a->qos = DAT_QOS_PREMIUM; break;
    case 2: a->max_recv_dtos = (1 << 15) + 1; break;
    case 3: a->max_request_dtos = -1; break;
    case 4: a->max_recv_iov = 5 + (DAT_COUNT)below(100); break;
    case 5: a->max_rdma_read_out = 9 + (DAT_COUNT)below(100); break;
    case 6: a->max_message_size = ((DAT_VLEN)1 << 30) + 1; break;
    case 7: a->request_completion_flags = DAT_COMPLETION_SUPPRESS_FLAG; break;
    default: a->max_rdma_write_iov = -3; break;
    }
}

/* The IA of a random object of type t (a create that wants a parent of
 * that type to exist), else any IA argument. */
static struct harg ia_with(int t, unsigned bad_pct)
{
    if (!chance(bad_pct) && chance(85)) {
        const int i = pick_where(t, NULL, NULL);
        const int k = i >= 0 ? obj_find(T_IA, P[t].o[i].ia) : -1;
        if (k >= 0)
            return (struct harg){P[T_IA].o[k].h, HK_VALID, k};
    }
    return handle_arg(T_IA, bad_pct, NULL);
}

static void op_ep_create(void)
{
    const struct harg ia = ia_with(T_PZ, 6);
    unsigned e = hbad(ia) ? E_BAD_HANDLE : E_ANY;
    const int nic = hbad(ia) ? (int)below(2) : P[T_IA].o[ia.idx].nic;
    struct harg pz = chance(8) ? (struct harg){DAT_HANDLE_NULL, HK_NULL, -1} : handle_arg(T_PZ, 8, ia.h);
    if (hbad_nullok(pz) || (pz.kind == HK_VALID && P[T_PZ].o[pz.idx].ia != ia.h))
        e |= E_FAIL;
    const struct harg recv = ep_evd_arg(nic, DAT_EVD_DTO_FLAG, &e);
    const struct harg req = ep_evd_arg(nic, DAT_EVD_DTO_FLAG, &e);
    const struct harg conn = ep_evd_arg(nic, DAT_EVD_CONNECTION_FLAG, &e);
    DAT_EP_ATTR attr;
    const DAT_EP_ATTR *ap = NULL;
    if (chance(40)) {
        bool bad;
        rnd_ep_attr(&attr, &bad);
        ap = &attr;
        if (bad)
            e |= E_FAIL;
    } else if (chance(3)) {
        junk_stir();
        ap = junk_ptr();
    }
    DAT_EP_HANDLE ep = DAT_HANDLE_NULL, *epp = &ep;
    if (chance(3) || full(T_EP)) {
        epp = NULL;
        e |= E_FAIL;
    }
    TARGS("%p%c, %p%c, %p%c, %p%c, %p%c, %s", ia.h, hk_char[ia.kind], pz.h, hk_char[pz.kind], recv.h,
          hk_char[recv.kind], req.h, hk_char[req.kind], conn.h, hk_char[conn.kind], ap ? "attr" : "NULL");
    if (DO(ep_create, e, dat_ep_create(ia.h, pz.h, recv.h, req.h, conn.h, ap, epp)) != DAT_SUCCESS)
        return;
    check_created(T_EP, ep);
    struct obj *o = obj_add(T_EP, ep, ia.h, nic);
    o->pz = pz.h;
    o->recv = recv.h;
    o->req = req.h;
    o->conn = conn.h;
}

/* After dat_ep_modify, whatever it returned: what the EP uses now. */
static void ep_resync(struct obj *o)
{
    DAT_EP_PARAM prm;
    TARGS("%p (what it uses now)", o->h);
    if (DO(ep_query, E_ANY, dat_ep_query(o->h, DAT_EP_FIELD_ALL, &prm)) != DAT_SUCCESS)
        fail("dat_ep_query of live EP %p failed", o->h);
    if (prm.ia_handle != o->ia)
        fail("EP %p made on IA %p reports IA %p", o->h, o->ia, prm.ia_handle);
    o->pz = prm.pz_handle;
    o->recv = prm.recv_evd_handle;
    o->req = prm.request_evd_handle;
    o->conn = prm.connect_evd_handle;
}

static void op_ep_free(void)
{
    const struct harg ep = handle_arg(T_EP, 10, NULL);
    TARGS("%p%c", ep.h, hk_char[ep.kind]);
    if (DO(ep_free, hbad(ep) ? E_BAD_HANDLE : E_ANY, dat_ep_free(ep.h)) == DAT_SUCCESS)
        destroyed(T_EP, ep.idx);
}

static void op_ep_query_status(void)
{
    const struct harg ep = handle_arg(T_EP, 10, NULL);
    unsigned e = hbad(ep) ? E_BAD_HANDLE : E_ANY;
    TARGS("%p%c", ep.h, hk_char[ep.kind]);
    if (chance(50)) {
        DAT_EP_STATE st;
        DAT_BOOLEAN ri, qi;
        const bool want = chance(80);
        if (DO(ep_get_status, e,
               dat_ep_get_status(ep.h, want ? &st : NULL, chance(80) ? &ri : NULL, chance(80) ? &qi : NULL)) ==
                DAT_SUCCESS &&
            want && ep.kind == HK_VALID)
            P[T_EP].o[ep.idx].connected = st == DAT_EP_STATE_CONNECTED;
        return;
    }
    DAT_EP_PARAM prm, *pp = &prm;
    DAT_EP_PARAM_MASK m = chance(70) ? DAT_EP_FIELD_ALL : (rnd() & DAT_EP_FIELD_ALL);
    switch (below(16)) {
    case 0: pp = NULL; e |= E_FAIL; break;
    case 1: m |= UINT64_C(1) << 40; e |= E_FAIL; break;
    case 2: pp = junk_ptr(); break;
    default: break;
    }
    DO(ep_query, e, dat_ep_query(ep.h, m, pp));
}

static void op_ep_modify(void)
{
    const struct harg ep = handle_arg(T_EP, 10, NULL);
    unsigned e = hbad(ep) ? E_BAD_HANDLE : E_ANY;
    struct obj *o = hobj(T_EP, ep);
    const DAT_IA_HANDLE ia = o ? o->ia : NULL;
    const int nic = o ? o->nic : (int)below(2);
    DAT_EP_PARAM prm;
    memset(&prm, 0, sizeof(prm));
    DAT_EP_PARAM_MASK m = 0;
    if (chance(30)) {
        m |= DAT_EP_FIELD_PZ_HANDLE;
        const struct harg pz = chance(10) ? (struct harg){DAT_HANDLE_NULL, HK_NULL, -1} : handle_arg(T_PZ, 10, ia);
        prm.pz_handle = pz.h;
        if (hbad_nullok(pz) || (pz.kind == HK_VALID && P[T_PZ].o[pz.idx].ia != ia))
            e |= E_FAIL;
    }
    if (chance(25)) {
        m |= DAT_EP_FIELD_RECV_EVD_HANDLE;
        prm.recv_evd_handle = ep_evd_arg(nic, DAT_EVD_DTO_FLAG, &e).h;
    }
    if (chance(25)) {
        m |= DAT_EP_FIELD_REQUEST_EVD_HANDLE;
        prm.request_evd_handle = ep_evd_arg(nic, DAT_EVD_DTO_FLAG, &e).h;
    }
    if (chance(25)) {
        m |= DAT_EP_FIELD_CONNECT_EVD_HANDLE;
        prm.connect_evd_handle = ep_evd_arg(nic, DAT_EVD_CONNECTION_FLAG, &e).h;
    }
    if (chance(50)) {
        bool bad;
        rnd_ep_attr(&prm.ep_attr, &bad);
        const DAT_EP_PARAM_MASK am = chance(50) ? DAT_EP_FIELD_EP_ATTR_ALL : (rnd() & DAT_EP_FIELD_EP_ATTR_ALL);
        m |= am;
        /* A bad value counts only where the mask takes it. */
        (void)bad;
    }
    if (chance(5)) {
        m |= DAT_EP_FIELD_EP_STATE;
        e |= E_FAIL;
    }
    const DAT_EP_PARAM *pp = &prm;
    if (chance(3)) {
        pp = NULL;
        e |= E_FAIL;
    }
    TARGS("%p%c, 0x%" PRIx64, ep.h, hk_char[ep.kind], (uint64_t)m);
    DO(ep_modify, e, dat_ep_modify(ep.h, m, pp));
    if (o)
        ep_resync(o);
}

/* Where an EP may connect to: one of this run's service points (its IA's
 * address, its conn_qual), never a port some other process may listen on. */
struct target {
    struct sockaddr_in addr;
    DAT_CONN_QUAL qual;
};

static DAT_EVD_HANDLE target_evd;   /* the EVD of the service point pick_listener chose */

static bool pick_listener(struct target *t, int want_nic)
{
    const int kind = chance(80) ? T_PSP : T_RSP;
    int i = -1;
    for (int tries = 0; tries < 3 && i < 0; tries++)
        i = pick_where(kind, NULL, NULL);
    if (i < 0)
        return false;
    const struct obj *sp = &P[kind].o[i];
    if (want_nic >= 0 && sp->nic != want_nic && chance(80)) {
        const int j = pick_where(kind, NULL, NULL);
        if (j >= 0 && P[kind].o[j].nic == want_nic)
            sp = &P[kind].o[j];
    }
    const struct obj *ia = obj_of(T_IA, sp->ia);
    if (!ia)
        return false;
    t->addr = ia->addr;
    t->qual = sp->qual;
    target_evd = sp->evd;
    return true;
}

static bool connectable(const struct obj *o, const void *arg)
{
    (void)arg;
    return !o->connected && o->pz && o->req && o->conn;
}

static void op_ep_connect(void)
{
    const struct harg ep = handle_where(T_EP, 8, connectable, NULL);
    unsigned e = hbad(ep) ? E_BAD_HANDLE : E_ANY;
    const struct obj *o = hobj(T_EP, ep);
    struct target t;
    struct sockaddr_in6 a6;
    DAT_IA_ADDRESS_PTR addr = (DAT_IA_ADDRESS_PTR)&t.addr;
    memset(&t, 0, sizeof(t));
    const unsigned k = below(100);
    DAT_EVD_HANDLE tevd_picked = DAT_HANDLE_NULL;
    if (k < 75 && pick_listener(&t, o ? o->nic ^ 1 : -1)) {
        tevd_picked = target_evd;
    } else if (k < 85) {
        /* Not loopback (TEST-NET-1): unreachable, no socket opened. */
        t.addr.sin_family = AF_INET;
        t.addr.sin_addr.s_addr = htonl(0xC0000200u | below(256));
        t.qual = 1 + below(60000);
    } else if (k < 90) {
        memset(&a6, 0, sizeof(a6));
        a6.sin6_family = AF_INET6;
        addr = (DAT_IA_ADDRESS_PTR)&a6;
        t.qual = 1 + below(60000);
        e |= E_FAIL;
    } else if (k < 94) {
        addr = NULL;
        e |= E_FAIL;
    } else {
        /* Bytes that are no address: made sure not to be an IPv4 one, which
         * could reach a port another process listens on. */
        junk_stir();
        unsigned char *j = junk_ptr();
        const sa_family_t fam = AF_UNIX;
        memcpy(j + offsetof(struct sockaddr, sa_family), &fam, sizeof(fam));
        addr = (DAT_IA_ADDRESS_PTR)(void *)j;
        t.qual = 1 + below(60000);
        e |= E_FAIL;
    }
    if (chance(4)) {
        t.qual = chance(50) ? 0 : 65536 + below(100000);
        e |= E_FAIL;
    }
    const DAT_TIMEOUT to = chance(10) ? below(50) : 1000 + below(200000);
    static unsigned char pdata[300];
    DAT_COUNT plen = chance(70) ? 0 : (DAT_COUNT)below(257);
    void *pd = pdata;
    switch (below(25)) {
    case 0: plen = 257 + (DAT_COUNT)below(100); e |= E_FAIL; break;
    case 1: plen = -1; e |= E_FAIL; break;
    case 2: if (plen > 0) { pd = NULL; e |= E_FAIL; } break;
    default: break;
    }
    DAT_QOS qos = DAT_QOS_BEST_EFFORT;
    DAT_CONNECT_FLAGS cf = DAT_CONNECT_DEFAULT_FLAG;
    if (chance(3)) {
        qos = DAT_QOS_LOW_LATENCY;
        e |= E_FAIL;
    } else if (chance(3)) {
        cf = chance(50) ? DAT_CONNECT_MULTIPATH_FLAG : (DAT_CONNECT_FLAGS)7;
        e |= E_FAIL;
    }
    TARGS("%p%c, %s:%u, %u us, %d bytes", ep.h, hk_char[ep.kind], addr == (DAT_IA_ADDRESS_PTR)&t.addr
          ? inet_ntoa(t.addr.sin_addr) : "(other)", (unsigned)t.qual, (unsigned)to, (int)plen);
    const DAT_EVD_HANDLE tevd = tevd_picked;
    if (DO(ep_connect, e, dat_ep_connect(ep.h, addr, t.qual, to, plen, pd, qos, cf)) == DAT_SUCCESS && o) {
        heat(tevd);
        heat(o->conn);
    }
}

static void op_ep_dup_connect(void)
{
    const struct harg ep = handle_where(T_EP, 10, connectable, NULL);
    const struct harg dup = handle_arg(T_EP, 10, NULL);
    unsigned e = hbad(ep) ? E_BAD_HANDLE : E_ANY;
    if (hbad(dup))
        e |= E_FAIL;
    DAT_COUNT plen = (DAT_COUNT)below(16);
    if (chance(5)) {
        plen = 1000;
        e |= E_FAIL;
    }
    static unsigned char pdata[64];
    TARGS("%p%c, %p%c", ep.h, hk_char[ep.kind], dup.h, hk_char[dup.kind]);
    DO(ep_dup_connect, e, dat_ep_dup_connect(ep.h, dup.h, 1000 + below(100000), plen, pdata, DAT_QOS_BEST_EFFORT));
}

static void op_ep_disconnect_reset(void)
{
    const struct harg ep = handle_arg(T_EP, 10, NULL);
    unsigned e = hbad(ep) ? E_BAD_HANDLE : E_ANY;
    if (chance(25)) {
        TARGS("%p%c", ep.h, hk_char[ep.kind]);
        DO(ep_reset, e, dat_ep_reset(ep.h));
        return;
    }
    DAT_CLOSE_FLAGS f = chance(50) ? DAT_CLOSE_ABRUPT_FLAG : DAT_CLOSE_GRACEFUL_FLAG;
    if (chance(4)) {
        f = (DAT_CLOSE_FLAGS)(2 + below(10));
        e |= E_FAIL;
    }
    TARGS("%p%c, %d", ep.h, hk_char[ep.kind], (int)f);
    DO(ep_disconnect, e, dat_ep_disconnect(ep.h, f));
}

static void op_ep_misc(void)
{
    const struct harg ep = handle_arg(T_EP, 15, NULL);
    const unsigned e = hbad(ep) ? E_BAD_HANDLE : E_ANY;
    TARGS("%p%c", ep.h, hk_char[ep.kind]);
    switch (below(4)) {
    case 0: {
        DAT_COUNT a, b;
        DO(ep_recv_query, e, dat_ep_recv_query(ep.h, &a, &b));
        break;
    }
    case 1: DO(ep_set_watermark, e, dat_ep_set_watermark(ep.h, (DAT_COUNT)below(10), (DAT_COUNT)below(10))); break;
    case 2: {
        DAT_RNIC_ERROR_DETAIL d;
        const bool null = chance(5);
        DO(rnic_ep_last_error, e | (null ? E_FAIL : 0), dat_rnic_ep_last_error(ep.h, null ? NULL : &d));
        break;
    }
    default: {
        const struct harg ia = handle_arg(T_IA, 20, NULL);
        const struct harg pz = handle_arg(T_PZ, 20, ia.h);
        /* No SRQ exists (srq_supported is false): whatever is passed, no EP. */
        TARGS("%p%c, %p%c, SRQ %p", ia.h, hk_char[ia.kind], pz.h, hk_char[pz.kind], ep.h);
        DAT_EP_HANDLE out;
        DO(ep_create_with_srq, (hbad(ia) ? E_BAD_HANDLE : 0) | E_FAIL,
           dat_ep_create_with_srq(ia.h, pz.h, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL, ep.h, NULL, &out));
        break;
    }
    }
}

/* ------------------------------------------------------------ DTO ops */

static bool lmr_in_pz(const struct obj *o, const void *pz)
{
    return o->pz == (DAT_PZ_HANDLE)pz;
}

/* A segment of a DTO's local iov or a sync's list: mostly inside an LMR
 * of the PZ asked for, small; sometimes every kind of wrong. Sets *bad
 * when the segment is certainly refused. */
static DAT_LMR_TRIPLET rnd_segment(DAT_PZ_HANDLE pz, int nic, bool *bad)
{
    DAT_LMR_TRIPLET t;
    memset(&t, 0, sizeof(t));
    int i = pz ? pick_where(T_LMR, lmr_in_pz, pz) : -1;
    if (i < 0 || chance(10))
        i = pick_where(T_LMR, NULL, NULL);
    if (i < 0) {
        t.lmr_context = (DAT_LMR_CONTEXT)rnd();
        t.virtual_address = (DAT_VADDR)(uintptr_t)junk_ptr();
        t.segment_length = 1 + below(64);
        return t;
    }
    const struct obj *l = &P[T_LMR].o[i];
    t.lmr_context = l->lctx;
    uint64_t len = chance(75) ? 1 + below(256) : chance(90) ? 1 + below(4096) : 1 + below((uint32_t)l->len);
    if (len > l->len)
        len = l->len;
    t.segment_length = len;
    t.virtual_address = l->va + below((uint32_t)(l->len - len + 1));
    /* Contexts are a NIC's: looked up on another NIC, this one may name
     * some other LMR there, so only a segment of the lookup's NIC is known
     * to be refused for its bounds. */
    const bool here = l->nic == nic;
    switch (below(30)) {
    case 0: t.segment_length = 0; t.lmr_context = (DAT_LMR_CONTEXT)rnd(); break;   /* empty: the rest is ignored */
    case 1: t.virtual_address = l->va + l->len; *bad |= here; break;
    case 2: t.virtual_address = l->va - 1; *bad |= here; break;
    case 3: t.segment_length = l->len + 1 + below(100); *bad |= here; break;
    case 4: t.segment_length = (DAT_VLEN)1 << 33; *bad |= here; break;
    /* A freed LMR's context: refused, unless its key came round again. */
    case 5: t.lmr_context = nstale_ctx ? stale_ctx[below(nstale_ctx < 8 ? nstale_ctx : 8)] : 0; break;
    case 6: t.lmr_context = (DAT_LMR_CONTEXT)rnd(); break;   /* probably no LMR's */
    default: break;
    }
    if (trace)
        printf("  segment: LMR %p ctx 0x%x [0x%" PRIx64 ", +%" PRIu64 ") nic %d: ctx 0x%x va 0x%" PRIx64
               " len %" PRIu64 "%s\n",
               l->h, (unsigned)l->lctx, l->va, l->len, l->nic, (unsigned)t.lmr_context, t.virtual_address,
               t.segment_length, *bad ? " (bad)" : "");
    return t;
}

struct dto {
    DAT_LMR_TRIPLET iov[8];   /* never fewer than num_segments, however many that is */
    DAT_COUNT n;
    DAT_LMR_TRIPLET *p;
    uint64_t total;
};

static void rnd_iov(struct dto *d, const struct obj *ep, unsigned *e)
{
    static const DAT_COUNT counts[] = {0, 1, 1, 1, 1, 2, 2, 3, 4};
    d->n = counts[below(sizeof(counts) / sizeof(counts[0]))];
    d->p = d->iov;
    d->total = 0;
    bool bad = false;
    for (int k = 0; k < 8; k++) {
        bool b = false;
        d->iov[k] = rnd_segment(ep ? ep->pz : NULL, ep ? ep->nic : -1, &b);
        if (k < d->n) {   /* beyond num_segments: not looked at */
            d->total += d->iov[k].segment_length;
            bad |= b;
        }
    }
    switch (below(30)) {
    case 0: d->n = 5 + (DAT_COUNT)below(3); *e |= E_FAIL; break;   /* more than any EP's iov limit (4) */
    case 1: d->n = -1 - (DAT_COUNT)below(3); *e |= E_FAIL; break;
    case 2: d->n = INT32_MAX; *e |= E_FAIL; break;
    case 3: if (d->n > 0) { d->p = NULL; *e |= E_FAIL; } break;
    case 4: junk_stir(); d->p = junk_ptr(); bad = false; break;   /* bytes, not those segments */
    default: break;
    }
    if (bad)
        *e |= E_FAIL;
}

static bool is_connected(const struct obj *o, const void *arg)
{
    (void)arg;
    return o->connected;
}

static struct harg dto_ep(void)
{
    if (chance(70)) {
        const int i = pick_where(T_EP, is_connected, NULL);
        if (i >= 0 && chance(92))
            return (struct harg){P[T_EP].o[i].h, HK_VALID, i};
    }
    return handle_arg(T_EP, 8, NULL);
}

static DAT_COMPLETION_FLAGS rnd_cflags(DAT_COMPLETION_FLAGS allowed, unsigned *e)
{
    DAT_COMPLETION_FLAGS f = DAT_COMPLETION_DEFAULT_FLAG;
    if (chance(30))
        f = (DAT_COMPLETION_FLAGS)(rnd() & allowed);
    if (chance(3)) {
        f = (DAT_COMPLETION_FLAGS)(f | 0x40);
        *e |= E_FAIL;
    }
    return f;
}

static bool has_remote(const struct obj *o, const void *nic)
{
    return o->rctx != 0 && o->nic == (int)(intptr_t)nic;
}

static bool remote_in_pz(const struct obj *o, const void *pz)
{
    return o->rctx != 0 && o->len != 0 && o->pz == (DAT_PZ_HANDLE)pz;
}

/* The EP at the other end of ep's connection, as far as this run can tell. */
static const struct obj *peer_of(const struct obj *ep)
{
    if (!ep || !ep->connected || !ep->lport)
        return NULL;
    for (int i = 0; i < P[T_EP].n; i++) {
        const struct obj *o = &P[T_EP].o[i];
        if (o->nic != ep->nic && o->connected && o->lport == ep->rport && o->rport == ep->lport)
            return o;
    }
    return NULL;
}

/* The remote buffer of an RDMA: mostly an LMR or a window of the peer's
 * NIC, sometimes anything. */
static DAT_RMR_TRIPLET rnd_remote(const struct obj *ep, uint64_t want)
{
    DAT_RMR_TRIPLET r;
    memset(&r, 0, sizeof(r));
    const int peer = ep ? ep->nic ^ 1 : (int)below(2);
    int i = -1, t = T_LMR;
    /* Mostly memory the peer EP's PZ has: anything else the peer's NIC
     * refuses, and the connection breaks. */
    const struct obj *pe = peer_of(ep);
    if (pe && pe->pz && chance(85)) {
        t = chance(25) ? T_RMR : T_LMR;
        i = pick_where(t, remote_in_pz, pe->pz);
        if (i < 0) {
            t = T_LMR;
            i = pick_where(t, remote_in_pz, pe->pz);
        }
    }
    if (i >= 0) {
        /* found */
    } else if (chance(25)) {
        t = T_RMR;
        i = pick_where(T_RMR, has_remote, (const void *)(intptr_t)peer);
    }
    if (i < 0) {
        t = T_LMR;
        i = pick_where(T_LMR, has_remote, (const void *)(intptr_t)peer);
    }
    if (i < 0 || chance(5)) {
        r.rmr_context = (DAT_RMR_CONTEXT)rnd();
        r.target_address = rnd();
        r.segment_length = want;
        return r;
    }
    const struct obj *o = &P[t].o[i];
    r.rmr_context = o->rctx;
    uint64_t base = o->va, len = o->len;
    if (t == T_RMR && len == 0) {
        base = rnd();
        len = 4096;
    }
    r.segment_length = want <= len ? want : len;
    r.target_address = base + below((uint32_t)(len - r.segment_length + 1));
    if (chance(5))
        r.target_address += len;   /* past its end: the peer's NIC refuses it */
    return r;
}

/* An LMR over part of a buffer in `pz` with every privilege, for a
 * connected EP (or its peer) whose PZ has none: else its DTOs would all be
 * refused at the post, or by the peer's NIC, and the data path would hardly
 * ever be reached. */
static void lmr_for(DAT_PZ_HANDLE pz)
{
    const struct obj *p = obj_of(T_PZ, pz);
    if (!p || full(T_LMR))
        return;
    const struct buf *b = &bufs[below(NBUF)];
    const uint64_t len = b->len < 4096 ? b->len : 1024 + below((uint32_t)(b->len - 1024));
    uint8_t *base = b->p + below((uint32_t)(b->len - len + 1));
    const DAT_REGION_DESCRIPTION rd = {.for_va = base};
    DAT_LMR_HANDLE lmr;
    DAT_LMR_CONTEXT lctx;
    DAT_RMR_CONTEXT rctx;
    DAT_VLEN rsize;
    DAT_VADDR raddr;
    TARGS("%p, %p, %" PRIu64 ", %p, ALL (for a connected EP)", p->ia, (void *)base, len, pz);
    if (DO(lmr_create, E_ANY, dat_lmr_create(p->ia, DAT_MEM_TYPE_VIRTUAL, rd, len, pz, DAT_MEM_PRIV_ALL_FLAG, &lmr,
                                             &lctx, &rctx, &rsize, &raddr)) != DAT_SUCCESS)
        return;
    check_created(T_LMR, lmr);
    struct obj *o = obj_add(T_LMR, lmr, p->ia, p->nic);
    o->pz = pz;
    o->lctx = lctx;
    o->rctx = rctx;
    o->priv = DAT_MEM_PRIV_ALL_FLAG;
    o->va = raddr;
    o->len = rsize;
}

struct lmr_need {
    DAT_PZ_HANDLE pz;
    DAT_MEM_PRIV_FLAGS priv;
};
static bool lmr_fits(const struct obj *o, const void *arg)
{
    const struct lmr_need *n = arg;
    return o->pz == n->pz && (o->priv & n->priv) == n->priv && o->len > 0;
}

/* A small segment of an LMR of pz with the privileges asked for, making
 * one (lmr_for) if there is none; false if that failed too. */
static bool clean_segment(DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv, DAT_LMR_TRIPLET *t, DAT_RMR_TRIPLET *r)
{
    const struct lmr_need n = {pz, priv};
    int i = pick_where(T_LMR, lmr_fits, &n);
    if (i < 0) {
        lmr_for(pz);
        i = pick_where(T_LMR, lmr_fits, &n);
    }
    if (i < 0)
        return false;
    const struct obj *l = &P[T_LMR].o[i];
    uint64_t len = 1 + below(chance(80) ? 256 : 4096);
    if (len > l->len)
        len = l->len;
    const uint64_t va = l->va + below((uint32_t)(l->len - len + 1));
    if (t)
        *t = (DAT_LMR_TRIPLET){l->lctx, 0, va, len};
    if (r)
        *r = (DAT_RMR_TRIPLET){l->rctx, 0, va, len};
    return true;
}

/* A DTO on a connected pair with nothing wrong in it, so that the data
 * path (transfers, completions, a SEND meeting a receive) is reached and
 * not just the checks before it. */
static void post_clean(const struct obj *o)
{
    const struct obj *pe = peer_of(o);
    DAT_LMR_TRIPLET iov[2];
    const DAT_COUNT n = chance(70) ? 1 : 2;
    const unsigned which = below(4);
    const DAT_MEM_PRIV_FLAGS lpriv = which == 1 || which == 3 ? DAT_MEM_PRIV_LOCAL_WRITE_FLAG : 0;
    uint64_t total = 0;
    for (DAT_COUNT k = 0; k < n; k++) {
        if (!clean_segment(o->pz, lpriv, &iov[k], NULL))
            return;
        total += iov[k].segment_length;
    }
    const DAT_COMPLETION_FLAGS f = chance(70) ? DAT_COMPLETION_DEFAULT_FLAG
                                   : chance(50) ? DAT_COMPLETION_SUPPRESS_FLAG : DAT_COMPLETION_BARRIER_FENCE_FLAG;
    TARGS("%p (clean), %d, iov (%" PRIu64 " bytes), 0x%x", o->h, (int)n, total, (unsigned)f);
    switch (which) {
    case 0: {
        /* A receive at the peer first, big enough. */
        DAT_LMR_TRIPLET r;
        if (pe && pe->pz && clean_segment(pe->pz, DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &r, NULL) &&
            r.segment_length >= total) {
            TARGS("%p (clean, for a SEND to it), 1, iov (%" PRIu64 " bytes)", pe->h, r.segment_length);
            DO(ep_post_recv, E_ANY, dat_ep_post_recv(pe->h, 1, &r, rnd_cookie(), DAT_COMPLETION_DEFAULT_FLAG));
            heat(pe->recv);
            TARGS("%p (clean), %d, iov (%" PRIu64 " bytes), 0x%x", o->h, (int)n, total, (unsigned)f);
        }
        DO(ep_post_send, E_ANY, dat_ep_post_send(o->h, n, iov, rnd_cookie(), f));
        heat(o->req);
        return;
    }
    case 1:
        DO(ep_post_recv, E_ANY, dat_ep_post_recv(o->h, n, iov, rnd_cookie(), f & DAT_COMPLETION_SUPPRESS_FLAG));
        heat(o->recv);
        return;
    default: {
        DAT_RMR_TRIPLET rt;
        const DAT_MEM_PRIV_FLAGS rpriv = which == 2 ? DAT_MEM_PRIV_REMOTE_WRITE_FLAG : DAT_MEM_PRIV_REMOTE_READ_FLAG;
        if (!pe || !pe->pz || !clean_segment(pe->pz, rpriv, NULL, &rt))
            return;
        if (which == 2) {
            rt.segment_length = rt.segment_length < total ? total : rt.segment_length;
            if (!clean_segment(pe->pz, rpriv, NULL, &rt) || rt.segment_length < total)
                return;
            DO(ep_post_rdma_write, E_ANY, dat_ep_post_rdma_write(o->h, n, iov, rnd_cookie(), &rt, f));
        } else {
            if (rt.segment_length > total)
                rt.segment_length = total;
            DO(ep_post_rdma_read, E_ANY, dat_ep_post_rdma_read(o->h, n, iov, rnd_cookie(), &rt, f));
        }
        heat(o->req);
        return;
    }
    }
}

static void op_post(void)
{
    const struct harg ep = dto_ep();
    unsigned e = hbad(ep) ? E_BAD_HANDLE : E_ANY;
    const struct obj *o = hobj(T_EP, ep);
    if (o && o->connected && o->pz && chance(50)) {
        post_clean(o);
        return;
    }
    if (o && o->connected && o->pz && chance(50)) {
        if (pick_where(T_LMR, lmr_in_pz, o->pz) < 0)
            lmr_for(o->pz);
        const struct obj *pe = peer_of(o);
        if (pe && pe->pz && pick_where(T_LMR, remote_in_pz, pe->pz) < 0)
            lmr_for(pe->pz);
        o = hobj(T_EP, ep);
    }
    struct dto d;
    rnd_iov(&d, o, &e);
    const DAT_DTO_COOKIE cookie = rnd_cookie();
    const unsigned which = below(100);
    TARGS("%p%c, %d, iov (%" PRIu64 " bytes)", ep.h, hk_char[ep.kind], (int)d.n, d.total);
    if (o) {
        heat(which >= 25 && which < 55 ? o->recv : o->req);
        if (o->connected && chance(30))
            heat(o->recv);
    }
    if (which < 25) {
        const DAT_COMPLETION_FLAGS f =
            rnd_cflags(DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_SOLICITED_WAIT_FLAG |
                       DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_BARRIER_FENCE_FLAG, &e);
        DO(ep_post_send, e, dat_ep_post_send(ep.h, d.n, d.p, cookie, f));
    } else if (which < 55) {
        const DAT_COMPLETION_FLAGS f = rnd_cflags(DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_UNSIGNALLED_FLAG, &e);
        DO(ep_post_recv, e, dat_ep_post_recv(ep.h, d.n, d.p, cookie, f));
    } else {
        const DAT_COMPLETION_FLAGS f = rnd_cflags(
            DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_BARRIER_FENCE_FLAG, &e);
        DAT_RMR_TRIPLET rt = rnd_remote(o, d.total), *rp = &rt;
        if (chance(3)) {
            rp = NULL;
            e |= E_FAIL;
        }
        if (which < 80)
            DO(ep_post_rdma_write, e, dat_ep_post_rdma_write(ep.h, d.n, d.p, cookie, rp, f));
        else
            DO(ep_post_rdma_read, e, dat_ep_post_rdma_read(ep.h, d.n, d.p, cookie, rp, f));
    }
}

/* ----------------------------------------------------------- LMR ops */

static bool revoked(const void *p, uint64_t len)
{
    for (int i = 0; i < NMAP; i++) {
        const uint8_t *m = maps[i];
        if (map_revoked[i] && (const uint8_t *)p < m + MAP_PAGES * page && (const uint8_t *)p + len > m)
            return true;
    }
    return false;
}

static void op_lmr_create(void)
{
    const struct harg ia = ia_with(T_PZ, 6);
    unsigned e = hbad(ia) ? E_BAD_HANDLE : E_ANY;
    const struct harg pz = handle_arg(T_PZ, 8, ia.h);
    if (hbad(pz) || P[T_PZ].o[pz.idx].ia != ia.h)
        e |= E_FAIL;
    DAT_MEM_TYPE mt = DAT_MEM_TYPE_VIRTUAL;
    DAT_REGION_DESCRIPTION rd;
    memset(&rd, 0, sizeof(rd));
    uint8_t *base = NULL;
    uint64_t len = 0;
    const unsigned k = below(100);
    if (k < 70) {
        const struct buf *b = &bufs[below(NBUF)];
        len = chance(50) ? b->len : 1 + below((uint32_t)b->len);
        base = b->p + below((uint32_t)(b->len - len + 1));
    } else if (k < 76) {
        const int m = (int)below(NMAP);
        len = chance(50) ? MAP_PAGES * page : 1 + below((uint32_t)(MAP_PAGES * page));
        base = maps[m] + below((uint32_t)(MAP_PAGES * page - len + 1));
        if (revoked(base, len))
            e |= E_FAIL;
    } else if (k < 80) {
        base = junk + below(4096);
        len = 1 + below(4096);
    } else if (k < 84) {
        mt = DAT_MEM_TYPE_SHARED_VIRTUAL;
        rd.for_shared_memory.shared_memory_id = &shm_cookie;
        if (chance(80)) {
            len = 1 + below((uint32_t)(MAP_PAGES * page));
            base = shm + below((uint32_t)(MAP_PAGES * page - len + 1));
        } else {
            /* Not shared memory: refused. */
            base = bufs[0].p;
            len = 16;
            e |= E_FAIL;
        }
        rd.for_shared_memory.virtual_address = base;
        if (chance(5)) {
            rd.for_shared_memory.shared_memory_id = NULL;
            e |= E_FAIL;
        }
    } else if (k < 90) {
        mt = DAT_MEM_TYPE_LMR;
        const struct harg parent = handle_arg(T_LMR, 15, ia.h);
        rd.for_lmr_handle = parent.h;
        len = below(100);   /* ignored: the new LMR covers the parent's range */
        if (hbad(parent) || (ia.kind == HK_VALID && P[T_LMR].o[parent.idx].nic != P[T_IA].o[ia.idx].nic))
            e |= E_FAIL;
    } else {
        e |= E_FAIL;
        switch (below(6)) {
        case 0: base = NULL; len = 64; break;
        case 1: base = bufs[1].p; len = 0; break;
        case 2: base = bufs[1].p; len = ((uint64_t)1 << 40) + 1; break;
        case 3: base = (uint8_t *)(uintptr_t)(UINT64_C(1) << 47); len = 4096; break;   /* nothing maps it */
        case 4: base = (uint8_t *)(uintptr_t)(UINTPTR_MAX - 100); len = 4096; break;   /* wraps */
        default: mt = (DAT_MEM_TYPE)(4 + below(100)); base = bufs[1].p; len = 16; break;
        }
    }
    if (mt == DAT_MEM_TYPE_VIRTUAL) {
        if (chance(15))
            mt = DAT_MEM_TYPE_SO_VIRTUAL;
        rd.for_va = base;
    }
    DAT_MEM_PRIV_FLAGS priv = (DAT_MEM_PRIV_FLAGS)(rnd() & (DAT_MEM_PRIV_ALL_FLAG | DAT_MEM_PRIV_RO_DISABLE_FLAG));
    if (chance(40))
        priv = DAT_MEM_PRIV_ALL_FLAG;
    if (chance(3)) {
        priv = (DAT_MEM_PRIV_FLAGS)(priv | 0x4);
        e |= E_FAIL;
    }
    DAT_LMR_HANDLE lmr = DAT_HANDLE_NULL, *lp = &lmr;
    DAT_LMR_CONTEXT lctx, *lcp = &lctx;
    DAT_RMR_CONTEXT rctx = 0;
    DAT_VLEN rsize = 0;
    DAT_VADDR raddr = 0;
    if (chance(3) || full(T_LMR)) {
        lp = NULL;
        e |= E_FAIL;
    } else if (chance(3)) {
        lcp = NULL;
        e |= E_FAIL;
    }
    /* The three outputs that may be NULL are always asked for here: the
     * run needs them to make DTOs. */
    TARGS("%p%c, type %d, %p, %" PRIu64 ", %p%c, 0x%x", ia.h, hk_char[ia.kind], (int)mt, (void *)base, len, pz.h,
          hk_char[pz.kind], (unsigned)priv);
    if (DO(lmr_create, e, dat_lmr_create(ia.h, mt, rd, len, pz.h, priv, lp, lcp, &rctx, &rsize, &raddr)) !=
        DAT_SUCCESS)
        return;
    check_created(T_LMR, lmr);
    struct obj *o = obj_add(T_LMR, lmr, ia.h, P[T_IA].o[ia.idx].nic);
    o->pz = pz.h;
    o->lctx = lctx;
    o->rctx = rctx;
    o->priv = priv;
    o->va = raddr;
    o->len = rsize;
    if (mt != DAT_MEM_TYPE_LMR && (raddr != (DAT_VADDR)(uintptr_t)base || rsize != len))
        fail("LMR over %p, %" PRIu64 " bytes, registered %" PRIx64 ", %" PRIu64 " bytes", (void *)base, len, raddr,
             rsize);
}

static void op_lmr_free(void)
{
    const struct harg lmr = handle_arg(T_LMR, 10, NULL);
    TARGS("%p%c", lmr.h, hk_char[lmr.kind]);
    if (DO(lmr_free, hbad(lmr) ? E_BAD_HANDLE : E_ANY, dat_lmr_free(lmr.h)) == DAT_SUCCESS)
        destroyed(T_LMR, lmr.idx);
}

static void op_lmr_query(void)
{
    const struct harg lmr = handle_arg(T_LMR, 10, NULL);
    unsigned e = hbad(lmr) ? E_BAD_HANDLE : E_ANY;
    DAT_LMR_PARAM prm, *pp = &prm;
    DAT_LMR_PARAM_MASK m = DAT_LMR_FIELD_ALL;
    switch (below(12)) {
    case 0: pp = NULL; e |= E_FAIL; break;
    case 1: m = (DAT_LMR_PARAM_MASK)0x800; e |= E_FAIL; break;
    default: break;
    }
    TARGS("%p%c", lmr.h, hk_char[lmr.kind]);
    if (DO(lmr_query, e, dat_lmr_query(lmr.h, m, pp)) != DAT_SUCCESS || hbad(lmr))
        return;
    const struct obj *o = &P[T_LMR].o[lmr.idx];
    if (prm.lmr_context != o->lctx || prm.registered_address != o->va || prm.registered_size != o->len ||
        prm.pz_handle != o->pz || prm.ia_handle != o->ia)
        fail("dat_lmr_query of LMR %p does not report what its create did", lmr.h);
}

static void op_lmr_sync(void)
{
    const struct harg ia = handle_arg(T_IA, 8, NULL);
    unsigned e = hbad(ia) ? E_BAD_HANDLE : E_ANY;
    DAT_LMR_TRIPLET segs[8];
    bool bad = false;
    const DAT_VLEN n = below(5);
    for (DAT_VLEN k = 0; k < 8; k++) {
        bool b = false;
        const int i = ia.kind == HK_VALID ? pick_where(T_LMR, of_ia, ia.h) : -1;
        segs[k] = rnd_segment(i >= 0 ? P[T_LMR].o[i].pz : NULL, ia.kind == HK_VALID ? P[T_IA].o[ia.idx].nic : -1, &b);
        if (k < n)
            bad |= b;
    }
    if (bad)
        e |= E_FAIL;
    const DAT_LMR_TRIPLET *sp = segs;
    if (chance(4) && n > 0) {
        sp = NULL;
        e |= E_FAIL;
    }
    TARGS("%p%c, %u segments", ia.h, hk_char[ia.kind], (unsigned)n);
    if (chance(50))
        DO(lmr_sync_rdma_read, e, dat_lmr_sync_rdma_read(ia.h, sp, n));
    else
        DO(lmr_sync_rdma_write, e, dat_lmr_sync_rdma_write(ia.h, sp, n));
}

/* Memory registered, then taken away (PROT_NONE) and given back: a DTO or
 * a peer's access that reaches it completes with an error
 * (docs/libdat.md, "Registration checks the memory"). */
static void op_hostmem(void)
{
    const int m = (int)below(NMAP);
    map_revoked[m] = !map_revoked[m];
    if (mprotect(maps[m], MAP_PAGES * page, map_revoked[m] ? PROT_NONE : PROT_READ | PROT_WRITE) != 0)
        fail("mprotect: %s", strerror(errno));
    if (trace)
        printf("[%" PRIu64 "] (mapping %d %s)\n", step, m, map_revoked[m] ? "taken away" : "given back");
}

/* ----------------------------------------------------------- RMR ops */

static void op_rmr_create(void)
{
    const struct harg pz = handle_arg(T_PZ, 8, NULL);
    unsigned e = hbad(pz) ? E_BAD_HANDLE : E_ANY;
    DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL, *rp = &rmr;
    if (chance(3) || full(T_RMR)) {
        rp = NULL;
        e |= E_FAIL;
    }
    TARGS("%p%c", pz.h, hk_char[pz.kind]);
    if (DO(rmr_create, e, dat_rmr_create(pz.h, rp)) != DAT_SUCCESS)
        return;
    check_created(T_RMR, rmr);
    const struct obj *p = hobj(T_PZ, pz);
    struct obj *o = obj_add(T_RMR, rmr, p->ia, p->nic);
    o->pz = pz.h;
}

static void op_rmr_free(void)
{
    const struct harg rmr = handle_arg(T_RMR, 10, NULL);
    TARGS("%p%c", rmr.h, hk_char[rmr.kind]);
    if (DO(rmr_free, hbad(rmr) ? E_BAD_HANDLE : E_ANY, dat_rmr_free(rmr.h)) == DAT_SUCCESS)
        destroyed(T_RMR, rmr.idx);
}

static void op_rmr_query(void)
{
    const struct harg rmr = handle_arg(T_RMR, 10, NULL);
    unsigned e = hbad(rmr) ? E_BAD_HANDLE : E_ANY;
    DAT_RMR_PARAM prm, *pp = &prm;
    DAT_RMR_PARAM_MASK m = DAT_RMR_FIELD_ALL;
    if (chance(6)) {
        pp = NULL;
        e |= E_FAIL;
    } else if (chance(6)) {
        m = (DAT_RMR_PARAM_MASK)0x100;
        e |= E_FAIL;
    }
    TARGS("%p%c", rmr.h, hk_char[rmr.kind]);
    DO(rmr_query, e, dat_rmr_query(rmr.h, m, pp));
}

static bool ep_in_pz(const struct obj *o, const void *pz)
{
    return o->pz == (DAT_PZ_HANDLE)pz;
}

static void op_rmr_bind(void)
{
    const struct harg rmr = handle_arg(T_RMR, 8, NULL);
    unsigned e = hbad(rmr) ? E_BAD_HANDLE : E_ANY;
    struct obj *ro = hobj(T_RMR, rmr);
    const DAT_PZ_HANDLE pz = ro ? ro->pz : NULL;
    struct harg ep = pz ? handle_where(T_EP, 8, ep_in_pz, pz) : handle_arg(T_EP, 8, NULL);
    if (hbad(ep))
        e |= E_FAIL;
    bool bad = false;
    DAT_LMR_TRIPLET t = rnd_segment(pz, ro ? ro->nic : -1, &bad), *tp = &t;
    if (chance(15)) {
        t.segment_length = 0;   /* unbind */
        bad = false;
    }
    if (bad)
        e |= E_FAIL;
    if (chance(3)) {
        tp = NULL;
        e |= E_FAIL;
    }
    DAT_MEM_PRIV_FLAGS priv = (DAT_MEM_PRIV_FLAGS)(rnd() & DAT_MEM_PRIV_ALL_FLAG);
    if (chance(3)) {
        priv = (DAT_MEM_PRIV_FLAGS)(priv | 0x100);
        e |= E_FAIL;
    }
    const DAT_COMPLETION_FLAGS f = rnd_cflags(
        DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_BARRIER_FENCE_FLAG, &e);
    DAT_RMR_CONTEXT ctx = 0, *cp = &ctx;
    if (chance(3)) {
        cp = NULL;
        e |= E_FAIL;
    }
    TARGS("%p%c, lmr_ctx 0x%x len %" PRIu64 ", 0x%x, %p%c, 0x%x", rmr.h, hk_char[rmr.kind], (unsigned)t.lmr_context,
          t.segment_length, (unsigned)priv, ep.h, hk_char[ep.kind], (unsigned)f);
    if (DO(rmr_bind, e, dat_rmr_bind(rmr.h, tp, priv, ep.h, rnd_cookie(), f, cp)) != DAT_SUCCESS || !ro)
        return;
    heat(P[T_EP].o[ep.idx].req);
    ro->rctx = ctx;
    ro->va = t.virtual_address;
    ro->len = t.segment_length;
}

/* -------------------------------------------------------- PSP, RSP ops */

static bool cr_stream(const struct obj *o, const void *ia)
{
    return o->ia == (DAT_IA_HANDLE)ia && (o->flags & DAT_EVD_CR_FLAG);
}

/* A conn_qual for a fixed-qual create on NIC `nic`'s address: one this run
 * listens on there (in use), one a PSP of this run let go of just now
 * (free), or none at all. Never a port this run does not hold: whether
 * some other socket has it is the host's business, and the run would not
 * be its seed's any more. */
static bool psp_on_nic(const struct obj *o, const void *nic)
{
    return o->nic == (int)(intptr_t)nic;
}

static DAT_CONN_QUAL rnd_fixed_qual(int nic, unsigned *e)
{
    const int i = nic >= 0 ? pick_where(T_PSP, psp_on_nic, (const void *)(intptr_t)nic) : -1;
    if (i < 0 || chance(5)) {
        *e |= E_FAIL;
        return chance(50) ? 0 : 65536 + below(1000);
    }
    const DAT_CONN_QUAL q = P[T_PSP].o[i].qual;
    if (chance(50))
        return q;   /* in use */
    TARGS("%p (to take its conn_qual %u)", P[T_PSP].o[i].h, (unsigned)q);
    if (DO(psp_free, E_ANY, dat_psp_free(P[T_PSP].o[i].h)) == DAT_SUCCESS)
        destroyed(T_PSP, i);
    return q;
}

static bool cr_evd_any(const struct obj *o, const void *arg)
{
    (void)arg;
    return (o->flags & DAT_EVD_CR_FLAG) != 0;
}

/* The IA of an EVD that takes connection requests. */
static struct harg ia_with_cr_evd(unsigned bad_pct)
{
    if (!chance(bad_pct) && chance(85)) {
        const int i = pick_where(T_EVD, cr_evd_any, NULL);
        const int k = i >= 0 ? obj_find(T_IA, P[T_EVD].o[i].ia) : -1;
        if (k >= 0)
            return (struct harg){P[T_IA].o[k].h, HK_VALID, k};
    }
    return handle_arg(T_IA, bad_pct, NULL);
}

static void op_psp_create(void)
{
    const struct harg ia = ia_with_cr_evd(6);
    unsigned e = hbad(ia) ? E_BAD_HANDLE : E_ANY;
    const struct harg evd = handle_where(T_EVD, 8, cr_stream, ia.h);
    if (hbad(evd) || !cr_stream(&P[T_EVD].o[evd.idx], ia.h))
        e |= E_FAIL;
    DAT_PSP_FLAGS f = DAT_PSP_CONSUMER_FLAG;
    if (chance(4)) {
        f = chance(50) ? DAT_PSP_PROVIDER_FLAG : (DAT_PSP_FLAGS)(2 + below(10));
        e |= E_FAIL;
    }
    DAT_PSP_HANDLE psp = DAT_HANDLE_NULL, *pp = &psp;
    if (chance(3) || full(T_PSP)) {
        pp = NULL;
        e |= E_FAIL;
    }
    DAT_CONN_QUAL q = 0;
    DAT_RETURN r;
    const bool any = chance(75);
    if (any) {
        DAT_CONN_QUAL *qp = &q;
        if (chance(3)) {
            qp = NULL;
            e |= E_FAIL;
        }
        TARGS("%p%c, any, %p%c, %d", ia.h, hk_char[ia.kind], evd.h, hk_char[evd.kind], (int)f);
        r = DO(psp_create_any, e, dat_psp_create_any(ia.h, qp, evd.h, f, pp));
    } else {
        q = rnd_fixed_qual(ia.kind == HK_VALID ? P[T_IA].o[ia.idx].nic : -1, &e);
        TARGS("%p%c, %u, %p%c, %d", ia.h, hk_char[ia.kind], (unsigned)q, evd.h, hk_char[evd.kind], (int)f);
        r = DO(psp_create, e, dat_psp_create(ia.h, q, evd.h, f, pp));
    }
    if (r != DAT_SUCCESS)
        return;
    check_created(T_PSP, psp);
    struct obj *o = obj_add(T_PSP, psp, ia.h, P[T_IA].o[ia.idx].nic);
    o->qual = q;
    o->evd = evd.h;
}

static void op_psp_free_query(void)
{
    const struct harg psp = handle_arg(T_PSP, 10, NULL);
    unsigned e = hbad(psp) ? E_BAD_HANDLE : E_ANY;
    TARGS("%p%c", psp.h, hk_char[psp.kind]);
    if (chance(60)) {
        if (DO(psp_free, e, dat_psp_free(psp.h)) == DAT_SUCCESS)
            destroyed(T_PSP, psp.idx);
        return;
    }
    DAT_PSP_PARAM prm, *pp = &prm;
    if (chance(6)) {
        pp = NULL;
        e |= E_FAIL;
    }
    if (DO(psp_query, e, dat_psp_query(psp.h, DAT_PSP_FIELD_ALL, pp)) == DAT_SUCCESS && !hbad(psp) &&
        prm.conn_qual != P[T_PSP].o[psp.idx].qual)
        fail("PSP %p listens on %u, its query says %u", psp.h, (unsigned)P[T_PSP].o[psp.idx].qual,
             (unsigned)prm.conn_qual);
}

static void op_rsp_create(void)
{
    const struct harg ia = ia_with_cr_evd(6);
    unsigned e = hbad(ia) ? E_BAD_HANDLE : E_ANY;
    const struct harg ep = handle_arg(T_EP, 10, ia.h);
    if (hbad(ep) || P[T_EP].o[ep.idx].ia != ia.h)
        e |= E_FAIL;
    const struct harg evd = handle_where(T_EVD, 8, cr_stream, ia.h);
    if (hbad(evd) || !cr_stream(&P[T_EVD].o[evd.idx], ia.h))
        e |= E_FAIL;
    const DAT_CONN_QUAL q = rnd_fixed_qual(ia.kind == HK_VALID ? P[T_IA].o[ia.idx].nic : -1, &e);
    DAT_RSP_HANDLE rsp = DAT_HANDLE_NULL, *rp = &rsp;
    if (chance(3) || full(T_RSP)) {
        rp = NULL;
        e |= E_FAIL;
    }
    TARGS("%p%c, %u, %p%c, %p%c", ia.h, hk_char[ia.kind], (unsigned)q, ep.h, hk_char[ep.kind], evd.h,
          hk_char[evd.kind]);
    if (DO(rsp_create, e, dat_rsp_create(ia.h, q, ep.h, evd.h, rp)) != DAT_SUCCESS)
        return;
    check_created(T_RSP, rsp);
    struct obj *o = obj_add(T_RSP, rsp, ia.h, P[T_IA].o[ia.idx].nic);
    o->qual = q;
    o->evd = evd.h;
}

static void op_rsp_free_query(void)
{
    const struct harg rsp = handle_arg(T_RSP, 10, NULL);
    unsigned e = hbad(rsp) ? E_BAD_HANDLE : E_ANY;
    TARGS("%p%c", rsp.h, hk_char[rsp.kind]);
    if (chance(60)) {
        if (DO(rsp_free, e, dat_rsp_free(rsp.h)) == DAT_SUCCESS)
            destroyed(T_RSP, rsp.idx);
        return;
    }
    DAT_RSP_PARAM prm, *pp = &prm;
    if (chance(6)) {
        pp = NULL;
        e |= E_FAIL;
    }
    DO(rsp_query, e, dat_rsp_query(rsp.h, DAT_RSP_FIELD_ALL, pp));
}

/* ------------------------------------------------------------ CR ops */

static bool unconnected_of(const struct obj *o, const void *ia)
{
    return o->ia == (DAT_IA_HANDLE)ia && !o->connected && o->pz && o->req && o->conn;
}

/* An EP of `ia` that can connect, made with valid arguments, for a
 * request that has none to be accepted on. */
static void ep_for(DAT_IA_HANDLE ia)
{
    const struct obj *iao = obj_of(T_IA, ia);
    const int pz = pick_where(T_PZ, of_ia, ia);
    const struct evd_need dto = {iao ? iao->nic : -1, DAT_EVD_DTO_FLAG},
                          conn = {iao ? iao->nic : -1, DAT_EVD_CONNECTION_FLAG};
    const int req = pick_where(T_EVD, evd_fits, &dto), cev = pick_where(T_EVD, evd_fits, &conn);
    if (!iao || pz < 0 || req < 0 || cev < 0 || full(T_EP))
        return;
    const int recv = pick_where(T_EVD, evd_fits, &dto);
    DAT_EP_HANDLE ep;
    const DAT_PZ_HANDLE pzh = P[T_PZ].o[pz].h;
    const DAT_EVD_HANDLE rh = P[T_EVD].o[recv].h, qh = P[T_EVD].o[req].h, ch = P[T_EVD].o[cev].h;
    TARGS("%p, %p, %p, %p, %p, NULL (to accept on)", ia, pzh, rh, qh, ch);
    if (DO(ep_create, E_ANY, dat_ep_create(ia, pzh, rh, qh, ch, NULL, &ep)) != DAT_SUCCESS)
        return;
    check_created(T_EP, ep);
    struct obj *o = obj_add(T_EP, ep, ia, iao->nic);
    o->pz = pzh;
    o->recv = rh;
    o->req = qh;
    o->conn = ch;
}

static void op_cr_accept(void)
{
    const struct harg cr = handle_arg(T_CR, 8, NULL);
    unsigned e = hbad(cr) ? E_BAD_HANDLE : E_ANY;
    const DAT_IA_HANDLE ia = cr.kind == HK_VALID ? P[T_CR].o[cr.idx].ia : NULL;
    if (ia && pick_where(T_EP, unconnected_of, ia) < 0 && chance(70))
        ep_for(ia);
    struct harg ep;
    if (chance(10))
        ep = (struct harg){DAT_HANDLE_NULL, HK_NULL, -1};   /* an RSP's request: its EP */
    else
        ep = ia ? handle_where(T_EP, 8, unconnected_of, ia) : handle_arg(T_EP, 8, NULL);
    if (hbad_nullok(ep) || (ep.kind == HK_VALID && P[T_EP].o[ep.idx].ia != ia))
        e |= E_FAIL;
    static unsigned char pdata[300];
    DAT_COUNT plen = chance(70) ? 0 : (DAT_COUNT)below(257);
    void *pd = pdata;
    switch (below(20)) {
    case 0: plen = 257 + (DAT_COUNT)below(10); e |= E_FAIL; break;
    case 1: plen = -5; e |= E_FAIL; break;
    case 2: if (plen) { pd = NULL; e |= E_FAIL; } break;
    default: break;
    }
    TARGS("%p%c, %p%c, %d", cr.h, hk_char[cr.kind], ep.h, hk_char[ep.kind], (int)plen);
    if (DO(cr_accept, e, dat_cr_accept(cr.h, ep.h, plen, pd)) != DAT_SUCCESS)
        return;
    if (ep.kind == HK_VALID)
        heat(P[T_EP].o[ep.idx].conn);
    destroyed(T_CR, cr.idx);
}

static void op_cr_other(void)
{
    const struct harg cr = handle_arg(T_CR, 10, NULL);
    unsigned e = hbad(cr) ? E_BAD_HANDLE : E_ANY;
    TARGS("%p%c", cr.h, hk_char[cr.kind]);
    switch (below(5)) {
    case 0:
    case 1:
        if (DO(cr_reject, e, dat_cr_reject(cr.h)) == DAT_SUCCESS)
            destroyed(T_CR, cr.idx);
        break;
    case 2:
        DO(cr_handoff, e | E_FAIL, dat_cr_handoff(cr.h, below(1000)));
        break;
    default: {
        DAT_CR_PARAM prm, *pp = &prm;
        if (chance(6)) {
            pp = NULL;
            e |= E_FAIL;
        }
        if (DO(cr_query, e, dat_cr_query(cr.h, DAT_CR_FIELD_ALL, pp)) == DAT_SUCCESS &&
            (prm.private_data_size < 0 || prm.private_data_size > 256))
            fail("CR %p carries %d bytes of private data", cr.h, (int)prm.private_data_size);
        break;
    }
    }
}

/* -------------------------------------------------------- generic ops */

static void op_context(void)
{
    int t;
    const struct harg h = any_handle(10, &t);
    const unsigned e = hbad(h) ? E_BAD_HANDLE : E_ANY;
    TARGS("%p%c", h.h, hk_char[h.kind]);
    DAT_CONTEXT c = {.as_64 = rnd()}, got;
    switch (below(3)) {
    case 0:
        if (DO(set_consumer_context, e, dat_set_consumer_context(h.h, c)) != DAT_SUCCESS)
            break;
        TARGS("%p (what was just set)", h.h);
        if (DO(get_consumer_context, E_ANY, dat_get_consumer_context(h.h, &got)) != DAT_SUCCESS || got.as_64 != c.as_64)
            fail("the consumer context of %p reads 0x%" PRIx64 " after 0x%" PRIx64 " was set", h.h, got.as_64, c.as_64);
        break;
    case 1: {
        const bool null = chance(5);
        DO(get_consumer_context, e | (null ? E_FAIL : 0), dat_get_consumer_context(h.h, null ? NULL : &got));
        break;
    }
    default: {
        DAT_HANDLE_TYPE ht;
        const bool null = chance(5);
        if (DO(get_handle_type, e | (null ? E_FAIL : 0), dat_get_handle_type(h.h, null ? NULL : &ht)) == DAT_SUCCESS &&
            t >= 0 && (int)ht != t)
            fail("%s %p is typed %d", type_name[t], h.h, (int)ht);
        break;
    }
    }
}

static void op_srq(void)
{
    int t;
    const struct harg h = any_handle(30, &t);
    DAT_LMR_TRIPLET iov[4];
    memset(iov, 0, sizeof(iov));
    TARGS("%p%c", h.h, hk_char[h.kind]);
    /* No SRQ can exist: every call on one fails. */
    switch (below(7)) {
    case 0: DO(srq_free, E_BAD_HANDLE, dat_srq_free(h.h)); break;
    case 1: DO(srq_post_recv, E_BAD_HANDLE, dat_srq_post_recv(h.h, 1, iov, rnd_cookie())); break;
    case 2: DO(srq_query, E_BAD_HANDLE, dat_srq_query(h.h, DAT_SRQ_FIELD_ALL, &(DAT_SRQ_PARAM){0})); break;
    case 3: DO(srq_resize, E_BAD_HANDLE, dat_srq_resize(h.h, (DAT_COUNT)below(100))); break;
    case 4: DO(srq_set_lw, E_BAD_HANDLE, dat_srq_set_lw(h.h, (DAT_COUNT)below(100))); break;
    default: {
        const struct harg ia = handle_arg(T_IA, 20, NULL);
        const struct harg pz = handle_arg(T_PZ, 20, ia.h);
        DAT_SRQ_ATTR a = {16, 4, 0};
        DAT_SRQ_HANDLE out;
        TARGS("%p%c, %p%c", ia.h, hk_char[ia.kind], pz.h, hk_char[pz.kind]);
        DO(srq_create, (hbad(ia) ? E_BAD_HANDLE : 0) | E_FAIL, dat_srq_create(ia.h, pz.h, &a, &out));
        break;
    }
    }
}

static void op_registry_strerror(void)
{
    if (chance(50)) {
        static DAT_PROVIDER_INFO infos[8];
        DAT_PROVIDER_INFO *list[8];
        for (int i = 0; i < 8; i++)
            list[i] = &infos[i];
        DAT_COUNT max = (DAT_COUNT)below(9), n, *np = &n;
        unsigned e = E_ANY;
        DAT_PROVIDER_INFO **lp = list;
        switch (below(10)) {
        case 0: max = -1; e |= E_FAIL; break;
        case 1: np = NULL; e |= E_FAIL; break;
        case 2: if (max > 0) { lp = NULL; e |= E_FAIL; } break;
        default: break;
        }
        TARGS("%d", (int)max);
        if (DO(registry_list_providers, e, dat_registry_list_providers(max, np, lp)) == DAT_SUCCESS &&
            (n < 0 || (max > 0 && n > max)))
            fail("dat_registry_list_providers(%d) returned %d entries", (int)max, (int)n);
        return;
    }
    const char *ma = NULL, *mi = NULL;
    DAT_RETURN v = (DAT_RETURN)rnd();
    if (chance(50))
        v = (DAT_RETURN)(DAT_CLASS_ERROR | ((uint32_t)below(0x15) << 16) | below(110));
    TARGS("0x%08x", (unsigned)v);
    if (DO(strerror, E_ANY, dat_strerror(v, chance(90) ? &ma : NULL, chance(90) ? &mi : NULL)) == DAT_SUCCESS &&
        ma && !*ma)
        fail("dat_strerror(0x%08x) gave an empty name", (unsigned)v);
}

/* ------------------------------------------------------ connected pairs */

/* An EVD of `ia` for `flag`: one there is, or a new one. */
static DAT_EVD_HANDLE evd_of(const struct obj *ia, DAT_EVD_FLAGS flag)
{
    struct evd_need n = {ia->nic, flag};
    int i = pick_where(T_EVD, evd_fits, &n);
    if (i >= 0 && P[T_EVD].o[i].ia == ia->h && chance(70))
        return P[T_EVD].o[i].h;
    if (full(T_EVD))
        return i >= 0 ? P[T_EVD].o[i].h : DAT_HANDLE_NULL;
    DAT_EVD_HANDLE evd;
    TARGS("%p, 32, NULL, 0x%x (for a connection)", ia->h, (unsigned)flag);
    if (DO(evd_create, E_ANY, dat_evd_create(ia->h, 32, DAT_HANDLE_NULL, flag, &evd)) != DAT_SUCCESS)
        return DAT_HANDLE_NULL;
    check_created(T_EVD, evd);
    struct obj *o = obj_add(T_EVD, evd, ia->h, ia->nic);
    o->flags = flag;
    return evd;
}

static DAT_PZ_HANDLE pz_of(const struct obj *ia)
{
    const int i = pick_where(T_PZ, of_ia, ia->h);
    if (i >= 0)
        return P[T_PZ].o[i].h;
    DAT_PZ_HANDLE pz;
    TARGS("%p (for a connection)", ia->h);
    if (full(T_PZ) || DO(pz_create, E_ANY, dat_pz_create(ia->h, &pz)) != DAT_SUCCESS)
        return DAT_HANDLE_NULL;
    check_created(T_PZ, pz);
    obj_add(T_PZ, pz, ia->h, ia->nic);
    return pz;
}

/* A new EP of `ia` with every EVD and a PZ; NULL if some part failed. */
static struct obj *full_ep(const struct obj *ia)
{
    const DAT_PZ_HANDLE pz = pz_of(ia);
    const DAT_EVD_HANDLE recv = evd_of(ia, DAT_EVD_DTO_FLAG), req = evd_of(ia, DAT_EVD_DTO_FLAG),
                         conn = evd_of(ia, DAT_EVD_CONNECTION_FLAG);
    if (!pz || !recv || !req || !conn || full(T_EP))
        return NULL;
    DAT_EP_ATTR attr;
    bool bad;
    rnd_ep_attr(&attr, &bad);
    DAT_EP_HANDLE ep;
    TARGS("%p, %p, %p, %p, %p (for a connection)", ia->h, pz, recv, req, conn);
    if (DO(ep_create, E_ANY, dat_ep_create(ia->h, pz, recv, req, conn, bad ? NULL : &attr, &ep)) != DAT_SUCCESS)
        return NULL;
    check_created(T_EP, ep);
    struct obj *o = obj_add(T_EP, ep, ia->h, ia->nic);
    o->pz = pz;
    o->recv = recv;
    o->req = req;
    o->conn = conn;
    return o;
}

/* Waits (a few short waits) for an event of `number` on `evd`, taking
 * whatever else comes first. */
static bool await_event(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER number, DAT_EVENT *out)
{
    for (int k = 0; k < 8; k++) {
        DAT_COUNT more;
        TARGS("%p, 20000 us (for a connection)", evd);
        if (DO(evd_wait, E_ANY, dat_evd_wait(evd, 20000, 1, out, &more)) != DAT_SUCCESS)
            return false;
        on_event(out, evd);
        if (out->event_number == number)
            return true;
    }
    return false;
}

/* Two EPs on the two NICs connected the way a consumer does it: a PSP, a
 * connect, the request accepted, ESTABLISHED on both. It keeps a supply of
 * connected pairs for the DTOs: left to chance, the steps rarely line up. */
static void op_connect_pair(void)
{
    const int a = pick_where(T_IA, NULL, NULL);
    if (a < 0)
        return;
    const int want = P[T_IA].o[a].nic ^ 1;
    int b = -1;
    for (int i = 0, seen = 0; i < P[T_IA].n; i++)
        if (P[T_IA].o[i].nic == want && below((uint32_t)++seen) == 0)
            b = i;
    if (b < 0)
        return;
    const DAT_IA_HANDLE ia_a = P[T_IA].o[a].h, ia_b = P[T_IA].o[b].h;
    struct obj *ea = full_ep(obj_of(T_IA, ia_a));
    const DAT_EP_HANDLE ha = ea ? ea->h : DAT_HANDLE_NULL;
    struct obj *eb = full_ep(obj_of(T_IA, ia_b));
    const DAT_EP_HANDLE hb = eb ? eb->h : DAT_HANDLE_NULL;
    const struct obj *iab = obj_of(T_IA, ia_b);
    const DAT_EVD_HANDLE cr_evd = iab ? evd_of(iab, DAT_EVD_CR_FLAG) : DAT_HANDLE_NULL;
    if (!ha || !hb || !cr_evd || full(T_PSP))
        return;
    DAT_PSP_HANDLE psp;
    DAT_CONN_QUAL q;
    TARGS("%p, any, %p, 0 (for a connection)", ia_b, cr_evd);
    if (DO(psp_create_any, E_ANY, dat_psp_create_any(ia_b, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp)) != DAT_SUCCESS)
        return;
    check_created(T_PSP, psp);
    struct obj *po = obj_add(T_PSP, psp, ia_b, want);
    po->qual = q;
    po->evd = cr_evd;
    struct sockaddr_in to = obj_of(T_IA, ia_b)->addr;
    TARGS("%p, %s:%u, 100000 us (for a connection)", ha, inet_ntoa(to.sin_addr), (unsigned)q);
    if (DO(ep_connect, E_ANY, dat_ep_connect(ha, (DAT_IA_ADDRESS_PTR)&to, q, 100000, 0, NULL, DAT_QOS_BEST_EFFORT,
                                             DAT_CONNECT_DEFAULT_FLAG)) != DAT_SUCCESS)
        return;
    DAT_EVENT ev;
    if (!await_event(cr_evd, DAT_CONNECTION_REQUEST_EVENT, &ev))
        return;
    const DAT_CR_HANDLE cr = ev.event_data.cr_arrival_event_data.cr_handle;
    TARGS("%p, %p, 0 (for a connection)", cr, hb);
    if (DO(cr_accept, E_ANY, dat_cr_accept(cr, hb, 0, NULL)) == DAT_SUCCESS) {
        const int i = obj_find(T_CR, cr);
        if (i >= 0)
            destroyed(T_CR, i);
    }
    const struct obj *oa = obj_of(T_EP, ha), *ob = obj_of(T_EP, hb);
    if (oa)
        await_event(oa->conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
    if (ob)
        await_event(ob->conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
}

/* ------------------------------------------------------------- drain */

static bool free_one(int t, int i)
{
    const DAT_HANDLE h = P[t].o[i].h;
    DAT_RETURN r;
    TARGS("%p (freeing its IA's objects)", h);
    switch (t) {
    case T_CR: r = DO(cr_reject, E_ANY, dat_cr_reject(h)); break;
    case T_RSP: r = DO(rsp_free, E_ANY, dat_rsp_free(h)); break;
    case T_PSP: r = DO(psp_free, E_ANY, dat_psp_free(h)); break;
    case T_EP: r = DO(ep_free, E_ANY, dat_ep_free(h)); break;
    case T_RMR: r = DO(rmr_free, E_ANY, dat_rmr_free(h)); break;
    case T_LMR: r = DO(lmr_free, E_ANY, dat_lmr_free(h)); break;
    case T_EVD: r = DO(evd_free, E_ANY, dat_evd_free(h)); break;
    case T_CNO: r = DO(cno_free, E_ANY, dat_cno_free(h)); break;
    case T_PZ: r = DO(pz_free, E_ANY, dat_pz_free(h)); break;
    default: return false;
    }
    if (r != DAT_SUCCESS)
        return false;
    destroyed(t, i);
    return true;
}

/* Frees the IA's objects, users before what they use. Connection requests
 * still queued are taken first (they are the IA's objects too). Returns
 * whether everything it tried to free went. */
static bool frees_in_order(DAT_IA_HANDLE ia)
{
    bool all = true;
    for (int i = 0; i < P[T_PSP].n;)
        if (P[T_PSP].o[i].ia == ia && free_one(T_PSP, i)) {
        } else {
            all &= P[T_PSP].o[i].ia != ia;
            i++;
        }
    for (int i = 0; i < P[T_RSP].n;)
        if (P[T_RSP].o[i].ia == ia && free_one(T_RSP, i)) {
        } else {
            all &= P[T_RSP].o[i].ia != ia;
            i++;
        }
    for (int i = 0; i < P[T_EVD].n; i++) {
        if (P[T_EVD].o[i].ia != ia)
            continue;
        const DAT_EVD_HANDLE h = P[T_EVD].o[i].h;
        DAT_EVENT ev;
        for (int k = 0; k < 4096; k++) {
            TARGS("%p (emptying it)", h);
            if (DO(evd_dequeue, E_ANY, dat_evd_dequeue(h, &ev)) != DAT_SUCCESS)
                break;
            on_event(&ev, h);
        }
    }
    static const int order[] = {T_CR, T_EP, T_RMR, T_LMR, T_EVD, T_CNO, T_PZ};
    for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
        const int t = order[k];
        for (int i = 0; i < P[t].n;) {
            const struct obj *o = &P[t].o[i];
            const struct obj *iao = obj_of(T_IA, ia);
            if (o->ia != ia || (t == T_EVD && iao && iao->owns_async && o->h == iao->async)) {
                i++;
                continue;
            }
            if (!free_one(t, i)) {
                all = false;
                i++;
            }
        }
    }
    return all;
}

/* ------------------------------------------------------------- the mix */

/* need: the pool an op works on (-1: none). An op whose pool is empty
 * would only pass bad handles: it is mostly drawn again, so that the
 * valid calls, which reach deeper, keep their share. */
struct op {
    void (*fn)(void);
    unsigned weight;
    int need;
};

#define NEED_ROOM_IA (-2)   /* fewer than two IAs on some NIC */

static const struct op ops[] = {
    {op_ia_open, 8, NEED_ROOM_IA}, {op_ia_close, 1, T_IA},     {op_ia_drain_close, 1, T_IA},
    {op_ia_query, 8, T_IA},        {op_pz_create, 14, T_IA},   {op_pz_free, 6, T_PZ},
    {op_pz_query, 6, T_PZ},        {op_evd_create, 28, T_IA},  {op_evd_free, 10, T_EVD},
    {op_evd_resize, 8, T_EVD},     {op_evd_dequeue, 90, T_EVD}, {op_evd_wait, 40, T_EVD},
    {op_evd_query, 8, T_EVD},      {op_evd_post_se, 8, T_EVD}, {op_evd_misc, 12, T_EVD},
    {op_cno_create, 6, T_IA},      {op_cno_free, 4, T_CNO},    {op_cno_wait, 6, T_CNO},
    {op_cno_query_modify, 6, T_CNO}, {op_ep_create, 30, T_IA}, {op_ep_free, 10, T_EP},
    {op_ep_query_status, 14, T_EP}, {op_ep_modify, 8, T_EP},   {op_ep_connect, 30, T_EP},
    {op_ep_dup_connect, 3, T_EP},  {op_ep_disconnect_reset, 10, T_EP}, {op_ep_misc, 5, T_EP},
    {op_post, 80, T_EP},           {op_lmr_create, 26, T_IA},  {op_lmr_free, 10, T_LMR},
    {op_lmr_query, 6, T_LMR},      {op_lmr_sync, 8, T_LMR},    {op_hostmem, 1, -1},
    {op_rmr_create, 8, T_PZ},      {op_rmr_free, 5, T_RMR},    {op_rmr_query, 4, T_RMR},
    {op_rmr_bind, 14, T_RMR},      {op_psp_create, 12, T_IA},  {op_psp_free_query, 5, T_PSP},
    {op_rsp_create, 4, T_IA},      {op_rsp_free_query, 4, T_RSP}, {op_cr_accept, 30, T_CR},
    {op_cr_other, 8, T_CR},        {op_context, 10, -1},       {op_srq, 3, -1},
    {op_connect_pair, 3, T_IA},
    {op_registry_strerror, 3, -1},
};

static unsigned ops_total;

static bool worth_it(const struct op *o)
{
    if (o->need == NEED_ROOM_IA)
        return open_ias_on(0) < 2 || open_ias_on(1) < 2;
    return o->need < 0 || P[o->need].n > 0;
}

static void one_step(void)
{
    for (int tries = 0;; tries++) {
        unsigned w = below(ops_total);
        size_t i = 0;
        while (w >= ops[i].weight)
            w -= ops[i++].weight;
        if (tries < 8 && !worth_it(&ops[i]) && chance(85))
            continue;
        ops[i].fn();
        return;
    }
}

/* -------------------------------------------------------------- main */

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--seed N] [--calls N] [--trace] [--hang-seconds N (0: no watchdog)]\n", argv0);
    exit(2);
}

static void report(double secs)
{
    printf("dat_fuzz: %" PRIu64 " random calls, %" PRIu64 " DAT calls in all (checks and agents included), "
           "%.1f s, %.0f calls/s\n",
           budget, total_calls, secs, secs > 0 ? (double)total_calls / secs : 0.0);
    printf("dat_fuzz: per function (calls, ms in all, return types):\n");
    uint64_t per_ret[NRET] = {0};
    for (int f = 0; f < F_COUNT; f++) {
        if (!fn_calls[f])
            continue;
        printf("  %-28s %7" PRIu64 " %8.1f ", fn_name[f], fn_calls[f], (double)fn_ns[f] / 1e6);
        const char *sep = "";
        for (int r = 0; r < NRET; r++) {
            if (fn_ret[f][r]) {
                printf("%s%s %" PRIu64, sep, ret_name[r], fn_ret[f][r]);
                sep = ", ";
                per_ret[r] += fn_ret[f][r];
            }
        }
        printf("\n");
    }
    printf("dat_fuzz: per return type:");
    for (int r = 0; r < NRET; r++)
        if (per_ret[r])
            printf(" %s %" PRIu64, ret_name[r], per_ret[r]);
    printf("\ndat_fuzz: %" PRIu64 " events; DTO completions by status:", events_seen);
    for (int s = 0; s < 12; s++)
        if (dto_status[s])
            printf(" %d:%" PRIu64, s, dto_status[s]);
    printf("; proxy agent calls %" PRIu64 "\n", agent_calls);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], &end, 0);
        else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
            budget = strtoull(argv[++i], &end, 0);
        else if (strcmp(argv[i], "--hang-seconds") == 0 && i + 1 < argc)
            hang_seconds = (unsigned)strtoul(argv[++i], &end, 0);
        else if (strcmp(argv[i], "--trace") == 0)
            trace = true;
        else
            usage(argv[0]);
        if (end && *end)
            usage(argv[0]);
    }
    /* Lockstep unless the user asks for another mode: a run is then its
     * seed's, and both NICs are in the process, with no link socket that
     * another process could hold. */
    setenv("RNIC_SIM_MODE", "lockstep", 0);
    printf("dat_fuzz: seed %" PRIu64 ", %" PRIu64 " calls\n", seed, budget);
    fflush(stdout);
    rng = seed;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        ops_total += ops[i].weight;
    for (size_t i = 0; i < sizeof(junk); i += 8) {
        const uint64_t v = rnd();
        memcpy(junk + i, &v, 8);
    }
    install_reporting();
    pools_init();
    bufs_alloc();
    maps_setup();

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (step = 0; step < budget; step++) {
        one_step();
        /* Now and then: nothing vanished that no call destroyed. */
        if (step % 4096 == 4095)
            sweep(NULL);
    }

    /* The end: every IA closes (abruptly: whatever is left goes with it),
     * and nothing of them is live afterwards. */
    step = budget;
    sweep(NULL);
    while (P[T_IA].n > 0) {
        const DAT_IA_HANDLE ia = P[T_IA].o[P[T_IA].n - 1].h;
        TARGS("%p (the end)", ia);
        const DAT_RETURN r = DO(ia_close, E_ANY, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
        if (r != DAT_SUCCESS)
            fail("closing IA %p at the end returned 0x%08x", ia, (unsigned)r);
        ia_closed(ia);
    }
    for (int t = 0; t < NTYPE; t++)
        if (P[t].n)
            fail("%d %s objects outlived every IA", P[t].n, type_name[t]);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (hang_seconds > 0) {
        const struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_REAL, &off, NULL);
    }
    /* No IA is open: nothing can reach the memory any more. */
    bufs_free();
    maps_teardown();
    report((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    printf("ok\n");
    return 0;
}

