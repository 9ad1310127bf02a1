// The completer's check on a received ACK or READ response, in the spirit
// of rxe_comp.c's check_psn / check_ack: does it answer the QP's oldest WQE
// in flight? Responses come back in order, so only the oldest can be
// answered:
//   an ACK answers it when it names its last PSN (and it is no READ, whose
//          answer is its data); a NAK answers it whatever PSN it names (the
//          responder refused one of its packets);
//   a READ response answers it when it is a READ and the response carries
//          the PSN after those already received (one per MTU of data);
//   nothing answers a BIND (it is local) or a QP with nothing in flight.
// Anything else is dropped: no cumulative ACK, duplicate or sequence NAK
// handling yet (issue 11 puts them here). An RNR NAK, and any AETH kind
// but ACK and NAK, is taken by the ACK's PSN rule and completes with
// REMOTE_OPERATION: this NIC never sends one (it NAKs a SEND without a
// RECV as REMOTE_OPERATIONAL), and RNR retry is issue 11's.
//
// An ACK's completion status: SUCCESS, or the NAK's reason.
// Combinational; the engine reads it in S_RX_PARSE.
module rnic_comp_check (
  input  logic                     is_ack,         // BTH ACKNOWLEDGE
  input  logic                     is_read_resp,   // BTH READ RESPONSE FIRST..ONLY
  input  rnic_pkg::aeth_syndrome_t syndrome,       // its AETH's (ACK, NAK)
  input  logic [23:0]              psn,
  input  logic                     in_flight,      // the QP has a WQE in flight
  input  logic [7:0]               oldest_op,      // rnic_pkg::OP_* of the oldest
  input  logic [23:0]              oldest_first,   // its first PSN
  input  logic [23:0]              oldest_last,    // its last PSN, the one its ACK names
  input  logic [31:0]              oldest_got,     // bytes of it (a READ) received so far
  output logic                     accept,         // answers the oldest WQE in flight; else drop it
  output logic [7:0]               ack_status      // rnic_pkg::CQE_STATUS_* an accepted ACK completes with
);
  // A NAK's syndrome as a completion status.
  function automatic logic [7:0] nak_status(input rnic_pkg::aeth_syndrome_t syn);
    unique case (syn)
      rnic_pkg::AETH_NAK_REMOTE_ACCESS: nak_status = rnic_pkg::CQE_STATUS_REMOTE_ACCESS;
      rnic_pkg::AETH_NAK_PSN_SEQUENCE:  nak_status = rnic_pkg::CQE_STATUS_TRANSPORT;
      default:                          nak_status = rnic_pkg::CQE_STATUS_REMOTE_OPERATION;
    endcase
  endfunction

  logic answerable, is_nak;
  always_comb begin
    answerable = in_flight && oldest_op != rnic_pkg::OP_BIND;
    is_nak     = syndrome.kind == rnic_pkg::AETH_KIND_NAK;
    accept     = answerable &&
                 ((is_ack && (is_nak || (oldest_op != rnic_pkg::OP_RDMA_READ && psn == oldest_last))) ||
                  (is_read_resp && oldest_op == rnic_pkg::OP_RDMA_READ &&
                   psn == oldest_first + 24'(oldest_got >> $clog2(rnic_pkg::MTU))));
    ack_status = syndrome.kind == rnic_pkg::AETH_KIND_ACK ? rnic_pkg::CQE_STATUS_SUCCESS : nak_status(syndrome);
  end
endmodule
