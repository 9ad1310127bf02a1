// The process's own memory, reached by the simulated NIC without ever
// faulting the process (docs/platform.md, "DMA and the IOMMU").
//
// IOVA = VA: a NIC's DMA names process addresses, and what a program
// registered may have gone since (munmap, mprotect), or may never have been
// there (a driver that checks nothing calls rnic_sim_dma_map directly). A
// real IOMMU answers such an access with a fault the device sees; a plain
// memcpy would kill the process instead. So every access asks the kernel
// first, which answers EFAULT where the CPU would have faulted.
//
// The kernel is asked once per burst (a read) or once per page (a write),
// never per byte: a DMA burst is at most an MTU, so that is one or two
// system calls per 4 KiB moved.
//
// A probe and the access after it are two steps: another thread that
// unmaps the very page in between still faults the process. Nothing the
// kernel offers closes that for a plain store, and a program that unmaps
// memory while its NIC writes into it has a race of its own.
#pragma once

#include <cstddef>
#include <cstdint>

namespace host_access {

// Copies [va, va+n) into dst in one step that cannot fault: true, or false
// when some byte is not readable (dst may then hold part of the bytes).
bool read(uint64_t va, void *dst, size_t n);

// Whether every byte of [va, va+n) can be read now. Gives up at the first
// page that cannot, so a range far larger than what is mapped costs what
// is mapped of its start, not its length.
bool readable(uint64_t va, uint64_t n);

// Whether every byte of [va, va+n) can be written now; no byte changes.
bool writable(uint64_t va, uint64_t n);

// The host's page size (the granule of readable/writable).
uint64_t page_size();

}  // namespace host_access
