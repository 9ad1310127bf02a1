// rnic_rr_pick (rtl/rnic_rr_pick.sv) against its contract, the module's
// header comment: any = some request; idx = the first request at or after
// `from`, else (none there) the lowest request. The bench's reference is
// that sentence as a plain loop over the N bits (ref_pick below), which the
// RTL's word-and-halving search must agree with.
//
//   tb_rtl_rr_pick TEST... | all   runs the named tests
//   tb_rtl_rr_pick --list          prints every test name, one a line
//                                  (CMake registers one CTest per line)
//
// The unit is verilated at N = 2, 16, 64, 128 and 1024 (CMakeLists.txt says
// why those); each test below is registered per N as name_n<N>. The RTL
// searches LW = min(N, 64) bits at a time: N = 128 and 1024 have 2 and 16
// such words, the others one. idx is compared only when there is a request:
// with none the contract leaves it open.
//
//   exhaustive_n2/_n16  every request pattern with every `from` (2^N * N
//                       evaluations: 8, and 1,048,576 at N = 16)
//   random_n<N>         random patterns from one request to all N, as
//                       scattered bits, one run (wrapping past N-1 to 0 at
//                       times) and bits within one 64-bit word, each with
//                       every `from` (2^20 evaluations per N)
//   pairs_n<N>          N >= 64: every two-request pattern, with every
//                       `from` at N = 64 and 128, and at 1024 with `from`
//                       at, just past and just before each of the two and
//                       at 0 and N-1 (2^19 pairs: all `from` would be 2^29)
//   single_n<N>         every one-request pattern, and every "bit b and all
//                       above it" pattern, with every `from`: each bit
//                       position through every halving step, each word
//                       through the word search, from both sides
//   edges_n<N>          by hand: no request (any low, every `from`); only
//                       bit N-1 with from = 0; only bit 0 with from = N-1
//                       (the wrap); the request exactly at `from` (alone,
//                       with its neighbours, among all N)
//   words_n<N>          by hand: requests only before `from` (in the word
//                       before from's: the wrap across words at N >= 128;
//                       below `from` in its own word at N <= 64); requests
//                       only in the last word; requests either side of
//                       each word boundary, and past an empty word
//
// The expectations of edges and words are stated by hand and also checked
// against ref_pick, so a slip in either shows. A pick that is no request at
// all stops the run first in the RTL's own assertion (a_is_request, --assert).
//
// Each test prints its seed; RTL_UNIT_SEED=N replays another.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>

#include "Vrnic_rr_pick_n1024.h"
#include "Vrnic_rr_pick_n128.h"
#include "Vrnic_rr_pick_n16.h"
#include "Vrnic_rr_pick_n2.h"
#include "Vrnic_rr_pick_n64.h"
#include "rnic_check.h"
#include "unit_bench.h"
#include "verilated.h"

namespace {

// The unit verilated at N (-GN=<N>, CMakeLists.txt).
template <unsigned N> struct PickModel;
template <> struct PickModel<2> { using type = Vrnic_rr_pick_n2; };
template <> struct PickModel<16> { using type = Vrnic_rr_pick_n16; };
template <> struct PickModel<64> { using type = Vrnic_rr_pick_n64; };
template <> struct PickModel<128> { using type = Vrnic_rr_pick_n128; };
template <> struct PickModel<1024> { using type = Vrnic_rr_pick_n1024; };

// The RTL's search word (its LW) and how many there are (its NW): the
// words tests place requests by them.
template <unsigned N> constexpr unsigned kLw = N < 64 ? N : 64;
template <unsigned N> constexpr unsigned kNw = N / kLw<N>;

// N request bits, 64 to a word, bit i in word i / 64 (bits past N clear).
template <unsigned N> struct Req {
    static constexpr unsigned kWords = (N + 63) / 64;
    uint64_t w[kWords] = {};

    void set(unsigned i) { w[i / 64] |= uint64_t{1} << (i % 64); }
    void clear(unsigned i) { w[i / 64] &= ~(uint64_t{1} << (i % 64)); }
    bool get(unsigned i) const { return (w[i / 64] >> (i % 64)) & 1; }
    unsigned count() const {
        unsigned n = 0;
        for (uint64_t x : w) n += static_cast<unsigned>(__builtin_popcountll(x));
        return n;
    }
    // The lowest request, or -1 with none (the words tests' expectation).
    int lowest() const {
        for (unsigned i = 0; i < N; i++)
            if (get(i)) return static_cast<int>(i);
        return -1;
    }
    static Req all() {
        Req r;
        for (unsigned i = 0; i < N; i++) r.set(i);
        return r;
    }
    static Req of(std::initializer_list<unsigned> bits) {
        Req r;
        for (unsigned b : bits) r.set(b % N);
        return r;
    }
};

// The contract read literally: the first request at or after `from`; none
// there, the first from 0 (the lowest); -1 when there is no request.
template <unsigned N> int ref_pick(const Req<N> &r, unsigned from) {
    for (unsigned i = from; i < N; i++)
        if (r.get(i)) return static_cast<int>(i);
    for (unsigned i = 0; i < from; i++)
        if (r.get(i)) return static_cast<int>(i);
    return -1;
}

// The requests for reports: their positions when few, else the hex of all
// N bits (most significant first) and how many are set.
template <unsigned N> std::string describe(const Req<N> &r) {
    std::string s;
    char buf[32];
    if (r.count() <= 12) {
        s = "{";
        for (unsigned i = 0; i < N; i++) {
            if (!r.get(i)) continue;
            std::snprintf(buf, sizeof buf, "%s%u", s.size() > 1 ? ", " : "", i);
            s += buf;
        }
        return s + "}";
    }
    std::snprintf(buf, sizeof buf, "%u set: 0x", r.count());
    s = buf;
    for (unsigned i = (N + 3) / 4; i-- > 0;) {
        const unsigned nib = static_cast<unsigned>(r.w[i / 16] >> (4 * (i % 16))) & 0xF;
        s += "0123456789abcdef"[nib];
    }
    return s;
}

// The req port, whatever its width: Verilator gives up to 64 bits an
// integer and more a VlWide of 32-bit words, word 0 the least significant.
// The wide form works on (words, count) from a thin template, as vl_port.h's
// do: GCC 12 at -O3 inlines one VlWide<K> into another of a different K and
// reports reads past the smaller (-Warray-bounds, fatal with -Werror).
void words_put(uint32_t *port, std::size_t n, const uint64_t *w) {
    for (std::size_t i = 0; i < n; i++) port[i] = static_cast<uint32_t>(w[i / 2] >> (32 * (i % 2)));
}
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0> void put(T &port, const uint64_t *w) {
    port = static_cast<T>(w[0]);   // N <= 64: the N bits, nothing above them set
}
template <std::size_t K> void put(VlWide<K> &port, const uint64_t *w) { words_put(port.data(), K, w); }

struct Pick {
    bool any;
    unsigned idx;
};

// The Verilated unit at N, and its comparison with ref_pick.
template <unsigned N> class Picker {
    using Model = typename PickModel<N>::type;

public:
    explicit Picker(uint64_t seed) : seed_(seed), ctx_(unit_context(seed)) {
        // Verilator 5.006 draws X values through the thread's context, not
        // the model's (tests/rtl_units/cqe_writer/cqe_harness.cpp says why).
        Verilated::threadContextp(ctx_.get());
        dut_.reset(new Model(ctx_.get()));
    }
    ~Picker() {
        // The thread's context is still ours: a test makes one Picker, and
        // no other context is made while it lives. Not set again here, as
        // the other harnesses do: GCC 12 with UBSan miscompiles that store
        // when inlined into this template's destructor (a null ThreadLocal
        // reported, as sq_scheduler/sched_harness.cpp found for its reset
        // to none); nor set back to none, for the same reason.
        dut_->final();
        dut_.reset();
    }
    Picker(const Picker &) = delete;
    Picker &operator=(const Picker &) = delete;

    Pick eval(const Req<N> &r, unsigned from) {
        put(dut_->req, r.w);
        dut_->from = static_cast<std::remove_reference_t<decltype(dut_->from)>>(from);
        dut_->eval();
        evals_++;
        return Pick{dut_->any != 0, static_cast<unsigned>(dut_->idx)};
    }

    // Evaluates and compares with ref_pick: `any` always, idx when there is
    // a request. Two checks; the first few mismatches described in full.
    bool check(const Req<N> &r, unsigned from) {
        const Pick p = eval(r, from);
        const int want = ref_pick(r, from);
        const bool any_ok = rnic_check_record(p.any == (want >= 0)) != 0;
        const bool idx_ok = want < 0 || rnic_check_record(p.idx == static_cast<unsigned>(want)) != 0;
        if ((!any_ok || !idx_ok) && reports_ < kMaxReports) {
            reports_++;
            std::fprintf(stderr, "rr_pick N=%u mismatch (seed 0x%llx): req %s, from %u\n  unit: any %d idx %u\n"
                                 "  ref:  any %d idx %d\n",
                         N, static_cast<unsigned long long>(seed_), describe(r).c_str(), from, p.any, p.idx,
                         want >= 0, want);
        }
        return any_ok && idx_ok;
    }
    // check() at every `from`; false at the first mismatch's pattern.
    bool check_all_from(const Req<N> &r) {
        bool ok = true;
        for (unsigned f = 0; f < N; f++) ok &= check(r, f);
        return ok;
    }

    // A case stated by hand: the pick must be `want` (a request). `what`
    // names the case in the report; the hand's `want` must be ref_pick's too.
    void expect(const Req<N> &r, unsigned from, unsigned want, const char *what) {
        const int before = rnic_check_failures();
        const Pick p = eval(r, from);
        CHECK_EQ(p.any, 1);
        CHECK_EQ(p.idx, want);
        CHECK_EQ(ref_pick(r, from), static_cast<int>(want));   // the bench's own slip, if this alone fails
        if (rnic_check_failures() != before)
            std::fprintf(stderr, "  ^ N=%u %s: req %s, from %u: want idx %u, unit any %d idx %u\n", N, what,
                         describe(r).c_str(), from, want, p.any, p.idx);
    }

    uint64_t evals() const { return evals_; }

private:
    static constexpr unsigned kMaxReports = 10;   // mismatches described in full per picker
    uint64_t seed_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Model> dut_;
    uint64_t evals_ = 0;
    unsigned reports_ = 0;
};

template <unsigned N> void report(const Picker<N> &p) {
    std::printf("  N=%u: %llu evaluations\n", N, static_cast<unsigned long long>(p.evals()));
}

// ------------------------------------------------------------------ tests

// Every pattern, every `from`: the whole input space where it is small
// enough (N = 16: 2^20 evaluations, well under a second).
template <unsigned N> void exhaustive(uint64_t fixed) {
    static_assert(N <= 16, "2^N patterns");
    Picker<N> p(unit_seed(fixed));
    const int before = rnic_check_failures();
    for (uint64_t v = 0; v < (uint64_t{1} << N) && !unit_stop(before); v++) {
        Req<N> r;
        r.w[0] = v;
        p.check_all_from(r);
    }
    CHECK_EQ(p.evals(), (uint64_t{1} << N) * N);
    report(p);
}

// Random patterns, each with every `from`: 2^20 evaluations per N (under a
// second at N = 1024).
// Densities from one request to all N, in three shapes: scattered (k
// distinct random bits), one run of k (from a random start, wrapping past
// N-1 to 0 when it gets there), and random bits within one 64-bit word
// (at N >= 128 the others left empty: the word search must find it, below
// or above from's word).
template <unsigned N> void random_patterns(uint64_t fixed) {
    const uint64_t seed = unit_seed(fixed);
    Picker<N> p(seed);
    Rng rng(seed ^ 0x22B1C4ull);
    const unsigned ladder[] = {1, 2, 3, 4, N / 16, N / 4, N / 2, 3 * N / 4, N - 2, N - 1, N};
    const unsigned patterns = (1u << 20) / N;
    const int before = rnic_check_failures();
    unsigned shapes[3] = {};
    for (unsigned i = 0; i < patterns && !unit_stop(before); i++) {
        unsigned k = ladder[i % (sizeof ladder / sizeof ladder[0])];
        if (k < 1 || k > N) k = rng.range(1, N);   // N = 2's ladder runs off both ends
        Req<N> r;
        const unsigned shape = (i / (sizeof ladder / sizeof ladder[0])) % 3;
        shapes[shape]++;
        if (shape == 0) {
            // k distinct bits: set from a random place, stepping past set ones.
            for (unsigned n = 0; n < k; n++) {
                unsigned b = rng.range(0, N - 1);
                while (r.get(b)) b = (b + 1) % N;
                r.set(b);
            }
        } else if (shape == 1) {
            const unsigned start = rng.range(0, N - 1);
            for (unsigned n = 0; n < k; n++) r.set((start + n) % N);
        } else {
            const unsigned word = rng.range(0, kNw<N> - 1);
            for (unsigned b = 0; b < kLw<N>; b++)
                if (rng.range(0, kLw<N> - 1) < k * kLw<N> / N) r.set(word * kLw<N> + b);   // k/N of the word
            if (r.count() == 0) r.set(word * kLw<N> + rng.range(0, kLw<N> - 1));
        }
        CHECK(r.count() >= 1);
        if (shape != 2) CHECK_EQ(r.count(), k);
        p.check_all_from(r);
    }
    CHECK_EQ(p.evals(), uint64_t{patterns} * N);
    std::printf("  %u patterns: %u scattered, %u runs, %u in one word\n", patterns, shapes[0], shapes[1], shapes[2]);
    report(p);
}

// One request at b: picked from every `from` (at or after it, or by the
// wrap). Bit b and every bit above it: the pick is `from` itself from b on,
// else b (the first at or after `from`, below b none).
template <unsigned N> void single(uint64_t fixed) {
    Picker<N> p(unit_seed(fixed));
    const int before = rnic_check_failures();
    for (unsigned b = 0; b < N && !unit_stop(before); b++) {
        Req<N> one, upward;
        one.set(b);
        for (unsigned i = b; i < N; i++) upward.set(i);
        for (unsigned f = 0; f < N; f++) {
            const Pick a = p.eval(one, f);
            const Pick u = p.eval(upward, f);
            const unsigned want_u = f >= b ? f : b;
            CHECK_EQ(a.any, 1);
            CHECK_EQ(a.idx, b);
            CHECK_EQ(u.any, 1);
            CHECK_EQ(u.idx, want_u);
            if (a.idx != b || u.idx != want_u || !a.any || !u.any)
                std::fprintf(stderr, "  ^ N=%u from %u: {%u} picked %u; {%u..%u} picked %u, want %u\n", N, f, b, a.idx,
                             b, N - 1, u.idx, want_u);
        }
    }
    CHECK_EQ(p.evals(), uint64_t{2} * N * N);
    report(p);
}

// Requests at a and b, a < b: from up to a, a; past a up to b, b; past
// b, a (the wrap). Each pair tries the halving of the lower one's word
// with the other above it in the same word or another.
template <unsigned N> void pairs(uint64_t fixed) {
    static_assert(N >= 64, "N < 64 is exhaustive or every pair is in single/random");
    Picker<N> p(unit_seed(fixed));
    const int before = rnic_check_failures();
    uint64_t tried = 0;
    for (unsigned a = 0; a < N && !unit_stop(before); a++) {
        for (unsigned b = a + 1; b < N; b++) {
            const Req<N> r = Req<N>::of({a, b});
            auto one = [&](unsigned f) {
                const unsigned want = f <= a ? a : f <= b ? b : a;
                const Pick q = p.eval(r, f);
                CHECK_EQ(q.any, 1);
                CHECK_EQ(q.idx, want);
                if (!q.any || q.idx != want)
                    std::fprintf(stderr, "  ^ N=%u {%u, %u} from %u: picked %u, want %u\n", N, a, b, f, q.idx, want);
            };
            if (N <= 128) {
                for (unsigned f = 0; f < N; f++) one(f);
            } else {
                const unsigned froms[] = {0, a, a + 1, b, (b + 1) % N, N - 1, (a + N - 1) % N, b - 1};
                for (unsigned f : froms) one(f);
            }
            tried++;
        }
    }
    CHECK_EQ(tried, uint64_t{N} * (N - 1) / 2);
    report(p);
}

template <unsigned N> void edges(uint64_t fixed) {
    Picker<N> p(unit_seed(fixed));
    const Req<N> none;
    unsigned none_idx = ~0u;   // what idx is with no request: printed, not checked (the contract leaves it open)
    bool none_same = true;
    for (unsigned f = 0; f < N; f++) {
        const Pick q = p.eval(none, f);
        CHECK_EQ(q.any, 0);
        if (q.any) std::fprintf(stderr, "  ^ N=%u: no request, from %u: any high (idx %u)\n", N, f, q.idx);
        none_same &= f == 0 || q.idx == none_idx;
        none_idx = q.idx;
    }
    std::printf("  no request: idx %s%u (not checked)\n", none_same ? "" : "varies with from, last ", none_idx);
    // The top bit from the bottom: the search runs through every word.
    p.expect(Req<N>::of({N - 1}), 0, N - 1, "only bit N-1, from 0");
    // The bottom bit from the top: nothing at or after N-1, so the wrap.
    p.expect(Req<N>::of({0}), N - 1, 0, "only bit 0, from N-1 (wrap)");
    p.expect(Req<N>::of({0, N - 1}), N - 1, N - 1, "bits 0 and N-1, from N-1");
    p.expect(Req<N>::of({0, N - 1}), 0, 0, "bits 0 and N-1, from 0");
    for (unsigned f = 0; f < N; f++) {
        // The request at `from` is picked: "at or after" includes it.
        p.expect(Req<N>::of({f}), f, f, "the request exactly at from");
        p.expect(Req<N>::all(), f, f, "all N requests");
        p.expect(Req<N>::of({f, f + 1}), f, f, "from and the one after it");
        if (N > 2) p.expect(Req<N>::of({f, f + N - 1}), f, f, "from and the one before it");
        // Just past the only request: all the way round to it.
        p.expect(Req<N>::of({f}), (f + 1) % N, f, "from one past the only request");
    }
    report(p);
}

template <unsigned N> void words(uint64_t fixed) {
    constexpr unsigned lw = kLw<N>, nw = kNw<N>;
    const uint64_t seed = unit_seed(fixed);
    Picker<N> p(seed);
    Rng rng(seed ^ 0x3A7D5ull);

    // Requests only in the word before from's: nothing at or after `from`
    // (or, from word 0, all of them after it in the last word): the lowest
    // either way. At N <= 64 there is one word: requests only below `from`
    // in it. Patterns: the word's lowest bit, its highest, both, random.
    for (unsigned k = 0; k < nw; k++) {
        const unsigned froms[] = {k * lw, k * lw + lw / 2, k * lw + lw - 1};
        const unsigned prev = nw > 1 ? (k + nw - 1) % nw : k;
        for (unsigned f : froms) {
            // Where the requests may go: word prev, below `from` if it is from's own.
            const unsigned lo = prev * lw, hi = prev == k ? f : prev * lw + lw;   // [lo, hi)
            if (hi == lo) continue;   // from at the bottom of the only word: nothing below it
            for (unsigned t = 0; t < 8; t++) {
                Req<N> r;
                if (t == 0 || t == 2) r.set(lo);
                if (t == 1 || t == 2) r.set(hi - 1);
                if (t >= 3)
                    for (unsigned b = lo; b < hi; b++)
                        if (rng.percent(t * 10)) r.set(b);
                if (r.count() == 0) r.set(rng.range(lo, hi - 1));
                p.expect(r, f, static_cast<unsigned>(r.lowest()), nw > 1 ? "requests only in the word before from's"
                                                                         : "requests only below from");
                if (nw > 1 && k > 0 && f > k * lw) {
                    // With requests below `from` in its own word too: still
                    // the wrap, to the lowest, in the word before.
                    Req<N> below = r;
                    below.set(rng.range(k * lw, f - 1));
                    p.expect(below, f, static_cast<unsigned>(r.lowest()),
                             "requests in the word before from's and below from in its own");
                }
            }
        }
    }

    // Requests only in the last word: from any earlier word, its lowest; from
    // its first bit, its lowest; from N-1, N-1 when it is set, else its lowest.
    for (unsigned t = 0; t < 8; t++) {
        Req<N> r;
        if (t == 0 || t == 2) r.set(N - lw);
        if (t == 1 || t == 2) r.set(N - 1);
        if (t >= 3)
            for (unsigned b = N - lw; b < N; b++)
                if (rng.percent(t * 10)) r.set(b);
        if (r.count() == 0) r.set(rng.range(N - lw, N - 1));
        const unsigned low = static_cast<unsigned>(r.lowest());
        for (unsigned f = 0; f < N - lw; f++) p.expect(r, f, low, "requests only in the last word, from before it");
        p.expect(r, N - lw, low, "requests only in the last word, from its first bit");
        p.expect(r, N - 1, r.get(N - 1) ? N - 1 : low, "requests only in the last word, from N-1");
    }

    // Each word boundary b (N >= 128): the requests either side of it, and
    // the first bit of the next word after an empty one.
    for (unsigned k = 1; k < nw; k++) {
        const unsigned b = k * lw;
        const Req<N> pair = Req<N>::of({b - 1, b});
        p.expect(pair, b - 1, b - 1, "either side of a word boundary, from below it");
        p.expect(pair, b, b, "either side of a word boundary, from above it");
        p.expect(pair, b + 1, b - 1, "either side of a word boundary, from past both (wrap)");
        if (k + 1 < nw) {
            const Req<N> skip = Req<N>::of({b - 1, b + lw});
            p.expect(skip, b, b + lw, "past an empty word to the next one's first bit");
            p.expect(Req<N>::of({b - 1, b + lw - 1}), b, b + lw - 1, "from's word's top bit, from its bottom");
        }
    }
    report(p);
}

}  // namespace

// Each test registered per N as <test>_n<N>; the seeds differ by test and N.
#define RR_TEST(test, fn, n, seed) \
    UNIT_TEST(test##_n##n) { fn<n>(seed); }

RR_TEST(exhaustive, exhaustive, 2, 0xAA02)
RR_TEST(exhaustive, exhaustive, 16, 0xAA16)
RR_TEST(random, random_patterns, 2, 0xBB02)
RR_TEST(random, random_patterns, 16, 0xBB16)
RR_TEST(random, random_patterns, 64, 0xBB64)
RR_TEST(random, random_patterns, 128, 0xBB128)
RR_TEST(random, random_patterns, 1024, 0xBB1024)
RR_TEST(pairs, pairs, 64, 0xFF64)
RR_TEST(pairs, pairs, 128, 0xFF128)
RR_TEST(pairs, pairs, 1024, 0xFF1024)
RR_TEST(single, single, 2, 0xCC02)
RR_TEST(single, single, 16, 0xCC16)
RR_TEST(single, single, 64, 0xCC64)
RR_TEST(single, single, 128, 0xCC128)
RR_TEST(single, single, 1024, 0xCC1024)
RR_TEST(edges, edges, 2, 0xDD02)
RR_TEST(edges, edges, 16, 0xDD16)
RR_TEST(edges, edges, 64, 0xDD64)
RR_TEST(edges, edges, 128, 0xDD128)
RR_TEST(edges, edges, 1024, 0xDD1024)
RR_TEST(words, words, 2, 0xEE02)
RR_TEST(words, words, 16, 0xEE16)
RR_TEST(words, words, 64, 0xEE64)
RR_TEST(words, words, 128, 0xEE128)
RR_TEST(words, words, 1024, 0xEE1024)
