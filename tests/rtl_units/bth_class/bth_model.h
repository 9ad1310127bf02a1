// A reference model of the BTH opcode decode, written from the RC rows of
// the InfiniBand opcode table (IBTA Architecture Specification vol. 1, the
// BTH OpCode field: bits 7:5 the transport, 000 for RC; bits 4:0 the
// operation) and the header comment of rtl/rnic_bth_class.sv, not from its
// code.
//
// kRcTable lists the table's 32 RC operations: the ones rnic.toml names by
// their generated RNIC_BTH_* value, the ones it does not (with immediate,
// with invalidate, atomics, the atomic acknowledge) by the table's value.
// The outputs, per the header:
//   is_send, is_write   SEND / RDMA WRITE FIRST, MIDDLE, LAST, ONLY; not the
//                       variants with an immediate or an invalidate (not
//                       supported: classified as neither)
//   is_read_req         RDMA READ request
//   is_read_resp        RDMA READ response FIRST, MIDDLE, LAST, ONLY
//   is_ack              ACKNOWLEDGE (not the ATOMIC ACKNOWLEDGE)
//   is_request          every RC opcode up to READ REQUEST in the table:
//                       the SENDs and WRITEs with an immediate among them
//                       (a request the responder must refuse, not a
//                       stranger), the atomics and SEND with invalidate,
//                       which come after it, not
//   first, last         FIRST or ONLY / LAST or ONLY, of an opcode one of
//                       is_send, is_write, is_read_resp classifies
//   cont                an RDMA WRITE MIDDLE or LAST (a WRITE packet after
//                       its FIRST: no RETH)
// Every opcode of another transport (UC, RD, UD, CNP, XRC, manufacturer
// specific) and every reserved RC code: all outputs 0.
#ifndef BTH_MODEL_H
#define BTH_MODEL_H

#include <cstdint>

#include "rnic_hw.h"

enum class Kind { Reserved, Send, Write, ReadReq, ReadResp, Ack, AtomicAck, Atomic };
enum class Pos { None, First, Middle, Last, Only };

struct RcOp {
    uint8_t code;
    const char *name;   // the table's
    Kind kind;
    Pos pos;
    bool extra;         // with an immediate or an invalidate
};

// RC operations rnic.toml does not name (the NIC neither sends nor
// classifies them): the table's values.
constexpr uint8_t kIbSendLastImm = 0x03, kIbSendOnlyImm = 0x05, kIbWriteLastImm = 0x09, kIbWriteOnlyImm = 0x0B;
constexpr uint8_t kIbAtomicAck = 0x12, kIbCmpSwap = 0x13, kIbFetchAdd = 0x14;
constexpr uint8_t kIbSendLastInv = 0x16, kIbSendOnlyInv = 0x17;
constexpr uint8_t kTransportMask = 0xE0;   // bits 7:5
constexpr uint8_t kTransportRc = 0x00;

constexpr RcOp kRcTable[] = {
    {RNIC_BTH_SEND_FIRST, "SEND First", Kind::Send, Pos::First, false},
    {RNIC_BTH_SEND_MIDDLE, "SEND Middle", Kind::Send, Pos::Middle, false},
    {RNIC_BTH_SEND_LAST, "SEND Last", Kind::Send, Pos::Last, false},
    {kIbSendLastImm, "SEND Last with Immediate", Kind::Send, Pos::Last, true},
    {RNIC_BTH_SEND_ONLY, "SEND Only", Kind::Send, Pos::Only, false},
    {kIbSendOnlyImm, "SEND Only with Immediate", Kind::Send, Pos::Only, true},
    {RNIC_BTH_WRITE_FIRST, "RDMA WRITE First", Kind::Write, Pos::First, false},
    {RNIC_BTH_WRITE_MIDDLE, "RDMA WRITE Middle", Kind::Write, Pos::Middle, false},
    {RNIC_BTH_WRITE_LAST, "RDMA WRITE Last", Kind::Write, Pos::Last, false},
    {kIbWriteLastImm, "RDMA WRITE Last with Immediate", Kind::Write, Pos::Last, true},
    {RNIC_BTH_WRITE_ONLY, "RDMA WRITE Only", Kind::Write, Pos::Only, false},
    {kIbWriteOnlyImm, "RDMA WRITE Only with Immediate", Kind::Write, Pos::Only, true},
    {RNIC_BTH_READ_REQUEST, "RDMA READ Request", Kind::ReadReq, Pos::None, false},
    {RNIC_BTH_READ_RESPONSE_FIRST, "RDMA READ response First", Kind::ReadResp, Pos::First, false},
    {RNIC_BTH_READ_RESPONSE_MIDDLE, "RDMA READ response Middle", Kind::ReadResp, Pos::Middle, false},
    {RNIC_BTH_READ_RESPONSE_LAST, "RDMA READ response Last", Kind::ReadResp, Pos::Last, false},
    {RNIC_BTH_READ_RESPONSE_ONLY, "RDMA READ response Only", Kind::ReadResp, Pos::Only, false},
    {RNIC_BTH_ACKNOWLEDGE, "Acknowledge", Kind::Ack, Pos::None, false},
    {kIbAtomicAck, "ATOMIC Acknowledge", Kind::AtomicAck, Pos::None, false},
    {kIbCmpSwap, "CmpSwap", Kind::Atomic, Pos::None, false},
    {kIbFetchAdd, "FetchAdd", Kind::Atomic, Pos::None, false},
    {kIbSendLastInv, "SEND Last with Invalidate", Kind::Send, Pos::Last, true},
    {kIbSendOnlyInv, "SEND Only with Invalidate", Kind::Send, Pos::Only, true},
};
// Everything else of 0x00..0x1F is reserved.

struct BthOut {
    bool is_send = false, is_write = false, is_read_req = false, is_read_resp = false, is_ack = false;
    bool is_request = false, first = false, last = false, cont = false;
};

// The table's row for op, or null (another transport, or reserved).
const RcOp *rc_op(uint8_t op);
BthOut bth_model(uint8_t op);

#endif
