// A reference model of the completer's check, written from the header
// comment of rtl/rnic_comp_check.sv (and rnic.toml's AETH, AETH_KIND, OP,
// CQE_STATUS and MTU), not from its code.
//
// accept: the packet answers the QP's oldest WQE in flight. Never when
// nothing is in flight or the oldest is a BIND (it is local). Otherwise:
//   an ACK (is_ack, the BTH ACKNOWLEDGE) whose syndrome is a NAK (kind
//          AETH_KIND_NAK): at any PSN, whatever the oldest's opcode;
//   an ACK whose syndrome is not a NAK (kind ACK, and also RNR_NAK and the
//          kinds rnic.toml does not name: only kind NAK answers at any
//          PSN): when the oldest is no READ and the PSN is its last;
//   a READ response (is_read_resp): when the oldest is a READ and the PSN
//          is first + got / MTU (mod 2^24), got the bytes received so far
//          (one PSN per MTU); its syndrome plays no part (a MIDDLE has no
//          AETH);
//   anything else (neither flag): dropped.
// Both flags at once is no BTH opcode; the model accepts when either rule
// does.
//
// ack_status, meaningful for an accepted ACK only (the harness compares it
// then): "SUCCESS, or the NAK's reason":
//   kind ACK (any credit count)          SUCCESS
//   NAK_REMOTE_ACCESS                    REMOTE_ACCESS
//   NAK_PSN_SEQUENCE                     TRANSPORT
//   NAK_INVALID_REQUEST,                 REMOTE_OPERATION
//   NAK_REMOTE_OPERATIONAL
//   any other NAK code, RNR_NAK and      not SUCCESS (the header names no
//   the unnamed kinds                    reason for them; the RTL's choice
//                                        is counted, not judged)
#ifndef COMP_MODEL_H
#define COMP_MODEL_H

#include <cstdint>

#include "rnic_hw.h"

// The BTH PSN: 24 bits, its arithmetic mod 2^24.
constexpr uint32_t kPsnMask = (1u << 24) - 1u;
inline uint32_t psn_add(uint32_t psn, int64_t d) {
    return static_cast<uint32_t>((static_cast<int64_t>(psn) + d) & kPsnMask);
}

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

// The PSN of the READ response that answers a READ of first PSN `first`
// with `got` bytes received.
inline uint32_t resp_psn(uint32_t first, uint32_t got) { return psn_add(first, got / RNIC_MTU); }

struct CompIn {
    bool is_ack = false, is_read_resp = false;
    uint8_t syndrome = 0;
    uint32_t psn = 0;
    bool in_flight = false;
    uint8_t oldest_op = 0;
    uint32_t oldest_first = 0, oldest_last = 0, oldest_got = 0;
};

struct CompOut {
    bool accept = false;
    uint8_t ack_status = 0;
};

// Why the model accepts or drops: the first clause that decides.
enum class Why {
    Nak,              // accepted: a NAK, any PSN
    AckAtLast,        // accepted: a non-NAK ACK naming the last PSN
    ReadResp,         // accepted: the READ response with the next PSN
    NothingInFlight,  // dropped
    Bind,             // dropped: the oldest is a BIND
    Neither,          // dropped: neither ACK nor READ response
    AckForRead,       // dropped: a non-NAK ACK while the oldest is a READ
    AckPsn,           // dropped: a non-NAK ACK not naming the last PSN
    RespNotRead,      // dropped: a READ response while the oldest is no READ
    RespPsn,          // dropped: a READ response with another PSN
    Count
};
const char *why_name(Why w);

enum class StatusRule {
    None,         // no accepted ACK: ack_status has no meaning
    Exact,        // equals status
    NotSuccess,   // anything but SUCCESS
};

struct CompExpect {
    bool accept = false;
    Why why = Why::Neither;
    StatusRule status_rule = StatusRule::None;
    uint8_t status = 0;
};

CompExpect comp_model(const CompIn &in);

#endif
