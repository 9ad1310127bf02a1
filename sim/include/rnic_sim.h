/*
 * The C ABI of the simulated platform: what the driver's `sim` backend calls.
 *
 * One process holds one simulated fabric (SystemC elaborates once per
 * process): RNICs named "rnic0", "rnic1", ... joined by links. The fabric is
 * built by the first rnic_sim_open() from the environment (see below) and
 * lives until the process exits.
 *
 * Lockstep and deterministic: simulated time advances only inside
 *   - rnic_sim_advance() / rnic_sim_wait_irq(), and
 *   - BAR accesses, each of which is one bus cycle of the whole fabric,
 * so the same sequence of calls gives the same cycle counts, bit for bit.
 *
 * DMA: IOVA = process virtual address. The NIC's DMA is served from this
 * process's own memory, but only inside ranges mapped with
 * rnic_sim_dma_map(); any other access is refused, counted as a fault and
 * reported to the RTL as an error response; it never touches memory.
 *
 * Environment (read at the first open):
 *   RNIC_SIM_NICS      number of RNICs in the fabric (default 2)
 *   RNIC_LINK_LATENCY  link latency in cycles (default 100)
 *   RNIC_TRACE         file name of an FST trace to write (default: none);
 *                      a relative name lands under the waveforms/ directory
 *   RNIC_PCAP          file name of a pcap capture of every frame on every link
 *                      (Ethernet link type, nanosecond timestamps of simulated time)
 */
#ifndef RNIC_SIM_H
#define RNIC_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rnic_sim_dev rnic_sim_dev;

/* Open NIC `name` ("rnic0", ...). Returns 0, or -1 for an unknown name. */
int rnic_sim_open(const char *name, rnic_sim_dev **out);
void rnic_sim_close(rnic_sim_dev *dev);
/* Index of the NIC in the fabric (0 for rnic0). */
unsigned rnic_sim_index(const rnic_sim_dev *dev);
unsigned rnic_sim_num_nics(void);

/* BAR0 access, aligned 32-bit. Each access takes one fabric cycle. */
uint32_t rnic_sim_bar_read32(rnic_sim_dev *dev, uint32_t offset);
void rnic_sim_bar_write32(rnic_sim_dev *dev, uint32_t offset, uint32_t value);

/* IOMMU: allow the NIC to DMA to [va, va+len). 0 on success, -1 for a
 * zero length or a range that wraps. Mappings may overlap (each is counted
 * on its own); unmap takes the exact range given to map and returns -1 for
 * a range that is not mapped. */
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

/* Advance the whole fabric by `cycles` clock cycles. */
void rnic_sim_advance(uint64_t cycles);
/* Advance until dev's interrupt line is high or max_cycles have passed.
 * Returns the cycles advanced (0 if the line was already high). */
uint64_t rnic_sim_wait_irq(rnic_sim_dev *dev, uint64_t max_cycles);
/* Fabric cycles since the fabric was built. */
uint64_t rnic_sim_cycle(void);

/* Frames that crossed the link from NIC `from`, since open (for tests). */
uint64_t rnic_sim_link_frames(unsigned from);

/* Fault injection on the link out of NIC `from`: the hook sees each frame
 * (bytes, without Ethernet FCS) and returns 0 to pass it (it may modify it
 * in place) or 1 to drop it. NULL removes the hook. */
typedef int (*rnic_sim_link_hook)(unsigned from, uint8_t *frame, size_t len, void *arg);
void rnic_sim_set_link_hook(rnic_sim_link_hook hook, void *arg);

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
