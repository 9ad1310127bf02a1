// The packed structs rnic_qp_transport's ports carry (rnic_pkg's qp_xs_t,
// qp_xs_we_t, flight_t, flight_we_t and sched_xs_t, written in
// rtl/rnic_engine_types.svh)
// as the bench sees them: a value is an array of fields, indexed by the enums
// below, and packing puts it into the vector Verilator makes of the struct.
//
// A packed struct is one vector with its first member in the most
// significant bits, so the tables list the members in declaration order and
// the offsets are computed from the widths after each one. The widths are
// typed here (no header Verilator or gen_spec.py writes carries them); the
// `layout` test reads the generated package and fails on any difference of
// name, order or width, and the word counts of the ports are checked at
// compile time below.
#ifndef XS_LAYOUT_H
#define XS_LAYOUT_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "verilated.h"

struct FieldDesc {
    const char *name;
    unsigned width;
};

// qp_xs_t, in declaration order.
enum XsField : unsigned {
    kSqPsn, kRqPsn, kMsn, kSqCi, kRqCi, kDone, kFenced, kBindWait, kRdHold, kHoldDone,
    kOutGot, kWrVa, kWrLeft, kWrRkey, kRcvGot, kSndOpen,
    kRetryLeft, kRnrLeft, kRnrWait, kRetrying, kKickWhy, kAckedPsn, kNakSent, kPaused, kPausePkts, kXsFields
};
inline constexpr FieldDesc kXsDesc[kXsFields] = {
    {"sq_psn", 24}, {"rq_psn", 24}, {"msn", 24},    {"sq_ci", 16},   {"rq_ci", 16},  {"done", 16},
    {"fenced", 1},  {"bind_wait", 1}, {"rd_hold", 1}, {"hold_done", 16}, {"out_got", 32}, {"wr_va", 64},
    {"wr_left", 32}, {"wr_rkey", 32}, {"rcv_got", 32}, {"snd_open", 1},
    {"retry_left", 3}, {"rnr_left", 3}, {"rnr_wait", 1}, {"retrying", 1}, {"kick_why", 2}, {"acked_psn", 24},
    {"nak_sent", 1}, {"paused", 1}, {"pause_pkts", 16},
};

// flight_t, in declaration order.
enum FlField : unsigned { kFlOp, kFlFirst, kFlLast, kFlLen, kFlFields };
inline constexpr FieldDesc kFlDesc[kFlFields] = {{"op", 8}, {"first", 24}, {"last", 24}, {"len", 32}};

// sched_xs_t, in declaration order: one look's row (look_xs), the
// scheduler's part of a QP.
enum SxField : unsigned {
    kSxSqCi, kSxDone, kSxRqCi, kSxHoldDone, kSxFenced, kSxBindWait, kSxRdHold, kSxRnrWait, kSxPaused, kSxOldestOp,
    kSxFields
};
inline constexpr FieldDesc kSxDesc[kSxFields] = {
    {"sq_ci", 16},  {"done", 16},    {"rq_ci", 16},   {"hold_done", 16}, {"fenced", 1},
    {"bind_wait", 1}, {"rd_hold", 1}, {"rnr_wait", 1}, {"paused", 1},     {"oldest_op", 8},
};
// The qp_xs_t member each sched_xs_t member but oldest_op shows (oldest_op
// is the in-flight table's op at {QP, done mod MAX_RD_ATOMIC}).
inline constexpr XsField kSxFrom[kSxOldestOp] = {kSqCi,    kDone,     kRqCi,    kHoldDone, kFenced,
                                                 kBindWait, kRdHold,  kRnrWait, kPaused};

constexpr bool same_name(const char *a, const char *b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}
// A row member shows the qp_xs_t member of its name and width: a mapping
// typed out of order fails here, not as a puzzling mismatch at run time.
constexpr bool sx_from_matches() {
    for (unsigned i = 0; i < kSxOldestOp; i++)
        if (!same_name(kSxDesc[i].name, kXsDesc[kSxFrom[i]].name) || kSxDesc[i].width != kXsDesc[kSxFrom[i]].width)
            return false;
    return true;
}
static_assert(sx_from_matches(), "kSxFrom names each row member's qp_xs_t member");

template <std::size_t N> constexpr unsigned total_bits(const FieldDesc (&d)[N]) {
    unsigned t = 0;
    for (std::size_t i = 0; i < N; i++) t += d[i].width;
    return t;
}
// The lowest bit of member i: the members after it sit below it.
template <std::size_t N> constexpr unsigned lsb_of(const FieldDesc (&d)[N], unsigned i) {
    unsigned lsb = 0;
    for (std::size_t j = i + 1; j < N; j++) lsb += d[j].width;
    return lsb;
}
constexpr uint64_t mask_of(unsigned width) { return width >= 64 ? ~0ull : (1ull << width) - 1ull; }
constexpr std::size_t words_of(unsigned bits) { return (bits + 31) / 32; }

constexpr unsigned kXsBits = total_bits(kXsDesc);
constexpr unsigned kFlBits = total_bits(kFlDesc);
constexpr unsigned kSxBits = total_bits(kSxDesc);   // XSW in rnic_qp_transport

// qp_xs_we_t and flight_we_t: one bit per member of the struct they enable,
// same names, same order, so member i's enable is bit (members - 1 - i).
constexpr uint32_t xs_we(XsField f) { return 1u << (kXsFields - 1u - f); }
constexpr uint32_t fl_we(FlField f) { return 1u << (kFlFields - 1u - f); }
static_assert(kXsFields < 32, "qp_xs_we_t is held in a uint32_t (and kXsWeAll shifts by its width)");
constexpr uint32_t kXsWeAll = (1u << kXsFields) - 1u;
constexpr uint32_t kFlWeAll = (1u << kFlFields) - 1u;

using Xs = std::array<uint64_t, kXsFields>;
using Flight = std::array<uint64_t, kFlFields>;
using Sched = std::array<uint64_t, kSxFields>;

// The word count of a port Verilator declared as VlWide<N> (a reference
// into the model's root, in Verilator 5).
template <class T> struct WideWords;
template <std::size_t N> struct WideWords<VlWide<N>> { static constexpr std::size_t value = N; };
template <class T> constexpr std::size_t wide_words = WideWords<std::remove_cv_t<std::remove_reference_t<T>>>::value;

// Bits [lsb, lsb + width) of a vector of n 32-bit words, width <= 64. One
// function for ports of every width, not a template on VlWide<N>: GCC 12 at
// -O3 (the Release build) inlined the 11-word copy into the 3-word one and
// reported a read past the 3-word port (-Warray-bounds, fatal with
// -Werror).
inline uint64_t words_get(const uint32_t *w, std::size_t n, unsigned lsb, unsigned width) {
    if (lsb + width > 32 * n) {
        std::fprintf(stderr, "qp_transport bench error: bits %u..%u of a %zu-word port\n", lsb, lsb + width - 1, n);
        std::exit(2);
    }
    uint64_t v = 0;
    for (unsigned b = 0; b < width;) {
        const unsigned at = lsb + b, word = at / 32, shift = at % 32;
        const unsigned take = (32 - shift) < (width - b) ? (32 - shift) : (width - b);
        v |= ((static_cast<uint64_t>(w[word]) >> shift) & mask_of(take)) << b;
        b += take;
    }
    return v;
}
inline void words_put(uint32_t *w, std::size_t n, unsigned lsb, unsigned width, uint64_t v) {
    if (lsb + width > 32 * n) {
        std::fprintf(stderr, "qp_transport bench error: bits %u..%u of a %zu-word port\n", lsb, lsb + width - 1, n);
        std::exit(2);
    }
    v &= mask_of(width);
    for (unsigned b = 0; b < width;) {
        const unsigned at = lsb + b, word = at / 32, shift = at % 32;
        const unsigned take = (32 - shift) < (width - b) ? (32 - shift) : (width - b);
        const uint32_t m = static_cast<uint32_t>(mask_of(take) << shift);
        w[word] = (w[word] & ~m) | (static_cast<uint32_t>((v >> b) << shift) & m);
        b += take;
    }
}
template <std::size_t N> uint64_t wide_get(const VlWide<N> &w, unsigned lsb, unsigned width) {
    return words_get(w.data(), N, lsb, width);
}
template <std::size_t N> void wide_put(VlWide<N> &w, unsigned lsb, unsigned width, uint64_t v) {
    words_put(w.data(), N, lsb, width, v);
}

// A whole struct in or out of its port; bits above the struct are zero.
template <std::size_t N, std::size_t F>
void pack(VlWide<N> &w, const FieldDesc (&d)[F], const std::array<uint64_t, F> &v) {
    for (std::size_t i = 0; i < N; i++) w[i] = 0;
    for (unsigned i = 0; i < F; i++) wide_put(w, lsb_of(d, i), d[i].width, v[i]);
}
// base: the struct's lowest bit in the port (look l's row sits at
// XSW * l of look_xs).
template <std::size_t N, std::size_t F>
std::array<uint64_t, F> unpack(const VlWide<N> &w, const FieldDesc (&d)[F], unsigned base = 0) {
    std::array<uint64_t, F> v{};
    for (unsigned i = 0; i < F; i++) v[i] = wide_get(w, base + lsb_of(d, i), d[i].width);
    return v;
}

#endif
