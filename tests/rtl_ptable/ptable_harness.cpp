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
    d.mgmt_link = in.entry.link;
    d.bind_valid = in.bind;
    d.bind_index = in.bind_index & 0xFFFFFFu;
    d.bind_key = in.bind_entry.key;
    d.bind_pz = in.bind_entry.pz;
    d.bind_base = in.bind_entry.base;
    d.bind_len = in.bind_entry.len;
    d.bind_rights = in.bind_entry.rights & 0xFu;
    d.bind_state = in.bind_entry.state & 3u;
    d.bind_link = in.bind_entry.link;
    d.lchk_valid = in.lchk;
    d.lchk_mode = in.lreq.mode & 3u;
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

// One cycle of a port, before this cycle's command changes the model: a
// window granted in s1 reads its region now; a new request is judged now.
// Returns the response due after this cycle's edge.
PtableHarness::Expect PtableHarness::advance(Port &p, bool issue, const ptm_request &req) {
    Expect due;
    Expect s2_next;
    if (p.s1.valid && p.s1.want.link) {
        s2_next = p.s1;
        s2_next.looked_up = true;
        s2_next.want = ptm_check_link(&model_, &p.s1.want);
        if (p.s1.strict.link)
            s2_next.strict = ptm_check_link(&model_, &p.s1.strict);
    } else if (p.s1.valid) {
        due = p.s1;
        if (due.strict.link)  // a mutant skipped the region; the rules would not have
            due.strict = ptm_check_link(&model_, &due.strict);
    }
    if (p.s2.valid)
        due = p.s2;
    Expect s1_next;
    if (issue)
        s1_next = {true, false, ptm_check(&model_, &req, mutant_), ptm_check(&model_, &req, 0), req};
    p.s1 = s1_next;
    p.s2 = s2_next;
    return due;
}

void PtableHarness::compare_port(const char *port, const Expect &e, bool rsp_valid, unsigned verdict, uint64_t base) {
    if (rsp_valid != e.valid) {
        fail("%s: rsp_valid %d, expected %d", port, rsp_valid, e.valid);
        return;
    }
    if (!e.valid)
        return;
    ++stats_.checks;
    if (e.looked_up)
        ++stats_.window_checks;
    if (verdict != e.strict.verdict)
        ++stats_.differ_strict;
    if (verdict == RNIC_PT_VERDICT_OK && e.strict.verdict != RNIC_PT_VERDICT_OK)
        ++stats_.let_through;
    if (verdict != e.want.verdict || base != e.want.base)
        fail("%s: mode %u key %08x pz %04x rights %x addr %016llx len %u: rtl verdict %u base %llx, model %u base %llx", port,
             e.req.mode, e.req.key, e.req.pz, e.req.rights, static_cast<unsigned long long>(e.req.addr), e.req.len, verdict,
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
        fail("READ %06x: rtl key %02x pz %04x base %llx len %llx rights %x type %u state %u link %08x; model key %02x "
             "pz %04x base %llx len %llx rights %x type %u state %u link %08x",
             m.index, d.mgmt_r_key, d.mgmt_r_pz, static_cast<unsigned long long>(d.mgmt_r_base),
             static_cast<unsigned long long>(d.mgmt_r_len), d.mgmt_r_rights, d.mgmt_r_type, d.mgmt_r_state,
             d.mgmt_r_link, f.key, f.pz, static_cast<unsigned long long>(f.base),
             static_cast<unsigned long long>(f.len), f.rights, f.type, f.state, f.link);
}

void PtableHarness::cycle(const CycleIn &in) {
    if ((in.lchk && !l_ready()) || (in.rchk && !r_ready())) {
        std::fprintf(stderr, "bench error: a check driven on a busy port\n");
        std::exit(2);
    }
    drive(in);
    dut_->eval();
    if (!in.reset && (dut_->lchk_ready != l_ready() || dut_->rchk_ready != r_ready()))
        fail("req_ready: rtl l %d r %d, expected l %d r %d", dut_->lchk_ready, dut_->rchk_ready, l_ready(), r_ready());

    // Checks see the table as it was before this cycle's command or bind.
    ptm_request rreq = in.rreq;
    rreq.mode = RNIC_PT_MODE_REMOTE;
    Expect l_due = advance(l_, in.lchk && !in.reset, in.lreq);
    Expect r_due = advance(r_, in.rchk && !in.reset, rreq);
    mgmt_prev_ = MgmtExpect{};
    bool bind_now = false, bind_ok = false;
    if (in.reset) {
        ptm_reset(&model_);
        l_ = r_ = Port{};
        l_due = r_due = Expect{};
    } else if (in.mgmt) {
        mgmt_prev_.valid = true;
        mgmt_prev_.cmd = in.cmd;
        mgmt_prev_.index = in.index;
        mgmt_prev_.read = in.cmd == RNIC_PT_CMD_READ;
        mgmt_prev_.err = ptm_mgmt(&model_, in.cmd, in.index, &in.entry, &mgmt_prev_.fields);
    } else if (in.bind) {
        bind_now = true;
        bind_ok = ptm_bind(&model_, in.bind_index & 0xFFFFFFu, &in.bind_entry);
    }

    dut_->clk = 1;
    dut_->eval();
    ++stats_.cycles;

    compare_port("lchk", l_due, dut_->lchk_rsp_valid, dut_->lchk_verdict, dut_->lchk_base);
    compare_port("rchk", r_due, dut_->rchk_rsp_valid, dut_->rchk_verdict, dut_->rchk_base);
    compare_mgmt();
    if (dut_->bind_done != bind_now || (bind_now && dut_->bind_ok != bind_ok))
        fail("bind %06x: rtl done %d ok %d, expected done %d ok %d", in.bind_index, dut_->bind_done, dut_->bind_ok,
             bind_now, bind_ok);
    if (bind_now)
        ++stats_.binds;

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
