// The send-queue scheduler: which QP the engine serves next when no frame
// is waiting, and whether the READ at the head of the current QP may go.
//
// Four kinds of send work, each found round-robin from the QP after the
// last one picked for a new WQE (so one busy QP cannot starve the others):
//   bind   the oldest WQE in flight of an RTS QP is a BIND: commit it.
//   retry  an RTS QP's retransmission is due (rnic_ack_timer): resend or fail.
//   pick   an RTS QP may start its next WQE: one is posted, the QP is not
//          held by a barrier fence, it has fewer than MAX_RD_ATOMIC WQEs in
//          flight, a READ over the READ limit is not waiting for the oldest
//          to complete, no BIND in flight is uncommitted (the bind fence),
//          and it is not waiting out an RNR NAK's delay. Or it has a WQE
//          paused between packets (rnic_requester) and is not waiting out an
//          RNR delay: the rest of a started WQE waits for no hold, which
//          all concern later WQEs.
//   flush  an ERROR QP still has WQEs in flight or posted: flush them.
// The engine takes them in the order of priority bind, retry, flush, pick:
// a flush is a few jobs that end a QP, and behind the picks of busy QPs
// (a paused WQE is picked again and again) it would wait for all of them.
//
// The READ limit (QP_FLAGS.MAX_RD, 0 meaning 1, at most MAX_RD_ATOMIC)
// counts the READs among cur's WQEs in flight; rd_at_limit says the READ the
// engine decodes must wait.
//
// Why the verdicts are kept and not computed for every QP each cycle: with
// hundreds of QPs the contexts are RAM, read a row at a time, and the
// scheduler cannot see every QP at once. A QP's context changes only where
// the engine writes it: the job's QPs (cur, and the received frame's QP
// while one is parsed), the QP command's, the doorbell's (touch_qp). The
// scheduler keeps its verdicts for every QP in flip-flops (six bits a QP)
// and, the cycle after, reads the rows of the QPs touched (look_qp) and
// computes theirs afresh; every other QP's verdict still stands, as its row
// has not changed. So the verdicts this cycle are what the rows say now,
// the cycle the rows say it, as if each were computed from scratch. A fifth
// read (the sweep) walks every QP in turn, and an assertion checks that its
// kept verdict is what its row says.
//
// The round-robin pointer moves past pick_q when the engine takes a pick
// (advance).
module rnic_sq_scheduler #(
  parameter int unsigned NUM_QP = rnic_pkg::NUM_QP,
  localparam int unsigned QW    = $clog2(NUM_QP),
  localparam int unsigned D     = rnic_pkg::MAX_RD_ATOMIC,
  localparam int unsigned DW    = $clog2(D),
  localparam int unsigned TOUCH = 4,          // QPs the engine may write in one cycle
  localparam int unsigned LOOKS = TOUCH + 1,  // and the sweep
  localparam int unsigned CFW   = rnic_pkg::SCHED_CFG_W,
  localparam int unsigned XSW   = rnic_pkg::SCHED_XS_W
) (
  input  logic                 clk,
  input  logic                 rst_n,
  input  logic [4:0]           mutant,       // rnic_pkg::MUTANT_*: 0 outside verification builds

  // The QPs whose contexts may be written this cycle, each at [QW*t +: QW]
  // (a QP named that is not written costs nothing but a read).
  input  logic [TOUCH*QW-1:0]  touch_qp,
  // Their rows, read the cycle after (look_qp is registered), and the sweep's
  // as look LOOKS-1.
  output logic [LOOKS*QW-1:0]  look_qp,
  input  logic [LOOKS*CFW-1:0] look_cfg,     // rnic_pkg::sched_cfg_t at [CFW*l +: CFW]
  input  logic [LOOKS*XSW-1:0] look_xs,      // rnic_pkg::sched_xs_t at [XSW*l +: XSW]
  input  logic [NUM_QP-1:0]    retry_due,    // QP i's retransmission is due (rnic_ack_timer)

  input  logic                 advance,
  output logic                 pick_any,
  output logic [QW-1:0]        pick_q,
  output logic                 bind_any,
  output logic [QW-1:0]        bind_q,
  output logic                 retry_any,
  output logic [QW-1:0]        retry_q,
  output logic                 flush_any,
  output logic [QW-1:0]        flush_q,

  // cur's READ limit: its WQEs in flight (slot s's opcode at [8*s +: 8]),
  // its indices and its QP_FLAGS.
  input  logic [8*D-1:0]       cur_ops,
  input  logic [15:0]          cur_sq_ci,
  input  logic [15:0]          cur_done,
  /* verilator lint_off UNUSEDSIGNAL */   // QP_FLAGS but MAX_RD
  input  logic [7:0]           cur_flags,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic                 rd_at_limit
);
  localparam logic [1:0] RTS   = 2'(rnic_pkg::QP_STATE_RTS);
  localparam logic [1:0] ERROR = 2'(rnic_pkg::QP_STATE_ERROR);

  logic [QW-1:0] rr, sweep;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      rr      <= '0;
      sweep   <= '0;
      look_qp <= '0;
    end else begin
      if (advance) rr <= pick_q + QW'(1);
      sweep   <= sweep + QW'(1);
      look_qp <= {sweep + QW'(1), touch_qp};
    end
  end

  // The verdicts kept per QP (k_*) and this cycle's (n_*): the kept ones
  // with the rows read now in their place. ready, the pick's condition, is
  // split where the bind fence's mutant acts:
  //   go     RTS, no RNR wait, and a posted WQE no hold but the bind fence's stops;
  //   paused RTS, no RNR wait, a WQE paused between packets (no hold applies);
  //   bw     RTS, and a BIND in flight has not committed (the bind fence).
  // rts says whether a retry due may be taken; bind is a BIND at the
  // oldest in flight to commit; flush an ERROR QP with WQEs to flush.
  logic [NUM_QP-1:0] k_go, k_paused, k_bw, k_rts, k_bind, k_flush;
  logic [NUM_QP-1:0] n_go, n_paused, n_bw, n_rts, n_bind, n_flush;
  logic [LOOKS-1:0]  l_go, l_paused, l_bw, l_rts, l_bind, l_flush;
  for (genvar l = 0; l < LOOKS; l++) begin : g_look
    // Look l's row, unpacked in rnic_pkg::sched_cfg_t's and sched_xs_t's
    // field order (Yosys 0.23 takes no struct in a generate block).
    logic [1:0]  state;
    logic [15:0] sq_pi, rq_pi, sq_ci, done, rq_ci, hold_done;
    logic        fenced, bind_wait, rd_hold, rnr_wait, paused;
    logic [7:0]  oldest_op;
    assign {state, sq_pi, rq_pi} = look_cfg[CFW*l +: CFW];
    assign {sq_ci, done, rq_ci, hold_done, fenced, bind_wait, rd_hold, rnr_wait, paused, oldest_op} =
           look_xs[XSW*l +: XSW];
    assign l_rts[l]    = state == RTS;
    assign l_go[l]     = state == RTS && !rnr_wait && !fenced && sq_ci != sq_pi &&
                         (sq_ci - done) < 16'(D) && !(rd_hold && done == hold_done);
    assign l_paused[l] = state == RTS && !rnr_wait && paused;
    assign l_bw[l]     = state == RTS && bind_wait;   // only go reads it; a QP in RESET has no row yet
    assign l_bind[l]   = state == RTS && sq_ci != done && oldest_op == rnic_pkg::OP_BIND;
    assign l_flush[l]  = state == ERROR && (done != sq_ci || sq_ci != sq_pi || rq_ci != rq_pi);
  end
  always_comb begin
    n_go = k_go; n_paused = k_paused; n_bw = k_bw; n_rts = k_rts; n_bind = k_bind; n_flush = k_flush;
    for (int unsigned l = 0; l < LOOKS; l++) begin
      logic [QW-1:0] q;
      q = look_qp[QW*l +: QW];
      n_go[q] = l_go[l]; n_paused[q] = l_paused[l]; n_bw[q] = l_bw[l];
      n_rts[q] = l_rts[l]; n_bind[q] = l_bind[l]; n_flush[q] = l_flush[l];
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      // Every QP is in RESET: no verdict is true.
      k_go <= '0; k_paused <= '0; k_bw <= '0; k_rts <= '0; k_bind <= '0; k_flush <= '0;
    end else begin
      k_go <= n_go; k_paused <= n_paused; k_bw <= n_bw; k_rts <= n_rts; k_bind <= n_bind; k_flush <= n_flush;
    end
  end

  logic [NUM_QP-1:0] ready;
  always_comb begin
    if (mutant == rnic_pkg::MUTANT_NO_BIND_FENCE) ready = n_paused | n_go;
    else                                          ready = n_paused | (n_go & ~n_bw);
  end
  rnic_rr_pick #(.N(NUM_QP)) u_pick  (.req(ready),             .from(rr), .any(pick_any),  .idx(pick_q));
  rnic_rr_pick #(.N(NUM_QP)) u_bind  (.req(n_bind),            .from(rr), .any(bind_any),  .idx(bind_q));
  rnic_rr_pick #(.N(NUM_QP)) u_retry (.req(retry_due & n_rts), .from(rr), .any(retry_any), .idx(retry_q));
  rnic_rr_pick #(.N(NUM_QP)) u_flush (.req(n_flush),           .from(rr), .any(flush_any), .idx(flush_q));

  // cur's READs in flight against its limit.
  logic [DW:0] rd_inflight, rd_limit;
  logic [rnic_pkg::QP_FLAGS_MAX_RD_W-1:0] max_rd;
  always_comb begin
    logic [15:0] n;
    logic [DW-1:0] s;
    n = cur_sq_ci - cur_done;
    rd_inflight = '0;
    for (int unsigned j = 0; j < D; j++) begin
      s = cur_done[DW-1:0] + DW'(j);
      if (16'(j) < n && cur_ops[8*s +: 8] == rnic_pkg::OP_RDMA_READ)
        rd_inflight = rd_inflight + (DW+1)'(1);
    end
    max_rd = cur_flags[rnic_pkg::QP_FLAGS_MAX_RD_LSB +: rnic_pkg::QP_FLAGS_MAX_RD_W];
    if (max_rd == '0)              rd_limit = (DW+1)'(1);
    else if (32'(max_rd) > 32'(D)) rd_limit = (DW+1)'(D);
    else                           rd_limit = (DW+1)'(max_rd);
    rd_at_limit = rd_inflight >= rd_limit;
  end

`ifndef SYNTHESIS
  initial a_row_widths: assert (CFW == $bits(rnic_pkg::sched_cfg_t) && XSW == $bits(rnic_pkg::sched_xs_t))
    else $fatal(1, "rnic_pkg::SCHED_CFG_W / SCHED_XS_W are not the structs' widths");

  // The kept verdicts are the rows': the sweep's QP, unless a touch reads it
  // too (its kept verdict is then rightly old), has the verdict its row gives.
  logic sweep_touched;
  always_comb begin
    logic [QW-1:0] q;
    q = look_qp[QW*TOUCH +: QW];
    sweep_touched = 1'b0;
    for (int unsigned t = 0; t < TOUCH; t++) sweep_touched |= look_qp[QW*t +: QW] == q;
  end
  always_ff @(posedge clk) begin
    if (rst_n && !sweep_touched) begin
      a_kept: assert ({k_go[look_qp[QW*TOUCH +: QW]], k_paused[look_qp[QW*TOUCH +: QW]],
                       k_bw[look_qp[QW*TOUCH +: QW]], k_rts[look_qp[QW*TOUCH +: QW]],
                       k_bind[look_qp[QW*TOUCH +: QW]], k_flush[look_qp[QW*TOUCH +: QW]]} ==
                      {l_go[TOUCH], l_paused[TOUCH], l_bw[TOUCH], l_rts[TOUCH], l_bind[TOUCH], l_flush[TOUCH]})
        else $error("scheduler: QP %0d's kept verdicts differ from its row (a write not in touch_qp?)",
                    look_qp[QW*TOUCH +: QW]);
    end
  end
`endif
endmodule
