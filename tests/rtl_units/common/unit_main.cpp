// <bench> TEST...: runs the named tests (or `all`) of an RTL unit bench.
// <bench> --list: prints every test name, one a line, from the registry the
// runs dispatch on; CMake registers one CTest per line (rnic_listed_tests).
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "unit_bench.h"
#include "verilated.h"

std::vector<UnitTest> &unit_registry() {
    static std::vector<UnitTest> tests;
    return tests;
}

uint64_t unit_seed(uint64_t fallback) {
    uint64_t seed = fallback;
    if (const char *s = std::getenv("RTL_UNIT_SEED")) seed = std::strtoull(s, nullptr, 0);
    std::printf("  seed 0x%llx (RTL_UNIT_SEED=0x%llx replays it)\n", static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(seed));
    return seed;
}

std::unique_ptr<VerilatedContext> unit_context(uint64_t seed) {
    std::unique_ptr<VerilatedContext> ctx(new VerilatedContext);
    ctx->randReset(2);
    ctx->randSeed(static_cast<int>(seed & 0x7FFFFFFF));
    return ctx;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s TEST... | all | --list\n", argv[0]);
        return 2;
    }
    if (std::strcmp(argv[1], "--list") == 0) {
        for (const UnitTest &t : unit_registry()) std::printf("%s\n", t.name);
        return 0;
    }
    int ran = 0;
    for (int a = 1; a < argc; a++) {
        bool found = false;
        for (const UnitTest &t : unit_registry()) {
            if (std::strcmp(argv[a], "all") != 0 && std::strcmp(argv[a], t.name) != 0) continue;
            found = true;
            std::printf("%s\n", t.name);
            std::fflush(stdout);
            const int before = rnic_check_failures();
            t.fn();
            std::printf("%-16s %s\n", t.name, rnic_check_failures() == before ? "ok" : "FAILED");
            std::fflush(stdout);
            ran++;
        }
        if (!found) {
            std::fprintf(stderr, "unknown test %s\n", argv[a]);
            return 2;
        }
    }
    std::printf("%d test(s), %d checks, %d failed\n", ran, rnic_check_total(), rnic_check_failures());
    return rnic_check_failures() ? 1 : 0;
}
