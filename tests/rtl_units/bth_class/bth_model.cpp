#include "bth_model.h"

const RcOp *rc_op(uint8_t op) {
    if ((op & kTransportMask) != kTransportRc)
        return nullptr;
    for (const RcOp &r : kRcTable)
        if (r.code == op)
            return &r;
    return nullptr;
}

BthOut bth_model(uint8_t op) {
    BthOut o;
    const RcOp *r = rc_op(op);
    if (!r)
        return o;
    o.is_send = r->kind == Kind::Send && !r->extra;
    o.is_write = r->kind == Kind::Write && !r->extra;
    o.is_read_req = r->kind == Kind::ReadReq;
    o.is_read_resp = r->kind == Kind::ReadResp;
    o.is_ack = r->kind == Kind::Ack;
    // "Up to READ REQUEST": the rows of the table from the first to it.
    bool up_to = false;
    for (const RcOp &t : kRcTable) {
        if (&t == r)
            up_to = true;
        if (t.kind == Kind::ReadReq)
            break;
    }
    o.is_request = up_to;
    const bool classified = o.is_send || o.is_write || o.is_read_resp;
    o.first = classified && (r->pos == Pos::First || r->pos == Pos::Only);
    o.last = classified && (r->pos == Pos::Last || r->pos == Pos::Only);
    o.cont = o.is_write && (r->pos == Pos::Middle || r->pos == Pos::Last);
    return o;
}
