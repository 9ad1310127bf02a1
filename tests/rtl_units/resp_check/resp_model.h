// A reference model of the responder's request checks, written from the
// header comment of rtl/rnic_resp_check.sv (and rnic.toml's RESP_ACT), not
// from its code. In order, the first rule that applies wins:
//   sequence   not a request (is_request 0), or its PSN not the expected
//              one: DROP, whatever else the packet or the QP says.
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
//              NAK REMOTE_OPERATIONAL; recv_held: SEND_HELD; else SEND_FETCH.
//   else       (a request that is none of the three): NAK INVALID_REQUEST.
// The header names a refusal's syndrome, not the status that goes with it;
// the status is docs/wire-format.md's for that syndrome ("NAKs and what
// they mean"): INVALID_REQUEST and REMOTE_OPERATIONAL give REMOTE_OPERATION,
// REMOTE_ACCESS gives REMOTE_ACCESS. The syndrome and status mean something
// only with act NAK, and only then are they compared.
//
// The rules are taken literally when the inputs say more than one thing (a
// packet that is a WRITE and a READ, say): the header's order decides,
// which the exhaustive test holds the unit to.
#ifndef RESP_MODEL_H
#define RESP_MODEL_H

#include <cstdint>

#include "rnic_hw.h"

struct RespIn {
    // The packet.
    bool is_request = false, is_write = false, is_read = false, is_send = false;
    bool first = false, last = false, psn_expected = false;
    uint32_t reth_len = 0;
    uint16_t payload_len = 0;
    // The QP.
    bool allow_write = false, allow_read = false;
    uint32_t write_left = 0;
    bool send_open = false, recv_posted = false, recv_held = false;
};

// The 12 one-bit inputs as the bits of a number (kBit* the bit of each),
// for the exhaustive test: every value 0..4095 is one combination.
enum : unsigned {
    kBitIsRequest, kBitIsWrite, kBitIsRead, kBitIsSend, kBitFirst, kBitLast, kBitPsnExpected,
    kBitAllowWrite, kBitAllowRead, kBitSendOpen, kBitRecvPosted, kBitRecvHeld, kNumBits
};
unsigned resp_bits(const RespIn &in);
void resp_set_bits(RespIn &in, unsigned bits);

// What the unit answers. syndrome and status: with act NAK only.
struct RespOut {
    unsigned act = RNIC_RESP_ACT_DROP;
    unsigned syndrome = 0;
    unsigned status = 0;
};

// Which rule, and which of its outcomes, decided: for the tallies (every
// one must be reached) and the reports.
enum class RespWhy {
    NotRequest, PsnNotExpected,
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
