// The memory behind a CPU cache that DMA does not snoop (DESIGN decision 9,
// docs/platform.md "Non-coherent host").
//
// The CPU's loads and stores cannot be intercepted, so the process's own
// memory is the CPU's view (the cache). For every byte of a streaming DMA
// mapping on a non-coherent host this class keeps a second copy, the
// memory behind the cache, which is what the NIC's DMA reads and writes,
// and a third one, the value both sides last agreed on ("base"), which is
// how a CPU store is recognised afterwards: a byte whose CPU view differs
// from its base was written by the CPU since the last sync. A bit per byte
// says the NIC wrote it since then.
//
// The cache never evicts on its own, so what a missing sync does is
// deterministic: the other side keeps seeing the old data. Bytes are
// tracked one by one (a real cache works in lines; a sync here makes
// exactly the named bytes coherent).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "rnic_sim.h"

class HostCache {
public:
    // Starts tracking [va, va+len): bytes not tracked yet take the CPU's
    // current contents on both sides (the mapping is coherent when made).
    // false, and nothing changes, when some new byte cannot be read or the
    // model would track more than the host can shadow (tracked_limit).
    bool adopt(uint64_t va, uint64_t len);
    // Stops tracking [va, va+len), as an unmap does: NIC writes the CPU has
    // not seen are reported and handed to the CPU view, nothing is lost;
    // where the CPU's view is gone they are reported and dropped.
    void retire(uint64_t va, uint64_t len);
    bool empty() const { return segs_.empty(); }

    // NIC DMA. Bytes outside the tracked ranges are the coherent process
    // memory and are served directly. The caller has checked that the CPU's
    // view of the range can be read (and, for a write, written).
    void dma_read(uint64_t addr, uint8_t *out, uint64_t len);
    void dma_write(uint64_t addr, const uint8_t *in, uint64_t len);
    // Flush (clean): the CPU's writes in the range reach the NIC's view.
    // false, and nothing changes, when the CPU's view of a tracked byte
    // cannot be read (the program unmapped it).
    bool sync_for_device(uint64_t addr, uint64_t len);
    // Clean and invalidate: the range becomes coherent both ways. false,
    // and nothing changes, also when a NIC-written byte's page cannot be
    // written.
    bool sync_for_cpu(uint64_t addr, uint64_t len);

    const rnic_sim_cache_stats &stats() const { return stats_; }
    // Oldest report first; false when there is none.
    bool pop_report(rnic_sim_cache_report *out);

    // Reports beyond this many waiting are dropped (and counted): the first
    // ones name the bug.
    static constexpr size_t kMaxReports = 4096;
    // A CPU store of the value a byte already had cannot be told from no
    // store: runs of one kind less than a cache line apart are one report.
    static constexpr uint64_t kReportGap = 64;

private:
    struct Segment {
        uint64_t len;
        std::vector<uint8_t> nic, base;
        std::vector<uint64_t> nic_dirty;   // one bit per byte
        explicit Segment(uint64_t n) : len(n), nic(n), base(n), nic_dirty((n + 63) / 64) {}
        bool dirty(uint64_t o) const { return nic_dirty[o / 64] >> (o % 64) & 1; }
        void set_dirty(uint64_t o, bool v);
        bool any_dirty(uint64_t o, uint64_t n) const;
    };
    enum class Op { read, write, flush, clean_invalidate, retire };

    // Calls fn(segment or nullptr, offset in it, va, n) for each piece of
    // [addr, addr+len): tracked pieces with their segment, others with none.
    template <class Fn> void pieces(uint64_t addr, uint64_t len, Fn fn);
    // One operation over a piece of one segment; `io` is the DMA buffer.
    void apply(Op op, Segment &s, uint64_t off, uint64_t va, uint64_t n, uint8_t *io);
    // A DMA-less operation over every tracked byte of [addr, addr+len), or
    // (false) over none when some of them cannot be reached.
    bool sync(Op op, uint64_t addr, uint64_t len);
    // Whether the CPU's view of a piece allows what `op` does to it.
    static bool reachable(Op op, const Segment &s, uint64_t off, uint64_t va, uint64_t n);
    // Drops a piece whose CPU view is gone, reporting its NIC writes.
    void lose(Segment &s, uint64_t off, uint64_t va, uint64_t n);
    void byte_op(Op op, Segment &s, uint64_t o, uint64_t va, uint8_t *io);
    bool block_op(Op op, Segment &s, uint64_t o, uint64_t va, uint8_t *io);
    static bool quiet(const Segment &s, uint64_t o, uint64_t va, uint64_t len);
    // Syncs skip spans this long that need nothing in one comparison.
    static constexpr uint64_t kQuietSpan = 4096;
    static Segment slice(const Segment &from, uint64_t off, uint64_t n);
    // Collects byte `va` into the current run of its kind.
    void note(int kind, uint64_t va);
    void flush_notes();
    void report(int kind, uint64_t addr, uint64_t len);

    std::map<uint64_t, Segment> segs_;   // start -> segment; disjoint
    rnic_sim_cache_stats stats_{};
    std::deque<rnic_sim_cache_report> reports_;
    // Per kind, the run of bytes being collected by the current operation.
    rnic_sim_cache_report runs_[RNIC_SIM_CACHE_KINDS]{};
};
