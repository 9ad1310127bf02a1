#include "ptable_harness.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "rnic_hw.h"

namespace {
constexpr uint64_t kMaxReports = 20;  // mismatches printed in full per run
}

PtableHarness::PtableHarness(uint32_t entries, unsigned mutant)
    : entries_(entries), mutant_(mutant), ctx_(new VerilatedContext) {
    // Every register and RAM word starts random (the model is verilated with
    // --x-initial unique), from a fixed seed: nothing may depend on power-up
    // contents, and every run is the same.
    ctx_->randReset(2);
    ctx_->randSeed(static_cast<int>(0x5EED + mutant));
    dut_.reset(new Vrnic_ptable(ctx_.get()));
    if (!ptm_init(&model_, entries)) {
        std::fprintf(stderr, "ptable bench: cannot build a model of %u entries\n", entries);
        std::exit(2);
    }
    dut_->mutant = mutant;
    dut_->clk = 0;
    dut_->eval();
    reset();
}

PtableHarness::~PtableHarness() {
    dut_->final();
    ptm_free(&model_);
}

void PtableHarness::fail(const char *fmt, ...) {
    ++stats_.mismatches;
    if (stats_.mismatches > kMaxReports)
        return;
    std::va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "[cycle %llu, mutant %u] ", static_cast<unsigned long long>(stats_.cycles), mutant_);
    std::vfprintf(stderr, fmt, ap);
    std::fputc('\n', stderr);
    va_end(ap);
}

void PtableHarness::drive(const CycleIn &in) {
    Vrnic_ptable &d = *dut_;
    d.rst_n = in.reset ? 0 : 1;
    d.mgmt_valid = in.mgmt;
    d.mgmt_cmd = in.cmd & 3u;
    d.mgmt_index = in.index & 0xFFFFFFu;
    d.mgmt_key = in.entry.key;
    d.mgmt_pz = in.entry.pz;
    d.mgmt_base = in.entry.base;
    d.mgmt_len = in.entry.len;
    d.mgmt_rights = in.entry.rights & 0xFu;
    d.mgmt_type = in.entry.type & 3u;
    d.mgmt_state = in.entry.state & 3u;
    d.mgmt_link = in.entry.link & 0xFFFFFFu;
    d.lchk_valid = in.lchk;
    d.lchk_key = in.lreq.key;
    d.lchk_pz = in.lreq.pz;
    d.lchk_rights = in.lreq.rights & 0xFu;
    d.lchk_addr = in.lreq.addr;
    d.lchk_len = in.lreq.len;
    d.rchk_valid = in.rchk;
    d.rchk_key = in.rreq.key;
    d.rchk_pz = in.rreq.pz;
    d.rchk_rights = in.rreq.rights & 0xFu;
    d.rchk_addr = in.rreq.addr;
    d.rchk_len = in.rreq.len;
}

void PtableHarness::compare_port(const char *port, const Expect &e, bool rsp_valid, unsigned verdict, uint64_t base) {
    if (rsp_valid != e.valid) {
        fail("%s: rsp_valid %d, expected %d", port, rsp_valid, e.valid);
        return;
    }
    if (!e.valid)
        return;
    ++stats_.checks;
    if (verdict != e.strict.verdict)
        ++stats_.differ_strict;
    if (verdict == RNIC_PT_VERDICT_OK && e.strict.verdict != RNIC_PT_VERDICT_OK)
        ++stats_.let_through;
    if (verdict != e.want.verdict || base != e.want.base)
        fail("%s: key %08x pz %04x rights %x addr %016llx len %u: rtl verdict %u base %llx, model %u base %llx", port,
             e.req.key, e.req.pz, e.req.rights, static_cast<unsigned long long>(e.req.addr), e.req.len, verdict,
             static_cast<unsigned long long>(base), e.want.verdict, static_cast<unsigned long long>(e.want.base));
}

void PtableHarness::compare_mgmt() {
    const Vrnic_ptable &d = *dut_;
    const MgmtExpect &m = mgmt_prev_;
    if (d.mgmt_done != m.valid) {
        fail("mgmt_done %d, expected %d", d.mgmt_done, m.valid);
        return;
    }
    if (!m.valid) {
        if (d.mgmt_err)
            fail("mgmt_err without a command");
        return;
    }
    ++stats_.mgmt_cmds;
    if (d.mgmt_err != m.err)
        fail("cmd %u index %06x: mgmt_err %d, expected %d", m.cmd, m.index, d.mgmt_err, m.err);
    if (!m.read || m.err)
        return;
    const ptm_entry &f = m.fields;
    if (d.mgmt_r_key != f.key || d.mgmt_r_pz != f.pz || d.mgmt_r_base != f.base || d.mgmt_r_len != f.len ||
        d.mgmt_r_rights != f.rights || d.mgmt_r_type != f.type || d.mgmt_r_state != f.state || d.mgmt_r_link != f.link)
        fail("READ %06x: rtl key %02x pz %04x base %llx len %llx rights %x type %u state %u link %06x; model key %02x "
             "pz %04x base %llx len %llx rights %x type %u state %u link %06x",
             m.index, d.mgmt_r_key, d.mgmt_r_pz, static_cast<unsigned long long>(d.mgmt_r_base),
             static_cast<unsigned long long>(d.mgmt_r_len), d.mgmt_r_rights, d.mgmt_r_type, d.mgmt_r_state,
             d.mgmt_r_link, f.key, f.pz, static_cast<unsigned long long>(f.base),
             static_cast<unsigned long long>(f.len), f.rights, f.type, f.state, f.link);
}

void PtableHarness::cycle(const CycleIn &in) {
    drive(in);

    // Checks see the table as it was before this cycle's command.
    Expect l_now, r_now;
    if (!in.reset) {
        if (in.lchk)
            l_now = {true, ptm_check(&model_, &in.lreq, mutant_), ptm_check(&model_, &in.lreq, 0), in.lreq};
        if (in.rchk)
            r_now = {true, ptm_check(&model_, &in.rreq, mutant_), ptm_check(&model_, &in.rreq, 0), in.rreq};
    }
    mgmt_prev_ = MgmtExpect{};
    if (in.reset) {
        ptm_reset(&model_);
    } else if (in.mgmt) {
        mgmt_prev_.valid = true;
        mgmt_prev_.cmd = in.cmd;
        mgmt_prev_.index = in.index;
        mgmt_prev_.read = in.cmd == RNIC_PT_CMD_READ;
        mgmt_prev_.err = ptm_mgmt(&model_, in.cmd, in.index, &in.entry, &mgmt_prev_.fields);
    }

    dut_->clk = 1;
    dut_->eval();
    ++stats_.cycles;

    // A reset edge drops the requests of this cycle and of the one before.
    if (in.reset)
        l_prev_ = r_prev_ = Expect{};
    compare_port("lchk", l_prev_, dut_->lchk_rsp_valid, dut_->lchk_verdict, dut_->lchk_base);
    compare_port("rchk", r_prev_, dut_->rchk_rsp_valid, dut_->rchk_verdict, dut_->rchk_base);
    compare_mgmt();
    l_prev_ = in.reset ? Expect{} : l_now;
    r_prev_ = in.reset ? Expect{} : r_now;

    dut_->clk = 0;
    dut_->eval();
}

void PtableHarness::idle(unsigned n) {
    for (unsigned i = 0; i < n; ++i)
        cycle(CycleIn{});
}

void PtableHarness::reset() {
    CycleIn r;
    r.reset = true;
    cycle(r);
    cycle(r);
    idle(1);
}
