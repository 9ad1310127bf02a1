// rnic_cqe_writer against its contract (the header of rtl/rnic_cqe_writer.sv).
//
//   tb_cqe_writer TEST... | all   runs the named tests
//   tb_cqe_writer --list          prints every test name, one a line (CMake
//                                 registers one CTest per line)
//
// Every test runs the unit beside the CQ model and checks every output in
// every cycle (cqe_harness.h); the tests below add the contract's figures
// on top: where a CQE lands, its fields, its phase, when it is refused, its
// cycles, which doorbells are taken, and when an interrupt or fault is
// raised. Each test prints its seed; RTL_UNIT_SEED=N replays another.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cqe_harness.h"
#include "rnic_check.h"
#include "unit_bench.h"

namespace {

// The test's fixed seed, or RTL_UNIT_SEED's; printed either way (unit_seed).
uint32_t seed(uint32_t fixed) { return static_cast<uint32_t>(unit_seed(fixed)); }

constexpr unsigned kWords = RNIC_CQE_WORDS;
constexpr uint64_t kWrittenCycles = kWords;   // the contract: one cycle a beat when written

// A completion whose every field says which one it is.
CqeFields cqe(unsigned cq, uint32_t n) {
    CqeFields f;
    f.cq = cq;
    f.qpn = static_cast<uint16_t>(0x100 + n * 7);
    f.idx = static_cast<uint16_t>(n);
    f.op = static_cast<uint8_t>(n * 3 + 1);
    f.status = static_cast<uint8_t>(n % 13);
    f.recv = n & 1;
    f.len = 0x1000u + n * 0x111u;
    f.wrid = 0xC0FFEE0000000000ull | n;
    f.verdict = static_cast<uint8_t>(n % 8);
    f.check_key = 0x5EED0000u ^ n;
    return f;
}

void command(CqeHarness &h, unsigned op, unsigned cq, uint64_t base, unsigned log) {
    CqeIn in;
    in.cmd = true;
    in.cmd_op = op;
    in.cmd_sel = cq;
    in.cmd_base = base;
    in.cmd_log = log;
    h.cycle(in);
}
void create(CqeHarness &h, unsigned cq, uint64_t base, unsigned log) {
    command(h, RNIC_CQ_CMD_CREATE, cq, base, log);
}
void destroy(CqeHarness &h, unsigned cq) {
    command(h, RNIC_CQ_CMD_DESTROY, cq, 0, 1);
}
// A consumer doorbell; returns db_ok.
bool doorbell(CqeHarness &h, uint32_t cq, uint16_t value) {
    CqeIn in;
    in.db = true;
    in.db_index = cq;
    in.db_value = value;
    h.cycle(in);
    return h.db_ok();
}
// db_ok for an index and value, without ringing.
bool probe(CqeHarness &h, uint32_t cq, uint16_t value) {
    CqeIn in;
    in.db_probe = true;
    in.db_index = cq;
    in.db_value = value;
    h.cycle(in);
    return h.db_ok();
}
uint64_t phase_of(const CqeOutcome &o) {
    return RNIC_GET(o.words, CQE, PHASE);
}

}  // namespace

// CQ_CMD: a CQE for a CQ never created or destroyed is refused in its first
// cycle and nothing is written; CREATE arms the CQ at its base with producer
// index 0 and phase 1, again after a destroy; a command acts on its CQ only.
UNIT_TEST(create_destroy) {
    CqeHarness h(seed(101));
    CqeOutcome o = h.post(cqe(3, 1));
    CHECK(o.refused);
    CHECK_EQ(o.cycles(), 1);
    CHECK_EQ(h.stats().written, 0);

    create(h, 3, 0x10000, 2);
    o = h.post(cqe(3, 2));
    CHECK(!o.refused);
    CHECK_EQ(o.addr, 0x10000);
    CHECK_EQ(phase_of(o), 1);
    o = h.post(cqe(3, 3));
    CHECK_EQ(o.addr, 0x10000 + RNIC_CQE_BYTES);

    destroy(h, 3);
    o = h.post(cqe(3, 4));
    CHECK(o.refused);
    CHECK_EQ(o.cycles(), 1);
    CHECK(!probe(h, 3, 0));
    CHECK_EQ(h.stats().written, 2);

    // Created again: producer index 0 and phase 1 at the new base, whatever
    // the CQ held before.
    create(h, 3, 0x7FFFFFFFFFFF0000ull, 3);
    o = h.post(cqe(3, 5));
    CHECK(!o.refused);
    CHECK_EQ(o.addr, 0x7FFFFFFFFFFF0000ull);
    CHECK_EQ(phase_of(o), 1);

    // The first and last CQ; a command on one leaves the others alone.
    create(h, 0, 0x40000, 4);
    create(h, CqModel::kNumCq - 1, 0x80000, 1);
    CHECK_EQ(h.post(cqe(0, 6)).addr, 0x40000);
    CHECK_EQ(h.post(cqe(CqModel::kNumCq - 1, 7)).addr, 0x80000);
    destroy(h, 0);
    CHECK(h.post(cqe(0, 8)).refused);
    o = h.post(cqe(CqModel::kNumCq - 1, 9));
    CHECK(!o.refused);
    CHECK_EQ(o.addr, 0x80000 + RNIC_CQE_BYTES);
    o = h.post(cqe(3, 10));
    CHECK_EQ(o.addr, 0x7FFFFFFFFFFF0000ull + RNIC_CQE_BYTES);

    // Every other CQ number was never created.
    for (unsigned cq = 1; cq < CqModel::kNumCq - 1; cq++)
        if (cq != 3)
            CHECK(h.post(cqe(cq, 11)).refused);

    // A reset forgets every CQ.
    h.reset();
    CHECK(h.post(cqe(3, 12)).refused);
    CHECK(!probe(h, 3, 0));
    CHECK_EQ(h.fault_addr(), 0);
}

// Every field of rnic_pkg::cqe_t at its rnic_hw.h position, decoded from the
// beats with RNIC_GET: one pattern by hand, then each bit of each field alone
// (walking ones), then all ones; every other bit 0.
UNIT_TEST(cqe_layout) {
    CqeHarness h(seed(102));
    const unsigned cq = 6;
    create(h, cq, 0x123400, 4);

    CqeFields f;
    f.cq = cq;
    f.status = 0xA5;
    f.op = 0x5A;
    f.qpn = 0x1234;
    f.idx = 0xFEDC;
    f.recv = true;
    f.len = 0x89ABCDEF;
    f.wrid = 0x0123456789ABCDEFull;
    f.verdict = 5;
    f.check_key = 0xDEADBEEFu;
    CqeOutcome o = h.post(f);
    CHECK(!o.refused);
    // Beat n carries word n, as the burst lands in host memory.
    CHECK_EQ(o.words[0], 0x8001FEDC12345AA5ull);
    CHECK_EQ(o.words[1], 0x0000000589ABCDEFull);
    CHECK_EQ(o.words[2], 0x0123456789ABCDEFull);
    CHECK_EQ(o.words[3], 0x00000000DEADBEEFull);
    CHECK_EQ(RNIC_GET(o.words, CQE, STATUS), 0xA5);
    CHECK_EQ(RNIC_GET(o.words, CQE, OPCODE), 0x5A);
    CHECK_EQ(RNIC_GET(o.words, CQE, QPN), 0x1234);
    CHECK_EQ(RNIC_GET(o.words, CQE, WQE_IDX), 0xFEDC);
    CHECK_EQ(RNIC_GET(o.words, CQE, IS_RECV), 1);
    CHECK_EQ(RNIC_GET(o.words, CQE, PHASE), 1);
    CHECK_EQ(RNIC_GET(o.words, CQE, BYTE_LEN), 0x89ABCDEFu);
    CHECK_EQ(RNIC_GET(o.words, CQE, WR_ID), 0x0123456789ABCDEFull);
    CHECK_EQ(RNIC_GET(o.words, CQE, VERDICT), 5);
    CHECK_EQ(RNIC_GET(o.words, CQE, CHECK_KEY), 0xDEADBEEFu);
    doorbell(h, cq, h.model().cq(cq).pi);

    // Walking ones: bit i of every field at once would hide a swap, so one
    // field at a time (the harness decodes and compares each CQE).
    for (unsigned field = 0; field < 9; field++) {
        const unsigned width[] = {8, 8, 16, 16, 1, 32, 64, 3, 32};
        for (unsigned b = 0; b < width[field]; b++) {
            CqeFields w;
            w.cq = cq;
            const uint64_t bit = 1ull << b;
            switch (field) {
            case 0: w.status = static_cast<uint8_t>(bit); break;
            case 1: w.op = static_cast<uint8_t>(bit); break;
            case 2: w.qpn = static_cast<uint16_t>(bit); break;
            case 3: w.idx = static_cast<uint16_t>(bit); break;
            case 4: w.recv = true; break;
            case 5: w.len = static_cast<uint32_t>(bit); break;
            case 6: w.wrid = bit; break;
            case 7: w.verdict = static_cast<uint8_t>(bit); break;
            default: w.check_key = static_cast<uint32_t>(bit); break;
            }
            CHECK(!h.post(w).refused);
            doorbell(h, cq, h.model().cq(cq).pi);
        }
    }
    CqeFields ones;
    ones.cq = cq;
    ones.status = ones.op = 0xFF;
    ones.qpn = ones.idx = 0xFFFF;
    ones.recv = true;
    ones.len = 0xFFFFFFFFu;
    ones.wrid = ~0ull;
    ones.verdict = 0x7;
    ones.check_key = 0xFFFFFFFFu;
    o = h.post(ones);
    CHECK(!o.refused);
    CHECK_EQ(o.words[3] >> 32, 0);              // bits 63:32 of word 3 are no field's
    CHECK_EQ(o.words[1] >> 35, 0);              // nor 63:35 of word 1
    CHECK_EQ((o.words[0] >> 49) & 0x3FFF, 0);   // nor 62:49 of word 0
    CHECK_EQ(h.stats().written, 1 + 145 + 3 + 32 + 1);
}

// The phase bit flips each time the producer index wraps the ring, slot
// after slot round the ring, for rings of 2, 4 and 8.
UNIT_TEST(phase_wrap) {
    CqeHarness h(seed(103));
    for (unsigned log = 1; log <= 3; log++) {
        const unsigned cq = log;
        const uint64_t base = 0x100000ull * log;
        create(h, cq, base, log);
        const unsigned ring = 1u << log;
        for (unsigned n = 0; n < 5 * ring; n++) {
            CqeOutcome o = h.post(cqe(cq, n));
            CHECK(!o.refused);
            CHECK_EQ(o.addr, base + (n % ring) * RNIC_CQE_BYTES);
            CHECK_EQ(phase_of(o), (n / ring) % 2 == 0 ? 1 : 0);
            doorbell(h, cq, static_cast<uint16_t>(n + 1));
        }
    }
}

// The 16-bit indices wrap too: 70,000 CQEs through a ring of 4, consumed
// as they come, pass 2^16 with the phase still flipping every 4.
UNIT_TEST(index_wrap) {
    CqeHarness h(seed(104));
    const unsigned cq = 9, log = 2;
    create(h, cq, 0x9000, log);
    const int failures = rnic_check_failures();
    for (uint32_t n = 0; n < 70000 && rnic_check_failures() == failures; n++) {
        CqeOutcome o = h.post(cqe(cq, n));
        CHECK(!o.refused);
        CHECK_EQ(o.addr, 0x9000 + (n % 4) * RNIC_CQE_BYTES);
        CHECK_EQ(phase_of(o), (n / 4) % 2 == 0 ? 1 : 0);
        CHECK(doorbell(h, cq, static_cast<uint16_t>(n + 1)));
    }
    CHECK_EQ(h.model().cq(cq).pi, static_cast<uint16_t>(70000));
}

// Full is pi - ci > ring - 1: the CQE after a full ring is refused in its
// first cycle (done and overflow together), nothing written; a doorbell
// frees exactly the slots it passes.
UNIT_TEST(full_refused) {
    CqeHarness h(seed(105));
    for (unsigned log : {1u, 2u, 5u}) {
        const unsigned cq = 4 + log;
        const uint64_t base = 0x200000ull + 0x10000ull * log;
        const unsigned ring = 1u << log;
        create(h, cq, base, log);
        for (unsigned n = 0; n < ring; n++) CHECK(!h.post(cqe(cq, n)).refused);
        const uint64_t written = h.stats().written;
        const size_t bursts = h.bursts().size();
        CqeOutcome o = h.post(cqe(cq, 100));
        CHECK(o.refused);
        CHECK_EQ(o.cycles(), 1);
        CHECK_EQ(h.stats().written, written);
        CHECK_EQ(h.bursts().size(), bursts);
        CHECK(h.post(cqe(cq, 101)).refused);   // still full: nothing changed

        // One slot freed: one CQE, in the oldest slot, second pass.
        CHECK(doorbell(h, cq, 1));
        o = h.post(cqe(cq, 102));
        CHECK(!o.refused);
        CHECK_EQ(o.addr, base);
        CHECK_EQ(phase_of(o), 0);
        CHECK(h.post(cqe(cq, 103)).refused);

        // Everything freed: a whole ring again.
        CHECK(doorbell(h, cq, static_cast<uint16_t>(ring + 1)));
        for (unsigned n = 0; n < ring; n++) CHECK(!h.post(cqe(cq, 104 + n)).refused);
        CHECK(h.post(cqe(cq, 200)).refused);
    }
}

// Cycles: refused, 1 (done and overflow in the request's first cycle);
// written, 2 + CQE_WORDS with w_ready always high (done in the last), one
// more for each cycle a beat waits for w_ready; back to back or not.
UNIT_TEST(cycles) {
    CqeHarness h(seed(106));
    CHECK_EQ(h.post(cqe(2, 0)).cycles(), 1);
    create(h, 2, 0x3000, 5);
    for (unsigned n = 0; n < 8; n++) {
        CqeOutcome o = h.post(cqe(2, n));   // back to back: the next starts after done
        CHECK_EQ(o.cycles(), kWrittenCycles);
        CHECK_EQ(o.stalls, 0);
    }
    h.idle(3);
    CHECK_EQ(h.post(cqe(2, 9)).cycles(), kWrittenCycles);

    // Back-pressure: w_ready low at random, or for long stretches.
    unsigned stalled = 0;
    for (unsigned n = 0; n < 200; n++) {
        doorbell(h, 2, h.model().cq(2).pi);
        CqeOutcome o = h.post(cqe(2, n), n < 100 ? 50 : 90);
        CHECK(!o.refused);
        CHECK_EQ(o.cycles(), kWrittenCycles + o.stalls);
        stalled += o.stalls;
    }
    CHECK(stalled > 200);
    // w_ready low before the first beat and between every two.
    doorbell(h, 2, h.model().cq(2).pi);
    h.request(cqe(2, 300));
    CqeIn in;
    for (unsigned b = 0; b < kWords; b++) {   // the first beat waits in the check cycle too
        in.w_ready = false;
        for (int i = 0; i < 10; i++) h.cycle(in);
        in.w_ready = true;
        h.cycle(in);
    }
    CHECK(!h.busy());   // done with the last beat taken
    CHECK_EQ(h.outcomes().back().cycles(), kWrittenCycles + 10 * kWords);
    // A refusal never waits for w_ready either.
    destroy(h, 2);
    h.request(cqe(2, 301));
    h.cycle(in);
    CHECK(!h.busy());
    CHECK(h.outcomes().back().refused);
}

// A consumer doorbell is taken only for an existing CQ and an index in
// [ci .. pi]: checked for every 16-bit value; a refused one changes nothing,
// a taken one frees exactly up to its index.
UNIT_TEST(doorbells) {
    CqeHarness h(seed(107));
    const unsigned cq = 11;
    create(h, cq, 0x5000, 3);
    for (unsigned n = 0; n < 5; n++) h.post(cqe(cq, n));   // pi 5, ci 0

    auto sweep = [&](unsigned lo, unsigned hi) {   // db_ok for all 2^16 values
        unsigned wrong = 0;
        for (uint32_t v = 0; v < 0x10000; v++) {
            const bool want = v >= lo && v <= hi;
            if (probe(h, cq, static_cast<uint16_t>(v)) != want && ++wrong <= 3)
                std::fprintf(stderr, "doorbell value %u with ci %u pi %u: db_ok %d\n", v, lo, hi, !want);
        }
        CHECK_EQ(wrong, 0);
    };
    sweep(0, 5);
    CHECK(doorbell(h, cq, 3));
    sweep(3, 5);
    CHECK(!doorbell(h, cq, 2));       // behind the consumer
    CHECK(!doorbell(h, cq, 6));       // past the producer
    CHECK(!doorbell(h, cq, 0xFFFF));
    CHECK_EQ(h.model().cq(cq).ci, 3);
    CHECK(doorbell(h, cq, 3));        // where it is: taken, changes nothing
    sweep(3, 5);

    // Out of range, never created, destroyed.
    CHECK(!doorbell(h, CqModel::kNumCq, 0));
    CHECK(!doorbell(h, 0xFFFF, 0));
    CHECK(!doorbell(h, 0x8000 | cq, 3));   // the index is 16 bits, all of them
    CHECK(!doorbell(h, cq - 1, 0));
    create(h, cq - 1, 0x6000, 1);
    CHECK(doorbell(h, cq - 1, 0));
    destroy(h, cq - 1);
    CHECK(!doorbell(h, cq - 1, 0));

    // Freeing: fill the ring (8), refused; each doorbell step frees as many.
    while (!h.model().full(cq)) CHECK(!h.post(cqe(cq, 50)).refused);
    CHECK(h.post(cqe(cq, 51)).refused);
    const uint16_t ci = h.model().cq(cq).ci;
    CHECK(doorbell(h, cq, static_cast<uint16_t>(ci + 2)));
    CHECK(!h.post(cqe(cq, 52)).refused);
    CHECK(!h.post(cqe(cq, 53)).refused);
    CHECK(h.post(cqe(cq, 54)).refused);
    // A doorbell in the cycle a CQE completes sees the index before it.
    CHECK(doorbell(h, cq, static_cast<uint16_t>(ci + 4)));
    h.request(cqe(cq, 55));
    for (unsigned b = 0; b + 1 < kWords; b++) h.cycle(CqeIn{});   // the check cycle is the first beat's
    const uint16_t pi = h.model().cq(cq).pi;
    CHECK(!doorbell(h, cq, static_cast<uint16_t>(pi + 1)));   // the last beat's cycle, done: pi not yet advanced
    CHECK(!h.busy());
    CHECK(doorbell(h, cq, static_cast<uint16_t>(pi + 1)));
}

// The interrupt of a CQ is raised only by a good write completion of its
// CQE (the cycle after it), never on issue; an error completion raises the
// fault with the CQ's base instead, and no interrupt.
UNIT_TEST(interrupts) {
    CqeHarness h(seed(108));
    const uint64_t base2 = 0x123456789ABCDE00ull, base9 = 0x00000000FEDC0040ull;
    create(h, 2, base2, 4);
    create(h, 9, base9, 4);
    h.request(cqe(2, 0));
    for (int i = 0; i < 30; i++) {   // written and done: still no interrupt
        h.cycle(CqeIn{});
        CHECK_EQ(h.intr_cq(), CqeHarness::kNoIntr);
        CHECK(!h.fault());
    }
    CHECK_EQ(h.bursts().size(), 1);

    CqeIn in;
    in.cpl = true;
    in.cpl_cq = 2;
    h.cycle(in);
    CHECK_EQ(h.intr_cq(), 2);
    CHECK(!h.fault());
    h.cycle(CqeIn{});
    CHECK_EQ(h.intr_cq(), CqeHarness::kNoIntr);   // a pulse

    h.post(cqe(9, 1));
    in.cpl_cq = 9;
    in.cpl_err = true;
    h.cycle(in);
    CHECK_EQ(h.intr_cq(), CqeHarness::kNoIntr);
    CHECK(h.fault());
    CHECK_EQ(h.fault_addr(), static_cast<uint32_t>(base9));
    h.idle(2);
    CHECK(!h.fault());
    CHECK_EQ(h.fault_addr(), static_cast<uint32_t>(base9));   // held until the next fault

    // Completions back to back, one CQ each, good and bad mixed.
    for (unsigned n = 0; n < 4; n++) h.post(cqe(n % 2 ? 9 : 2, 10 + n));
    for (unsigned n = 0; n < 4; n++) {
        in.cpl_cq = n % 2 ? 9 : 2;
        in.cpl_err = n == 2;
        h.cycle(in);
        CHECK_EQ(h.intr_cq(), n == 2 ? CqeHarness::kNoIntr : static_cast<int>(in.cpl_cq));
        CHECK_EQ(h.fault(), n == 2);
    }
    CHECK_EQ(h.fault_addr(), static_cast<uint32_t>(base2));
    // The last CQ: its own bit, past the first 32 (INTR_STATUS word 1 and on).
    const unsigned top = CqModel::kNumCq - 1;
    create(h, top, 0x90000, 4);
    CHECK_EQ(h.post(cqe(top, 30)).addr, 0x90000u);
    in.cpl_cq = top;
    in.cpl_err = false;
    h.cycle(in);
    CHECK_EQ(h.intr_cq(), static_cast<int>(top));
    // A completion in the same cycle as a CQE's beats and done.
    h.request(cqe(9, 20));
    in.cpl_cq = 9;
    in.cpl_err = false;
    for (unsigned i = 0; i < kWrittenCycles; i++) {
        h.cycle(i == 3 ? in : CqeIn{});
        CHECK_EQ(h.intr_cq(), i == 3 ? 9 : CqeHarness::kNoIntr);
    }
    CHECK(!h.busy());
    CHECK(h.stats().interrupts == 6);
}

// Everything at once, long: random requests (to CQs that exist, are full or
// were never created), consumer doorbells good and bad, CQ commands on quiet
// CQs, back-pressure in three regimes, write completions in order with
// random latency and errors. The model and the host's rings are checked
// every cycle; the figures at the end say the run reached every case.
UNIT_TEST(random_run) {
    CqeHarness h(seed(0xC0E5EED));
    std::mt19937 &r = h.rng();
    const unsigned kLogs[] = {1, 1, 2, 2, 3, 4, 5, 15};
    auto r64 = [&] { return static_cast<uint64_t>(r()) << 32 | r(); };
    for (unsigned cq = 0; cq < 6; cq++) create(h, cq, r64() & ~31ull, kLogs[cq]);
    const uint64_t kCycles = 600000;
    const int failures = rnic_check_failures();
    while (h.now() < kCycles && rnic_check_failures() == failures) {
        const unsigned regime = static_cast<unsigned>(h.now() / 25000) % 3;
        const unsigned stall_pct = regime == 0 ? 0 : regime == 1 ? 30 : 80;
        const unsigned db_pct = (h.now() / 40000) % 2 ? 30 : 8;   // a fast and a slow consumer
        CqeIn in;
        in.w_ready = r() % 100 >= stall_pct;

        // The engine: a completion now and then, mostly to the first 8 CQs.
        if (!h.busy() && r() % 100 < 50) {
            CqeFields f = cqe(r() % 100 < 85 ? r() % 8 : r() % CqModel::kNumCq, r());
            f.wrid = r64();
            f.check_key = r();
            f.len = r();
            h.request(f);
        }
        // The DMA: the oldest CQE burst's write completion, now and then.
        if (!h.bursts().empty() && r() % 100 < 30) {
            in.cpl = true;
            in.cpl_cq = h.bursts().front();
            in.cpl_err = r() % 100 < 8;
            h.bursts().pop_front();
        }
        // The register block: a CQ command or a doorbell, never both.
        const unsigned pick = r() % 1000;
        if (pick < 3) {
            const unsigned sel = r() % CqModel::kNumCq;
            bool quiet = !(h.busy() && h.busy_cq() == sel) && !(in.cpl && in.cpl_cq == sel);
            for (unsigned b : h.bursts()) quiet = quiet && b != sel;
            if (quiet) {
                in.cmd = true;
                in.cmd_sel = sel;
                in.cmd_op = r() % 100 < 75 ? RNIC_CQ_CMD_CREATE : RNIC_CQ_CMD_DESTROY;
                in.cmd_base = r64() & ~31ull;
                in.cmd_log = kLogs[r() % 8];
            }
        } else if (pick < 3 + db_pct * 10) {
            in.db = true;
            const unsigned cq = r() % CqModel::kNumCq;
            in.db_index = r() % 100 < 3 ? r() % 0x10000 : cq;
            const CqState &q = h.model().cq(cq);
            switch (r() % 10) {
            case 0: in.db_value = static_cast<uint16_t>(q.ci - 1 - r() % 4); break;
            case 1: in.db_value = static_cast<uint16_t>(q.pi + 1 + r() % 4); break;
            case 2: in.db_value = static_cast<uint16_t>(r()); break;
            default: in.db_value = static_cast<uint16_t>(q.ci + r() % (h.model().used(cq) + 1u)); break;
            }
        }
        h.cycle(in);
    }
    const CqeStats &s = h.stats();
    std::printf("random_run: %llu cycles, %llu CQEs written (%llu with phase 0), refused %llu missing / %llu full, "
                "doorbells %llu taken / %llu refused, %llu probes, %llu commands, %llu interrupts, %llu faults, "
                "%llu stall cycles\n",
                static_cast<unsigned long long>(s.cycles), static_cast<unsigned long long>(s.written),
                static_cast<unsigned long long>(s.phase0), static_cast<unsigned long long>(s.refused_missing),
                static_cast<unsigned long long>(s.refused_full), static_cast<unsigned long long>(s.db_accepted),
                static_cast<unsigned long long>(s.db_refused), static_cast<unsigned long long>(s.probes),
                static_cast<unsigned long long>(s.commands), static_cast<unsigned long long>(s.interrupts),
                static_cast<unsigned long long>(s.faults), static_cast<unsigned long long>(s.stall_cycles));
    CHECK(h.now() >= kCycles);
    CHECK(s.written > 10000);
    CHECK(s.phase0 > 1000);
    CHECK(s.refused_missing > 100);
    CHECK(s.refused_full > 100);
    CHECK(s.db_accepted > 1000);
    CHECK(s.db_refused > 1000);
    CHECK(s.commands > 20);
    CHECK(s.interrupts > 1000);
    CHECK(s.faults > 100);
    CHECK(s.stall_cycles > 10000);
}
