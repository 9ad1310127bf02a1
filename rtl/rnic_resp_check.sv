// The responder's checks on a received request packet (a SEND, an RDMA
// WRITE or an RDMA READ request), in the spirit of rxe_resp.c's check_*
// steps: is it in sequence, is the operation allowed, does it fit the
// message it continues, is there a receive for it. The answer is what the
// engine does next (rnic_pkg::RESP_ACT_*), and for a refusal the NAK's
// syndrome and the status that moves the QP to ERROR.
//
// In order, the first that applies wins (a NAK's status is the NAK table's
// of docs/wire-format.md: REMOTE_ACCESS for REMOTE_ACCESS, REMOTE_OPERATION
// for INVALID_REQUEST and REMOTE_OPERATIONAL):
//   not a request (is_request low): dropped.
//   sequence   a request whose PSN is not the one expected is dropped (no
//              duplicate detection or sequence NAK yet: issue 11).
//   WRITE FIRST/ONLY  not allowed on the QP: NAK REMOTE_ACCESS; length 0 with
//              payload: NAK INVALID_REQUEST; length 0 without: WRITE_EMPTY
//              (no memory named, no key checked: InfiniBand's rule); else
//              check the rkey.
//   READ       not allowed: NAK REMOTE_ACCESS; length 0: READ_EMPTY (no key
//              checked, the same rule); else check the rkey.
//   WRITE MIDDLE/LAST  more payload than the message has left, or a LAST
//              that does not end it: NAK INVALID_REQUEST; no payload:
//              PLACE_NONE; else check the rkey (every packet is checked).
//   SEND       FIRST/ONLY inside a message or MIDDLE/LAST outside one: NAK
//              INVALID_REQUEST (before any RECV is touched); no RECV posted:
//              NAK REMOTE_OPERATIONAL (a real NIC would RNR-NAK: issue 11);
//              else the RECV, from the engine's hold or fetched.
//   anything else below READ REQUEST: NAK INVALID_REQUEST.
//
// Combinational; the engine reads it in S_RX_PARSE.
module rnic_resp_check (
  // The packet.
  input  logic                  is_request,    // a BTH opcode up to READ REQUEST
  input  logic                  is_write,
  input  logic                  is_read,
  input  logic                  is_send,
  input  logic                  first,         // FIRST or ONLY
  input  logic                  last,          // LAST or ONLY
  input  logic                  psn_expected,  // its PSN is the QP's next expected
  input  logic [31:0]           reth_len,      // a FIRST/ONLY WRITE's or a READ's RETH length
  input  logic [15:0]           payload_len,

  // The QP.
  input  logic                  allow_write,   // QP_FLAGS.ALLOW_WR
  input  logic                  allow_read,    // QP_FLAGS.ALLOW_RD
  input  logic [31:0]           write_left,    // bytes of the open WRITE message still to come
  input  logic                  send_open,     // a SEND message's FIRST came, its LAST not yet
  input  logic                  recv_posted,   // a RECV is posted
  input  logic                  recv_held,     // ... and the engine still holds its WQE

  output rnic_pkg::resp_act_t   act,
  output rnic_pkg::aeth_t        nak_syndrome,  // rnic_pkg::AETH_NAK_*, with act NAK
  output logic [7:0]            nak_status     // rnic_pkg::CQE_STATUS_*, with act NAK
);
  // A refusal: the NAK and the QP's error status.
  task automatic refuse(input rnic_pkg::aeth_t syndrome, input logic [7:0] status);
    act          = rnic_pkg::RESP_ACT_NAK;
    nak_syndrome = syndrome;
    nak_status   = status;
  endtask

  always_comb begin
    act          = rnic_pkg::RESP_ACT_DROP;
    nak_syndrome = rnic_pkg::AETH_NAK_INVALID_REQUEST;
    nak_status   = rnic_pkg::CQE_STATUS_REMOTE_OPERATION;
    if (!is_request || !psn_expected) begin
      act = rnic_pkg::RESP_ACT_DROP;
    end else if (is_write && first) begin
      if (!allow_write)
        refuse(rnic_pkg::AETH_NAK_REMOTE_ACCESS, rnic_pkg::CQE_STATUS_REMOTE_ACCESS);
      else if (reth_len == 32'd0 && payload_len != 16'd0)
        refuse(rnic_pkg::AETH_NAK_INVALID_REQUEST, rnic_pkg::CQE_STATUS_REMOTE_OPERATION);
      else if (reth_len == 32'd0)
        act = rnic_pkg::RESP_ACT_WRITE_EMPTY;
      else
        act = rnic_pkg::RESP_ACT_RKEY;
    end else if (is_read) begin
      if (!allow_read)
        refuse(rnic_pkg::AETH_NAK_REMOTE_ACCESS, rnic_pkg::CQE_STATUS_REMOTE_ACCESS);
      else if (reth_len == 32'd0)
        act = rnic_pkg::RESP_ACT_READ_EMPTY;
      else
        act = rnic_pkg::RESP_ACT_RKEY;
    end else if (is_write) begin
      if (32'(payload_len) > write_left || (last && 32'(payload_len) != write_left))
        refuse(rnic_pkg::AETH_NAK_INVALID_REQUEST, rnic_pkg::CQE_STATUS_REMOTE_OPERATION);
      else if (payload_len == 16'd0)
        act = rnic_pkg::RESP_ACT_PLACE_NONE;
      else
        act = rnic_pkg::RESP_ACT_RKEY;
    end else if (is_send) begin
      if (first == send_open)
        refuse(rnic_pkg::AETH_NAK_INVALID_REQUEST, rnic_pkg::CQE_STATUS_REMOTE_OPERATION);
      else if (!recv_posted)
        refuse(rnic_pkg::AETH_NAK_REMOTE_OPERATIONAL, rnic_pkg::CQE_STATUS_REMOTE_OPERATION);
      else if (recv_held)
        act = rnic_pkg::RESP_ACT_SEND_HELD;
      else
        act = rnic_pkg::RESP_ACT_SEND_FETCH;
    end else begin
      refuse(rnic_pkg::AETH_NAK_INVALID_REQUEST, rnic_pkg::CQE_STATUS_REMOTE_OPERATION);
    end
  end
endmodule
