#include "comp_model.h"

const char *comp_act_name(unsigned act) {
    switch (act) {
    case COMP_ACT_NONE: return "NONE";
    case COMP_ACT_COMPLETE: return "COMPLETE";
    case COMP_ACT_DATA: return "DATA";
    case COMP_ACT_FAIL: return "FAIL";
    case COMP_ACT_RETRY: return "RETRY";
    case COMP_ACT_RNR: return "RNR";
    case COMP_ACT_PROGRESS: return "PROGRESS";
    default: return "?";
    }
}

const char *why_name(Why w) {
    switch (w) {
    case Why::NothingInFlight: return "nothing in flight";
    case Why::Bind: return "oldest is a BIND";
    case Why::Neither: return "neither ACK, NAK nor READ response";
    case Why::Both: return "both flags (not judged)";
    case Why::ReadDone: return "READ with every response in (not judged)";
    case Why::AckWindow: return "ACK at or past sq_psn";
    case Why::AckComplete: return "ACK at or past the last PSN";
    case Why::AckPartial: return "ACK inside a SEND/WRITE";
    case Why::AckDuplicate: return "ACK duplicate";
    case Why::AckPastRead: return "ACK past a READ";
    case Why::AckPastReadAgain: return "ACK past a READ, retrying";
    case Why::NakWindow: return "NAK past sq_psn";
    case Why::NakComplete: return "NAK past the oldest";
    case Why::NakPastRead: return "NAK past a READ (header vs RTL)";
    case Why::NakSeq: return "sequence NAK";
    case Why::NakSeqAgain: return "sequence NAK acted on";
    case Why::NakRnr: return "RNR NAK";
    case Why::NakFail: return "fatal NAK";
    case Why::RespWindow: return "READ response at or past sq_psn";
    case Why::RespData: return "READ response expected";
    case Why::RespLost: return "READ response shows one lost";
    case Why::RespLostAgain: return "READ response shows one lost, retrying";
    case Why::RespDuplicate: return "READ response duplicate";
    case Why::Count: break;
    }
    return "?";
}

namespace {

// A fatal NAK's status: docs/wire-format.md's "requester CQE status".
void fail_status(uint8_t syn, CompExpect &e) {
    switch (syn) {
    case RNIC_AETH_NAK_REMOTE_ACCESS:
        e.status_rule = StatusRule::Exact;
        e.status = RNIC_CQE_STATUS_REMOTE_ACCESS;
        break;
    case RNIC_AETH_NAK_INVALID_REQUEST:
    case RNIC_AETH_NAK_REMOTE_OPERATIONAL:
        e.status_rule = StatusRule::Exact;
        e.status = RNIC_CQE_STATUS_REMOTE_OPERATION;
        break;
    default:
        e.status_rule = StatusRule::NotSuccess;
        break;
    }
}

// What a NAK says of the oldest once it is known not to end before the
// NAK's PSN: by its code.
uint8_t nak_by_code(const CompIn &in, Why &why) {
    if (aeth_kind(in.syndrome) == RNIC_AETH_KIND_RNR_NAK) {
        why = Why::NakRnr;
        return COMP_ACT_RNR;
    }
    if (in.syndrome == RNIC_AETH_NAK_PSN_SEQUENCE) {
        if (in.retrying && (in.psn & kPsnMask) == (in.acked_psn & kPsnMask)) {
            why = Why::NakSeqAgain;
            return COMP_ACT_NONE;
        }
        why = Why::NakSeq;
        return COMP_ACT_RETRY;
    }
    why = Why::NakFail;
    return COMP_ACT_FAIL;
}

// A lost response suggests a resend, unless one is under way.
uint8_t lost(const CompIn &in, Why &why, Why fresh, Why again) {
    why = in.retrying ? again : fresh;
    return in.retrying ? COMP_ACT_NONE : COMP_ACT_RETRY;
}

// A READ response for a READ oldest, the window aside.
uint8_t read_resp_of_read(const CompIn &in, uint32_t off, uint32_t span, uint32_t want, Why &why) {
    if (off == want) {
        why = Why::RespData;
        return COMP_ACT_DATA;
    }
    if (off > want && off <= span)
        return lost(in, why, Why::RespLost, Why::RespLostAgain);
    why = Why::RespDuplicate;
    return COMP_ACT_NONE;
}

}  // namespace

CompExpect comp_model(const CompIn &in) {
    CompExpect e;
    auto set = [&e](Why w, uint8_t act) {
        e.why = w;
        e.act = act;
    };
    if (!in.in_flight) {
        set(Why::NothingInFlight, COMP_ACT_NONE);
        return e;
    }
    if (in.oldest_op == RNIC_OP_BIND) {
        set(Why::Bind, COMP_ACT_NONE);
        return e;
    }
    if (in.is_ack && in.is_read_resp) {
        e.judged = false;
        e.why = Why::Both;
        return e;
    }
    const bool read = in.oldest_op == RNIC_OP_RDMA_READ;
    const uint32_t first = in.oldest_first & kPsnMask;
    const uint32_t off = psn_dist(in.psn, first);
    const uint32_t span = psn_dist(in.oldest_last, first);
    const uint32_t sent = psn_dist(in.sq_psn, first);
    // The response PSN the READ expects next, as an offset: one per path
    // MTU received (the 32-bit count gives at most 2^24 - 1 at the smallest
    // path MTU, 2^8; the mask matters only for a log_mtu below 8, which no
    // QP is given, and cuts as the RTL's 24-bit want does).
    const uint32_t want = (in.oldest_got >> (in.log_mtu & 15u)) & kPsnMask;
    const unsigned kind = aeth_kind(in.syndrome);
    const bool ack = in.is_ack && kind == RNIC_AETH_KIND_ACK;
    const bool nak = in.is_ack && (kind == RNIC_AETH_KIND_NAK || kind == RNIC_AETH_KIND_RNR_NAK);
    // A READ that has had every response (comp_model.h): not judged where
    // the rules read how many it has had (an ACK past it, its responses).
    if (read && want > span && ((ack && off < sent && off > span) || in.is_read_resp)) {
        e.judged = false;
        e.why = Why::ReadDone;
        return e;
    }

    if (ack) {
        if (off >= sent)
            set(Why::AckWindow, COMP_ACT_NONE);
        else if (!read && off >= span)
            set(Why::AckComplete, COMP_ACT_COMPLETE);
        else if (read && off > span)
            e.act = lost(in, e.why, Why::AckPastRead, Why::AckPastReadAgain);
        else if (!read)
            set(Why::AckPartial, COMP_ACT_PROGRESS);
        else
            set(Why::AckDuplicate, COMP_ACT_NONE);
        return e;
    }
    if (nak) {
        if (off > sent) {
            set(Why::NakWindow, COMP_ACT_NONE);
        } else if (off > span && !read) {
            set(Why::NakComplete, COMP_ACT_COMPLETE);
        } else if (off > span) {
            // The header: COMPLETE. The RTL: by the NAK's code (comp_model.h).
            set(Why::NakPastRead, COMP_ACT_COMPLETE);
            Why unused;
            e.has_alt = true;
            e.alt = nak_by_code(in, unused);
            if (e.alt == COMP_ACT_FAIL)
                fail_status(in.syndrome, e);
        } else {
            e.act = nak_by_code(in, e.why);
            if (e.act == COMP_ACT_FAIL)
                fail_status(in.syndrome, e);
        }
        return e;
    }
    if (in.is_read_resp) {
        if (off >= sent) {
            set(Why::RespWindow, COMP_ACT_NONE);
            if (read) {
                // The RTL reads no window for a READ's responses (comp_model.h).
                Why unused;
                const uint8_t alt = read_resp_of_read(in, off, span, want, unused);
                if (alt != COMP_ACT_NONE) {
                    e.has_alt = true;
                    e.alt = alt;
                }
            }
        } else if (read) {
            e.act = read_resp_of_read(in, off, span, want, e.why);
        } else if (off > span) {
            e.act = lost(in, e.why, Why::RespLost, Why::RespLostAgain);
        } else {
            set(Why::RespDuplicate, COMP_ACT_NONE);
        }
        return e;
    }
    set(Why::Neither, COMP_ACT_NONE);
    return e;
}
