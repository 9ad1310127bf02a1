/*
 * The fault campaign (fault_campaign.c): what its files share.
 *
 *   fc_pattern.c   seeded random numbers and the byte patterns of sources,
 *                  destinations and the background around them
 *   fc_fabric.c    the DAT objects: two IAs, their PZ, EVDs, buffers, LMRs,
 *                  RMRs; the EP pairs (create, connect, accept, free)
 *   fc_xfer.c      one transfer: drawn from the seed, posted, its
 *                  completions taken, its bytes checked, its verdict
 *   fc_report.c    the counters and the figures printed at the end
 *   fault_campaign.c  options, environment, link faults, the event loop
 *
 * Public DAT API only, plus the simulated platform's link faults, fault
 * counters and clock (rnic_sim.h), which no DAT call offers.
 */
#ifndef FC_H
#define FC_H

#include <dat/udat.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FC_PAIRS_MAX 8
#define FC_DEPTH_MAX 8
#define FC_MAX_LEN (1u << 20)                  /* largest transfer */
#define FC_SLOT (FC_MAX_LEN + (64u << 10))     /* one transfer's buffer on each side */
#define FC_CYCLES_PER_US 250u                  /* the NIC's clock (RNIC_CLOCK_MHZ default) */

/* ------------------------------------------------------------ options */

enum fc_fault_kind { FK_NONE, FK_DROP, FK_DUP, FK_REORDER, FK_CORRUPT, FK_DELAY, FK_MIX, FK_COUNT };
extern const char *const fc_fault_name[FK_COUNT];

struct fc_opts {
    uint64_t seed;
    uint64_t transfers;
    int pairs;                 /* connected EP pairs */
    int depth;                 /* transfers in flight per pair, at most */
    enum fc_fault_kind faults;
    double loss;               /* probability per frame (mix: split evenly over the four kinds) */
    unsigned ack_timeout;      /* RNIC_ACK_TIMEOUT: 4.096 us x 2^t */
    unsigned retry_cnt;        /* RNIC_RETRY_CNT */
    unsigned rnr_retry;        /* RNIC_RNR_RETRY */
    uint64_t timeout_us;       /* NIC time a transfer may take before it is a hang */
    uint32_t max_len;          /* largest transfer (at most FC_MAX_LEN) */
    unsigned hang_seconds;     /* host-time watchdog on the campaign itself (0: none) */
    bool one_way;              /* data flows rnic0 -> rnic1 only (READs initiated by rnic1) */
    uint64_t max_hangs;        /* stop issuing transfers after this many hangs (0: never) */
    bool trace;                /* one line per verdict */
    uint64_t inject_wrong;     /* self-test: change a destination byte of the first success with
                                  data from transfer id N on (0: never) */
    uint64_t inject_stray;     /* self-test: change the byte next to a destination range, likewise */
    uint64_t inject_error;     /* self-test: a WRITE or READ from transfer id N on names a bad key */
};
extern struct fc_opts fc_opt;

/* ------------------------------------------------------------ random numbers, patterns (fc_pattern.c) */

/* A stream of draws is its state: the scheduling has one (the campaign's
 * seed), each transfer its own (the seed and the transfer's id), so the
 * same seed gives the same transfers whatever the faults do to the timing. */
uint64_t fc_rnd(uint64_t *rng);
uint64_t fc_below(uint64_t *rng, uint64_t n);                 /* 0 .. n-1 (0 for n = 0) */
bool fc_chance(uint64_t *rng, unsigned pct);
uint64_t fc_log_uniform(uint64_t *rng, uint64_t lo, uint64_t hi);   /* lo .. hi, uniform in log */
uint64_t fc_xfer_rng_seed(uint64_t seed, uint64_t xfer_id);
uint64_t fc_mix64(uint64_t z);

/* The pattern streams of a transfer: byte p of stream `key` is a function
 * of (key, p) only, so any range can be filled or checked on its own. */
uint64_t fc_key_data(uint64_t seed, uint64_t xfer_id);     /* a transfer's source */
uint64_t fc_key_background(uint64_t seed, int side);       /* every byte of a side's buffer */
void fc_pattern_fill(uint8_t *buf, size_t len, uint64_t key, uint64_t pos);
/* Offset of the first byte of buf that is not the stream's, or SIZE_MAX. */
size_t fc_pattern_check(const uint8_t *buf, size_t len, uint64_t key, uint64_t pos);

/* ------------------------------------------------------------ DAT objects (fc_fabric.c) */

struct fc_side {
    int idx;                   /* 0: rnic0 (active side), 1: rnic1 (passive side) */
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async_evd;
    DAT_EVD_HANDLE dto_evd;    /* requests, receives and binds of every EP of the side */
    DAT_EVD_HANDLE conn_evd;   /* connection events of every EP of the side */
    DAT_EVD_HANDLE cr_evd;     /* side 1: connection requests to its PSP */
    DAT_PZ_HANDLE pz;
    DAT_IA_ADDRESS_PTR addr;
    uint8_t *buf;              /* FC_SLOT bytes per (pair, slot) */
    uint8_t *ref;              /* the background buf holds where no transfer has put its data */
    size_t buf_len;
    DAT_LMR_HANDLE lmr;
    DAT_LMR_CONTEXT lctx;
    DAT_RMR_CONTEXT rctx;
    DAT_RMR_HANDLE rmr[FC_PAIRS_MAX][FC_DEPTH_MAX];   /* a window per slot */
};

enum fc_op { OP_SEND, OP_WRITE, OP_READ, OP_BIND_WRITE, OP_BIND_READ, OP_COUNT };
extern const char *const fc_op_name[OP_COUNT];

enum fc_verdict { V_NONE, V_SUCCESS, V_ERROR, V_HANG, V_WRONG, V_ABANDONED, V_COUNT };

/* One transfer in flight; it owns slot `slot` of its pair on both sides. */
struct fc_xfer {
    bool live;
    uint64_t id;
    enum fc_op op;
    int init;                  /* initiator side; the target is 1 - init */
    uint64_t len;
    size_t src_off, dst_off;   /* in the slot of the source side / destination side */
    uint64_t recv_len;         /* SEND: the receive buffer (len and some more) */
    size_t win_off;            /* BIND_*: the window, on the target side */
    uint64_t win_len;
    int nseg;                  /* local segments */
    uint64_t rng;              /* the transfer's own draws */
    DAT_RMR_CONTEXT win_ctx;
    uint64_t deadline;         /* NIC cycle */
    bool need_bind, bind_done, need_req, req_posted, req_done, need_recv, recv_done;
    int bind_status, req_status, recv_status;
    uint64_t req_len, recv_got;
    enum fc_verdict verdict;   /* decided; the slot is kept until the pair is torn down when not a success */
};

enum fc_pair_state { PS_DOWN, PS_CONNECTING, PS_UP, PS_DRAINING };

struct fc_pair {
    int idx;
    enum fc_pair_state st;
    DAT_EP_HANDLE ep[2];
    bool established[2];
    bool accepted;
    uint64_t connect_deadline;
    int connections;           /* connections made on this pair */
    bool broken_reported;      /* a BROKEN (or unexpected DISCONNECTED) of this connection */
    bool hung;                 /* a transfer of this connection hung */
    int live;                  /* transfers without a verdict */
    struct fc_xfer x[FC_DEPTH_MAX];
};

extern struct fc_side fc_side[2];
extern struct fc_pair fc_pair[FC_PAIRS_MAX];

/* A DAT call that must succeed for the campaign to go on: on failure it is
 * named on stderr, the figures so far are printed and the program exits 2. */
#define FC_MUST(call) fc_must((call), #call, __FILE__, __LINE__)
void fc_must(DAT_RETURN r, const char *what, const char *file, int line);
const char *fc_ret_str(DAT_RETURN r);

void fc_fabric_open(void);
void fc_fabric_close(void);
/* New EPs for the pair and a connect request to side 1's PSP. */
void fc_pair_connect(struct fc_pair *p);
/* Frees both EPs (abruptly: whatever is in flight is flushed). */
void fc_pair_free_eps(struct fc_pair *p);
/* A connection request arrived: accept it on the EP of the pair it names. */
void fc_accept(const DAT_CR_ARRIVAL_EVENT_DATA *cr);
uint8_t *fc_slot(int side, int pair, int slot);
/* The pair and side an EP handle belongs to now (false: an EP freed since). */
bool fc_ep_owner(DAT_EP_HANDLE ep, int *pair, int *side);
/* The pair and slot whose window (on `side`) an RMR handle is. */
bool fc_rmr_owner(DAT_RMR_HANDLE rmr, int side, int *pair, int *slot);

/* ------------------------------------------------------------ transfers (fc_xfer.c) */

/* Draws and posts transfer `id` in slot `slot` of pair p. */
void fc_xfer_start(struct fc_pair *p, int slot, uint64_t id);
/* A DTO or bind completion; false when it belongs to nothing live (late). */
bool fc_xfer_dto_event(const DAT_DTO_COMPLETION_EVENT_DATA *d, int side);
bool fc_xfer_bind_event(const DAT_RMR_BIND_COMPLETION_EVENT_DATA *d, int side);
/* Decides what can be decided: complete transfers, deadlines passed. */
void fc_xfer_judge(struct fc_pair *p, uint64_t now);
/* After the pair's EPs are gone: bytes outside the ranges of transfers that
 * did not succeed must be as they were; then the slots are free. */
void fc_xfer_release_all(struct fc_pair *p);
/* The cookies: transfer id, slot and part. */
enum fc_part { PART_REQ = 0, PART_RECV = 1, PART_BIND = 2 };
uint64_t fc_cookie(uint64_t id, int slot, enum fc_part part);

/* ------------------------------------------------------------ figures (fc_report.c) */

struct fc_stats {
    uint64_t issued, per_op[OP_COUNT];
    bool stopped;                      /* --max-hangs reached: no more transfers issued */
    uint64_t verdicts[V_COUNT], verdict_op[V_COUNT][OP_COUNT];
    uint64_t bytes_posted, bytes_delivered;
    uint64_t dto_status[16];           /* error completions (DTO events) by DAT status */
    uint64_t bind_status[16];          /* error completions (bind events) by status */
    uint64_t error_first[17];          /* error transfers by their first reported status (16: BROKEN only) */
    uint64_t broken_events, disconnected_events;
    uint64_t connections, teardowns;
    uint64_t late_events;              /* completions of transfers already judged or torn down */
    uint64_t posts_refused;            /* a DAT post or bind call that returned an error */
    uint64_t unexpected;               /* a completion of a part the transfer did not post, or on the wrong side */
    uint64_t async_other;              /* async events (an EVD overflow: completions lost) */
    uint64_t wrong_outside;            /* of the wrong data: bytes changed outside the range */
    uint64_t t_start_cycle, t_end_cycle;
    double host_seconds;
};
extern struct fc_stats fc_st;

/* Prints one line for a notable verdict (failures always, the rest with --trace). */
void fc_report_verdict(const struct fc_pair *p, const struct fc_xfer *x, const char *why);
void fc_report_figures(void);
/* 0: the campaign passed; else the reasons are printed and it is 1. */
int fc_report_verdict_line(void);

#endif
