// Runs the Verilated rnic_sg_cursor beside the cursor model (sg_model.h),
// one clock cycle at a time. In every cycle every output is compared with
// the model, before the edge and again after it: more and rem always, addr
// and seg_base while more is high (at the end they name no segment;
// sg_model.h). The command of the cycle goes to both at the edge.
//
// The bench is the engine: at most one command a cycle, next only inside
// the list, take only up to rem, at most MAX_SGE segments (the unit's
// assertions hold the engine to the same; the harness refuses a command
// that breaks them, so a failure is always the unit's). Whatever a port
// carries without its command is junk: the other commands' fields, the
// SGEs past load_n, take_n without take.
#ifndef SG_HARNESS_H
#define SG_HARNESS_H

#include <cstdint>
#include <memory>

#include "Vrnic_sg_cursor.h"
#include "sg_model.h"
#include "unit_bench.h"
#include "verilated.h"

constexpr unsigned kSge = SgModel::kMaxSge;

struct SgCmd {
    enum Kind { None, Load, Single, Next, Take };
    Kind kind = None;
    unsigned n = 0;           // load: SGEs 0..n-1 of segs (the rest junk on the port)
    SgSeg segs[kSge];
    uint32_t pos = 0;
    bool tail = false;        // load: SGEs n.. driven as segs holds them, not junk
    uint64_t addr = 0;        // single
    uint32_t len = 0;
    uint32_t take_n = 0;      // take

    static SgCmd load(unsigned n, const SgSeg *s, uint32_t pos);
    static SgCmd single(uint64_t addr, uint32_t len);
    static SgCmd next() { SgCmd c; c.kind = Next; return c; }
    static SgCmd take(uint32_t k) { SgCmd c; c.kind = Take; c.take_n = k; return c; }
};

struct SgStats {
    uint64_t cycles = 0;
    uint64_t loads = 0, loads_end = 0, loads_empty = 0, loads_boundary = 0, loads_zero_skipped = 0;
    uint64_t singles = 0, singles_empty = 0;
    uint64_t nexts = 0, nexts_to_end = 0, nexts_onto_empty = 0;
    uint64_t takes = 0, takes_whole = 0, takes_zero = 0;
    uint64_t resets = 0;
    uint64_t idles = 0;
};

class SgHarness {
public:
    explicit SgHarness(uint64_t seed);
    ~SgHarness();
    SgHarness(const SgHarness &) = delete;
    SgHarness &operator=(const SgHarness &) = delete;

    void reset();                     // two cycles of rst_n low (junk commands on the ports), model cleared
    void cycle(const SgCmd &c);       // checks the outputs, then the edge with c
    void idle(unsigned n);
    void load(unsigned n, const SgSeg *s, uint32_t pos) { cycle(SgCmd::load(n, s, pos)); }
    void single(uint64_t addr, uint32_t len) { cycle(SgCmd::single(addr, len)); }
    void next() { cycle(SgCmd::next()); }
    void take(uint32_t k) { cycle(SgCmd::take(k)); }

    // The outputs after the last edge (what the next cycle will check).
    bool more() const { return dut_->more; }
    uint32_t rem() const { return dut_->rem; }
    uint64_t addr() const { return dut_->addr; }
    uint64_t seg_base() const { return dut_->seg_base; }

    const SgModel &model() const { return model_; }
    const SgStats &stats() const { return stats_; }
    uint64_t now() const { return stats_.cycles; }
    Rng &rng() { return rng_; }

private:
    void drive(const SgCmd &c);
    void check();
    void edge();
    void context(const SgCmd &c);

    uint64_t seed_;
    Rng rng_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vrnic_sg_cursor> dut_;
    SgModel model_;
    SgStats stats_;
    unsigned reports_ = 0;
};

#endif
