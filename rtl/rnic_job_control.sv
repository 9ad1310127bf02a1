// The engine's job control: which unit's next job registers the engine
// registers, and the states no unit of its own owns. It starts a job from
// idle (a received frame first, else a BIND to commit, a retry due, a queue
// to flush, a WQE to start), fetches WQEs into the engine's wq, waits out the gather
// (S_TX) and the receive scatter (S_RX_SCATTER, S_RX_WAIT_WR), drops a frame
// that is not for a QP in RTS, and hands every other state to its owner:
// rnic_requester, rnic_responder or rnic_completer (rnic_engine_types.svh lists
// which owns which).
//
// A retry due (rnic_ack_timer) comes after a BIND to commit and before a
// new WQE: a QP resends before it sends anything new.
//
// It also says what the job registers keep when their state's owner writes
// nothing (jd, every unit's default: the one-cycle outputs clear, and a
// frame being parsed becomes the job's), and what this cycle's inputs do to
// them where the job writes nothing: a QP command forgets the held WQE, a
// refused payload DMA write fails the job placing it, a refused doorbell
// names its queue for ERR_ADDR.
//
// Combinational.
module rnic_job_control #(
  parameter int unsigned NUM_QP = rnic_pkg::NUM_QP,
  localparam int unsigned QW = rnic_pkg::QP_IDX_W
) (
  input  rnic_pkg::job_t              j,
  input  logic                        enable,
  // What can start a job.
  input  logic                        rxb_valid,
  input  logic                        rxb_next_valid,
  input  logic                        bind_any,
  input  logic [QW-1:0]               bind_q,
  input  logic                        retry_any,
  input  logic [QW-1:0]               retry_q,
  input  logic                        pick_any,
  input  logic [QW-1:0]               pick_q,
  input  logic                        flush_any,
  input  logic [QW-1:0]               flush_q,
  input  logic [15:0]                 nxt_done,      // of bind_q if bind_any, else of pick_q
  input  logic [15:0]                 nxt_sq_ci,
  input  logic [63:0]                 nxt_sq_base,
  input  logic [3:0]                  nxt_sq_log,
  // The WQE fetch, the gather, the scatter and the DMA writes.
  input  logic                        dma_rd_req_ready,
  input  logic                        dma_rd_rsp_valid,
  input  logic                        fetch_cut,       // the fetch's beat now is the WQE's last word
  input  logic                        dma_rd_rsp_err,
  input  logic                        tx_started,
  input  logic                        tx_done,
  input  logic [15:0]                 cur_sq_ci,
  input  logic                        cur_rts,         // the job's QP is in RTS
  input  logic                        sc_done,
  input  logic                        sc_overrun,
  input  logic [7:0]                  wr_outstanding,
  input  logic                        dma_wr_cpl_valid,
  input  logic                        payload_wr_err,  // a payload DMA write's completion: refused
  // Commands and doorbells from the register block.
  input  logic                        qp_cmd_valid,
  input  logic                        bad_doorbell,
  input  logic [QW-1:0]               db_index,
  // The frame in the receive buffer.
  input  logic                        p_roce,
  input  logic                        p_len_ok,
  input  logic [23:0]                 p_qp,
  input  logic [1:0]                  pq_state,
  input  logic [7:0]                  p_op,
  input  logic [23:0]                 p_psn,
  input  logic                        p_ackreq,
  input  logic                        rx_is_ack,
  input  logic                        rx_is_rresp,
  // The units' next job registers and their writes to the job's QP.
  input  rnic_pkg::job_t              req_jn,
  input  rnic_pkg::qp_xs_we_t         req_xs_we,
  input  rnic_pkg::qp_xs_t            req_xs,
  input  rnic_pkg::job_t              resp_jn,
  input  rnic_pkg::qp_xs_we_t         resp_xs_we,
  input  rnic_pkg::qp_xs_t            resp_xs,
  input  rnic_pkg::job_t              comp_jn,
  input  rnic_pkg::qp_xs_we_t         comp_xs_we,
  input  rnic_pkg::qp_xs_t            comp_xs,

  output logic                        rx_to_resp,   // S_RX_PARSE: the frame is the responder's
  output rnic_pkg::job_t              jd,
  output rnic_pkg::job_t              jn,
  output rnic_pkg::qp_xs_we_t         xs_we,
  output rnic_pkg::qp_xs_t            xs_wr
);
  logic [QW-1:0] pq;
  assign pq = p_qp[QW-1:0];

  always_comb begin
    jd = j;
    jd.ev_valid       = 1'b0;
    jd.ev_rx_drop     = 1'b0;
    jd.ev_cq_overflow = 1'b0;
    jd.rxb_release    = 1'b0;
    jd.dma_fault      = 1'b0;
    jd.tmr_op         = rnic_pkg::TMR_NONE;
    jd.kick           = 1'b0;
    if (j.st == rnic_pkg::S_RX_PARSE) begin
      jd.cur        = pq;
      jd.rx_held    = 1'b1;
      jd.l_op       = p_op;
      jd.l_psn      = p_psn;
      jd.l_ackreq   = p_ackreq;
      jd.flush_recv = 1'b0;
    end
  end

  // The states this unit owns, and who owns the others.
  typedef enum logic [1:0] {OWN_ENGINE, OWN_REQ, OWN_RESP, OWN_COMP} owner_t;
  owner_t own;
  rnic_pkg::job_t je, jm;
  logic fetch_keeps_held;   // the fetch writes wq_held this cycle
  logic rx_after;           // the owner does a placed packet's S_RX_AFTER work now
  logic rx_release;         // S_RX_WAIT_WR ends with the frame still held
  // The send WQE an idle engine may take up: the BIND's to commit (bind_any
  // comes first) or the pick's; S_IDLE's choice names where it goes.
  logic [QW-1:0]        sq_q;
  logic [15:0]          sq_idx;
  rnic_pkg::job_state_t sq_ret;   // S_IDLE: none taken up
  assign sq_q   = bind_any ? bind_q : pick_q;
  assign sq_idx = bind_any ? nxt_done : nxt_sq_ci;
  always_comb begin
    je  = jd;
    own = OWN_ENGINE;
    rx_after   = 1'b0;
    rx_release = 1'b0;
    sq_ret = rnic_pkg::S_IDLE;
    unique case (j.st)
      rnic_pkg::S_IDLE: begin
        // A frame released this cycle still shows as valid until the edge.
        if (enable && rxb_valid && !j.rxb_release) begin
          je.st = rnic_pkg::S_RX_PARSE;
        end else if (enable && bind_any) begin
          // A BIND became the oldest in flight: commit it (its WQE again).
          sq_ret = rnic_pkg::S_BIND_START;
        end else if (enable && retry_any) begin
          // A retransmission is due: the completer resends or fails.
          je.cur = retry_q;
          je.st = rnic_pkg::S_RETRY;
        end else if (enable && flush_any) begin
          // Before new work: a QP in ERROR ends in a few jobs, and busy QPs
          // (a paused WQE is picked again and again) would keep it waiting.
          je.cur = flush_q;
          je.st = rnic_pkg::S_FLUSH_PICK;
        end else if (enable && pick_any) begin
          sq_ret = rnic_pkg::S_SQ_DECODE;
        end
        // A send WQE to take up, the BIND's or the pick's (nxt_* are its
        // QP's): from wq when wq still holds it, else fetched from the ring.
        // wq keeps it across a BIND's wait and a pause for a received frame
        // that needed no WQE of its own (an ACK); a posted WQE does not
        // change, and the keys are checked again all the same.
        if (sq_ret != rnic_pkg::S_IDLE) begin
          je.cur = sq_q;
          if (j.wq_held && !j.wq_held_recv && j.wq_held_qp == sq_q && j.wq_held_idx == sq_idx) begin
            je.fetch_err = 1'b0;
            je.st = sq_ret;
          end else begin
            je.st = rnic_pkg::S_FETCH_REQ;
            je.ret_st = sq_ret;
            je.fetch_n = 5'(rnic_pkg::WQE_FETCH_WORDS);
            je.fetch_addr = rnic_pkg::wqe_addr(nxt_sq_base, sq_idx, nxt_sq_log);
            je.fetch_recv = 1'b0; je.fetch_qp = sq_q; je.fetch_idx = sq_idx;
          end
        end
      end

      // A WQE (or its first words) from its ring into wq, up to its last
      // used word (rnic_port_arbiter drops the rest).
      rnic_pkg::S_FETCH_REQ: if (dma_rd_req_ready) begin
        je.st = rnic_pkg::S_FETCH_DATA;
        je.fetch_i = '0;
        je.fetch_err = 1'b0;
        je.wq_held = 1'b0;
      end
      rnic_pkg::S_FETCH_DATA: if (dma_rd_rsp_valid) begin
        je.fetch_i = j.fetch_i + 5'd1;
        if (dma_rd_rsp_err) begin
          je.fetch_err = 1'b1;
          je.dma_fault = 1'b1;
          je.dma_addr = j.fetch_addr[31:0];
        end
        if (fetch_cut) begin
          je.st = j.ret_st;
          je.wq_held = j.fetch_n == 5'(rnic_pkg::WQE_FETCH_WORDS) && !j.fetch_err && !dma_rd_rsp_err;
          je.wq_held_recv = j.fetch_recv;
          je.wq_held_qp = j.fetch_qp;
          je.wq_held_idx = j.fetch_idx;
        end
      end

      // The gather sends the frame j.tx_* describes, then the job goes on at ret_st.
      rnic_pkg::S_TX: begin
        if (tx_started && j.pkt_i == 16'd0 && j.ret_st == rnic_pkg::S_SQ_PKT_DONE) begin
          je.ev_valid = 1'b1; je.ev_code = rnic_pkg::EV_PKT_FIRST;
          je.ev_qpn = 16'(j.cur); je.ev_arg = {32'd0, 16'd0, cur_sq_ci - 16'd1};
        end
        if (tx_done) je.st = j.ret_st;
      end

      // A frame: dropped unless it is RoCE, whole, for a QP in RTS; else
      // the completer's (an ACK or READ response) or the responder's.
      rnic_pkg::S_RX_PARSE: begin
        if (!p_roce || !p_len_ok || 32'(p_qp) >= 32'(NUM_QP) || pq_state != 2'(rnic_pkg::QP_STATE_RTS)) begin
          je.ev_rx_drop = 1'b1;
          je.rxb_release = 1'b1;
          je.rx_held = 1'b0;
          je.st = rnic_pkg::S_IDLE;
        end else begin
          own = (rx_is_ack || rx_is_rresp) ? OWN_COMP : OWN_RESP;
        end
      end
      // Payload: receive buffer -> byte queue -> DMA writes over the segments.
      // The frame goes back to the buffer once its last byte is read: what
      // follows reads the job's registers, not the frame.
      rnic_pkg::S_RX_SCATTER: if (sc_done) begin
        // Segments ran out before the payload did: the length checks make
        // this unreachable; fail the message rather than hang.
        if (sc_overrun) je.wr_fault = 1'b1;
        je.st = rnic_pkg::S_RX_WAIT_WR;
        je.rxb_release = j.rx_held;
        je.rx_held = 1'b0;
      end
      // Every payload write completed: none outstanding, or the last one's
      // completion is here. The packet's owner finishes it in this same
      // cycle (its S_RX_AFTER work, from registers only), unless that last
      // completion is a refusal: that reaches wr_fault at this edge (below),
      // and S_RX_AFTER acts on it in the next cycle. A frame still held (a
      // WRITE without payload never went through the scatter) goes back now.
      rnic_pkg::S_RX_WAIT_WR: if (wr_outstanding == 8'(dma_wr_cpl_valid)) begin
        rx_release = j.rx_held;
        if (payload_wr_err) je.st = rnic_pkg::S_RX_AFTER;
        else begin
          rx_after = 1'b1;
          own = rx_is_rresp ? OWN_COMP : OWN_RESP;
        end
      end
      rnic_pkg::S_RX_AFTER: begin
        rx_after = 1'b1;
        own = rx_is_rresp ? OWN_COMP : OWN_RESP;
      end

      // A QP that left RTS while its message was under way (software reset
      // it, moved it to ERROR or started it afresh) sends nothing more: the
      // job ends at the packet's end, writing nothing (the flush completes
      // an ERROR QP's WQEs; a reset QP's rings may be another's by now).
      // Nor is anything resent for it, nor a WQE fetched for it started.
      rnic_pkg::S_SQ_DECODE, rnic_pkg::S_SQ_PKT_DONE, rnic_pkg::S_RD_RESP_DONE, rnic_pkg::S_RETRY: begin
        if (!cur_rts) je.st = rnic_pkg::S_IDLE;
        else own = (j.st == rnic_pkg::S_RD_RESP_DONE) ? OWN_RESP
                 : (j.st == rnic_pkg::S_RETRY) ? OWN_COMP : OWN_REQ;
      end
      rnic_pkg::S_SQ_NOP, rnic_pkg::S_SQ_CHECK,
      rnic_pkg::S_SQ_CHECK_WAIT, rnic_pkg::S_SQ_GO, rnic_pkg::S_SQ_PKT,
      rnic_pkg::S_SQ_ERR:
        own = OWN_REQ;
      rnic_pkg::S_RX_RKEY_WAIT, rnic_pkg::S_RX_SEND_WQE,
      rnic_pkg::S_RX_SEND_CHECK, rnic_pkg::S_RX_SEND_CHECK_WAIT, rnic_pkg::S_RX_SEND_PLACE,
      rnic_pkg::S_ACK_SEND,
      rnic_pkg::S_ACK_DONE:
        own = OWN_RESP;
      rnic_pkg::S_RX_RRESP_WQE, rnic_pkg::S_CQE_FETCH_DONE, rnic_pkg::S_CQE,
      rnic_pkg::S_FLUSH_PICK, rnic_pkg::S_FLUSH_FETCHED, rnic_pkg::S_ERROR_QP,
      rnic_pkg::S_BIND_START, rnic_pkg::S_BIND, rnic_pkg::S_ACK_MORE:
        own = OWN_COMP;
      default: je.st = rnic_pkg::S_IDLE;
    endcase

    rx_to_resp = j.st == rnic_pkg::S_RX_PARSE && own == OWN_RESP;
    unique case (own)
      OWN_REQ:  begin jm = req_jn;  xs_we = req_xs_we;  xs_wr = req_xs;  end
      OWN_RESP: begin jm = resp_jn; xs_we = resp_xs_we; xs_wr = resp_xs; end
      OWN_COMP: begin jm = comp_jn; xs_we = comp_xs_we; xs_wr = comp_xs; end
      default:  begin jm = je;      xs_we = '0;         xs_wr = req_xs;  end
    endcase

    // What this cycle's inputs do to the job registers, giving way to what
    // the job writes (the order the engine has always had). They are applied
    // here, after the owner's choice, and not in jd, so the units' logic
    // depends on registers only: a simulator then evaluates it once a
    // cycle, not again whenever a port input moves. Who writes these fields:
    // only the fetch writes wq_held; the responder and the completer clear
    // wr_fault in their S_RX_AFTER work (rx_after), exactly when it is set,
    // and never in a cycle with a refusal (that goes to S_RX_AFTER first);
    // only the completer's CQ overflow writes ev_queue.
    fetch_keeps_held = (j.st == rnic_pkg::S_FETCH_REQ && dma_rd_req_ready) ||
                       fetch_cut;
    jn = jm;
    if (rx_release) begin
      jn.rxb_release = 1'b1;
      jn.rx_held = 1'b0;
    end
    // A placed frame's job ending idle, with the next frame already whole
    // in the buffer: S_IDLE would take that frame first, so the job goes
    // to it now, a cycle earlier. Released at this edge (j.rxb_release),
    // the frame just placed still shows and the one behind it is
    // next_valid's; released at the next (jn.rxb_release), it still shows
    // then, and S_IDLE waits for it to go.
    if (rx_after && jm.st == rnic_pkg::S_IDLE && enable && !jn.rxb_release &&
        (j.rxb_release ? rxb_next_valid : rxb_valid))
      jn.st = rnic_pkg::S_RX_PARSE;
    if (qp_cmd_valid && !fetch_keeps_held) jn.wq_held = 1'b0;
    if (payload_wr_err && !(rx_after && j.wr_fault)) jn.wr_fault = 1'b1;
    if (bad_doorbell && !jm.ev_cq_overflow) jn.ev_queue = 16'(db_index);
  end
endmodule
