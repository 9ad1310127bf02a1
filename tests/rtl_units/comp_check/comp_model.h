// A reference model of the completer's check, written from the header
// comment of rtl/rnic_comp_check.sv (and rnic.toml's AETH, AETH_KIND, OP,
// CQE_STATUS, MTU and QP_PATH; docs/wire-format.md for a NAK's status), not
// from its code.
//
// log_mtu: the QP's path MTU as log2 of its bytes (rnic_pkg::path_log_mtu:
// 8..log2(MTU), 256..4096 bytes); "MTU" below is 2^log_mtu, the size of
// every READ response but the last.
//
// act: what an ACK, NAK or READ response does to the QP's oldest WQE in
// flight. The oldest spans PSNs first..last; sq_psn is the next PSN the
// requester sends. Every PSN is taken as its distance (mod 2^24) from
// first: the packet's `off`, the oldest's `span` (last), the requester's
// `sent` (sq_psn). The window: the PSNs sent, offsets below `sent`; a NAK
// may also name `sent` itself (everything sent arrived, the next did not).
//   nothing in flight, or the oldest a BIND: NONE, whatever the packet.
//   ACK (is_ack, syndrome kind ACK, any credit count):
//       out of the window: NONE;
//       oldest no READ: at or past its last (off >= span) COMPLETE (the
//       engine asks again for the next oldest: a cumulative ACK), earlier
//       a duplicate, NONE;
//       oldest a READ: past its last (off > span) its responses were lost:
//       RETRY, or NONE while retrying (a lost response does not start a
//       second resend); at or before its last: NONE.
//   NAK (is_ack, kind NAK or RNR_NAK; the PSN the responder expects or
//       refused):
//       past the window (off > sent): NONE;
//       the oldest ends before it (off > span): COMPLETE;
//       PSN_SEQUENCE: RETRY; NONE when retrying and the PSN is acked_psn
//       (the NAK already acted on: a duplicated NAK costs no second retry);
//       RNR_NAK (any timer value): RNR, retrying or not;
//       any other NAK code: FAIL, ack_status its reason (below).
//   READ response (is_read_resp; its syndrome plays no part, a MIDDLE has
//       no AETH):
//       out of the window: NONE;
//       oldest a READ: the next one it expects (off == got >> log_mtu,
//       one PSN per path MTU) DATA; a later one of it (got >> log_mtu <
//       off <= span) RETRY, NONE while retrying; else (earlier: a
//       duplicate) NONE;
//       oldest no READ: one past it (off > span: its ACK was lost) RETRY,
//       NONE while retrying; else NONE.
//   anything else (neither flag, or an ACKNOWLEDGE whose AETH kind is none
//       rnic.toml names): NONE. The header speaks of ACKs and NAKs only;
//       a kind that is neither answers nothing.
//
// Where the model does not judge (the harness counts these, compares
// nothing):
//   - both flags at once: no BTH opcode is an ACKNOWLEDGE and a READ
//     RESPONSE, the header gives no order between its rules;
//   - a READ oldest whose bytes received already reach past its last PSN
//     (got >> log_mtu > span): the engine retires a READ with its last response,
//     so the state cannot be presented, and the header's READ rules ("the
//     next one it expects", "past a READ that has not had all its
//     responses") say nothing coherent about it.
//
// Where the RTL is known to disagree with its header (reported, see the
// report of the change that wrote this model), the model also names the
// RTL's answer (CompExpect::alt) and the harness accepts either, counting
// which one the unit gave (CompStats::header_answer / alt_answer):
//   NakPastRead   a NAK past a READ oldest (span < off <= sent): the header
//                 says COMPLETE ("the oldest ends before it"); the RTL
//                 completes only a SEND or WRITE that way and treats the
//                 READ by the NAK's code (sequence: RETRY, RNR: RNR, other:
//                 FAIL). Completing a READ whose data never came would be
//                 wrong, so the RTL is likely right and the header short.
//   RespWindow    a READ response at or past sq_psn for a READ oldest: the
//                 header puts it out of the window (NONE); the RTL does not
//                 look at sq_psn for a READ's responses (DATA when it is
//                 the one expected; the lost-response RETRY, which retrying
//                 turns to NONE, otherwise). Reached in the engine between
//                 S_RETRY (sq_psn rewound to the READ's first PSN) and the
//                 READ's resend.
//
// ack_status, compared when the act is FAIL (the only time the header gives
// it a meaning): a NAK's reason, docs/wire-format.md's table:
//   NAK_REMOTE_ACCESS                       REMOTE_ACCESS
//   NAK_INVALID_REQUEST, NAK_REMOTE_OPERATIONAL   REMOTE_OPERATION
//   any other NAK code                      not SUCCESS (no reason named;
//                                           the RTL's choice is counted)
// mutant: 0 (no mutant), the only value the model covers.
#ifndef COMP_MODEL_H
#define COMP_MODEL_H

#include <cstdint>

#include "rnic_hw.h"

// rnic_pkg::comp_act_t (rtl/rnic_engine_types.svh): RTL-only, no generated
// constant; the values in the order the enum declares them.
enum : uint8_t {
    COMP_ACT_NONE = 0,
    COMP_ACT_COMPLETE = 1,
    COMP_ACT_DATA = 2,
    COMP_ACT_FAIL = 3,
    COMP_ACT_RETRY = 4,
    COMP_ACT_RNR = 5,
    COMP_ACT_PROGRESS = 6,
    kCompActs = 7
};
const char *comp_act_name(unsigned act);

// The BTH PSN: 24 bits, its arithmetic mod 2^24.
constexpr uint32_t kPsnMask = (1u << 24) - 1u;
inline uint32_t psn_add(uint32_t psn, int64_t d) {
    return static_cast<uint32_t>((static_cast<int64_t>(psn) + d) & kPsnMask);
}
// The distance from `from` forward to `to`, mod 2^24.
inline uint32_t psn_dist(uint32_t to, uint32_t from) { return (to - from) & kPsnMask; }

inline unsigned aeth_kind(uint8_t syn) {
    return static_cast<unsigned>((syn >> RNIC_AETH_SYNDROME_KIND_SHIFT) & RNIC_AETH_SYNDROME_KIND_MASK);
}
inline unsigned aeth_value(uint8_t syn) {
    return static_cast<unsigned>((syn >> RNIC_AETH_SYNDROME_VALUE_SHIFT) & RNIC_AETH_SYNDROME_VALUE_MASK);
}
inline uint8_t aeth_syndrome(unsigned kind, unsigned value) {
    return static_cast<uint8_t>(((kind & RNIC_AETH_SYNDROME_KIND_MASK) << RNIC_AETH_SYNDROME_KIND_SHIFT) |
                                ((value & RNIC_AETH_SYNDROME_VALUE_MASK) << RNIC_AETH_SYNDROME_VALUE_SHIFT));
}

// Path MTUs as the RTL keeps them (rtl/rnic_engine_types.svh): log2 of the
// bytes, from InfiniBand's smallest (256) to the NIC's MTU (QP_PATH's code 0).
constexpr unsigned log2_of(uint32_t v) { return v <= 1 ? 0 : 1 + log2_of(v >> 1); }
constexpr unsigned kMinLogMtu = 8;
constexpr unsigned kMaxLogMtu = log2_of(RNIC_MTU);
static_assert((1u << kMaxLogMtu) == RNIC_MTU, "MTU is a power of two");
inline uint32_t mtu_bytes(unsigned lg) { return 1u << lg; }

// The PSN of the READ response that answers a READ of first PSN `first`
// with `got` bytes received, one response per 2^lg bytes.
inline uint32_t resp_psn(uint32_t first, uint32_t got, unsigned lg) { return psn_add(first, got >> lg); }

struct CompIn {
    bool is_ack = false, is_read_resp = false;
    uint8_t syndrome = 0;
    uint32_t psn = 0;
    bool in_flight = false;
    uint8_t oldest_op = 0;
    uint32_t oldest_first = 0, oldest_last = 0, oldest_got = 0;
    uint32_t sq_psn = 0;
    bool retrying = false;
    uint32_t acked_psn = 0;
    unsigned log_mtu = kMaxLogMtu;   // 4 bits; the QP's path MTU, log2 bytes
};

struct CompOut {
    uint8_t act = COMP_ACT_NONE;
    uint8_t ack_status = 0;
};

// The clause that decides.
enum class Why {
    NothingInFlight,   // NONE
    Bind,              // NONE: the oldest is a BIND
    Neither,           // NONE: neither flag, or an AETH kind neither ACK nor NAK
    Both,              // not judged: both flags
    ReadDone,          // not judged: a READ oldest with got >> log_mtu > span
    AckWindow,         // NONE: an ACK at or past sq_psn
    AckComplete,       // COMPLETE: at or past a SEND/WRITE's last PSN
    AckPartial,        // PROGRESS: before a SEND/WRITE's last PSN (part of it arrived)
    AckDuplicate,      // NONE: at or before a READ's last PSN
    AckPastRead,       // RETRY: past a READ (responses lost)
    AckPastReadAgain,  // NONE: the same, retrying
    NakWindow,         // NONE: past sq_psn
    NakComplete,       // COMPLETE: past a SEND/WRITE oldest
    NakPastRead,       // COMPLETE by the header, the RTL's act accepted too
    NakSeq,            // RETRY
    NakSeqAgain,       // NONE: retrying, the same PSN as acked_psn
    NakRnr,            // RNR
    NakFail,           // FAIL
    RespWindow,        // NONE: a READ response at or past sq_psn
    RespData,          // DATA
    RespLost,          // RETRY: a later one of the READ, or past a SEND/WRITE
    RespLostAgain,     // NONE: the same, retrying
    RespDuplicate,     // NONE: earlier than expected, or within a SEND/WRITE
    Count
};
const char *why_name(Why w);

enum class StatusRule {
    None,         // no FAIL: ack_status has no meaning
    Exact,        // equals status
    NotSuccess,   // anything but SUCCESS
};

struct CompExpect {
    bool judged = true;        // false: nothing compared (the two cases above)
    uint8_t act = COMP_ACT_NONE;
    bool has_alt = false;      // the RTL's known other answer, accepted too
    uint8_t alt = COMP_ACT_NONE;
    Why why = Why::Neither;
    // For a FAIL (act or alt): the NAK's reason.
    StatusRule status_rule = StatusRule::None;
    uint8_t status = 0;
};

CompExpect comp_model(const CompIn &in);

#endif
