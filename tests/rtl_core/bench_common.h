// What every rtl_core test shares: the checks (rnic_check.h, the same as the
// C tests'), a connected QP pair on the two NICs with registered buffers, and
// data patterns.
#ifndef RTL_CORE_BENCH_COMMON_H
#define RTL_CORE_BENCH_COMMON_H

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_driver.h"
#include "fabric.h"
#include "rnic_check.h"
#include "rnic_hw.h"

constexpr unsigned kAllAccess = RNIC_ACCESS_LOCAL_READ | RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_READ |
                                RNIC_ACCESS_REMOTE_WRITE;
constexpr uint32_t kQpFlagsAll = RNIC_QP_FLAGS_ALLOW_RD_MASK | RNIC_QP_FLAGS_ALLOW_WR_MASK |
                                 (8u << RNIC_QP_FLAGS_MAX_RD_SHIFT);

// A registered buffer in one host: its IOVA, length and key.
struct Buf {
    int nic = 0;
    uint64_t addr = 0;
    uint32_t len = 0;
    uint32_t key = 0;
};

// Both NICs opened, a send CQ (0) and a receive CQ (1) on each, PZ 7 on
// nic0 and PZ 9 on nic1, and QP pairs connected on demand.
class Bench {
public:
    explicit Bench(const FabricConfig &cfg = FabricConfig());

    Fabric f;
    BenchDriver d;
    Cq scq[2], rcq[2];
    uint16_t pz[2] = {7, 9};

    // QP `qpn` on both NICs, connected to each other.
    void pair(unsigned qpn, Qp &q0, Qp &q1, uint32_t flags = kQpFlagsAll, uint32_t psn0 = 0x100,
              uint32_t psn1 = 0x200);
    // A buffer of `len` bytes at byte offset `skew` of a fresh allocation,
    // registered at table index `index` with `rights`.
    Buf buffer(int n, uint32_t len, uint32_t index, unsigned rights = kAllAccess, unsigned skew = 0);
    std::vector<uint8_t> read(const Buf &b) { return read(b.nic, b.addr, b.len); }
    std::vector<uint8_t> read(int n, uint64_t addr, size_t len);
    void fill(const Buf &b, uint32_t seed);
    void fill(int n, uint64_t addr, size_t len, uint32_t seed);
    uint32_t next_index() { return next_index_++; }

private:
    uint32_t next_index_ = 16;
};

std::vector<uint8_t> pattern(size_t len, uint32_t seed);
// Counts events of one kind on a NIC's trace.
size_t count_events(const Fabric &f, int n, unsigned ev);

// Test registry: each test is a function returning nothing; failures are
// counted through CHECK. tb_rnic_core runs tests by name from it and lists
// it with --list, which is where CTest learns the names.
struct TestCase {
    const char *name;
    void (*fn)();
};
std::vector<TestCase> &test_registry();
struct TestRegistrar {
    TestRegistrar(const char *name, void (*fn)()) { test_registry().push_back(TestCase{name, fn}); }
};
#define BENCH_TEST(name)                                          \
    static void test_##name();                                    \
    static TestRegistrar registrar_##name(#name, test_##name);    \
    static void test_##name()

#endif
