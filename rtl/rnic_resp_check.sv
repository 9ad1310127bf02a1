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
//   sequence   (InfiniBand's rules; PSNs compare modulo 2^24)
//              newer than expected: one PSN-sequence NAK naming the expected
//              PSN (NAK_SEQ), then silence (DROP) until the expected PSN
//              comes (nak_sent);
//              older (a duplicate, the requester resending): a READ is
//              answered again from memory (the checks below, as for a new
//              one; the engine keeps its expected PSN); a SEND or WRITE is
//              not executed again: ACK_DUP if it asks for an ACK, else DROP.
//   path MTU   (SEND and WRITE, after the sequence rules) a FIRST or MIDDLE
//              packet carries exactly the path MTU, as rxe's check_length
//              asks: else NAK INVALID_REQUEST. Two ends that disagree then
//              fail at the first packet of a multi-packet message, nothing
//              placed, instead of later, when this NIC's READ responses
//              would be counted wrong. (rxe also refuses a LAST or ONLY
//              above its path MTU; here one is taken, up to the build's
//              MTU, which the receive buffer holds.)
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
//              an RNR NAK (NAK_RNR: the requester waits and resends); else
//              the RECV, from the engine's hold or fetched.
//   anything else below READ REQUEST: NAK INVALID_REQUEST.
//
// Combinational; the engine reads it in S_RX_PARSE.
module rnic_resp_check (
  input  logic [4:0]            mutant,        // rnic_pkg::MUTANT_*: 0 outside verification builds
  // The packet.
  input  logic                  is_request,    // a BTH opcode up to READ REQUEST
  input  logic                  is_write,
  input  logic                  is_read,
  input  logic                  is_send,
  input  logic                  first,         // FIRST or ONLY
  input  logic                  last,          // LAST or ONLY
  input  logic                  ack_req,       // BTH AckReq
  input  logic [23:0]           psn,
  input  logic [31:0]           reth_len,      // a FIRST/ONLY WRITE's or a READ's RETH length
  input  logic [15:0]           payload_len,
  input  logic [3:0]            log_mtu,       // the QP's path MTU, log2 bytes

  // The QP.
  input  logic [23:0]           expected_psn,
  input  logic                  nak_sent,      // a sequence or RNR NAK went out; the expected PSN has not come
  input  logic                  allow_write,   // QP_FLAGS.ALLOW_WR
  input  logic                  allow_read,    // QP_FLAGS.ALLOW_RD
  input  logic [31:0]           write_left,    // bytes of the open WRITE message still to come
  input  logic                  send_open,     // a SEND message's FIRST came, its LAST not yet
  input  logic                  recv_posted,   // a RECV is posted
  input  logic                  recv_held,     // ... and the engine still holds its WQE

  output rnic_pkg::resp_act_t   act,
  output logic                  duplicate,     // the packet's PSN is older than expected
  output rnic_pkg::aeth_t        nak_syndrome,  // rnic_pkg::AETH_NAK_*, with act NAK
  output logic [7:0]            nak_status     // rnic_pkg::CQE_STATUS_*, with act NAK
);
  // A refusal: the NAK and the QP's error status.
  task automatic refuse(input rnic_pkg::aeth_t syndrome, input logic [7:0] status);
    act          = rnic_pkg::RESP_ACT_NAK;
    nak_syndrome = syndrome;
    nak_status   = status;
  endtask

  logic [23:0] ahead;      // how far past the expected PSN
  logic        future;
  logic        short_of_mtu;   // a SEND or WRITE packet before its last without a whole path MTU
  always_comb begin
    short_of_mtu = (is_send || is_write) && !last && 32'(payload_len) != rnic_pkg::mtu_bytes(log_mtu) &&
                   mutant != rnic_pkg::MUTANT_NO_PMTU_CHECK;
    ahead     = rnic_pkg::psn_off(psn, expected_psn);
    // Half the PSN space behind is the past, the rest the future.
    duplicate = ahead[23] && mutant != rnic_pkg::MUTANT_NO_DUP_DETECT;
    future    = ahead != 24'd0 && !ahead[23];
    act          = rnic_pkg::RESP_ACT_DROP;
    nak_syndrome = rnic_pkg::AETH_NAK_INVALID_REQUEST;
    nak_status   = rnic_pkg::CQE_STATUS_REMOTE_OPERATION;
    if (!is_request) begin
      act = rnic_pkg::RESP_ACT_DROP;
    end else if (future) begin
      act = nak_sent ? rnic_pkg::RESP_ACT_DROP : rnic_pkg::RESP_ACT_NAK_SEQ;
    end else if (duplicate && !is_read) begin
      act = ack_req ? rnic_pkg::RESP_ACT_ACK_DUP : rnic_pkg::RESP_ACT_DROP;
    end else if (short_of_mtu) begin
      refuse(rnic_pkg::AETH_NAK_INVALID_REQUEST, rnic_pkg::CQE_STATUS_REMOTE_OPERATION);
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
        act = rnic_pkg::RESP_ACT_NAK_RNR;
      else if (recv_held)
        act = rnic_pkg::RESP_ACT_SEND_HELD;
      else
        act = rnic_pkg::RESP_ACT_SEND_FETCH;
    end else begin
      refuse(rnic_pkg::AETH_NAK_INVALID_REQUEST, rnic_pkg::CQE_STATUS_REMOTE_OPERATION);
    end
  end
endmodule
