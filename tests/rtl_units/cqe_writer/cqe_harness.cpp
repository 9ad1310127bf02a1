#include "cqe_harness.h"

#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include "rnic_check.h"

namespace {
constexpr unsigned kWords = RNIC_CQE_WORDS;
constexpr unsigned kMaxReports = 10;   // failing cycles described in full per run

[[noreturn]] void bench_error(const char *what) {
    std::fprintf(stderr, "cqe_writer bench error: %s\n", what);
    std::exit(2);
}

// Word w (32 bits, lowest first) of a NUM_CQ-bit port, whatever type
// Verilator gives it: an integer (CData .. QData) up to 64 bits, a VlWide of
// 32-bit words past that.
template <typename T>
uint32_t port_word(const T &port, unsigned w) {
    return w < 2 ? static_cast<uint32_t>(static_cast<uint64_t>(port) >> (32 * w)) : 0u;
}
template <std::size_t N>
uint32_t port_word(const VlWide<N> &port, unsigned w) {
    return w < N ? port.at(w) : 0u;
}
}  // namespace

CqeHarness::CqeHarness(uint32_t seed) : seed_(seed), rng_(seed), ctx_(new VerilatedContext) {
    // --x-initial unique: every register (the CQ contexts too) starts random,
    // from the test's seed, so nothing may rely on power-up contents and a
    // run replays exactly.
    ctx_->randReset(2);
    ctx_->randSeed(static_cast<int>(seed & 0x7FFFFFFF));
    // Verilator 5.006 draws X values (--x-assign / --x-initial unique) and
    // erases a model's scopes through the thread's context
    // (Verilated::threadContextp(): the context or model made last), not
    // the model's own (verilator/verilator#8265). With two harnesses alive,
    // the younger one's death leaves it pointing at freed memory, and the
    // older one would draw from it and, dying, lock a freed mutex. So it
    // points at ours whenever our model is built, reset or clocked, and at
    // none once our model is gone.
    Verilated::threadContextp(ctx_.get());
    dut_.reset(new Vrnic_cqe_writer(ctx_.get()));
    dut_->clk = 0;
    dut_->eval();
    reset();
}

CqeHarness::~CqeHarness() {
    Verilated::threadContextp(ctx_.get());
    dut_->final();
    dut_.reset();
    Verilated::threadContextp(nullptr);
}

void CqeHarness::reset() {
    Verilated::threadContextp(ctx_.get());   // another harness may have run since (the constructor says why)
    Vrnic_cqe_writer &d = *dut_;
    d.rst_n = 0;
    d.cmd_valid = 0;
    d.db_valid = 0;
    d.cqe_req = 0;
    d.w_ready = 1;
    d.cpl_valid = 0;
    for (int i = 0; i < 2; i++) {
        d.clk = 0;
        d.eval();
        d.clk = 1;
        d.eval();
        ++stats_.cycles;
    }
    d.clk = 0;
    model_.reset();
    ph_ = Phase::None;
    bursts_.clear();
    for (auto &o : occupied_) o.clear();
    fault_addr_known_ = true;
    fault_addr_ = 0;
}

int CqeHarness::intr_cq() const {
    int cq = kNoIntr;
    for (unsigned w = 0; w < (CqModel::kNumCq + 31) / 32; w++) {
        for (uint32_t bits = port_word(dut_->intr_set, w); bits != 0; bits &= bits - 1) {
            if (cq != kNoIntr)
                return kManyIntr;
            cq = static_cast<int>(32 * w + static_cast<unsigned>(__builtin_ctz(bits)));
        }
    }
    return cq;
}

void CqeHarness::request(const CqeFields &f) {
    if (busy())
        bench_error("a request while one is under way");
    if (f.cq >= CqModel::kNumCq)
        bench_error("a CQ number wider than the port");
    req_ = f;
    cur_ = CqeOutcome{};
    cur_.req = f;
    ph_ = Phase::First;
}

void CqeHarness::drive(const CqeIn &in, uint32_t db_index, uint16_t db_value) {
    Vrnic_cqe_writer &d = *dut_;
    d.rst_n = 1;
    // Whatever a port carries while its valid is low must not matter: junk.
    d.cmd_valid = in.cmd;
    d.cmd = in.cmd ? (in.cmd_op & 3u) : (rng_() & 3u);
    d.cmd_sel = (in.cmd ? in.cmd_sel : rng_()) % CqModel::kNumCq;
    d.cmd_base = in.cmd ? in.cmd_base : (static_cast<uint64_t>(rng_()) << 32 | rng_());
    d.cmd_log = (in.cmd ? in.cmd_log : rng_()) & 0xFu;
    d.db_valid = in.db;
    d.db_index = db_index & 0xFFFFu;
    d.db_value = db_value;
    const bool req = ph_ != Phase::None;
    d.cqe_req = req;
    d.cqe_cq = (req ? req_.cq : rng_()) % CqModel::kNumCq;
    d.cqe_qpn = req ? req_.qpn : rng_();
    d.cqe_idx = req ? req_.idx : rng_();
    d.cqe_op = req ? req_.op : rng_();
    d.cqe_status = req ? req_.status : rng_();
    d.cqe_recv = req ? req_.recv : (rng_() & 1u);
    d.cqe_len = req ? req_.len : rng_();
    d.cqe_wrid = req ? req_.wrid : (static_cast<uint64_t>(rng_()) << 32 | rng_());
    d.cqe_verdict = (req ? req_.verdict : rng_()) & 0x7u;
    d.cqe_check_key = req ? req_.check_key : rng_();
    d.w_ready = in.w_ready;
    d.cpl_valid = in.cpl;
    d.cpl_cq = (in.cpl ? in.cpl_cq : rng_()) % CqModel::kNumCq;
    d.cpl_err = in.cpl ? in.cpl_err : (rng_() & 1u);
}

// A doorbell index and value to check db_ok against in a cycle without a
// doorbell: each CQ in turn, at the edges of [ci .. pi] and past them.
void CqeHarness::pick_probe(uint32_t &index, uint16_t &value) {
    const unsigned k = probe_++;
    const unsigned cq = k % CqModel::kNumCq;
    const CqState &q = model_.cq(cq);
    index = cq;
    switch ((k / CqModel::kNumCq) % 8) {
    case 0: value = q.pi; break;
    case 1: value = static_cast<uint16_t>(q.pi + 1); break;
    case 2: value = q.ci; break;
    case 3: value = static_cast<uint16_t>(q.ci - 1); break;
    case 4: value = static_cast<uint16_t>(q.ci + rng_() % (model_.used(cq) + 1u)); break;
    case 5: value = static_cast<uint16_t>(q.pi - model_.ring(cq)); break;
    case 6: value = static_cast<uint16_t>(rng_()); break;
    default:
        index = CqModel::kNumCq + rng_() % (0x10000u - CqModel::kNumCq);
        value = static_cast<uint16_t>(rng_());
        break;
    }
}

void CqeHarness::check_beat() {
    const Vrnic_cqe_writer &d = *dut_;
    CHECK_EQ(d.w_addr, expect_addr_);
    CHECK_EQ(d.w_len, RNIC_CQE_BYTES);
    CHECK_EQ(d.w_tag, 0x8000u | req_.cq);
    CHECK_EQ(d.w_data, expect_words_[beat_]);
    CHECK_EQ(d.w_last, beat_ == kWords - 1);
}

// The CQE's last beat was accepted: decode it as software would and put it
// in the host's ring.
void CqeHarness::burst_written() {
    const unsigned cq = req_.cq;
    const uint64_t *w = cur_.words;
    CHECK_EQ(RNIC_GET(w, CQE, STATUS), req_.status);
    CHECK_EQ(RNIC_GET(w, CQE, OPCODE), req_.op);
    CHECK_EQ(RNIC_GET(w, CQE, QPN), req_.qpn);
    CHECK_EQ(RNIC_GET(w, CQE, WQE_IDX), req_.idx);
    CHECK_EQ(RNIC_GET(w, CQE, IS_RECV), req_.recv ? 1u : 0u);
    CHECK_EQ(RNIC_GET(w, CQE, PHASE), model_.phase(cq));
    CHECK_EQ(RNIC_GET(w, CQE, BYTE_LEN), req_.len);
    CHECK_EQ(RNIC_GET(w, CQE, WR_ID), req_.wrid);
    CHECK_EQ(RNIC_GET(w, CQE, VERDICT), req_.verdict);
    CHECK_EQ(RNIC_GET(w, CQE, CHECK_KEY), req_.check_key);
    // Every bit no field names is 0.
    CqeFields ones;
    ones.qpn = ones.idx = 0xFFFF;
    ones.op = ones.status = 0xFF;
    ones.recv = true;
    ones.len = 0xFFFFFFFFu;
    ones.wrid = ~0ull;
    ones.verdict = 0x7;
    ones.check_key = 0xFFFFFFFFu;
    uint64_t defined[kWords];
    cqe_encode(ones, 1, defined);
    for (unsigned i = 0; i < kWords; i++) CHECK_EQ(w[i] & ~defined[i], 0);

    // The host's ring: the slot must not hold a CQE no doorbell has freed.
    const CqState &q = model_.cq(cq);
    const uint64_t off = cur_.addr - q.base;
    CHECK_EQ(off % RNIC_CQE_BYTES, 0);
    const uint64_t slot = off / RNIC_CQE_BYTES;
    CHECK(slot < model_.ring(cq));
    if (slot < occupied_[cq].size()) {
        if (occupied_[cq][slot])
            std::fprintf(stderr, "cqe_writer: CQ %u slot %llu written again before a doorbell freed it\n", cq,
                         static_cast<unsigned long long>(slot));
        CHECK(!occupied_[cq][slot]);
        occupied_[cq][slot] = true;
    }
    bursts_.push_back(cq);
    ++stats_.written;
    if (model_.phase(cq) == 0)
        ++stats_.phase0;
}

void CqeHarness::context(const CqeIn &in, uint32_t db_index, uint16_t db_value) {
    if (++reports_ > kMaxReports)
        return;
    static const char *const kPhase[] = {"none", "first cycle", "beats"};
    std::fprintf(stderr, "[cqe_writer cycle %llu, seed %u] request: %s", static_cast<unsigned long long>(stats_.cycles),
                 seed_, kPhase[static_cast<int>(ph_)]);
    if (ph_ != Phase::None)
        std::fprintf(stderr, ", cq %u, beat %u", req_.cq, beat_);
    std::fprintf(stderr, "; doorbell %s index %u value %u;", in.db ? "valid" : "probe", db_index, db_value);
    if (ph_ != Phase::None) {
        const CqState &q = model_.cq(req_.cq);
        std::fprintf(stderr, " model cq %u: valid %d base %llx log %u pi %u ci %u;", req_.cq, q.valid,
                     static_cast<unsigned long long>(q.base), q.log, q.pi, q.ci);
    }
    if (db_index < CqModel::kNumCq) {
        const CqState &q = model_.cq(db_index);
        std::fprintf(stderr, " model cq %u: valid %d log %u pi %u ci %u", db_index, q.valid, q.log, q.pi, q.ci);
    }
    std::fputc('\n', stderr);
}

void CqeHarness::cycle(const CqeIn &in) {
    if (in.cmd && in.db)
        bench_error("a CQ command and a doorbell in one cycle");
    if (in.cmd && (in.cmd_sel >= CqModel::kNumCq || in.cmd_log < 1 || in.cmd_log > RNIC_MAX_LOG_RING))
        bench_error("a CQ command the register block refuses");
    if (in.cmd && busy() && in.cmd_sel == req_.cq)
        bench_error("a command on the CQ being written");
    const int failures = rnic_check_failures();
    const uint64_t now = stats_.cycles;

    uint32_t db_index = in.db_index;
    uint16_t db_value = in.db_value;
    if (!in.db) {
        if (!in.db_probe)
            pick_probe(db_index, db_value);
        ++stats_.probes;
    }
    if (ph_ == Phase::First)
        cur_.first = now;
    Verilated::threadContextp(ctx_.get());
    drive(in, db_index, db_value);
    Vrnic_cqe_writer &d = *dut_;
    d.clk = 0;
    d.eval();

    // ---- combinational outputs, before the edge
    const bool want_db_ok = model_.doorbell_ok(db_index, db_value);
    db_ok_ = d.db_ok;
    CHECK_EQ(d.db_ok, want_db_ok);
    bool refused = false, want_done = false, want_overflow = false, want_w = false;
    switch (ph_) {
    case Phase::First:
        refused = model_.refuses(req_.cq);
        want_done = want_overflow = refused;
        if (!refused) {
            // Checked: its first beat is offered in this same cycle.
            expect_addr_ = model_.slot_addr(req_.cq);
            cqe_encode(req_, model_.phase(req_.cq), expect_words_);
            beat_ = 0;
            want_w = true;
        }
        break;
    case Phase::Beats: want_w = true; break;
    case Phase::None: break;
    }
    // Done with the last beat taken.
    if (want_w && in.w_ready && beat_ == kWords - 1)
        want_done = true;
    CHECK_EQ(d.cqe_done, want_done);
    CHECK_EQ(d.cqe_overflow, want_overflow);
    CHECK_EQ(d.w_valid, want_w);
    CHECK_EQ(d.cqe_last_beat, want_w && in.w_ready && beat_ == kWords - 1);
    if (want_w)
        check_beat();

    // ---- the model takes the edge: doorbell and command first (they act on
    // the state before the edge, as the request does), then the request.
    const CqState cpl_q = model_.cq(in.cpl_cq % CqModel::kNumCq);
    if (in.db) {
        if (want_db_ok) {
            const CqState &q = model_.cq(db_index);
            for (uint16_t i = q.ci; i != db_value; ++i) occupied_[db_index][i & model_.mask(db_index)] = false;
            model_.doorbell(db_index, db_value);
            ++stats_.db_accepted;
        } else {
            ++stats_.db_refused;
        }
    }
    if (in.cmd) {
        const unsigned sel = in.cmd_sel % CqModel::kNumCq;   // checked above; for the compiler
        model_.command(in.cmd_op, sel, in.cmd_base, in.cmd_log);
        occupied_[sel].assign(model_.exists(sel) ? model_.ring(sel) : 0u, false);
        ++stats_.commands;
    }
    switch (ph_) {
    case Phase::First:
        if (refused) {
            cur_.refused = true;
            cur_.done = now;
            if (model_.exists(req_.cq))
                ++stats_.refused_full;
            else
                ++stats_.refused_missing;
            outcomes_.push_back(cur_);
            ph_ = Phase::None;
            break;
        }
        ph_ = Phase::Beats;
        [[fallthrough]];   // its first beat was offered in this cycle
    case Phase::Beats:
        if (in.w_ready) {
            if (beat_ == 0)
                cur_.addr = d.w_addr;
            cur_.words[beat_] = d.w_data;
            if (++beat_ == kWords) {
                burst_written();
                cur_.done = now;
                model_.produced(req_.cq);
                outcomes_.push_back(cur_);
                ph_ = Phase::None;
            }
        } else {
            ++cur_.stalls;
            ++stats_.stall_cycles;
        }
        break;
    case Phase::None: break;
    }

    d.clk = 1;
    d.eval();
    ++stats_.cycles;

    // ---- registered outputs: the write completion of this cycle.
    const unsigned cpl_cq = in.cpl_cq % CqModel::kNumCq;
    CHECK_EQ(intr_cq(), (in.cpl && !in.cpl_err) ? static_cast<int>(cpl_cq) : kNoIntr);
    CHECK_EQ(d.fault, in.cpl && in.cpl_err);
    if (in.cpl && in.cpl_err) {
        fault_addr_known_ = cpl_q.base_known;
        fault_addr_ = static_cast<uint32_t>(cpl_q.base);
        ++stats_.faults;
    }
    if (in.cpl && !in.cpl_err)
        ++stats_.interrupts;
    if (fault_addr_known_)
        CHECK_EQ(d.fault_addr, fault_addr_);

    if (rnic_check_failures() != failures)
        context(in, db_index, db_value);
}

void CqeHarness::idle(unsigned n) {
    for (unsigned i = 0; i < n; i++) cycle(CqeIn{});
}

CqeOutcome CqeHarness::finish(unsigned stall_pct) {
    while (busy()) {
        CqeIn in;
        in.w_ready = rng_() % 100 >= stall_pct;
        cycle(in);
    }
    return outcomes_.back();
}

CqeOutcome CqeHarness::post(const CqeFields &f, unsigned stall_pct) {
    request(f);
    return finish(stall_pct);
}
