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
// Combinational but for the round-robin pointer, which moves past pick_q
// when the engine takes a pick (advance).
module rnic_sq_scheduler #(
  parameter int unsigned NUM_QP = rnic_pkg::NUM_QP,
  localparam int unsigned QW    = $clog2(NUM_QP),
  localparam int unsigned D     = rnic_pkg::MAX_RD_ATOMIC,
  localparam int unsigned DW    = $clog2(D)
) (
  input  logic                clk,
  input  logic                rst_n,
  input  logic [4:0]          mutant,        // rnic_pkg::MUTANT_*: 0 outside verification builds

  // Per QP i, at [i] or [16*i +: 16] (and so on): the context fields that decide.
  input  logic [2*NUM_QP-1:0]  state,        // rnic_pkg::QP_STATE_*
  input  logic [NUM_QP-1:0]    fenced,       // the WQE at sq_ci waits for nothing in flight
  input  logic [NUM_QP-1:0]    bind_wait,    // a BIND in flight has not committed
  input  logic [NUM_QP-1:0]    rd_hold,      // the WQE at sq_ci is a READ over the limit
  input  logic [NUM_QP-1:0]    rnr_wait,     // waiting out an RNR NAK's delay
  input  logic [NUM_QP-1:0]    paused,       // the WQE before sq_ci has packets left to send
  input  logic [NUM_QP-1:0]    retry_due,    // its retransmission is due
  input  logic [16*NUM_QP-1:0] hold_done,    // ... waiting until done moves past this
  input  logic [16*NUM_QP-1:0] sq_pi,
  input  logic [16*NUM_QP-1:0] sq_ci,        // next WQE to start
  input  logic [16*NUM_QP-1:0] done,         // oldest WQE not completed
  input  logic [16*NUM_QP-1:0] rq_pi,
  input  logic [16*NUM_QP-1:0] rq_ci,
  input  logic [8*NUM_QP*D-1:0] inflight_op, // opcode of the WQE in flight at slot {qp, index mod D}
  input  logic [8*NUM_QP-1:0]  flags,        // QP_FLAGS

  input  logic                 advance,
  output logic                 pick_any,
  output logic [QW-1:0]        pick_q,
  output logic                 bind_any,
  output logic [QW-1:0]        bind_q,
  output logic                 retry_any,
  output logic [QW-1:0]        retry_q,
  output logic                 flush_any,
  output logic [QW-1:0]        flush_q,

  input  logic [QW-1:0]        cur,
  output logic                 rd_at_limit
);
  localparam logic [1:0] RTS   = 2'(rnic_pkg::QP_STATE_RTS);
  localparam logic [1:0] ERROR = 2'(rnic_pkg::QP_STATE_ERROR);

  logic [QW-1:0] rr;
  always_ff @(posedge clk) begin
    if (!rst_n)       rr <= '0;
    else if (advance) rr <= pick_q + QW'(1);
  end

  // The opcode in flight at ring index idx of QP q (slot idx mod D).
  function automatic logic [7:0] op_at(input logic [8*NUM_QP*D-1:0] ops, input logic [QW-1:0] q,
                                       input logic [DW-1:0] idx);
    op_at = ops[8*{q, idx} +: 8];
  endfunction

  logic ready [NUM_QP];
  logic bind_due [NUM_QP];
  logic has_flush [NUM_QP];
  always_comb begin
    for (int unsigned i = 0; i < NUM_QP; i++) begin
      logic [15:0] ci, d;
      ci = sq_ci[16*i +: 16];
      d  = done[16*i +: 16];
      ready[i]     = state[2*i +: 2] == RTS && !rnr_wait[i] &&
                     (paused[i] ||
                      (!fenced[i] && ci != sq_pi[16*i +: 16] && (ci - d) < 16'(D) &&
                       !(rd_hold[i] && d == hold_done[16*i +: 16]) &&
                       !(bind_wait[i] && mutant != rnic_pkg::MUTANT_NO_BIND_FENCE)));
      bind_due[i]  = state[2*i +: 2] == RTS && ci != d && op_at(inflight_op, QW'(i), d[DW-1:0]) == rnic_pkg::OP_BIND;
      has_flush[i] = state[2*i +: 2] == ERROR &&
                     (d != ci || ci != sq_pi[16*i +: 16] || rq_ci[16*i +: 16] != rq_pi[16*i +: 16]);
    end
  end

  always_comb begin
    logic [QW-1:0] k;
    pick_any = 1'b0; pick_q = '0;
    flush_any = 1'b0; flush_q = '0;
    bind_any = 1'b0; bind_q = '0;
    retry_any = 1'b0; retry_q = '0;
    for (int unsigned i = 0; i < NUM_QP; i++) begin
      k = rr + QW'(i);
      if (!pick_any && ready[k]) begin pick_any = 1'b1; pick_q = k; end
      if (!flush_any && has_flush[k]) begin flush_any = 1'b1; flush_q = k; end
      if (!bind_any && bind_due[k]) begin bind_any = 1'b1; bind_q = k; end
      if (!retry_any && retry_due[k] && state[2*k +: 2] == RTS) begin retry_any = 1'b1; retry_q = k; end
    end
  end

  // cur's READs in flight against its limit.
  logic [DW:0] rd_inflight, rd_limit;
  logic [rnic_pkg::QP_FLAGS_MAX_RD_W-1:0] max_rd;
  always_comb begin
    logic [15:0] d, n;
    d = done[16*cur +: 16];
    n = sq_ci[16*cur +: 16] - d;
    rd_inflight = '0;
    for (int unsigned j = 0; j < D; j++) begin
      if (16'(j) < n && op_at(inflight_op, cur, d[DW-1:0] + DW'(j)) == rnic_pkg::OP_RDMA_READ)
        rd_inflight = rd_inflight + (DW+1)'(1);
    end
    max_rd = flags[8*cur + rnic_pkg::QP_FLAGS_MAX_RD_LSB +: rnic_pkg::QP_FLAGS_MAX_RD_W];
    if (max_rd == '0)              rd_limit = (DW+1)'(1);
    else if (32'(max_rd) > 32'(D)) rd_limit = (DW+1)'(D);
    else                           rd_limit = (DW+1)'(max_rd);
    rd_at_limit = rd_inflight >= rd_limit;
  end

`ifndef SYNTHESIS
  // Fairness: a QP ready at every pick is picked within NUM_QP picks (the
  // pointer moves past each pick, so no QP waits behind the others twice).
  logic [QW:0] passed [NUM_QP];
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      for (int unsigned i = 0; i < NUM_QP; i++) passed[i] <= '0;
    end else if (advance) begin
      for (int unsigned i = 0; i < NUM_QP; i++) begin
        if (pick_q == QW'(i) || !ready[i]) passed[i] <= '0;
        else                               passed[i] <= passed[i] + (QW+1)'(1);
        a_fair: assert (32'(passed[i]) < NUM_QP) else $error("scheduler: a ready QP passed over NUM_QP times");
      end
    end
  end
`endif
endmodule
