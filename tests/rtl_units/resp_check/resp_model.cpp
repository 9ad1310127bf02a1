#include "resp_model.h"

namespace {
RespOut act(unsigned a) {
    RespOut o;
    o.act = a;
    return o;
}
// A refusal: the syndrome and docs/wire-format.md's status for it.
RespOut nak(unsigned syndrome) {
    RespOut o;
    o.act = RNIC_RESP_ACT_NAK;
    o.syndrome = syndrome;
    o.status = syndrome == RNIC_AETH_NAK_REMOTE_ACCESS ? RNIC_CQE_STATUS_REMOTE_ACCESS
                                                        : RNIC_CQE_STATUS_REMOTE_OPERATION;
    return o;
}
}  // namespace

unsigned resp_bits(const RespIn &in) {
    const bool b[kNumBits] = {in.is_request,  in.is_write,   in.is_read,   in.is_send,     in.first,
                              in.last,        in.ack_req,    in.nak_sent,  in.allow_write, in.allow_read,
                              in.send_open,   in.recv_posted, in.recv_held};
    unsigned bits = 0;
    for (unsigned i = 0; i < kNumBits; i++) bits |= static_cast<unsigned>(b[i]) << i;
    return bits;
}

void resp_set_bits(RespIn &in, unsigned bits) {
    auto bit = [bits](unsigned i) { return ((bits >> i) & 1u) != 0; };
    in.is_request = bit(kBitIsRequest);
    in.is_write = bit(kBitIsWrite);
    in.is_read = bit(kBitIsRead);
    in.is_send = bit(kBitIsSend);
    in.first = bit(kBitFirst);
    in.last = bit(kBitLast);
    in.ack_req = bit(kBitAckReq);
    in.nak_sent = bit(kBitNakSent);
    in.allow_write = bit(kBitAllowWrite);
    in.allow_read = bit(kBitAllowRead);
    in.send_open = bit(kBitSendOpen);
    in.recv_posted = bit(kBitRecvPosted);
    in.recv_held = bit(kBitRecvHeld);
}

Seq resp_seq(uint32_t psn, uint32_t expected_psn) {
    // How far the PSN lies behind the expected one, mod 2^24: up to 2^23
    // behind is the duplicate region (InfiniBand's), the rest the future.
    const uint32_t behind = (expected_psn - psn) & kPsnMask;
    if (behind == 0)
        return Seq::Expected;
    return behind <= (1u << 23) ? Seq::Duplicate : Seq::Future;
}

const char *resp_why_name(RespWhy why) {
    switch (why) {
    case RespWhy::NotRequest: return "not a request";
    case RespWhy::Future: return "PSN in the future";
    case RespWhy::FutureNakSent: return "PSN in the future, NAK sent";
    case RespWhy::DupAck: return "duplicate asking for an ACK";
    case RespWhy::DupNoAck: return "duplicate asking for no ACK";
    case RespWhy::NotWholeMtu: return "SEND/WRITE FIRST/MIDDLE not a whole path MTU";
    case RespWhy::WriteFirstNotAllowed: return "WRITE FIRST/ONLY not allowed";
    case RespWhy::WriteFirstZeroLenPayload: return "WRITE FIRST/ONLY length 0 with payload";
    case RespWhy::WriteFirstEmpty: return "WRITE FIRST/ONLY length 0";
    case RespWhy::WriteFirstRkey: return "WRITE FIRST/ONLY rkey";
    case RespWhy::ReadNotAllowed: return "READ not allowed";
    case RespWhy::ReadEmpty: return "READ length 0";
    case RespWhy::ReadRkey: return "READ rkey";
    case RespWhy::WriteMoreThanLeft: return "WRITE MIDDLE/LAST past write_left";
    case RespWhy::WriteLastShort: return "WRITE LAST not ending the message";
    case RespWhy::WritePlaceNone: return "WRITE MIDDLE/LAST without payload";
    case RespWhy::WriteRkey: return "WRITE MIDDLE/LAST rkey";
    case RespWhy::SendOutOfOrder: return "SEND FIRST/ONLY inside or MIDDLE/LAST outside a message";
    case RespWhy::SendNoRecv: return "SEND without a RECV";
    case RespWhy::SendHeld: return "SEND, RECV held";
    case RespWhy::SendFetch: return "SEND, RECV fetched";
    case RespWhy::OtherRequest: return "no WRITE, READ or SEND";
    case RespWhy::Count: break;
    }
    return "?";
}

RespOut resp_model(const RespIn &in, RespWhy *why) {
    RespWhy w;
    RespOut o;
    const Seq seq = resp_seq(in.psn, in.expected_psn);
    if (!in.is_request) {
        w = RespWhy::NotRequest;
        o = act(RNIC_RESP_ACT_DROP);
    } else if (seq == Seq::Future) {
        w = in.nak_sent ? RespWhy::FutureNakSent : RespWhy::Future;
        o = act(in.nak_sent ? RNIC_RESP_ACT_DROP : RNIC_RESP_ACT_NAK_SEQ);
    } else if (seq == Seq::Duplicate && !in.is_read) {
        w = in.ack_req ? RespWhy::DupAck : RespWhy::DupNoAck;
        o = act(in.ack_req ? RNIC_RESP_ACT_ACK_DUP : RNIC_RESP_ACT_DROP);
    } else if ((in.is_send || in.is_write) && !in.last && in.payload_len != mtu_bytes(in.log_mtu)) {
        w = RespWhy::NotWholeMtu;
        o = nak(RNIC_AETH_NAK_INVALID_REQUEST);
    } else if (in.is_write && in.first) {
        if (!in.allow_write) {
            w = RespWhy::WriteFirstNotAllowed;
            o = nak(RNIC_AETH_NAK_REMOTE_ACCESS);
        } else if (in.reth_len == 0 && in.payload_len != 0) {
            w = RespWhy::WriteFirstZeroLenPayload;
            o = nak(RNIC_AETH_NAK_INVALID_REQUEST);
        } else if (in.reth_len == 0) {
            w = RespWhy::WriteFirstEmpty;
            o = act(RNIC_RESP_ACT_WRITE_EMPTY);
        } else {
            w = RespWhy::WriteFirstRkey;
            o = act(RNIC_RESP_ACT_RKEY);
        }
    } else if (in.is_read) {
        if (!in.allow_read) {
            w = RespWhy::ReadNotAllowed;
            o = nak(RNIC_AETH_NAK_REMOTE_ACCESS);
        } else if (in.reth_len == 0) {
            w = RespWhy::ReadEmpty;
            o = act(RNIC_RESP_ACT_READ_EMPTY);
        } else {
            w = RespWhy::ReadRkey;
            o = act(RNIC_RESP_ACT_RKEY);
        }
    } else if (in.is_write) {
        const uint32_t payload = in.payload_len;
        if (payload > in.write_left) {
            w = RespWhy::WriteMoreThanLeft;
            o = nak(RNIC_AETH_NAK_INVALID_REQUEST);
        } else if (in.last && payload != in.write_left) {
            w = RespWhy::WriteLastShort;
            o = nak(RNIC_AETH_NAK_INVALID_REQUEST);
        } else if (payload == 0) {
            w = RespWhy::WritePlaceNone;
            o = act(RNIC_RESP_ACT_PLACE_NONE);
        } else {
            w = RespWhy::WriteRkey;
            o = act(RNIC_RESP_ACT_RKEY);
        }
    } else if (in.is_send) {
        if ((in.first && in.send_open) || (!in.first && !in.send_open)) {
            w = RespWhy::SendOutOfOrder;
            o = nak(RNIC_AETH_NAK_INVALID_REQUEST);
        } else if (!in.recv_posted) {
            w = RespWhy::SendNoRecv;
            o = act(RNIC_RESP_ACT_NAK_RNR);
        } else if (in.recv_held) {
            w = RespWhy::SendHeld;
            o = act(RNIC_RESP_ACT_SEND_HELD);
        } else {
            w = RespWhy::SendFetch;
            o = act(RNIC_RESP_ACT_SEND_FETCH);
        }
    } else {
        w = RespWhy::OtherRequest;
        o = nak(RNIC_AETH_NAK_INVALID_REQUEST);
    }
    o.duplicate = seq == Seq::Duplicate;
    if (why)
        *why = w;
    return o;
}
