// Each QP's transport state (PSNs, consumer indices, what is in flight, the
// responder's cursors; rnic_pkg::qp_xs_t) and the table of WQEs in
// flight: what moves with the work, where rnic_qp_config holds what software
// configured.
//
// Two writers of the state (not of the arrays that hold it: see below), in
// this order of priority: the job (one QP per cycle, a write enable per
// field) over the QP commands (INIT clears a QP's state for a new
// connection: indices, holds, the RNR wait, a resend under way, a sequence
// NAK's silence; RTS sets its starting PSNs, acked_psn to its first send PSN,
// and its retry counts from QP_TIMERS; RESET drops its fence holds). Only
// the fields a job names change, so a command and a job on one QP in one
// cycle each keep what the other does not write.
//
// Each field is an array with ONE write port, the job's at wr_qp, and no
// reset, so that it can be LUT RAM (with two, Yosys builds it from
// flip-flops: 65,536 of them at 256 QPs). A command does not write the
// field arrays; it sets a fresh bit of its QP (flip-flops, a bit a QP and
// a group of fields) instead:
//   init_fresh  set by INIT: every field INIT clears reads as INIT's value
//               (0; kick_why RETRY_WHY_TIMEOUT);
//   hold_fresh  set by INIT and RESET: fenced and bind_wait read 0 (their
//               own bit, RESET clearing them alone; one bit for both costs
//               less than the two bits a QP they would take as flip-flops
//               with two writers, each read through a NUM_QP-way mux);
//   rts_fresh   set by RTS from INIT: sq_psn, rq_psn, acked_psn, retry_left
//               and rnr_left read their start values, kept in arrays only
//               RTS writes (s_*0: one write port each too).
// The job's first write to a QP whose group is fresh (the bit set, or the
// command setting it in that cycle) writes every field of the group: the
// ones it names from wr_data, the others with what they read as; and
// clears the bit. So the job still wins over a command on one QP in one
// cycle on a field both write, and the command's other fields still take
// the command's values, as when both wrote the fields.
//
// Nothing here but the fresh bits is reset: a QP leaves RESET only through
// INIT, which clears every index, hold and flag, and RTS sets the PSNs and
// counts before the QP sends or accepts a packet (rnic_qp_config keeps the
// state). rst_n makes every QP INIT-fresh (its INIT fields read INIT's
// values until the job writes them) and none RTS-fresh.
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
  // The field arrays: one write port each (the job's, at wr_qp), no reset.
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
  // RTS's start values (one write port each: RTS's, at cmd_sel; no reset),
  // read while rts_fresh says the QP's own fields do not hold them yet.
  logic [23:0] s_sq_psn0 [NUM_QP];   // sq_psn and acked_psn
  logic [23:0] s_rq_psn0 [NUM_QP];
  logic [2:0]  s_retry0 [NUM_QP];
  logic [2:0]  s_rnr0 [NUM_QP];
  logic [7:0]  o_op [NUM_QP*D];
  logic [23:0] o_first [NUM_QP*D];
  logic [23:0] o_last [NUM_QP*D];
  logic [31:0] o_len [NUM_QP*D];
  // Flip-flops, a bit a QP: the groups that read as the command left them
  // (the header says what each covers).
  logic [NUM_QP-1:0] init_fresh;
  logic [NUM_QP-1:0] hold_fresh;
  logic [NUM_QP-1:0] rts_fresh;

  localparam logic [1:0] KICK_INIT = 2'(rnic_pkg::RETRY_WHY_TIMEOUT);

  // This cycle's command, decoded; and whether the job's write fills each
  // group of wr_qp (the group is fresh, or made fresh by this very
  // command), with the start values RTS's fields take then.
  logic        c_init, c_rts, c_reset;
  logic        wr_any, wr_init, wr_hold, wr_rts, rts_here;
  logic [23:0] st_sq_psn, st_rq_psn;
  logic [2:0]  st_retry, st_rnr;
  always_comb begin
    c_init = 1'b0;
    c_rts = 1'b0;
    c_reset = 1'b0;
    if (cmd_valid) begin
      unique case (cmd)
        3'(rnic_pkg::QP_CMD_INIT):  c_init = 1'b1;
        3'(rnic_pkg::QP_CMD_RTS):   c_rts = cmd_in_init;
        3'(rnic_pkg::QP_CMD_RESET): c_reset = 1'b1;
        default: ;
      endcase
    end
    wr_any   = |wr_we;
    rts_here = c_rts && cmd_sel == wr_qp;
    wr_init  = wr_any && (init_fresh[wr_qp] || (c_init && cmd_sel == wr_qp));
    wr_hold  = wr_any && (hold_fresh[wr_qp] || ((c_init || c_reset) && cmd_sel == wr_qp));
    wr_rts   = wr_any && (rts_fresh[wr_qp] || rts_here);
    // The start values: this cycle's RTS's if it names wr_qp (its arrays
    // take them only at the edge), else the last RTS's.
    st_sq_psn = rts_here ? cmd_sq_psn : s_sq_psn0[wr_qp];
    st_rq_psn = rts_here ? cmd_rq_psn : s_rq_psn0[wr_qp];
    st_retry  = rts_here ? cmd_retry_cnt : s_retry0[wr_qp];
    st_rnr    = rts_here ? cmd_rnr_retry : s_rnr0[wr_qp];
  end

  // Field by field: Yosys 0.23 reads neither a struct a function returns
  // nor an assignment pattern with names. A fresh group reads as its
  // command left it, whatever its RAM words hold.
  logic             cur_i, cur_h, cur_r, pq_i, pq_h, pq_r, db_i, nxt_i;
  logic [15:0]      cur_done, pq_done;
  logic [QW+DW-1:0] cur_old_slot, pq_old_slot;
  always_comb begin
    cur_i = init_fresh[cur]; cur_h = hold_fresh[cur]; cur_r = rts_fresh[cur];
    pq_i  = init_fresh[pq];  pq_h  = hold_fresh[pq];  pq_r  = rts_fresh[pq];
    db_i  = init_fresh[db];
    nxt_i = init_fresh[nxt];
    cur_done = cur_i ? 16'd0 : q_done[cur];
    pq_done  = pq_i ? 16'd0 : q_done[pq];
    cur_xs.sq_psn    = cur_r ? s_sq_psn0[cur] : q_sq_psn[cur];
    pq_xs.sq_psn     = pq_r ? s_sq_psn0[pq] : q_sq_psn[pq];
    cur_xs.rq_psn    = cur_r ? s_rq_psn0[cur] : q_rq_psn[cur];
    pq_xs.rq_psn     = pq_r ? s_rq_psn0[pq] : q_rq_psn[pq];
    cur_xs.msn       = cur_i ? 24'd0 : q_msn[cur];
    pq_xs.msn        = pq_i ? 24'd0 : q_msn[pq];
    cur_xs.sq_ci     = cur_i ? 16'd0 : q_sq_ci[cur];
    pq_xs.sq_ci      = pq_i ? 16'd0 : q_sq_ci[pq];
    cur_xs.rq_ci     = cur_i ? 16'd0 : q_rq_ci[cur];
    pq_xs.rq_ci      = pq_i ? 16'd0 : q_rq_ci[pq];
    cur_xs.done      = cur_done;
    pq_xs.done       = pq_done;
    cur_xs.fenced    = !cur_h && q_fenced[cur];
    pq_xs.fenced     = !pq_h && q_fenced[pq];
    cur_xs.bind_wait = !cur_h && q_bind_wait[cur];
    pq_xs.bind_wait  = !pq_h && q_bind_wait[pq];
    cur_xs.rd_hold   = !cur_i && q_rd_hold[cur];
    pq_xs.rd_hold    = !pq_i && q_rd_hold[pq];
    cur_xs.hold_done = q_hold_done[cur]; pq_xs.hold_done = q_hold_done[pq];
    cur_xs.out_got   = cur_i ? 32'd0 : q_out_got[cur];
    pq_xs.out_got    = pq_i ? 32'd0 : q_out_got[pq];
    cur_xs.wr_va     = q_wr_va[cur];     pq_xs.wr_va     = q_wr_va[pq];
    cur_xs.wr_left   = cur_i ? 32'd0 : q_wr_left[cur];
    pq_xs.wr_left    = pq_i ? 32'd0 : q_wr_left[pq];
    cur_xs.wr_rkey   = q_wr_rkey[cur];   pq_xs.wr_rkey   = q_wr_rkey[pq];
    cur_xs.rcv_got   = cur_i ? 32'd0 : q_rcv_got[cur];
    pq_xs.rcv_got    = pq_i ? 32'd0 : q_rcv_got[pq];
    cur_xs.snd_open  = !cur_i && q_snd_open[cur];
    pq_xs.snd_open   = !pq_i && q_snd_open[pq];
    cur_xs.retry_left = cur_r ? s_retry0[cur] : q_retry_left[cur];
    pq_xs.retry_left = pq_r ? s_retry0[pq] : q_retry_left[pq];
    cur_xs.rnr_left  = cur_r ? s_rnr0[cur] : q_rnr_left[cur];
    pq_xs.rnr_left   = pq_r ? s_rnr0[pq] : q_rnr_left[pq];
    cur_xs.rnr_wait  = !cur_i && q_rnr_wait[cur];
    pq_xs.rnr_wait   = !pq_i && q_rnr_wait[pq];
    cur_xs.retrying  = !cur_i && q_retrying[cur];
    pq_xs.retrying   = !pq_i && q_retrying[pq];
    cur_xs.kick_why  = cur_i ? KICK_INIT : q_kick_why[cur];
    pq_xs.kick_why   = pq_i ? KICK_INIT : q_kick_why[pq];
    cur_xs.acked_psn = cur_r ? s_sq_psn0[cur] : q_acked_psn[cur];
    pq_xs.acked_psn  = pq_r ? s_sq_psn0[pq] : q_acked_psn[pq];
    cur_xs.nak_sent  = !cur_i && q_nak_sent[cur];
    pq_xs.nak_sent   = !pq_i && q_nak_sent[pq];
    cur_xs.paused    = !cur_i && q_paused[cur];
    pq_xs.paused     = !pq_i && q_paused[pq];
    cur_xs.pause_pkts = q_pause_pkts[cur]; pq_xs.pause_pkts = q_pause_pkts[pq];
    cur_old_slot = {cur, cur_done[DW-1:0]};
    pq_old_slot  = {pq, pq_done[DW-1:0]};
    cur_oldest.op    = o_op[cur_old_slot]; pq_oldest.op    = o_op[pq_old_slot];
    cur_oldest.first = o_first[cur_old_slot]; pq_oldest.first = o_first[pq_old_slot];
    cur_oldest.last  = o_last[cur_old_slot]; pq_oldest.last  = o_last[pq_old_slot];
    cur_oldest.len   = o_len[cur_old_slot]; pq_oldest.len   = o_len[pq_old_slot];
    db_sq_ci   = db_i ? 16'd0 : q_sq_ci[db];
    db_rq_ci   = db_i ? 16'd0 : q_rq_ci[db];
    // A paused WQE is fetched again to send its rest (INIT-fresh: sq_ci 0,
    // not paused).
    nxt_sq_ci  = nxt_i ? 16'd0 : q_sq_ci[nxt] - 16'(q_paused[nxt]);
    nxt_done   = nxt_i ? 16'd0 : q_done[nxt];
    for (int unsigned j = 0; j < D; j++) cur_ops[8*j +: 8] = o_op[{cur, DW'(j)}];
    // Packed as rnic_pkg::sched_xs_t, field by field (Yosys 0.23 takes no
    // struct declared in a loop).
    for (int unsigned l = 0; l < LOOKS; l++) begin
      logic [QW-1:0] q;
      logic          fi, fh;
      logic [15:0]   dn;
      q  = look_qp[QW*l +: QW];
      fi = init_fresh[q];
      fh = hold_fresh[q];
      dn = fi ? 16'd0 : q_done[q];
      look_xs[XSW*l +: XSW] = {fi ? 16'd0 : q_sq_ci[q], dn, fi ? 16'd0 : q_rq_ci[q], q_hold_done[q],
                               !fh && q_fenced[q], !fh && q_bind_wait[q], !fi && q_rd_hold[q],
                               !fi && q_rnr_wait[q], !fi && q_paused[q], o_op[{q, dn[DW-1:0]}]};
    end
  end

  // The fresh bits. The command sets its QP's; the job's write clears
  // wr_qp's after it (it has just written the whole group if it was fresh,
  // and a clear bit stays clear), so on one QP in one cycle the job wins.
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      init_fresh <= '1;
      hold_fresh <= '1;
      rts_fresh <= '0;   // no start values yet: RTS comes after INIT
    end else begin
      if (c_init) begin
        init_fresh[cmd_sel] <= 1'b1;
        hold_fresh[cmd_sel] <= 1'b1;
      end
      if (c_reset) hold_fresh[cmd_sel] <= 1'b1;
      if (c_rts) rts_fresh[cmd_sel] <= 1'b1;
      if (wr_any) begin
        init_fresh[wr_qp] <= 1'b0;
        hold_fresh[wr_qp] <= 1'b0;
        rts_fresh[wr_qp] <= 1'b0;
      end
    end
  end

  // The write ports, one an array, all gated by rst_n as the fresh bits'
  // updates are: nothing moves in reset. A field of a fresh group is
  // written when the job names it (wr_data's) or fills the group (the value
  // it reads as).
  // RTS's start values, at cmd_sel.
  always_ff @(posedge clk) begin
    if (rst_n && c_rts) begin
      s_sq_psn0[cmd_sel] <= cmd_sq_psn;
      s_rq_psn0[cmd_sel] <= cmd_rq_psn;
      s_retry0[cmd_sel] <= cmd_retry_cnt;
      s_rnr0[cmd_sel] <= cmd_rnr_retry;
    end
  end
  // INIT's fields.
  always_ff @(posedge clk) begin
    if (rst_n) begin
      if (wr_we.sq_ci || wr_init)    q_sq_ci[wr_qp]    <= wr_we.sq_ci ? wr_data.sq_ci : 16'd0;
      if (wr_we.rq_ci || wr_init)    q_rq_ci[wr_qp]    <= wr_we.rq_ci ? wr_data.rq_ci : 16'd0;
      if (wr_we.done || wr_init)     q_done[wr_qp]     <= wr_we.done ? wr_data.done : 16'd0;
      if (wr_we.rd_hold || wr_init)  q_rd_hold[wr_qp]  <= wr_we.rd_hold && wr_data.rd_hold;
      if (wr_we.out_got || wr_init)  q_out_got[wr_qp]  <= wr_we.out_got ? wr_data.out_got : 32'd0;
      if (wr_we.rcv_got || wr_init)  q_rcv_got[wr_qp]  <= wr_we.rcv_got ? wr_data.rcv_got : 32'd0;
      if (wr_we.snd_open || wr_init) q_snd_open[wr_qp] <= wr_we.snd_open && wr_data.snd_open;
      // INIT's 0: no WRITE continues from a previous connection.
      if (wr_we.wr_left || wr_init)  q_wr_left[wr_qp]  <= wr_we.wr_left ? wr_data.wr_left : 32'd0;
      if (wr_we.msn || wr_init)      q_msn[wr_qp]      <= wr_we.msn ? wr_data.msn : 24'd0;
      if (wr_we.rnr_wait || wr_init) q_rnr_wait[wr_qp] <= wr_we.rnr_wait && wr_data.rnr_wait;
      if (wr_we.retrying || wr_init) q_retrying[wr_qp] <= wr_we.retrying && wr_data.retrying;
      if (wr_we.kick_why || wr_init) q_kick_why[wr_qp] <= wr_we.kick_why ? wr_data.kick_why : KICK_INIT;
      if (wr_we.nak_sent || wr_init) q_nak_sent[wr_qp] <= wr_we.nak_sent && wr_data.nak_sent;
      if (wr_we.paused || wr_init)   q_paused[wr_qp]   <= wr_we.paused && wr_data.paused;
    end
  end
  // The fence holds (INIT's and RESET's).
  always_ff @(posedge clk) begin
    if (rst_n) begin
      if (wr_we.fenced || wr_hold)    q_fenced[wr_qp]    <= wr_we.fenced && wr_data.fenced;
      if (wr_we.bind_wait || wr_hold) q_bind_wait[wr_qp] <= wr_we.bind_wait && wr_data.bind_wait;
    end
  end
  // RTS's fields: acked_psn starts at the first send PSN.
  always_ff @(posedge clk) begin
    if (rst_n) begin
      if (wr_we.sq_psn || wr_rts)     q_sq_psn[wr_qp]     <= wr_we.sq_psn ? wr_data.sq_psn : st_sq_psn;
      if (wr_we.rq_psn || wr_rts)     q_rq_psn[wr_qp]     <= wr_we.rq_psn ? wr_data.rq_psn : st_rq_psn;
      if (wr_we.acked_psn || wr_rts)  q_acked_psn[wr_qp]  <= wr_we.acked_psn ? wr_data.acked_psn : st_sq_psn;
      if (wr_we.retry_left || wr_rts) q_retry_left[wr_qp] <= wr_we.retry_left ? wr_data.retry_left : st_retry;
      if (wr_we.rnr_left || wr_rts)   q_rnr_left[wr_qp]   <= wr_we.rnr_left ? wr_data.rnr_left : st_rnr;
    end
  end
  // The job's own fields (no command writes them).
  always_ff @(posedge clk) begin
    if (rst_n) begin
      if (wr_we.hold_done)  q_hold_done[wr_qp]  <= wr_data.hold_done;
      if (wr_we.wr_va)      q_wr_va[wr_qp]      <= wr_data.wr_va;
      if (wr_we.wr_rkey)    q_wr_rkey[wr_qp]    <= wr_data.wr_rkey;
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
