// A reference model of the responder's request checks, written from the
// header comment of rtl/rnic_resp_check.sv (and rnic.toml's RESP_ACT and
// QP_PATH), not from its code. In order, the first rule that applies wins:
//   not a request (is_request 0): DROP, whatever else the packet or the QP
//              says.
//   sequence   InfiniBand's rule, PSNs mod 2^24: a PSN up to 2^23 behind
//              expected_psn is a duplicate (the requester resending), one
//              ahead of it (by 1 .. 2^23 - 1) is in the future.
//              future: NAK_SEQ, or DROP once nak_sent (one NAK per gap);
//              duplicate, no READ: not executed again, ACK_DUP when it asks
//              for an ACK (ack_req), else DROP. The header names SEND and
//              WRITE; the model reads "not executed again" as covering a
//              request that is none of the three as well (it is no READ,
//              the only kind answered again);
//              duplicate READ: answered again, so checked by the rules
//              below exactly as a new one (and duplicate says so).
//   path MTU   (is_send or is_write, not last: a FIRST or MIDDLE) a
//              payload_len other than the path MTU, 2^log_mtu bytes: NAK
//              INVALID_REQUEST. A LAST or ONLY is not judged here (the
//              header asks nothing of its size), nor a READ.
//   WRITE FIRST/ONLY (is_write, first)  not allowed (allow_write 0): NAK
//              REMOTE_ACCESS; reth_len 0 with payload: NAK INVALID_REQUEST;
//              reth_len 0 without: WRITE_EMPTY; else RKEY.
//   READ       (is_read) not allowed (allow_read 0): NAK REMOTE_ACCESS;
//              reth_len 0: READ_EMPTY; else RKEY (the payload plays no part).
//   WRITE MIDDLE/LAST (is_write, not first)  payload_len > write_left, or
//              last with payload_len != write_left: NAK INVALID_REQUEST;
//              payload_len 0: PLACE_NONE; else RKEY.
//   SEND       (is_send) first == send_open (FIRST/ONLY inside a message,
//              MIDDLE/LAST outside one): NAK INVALID_REQUEST; recv_posted 0:
//              NAK_RNR (the requester waits and resends); recv_held:
//              SEND_HELD; else SEND_FETCH.
//   else       (a request that is none of the three): NAK INVALID_REQUEST.
// duplicate: the PSN is older than expected (the sequence rule's duplicate),
// whatever the packet: compared at every evaluation.
// The header names a refusal's syndrome; the status that goes with it is
// docs/wire-format.md's ("NAKs and what they mean"): INVALID_REQUEST and
// REMOTE_OPERATIONAL give REMOTE_OPERATION, REMOTE_ACCESS gives
// REMOTE_ACCESS. The syndrome and status mean something only with act NAK
// (not NAK_SEQ or NAK_RNR, whose AETH the engine builds), and only then are
// they compared. mutant: 0 (no mutant), the only value the model covers.
//
// The rules are taken literally when the inputs say more than one thing (a
// packet that is a WRITE and a READ, say): the header's order decides,
// which the exhaustive test holds the unit to (so such a packet, not last,
// is held to the path MTU: it names a WRITE).
#ifndef RESP_MODEL_H
#define RESP_MODEL_H

#include <cstdint>

#include "rnic_hw.h"

constexpr uint32_t kPsnMask = (1u << 24) - 1u;
inline uint32_t psn_add(uint32_t psn, int64_t d) {
    return static_cast<uint32_t>((static_cast<int64_t>(psn) + d) & kPsnMask);
}

// Path MTUs as the RTL keeps them (rtl/rnic_engine_types.svh): log2 of the
// bytes, from InfiniBand's smallest (256) to the NIC's MTU (QP_PATH's code 0).
constexpr unsigned log2_of(uint32_t v) { return v <= 1 ? 0 : 1 + log2_of(v >> 1); }
constexpr unsigned kMinLogMtu = 8;
constexpr unsigned kMaxLogMtu = log2_of(RNIC_MTU);
static_assert((1u << kMaxLogMtu) == RNIC_MTU, "MTU is a power of two");
inline uint32_t mtu_bytes(unsigned lg) { return 1u << (lg & 15u); }

struct RespIn {
    // The packet.
    bool is_request = false, is_write = false, is_read = false, is_send = false;
    bool first = false, last = false, ack_req = false;
    uint32_t psn = 0;
    uint32_t reth_len = 0;
    uint16_t payload_len = 0;
    // The QP.
    unsigned log_mtu = kMaxLogMtu;     // 4 bits: the path MTU, log2 bytes
    uint32_t expected_psn = 0;
    bool nak_sent = false;
    bool allow_write = false, allow_read = false;
    uint32_t write_left = 0;
    bool send_open = false, recv_posted = false, recv_held = false;
};

// The 13 one-bit inputs as the bits of a number (kBit* the bit of each),
// for the exhaustive test: every value 0..8191 is one combination.
enum : unsigned {
    kBitIsRequest, kBitIsWrite, kBitIsRead, kBitIsSend, kBitFirst, kBitLast, kBitAckReq, kBitNakSent,
    kBitAllowWrite, kBitAllowRead, kBitSendOpen, kBitRecvPosted, kBitRecvHeld, kNumBits
};
unsigned resp_bits(const RespIn &in);
void resp_set_bits(RespIn &in, unsigned bits);

// Where the PSN stands against the expected one.
enum class Seq { Expected, Future, Duplicate };
Seq resp_seq(uint32_t psn, uint32_t expected_psn);

// What the unit answers. syndrome and status: with act NAK only.
struct RespOut {
    unsigned act = RNIC_RESP_ACT_DROP;
    bool duplicate = false;
    unsigned syndrome = 0;
    unsigned status = 0;
};

// Which rule, and which of its outcomes, decided: for the tallies (every
// one must be reached) and the reports.
enum class RespWhy {
    NotRequest,
    Future, FutureNakSent, DupAck, DupNoAck,
    NotWholeMtu,
    WriteFirstNotAllowed, WriteFirstZeroLenPayload, WriteFirstEmpty, WriteFirstRkey,
    ReadNotAllowed, ReadEmpty, ReadRkey,
    WriteMoreThanLeft, WriteLastShort, WritePlaceNone, WriteRkey,
    SendOutOfOrder, SendNoRecv, SendHeld, SendFetch,
    OtherRequest,
    Count
};
constexpr unsigned kNumWhy = static_cast<unsigned>(RespWhy::Count);
const char *resp_why_name(RespWhy why);

RespOut resp_model(const RespIn &in, RespWhy *why = nullptr);

#endif
