// rnic_resp_check against its contract (the header of rtl/rnic_resp_check.sv,
// rnic.toml's RESP_ACT, AETH, CQE_STATUS and QP_PATH; docs/wire-format.md
// for the status that goes with each NAK).
//
//   tb_rtl_resp_check TEST... | all   runs the named tests
//   tb_rtl_resp_check --list          prints every test name, one a line
//                                     (CMake registers one CTest per line)
//
// The unit has no clock: every evaluation sets all inputs, calls eval() and
// compares act and duplicate (always) and the NAK's syndrome and status
// (when act is NAK) with the model of its contract (resp_model.h,
// resp_harness.h); the tests below also state, by hand, what the contract
// says of each case, the inputs a rule does not read set at random. The
// QP's path MTU is drawn from 256 .. 4096 bytes, and a SEND or WRITE FIRST
// or MIDDLE carries exactly that unless a test says otherwise (any other
// size is refused before the rules after the path MTU rule are reached:
// pmtu_rules):
//
//   sequence              is_request 0 drops every kind of packet (WRITE
//                         FIRST/MIDDLE/LAST/ONLY, READ, SEND
//                         FIRST/MIDDLE/LAST/ONLY, none of them) on any QP,
//                         any PSN; the expected PSN is never dropped, and
//                         nak_sent and ack_req play no part there
//   future_psn            a PSN 1 .. 2^23 - 1 past the expected one: NAK_SEQ
//                         for every kind, even packets every later rule
//                         refuses; with nak_sent DROP (one NAK per gap)
//   duplicate             a PSN 1 .. 2^23 behind: a WRITE or SEND (and a
//                         request of no kind) with ack_req ACK_DUP, without
//                         DROP, whatever the later rules would say;
//                         duplicate set, and clear for the expected PSN and
//                         the future; the boundary at 2^23 exactly
//   duplicate_read        a duplicate READ is checked as a new one (not
//                         allowed NAK REMOTE_ACCESS, length 0 READ_EMPTY,
//                         else RKEY) with duplicate set, ack_req and
//                         nak_sent playing no part
//   wrap_around           expected PSNs at 0, 1, 2^23, 2^24 - 1: the future
//                         and the past on both sides of the wrap
//   write_first           WRITE FIRST (a whole path MTU) and ONLY (payloads
//                         0, 1, the path MTU, 2^16 - 1): not allowed NAK
//                         REMOTE_ACCESS (whatever the lengths); length 0
//                         with payload NAK INVALID_REQUEST; length 0 without
//                         (an ONLY) WRITE_EMPTY; length 1 to 2^32-1 (and
//                         2^16, whose low half is 0) RKEY, the payload and
//                         write_left not compared
//   read                  not allowed NAK REMOTE_ACCESS; length 0 READ_EMPTY
//                         (payload or not); length > 0 RKEY; FIRST/LAST and
//                         allow_write play no part
//   write_middle_last     payload one more than write_left NAK; a LAST one
//                         short or one over NAK; a MIDDLE (a whole path MTU)
//                         with payload equal to write_left RKEY, below it
//                         RKEY; a LAST's payload 0 PLACE_NONE only when
//                         nothing is left; write_left 2^16 and 2^32-1
//                         against a 16-bit payload; allow_write not read
//   send                  FIRST/ONLY with a message open and MIDDLE/LAST
//                         without one NAK INVALID_REQUEST (RECV or not); no
//                         RECV posted NAK_RNR (an RNR NAK: the requester
//                         retries); RECV held SEND_HELD, else SEND_FETCH
//   other_request         a request that is no WRITE, READ or SEND: NAK
//                         INVALID_REQUEST, whatever else is set
//   pmtu_rules            at each path MTU 256 .. 4096: a SEND or WRITE
//                         FIRST or MIDDLE with exactly the path MTU goes on
//                         to the later rules (accepted), with one byte less
//                         or more, none, one, half or twice it, 2^16 - 1 or
//                         another path MTU's size NAK INVALID_REQUEST
//                         (status REMOTE_OPERATION); a LAST or ONLY with
//                         0, 1, MTU - 1, MTU or any payload up to it is not
//                         refused; a READ (FIRST/LAST any) is not held to
//                         it; the sequence rules come first (a wrong-size
//                         duplicate ACK_DUP or DROP, a future one NAK_SEQ or
//                         DROP, not a request DROP) and the rule before the
//                         later ones (a wrong-size WRITE FIRST not allowed,
//                         or of length 0 without payload; a MIDDLE without
//                         payload; a SEND without a RECV: all NAK
//                         INVALID_REQUEST)
//   priority              two rules at once, the earlier wins: sequence
//                         (future, duplicate) over every refusal, a
//                         duplicate READ excepted; not allowed over length 0 (WRITE
//                         and READ); a SEND out of order over no RECV; a
//                         LAST's NAK over PLACE_NONE; the kinds in the
//                         header's order when the flags name two
//   exhaustive            all 8,192 combinations of the 13 one-bit inputs
//                         against 25 (reth_len, payload_len, write_left,
//                         log_mtu) rows at the edges (0, 1, equal, one more,
//                         one less, 2^16, 0xFFFF, 0xFFFFFFFF; a whole path
//                         MTU and one byte either side of it, 256 .. 4096)
//                         and three PSNs (expected, one past, one behind)
//                         from expected PSNs 0 and 2^24 - 1 (1,228,800);
//                         every rule's every outcome reached
//   random_run            300,000 evaluations, kinds and lengths mostly at
//                         the rules' edges (payloads often the path MTU or
//                         a byte off it, path MTUs 256 .. 4096), now and
//                         then every bit random; every outcome reached many
//                         times
//
// Each test prints its seed; RTL_UNIT_SEED=N replays another.
#include <cstdio>
#include <vector>

#include "resp_harness.h"
#include "rnic_check.h"
#include "unit_bench.h"

namespace {

uint64_t seed(uint64_t fixed) { return unit_seed(fixed); }

constexpr unsigned kDrop = RNIC_RESP_ACT_DROP, kNak = RNIC_RESP_ACT_NAK, kWriteEmpty = RNIC_RESP_ACT_WRITE_EMPTY,
                   kRkey = RNIC_RESP_ACT_RKEY, kReadEmpty = RNIC_RESP_ACT_READ_EMPTY,
                   kPlaceNone = RNIC_RESP_ACT_PLACE_NONE, kSendHeld = RNIC_RESP_ACT_SEND_HELD,
                   kSendFetch = RNIC_RESP_ACT_SEND_FETCH, kAckDup = RNIC_RESP_ACT_ACK_DUP,
                   kNakSeq = RNIC_RESP_ACT_NAK_SEQ, kNakRnr = RNIC_RESP_ACT_NAK_RNR;
constexpr unsigned kInvalid = RNIC_AETH_NAK_INVALID_REQUEST, kAccess = RNIC_AETH_NAK_REMOTE_ACCESS;
constexpr unsigned kStAccess = RNIC_CQE_STATUS_REMOTE_ACCESS, kStOperation = RNIC_CQE_STATUS_REMOTE_OPERATION;

// The kinds of request packet: which of is_write / is_read / is_send and
// FIRST / LAST. Other: a request that is none of the three.
enum class Kind {
    WriteFirst, WriteMiddle, WriteLast, WriteOnly, Read,
    SendFirst, SendMiddle, SendLast, SendOnly, Other, Count
};
constexpr unsigned kNumKinds = static_cast<unsigned>(Kind::Count);
const char *kind_name(Kind k) {
    static const char *const names[] = {"WRITE FIRST", "WRITE MIDDLE", "WRITE LAST", "WRITE ONLY", "READ",
                                        "SEND FIRST",  "SEND MIDDLE",  "SEND LAST",  "SEND ONLY",  "other"};
    return names[static_cast<unsigned>(k)];
}
Kind kind_at(unsigned i) { return static_cast<Kind>(i % kNumKinds); }

// An edge-biased 32-bit length, and one of 16 bits.
uint32_t len32(Rng &r) {
    switch (r.range(0, 7)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return 0xFFFFFFFFu;
    case 3: return 0x10000u;
    case 4: return 0xFFFFu;
    case 5: return r.range(2, 4096);
    default: return r.u32();
    }
}
uint16_t len16(Rng &r) {
    switch (r.range(0, 5)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return 0xFFFF;
    case 3: return static_cast<uint16_t>(r.range(2, 4096));
    default: return static_cast<uint16_t>(r.u32());
    }
}

// A PSN: near either end of the 24-bit space, or anywhere.
uint32_t psn24(Rng &r) {
    switch (r.range(0, 5)) {
    case 0: return r.range(0, 3);
    case 1: return kPsnMask - r.range(0, 3);
    case 2: return psn_add(1u << 23, static_cast<int64_t>(r.range(0, 6)) - 3);
    default: return r.u32() & kPsnMask;
    }
}

// The packet's PSN `d` from the QP's expected one (mod 2^24).
RespIn at(RespIn in, int64_t d) {
    in.psn = psn_add(in.expected_psn, d);
    return in;
}
// How far into the future, or back into the past: the edges, or anywhere.
int64_t ahead(Rng &r) {
    switch (r.range(0, 3)) {
    case 0: return 1;
    case 1: return (1 << 23) - 1;
    default: return r.range(1, (1u << 23) - 1);
    }
}
int64_t behind(Rng &r) {
    switch (r.range(0, 3)) {
    case 0: return -1;
    case 1: return -(1 << 23);
    default: return -static_cast<int64_t>(r.range(1, 1u << 23));
    }
}

// A path MTU a QP may have: 256 .. 4096 bytes (rnic_pkg::path_log_mtu).
unsigned draw_lg(Rng &r) { return r.range(kMinLogMtu, kMaxLogMtu); }
uint16_t whole(const RespIn &in) { return static_cast<uint16_t>(mtu_bytes(in.log_mtu)); }

bool sends_or_writes(Kind k) { return k != Kind::Read && k != Kind::Other; }
bool ends(Kind k) {
    return k == Kind::WriteLast || k == Kind::WriteOnly || k == Kind::SendLast || k == Kind::SendOnly;
}

// A request of kind k, in sequence, at a random path MTU, every other input
// random; a SEND or WRITE FIRST or MIDDLE carries a whole path MTU (the
// later rules decide: pmtu_rules covers the other sizes).
RespIn packet(Rng &r, Kind k) {
    RespIn in;
    resp_set_bits(in, r.range(0, (1u << kNumBits) - 1));
    in.log_mtu = draw_lg(r);
    in.reth_len = len32(r);
    in.payload_len = sends_or_writes(k) && !ends(k) ? whole(in) : len16(r);
    in.write_left = len32(r);
    in.is_request = true;
    in.expected_psn = psn24(r);
    in.psn = in.expected_psn;
    in.is_write = k == Kind::WriteFirst || k == Kind::WriteMiddle || k == Kind::WriteLast || k == Kind::WriteOnly;
    in.is_read = k == Kind::Read;
    in.is_send = k == Kind::SendFirst || k == Kind::SendMiddle || k == Kind::SendLast || k == Kind::SendOnly;
    switch (k) {
    case Kind::WriteFirst: case Kind::SendFirst: in.first = true; in.last = false; break;
    case Kind::WriteMiddle: case Kind::SendMiddle: in.first = false; in.last = false; break;
    case Kind::WriteLast: case Kind::SendLast: in.first = false; in.last = true; break;
    case Kind::WriteOnly: case Kind::SendOnly: in.first = true; in.last = true; break;
    default: break;   // READ and other: FIRST and LAST random
    }
    return in;
}

// The unit's answer for `in`, against the model (the harness) and by hand.
void expect(RespHarness &h, const RespIn &in, unsigned act) {
    const RespOut o = h.eval(in);
    CHECK_EQ(o.act, act);
}
void expect_dup(RespHarness &h, const RespIn &in, unsigned act, bool duplicate) {
    const RespOut o = h.eval(in);
    CHECK_EQ(o.act, act);
    CHECK_EQ(o.duplicate, duplicate);
}
void expect_nak(RespHarness &h, const RespIn &in, unsigned syndrome, unsigned status) {
    const RespOut o = h.eval(in);
    CHECK_EQ(o.act, kNak);
    if (o.act == kNak) {
        CHECK_EQ(o.syndrome, syndrome);
        CHECK_EQ(o.status, status);
    }
}

// Every outcome of every rule reached at least `min` times.
void check_reached(const RespHarness &h, uint64_t min) {
    for (unsigned w = 0; w < kNumWhy; w++) {
        const uint64_t n = h.stats().why[w];
        if (!rnic_check_record(n >= min))
            std::fprintf(stderr, "outcome \"%s\" reached %llu times, expected at least %llu\n",
                         resp_why_name(static_cast<RespWhy>(w)), static_cast<unsigned long long>(n),
                         static_cast<unsigned long long>(min));
    }
}

void print_stats(const char *test, const RespHarness &h) {
    const RespStats &s = h.stats();
    std::printf("%s: %llu evaluations, %llu output fields compared; by rule (those reached):", test,
                static_cast<unsigned long long>(s.evals), static_cast<unsigned long long>(s.compared));
    const char *sep = " ";
    for (unsigned w = 0; w < kNumWhy; w++) {
        if (!s.why[w])
            continue;
        std::printf("%s%s %llu", sep, resp_why_name(static_cast<RespWhy>(w)),
                    static_cast<unsigned long long>(s.why[w]));
        sep = ", ";
    }
    std::printf("; duplicate READs checked %llu\n", static_cast<unsigned long long>(s.dup_read));
}

}  // namespace

// ------------------------------------------------------------------ tests

UNIT_TEST(sequence) {
    RespHarness h(seed(0x5E01));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (unsigned k = 0; k < kNumKinds && !unit_stop(failures); k++) {
        const int before = rnic_check_failures();
        for (int i = 0; i < 300; i++) {
            // Not a request: dropped, at any PSN (the old "PSN not
            // expected: dropped" rule is gone: the future and the past now
            // have their own answers, the tests below).
            RespIn in = packet(r, kind_at(k));
            in.is_request = false;
            for (int64_t d : {int64_t{0}, ahead(r), behind(r)}) expect(h, at(in, d), kDrop);
        }
        // Packets every later rule refuses, in sequence: refused, nak_sent
        // or not (it silences the future only).
        RespIn in = packet(r, kind_at(k));
        in.allow_write = in.allow_read = false;
        in.reth_len = 0;
        in.payload_len = 1;
        in.write_left = 0;
        in.send_open = in.first;
        in.recv_posted = false;
        for (int nak_sent = 0; nak_sent < 2; nak_sent++) {
            in.nak_sent = nak_sent;
            expect_dup(h, in, kNak, false);   // a FIRST or MIDDLE by the path MTU, the rest by their own rule
        }
        in.is_request = false;
        expect(h, in, kDrop);
        if (rnic_check_failures() != before)
            std::fprintf(stderr, "sequence: %s failed\n", kind_name(kind_at(k)));
    }
    // Not a request, every other one-bit input in every combination.
    for (unsigned bits = 0; bits < (1u << kNumBits) && !unit_stop(failures); bits++) {
        RespIn in;
        resp_set_bits(in, bits & ~(1u << kBitIsRequest));
        in.reth_len = len32(r);
        in.payload_len = len16(r);
        in.write_left = len32(r);
        in.expected_psn = psn24(r);
        in.psn = r.percent(50) ? in.expected_psn : psn24(r);
        expect(h, in, kDrop);
    }
    // In sequence and a request: never dropped, never a duplicate.
    for (unsigned k = 0; k < kNumKinds && !unit_stop(failures); k++)
        for (int i = 0; i < 100; i++) {
            const RespOut o = h.eval(packet(r, kind_at(k)));
            CHECK(o.act != kDrop);
            CHECK(!o.duplicate);
        }
    print_stats("sequence", h);
}

UNIT_TEST(future_psn) {
    RespHarness h(seed(0x5E09));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (unsigned k = 0; k < kNumKinds && !unit_stop(failures); k++) {
        for (int i = 0; i < 300; i++) {
            // Past the expected PSN: one PSN-sequence NAK, then silence.
            RespIn in = packet(r, kind_at(k));
            const int64_t d = ahead(r);
            in.nak_sent = false;
            expect_dup(h, at(in, d), kNakSeq, false);
            in.nak_sent = true;
            expect_dup(h, at(in, d), kDrop, false);
        }
        // Packets every later rule refuses, in the future: the sequence NAK
        // first (the refusal would come once the expected PSN is reached).
        RespIn in = packet(r, kind_at(k));
        in.allow_write = in.allow_read = false;
        in.reth_len = 0;
        in.payload_len = 1;
        in.write_left = 0;
        in.send_open = in.first;
        in.recv_posted = false;
        in.nak_sent = false;
        expect(h, at(in, 1), kNakSeq);
        in.nak_sent = true;
        expect(h, at(in, 1), kDrop);
        // The expected PSN comes: checked again, the silence over.
        expect(h, in, kNak);
    }
    print_stats("future_psn", h);
}

UNIT_TEST(duplicate) {
    RespHarness h(seed(0x5E0A));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (unsigned k = 0; k < kNumKinds && !unit_stop(failures); k++) {
        if (kind_at(k) == Kind::Read)
            continue;   // duplicate_read
        for (int i = 0; i < 300; i++) {
            // A resent WRITE or SEND packet: not executed again; an ACK if
            // it asks for one. nak_sent plays no part.
            RespIn in = at(packet(r, kind_at(k)), behind(r));
            in.ack_req = true;
            expect_dup(h, in, kAckDup, true);
            in.ack_req = false;
            expect_dup(h, in, kDrop, true);
            in.nak_sent = !in.nak_sent;
            expect_dup(h, in, kDrop, true);
        }
        // Even a packet every later rule refuses: its first copy was
        // accepted (or it would not be behind), the copy is not checked.
        RespIn in = packet(r, kind_at(k));
        in.allow_write = in.allow_read = false;
        in.reth_len = 0;
        in.payload_len = 1;
        in.write_left = 0;
        in.send_open = in.first;
        in.recv_posted = false;
        in.ack_req = true;
        expect(h, at(in, -1), kAckDup);
        in.ack_req = false;
        expect(h, at(in, -1), kDrop);
    }
    // The boundary: 2^23 behind is the past, 2^23 - 1 ahead the future;
    // the expected PSN neither.
    for (int i = 0; i < 2000 && !unit_stop(failures); i++) {
        RespIn in = packet(r, r.percent(50) ? Kind::WriteOnly : Kind::SendOnly);
        in.ack_req = true;
        in.nak_sent = false;
        expect_dup(h, at(in, -(1 << 23)), kAckDup, true);
        expect_dup(h, at(in, 1 << 23), kAckDup, true);        // the same PSN, mod 2^24
        expect_dup(h, at(in, (1 << 23) - 1), kNakSeq, false);
        expect_dup(h, at(in, -((1 << 23) + 1)), kNakSeq, false);
        expect_dup(h, at(in, -1), kAckDup, true);
        expect_dup(h, at(in, 1), kNakSeq, false);
        const RespOut o = h.eval(in);
        CHECK(!o.duplicate);
        CHECK(o.act != kAckDup && o.act != kNakSeq);
    }
    print_stats("duplicate", h);
}

UNIT_TEST(duplicate_read) {
    RespHarness h(seed(0x5E0B));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    const uint32_t lens[] = {0, 1, 2, 0xFFFF, 0x10000, 0x80000000u, 0xFFFFFFFFu};
    for (int i = 0; i < 100 && !unit_stop(failures); i++) {
        for (uint32_t len : lens) {
            // A READ resent (its responses were lost): answered again from
            // memory, so every check of a new READ applies; duplicate set.
            RespIn in = at(packet(r, Kind::Read), behind(r));
            in.reth_len = len;
            for (unsigned bits = 0; bits < 4; bits++) {   // ack_req, nak_sent: no part
                in.ack_req = bits & 1;
                in.nak_sent = bits & 2;
                in.allow_read = false;
                expect_dup(h, in, kNak, true);
                in.allow_read = true;
                expect_dup(h, in, len == 0 ? kReadEmpty : kRkey, true);
            }
            in.allow_read = false;
            expect_nak(h, in, kAccess, kStAccess);
        }
    }
    print_stats("duplicate_read", h);
}

UNIT_TEST(wrap_around) {
    RespHarness h(seed(0x5E0C));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (uint32_t e : {0u, 1u, 1u << 23, kPsnMask - 1u, kPsnMask}) {
        for (int i = 0; i < 50 && !unit_stop(failures); i++) {
            RespIn in = packet(r, r.percent(50) ? Kind::WriteLast : Kind::SendLast);
            in.expected_psn = e;
            in.ack_req = true;
            in.nak_sent = false;
            // PSNs named outright: one and three past, one and three behind,
            // across 2^24 - 1 -> 0 where the expected PSN is near it.
            for (uint32_t d : {1u, 3u}) {
                in.psn = (e + d) & kPsnMask;
                expect_dup(h, in, kNakSeq, false);
                in.psn = (e - d) & kPsnMask;
                expect_dup(h, in, kAckDup, true);
            }
            in.psn = (e + (1u << 23)) & kPsnMask;   // the farthest past
            expect_dup(h, in, kAckDup, true);
            in.psn = (e + (1u << 23) - 1u) & kPsnMask;   // the farthest future
            expect_dup(h, in, kNakSeq, false);
            in = at(packet(r, Kind::Read), 0);
            in.expected_psn = e;
            in.psn = (e - 1u) & kPsnMask;
            in.allow_read = true;
            in.reth_len = 0;
            expect_dup(h, in, kReadEmpty, true);
        }
    }
    // 2^24 - 1 expected: 0 is the next PSN, in the future; 2^24 - 2 behind.
    RespIn in = packet(r, Kind::SendOnly);
    in.expected_psn = kPsnMask;
    in.nak_sent = false;
    in.ack_req = false;
    in.psn = 0;
    expect_dup(h, in, kNakSeq, false);
    in.psn = kPsnMask - 1u;
    expect_dup(h, in, kDrop, true);
    // 0 expected: 2^24 - 1 is the one before.
    in.expected_psn = 0;
    in.psn = kPsnMask;
    expect_dup(h, in, kDrop, true);
    print_stats("wrap_around", h);
}

UNIT_TEST(write_first) {
    RespHarness h(seed(0x5E02));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    const uint32_t lens[] = {0, 1, 2, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000u, 0xFFFFFFFFu};
    for (Kind k : {Kind::WriteFirst, Kind::WriteOnly}) {
        for (int i = 0; i < 40 && !unit_stop(failures); i++) {
            for (uint32_t len : lens) {
                // A FIRST carries a whole path MTU (any other size is
                // refused before this rule: pmtu_rules); an ONLY anything.
                const unsigned lg = draw_lg(r);
                const uint16_t mtu = static_cast<uint16_t>(mtu_bytes(lg));
                std::vector<uint16_t> payloads = {mtu};
                if (k == Kind::WriteOnly)
                    payloads = {0, 1, mtu, 0xFFFF};
                for (uint16_t pay : payloads) {
                    RespIn in = packet(r, k);
                    in.log_mtu = lg;
                    in.reth_len = len;
                    in.payload_len = pay;
                    // Not allowed: REMOTE_ACCESS, whatever the lengths.
                    in.allow_write = false;
                    expect_nak(h, in, kAccess, kStAccess);
                    in.allow_write = true;
                    if (len == 0 && pay != 0)
                        expect_nak(h, in, kInvalid, kStOperation);   // length 0 with payload
                    else if (len == 0)
                        expect(h, in, kWriteEmpty);                   // names no memory, no key checked
                    else
                        expect(h, in, kRkey);                         // payload against length not judged here
                }
            }
        }
        // The same with the other inputs at their extremes: not read.
        for (unsigned other = 0; other < 32; other++) {
            RespIn in = packet(r, k);
            in.allow_read = other & 1;
            in.send_open = other & 2;
            in.recv_posted = other & 4;
            in.recv_held = other & 8;
            in.write_left = (other & 16) ? 0xFFFFFFFFu : 0;
            in.allow_write = true;
            in.reth_len = 0;
            in.payload_len = whole(in);
            expect_nak(h, in, kInvalid, kStOperation);
            in.reth_len = 1;
            expect(h, in, kRkey);   // payload against length is not this unit's check
            in.allow_write = false;
            expect_nak(h, in, kAccess, kStAccess);
            if (k == Kind::WriteFirst)
                continue;   // the rest has an ONLY without a whole path MTU
            in.allow_write = true;
            in.reth_len = 0;
            in.payload_len = 0;
            expect(h, in, kWriteEmpty);
            in.payload_len = 1;
            expect_nak(h, in, kInvalid, kStOperation);
            in.reth_len = 1;
            expect(h, in, kRkey);
            in.payload_len = 0;
            expect(h, in, kRkey);   // an ONLY with a length and no payload still checks the key
            in.allow_write = false;
            expect_nak(h, in, kAccess, kStAccess);
        }
    }
    print_stats("write_first", h);
}

UNIT_TEST(read) {
    RespHarness h(seed(0x5E03));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    const uint32_t lens[] = {0, 1, 2, 0xFFFF, 0x10000, 0x80000000u, 0xFFFFFFFFu};
    for (int i = 0; i < 100 && !unit_stop(failures); i++) {
        for (uint32_t len : lens) {
            for (unsigned fl = 0; fl < 4; fl++) {
                RespIn in = packet(r, Kind::Read);
                in.reth_len = len;
                in.first = fl & 1;
                in.last = fl & 2;
                in.allow_read = false;
                expect_nak(h, in, kAccess, kStAccess);
                in.allow_write = !in.allow_write;   // the other permission plays no part
                expect_nak(h, in, kAccess, kStAccess);
                in.allow_read = true;
                expect(h, in, len == 0 ? kReadEmpty : kRkey);
                in.payload_len = len16(r);          // nor does a payload
                expect(h, in, len == 0 ? kReadEmpty : kRkey);
            }
        }
    }
    print_stats("read", h);
}

UNIT_TEST(write_middle_last) {
    RespHarness h(seed(0x5E04));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    // A LAST: any payload (the path MTU rule does not judge a LAST) against
    // what is left.
    struct Case {
        uint16_t payload;
        uint32_t left;
        unsigned act;   // kNak: NAK INVALID_REQUEST
    };
    const Case lasts[] = {
        {1, 0, kNak},                          // one more than left
        {2, 1, kNak},
        {0xFFFF, 0xFFFE, kNak},
        {1, 1, kRkey},                         // equal
        {0xFFFF, 0xFFFF, kRkey},
        {1, 2, kNak},                          // one short: a LAST that does not end it
        {0xFFFE, 0xFFFF, kNak},
        {0xFFFF, 0x10000, kNak},
        {0xFFFF, 0x1FFFF, kNak},               // equal in the low 16 bits
        {0xFFFF, 0xFFFFFFFFu, kNak},
        {0x100, 0x10100, kNak},
        {0, 0, kPlaceNone},                    // no payload, nothing left
        {0, 1, kNak},                          // no payload, something left
        {0, 0x10000, kNak},
        {0, 0xFFFFFFFFu, kNak},
    };
    for (int i = 0; i < 60 && !unit_stop(failures); i++) {
        auto check = [&h](RespIn in, unsigned act) {
            for (int allow = 0; allow < 2; allow++) {   // allow_write is a FIRST/ONLY's check only
                in.allow_write = allow;
                if (act == kNak)
                    expect_nak(h, in, kInvalid, kStOperation);
                else
                    expect(h, in, act);
            }
        };
        for (const Case &c : lasts) {
            RespIn in = packet(r, Kind::WriteLast);
            in.payload_len = c.payload;
            in.write_left = c.left;
            check(in, c.act);
        }
        // A MIDDLE: a whole path MTU (any other size is refused before
        // this rule: pmtu_rules) against what is left.
        const RespIn mid = packet(r, Kind::WriteMiddle);
        const uint32_t m = mid.payload_len;
        struct Left {
            uint32_t left;
            unsigned act;
        };
        const Left middles[] = {
            {m - 1, kNak},                     // one more than left
            {m, kRkey},                        // equal
            {m + 1, kRkey},                    // below it
            {0, kNak},                         // nothing left
            {1, kNak},
            {0x10000, kRkey},                  // 2^16 against a 16-bit payload
            {0x10000 + m, kRkey},              // equal in the low 16 bits
            {0xFFFFFFFFu, kRkey},
        };
        for (const Left &c : middles) {
            RespIn in = packet(r, Kind::WriteMiddle);
            in.log_mtu = mid.log_mtu;
            in.payload_len = mid.payload_len;
            in.write_left = c.left;
            check(in, c.act);
        }
    }
    // Random payloads around random amounts left (a MIDDLE's payload a
    // whole path MTU).
    for (int i = 0; i < 3000 && !unit_stop(failures); i++) {
        const bool last = r.percent(50);
        RespIn in = packet(r, last ? Kind::WriteLast : Kind::WriteMiddle);
        if (last)
            in.payload_len = static_cast<uint16_t>(r.range(1, 0xFFFF));
        const uint32_t p = in.payload_len;
        switch (r.range(0, 3)) {
        case 0: in.write_left = p; break;
        case 1: in.write_left = p - 1; break;
        case 2: in.write_left = p + 1 + r.range(0, 100000); break;
        default: in.write_left = r.range(0, p - 1); break;
        }
        if (p > in.write_left || (last && p != in.write_left))
            expect_nak(h, in, kInvalid, kStOperation);
        else
            expect(h, in, kRkey);
    }
    print_stats("write_middle_last", h);
}

UNIT_TEST(send) {
    RespHarness h(seed(0x5E05));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (int i = 0; i < 200 && !unit_stop(failures); i++) {
        for (Kind k : {Kind::SendFirst, Kind::SendMiddle, Kind::SendLast, Kind::SendOnly}) {
            const bool starts = k == Kind::SendFirst || k == Kind::SendOnly;
            for (unsigned recv = 0; recv < 4; recv++) {
                RespIn in = packet(r, k);
                in.recv_posted = recv & 1;
                in.recv_held = recv & 2;
                // FIRST/ONLY inside a message, MIDDLE/LAST outside one:
                // refused before any RECV is looked at.
                in.send_open = starts;
                expect_nak(h, in, kInvalid, kStOperation);
                in.send_open = !starts;
                // No RECV: an RNR NAK, the QP stays up (the old contract
                // refused the SEND with NAK REMOTE_OPERATIONAL).
                if (!in.recv_posted)
                    expect(h, in, kNakRnr);
                else
                    expect(h, in, in.recv_held ? kSendHeld : kSendFetch);
            }
        }
    }
    print_stats("send", h);
}

UNIT_TEST(other_request) {
    RespHarness h(seed(0x5E06));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    // Every combination of the one-bit inputs that is a request in sequence
    // naming no WRITE, READ or SEND.
    for (unsigned bits = 0; bits < (1u << kNumBits) && !unit_stop(failures); bits++) {
        RespIn in;
        resp_set_bits(in, bits);
        in.is_request = true;
        in.is_write = in.is_read = in.is_send = false;
        in.log_mtu = draw_lg(r);
        in.expected_psn = in.psn = psn24(r);
        in.reth_len = len32(r);
        in.payload_len = len16(r);
        in.write_left = len32(r);
        expect_nak(h, in, kInvalid, kStOperation);
    }
    print_stats("other_request", h);
}

namespace {
// A request of kind k (a SEND or WRITE) at path MTU 2^lg with `payload`,
// the QP set up so that the rules after the path MTU one accept it; `act`
// is what they answer.
struct Accepted {
    RespIn in;
    unsigned act;
};
Accepted accepted(Rng &r, Kind k, unsigned lg, uint32_t payload) {
    RespIn in = packet(r, k);
    in.log_mtu = lg;
    in.payload_len = static_cast<uint16_t>(payload);
    unsigned act = kRkey;
    if (in.is_write) {
        in.allow_write = true;
        switch (k) {
        case Kind::WriteFirst: in.reth_len = payload + r.range(1, 1u << 20); break;   // more to come
        case Kind::WriteOnly: in.reth_len = payload; break;
        case Kind::WriteMiddle: in.write_left = payload + r.range(1, 1u << 20); break;
        default: in.write_left = payload; break;                                        // LAST
        }
        if (payload == 0 && k != Kind::WriteFirst)
            act = k == Kind::WriteOnly ? kWriteEmpty : kPlaceNone;
    } else {
        in.send_open = !in.first;
        in.recv_posted = true;
        act = in.recv_held ? kSendHeld : kSendFetch;
    }
    return Accepted{in, act};
}
}  // namespace

UNIT_TEST(pmtu_rules) {
    RespHarness h(seed(0x5E0D));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    const Kind not_last[] = {Kind::SendFirst, Kind::SendMiddle, Kind::WriteFirst, Kind::WriteMiddle};
    const Kind ending[] = {Kind::SendLast, Kind::SendOnly, Kind::WriteLast, Kind::WriteOnly};
    for (unsigned lg = kMinLogMtu; lg <= kMaxLogMtu; lg++) {
        const uint32_t mtu = mtu_bytes(lg);
        for (int i = 0; i < 50 && !unit_stop(failures); i++) {
            // A FIRST or MIDDLE: exactly the path MTU goes on to the later
            // rules; any other size is NAK INVALID_REQUEST, whatever they
            // would have said.
            for (Kind k : not_last) {
                const Accepted a = accepted(r, k, lg, mtu);
                expect(h, a.in, a.act);
                uint32_t other = r.range(0, 0xFFFF);
                if (other == mtu)
                    other = mtu - 1;
                for (uint32_t p : {mtu - 1, mtu + 1, 0u, 1u, mtu / 2, 2 * mtu, 0xFFFFu, other}) {
                    RespIn in = accepted(r, k, lg, p).in;
                    expect_nak(h, in, kInvalid, kStOperation);
                    CHECK(!h.eval(in).duplicate);
                }
                // Another path MTU's whole packet: a peer that does not
                // share this QP's MTU.
                for (unsigned lg2 = kMinLogMtu; lg2 <= kMaxLogMtu; lg2++)
                    if (lg2 != lg)
                        expect_nak(h, accepted(r, k, lg, mtu_bytes(lg2)).in, kInvalid, kStOperation);
            }
            // A LAST or ONLY: any payload up to the path MTU, not refused.
            for (Kind k : ending) {
                for (uint32_t p : {0u, 1u, mtu - 1, mtu, r.range(0, mtu)}) {
                    const Accepted a = accepted(r, k, lg, p);
                    expect(h, a.in, a.act);
                }
            }
            // A READ request (FIRST and LAST any; its payload none of its
            // business): not held to the path MTU.
            for (uint32_t p : {0u, mtu - 1, mtu + 1, r.range(0, 0xFFFF)}) {
                RespIn in = packet(r, Kind::Read);
                in.log_mtu = lg;
                in.first = r.percent(50);
                in.last = false;
                in.payload_len = static_cast<uint16_t>(p);
                in.allow_read = true;
                in.reth_len = r.range(1, 0xFFFFFFFFu);
                expect(h, in, kRkey);
                in.last = true;
                expect(h, in, kRkey);
            }
            // The sequence rules first: a wrong-size FIRST or MIDDLE resent
            // is not checked again (ACK_DUP, or DROP), one from the future
            // gets the sequence NAK (DROP once sent), one that is no
            // request is dropped.
            for (Kind k : not_last) {
                RespIn in = accepted(r, k, lg, r.percent(50) ? mtu - 1 : mtu + 1).in;
                RespIn d = at(in, behind(r));
                d.ack_req = true;
                expect_dup(h, d, kAckDup, true);
                d.ack_req = false;
                expect_dup(h, d, kDrop, true);
                RespIn f = at(in, ahead(r));
                f.nak_sent = false;
                expect_dup(h, f, kNakSeq, false);
                f.nak_sent = true;
                expect_dup(h, f, kDrop, false);
                in.is_request = false;
                expect(h, in, kDrop);
            }
            // Before the later rules, each of which would answer otherwise.
            const uint32_t bad = r.percent(50) ? mtu - 1 : mtu + 1;
            RespIn in = accepted(r, Kind::WriteFirst, lg, bad).in;
            in.allow_write = false;                          // not REMOTE_ACCESS
            expect_nak(h, in, kInvalid, kStOperation);
            in = accepted(r, Kind::WriteFirst, lg, 0).in;
            in.reth_len = 0;                                 // not WRITE_EMPTY
            expect_nak(h, in, kInvalid, kStOperation);
            in = accepted(r, Kind::WriteMiddle, lg, 0).in;   // not PLACE_NONE
            expect_nak(h, in, kInvalid, kStOperation);
            in = accepted(r, Kind::WriteMiddle, lg, bad).in;
            in.write_left = bad;                             // not RKEY: no more than is left
            expect_nak(h, in, kInvalid, kStOperation);
            for (Kind k : {Kind::SendFirst, Kind::SendMiddle}) {
                in = accepted(r, k, lg, bad).in;
                in.recv_posted = false;                      // not NAK_RNR
                expect_nak(h, in, kInvalid, kStOperation);
            }
        }
    }
    print_stats("pmtu_rules", h);
    CHECK(h.why(RespWhy::NotWholeMtu) > 5000);
}

UNIT_TEST(priority) {
    RespHarness h(seed(0x5E07));
    Rng &r = h.rng();
    const int failures = rnic_check_failures();
    for (int i = 0; i < 200 && !unit_stop(failures); i++) {
        // WRITE FIRST/ONLY not allowed and length 0 (with or, an ONLY,
        // without payload: a FIRST without its path MTU is refused before,
        // pmtu_rules): REMOTE_ACCESS, not INVALID_REQUEST or WRITE_EMPTY.
        for (Kind k : {Kind::WriteFirst, Kind::WriteOnly}) {
            RespIn in = packet(r, k);
            in.allow_write = false;
            in.reth_len = 0;
            in.payload_len = whole(in);
            expect_nak(h, in, kAccess, kStAccess);
            if (k == Kind::WriteFirst)
                continue;
            in.payload_len = 1;
            expect_nak(h, in, kAccess, kStAccess);
            in.payload_len = 0;
            expect_nak(h, in, kAccess, kStAccess);
        }
        // READ not allowed and length 0: REMOTE_ACCESS, not READ_EMPTY.
        RespIn in = packet(r, Kind::Read);
        in.allow_read = false;
        in.reth_len = 0;
        expect_nak(h, in, kAccess, kStAccess);
        // A SEND out of order and no RECV: INVALID_REQUEST, not NAK_RNR.
        for (Kind k : {Kind::SendFirst, Kind::SendMiddle, Kind::SendLast, Kind::SendOnly}) {
            in = packet(r, k);
            in.send_open = in.first;
            in.recv_posted = false;
            expect_nak(h, in, kInvalid, kStOperation);
        }
        // A LAST without payload that does not end the message: the NAK, not PLACE_NONE.
        in = packet(r, Kind::WriteLast);
        in.payload_len = 0;
        in.write_left = r.range(1, 0xFFFFFFFFu);
        expect_nak(h, in, kInvalid, kStOperation);
        // Every refusal above, in the future: the sequence NAK (DROP once
        // sent); behind: ACK_DUP or DROP, a READ's refusal excepted (a
        // duplicate READ is checked as new); not a request: dropped.
        for (unsigned k = 0; k < kNumKinds; k++) {
            in = packet(r, kind_at(k));
            in.allow_write = in.allow_read = false;
            in.reth_len = 0;
            in.payload_len = 1;
            in.write_left = 0;
            in.send_open = in.first;
            in.recv_posted = false;
            expect(h, at(in, ahead(r)), in.nak_sent ? kDrop : kNakSeq);
            if (kind_at(k) == Kind::Read)
                expect_nak(h, at(in, behind(r)), kAccess, kStAccess);
            else
                expect(h, at(in, behind(r)), in.ack_req ? kAckDup : kDrop);
            in.is_request = false;
            expect(h, at(in, r.percent(50) ? 0 : ahead(r)), kDrop);
        }
    }
    // Flags naming two kinds: the header's order decides (WRITE FIRST/ONLY,
    // READ, WRITE MIDDLE/LAST, SEND).
    for (int i = 0; i < 200 && !unit_stop(failures); i++) {
        // WRITE FIRST over READ: a READ refusal does not apply.
        RespIn in = packet(r, Kind::WriteFirst);
        in.last = r.percent(50);
        in.is_read = true;
        in.allow_write = true;
        in.allow_read = false;
        in.reth_len = r.range(1, 0xFFFFFFFFu);
        expect(h, in, kRkey);
        // READ over WRITE MIDDLE/LAST: a length-0 READ, whatever write_left says.
        in = packet(r, Kind::WriteLast);
        in.is_read = true;
        in.allow_read = true;
        in.reth_len = 0;
        in.payload_len = 1;
        in.write_left = 0;
        expect(h, in, kReadEmpty);
        // WRITE MIDDLE/LAST over SEND: PLACE_NONE with no RECV and the SEND
        // out of order (a LAST: a MIDDLE without payload is not its path
        // MTU, refused before).
        in = packet(r, Kind::WriteLast);
        in.is_send = true;
        in.payload_len = 0;
        in.write_left = 0;
        in.send_open = false;
        in.recv_posted = false;
        expect(h, in, kPlaceNone);
        // READ over SEND (with a whole path MTU, which the path MTU rule asks
        // of a packet flagged SEND and not last).
        in = packet(r, Kind::Read);
        in.is_send = true;
        in.payload_len = whole(in);
        in.allow_read = true;
        in.reth_len = r.range(1, 0xFFFFFFFFu);
        in.recv_posted = false;
        expect(h, in, kRkey);
    }
    print_stats("priority", h);
}

UNIT_TEST(exhaustive) {
    RespHarness h(seed(0x5E08));
    struct Row {
        uint32_t reth_len;
        uint16_t payload_len;
        uint32_t write_left;
        unsigned log_mtu;
    };
    const unsigned M = kMaxLogMtu;
    const Row rows[] = {
        {0, 0, 0, M},
        {0, 1, 0, M},                         // length 0 with payload; payload one more than left
        {0, 1, 1, M},                         // payload equal to left
        {0, 0xFFFF, 0xFFFFFFFFu, M},          // length 0 with the most payload; left far more
        {1, 0, 1, M},                         // no payload, one byte left
        {1, 1, 1, M},
        {1, 2, 1, M},                         // one more than left
        {1, 1, 2, M},                         // one short
        {2, 1, 0, M},
        {0x10000, 0, 0x10000, M},             // low 16 bits 0: not length 0, not nothing left
        {0x10000, 0xFFFF, 0x10000, M},        // one short at the 16-bit edge
        {0xFFFF, 0xFFFF, 0xFFFF, M},          // equal at the most payload
        {0xFFFFFFFFu, 0xFFFF, 0xFFFE, M},     // one more
        {0xFFFFFFFFu, 0xFFFF, 0x1FFFF, M},    // equal in the low 16 bits only
        {0xFFFFFFFFu, 0, 0xFFFFFFFFu, M},
        {0x80000000u, 0xFFFF, 0xFFFFFFFFu, M},
        // A whole path MTU (a FIRST or MIDDLE passes the path MTU rule) and
        // a byte either side of it, at each path MTU.
        {0x100, 0x100, 0x100, 8},             // the MTU, equal to left
        {0, 0x100, 0, 8},                     // the MTU, length 0 with payload, more than left
        {0x100, 0xFF, 0x100, 8},              // one short of the MTU (and of left)
        {0x200, 0x200, 0x201, 9},             // the MTU, one short of left
        {0x400, 0x400, 0x3FF, 10},            // the MTU, one more than left
        {0x800, 0x801, 0x801, 11},            // one over the MTU, equal to left
        {0x1000, 0x1000, 0xFFFFFFFFu, M},     // the MTU, left far more
        {0x1000, 0x1000, 0x1000, M},          // the MTU, equal to left
        {0x2000, 0x1000, 0x2000, 11},         // another path MTU's size, half left
    };
    const int failures = rnic_check_failures();
    unsigned rows_done = 0;
    for (const Row &t : rows) {
        if (unit_stop(failures))
            break;
        for (unsigned bits = 0; bits < (1u << kNumBits); bits++) {
            for (uint32_t e : {0u, kPsnMask}) {   // one step either way crosses the wrap, or not
                for (int64_t d : {0, 1, -1}) {
                    RespIn in;
                    resp_set_bits(in, bits);
                    in.reth_len = t.reth_len;
                    in.payload_len = t.payload_len;
                    in.write_left = t.write_left;
                    in.log_mtu = t.log_mtu;
                    in.expected_psn = e;
                    h.eval(at(in, d));
                }
            }
        }
        ++rows_done;
    }
    print_stats("exhaustive", h);
    CHECK_EQ(rows_done, sizeof rows / sizeof rows[0]);
    CHECK_EQ(h.stats().evals, 6 * ((sizeof rows / sizeof rows[0]) << kNumBits));
    check_reached(h, 16);
}

UNIT_TEST(random_run) {
    RespHarness h(seed(0x5E0FF));
    Rng &r = h.rng();
    const uint64_t kEvals = 300000;
    const int failures = rnic_check_failures();
    while (h.stats().evals < kEvals && !unit_stop(failures)) {
        RespIn in;
        if (r.percent(10)) {
            // Every bit random.
            resp_set_bits(in, r.range(0, (1u << kNumBits) - 1));
            in.reth_len = r.u32();
            in.payload_len = static_cast<uint16_t>(r.u32());
            in.write_left = r.u32();
            in.log_mtu = draw_lg(r);
            in.expected_psn = psn24(r);
            in.psn = psn24(r);
        } else {
            // One kind, mostly in sequence; lengths at the rules' edges.
            in = packet(r, kind_at(r.range(0, kNumKinds - 1)));
            if (r.percent(5))
                in = at(in, ahead(r));
            else if (r.percent(5))
                in = at(in, behind(r));
            if (r.percent(3))
                in.is_request = false;
            in.allow_write = r.percent(85);
            in.allow_read = r.percent(85);
            in.recv_posted = r.percent(85);
            if (r.percent(70))
                in.send_open = !in.first;   // in order
            if (r.percent(30))
                in.reth_len = 0;
            // Payloads: packet()'s (a FIRST or MIDDLE a whole path MTU), or,
            // whatever the kind, the path MTU or a byte off it.
            switch (r.range(0, 9)) {
            case 0: in.payload_len = whole(in); break;
            case 1: in.payload_len = static_cast<uint16_t>(whole(in) - 1); break;
            case 2: in.payload_len = static_cast<uint16_t>(whole(in) + 1); break;
            default: break;
            }
            const uint32_t p = in.payload_len;
            switch (r.range(0, 7)) {
            case 0: case 1: in.write_left = p; break;
            case 2: in.write_left = p + 1; break;
            case 3: in.write_left = p ? p - 1 : 0; break;
            case 4: in.write_left = p + r.range(2, 1u << 20); break;
            case 5:
                in.payload_len = 0;
                if (r.percent(50))
                    in.write_left = 0;   // a LAST that ends the message: PLACE_NONE
                break;
            default: break;
            }
        }
        h.eval(in);
    }
    print_stats("random_run", h);
    CHECK(h.stats().evals >= kEvals);
    check_reached(h, 1000);
}
