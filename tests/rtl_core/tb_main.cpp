// tb_rnic_core TEST...: runs the named rtl_core tests (or `all`).
// tb_rnic_core --list: prints every test name, one a line, from the registry
// the runs dispatch on; CMake registers one CTest per line (CMakeLists.txt).
#include <cstdio>
#include <cstring>

#include "bench_common.h"
#include "verilated.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s TEST... | all | --list\n", argv[0]);
        return 2;
    }
    if (std::strcmp(argv[1], "--list") == 0) {
        for (const TestCase &t : test_registry()) std::printf("%s\n", t.name);
        return 0;
    }
    int ran = 0;
    for (int a = 1; a < argc; a++) {
        bool found = false;
        for (const TestCase &t : test_registry()) {
            if (std::strcmp(argv[a], "all") != 0 && std::strcmp(argv[a], t.name) != 0) continue;
            found = true;
            int before = rnic_check_failures();
            t.fn();
            std::printf("%-14s %s\n", t.name, rnic_check_failures() == before ? "ok" : "FAILED");
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
