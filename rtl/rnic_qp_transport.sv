// Each QP's transport state (PSNs, consumer indices, what is in flight, the
// responder's cursors; rnic_pkg::qp_xs_t) and the table of WQEs in
// flight: what moves with the work, where rnic_qp_config holds what software
// configured.
//
// Two writers, in this order of priority: the job (one QP per cycle, a write
// enable per field) over the QP commands (INIT clears a QP's state for a new
// connection: indices, holds, the RNR wait, a resend under way, a sequence
// NAK's silence; RTS sets its starting PSNs, acked_psn to its first send PSN,
// and its retry counts from QP_TIMERS; RESET drops its fence holds). Only
// the fields a job names change, so a command and a job on one QP in one
// cycle each keep what the other does not write.
//
// Nothing here is reset: a QP leaves RESET only through INIT, which clears
// every index, hold and flag, and RTS sets the PSNs and counts before the
// QP sends or accepts a packet (rnic_qp_config keeps the state). So each
// field can be a RAM.
//
// Kept in per-field arrays (Yosys reads no array of structs) and read
// through struct ports: the job's QP, the received frame's QP, a doorbell's
// QP, the scheduler's next QP, and the scheduler's looks (the rows of the
// QPs written the cycle before, at registered addresses).
module rnic_qp_transport #(
  parameter int unsigned NUM_QP = rnic_pkg::NUM_QP,
  parameter int unsigned LOOKS  = 5,
  localparam int unsigned QW  = $clog2(NUM_QP),
  localparam int unsigned D   = rnic_pkg::MAX_RD_ATOMIC,
  localparam int unsigned DW  = $clog2(D),
  localparam int unsigned XSW = rnic_pkg::SCHED_XS_W
) (
  input  logic clk,
  input  logic rst_n,

  input  logic          cmd_valid,
  input  logic [2:0]    cmd,             // rnic_pkg::QP_CMD_*
  input  logic [QW-1:0] cmd_sel,
  input  logic          cmd_in_init,     // cmd_sel is in INIT (RTS applies only then)
  input  logic [23:0]   cmd_sq_psn,
  input  logic [23:0]   cmd_rq_psn,
  input  logic [2:0]    cmd_retry_cnt,
  input  logic [2:0]    cmd_rnr_retry,

  input  logic [QW-1:0]              wr_qp,
  input  rnic_pkg::qp_xs_we_t         wr_we,
  input  rnic_pkg::qp_xs_t            wr_data,
  input  logic [QW+DW-1:0]           fl_slot,
  input  rnic_pkg::flight_we_t        fl_we,
  input  rnic_pkg::flight_t           fl_data,

  input  logic [QW-1:0]             cur,
  output rnic_pkg::qp_xs_t            cur_xs,
  output rnic_pkg::flight_t           cur_oldest,  // cur's oldest WQE in flight
  output logic [8*D-1:0]            cur_ops,     // the opcode at each of cur's in-flight slots
  input  logic [QW-1:0]             pq,
  output rnic_pkg::qp_xs_t            pq_xs,
  output rnic_pkg::flight_t           pq_oldest,
  input  logic [QW-1:0]             db,
  output logic [15:0]               db_sq_ci,
  output logic [15:0]               db_rq_ci,
  input  logic [QW-1:0]             nxt,
  output logic [15:0]               nxt_sq_ci,   // the WQE a pick of nxt fetches (a paused one again)
  output logic [15:0]               nxt_done,

  // The scheduler's looks: QP look_qp[QW*l +: QW]'s row at [XSW*l +: XSW].
  input  logic [LOOKS*QW-1:0]   look_qp,
  output logic [LOOKS*XSW-1:0]  look_xs
);
  logic [23:0] q_sq_psn [NUM_QP];
  logic [23:0] q_rq_psn [NUM_QP];
  logic [23:0] q_msn [NUM_QP];
  logic [15:0] q_sq_ci [NUM_QP];
  logic [15:0] q_rq_ci [NUM_QP];
  logic [15:0] q_done [NUM_QP];
  logic        q_fenced [NUM_QP];
  logic        q_bind_wait [NUM_QP];
  logic        q_rd_hold [NUM_QP];
  logic [15:0] q_hold_done [NUM_QP];
  logic [31:0] q_out_got [NUM_QP];
  logic [63:0] q_wr_va [NUM_QP];
  logic [31:0] q_wr_left [NUM_QP];
  logic [31:0] q_wr_rkey [NUM_QP];
  logic [31:0] q_rcv_got [NUM_QP];
  logic        q_snd_open [NUM_QP];
  logic [2:0]  q_retry_left [NUM_QP];
  logic [2:0]  q_rnr_left [NUM_QP];
  logic        q_rnr_wait [NUM_QP];
  logic        q_retrying [NUM_QP];
  logic [1:0]  q_kick_why [NUM_QP];
  logic [23:0] q_acked_psn [NUM_QP];
  logic        q_nak_sent [NUM_QP];
  logic        q_paused [NUM_QP];
  logic [15:0] q_pause_pkts [NUM_QP];
  logic [7:0]  o_op [NUM_QP*D];
  logic [23:0] o_first [NUM_QP*D];
  logic [23:0] o_last [NUM_QP*D];
  logic [31:0] o_len [NUM_QP*D];

  // Field by field: Yosys 0.23 reads neither a struct a function returns
  // nor an assignment pattern with names.
  logic [QW+DW-1:0] cur_old_slot, pq_old_slot;
  always_comb begin
    cur_xs.sq_psn    = q_sq_psn[cur];    pq_xs.sq_psn    = q_sq_psn[pq];
    cur_xs.rq_psn    = q_rq_psn[cur];    pq_xs.rq_psn    = q_rq_psn[pq];
    cur_xs.msn       = q_msn[cur];       pq_xs.msn       = q_msn[pq];
    cur_xs.sq_ci     = q_sq_ci[cur];     pq_xs.sq_ci     = q_sq_ci[pq];
    cur_xs.rq_ci     = q_rq_ci[cur];     pq_xs.rq_ci     = q_rq_ci[pq];
    cur_xs.done      = q_done[cur];      pq_xs.done      = q_done[pq];
    cur_xs.fenced    = q_fenced[cur];    pq_xs.fenced    = q_fenced[pq];
    cur_xs.bind_wait = q_bind_wait[cur]; pq_xs.bind_wait = q_bind_wait[pq];
    cur_xs.rd_hold   = q_rd_hold[cur];   pq_xs.rd_hold   = q_rd_hold[pq];
    cur_xs.hold_done = q_hold_done[cur]; pq_xs.hold_done = q_hold_done[pq];
    cur_xs.out_got   = q_out_got[cur];   pq_xs.out_got   = q_out_got[pq];
    cur_xs.wr_va     = q_wr_va[cur];     pq_xs.wr_va     = q_wr_va[pq];
    cur_xs.wr_left   = q_wr_left[cur];   pq_xs.wr_left   = q_wr_left[pq];
    cur_xs.wr_rkey   = q_wr_rkey[cur];   pq_xs.wr_rkey   = q_wr_rkey[pq];
    cur_xs.rcv_got   = q_rcv_got[cur];   pq_xs.rcv_got   = q_rcv_got[pq];
    cur_xs.snd_open  = q_snd_open[cur];  pq_xs.snd_open  = q_snd_open[pq];
    cur_xs.retry_left = q_retry_left[cur]; pq_xs.retry_left = q_retry_left[pq];
    cur_xs.rnr_left  = q_rnr_left[cur];  pq_xs.rnr_left  = q_rnr_left[pq];
    cur_xs.rnr_wait  = q_rnr_wait[cur];  pq_xs.rnr_wait  = q_rnr_wait[pq];
    cur_xs.retrying  = q_retrying[cur];  pq_xs.retrying  = q_retrying[pq];
    cur_xs.kick_why  = q_kick_why[cur];  pq_xs.kick_why  = q_kick_why[pq];
    cur_xs.acked_psn = q_acked_psn[cur]; pq_xs.acked_psn = q_acked_psn[pq];
    cur_xs.nak_sent  = q_nak_sent[cur];  pq_xs.nak_sent  = q_nak_sent[pq];
    cur_xs.paused    = q_paused[cur];    pq_xs.paused    = q_paused[pq];
    cur_xs.pause_pkts = q_pause_pkts[cur]; pq_xs.pause_pkts = q_pause_pkts[pq];
    cur_old_slot = {cur, q_done[cur][DW-1:0]};
    pq_old_slot  = {pq, q_done[pq][DW-1:0]};
    cur_oldest.op    = o_op[cur_old_slot]; pq_oldest.op    = o_op[pq_old_slot];
    cur_oldest.first = o_first[cur_old_slot]; pq_oldest.first = o_first[pq_old_slot];
    cur_oldest.last  = o_last[cur_old_slot]; pq_oldest.last  = o_last[pq_old_slot];
    cur_oldest.len   = o_len[cur_old_slot]; pq_oldest.len   = o_len[pq_old_slot];
    db_sq_ci   = q_sq_ci[db];
    db_rq_ci   = q_rq_ci[db];
    // A paused WQE is fetched again to send its rest.
    nxt_sq_ci  = q_sq_ci[nxt] - 16'(q_paused[nxt]);
    nxt_done   = q_done[nxt];
    for (int unsigned j = 0; j < D; j++) cur_ops[8*j +: 8] = o_op[{cur, DW'(j)}];
    // Packed as rnic_pkg::sched_xs_t, field by field (Yosys 0.23 takes no
    // struct declared in a loop).
    for (int unsigned l = 0; l < LOOKS; l++) begin
      logic [QW-1:0] q;
      q = look_qp[QW*l +: QW];
      look_xs[XSW*l +: XSW] = {q_sq_ci[q], q_done[q], q_rq_ci[q], q_hold_done[q],
                               q_fenced[q], q_bind_wait[q], q_rd_hold[q], q_rnr_wait[q], q_paused[q],
                               o_op[{q, q_done[q][DW-1:0]}]};
    end
  end

  always_ff @(posedge clk) begin
    if (rst_n) begin
      if (cmd_valid) begin
        unique case (cmd)
          3'(rnic_pkg::QP_CMD_INIT): begin
            q_sq_ci[cmd_sel] <= '0;
            q_rq_ci[cmd_sel] <= '0;
            q_done[cmd_sel] <= '0;
            q_fenced[cmd_sel] <= 1'b0;
            q_bind_wait[cmd_sel] <= 1'b0;
            q_rd_hold[cmd_sel] <= 1'b0;
            q_out_got[cmd_sel] <= '0;
            q_rcv_got[cmd_sel] <= '0;
            q_snd_open[cmd_sel] <= 1'b0;
            q_wr_left[cmd_sel] <= '0;   // no WRITE continues from a previous connection
            q_msn[cmd_sel] <= '0;
            q_rnr_wait[cmd_sel] <= 1'b0;
            q_retrying[cmd_sel] <= 1'b0;
            q_kick_why[cmd_sel] <= 2'(rnic_pkg::RETRY_WHY_TIMEOUT);
            q_nak_sent[cmd_sel] <= 1'b0;
            q_paused[cmd_sel] <= 1'b0;
          end
          3'(rnic_pkg::QP_CMD_RTS): if (cmd_in_init) begin
            q_sq_psn[cmd_sel] <= cmd_sq_psn;
            q_rq_psn[cmd_sel] <= cmd_rq_psn;
            q_acked_psn[cmd_sel] <= cmd_sq_psn;
            q_retry_left[cmd_sel] <= cmd_retry_cnt;
            q_rnr_left[cmd_sel] <= cmd_rnr_retry;
          end
          3'(rnic_pkg::QP_CMD_RESET): begin
            q_fenced[cmd_sel] <= 1'b0;
            q_bind_wait[cmd_sel] <= 1'b0;
          end
          default: ;
        endcase
      end
      // The job's write, after the command's: it wins on a field both write.
      if (wr_we.sq_psn)    q_sq_psn[wr_qp]    <= wr_data.sq_psn;
      if (wr_we.rq_psn)    q_rq_psn[wr_qp]    <= wr_data.rq_psn;
      if (wr_we.msn)       q_msn[wr_qp]       <= wr_data.msn;
      if (wr_we.sq_ci)     q_sq_ci[wr_qp]     <= wr_data.sq_ci;
      if (wr_we.rq_ci)     q_rq_ci[wr_qp]     <= wr_data.rq_ci;
      if (wr_we.done)      q_done[wr_qp]      <= wr_data.done;
      if (wr_we.fenced)    q_fenced[wr_qp]    <= wr_data.fenced;
      if (wr_we.bind_wait) q_bind_wait[wr_qp] <= wr_data.bind_wait;
      if (wr_we.rd_hold)   q_rd_hold[wr_qp]   <= wr_data.rd_hold;
      if (wr_we.hold_done) q_hold_done[wr_qp] <= wr_data.hold_done;
      if (wr_we.out_got)   q_out_got[wr_qp]   <= wr_data.out_got;
      if (wr_we.wr_va)     q_wr_va[wr_qp]     <= wr_data.wr_va;
      if (wr_we.wr_left)   q_wr_left[wr_qp]   <= wr_data.wr_left;
      if (wr_we.wr_rkey)   q_wr_rkey[wr_qp]   <= wr_data.wr_rkey;
      if (wr_we.rcv_got)   q_rcv_got[wr_qp]   <= wr_data.rcv_got;
      if (wr_we.snd_open)  q_snd_open[wr_qp]  <= wr_data.snd_open;
      if (wr_we.retry_left) q_retry_left[wr_qp] <= wr_data.retry_left;
      if (wr_we.rnr_left)  q_rnr_left[wr_qp]  <= wr_data.rnr_left;
      if (wr_we.rnr_wait)  q_rnr_wait[wr_qp]  <= wr_data.rnr_wait;
      if (wr_we.retrying)  q_retrying[wr_qp]  <= wr_data.retrying;
      if (wr_we.kick_why)  q_kick_why[wr_qp]  <= wr_data.kick_why;
      if (wr_we.acked_psn) q_acked_psn[wr_qp] <= wr_data.acked_psn;
      if (wr_we.nak_sent)  q_nak_sent[wr_qp]  <= wr_data.nak_sent;
      if (wr_we.paused)    q_paused[wr_qp]    <= wr_data.paused;
      if (wr_we.pause_pkts) q_pause_pkts[wr_qp] <= wr_data.pause_pkts;
    end
  end

  // The in-flight table: written only by the requester, never reset (a
  // slot is read only between its WQE's start and its completion).
  always_ff @(posedge clk) begin
    if (rst_n) begin
      if (fl_we.op)    o_op[fl_slot]    <= fl_data.op;
      if (fl_we.first) o_first[fl_slot] <= fl_data.first;
      if (fl_we.last)  o_last[fl_slot]  <= fl_data.last;
      if (fl_we.len)   o_len[fl_slot]   <= fl_data.len;
    end
  end
endmodule
