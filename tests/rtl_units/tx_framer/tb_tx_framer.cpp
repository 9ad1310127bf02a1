// rnic_tx_framer (rtl/rnic_tx_framer.sv) against the bench's own ICRC
// (../common/wire_ref.h, docs/wire-format.md). The bench plays the engine:
// it starts a frame of frame_len bytes, then pushes its header, payload and
// pad as pieces of its choosing while push_ok is high, with random bytes in
// the lanes above push_n; and it plays the link, taking beats with tready
// high or low at random. Every frame that leaves is compared whole.
//
// The framer holds two frames: the one being pushed (the in-side, from its
// start to the cycle its ICRC goes into the byte queue) and the one whose
// beats are leaving (the out-side, until its last beat has gone from the
// queue into the two-beat output FIFO). The bench starts a frame as
// rnic_tx_gather does, only in a cycle after one with free_next high (the
// gather registers its start from it), so while the last frame's ICRC or
// beats are still on their way; and it pushes the new frame's first bytes
// in the start's own cycle when push_ok allows, never noise there (a push
// then is the new frame's).
//
// Every test runs at each datapath width W the framer is verilated at
// (issue 12): as `name` at W = 8, the default, and as w16_name, w32_name and
// w64_name in a build with RNIC_UNIT_WIDTHS. "W" below is that width.
//
// Checked on every cycle of every test: tkeep contiguous from bit 0 and all
// ones except on the last beat; a beat offered and not taken is offered
// again unchanged; frames leave in start order, each the bytes pushed, in
// order, then the ICRC of docs/wire-format.md (least significant byte
// first), frame_len bytes in all, its last beat its own (the next frame
// starts at byte 0 of a beat); `idle` is high exactly when no frame is
// started and not yet gone. And push_ok, free_next, busy, idle and tvalid
// equal, cycle by cycle, what the contract makes of what the bench drove
// alone (Held below: the bench's count of the bytes in the 3W-byte queue,
// of the lengths in the two-entry FIFO, of the beats in the output FIFO):
// push_ok = (start or a body not complete) and W bytes of space; the ICRC
// appended once the body is complete and there are 4; free_next = no start,
// the in-side free or appending now, and room for a second frame (or the
// out-side's last beat going now). So the noise the bench drives while no
// frame is being pushed and none starts (push, poison, frame_len) must find
// push_ok low. W enters none of these but the all-ones tkeep, W ones, and
// the queue's size.
//
//   icrc_known_answer  a RoCEv2 CNP frame captured from a ConnectX-4 Lx: the
//                      framer appends the ICRC the adapter sent
//   full_rate          pushed as the engine does (header, payload, pad, up
//                      to W bytes a cycle from each piece's start), link
//                      always ready: push_ok never drops inside a body (nor
//                      in a start's cycle), and a beat of the frame at the
//                      head leaves in every cycle that has one's worth of
//                      its bytes pushed two cycles before (the ICRC three
//                      cycles after the last body byte), whatever of the
//                      next frame is queued behind: no bubble of the
//                      framer's, with the same two and three cycles at
//                      every W
//   random_pieces      pieces of random sizes pushed 1..W bytes at a time,
//                      with pauses, random back-pressure on the output,
//                      then short frames on a slow link (one all in while
//                      the last waits to leave); a frame must have started
//                      while another was leaving, and free_next must have
//                      been held low by two frames held, or the test did
//                      not reach what is new
//   push_widths        every push width 1..W held for whole frames, frame
//                      lengths of every residue mod W, back-pressure
//   poison             frames poisoned from a random point on leave with an
//                      ICRC that is not theirs (the rest intact); the frame
//                      after a poisoned one is right, though it starts while
//                      the poisoned one's ICRC is going in
//   idle_and_reset     nothing leaves without a frame whatever the inputs;
//                      a reset in the middle of a frame leaves the framer
//                      idle and the next frame right
//   back_to_back       what the second frame is for: frames of every
//                      residue mod W, header-sized to 4 KiB + header,
//                      pushed W bytes a cycle from the start's cycle (as
//                      the gather does), link always ready. Each beat
//                      leaves in the exact cycle the timing of full_rate
//                      gives; each frame starts the cycle after the last
//                      one's ICRC went in; its first beat leaves the cycle
//                      after the last one's last (a frame of less than W
//                      body bytes: not before its ICRC can, three cycles
//                      after its start). And bodies that are multiples of W
//                      take sum(body/W + 1) + 2 cycles from the first start
//                      to the last beat: a beat on the wire in every cycle
//                      but the two a byte takes through the framer
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <type_traits>
#include <utility>
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

// When a frame that has left did what: the cycles of its start and of its
// first and last beats taken by the link.
struct Sent {
    uint64_t start, first_beat, last_beat;
    unsigned len;   // frame_len
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
    unsigned start_pct = 70;    // chance the engine starts a frame in a cycle it may
    bool check_full_rate = false;
    bool check_exact_rate = false;   // every beat leaves in the cycle the byte timing gives (link always ready)

    void add(const TxFrame &f) { todo_.push_back(f); }

    void reset() {
        dut_->rst_n = 0;
        dut_->start = 0;
        dut_->push_n = 0;
        dut_->tx_tready = 0;
        for (int i = 0; i < 2; i++) clock();
        dut_->rst_n = 1;
        todo_.clear();
        sent_.clear();
        forget();
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
        forget();
        dut_->eval();
        CHECK(dut_->idle);
        CHECK(!dut_->tx_tvalid);
        CHECK(!dut_->busy);
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

    // Cycles in which no frame is started; while the framer has none being
    // pushed, the inputs it must ignore (push, poison, frame_len) are random.
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
    const std::vector<Sent> &sent() const { return sent_; }
    // What of the two-frame contract a run reached: starts while the last
    // frame still had beats to move, and cycles with free_next low only
    // because two frames were held.
    uint64_t starts_while_leaving() const { return starts_while_leaving_; }
    uint64_t two_held_cycles() const { return two_held_cycles_; }

private:
    // The frame being pushed (gone once its last byte is).
    struct Current {
        TxFrame f;
        unsigned piece = 0, piece_left = 0;
        unsigned pushed = 0;
    };
    struct Expect {
        std::vector<uint8_t> frame;   // body + ICRC
        bool poison = false;
        // For the timing checks: the cycles of its pushes, the bytes in
        // after each, the cycle its last body byte went in, its start's and
        // its first beat's.
        std::vector<uint64_t> push_cycle;
        std::vector<unsigned> push_total;
        uint64_t body_cycle = ~0ull;
        uint64_t start_cycle = 0, first_beat = ~0ull;
        // Body bytes pushed in cycles up to c.
        unsigned pushed_by(uint64_t c) const {
            for (size_t i = push_cycle.size(); i-- > 0;)
                if (push_cycle[i] <= c) return push_total[i];
            return 0;
        }
        // The cycle body byte i was pushed in.
        uint64_t pushed_in(unsigned i) const {
            for (size_t k = 0; k < push_total.size(); k++)
                if (push_total[k] > i) return push_cycle[k];
            return ~0ull;
        }
    };

    // What the framer holds by its contract, counted by the bench from what
    // it drove alone (start, frame_len, push_n, tready), to tell what each
    // output must be in every cycle. Sizes: the byte queue holds 3W bytes
    // (rnic_byte_queue's), the lengths FIFO two frames, the output FIFO two
    // beats; the queue and both FIFOs are registers (a push is there the
    // next cycle).
    struct Held {
        bool in = false;              // a frame being pushed: from its start to its ICRC's append
        unsigned body_left = 0;       // its body bytes not pushed yet
        unsigned queued = 0;          // bytes in the byte queue
        std::deque<unsigned> lens;    // frames with beats not yet in the output FIFO, oldest first
        unsigned emitted = 0;         // bytes of lens.front() gone to the output FIFO
        unsigned beats = 0;           // beats in the output FIFO
    };
    // What it shows in a cycle.
    struct Shown {
        bool push_ok = false, appending = false, pop = false, pop_last = false;
        unsigned pop_n = 0;
        bool free_next = false, busy = false, idle = false, tvalid = false;
    };
    Shown shown(bool start) const {
        const Held &h = held_;
        Shown s;
        const unsigned space = 3 * W - h.queued;
        const bool need_crc = h.in && h.body_left == 0;
        s.appending = need_crc && space >= wire::kIcrcBytes;
        s.push_ok = (start || (h.in && !need_crc)) && space >= W;
        if (!h.lens.empty()) {
            // The out-side's next beat: W bytes, or what is left of its
            // frame (never bytes of the next); once they are all queued and
            // the output FIFO has room.
            const unsigned left = h.lens.front() - h.emitted;
            s.pop_n = left < W ? left : W;
            s.pop = h.queued >= s.pop_n && h.beats < 2;
            s.pop_last = s.pop && left <= W;
        }
        s.free_next = !start && (!h.in || s.appending) && (h.lens.size() < 2 || s.pop_last);
        s.busy = h.in || !h.lens.empty();
        s.tvalid = h.beats > 0;
        s.idle = !start && !s.busy && !s.tvalid;
        return s;
    }
    void advance(const Shown &s, bool start, unsigned len, unsigned push_n, bool taken) {
        Held &h = held_;
        const unsigned n = s.push_ok ? push_n : 0;
        h.queued += s.appending ? wire::kIcrcBytes : n;
        h.queued -= s.pop ? s.pop_n : 0;
        if (s.pop_last) {
            h.lens.pop_front();
            h.emitted = 0;
        } else if (s.pop) {
            h.emitted += s.pop_n;
        }
        if (start) {
            h.in = true;
            h.body_left = len - wire::kIcrcBytes;
            h.lens.push_back(len);
        } else if (s.appending) {
            h.in = false;
        }
        h.body_left -= n <= h.body_left ? n : h.body_left;   // the framer's assertion catches more
        h.beats += s.pop ? 1 : 0;
        h.beats -= s.tvalid && taken ? 1 : 0;
    }

    // The framer's outputs in this cycle, with all its inputs driven,
    // against what Held says; then Held moves on to the next cycle.
    void check_held(bool start) {
        Model &d = *dut_;
        const Shown s = shown(start);
        if (d.push_ok != s.push_ok || d.free_next != s.free_next || d.busy != s.busy || d.idle != s.idle ||
            d.tx_tvalid != s.tvalid)
            std::fprintf(stderr,
                         "  cycle %llu: push_ok %u free_next %u busy %u idle %u tvalid %u, expected %u %u %u %u %u"
                         " (start %u; held: %s, %u body bytes left, %u queued, %zu frames, %u beats out)\n",
                         static_cast<unsigned long long>(cycle_), d.push_ok, d.free_next, d.busy, d.idle,
                         d.tx_tvalid, s.push_ok, s.free_next, s.busy, s.idle, s.tvalid, start,
                         held_.in ? "pushing" : "none pushed", held_.body_left, held_.queued, held_.lens.size(),
                         held_.beats);
        CHECK_EQ(d.push_ok, s.push_ok);
        CHECK_EQ(d.free_next, s.free_next);
        CHECK_EQ(d.busy, s.busy);
        CHECK_EQ(d.idle, s.idle);
        CHECK_EQ(d.tx_tvalid, s.tvalid);
        if (start && !held_.lens.empty()) starts_while_leaving_++;
        if (!start && (!held_.in || s.appending) && held_.lens.size() == 2 && !s.pop_last) two_held_cycles_++;
        advance(s, start, d.frame_len, d.push_n, d.tx_tready);
    }

    // Nothing under way (a reset): the frames, pushes and beats the bench
    // knew of are gone with it.
    void forget() {
        cur_.reset();
        out_.clear();
        expect_.clear();
        held_ = Held{};
        offered_ = false;
        free_before_ = false;   // the first cycle after a reset starts nothing
        last_beat_ = 0;
        poison_ = false;
    }

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
        if (!held_.in) {
            // No frame being pushed: push, poison and frame_len are noise,
            // unless a start below makes this the new frame's first cycle.
            d.push_n = static_cast<uint8_t>(rng_.range(0, W));
            vlport::randomize(d.push_data, rng_);
            d.poison = rng_.percent(50);
            d.frame_len = static_cast<uint16_t>(rng_.u32());
        } else {
            d.push_n = 0;
            vlport::randomize(d.push_data, rng_);   // lanes above push_n carry noise
            d.poison = poison_;                     // read when its ICRC goes in
        }
        d.eval();

        // idle: exactly when no frame is started and not yet gone.
        const bool want_idle = expect_.empty();
        if (d.idle != want_idle)
            std::fprintf(stderr, "  cycle %llu: idle %u, expected %u\n", static_cast<unsigned long long>(cycle_),
                         d.idle, want_idle);
        CHECK_EQ(d.idle, want_idle);

        // The engine: start the next frame in a cycle after one with
        // free_next high (whatever of the last frame is still leaving), then
        // push from the start's own cycle on.
        const bool start = may_start && free_before_ && !cur_ && !todo_.empty() && rng_.percent(start_pct);
        if (start) {
            cur_.reset(new Current);
            cur_->f = todo_.front();
            todo_.pop_front();
            cur_->piece_left = cur_->f.pieces[0];
            d.start = 1;
            d.frame_len = static_cast<uint16_t>(cur_->f.body.size() + wire::kIcrcBytes);
            d.push_n = 0;   // the new frame's bytes or none: never noise
            d.poison = poison_ = false;
            Expect e;
            e.frame = cur_->f.body;
            e.poison = cur_->f.poison;
            e.start_cycle = cycle_;
            wire::append_icrc(e.frame);
            expect_.push_back(e);
            d.eval();   // push_ok may rise with start
        }
        if (cur_ && check_full_rate && !d.push_ok) {
            // The link takes every beat: the framer must take every push.
            std::fprintf(stderr, "  cycle %llu: push_ok low in the middle of a frame body%s\n",
                         static_cast<unsigned long long>(cycle_), start ? " (its start's cycle)" : "");
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
            // Poison, once raised, stays up until the ICRC is in (as the
            // engine's does, until its next frame starts).
            if (c.f.poison && c.pushed >= c.f.poison_from) poison_ = true;
            d.poison = poison_;
            if (c.pushed == c.f.body.size()) cur_.reset();
        }
        d.eval();
        check_held(start);
        free_before_ = d.free_next;

        monitor();
        clock();
    }

    void monitor() {
        Model &d = *dut_;
        if (check_full_rate && !expect_.empty()) {
            // With the link always ready the framer adds no bubble: a beat
            // of the frame at the head leaves in every cycle for which enough
            // of its bytes went in early enough. A byte pushed in cycle c can
            // leave in c + 2 (byte queue, then the output FIFO); the ICRC goes
            // in the cycle after the last body byte, so it can leave from 3
            // cycles after it. The next frame's bytes queued behind count for
            // nothing here: the head frame's last beat holds none of them.
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
        if (offered_) {   // offered and not taken last cycle: offered again, unchanged
            CHECK(d.tx_tvalid);
            CHECK(vlport::equal(d.tx_tdata, offered_data_));
            CHECK_EQ(d.tx_tkeep, offered_keep_);
            CHECK_EQ(d.tx_tlast, offered_last_);
        }
        offered_ = d.tx_tvalid && !d.tx_tready;
        offered_data_ = d.tx_tdata;
        offered_keep_ = d.tx_tkeep;
        offered_last_ = d.tx_tlast;
        if (!(d.tx_tvalid && d.tx_tready)) return;

        const uint64_t keep = d.tx_tkeep;
        CHECK(keep != 0 && (keep & (keep + 1)) == 0);   // contiguous from bit 0
        if (!d.tx_tlast) CHECK_EQ(keep, vlport::lanes(W));
        CHECK(!expect_.empty());   // nothing leaves that was not started
        if (expect_.empty()) return;
        Expect &e = expect_.front();
        if (check_exact_rate) {
            // The exact cycle of this beat, the link always ready: one beat
            // a cycle at most (the last frame's included), and not before
            // its last byte can leave (pushed in c: from c + 2; the ICRC:
            // from 3 cycles after the last body byte).
            const size_t out = out_.size();
            const size_t body = e.frame.size() - wire::kIcrcBytes;
            const size_t last = (e.frame.size() - out < W ? e.frame.size() : out + W) - 1;
            const uint64_t avail = last < body ? e.pushed_in(static_cast<unsigned>(last)) + 2 : e.body_cycle + 3;
            const uint64_t want = avail > last_beat_ + 1 ? avail : last_beat_ + 1;
            if (cycle_ != want)
                std::fprintf(stderr, "  cycle %llu: beat of bytes %zu..%zu of a frame of %zu, expected in cycle %llu\n",
                             static_cast<unsigned long long>(cycle_), out, last, e.frame.size(),
                             static_cast<unsigned long long>(want));
            CHECK_EQ(cycle_, want);
        }
        last_beat_ = cycle_;
        if (e.first_beat == ~0ull) e.first_beat = cycle_;
        for (unsigned i = 0; i < W; i++)
            if (keep >> i & 1) out_.push_back(vlport::get_byte(d.tx_tdata, i));
        if (!d.tx_tlast) {
            CHECK(out_.size() < e.frame.size());   // not past its length without tlast
            return;
        }
        finish_frame();
    }

    void finish_frame() {
        const Expect e = expect_.front();
        expect_.pop_front();
        const std::vector<uint8_t> &want = e.frame;
        const size_t body = want.size() - wire::kIcrcBytes;
        // Its own bytes and no more: the last beat holds none of the next
        // frame's (which then starts a beat of its own).
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
        sent_.push_back(Sent{e.start_cycle, e.first_beat, cycle_, static_cast<unsigned>(want.size())});
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
    std::vector<Sent> sent_;
    Held held_;
    bool free_before_ = false;   // free_next in the last cycle: a start may be registered from it
    uint64_t last_beat_ = 0;     // the cycle the last beat was taken in
    bool offered_ = false;      // a beat offered and not taken last cycle
    Data offered_data_{};
    uint64_t offered_keep_ = 0;
    bool offered_last_ = false;
    bool poison_ = false;
    unsigned push_stop_ = ~0u;   // no push past this many bytes of the frame (run_until_pushed)
    uint64_t frames_done_ = 0, poisoned_done_ = 0;
    uint64_t starts_while_leaving_ = 0, two_held_cycles_ = 0;
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
    // Short frames on a slow link: one is all in (its ICRC too) while the
    // last still waits to leave, so free_next waits for it (two held).
    fr.ready_pct = 30;
    for (unsigned i = 0; i < 150; i++, n++) {
        TxFrame t = random_frame<W>(r, r.range(1, 2 * W));
        t.random_push = r.percent(50);
        fr.add(t);
    }
    fr.run();
    CHECK_EQ(fr.frames_done(), n);
    // What only two frames held can do, reached: or the checks above said
    // nothing of it.
    CHECK(fr.starts_while_leaving() > 0);
    CHECK(fr.two_held_cycles() > 0);
    std::printf("  %u frames in %llu cycles, %llu started while one was leaving, %llu cycles with two held\n", n,
                static_cast<unsigned long long>(fr.cycles()), static_cast<unsigned long long>(fr.starts_while_leaving()),
                static_cast<unsigned long long>(fr.two_held_cycles()));
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

// A frame pushed as rnic_tx_gather pushes one: W bytes a cycle from the
// start's cycle on, its body in one piece.
TxFrame gather_frame(Rng &r, unsigned len) {
    TxFrame t;
    for (unsigned i = 0; i < len; i++) t.body.push_back(r.byte());
    t.pieces = {len};
    return t;
}

UNIT_TEST_WIDTHS(back_to_back) {
    const uint64_t seed = unit_seed(0x7f0007);
    Rng r(seed);
    const unsigned most = 4096 + 70;   // a WRITE FIRST's body: 4 KiB and its headers
    {
        // Bodies of every residue mod W, header-sized ones (frames of 28..90
        // bytes), multiples of W and long ones, in a random order.
        std::vector<unsigned> bodies;
        for (unsigned res = 0; res < W; res++) bodies.push_back(W * r.range(0, most / W - 1) + res + (res ? 0 : W));
        for (unsigned i = 0; i < 40; i++) {
            switch (r.range(0, 2)) {
            case 0: bodies.push_back(r.range(24, 86)); break;
            case 1: bodies.push_back(W * r.range(1, most / W)); break;
            default: bodies.push_back(r.range(87, most)); break;
            }
        }
        for (size_t i = bodies.size(); i > 1; i--) std::swap(bodies[i - 1], bodies[r.range(0, static_cast<uint32_t>(i - 1))]);
        Framer<W> fr(seed);
        fr.start_pct = 100;   // each frame as soon as the framer takes it
        fr.check_full_rate = true;
        fr.check_exact_rate = true;
        for (unsigned b : bodies) fr.add(gather_frame(r, b));
        fr.run();
        CHECK_EQ(fr.frames_done(), bodies.size());
        const std::vector<Sent> &s = fr.sent();
        for (size_t k = 0; k + 1 < s.size(); k++) {
            const unsigned body = s[k].len - wire::kIcrcBytes, next_body = s[k + 1].len - wire::kIcrcBytes;
            // Pushed in ceil(body / W) cycles from its start, its ICRC in the
            // cycle after the last, the next frame started the cycle after
            // that (free_next was high with the append).
            const uint64_t start = s[k].start + (body + W - 1) / W + 1;
            // Its first beat: the cycle after this frame's last (this one's
            // ICRC left no earlier than 3 cycles after its last body byte,
            // which is the next start + 1), unless that beat holds the next
            // frame's ICRC too (a body under W bytes), which leaves from 3
            // cycles after the next start's push.
            uint64_t first = s[k].last_beat + 1;
            if (next_body < W && first < s[k + 1].start + 3) first = s[k + 1].start + 3;
            if (s[k + 1].start != start || s[k + 1].first_beat != first)
                std::fprintf(stderr, "  frame %zu (body %u after one of %u): started in %llu, expected %llu; first beat in %llu, expected %llu\n",
                             k + 1, next_body, body, static_cast<unsigned long long>(s[k + 1].start),
                             static_cast<unsigned long long>(start), static_cast<unsigned long long>(s[k + 1].first_beat),
                             static_cast<unsigned long long>(first));
            CHECK_EQ(s[k + 1].start, start);
            CHECK_EQ(s[k + 1].first_beat, first);
        }
        std::printf("  %zu frames of every residue mod %u in %llu cycles\n", s.size(), W,
                    static_cast<unsigned long long>(s.empty() ? 0 : s.back().last_beat - s.front().start + 1));
    }
    {
        // Bodies of m W bytes: pushed in m cycles, the ICRC appended in the
        // next, so the next frame starts m + 1 cycles after this one and its
        // beats (m + 1: m of the body, one of the ICRC) leave in the m + 1
        // cycles from 2 after the start. From the first start to the last
        // beat: sum(m + 1) cycles, one beat in each, and the 2 a byte takes
        // through the framer (byte queue, output FIFO) before the first.
        // The one-frame framer took m + 3 a frame (a start only once the
        // last beat was going, and no push in the start's cycle): 2 idle
        // cycles between frames.
        Framer<W> fr(seed ^ 0x5A5A);
        fr.start_pct = 100;
        fr.check_full_rate = true;
        fr.check_exact_rate = true;
        uint64_t want = 2;
        for (unsigned i = 0; i < 40; i++) {
            const unsigned m = i < 10 ? i % 3 + 1 : r.range(1, most / W);
            fr.add(gather_frame(r, m * W));
            want += m + 1;
        }
        fr.run();
        CHECK_EQ(fr.frames_done(), 40u);
        const std::vector<Sent> &s = fr.sent();
        const uint64_t took = s.empty() ? 0 : s.back().last_beat - s.front().start + 1;
        if (took != want)
            std::fprintf(stderr, "  %zu frames of whole beats in %llu cycles, expected %llu\n", s.size(),
                         static_cast<unsigned long long>(took), static_cast<unsigned long long>(want));
        CHECK_EQ(took, want);
        std::printf("  40 frames of whole beats in %llu cycles, sum(body / W + 1) + 2 = %llu\n",
                    static_cast<unsigned long long>(took), static_cast<unsigned long long>(want));
    }
}
