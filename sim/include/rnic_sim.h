/*
 * The C ABI of the simulated platform: what the driver's `sim` backend calls.
 *
 * One process holds one simulated fabric (SystemC elaborates once per
 * process): RNICs named "rnic0", "rnic1", ... joined by links. The fabric is
 * built by the first rnic_sim_open() from the environment (see below) and
 * lives until the process exits.
 *
 * Time (docs/platform.md, "Time"): in lockstep, simulated time advances
 * only inside calls (rnic_sim_advance, rnic_sim_wait_irq*, rnic_sim_cpu_delay
 * and BAR accesses, each one fabric cycle), so the same sequence of calls
 * gives the same cycle counts, bit for bit. Free-running, a simulation
 * thread clocks the NICs beside the application. When every NIC is idle,
 * idle time is jumped instead of clocked (RNIC_SIM_SKIP=0 clocks it);
 * free-running, an idle NIC's clock keeps real time (4 ns a cycle).
 *
 * NICs and processes: each process simulates the NICs it opens. NIC 2k and
 * 2k+1 are a pair joined by a link; when only one of them is open here, its
 * link reaches the other over UDP (one Ethernet frame per datagram, as
 * QEMU's -netdev dgram carries them), by default 127.0.0.1 port
 * RNIC_LINK_PORT_BASE + index, so the two NICs opened in two processes find
 * each other. In lockstep (RNIC_SIM_MODE=lockstep) every NIC lives in this
 * process, as one fabric.
 *
 * DMA: IOVA = process virtual address. The NIC's DMA is served from this
 * process's own memory, but only inside ranges mapped with
 * rnic_sim_dma_map(); any other access is refused, counted as a fault and
 * reported to the RTL as an error response; it never touches memory.
 *
 * Host coherency (DESIGN decision 9): on a coherent host (the default) DMA
 * reads and writes the process's memory. On a non-coherent host a CPU cache
 * that DMA does not snoop sits in between: the process's memory is the
 * CPU's view, and every streaming mapping (rnic_sim_dma_map: a driver's
 * memory regions) gets a second copy, the memory behind the cache, which
 * the NIC's DMA uses. Syncs move data between the two. Coherent mappings
 * (rnic_sim_dma_map_coherent: rings and CQs) never have a second copy.
 *
 * Environment (read at the first open; RNIC<i>_LINK_* at NIC i's open). An
 * unset or empty variable means its default; any value it does not accept
 * makes the open fail (-3) with one line on stderr naming the variable, the
 * value and what it accepts.
 *   RNIC_SIM_MODE      auto (default), lockstep or freerun
 *   RNIC_SIM_SKIP      1 (default): jump idle time; 0: clock every cycle
 *   RNIC_LINK_PORT_BASE  UDP port of rnic0's link socket, 1..65535 (default 24790)
 *   RNIC<i>_LINK_LOCAL, RNIC<i>_LINK_PEER   host:port of NIC i's link socket
 *                      and of its peer's (defaults from RNIC_LINK_PORT_BASE)
 *   RNIC_SIM_NICS      number of RNICs in the fabric, 1..16 (default 2)
 *   RNIC_HOST_COHERENCY  "coherent" (default) or "noncoherent": every NIC's
 *                      host mode until rnic_sim_set_coherency changes it
 *   RNIC_LINK_LATENCY  link latency in cycles, 1..1000000000 (default 100)
 *   RNIC_SIM_LOG       0 (default) or 1: every trace-port event on stderr,
 *                      by name, its arg's fields by name (rnic_names.h)
 *   RNIC_TRACE         file name of an FST trace to write (default: none);
 *                      a relative name lands under RNIC_WAVE_DIR, else in the
 *                      working directory
 *   RNIC_PCAP          file name of a pcap capture of every frame on every link
 *                      (Ethernet link type, nanosecond timestamps of simulated time);
 *                      a relative name as RNIC_TRACE's
 *   RNIC_WAVE_DIR      directory of relative RNIC_TRACE and RNIC_PCAP names
 *   RNIC_LINK_FAULTS   link faults (rnic_sim_set_link_faults below): groups
 *                      split by ';', each "key=value,..."; e.g.
 *                      "drop=0.01,dup=0.01,seed=7;nic=1,rule=drop,frame=3"
 *                      (docs/platform.md, "Link faults", has every key)
 */
#ifndef RNIC_SIM_H
#define RNIC_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rnic_sim_dev rnic_sim_dev;

/* Open NIC `name` ("rnic0", ...). Returns 0, or -1 for an unknown name,
 * -2 when its link socket cannot be opened (a port in use: the reason is
 * on stderr), -3 for a bad value in the environment (named on stderr). */
int rnic_sim_open(const char *name, rnic_sim_dev **out);

enum {
    RNIC_SIM_MODE_AUTO = 0,       /* lockstep until the program needs free-running */
    RNIC_SIM_MODE_LOCKSTEP = 1,
    RNIC_SIM_MODE_FREERUN = 2,
};
struct rnic_sim_open_options {
    int mode;                     /* RNIC_SIM_MODE_*; AUTO: what RNIC_SIM_MODE says */
    const char *link_local;       /* "host:port" this NIC's link socket binds; NULL: default */
    const char *link_peer;        /* "host:port" of the peer NIC's link socket; NULL: default */
};
/* rnic_sim_open with options (NULL: none). -3 for a bad value in the
 * environment, a bad endpoint or a mode that contradicts the one in force
 * (one mode per process); stderr says which. */
int rnic_sim_open_with(const char *name, const struct rnic_sim_open_options *opt, rnic_sim_dev **out);
/* RNIC_SIM_MODE_LOCKSTEP or _FREERUN: how time moves now. */
int rnic_sim_mode(void);
/* The program needs time to run alone (it has several threads): an auto
 * process goes free-running now. 0, or -1 in a process forced to lockstep. */
int rnic_sim_go_freerun(void);
void rnic_sim_close(rnic_sim_dev *dev);
/* Index of the NIC in the fabric (0 for rnic0). */
unsigned rnic_sim_index(const rnic_sim_dev *dev);
unsigned rnic_sim_num_nics(void);
/* The index a NIC name gives in the platform's own spelling ("rnic1", not
 * "rnic01"), or -1 for a name the platform does not parse. */
long rnic_sim_name_index(const char *name);

/* BAR0 access, aligned 32-bit. Each access takes one fabric cycle. */
uint32_t rnic_sim_bar_read32(rnic_sim_dev *dev, uint32_t offset);
void rnic_sim_bar_write32(rnic_sim_dev *dev, uint32_t offset, uint32_t value);

/* IOMMU: allow the NIC to DMA to [va, va+len). 0 on success, -1 for a
 * zero length or a range that wraps. Mappings may overlap (each is counted
 * on its own); unmap takes the exact range given to map and returns -1 for
 * a range that is not mapped. This is a streaming mapping: on a
 * non-coherent host its second view starts as a copy of the memory now, so
 * there it is also -1 (nothing allocated) for memory the process cannot
 * read or more than the host can shadow. A DMA inside a mapping is still
 * refused, as a fault, where the process no longer has the memory
 * (unmapped, or read-only for a write): it never faults the process. */
int rnic_sim_dma_map(rnic_sim_dev *dev, void *va, size_t len);
int rnic_sim_dma_unmap(rnic_sim_dev *dev, void *va, size_t len);

/* Refused DMA accesses seen by this NIC's IOMMU since open. */
struct rnic_sim_fault {
    uint64_t addr;
    uint32_t len;
    int is_write;
};
uint64_t rnic_sim_fault_count(const rnic_sim_dev *dev);
/* The most recent fault; 0 if there is one, -1 if none. */
int rnic_sim_last_fault(const rnic_sim_dev *dev, struct rnic_sim_fault *out);

/* ---- Host coherency ---- */
enum {
    RNIC_SIM_COHERENCY_DEFAULT = -1,   /* set: what RNIC_HOST_COHERENCY says */
    RNIC_SIM_COHERENT = 0,
    RNIC_SIM_NONCOHERENT = 1,
};
/* This NIC's host mode (RNIC_SIM_COHERENT or RNIC_SIM_NONCOHERENT). */
int rnic_sim_coherency(const rnic_sim_dev *dev);
/* 0, or -1 for an unknown mode, or for a change of mode while streaming
 * mappings exist (their views could not be made honest). */
int rnic_sim_set_coherency(rnic_sim_dev *dev, int mode);
/* Like rnic_sim_dma_map, for memory that stays coherent in every mode (a
 * driver's rings, allocated as coherent DMA memory). Unmapped with
 * rnic_sim_dma_unmap. */
int rnic_sim_dma_map_coherent(rnic_sim_dev *dev, void *va, size_t len);

enum {
    RNIC_SIM_SYNC_FOR_DEVICE = 0,   /* flush: the CPU's writes reach the NIC's view */
    RNIC_SIM_SYNC_FOR_CPU = 1,      /* clean and invalidate: coherent both ways */
};
/* Syncs [va, va+len) in direction `dir`; bytes outside non-coherent
 * mappings are coherent already. 0, or -1 for a wrapping range, an
 * unknown direction, or tracked memory the process no longer has (nothing
 * is synced then). A zero length does nothing. */
int rnic_sim_dma_sync(rnic_sim_dev *dev, const void *va, size_t len, int dir);

/* What the non-coherent model saw (bytes unless said otherwise). */
struct rnic_sim_cache_stats {
    uint64_t tracked_bytes;          /* bytes with two views now */
    uint64_t syncs_for_device;       /* rnic_sim_dma_sync calls per direction */
    uint64_t syncs_for_cpu;
    uint64_t flushed_bytes;          /* CPU writes a sync handed to the NIC */
    uint64_t invalidated_bytes;      /* NIC writes a sync handed to the CPU */
    uint64_t stale_read_bytes;       /* NIC reads served older data than the CPU had written */
    uint64_t overwritten_bytes;      /* NIC writes over NIC writes the CPU never saw */
    uint64_t unseen_at_unmap_bytes;  /* NIC writes the CPU had not seen when the mapping ended */
    uint64_t undefined_bytes;        /* written by CPU and NIC with no sync in between */
    uint64_t reports_dropped;        /* reports not kept (too many waiting) */
};
/* 0, or -1 for a NULL argument. */
int rnic_sim_get_cache_stats(const rnic_sim_dev *dev, struct rnic_sim_cache_stats *out);

/* A range the model found a missing sync in, one kind per report;
 * contiguous bytes of one kind are one report. */
enum {
    RNIC_SIM_CACHE_STALE_READ = 0,       /* the CPU wrote it, the NIC read it before a flush */
    RNIC_SIM_CACHE_OVERWRITTEN = 1,      /* the NIC wrote it again before the CPU synced the last write */
    RNIC_SIM_CACHE_UNSEEN_AT_UNMAP = 2,  /* the NIC wrote it, no sync for the CPU before the unmap */
    RNIC_SIM_CACHE_UNDEFINED = 3,        /* CPU and NIC both wrote it with no sync in between */
    RNIC_SIM_CACHE_KINDS = 4,
};
struct rnic_sim_cache_report {
    uint64_t addr;
    uint64_t len;
    int kind;
};
/* Takes the oldest report: 1, or 0 when there is none (-1: NULL argument). */
int rnic_sim_pop_cache_report(rnic_sim_dev *dev, struct rnic_sim_cache_report *out);

/* Advance the whole fabric by `cycles` clock cycles (free-running: wait
 * until they have passed). */
void rnic_sim_advance(uint64_t cycles);
/* Advance until dev's interrupt line is high or max_cycles have passed.
 * Returns the cycles advanced (0 if the line was already high). */
uint64_t rnic_sim_wait_irq(rnic_sim_dev *dev, uint64_t max_cycles);
/* The same for a set of NICs (bit i: NIC i): until one of them interrupts. */
uint64_t rnic_sim_wait_irq_mask(uint32_t nic_mask, uint64_t max_cycles);
/* The CPU spent `cycles` looking at host memory (an empty completion poll):
 * lockstep runs the fabric that long; free-running does nothing. */
void rnic_sim_cpu_delay(uint64_t cycles);
/* Fabric cycles since the fabric was built (free-running: idle time up to
 * now included). Needs no lock. */
uint64_t rnic_sim_cycle(void);
/* Of those, the cycles jumped over idle instead of clocked. */
uint64_t rnic_sim_skipped_cycles(void);
/* An eventfd that becomes readable when an interrupt line of a NIC of this
 * process rises, free-running (read it to clear it). */
int rnic_sim_event_fd(void);
/* 1 when nothing can happen without software: every NIC idle, no frame on
 * any link or held back by a link fault, no NIC timer armed (wake_valid),
 * no link out of the process. */
int rnic_sim_quiescent(void);

/* The link socket of a NIC whose peer is in another process. */
struct rnic_sim_link_stats {
    int remote;                   /* 1: the link leaves the process (the rest is 0 otherwise) */
    uint64_t sent;                /* frames sent as datagrams */
    uint64_t send_errors;
    uint64_t received;            /* datagrams read */
    uint64_t delivered;           /* of which frames handed to the NIC */
    uint64_t runts;               /* dropped: shorter than an Ethernet header */
    uint64_t oversize;            /* dropped: longer than a frame can be */
    uint64_t strangers;           /* dropped: not from the peer's socket */
    uint64_t kernel_drops;        /* dropped by the kernel (receive buffer full) */
};
int rnic_sim_get_link_stats(const rnic_sim_dev *dev, struct rnic_sim_link_stats *out);

/* Frames that crossed the link from NIC `from`, since open (for tests). */
uint64_t rnic_sim_link_frames(unsigned from);

/* Fault injection on the link out of NIC `from`: the hook sees each frame
 * (bytes, without Ethernet FCS) and returns 0 to pass it (it may modify it
 * in place) or 1 to drop it. NULL removes the hook. */
typedef int (*rnic_sim_link_hook)(unsigned from, uint8_t *frame, size_t len, void *arg);
void rnic_sim_set_link_hook(rnic_sim_link_hook hook, void *arg);

/* ---- Link faults (docs/platform.md, "Link faults") ----
 * What happens to each frame NIC `from` sends, after the link hook and
 * before the wire (in this process, or the UDP socket to another). Each
 * frame is judged once: by the rule when the rule hits it, else by one
 * seeded random draw against the probabilities, taken in this order: drop,
 * dup, corrupt, delay, reorder; whatever is left of 1 passes. The draw is
 * made for every frame judged, rule or not, so adding a rule does not shift
 * the random faults of the other frames. RNIC_LINK_FAULTS (the environment,
 * above) sets the same at the first open. */
enum {
    RNIC_SIM_FAULT_NONE = 0,
    RNIC_SIM_FAULT_DROP = 1,      /* never sent */
    RNIC_SIM_FAULT_DUP = 2,       /* sent twice, back to back */
    RNIC_SIM_FAULT_CORRUPT = 3,   /* one byte the ICRC covers flipped: the receiver drops the frame */
    RNIC_SIM_FAULT_DELAY = 4,     /* sent delay_cycles later; frames sent after it wait behind it */
    RNIC_SIM_FAULT_REORDER = 5,   /* sent right after the next frame that is sent, or reorder_cycles later */
};
struct rnic_sim_link_faults {
    double drop, dup, corrupt, delay, reorder;   /* per frame, each from 0 to 1, their sum at most 1 */
    uint32_t delay_cycles;        /* 0: 1000; at most 1000000000 */
    uint32_t reorder_cycles;      /* a reordered frame nothing overtook leaves after this long; 0: 1000 */
    uint64_t seed;                /* with the NIC's index, the sequence of draws */
    int rule;                     /* RNIC_SIM_FAULT_*: what the rule does; NONE: no rule */
    uint64_t rule_frame;          /* the first frame it hits: the frames it matches counted from 0 */
    uint64_t rule_count;          /* matching frames hit from there on; 0: 1; UINT64_MAX: every one */
    int rule_by_opcode;           /* nonzero: it matches only RoCEv2 frames with BTH opcode rule_opcode */
    uint8_t rule_opcode;
};
/* Replaces NIC `from`'s fault configuration (NULL: none); its counters, its
 * rule's frame count and its draws start over. Frames held back at that
 * moment still leave as they were to. Call after the first rnic_sim_open.
 * 0; -1 for no such NIC (or no fabric yet); -2 for a bad value (a
 * probability outside 0..1, their sum above 1, an unknown rule, cycles
 * above 1000000000); -3 from inside the simulation (a hook). */
int rnic_sim_set_link_faults(unsigned from, const struct rnic_sim_link_faults *f);

/* What NIC `from`'s faults did since its configuration. */
struct rnic_sim_link_fault_stats {
    uint64_t seen;                /* frames judged */
    uint64_t dropped;
    uint64_t duplicated;          /* frames sent twice (each counted once) */
    uint64_t corrupted;
    uint64_t delayed;
    uint64_t reordered;           /* frames held back for the next one */
    uint64_t held;                /* frames held now (delayed, reordered, or waiting behind one) */
};
/* 0; -1 for no such NIC or a NULL `out`; -3 from inside the simulation. */
int rnic_sim_get_link_fault_stats(unsigned from, struct rnic_sim_link_fault_stats *out);

/* Events from each NIC's trace port (rnic_pkg EV_* codes: WQE fetched,
 * first packet of a WQE sent, rkey verdict, CQE written, NAK sent, QP
 * error), with the cycle they happened in: what scenario tests check
 * orderings on. The hook runs inside the simulation; it must not call back
 * into this API. NULL removes it. */
struct rnic_sim_event {
    uint64_t cycle;
    unsigned nic;
    uint8_t event;
    uint16_t qpn;
    uint64_t arg;   /* per event: WQE index; {rkey, verdict}; {status, WQE index}; NAK syndrome */
};
typedef void (*rnic_sim_event_hook)(const struct rnic_sim_event *ev, void *arg);
void rnic_sim_set_event_hook(rnic_sim_event_hook hook, void *arg);

#ifdef __cplusplus
}
#endif

#endif
