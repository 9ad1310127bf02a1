#include "bench_common.h"

#include <cstdlib>
#include <cstring>

std::vector<TestCase> &test_registry() {
    static std::vector<TestCase> r;
    return r;
}

Bench::Bench(const FabricConfig &cfg) : f(cfg), d(f) {
    // RTL_CORE_MUTANT=N selects a mutant (a bench built with RNIC_MUTANTS=ON):
    // the protection tests must then fail.
    const char *mutant = std::getenv("RTL_CORE_MUTANT");
    for (int n = 0; n < 2; n++) {
        if (mutant) f.bar_write(n, RNIC_REG_MUTANT, static_cast<uint32_t>(std::atoi(mutant)));
        d.open(n);
        scq[n] = d.cq_create(n, 0, 8);
        rcq[n] = d.cq_create(n, 1, 8);
    }
}

void Bench::pair(unsigned qpn, Qp &q0, Qp &q1, uint32_t flags, uint32_t psn0, uint32_t psn1) {
    q0 = d.qp_create(0, qpn, scq[0], rcq[0], pz[0], flags);
    q1 = d.qp_create(1, qpn, scq[1], rcq[1], pz[1], flags);
    d.connect(q0, q1, psn0, psn1);
}

Buf Bench::buffer(int n, uint32_t len, uint32_t index, unsigned rights, unsigned skew) {
    Buf b;
    b.nic = n;
    b.len = len;
    b.addr = f.mem(n).alloc(len + skew, 64) + skew;
    uint8_t key8 = static_cast<uint8_t>(0x30 + index * 7);
    b.key = BenchDriver::key(index, key8);
    d.pt_write(n, index, key8, pz[n], b.addr, len, rights);
    return b;
}

std::vector<uint8_t> Bench::read(int n, uint64_t addr, size_t len) {
    std::vector<uint8_t> v(len);
    f.mem(n).read(addr, v.data(), len);
    return v;
}

void Bench::fill(const Buf &b, uint32_t seed) { fill(b.nic, b.addr, b.len, seed); }

void Bench::fill(int n, uint64_t addr, size_t len, uint32_t seed) {
    std::vector<uint8_t> p = pattern(len, seed);
    f.mem(n).write(addr, p.data(), len);
}

std::vector<uint8_t> pattern(size_t len, uint32_t seed) {
    std::vector<uint8_t> v(len);
    uint32_t x = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v[i] = static_cast<uint8_t>(x >> 8);
    }
    return v;
}

size_t count_events(const Fabric &f, int n, unsigned ev) {
    size_t c = 0;
    for (const TraceEvent &e : f.events[n])
        if (e.event == ev) c++;
    return c;
}
