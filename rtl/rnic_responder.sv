// The responder: a received request packet (SEND, RDMA WRITE, RDMA READ
// request), in rxe_resp.c's manner. rnic_resp_check decides what a packet
// gets; this does it: the rkey check of every WRITE packet that names
// memory and of every READ, the RECV WQE and its lkeys for a SEND, the READ
// responses (one packet per MTU, from memory), and the ACK or NAK. A NAK
// moves the QP to ERROR once it has left (the RECV a failed SEND was placing
// completes first, with its own status), but for the two that ask the
// requester to resend: a PSN-sequence NAK and an RNR NAK. A duplicate
// request is acknowledged again (SEND, WRITE) or answered again (READ,
// keeping the expected PSN and the MSN as they are).
//
// A READ request moves the expected PSN past its responses, and the MSN on,
// when it is granted, not when its last response leaves (rxe's way, after
// InfiniBand's C9-148): its responses carry the new MSN, and a duplicate of
// it that arrives meanwhile is seen as one. Such a duplicate, waiting in the
// receive buffer for this QP for a PSN the response has already sent or an
// earlier one (rd_superseded), ends the response under way at its next
// packet boundary: the requester went back to that PSN and drops every
// response past it, so the rest would be wasted, and answering each
// resend in full before the next is how a slow responder falls behind a
// requester's timeouts for good (two processes: the requester's idle clock
// keeps real time). The duplicate is answered next, from memory.
//
// The payload itself moves in the engine's S_RX_SCATTER (the receive
// scatter over the cursor's segments); its writes' end comes back here.
//
// Combinational: given the job registers and the QP's transport state, the
// next job registers and the writes to that state, for the states it owns
// (and S_RX_PARSE, S_RX_WAIT_WR and S_RX_AFTER for a request packet).
module rnic_responder #(
  localparam int unsigned S   = rnic_pkg::MAX_SGE,
  localparam int unsigned SIW = $clog2(S)
) (
  input  logic [4:0]                  mutant,    // rnic_pkg::MUTANT_*: 0 outside verification builds
  // Whole structs: a unit reads the fields it needs only.
  /* verilator lint_off UNUSEDSIGNAL */
  input  rnic_pkg::job_t              j,
  input  rnic_pkg::job_t              jd,
  input  rnic_pkg::qp_xs_t            x,           // cur's transport state
  input  rnic_pkg::qp_xs_t            xp,          // the frame's QP's, read in S_RX_PARSE
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [rnic_pkg::QP_IDX_W-1:0] q,        // the job's QP (the frame's, in S_RX_PARSE)
  input  logic [63:0]                 rq_base,    // the job's QP's receive ring
  input  logic [3:0]                  rq_log,
  input  logic [rnic_pkg::CQ_IDX_W-1:0] rcq,
  // The frame in the receive buffer.
  input  logic [23:0]                 p_psn,
  input  logic                        p_in_seq,   // the frame's PSN is the one expected
  input  logic [4:0]                  min_rnr,    // the frame's QP's QP_TIMERS.MIN_RNR_TIMER
  input  logic [63:0]                 p_va,
  input  logic [31:0]                 p_rkey,
  input  logic [31:0]                 p_rlen,
  input  logic [15:0]                 p_plen,
  input  logic                        rx_is_send,
  input  logic                        rx_is_write,
  input  logic                        rx_is_read_req,
  input  logic                        rx_first,
  input  logic                        rx_last,
  input  logic                        rx_cont,
  input  rnic_pkg::resp_act_t         resp_act,
  input  logic                        resp_dup,
  input  rnic_pkg::aeth_t             resp_nak_syndrome,
  input  logic [7:0]                  resp_nak_status,
  // The RECV WQE in wq.
  /* verilator lint_off UNUSEDSIGNAL */   // a unit reads the WQE fields it needs only
  input  rnic_pkg::wqe_t              wqe,         // the RECV WQE in wq
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [32:0]                 wq_total,
  input  logic [2:0]                  wq_nsge,
  input  logic [32*S-1:0]             wq_sge_len,
  // Check ports and the gather.
  input  logic                        rchk_rsp_valid,
  input  logic [2:0]                  rchk_verdict,
  input  logic [31:0]                 rchk_key,
  input  logic                        lchk_rsp_valid,
  input  logic [2:0]                  lchk_verdict,
  input  logic                        tx_poison,
  input  logic                        rd_superseded, // a READ request for cur, at or before the PSN just sent, waits
  input  logic [3:0]                  log_mtu,       // the request's QP's path MTU, log2 bytes

  output rnic_pkg::job_t              jn,
  output rnic_pkg::qp_xs_we_t         xs_we,
  output rnic_pkg::qp_xs_t            xs
);
  logic        rp_first, rp_last;  // the READ response packet to send
  logic [31:0] rp_left;
  logic [15:0] rp_plen;
  logic [31:0] chk_len;
  logic        read_response;    // a READ request granted: answer it from memory
  logic        next_response;    // the granted READ's next response packet
  logic        nak_recv;         // the SEND's RECV fails: NAK, and it completes with cqe_status
  logic        read_dup;         // the READ request at hand is a duplicate
  /* verilator lint_off UNUSEDSIGNAL */
  rnic_pkg::qp_xs_t xr;          // the request's QP's transport state: the frame's at parse, else cur's
  /* verilator lint_on UNUSEDSIGNAL */
  always_comb begin
    read_dup = (j.st == rnic_pkg::S_RX_PARSE) ? resp_dup : j.l_dup;
    xr       = (j.st == rnic_pkg::S_RX_PARSE) ? xp : x;
    chk_len = wq_sge_len[32*j.chk_i[SIW-1:0] +: 32];

    jn = jd;
    xs_we = '0;
    xs = x;
    read_response = 1'b0;
    next_response = 1'b0;
    nak_recv = 1'b0;
    unique case (j.st)
      rnic_pkg::S_RX_PARSE: begin
        jn.l_dup = resp_dup;
        // The expected PSN came: a sequence or RNR NAK's silence ends.
        if (p_in_seq && xp.nak_sent) begin
          xs_we.nak_sent = 1'b1; xs.nak_sent = 1'b0;
        end
        unique case (resp_act)
          rnic_pkg::RESP_ACT_NAK: begin
            jn.tx_syndrome = resp_nak_syndrome; jn.err_status = resp_nak_status;
            jn.st = rnic_pkg::S_ACK_SEND;
          end
          // The requester resends: the QP stays in RTS, and what comes out of
          // sequence until then is dropped without another NAK.
          rnic_pkg::RESP_ACT_NAK_SEQ: begin
            jn.tx_syndrome = rnic_pkg::AETH_NAK_PSN_SEQUENCE;
            xs_we.nak_sent = 1'b1; xs.nak_sent = 1'b1;
            jn.st = rnic_pkg::S_ACK_SEND;
          end
          rnic_pkg::RESP_ACT_NAK_RNR: begin
            jn.tx_syndrome = rnic_pkg::AETH_RNR_NAK | 8'(min_rnr);
            xs_we.nak_sent = 1'b1; xs.nak_sent = 1'b1;
            jn.st = rnic_pkg::S_ACK_SEND;
          end
          // Already executed: say so again, naming the last PSN received
          // (a cumulative ACK of everything up to it).
          rnic_pkg::RESP_ACT_ACK_DUP: begin
            jn.tx_syndrome = rnic_pkg::AETH_ACK;
            jn.l_psn = xp.rq_psn - 24'd1;
            jn.st = rnic_pkg::S_ACK_SEND;
          end
          rnic_pkg::RESP_ACT_WRITE_EMPTY: begin
            xs_we.wr_va = 1'b1; xs.wr_va = p_va;
            xs_we.wr_left = 1'b1; xs.wr_left = 32'd0;
            jn.st = rnic_pkg::S_RX_WAIT_WR;
          end
          rnic_pkg::RESP_ACT_RKEY:       jn.st = rnic_pkg::S_RX_RKEY_WAIT;
          rnic_pkg::RESP_ACT_READ_EMPTY: read_response = 1'b1;
          rnic_pkg::RESP_ACT_PLACE_NONE: jn.st = rnic_pkg::S_RX_SCATTER;
          rnic_pkg::RESP_ACT_SEND_HELD: begin
            jn.fetch_err = 1'b0;   // its RECV WQE is still in wq
            jn.st = rnic_pkg::S_RX_SEND_WQE;
          end
          rnic_pkg::RESP_ACT_SEND_FETCH: begin
            jn.fetch_n = 5'(rnic_pkg::WQE_FETCH_WORDS);
            jn.fetch_addr = rnic_pkg::wqe_addr(rq_base, xp.rq_ci, rq_log);
            jn.fetch_recv = 1'b1; jn.fetch_qp = q; jn.fetch_idx = xp.rq_ci;
            jn.ret_st = rnic_pkg::S_RX_SEND_WQE;
            jn.st = rnic_pkg::S_FETCH_REQ;
          end
          default: begin   // RESP_ACT_DROP
            jn.ev_rx_drop = 1'b1;
            jn.rxb_release = 1'b1;
            jn.rx_held = 1'b0;
            jn.st = rnic_pkg::S_IDLE;
          end
        endcase
      end

      // The rkey check port sampled rchk_* at the parse (rnic_engine's
      // rkey_fire); its verdict comes in the second cycle of S_RX_RKEY_WAIT.
      rnic_pkg::S_RX_RKEY_WAIT: if (rchk_rsp_valid) begin
        jn.ev_valid = 1'b1; jn.ev_code = rnic_pkg::EV_RKEY_CHECK;
        jn.ev_qpn = 16'(j.cur); jn.ev_arg = {rchk_key, 29'd0, rchk_verdict};
        if (32'(rchk_verdict) != 32'(rnic_pkg::PT_VERDICT_OK)) begin
          jn.tx_syndrome = rnic_pkg::AETH_NAK_REMOTE_ACCESS; jn.err_status = rnic_pkg::CQE_STATUS_REMOTE_ACCESS;
          jn.st = rnic_pkg::S_ACK_SEND;
        end else if (rx_is_read_req) begin
          read_response = 1'b1;
        end else if (rx_cont) begin
          // MIDDLE or LAST, its length checked at parse.
          xs_we.wr_va = 1'b1; xs.wr_va = x.wr_va + 64'(p_plen);
          xs_we.wr_left = 1'b1; xs.wr_left = x.wr_left - 32'(p_plen);
          jn.st = rnic_pkg::S_RX_SCATTER;
        end else if (32'(p_plen) > p_rlen || (rx_last && 32'(p_plen) != p_rlen)) begin
          jn.tx_syndrome = rnic_pkg::AETH_NAK_INVALID_REQUEST; jn.err_status = rnic_pkg::CQE_STATUS_REMOTE_OPERATION;
          jn.st = rnic_pkg::S_ACK_SEND;
        end else begin
          xs_we.wr_va = 1'b1; xs.wr_va = p_va + 64'(p_plen);
          xs_we.wr_left = 1'b1; xs.wr_left = p_rlen - 32'(p_plen);
          xs_we.wr_rkey = 1'b1; xs.wr_rkey = p_rkey;
          jn.st = rnic_pkg::S_RX_SCATTER;
        end
      end

      // A SEND: its RECV WQE is in wq.
      rnic_pkg::S_RX_SEND_WQE: begin
        jn.cqe_idx = x.rq_ci; jn.cqe_op = rnic_pkg::OP_RECV; jn.cqe_wrid = wqe.wr_id;
        jn.cqe_recv = 1'b1; jn.cqe_cq = rcq;
        jn.chk_i = 3'd0;
        if (j.fetch_err || wqe.opcode != rnic_pkg::OP_RECV || wqe.num_sge > 8'(S)) begin
          nak_recv = 1'b1;
          jn.cqe_status = j.fetch_err ? rnic_pkg::CQE_STATUS_DMA_FAULT : rnic_pkg::CQE_STATUS_BAD_WQE;
          jn.tx_syndrome = rnic_pkg::AETH_NAK_REMOTE_OPERATIONAL;
          jn.cqe_len = 32'd0;
        end else if (33'(x.rcv_got) + 33'(p_plen) > wq_total) begin
          nak_recv = 1'b1;
          jn.cqe_status = rnic_pkg::CQE_STATUS_LOCAL_LENGTH;
          jn.tx_syndrome = rnic_pkg::AETH_NAK_INVALID_REQUEST;
          jn.cqe_len = x.rcv_got;
        end else begin
          jn.st = rx_first ? rnic_pkg::S_RX_SEND_CHECK : rnic_pkg::S_RX_SEND_PLACE;
        end
      end
      // Each SGE with bytes: its lkey, for local write.
      rnic_pkg::S_RX_SEND_CHECK: begin
        if (j.chk_i >= wq_nsge) jn.st = rnic_pkg::S_RX_SEND_PLACE;
        else if (chk_len == 32'd0) jn.chk_i = j.chk_i + 3'd1;
        else jn.st = rnic_pkg::S_RX_SEND_CHECK_WAIT;
      end
      rnic_pkg::S_RX_SEND_CHECK_WAIT: if (lchk_rsp_valid) begin
        if (32'(lchk_verdict) != 32'(rnic_pkg::PT_VERDICT_OK)) begin
          nak_recv = 1'b1;
          jn.cqe_status = rnic_pkg::CQE_STATUS_LOCAL_PROTECTION;
          jn.tx_syndrome = rnic_pkg::AETH_NAK_REMOTE_OPERATIONAL;
          jn.cqe_len = 32'd0;
        end else begin
          jn.chk_i = j.chk_i + 3'd1;
          jn.st = rnic_pkg::S_RX_SEND_CHECK;
        end
      end
      rnic_pkg::S_RX_SEND_PLACE: begin
        xs_we.snd_open = 1'b1; xs.snd_open = !rx_last;
        xs_we.rcv_got = 1'b1; xs.rcv_got = x.rcv_got + 32'(p_plen);
        jn.st = rnic_pkg::S_RX_SCATTER;
      end

      // The packet is placed (or its placement failed): job control takes
      // this in S_RX_WAIT_WR's last cycle, or in S_RX_AFTER after a refusal
      // that came with the last write's completion.
      rnic_pkg::S_RX_WAIT_WR, rnic_pkg::S_RX_AFTER: begin
        if (j.wr_fault) begin
          // The IOMMU refused the target: for an RDMA WRITE that is a
          // remote access error (its region went away under it, say);
          // for a SEND, the responder's own receive buffer failed.
          jn.wr_fault = 1'b0;
          jn.dma_fault = 1'b1;
          jn.tx_syndrome = rx_is_write ? rnic_pkg::AETH_NAK_REMOTE_ACCESS : rnic_pkg::AETH_NAK_REMOTE_OPERATIONAL;
          jn.err_status = rnic_pkg::CQE_STATUS_DMA_FAULT;
          jn.st = rnic_pkg::S_ACK_SEND;
        end else begin
          xs_we.rq_psn = 1'b1; xs.rq_psn = x.rq_psn + 24'd1;
          if (rx_is_send && rx_last) begin
            jn.cqe_status = rnic_pkg::CQE_STATUS_SUCCESS;
            jn.cqe_len = x.rcv_got;
            xs_we.rcv_got = 1'b1; xs.rcv_got = 32'd0;
            xs_we.rq_ci = 1'b1; xs.rq_ci = x.rq_ci + 16'd1;
            xs_we.msn = 1'b1; xs.msn = x.msn + 24'd1;
            jn.after_cqe = j.l_ackreq ? rnic_pkg::S_ACK_SEND : rnic_pkg::S_IDLE;
            jn.tx_syndrome = rnic_pkg::AETH_ACK;
            jn.err_status = rnic_pkg::CQE_STATUS_SUCCESS;
            jn.st = rnic_pkg::S_CQE;
          end else if (j.l_ackreq ||
                       (&j.l_psn[rnic_pkg::ACK_PERIOD_LOG2-1:0] && mutant != rnic_pkg::MUTANT_NO_PERIODIC_ACK)) begin
            // Asked for, or the periodic ACK within a long message (without
            // AckReq): a requester whose timer runs on real time (rxe's, 67
            // ms) against this NIC's simulated speed would otherwise resend
            // a message still arriving (docs/interop.md).
            if (rx_last) begin
              xs_we.msn = 1'b1; xs.msn = x.msn + 24'd1;
            end
            jn.tx_syndrome = rnic_pkg::AETH_ACK;
            jn.err_status = rnic_pkg::CQE_STATUS_SUCCESS;
            jn.st = rnic_pkg::S_ACK_SEND;
          end else begin
            jn.st = rnic_pkg::S_IDLE;
          end
        end
      end

      // READ responses: one packet per path MTU of the requested range
      // (the packet's fields are set below, with a granted READ's first).
      rnic_pkg::S_RD_RESP_DONE: begin
        jn.pkt_i = j.pkt_i + 16'd1;
        jn.tx_psn = j.tx_psn + 24'd1;
        if (tx_poison) begin
          // The response left poisoned (dropped by the requester); tell the
          // requester why with a NAK so its READ fails instead of waiting:
          // the memory it reads was refused, a remote access error.
          jn.tx_syndrome = rnic_pkg::AETH_NAK_REMOTE_ACCESS;
          jn.err_status = rnic_pkg::CQE_STATUS_DMA_FAULT;
          jn.flush_recv = 1'b0;
          jn.st = rnic_pkg::S_ACK_SEND;
        end else if (j.bytes_left != 32'd0 && !rd_superseded) begin
          next_response = 1'b1;
        end else begin
          jn.st = rnic_pkg::S_IDLE;
        end
      end

      // The ACK (AETH_ACK) or NAK for the frame just handled.
      rnic_pkg::S_ACK_SEND: begin
        jn.tx_opcode = rnic_pkg::BTH_ACKNOWLEDGE; jn.tx_ext = rnic_pkg::HDR_EXT_AETH;
        jn.tx_ackreq = 1'b0; jn.tx_se = 1'b0; jn.tx_pad = 2'd0;
        jn.tx_plen = 16'd0;
        // A sequence NAK names the PSN expected; an ACK, the PSN of the packet
        // that asked for it; any other NAK, the request it refuses (a READ's
        // own PSN, though the expected PSN moved past it at the grant).
        jn.tx_psn = (j.tx_syndrome == rnic_pkg::AETH_NAK_PSN_SEQUENCE) ? x.rq_psn : j.l_psn;
        jn.bytes_left = 32'd0;
        jn.pkt_i = 16'd1;
        if (j.rx_held) begin
          jn.rxb_release = 1'b1;
          jn.rx_held = 1'b0;
        end
        jn.ret_st = rnic_pkg::S_ACK_DONE;
        jn.st = rnic_pkg::S_TX;
        if (j.tx_syndrome != rnic_pkg::AETH_ACK) begin
          jn.ev_valid = 1'b1; jn.ev_code = rnic_pkg::EV_NAK_SENT;
          jn.ev_qpn = 16'(j.cur); jn.ev_arg = {32'd0, 24'd0, j.tx_syndrome};
        end
      end
      rnic_pkg::S_ACK_DONE: begin
        if (j.tx_syndrome == rnic_pkg::AETH_ACK || j.tx_syndrome == rnic_pkg::AETH_NAK_PSN_SEQUENCE ||
            j.tx_syndrome[7:5] == 3'(rnic_pkg::AETH_KIND_RNR_NAK)) begin
          jn.st = rnic_pkg::S_IDLE;
        end else if (j.flush_recv) begin
          // The RECV that failed completes with its own status first.
          jn.flush_recv = 1'b0;
          xs_we.rq_ci = 1'b1; xs.rq_ci = x.rq_ci + 16'd1;
          xs_we.rcv_got = 1'b1; xs.rcv_got = 32'd0;
          jn.after_cqe = rnic_pkg::S_ERROR_QP;
          jn.st = rnic_pkg::S_CQE;
        end else begin
          jn.st = rnic_pkg::S_ERROR_QP;
        end
      end
      default: ;
    endcase
    // A READ request is granted: its responses come from memory (the
    // cursor holds its range), so the frame can go. A new one takes its
    // PSNs and its MSN now (above).
    if (read_response) begin
      if (!read_dup) begin
        xs_we.rq_psn = 1'b1; xs.rq_psn = p_psn + rnic_pkg::msg_psns(p_rlen, log_mtu);
        xs_we.msn = 1'b1; xs.msn = xr.msn + 24'd1;
      end
      jn.rxb_release = 1'b1;
      jn.rx_held = 1'b0;
      jn.bytes_left = p_rlen;
      jn.total = p_rlen;
      jn.pkt_i = '0;
      jn.tx_psn = p_psn;
    end
    // A READ response packet: the first of a READ granted this cycle, or the
    // next one straight from S_RD_RESP_DONE. Each goes to the gather at once
    // (no state of its own between: a cycle off the READ's latency and off
    // every later packet, while the gather's prefetch of it is under way).
    rp_left  = read_response ? p_rlen : j.bytes_left;
    rp_first = read_response;
    rp_last  = rp_left <= rnic_pkg::mtu_bytes(log_mtu);
    rp_plen  = rnic_pkg::pkt_len(rp_left, log_mtu);
    if (read_response || next_response) begin
      jn.tx_opcode = rp_first ? (rp_last ? rnic_pkg::BTH_READ_RESPONSE_ONLY : rnic_pkg::BTH_READ_RESPONSE_FIRST)
                              : (rp_last ? rnic_pkg::BTH_READ_RESPONSE_LAST : rnic_pkg::BTH_READ_RESPONSE_MIDDLE);
      jn.tx_ext = (rp_first || rp_last) ? rnic_pkg::HDR_EXT_AETH : rnic_pkg::HDR_EXT_NONE;
      jn.tx_syndrome = rnic_pkg::AETH_ACK;
      jn.tx_ackreq = 1'b0; jn.tx_se = 1'b0;
      jn.tx_pad = 2'd0 - rp_plen[1:0];
      jn.tx_plen = rp_plen;
      jn.bytes_left = rp_left - 32'(rp_plen);
      jn.ret_st = rnic_pkg::S_RD_RESP_DONE;
      jn.st = rnic_pkg::S_TX;
    end
    if (nak_recv) begin
      jn.err_status = rnic_pkg::CQE_STATUS_REMOTE_OPERATION;
      jn.flush_recv = 1'b1;
      jn.st = rnic_pkg::S_ACK_SEND;
    end
  end
endmodule
