// rnic_tx_gather (rtl/rnic_tx_gather.sv) against its header comment, at
// datapath width W = 8 (the tests named below) and 16, 32 and 64 (w16_*,
// w32_*, w64_*, in a build with RNIC_UNIT_WIDTHS: each test is a template on
// W, the gather verilated with -GW=<W>). The bench plays everything around it: the engine (start held with steady
// header fields until done, random gaps between frames, noise on every
// input while start is low), the scatter/gather cursor (../common/sg_model.h,
// a list of segments answering seg_more / seg_rem / seg_addr / seg_base and
// taking seg_next / seg_take), the DMA read port (a random latency after
// each request, random stalls between beats, beats of W bytes packed from
// the burst's first byte, from a host memory
// whose byte at address a is a hash of a, noise in the lanes above a last
// beat's bytes, a chosen burst refused: every beat err with data 0) and the
// framer (busy from the cycle after fr_start until its body is in and a
// random drain after, push_ok at random while the body is not complete).
// The engine also drives the prefetch port: pf_plen / pf_id with start
// (noise without it; 0 in the tests that do not prefetch, so none may be
// asked for), pf_keep low at random or where a test says; the host memory
// is one per message (a salt), so a prefetched burst must hold the next
// packet's bytes.
//
// Checked on every cycle of every test:
//   - started exactly when start is high, no frame is under way and the
//     framer is free; fr_start the cycle after, with fr_len the frame's
//     length (headers + plen + pad + ICRC); done only inside a frame, once,
//     in the cycle its last byte is pushed when it has no pad (and that
//     byte was not refused);
//   - the bytes pushed are the headers of ../common/wire_ref.h's encoder
//     for the fields driven, then the payload (the bytes of the reference
//     cut's bursts in order, zeros for a refused one), then pad zero
//     bytes; nothing pushed without push_ok or past the frame's body; each
//     payload push is one DMA beat's bytes, exactly;
//   - at done the whole body is in (the last byte, or the pad, pushed in
//     done's cycle), every burst requested and answered, no beat held
//     (only the frame's own prefetch may still be owed);
//   - each DMA read request (but a prefetch) is the reference cut's next burst: at the
//     cursor's address, 1..MTU bytes, within the current segment, with
//     seg_take / seg_take_n in its handshake cycle; a request not taken is
//     offered again unchanged; seg_next only on a used-up segment;
//   - while the headers go out (from the cycle of started until the last
//     header beat is pushed) rd_req_valid exactly when no request of
//     the frame has been taken yet, there is payload, the segment at the
//     cursor has bytes and no prefetch is taken: the first burst is asked
//     for during the headers, never a second one, and an empty segment at
//     the cursor waits for the headers to end (it is stepped past after
//     them, as before);
//   - rd_rsp_ready, exactly (the register, not the DMA's pace, sets it):
//     high while a prefetch is thrown away; otherwise high only in G_DATA
//     (after the headers, a burst of the frame owed) or already in the
//     last header beat's cycle when the first burst was asked for before
//     it (so the payload follows the headers with no idle cycle), and then
//     only while the register is empty or its beat goes and is not its
//     burst's last (the beats behind a last belong to the next burst,
//     perhaps a prefetch the next frame takes); idle exactly when no beat
//     is held and no prefetch is owed;
//   - the prefetch, against the bench's own copy of its rule: asked for
//     exactly in the cycles the rule allows (every burst of the frame asked
//     for in an earlier cycle, still in G_HDR or G_DATA, none owed,
//     pf_plen and the segment at the cursor non-zero), for min(pf_plen,
//     seg_rem, MTU) bytes at the cursor, without seg_take; pf_busy,
//     pf_drop and pf_held_id every cycle; a frame starting with the same
//     pf_id, address and first piece (and no pf_keep low since the
//     request while its frame went on) asks for nothing in started and
//     takes seg_take / seg_take_n there, the prefetched beats its first
//     burst (bytes, faults and poison as for one); any other start,
//     pf_keep low while idle, or a doomed prefetch once idle, throws it
//     away: its beats never in the register, never pushed, no fault, the
//     pf_busy to its last; a beat of a held prefetch never taken;
//   - fault in the cycle after each refused beat reaches the framer, never
//     otherwise, with fault_addr the low 32 bits of its segment's start;
//   - poison (and fr_poison, the same) low in a frame until a refused beat
//     has been pushed (or the list has run dry), high from the cycle after
//     that beat; at done high exactly for a frame with a refused burst or a
//     list that ran dry; readable after done until the next frame starts;
//     what the framer latches when the body is complete is that value.
//
//   single_segment  every opcode; payload 0..20, around beat and MTU edges
//                   (63..65 and 127..129 are beat edges at every W), up to
//                   MTU; one segment at each byte alignment of a beat; with
//                   and without back-pressure
//   multi_segment   lists of up to 6 segments, empty ones among them, the
//                   cursor inside the list (a later packet of a message),
//                   unaligned everywhere, random back-pressure and latency
//   mtu_split       payloads past one MTU (beyond what the engine sends) in
//                   long segments: no read request over MTU bytes
//   read_error      a refused burst (first, middle, last, single-beat):
//                   zeros pushed in its place, fault and fault_addr per beat,
//                   poison at done and until the next start, which clears
//                   it; the frames after it clean
//   list_dry        lists short by 1 byte to all of it, and none at all:
//                   poison and done, headers + the bytes the list held + pad,
//                   nothing read past the list (see the note at the test)
//   cycle_count     framer always taking, DMA with a fixed latency L (1, 2,
//                   3, 7..10, 20, and 4..6 at W > 8, where the headers are
//                   1 to 5 beats: both sides of the header/latency overlap
//                   at every W) and no stall: done comes exactly as many
//                   cycles after started as the formula at the test says --
//                   the first burst requested in started's cycle, its first
//                   beat taken at max(last header beat, request + L); the
//                   later timing when the segment at the cursor is empty
//                   (lists forced so at every latency) -- the engine's
//                   cycle figures rest on it
//   reset_mid_frame rst_n low at a random point of a frame: poison low, idle,
//                   and the next frame whole
//   prefetch_hit    messages of 2..6 packets, each pf_plen the next's:
//                   with no back-pressure every prefetch the rule allows is
//                   taken (exact count), and a hit frame whose beats wait
//                   already is timed by the formula with its first beat at
//                   the last header beat whatever L (what the prefetch is
//                   for); then random back-pressure and latency
//   prefetch_drop   each way to throw a prefetch away (another pf_id,
//                   address or first piece; pf_keep low while idle; pf_keep
//                   low mid-frame, doomed although the next frame matches;
//                   a refused one) beside hits, the next frame starting
//                   during the drop or after it: exact counts of drops and
//                   dropped beats without back-pressure, then with it
//   prefetch_error  a refused prefetch taken (the frame poisoned, a fault
//                   per beat, as a refused first burst) and dropped
//                   (nothing), at any pace
//   random_run      thousands of frames: random opcodes, fields, pads,
//                   lists, errors, latencies and back-pressure; messages
//                   prefetching one another, with wrong pf_plen, refused
//                   prefetches and pf_keep low at random
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <type_traits>
#include <vector>

#include "Vrnic_tx_gather.h"
#if RNIC_UNIT_WIDTHS
#include "Vrnic_tx_gather_w16.h"
#include "Vrnic_tx_gather_w32.h"
#include "Vrnic_tx_gather_w64.h"
#endif
#include "rnic_hw.h"
#include "sg_model.h"
#include "unit_bench.h"
#include "verilated.h"
#include "vl_port.h"
#include "wire_ref.h"

namespace {

constexpr uint32_t kMtu = RNIC_MTU;

// The gather verilated at width W: with its default at 8, with -GW=<W>
// (CMakeLists.txt) at the others.
UNIT_MODELS(GatherModel, Vrnic_tx_gather)

// rnic_pkg::HDR_EXT_* (rtl_only in rnic.toml, so not in rnic_hw.h).
constexpr unsigned kExtNone = 0, kExtReth = 1, kExtAeth = 2;
unsigned ext_port(wire::Ext e) {
    return e == wire::Ext::RETH ? kExtReth : e == wire::Ext::AETH ? kExtAeth : kExtNone;
}

uint32_t min3(uint32_t a, uint32_t b, uint32_t c) {
    const uint32_t m = a < b ? a : b;
    return m < c ? m : c;
}

// Host memory: the byte at address a, a hash of a and the frame's salt.
uint8_t mem_byte(uint64_t a, uint64_t salt) {
    uint64_t z = (a ^ salt) * 0x9E3779B97F4A7C15ull;
    z ^= z >> 29;
    z *= 0xBF58476D1CE4E5B9ull;
    z ^= z >> 32;
    return static_cast<uint8_t>(z >> 24);
}

// pf_id is PF_ID_W = 1 bit (the gather's default): two message names.
constexpr unsigned kPfIdMask = 1;

// Where the engine drops pf_keep for a frame (one cycle), to make the gather
// throw a held prefetch away.
enum class KeepLow {
    None,
    Gap,   // the first cycle of the gap before this frame: the gather idle
    Mid,   // the first cycle this frame's own prefetch is held, the frame still under way
};

// One frame for the gather to send.
struct TxJob {
    wire::Fields f;            // payload_len is plen, pad is the pad port
    sg::List list;             // the cursor, loaded before start
    int err_burst = -1;        // the DMA refuses this burst of the frame (0 = first)
    uint64_t salt = 0;         // the host memory's contents (one per message: a hit reads the next packet's bytes)
    unsigned gap = 0;          // cycles with start low before it
    uint16_t pf_plen = 0;      // the prefetch port, driven with start
    unsigned pf_id = 0;
    bool pf_err = false;       // the DMA refuses the prefetch this frame asks for
    KeepLow keep_low = KeepLow::None;
};

template <unsigned W> class Gather {
    using Model = typename GatherModel<W>::type;
    using Data = std::remove_reference_t<decltype(Model::rd_rsp_data)>;   // uint64_t, or VlWide past 8 bytes

public:
    explicit Gather(uint64_t seed)
        : ctx_(unit_context(seed)), dut_(new Model(ctx_.get())), rng_(seed ^ 0x6A7E) {
        reset();
    }
    ~Gather() { dut_->final(); }

    // The environment's pace, in percent a cycle.
    unsigned push_ok_pct = 100;    // the framer takes a push
    unsigned req_ready_pct = 100;  // the DMA takes a request
    unsigned rsp_pct = 100;        // the DMA presents a due beat
    unsigned lat_min = 1, lat_max = 1;   // cycles from a request to its first beat
    unsigned drain_max = 0;        // cycles the framer stays busy after its body
    unsigned keep_low_pct = 50;    // pf_keep low (noise where no prefetch is asked for)

    void add(const TxJob &j) { todo_.push_back(j); }

    void reset() {
        Model &d = *dut_;
        d.rst_n = 0;
        d.start = 0;
        d.fr_free = 1;
        d.fr_push_ok = 0;
        d.rd_req_ready = 0;
        d.rd_rsp_valid = 0;
        for (int i = 0; i < 2; i++) clock();
        d.rst_n = 1;
        forget();
    }

    // rst_n low for one cycle in the middle of whatever is under way; the
    // framer and the DMA are reset with it.
    void reset_now() {
        dut_->rst_n = 0;
        dut_->start = 0;
        dut_->rd_rsp_valid = 0;
        clock();
        dut_->rst_n = 1;
        forget();
        dut_->eval();
        CHECK(!dut_->poison);
        CHECK(dut_->idle);
        CHECK(!dut_->done && !dut_->started);
    }

    // Runs until every frame added is done, or max_cycles.
    void run(uint64_t max_cycles = 3000000) {
        const uint64_t end = cycle_ + max_cycles;
        const int before = rnic_check_failures();
        while ((!todo_.empty() || cur_) && cycle_ < end && !unit_stop(before)) step();
        // A prefetch still held: pf_keep low, so the gather throws it away
        // and the next run starts on an empty read channel.
        drop_all_ = true;
        for (unsigned i = 0; i < 10000 && pf_ != Pf::None && !unit_stop(before); i++) step();
        drop_all_ = false;
        CHECK(pf_ == Pf::None);
        // The last frame's framer drains; a few quiet cycles check that
        // poison stays and nothing moves.
        for (unsigned i = 0; i < 4 && !unit_stop(before); i++) step();
        CHECK(todo_.empty() && !cur_);
        CHECK(bursts_.empty());
        if (!todo_.empty() || cur_)
            std::fprintf(stderr, "  stuck at cycle %llu: %zu frames to start, %s\n",
                         static_cast<unsigned long long>(cycle_), todo_.size(),
                         cur_ ? (in_frame_ ? "one under way" : "one waiting to start") : "none under way");
    }

    // Runs the next frame until `n` of its body bytes are pushed.
    void run_until_pushed(unsigned n, uint64_t max_cycles = 200000) {
        const uint64_t end = cycle_ + max_cycles;
        while (!(cur_ && in_frame_ && cur_->pushed >= n) && cycle_ < end) step();
        CHECK(cur_ && in_frame_ && cur_->pushed >= n);
    }

    uint64_t frames() const { return frames_; }
    uint64_t poisoned() const { return poisoned_; }
    uint64_t faults() const { return faults_; }
    uint64_t bursts() const { return bursts_total_; }
    uint64_t nexts() const { return nexts_total_; }
    uint64_t short_frames() const { return short_frames_; }
    uint64_t cycles() const { return cycle_; }
    // started -> done of the last frame, in cycles.
    uint64_t last_frame_cycles() const { return last_done_ - last_started_; }
    // started -> done of every frame, in order.
    const std::vector<uint64_t> &frame_cycles() const { return frame_cycles_; }
    // The prefetch: requests taken, taken by the next frame, thrown away (by
    // cause: a frame starting that does not match, pf_keep low while idle,
    // pf_keep low while its own frame was under way) and the beats thrown away.
    uint64_t pf_requests() const { return pf_requests_; }
    uint64_t pf_hits() const { return pf_hits_; }
    uint64_t pf_drops_start() const { return pf_drops_start_; }
    uint64_t pf_drops_keep() const { return pf_drops_keep_; }
    uint64_t pf_drops_doomed() const { return pf_drops_doomed_; }
    uint64_t pf_drops() const { return pf_drops_start_ + pf_drops_keep_ + pf_drops_doomed_; }
    uint64_t pf_dropped_beats() const { return pf_dropped_beats_; }

private:
    // The frame under way (or waiting to start), with what it must give.
    struct Frame {
        TxJob job;
        std::vector<uint8_t> expect;   // headers + payload (refused bursts as zeros) + pad
        unsigned hdr_len = 0;
        uint16_t frame_len = 0;
        sg::Cut cut;
        bool dry = false;              // the list holds fewer than plen bytes
        bool cause = false;            // poison expected at done
        unsigned pushed = 0;           // body bytes pushed
        unsigned payload_pushed = 0;
        size_t next_burst = 0;         // cut.pieces index of the next request
        unsigned owed = 0;             // bursts requested (or taken from a prefetch) whose last beat is not pushed
        bool err_pushed = false;       // a refused beat has reached the framer
        bool keep_dropped = false;     // KeepLow::Mid done
        // Every byte of the payload requested: only a prefetch may follow.
        bool all_requested() const { return !dry && next_burst == cut.pieces.size(); }
    };
    struct Burst {
        uint32_t len;
        unsigned beats, sent = 0;
        uint64_t due;
        bool err;
        uint64_t addr, base, salt;
        bool pf = false;               // a prefetch no frame has taken (yet)
    };
    struct Held {   // a beat in the payload register
        unsigned n;
        bool err;
        uint64_t base;
        bool last;                     // its burst's last
    };
    // The gather's prefetch, as the bench expects it: none, held for the
    // next frame, or being thrown away.
    enum class Pf { None, Held, Drop };

    void forget() {
        cur_.reset();
        in_frame_ = false;
        start_ = false;
        gap_left_ = 0;
        last_cause_ = false;   // poison resets low
        bursts_.clear();
        presenting_ = false;
        held_.clear();
        req_held_ = false;
        fault_due_ = false;
        started_last_ = false;
        fr_busy_ = false;
        fr_start_next_ = false;
        fr_pushed_ = 0;
        fr_len_ = 0;
        fr_latch_ = false;
        fr_done_ = false;
        fr_drain_ = 0;
        pf_ = Pf::None;
        pf_doomed_ = false;
        pf_asking_ = false;
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

    void prepare(const TxJob &j) {
        cur_.reset(new Frame);
        Frame &f = *cur_;
        f.job = j;
        f.expect = wire::encode_headers(j.f);
        f.hdr_len = static_cast<unsigned>(f.expect.size());
        f.frame_len = static_cast<uint16_t>(wire::frame_bytes(j.f));
        f.cut = sg::cut(j.list.segs, j.list.first, j.list.off, j.f.payload_len, kMtu);
        f.dry = f.cut.fit < j.f.payload_len;
        for (size_t k = 0; k < f.cut.pieces.size(); k++) {
            const sg::Piece &p = f.cut.pieces[k];
            for (uint32_t i = 0; i < p.len; i++)
                f.expect.push_back(static_cast<int>(k) == j.err_burst ? 0 : mem_byte(p.addr + i, j.salt));
        }
        // A dry list: zeros for the bytes the list did not hold, so the
        // frame is as long as the framer was told.
        if (f.dry) f.expect.resize(f.expect.size() + (j.f.payload_len - f.cut.fit), 0);
        f.expect.resize(f.expect.size() + j.f.pad, 0);
        f.cause = f.dry || (j.err_burst >= 0 && static_cast<size_t>(j.err_burst) < f.cut.pieces.size());
        cursor_.load(j.list.segs, j.list.first, j.list.off);
    }

    void drive_fields(const wire::Fields &f) {
        Model &d = *dut_;
        d.src_mac = f.src_mac;
        d.dst_mac = f.dst_mac;
        d.src_ip = f.src_ip;
        d.dst_ip = f.dst_ip;
        d.udp_sport = f.udp_sport;
        d.dest_qp = f.dest_qp;
        d.opcode = f.opcode;
        d.solicited = f.solicited;
        d.pad = f.pad;
        d.ack_req = f.ack_req;
        d.psn = f.psn;
        d.ext = ext_port(wire::ext_of(f.opcode));
        d.reth_va = f.reth_va;
        d.reth_rkey = f.reth_rkey;
        d.reth_len = f.reth_len;
        d.aeth_syndrome = f.aeth_syndrome;
        d.aeth_msn = f.aeth_msn;
        d.plen = static_cast<uint16_t>(f.payload_len);
    }

    void drive_noise() {
        Model &d = *dut_;
        d.src_mac = rng_.next() >> 16;
        d.dst_mac = rng_.next() >> 16;
        d.src_ip = rng_.u32();
        d.dst_ip = rng_.u32();
        d.udp_sport = static_cast<uint16_t>(rng_.u32());
        d.dest_qp = rng_.u32() & 0xFFFFFF;
        d.opcode = rng_.byte();
        d.solicited = rng_.percent(50);
        d.pad = rng_.range(0, 3);
        d.ack_req = rng_.percent(50);
        d.psn = rng_.u32() & 0xFFFFFF;
        d.ext = rng_.range(0, 3);
        d.reth_va = rng_.next();
        d.reth_rkey = rng_.u32();
        d.reth_len = rng_.u32();
        d.aeth_syndrome = rng_.byte();
        d.aeth_msn = rng_.u32() & 0xFFFFFF;
        d.plen = static_cast<uint16_t>(rng_.u32());
        d.seg_more = rng_.percent(50);
        d.seg_rem = rng_.percent(50) ? 0 : rng_.u32();
        d.seg_addr = rng_.next();
        d.seg_base = rng_.next();
        d.pf_plen = static_cast<uint16_t>(rng_.u32());   // only meaningful with start
        d.pf_id = rng_.u32() & kPfIdMask;
    }

    // The DMA's beat k of a burst: packed bytes, noise above the last
    // beat's; a refused burst's beats are all zeros.
    Data beat_data(const Burst &b, unsigned k) {
        Data data{};
        if (b.err) return data;
        vlport::randomize(data, rng_);
        const uint32_t first = W * k;
        for (unsigned i = 0; i < W && first + i < b.len; i++)
            vlport::set_byte(data, i, mem_byte(b.addr + first + i, b.salt));
        return data;
    }

    void step() {
        Model &d = *dut_;
        d.clk = 0;

        // The engine: the next frame after its gap, start held until done.
        if (!cur_ && !todo_.empty()) {
            prepare(todo_.front());
            gap_left_ = todo_.front().gap;
            todo_.pop_front();
        }
        bool keep = !rng_.percent(keep_low_pct);
        if (cur_ && !start_ && gap_left_ > 0 && gap_left_ == cur_->job.gap && cur_->job.keep_low == KeepLow::Gap)
            keep = false;
        if (cur_ && in_frame_ && pf_ == Pf::Held && cur_->job.keep_low == KeepLow::Mid && !cur_->keep_dropped) {
            keep = false;
            cur_->keep_dropped = true;
        }
        if (drop_all_) keep = false;
        keep_ = keep;
        if (cur_ && !start_ && gap_left_ == 0) start_ = true;
        if (cur_ && !start_ && gap_left_ > 0) gap_left_--;
        d.start = start_;
        drive_noise();
        d.pf_keep = keep;
        if (start_) {
            drive_fields(cur_->job.f);
            d.pf_plen = cur_->job.pf_plen;
            d.pf_id = cur_->job.pf_id & kPfIdMask;
            d.seg_more = cursor_.more();
            d.seg_rem = cursor_.rem();
            if (cursor_.more()) {   // past the end the cursor's address is not used
                d.seg_addr = cursor_.addr();
                d.seg_base = cursor_.base();
            }
        }

        // The DMA.
        d.rd_req_ready = rng_.percent(req_ready_pct);
        if (!presenting_ && !bursts_.empty() && bursts_.front().due <= cycle_ && rng_.percent(rsp_pct)) {
            Burst &b = bursts_.front();
            presenting_ = true;
            beat_ = beat_data(b, b.sent);
            beat_last_ = b.sent + 1 == b.beats;
            beat_err_ = b.err;
        }
        d.rd_rsp_valid = presenting_;
        if (presenting_)
            d.rd_rsp_data = beat_;
        else
            vlport::randomize(d.rd_rsp_data, rng_);
        d.rd_rsp_last = presenting_ ? beat_last_ : rng_.percent(50);
        d.rd_rsp_err = presenting_ ? beat_err_ : rng_.percent(50);

        // The framer.
        const bool push_ok = fr_busy_ && !fr_done_ && rng_.percent(push_ok_pct);
        d.fr_free = !fr_busy_;
        d.fr_push_ok = push_ok;
        d.eval();

        monitor(push_ok);
        clock();
    }

    void monitor(bool push_ok) {
        Model &d = *dut_;
        Frame *f = cur_.get();

        // Start and done.
        const bool want_started = start_ && !in_frame_ && !fr_busy_;
        CHECK_EQ(d.started, want_started);
        if (d.done && !in_frame_) std::fprintf(stderr, "  cycle %llu: done outside a frame\n", ull(cycle_));
        CHECK(!d.done || in_frame_);
        CHECK_EQ(d.fr_start, started_last_);
        if (d.fr_start) {
            CHECK(!fr_busy_);   // the framer is never started twice
            if (f) CHECK_EQ(d.fr_len, f->frame_len);
            fr_start_next_ = true;
            fr_len_ = d.fr_len;
        }

        // Poison: in a frame, high only after its cause; otherwise the last
        // frame's verdict, held until the next frame starts.
        CHECK_EQ(d.fr_poison, d.poison);
        if (in_frame_) {
            const bool dry_seen = f->dry && f->payload_pushed == f->cut.fit;
            if (d.poison && !(f->err_pushed || dry_seen))
                std::fprintf(stderr, "  cycle %llu: poison with no refused beat pushed\n", ull(cycle_));
            CHECK(!d.poison || f->err_pushed || dry_seen);
            if (f->err_pushed) CHECK(d.poison);
        } else {
            CHECK_EQ(d.poison, last_cause_);
        }
        if (fr_latch_) {   // the framer appends the ICRC now: the poison it takes
            CHECK_EQ(d.fr_poison, fr_cause_);
            fr_latch_ = false;
        }

        // The gather's state at the start of this cycle, as the bench sees
        // it: G_HDR until the last header beat is pushed (hdr_last), G_DATA
        // after it while a burst of the frame is owed, `early` once a request
        // of the frame was taken in an earlier cycle (or a prefetch taken).
        const bool frame_now = in_frame_ || (d.started && f);
        const bool in_headers = frame_now && f->pushed < f->hdr_len;
        const bool hdr_last = in_frame_ && push_ok && f->pushed < f->hdr_len && f->pushed + W >= f->hdr_len;
        const bool g_data = in_frame_ && f->pushed >= f->hdr_len && f->owed > 0;
        const bool early = in_frame_ && f->next_burst > 0;
        const uint32_t rem = cursor_.rem();

        // The prefetch: asked for once every burst of the frame was asked
        // for (in G_HDR after an early request, or in G_DATA), none owed, from
        // a segment with bytes; taken by a frame starting with the same
        // pf_id at the same address and first piece, not doomed.
        const bool pf_window = in_frame_ && f->all_requested() && early && (f->pushed < f->hdr_len || g_data);
        // Once offered it stays offered, unchanged, until the DMA takes it,
        // after the frame's last push too (done waits for it: G_PF_WAIT).
        const bool want_pf = (pf_window && pf_ == Pf::None && f->job.pf_plen != 0 && rem != 0) ||
                             (in_frame_ && pf_asking_);
        const uint32_t pf_piece = f ? min3(f->job.pf_plen, rem, kMtu) : 0;
        bool want_hit = false;
        if (d.started && f && pf_ == Pf::Held)
            want_hit = keep_ && !pf_doomed_ && pf_id_ == (f->job.pf_id & kPfIdMask) && f->job.f.payload_len != 0 &&
                       rem != 0 && cursor_.addr() == pf_addr_ && min3(f->job.f.payload_len, rem, kMtu) == pf_len_;
        CHECK_EQ(d.pf_busy, pf_ != Pf::None);
        CHECK_EQ(d.pf_drop, pf_ == Pf::Drop);
        if (pf_ != Pf::None) CHECK_EQ(d.pf_held_id, pf_id_);

        // The payload register: a beat of the frame taken in G_DATA, or
        // already as the last header beat goes after an early request;
        // while empty, or while its beat goes and is not its burst's last
        // (the beats behind it are the next burst's). While a prefetch is
        // thrown away, ready high whatever the frame does.
        CHECK_EQ(d.idle, held_.empty() && pf_ == Pf::None);
        const bool frame_ready = (g_data || (hdr_last && early)) && (held_.empty() || (push_ok && !held_.front().last));
        const bool want_ready = pf_ == Pf::Drop || frame_ready;
        if (d.rd_rsp_ready != want_ready)
            std::fprintf(stderr, "  cycle %llu: rd_rsp_ready %u, expected %u (%s, %zu beat(s) held%s, push_ok %u, "
                         "%u of %u header bytes pushed, %u burst(s) owed)\n",
                         ull(cycle_), d.rd_rsp_ready, want_ready,
                         pf_ == Pf::Drop ? "prefetch dropping" : pf_ == Pf::Held ? "prefetch held" : "no prefetch",
                         held_.size(), !held_.empty() && held_.front().last ? ", a last" : "", push_ok,
                         f ? f->pushed : 0, f ? f->hdr_len : 0, f ? f->owed : 0);
        CHECK_EQ(d.rd_rsp_ready, want_ready);
        // A held prefetch's beats wait for their frame; dropped ones come first in the channel.
        if (pf_ == Pf::Drop) CHECK(!bursts_.empty() && bursts_.front().pf);

        // Fault: the cycle after a refused beat went to the framer.
        CHECK_EQ(d.fault, fault_due_);
        if (d.fault && fault_due_) CHECK_EQ(d.fault_addr, fault_addr_due_);
        if (d.fault) faults_++;
        fault_due_ = false;

        // Read requests.
        if (req_held_) {   // offered, not taken: offered again, unchanged
            if (!d.rd_req_valid)
                std::fprintf(stderr, "  cycle %llu: a read request (%u bytes at 0x%llx) withdrawn before it was taken\n",
                             ull(cycle_), req_len_, ull(req_addr_));
            CHECK(d.rd_req_valid);
            if (d.rd_req_valid) {
                CHECK_EQ(d.rd_req_addr, req_addr_);
                CHECK_EQ(d.rd_req_len, req_len_);
            }
        }
        req_held_ = d.rd_req_valid && !d.rd_req_ready;
        req_addr_ = d.rd_req_addr;
        req_len_ = d.rd_req_len;
        CHECK(!d.rd_req_valid || frame_now);
        if (in_headers || pf_window || pf_asking_) {
            // During the headers the first burst only, and only from a
            // segment with bytes (not if a prefetch is taken); once all are
            // asked for, the prefetch exactly when its rule says.
            const bool want_req = (pf_window || pf_asking_) ? want_pf
                                            : f->next_burst == 0 && f->job.f.payload_len != 0 && rem != 0 && !want_hit;
            if (d.rd_req_valid != want_req)
                std::fprintf(stderr, "  cycle %llu: rd_req_valid %u, expected %u (%s; %zu requests taken, plen %u, "
                             "%u bytes at the cursor, pf_plen %u, prefetch %s)\n",
                             ull(cycle_), d.rd_req_valid, want_req, pf_window ? "prefetch due" : "headers",
                             f->next_burst, f->job.f.payload_len, rem, f->job.pf_plen,
                             pf_ == Pf::None ? "none" : want_hit ? "taken now" : "owed");
            CHECK_EQ(d.rd_req_valid, want_req);
        }
        const bool want_take = (d.rd_req_valid && d.rd_req_ready && !want_pf) || want_hit;
        if (d.seg_take != want_take)
            std::fprintf(stderr, "  cycle %llu: seg_take %u, expected %u (%s)\n", ull(cycle_), d.seg_take, want_take,
                         want_hit ? "the prefetch taken" : want_pf ? "a prefetch: the cursor stays" : "a request");
        CHECK_EQ(d.seg_take, want_take);
        if (d.rd_req_valid && frame_now) {
            CHECK(d.rd_req_len >= 1 && d.rd_req_len <= kMtu);
            CHECK(d.rd_req_len <= rem);   // within the current segment
            CHECK_EQ(d.rd_req_addr, cursor_.addr());
            if (want_pf) {
                if (d.rd_req_len != pf_piece)
                    std::fprintf(stderr, "  cycle %llu: prefetch of %u bytes, expected %u (pf_plen %u, %u at the cursor)\n",
                                 ull(cycle_), d.rd_req_len, pf_piece, f->job.pf_plen, rem);
                CHECK_EQ(d.rd_req_len, pf_piece);
            } else if (f->next_burst < f->cut.pieces.size()) {
                const sg::Piece &p = f->cut.pieces[f->next_burst];
                if (d.rd_req_len != p.len || d.rd_req_addr != p.addr)
                    std::fprintf(stderr, "  cycle %llu: burst %zu requested %u bytes at 0x%llx, expected %u at 0x%llx\n",
                                 ull(cycle_), f->next_burst, d.rd_req_len, ull(d.rd_req_addr), p.len, ull(p.addr));
                CHECK_EQ(d.rd_req_len, p.len);
                CHECK_EQ(d.rd_req_addr, p.addr);
            } else {
                std::fprintf(stderr, "  cycle %llu: a read request past the frame's %zu bursts\n", ull(cycle_),
                             f->cut.pieces.size());
                CHECK(f->next_burst < f->cut.pieces.size());
            }
        }
        const bool pf_wait = want_pf && d.rd_req_valid && !d.rd_req_ready;
        if (d.done && pf_wait) std::fprintf(stderr, "  cycle %llu: done with the prefetch's request not taken\n", ull(cycle_));
        CHECK(!(d.done && pf_wait));
        pf_asking_ = pf_wait;
        if (d.seg_take) CHECK_EQ(d.seg_take_n, want_hit ? pf_len_ : static_cast<uint32_t>(d.rd_req_len));
        const uint64_t base = cursor_.base();
        if (frame_now) {
            cursor_.command(d.seg_next, d.seg_take, d.seg_take_n);
            if (d.seg_next) nexts_total_++;
        } else {
            CHECK(!d.seg_next && !d.seg_take);
        }
        if (want_hit && d.started) {
            // The prefetched beats become the frame's first burst.
            Burst *pb = nullptr;
            for (Burst &b : bursts_)
                if (b.pf) pb = &b;
            CHECK(pb != nullptr);
            if (pb) {
                pb->pf = false;
                // The bench's own setup: the same message's memory and refusal.
                if (pb->salt != f->job.salt || pb->err != (f->job.err_burst == 0))
                    std::fprintf(stderr, "  cycle %llu: bench setup: a hit on another message's prefetch\n", ull(cycle_));
                CHECK(pb->salt == f->job.salt && pb->err == (f->job.err_burst == 0));
            }
            f->next_burst++;
            f->owed++;
            pf_hits_++;
        }
        if (d.rd_req_valid && d.rd_req_ready && frame_now) {
            Burst b;
            b.len = d.rd_req_len;
            b.beats = (b.len + W - 1) / W;
            b.due = cycle_ + rng_.range(lat_min, lat_max);
            b.err = want_pf ? f->job.pf_err : static_cast<int>(f->next_burst) == f->job.err_burst;
            b.addr = d.rd_req_addr;
            b.base = base;
            b.salt = f->job.salt;
            b.pf = want_pf;
            bursts_.push_back(b);
            if (want_pf) {
                pf_requests_++;
            } else {
                f->next_burst++;
                f->owed++;
                bursts_total_++;
            }
        }
        // The prefetch's next state (the beats below are taken by this
        // cycle's ready, from the state before).
        const Pf pf_before = pf_;
        if (pf_ == Pf::None && want_pf && d.rd_req_valid && d.rd_req_ready) {
            pf_ = Pf::Held;
            pf_doomed_ = false;
            pf_addr_ = d.rd_req_addr;
            pf_len_ = d.rd_req_len;
            pf_id_ = f->job.pf_id & kPfIdMask;
        } else if (pf_ == Pf::Held) {
            if (want_hit) {
                pf_ = Pf::None;
            } else if (!in_frame_ && (d.started || !keep_ || pf_doomed_)) {   // the gather idle
                pf_ = Pf::Drop;
                (pf_doomed_ ? pf_drops_doomed_ : d.started ? pf_drops_start_ : pf_drops_keep_)++;
            } else if (!keep_) {
                pf_doomed_ = true;
            }
        }

        // Pushes into the framer.
        const unsigned n = d.fr_push_n;
        if (n) {
            CHECK(push_ok);
            CHECK(n <= W);
            CHECK(in_frame_);
        }
        if (n && push_ok && in_frame_ && n <= W) {
            const bool payload = f->pushed >= f->hdr_len && f->payload_pushed < f->cut.fit;
            if (payload) {
                CHECK(!held_.empty());
                if (!held_.empty()) {
                    const Held h = held_.front();
                    held_.pop_front();
                    if (h.last && f->owed > 0) f->owed--;
                    if (n != h.n)
                        std::fprintf(stderr, "  cycle %llu: pushed %u bytes of a beat of %u\n", ull(cycle_), n, h.n);
                    CHECK_EQ(n, h.n);
                    if (h.err) {
                        f->err_pushed = true;
                        fault_due_ = true;
                        fault_addr_due_ = static_cast<uint32_t>(h.base);
                    }
                }
                f->payload_pushed += n;
            }
            for (unsigned i = 0; i < n; i++) {
                const uint8_t got = vlport::get_byte(d.fr_push_data, i);
                const size_t at = f->pushed + i;
                CHECK(at < f->expect.size());
                if (at >= f->expect.size()) break;
                if (got != f->expect[at]) {
                    std::fprintf(stderr, "  cycle %llu: body byte %zu (of %zu: %u header, %u payload) is 0x%02x, expected 0x%02x\n",
                                 ull(cycle_), at, f->expect.size(), f->hdr_len, f->job.f.payload_len, got, f->expect[at]);
                    CHECK_EQ(got, f->expect[at]);
                    break;
                }
            }
            f->pushed += n;
            fr_pushed_ += n;
            if (fr_pushed_ > static_cast<unsigned>(fr_len_) - wire::kIcrcBytes)
                std::fprintf(stderr, "  cycle %llu: pushed %u bytes into a frame of %u\n", ull(cycle_), fr_pushed_, fr_len_);
            CHECK(fr_pushed_ <= static_cast<unsigned>(fr_len_) - wire::kIcrcBytes);
            if (fr_pushed_ >= static_cast<unsigned>(fr_len_) - wire::kIcrcBytes && !fr_done_) {
                fr_done_ = true;   // body complete: the ICRC goes in next cycle
                fr_latch_ = true;
                fr_cause_ = f->cause;
                fr_drain_ = rng_.range(1, 1 + drain_max);
            }
        }

        // Response beats taken into the payload register.
        if (presenting_ && d.rd_rsp_ready) {
            Burst &b = bursts_.front();
            const uint32_t n_beat = b.len - W * b.sent < W ? b.len - W * b.sent : W;
            const bool last = b.sent + 1 == b.beats;
            if (b.pf) {
                // Only a prefetch being dropped gives its beats away unclaimed.
                if (pf_before != Pf::Drop)
                    std::fprintf(stderr, "  cycle %llu: a beat of a held prefetch taken by the frame\n", ull(cycle_));
                CHECK(pf_before == Pf::Drop);
                pf_dropped_beats_++;
                if (last) pf_ = Pf::None;
            } else {
                held_.push_back(Held{n_beat, b.err, b.base, last});
                CHECK(held_.size() <= 1);   // one register
            }
            b.sent++;
            presenting_ = false;
            if (b.sent == b.beats) bursts_.pop_front();
        }

        // Done: the body complete, every burst answered, nothing held.
        if (d.done && in_frame_) {
            const size_t want = f->hdr_len + f->job.f.payload_len + f->job.f.pad;
            if (f->pushed != want)
                std::fprintf(stderr, "  cycle %llu: done after %u body bytes, expected %zu (%u header, %u payload, pad %u)\n",
                             ull(cycle_), f->pushed, want, f->hdr_len, f->job.f.payload_len, f->job.f.pad);
            CHECK_EQ(f->pushed, want);
            CHECK_EQ(f->next_burst, f->cut.pieces.size());
            CHECK(bursts_.empty() || (bursts_.size() == 1 && bursts_.front().pf));   // at most its own prefetch
            CHECK(held_.empty());
            CHECK_EQ(d.poison, f->cause);
            if (f->dry) {
                // The framer was told fr_len and gets every byte of it.
                CHECK_EQ(f->pushed + wire::kIcrcBytes, f->frame_len);
                short_frames_++;
                fr_done_ = true;
                fr_drain_ = rng_.range(1, 1 + drain_max);
            }
            last_cause_ = f->cause;
            if (f->cause) poisoned_++;
            frames_++;
            last_done_ = cycle_;
            frame_cycles_.push_back(last_done_ - last_started_);
            in_frame_ = false;
            start_ = false;
            cur_.reset();
        }
        if (d.started && !in_frame_ && cur_) {
            in_frame_ = true;
            last_started_ = cycle_;
        }
        started_last_ = d.started;

        // The framer's own pace: busy from the cycle after its start, free
        // a drain after its body is in.
        if (fr_busy_ && fr_done_ && !fr_latch_) {
            if (fr_drain_ > 0) fr_drain_--;
            if (fr_drain_ == 0) {
                fr_busy_ = false;
                fr_done_ = false;
                fr_pushed_ = 0;
            }
        }
        if (fr_start_next_) {
            fr_busy_ = true;
            fr_done_ = false;
            fr_pushed_ = 0;
            fr_start_next_ = false;
        }
    }

    static unsigned long long ull(uint64_t v) { return static_cast<unsigned long long>(v); }

    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Model> dut_;
    Rng rng_;
    uint64_t cycle_ = 0;

    std::deque<TxJob> todo_;
    std::unique_ptr<Frame> cur_;
    bool in_frame_ = false, start_ = false, started_last_ = false;
    unsigned gap_left_ = 0;
    bool last_cause_ = false;
    sg::Cursor cursor_;

    std::deque<Burst> bursts_;
    bool presenting_ = false, beat_last_ = false, beat_err_ = false;
    Data beat_{};
    std::deque<Held> held_;
    bool req_held_ = false;
    uint64_t req_addr_ = 0;
    unsigned req_len_ = 0;
    bool fault_due_ = false;
    uint32_t fault_addr_due_ = 0;

    bool fr_busy_ = false, fr_start_next_ = false, fr_done_ = false, fr_latch_ = false, fr_cause_ = false;
    unsigned fr_pushed_ = 0, fr_len_ = 0, fr_drain_ = 0;

    uint64_t frames_ = 0, poisoned_ = 0, faults_ = 0, bursts_total_ = 0, nexts_total_ = 0, short_frames_ = 0;
    uint64_t last_started_ = 0, last_done_ = 0;
    std::vector<uint64_t> frame_cycles_;

    bool keep_ = true, drop_all_ = false;
    Pf pf_ = Pf::None;
    bool pf_asking_ = false;   // the prefetch's request offered and not taken (offered again)
    bool pf_doomed_ = false;
    uint64_t pf_addr_ = 0;
    uint32_t pf_len_ = 0;
    unsigned pf_id_ = 0;
    uint64_t pf_requests_ = 0, pf_hits_ = 0, pf_drops_start_ = 0, pf_drops_keep_ = 0, pf_drops_doomed_ = 0,
             pf_dropped_beats_ = 0;
};

// Header fields as the engine sends them for opcode op, payload plen with
// the pad that rounds it to 4 (any pad 0..3 when `any_pad`).
wire::Fields random_fields(Rng &r, uint8_t op, unsigned plen, bool any_pad = false) {
    wire::Fields f;
    f.dst_mac = r.next() >> 16;
    f.src_mac = r.next() >> 16;
    f.src_ip = r.u32();
    f.dst_ip = r.u32();
    f.udp_sport = static_cast<uint16_t>(0xC000 | r.range(0, 255));
    f.opcode = op;
    f.solicited = r.percent(50);
    f.dest_qp = r.u32() & 0xFFFFFF;
    f.ack_req = r.percent(50);
    f.psn = r.u32() & 0xFFFFFF;
    f.reth_va = r.next();
    f.reth_rkey = r.u32();
    f.reth_len = r.u32();
    f.aeth_syndrome = r.byte();
    f.aeth_msn = r.u32() & 0xFFFFFF;
    f.payload_len = plen;
    f.pad = any_pad ? r.range(0, 3) : (4 - plen % 4) % 4;
    return f;
}

uint8_t random_opcode(Rng &r) { return wire::kOpcodes[r.range(0, 13)]; }

// A job: plen bytes over a random list holding `extra` bytes more (or fewer).
TxJob job(Rng &r, unsigned plen, int64_t extra = 0, unsigned max_segs = 4, bool any_pad = false) {
    TxJob j;
    j.f = random_fields(r, random_opcode(r), plen, any_pad);
    j.list = sg::random_list(r, plen, extra, max_segs, true);
    j.salt = r.next();
    j.gap = r.percent(50) ? 0 : r.range(1, 6);
    return j;
}

// One segment of exactly plen bytes at addr.
TxJob one_segment(Rng &r, uint8_t op, unsigned plen, uint64_t addr) {
    TxJob j;
    j.f = random_fields(r, op, plen);
    j.list.segs.push_back(sg::Seg{addr, plen});
    j.salt = r.next();
    return j;
}

// Bytes at the cursor of l.
uint32_t rem_at(const sg::List &l) { return l.first < l.segs.size() ? l.segs[l.first].len - l.off : 0; }
uint64_t addr_at(const sg::List &l) { return l.first < l.segs.size() ? l.segs[l.first].addr + l.off : 0; }

// The list after its next `len` bytes are sent: the cursor at the end of
// the last burst (rnic_sg_cursor steps past a used-up segment only when it
// is asked for more).
sg::List after(const sg::List &l, uint32_t len) {
    const sg::Cut c = sg::cut(l.segs, l.first, l.off, len, kMtu);
    sg::List n = l;
    if (!c.pieces.empty()) {
        const sg::Piece &p = c.pieces.back();
        n.first = p.seg;
        n.off = static_cast<uint32_t>(p.addr - l.segs[p.seg].addr) + p.len;
    }
    return n;
}

// The packets of one message (payloads `plens`) over one list holding them
// all (and `extra` bytes more), as the engine sends them: each packet's
// cursor where the one before stopped, one host memory (salt), one pf_id,
// each pf_plen the next packet's payload (the last's none).
std::vector<TxJob> message(Rng &r, const std::vector<unsigned> &plens, unsigned pf_id, unsigned max_segs,
                           uint32_t extra = 0, bool any_pad = false) {
    uint32_t total = 0;
    for (unsigned p : plens) total += p;
    sg::List l = sg::random_list(r, total, extra, max_segs, true);
    const uint64_t salt = r.next();
    std::vector<TxJob> v;
    for (size_t k = 0; k < plens.size(); k++) {
        TxJob j;
        j.f = random_fields(r, random_opcode(r), plens[k], any_pad);
        j.list = l;
        j.salt = salt;
        j.pf_id = pf_id;
        j.pf_plen = static_cast<uint16_t>(k + 1 < plens.size() ? plens[k + 1] : 0);
        j.gap = r.percent(50) ? 0 : r.range(1, 6);
        v.push_back(j);
        l = after(l, plens[k]);
    }
    return v;
}

// Whether packet k + 1 of a message should take packet k's prefetch, in an
// environment that takes every request at once (so the prefetch is asked
// for in the first cycle its rule allows): packet k has payload and leaves
// bytes in the segment at the cursor.
bool hit_due(const std::vector<TxJob> &m, size_t k) {
    return k + 1 < m.size() && m[k].f.payload_len != 0 && m[k].pf_plen != 0 &&
           rem_at(after(m[k].list, m[k].f.payload_len)) != 0;
}

// A message's packet length: mostly full packets, sometimes a few beats.
unsigned packet_len(Rng &r) {
    return r.percent(50) ? kMtu : r.percent(50) ? r.range(1, 64) : r.range(65, kMtu);
}

}  // namespace

UNIT_TEST_WIDTHS(single_segment) {
    const uint64_t seed = unit_seed(0x6a0001);
    Gather<W> g(seed);
    Rng r(seed);
    const unsigned lens[] = {0,  1,  2,   3,   4,   5,   6,   7,    8,    9,    10,   11,   12,   13,  14,
                             15, 16, 17,  18,  19,  20,  63,  64,   65,   127,  128,  129,  1000, 4088,
                             4089, 4095, 4096};
    unsigned n = 0;
    for (unsigned pass = 0; pass < 2; pass++) {
        if (pass == 1) {   // back-pressure everywhere
            g.push_ok_pct = 60;
            g.req_ready_pct = 50;
            g.rsp_pct = 60;
            g.lat_min = 1;
            g.lat_max = 12;
            g.drain_max = 10;
        }
        for (unsigned k = 0; k < 14; k++) {
            const uint8_t op = wire::kOpcodes[k];
            for (unsigned plen : lens) {
                const uint64_t addr = 0x10000 + 4096 * n + (n % W);   // every alignment in a beat
                g.add(one_segment(r, op, plen, addr));
                n++;
            }
        }
        g.run();
    }
    CHECK_EQ(g.frames(), n);
    CHECK_EQ(g.pf_requests(), 0u);   // pf_plen 0: never a prefetch
    CHECK_EQ(g.poisoned(), 0u);
    CHECK_EQ(g.faults(), 0u);
    std::printf("  %u frames, %llu bursts in %llu cycles\n", n, static_cast<unsigned long long>(g.bursts()),
                static_cast<unsigned long long>(g.cycles()));
}

UNIT_TEST_WIDTHS(multi_segment) {
    const uint64_t seed = unit_seed(0x6a0002);
    Gather<W> g(seed);
    Rng r(seed);
    g.push_ok_pct = 75;
    g.req_ready_pct = 70;
    g.rsp_pct = 75;
    g.lat_min = 1;
    g.lat_max = 8;
    g.drain_max = 6;
    unsigned n = 0;
    for (unsigned i = 0; i < 600; i++, n++) {
        const unsigned plen = r.percent(40) ? r.range(1, 40) : r.range(41, kMtu);
        // Some lists longer than needed: the gather stops at plen.
        g.add(job(r, plen, r.percent(30) ? r.range(1, 100) : 0, 6));
    }
    g.run();
    CHECK_EQ(g.frames(), n);
    CHECK_EQ(g.pf_requests(), 0u);   // pf_plen 0: never a prefetch
    CHECK_EQ(g.poisoned(), 0u);
    CHECK(g.nexts() > 0);   // empty segments and segment ends were met
    std::printf("  %u frames, %llu bursts, %llu segments stepped over, %llu cycles\n", n,
                static_cast<unsigned long long>(g.bursts()), static_cast<unsigned long long>(g.nexts()),
                static_cast<unsigned long long>(g.cycles()));
}

UNIT_TEST_WIDTHS(mtu_split) {
    const uint64_t seed = unit_seed(0x6a0003);
    Gather<W> g(seed);
    Rng r(seed);
    g.push_ok_pct = 85;
    g.req_ready_pct = 80;
    g.lat_max = 4;
    unsigned n = 0;
    // One segment: MTU-sized bursts and the rest.
    for (unsigned plen : {kMtu, kMtu + 1, kMtu + 7, 2 * kMtu - 1, 2 * kMtu, 2 * kMtu + 3, 3 * kMtu + 100}) {
        TxJob j = one_segment(r, wire::SEND_ONLY, plen, sg::random_addr(r));
        g.add(j);
        n++;
    }
    // Lists of long segments, the cursor anywhere in them.
    for (unsigned i = 0; i < 40; i++, n++) {
        TxJob j = job(r, r.range(kMtu, 3 * kMtu), 0, 3);
        for (sg::Seg &s : j.list.segs) s.len += r.percent(50) ? kMtu : 0;   // longer segments, same cut rules
        g.add(j);
    }
    g.run();
    CHECK_EQ(g.frames(), n);
    CHECK_EQ(g.pf_requests(), 0u);   // pf_plen 0: never a prefetch
    CHECK_EQ(g.poisoned(), 0u);
    std::printf("  %u frames, %llu bursts\n", n, static_cast<unsigned long long>(g.bursts()));
}

UNIT_TEST_WIDTHS(read_error) {
    const uint64_t seed = unit_seed(0x6a0004);
    Gather<W> g(seed);
    Rng r(seed);
    g.push_ok_pct = 70;
    g.req_ready_pct = 70;
    g.rsp_pct = 70;
    g.lat_max = 6;
    g.drain_max = 4;
    unsigned n = 0, bad = 0;
    // A single-beat burst refused; then the first, a middle and the last of
    // several; each followed by a clean frame, which starts unpoisoned.
    for (unsigned plen : {1u, 5u, W}) {
        TxJob j = one_segment(r, wire::SEND_ONLY, plen, 0x1234567800000000ull + r.range(0, 4095));
        j.err_burst = 0;
        g.add(j);
        g.add(job(r, r.range(1, 200)));
        n += 2;
        bad++;
    }
    for (unsigned i = 0; i < 300; i++) {
        TxJob j = job(r, r.range(1, 3 * kMtu / 2), 0, 5);
        const size_t bursts = sg::cut(j.list.segs, j.list.first, j.list.off, j.f.payload_len, kMtu).pieces.size();
        switch (i % 3) {
        case 0: j.err_burst = 0; break;
        case 1: j.err_burst = static_cast<int>(bursts / 2); break;
        default: j.err_burst = static_cast<int>(bursts - 1); break;
        }
        g.add(j);
        n++;
        bad++;
        if (r.percent(50)) {
            g.add(job(r, r.range(0, 300)));
            n++;
        }
    }
    g.run();
    CHECK_EQ(g.frames(), n);
    CHECK_EQ(g.pf_requests(), 0u);   // pf_plen 0: never a prefetch
    CHECK_EQ(g.poisoned(), bad);
    CHECK(g.faults() >= bad);   // at least one pulse per refused burst (one per beat)
    std::printf("  %u frames, %u with a refused burst, %llu fault pulses\n", n, bad,
                static_cast<unsigned long long>(g.faults()));
}

// A segment list that runs dry cannot happen for a WQE the engine checked.
// The header comment says such a frame is sent poisoned and still as long
// as the framer was told (a real rnic_tx_framer waits for every byte):
// poison, done, the headers, the bytes the list held, zeros for the rest,
// the pad, nothing read past the list. (This bench found the gather
// pushing only the bytes the list held, which would have hung the framer.)
UNIT_TEST_WIDTHS(list_dry) {
    const uint64_t seed = unit_seed(0x6a0005);
    Gather<W> g(seed);
    Rng r(seed);
    g.push_ok_pct = 80;
    g.req_ready_pct = 80;
    g.lat_max = 5;
    unsigned n = 0, dry = 0;
    for (unsigned i = 0; i < 200; i++) {
        const unsigned plen = r.range(1, 2 * kMtu);
        const int64_t shortfall = r.percent(30) ? 1 : r.range(1, plen);
        g.add(job(r, plen, -shortfall, 5));
        n++;
        dry++;
        if (r.percent(50)) {
            g.add(job(r, r.range(0, 300)));
            n++;
        }
    }
    // No segment at all: the cursor past the end from the start.
    for (unsigned i = 0; i < 10; i++, n++, dry++) {
        TxJob j = job(r, r.range(1, 100));
        j.list.segs.clear();
        j.list.first = 0;
        j.list.off = 0;
        g.add(j);
    }
    g.run();
    CHECK_EQ(g.frames(), n);
    CHECK_EQ(g.pf_requests(), 0u);   // pf_plen 0: never a prefetch
    CHECK_EQ(g.poisoned(), dry);
    CHECK_EQ(g.short_frames(), dry);
    std::printf("  %u frames, %u on a list that ran dry (each short of its fr_len)\n", n, dry);
}

// The segment at the cursor with no bytes left, the list holding as many
// bytes after it as before: one or two empty segments put in at the cursor,
// or (`used_up`) a used-up segment with the cursor at its end. The segment
// the cursor was in keeps its bytes, read from its start.
void empty_at_cursor(Rng &r, sg::List &l, bool used_up) {
    const auto at = l.segs.begin() + l.first;
    if (used_up) {
        const uint32_t len = r.range(1, 3000);
        l.segs.insert(at, sg::Seg{sg::random_addr(r), len});
        l.off = len;
    } else {
        l.segs.insert(at, r.range(1, 2), sg::Seg{sg::random_addr(r), 0});
        l.off = 0;
    }
}

// Cycles from started (cycle 0) to done, framer always taking, the DMA
// taking every request and presenting a burst's first beat exactly L cycles
// after its request and the rest one a cycle. H = ceil(hdr / W) header
// beats, B_k = ceil(len_k / W) beats of burst k, N the segments stepped
// over (sg::Cut::nexts), P = 1 with a pad and 0 without:
//
//   plen == 0:                      H + 1 + P
//   segment at the cursor empty:    H + 1 + N + sum_k (L + B_k + 1) + P
//   otherwise:                      max(H + 1, L) + B_0 + P
//                                     + N + sum_{k>=1} (L + B_k + 1)
//   first burst prefetched (its beats already waiting in the channel):
//                                   H + 1 + B_0 + P + N + sum_{k>=1} (L + B_k + 1)
//
// fr_start is in cycle 1, the framer busy (pushes taken) from cycle 2, so
// the headers go in cycles 2..H+1, the last in H + 1. The first burst,
// when the segment at the cursor has bytes, is requested in cycle 0
// (started's; a prefetch taken counts as that request), so it was asked
// for before the last header beat's cycle and its first beat may be taken
// in that cycle: at T = max(H + 1, L), the last header beat or the beat,
// whichever is later (H + 1 for a prefetch whose beats wait already).
// Its beats are taken one a cycle (the register empties as each is
// pushed; only the burst's last stops it) and each pushed the cycle after,
// the first right behind the last header beat, the last in T + B_0. With
// more to request the request state decides in T + B_0 + 1: every later
// burst is requested there (after a cycle for each segment stepped over)
// and the request state comes again L + B_k + 1 cycles after its request
// (its first beat taken in request + L, in G_DATA already), so the last
// burst's last beat is pushed one cycle before it would come. done is in
// the cycle of the last beat's push, or with a pad the cycle after (the
// pad's). With an empty segment at the cursor nothing is requested during
// the headers: the request state starts in H + 2 and steps past it there,
// and the first burst is timed as a later one. Without payload the last
// header beat (H + 1) is the last byte.
template <unsigned W>
uint64_t want_cycles(unsigned hdr, unsigned plen, unsigned pad, const sg::List &l, const sg::Cut &c, unsigned lat,
                     bool prefetched = false) {
    const uint64_t h = (hdr + W - 1) / W;
    const uint64_t p = pad != 0 ? 1 : 0;
    if (plen == 0) return h + 1 + p;
    auto beats = [](uint32_t len) { return static_cast<uint64_t>((len + W - 1) / W); };
    uint64_t later = c.nexts;
    for (size_t k = 1; k < c.pieces.size(); k++) later += lat + beats(c.pieces[k].len) + 1;
    const bool early = l.first < l.segs.size() && l.segs[l.first].len != l.off;
    if (!early) return h + 1 + later + lat + beats(c.pieces[0].len) + 1 + p;
    const uint64_t first_beat = prefetched || h + 1 >= lat ? h + 1 : lat;
    return first_beat + beats(c.pieces[0].len) + p + later;
}

UNIT_TEST_WIDTHS(cycle_count) {
    const uint64_t seed = unit_seed(0x6a0006);
    Rng r(seed);
    Gather<W> g(seed);
    const int before = rnic_check_failures();
    unsigned n = 0, hdr_bound = 0, lat_bound = 0;
    // At W = 8 the last header beat H + 1 is 8 to 10; at W > 8 it is 2 to 6
    // (headers of 1 to 5 beats), which 4..6 put L at and around too.
    std::vector<unsigned> lats = {1, 2, 3, 7, 8, 9, 10, 20};
    if (W > 8) lats.insert(lats.begin() + 3, {4u, 5u, 6u});
    for (unsigned lat : lats) {
        g.lat_min = g.lat_max = lat;
        unsigned early = 0, late = 0;
        for (unsigned i = 0; i < 48 && !unit_stop(before); i++, n++) {
            const unsigned plen = i < 4 ? i : (r.percent(50) ? r.range(1, 64) : r.range(65, 2 * kMtu));
            TxJob j = job(r, plen, r.percent(20) ? r.range(1, 50) : 0, 5);
            if (i >= 4 && i < 12) empty_at_cursor(r, j.list, i % 2 == 1);   // the old timing, at every latency
            const sg::Cut c = sg::cut(j.list.segs, j.list.first, j.list.off, plen, kMtu);
            CHECK_EQ(c.fit, plen);   // no list runs dry here
            const unsigned hdr = wire::header_bytes(j.f);
            const uint64_t want = want_cycles<W>(hdr, plen, j.f.pad, j.list, c, lat);
            if (plen != 0) {
                const bool e = j.list.segs[j.list.first].len != j.list.off;
                (e ? early : late)++;
                if (e) ((hdr + W - 1) / W + 1 >= lat ? hdr_bound : lat_bound)++;
            }
            g.add(j);
            g.run();
            if (g.last_frame_cycles() != want)
                std::fprintf(stderr, "  latency %u, %u header bytes, plen %u over %zu bursts, %u steps, %s: %llu cycles, expected %llu\n",
                             lat, hdr, plen, c.pieces.size(), c.nexts,
                             plen == 0 ? "no payload" : j.list.segs[j.list.first].len != j.list.off
                                 ? "first burst asked for during the headers" : "empty segment at the cursor",
                             static_cast<unsigned long long>(g.last_frame_cycles()),
                             static_cast<unsigned long long>(want));
            CHECK_EQ(g.last_frame_cycles(), want);
        }
        // Both timings at every latency.
        CHECK(early > 0 && late >= 8);
        std::printf("  latency %2u: %u frames with the first burst asked for during the headers, "
                    "%u with an empty segment at the cursor\n", lat, early, late);
    }
    // Both sides of max(H + 1, L).
    CHECK(hdr_bound > 0 && lat_bound > 0);
    std::printf("  first beat bound by the headers in %u frames, by the latency in %u\n", hdr_bound, lat_bound);
    CHECK_EQ(g.frames(), n);
    CHECK_EQ(g.pf_requests(), 0u);
}

UNIT_TEST_WIDTHS(reset_mid_frame) {
    const uint64_t seed = unit_seed(0x6a0007);
    Gather<W> g(seed);
    Rng r(seed);
    g.push_ok_pct = 80;
    g.req_ready_pct = 80;
    g.lat_max = 5;
    for (unsigned i = 0; i < 40; i++) {
        TxJob j = job(r, r.range(1, 2000));
        if (r.percent(50)) j.err_burst = 0;   // poison set, then the reset clears it
        g.add(j);
        // Stopped before the pad: the pad is pushed in done's cycle, which
        // ends the frame. Without a pad the last payload beat's push ends
        // it: stopped before that beat, which is up to W bytes (a stop
        // inside it left no frame to reset, at W = 64 often).
        const unsigned before_pad = wire::header_bytes(j.f) + j.f.payload_len;
        unsigned stop = r.range(1, before_pad - 1);
        if (j.f.pad == 0) {
            const sg::Cut c = sg::cut(j.list.segs, j.list.first, j.list.off, j.f.payload_len, kMtu);
            const unsigned last_beat = (c.pieces.back().len - 1) % W + 1;
            if (stop > before_pad - last_beat) stop = before_pad - last_beat;
        }
        g.run_until_pushed(stop);
        g.reset_now();
        g.add(job(r, r.range(0, 500)));
        g.run();
    }
    CHECK_EQ(g.frames(), 40u);
    CHECK_EQ(g.pf_requests(), 0u);
}

// A message's packets, each frame prefetching the next's first burst: with
// everything ready at once, every packet that leaves bytes at the cursor is
// followed by a hit (the count is exact), the hit frame asks for nothing
// in started, takes the cursor there by the prefetched length, and with
// its beats already waiting (a gap of L) its first payload beat follows
// the last header beat whatever L is -- the point of the prefetch at
// W = 32 and 64. Then the same with random back-pressure and latency.
UNIT_TEST_WIDTHS(prefetch_hit) {
    const uint64_t seed = unit_seed(0x6a0009);
    Gather<W> g(seed);
    Rng r(seed);
    const int before = rnic_check_failures();
    g.keep_low_pct = 0;
    unsigned n = 0, want_hits = 0, timed = 0, timed_hits = 0;
    for (unsigned lat : {1u, 4u, 9u, 20u}) {
        g.lat_min = g.lat_max = lat;
        for (unsigned m = 0; m < 30 && !unit_stop(before); m++) {
            std::vector<unsigned> plens(r.range(2, 6));
            for (unsigned &p : plens) p = packet_len(r);
            std::vector<TxJob> msg = message(r, plens, r.range(0, 1), m % 3 == 0 ? 1 : 4, r.range(0, 200));
            const size_t first = g.frame_cycles().size();
            for (size_t k = 0; k < msg.size(); k++) {
                if (k > 0 && r.percent(50)) msg[k].gap = lat;   // the prefetched beats arrive before the frame
                g.add(msg[k]);
            }
            g.run();
            n += static_cast<unsigned>(msg.size());
            for (size_t k = 0; k < msg.size(); k++) {
                const bool hit = k > 0 && hit_due(msg, k - 1);
                want_hits += hit;
                if (hit && msg[k].gap < lat) continue;   // its beats may still be on their way
                const TxJob &j = msg[k];
                const sg::Cut c = sg::cut(j.list.segs, j.list.first, j.list.off, j.f.payload_len, kMtu);
                const uint64_t want = want_cycles<W>(wire::header_bytes(j.f), j.f.payload_len, j.f.pad, j.list, c, lat, hit);
                CHECK(first + k < g.frame_cycles().size());
                if (first + k >= g.frame_cycles().size()) break;
                const uint64_t got = g.frame_cycles()[first + k];
                if (got != want)
                    std::fprintf(stderr, "  latency %u, packet %zu of %zu (%s), plen %u: %llu cycles, expected %llu\n", lat,
                                 k, msg.size(), hit ? "prefetched" : "not prefetched", j.f.payload_len,
                                 static_cast<unsigned long long>(got), static_cast<unsigned long long>(want));
                CHECK_EQ(got, want);
                timed++;
                timed_hits += hit;
            }
            CHECK_EQ(g.pf_hits(), want_hits);
        }
    }
    CHECK_EQ(g.pf_requests(), want_hits);   // the last packet's pf_plen 0: nothing more asked for
    CHECK_EQ(g.pf_drops(), 0u);
    CHECK(timed_hits > 20);
    std::printf("  %u packets, %llu prefetches taken (%u timed, of %u frames timed)\n", n,
                static_cast<unsigned long long>(g.pf_hits()), timed_hits, timed);

    // Back-pressure: the prefetch asked for later or not at all; each one
    // asked for is still taken, the bytes right.
    g.push_ok_pct = 70;
    g.req_ready_pct = 60;
    g.rsp_pct = 70;
    g.lat_min = 1;
    g.lat_max = 16;
    g.drain_max = 6;
    const uint64_t hits0 = g.pf_hits(), reqs0 = g.pf_requests();
    unsigned due = 0;
    for (unsigned m = 0; m < 150; m++) {
        std::vector<unsigned> plens(r.range(2, 5));
        for (unsigned &p : plens) p = packet_len(r);
        const std::vector<TxJob> msg = message(r, plens, r.range(0, 1), 4, r.range(0, 200));
        for (size_t k = 0; k < msg.size(); k++) {
            g.add(msg[k]);
            due += hit_due(msg, k);
        }
    }
    g.run();
    const uint64_t hits = g.pf_hits() - hits0;
    CHECK_EQ(hits, g.pf_requests() - reqs0);
    CHECK(hits > due / 2 && hits <= due);
    CHECK_EQ(g.pf_drops(), 0u);
    CHECK_EQ(g.poisoned(), 0u);
    CHECK_EQ(g.faults(), 0u);
    std::printf("  with back-pressure: %llu of %u prefetches due taken\n", static_cast<unsigned long long>(hits), due);
}

// The ways a held prefetch is thrown away, each after a packet A that asked
// for one: the next frame B with another pf_id, at another address, with
// another first piece; pf_keep low in the gap before B (idle); pf_keep low
// while A was still under way (doomed: dropped once A is done, B refused
// it though it would match); and a refused prefetch dropped (no fault, no
// poison). The per-cycle checks hold pf_drop and rd_rsp_ready high
// exactly while its beats are thrown away, pf_busy to the last, none of
// them pushed, B's own bytes right (its own beats behind the dropped ones).
// With everything ready at once the counts are exact; then back-pressure.
UNIT_TEST_WIDTHS(prefetch_drop) {
    const uint64_t seed = unit_seed(0x6a000a);
    Gather<W> g(seed);
    Rng r(seed);
    g.keep_low_pct = 0;
    for (unsigned pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            g.push_ok_pct = 70;
            g.req_ready_pct = 60;
            g.rsp_pct = 70;
            g.drain_max = 6;
        }
        const uint64_t reqs0 = g.pf_requests(), start0 = g.pf_drops_start(), keep0 = g.pf_drops_keep(),
                       doomed0 = g.pf_drops_doomed(), beats0 = g.pf_dropped_beats(), hits0 = g.pf_hits();
        unsigned want_start = 0, want_keep = 0, want_doomed = 0, want_hits = 0, want_beats = 0;
        for (unsigned i = 0; i < 120; i++) {
            g.lat_min = 1;
            g.lat_max = pass == 0 ? r.range(1, 20) : 16;
            // A and B over one segment with bytes left after both.
            const unsigned pa = packet_len(r), pb = r.range(2, kMtu);
            std::vector<TxJob> m = message(r, {pa, pb}, r.range(0, 1), 1, r.range(1, 100));
            TxJob &a = m[0], &b = m[1];
            const uint32_t pf_len = min3(a.pf_plen, rem_at(b.list), kMtu);
            bool hit = false;
            switch (i % 7) {
            case 0: b.pf_id ^= 1; break;                    // another message's name
            case 1: {                                       // another address
                const uint64_t at = addr_at(b.list);
                b.list = sg::random_list(r, pb, 0, 3, false);
                while (addr_at(b.list) == at) b.list = sg::random_list(r, pb, 0, 3, false);
                break;
            }
            case 2: a.pf_plen = static_cast<uint16_t>(pb - 1); break;   // another first piece
            case 3:                                         // pf_keep low while idle
                b.keep_low = KeepLow::Gap;
                b.gap = r.range(1, 6);
                break;
            case 4: a.keep_low = KeepLow::Mid; break;       // doomed
            case 5:                                         // refused, dropped
                a.pf_err = true;
                b.pf_id ^= 1;
                break;
            default: hit = true; break;                     // taken: the drops leave it working
            }
            g.add(a);
            g.add(b);
            const uint32_t dropped = i % 7 == 2 ? min3(pb - 1, rem_at(b.list), kMtu) : pf_len;
            if (hit) {
                want_hits++;
            } else {
                want_beats += (dropped + W - 1) / W;
                (i % 7 == 3 ? want_keep : i % 7 == 4 ? want_doomed : want_start)++;
            }
        }
        g.run();
        const uint64_t reqs = g.pf_requests() - reqs0, hits = g.pf_hits() - hits0;
        const uint64_t d_start = g.pf_drops_start() - start0, d_keep = g.pf_drops_keep() - keep0,
                       d_doomed = g.pf_drops_doomed() - doomed0, beats = g.pf_dropped_beats() - beats0;
        CHECK_EQ(reqs, hits + d_start + d_keep + d_doomed);
        if (pass == 0) {
            CHECK_EQ(hits, want_hits);
            CHECK_EQ(d_start, want_start);
            CHECK_EQ(d_keep, want_keep);
            CHECK_EQ(d_doomed, want_doomed);
            CHECK_EQ(beats, want_beats);
        } else {
            CHECK(hits > 0 && d_start > 0 && d_keep > 0 && d_doomed > 0);
        }
        std::printf("  pass %u: %llu prefetches: %llu taken, dropped %llu at a start, %llu on pf_keep idle, "
                    "%llu doomed (%llu beats)\n", pass, static_cast<unsigned long long>(reqs),
                    static_cast<unsigned long long>(hits), static_cast<unsigned long long>(d_start),
                    static_cast<unsigned long long>(d_keep), static_cast<unsigned long long>(d_doomed),
                    static_cast<unsigned long long>(beats));
    }
    CHECK_EQ(g.poisoned(), 0u);
    CHECK_EQ(g.faults(), 0u);
}

// A refused prefetch: taken by a hit it is the frame's refused first burst
// (zeros pushed, a fault pulse per beat with its segment's start, poison
// at done); dropped it leaves nothing (no fault, the next frame clean).
// Exact at any pace: if back-pressure keeps the prefetch from being asked
// for, B asks for its first burst itself and the DMA refuses that.
UNIT_TEST_WIDTHS(prefetch_error) {
    const uint64_t seed = unit_seed(0x6a000b);
    Gather<W> g(seed);
    Rng r(seed);
    g.keep_low_pct = 0;
    unsigned n = 0, bad = 0, want_faults = 0;
    for (unsigned pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            g.push_ok_pct = 70;
            g.req_ready_pct = 60;
            g.rsp_pct = 70;
            g.lat_min = 1;
            g.lat_max = 16;
            g.drain_max = 6;
        }
        const uint64_t hits0 = g.pf_hits(), drops0 = g.pf_drops();
        for (unsigned i = 0; i < 100; i++) {
            std::vector<TxJob> m = message(r, {packet_len(r), packet_len(r)}, r.range(0, 1), 3, r.range(1, 100));
            m[0].pf_err = true;
            if (i % 2 == 0) {
                m[1].err_burst = 0;
                bad++;
                const sg::Cut c = sg::cut(m[1].list.segs, m[1].list.first, m[1].list.off, m[1].f.payload_len, kMtu);
                want_faults += (c.pieces[0].len + W - 1) / W;
            } else {
                m[1].pf_id ^= 1;   // dropped
            }
            g.add(m[0]);
            g.add(m[1]);
            g.add(job(r, r.range(0, 300)));   // clean after it
            n += 3;
        }
        g.run();
        CHECK(g.pf_hits() > hits0 && g.pf_drops() > drops0);
    }
    CHECK_EQ(g.frames(), n);
    CHECK_EQ(g.poisoned(), bad);
    CHECK_EQ(g.faults(), want_faults);
    std::printf("  %u frames, %u refused first bursts (%llu prefetches taken, %llu dropped), %llu fault pulses\n", n,
                bad, static_cast<unsigned long long>(g.pf_hits()), static_cast<unsigned long long>(g.pf_drops()),
                static_cast<unsigned long long>(g.faults()));
}

UNIT_TEST_WIDTHS(random_run) {
    const uint64_t seed = unit_seed(0x6a0008);
    Gather<W> g(seed);
    Rng r(seed);
    const int before = rnic_check_failures();
    unsigned n = 0;
    for (unsigned round = 0; round < 10 && !unit_stop(before); round++) {
        g.push_ok_pct = round == 0 ? 100 : r.range(30, 100);
        g.req_ready_pct = round == 0 ? 100 : r.range(20, 100);
        g.rsp_pct = round == 0 ? 100 : r.range(30, 100);
        g.lat_min = r.range(1, 4);
        g.lat_max = g.lat_min + r.range(0, 16);
        g.drain_max = r.range(0, 12);
        g.keep_low_pct = round < 3 ? 0 : r.range(0, 4);
        for (unsigned i = 0; i < 250; i++) {
            if (r.percent(40)) {
                // A message, its packets prefetching one another; now and
                // then a pf_plen that is not the next packet's, a refused
                // packet (its prefetch refused too), a prefetch after the
                // last packet (dropped at the next start).
                std::vector<unsigned> plens(r.range(2, 4));
                for (unsigned &p : plens) p = r.percent(10) ? 0 : r.percent(30) ? r.range(1, 32) : packet_len(r);
                std::vector<TxJob> m = message(r, plens, r.range(0, 1), 5, r.percent(30) ? r.range(1, 64) : 0,
                                               r.percent(30));
                for (size_t k = 0; k < m.size(); k++) {
                    if (r.percent(10)) m[k].err_burst = static_cast<int>(r.range(0, 2));
                    if (r.percent(15)) m[k].pf_plen = static_cast<uint16_t>(r.range(1, kMtu));
                }
                for (size_t k = 0; k < m.size(); k++) {
                    m[k].pf_err = k + 1 < m.size() ? m[k + 1].err_burst == 0 : r.percent(20);
                    g.add(m[k]);
                    n++;
                }
                i += static_cast<unsigned>(m.size()) - 1;
                continue;
            }
            const unsigned plen = r.percent(20) ? 0 : r.percent(40) ? r.range(1, 32) : r.range(33, kMtu);
            TxJob j = job(r, plen, r.percent(10) ? r.range(1, 64) : 0, 6, r.percent(30));
            if (r.percent(10)) j.err_burst = static_cast<int>(r.range(0, 2));
            g.add(j);
            n++;
        }
        g.run();
    }
    CHECK_EQ(g.frames(), n);
    CHECK(g.pf_hits() > 0 && g.pf_drops_start() > 0 && g.pf_drops_keep() > 0 && g.pf_drops_doomed() > 0);
    std::printf("  %llu prefetches: %llu taken, dropped %llu at a start, %llu on pf_keep idle, %llu doomed\n",
                static_cast<unsigned long long>(g.pf_requests()), static_cast<unsigned long long>(g.pf_hits()),
                static_cast<unsigned long long>(g.pf_drops_start()), static_cast<unsigned long long>(g.pf_drops_keep()),
                static_cast<unsigned long long>(g.pf_drops_doomed()));
    std::printf("  %u frames, %llu bursts, %llu poisoned, %llu cycles\n", n,
                static_cast<unsigned long long>(g.bursts()), static_cast<unsigned long long>(g.poisoned()),
                static_cast<unsigned long long>(g.cycles()));
}
