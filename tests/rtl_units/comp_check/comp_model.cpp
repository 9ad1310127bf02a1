#include "comp_model.h"

const char *why_name(Why w) {
    switch (w) {
    case Why::Nak: return "NAK at any PSN";
    case Why::AckAtLast: return "ACK at the last PSN";
    case Why::ReadResp: return "READ response at the next PSN";
    case Why::NothingInFlight: return "nothing in flight";
    case Why::Bind: return "oldest is a BIND";
    case Why::Neither: return "neither ACK nor READ response";
    case Why::AckForRead: return "ACK for a READ";
    case Why::AckPsn: return "ACK not at the last PSN";
    case Why::RespNotRead: return "READ response for no READ";
    case Why::RespPsn: return "READ response at another PSN";
    case Why::Count: break;
    }
    return "?";
}

namespace {
// An accepted ACK's status: "SUCCESS, or the NAK's reason".
void status_of(uint8_t syn, CompExpect &e) {
    e.status_rule = StatusRule::NotSuccess;
    if (aeth_kind(syn) == RNIC_AETH_KIND_ACK) {
        e.status_rule = StatusRule::Exact;
        e.status = RNIC_CQE_STATUS_SUCCESS;
        return;
    }
    if (aeth_kind(syn) != RNIC_AETH_KIND_NAK)
        return;
    switch (syn) {
    case RNIC_AETH_NAK_REMOTE_ACCESS:
        e.status_rule = StatusRule::Exact;
        e.status = RNIC_CQE_STATUS_REMOTE_ACCESS;
        break;
    case RNIC_AETH_NAK_PSN_SEQUENCE:
        e.status_rule = StatusRule::Exact;
        e.status = RNIC_CQE_STATUS_TRANSPORT;
        break;
    case RNIC_AETH_NAK_INVALID_REQUEST:
    case RNIC_AETH_NAK_REMOTE_OPERATIONAL:
        e.status_rule = StatusRule::Exact;
        e.status = RNIC_CQE_STATUS_REMOTE_OPERATION;
        break;
    default:
        break;
    }
}
}  // namespace

CompExpect comp_model(const CompIn &in) {
    CompExpect e;
    if (!in.in_flight) {
        e.why = Why::NothingInFlight;
        return e;
    }
    if (in.oldest_op == RNIC_OP_BIND) {
        e.why = Why::Bind;
        return e;
    }
    const bool is_read = in.oldest_op == RNIC_OP_RDMA_READ;
    const uint32_t psn = in.psn & kPsnMask;
    Why drop = Why::Neither;
    if (in.is_ack) {
        if (aeth_kind(in.syndrome) == RNIC_AETH_KIND_NAK) {
            e.accept = true;
            e.why = Why::Nak;
        } else if (is_read) {
            drop = Why::AckForRead;
        } else if (psn == (in.oldest_last & kPsnMask)) {
            e.accept = true;
            e.why = Why::AckAtLast;
        } else {
            drop = Why::AckPsn;
        }
        if (e.accept) {
            status_of(in.syndrome, e);
            return e;
        }
    }
    if (in.is_read_resp) {
        if (!is_read) {
            drop = in.is_ack ? drop : Why::RespNotRead;
        } else if (psn == resp_psn(in.oldest_first & kPsnMask, in.oldest_got)) {
            e.accept = true;
            e.why = Why::ReadResp;
            return e;
        } else {
            drop = in.is_ack ? drop : Why::RespPsn;
        }
    }
    e.why = drop;
    return e;
}
