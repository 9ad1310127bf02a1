// What every RTL unit bench (tests/rtl_units/<unit>/) shares: the checks
// (rnic_check.h, the same as every other test's), a registry of named tests
// that unit_main.cpp runs by name and lists with --list (CMake registers one
// CTest per name), and a seeded random source whose seed each test prints.
#ifndef RTL_UNIT_BENCH_H
#define RTL_UNIT_BENCH_H

#include <cstdint>
#include <memory>
#include <vector>

#include "rnic_check.h"

class VerilatedContext;

// A test: a function that checks through CHECK / CHECK_EQ.
struct UnitTest {
    const char *name;
    void (*fn)();
};
std::vector<UnitTest> &unit_registry();
struct UnitRegistrar {
    UnitRegistrar(const char *name, void (*fn)()) { unit_registry().push_back(UnitTest{name, fn}); }
};
#define UNIT_TEST(name)                                          \
    static void test_##name();                                   \
    static UnitRegistrar registrar_##name(#name, test_##name);   \
    static void test_##name()

// A test of a unit with a datapath width parameter W (issue 12: 8, 16, 32
// and 64 bytes a cycle), written once as a template on W: registered as
// `name` at W = 8 (the unit's default width) and, in a build with the wide
// models (CMake option RNIC_UNIT_WIDTHS, which defines RNIC_UNIT_WIDTHS=1 for
// the benches that have them), as w16_name, w32_name and w64_name too.
#if RNIC_UNIT_WIDTHS
#define UNIT_WIDE_REGISTRARS(name)                                                    \
    static UnitRegistrar registrar_w16_##name("w16_" #name, test_##name<16>);         \
    static UnitRegistrar registrar_w32_##name("w32_" #name, test_##name<32>);         \
    static UnitRegistrar registrar_w64_##name("w64_" #name, test_##name<64>);
#else
#define UNIT_WIDE_REGISTRARS(name)
#endif
// UNIT_MODELS(Map, Vmodule): Map<W>::type, the unit's verilated model at
// width W: Vmodule (its default, W = 8) and, with the wide models,
// Vmodule_w16 / _w32 / _w64 (rnic_rtl_unit_width() in CMakeLists.txt).
#if RNIC_UNIT_WIDTHS
#define UNIT_WIDE_MODELS(map, model)                                       \
    template <> struct map<16> { using type = model##_w16; };             \
    template <> struct map<32> { using type = model##_w32; };             \
    template <> struct map<64> { using type = model##_w64; };
#else
#define UNIT_WIDE_MODELS(map, model)
#endif
#define UNIT_MODELS(map, model)                                            \
    template <unsigned W> struct map;                                      \
    static_assert(RNIC_DATA_BYTES == 8, "the tests named without a width are the default model's, W = 8"); \
    template <> struct map<8> { using type = model; };                     \
    UNIT_WIDE_MODELS(map, model)

#define UNIT_TEST_WIDTHS(name)                                   \
    template <unsigned W> static void test_##name();             \
    static UnitRegistrar registrar_##name(#name, test_##name<8>); \
    UNIT_WIDE_REGISTRARS(name)                                   \
    template <unsigned W> static void test_##name()

// A test stops after this many failed checks of its own: enough to see
// the pattern, without pages of the same message or a run to its timeout.
constexpr int kUnitMaxFailures = 20;
inline bool unit_stop(int failures_before) { return rnic_check_failures() - failures_before >= kUnitMaxFailures; }

// splitmix64: the same sequence on every machine and compiler (the
// standard library's distributions are not portable, so none is used).
class Rng {
public:
    explicit Rng(uint64_t seed) : s_(seed) {}
    uint64_t next() {
        uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint32_t u32() { return static_cast<uint32_t>(next() >> 32); }
    // Uniform in [lo, hi] (hi - lo far below 2^32: the bias is negligible).
    uint32_t range(uint32_t lo, uint32_t hi) { return lo + static_cast<uint32_t>(next() % (uint64_t{hi} - lo + 1)); }
    bool percent(unsigned p) { return next() % 100 < p; }
    uint8_t byte() { return static_cast<uint8_t>(next() >> 56); }

private:
    uint64_t s_;
};

// The seed of the running test: `fallback` (each test has its own fixed
// one), or RTL_UNIT_SEED from the environment to explore others. Printed,
// so a failure can be replayed.
uint64_t unit_seed(uint64_t fallback);

// A Verilator context for one DUT: --x-initial unique starts every register
// and memory word random, from a seed derived from the test's, so nothing
// may depend on power-up contents and a run is still reproducible.
std::unique_ptr<VerilatedContext> unit_context(uint64_t seed);

#endif
