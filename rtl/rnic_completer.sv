// The completer: what ends a send-queue WQE, in rxe_comp.c's manner, and
// the CQEs of every job. WQEs in flight complete in order, the oldest first:
// an ACK (rnic_comp_check has accepted it for the oldest) completes it with
// the ACK's status; READ responses fill the oldest READ, its last one
// completes it; a BIND commits as the oldest (the bind unit checks its
// window and region, then writes the window). Unsignaled successes leave no
// CQE; errors always do, then move the QP to ERROR (S_ERROR_QP: the context
// store takes it from there). A QP in ERROR is flushed: its WQE in flight,
// then every posted send and receive WQE, each with a FLUSHED CQE.
//
// Every CQE leaves through the CQE writer in S_CQE: a CQ that does not exist
// or is full loses it, and the engine reports CQ_OVERFLOW.
//
// Reliability, as rxe_comp.c has it: an ACK is cumulative (after each WQE
// it completes, S_ACK_MORE asks rnic_comp_check again for the next oldest);
// a sequence NAK or a lost response kicks the QP's retry; an RNR NAK starts
// its delay on the QP's timer. When a retry is due (S_RETRY: the ACK timeout
// ran out, or a kick, or an RNR delay ended) the completer rewinds the send
// queue to the oldest WQE in flight, which the requester then sends again
// from where the peer stopped; with no retries left the oldest fails
// (TRANSPORT, or RNR) and the QP goes to ERROR. Every sign of progress from
// the peer resets both retry counts.
//
// Combinational: given the job registers and the QP's transport state, the
// next job registers and the writes to that state, for the states it owns
// (and S_RX_PARSE, S_RX_WAIT_WR and S_RX_AFTER for an ACK or READ response).
module rnic_completer (
  input  logic [4:0]                  mutant,
  // Whole structs: a unit reads the fields it needs only.
  /* verilator lint_off UNUSEDSIGNAL */
  input  rnic_pkg::job_t              j,
  input  rnic_pkg::job_t              jd,
  input  rnic_pkg::qp_xs_t            x,           // cur's transport state
  input  rnic_pkg::flight_t           oldest,      // ... its oldest WQE in flight
  input  rnic_pkg::qp_xs_t            xp,          // the frame's QP's, read in S_RX_PARSE
  input  rnic_pkg::flight_t           oldest_p,    // ... its oldest WQE in flight
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [rnic_pkg::QP_IDX_W-1:0] q,        // the job's QP (the frame's, in S_RX_PARSE)
  input  logic [63:0]                 sq_base,    // the job's QP's rings
  input  logic [3:0]                  sq_log,
  input  logic [15:0]                 sq_pi,
  input  logic [63:0]                 rq_base,
  input  logic [3:0]                  rq_log,
  input  logic [rnic_pkg::CQ_IDX_W-1:0] scq,
  input  logic [rnic_pkg::CQ_IDX_W-1:0] rcq,
  // The frame in the receive buffer, an ACK or a READ response.
  input  logic                        rx_last,
  input  logic [15:0]                 p_plen,
  input  rnic_pkg::comp_act_t         comp_act,    // for the frame (S_RX_PARSE) or the kept ACK (S_ACK_MORE)
  input  logic [7:0]                  comp_ack_status,
  input  logic [23:0]                 ack_psn,     // the frame's PSN, or the kept one
  input  rnic_pkg::aeth_syndrome_t    ack_syn,     // its AETH syndrome
  // The job's QP's QP_TIMERS.
  input  logic [2:0]                  retry_cnt,
  input  logic [2:0]                  rnr_retry,
  input  logic [3:0]                  log_mtu,     // the QP's path MTU, log2 bytes
  /* verilator lint_off UNUSEDSIGNAL */   // a unit reads the WQE fields it needs only
  input  rnic_pkg::wqe_t              wqe,         // the WQE in wq
  /* verilator lint_on UNUSEDSIGNAL */
  // The CQE writer and the bind unit.
  input  logic                        cqe_done,
  input  logic                        cqe_overflow,
  input  logic                        bu_done,
  input  logic                        bu_ok,
  input  logic [23:0]                 bind_index,
  input  logic [7:0]                  bind_key,

  output rnic_pkg::job_t              jn,
  output rnic_pkg::qp_xs_we_t         xs_we,
  output rnic_pkg::qp_xs_t            xs
);
  logic       wq_holds_oldest;   // wq still holds the frame's QP's oldest WQE in flight, whole
  logic       complete_oldest;   // q's oldest in flight is done (its CQE, if any, next)
  logic       bind_fail;         // the BIND fails with bind_status
  logic [7:0] bind_status;
  // An ACK's or NAK's effect on the job's QP, in S_RX_PARSE (the frame's
  // QP) or S_ACK_MORE (cur, the same QP): its state and oldest WQE.
  /* verilator lint_off UNUSEDSIGNAL */   // the fields an ACK needs only
  rnic_pkg::qp_xs_t  xa;
  rnic_pkg::flight_t oa;
  /* verilator lint_on UNUSEDSIGNAL */
  logic       parse;
  logic       finish;            // the oldest ends with finish_status: its CQE needs its WQE again
  logic [7:0] finish_status;
  logic       more_after;        // WQEs in flight after the oldest
  logic       progress;          // the peer moved on: the retry counts start again
  logic [1:0] why;
  logic [23:0] nak_ahead;        // a sequence NAK's PSN past the one the last named
  always_comb begin
    wq_holds_oldest = j.wq_held && !j.wq_held_recv && j.wq_held_qp == q && j.wq_held_idx == xp.done;
    parse      = j.st == rnic_pkg::S_RX_PARSE;
    xa         = parse ? xp : x;
    oa         = parse ? oldest_p : oldest;
    more_after = xa.done + 16'd1 != xa.sq_ci;

    jn = jd;
    xs_we = '0;
    xs = x;
    complete_oldest = 1'b0;
    bind_fail = 1'b0;
    bind_status = rnic_pkg::CQE_STATUS_SUCCESS;
    finish = 1'b0;
    finish_status = rnic_pkg::CQE_STATUS_SUCCESS;
    progress = 1'b0;
    why = 2'(rnic_pkg::RETRY_WHY_TIMEOUT);
    nak_ahead = 24'd0;
    unique case (j.st)
      // An ACK, a NAK or a READ response, for the oldest WQE in flight
      // (rnic_comp_check); S_ACK_MORE: the same ACK or NAK, for the next.
      rnic_pkg::S_RX_PARSE, rnic_pkg::S_ACK_MORE: begin
        if (parse) begin
          jn.l_syn = ack_syn;
          if (comp_act != rnic_pkg::COMP_ACT_DATA) begin
            jn.rxb_release = 1'b1;
            jn.rx_held = 1'b0;
          end
        end
        jn.st = rnic_pkg::S_IDLE;
        unique case (comp_act)
          rnic_pkg::COMP_ACT_COMPLETE: begin
            finish = 1'b1;
            progress = 1'b1;
            jn.tmr_op = more_after ? rnic_pkg::TMR_ARM_ACK : rnic_pkg::TMR_STOP;
          end
          rnic_pkg::COMP_ACT_FAIL: begin
            finish = 1'b1;
            finish_status = comp_ack_status;
          end
          rnic_pkg::COMP_ACT_RETRY: begin
            // A sequence NAK names where the responder stopped; the resend
            // starts there (rnic_pkg::resume_pkts).
            jn.kick = 1'b1;
            xs_we.kick_why = 1'b1;
            if (ack_syn.kind == rnic_pkg::AETH_KIND_NAK) begin
              xs.kick_why = 2'(rnic_pkg::RETRY_WHY_SEQ_NAK);
              xs_we.acked_psn = 1'b1; xs.acked_psn = ack_psn;
              // The responder got further than it said last time: progress,
              // so a long message resent piece by piece never runs out of
              // retries while each resend moves it on.
              nak_ahead = rnic_pkg::psn_off(ack_psn, xa.acked_psn);
              progress  = nak_ahead != 24'd0 && !nak_ahead[23];
            end else begin
              xs.kick_why = 2'(rnic_pkg::RETRY_WHY_IMPLICIT);
            end
          end
          rnic_pkg::COMP_ACT_RNR: begin
            if (xa.rnr_left == 3'd0) begin
              finish = 1'b1;
              finish_status = rnic_pkg::CQE_STATUS_RNR;
            end else begin
              // RNR_RETRY 7: retry forever.
              if (rnr_retry != 3'd7) begin
                xs_we.rnr_left = 1'b1; xs.rnr_left = xa.rnr_left - 3'd1;
              end
              xs_we.rnr_wait = 1'b1; xs.rnr_wait = 1'b1;
              xs_we.acked_psn = 1'b1; xs.acked_psn = ack_psn;
              jn.tmr_op = rnic_pkg::TMR_ARM_RNR;
              jn.tmr_code = ack_syn.value;
            end
          end
          // Part of the oldest arrived: its timer starts again, and its
          // retries, as for a completion.
          rnic_pkg::COMP_ACT_PROGRESS: begin
            progress = 1'b1;
            jn.tmr_op = rnic_pkg::TMR_ARM_ACK;
          end
          rnic_pkg::COMP_ACT_DATA: begin
            progress = 1'b1;
            jn.tmr_op = rnic_pkg::TMR_ARM_ACK;
            if (wq_holds_oldest) begin
              jn.fetch_err = 1'b0;   // its READ WQE is still in wq
              jn.st = rnic_pkg::S_RX_RRESP_WQE;
            end else begin
              jn.fetch_n = 5'(rnic_pkg::WQE_FETCH_WORDS);
              jn.fetch_addr = rnic_pkg::wqe_addr(sq_base, xp.done, sq_log);
              jn.fetch_recv = 1'b0; jn.fetch_qp = q; jn.fetch_idx = xp.done;
              jn.ret_st = rnic_pkg::S_RX_RRESP_WQE;
              jn.st = rnic_pkg::S_FETCH_REQ;
            end
          end
          default: if (parse) jn.ev_rx_drop = 1'b1;   // NONE
        endcase
      end

      // A retry is due for cur (rnic_ack_timer): go back to the oldest WQE
      // in flight (the requester resends it from where the peer stopped),
      // or fail it when no retries are left. Nothing to resend (it all
      // completed meanwhile, or the oldest is a local BIND): nothing to do.
      rnic_pkg::S_RETRY: begin
        jn.st = rnic_pkg::S_IDLE;
        xs_we.rnr_wait = 1'b1; xs.rnr_wait = 1'b0;
        xs_we.kick_why = 1'b1; xs.kick_why = 2'(rnic_pkg::RETRY_WHY_TIMEOUT);
        why = x.rnr_wait ? 2'(rnic_pkg::RETRY_WHY_RNR) : x.kick_why;
        if (x.sq_ci == x.done || oldest.op == rnic_pkg::OP_BIND || mutant == rnic_pkg::MUTANT_NO_RETRANSMIT) begin
          // jn.st stays S_IDLE: nothing to resend.
        end else if (!x.rnr_wait && x.retry_left == 3'd0) begin
          finish = 1'b1;
          finish_status = rnic_pkg::CQE_STATUS_TRANSPORT;
        end else begin
          if (!x.rnr_wait) begin
            xs_we.retry_left = 1'b1; xs.retry_left = x.retry_left - 3'd1;
          end
          xs_we.retrying = 1'b1; xs.retrying = 1'b1;
          // The rewind covers a paused WQE too: it is sent again from the
          // oldest on, like everything after the oldest.
          xs_we.paused = 1'b1; xs.paused = 1'b0;
          xs_we.sq_ci = 1'b1; xs.sq_ci = x.done;
          xs_we.sq_psn = 1'b1; xs.sq_psn = oldest.first;
          xs_we.fenced = 1'b1; xs.fenced = 1'b0;
          xs_we.bind_wait = 1'b1; xs.bind_wait = 1'b0;
          xs_we.rd_hold = 1'b1; xs.rd_hold = 1'b0;
          jn.tmr_op = rnic_pkg::TMR_ARM_ACK;
          jn.ev_valid = 1'b1; jn.ev_code = rnic_pkg::EV_RETRY;
          jn.ev_qpn = 16'(j.cur);
          // The PSN the requester's S_SQ_GO will resend from (the same
          // rnic_pkg::resume_pkts; a_psn_sequence holds the two together).
          jn.ev_arg = {30'd0, why, 8'd0,
                       oldest.first + rnic_pkg::resume_pkts(oldest.op == rnic_pkg::OP_RDMA_READ, oldest.first,
                                                            oldest.last, x.out_got, x.acked_psn, log_mtu)};
        end
      end

      // A READ response: the READ WQE is in wq.
      rnic_pkg::S_RX_RRESP_WQE: begin
        jn.cqe_idx = x.done; jn.cqe_op = rnic_pkg::OP_RDMA_READ; jn.cqe_wrid = wqe.wr_id;
        jn.cqe_recv = 1'b0; jn.cqe_cq = scq; jn.cqe_len = oldest.len;
        if (j.fetch_err || 33'(x.out_got) + 33'(p_plen) > 33'(oldest.len) ||
            (rx_last && x.out_got + 32'(p_plen) != oldest.len)) begin
          jn.cqe_status = j.fetch_err ? rnic_pkg::CQE_STATUS_DMA_FAULT : rnic_pkg::CQE_STATUS_BAD_RESPONSE;
          jn.err_status = jn.cqe_status;
          jn.rxb_release = 1'b1;
          jn.rx_held = 1'b0;
          complete_oldest = 1'b1;
          jn.after_cqe = rnic_pkg::S_ERROR_QP;
          jn.st = rnic_pkg::S_CQE;
        end else begin
          xs_we.out_got = 1'b1; xs.out_got = x.out_got + 32'(p_plen);
          jn.st = rnic_pkg::S_RX_SCATTER;
        end
      end
      // Its payload is placed (or its placement failed); taken as the
      // responder's is (rnic_responder, S_RX_AFTER).
      rnic_pkg::S_RX_WAIT_WR, rnic_pkg::S_RX_AFTER: begin
        if (j.wr_fault) begin
          jn.wr_fault = 1'b0;
          jn.dma_fault = 1'b1;
          jn.cqe_status = rnic_pkg::CQE_STATUS_DMA_FAULT;
          jn.err_status = rnic_pkg::CQE_STATUS_DMA_FAULT;
          complete_oldest = 1'b1;
          jn.after_cqe = rnic_pkg::S_ERROR_QP;
          jn.st = rnic_pkg::S_CQE;
        end else if (rx_last) begin
          complete_oldest = 1'b1;
          jn.tmr_op = more_after ? rnic_pkg::TMR_ARM_ACK : rnic_pkg::TMR_STOP;
          if (x.done + 16'd1 == x.sq_ci) begin
            xs_we.fenced = 1'b1; xs.fenced = 1'b0;
          end
          jn.cqe_status = rnic_pkg::CQE_STATUS_SUCCESS;
          jn.err_status = rnic_pkg::CQE_STATUS_SUCCESS;
          jn.after_cqe = rnic_pkg::S_IDLE;
          jn.st = wqe.flags.signaled ? rnic_pkg::S_CQE : rnic_pkg::S_IDLE;
        end else begin
          jn.st = rnic_pkg::S_IDLE;
        end
      end

      // An ACK's WQE words are in wq.
      // A cumulative ACK may complete the next oldest too (S_ACK_MORE).
      rnic_pkg::S_CQE_FETCH_DONE: begin
        jn.cqe_op = wqe.opcode; jn.cqe_wrid = wqe.wr_id;
        if (j.fetch_err) jn.cqe_status = rnic_pkg::CQE_STATUS_DMA_FAULT;
        jn.after_cqe = (j.cqe_status != rnic_pkg::CQE_STATUS_SUCCESS || j.fetch_err) ? rnic_pkg::S_ERROR_QP :
                       (x.done != x.sq_ci) ? rnic_pkg::S_ACK_MORE : rnic_pkg::S_IDLE;
        jn.err_status = j.fetch_err ? rnic_pkg::CQE_STATUS_DMA_FAULT : j.cqe_status;
        // Unsignaled successes leave no CQE; errors always do.
        jn.st = (j.cqe_status != rnic_pkg::CQE_STATUS_SUCCESS || j.fetch_err || wqe.flags.signaled)
                ? rnic_pkg::S_CQE : jn.after_cqe;
      end
      // The CQE writer has the completion in cqe_*.
      rnic_pkg::S_CQE: if (cqe_done) begin
        if (cqe_overflow) begin
          jn.ev_cq_overflow = 1'b1; jn.ev_queue = 16'(j.cqe_cq);
        end else begin
          jn.ev_valid = 1'b1; jn.ev_code = rnic_pkg::EV_CQE_WRITTEN;
          jn.ev_qpn = 16'(j.cur); jn.ev_arg = {24'd0, j.cqe_status, 16'd0, j.cqe_idx};
        end
        jn.st = j.after_cqe;
      end

      // The context store moves cur to ERROR (the engine's qp_err_set).
      rnic_pkg::S_ERROR_QP: begin
        jn.ev_valid = 1'b1; jn.ev_code = rnic_pkg::EV_QP_ERROR;
        jn.ev_qpn = 16'(j.cur); jn.ev_arg = {56'd0, j.err_status};
        jn.st = rnic_pkg::S_IDLE;
      end
      // Flush: complete the WQE in flight, then every posted WQE, FLUSHED.
      rnic_pkg::S_FLUSH_PICK: begin
        jn.cqe_status = rnic_pkg::CQE_STATUS_FLUSHED;
        jn.after_cqe = rnic_pkg::S_IDLE;
        jn.fetch_n = 5'(rnic_pkg::WQE_WR_ID_WORD + 1);
        jn.cqe_len = 32'd0;
        if (x.sq_ci != x.done) begin
          jn.cqe_recv = 1'b0; jn.cqe_cq = scq; jn.cqe_idx = x.done;
          jn.fetch_addr = rnic_pkg::wqe_addr(sq_base, x.done, sq_log);
          xs_we.done = 1'b1; xs.done = x.done + 16'd1;
          xs_we.out_got = 1'b1; xs.out_got = 32'd0;
        end else if (x.sq_ci != sq_pi) begin
          jn.cqe_recv = 1'b0; jn.cqe_cq = scq; jn.cqe_idx = x.sq_ci;
          jn.fetch_addr = rnic_pkg::wqe_addr(sq_base, x.sq_ci, sq_log);
          xs_we.sq_ci = 1'b1; xs.sq_ci = x.sq_ci + 16'd1;
          xs_we.done = 1'b1; xs.done = x.sq_ci + 16'd1;
        end else begin
          jn.cqe_recv = 1'b1; jn.cqe_cq = rcq; jn.cqe_idx = x.rq_ci;
          jn.fetch_addr = rnic_pkg::wqe_addr(rq_base, x.rq_ci, rq_log);
          xs_we.rq_ci = 1'b1; xs.rq_ci = x.rq_ci + 16'd1;
        end
        jn.ret_st = rnic_pkg::S_FLUSH_FETCHED;
        jn.st = rnic_pkg::S_FETCH_REQ;
      end
      rnic_pkg::S_FLUSH_FETCHED: begin
        jn.cqe_op = j.cqe_recv ? rnic_pkg::OP_RECV : wqe.opcode;
        jn.cqe_wrid = wqe.wr_id;
        jn.st = rnic_pkg::S_CQE;
      end

      // The BIND at done (the oldest in flight) is in wq: the bind unit
      // checks its window, then its region, then commits the window.
      rnic_pkg::S_BIND_START: begin
        jn.cqe_idx = x.done; jn.cqe_op = rnic_pkg::OP_BIND; jn.cqe_wrid = wqe.wr_id; jn.cqe_recv = 1'b0;
        jn.cqe_cq = scq; jn.cqe_len = 32'd0;
        if (j.fetch_err) begin
          bind_fail = 1'b1; bind_status = rnic_pkg::CQE_STATUS_DMA_FAULT;
        end else begin
          jn.st = rnic_pkg::S_BIND;
        end
      end
      rnic_pkg::S_BIND: if (bu_done && !bu_ok) begin
        // A check refused, or the window changed meanwhile.
        bind_fail = 1'b1; bind_status = rnic_pkg::CQE_STATUS_BIND_FAILED;
      end else if (bu_done) begin
        jn.ev_valid = 1'b1; jn.ev_code = rnic_pkg::EV_BIND_COMMIT;
        jn.ev_qpn = 16'(j.cur); jn.ev_arg = {bind_index, bind_key, 16'd0, j.cqe_idx};
        xs_we.done = 1'b1; xs.done = x.done + 16'd1;
        xs_we.bind_wait = 1'b1; xs.bind_wait = 1'b0;
        if (x.done + 16'd1 == x.sq_ci) begin
          xs_we.fenced = 1'b1; xs.fenced = 1'b0;
        end
        jn.cqe_status = rnic_pkg::CQE_STATUS_SUCCESS;
        jn.err_status = rnic_pkg::CQE_STATUS_SUCCESS;
        jn.after_cqe = rnic_pkg::S_IDLE;
        jn.st = wqe.flags.signaled ? rnic_pkg::S_CQE : rnic_pkg::S_IDLE;
      end
      default: ;
    endcase
    // The oldest WQE in flight ends with finish_status; its CQE needs the
    // WQE's opcode and wr_id again: a short fetch.
    if (finish) begin
      jn.cqe_cq = scq; jn.cqe_recv = 1'b0; jn.cqe_len = oa.len;
      jn.cqe_status = finish_status;
      jn.err_status = finish_status;
      xs_we.done = 1'b1; xs.done = xa.done + 16'd1;
      xs_we.out_got = 1'b1; xs.out_got = 32'd0;
      if (!more_after) begin
        xs_we.fenced = 1'b1; xs.fenced = 1'b0;
      end
      jn.fetch_n = 5'(rnic_pkg::WQE_WR_ID_WORD + 1);
      jn.fetch_addr = rnic_pkg::wqe_addr(sq_base, xa.done, sq_log);
      jn.cqe_idx = xa.done;
      jn.ret_st = rnic_pkg::S_CQE_FETCH_DONE;
      jn.st = rnic_pkg::S_FETCH_REQ;
    end
    // Progress: the peer answered; a resend (if any) has done its work.
    if (progress) begin
      xs_we.retry_left = 1'b1; xs.retry_left = retry_cnt;
      xs_we.rnr_left = 1'b1; xs.rnr_left = rnr_retry;
      xs_we.retrying = 1'b1; xs.retrying = 1'b0;
    end
    // The oldest WQE in flight completes; its next READ starts from byte 0.
    if (complete_oldest) begin
      xs_we.done = 1'b1; xs.done = x.done + 16'd1;
      xs_we.out_got = 1'b1; xs.out_got = 32'd0;
    end
    // A BIND that fails completes with its status (always a CQE) and breaks
    // its connection; its window is left as it was.
    if (bind_fail) begin
      jn.cqe_status = bind_status;
      jn.err_status = bind_status;
      xs_we.done = 1'b1; xs.done = x.done + 16'd1;
      xs_we.bind_wait = 1'b1; xs.bind_wait = 1'b0;
      jn.after_cqe = rnic_pkg::S_ERROR_QP;
      jn.st = rnic_pkg::S_CQE;
    end
  end
endmodule
