// rnic_comp_check against its contract (the header of rtl/rnic_comp_check.sv,
// rnic.toml's AETH, AETH_KIND, OP, CQE_STATUS, MTU and QP_PATH,
// docs/wire-format.md's NAK table).
//
//   tb_rtl_comp_check TEST... | all   runs the named tests
//   tb_rtl_comp_check --list          prints every test name, one a line
//                                     (CMake registers one CTest per line)
//
// The unit is combinational: every evaluation's outputs are compared with
// the model of its contract (comp_model.h, through comp_harness.h); the
// tests below also state, by hand, what the contract says of each case.
// Where the RTL is known to disagree with its header (comp_model.h: a NAK
// past a READ, a READ response past sq_psn) either answer passes and the
// tests print which one the unit gave. The QP's path MTU (log_mtu) is drawn
// from 256 to 4096 bytes wherever a test does not name it: only a READ's
// responses read it, so every other rule must hold at each.
//
//   ack_rules             an ACK (kind ACK, every credit count) at a SEND's
//                         or WRITE's last PSN COMPLETE; past it, up to
//                         sq_psn - 1, COMPLETE too (cumulative: the engine
//                         asks again for the next oldest); before it (one
//                         before, the first PSN) a duplicate, NONE; at
//                         sq_psn and beyond NONE; last PSNs at 0 and
//                         2^24 - 1. A READ oldest: an ACK at or before its
//                         last PSN NONE, past it RETRY (its responses were
//                         lost), NONE while retrying
//   cumulative_ack        one ACK walked over a queue of WQEs the way the
//                         engine asks (S_ACK_MORE): it completes every WQE
//                         whose last PSN it reaches, stops at the first it
//                         does not (NONE) or at a READ (RETRY)
//   nak_rules             a sequence NAK: COMPLETE when the oldest ends
//                         before its PSN (up to sq_psn itself), else RETRY,
//                         NONE when retrying with the same PSN as
//                         acked_psn (RETRY with another, or not retrying);
//                         an RNR NAK (every timer value) RNR, retrying or
//                         not; every other NAK code FAIL with its reason's
//                         status (REMOTE_ACCESS; INVALID_REQUEST and
//                         REMOTE_OPERATIONAL -> REMOTE_OPERATION; unnamed
//                         codes not SUCCESS); past sq_psn NONE; a NAK past a
//                         READ (header: COMPLETE; RTL: by its code); the
//                         AETH kinds rnic.toml does not name: NONE
//   read_resp_rules       the expected PSN is first + got / path MTU: DATA
//                         (named cases at path MTUs 4096, 1024 and 256, the
//                         same bytes counting more responses at a smaller
//                         one, across 2^24; a grid of firsts and of gots at
//                         the edges of each path MTU 256 .. 4096); one
//                         before it a duplicate,
//                         NONE; a later one within the READ RETRY (a
//                         response was lost), NONE while retrying; past the
//                         READ NONE. A READ response for every other opcode:
//                         past its last PSN (its ACK lost) RETRY, NONE
//                         while retrying; at its first or last NONE
//   window                whatever the packet, at or past sq_psn NONE (a
//                         NAK at sq_psn itself still answers); sq_psn just
//                         past the last PSN and far from it, and wrapped
//   wrap_around           one WQE straddling 2^24 - 1 -> 0, every rule at
//                         PSNs on both sides of the wrap
//   nothing_in_flight     no WQE in flight: NONE, whatever the packet, the
//                         opcode or the PSNs
//   bind_oldest           the oldest a BIND: NONE, even with every PSN
//                         lined up
//   neither_ack_nor_resp  neither flag: NONE
//   exhaustive_small      every combination of is_ack, is_read_resp,
//                         in_flight, retrying, every RNIC_OP_*, every AETH
//                         kind with five values, firsts 0 and 2^24 - 1,
//                         every path MTU 256 .. 4096 with four gots at its
//                         edges, two WQE lengths, two sq_psns, ten PSN
//                         relations and acked_psn equal to the PSN or not
//                         (12,288,000)
//   random_run            300,000 evaluations of random inputs biased to
//                         the rules' edges, path MTUs 256 .. 4096 (gots in
//                         that MTU's steps); the figures at the end say
//                         every clause decided some, and DATA came at
//                         every path MTU
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

// Every WQE opcode; those an ACK completes (no READ, no BIND).
constexpr uint8_t kOps[] = {RNIC_OP_NOP, RNIC_OP_SEND, RNIC_OP_RDMA_WRITE, RNIC_OP_RDMA_READ, RNIC_OP_RECV,
                            RNIC_OP_BIND};
constexpr uint8_t kAckable[] = {RNIC_OP_NOP, RNIC_OP_SEND, RNIC_OP_RDMA_WRITE, RNIC_OP_RECV};

// The NAKs that fail the WQE and the status of their reason, by hand
// (docs/wire-format.md). PSN_SEQUENCE is no longer among them: it retries.
struct NakCase {
    uint8_t syndrome;
    uint8_t status;
};
constexpr NakCase kFatal[] = {
    {RNIC_AETH_NAK_REMOTE_ACCESS, RNIC_CQE_STATUS_REMOTE_ACCESS},
    {RNIC_AETH_NAK_INVALID_REQUEST, RNIC_CQE_STATUS_REMOTE_OPERATION},
    {RNIC_AETH_NAK_REMOTE_OPERATIONAL, RNIC_CQE_STATUS_REMOTE_OPERATION},
};

constexpr unsigned kKinds = RNIC_AETH_SYNDROME_KIND_MASK + 1;
constexpr unsigned kValues = RNIC_AETH_SYNDROME_VALUE_MASK + 1;

bool named_nak(uint8_t syn) {
    if (syn == RNIC_AETH_NAK_PSN_SEQUENCE)
        return true;
    for (const NakCase &n : kFatal)
        if (n.syndrome == syn)
            return true;
    return false;
}
bool unnamed_kind(unsigned kind) {
    return kind != RNIC_AETH_KIND_ACK && kind != RNIC_AETH_KIND_NAK && kind != RNIC_AETH_KIND_RNR_NAK;
}

uint32_t psn24(Rng &r) { return r.u32() & kPsnMask; }

// A path MTU a QP may have: 256 .. 4096 bytes (rnic_pkg::path_log_mtu).
unsigned draw_lg(Rng &r) { return r.range(kMinLogMtu, kMaxLogMtu); }

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
    in.sq_psn = psn24(r);
    in.retrying = r.percent(50);
    in.acked_psn = psn24(r);
    in.log_mtu = r.range(0, 15);
    return in;
}

// Bytes a READ spanning span + 1 PSNs may have received while it is in
// flight, 2^lg bytes a response: fewer than every response (the engine
// retires it with its last).
uint32_t read_got(Rng &r, uint32_t span, unsigned lg) {
    const uint32_t mtu = mtu_bytes(lg);
    switch (r.range(0, 3)) {
    case 0: return 0;
    case 1: return span * mtu;                            // waiting for its last
    case 2: return r.range(0, span) * mtu;
    default: return r.range(0, span * mtu + mtu - 1);
    }
}

// The oldest WQE in flight: opcode op, PSNs first..last, the requester's
// next PSN sq; not retrying, acked_psn junk, any path MTU. A READ has
// received some of its responses, any other opcode's byte count is junk.
CompIn oldest(Rng &r, uint8_t op, uint32_t first, uint32_t last, uint32_t sq) {
    CompIn in;
    in.in_flight = true;
    in.oldest_op = op;
    in.oldest_first = first;
    in.oldest_last = last;
    in.log_mtu = draw_lg(r);
    in.oldest_got = op == RNIC_OP_RDMA_READ ? read_got(r, psn_dist(last, first), in.log_mtu) : r.u32();
    in.sq_psn = sq;
    in.acked_psn = psn24(r);
    return in;
}

// An ACKNOWLEDGE (ACK or NAK by its syndrome) for that WQE.
CompIn ack(Rng &r, uint8_t op, uint32_t first, uint32_t last, uint32_t sq, uint32_t psn, uint8_t syn) {
    CompIn in = oldest(r, op, first, last, sq);
    in.is_ack = true;
    in.syndrome = syn;
    in.psn = psn;
    return in;
}

// A READ response for that WQE, got bytes received at path MTU 2^lg, the
// syndrome junk.
CompIn rresp(Rng &r, uint8_t op, uint32_t first, uint32_t last, uint32_t got, unsigned lg, uint32_t sq,
             uint32_t psn) {
    CompIn in = oldest(r, op, first, last, sq);
    in.is_read_resp = true;
    in.syndrome = r.byte();
    in.psn = psn;
    in.oldest_got = got;
    in.log_mtu = lg;
    return in;
}

CompIn retrying(CompIn in, uint32_t acked) {
    in.retrying = true;
    in.acked_psn = acked;
    return in;
}

// Last PSNs at the edges of the 24-bit space, and some anywhere.
std::vector<uint32_t> some_lasts(Rng &r) {
    std::vector<uint32_t> v = {0u, 1u, 1u << 23, kPsnMask - 1u, kPsnMask};
    for (int i = 0; i < 4; i++) v.push_back(psn24(r));
    return v;
}

// The unit's act for `in`, against the model (the harness) and by hand;
// `line` names the case that failed.
CompOut expect_at(CompHarness &h, const CompIn &in, unsigned act, int line) {
    const CompOut o = h.check(in);
    if (!rnic_check_record(o.act == act)) {
        char buf[480];
        describe(in, buf, sizeof buf);
        std::fprintf(stderr, "tb_comp_check.cpp:%d: act %s, expected %s: %s\n", line, comp_act_name(o.act),
                     comp_act_name(act), buf);
    }
    return o;
}
#define EXPECT(in, act) expect_at(h, (in), (act), __LINE__)

// A FAIL with the given status.
void expect_fail_at(CompHarness &h, const CompIn &in, unsigned status, int line) {
    const CompOut o = expect_at(h, in, COMP_ACT_FAIL, line);
    if (o.act == COMP_ACT_FAIL && !rnic_check_record(o.ack_status == status))
        std::fprintf(stderr, "tb_comp_check.cpp:%d: FAIL with ack_status %u, expected %u\n", line, o.ack_status,
                     status);
}
#define EXPECT_FAIL(in, status) expect_fail_at(h, (in), (status), __LINE__)

// Where the RTL disagrees with its header (comp_model.h): the header's act
// or the RTL's.
CompOut expect_either_at(CompHarness &h, const CompIn &in, unsigned header, unsigned rtl, int line) {
    const CompOut o = h.check(in);
    if (!rnic_check_record(o.act == header || o.act == rtl))
        std::fprintf(stderr, "tb_comp_check.cpp:%d: act %s, expected %s (header) or %s (RTL)\n", line,
                     comp_act_name(o.act), comp_act_name(header), comp_act_name(rtl));
    return o;
}
#define EXPECT_EITHER(in, header, rtl) expect_either_at(h, (in), (header), (rtl), __LINE__)

const char *or_q(const char *s) { return s ? s : "?"; }

void print_acts(const char *test, const CompHarness &h) {
    const CompStats &s = h.stats();
    std::printf("%s: %llu evaluations (%llu not judged), %llu output fields compared; the unit's acts:", test,
                static_cast<unsigned long long>(s.evals), static_cast<unsigned long long>(s.unjudged),
                static_cast<unsigned long long>(s.compared));
    for (unsigned a = 0; a < kCompActs; a++)
        std::printf(" %s %llu", comp_act_name(a), static_cast<unsigned long long>(s.act[a]));
    std::printf("\n");
    print_disagreements(test, s);
}

}  // namespace

// ------------------------------------------------------------------ tests

UNIT_TEST(ack_rules) {
    CompHarness h(seed(0xCC01));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();

    // An ACK for a SEND or WRITE (and the opcodes the engine treats alike).
    for (uint8_t op : kAckable) {
        for (uint32_t last : some_lasts(r)) {
            if (unit_stop(failures))
                return;
            const uint32_t first = r.percent(30) ? last : psn_add(last, -static_cast<int64_t>(r.range(1, 100)));
            const uint32_t sq = psn_add(last, r.range(2, 100));   // at least one PSN sent after it
            for (unsigned v = 0; v < kValues; v++) {
                const uint8_t syn = aeth_syndrome(RNIC_AETH_KIND_ACK, v);
                EXPECT(ack(r, op, first, last, sq, last, syn), COMP_ACT_COMPLETE);
                // Past the last PSN: COMPLETE as well. The old contract
                // wanted the last PSN exactly; the header now has ACKs
                // cumulative (an ACK acknowledges every PSN up to its own).
                EXPECT(ack(r, op, first, last, sq, psn_add(last, 1), syn), COMP_ACT_COMPLETE);
                EXPECT(ack(r, op, first, last, sq, psn_add(sq, -1), syn), COMP_ACT_COMPLETE);
                // Inside it, before its last PSN: part of it arrived (the
                // responder's periodic ACK), PROGRESS. Before its first: a
                // duplicate (or an ACK of an earlier WQE), NONE.
                EXPECT(ack(r, op, first, last, sq, psn_add(last, -1), syn),
                       first != last ? COMP_ACT_PROGRESS : COMP_ACT_NONE);
                EXPECT(ack(r, op, first, last, sq, psn_add(first, -1), syn), COMP_ACT_NONE);
                if (first != last)
                    EXPECT(ack(r, op, first, last, sq, first, syn), COMP_ACT_PROGRESS);
                // At sq_psn or far beyond: nothing sent there, NONE.
                EXPECT(ack(r, op, first, last, sq, sq, syn), COMP_ACT_NONE);
                EXPECT(ack(r, op, first, last, sq, psn_add(last, 1 << 23), syn), COMP_ACT_NONE);
            }
            // The NIC's own ACK syndrome, named; and an ACK during a resend
            // (retrying plays no part for an ACK that completes).
            const CompIn in = ack(r, op, first, last, sq, last, RNIC_AETH_ACK);
            EXPECT(in, COMP_ACT_COMPLETE);
            EXPECT(retrying(in, r.percent(50) ? last : psn24(r)), COMP_ACT_COMPLETE);
            EXPECT(retrying(ack(r, op, first, last, sq, psn_add(last, -1), RNIC_AETH_ACK), psn24(r)),
                   first != last ? COMP_ACT_PROGRESS : COMP_ACT_NONE);
        }
    }

    // An ACK for a READ: at or before its last PSN NONE (its answer is its
    // data: an ACK there says nothing of it); past it, its responses were
    // lost: RETRY (the old contract dropped it), NONE while retrying.
    for (uint32_t last : some_lasts(r)) {
        if (unit_stop(failures))
            return;
        const uint32_t first = psn_add(last, -static_cast<int64_t>(r.range(0, 20)));
        const uint32_t sq = psn_add(last, r.range(2, 50));
        for (unsigned v = 0; v < kValues; v++) {
            const uint8_t syn = aeth_syndrome(RNIC_AETH_KIND_ACK, v);
            EXPECT(ack(r, RNIC_OP_RDMA_READ, first, last, sq, last, syn), COMP_ACT_NONE);
            EXPECT(ack(r, RNIC_OP_RDMA_READ, first, last, sq, first, syn), COMP_ACT_NONE);
            CompIn in = ack(r, RNIC_OP_RDMA_READ, first, last, sq, 0, syn);
            in.psn = resp_psn(first, in.oldest_got, in.log_mtu);   // the PSN a READ response would need
            EXPECT(in, COMP_ACT_NONE);
            in = ack(r, RNIC_OP_RDMA_READ, first, last, sq, psn_add(last, 1), syn);
            EXPECT(in, COMP_ACT_RETRY);
            EXPECT(retrying(in, r.percent(50) ? in.psn : psn24(r)), COMP_ACT_NONE);
            in.psn = psn_add(sq, -1);
            EXPECT(in, COMP_ACT_RETRY);
            in.psn = sq;
            EXPECT(in, COMP_ACT_NONE);
        }
    }
    print_acts("ack_rules", h);
}

UNIT_TEST(cumulative_ack) {
    CompHarness h(seed(0xCC07));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (int round = 0; round < 2000 && !unit_stop(failures); round++) {
        // A queue of WQEs in flight, back to back in PSN order, sometimes
        // across 2^24; one of them now and then a READ.
        const unsigned n = r.range(1, 8);
        const int read_at = r.percent(30) ? static_cast<int>(r.range(0, n - 1)) : -1;
        struct W {
            uint8_t op;
            uint32_t first, last;
        };
        std::vector<W> q;
        uint32_t psn = r.percent(30) ? psn_add(kPsnMask, -static_cast<int64_t>(r.range(0, 20))) : psn24(r);
        for (unsigned i = 0; i < n; i++) {
            const uint8_t op = static_cast<int>(i) == read_at ? RNIC_OP_RDMA_READ
                                                              : (r.percent(50) ? RNIC_OP_SEND : RNIC_OP_RDMA_WRITE);
            const uint32_t span = r.range(0, 5);
            q.push_back(W{op, psn, psn_add(psn, span)});
            psn = psn_add(psn, span + 1);
        }
        const uint32_t sq = psn;
        // The ACK: at the last PSN of WQE k, or inside WQE k + 1 before its
        // last (a mid-message AckReq's ACK). It reaches WQEs 0..k.
        const unsigned k = r.range(0, n - 1);
        uint32_t apsn = q[k].last;
        if (k + 1 < n && q[k + 1].last != q[k + 1].first && r.percent(40))
            apsn = psn_add(q[k + 1].first, r.range(0, psn_dist(q[k + 1].last, q[k + 1].first) - 1));
        const uint8_t syn = aeth_syndrome(RNIC_AETH_KIND_ACK, r.range(0, kValues - 1));
        // Ask as the engine does: for the oldest, and again after each
        // COMPLETE for the next.
        const bool again = r.percent(20);
        for (unsigned i = 0; i < n; i++) {
            CompIn in = ack(r, q[i].op, q[i].first, q[i].last, sq, apsn, syn);
            if (again)
                in = retrying(in, psn24(r));
            if (q[i].op == RNIC_OP_RDMA_READ) {
                // Past a READ: its responses were lost. At its last PSN (the
                // ACK at WQE k's last, k the READ) or before it: nothing.
                // Either way the walk ends.
                const bool past = i < k || (i == k && apsn != q[k].last);
                EXPECT(in, past && !again ? COMP_ACT_RETRY : COMP_ACT_NONE);
                break;
            }
            if (i <= k) {
                EXPECT(in, COMP_ACT_COMPLETE);
                continue;
            }
            // The first WQE the ACK does not complete: PROGRESS when the ACK
            // is inside it, else NONE; the walk ends.
            EXPECT(in, i == k + 1 && apsn != q[k].last ? COMP_ACT_PROGRESS : COMP_ACT_NONE);
            break;
        }
        // The same ACK once more after its WQEs completed (a duplicate ACK),
        // for the next WQE in flight: NONE.
        if (k + 1 < n && q[k + 1].op != RNIC_OP_RDMA_READ)
            EXPECT(ack(r, q[k + 1].op, q[k + 1].first, q[k + 1].last, sq, q[k].last, syn), COMP_ACT_NONE);
    }
    print_acts("cumulative_ack", h);
}

UNIT_TEST(nak_rules) {
    CompHarness h(seed(0xCC08));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    const uint8_t seq = RNIC_AETH_NAK_PSN_SEQUENCE;

    // The NAKs for a SEND or WRITE.
    for (uint8_t op : kAckable) {
        for (uint32_t last : some_lasts(r)) {
            if (unit_stop(failures))
                return;
            const uint32_t first = psn_add(last, -static_cast<int64_t>(r.range(0, 100)));
            const uint32_t sq = psn_add(last, r.range(2, 100));
            const uint32_t mid = psn_add(first, r.range(0, psn_dist(last, first)));
            // PSN sequence: naming a PSN of the oldest, RETRY from there (the
            // old contract completed the WQE with TRANSPORT).
            for (uint32_t psn : {first, mid, last})
                EXPECT(ack(r, op, first, last, sq, psn, seq), COMP_ACT_RETRY);
            // Naming a PSN past the oldest: every packet of it arrived, COMPLETE
            // (up to sq_psn itself: all that was sent arrived, the next did not).
            EXPECT(ack(r, op, first, last, sq, psn_add(last, 1), seq), COMP_ACT_COMPLETE);
            EXPECT(ack(r, op, first, last, sq, sq, seq), COMP_ACT_COMPLETE);
            // Past sq_psn, or before the oldest: NONE.
            EXPECT(ack(r, op, first, last, sq, psn_add(sq, 1), seq), COMP_ACT_NONE);
            EXPECT(ack(r, op, first, last, sq, psn_add(first, -1), seq), COMP_ACT_NONE);
            // The same NAK again while the resend it started is under way:
            // NONE (no second retry). Another PSN, or not retrying: RETRY.
            const CompIn in = ack(r, op, first, last, sq, mid, seq);
            EXPECT(retrying(in, mid), COMP_ACT_NONE);
            EXPECT(retrying(in, psn_add(mid, 1)), COMP_ACT_RETRY);
            EXPECT(retrying(in, psn_add(mid, -1)), COMP_ACT_RETRY);
            EXPECT(retrying(in, psn_add(mid, 1 << 23)), COMP_ACT_RETRY);
            CompIn not_retrying = in;
            not_retrying.acked_psn = mid;
            EXPECT(not_retrying, COMP_ACT_RETRY);
            // Past the oldest, even acted on: the oldest ends before it, COMPLETE.
            EXPECT(retrying(ack(r, op, first, last, sq, psn_add(last, 1), seq), psn_add(last, 1)), COMP_ACT_COMPLETE);

            // RNR NAK (every timer value): RNR, retrying or not; past the
            // oldest COMPLETE; past sq_psn NONE. (The old contract took an
            // RNR NAK for no NAK at all.)
            for (unsigned v = 0; v < kValues; v++) {
                const uint8_t syn = aeth_syndrome(RNIC_AETH_KIND_RNR_NAK, v);
                EXPECT(ack(r, op, first, last, sq, mid, syn), COMP_ACT_RNR);
                EXPECT(ack(r, op, first, last, sq, first, syn), COMP_ACT_RNR);
                EXPECT(retrying(ack(r, op, first, last, sq, mid, syn), mid), COMP_ACT_RNR);
                EXPECT(ack(r, op, first, last, sq, psn_add(last, 1), syn), COMP_ACT_COMPLETE);
                EXPECT(ack(r, op, first, last, sq, psn_add(sq, 1), syn), COMP_ACT_NONE);
            }

            // The fatal NAKs: FAIL with their reason; the same window.
            for (const NakCase &n : kFatal) {
                for (uint32_t psn : {first, mid, last}) {
                    EXPECT_FAIL(ack(r, op, first, last, sq, psn, n.syndrome), n.status);
                    EXPECT_FAIL(retrying(ack(r, op, first, last, sq, psn, n.syndrome), psn), n.status);
                }
                EXPECT(ack(r, op, first, last, sq, psn_add(last, 1), n.syndrome), COMP_ACT_COMPLETE);
                EXPECT(ack(r, op, first, last, sq, sq, n.syndrome), COMP_ACT_COMPLETE);
                EXPECT(ack(r, op, first, last, sq, psn_add(sq, 1), n.syndrome), COMP_ACT_NONE);
            }
        }
    }
    // Every NAK code the table does not name: FAIL, never SUCCESS.
    std::set<unsigned> unnamed_status;
    for (unsigned v = 0; v < kValues; v++) {
        if (unit_stop(failures))
            return;
        const uint8_t syn = aeth_syndrome(RNIC_AETH_KIND_NAK, v);
        if (named_nak(syn))
            continue;
        for (uint8_t op : kOps) {
            if (op == RNIC_OP_BIND)
                continue;
            const uint32_t last = psn24(r), first = psn_add(last, -static_cast<int64_t>(r.range(0, 20)));
            const uint32_t sq = psn_add(last, r.range(1, 20));
            const CompOut o = EXPECT(ack(r, op, first, last, sq, psn_add(first, r.range(0, psn_dist(last, first))), syn),
                                     COMP_ACT_FAIL);
            CHECK(o.ack_status != RNIC_CQE_STATUS_SUCCESS);
            unnamed_status.insert(o.ack_status);
        }
    }
    for (unsigned s : unnamed_status)
        std::printf("nak_rules: an unnamed NAK code fails the WQE with ack_status %u (%s)\n", s,
                    or_q(rnic_cqe_status_name(s)));

    // The NAKs for a READ: inside it by their code, as for any WQE. Past
    // it the header says COMPLETE ("the oldest ends before it"), the RTL
    // goes by the code (comp_model.h): either passes, counted.
    for (uint32_t last : some_lasts(r)) {
        if (unit_stop(failures))
            return;
        const uint32_t first = psn_add(last, -static_cast<int64_t>(r.range(0, 20)));
        const uint32_t sq = psn_add(last, r.range(2, 50));
        const uint32_t mid = psn_add(first, r.range(0, psn_dist(last, first)));
        const uint8_t rnr = aeth_syndrome(RNIC_AETH_KIND_RNR_NAK, r.range(0, kValues - 1));
        EXPECT(ack(r, RNIC_OP_RDMA_READ, first, last, sq, mid, seq), COMP_ACT_RETRY);
        EXPECT(retrying(ack(r, RNIC_OP_RDMA_READ, first, last, sq, mid, seq), mid), COMP_ACT_NONE);
        EXPECT(ack(r, RNIC_OP_RDMA_READ, first, last, sq, mid, rnr), COMP_ACT_RNR);
        for (const NakCase &n : kFatal) EXPECT_FAIL(ack(r, RNIC_OP_RDMA_READ, first, last, sq, mid, n.syndrome), n.status);
        for (uint32_t psn : {psn_add(last, 1), sq}) {
            EXPECT_EITHER(ack(r, RNIC_OP_RDMA_READ, first, last, sq, psn, seq), COMP_ACT_COMPLETE, COMP_ACT_RETRY);
            EXPECT_EITHER(ack(r, RNIC_OP_RDMA_READ, first, last, sq, psn, rnr), COMP_ACT_COMPLETE, COMP_ACT_RNR);
            for (const NakCase &n : kFatal)
                EXPECT_EITHER(ack(r, RNIC_OP_RDMA_READ, first, last, sq, psn, n.syndrome), COMP_ACT_COMPLETE,
                              COMP_ACT_FAIL);
        }
        EXPECT(ack(r, RNIC_OP_RDMA_READ, first, last, sq, psn_add(sq, 1), seq), COMP_ACT_NONE);
    }

    // The AETH kinds rnic.toml does not name are neither ACK nor NAK:
    // NONE, at any PSN (the old contract treated them as an ACK).
    for (unsigned kind = 0; kind < kKinds; kind++) {
        if (!unnamed_kind(kind))
            continue;
        for (unsigned v = 0; v < kValues; v++) {
            if (unit_stop(failures))
                return;
            const uint8_t syn = aeth_syndrome(kind, v);
            for (uint8_t op : kOps) {
                const uint32_t last = psn24(r), first = psn_add(last, -static_cast<int64_t>(r.range(0, 50)));
                const uint32_t sq = psn_add(last, r.range(2, 50));
                for (uint32_t psn : {first, last, psn_add(last, 1), sq})
                    EXPECT(ack(r, op, first, last, sq, psn, syn), COMP_ACT_NONE);
            }
        }
    }
    print_acts("nak_rules", h);
}

UNIT_TEST(read_resp_rules) {
    CompHarness h(seed(0xCC02));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    const uint8_t rd = RNIC_OP_RDMA_READ;

    // Named cases: first, bytes received, the path MTU (log2), the PSN that
    // answers.
    struct Case {
        uint32_t first, got;
        unsigned lg;
        uint32_t psn;
    };
    const unsigned M = kMaxLogMtu;   // RNIC_MTU: a QP_PATH.PATH_MTU of 0
    const Case named[] = {
        {0x100u, 0u, M, 0x100u},
        {0x100u, RNIC_MTU - 1u, M, 0x100u},
        {0x100u, RNIC_MTU, M, 0x101u},
        {0x100u, 5u * RNIC_MTU + 3u, M, 0x105u},
        {0u, 0u, M, 0u},
        {kPsnMask, 0u, M, kPsnMask},
        {kPsnMask, RNIC_MTU - 1u, M, kPsnMask},
        {kPsnMask, RNIC_MTU, M, 0u},                 // across 2^24
        {kPsnMask - 1u, 5u * RNIC_MTU + 3u, M, 3u},
        {kPsnMask - 4u, 5u * RNIC_MTU, M, 0u},
        // Path MTU 1024: one response per 1024 bytes.
        {0x100u, 1023u, 10, 0x100u},
        {0x100u, 1024u, 10, 0x101u},
        {0x100u, 4095u, 10, 0x103u},                 // less than 4096 bytes, three responses
        {0x100u, 4096u, 10, 0x104u},
        {0x100u, 5u * 1024u + 3u, 10, 0x105u},
        {kPsnMask, 1024u, 10, 0u},                   // across 2^24
        {kPsnMask - 1u, 5u * 1024u + 3u, 10, 3u},
        // Path MTU 256, the smallest.
        {0x100u, 255u, 8, 0x100u},
        {0x100u, 256u, 8, 0x101u},
        {0x100u, 1023u, 8, 0x103u},
        {0x100u, 4096u, 8, 0x110u},                  // one response of 4096 bytes is sixteen
        {0x100u, 5u * 256u + 3u, 8, 0x105u},
        {0u, 255u, 8, 0u},
        {kPsnMask, 256u, 8, 0u},                     // across 2^24
        {kPsnMask - 0xFu, 4096u, 8, 0u},
        {kPsnMask - 4u, 5u * 256u, 8, 0u},
    };
    for (const Case &c : named) {
        if (unit_stop(failures))
            return;
        for (int rep = 0; rep < 8; rep++) {
            // The READ reaches at least to the expected PSN (responses
            // still to come), the requester past it.
            const uint32_t last = psn_add(c.psn, r.percent(50) ? r.range(0, 30) : r.range(0, 5000));
            const uint32_t sq = psn_add(last, r.range(1, 30));
            EXPECT(rresp(r, rd, c.first, last, c.got, c.lg, sq, c.psn), COMP_ACT_DATA);
            EXPECT(retrying(rresp(r, rd, c.first, last, c.got, c.lg, sq, c.psn), psn24(r)), COMP_ACT_DATA);
            // One before: a duplicate, NONE (as the old contract dropped it).
            EXPECT(rresp(r, rd, c.first, last, c.got, c.lg, sq, psn_add(c.psn, -1)), COMP_ACT_NONE);
            // One after, inside the READ: the expected one was lost, RETRY
            // (the old contract dropped it); NONE while a resend is under way.
            const uint32_t last2 = psn_add(c.psn, 1 + r.range(0, 10));
            const CompIn later = rresp(r, rd, c.first, last2, c.got, c.lg, psn_add(last2, 1), psn_add(c.psn, 1));
            EXPECT(later, COMP_ACT_RETRY);
            EXPECT(retrying(later, psn24(r)), COMP_ACT_NONE);
            // One after, past the READ (the expected one is its last): NONE.
            EXPECT(rresp(r, rd, c.first, c.psn, c.got, c.lg, psn_add(c.psn, 2), psn_add(c.psn, 1)), COMP_ACT_NONE);
            // The same bytes at another path MTU expect another PSN: there
            // the one named here is a duplicate (NONE) or a later one
            // (RETRY), on a READ long enough for both.
            const unsigned other = c.lg == kMaxLogMtu ? kMinLogMtu : kMaxLogMtu;
            const uint32_t there = resp_psn(c.first, c.got, other);
            if (there != c.psn) {
                const uint32_t here_off = psn_dist(c.psn, c.first), there_off = psn_dist(there, c.first);
                const uint32_t far = psn_add(c.first, (here_off > there_off ? here_off : there_off) + 10);
                EXPECT(rresp(r, rd, c.first, far, c.got, other, psn_add(far, 1), c.psn),
                       here_off < there_off ? COMP_ACT_NONE : COMP_ACT_RETRY);
                EXPECT(rresp(r, rd, c.first, far, c.got, other, psn_add(far, 1), there), COMP_ACT_DATA);
            }
        }
    }

    // A grid: firsts near both ends of the PSN space, every path MTU, gots
    // at its edges.
    std::vector<uint32_t> firsts = {0u, 1u, 0x123456u, kPsnMask - 5u, kPsnMask - 1u, kPsnMask};
    for (int i = 0; i < 4; i++) firsts.push_back(psn24(r));
    for (unsigned lg = kMinLogMtu; lg <= kMaxLogMtu; lg++) {
        const uint32_t mtu = mtu_bytes(lg);
        std::vector<uint32_t> gots = {0u, 1u, UINT32_MAX};
        for (uint32_t k : {1u, 2u, 5u, 6u, 100u, 4095u, 4096u}) {
            gots.push_back(k * mtu - 1u);
            gots.push_back(k * mtu);
            gots.push_back(k * mtu + 3u);
        }
        for (int i = 0; i < 4; i++) gots.push_back(r.u32());
        for (uint32_t first : firsts) {
            if (unit_stop(failures))
                return;
            for (uint32_t got : gots) {
                // A READ is at most 2^31 bytes (rnic_requester), 2^23
                // responses at the smallest path MTU: a count that says more
                // would have the READ's PSNs wrap onto themselves.
                if ((got >> lg) >= (1u << 23))
                    continue;
                const uint32_t want = psn_add(first, got >> lg);
                const uint32_t last = psn_add(want, r.range(1, 40));
                const uint32_t sq = psn_add(last, r.range(1, 40));
                EXPECT(rresp(r, rd, first, last, got, lg, sq, want), COMP_ACT_DATA);
                EXPECT(rresp(r, rd, first, last, got, lg, sq, psn_add(want, -1)), COMP_ACT_NONE);
                EXPECT(rresp(r, rd, first, last, got, lg, sq, psn_add(want, 1)), COMP_ACT_RETRY);
                EXPECT(rresp(r, rd, first, last, got, lg, sq, last), COMP_ACT_RETRY);
                EXPECT(rresp(r, rd, first, last, got, lg, sq, psn_add(last, 1)), COMP_ACT_NONE);
                EXPECT(rresp(r, rd, first, last, got, lg, sq, psn_add(want, 1 << 23)), COMP_ACT_NONE);
                // The first PSN answers only while less than a path MTU is in.
                EXPECT(rresp(r, rd, first, last, got, lg, sq, first), got < mtu ? COMP_ACT_DATA : COMP_ACT_NONE);
            }
        }
    }

    // For every other opcode: its ACK is still due, so a READ response
    // past it says that ACK was lost: RETRY (NONE while retrying; the old
    // contract dropped it); at its first or last PSN NONE.
    for (uint8_t op : kOps) {
        if (op == rd || op == RNIC_OP_BIND)
            continue;
        for (int i = 0; i < 200; i++) {
            if (unit_stop(failures))
                return;
            const unsigned lg = draw_lg(r);
            const uint32_t first = psn24(r), got = r.percent(50) ? r.range(0, 8 * mtu_bytes(lg)) : r.u32();
            const uint32_t last = psn_add(first, r.range(0, 50));
            const uint32_t sq = psn_add(last, r.range(2, 50));
            EXPECT(rresp(r, op, first, last, got, lg, sq, first), COMP_ACT_NONE);
            EXPECT(rresp(r, op, first, last, got, lg, sq, last), COMP_ACT_NONE);
            const CompIn past =
                rresp(r, op, first, last, got, lg, sq, psn_add(last, r.range(1, psn_dist(sq, last) - 1)));
            EXPECT(past, COMP_ACT_RETRY);
            EXPECT(retrying(past, psn24(r)), COMP_ACT_NONE);
            EXPECT(rresp(r, op, first, last, got, lg, sq, sq), COMP_ACT_NONE);
        }
    }
    print_acts("read_resp_rules", h);
}

UNIT_TEST(window) {
    CompHarness h(seed(0xCC09));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    const uint8_t seq = RNIC_AETH_NAK_PSN_SEQUENCE;
    for (uint8_t op : kOps) {
        if (op == RNIC_OP_BIND)
            continue;
        const bool rd = op == RNIC_OP_RDMA_READ;
        for (int i = 0; i < 300; i++) {
            if (unit_stop(failures))
                return;
            // A WQE, sometimes across 2^24; sq_psn just past it or far.
            const uint32_t first = r.percent(30) ? psn_add(kPsnMask, -static_cast<int64_t>(r.range(0, 30))) : psn24(r);
            const uint32_t last = psn_add(first, r.range(0, 30));
            const uint32_t sq = psn_add(last, r.percent(50) ? 1 : r.range(2, 1u << 22));
            const unsigned lg = draw_lg(r);
            const uint32_t got = rd ? read_got(r, psn_dist(last, first), lg) : r.u32();
            const uint8_t rnr = aeth_syndrome(RNIC_AETH_KIND_RNR_NAK, r.range(0, kValues - 1));
            const NakCase &fatal = kFatal[r.range(0, 2)];
            // At or past sq_psn (and, mod 2^24, before the WQE): NONE.
            for (uint32_t psn : {sq, psn_add(sq, 1), psn_add(sq, r.range(0, 1u << 22)), psn_add(first, -1),
                                 psn_add(first, -static_cast<int64_t>(r.range(1, 1u << 22)))}) {
                EXPECT(ack(r, op, first, last, sq, psn, RNIC_AETH_ACK), COMP_ACT_NONE);
                EXPECT(rresp(r, op, first, last, got, lg, sq, psn), COMP_ACT_NONE);
                if (psn == sq)
                    continue;
                EXPECT(ack(r, op, first, last, sq, psn, seq), COMP_ACT_NONE);
                EXPECT(ack(r, op, first, last, sq, psn, rnr), COMP_ACT_NONE);
                EXPECT(ack(r, op, first, last, sq, psn, fatal.syndrome), COMP_ACT_NONE);
            }
            // A NAK may name sq_psn itself: the oldest ended before it.
            for (uint8_t syn : {seq, rnr, fatal.syndrome}) {
                if (rd)
                    EXPECT_EITHER(ack(r, op, first, last, sq, sq, syn), COMP_ACT_COMPLETE,
                                  syn == seq ? COMP_ACT_RETRY : syn == rnr ? COMP_ACT_RNR : COMP_ACT_FAIL);
                else
                    EXPECT(ack(r, op, first, last, sq, sq, syn), COMP_ACT_COMPLETE);
            }
            // A resend rewinds sq_psn to the oldest's first PSN (then moves it
            // on as it resends): the PSNs not yet resent are out of the window.
            const uint32_t resent = psn_add(first, r.range(0, psn_dist(last, first)));
            CompIn in = retrying(ack(r, op, first, last, resent, last, RNIC_AETH_ACK), psn24(r));
            EXPECT(in, COMP_ACT_NONE);
            if (rd) {
                // A READ response at or past the rewound sq_psn: out of the
                // window by the header; the RTL takes the expected one
                // (comp_model.h).
                const uint32_t want = resp_psn(first, got, lg);
                if (psn_dist(want, first) >= psn_dist(resent, first))
                    EXPECT_EITHER(retrying(rresp(r, op, first, last, got, lg, resent, want), psn24(r)), COMP_ACT_NONE,
                                  COMP_ACT_DATA);
            }
        }
    }
    print_acts("window", h);
}

UNIT_TEST(wrap_around) {
    CompHarness h(seed(0xCC0A));
    Rng &r = h.rng();
    const uint8_t seq = RNIC_AETH_NAK_PSN_SEQUENCE;
    // A WRITE of PSNs 0xFFFFFD .. 0x000001, the requester at 0x000005.
    const uint32_t first = 0xFFFFFDu, last = 0x000001u, sq = 0x000005u;
    for (uint8_t op : {RNIC_OP_SEND, RNIC_OP_RDMA_WRITE}) {
        EXPECT(ack(r, op, first, last, sq, 0xFFFFFCu, RNIC_AETH_ACK), COMP_ACT_NONE);     // the WQE before
        EXPECT(ack(r, op, first, last, sq, 0xFFFFFFu, RNIC_AETH_ACK), COMP_ACT_PROGRESS); // a mid-message ACK
        EXPECT(ack(r, op, first, last, sq, 0x000000u, RNIC_AETH_ACK), COMP_ACT_PROGRESS);
        EXPECT(ack(r, op, first, last, sq, 0x000001u, RNIC_AETH_ACK), COMP_ACT_COMPLETE);
        EXPECT(ack(r, op, first, last, sq, 0x000004u, RNIC_AETH_ACK), COMP_ACT_COMPLETE); // cumulative
        EXPECT(ack(r, op, first, last, sq, 0x000005u, RNIC_AETH_ACK), COMP_ACT_NONE);     // not sent
        EXPECT(ack(r, op, first, last, sq, 0x7FFFFFu, RNIC_AETH_ACK), COMP_ACT_NONE);
        EXPECT(ack(r, op, first, last, sq, 0xFFFFFDu, seq), COMP_ACT_RETRY);
        EXPECT(ack(r, op, first, last, sq, 0x000000u, seq), COMP_ACT_RETRY);
        EXPECT(retrying(ack(r, op, first, last, sq, 0x000000u, seq), 0x000000u), COMP_ACT_NONE);
        EXPECT(retrying(ack(r, op, first, last, sq, 0x000000u, seq), 0xFFFFFFu), COMP_ACT_RETRY);
        EXPECT(ack(r, op, first, last, sq, 0x000002u, seq), COMP_ACT_COMPLETE);
        EXPECT(ack(r, op, first, last, sq, 0x000005u, seq), COMP_ACT_COMPLETE);           // sq_psn itself
        EXPECT(ack(r, op, first, last, sq, 0x000006u, seq), COMP_ACT_NONE);
        EXPECT(ack(r, op, first, last, sq, 0xFFFFFCu, seq), COMP_ACT_NONE);
        EXPECT(ack(r, op, first, last, sq, 0xFFFFFFu, RNIC_AETH_RNR_NAK), COMP_ACT_RNR);
        EXPECT_FAIL(ack(r, op, first, last, sq, 0x000001u, RNIC_AETH_NAK_REMOTE_ACCESS), RNIC_CQE_STATUS_REMOTE_ACCESS);
        EXPECT(rresp(r, op, first, last, 0, draw_lg(r), sq, 0x000002u), COMP_ACT_RETRY);  // its ACK lost
        EXPECT(rresp(r, op, first, last, 0, draw_lg(r), sq, 0xFFFFFFu), COMP_ACT_NONE);
    }
    // sq_psn itself wrapped to 0: a WRITE ending at 0xFFFFFF.
    EXPECT(ack(r, RNIC_OP_RDMA_WRITE, 0xFFFFF0u, kPsnMask, 0, kPsnMask, RNIC_AETH_ACK), COMP_ACT_COMPLETE);
    EXPECT(ack(r, RNIC_OP_RDMA_WRITE, 0xFFFFF0u, kPsnMask, 0, 0, RNIC_AETH_ACK), COMP_ACT_NONE);
    EXPECT(ack(r, RNIC_OP_RDMA_WRITE, 0xFFFFF0u, kPsnMask, 0, 0, seq), COMP_ACT_COMPLETE);
    // A READ of PSNs 0xFFFFFE .. 0x000002 (5 path MTUs, at each), the
    // requester at 3.
    const uint32_t rf = 0xFFFFFEu, rl = 0x000002u, rsq = 0x000003u;
    for (unsigned lg = kMinLogMtu; lg <= kMaxLogMtu; lg++) {
        for (uint32_t k = 0; k < 5; k++) {
            const uint32_t got = k * mtu_bytes(lg), want = psn_add(rf, k);
            EXPECT(rresp(r, RNIC_OP_RDMA_READ, rf, rl, got, lg, rsq, want), COMP_ACT_DATA);
            EXPECT(rresp(r, RNIC_OP_RDMA_READ, rf, rl, got, lg, rsq, psn_add(want, -1)), COMP_ACT_NONE);
            EXPECT(rresp(r, RNIC_OP_RDMA_READ, rf, rl, got, lg, rsq, psn_add(want, 1)),
                   k < 4 ? COMP_ACT_RETRY : COMP_ACT_NONE);
        }
    }
    CompIn in = ack(r, RNIC_OP_RDMA_READ, rf, rl, rsq, rl, RNIC_AETH_ACK);
    in.oldest_got = 2 * mtu_bytes(in.log_mtu);
    EXPECT(in, COMP_ACT_NONE);
    in.psn = psn_add(rl, 1);
    in.sq_psn = psn_add(rl, 2);
    EXPECT(in, COMP_ACT_RETRY);
    print_acts("wrap_around", h);
}

namespace {
// Inputs that each rule would answer were the WQE answerable: PSN equal to
// the last PSN, past it, the READ response's, NAKs inside and at sq_psn.
std::vector<CompIn> would_answer(Rng &r, uint8_t op) {
    std::vector<CompIn> v;
    const unsigned lg = draw_lg(r);
    const uint32_t first = psn24(r), got = r.range(0, 10 * mtu_bytes(lg));
    const uint32_t last = resp_psn(first, got, lg);
    const uint32_t sq = psn_add(last, r.range(2, 10));
    for (unsigned v_ack = 0; v_ack < 2; v_ack++) {
        const uint8_t syn = v_ack ? RNIC_AETH_ACK : aeth_syndrome(RNIC_AETH_KIND_ACK, 0);
        v.push_back(ack(r, op, first, last, sq, last, syn));
        v.push_back(ack(r, op, first, last, sq, psn_add(last, 1), syn));
    }
    v.push_back(ack(r, op, first, last, sq, r.percent(50) ? last : first, RNIC_AETH_NAK_PSN_SEQUENCE));
    for (const NakCase &n : kFatal) v.push_back(ack(r, op, first, last, sq, r.percent(50) ? last : sq, n.syndrome));
    v.push_back(ack(r, op, first, last, sq, last, aeth_syndrome(RNIC_AETH_KIND_RNR_NAK, r.range(0, kValues - 1))));
    v.push_back(rresp(r, op, first, last, got, lg, sq, last));
    v.push_back(rresp(r, op, first, last, got, lg, sq, psn_add(last, 1)));
    CompIn both = rresp(r, op, first, last, got, lg, sq, last);
    both.is_ack = true;
    v.push_back(both);
    for (CompIn &in : v) {
        in.oldest_got = got;
        in.log_mtu = lg;
        in.retrying = r.percent(30);
        if (r.percent(50))
            in.acked_psn = in.psn;
    }
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
                EXPECT(in, COMP_ACT_NONE);
            }
        }
    }
    for (int i = 0; i < 50000 && !unit_stop(failures); i++) {
        CompIn in = junk(r);
        in.in_flight = false;
        EXPECT(in, COMP_ACT_NONE);
    }
}

UNIT_TEST(bind_oldest) {
    CompHarness h(seed(0xCC04));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (int i = 0; i < 500; i++) {
        if (unit_stop(failures))
            return;
        for (const CompIn &in : would_answer(r, RNIC_OP_BIND)) EXPECT(in, COMP_ACT_NONE);
        // Every PSN lined up: first == last == psn, nothing received,
        // the requester one past.
        const uint32_t p = psn24(r);
        for (unsigned kind = 0; kind < kKinds; kind++) {
            CompIn in = ack(r, RNIC_OP_BIND, p, p, psn_add(p, 1), p, aeth_syndrome(kind, r.range(0, kValues - 1)));
            in.oldest_got = 0;
            EXPECT(in, COMP_ACT_NONE);
        }
        EXPECT(rresp(r, RNIC_OP_BIND, p, p, 0, draw_lg(r), psn_add(p, 1), p), COMP_ACT_NONE);
    }
    for (int i = 0; i < 50000 && !unit_stop(failures); i++) {
        CompIn in = junk(r);
        in.in_flight = true;
        in.oldest_op = RNIC_OP_BIND;
        EXPECT(in, COMP_ACT_NONE);
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
                EXPECT(in, COMP_ACT_NONE);
            }
        }
    }
    for (int i = 0; i < 50000 && !unit_stop(failures); i++) {
        CompIn in = junk(r);
        in.is_ack = in.is_read_resp = false;
        in.in_flight = r.percent(90);
        EXPECT(in, COMP_ACT_NONE);
    }
}

UNIT_TEST(exhaustive_small) {
    CompHarness h(seed(0xCC06));
    // AETH values: 0, the all-ones credit count of the NIC's ACK, the named
    // NAKs' codes, the largest.
    std::set<unsigned> values = {0u, aeth_value(RNIC_AETH_ACK), RNIC_AETH_SYNDROME_VALUE_MASK,
                                 aeth_value(RNIC_AETH_NAK_PSN_SEQUENCE)};
    for (const NakCase &n : kFatal) values.insert(aeth_value(n.syndrome));
    const uint32_t firsts[] = {0u, kPsnMask};
    // Bytes received at every path MTU, at its edges.
    struct Got {
        unsigned lg;
        uint32_t bytes;
    };
    std::vector<Got> gots;
    for (unsigned lg = kMinLogMtu; lg <= kMaxLogMtu; lg++)
        for (uint32_t b : {0u, mtu_bytes(lg) - 1u, mtu_bytes(lg), 5u * mtu_bytes(lg) + 3u}) gots.push_back(Got{lg, b});
    const uint32_t spans[] = {0u, 7u};
    const uint32_t sq_past[] = {1u, 3u};   // sq_psn this far past the last PSN
    const int failures = rnic_check_failures();
    uint64_t n = 0;
    for (unsigned bits = 0; bits < 16; bits++) {
        for (uint8_t op : kOps) {
            for (unsigned kind = 0; kind < kKinds; kind++) {
                for (unsigned v : values) {
                    for (uint32_t first : firsts) {
                        for (const Got &got : gots) {
                            for (uint32_t span : spans) {
                                for (uint32_t past : sq_past) {
                                    const uint32_t last = psn_add(first, span);
                                    const uint32_t want = resp_psn(first, got.bytes, got.lg);
                                    const uint32_t sq = psn_add(last, past);
                                    const uint32_t psns[] = {last,  psn_add(last, -1), psn_add(last, 1),
                                                             want,  psn_add(want, -1), psn_add(want, 1),
                                                             first, psn_add(first, 1 << 23),
                                                             sq,    psn_add(sq, -1)};
                                    for (uint32_t psn : psns) {
                                        for (unsigned same = 0; same < 2; same++) {
                                            if (unit_stop(failures))
                                                return;
                                            CompIn in;
                                            in.is_ack = bits & 1;
                                            in.is_read_resp = bits & 2;
                                            in.in_flight = bits & 4;
                                            in.retrying = bits & 8;
                                            in.syndrome = aeth_syndrome(kind, v);
                                            in.psn = psn;
                                            in.oldest_op = op;
                                            in.oldest_first = first;
                                            in.oldest_last = last;
                                            in.oldest_got = got.bytes;
                                            in.log_mtu = got.lg;
                                            in.sq_psn = sq;
                                            in.acked_psn = same ? psn : psn_add(psn, 1);
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
        }
    }
    const CompStats &s = h.stats();
    std::printf("exhaustive_small: %llu combinations; by clause:", static_cast<unsigned long long>(n));
    for (int w = 0; w < static_cast<int>(Why::Count); w++)
        std::printf("%s %s %llu", w ? "," : "", why_name(static_cast<Why>(w)), static_cast<unsigned long long>(s.why[w]));
    std::printf("\n");
    print_acts("exhaustive_small", h);
    CHECK_EQ(n, 16u * sizeof kOps * kKinds * values.size() * 2 * ((kMaxLogMtu - kMinLogMtu + 1) * 4) * 2 * 2 * 10 * 2);
    for (int w = 0; w < static_cast<int>(Why::Count); w++) CHECK(s.why[w] > 0);
}

UNIT_TEST(random_run) {
    CompHarness h(seed(0xCC0FF));
    Rng &r = h.rng();
    const uint64_t kEvals = 300000;
    const int failures = rnic_check_failures();
    uint64_t data_at[16] = {};   // the unit's DATA by log_mtu
    for (uint64_t i = 0; i < kEvals && !unit_stop(failures); i++) {
        CompIn in;
        in.log_mtu = draw_lg(r);
        const uint32_t mtu = mtu_bytes(in.log_mtu);
        // Mostly one packet kind, a WQE in flight, an enum opcode.
        const unsigned k = r.range(0, 99);
        in.is_ack = k < 50 || k >= 97;
        in.is_read_resp = (k >= 50 && k < 92) || k >= 97;
        in.in_flight = r.percent(94);
        in.oldest_op = r.percent(96) ? kOps[r.range(0, sizeof kOps - 1)] : r.byte();
        if (in.is_read_resp && !in.is_ack && r.percent(60))
            in.oldest_op = RNIC_OP_RDMA_READ;
        // Syndromes: the named ones, any of a kind, any byte.
        switch (r.range(0, 6)) {
        case 0: in.syndrome = RNIC_AETH_ACK; break;
        case 1: in.syndrome = RNIC_AETH_NAK_PSN_SEQUENCE; break;
        case 2: in.syndrome = kFatal[r.range(0, 2)].syndrome; break;
        case 3: in.syndrome = aeth_syndrome(RNIC_AETH_KIND_ACK, r.range(0, kValues - 1)); break;
        case 4: in.syndrome = aeth_syndrome(RNIC_AETH_KIND_NAK, r.range(0, kValues - 1)); break;
        case 5: in.syndrome = aeth_syndrome(RNIC_AETH_KIND_RNR_NAK, r.range(0, kValues - 1)); break;
        default: in.syndrome = r.byte(); break;
        }
        // A WQE: first anywhere or near the wrap, a span, bytes received
        // (for a READ mostly fewer than all its responses).
        in.oldest_first = r.percent(20) ? psn_add(kPsnMask, -static_cast<int64_t>(r.range(0, 8))) : psn24(r);
        const uint32_t span = r.range(0, 64);
        in.oldest_last = r.percent(95) ? psn_add(in.oldest_first, span) : psn24(r);
        switch (r.range(0, 4)) {
        case 0: in.oldest_got = r.range(0, span) * mtu; break;
        case 1: in.oldest_got = r.range(0, span) * mtu + r.range(1, mtu - 1); break;
        case 2: in.oldest_got = r.range(1, span + 1) * mtu - 1; break;
        case 3: in.oldest_got = span * mtu; break;
        default: in.oldest_got = r.percent(50) ? r.range(0, 70) * mtu : r.u32(); break;
        }
        // The requester: past the WQE (just, or far), rewound into it by a
        // resend, or anywhere.
        switch (r.range(0, 9)) {
        case 0: case 1: case 2: case 3: in.sq_psn = psn_add(in.oldest_last, 1); break;
        case 4: case 5: in.sq_psn = psn_add(in.oldest_last, r.range(2, 64)); break;
        case 6: in.sq_psn = psn_add(in.oldest_last, r.range(65, 1u << 23)); break;
        case 7: in.sq_psn = psn_add(in.oldest_first, r.range(0, span)); break;
        default: in.sq_psn = psn24(r); break;
        }
        in.retrying = r.percent(30);
        // The PSN: at or next to the one each rule needs, or anywhere.
        const uint32_t want = resp_psn(in.oldest_first, in.oldest_got, in.log_mtu);
        const int64_t off = r.percent(60) ? 0 : (r.percent(50) ? 1 : -1);
        switch (r.range(0, 6)) {
        case 0: case 1: in.psn = psn_add(in.oldest_last, off); break;
        case 2: case 3: in.psn = psn_add(want, off); break;
        case 4: in.psn = psn_add(in.sq_psn, off); break;
        case 5: in.psn = psn_add(in.oldest_last, r.range(1, 64)); break;
        default: in.psn = r.percent(50) ? in.oldest_first : psn24(r); break;
        }
        in.acked_psn = r.percent(40) ? in.psn : psn24(r);
        if (h.check(in).act == COMP_ACT_DATA)
            data_at[in.log_mtu]++;
    }
    const CompStats &s = h.stats();
    std::printf("random_run: by clause:");
    for (int w = 0; w < static_cast<int>(Why::Count); w++)
        std::printf("%s %s %llu", w ? "," : "", why_name(static_cast<Why>(w)), static_cast<unsigned long long>(s.why[w]));
    std::printf("\nrandom_run: a FAIL's ack_status compared exactly %llu, as not SUCCESS %llu (the unit gave",
                static_cast<unsigned long long>(s.status_exact), static_cast<unsigned long long>(s.status_not_success));
    for (const auto &kv : s.other_status)
        std::printf(" %s %llu", or_q(rnic_cqe_status_name(kv.first)), static_cast<unsigned long long>(kv.second));
    std::printf(")\nrandom_run: DATA by path MTU:");
    for (unsigned lg = kMinLogMtu; lg <= kMaxLogMtu; lg++)
        std::printf(" %u %llu", mtu_bytes(lg), static_cast<unsigned long long>(data_at[lg]));
    std::printf("\n");
    print_acts("random_run", h);
    CHECK(s.evals >= kEvals);
    for (int w = 0; w < static_cast<int>(Why::Count); w++) CHECK(s.why[w] > 150);
    CHECK(s.status_exact > 3000);
    CHECK(s.status_not_success > 300);
    for (unsigned lg = kMinLogMtu; lg <= kMaxLogMtu; lg++) CHECK(data_at[lg] > 500);
}
