// Each QP's configuration and state: what the driver's QP commands and
// doorbells write, and what the engine reads to serve the QP. It is one
// half of the QP context; the other half (ring consumer indices, PSNs, the
// WQEs in flight, the responder's cursors) moves with the work: it is
// rnic_qp_transport's, which the engine's jobs write on every packet.
//
// Writers, in the order they win when they meet on one QP in one cycle:
//   command  INIT sets the rings, CQs, PZ, flags, timers and path MTU and
//            clears the producer indices; RTS (from INIT only) sets the
//            peer's address, the flags, the timers and the path MTU; ERROR (unless in RESET) and RESET set the state.
//   doorbell a send or receive producer index, accepted when the QP is not
//            in RESET and the new index neither passes the consumer by more
//            than the ring nor moves back behind the old producer index
//            (db_ok; a refused doorbell changes nothing).
//   error    the engine moves a QP to ERROR with the status that did it; the
//            first status is kept until the next INIT (an INIT in the same
//            cycle clears the old one, so the error's is kept). A QP in
//            RESET, or reset by this cycle's command, stays there: software
//            ended it while a job of the engine was still on it, and its
//            rings and CQs may be another QP's by now (the error of a QP
//            that leaves RESET in this cycle's INIT is dropped as well,
//            judged before the edge).
//
// Reads are combinational, through one port per QP the engine names at a
// time: cur (the QP of the job, its state among its fields), pq (the QP of the received frame), nxt
// (the QP the scheduler offers next), sel (the QP of the command register),
// and the scheduler's looks (rnic_sq_scheduler: the rows of the QPs written
// the cycle before, at registered addresses).
//
// Only five bits a QP are flip-flops, and reset (below: q_live, q_err_now,
// q_err_set and the two fresh bits). Every array has one write port and no
// reset: each field is written by INIT before any reader acts on it (a QP in
// RESET takes no doorbell, no frame and no job), so the arrays, the
// state's among them, can be RAM, and NUM_QP grows in RAM, not in registers.
module rnic_qp_config #(
  parameter int unsigned NUM_QP = rnic_pkg::NUM_QP,
  parameter int unsigned NUM_CQ = rnic_pkg::NUM_CQ,
  parameter int unsigned LOOKS  = 5,
  localparam int unsigned QW    = $clog2(NUM_QP),
  localparam int unsigned CQW   = $clog2(NUM_CQ),
  localparam int unsigned CFW   = rnic_pkg::SCHED_CFG_W
) (
  input  logic                clk,
  input  logic                rst_n,

  // QP commands from the register block.
  input  logic                cmd_valid,
  input  logic [2:0]          cmd,           // rnic_pkg::QP_CMD_*
  input  logic [QW-1:0]       cmd_sel,
  input  logic [63:0]         cmd_sq_base,
  input  logic [63:0]         cmd_rq_base,
  input  logic [3:0]          cmd_sq_log,
  input  logic [3:0]          cmd_rq_log,
  input  logic [CQW-1:0]      cmd_scq,
  input  logic [CQW-1:0]      cmd_rcq,
  input  logic [15:0]         cmd_pz,
  input  logic [7:0]          cmd_flags,
  /* verilator lint_off UNUSEDSIGNAL */   // its reserved bits
  input  rnic_pkg::reg_qp_timers_t cmd_timers,
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [23:0]         cmd_remote_qpn,
  input  logic [31:0]         cmd_remote_ip,
  input  logic [47:0]         cmd_remote_mac,
  input  logic [3:0]          cmd_log_mtu,   // the path MTU, log2 bytes (rnic_pkg::path_log_mtu)

  // Producer doorbells (db_kind 0 send, 1 receive; other kinds are not a
  // QP's), checked against the engine's consumer index of that queue.
  input  logic                db_valid,
  input  logic [1:0]          db_kind,
  input  logic [QW-1:0]       db_index,
  input  logic [15:0]         db_value,
  input  logic [15:0]         db_sq_ci,
  input  logic [15:0]         db_rq_ci,
  output logic                db_ok,         // a send or receive doorbell this cycle is accepted

  // The engine moves a QP to ERROR.
  input  logic                err_valid,
  input  logic [QW-1:0]       err_qp,
  input  logic [7:0]          err_status,

  // Read port cur.
  input  logic [QW-1:0]       cur,
  output logic [63:0]         cur_sq_base,
  output logic [63:0]         cur_rq_base,
  output logic [3:0]          cur_sq_log,
  output logic [3:0]          cur_rq_log,
  output logic [CQW-1:0]      cur_scq,
  output logic [CQW-1:0]      cur_rcq,
  output logic [15:0]         cur_pz,
  output logic [23:0]         cur_remote_qpn,
  output logic [31:0]         cur_remote_ip,
  output logic [47:0]         cur_remote_mac,
  output logic [15:0]         cur_sq_pi,
  output logic [7:0]          cur_flags,
  output rnic_pkg::reg_qp_timers_t cur_timers,
  output logic [3:0]          cur_log_mtu,
  output logic [1:0]          cur_state,

  // Read port pq.
  input  logic [QW-1:0]       pq,
  output logic [1:0]          pq_state,
  output logic [63:0]         pq_sq_base,
  output logic [63:0]         pq_rq_base,
  output logic [3:0]          pq_sq_log,
  output logic [3:0]          pq_rq_log,
  output logic [CQW-1:0]      pq_scq,
  output logic [15:0]         pq_pz,
  output logic [7:0]          pq_flags,
  output rnic_pkg::reg_qp_timers_t pq_timers,
  output logic [3:0]          pq_log_mtu,
  output logic [15:0]         pq_rq_pi,

  // Read port nxt: where the next QP's send ring is.
  input  logic [QW-1:0]       nxt,
  output logic [63:0]         nxt_sq_base,
  output logic [3:0]          nxt_sq_log,

  // Read port sel.
  output logic [1:0]          sel_state,
  output logic [7:0]          sel_err,

  // The scheduler's looks: QP look_qp[QW*l +: QW]'s row at [CFW*l +: CFW].
  input  logic [LOOKS*QW-1:0]  look_qp,
  output logic [LOOKS*CFW-1:0] look_cfg
);
  // One write port an array, no reset: each can be a RAM (LUT RAM, as every
  // read is combinational). What has two writers is split so that neither
  // writes the other's array, leaving only bits a QP in flip-flops:
  //   q_live      the QP has had a state written since reset;
  //   q_err_now   the engine's ERROR overrides q_state (the command writes
  //               q_state, the engine only sets this bit, and any command
  //               that writes a state clears it, unless the engine's ERROR
  //               on the same QP in the same cycle wins, as it did when both
  //               wrote one register);
  //   q_err_set   q_err holds a status (since the last INIT);
  //   sq_fresh, rq_fresh  INIT zeroed the producer index: it reads as 0
  //               whatever its RAM word holds, until an accepted doorbell
  //               (the index's only writer) writes the word and clears it.
  logic [1:0]          q_state [NUM_QP];   // meaningful where q_live is set
  logic [NUM_QP-1:0]   q_live;
  logic [NUM_QP-1:0]   q_err_now;
  logic [NUM_QP-1:0]   q_err_set;
  logic [NUM_QP-1:0]   sq_fresh;
  logic [NUM_QP-1:0]   rq_fresh;
  logic [7:0]     q_err     [NUM_QP];
  logic [63:0]    q_sq_base [NUM_QP];
  logic [63:0]    q_rq_base [NUM_QP];
  logic [3:0]     q_sq_log  [NUM_QP];
  logic [3:0]     q_rq_log  [NUM_QP];
  logic [CQW-1:0] q_scq     [NUM_QP];
  logic [CQW-1:0] q_rcq     [NUM_QP];
  logic [15:0]    q_pz      [NUM_QP];
  logic [23:0]    q_rqpn    [NUM_QP];
  logic [31:0]    q_rip     [NUM_QP];
  logic [47:0]    q_rmac    [NUM_QP];
  logic [7:0]     q_flags   [NUM_QP];
  // QP_TIMERS, field by field (Yosys reads no array of structs).
  logic [4:0]     q_ack_tmo [NUM_QP];
  logic [2:0]     q_retry   [NUM_QP];
  logic [2:0]     q_rnr     [NUM_QP];
  logic [4:0]     q_min_rnr [NUM_QP];
  logic [3:0]     q_log_mtu [NUM_QP];
  logic [15:0]    q_sq_pi   [NUM_QP];
  logic [15:0]    q_rq_pi   [NUM_QP];

  function automatic logic [15:0] ring_mask(input logic [3:0] lg);
    ring_mask = 16'((17'd1 << lg) - 17'd1);
  endfunction

  // A producer index may run ahead of the consumer by at most the ring, and
  // never back behind where it was; a QP in RESET takes none.
  function automatic logic pi_ok(input logic [1:0] state, input logic [15:0] value, input logic [15:0] ci,
                                 input logic [15:0] pi, input logic [3:0] lg);
    pi_ok = state != 2'(rnic_pkg::QP_STATE_RESET) && (value - ci) <= (ring_mask(lg) + 16'd1) &&
            (value - ci) >= (pi - ci);
  endfunction

  // What a read port sees of the split fields: a QP with no state written
  // since reset is in RESET, the engine's ERROR stands over the command's
  // state, and a fresh producer index is 0.
  function automatic logic [1:0] state_of(input logic live, input logic err_now, input logic [1:0] state);
    state_of = !live ? 2'(rnic_pkg::QP_STATE_RESET) : err_now ? 2'(rnic_pkg::QP_STATE_ERROR) : state;
  endfunction
  function automatic logic [15:0] pi_of(input logic fresh, input logic [15:0] pi);
    pi_of = fresh ? 16'd0 : pi;
  endfunction

  logic [1:0] db_state, cmd_state, err_state;
  logic [15:0] db_sq_pi, db_rq_pi;
  always_comb begin
    db_state  = state_of(q_live[db_index], q_err_now[db_index], q_state[db_index]);
    cmd_state = state_of(q_live[cmd_sel], q_err_now[cmd_sel], q_state[cmd_sel]);
    err_state = state_of(q_live[err_qp], q_err_now[err_qp], q_state[err_qp]);
    db_sq_pi  = pi_of(sq_fresh[db_index], q_sq_pi[db_index]);
    db_rq_pi  = pi_of(rq_fresh[db_index], q_rq_pi[db_index]);
  end

  logic sq_db_ok, rq_db_ok, sq_db_wr, rq_db_wr;
  always_comb begin
    sq_db_ok = pi_ok(db_state, db_value, db_sq_ci, db_sq_pi, q_sq_log[db_index]);
    rq_db_ok = pi_ok(db_state, db_value, db_rq_ci, db_rq_pi, q_rq_log[db_index]);
    db_ok = (db_kind == 2'd0 && sq_db_ok) || (db_kind == 2'd1 && rq_db_ok);
    sq_db_wr = db_valid && db_kind == 2'd0 && sq_db_ok;
    rq_db_wr = db_valid && db_kind == 2'd1 && rq_db_ok;
  end

  // The command's writes, decoded once: each array it writes has this one
  // write port at cmd_sel (INIT and RTS write the flags, timers and MTU
  // alike, from the same staging registers).
  logic c_init, c_rts, c_state_we;
  logic [1:0] c_state;
  always_comb begin
    c_init     = cmd_valid && cmd == 3'(rnic_pkg::QP_CMD_INIT);
    c_rts      = cmd_valid && cmd == 3'(rnic_pkg::QP_CMD_RTS) && cmd_state == 2'(rnic_pkg::QP_STATE_INIT);
    c_state_we = 1'b0;
    c_state    = 2'(rnic_pkg::QP_STATE_RESET);
    if (cmd_valid) begin
      unique case (cmd)
        3'(rnic_pkg::QP_CMD_INIT):  begin c_state_we = 1'b1; c_state = 2'(rnic_pkg::QP_STATE_INIT); end
        3'(rnic_pkg::QP_CMD_RTS):   begin c_state_we = c_rts; c_state = 2'(rnic_pkg::QP_STATE_RTS); end
        3'(rnic_pkg::QP_CMD_ERROR): begin
          c_state_we = cmd_state != 2'(rnic_pkg::QP_STATE_RESET); c_state = 2'(rnic_pkg::QP_STATE_ERROR);
        end
        3'(rnic_pkg::QP_CMD_RESET): begin c_state_we = 1'b1; c_state = 2'(rnic_pkg::QP_STATE_RESET); end
        default: ;
      endcase
    end
  end

  // The engine's ERROR: a QP in RESET, or reset by this cycle's command,
  // stays there.
  logic err_qp_init;    // an INIT command for the QP the engine moves to ERROR, this cycle
  logic err_qp_reset;   // ... a RESET command
  logic e_take;         // the engine's ERROR is applied
  assign err_qp_init  = c_init && cmd_sel == err_qp;
  assign err_qp_reset = cmd_valid && cmd == 3'(rnic_pkg::QP_CMD_RESET) && cmd_sel == err_qp;
  assign e_take       = err_valid && err_state != 2'(rnic_pkg::QP_STATE_RESET) && !err_qp_reset;
  // An INIT in the same cycle clears the old status: the error's status is
  // then the first, or the QP would be in ERROR with none.
  logic e_status_we;
  assign e_status_we = e_take && (!q_err_set[err_qp] || q_err[err_qp] == 8'd0 || err_qp_init);

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      q_live    <= '0;
      q_err_now <= '0;
      q_err_set <= '0;
      sq_fresh  <= '1;
      rq_fresh  <= '1;
    end else begin
      if (c_state_we) begin
        q_live[cmd_sel]    <= 1'b1;
        q_err_now[cmd_sel] <= 1'b0;
      end
      if (c_init) begin
        q_err_set[cmd_sel] <= 1'b0;
        sq_fresh[cmd_sel]  <= 1'b1;
        rq_fresh[cmd_sel]  <= 1'b1;
      end
      // After the command's: a doorbell's index and the engine's ERROR win.
      if (sq_db_wr) sq_fresh[db_index] <= 1'b0;
      if (rq_db_wr) rq_fresh[db_index] <= 1'b0;
      if (e_take) begin
        q_live[err_qp]    <= 1'b1;
        q_err_now[err_qp] <= 1'b1;
      end
      if (e_status_we) q_err_set[err_qp] <= 1'b1;
    end
  end

  // The arrays, one write port each.
  always_ff @(posedge clk) if (rst_n && c_state_we) q_state[cmd_sel] <= c_state;
  always_ff @(posedge clk) if (rst_n && e_status_we) q_err[err_qp] <= err_status;
  always_ff @(posedge clk) begin
    if (rst_n && c_init) begin
      q_sq_base[cmd_sel] <= cmd_sq_base; q_rq_base[cmd_sel] <= cmd_rq_base;
      q_sq_log[cmd_sel] <= cmd_sq_log; q_rq_log[cmd_sel] <= cmd_rq_log;
      q_scq[cmd_sel] <= cmd_scq; q_rcq[cmd_sel] <= cmd_rcq;
      q_pz[cmd_sel] <= cmd_pz;
    end
  end
  always_ff @(posedge clk) begin
    if (rst_n && c_rts) begin
      q_rqpn[cmd_sel] <= cmd_remote_qpn; q_rip[cmd_sel] <= cmd_remote_ip;
      q_rmac[cmd_sel] <= cmd_remote_mac;
    end
  end
  always_ff @(posedge clk) begin
    if (rst_n && (c_init || c_rts)) begin
      q_flags[cmd_sel] <= cmd_flags;
      q_ack_tmo[cmd_sel] <= cmd_timers.ack_timeout; q_retry[cmd_sel] <= cmd_timers.retry_cnt;
      q_rnr[cmd_sel] <= cmd_timers.rnr_retry; q_min_rnr[cmd_sel] <= cmd_timers.min_rnr_timer;
      q_log_mtu[cmd_sel] <= cmd_log_mtu;
    end
  end
  always_ff @(posedge clk) if (rst_n && sq_db_wr) q_sq_pi[db_index] <= db_value;
  always_ff @(posedge clk) if (rst_n && rq_db_wr) q_rq_pi[db_index] <= db_value;

  always_comb begin
    cur_sq_base    = q_sq_base[cur];
    cur_rq_base    = q_rq_base[cur];
    cur_sq_log     = q_sq_log[cur];
    cur_rq_log     = q_rq_log[cur];
    cur_scq        = q_scq[cur];
    cur_rcq        = q_rcq[cur];
    cur_pz         = q_pz[cur];
    cur_remote_qpn = q_rqpn[cur];
    cur_remote_ip  = q_rip[cur];
    cur_remote_mac = q_rmac[cur];
    cur_sq_pi      = pi_of(sq_fresh[cur], q_sq_pi[cur]);
    cur_flags      = q_flags[cur];
    cur_timers     = '0;
    cur_timers.ack_timeout = q_ack_tmo[cur]; cur_timers.retry_cnt = q_retry[cur];
    cur_timers.rnr_retry = q_rnr[cur]; cur_timers.min_rnr_timer = q_min_rnr[cur];
    cur_log_mtu    = q_log_mtu[cur];
    cur_state      = state_of(q_live[cur], q_err_now[cur], q_state[cur]);

    pq_state   = state_of(q_live[pq], q_err_now[pq], q_state[pq]);
    pq_sq_base = q_sq_base[pq];
    pq_rq_base = q_rq_base[pq];
    pq_sq_log  = q_sq_log[pq];
    pq_rq_log  = q_rq_log[pq];
    pq_scq     = q_scq[pq];
    pq_pz      = q_pz[pq];
    pq_flags   = q_flags[pq];
    pq_timers  = '0;
    pq_timers.ack_timeout = q_ack_tmo[pq]; pq_timers.retry_cnt = q_retry[pq];
    pq_timers.rnr_retry = q_rnr[pq]; pq_timers.min_rnr_timer = q_min_rnr[pq];
    pq_log_mtu = q_log_mtu[pq];
    pq_rq_pi   = pi_of(rq_fresh[pq], q_rq_pi[pq]);

    nxt_sq_base = q_sq_base[nxt];
    nxt_sq_log  = q_sq_log[nxt];

    sel_state = cmd_state;
    sel_err   = q_err_set[cmd_sel] ? q_err[cmd_sel] : 8'd0;

    // Packed as rnic_pkg::sched_cfg_t (Yosys 0.23 takes no struct declared
    // in a loop).
    for (int unsigned l = 0; l < LOOKS; l++) begin
      logic [QW-1:0] q;
      q = look_qp[QW*l +: QW];
      look_cfg[CFW*l +: CFW] = {state_of(q_live[q], q_err_now[q], q_state[q]), pi_of(sq_fresh[q], q_sq_pi[q]),
                                pi_of(rq_fresh[q], q_rq_pi[q])};
    end
  end
endmodule
