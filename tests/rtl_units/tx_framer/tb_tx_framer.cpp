// rnic_tx_framer (rtl/rnic_tx_framer.sv) against the bench's own ICRC
// (../common/wire_ref.h, docs/wire-format.md). The bench plays the engine:
// it starts a frame of frame_len bytes, then pushes its header, payload and
// pad as pieces of its choosing while push_ok is high, with random bytes in
// the lanes above push_n; and it plays the link, taking beats with tready
// high or low at random. Every frame that leaves is compared whole.
//
// Every test runs at each datapath width W the framer is verilated at
// (issue 12): as `name` at W = 8, the default, and as w16_name, w32_name and
// w64_name in a build with RNIC_UNIT_WIDTHS. "W" below is that width.
//
// Checked on every cycle of every test: tkeep contiguous from bit 0 and all
// ones except on the last beat; a beat offered and not taken is offered
// again unchanged; the frame is the bytes pushed, in order, then the ICRC of
// docs/wire-format.md (least significant byte first), frame_len bytes in
// all; `idle` is high exactly when no frame is started and not yet gone;
// `free_next` low exactly when busy will be high in the next cycle without
// a start now (the last beat leaving frees the framer for a start
// registered in its cycle, as the engine's is). W enters none of these but
// the all-ones tkeep, W ones.
//
//   icrc_known_answer  a RoCEv2 CNP frame captured from a ConnectX-4 Lx: the
//                      framer appends the ICRC the adapter sent
//   full_rate          pushed as the engine does (header, payload, pad, up
//                      to W bytes a cycle from each piece's start), link
//                      always ready: push_ok never drops inside a body, and
//                      a beat leaves in every cycle that has one's worth of
//                      bytes pushed two cycles before (the ICRC three cycles
//                      after the last body byte): no bubble of the framer's,
//                      with the same two and three cycles at every W
//   random_pieces      pieces of random sizes pushed 1..W bytes at a time,
//                      with pauses, random back-pressure on the output
//   push_widths        every push width 1..W held for whole frames, frame
//                      lengths of every residue mod W, back-pressure
//   poison             frames poisoned from a random point on leave with an
//                      ICRC that is not theirs (the rest intact); the frame
//                      after a poisoned one is right
//   idle_and_reset     nothing leaves without a frame whatever the inputs;
//                      a reset in the middle of a frame leaves the framer
//                      idle and the next frame right
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <type_traits>
#include <vector>

#include "Vrnic_tx_framer.h"
#if RNIC_UNIT_WIDTHS
#include "Vrnic_tx_framer_w16.h"
#include "Vrnic_tx_framer_w32.h"
#include "Vrnic_tx_framer_w64.h"
#endif
#include "rnic_hw.h"
#include "unit_bench.h"
#include "verilated.h"
#include "vl_port.h"
#include "wire_ref.h"

namespace {

// The framer verilated at width W: with its default at 8, with -GW=<W>
// (CMakeLists.txt) at the others.
UNIT_MODELS(FramerModel, Vrnic_tx_framer)

// A frame to send: its body (header, payload, pad) cut into pieces, how the
// bench pushes it, and whether (and from which pushed byte on) it is poisoned.
struct TxFrame {
    std::vector<uint8_t> body;
    std::vector<unsigned> pieces;   // sizes, summing to body.size()
    unsigned max_push = ~0u;        // at most this many bytes a push (and at most W)
    bool random_push = false;       // 1..max_push at random, else as many as allowed
    unsigned pause_pct = 0;         // cycles with push_ok high and nothing pushed
    bool poison = false;
    unsigned poison_from = 0;       // poison is driven once this many bytes are pushed
};

template <unsigned W> class Framer {
    using Model = typename FramerModel<W>::type;
    using Data = std::remove_reference_t<decltype(Model::tx_tdata)>;   // uint64_t, or VlWide past 8 bytes

public:
    explicit Framer(uint64_t seed)
        : ctx_(unit_context(seed)), dut_(new Model(ctx_.get())), rng_(seed ^ 0xF00D) {
        reset();
    }
    ~Framer() { dut_->final(); }

    unsigned ready_pct = 100;   // chance the link takes a beat in a cycle
    bool check_full_rate = false;

    void add(const TxFrame &f) { todo_.push_back(f); }

    void reset() {
        dut_->rst_n = 0;
        dut_->start = 0;
        dut_->push_n = 0;
        dut_->tx_tready = 0;
        for (int i = 0; i < 2; i++) clock();
        dut_->rst_n = 1;
        busy_due_ = -1;
        todo_.clear();
        cur_.reset();
        out_.clear();
        expect_.clear();
        held_ = false;
        dut_->eval();
        CHECK(dut_->idle);
        CHECK(!dut_->tx_tvalid);
        CHECK(!dut_->busy);
    }

    // Drops rst_n for one cycle in the middle of whatever is under way.
    void reset_now() {
        dut_->rst_n = 0;
        dut_->start = 0;
        dut_->push_n = 0;
        clock();
        dut_->rst_n = 1;
        busy_due_ = -1;
        cur_.reset();
        out_.clear();
        expect_.clear();
        held_ = false;
        dut_->eval();
        CHECK(dut_->idle);
        CHECK(!dut_->tx_tvalid);
    }

    // Runs until every frame added has left, or max_cycles.
    void run(uint64_t max_cycles = 2000000) {
        const uint64_t end = cycle_ + max_cycles;
        const int before = rnic_check_failures();
        while ((!todo_.empty() || cur_ || !expect_.empty()) && cycle_ < end && !unit_stop(before)) step();
        CHECK(todo_.empty() && !cur_ && expect_.empty());
        if (!todo_.empty() || cur_ || !expect_.empty())
            std::fprintf(stderr, "  stuck at cycle %llu: %zu frames to start, %zu expected\n",
                         static_cast<unsigned long long>(cycle_), todo_.size(), expect_.size());
    }

    // Cycles in which no frame is started; while the framer has none, the
    // inputs it must ignore (push, poison, frame_len) are random.
    void quiet(unsigned n) {
        for (unsigned i = 0; i < n; i++) step(/*may_start=*/false);
    }

    // Starts the next frame and pushes until `pushed` bytes (fewer than
    // its body) are in, then returns. The last push stops at `pushed`: one
    // of W bytes could otherwise complete the body (and the frame leave
    // whole) before the reset this is for.
    void run_until_pushed(unsigned pushed, uint64_t max_cycles = 100000) {
        const uint64_t end = cycle_ + max_cycles;
        push_stop_ = pushed;
        while (!(cur_ && cur_->pushed >= pushed) && cycle_ < end) step();
        push_stop_ = ~0u;
        CHECK(cur_ && cur_->pushed >= pushed);
    }

    uint64_t frames_done() const { return frames_done_; }
    uint64_t poisoned_done() const { return poisoned_done_; }
    uint64_t cycles() const { return cycle_; }

private:
    // The frame being pushed (gone once its last byte is).
    struct Current {
        TxFrame f;
        unsigned piece = 0, piece_left = 0;
        unsigned pushed = 0;
    };
    struct Expect {
        std::vector<uint8_t> frame;   // body + ICRC
        bool poison;
        // For the full-rate check: the cycles of its pushes, the bytes in
        // after each, and the cycle its last body byte went in.
        std::vector<uint64_t> push_cycle;
        std::vector<unsigned> push_total;
        uint64_t body_cycle = ~0ull;
        // Body bytes pushed in cycles up to c.
        unsigned pushed_by(uint64_t c) const {
            for (size_t i = push_cycle.size(); i-- > 0;)
                if (push_cycle[i] <= c) return push_total[i];
            return 0;
        }
    };

    // One clock cycle; Verilator's time counts edges, so an assertion
    // message's [time] is twice the cycle number.
    void clock() {
        dut_->clk = 0;
        dut_->eval();
        ctx_->timeInc(1);
        dut_->clk = 1;
        dut_->eval();
        ctx_->timeInc(1);
        dut_->clk = 0;
        cycle_++;
    }

    void step(bool may_start = true) {
        Model &d = *dut_;
        d.clk = 0;
        d.start = 0;
        d.tx_tready = rng_.percent(ready_pct);
        d.eval();

        // idle: exactly when no frame is started and not yet gone.
        const bool want_idle = expect_.empty();
        if (d.idle != want_idle)
            std::fprintf(stderr, "  cycle %llu: idle %u, expected %u\n", static_cast<unsigned long long>(cycle_),
                         d.idle, want_idle);
        CHECK_EQ(d.idle, want_idle);

        // busy now, as the last cycle's free_next (and start) said.
        if (busy_due_ >= 0) {
            if (d.busy != busy_due_)
                std::fprintf(stderr, "  cycle %llu: busy %u, free_next said %d\n",
                             static_cast<unsigned long long>(cycle_), d.busy, busy_due_);
            CHECK_EQ(static_cast<int>(d.busy), busy_due_);
        }

        if (!d.busy) {
            // No frame in the framer: push, poison and frame_len are noise.
            CHECK(!d.push_ok);
            d.push_n = static_cast<uint8_t>(rng_.range(0, W));
            vlport::randomize(d.push_data, rng_);
            d.poison = rng_.percent(50);
            d.frame_len = static_cast<uint16_t>(rng_.u32());
        } else {
            d.push_n = 0;
            vlport::randomize(d.push_data, rng_);   // lanes above push_n carry noise
            d.poison = poison_;
        }

        // The engine: start a frame when the framer has none, then push.
        if (!cur_ && may_start && !todo_.empty() && !d.busy && rng_.percent(70)) {
            cur_.reset(new Current);
            cur_->f = todo_.front();
            todo_.pop_front();
            cur_->piece_left = cur_->f.pieces[0];
            d.start = 1;
            d.frame_len = static_cast<uint16_t>(cur_->f.body.size() + wire::kIcrcBytes);
            poison_ = false;
            Expect e{cur_->f.body, cur_->f.poison, {}, {}, ~0ull};
            wire::append_icrc(e.frame);
            expect_.push_back(e);
        } else if (cur_ && check_full_rate && !d.push_ok) {
            // The link takes every beat: the framer must take every push.
            std::fprintf(stderr, "  cycle %llu: push_ok low in the middle of a frame body\n",
                         static_cast<unsigned long long>(cycle_));
            CHECK(d.push_ok);
        } else if (cur_ && d.push_ok && !rng_.percent(cur_->f.pause_pct)) {
            Current &c = *cur_;
            while (c.piece_left == 0) c.piece_left = c.f.pieces[++c.piece];
            const unsigned max_push = c.f.max_push < W ? c.f.max_push : W;
            unsigned n = c.f.random_push ? rng_.range(1, max_push) : max_push;
            if (n > c.piece_left) n = c.piece_left;
            if (n > push_stop_ - c.pushed) n = push_stop_ - c.pushed;
            vlport::randomize(d.push_data, rng_);   // lanes above n: noise
            for (unsigned i = 0; i < n; i++) vlport::set_byte(d.push_data, i, c.f.body[c.pushed + i]);
            d.push_n = static_cast<uint8_t>(n);
            c.pushed += n;
            c.piece_left -= n;
            Expect &e = expect_.back();
            e.push_cycle.push_back(cycle_);
            e.push_total.push_back(c.pushed);
            if (c.pushed == c.f.body.size()) e.body_cycle = cycle_;
            // Poison, once raised, stays up to the end of the frame (as the
            // engine's does, until its next frame starts).
            if (c.f.poison && c.pushed >= c.f.poison_from) poison_ = true;
            d.poison = poison_;
            if (c.pushed == c.f.body.size()) cur_.reset();
        }
        d.eval();
        busy_due_ = d.start || !d.free_next;
        if (!d.busy) CHECK(d.free_next);

        monitor();
        clock();
    }

    void monitor() {
        Model &d = *dut_;
        if (check_full_rate && !expect_.empty()) {
            // With the link always ready the framer adds no bubble: a beat
            // leaves in every cycle for which enough bytes went in early
            // enough. A byte pushed in cycle c can leave in c + 2 (byte
            // queue, then the output FIFO); the ICRC goes in the cycle after
            // the last body byte, so it can leave from 3 cycles after it.
            const Expect &e = expect_.front();
            const uint64_t c = cycle_;
            long long in = c >= 2 ? e.pushed_by(c - 2) : 0;
            if (e.body_cycle != ~0ull && e.body_cycle + 3 <= c) in += wire::kIcrcBytes;
            const long long out = static_cast<long long>(out_.size());
            const long long left = static_cast<long long>(e.frame.size()) - out;
            const long long need = left < W ? left : static_cast<long long>(W);
            if (in - out >= need && !d.tx_tvalid)
                std::fprintf(stderr, "  cycle %llu: no beat with %lld bytes waiting (frame of %zu, %lld out)\n",
                             static_cast<unsigned long long>(c), in - out, e.frame.size(), out);
            CHECK(in - out < need || d.tx_tvalid);
        }
        if (held_) {   // offered and not taken last cycle: offered again, unchanged
            CHECK(d.tx_tvalid);
            CHECK(vlport::equal(d.tx_tdata, held_data_));
            CHECK_EQ(d.tx_tkeep, held_keep_);
            CHECK_EQ(d.tx_tlast, held_last_);
        }
        held_ = d.tx_tvalid && !d.tx_tready;
        held_data_ = d.tx_tdata;
        held_keep_ = d.tx_tkeep;
        held_last_ = d.tx_tlast;
        if (!(d.tx_tvalid && d.tx_tready)) return;

        const uint64_t keep = d.tx_tkeep;
        CHECK(keep != 0 && (keep & (keep + 1)) == 0);   // contiguous from bit 0
        if (!d.tx_tlast) CHECK_EQ(keep, vlport::lanes(W));
        CHECK(!expect_.empty());   // nothing leaves that was not started
        if (expect_.empty()) return;
        for (unsigned i = 0; i < W; i++)
            if (keep >> i & 1) out_.push_back(vlport::get_byte(d.tx_tdata, i));
        if (!d.tx_tlast) {
            CHECK(out_.size() < expect_.front().frame.size());   // not past its length without tlast
            return;
        }
        finish_frame();
    }

    void finish_frame() {
        const Expect e = expect_.front();
        expect_.pop_front();
        const std::vector<uint8_t> &want = e.frame;
        const size_t body = want.size() - wire::kIcrcBytes;
        CHECK_EQ(out_.size(), want.size());
        const bool body_ok = out_.size() >= body && std::memcmp(out_.data(), want.data(), body) == 0;
        CHECK(body_ok);
        if (!body_ok) {
            for (size_t i = 0; i < body && i < out_.size(); i++)
                if (out_[i] != want[i]) {
                    std::fprintf(stderr, "  frame of %zu bytes: byte %zu is 0x%02x, expected 0x%02x\n", want.size(),
                                 i, out_[i], want[i]);
                    break;
                }
        }
        if (out_.size() == want.size()) {
            const bool icrc_right = std::memcmp(out_.data() + body, want.data() + body, 4) == 0;
            if (e.poison) {
                CHECK(!icrc_right);       // a poisoned frame must not pass a receiver's check
                CHECK(!wire::icrc_ok(out_));
                poisoned_done_++;
            } else {
                if (!icrc_right)
                    std::fprintf(stderr, "  frame of %zu bytes: ICRC %02x%02x%02x%02x, expected %02x%02x%02x%02x\n",
                                 want.size(), out_[body], out_[body + 1], out_[body + 2], out_[body + 3], want[body],
                                 want[body + 1], want[body + 2], want[body + 3]);
                CHECK(icrc_right);
            }
        }
        out_.clear();
        frames_done_++;
    }

    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Model> dut_;
    Rng rng_;
    uint64_t cycle_ = 0;
    std::deque<TxFrame> todo_;
    std::unique_ptr<Current> cur_;
    std::deque<Expect> expect_;
    std::vector<uint8_t> out_;
    bool held_ = false;
    int busy_due_ = -1;   // what busy must be in the next cycle (free_next, start); -1 unknown
    Data held_data_{};
    uint64_t held_keep_ = 0;
    bool held_last_ = false;
    bool poison_ = false;
    unsigned push_stop_ = ~0u;   // no push past this many bytes of the frame (run_until_pushed)
    uint64_t frames_done_ = 0, poisoned_done_ = 0;
};

// A RoCE-shaped body: headers of a random opcode from the bench's encoder,
// payload of `plen` random bytes, pad; pieces as the engine pushes them.
TxFrame roce_frame(Rng &r, unsigned plen) {
    wire::Fields f;
    f.opcode = wire::kOpcodes[r.range(0, 13)];
    f.dst_mac = r.next() >> 16;
    f.src_mac = r.next() >> 16;
    f.src_ip = r.u32();
    f.dst_ip = r.u32();
    f.udp_sport = static_cast<uint16_t>(0xC000 | r.range(0, 15));
    f.dest_qp = r.u32() & 0xFFFFFF;
    f.psn = r.u32() & 0xFFFFFF;
    f.payload_len = plen;
    f.pad = (4 - plen % 4) % 4;
    TxFrame t;
    t.body = wire::encode_headers(f);
    t.pieces.push_back(static_cast<unsigned>(t.body.size()));
    if (plen) t.pieces.push_back(plen);
    for (unsigned i = 0; i < plen; i++) t.body.push_back(r.byte());
    if (f.pad) t.pieces.push_back(f.pad);
    t.body.resize(t.body.size() + f.pad, 0);
    return t;
}

// A body of `len` random bytes in random pieces, many of them 1..W + 1.
template <unsigned W> TxFrame random_frame(Rng &r, unsigned len) {
    TxFrame t;
    for (unsigned i = 0; i < len; i++) t.body.push_back(r.byte());
    unsigned left = len;
    while (left) {
        const unsigned n = r.percent(50) ? r.range(1, W + 1) : r.range(1, left < 300 ? left : 300);
        const unsigned p = n < left ? n : left;
        t.pieces.push_back(p);
        left -= p;
    }
    return t;
}

// Mostly short frames (the interesting alignments: up to two beats), some
// up to the longest.
template <unsigned W> unsigned random_len(Rng &r) {
    switch (r.range(0, 9)) {
    case 0: return r.range(1, 2 * W);
    case 1: return r.range(1000, 4166);   // up to a full WRITE FIRST's body
    default: return r.range(2 * W + 1, 300);
    }
}

}  // namespace

UNIT_TEST_WIDTHS(icrc_known_answer) {
    const uint64_t seed = unit_seed(0x7f0001);
    // The bench's CRC-32 against the standard check value, and its ICRC
    // against a frame a ConnectX-4 Lx sent.
    const std::vector<uint8_t> cnp = wire::captured_cnp();
    CHECK_EQ(cnp.size(), 74u);
    const uint8_t check[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
    CHECK_EQ(wire::crc32(check, sizeof check), 0xCBF43926u);
    CHECK(wire::icrc_ok(cnp));

    Framer<W> fr(seed);
    TxFrame t;
    t.body.assign(cnp.begin(), cnp.end() - 4);
    t.pieces = {54, 16};   // headers, then the CNP's 16 bytes
    fr.add(t);
    fr.run();
    CHECK_EQ(fr.frames_done(), 1u);
}

UNIT_TEST_WIDTHS(full_rate) {
    const uint64_t seed = unit_seed(0x7f0002);
    Framer<W> fr(seed);
    Rng r(seed);
    fr.check_full_rate = true;
    unsigned n = 0;
    for (unsigned plen : {0u, 1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 63u, 64u, 65u, 1024u, 4095u, 4096u}) {
        for (unsigned rep = 0; rep < 6; rep++) {
            fr.add(roce_frame(r, plen));
            n++;
        }
    }
    for (unsigned i = 0; i < 200; i++, n++) fr.add(roce_frame(r, r.range(0, 600)));
    fr.run();
    CHECK_EQ(fr.frames_done(), n);
    std::printf("  %u frames in %llu cycles\n", n, static_cast<unsigned long long>(fr.cycles()));
}

UNIT_TEST_WIDTHS(random_pieces) {
    const uint64_t seed = unit_seed(0x7f0003);
    Framer<W> fr(seed);
    Rng r(seed);
    const int before = rnic_check_failures();
    unsigned n = 0;
    for (unsigned round = 0; round < 12 && !unit_stop(before); round++) {
        fr.ready_pct = round == 0 ? 100 : r.range(20, 95);
        for (unsigned i = 0; i < 150; i++, n++) {
            TxFrame t = r.percent(30) ? roce_frame(r, r.range(0, 300)) : random_frame<W>(r, random_len<W>(r));
            if (r.percent(30)) {   // re-cut a RoCE frame too
                TxFrame c = random_frame<W>(r, static_cast<unsigned>(t.body.size()));
                t.pieces = c.pieces;
            }
            t.random_push = true;
            t.pause_pct = r.percent(50) ? 0 : r.range(5, 60);
            fr.add(t);
        }
        fr.run();
    }
    CHECK_EQ(fr.frames_done(), n);
    std::printf("  %u frames in %llu cycles\n", n, static_cast<unsigned long long>(fr.cycles()));
}

UNIT_TEST_WIDTHS(push_widths) {
    const uint64_t seed = unit_seed(0x7f0004);
    Framer<W> fr(seed);
    Rng r(seed);
    fr.ready_pct = 70;
    unsigned n = 0;
    for (unsigned k = 1; k <= W; k++) {
        for (unsigned len = 58; len < 58 + 2 * W; len++, n++) {
            TxFrame t = random_frame<W>(r, len);
            t.pieces = {len};
            t.max_push = k;
            fr.add(t);
        }
        for (unsigned i = 0; i < 10; i++, n++) {
            TxFrame t = random_frame<W>(r, random_len<W>(r));
            t.max_push = k;
            fr.add(t);
        }
    }
    fr.run();
    CHECK_EQ(fr.frames_done(), n);
    std::printf("  %u frames in %llu cycles\n", n, static_cast<unsigned long long>(fr.cycles()));
}

UNIT_TEST_WIDTHS(poison) {
    const uint64_t seed = unit_seed(0x7f0005);
    Framer<W> fr(seed);
    Rng r(seed);
    fr.ready_pct = 80;
    unsigned n = 0, poisoned = 0;
    for (unsigned i = 0; i < 600; i++, n++) {
        TxFrame t = roce_frame(r, r.range(0, 1200));
        t.random_push = r.percent(50);
        if (r.percent(50)) {
            t.poison = true;
            // From the first payload byte at the earliest (the engine learns of
            // a fault from the DMA read), to the very last pushed byte.
            t.poison_from = r.range(t.pieces[0], static_cast<unsigned>(t.body.size()));
            poisoned++;
        }
        fr.add(t);
    }
    fr.run();
    CHECK_EQ(fr.frames_done(), n);
    CHECK_EQ(fr.poisoned_done(), poisoned);
    std::printf("  %u frames, %u poisoned\n", n, poisoned);
}

UNIT_TEST_WIDTHS(idle_and_reset) {
    const uint64_t seed = unit_seed(0x7f0006);
    Framer<W> fr(seed);
    Rng r(seed);
    fr.ready_pct = 50;
    fr.quiet(200);   // no frame: random pushes and poison, nothing leaves, idle stays high
    for (unsigned i = 0; i < 20; i++) {
        TxFrame t = random_frame<W>(r, r.range(60, 500));
        fr.add(t);
        fr.run_until_pushed(r.range(1, static_cast<unsigned>(t.body.size()) - 1));
        fr.reset_now();   // mid-frame: idle at once, nothing of it leaves
        fr.quiet(r.range(1, 20));
        fr.add(random_frame<W>(r, r.range(1, 300)));
        fr.run();
    }
    CHECK_EQ(fr.frames_done(), 20u);
}
