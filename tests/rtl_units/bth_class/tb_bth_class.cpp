// rnic_bth_class against its contract (the header of rtl/rnic_bth_class.sv,
// rnic.toml's BTH opcodes) and the InfiniBand RC opcode table.
//
//   tb_rtl_bth_class TEST... | all   runs the named tests
//   tb_rtl_bth_class --list          prints every test name, one a line
//                                    (CMake registers one CTest per line)
//
// The unit is combinational: every evaluation's nine outputs are compared
// with the model (bth_model.h, through bth_harness.h); the tests below also
// state, by hand, what the contract says of each case:
//
//   rc_table            the bench's table: the 32 RC codes at most once
//                       each, in the table's order; every opcode rnic.toml
//                       names is in it, as a supported row
//   named_opcodes       each of rnic.toml's 14 opcodes, its nine outputs
//                       spelled out
//   unsupported_rc      SEND and WRITE with an immediate, SEND with an
//                       invalidate, the atomics, the atomic acknowledge and
//                       the reserved RC codes: no kind, no position, and a
//                       request only below READ REQUEST
//   other_transports    every opcode outside RC (UC, RD, UD, CNP, XRC,
//                       manufacturer's), the RC names' twins among them:
//                       every output 0
//   every_opcode        all 256 opcodes against the model, in order and in
//                       eight shuffled passes; how many set each output
//   invariants          over all 256: at most one kind; first, last and
//                       cont only with a kind that has positions; cont a
//                       WRITE after its FIRST; requests are no responses
//
// Each test prints its seed; RTL_UNIT_SEED=N replays another.
#include <cstdio>
#include <utility>
#include <vector>

#include "bth_harness.h"
#include "rnic_check.h"
#include "rnic_names.h"
#include "unit_bench.h"

namespace {

uint64_t seed(uint64_t fixed) { return unit_seed(fixed); }

bool kinds(const BthOut &o, unsigned *n) {
    *n = o.is_send + o.is_write + o.is_read_req + o.is_read_resp + o.is_ack;
    return *n != 0;
}
bool any(const BthOut &o) {
    unsigned n;
    return kinds(o, &n) || o.is_request || o.first || o.last || o.cont;
}

}  // namespace

// ------------------------------------------------------------------ tests

UNIT_TEST(rc_table) {
    BthHarness h(seed(0xB701));
    bool seen[32] = {};
    int prev = -1;
    for (const RcOp &r : kRcTable) {
        h.check(r.code);
        CHECK_EQ(r.code & kTransportMask, kTransportRc);
        CHECK(!seen[r.code & 0x1F]);
        seen[r.code & 0x1F] = true;
        CHECK(static_cast<int>(r.code) > prev);   // "up to READ REQUEST" reads the table in order
        prev = r.code;
    }
    for (unsigned op = 0; op < 256; op++) {
        if (!rnic_bth_name(op))
            continue;
        const RcOp *r = rc_op(static_cast<uint8_t>(op));
        CHECK(r != nullptr);
        if (!r) {
            std::fprintf(stderr, "  RNIC_BTH_%s (0x%02x) is no RC operation of the table\n", rnic_bth_name(op), op);
            continue;
        }
        CHECK(!r->extra);
        CHECK(r->kind != Kind::Atomic && r->kind != Kind::AtomicAck && r->kind != Kind::Reserved);
    }
}

UNIT_TEST(named_opcodes) {
    BthHarness h(seed(0xB702));
    struct Row {
        uint8_t op;
        bool send, write, read_req, read_resp, ack, request, first, last, cont;
    };
    const Row rows[] = {
        //                                   send write rreq rresp ack   req  first last  cont
        {RNIC_BTH_SEND_FIRST,                1,   0,    0,   0,    0,    1,   1,    0,    0},
        {RNIC_BTH_SEND_MIDDLE,               1,   0,    0,   0,    0,    1,   0,    0,    0},
        {RNIC_BTH_SEND_LAST,                 1,   0,    0,   0,    0,    1,   0,    1,    0},
        {RNIC_BTH_SEND_ONLY,                 1,   0,    0,   0,    0,    1,   1,    1,    0},
        {RNIC_BTH_WRITE_FIRST,               0,   1,    0,   0,    0,    1,   1,    0,    0},
        {RNIC_BTH_WRITE_MIDDLE,              0,   1,    0,   0,    0,    1,   0,    0,    1},
        {RNIC_BTH_WRITE_LAST,                0,   1,    0,   0,    0,    1,   0,    1,    1},
        {RNIC_BTH_WRITE_ONLY,                0,   1,    0,   0,    0,    1,   1,    1,    0},
        {RNIC_BTH_READ_REQUEST,              0,   0,    1,   0,    0,    1,   0,    0,    0},
        {RNIC_BTH_READ_RESPONSE_FIRST,       0,   0,    0,   1,    0,    0,   1,    0,    0},
        {RNIC_BTH_READ_RESPONSE_MIDDLE,      0,   0,    0,   1,    0,    0,   0,    0,    0},
        {RNIC_BTH_READ_RESPONSE_LAST,        0,   0,    0,   1,    0,    0,   0,    1,    0},
        {RNIC_BTH_READ_RESPONSE_ONLY,        0,   0,    0,   1,    0,    0,   1,    1,    0},
        {RNIC_BTH_ACKNOWLEDGE,               0,   0,    0,   0,    1,    0,   0,    0,    0},
    };
    unsigned named = 0;
    for (unsigned op = 0; op < 256; op++) named += rnic_bth_name(op) != nullptr;
    CHECK_EQ(sizeof rows / sizeof rows[0], named);
    for (const Row &w : rows) {
        const BthOut o = h.check(w.op);
        const int before = rnic_check_failures();
        CHECK_EQ(o.is_send, w.send);
        CHECK_EQ(o.is_write, w.write);
        CHECK_EQ(o.is_read_req, w.read_req);
        CHECK_EQ(o.is_read_resp, w.read_resp);
        CHECK_EQ(o.is_ack, w.ack);
        CHECK_EQ(o.is_request, w.request);
        CHECK_EQ(o.first, w.first);
        CHECK_EQ(o.last, w.last);
        CHECK_EQ(o.cont, w.cont);
        if (rnic_check_failures() != before)
            std::fprintf(stderr, "  (RNIC_BTH_%s, 0x%02x)\n", rnic_bth_name(w.op), w.op);
    }
}

UNIT_TEST(unsupported_rc) {
    BthHarness h(seed(0xB703));
    // Below READ REQUEST: requests of no kind the unit names.
    for (uint8_t op : {kIbSendLastImm, kIbSendOnlyImm, kIbWriteLastImm, kIbWriteOnlyImm}) {
        const BthOut o = h.check(op);
        unsigned n;
        CHECK(!kinds(o, &n));
        CHECK(o.is_request);
        CHECK(!o.first && !o.last && !o.cont);
    }
    // Above it: nothing at all.
    for (uint8_t op : {kIbAtomicAck, kIbCmpSwap, kIbFetchAdd, kIbSendLastInv, kIbSendOnlyInv})
        CHECK(!any(h.check(op)));
    // Reserved RC codes.
    unsigned reserved = 0;
    for (unsigned op = 0; op < 0x20; op++) {
        if (rc_op(static_cast<uint8_t>(op)))
            continue;
        ++reserved;
        CHECK(!any(h.check(static_cast<uint8_t>(op))));
    }
    CHECK_EQ(reserved, 32u - sizeof kRcTable / sizeof kRcTable[0]);
}

UNIT_TEST(other_transports) {
    BthHarness h(seed(0xB704));
    const int failures = rnic_check_failures();
    for (unsigned op = 0x20; op < 256 && !unit_stop(failures); op++) {
        const BthOut o = h.check(static_cast<uint8_t>(op));
        CHECK(!any(o));
        if (any(o))
            std::fprintf(stderr, "  0x%02x (transport %u, the RC code's twin: %s) classified\n", op, op >> 5,
                         rnic_bth_name(op & 0x1F) ? rnic_bth_name(op & 0x1F) : "none");
    }
}

UNIT_TEST(every_opcode) {
    BthHarness h(seed(0xB705));
    Rng &r = h.rng();
    unsigned send = 0, write = 0, read_req = 0, read_resp = 0, ack = 0, request = 0, first = 0, last = 0, cont = 0;
    for (unsigned op = 0; op < 256; op++) {
        const BthOut o = h.check(static_cast<uint8_t>(op));
        send += o.is_send;
        write += o.is_write;
        read_req += o.is_read_req;
        read_resp += o.is_read_resp;
        ack += o.is_ack;
        request += o.is_request;
        first += o.first;
        last += o.last;
        cont += o.cont;
    }
    // By hand from the table: 4 SENDs and 4 WRITEs (FIRST, MIDDLE, LAST,
    // ONLY), 1 READ request, 4 READ responses, 1 ACK; 13 RC codes up to READ
    // REQUEST; FIRST or ONLY of 3 kinds, LAST or ONLY of 3; WRITE MIDDLE and
    // LAST.
    CHECK_EQ(send, 4u);
    CHECK_EQ(write, 4u);
    CHECK_EQ(read_req, 1u);
    CHECK_EQ(read_resp, 4u);
    CHECK_EQ(ack, 1u);
    CHECK_EQ(request, 13u);
    CHECK_EQ(first, 6u);
    CHECK_EQ(last, 6u);
    CHECK_EQ(cont, 2u);
    // The outputs follow the opcode alone: shuffled orders.
    std::vector<uint8_t> ops(256);
    for (unsigned i = 0; i < 256; i++) ops[i] = static_cast<uint8_t>(i);
    for (int pass = 0; pass < 8; pass++) {
        for (unsigned i = 255; i > 0; i--) std::swap(ops[i], ops[r.range(0, i)]);
        for (uint8_t op : ops) h.check(op);
    }
    CHECK_EQ(h.stats().evals, 9u * 256u);
    std::printf("every_opcode: %llu evaluations, %llu outputs compared\n",
                static_cast<unsigned long long>(h.stats().evals), static_cast<unsigned long long>(h.stats().compared));
}

UNIT_TEST(invariants) {
    BthHarness h(seed(0xB706));
    for (unsigned op = 0; op < 256; op++) {
        const BthOut o = h.check(static_cast<uint8_t>(op));
        const int before = rnic_check_failures();
        unsigned n;
        kinds(o, &n);
        CHECK(n <= 1);
        const bool positioned = o.is_send || o.is_write || o.is_read_resp;
        CHECK(!o.first || positioned);
        CHECK(!o.last || positioned);
        CHECK(!o.cont || (o.is_write && !o.first));
        CHECK(!o.is_request || (!o.is_read_resp && !o.is_ack));
        CHECK(!(o.is_send || o.is_write || o.is_read_req) || o.is_request);
        if (rnic_check_failures() != before)
            std::fprintf(stderr, "  (opcode 0x%02x)\n", op);
    }
}
