// rnic_comp_check against its contract (the header of rtl/rnic_comp_check.sv,
// rnic.toml's AETH, AETH_KIND, OP, CQE_STATUS and MTU).
//
//   tb_rtl_comp_check TEST... | all   runs the named tests
//   tb_rtl_comp_check --list          prints every test name, one a line
//                                     (CMake registers one CTest per line)
//
// The unit is combinational: every evaluation's outputs are compared with
// the model of its contract (comp_model.h, through comp_harness.h); the
// tests below also state, by hand, what the contract says of each case:
//
//   ack_rules             a non-NAK ACK naming the oldest's last PSN
//                         accepted with SUCCESS (every credit count), one
//                         before, one after, the first PSN and a far one
//                         dropped, last PSNs at 0 and 2^24 - 1; an ACK for
//                         a READ dropped even at its last PSN; every NAK
//                         code accepted at any PSN, for a READ too, with
//                         its reason (REMOTE_ACCESS, PSN_SEQUENCE ->
//                         TRANSPORT, INVALID_REQUEST and REMOTE_OPERATIONAL
//                         -> REMOTE_OPERATION, other codes not SUCCESS); an
//                         RNR NAK and the unnamed kinds are no NAK: like an
//                         ACK for acceptance (last PSN only), never SUCCESS
//   read_resp_rules       the answering PSN is first + got / MTU: named
//                         cases (got 0, MTU - 1, MTU, 5 MTU + 3, across
//                         2^24) and a grid of firsts near 0 and 2^24 and
//                         gots at MTU edges; one off either way dropped
//                         (with the last PSN there, and any syndrome); a
//                         READ response for every other opcode dropped
//   nothing_in_flight     no WQE in flight: nothing accepted, whatever the
//                         packet, the opcode or the PSNs
//   bind_oldest           the oldest a BIND: nothing accepted, even with
//                         every PSN lined up
//   neither_ack_nor_resp  neither flag: nothing accepted
//   exhaustive_small      every combination of is_ack, is_read_resp,
//                         in_flight, every RNIC_OP_*, every AETH kind with
//                         five values, firsts 0 and 2^24 - 1, four gots, two
//                         WQE lengths and eight PSN relations (245,760)
//   random_run            300,000 evaluations of random inputs biased to
//                         the rules' edges; the figures at the end say
//                         every clause decided some
//
// Each test prints its seed; RTL_UNIT_SEED=N replays another.
#include <cstdint>
#include <cstdio>
#include <set>
#include <vector>

#include "comp_harness.h"
#include "rnic_check.h"
#include "rnic_names.h"
#include "unit_bench.h"

namespace {

uint64_t seed(uint64_t fixed) { return unit_seed(fixed); }

// Every WQE opcode; those an ACK may answer (no READ, no BIND).
constexpr uint8_t kOps[] = {RNIC_OP_NOP, RNIC_OP_SEND, RNIC_OP_RDMA_WRITE, RNIC_OP_RDMA_READ, RNIC_OP_RECV,
                            RNIC_OP_BIND};
constexpr uint8_t kAckable[] = {RNIC_OP_NOP, RNIC_OP_SEND, RNIC_OP_RDMA_WRITE, RNIC_OP_RECV};

// The named NAKs and the status of their reason, by hand.
struct NakCase {
    uint8_t syndrome;
    uint8_t status;
};
constexpr NakCase kNaks[] = {
    {RNIC_AETH_NAK_REMOTE_ACCESS, RNIC_CQE_STATUS_REMOTE_ACCESS},
    {RNIC_AETH_NAK_PSN_SEQUENCE, RNIC_CQE_STATUS_TRANSPORT},
    {RNIC_AETH_NAK_INVALID_REQUEST, RNIC_CQE_STATUS_REMOTE_OPERATION},
    {RNIC_AETH_NAK_REMOTE_OPERATIONAL, RNIC_CQE_STATUS_REMOTE_OPERATION},
};

constexpr unsigned kKinds = RNIC_AETH_SYNDROME_KIND_MASK + 1;
constexpr unsigned kValues = RNIC_AETH_SYNDROME_VALUE_MASK + 1;

bool named_nak(uint8_t syn) {
    for (const NakCase &n : kNaks)
        if (n.syndrome == syn)
            return true;
    return false;
}

uint32_t psn24(Rng &r) { return r.u32() & kPsnMask; }

// Every input random: the junk a port carries when its rule ignores it.
CompIn junk(Rng &r) {
    CompIn in;
    in.is_ack = r.percent(50);
    in.is_read_resp = r.percent(50);
    in.syndrome = r.byte();
    in.psn = psn24(r);
    in.in_flight = r.percent(50);
    in.oldest_op = r.byte();
    in.oldest_first = psn24(r);
    in.oldest_last = psn24(r);
    in.oldest_got = r.u32();
    return in;
}

// An ACK for a WQE in flight of opcode `op` spanning first..last, the
// bytes-received counter junk.
CompIn ack(Rng &r, uint8_t op, uint32_t first, uint32_t last, uint32_t psn, uint8_t syn) {
    CompIn in;
    in.is_ack = true;
    in.syndrome = syn;
    in.psn = psn;
    in.in_flight = true;
    in.oldest_op = op;
    in.oldest_first = first;
    in.oldest_last = last;
    in.oldest_got = r.u32();
    return in;
}

// A READ response for a WQE in flight of opcode `op`, the syndrome junk.
CompIn rresp(Rng &r, uint8_t op, uint32_t first, uint32_t last, uint32_t got, uint32_t psn) {
    CompIn in;
    in.is_read_resp = true;
    in.syndrome = r.byte();
    in.psn = psn;
    in.in_flight = true;
    in.oldest_op = op;
    in.oldest_first = first;
    in.oldest_last = last;
    in.oldest_got = got;
    return in;
}

// Last PSNs at the edges of the 24-bit space, and some anywhere.
std::vector<uint32_t> some_lasts(Rng &r) {
    std::vector<uint32_t> v = {0u, 1u, 1u << 23, kPsnMask - 1u, kPsnMask};
    for (int i = 0; i < 4; i++) v.push_back(psn24(r));
    return v;
}

const char *or_q(const char *s) { return s ? s : "?"; }

}  // namespace

// ------------------------------------------------------------------ tests

UNIT_TEST(ack_rules) {
    CompHarness h(seed(0xCC01));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();

    // A non-NAK ACK: its last PSN and nothing else, any credit count.
    for (uint8_t op : kAckable) {
        for (uint32_t last : some_lasts(r)) {
            if (unit_stop(failures))
                return;
            const uint32_t first = r.percent(30) ? last : psn_add(last, -static_cast<int64_t>(r.range(1, 100)));
            for (unsigned v = 0; v < kValues; v++) {
                const uint8_t syn = aeth_syndrome(RNIC_AETH_KIND_ACK, v);
                CompOut o = h.check(ack(r, op, first, last, last, syn));
                CHECK(o.accept);
                CHECK_EQ(o.ack_status, RNIC_CQE_STATUS_SUCCESS);
                CHECK(!h.check(ack(r, op, first, last, psn_add(last, -1), syn)).accept);
                CHECK(!h.check(ack(r, op, first, last, psn_add(last, 1), syn)).accept);
                CHECK(!h.check(ack(r, op, first, last, psn_add(last, 1 << 23), syn)).accept);
                if (first != last)
                    CHECK(!h.check(ack(r, op, first, last, first, syn)).accept);
            }
            // The NIC's own ACK syndrome, named.
            CompOut o = h.check(ack(r, op, first, last, last, RNIC_AETH_ACK));
            CHECK(o.accept);
            CHECK_EQ(o.ack_status, RNIC_CQE_STATUS_SUCCESS);
        }
    }

    // An ACK for a READ: dropped even at its last PSN (its answer is its
    // data), and at the PSN a READ response would need.
    for (uint32_t last : some_lasts(r)) {
        if (unit_stop(failures))
            return;
        const uint32_t first = psn_add(last, -static_cast<int64_t>(r.range(0, 20)));
        for (unsigned v = 0; v < kValues; v++) {
            const uint8_t syn = aeth_syndrome(RNIC_AETH_KIND_ACK, v);
            CHECK(!h.check(ack(r, RNIC_OP_RDMA_READ, first, last, last, syn)).accept);
            CompIn in = ack(r, RNIC_OP_RDMA_READ, first, last, 0, syn);
            in.oldest_got = r.range(0, 20 * RNIC_MTU);
            in.psn = resp_psn(first, in.oldest_got);
            CHECK(!h.check(in).accept);
        }
    }

    // A NAK: at any PSN, for every opcode but BIND (a READ's too), with its
    // reason's status.
    for (uint8_t op : kOps) {
        if (op == RNIC_OP_BIND)
            continue;
        for (uint32_t last : some_lasts(r)) {
            if (unit_stop(failures))
                return;
            const uint32_t first = psn_add(last, -static_cast<int64_t>(r.range(0, 100)));
            for (const NakCase &n : kNaks) {
                for (uint32_t psn : {last, psn_add(last, -1), psn_add(last, 1), first, psn_add(first, -1),
                                     psn_add(last, 1 << 23), psn24(r)}) {
                    const CompOut o = h.check(ack(r, op, first, last, psn, n.syndrome));
                    CHECK(o.accept);
                    CHECK_EQ(o.ack_status, n.status);
                }
            }
        }
    }
    // Every NAK code: accepted at any PSN; the unnamed ones never SUCCESS.
    for (unsigned v = 0; v < kValues; v++) {
        if (unit_stop(failures))
            return;
        const uint8_t syn = aeth_syndrome(RNIC_AETH_KIND_NAK, v);
        for (uint8_t op : kOps) {
            if (op == RNIC_OP_BIND)
                continue;
            const uint32_t last = psn24(r);
            const CompOut o = h.check(ack(r, op, psn24(r), last, psn24(r), syn));
            CHECK(o.accept);
            CHECK(o.ack_status != RNIC_CQE_STATUS_SUCCESS);
            if (!named_nak(syn))
                CHECK(h.check(ack(r, op, psn24(r), last, last, syn)).accept);
        }
    }

    // RNR NAK, and the kinds rnic.toml does not name: no kind NAK, so like
    // an ACK for acceptance (the last PSN of a non-READ only); never SUCCESS
    // (only kind ACK is).
    std::set<unsigned> rnr_status, other_status;
    for (unsigned kind = 0; kind < kKinds; kind++) {
        if (kind == RNIC_AETH_KIND_ACK || kind == RNIC_AETH_KIND_NAK)
            continue;
        for (unsigned v = 0; v < kValues; v++) {
            if (unit_stop(failures))
                return;
            const uint8_t syn = aeth_syndrome(kind, v);
            for (uint8_t op : kAckable) {
                const uint32_t last = psn24(r);
                const uint32_t first = psn_add(last, -static_cast<int64_t>(r.range(1, 50)));
                const CompOut o = h.check(ack(r, op, first, last, last, syn));
                CHECK(o.accept);
                CHECK(o.ack_status != RNIC_CQE_STATUS_SUCCESS);
                (kind == RNIC_AETH_KIND_RNR_NAK ? rnr_status : other_status).insert(o.ack_status);
                CHECK(!h.check(ack(r, op, first, last, psn_add(last, -1), syn)).accept);
                CHECK(!h.check(ack(r, op, first, last, psn_add(last, 1), syn)).accept);
                CHECK(!h.check(ack(r, op, first, last, first, syn)).accept);
            }
            const uint32_t last = psn24(r);
            CHECK(!h.check(ack(r, RNIC_OP_RDMA_READ, last, last, last, syn)).accept);
        }
    }
    for (unsigned s : rnr_status)
        std::printf("ack_rules: an RNR NAK naming the last PSN completes the WQE with ack_status %u (%s)\n", s,
                    or_q(rnic_cqe_status_name(s)));
    for (unsigned s : other_status)
        std::printf("ack_rules: an unnamed AETH kind naming the last PSN completes the WQE with ack_status %u (%s)\n",
                    s, or_q(rnic_cqe_status_name(s)));
}

UNIT_TEST(read_resp_rules) {
    CompHarness h(seed(0xCC02));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();

    // Named cases: first, bytes received, the PSN that answers.
    struct Case {
        uint32_t first, got, psn;
    };
    const Case named[] = {
        {0x100u, 0u, 0x100u},
        {0x100u, RNIC_MTU - 1u, 0x100u},
        {0x100u, RNIC_MTU, 0x101u},
        {0x100u, 5u * RNIC_MTU + 3u, 0x105u},
        {0u, 0u, 0u},
        {kPsnMask, 0u, kPsnMask},
        {kPsnMask, RNIC_MTU - 1u, kPsnMask},
        {kPsnMask, RNIC_MTU, 0u},                    // across 2^24
        {kPsnMask - 1u, 5u * RNIC_MTU + 3u, 3u},
        {kPsnMask - 4u, 5u * RNIC_MTU, 0u},
    };
    for (const Case &c : named) {
        if (unit_stop(failures))
            return;
        for (int rep = 0; rep < 8; rep++) {
            const uint32_t last = r.percent(50) ? psn_add(c.psn, r.range(0, 30)) : psn24(r);
            CHECK(h.check(rresp(r, RNIC_OP_RDMA_READ, c.first, last, c.got, c.psn)).accept);
            // One off either way, with the last PSN there.
            CHECK(!h.check(rresp(r, RNIC_OP_RDMA_READ, c.first, psn_add(c.psn, -1), c.got, psn_add(c.psn, -1))).accept);
            CHECK(!h.check(rresp(r, RNIC_OP_RDMA_READ, c.first, psn_add(c.psn, 1), c.got, psn_add(c.psn, 1))).accept);
        }
    }

    // A grid: firsts near both ends of the PSN space, gots at MTU edges.
    std::vector<uint32_t> firsts = {0u, 1u, 0x123456u, kPsnMask - 5u, kPsnMask - 1u, kPsnMask};
    for (int i = 0; i < 4; i++) firsts.push_back(psn24(r));
    std::vector<uint32_t> gots = {0u, 1u, UINT32_MAX};
    for (uint32_t k : {1u, 2u, 5u, 6u, 100u, 4095u, 4096u}) {
        gots.push_back(k * RNIC_MTU - 1u);
        gots.push_back(k * RNIC_MTU);
        gots.push_back(k * RNIC_MTU + 3u);
    }
    for (int i = 0; i < 4; i++) gots.push_back(r.u32());
    for (uint32_t first : firsts) {
        if (unit_stop(failures))
            return;
        for (uint32_t got : gots) {
            const uint32_t want = psn_add(first, got / RNIC_MTU);
            const uint32_t last = psn_add(want, r.range(0, 40));
            CHECK(h.check(rresp(r, RNIC_OP_RDMA_READ, first, last, got, want)).accept);
            CHECK(!h.check(rresp(r, RNIC_OP_RDMA_READ, first, psn_add(want, -1), got, psn_add(want, -1))).accept);
            CHECK(!h.check(rresp(r, RNIC_OP_RDMA_READ, first, psn_add(want, 1), got, psn_add(want, 1))).accept);
            CHECK(!h.check(rresp(r, RNIC_OP_RDMA_READ, first, last, got, psn_add(want, 1 << 23))).accept);
            // The first PSN answers only while less than an MTU is in.
            CHECK_EQ(h.check(rresp(r, RNIC_OP_RDMA_READ, first, last, got, first)).accept, got < RNIC_MTU);
        }
    }

    // For every other opcode: dropped, at the PSN a READ would need, its
    // first and its last.
    for (uint8_t op : kOps) {
        if (op == RNIC_OP_RDMA_READ)
            continue;
        for (int i = 0; i < 200; i++) {
            if (unit_stop(failures))
                return;
            const uint32_t first = psn24(r), got = r.percent(50) ? r.range(0, 8 * RNIC_MTU) : r.u32();
            const uint32_t last = psn_add(first, r.range(0, 50));
            CHECK(!h.check(rresp(r, op, first, last, got, resp_psn(first, got))).accept);
            CHECK(!h.check(rresp(r, op, first, last, got, first)).accept);
            CHECK(!h.check(rresp(r, op, first, last, got, last)).accept);
        }
    }
}

namespace {
// Inputs that each rule would accept were the WQE answerable: PSN equal to
// the last PSN and to the READ response's, and so on.
std::vector<CompIn> would_answer(Rng &r, uint8_t op) {
    std::vector<CompIn> v;
    const uint32_t first = psn24(r), got = r.range(0, 10 * RNIC_MTU);
    const uint32_t last = resp_psn(first, got);
    for (unsigned v_ack = 0; v_ack < 2; v_ack++) {
        v.push_back(ack(r, op, first, last, last, v_ack ? RNIC_AETH_ACK : aeth_syndrome(RNIC_AETH_KIND_ACK, 0)));
        v.back().oldest_got = got;
    }
    for (const NakCase &n : kNaks) v.push_back(ack(r, op, first, last, r.percent(50) ? last : psn24(r), n.syndrome));
    v.push_back(ack(r, op, first, last, last, aeth_syndrome(RNIC_AETH_KIND_RNR_NAK, r.range(0, kValues - 1))));
    v.push_back(rresp(r, op, first, last, got, last));
    CompIn both = rresp(r, op, first, last, got, last);
    both.is_ack = true;
    v.push_back(both);
    return v;
}
}  // namespace

UNIT_TEST(nothing_in_flight) {
    CompHarness h(seed(0xCC03));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (uint8_t op : kOps) {
        for (int i = 0; i < 200; i++) {
            if (unit_stop(failures))
                return;
            for (CompIn in : would_answer(r, op)) {
                in.in_flight = false;
                CHECK(!h.check(in).accept);
            }
        }
    }
    for (int i = 0; i < 50000 && !unit_stop(failures); i++) {
        CompIn in = junk(r);
        in.in_flight = false;
        CHECK(!h.check(in).accept);
    }
}

UNIT_TEST(bind_oldest) {
    CompHarness h(seed(0xCC04));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (int i = 0; i < 500; i++) {
        if (unit_stop(failures))
            return;
        for (const CompIn &in : would_answer(r, RNIC_OP_BIND)) CHECK(!h.check(in).accept);
        // Every PSN lined up: first == last == psn, nothing received.
        const uint32_t p = psn24(r);
        for (unsigned kind = 0; kind < kKinds; kind++) {
            CompIn in = ack(r, RNIC_OP_BIND, p, p, p, aeth_syndrome(kind, r.range(0, kValues - 1)));
            in.oldest_got = 0;
            CHECK(!h.check(in).accept);
        }
        CHECK(!h.check(rresp(r, RNIC_OP_BIND, p, p, 0, p)).accept);
    }
    for (int i = 0; i < 50000 && !unit_stop(failures); i++) {
        CompIn in = junk(r);
        in.in_flight = true;
        in.oldest_op = RNIC_OP_BIND;
        CHECK(!h.check(in).accept);
    }
}

UNIT_TEST(neither_ack_nor_resp) {
    CompHarness h(seed(0xCC05));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (uint8_t op : kOps) {
        for (int i = 0; i < 200; i++) {
            if (unit_stop(failures))
                return;
            for (CompIn in : would_answer(r, op)) {
                in.is_ack = in.is_read_resp = false;
                CHECK(!h.check(in).accept);
            }
        }
    }
    for (int i = 0; i < 50000 && !unit_stop(failures); i++) {
        CompIn in = junk(r);
        in.is_ack = in.is_read_resp = false;
        in.in_flight = r.percent(90);
        CHECK(!h.check(in).accept);
    }
}

UNIT_TEST(exhaustive_small) {
    CompHarness h(seed(0xCC06));
    // AETH values: 0, the all-ones credit count of the NIC's ACK, the named
    // NAKs' codes, the largest.
    std::set<unsigned> values = {0u, aeth_value(RNIC_AETH_ACK), RNIC_AETH_SYNDROME_VALUE_MASK};
    for (const NakCase &n : kNaks) values.insert(aeth_value(n.syndrome));
    const uint32_t firsts[] = {0u, kPsnMask};
    const uint32_t gots[] = {0u, RNIC_MTU - 1u, RNIC_MTU, 5u * RNIC_MTU + 3u};
    const uint32_t spans[] = {0u, 7u};
    const int failures = rnic_check_failures();
    uint64_t n = 0;
    for (unsigned bits = 0; bits < 8; bits++) {
        for (uint8_t op : kOps) {
            for (unsigned kind = 0; kind < kKinds; kind++) {
                for (unsigned v : values) {
                    for (uint32_t first : firsts) {
                        for (uint32_t got : gots) {
                            for (uint32_t span : spans) {
                                const uint32_t last = psn_add(first, span), want = resp_psn(first, got);
                                const uint32_t psns[] = {last,  psn_add(last, -1), psn_add(last, 1),
                                                         want,  psn_add(want, -1), psn_add(want, 1),
                                                         first, psn_add(first, 1 << 23)};
                                for (uint32_t psn : psns) {
                                    if (unit_stop(failures))
                                        return;
                                    CompIn in;
                                    in.is_ack = bits & 1;
                                    in.is_read_resp = bits & 2;
                                    in.in_flight = bits & 4;
                                    in.syndrome = aeth_syndrome(kind, v);
                                    in.psn = psn;
                                    in.oldest_op = op;
                                    in.oldest_first = first;
                                    in.oldest_last = last;
                                    in.oldest_got = got;
                                    h.check(in);
                                    n++;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    const CompStats &s = h.stats();
    std::printf("exhaustive_small: %llu combinations; accepted: NAK %llu, ACK at last %llu, READ response %llu\n",
                static_cast<unsigned long long>(n), static_cast<unsigned long long>(s.why[static_cast<int>(Why::Nak)]),
                static_cast<unsigned long long>(s.why[static_cast<int>(Why::AckAtLast)]),
                static_cast<unsigned long long>(s.why[static_cast<int>(Why::ReadResp)]));
    CHECK_EQ(n, 8u * sizeof kOps * kKinds * values.size() * sizeof firsts / sizeof firsts[0] * sizeof gots /
                    sizeof gots[0] * sizeof spans / sizeof spans[0] * 8u);
    for (int w = 0; w < static_cast<int>(Why::Count); w++) CHECK(s.why[w] > 0);
}

UNIT_TEST(random_run) {
    CompHarness h(seed(0xCC0FF));
    Rng &r = h.rng();
    const uint64_t kEvals = 300000;
    const int failures = rnic_check_failures();
    for (uint64_t i = 0; i < kEvals && !unit_stop(failures); i++) {
        CompIn in;
        // Mostly one packet kind, a WQE in flight, an enum opcode.
        const unsigned k = r.range(0, 99);
        in.is_ack = k < 50 || k >= 95;
        in.is_read_resp = (k >= 50 && k < 90) || k >= 97;
        in.in_flight = r.percent(92);
        in.oldest_op = r.percent(95) ? kOps[r.range(0, sizeof kOps - 1)] : r.byte();
        if (in.is_read_resp && !in.is_ack && r.percent(70))
            in.oldest_op = RNIC_OP_RDMA_READ;
        // Syndromes: the named ones, any of a kind, any byte.
        switch (r.range(0, 5)) {
        case 0: in.syndrome = RNIC_AETH_ACK; break;
        case 1: in.syndrome = kNaks[r.range(0, 3)].syndrome; break;
        case 2: in.syndrome = aeth_syndrome(RNIC_AETH_KIND_ACK, r.range(0, kValues - 1)); break;
        case 3: in.syndrome = aeth_syndrome(RNIC_AETH_KIND_NAK, r.range(0, kValues - 1)); break;
        case 4: in.syndrome = aeth_syndrome(RNIC_AETH_KIND_RNR_NAK, r.range(0, kValues - 1)); break;
        default: in.syndrome = r.byte(); break;
        }
        // A WQE: first anywhere or near the wrap, a span, bytes received.
        in.oldest_first = r.percent(20) ? psn_add(kPsnMask, -static_cast<int64_t>(r.range(0, 8))) : psn24(r);
        in.oldest_last = r.percent(90) ? psn_add(in.oldest_first, r.range(0, 64)) : psn24(r);
        switch (r.range(0, 3)) {
        case 0: in.oldest_got = r.range(0, 64) * RNIC_MTU; break;
        case 1: in.oldest_got = r.range(0, 64) * RNIC_MTU + r.range(1, RNIC_MTU - 1); break;
        case 2: in.oldest_got = r.range(1, 64) * RNIC_MTU - 1; break;
        default: in.oldest_got = r.u32(); break;
        }
        // The PSN: at or next to the one each rule needs, or anywhere.
        const uint32_t want = resp_psn(in.oldest_first, in.oldest_got);
        const int64_t off = r.percent(60) ? 0 : (r.percent(50) ? 1 : -1);
        switch (r.range(0, 4)) {
        case 0: case 1: in.psn = psn_add(in.oldest_last, off); break;
        case 2: case 3: in.psn = psn_add(want, off); break;
        default: in.psn = r.percent(50) ? in.oldest_first : psn24(r); break;
        }
        h.check(in);
    }
    const CompStats &s = h.stats();
    std::printf("random_run: %llu evaluations, %llu output fields compared; accepted:",
                static_cast<unsigned long long>(s.evals), static_cast<unsigned long long>(s.compared));
    for (int w = 0; w < static_cast<int>(Why::Count); w++) {
        if (w == static_cast<int>(Why::NothingInFlight))
            std::printf("; dropped:");
        std::printf(" %s %llu%s", why_name(static_cast<Why>(w)), static_cast<unsigned long long>(s.why[w]),
                    w == static_cast<int>(Why::ReadResp) || w + 1 == static_cast<int>(Why::Count) ? "" : ",");
    }
    std::printf("\nrandom_run: ack_status compared exactly %llu, as not SUCCESS %llu (the unit gave",
                static_cast<unsigned long long>(s.status_exact), static_cast<unsigned long long>(s.status_not_success));
    for (const auto &kv : s.other_status)
        std::printf(" %s %llu", or_q(rnic_cqe_status_name(kv.first)), static_cast<unsigned long long>(kv.second));
    std::printf(")\n");
    CHECK(s.evals >= kEvals);
    for (int w = 0; w < static_cast<int>(Why::Count); w++) CHECK(s.why[w] > 1000);
    CHECK(s.status_exact > 10000);
    CHECK(s.status_not_success > 1000);
}
