/*
 * libdat internals: the objects behind the DAT handles and the helpers the
 * source files share. Nothing here is visible to consumers.
 *
 * Threading (lock.c): every DAT call holds one library lock, released only
 * while a wait blocks, so a thread waiting in dat_evd_wait never stops
 * another thread's posts. When time runs by itself (free-running
 * simulation, hardware), a progress thread (progress.c) answers the
 * connection manager and moves completions into EVDs while the consumer
 * computes, sleeps or polls.
 */
#ifndef LIBDAT_INTERNAL_H
#define LIBDAT_INTERNAL_H

/* The DAT API is what libdat.so exports; everything else is hidden. */
#pragma GCC visibility push(default)
#include <dat/udat.h>
#include <dat/dat_registry.h>
#pragma GCC visibility pop
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rnic/rnic_drv.h"
#include "rnic_hw.h"

#define DAT_ERR(type, sub) ((DAT_RETURN)(DAT_CLASS_ERROR | (DAT_UINT32)(type) | (DAT_UINT32)(sub)))

#define DAT_LIKELY(x) __builtin_expect(!!(x), 1)
#define DAT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Limits this provider reports and enforces. */
enum {
    DAT_RNIC_MAX_PDATA = 256,        /* private data bytes in CM messages */
    DAT_RNIC_MAX_EVD_QLEN = 1 << 15,
    DAT_RNIC_MAX_DTOS = 1 << 15,     /* per EP queue (ring entries) */
    DAT_RNIC_MIN_CQ = 16,
};
#define DAT_RNIC_MAX_MESSAGE ((DAT_VLEN)1 << 30)
#define DAT_RNIC_MAX_LMR_BLOCK ((DAT_VLEN)1 << 40)

struct dat_ia;
struct dat_dev;
struct dat_evd;
struct dat_ep;
struct cm_conn;

/* ------------------------------------------------------------- handles */

/* Every object starts with this header. Handles are not pointers: they
 * encode a slot of a table and the slot's generation, so a stale or
 * foreign handle is recognised without touching freed memory. */
struct dat_obj {
    DAT_HANDLE_TYPE type;
    uint32_t slot;
    DAT_CONTEXT consumer_context;
    struct dat_ia *ia;
    struct dat_obj *ia_next, *ia_prev;   /* the IA's list of its objects */
};

DAT_HANDLE dat_handle_new(struct dat_obj *obj, DAT_HANDLE_TYPE type, struct dat_ia *ia);
void dat_handle_release(struct dat_obj *obj);
struct dat_obj *dat_handle_lookup_any(DAT_HANDLE h);
DAT_HANDLE dat_handle_of(const struct dat_obj *obj);

/* The slot table, inlined into every call's handle check (the DTO path
 * counts instructions). */
struct dat_slot {
    struct dat_obj *obj;
    uint32_t gen;
};
extern struct dat_slot *dat_slots;
extern uint32_t dat_nslots;

#define DAT_HANDLE_TAG 0xD5u

static inline struct dat_obj *dat_handle_lookup(DAT_HANDLE h, DAT_HANDLE_TYPE type)
{
    uintptr_t v = (uintptr_t)h;
    if (DAT_UNLIKELY((v & 0xFFu) != DAT_HANDLE_TAG))
        return NULL;
    uint32_t slot = (uint32_t)((v >> 8) & 0xFFFFFFu);
    uint32_t gen = (uint32_t)(v >> 32);
    if (DAT_UNLIKELY(slot >= dat_nslots))
        return NULL;
    const struct dat_slot *s = &dat_slots[slot];
    if (DAT_UNLIKELY(s->gen != gen || s->obj == NULL || s->obj->type != type))
        return NULL;
    return s->obj;
}

#define DAT_H(obj) dat_handle_of(&(obj)->hdr)

/* ---------------------------------------------------------------- lock */

/* The library lock (recursive: a DAT call may make another inside). Every DAT
 * entry point takes it with DAT_API_LOCK() as its first statement; it is
 * released when the function returns, however it returns. */
void dat_lock(void);
void dat_unlock(void);
struct dat_api_guard {
    char unused;
};
static inline struct dat_api_guard dat_api_enter(void)
{
    dat_lock();
    return (struct dat_api_guard){0};
}
static inline void dat_api_leave(struct dat_api_guard *g)
{
    (void)g;
    dat_unlock();
}
#define DAT_API_LOCK()                                                                                       \
    struct dat_api_guard dat_api_guard_ __attribute__((cleanup(dat_api_leave), unused)) = dat_api_enter()

/* Something a waiter may be waiting for happened (an event was queued, a
 * connection changed): waiters look again when the lock is next released. */
void dat_waiters_kick(void);
/* Blocks the calling thread, with the library lock released, until
 * dat_waiters_kick, one of the `also` descriptors (at most
 * DAT_BLOCK_MAX_FDS: the connection manager's sockets, in lockstep) or
 * `timeout_ns` (UINT64_MAX: no limit). */
#define DAT_BLOCK_MAX_FDS 129u
void dat_block(uint64_t timeout_ns, const struct pollfd *also, size_t n_also);
/* Runs rnic_wait_any with the library lock released. */
void dat_wait_unlocked(rnic_dev *const *devs, unsigned n, uint64_t cycles);
/* More than one thread has called into the library. */
extern bool dat_threaded;
/* Consumer callbacks (a CNO's proxy agent) never run inside the library:
 * a trigger records the call, and it is made with the lock released when
 * the thread lets the lock go at the end of its DAT call (or of a pass of
 * the progress thread), or between the passes of a wait (dat_agents_run).
 * No engine pass is under way then, so a callback that calls back in finds
 * no pointer held into the objects it may free. */
void dat_agent_defer(DAT_CNO_HANDLE cno, DAT_OS_WAIT_PROXY_AGENT agent, DAT_EVD_HANDLE evd);
/* Calls not made yet for this CNO or EVD are dropped (it is being freed). */
void dat_agent_cancel(DAT_HANDLE h);
/* Makes the calls now (a wait, between its passes: what it waits on is
 * pinned by its waiter count, as while it sleeps). */
void dat_agents_run(void);
/* A call of this CNO's agent is under way in another thread. Whoever frees
 * the CNO or changes its agent waits for it to return first
 * (dat_agent_wait_returned: the lock is released meanwhile, so handles are
 * to be looked up again), so the consumer may free the agent's instance
 * data once that DAT call returns. */
bool dat_agent_running(DAT_CNO_HANDLE cno);
void dat_agent_wait_returned(void);
/* The progress thread's eventfd (made at the first call), and its wake-up:
 * it looks again at its sockets and timers (one was added). */
int dat_progress_wake_fd(void);
void dat_progress_poke(void);

/* -------------------------------------------------------------- devices */

/* One opened driver device, shared by every IA opened on it. */
struct dat_dev {
    char name[64];
    rnic_dev *rdev;
    int refs;
    struct rnic_dev_info info;
    struct sockaddr_in cm_addr;          /* the IA address of every IA on it */
    struct dat_ep **ep_by_qpn;           /* info.num_qp entries */
    struct dat_lmr **lmr_by_index;       /* info.pt_entries entries */
    struct dat_evd *cq_evds;             /* EVDs that own a CQ on this device */
    uint32_t *freed_ctx;                 /* contexts of destroyed LMRs, per PT index */
    bool noncoherent;                    /* the host's cache is not coherent with DMA */
    struct dat_dev *next;
};

extern struct dat_dev *dat_devs;

/* ------------------------------------------------------------------ IA */

struct dat_ia {
    struct dat_obj hdr;
    struct dat_dev *dev;
    char name[DAT_NAME_MAX_LENGTH];
    bool ro_aware;                       /* opened as RO_AWARE_<name> */
    struct dat_evd *async_evd;           /* NULL: DAT_EVD_ASYNC_EXISTS */
    bool owns_async_evd;
    struct sockaddr_in addr;             /* what ia_address_ptr points at */
    struct dat_obj *objs;                /* everything created on this IA */
    struct dat_sync_note *sync_notes;    /* missing syncs found in its LMRs, told at close */
    uint32_t n_sync_notes, cap_sync_notes, sync_notes_dropped;
    struct rnic_qp_timers qp_timers;     /* every QP of its EPs: the environment at dat_ia_open */
    struct dat_ia *next;
};

extern struct dat_ia *dat_ias;

void dat_ia_link(struct dat_ia *ia, struct dat_obj *obj);
void dat_ia_unlink(struct dat_obj *obj);

/* ----------------------------------------------------------------- PZ */

struct dat_pz {
    struct dat_obj hdr;
    uint16_t pz;
    int refs;                            /* EPs and LMRs using it */
};

/* ---------------------------------------------------------------- CNO */

struct dat_cno {
    struct dat_obj hdr;
    DAT_OS_WAIT_PROXY_AGENT agent;
    struct dat_evd *triggered;           /* first EVD that notified since the last wait */
    int refs;                            /* EVDs attached */
    int waiters;                         /* threads in dat_cno_wait on it */
};

/* ---------------------------------------------------------------- EVD */

struct dat_evq_entry {
    DAT_EVENT ev;
    bool notify;                         /* false: an UNSIGNALLED completion */
};

struct dat_evd {
    struct dat_obj hdr;
    DAT_EVD_FLAGS flags;
    DAT_COUNT qlen;
    struct dat_evq_entry *q;             /* ring of qlen entries */
    uint32_t head, count, n_notify;
    bool enabled, waitable, overflowed;
    struct dat_cno *cno;
    rnic_cq *cq;                         /* DTO / RMR_BIND streams only */
    uint32_t cq_entries;
    struct dat_evd *cq_next;             /* dev->cq_evds list */
    int refs;                            /* EPs, PSPs, RSPs using it */
    int waiters;                         /* threads in dat_evd_wait on it */
};

/* Append an event; an overflow is reported on the IA's async EVD
 * (evd_queue.c). */
void dat_evd_push(struct dat_evd *evd, const DAT_EVENT *ev, bool notify);
/* An event of the EVD was lost (its queue full, or its CQE dropped by the
 * NIC): DAT_ASYNC_ERROR_EVD_OVERFLOW on the IA's async EVD. */
void dat_evd_overflow(struct dat_evd *evd);

/* Take the oldest event (the queue is not empty). Inline: the dequeue path
 * counts instructions. */
static inline void dat_evd_pop(struct dat_evd *evd, DAT_EVENT *out)
{
    struct dat_evq_entry *e = &evd->q[evd->head];
    *out = e->ev;
    if (e->notify)
        evd->n_notify--;
    evd->head = (evd->head + 1) % (uint32_t)evd->qlen;
    evd->count--;
}

/* ---------------------------------------------------------- completions */

/* What a completion implies beyond its event: left by the completion path
 * for the progress engine, which does it after the drain (progress.c). */
enum dat_work_kind {
    DAT_WORK_RMR_READBACK,               /* a bind failed: read the RMR's window back from the NIC */
    DAT_WORK_EP_BROKEN,                  /* an error completion broke the EP's connection */
    DAT_WORK_EP_GRACEFUL,                /* the EP's requests are done: its graceful disconnect may finish */
};
struct dat_work {
    enum dat_work_kind kind;
    DAT_HANDLE handle;                   /* the RMR or EP (looked up again: it may be gone) */
};

/* Moves completions of the EVD's CQ into its queue (completion.c). Returns
 * true when a completion left work: the drain stopped, and the caller
 * takes the work (dat_work_take) and drains again (dat_progress_cq). */
bool dat_cq_drain(struct dat_evd *evd);
/* The next piece of work, in order; events held behind earlier work are
 * queued on the way. False: none left. */
bool dat_work_take(struct dat_work *w);

/* ----------------------------------------------------------------- LMR */

struct dat_shm_region;

struct dat_lmr {
    struct dat_obj hdr;
    DAT_MEM_TYPE mem_type;
    DAT_REGION_DESCRIPTION region;
    DAT_VLEN length;
    struct dat_pz *pz;
    DAT_MEM_PRIV_FLAGS priv;
    rnic_mr *mr;
    DAT_LMR_CONTEXT lmr_context;
    DAT_RMR_CONTEXT rmr_context;
    DAT_VADDR base;                      /* registered_address */
    DAT_VLEN size;                       /* registered_size */
    int rmr_binds;                       /* RMRs bound into it (issue 4) */
    struct dat_shm_region *shm;
    uint8_t cookie[DAT_LMR_COOKIE_SIZE];
};

static inline struct dat_lmr *dat_lmr_by_context(const struct dat_dev *dev, DAT_LMR_CONTEXT ctx)
{
    uint32_t idx = ctx >> 8;
    if (DAT_UNLIKELY(idx >= dev->info.pt_entries))
        return NULL;
    struct dat_lmr *l = dev->lmr_by_index[idx];
    if (DAT_UNLIKELY(l == NULL || l->lmr_context != ctx))
        return NULL;
    return l;
}

/* --------------------------------------------------------------- EPs */

struct dat_req_desc {
    DAT_DTO_COOKIE cookie;
    uint64_t len;
    DAT_RMR_HANDLE rmr;                  /* a bind's RMR; DAT_HANDLE_NULL for a DTO */
    uint8_t deliver;                     /* an event is owed on success */
    uint8_t notify;                      /* that event notifies */
};

/* A posted receive keeps its SGEs: the QP is rebuilt when the connection
 * settles its RDMA READ limits, and posted receives move to the new one. */
struct dat_recv_desc {
    DAT_DTO_COOKIE cookie;
    uint8_t deliver, notify, nsge;
    struct rnic_sge sge[RNIC_MAX_SGE];
};

/* The destination iov of an RDMA READ, kept on a non-coherent host until
 * its completion is reaped (then it is synced for the CPU). */
struct dat_dto_dst {
    uint8_t nsge;
    struct rnic_sge sge[RNIC_MAX_SGE];
};

struct dat_ep {
    struct dat_obj hdr;
    DAT_EP_STATE state;
    bool noncoherent;                    /* its device's host is not coherent */
    struct dat_pz *pz;
    struct dat_evd *recv_evd, *req_evd, *conn_evd;
    DAT_EP_ATTR attr;
    rnic_qp *qp;
    uint32_t qpn;
    uint8_t qp_max_rd;                   /* RDMA READs in flight the QP allows */
    bool freeing;                        /* completions are dropped, not reported */
    /* request queue: seq numbers are the WQEs' wr_id */
    struct dat_req_desc *sq;
    uint32_t sq_mask;
    uint32_t sq_depth;                   /* max_request_dtos: the ring is the power of two at or above */
    uint64_t sq_head, sq_tail, sq_last_signaled;
    struct dat_dto_dst *sq_dst;          /* per request, non-coherent host only */
    /* receive queue */
    struct dat_recv_desc *rq;
    uint32_t rq_mask;
    uint32_t rq_depth;                   /* max_recv_dtos, as sq_depth */
    uint64_t rq_head, rq_tail;
    /* connection */
    struct cm_conn *conn;
    struct dat_cr *cr;                   /* RSP: the pending request for this EP */
    struct dat_rsp *rsp;                 /* RSP that reserved it */
    struct sockaddr_in remote_addr;
    DAT_PORT_QUAL local_port, remote_port;
    bool active;                         /* this side called dat_ep_connect */
    uint8_t pdata[DAT_RNIC_MAX_PDATA];   /* the peer's private data of the last connection event */
    DAT_COUNT pdata_len;
    bool graceful;                       /* DISCONNECT_PENDING until the request queue drains */
    bool graceful_nop_due;               /* a signalled NOP must still be posted to see it drain */
    DAT_EVENT_NUMBER peer_gone;          /* the peer broke it: the event, once our requests drained */
    uint64_t graceful_deadline;          /* NIC cycle: give up (frames lost on a link that does not retransmit) */
    bool has_error;                      /* last_error holds a failed completion */
    DAT_RNIC_ERROR_DETAIL last_error;    /* the NIC's reason for it (dat_rnic_ep_last_error) */
};

/* The WQE flags of request `seq`: SIGNALED when its completion is to be
 * delivered, and now and then for a suppressed one, so the ring slots of the
 * requests before it are known to be free again; FENCE on request. A
 * suppressed request that fills the queue is always signalled: the queue
 * is only emptied by a CQE, and none might come otherwise. */
static inline uint8_t dat_req_wqe_flags(struct dat_ep *ep, uint64_t seq, bool deliver, DAT_COMPLETION_FLAGS f)
{
    uint8_t w = 0;
    if (deliver || seq - ep->sq_last_signaled >= (ep->sq_mask + 1u) / 2u || seq + 1u - ep->sq_tail >= ep->sq_depth) {
        w |= RNIC_WQE_FLAG_SIGNALED;
        ep->sq_last_signaled = seq;
    }
    if (f & DAT_COMPLETION_BARRIER_FENCE_FLAG)
        w |= RNIC_WQE_FLAG_FENCE;
    return w;
}

/* ep.c: a configured EP (PZ, request and connect EVDs) has a hardware QP. */
DAT_RETURN dat_ep_qp_build(struct dat_ep *ep, uint8_t max_rd);
/* Let outstanding work complete (flushed) so the QP number can go. */
void dat_ep_quiesce(struct dat_ep *ep);
void dat_ep_destroy(struct dat_ep *ep);

/* ep_conn.c: the error a call reports for an EP in a state it refuses. */
DAT_RETURN dat_ep_state_error(DAT_EP_STATE s);
/* A connection event on the EP's connect EVD (the peer's private data of
 * the last connection event with it). */
void dat_ep_connection_event(struct dat_ep *ep, DAT_EVENT_NUMBER num);
/* Connection ends: flush the QP, drop the CM connection, report `event`. */
void dat_ep_conn_lost(struct dat_ep *ep, DAT_EVENT_NUMBER event);
/* After completions: a graceful disconnect may now finish. */
void dat_ep_check_graceful(struct dat_ep *ep);
/* The peer ended the connection (`event`: DISCONNECTED or BROKEN). When its
 * NIC may still be answering our requests in flight (its library broke the
 * connection over an error, after its NIC answered), those completions come
 * first, within a bound. */
void dat_ep_peer_gone(struct dat_ep *ep, DAT_EVENT_NUMBER event, bool answers_in_flight);
/* An error completion broke the connection: BROKEN for both peers. */
void dat_ep_broken(struct dat_ep *ep);
/* Graceful disconnects past their deadline; returns cycles to the next. */
uint64_t dat_ep_graceful_timers(void);

/* ------------------------------------------------------- PSP, RSP, CR */

struct dat_psp {
    struct dat_obj hdr;
    DAT_CONN_QUAL conn_qual;
    struct dat_evd *evd;
    DAT_PSP_FLAGS flags;
    int fd;                              /* listening socket */
};

struct dat_rsp {
    struct dat_obj hdr;
    DAT_CONN_QUAL conn_qual;
    struct dat_evd *evd;
    struct dat_ep *ep;
    int fd;
};

struct dat_cr {
    struct dat_obj hdr;
    struct cm_conn *conn;
    struct dat_obj *sp;                  /* the PSP or RSP it arrived on (may be freed) */
    DAT_CONN_QUAL conn_qual;
    struct sockaddr_in remote_addr;
    DAT_PORT_QUAL remote_port;
    uint8_t pdata[DAT_RNIC_MAX_PDATA];
    DAT_COUNT pdata_len;
    struct dat_ep *local_ep;             /* RSP's EP, else NULL */
    /* the requester's transport parameters */
    uint32_t peer_qpn, peer_psn, peer_ipv4;
    uint8_t peer_mac[6];
    uint8_t peer_rd_in, peer_rd_out;
};

void dat_cr_destroy(struct dat_cr *cr);

/* ---------------------------------------------------------------- RMR */

struct dat_rmr {
    struct dat_obj hdr;
    struct dat_pz *pz;
    rnic_mw *mw;
    DAT_RMR_CONTEXT context;             /* the key its last posted bind gives it */
    struct dat_lmr *lmr;                 /* bound into (counted in lmr->rmr_binds), or NULL */
    DAT_LMR_TRIPLET triplet;             /* what it is bound to */
    DAT_MEM_PRIV_FLAGS priv;
};

void dat_rmr_destroy(struct dat_rmr *rmr);
/* A bind of this RMR completed in error: take the window's state from the
 * NIC (work for the progress engine, after the drain). */
void dat_rmr_bind_failed(DAT_RMR_HANDLE rmr);

/* ------------------------------------------------------------ registry */

struct dat_ia_entry {
    char ia_name[DAT_NAME_MAX_LENGTH];
    char device[64];
    char options[256];                   /* driver options from ia_params (sim_mode=, link_local=, link_peer=) */
    struct in_addr cm_addr;              /* 0: derive from the NIC index */
    int coherency;                       /* RNIC_HOST_*: coherency=; RNIC_HOST_DEFAULT if not given */
    DAT_UINT32 major, minor;
    DAT_BOOLEAN thread_safe;
};

/* Finds `name` in dat.conf (DAT_OVERRIDE, else /etc/dat.conf) or among the
 * built-in names rnic<N>. */
DAT_RETURN dat_registry_find(const char *name, struct dat_ia_entry *out);

/* --------------------------------------------------------------- devices */

/* The device of e, opened or shared. ia_name, the name the consumer gave
 * dat_ia_open, is for the stderr line that says why an open failed. */
DAT_RETURN dat_dev_get(const struct dat_ia_entry *e, const char *ia_name, struct dat_dev **out);
void dat_dev_put(struct dat_dev *dev);
/* Cycles per microsecond of the adapter clock (RNIC_CLOCK_MHZ, 250, as
 * the first dat_ia_open read it). */
uint64_t dat_cycles_per_us(void);

/* ----------------------------------------------------------- environment */

/* Every variable libdat reads (env.c): DAT_SUCCESS, or the error
 * dat_ia_open returns for a bad value (named on stderr). *timers gets the
 * QP timers RNIC_ACK_TIMEOUT, RNIC_RETRY_CNT, RNIC_RNR_RETRY and
 * RNIC_MIN_RNR_TIMER ask for (the driver's defaults where unset). */
DAT_RETURN dat_env_check(struct rnic_qp_timers *timers);
/* `name` as a decimal number from min to max into *out, which keeps its
 * default when the variable is unset or empty. false, with one line on
 * stderr, for any other value. */
bool dat_env_number(const char *name, uint64_t min, uint64_t max, uint64_t *out);
/* The dat.conf to read: DAT_OVERRIDE, else /etc/dat.conf. false for a
 * DAT_OVERRIDE that cannot be read. */
bool dat_env_conf(const char **path);
/* DAT_RNIC_CM_PORT_BASE (0 by default); false for a bad value. */
bool dat_env_cm_port_base(unsigned *base);
/* RNIC_SIM_NICS (2 by default): the built-in names rnic0.. listed. */
bool dat_env_nics(unsigned *n);
/* DAT_RNIC_LOG_ERRORS=1: a stderr line per failed completion (completion.c). */
bool dat_log_errors(void);
/* The device's clock, in cycles. */
uint64_t dat_now(const struct dat_dev *dev);

/* ---------------------------------------------------- non-coherent host */

/* A range of an IA's LMR where the platform found a missing sync. */
struct dat_sync_note {
    int kind;                            /* enum rnic_sync_kind */
    uint64_t addr, len;
    DAT_LMR_CONTEXT lmr_context;         /* 0: no LMR covers it any more */
    DAT_VADDR lmr_base;
};

/* libdat keeps DTO buffers coherent itself. A request's local iov is
 * flushed before the NIC may read it; an RDMA READ's is kept to be synced
 * for the CPU when its completion is reaped (dat_dto_reaped). */
void dat_dto_prepare(struct dat_ep *ep, uint64_t seq, uint8_t op, const struct rnic_sge *sg, int nsg);
void dat_dto_reaped(struct dat_ep *ep, uint64_t first, uint64_t last);
void dat_dma_sync_sges(const struct dat_dev *dev, const struct rnic_sge *sg, int nsg, int dir);
/* Moves the platform's reports into the IAs whose LMRs they concern (else
 * into `fallback`). */
void dat_sync_collect(struct dat_dev *dev, struct dat_ia *fallback);
/* Prints the IA's reports on stderr and forgets them: at dat_ia_close. */
void dat_sync_tell(struct dat_ia *ia);

/* ------------------------------------------------------------ progress */

/* Completions into EVDs and connection messages answered, without
 * blocking. */
void dat_progress(void);
/* Does the work completions left (dat_work_take), in order. */
void dat_progress_work(void);
/* Completions of one EVD's CQ into its queue, and the work they leave. */
static inline void dat_progress_cq(struct dat_evd *evd)
{
    while (DAT_UNLIKELY(dat_cq_drain(evd)))
        dat_progress_work();
}
/* Like dat_progress, but first lets every connection message already sent
 * inside this process arrive, so what happens next does not depend on the
 * host's scheduling. */
void dat_progress_settled(void);
/* Until cond(arg) holds or timeout_us of adapter time pass
 * (DAT_TIMEOUT_INFINITE: until it holds). `what` names the wait in the
 * report of a wait nothing can end. */
DAT_RETURN dat_wait_for(struct dat_dev *dev, DAT_TIMEOUT timeout_us, bool (*cond)(void *), void *arg,
                        const char *what);
/* Whether time passes without libdat's calls (free-running simulation, a
 * board): then the progress thread runs (started when this first finds
 * it). Checked and remembered. */
bool dat_time_runs_alone(void);

/* ------------------------------------------------------------------ CM */

/* cm_setup.c: connection setup and teardown (REQ, REP, RTU, REJ; DISC and
 * BROKEN received). Start an active connection from ep to addr/conn_qual. */
DAT_RETURN dat_cm_connect(struct dat_ep *ep, const struct sockaddr_in *addr, DAT_CONN_QUAL qual,
                          DAT_TIMEOUT timeout, DAT_COUNT pdata_len, const void *pdata);
DAT_RETURN dat_cm_accept(struct dat_cr *cr, struct dat_ep *ep, DAT_COUNT pdata_len, const void *pdata);
void dat_cm_reject(struct dat_cr *cr);
/* Accepts, reads and answers what the connections have to say. */
void dat_cm_progress(void);
/* dat_cm_progress until nothing sent inside this process is unread. */
void dat_cm_settle(void);
/* Connect timers: fire the due ones; return cycles until the next (or UINT64_MAX). */
uint64_t dat_cm_timers(void);

/* cm_conn.c: the TCP connections, listeners and messages. Tell the peer
 * the connection is gone (DISC or BROKEN). */
void dat_cm_send_disconnect(struct dat_ep *ep, bool broken);
/* Detach a connection from its EP or CR and close it once its last message is sent. */
void dat_cm_conn_release(struct cm_conn *c);
/* Listening sockets of service points. */
DAT_RETURN dat_cm_listen(struct dat_ia *ia, DAT_CONN_QUAL qual, bool any, DAT_CONN_QUAL *bound,
                         int *fd_out);
void dat_cm_unlisten(int fd);
/* The sockets the connection manager waits on (listeners, connections). */
size_t dat_cm_pollfds(struct pollfd *p, size_t max);
/* TCP port that conn_qual maps to on an IA address; 0 if none. */
uint16_t dat_cm_port_of(DAT_CONN_QUAL qual);
/* Sockets open (listeners, connections) and connect timers running. */
extern unsigned dat_cm_open_sockets, dat_cm_running_timers;
/* The connection manager has something to do (a socket to watch, a timer
 * to fire); while it has not, the progress engine skips it. */
static inline bool dat_cm_busy(void)
{
    return dat_cm_open_sockets > 0 || dat_cm_running_timers > 0;
}

/* ------------------------------------------------------ object lifetimes */

DAT_RETURN dat_evd_make(struct dat_ia *ia, DAT_COUNT qlen, struct dat_cno *cno, DAT_EVD_FLAGS flags,
                        struct dat_evd **out);
void dat_evd_destroy(struct dat_evd *evd);
void dat_cno_destroy(struct dat_cno *cno);
void dat_pz_destroy(struct dat_pz *pz);
void dat_lmr_destroy(struct dat_lmr *lmr);
void dat_psp_destroy(struct dat_psp *psp);
void dat_rsp_destroy(struct dat_rsp *rsp);

/* -------------------------------------------------------------- helpers */

void *dat_zalloc(size_t n);
uint32_t dat_pow2_at_least(uint32_t n);

#endif
