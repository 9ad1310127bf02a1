/*
 * Userspace driver for the RNIC. C11, no DAT in here: libdat and the tests
 * sit on top of it. It reaches the device only through the platform HAL
 * (rnic_hal.h): BAR access, DMA mapping and waiting, with a `sim` backend
 * (the SystemC platform in this process) and a `vfio` backend (a real
 * board).
 *
 * Every function returns 0 or a negative RNIC_E* code unless it says
 * otherwise; rnic_strerror() names a code. Nothing here blocks without
 * bound: waits take a cycle budget.
 *
 * Objects are single-threaded; one thread at a time per device (libdat
 * serializes its threads). The platform underneath is thread safe.
 *
 * Time: a device has a clock (rnic_time, in cycles). On the simulated
 * platform in lockstep it moves only inside driver calls: BAR accesses,
 * waits, and an empty rnic_cq_poll, which costs RNIC_POLL_CYCLES as a
 * look at memory costs a CPU time; so a polling loop makes progress, the
 * same way on every run. Free-running and on hardware it moves by itself
 * (rnic_time_runs_alone).
 */
#ifndef RNIC_DRV_H
#define RNIC_DRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rnic_err {
    RNIC_OK = 0,
    RNIC_E_INVAL = -1,   /* bad argument */
    RNIC_E_NOMEM = -2,   /* host memory allocation failed */
    RNIC_E_NODEV = -3,   /* no such device, or it does not identify as an RNIC */
    RNIC_E_BUSY = -4,    /* object still in use */
    RNIC_E_FULL = -5,    /* ring full, or no free hardware resource */
    RNIC_E_TIMEOUT = -6, /* the cycle budget ran out */
    RNIC_E_STATE = -7,   /* object is in the wrong state for the call */
    RNIC_E_HW = -8,      /* the device reported an error (see rnic_dev_status) */
    RNIC_E_RANGE = -9,   /* address range outside a region, or too long */
    RNIC_E_ACCESS = -10, /* host memory does not allow the access asked (read-only pages) */
};
const char *rnic_strerror(int err);

typedef struct rnic_dev rnic_dev;
typedef struct rnic_mr rnic_mr;
typedef struct rnic_mw rnic_mw;
typedef struct rnic_cq rnic_cq;
typedef struct rnic_qp rnic_qp;

/* ---- device ---- */
/* name: "rnic0", "rnic1", ... (sim backend) or "vfio:<pci address>". Opens,
 * soft-resets and checks the identity register. RNIC_E_INVAL: a simulated
 * NIC whose environment has a bad value (stderr names the variable). */
int rnic_open(const char *name, rnic_dev **out);
/* The same with backend options (rnic_hal.h; NULL: none). RNIC_E_BUSY: the
 * simulated NIC's link socket cannot be bound (another process has it). */
int rnic_open_with(const char *name, const char *options, rnic_dev **out);
/* Why the last rnic_open or rnic_open_with of the calling thread failed,
 * as one line of text without a newline: the step that failed and what it
 * was given (an unknown option word, a NIC the simulated platform does not
 * have and how many it has, the VFIO call with its path or PCI address and
 * strerror(errno)), not naming the device itself. "" when that open
 * succeeded, or when the thread has not opened anything. A return code
 * tells a program what to do; this tells its user what to fix, and one
 * RNIC_E_NODEV covers a dozen different failures. The text stays valid
 * until the thread's next open. */
const char *rnic_open_error(void);
void rnic_close(rnic_dev *dev);
int rnic_reset(rnic_dev *dev);

struct rnic_dev_info {
    uint32_t num_qp, num_cq, pt_entries;
    uint32_t max_sge, mtu, data_bytes, max_rd;
    uint32_t version;
    uint32_t ipv4;   /* this port's address, host order (10.0.0.1 = 0x0A000001) */
    uint8_t mac[6];
};
int rnic_query(rnic_dev *dev, struct rnic_dev_info *info);
/* The NIC's cycle counter (reads the CYCLE registers). */
uint64_t rnic_cycles(rnic_dev *dev);
/* STATUS register and ERR_ADDR; clear=true writes the read bits back. */
uint32_t rnic_dev_status(rnic_dev *dev, uint32_t *err_addr, bool clear);
/* Raw register access, for tests and bring-up. */
uint32_t rnic_reg_read(rnic_dev *dev, uint32_t off);
void rnic_reg_write(rnic_dev *dev, uint32_t off, uint32_t val);

/* Advance the platform until this device interrupts or max_cycles pass.
 * Returns cycles spent (sim) or 0 (hardware). */
uint64_t rnic_wait(rnic_dev *dev, uint64_t max_cycles);

/* ---- time ---- */
/* Cycles an empty completion poll costs in lockstep simulation (64 ns at
 * 250 MHz: a look at memory the NIC writes). */
#define RNIC_POLL_CYCLES 16u
/* The device's clock, in cycles (no bus access where the backend can help it). */
uint64_t rnic_time(rnic_dev *dev);
/* Until one of the n devices (one backend) interrupts or max_cycles pass;
 * returns the cycles spent where the backend knows them. */
uint64_t rnic_wait_any(rnic_dev *const *devs, unsigned n, uint64_t max_cycles);
/* The CPU spent `cycles` looking at memory: lockstep simulation runs them. */
void rnic_cpu_delay(rnic_dev *dev, uint64_t cycles);
/* An fd readable when the device interrupts (poll it instead of rnic_wait
 * when time runs alone), or -1. */
int rnic_event_fd(rnic_dev *dev);
/* Whether the device's time passes without driver calls (free-running
 * simulation, hardware). */
bool rnic_time_runs_alone(rnic_dev *dev);
/* Whether nothing can happen on the device until software acts (simulation
 * only; hardware: false). */
bool rnic_quiescent(rnic_dev *dev);
/* The program has several threads: let time run alone (a simulated
 * platform in auto mode goes free-running). RNIC_E_STATE if it cannot. */
int rnic_time_run_alone(rnic_dev *dev);

/* ---- protection zones ---- */
int rnic_pz_alloc(rnic_dev *dev, uint16_t *pz);
int rnic_pz_free(rnic_dev *dev, uint16_t pz);   /* RNIC_E_BUSY while used */

/* ---- memory regions ---- */
/* access: RNIC_ACCESS_* bits from rnic_hw.h. Maps the range for DMA and
 * programs a protection-table entry; key = index << 8 | 8-bit key.
 * RNIC_E_RANGE when some byte of [addr, addr+len) is not memory the process
 * can read (unmapped, PROT_NONE, a length past the mapping); RNIC_E_ACCESS
 * when it is, but some of it is read-only and `access` lets the NIC write
 * (LOCAL_WRITE or REMOTE_WRITE). Memory unmapped later is found at DMA time:
 * the access fails with an error completion (docs/driver.md). */
int rnic_mr_reg(rnic_dev *dev, void *addr, uint64_t len, uint16_t pz, uint32_t access, rnic_mr **out);
uint32_t rnic_mr_key(const rnic_mr *mr);
int rnic_mr_dereg(rnic_mr *mr);

/* ---- memory windows ---- */
/* A window of PZ `pz`, unbound (FREE). rnic_mw_key is its key when
 * allocated (index << 8 | key): what its first BIND names it by. Each bind
 * gives it a new 8-bit key (rnic_bind_wr's new_key); the driver remembers
 * the last one posted, so the index's next user starts past it. */
int rnic_mw_alloc(rnic_dev *dev, uint16_t pz, rnic_mw **out);
uint32_t rnic_mw_key(const rnic_mw *mw);
/* The window as the hardware has it now (its last committed BIND). */
struct rnic_mw_state {
    uint32_t key;      /* index << 8 | its current 8-bit key */
    bool bound;
    uint32_t lkey;     /* bound: the region it is bound to */
    uint64_t base, len;
    uint32_t rights;   /* RNIC_ACCESS_REMOTE_* */
};
int rnic_mw_query(rnic_mw *mw, struct rnic_mw_state *out);
/* Invalidates the entry at once, bound or not: remote accesses through it are
 * refused from then on. */
int rnic_mw_free(rnic_mw *mw);

/* ---- host coherency ----
 * A non-coherent host (simulated: RNIC_HOST_COHERENCY=noncoherent, or
 * rnic_set_host_coherency) has a CPU cache that the NIC's DMA does not
 * snoop. Memory regions are streaming DMA: the CPU's writes reach the NIC
 * after a sync for the device, the NIC's writes reach the CPU after a sync
 * for the CPU. The driver's rings and CQs are coherent DMA memory. */
enum rnic_host_coherency {
    RNIC_HOST_DEFAULT = -1,       /* for rnic_set_host_coherency: the platform's own mode */
    RNIC_HOST_COHERENT = 0,
    RNIC_HOST_NONCOHERENT = 1,
};
int rnic_host_coherency(rnic_dev *dev);   /* RNIC_HOST_COHERENT or _NONCOHERENT (or RNIC_E_INVAL) */
/* RNIC_E_INVAL for a mode the backend cannot model (a real x86 host is
 * coherent); RNIC_E_BUSY for a change while memory regions are registered. */
int rnic_set_host_coherency(rnic_dev *dev, int mode);

enum rnic_sync_dir {
    RNIC_SYNC_FOR_DEVICE = 0,   /* flush: the CPU's writes in the range reach the NIC */
    RNIC_SYNC_FOR_CPU = 1,      /* clean and invalidate: the range is coherent both ways */
};
/* Syncs [addr, addr+len) of registered memory; nothing to do on a coherent
 * host. RNIC_E_INVAL for a bad direction, RNIC_E_RANGE for a range that
 * wraps or (simulated non-coherent host) registered memory the process has
 * unmapped since: nothing is synced then. */
int rnic_dma_sync(rnic_dev *dev, const void *addr, uint64_t len, int dir);

/* A range where the platform saw a sync missing (simulation only). */
enum rnic_sync_kind {
    RNIC_SYNC_STALE_READ = 0,       /* the CPU wrote it, the NIC read it before a flush */
    RNIC_SYNC_OVERWRITTEN = 1,      /* the NIC wrote it again before a sync for the CPU */
    RNIC_SYNC_UNSEEN_AT_UNMAP = 2,  /* the NIC wrote it, no sync for the CPU before its region went */
    RNIC_SYNC_UNDEFINED = 3,        /* the CPU and the NIC both wrote it with no sync in between */
};
struct rnic_sync_report {
    uint64_t addr;
    uint64_t len;
    int kind;                       /* enum rnic_sync_kind */
};
/* The oldest report not taken yet: 1, or 0 when there is none. */
int rnic_sync_report(rnic_dev *dev, struct rnic_sync_report *out);

/* ---- completion queues ---- */
int rnic_cq_create(rnic_dev *dev, uint32_t entries, rnic_cq **out);
int rnic_cq_destroy(rnic_cq *cq);   /* RNIC_E_BUSY while a QP uses it */
/* Gives the CQ a ring of `entries` (rounded up to a power of two) under the
 * same number, so the QPs that feed it keep using it. Only while no CQE can
 * arrive: RNIC_E_BUSY while a QP that feeds it has a WQE without its CQE
 * taken (a posted receive too), or a CQE is waiting in the ring. The NIC
 * cannot switch rings under a CQE it is writing, and cannot be asked
 * whether it is. RNIC_E_NOMEM leaves the old ring in place. */
int rnic_cq_resize(rnic_cq *cq, uint32_t entries);
struct rnic_wc {
    uint64_t wr_id;
    uint32_t byte_len;
    uint8_t status;   /* RNIC_CQE_STATUS_* */
    uint8_t opcode;   /* RNIC_OP_* */
    uint16_t qpn;
    bool is_recv;
    /* Why a LOCAL_PROTECTION or BIND_FAILED completion was refused: the
     * protection check (RNIC_PT_VERDICT_*) and the key it refused. OK and 0
     * for every other status (a remote refusal is not on the wire: the
     * responder's NIC traces it as RKEY_CHECK). */
    uint8_t verdict;
    uint32_t check_key;
};
/* Reads up to max completions that are already in the ring; never waits.
 * Finding none costs RNIC_POLL_CYCLES (rnic_cpu_delay). */
int rnic_cq_poll(rnic_cq *cq, struct rnic_wc *wc, int max);
/* rnic_cq_poll without the cost of an empty look: for a consumer that looks
 * because it was told to (an interrupt, a drain after one). */
int rnic_cq_take(rnic_cq *cq, struct rnic_wc *wc, int max);
/* A completion is waiting in the ring. */
bool rnic_cq_pending(const rnic_cq *cq);
/* Whether the NIC dropped a CQE of this CQ because its ring was full: 1
 * once per loss (the NIC's CQ_OVERFLOWED bit is cleared), else 0. The
 * register is read only when a take found the ring full, so calling this
 * after every take costs nothing in the common case. A lost CQE is a lost
 * completion: its consumer must be told (libdat: an EVD overflow). */
int rnic_cq_overflowed(rnic_cq *cq);
/* Polls, waiting on the device interrupt in between, until one completion
 * arrives (returns 1) or max_cycles have passed (RNIC_E_TIMEOUT). */
int rnic_cq_wait(rnic_cq *cq, struct rnic_wc *wc, uint64_t max_cycles);

/* ---- queue pairs (endpoints) ---- */
/* A QP's reliability settings: InfiniBand's QP attributes of the same names
 * and encodings (the QP_TIMERS register). */
struct rnic_qp_timers {
    uint8_t ack_timeout;     /* 0..31: a request unacknowledged for 4.096 us x 2^t is sent
                              * again (1024 x 2^t cycles at 250 MHz); 0: never */
    uint8_t retry_cnt;       /* 0..7: resends after an ACK timeout or a sequence NAK before
                              * the WQE fails (RNIC_CQE_STATUS_TRANSPORT) */
    uint8_t rnr_retry;       /* 0..7: resends after an RNR NAK before the WQE fails
                              * (RNIC_CQE_STATUS_RNR); 7: for ever */
    uint8_t min_rnr_timer;   /* 0..31: as responder, the timer code of the RNR NAKs this QP
                              * sends (InfiniBand's table; 0 is 655.36 ms) */
};
/* What a QP gets without rnic_qp_attr.timers: rdma-core's ibv_rc_pingpong
 * values, so a QP behaves as the RC programs it is compared with do. 14:
 * about 67 ms, far above a round trip; 7 and 7: the most resends, and RNR
 * retries for ever; 12: 0.64 ms. */
#define RNIC_QP_DEFAULT_ACK_TIMEOUT 14u
#define RNIC_QP_DEFAULT_RETRY_CNT 7u
#define RNIC_QP_DEFAULT_RNR_RETRY 7u
#define RNIC_QP_DEFAULT_MIN_RNR_TIMER 12u

struct rnic_qp_attr {
    uint32_t sq_entries, rq_entries;   /* rounded up to powers of two */
    rnic_cq *send_cq, *recv_cq;
    uint16_t pz;
    uint8_t max_rd;                    /* outstanding RDMA READs, 1..max_rd */
    uint8_t allow_remote;              /* RNIC_ACCESS_REMOTE_* bits the responder accepts */
    const struct rnic_qp_timers *timers;   /* NULL: the RNIC_QP_DEFAULT_* values; copied */
};
/* RNIC_E_INVAL, with nothing allocated, for timers out of range (above). */
int rnic_qp_create(rnic_dev *dev, const struct rnic_qp_attr *attr, rnic_qp **out);
uint32_t rnic_qp_num(const rnic_qp *qp);
/* The timers the QP was created with (the defaults filled in). */
int rnic_qp_timers_get(const rnic_qp *qp, struct rnic_qp_timers *out);
struct rnic_qp_remote {
    uint32_t qpn;
    uint32_t ipv4;
    uint8_t mac[6];
    uint32_t sq_psn;   /* first PSN we send */
    uint32_t rq_psn;   /* first PSN we expect */
    uint8_t max_rd;    /* RDMA READs in flight from now on, 1..max_rd (what the
                        * peer takes in); 0: what rnic_qp_create said */
    uint32_t path_mtu; /* payload bytes per packet both ends use: 256, 512,
                        * 1024, 2048 or 4096, at most info.mtu; 0: info.mtu.
                        * The peer must use the same (verbs: path_mtu; rxe
                        * on a 1,500-byte Ethernet takes 1024) */
};
/* INIT -> RTS. The QP receives from then on: a passive side moves its QP
 * before it answers the request, so the requester's first message cannot
 * arrive too early. */
int rnic_qp_connect(rnic_qp *qp, const struct rnic_qp_remote *remote);
/* Connects two QPs of devices in this process to each other (both INIT -> RTS). */
int rnic_qp_connect_local(rnic_qp *a, rnic_qp *b);
int rnic_qp_set_error(rnic_qp *qp);   /* -> ERROR: outstanding work is flushed */
int rnic_qp_state(rnic_qp *qp);       /* RNIC_QP_STATE_* */
int rnic_qp_destroy(rnic_qp *qp);

struct rnic_sge {
    uint64_t addr;
    uint32_t len;
    uint32_t lkey;
};
struct rnic_send_wr {
    uint64_t wr_id;
    uint8_t opcode;      /* RNIC_OP_SEND, _RDMA_WRITE, _RDMA_READ */
    uint8_t flags;       /* RNIC_WQE_FLAG_* */
    int num_sge;
    const struct rnic_sge *sg;
    uint64_t remote_addr;
    uint32_t rkey;
};
/* RNIC_E_FULL when the ring is full, RNIC_E_INVAL for a bad opcode or
 * num_sge; key and range checks are the hardware's. */
int rnic_post_send(rnic_qp *qp, const struct rnic_send_wr *wr);
int rnic_post_recv(rnic_qp *qp, uint64_t wr_id, const struct rnic_sge *sg, int num_sge);
/* A BIND WQE: binds the window now named `mw_key` to [addr, addr+len) of the
 * region `lkey`, with remote `rights` (RNIC_ACCESS_REMOTE_*), and gives it the
 * 8-bit key `new_key` (must differ from mw_key's). len 0 unbinds. The NIC
 * commits it as the oldest WQE in flight and holds every later WQE of the QP
 * until then; a bind that fails completes with RNIC_CQE_STATUS_BIND_FAILED
 * and moves the QP to ERROR. RNIC_E_INVAL for bad arguments, as the hardware
 * would refuse them (BAD_WQE). */
struct rnic_bind_wr {
    uint64_t wr_id;
    uint8_t flags;       /* RNIC_WQE_FLAG_SIGNALED, _FENCE */
    uint32_t mw_key;
    uint8_t new_key;
    uint8_t rights;
    uint64_t addr;
    uint32_t len;
    uint32_t lkey;
};
int rnic_post_bind(rnic_qp *qp, const struct rnic_bind_wr *wr);
/* Writes a WQE exactly as given (RNIC_WQE_BYTES/8 words) and rings the
 * doorbell: for tests that hand the hardware bad input. */
int rnic_post_send_raw(rnic_qp *qp, const uint64_t *wqe);

#ifdef __cplusplus
}
#endif

#endif
