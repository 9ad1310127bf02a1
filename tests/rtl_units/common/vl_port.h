// Byte access to a data port of a verilated unit, whatever its width, so a
// bench written once drives a unit verilated at every datapath width:
// Verilator gives a port of up to 64 bits an integer (CData to QData) and a
// wider one a VlWide<N>, N 32-bit words with word 0 the least significant.
// Byte i is bits 8i+7..8i either way (lane i of an AXI-Stream beat).
#ifndef RTL_UNIT_VL_PORT_H
#define RTL_UNIT_VL_PORT_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "unit_bench.h"
#include "verilated.h"

namespace vlport {

// The wide forms work on (words, count) and are called from thin templates:
// GCC 12 at -O3 inlines one VlWide<N> copy into another of a different N
// and reports reads past the smaller port (-Warray-bounds, fatal with
// -Werror), as the packing helpers now in pkg_struct.h found.
inline void byte_check(std::size_t port_bytes, unsigned i) {
    if (i >= port_bytes) {
        std::fprintf(stderr, "bench error: byte %u of a %zu-byte port\n", i, port_bytes);
        std::exit(2);
    }
}
inline uint8_t words_get_byte(const uint32_t *w, std::size_t n, unsigned i) {
    byte_check(4 * n, i);
    return static_cast<uint8_t>(w[i / 4] >> (8 * (i % 4)));
}
inline void words_set_byte(uint32_t *w, std::size_t n, unsigned i, uint8_t v) {
    byte_check(4 * n, i);
    const unsigned s = 8 * (i % 4);
    w[i / 4] = (w[i / 4] & ~(0xFFu << s)) | (static_cast<uint32_t>(v) << s);
}
// One draw of the random source per 64 bits, as for a 64-bit port.
inline void words_randomize(uint32_t *w, std::size_t n, Rng &r) {
    for (std::size_t i = 0; i < n; i += 2) {
        const uint64_t x = r.next();
        w[i] = static_cast<uint32_t>(x);
        if (i + 1 < n) w[i + 1] = static_cast<uint32_t>(x >> 32);
    }
}
inline bool words_equal(const uint32_t *a, const uint32_t *b, std::size_t n) {
    for (std::size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return false;
    return true;
}

template <class T> using if_int = std::enable_if_t<std::is_integral_v<T>, int>;

template <class T, if_int<T> = 0> uint8_t get_byte(const T &p, unsigned i) {
    byte_check(sizeof(T), i);
    return static_cast<uint8_t>(static_cast<uint64_t>(p) >> (8 * i));
}
template <std::size_t N> uint8_t get_byte(const VlWide<N> &p, unsigned i) { return words_get_byte(p.data(), N, i); }

template <class T, if_int<T> = 0> void set_byte(T &p, unsigned i, uint8_t v) {
    byte_check(sizeof(T), i);
    const uint64_t m = uint64_t{0xFF} << (8 * i);
    p = static_cast<T>((static_cast<uint64_t>(p) & ~m) | (static_cast<uint64_t>(v) << (8 * i)));
}
template <std::size_t N> void set_byte(VlWide<N> &p, unsigned i, uint8_t v) { words_set_byte(p.data(), N, i, v); }

// Every bit of the port random (for a port of 8, 16, 32 or 64 bits, or a
// VlWide: a narrower port in a wider integer would need its top bits clear).
template <class T, if_int<T> = 0> void randomize(T &p, Rng &r) { p = static_cast<T>(r.next()); }
template <std::size_t N> void randomize(VlWide<N> &p, Rng &r) { words_randomize(p.data(), N, r); }

template <class T, if_int<T> = 0> bool equal(const T &a, const T &b) { return a == b; }
template <std::size_t N> bool equal(const VlWide<N> &a, const VlWide<N> &b) {
    return words_equal(a.data(), b.data(), N);
}

// The tkeep of n bytes, n <= 64: bits 0..n-1 set.
constexpr uint64_t lanes(unsigned n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// ceil(log2(n)), as SystemVerilog's $clog2: the width of an address into n words.
constexpr unsigned clog2(uint64_t n) {
    unsigned b = 0;
    while ((uint64_t{1} << b) < n) b++;
    return b;
}

}  // namespace vlport

#endif
