// The completer's check on a received ACK, NAK or READ response, in the
// spirit of rxe_comp.c's check_psn / check_ack: what does it say about the
// QP's oldest WQE in flight? Responses come back in PSN order and WQEs
// complete in order, so the oldest is the only one to look at; the engine
// asks again (S_ACK_MORE) after each WQE an ACK completes, so one cumulative
// ACK completes every WQE up to its PSN.
//
// PSNs compare modulo 2^24 as offsets from the oldest's first PSN (off);
// the oldest's packets are offsets 0..span, and sq_psn - first is how far
// the requester has sent. An ACK at or past that is out of the window, a
// NAK past it (a NAK may name sq_psn itself: all that was sent arrived).
// When both is_ack and is_read_resp are set, the READ response rules win.
//   nothing answers a BIND (it is local) or a QP with nothing in flight.
//   ACK        at or past the oldest's last PSN, the oldest a SEND or
//              WRITE: COMPLETE it, then look again. Before it: the
//              responder has part of the message (it acknowledges every
//              2^ACK_PERIOD_LOG2-th PSN, rnic_responder), PROGRESS. Past a
//              READ (which an ACK never completes: its data does): its
//              responses were lost, RETRY. At or before a READ's last PSN:
//              a duplicate, NONE.
//   NAK        (names the PSN the responder expects or refused): the
//              oldest, a SEND or WRITE, ends before it: COMPLETE it, then
//              look again. Else (a READ is never completed by a NAK):
//              PSN-sequence: RETRY (from that PSN, rnic_pkg::resume_pkts);
//              RNR: RNR; any other code: FAIL with its status.
//   READ resp  the next one the oldest READ expects: DATA (sq_psn is not
//              consulted: between a retry's rewind and the resend, a late
//              response with that PSN is still the right data); a later
//              one of it, or one past a SEND or WRITE still unacknowledged
//              (its ACK was lost; rxe would take it as an implicit ACK, this
//              NIC resends): RETRY. Else a duplicate, NONE.
// A RETRY that a lost response suggests (not a NAK) is not started twice:
// while a resend is under way (retrying) it is NONE. A sequence NAK the
// requester has already acted on (the same PSN, retrying) is NONE too: a
// duplicated NAK must not cost a second retry.
//
// Combinational; the engine reads it in S_RX_PARSE and S_ACK_MORE.
module rnic_comp_check (
  input  logic [4:0]               mutant,         // rnic_pkg::MUTANT_*: 0 outside verification builds
  input  logic                     is_ack,         // BTH ACKNOWLEDGE
  input  logic                     is_read_resp,   // BTH READ RESPONSE FIRST..ONLY
  input  rnic_pkg::aeth_syndrome_t syndrome,       // its AETH's (ACK, NAK)
  input  logic [23:0]              psn,
  input  logic                     in_flight,      // the QP has a WQE in flight
  input  logic [7:0]               oldest_op,      // rnic_pkg::OP_* of the oldest
  input  logic [23:0]              oldest_first,   // its first PSN
  input  logic [23:0]              oldest_last,    // its last PSN, the one its ACK names
  input  logic [31:0]              oldest_got,     // bytes of it (a READ) received so far
  input  logic [23:0]              sq_psn,         // the next PSN the requester sends
  input  logic                     retrying,       // a resend of the oldest is under way
  input  logic [23:0]              acked_psn,      // the PSN the last sequence or RNR NAK named
  input  logic [3:0]               log_mtu,        // the QP's path MTU, log2 bytes: one READ response per 2^log_mtu
  output rnic_pkg::comp_act_t      act,
  output logic [7:0]               ack_status      // rnic_pkg::CQE_STATUS_* of a FAIL
);
  // A NAK's syndrome as a completion status.
  function automatic logic [7:0] nak_status(input rnic_pkg::aeth_syndrome_t syn);
    unique case (syn)
      rnic_pkg::AETH_NAK_REMOTE_ACCESS: nak_status = rnic_pkg::CQE_STATUS_REMOTE_ACCESS;
      default:                          nak_status = rnic_pkg::CQE_STATUS_REMOTE_OPERATION;
    endcase
  endfunction

  logic [23:0] off, span, sent, want;
  logic        is_read, is_nak, is_rnr, is_seq;
  rnic_pkg::comp_act_t lost;   // what a response that shows an earlier one lost does
  always_comb begin
    off     = rnic_pkg::psn_off(psn, oldest_first);
    span    = rnic_pkg::psn_off(oldest_last, oldest_first);
    sent    = rnic_pkg::psn_off(sq_psn, oldest_first);
    want    = 24'(oldest_got >> log_mtu);   // the READ response expected next
    is_read = oldest_op == rnic_pkg::OP_RDMA_READ;
    is_rnr  = syndrome.kind == rnic_pkg::AETH_KIND_RNR_NAK;
    is_nak  = syndrome.kind == rnic_pkg::AETH_KIND_NAK;
    is_seq  = is_nak && syndrome == rnic_pkg::AETH_NAK_PSN_SEQUENCE;
    lost    = retrying ? rnic_pkg::COMP_ACT_NONE : rnic_pkg::COMP_ACT_RETRY;
    ack_status = nak_status(syndrome);
    act = rnic_pkg::COMP_ACT_NONE;
    if (!in_flight || oldest_op == rnic_pkg::OP_BIND) begin
      act = rnic_pkg::COMP_ACT_NONE;
    end else if (is_read_resp) begin
      if (is_read && off == want)
        act = rnic_pkg::COMP_ACT_DATA;
      else if (is_read && off > want && off <= span)
        act = lost;
      else if (!is_read && off > span && off < sent)
        act = lost;
    end else if (is_ack && (is_nak || is_rnr)) begin
      // A NAK may name sq_psn itself: everything sent arrived, the next did not.
      if (off > sent) begin
        act = rnic_pkg::COMP_ACT_NONE;
      end else if (!is_read && off > span) begin
        act = rnic_pkg::COMP_ACT_COMPLETE;
      end else if (is_seq) begin
        act = (retrying && psn == acked_psn) ? rnic_pkg::COMP_ACT_NONE : rnic_pkg::COMP_ACT_RETRY;
      end else if (is_rnr) begin
        act = (mutant == rnic_pkg::MUTANT_NO_RNR_RETRY) ? rnic_pkg::COMP_ACT_FAIL : rnic_pkg::COMP_ACT_RNR;
        if (mutant == rnic_pkg::MUTANT_NO_RNR_RETRY) ack_status = rnic_pkg::CQE_STATUS_RNR;
      end else begin
        act = rnic_pkg::COMP_ACT_FAIL;
      end
    end else if (is_ack && syndrome.kind == rnic_pkg::AETH_KIND_ACK) begin
      if (off >= sent)
        act = rnic_pkg::COMP_ACT_NONE;
      else if (is_read)
        act = (off > span) ? lost : rnic_pkg::COMP_ACT_NONE;
      else if (mutant == rnic_pkg::MUTANT_NO_CUM_ACK ? off == span : off >= span)
        act = rnic_pkg::COMP_ACT_COMPLETE;
      else if (off < span)
        act = rnic_pkg::COMP_ACT_PROGRESS;
    end
  end
endmodule
