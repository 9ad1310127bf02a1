// The RNIC's transport engine: one job at a time, the received frame
// waiting in the receive buffer first, else the next WQE of a send queue
// (round-robin over ready QPs).
//
// Why one job at a time: a job owns the DMA ports, the framer and the
// protection table while it runs, so no arbitration is needed and every
// step is easy to follow in a waveform. Payload moves at the full datapath
// width inside a job (DMA read -> framer, receive buffer -> DMA write), so
// bulk transfers still run near line rate.
//
// The jobs' steps are units of their own, each owning its states of the one
// state machine (rnic_pkg::job_state_t): rnic_requester (a send WQE to
// its packets), rnic_responder (a request packet to its placement, READ
// responses and ACK/NAK), rnic_completer (ACKs, READ responses, CQEs,
// flushes, errors, binds). This file starts the jobs, fetches WQEs, hands
// frames to the gather and payload to the scatter, and registers the job
// registers (rnic_pkg::job_t) the owner of the state computes. What
// a job changes in a QP goes through rnic_qp_transport's write port.
//
// Each QP has up to MAX_RD_ATOMIC requester WQEs in flight (sent, waiting
// for their ACK or READ responses), completed in order. A WQE with the
// FENCE flag waits until every earlier WQE of its QP has completed,
// outstanding RDMA READs included. A BIND takes its place among the WQEs in
// flight and commits its window when it is the oldest (a bind that an
// earlier error flushes never changes the window); every later WQE of its QP
// waits until it has committed (the bind fence). Nothing else waits.
// Per-packet state that a multi-packet message needs (write cursor, receive
// cursor, read cursor) is kept per QP; WQEs are re-read from the rings when
// a later packet needs their scatter list, instead of being cached on chip.
module rnic_engine #(
  parameter int unsigned NUM_QP = rnic_pkg::NUM_QP,
  parameter int unsigned NUM_CQ = rnic_pkg::NUM_CQ,
  parameter int unsigned W = rnic_pkg::DATA_BYTES,
  parameter int unsigned RXD = (rnic_pkg::MTU + 128) / W,
  // The receive buffer's header window, in words (rnic_top says why).
  localparam int unsigned HDR_WORDS = (rnic_pkg::RX_HDR_BYTES + W - 1) / W
) (
  input  logic        clk,
  input  logic        rst_n,
  input  logic        enable,
  input  logic [47:0] mac,
  input  logic [31:0] ipv4,
  input  logic [4:0]  mutant,        // rnic_pkg::MUTANT_*: 0 outside verification builds

  input  logic        qp_cmd_valid,
  input  logic [2:0]  qp_cmd,
  input  logic [$clog2(NUM_QP)-1:0] qp_sel,
  input  logic [63:0] qp_sq_base,
  input  logic [63:0] qp_rq_base,
  input  logic [3:0]  qp_sq_log,
  input  logic [3:0]  qp_rq_log,
  input  logic [$clog2(NUM_CQ)-1:0] qp_scq,
  input  logic [$clog2(NUM_CQ)-1:0] qp_rcq,
  input  logic [15:0] qp_pz,
  input  logic [23:0] qp_remote_qpn,
  input  logic [31:0] qp_remote_ip,
  input  logic [47:0] qp_remote_mac,
  input  logic [23:0] qp_sq_psn,
  input  logic [23:0] qp_rq_psn,
  input  logic [7:0]  qp_flags,
  input  rnic_pkg::reg_qp_timers_t qp_timers,
  input  logic [3:0]  qp_log_mtu,
  output logic [15:0] qp_state_rd,

  input  logic        cq_cmd_valid,
  input  logic [1:0]  cq_cmd,
  input  logic [$clog2(NUM_CQ)-1:0] cq_sel,
  input  logic [63:0] cq_base,
  input  logic [3:0]  cq_log,

  input  logic        db_valid,
  input  logic [1:0]  db_kind,
  input  logic [$clog2(NUM_QP)-1:0] db_index,
  input  logic [15:0] db_value,

  output logic        ev_dma_fault,
  output logic [31:0] ev_dma_addr,
  output logic        ev_bad_doorbell,
  output logic        ev_cq_overflow,
  output logic [15:0] ev_queue,
  output logic        ev_rx_drop,
  output logic [NUM_CQ-1:0] intr_set,

  output logic        lchk_valid,
  output logic [31:0] lchk_key,
  output logic [15:0] lchk_pz,
  output logic [3:0]  lchk_rights,
  output logic [63:0] lchk_addr,
  output logic [31:0] lchk_len,
  input  logic        lchk_rsp_valid,
  input  logic [2:0]  lchk_verdict,
  output logic [1:0]  lchk_mode,
  output logic        rchk_valid,
  output logic [31:0] rchk_key,
  output logic [15:0] rchk_pz,
  output logic [3:0]  rchk_rights,
  output logic [63:0] rchk_addr,
  output logic [31:0] rchk_len,
  input  logic        rchk_rsp_valid,
  input  logic [2:0]  rchk_verdict,

  // A BIND's commit of its window (rnic_ptable's bind port).
  output logic        bind_valid,
  output logic [23:0] bind_index,
  output logic [7:0]  bind_key,
  output logic [15:0] bind_pz,
  output logic [63:0] bind_base,
  output logic [63:0] bind_len,
  output logic [3:0]  bind_rights,
  output logic [1:0]  bind_state,
  output logic [31:0] bind_link,
  input  logic        bind_done,
  input  logic        bind_ok,

  output logic        dma_rd_req_valid,
  input  logic        dma_rd_req_ready,
  output logic [63:0] dma_rd_req_addr,
  output logic [12:0] dma_rd_req_len,
  output logic [7:0]  dma_rd_req_tag,
  input  logic        dma_rd_rsp_valid,
  output logic        dma_rd_rsp_ready,
  input  logic [8*W-1:0] dma_rd_rsp_data,
  input  logic        dma_rd_rsp_last,
  input  logic        dma_rd_rsp_err,
  output logic        dma_wr_valid,
  input  logic        dma_wr_ready,
  output logic [63:0] dma_wr_addr,
  output logic [12:0] dma_wr_len,
  output logic [15:0] dma_wr_tag,
  output logic [8*W-1:0] dma_wr_data,
  output logic        dma_wr_last,
  input  logic        dma_wr_cpl_valid,
  input  logic [15:0] dma_wr_cpl_tag,
  input  logic        dma_wr_cpl_err,

  output logic        fr_start,
  output logic [15:0] fr_len,
  input  logic        fr_free,         // rnic_tx_framer's free_next
  input  logic        fr_push_ok,
  output logic [8*W-1:0] fr_push_data,
  output logic [$clog2(W):0] fr_push_n,
  output logic        fr_poison,

  input  logic        rxb_valid,
  input  logic        rxb_next_valid,   // a second whole frame behind rxb_valid's
  input  logic [15:0] rxb_len,
  /* verilator lint_off UNUSEDSIGNAL */   // past RX_HDR_BYTES: whole words at W = 32 and 64
  input  logic [8*W*HDR_WORDS-1:0] rxb_hdr,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic [$clog2(RXD)-1:0] rxb_rd_addr,
  input  logic [8*W-1:0] rxb_rd_data,
  output logic        rxb_release,

  output logic        trace_valid,
  output logic [7:0]  trace_event,
  output logic [15:0] trace_qpn,
  output logic [63:0] trace_arg,

  // The platform's time, for the retransmission timers (rnic_ack_timer).
  input  logic [63:0] time_now,
  output logic        wake_valid,
  output logic [63:0] wake_at,

  // Nothing to do and nothing under way: see the block before the state
  // machine's always_ff.
  output logic        idle
);
  localparam int unsigned QW  = $clog2(NUM_QP);
  localparam int unsigned S   = rnic_pkg::MAX_SGE;

  // The job registers, and what they hold next: the owner of the state's
  // computation (jn), from what they keep if it writes nothing (jd).
  rnic_pkg::job_t j, jd, jn, req_jn, resp_jn, comp_jn;
  localparam int unsigned WQ_WORDS = rnic_pkg::WQE_FETCH_WORDS;
  localparam int unsigned WPB      = W / 8;   // 64-bit WQE words a DMA beat carries
  logic [63:0] wq [WQ_WORDS];    // the WQE being worked on (read it through wqe below)
  logic [7:0]  wr_outstanding;   // payload and CQE DMA writes not yet completed
  // The fetch's WQE's SGE count: in the beat itself while word 0 arrives,
  // in wq after (rnic_port_arbiter ends the fetch with the last word used).
  logic [7:0]  fetch_nsge;
  logic        fetch_cut, rd_tail;
  assign fetch_nsge = (j.fetch_i == 5'd0)
                      ? dma_rd_rsp_data[rnic_pkg::WQE_NUM_SGE_LSB +: rnic_pkg::WQE_NUM_SGE_W]
                      : wq[rnic_pkg::WQE_NUM_SGE_WORD][rnic_pkg::WQE_NUM_SGE_LSB +: rnic_pkg::WQE_NUM_SGE_W];
  // Named for waveforms (waveforms/*.gtkw) and the checker.
  rnic_pkg::job_state_t st;
  logic [QW-1:0] cur;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [7:0]    tx_opcode, l_op, cqe_status;
  /* verilator lint_on UNUSEDSIGNAL */
  assign st         = j.st;
  assign cur        = j.cur;
  assign tx_opcode  = j.tx_opcode;
  assign l_op       = j.l_op;
  assign cqe_status = j.cqe_status;

  // ------------------------------------------------------------ contexts
  // Each QP's configuration, state and producer indices (rnic_qp_config),
  // and what moves with the work (rnic_qp_transport).
  logic [63:0]    cur_sq_base, cur_rq_base, pq_sq_base, pq_rq_base, nxt_sq_base;
  logic [3:0]     cur_sq_log, cur_rq_log, pq_sq_log, pq_rq_log, nxt_sq_log;
  logic [rnic_pkg::CQ_IDX_W-1:0] cur_scq, cur_rcq, pq_scq;
  logic [15:0]    cur_pz, pq_pz, cur_sq_pi, pq_rq_pi;
  logic [23:0]    cur_rqpn;
  logic [31:0]    cur_rip;
  logic [47:0]    cur_rmac;
  logic [1:0]     pq_state, sel_state;
  logic [7:0]     pq_flags, sel_err;
  logic [7:0]     cur_flags;
  logic           qp_db_ok;
  logic [15:0]    db_sq_ci, db_rq_ci, nxt_sq_ci, nxt_done;
  rnic_pkg::qp_xs_t    cur_xs, pq_xs;
  rnic_pkg::flight_t   cur_oldest, pq_oldest;
  // The scheduler's reads of the QPs written the cycle before (and its sweep).
  localparam int unsigned LOOKS = 5;
  logic [LOOKS*QW-1:0]                            look_qp;
  logic [LOOKS*rnic_pkg::SCHED_CFG_W-1:0]         look_cfg;
  logic [LOOKS*rnic_pkg::SCHED_XS_W-1:0]          look_xs;
  logic [8*rnic_pkg::MAX_RD_ATOMIC-1:0]           cur_ops;
  logic                       pick_any, flush_any, bind_any, retry_any, rd_at_limit;
  logic [QW-1:0]              pick_q, flush_q, bind_q, retry_q;
  logic [NUM_QP-1:0]          tmr_due;
  /* verilator lint_off UNUSEDSIGNAL */   // a unit reads the fields it needs only
  rnic_pkg::reg_qp_timers_t   cur_timers, pq_timers;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [3:0]                 cur_log_mtu, pq_log_mtu;   // each QP's path MTU, log2 bytes
  logic [1:0]                 cur_state;                 // the job's QP's state (QP_STATE_*)

  rnic_qp_config #(.NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .LOOKS(LOOKS)) u_qp_cfg (
    .clk, .rst_n,
    .cmd_valid(qp_cmd_valid), .cmd(qp_cmd), .cmd_sel(qp_sel), .cmd_sq_base(qp_sq_base), .cmd_rq_base(qp_rq_base),
    .cmd_sq_log(qp_sq_log), .cmd_rq_log(qp_rq_log), .cmd_scq(qp_scq), .cmd_rcq(qp_rcq), .cmd_pz(qp_pz),
    .cmd_flags(qp_flags), .cmd_timers(qp_timers), .cmd_remote_qpn(qp_remote_qpn), .cmd_remote_ip(qp_remote_ip),
    .cmd_remote_mac(qp_remote_mac), .cmd_log_mtu(qp_log_mtu),
    .db_valid, .db_kind, .db_index, .db_value, .db_sq_ci, .db_rq_ci, .db_ok(qp_db_ok),
    .err_valid(st == rnic_pkg::S_ERROR_QP), .err_qp(cur), .err_status(j.err_status),
    .cur, .cur_sq_base, .cur_rq_base, .cur_sq_log, .cur_rq_log, .cur_scq, .cur_rcq, .cur_pz,
    .cur_remote_qpn(cur_rqpn), .cur_remote_ip(cur_rip), .cur_remote_mac(cur_rmac), .cur_sq_pi, .cur_flags, .cur_timers, .cur_log_mtu,
    .cur_state, .pq, .pq_state, .pq_sq_base, .pq_rq_base, .pq_sq_log, .pq_rq_log, .pq_scq, .pq_pz, .pq_flags, .pq_timers, .pq_log_mtu,
    .pq_rq_pi,
    .nxt(bind_any ? bind_q : pick_q), .nxt_sq_base, .nxt_sq_log,
    .sel_state, .sel_err,
    .look_qp, .look_cfg);
  assign qp_state_rd = {sel_err, 6'd0, sel_state};

  // The job's writes to its QP's transport state: the requester's, the
  // responder's or the completer's, whichever owns the state.
  rnic_pkg::qp_xs_we_t  xs_we, req_xs_we, resp_xs_we, comp_xs_we;
  rnic_pkg::qp_xs_t     xs_wr, req_xs, resp_xs, comp_xs;
  logic [QW+rnic_pkg::FLIGHT_IDX_W-1:0] fl_slot;
  rnic_pkg::flight_we_t fl_we;
  rnic_pkg::flight_t    fl_wr;
  rnic_qp_transport #(.NUM_QP(NUM_QP), .LOOKS(LOOKS)) u_qp_xport (
    .clk, .rst_n,
    .cmd_valid(qp_cmd_valid), .cmd(qp_cmd), .cmd_sel(qp_sel),
    .cmd_in_init(sel_state == 2'(rnic_pkg::QP_STATE_INIT)), .cmd_sq_psn(qp_sq_psn), .cmd_rq_psn(qp_rq_psn),
    .cmd_retry_cnt(qp_timers.retry_cnt), .cmd_rnr_retry(qp_timers.rnr_retry),
    .wr_qp(job_q), .wr_we(xs_we), .wr_data(xs_wr), .fl_slot, .fl_we, .fl_data(fl_wr),
    .cur, .cur_xs, .cur_oldest, .cur_ops, .pq, .pq_xs, .pq_oldest,
    .db(db_index), .db_sq_ci, .db_rq_ci, .nxt(bind_any ? bind_q : pick_q), .nxt_sq_ci, .nxt_done,
    .look_qp, .look_xs);

  // The send-queue scheduler: the next QP with send work (a BIND to
  // commit, a retry due, a WQE to start, a queue to flush), round-robin, and
  // whether a READ of cur must wait for the READ limit.
  // Every QP the engine writes this cycle: the job's (cur; the received
  // frame's while one is parsed), the QP command's, the doorbell's.
  rnic_sq_scheduler #(.NUM_QP(NUM_QP)) u_sched (
    .clk, .rst_n, .mutant, .touch_qp({db_index, qp_sel, job_q, cur}),
    .look_qp, .look_cfg, .look_xs, .retry_due(tmr_due),
    .advance(st == rnic_pkg::S_IDLE && enable && !(rxb_valid && !rxb_release) && !bind_any && !retry_any &&
             !flush_any && pick_any),
    .pick_any, .pick_q, .bind_any, .bind_q, .retry_any, .retry_q, .flush_any, .flush_q,
    .cur_ops, .cur_sq_ci(cur_xs.sq_ci), .cur_done(cur_xs.done), .cur_flags, .rd_at_limit);

  // Each QP's retransmission timer. A job step asks (j.tmr_op, j.kick, for
  // cur) and the next cycle does it here: the deadline is now plus the
  // QP's ACK timeout (QP_TIMERS.ACK_TIMEOUT: 1024 x 2^t cycles, 4.096 us x
  // 2^t at 250 MHz; 0 means none) or the RNR NAK's delay.
  logic        tmr_arm, tmr_on, tmr_idle;
  logic [63:0] tmr_at;
  always_comb begin
    tmr_arm = j.tmr_op != rnic_pkg::TMR_NONE;
    tmr_on  = j.tmr_op == rnic_pkg::TMR_ARM_RNR ||
              (j.tmr_op == rnic_pkg::TMR_ARM_ACK && cur_timers.ack_timeout != 5'd0);
    tmr_at  = time_now + ((j.tmr_op == rnic_pkg::TMR_ARM_RNR) ? 64'(rnic_pkg::rnr_cycles(j.tmr_code))
                                                             : (64'd1024 << cur_timers.ack_timeout));
  end
  rnic_ack_timer #(.NUM_QP(NUM_QP)) u_timer (
    .clk, .rst_n, .now(time_now), .arm_valid(tmr_arm), .arm_qp(cur), .arm_on(tmr_on), .arm_at(tmr_at),
    .kick_valid(j.kick), .kick_qp(cur),
    // INIT starts a QP afresh; RESET ends it (nothing of a reset QP is resent).
    .clear_valid(qp_cmd_valid && (qp_cmd == 3'(rnic_pkg::QP_CMD_INIT) || qp_cmd == 3'(rnic_pkg::QP_CMD_RESET))),
    .clear_qp(qp_sel),
    .due(tmr_due), .take_valid(st == rnic_pkg::S_RETRY), .take_qp(cur),
    .wake_valid, .wake_at, .idle(tmr_idle));

  // Trace: the jobs' events and accepted doorbells, merged into the
  // one-event-a-cycle trace port.
  logic        db_ev_valid;
  logic [15:0] db_ev_qpn;
  logic [63:0] db_ev_arg;
  rnic_trace_fifo u_trace (
    .clk, .rst_n,
    .a_valid(db_ev_valid), .a_event(rnic_pkg::EV_DOORBELL), .a_qpn(db_ev_qpn), .a_arg(db_ev_arg),
    .b_valid(j.ev_valid), .b_event(j.ev_code), .b_qpn(j.ev_qpn), .b_arg(j.ev_arg),
    .trace_valid, .trace_event, .trace_qpn, .trace_arg);
  assign ev_rx_drop     = j.ev_rx_drop;
  assign ev_cq_overflow = j.ev_cq_overflow;
  assign ev_queue       = j.ev_queue;
  assign rxb_release    = j.rxb_release;

  // ------------------------------------------------------------ the frame
  // Parsed header of the frame in the receive buffer.
  logic        p_roce, p_ackreq, p_len_ok;
  logic [7:0]  p_op;                   // rnic_pkg::BTH_*
  rnic_pkg::aeth_syndrome_t p_syn;
  // Solicited events and the pad count are not used by this engine: the
  // payload length already excludes the pad.
  /* verilator lint_off UNUSEDSIGNAL */
  logic        p_se;
  logic [1:0]  p_pad;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [23:0] p_qp, p_psn;
  logic [63:0] p_va;
  logic [31:0] p_rkey, p_rlen;
  logic [15:0] p_off, p_plen;
  rnic_hdr_parse u_parse (
    .hdr(rxb_hdr[8*rnic_pkg::RX_HDR_BYTES-1:0]), .frame_len(rxb_len), .my_ip(ipv4), .is_roce(p_roce), .opcode(p_op),
    .solicited(p_se), .pad(p_pad), .dest_qp(p_qp), .ack_req(p_ackreq), .psn(p_psn),
    .reth_va(p_va), .reth_rkey(p_rkey), .reth_len(p_rlen), .aeth_syndrome(p_syn),
    .payload_off(p_off), .payload_len(p_plen), .len_ok(p_len_ok));
  logic [QW-1:0] pq, job_q;
  assign pq = p_qp[QW-1:0];
  // The QP a job reads and writes: the frame's while it is parsed, else cur.
  logic parsing;
  assign parsing = st == rnic_pkg::S_RX_PARSE;
  assign job_q   = parsing ? pq : cur;
  logic [3:0] job_log_mtu;   // job_q's path MTU
  assign job_log_mtu = parsing ? pq_log_mtu : cur_log_mtu;

  // Classification of the received frame (at parse; later, of its kept opcode).
  logic rx_is_resp_op, rx_is_send, rx_is_write, rx_is_read_req, rx_is_ack, rx_is_rresp;
  logic rx_first, rx_last, rx_cont;
  rnic_bth_class u_class (
    .op(parsing ? p_op : j.l_op), .is_send(rx_is_send), .is_write(rx_is_write), .is_read_req(rx_is_read_req),
    .is_read_resp(rx_is_rresp), .is_ack(rx_is_ack), .is_request(rx_is_resp_op), .first(rx_first),
    .last(rx_last), .cont(rx_cont));

  // The completer's check on an ACK, NAK or READ response (rnic_comp_check.sv):
  // the frame's, for its QP, at parse; the kept one's, for cur, after.
  rnic_pkg::comp_act_t      comp_act;
  logic [7:0]               comp_ack_status;
  /* verilator lint_off UNUSEDSIGNAL */   // the check reads the fields it needs only
  rnic_pkg::qp_xs_t         ack_xs;
  rnic_pkg::flight_t        ack_oldest;
  /* verilator lint_on UNUSEDSIGNAL */
  rnic_pkg::aeth_syndrome_t ack_syn;
  logic [23:0]              ack_psn;
  always_comb begin
    ack_xs     = parsing ? pq_xs : cur_xs;
    ack_oldest = parsing ? pq_oldest : cur_oldest;
    ack_syn    = parsing ? p_syn : j.l_syn;
    ack_psn    = parsing ? p_psn : j.l_psn;
  end
  rnic_comp_check u_comp_check (
    .mutant, .is_ack(rx_is_ack), .is_read_resp(rx_is_rresp), .syndrome(ack_syn), .psn(ack_psn),
    .in_flight(ack_xs.sq_ci != ack_xs.done), .oldest_op(ack_oldest.op), .oldest_first(ack_oldest.first),
    .oldest_last(ack_oldest.last), .oldest_got(ack_xs.out_got), .sq_psn(ack_xs.sq_psn),
    .retrying(ack_xs.retrying), .acked_psn(ack_xs.acked_psn), .log_mtu(job_log_mtu),
    .act(comp_act), .ack_status(comp_ack_status));

  // The responder's checks on a request packet (rnic_resp_check.sv).
  rnic_pkg::resp_act_t resp_act;
  rnic_pkg::aeth_t     resp_nak_syndrome;
  logic [7:0]          resp_nak_status;
  logic                resp_dup;
  rnic_resp_check u_resp_check (
    .mutant, .is_request(rx_is_resp_op), .is_write(rx_is_write), .is_read(rx_is_read_req), .is_send(rx_is_send),
    .first(rx_first), .last(rx_last), .ack_req(p_ackreq), .psn(p_psn), .expected_psn(pq_xs.rq_psn),
    .nak_sent(pq_xs.nak_sent), .reth_len(p_rlen),
    .payload_len(p_plen), .log_mtu(pq_log_mtu), .allow_write(pq_flags[rnic_pkg::QP_FLAGS_ALLOW_WR_LSB]),
    .allow_read(pq_flags[rnic_pkg::QP_FLAGS_ALLOW_RD_LSB]), .write_left(pq_xs.wr_left),
    .send_open(pq_xs.snd_open), .recv_posted(pq_xs.rq_ci != pq_rq_pi),
    .recv_held(j.wq_held && j.wq_held_recv && j.wq_held_qp == pq && j.wq_held_idx == pq_xs.rq_ci),
    .act(resp_act), .duplicate(resp_dup), .nak_syndrome(resp_nak_syndrome), .nak_status(resp_nak_status));
  // A request packet whose key needs checking asks the table at its parse:
  // every field the check names is the frame's or its QP's (pq) by then,
  // and the verdict comes a cycle sooner than from a state of its own.
  logic rx_to_resp, rkey_fire;
  assign rkey_fire = rx_to_resp && resp_act == rnic_pkg::RESP_ACT_RKEY;

  // ------------------------------------------------------------ the WQE
  // The WQE in wq, field by field as rtl/spec/rnic.toml lays it out
  // (rnic_pkg::wqe_t); a BIND reads word 1 as its window's new key and
  // rights (rnic_pkg::wqe_bind_t). The SGEs are unpacked into arrays, which
  // the loops and the lkey checks index (Yosys reads no array of structs).
  // Each view has fields this engine does not read.
  /* verilator lint_off UNUSEDSIGNAL */
  rnic_pkg::wqe_t      wqe;
  rnic_pkg::wqe_bind_t wqe_bind;
  /* verilator lint_on UNUSEDSIGNAL */
  rnic_pkg::sge_t  wq_sge;
  logic [64*S-1:0] wq_sge_addrs;
  logic [32*S-1:0] wq_sge_lens, wq_sge_lkeys;
  logic [2:0]      wq_nsge;
  logic [32:0]     wq_total;     // sum of the SGE lengths (33 bits: never wraps)
  always_comb begin
    // Words past the SGEs are never fetched: no field is there.
    wqe = '0;
    wqe_bind = '0;
    for (int unsigned w = 0; w < WQ_WORDS; w++) begin
      wqe[64*w +: 64]      = wq[w];
      wqe_bind[64*w +: 64] = wq[w];
    end
    wq_nsge  = (wqe.num_sge > 8'(S)) ? 3'(S) : 3'(wqe.num_sge);
    wq_total = 33'd0;
    for (int unsigned i = 0; i < S; i++) begin
      wq_sge = wqe.sge[rnic_pkg::SGE_BITS*i +: rnic_pkg::SGE_BITS];
      wq_sge_addrs[64*i +: 64] = wq_sge.addr;
      wq_sge_lens[32*i +: 32]  = wq_sge.len;
      wq_sge_lkeys[32*i +: 32] = wq_sge.lkey;
      if (3'(i) < wq_nsge) wq_total = wq_total + 33'(wq_sge.len);
    end
  end

  // ------------------------------------------------------------ datapath
  // DMA writes (payload pieces and CQEs) leave through a two-entry FIFO, so
  // the byte queue and counters behind it never depend on dma_wr_ready.
  // The tag says what a burst is, so its completion can be acted on: bit 15
  // set for a CQE (bits 14:0 its CQ: the interrupt is raised only once the
  // CQE is in host memory), clear for payload.
  logic        w_valid, w_ready, w_last;
  logic [63:0] w_addr;
  logic [8*W-1:0] w_data;
  logic [12:0] w_len;
  logic [15:0] w_tag;
  rnic_beat_fifo #(.WIDTH(64 + 13 + 16 + 8 * W + 1)) u_wr_out (
    .clk, .rst_n, .in_valid(w_valid), .in_ready(w_ready), .in_data({w_addr, w_len, w_tag, w_data, w_last}),
    .out_valid(dma_wr_valid), .out_ready(dma_wr_ready),
    .out_data({dma_wr_addr, dma_wr_len, dma_wr_tag, dma_wr_data, dma_wr_last}));

  // The scatter/gather cursor: loaded from the WQE in wq or with the one
  // range a received frame names (rnic_port_arbiter says when and with
  // what); the gather and the scatter move it.
  logic            sg_load, sg_single, sg_next, sg_take, sg_more;
  logic [31:0]     sg_load_pos, sg_single_len, sg_take_n, seg_rem;
  logic [63:0]     sg_single_addr, sg_addr, sg_base;
  logic            tx_seg_next, tx_seg_take, sc_next, sc_take;
  logic [31:0]     tx_seg_take_n, sc_take_n;
  rnic_sg_cursor u_cursor (
    .clk, .rst_n, .load(sg_load), .load_n(wq_nsge), .load_addr(wq_sge_addrs), .load_len(wq_sge_lens),
    .load_pos(sg_load_pos), .single(sg_single), .single_addr(sg_single_addr), .single_len(sg_single_len),
    .next(sg_next), .take(sg_take), .take_n(sg_take_n),
    .more(sg_more), .rem(seg_rem), .addr(sg_addr), .seg_base(sg_base));

  // Transmit: in S_TX the gather sends the frame j.tx_* describes, its
  // payload from the cursor; it answers done in the cycle the engine moves
  // on to ret_st.
  logic        tx_started, tx_done, tx_poison, tx_idle;
  logic        tx_rd_req_valid, tx_rd_rsp_ready;
  logic [63:0] tx_rd_req_addr;
  logic [12:0] tx_rd_req_len;
  logic        tx_fault;
  logic [31:0] tx_fault_addr;
  // The gather's prefetch of a message's next packet (rnic_tx_gather says
  // how it works). A message is named by who sends it (the requester's
  // SEND or WRITE, or the responder's READ response), its QP and, for the
  // requester, the send WQE wq holds. The prefetch may wait for its frame
  // while the job goes on sending that message, and, for the requester,
  // across a pause (an ACK handled between two packets) as long as wq
  // still holds that WQE: wq_held is cleared by every QP command and by
  // any fetch, the same guarantee that lets the requester resume without
  // fetching the WQE again. A fetch needs the read port, so it also drops
  // the prefetch and waits (rd_owed) until its beats have gone.
  localparam int unsigned PF_ID_W = 1 + rnic_pkg::QP_IDX_W + 16;
  typedef struct packed {
    logic                resp;
    logic [rnic_pkg::QP_IDX_W-1:0] qp;
    logic [15:0]         idx;
  } pf_id_t;
  pf_id_t      tx_pf_id, tx_pf_held_id;
  logic [15:0] tx_pf_plen;
  logic        tx_pf_keep, tx_pf_busy, tx_pf_drop, rd_owed;
  logic        pf_in_message, pf_wq_holds;
  always_comb begin
    tx_pf_id.resp = j.ret_st == rnic_pkg::S_RD_RESP_DONE;
    tx_pf_id.qp   = j.cur;
    tx_pf_id.idx  = j.wq_held_idx;
    tx_pf_plen    = (st == rnic_pkg::S_TX && (j.ret_st == rnic_pkg::S_SQ_PKT_DONE || j.ret_st == rnic_pkg::S_RD_RESP_DONE))
                    ? rnic_pkg::pkt_len(j.bytes_left, cur_log_mtu) : 16'd0;
    pf_in_message = st == rnic_pkg::S_TX || st == rnic_pkg::S_SQ_PKT_DONE || st == rnic_pkg::S_SQ_PKT ||
                    st == rnic_pkg::S_RD_RESP_DONE;
    pf_wq_holds   = !tx_pf_held_id.resp && j.wq_held && !j.wq_held_recv && j.wq_held_qp == tx_pf_held_id.qp &&
                    j.wq_held_idx == tx_pf_held_id.idx && st != rnic_pkg::S_FETCH_REQ;
    rd_owed       = rd_tail || tx_pf_busy;
  end
  rnic_tx_gather #(.W(W), .PF_ID_W(PF_ID_W)) u_gather (
    .clk, .rst_n, .start(st == rnic_pkg::S_TX), .started(tx_started), .done(tx_done), .poison(tx_poison),
    .idle(tx_idle), .pf_plen(tx_pf_plen), .pf_id(tx_pf_id), .pf_keep(tx_pf_keep),
    .pf_held_id(tx_pf_held_id), .pf_busy(tx_pf_busy), .pf_drop(tx_pf_drop), .src_mac(mac), .src_ip(ipv4), .dst_mac(cur_rmac), .dst_ip(cur_rip),
    .udp_sport(rnic_pkg::UDP_SPORT_BASE | 16'(cur)), .dest_qp(cur_rqpn),
    .opcode(j.tx_opcode), .solicited(j.tx_se), .pad(j.tx_pad), .ack_req(j.tx_ackreq), .psn(j.tx_psn),
    .ext(j.tx_ext), .reth_va(j.tx_va), .reth_rkey(j.tx_rkey), .reth_len(j.tx_rlen),
    .aeth_syndrome(j.tx_syndrome), .aeth_msn(cur_xs.msn), .plen(j.tx_plen),
    .seg_more(sg_more), .seg_rem, .seg_addr(sg_addr), .seg_base(sg_base),
    .seg_next(tx_seg_next), .seg_take(tx_seg_take), .seg_take_n(tx_seg_take_n),
    .rd_req_valid(tx_rd_req_valid), .rd_req_ready(dma_rd_req_ready), .rd_req_addr(tx_rd_req_addr),
    .rd_req_len(tx_rd_req_len), .rd_rsp_valid(dma_rd_rsp_valid && !rd_tail), .rd_rsp_ready(tx_rd_rsp_ready),
    .rd_rsp_data(dma_rd_rsp_data), .rd_rsp_last(dma_rd_rsp_last), .rd_rsp_err(dma_rd_rsp_err),
    .fault(tx_fault), .fault_addr(tx_fault_addr),
    .fr_start, .fr_len, .fr_free, .fr_push_ok, .fr_push_data, .fr_push_n, .fr_poison);

  // Receive scatter: in S_RX_SCATTER it places the frame's payload (loaded
  // at parse) over the cursor's segments. It reads the payload ahead while
  // the job holds the frame (rx_held: the key check's cycles), so the first
  // beat leaves as the first burst opens.
  logic        sc_done, sc_overrun, sc_idle;
  logic        sc_w_valid, sc_w_last;
  logic [63:0] sc_w_addr;
  logic [8*W-1:0] sc_w_data;
  logic [12:0] sc_w_len;
  rnic_rx_scatter #(.W(W), .RXD(RXD)) u_scatter (
    .clk, .rst_n, .load(parsing), .load_off(p_off), .load_len(p_plen), .hold(j.rx_held),
    .start(st == rnic_pkg::S_RX_SCATTER),
    .done(sc_done), .overrun(sc_overrun), .idle(sc_idle), .rxb_rd_addr, .rxb_rd_data,
    .seg_more(sg_more), .seg_rem, .seg_addr(sg_addr), .seg_next(sc_next), .seg_take(sc_take),
    .seg_take_n(sc_take_n), .w_valid(sc_w_valid), .w_ready, .w_addr(sc_w_addr), .w_len(sc_w_len),
    .w_data(sc_w_data), .w_last(sc_w_last));

  // Completions: the CQE writer owns the CQs; in S_CQE the engine hands it
  // the completion in j.cqe_* and waits for cqe_done.
  logic        cqe_done, cqe_overflow, cq_db_ok;
  /* verilator lint_off UNUSEDSIGNAL */
  logic        cqe_last_beat;   // read by rnic_engine_checker only
  /* verilator lint_on UNUSEDSIGNAL */
  logic        cqe_w_valid, cqe_w_last;
  logic [63:0] cqe_w_addr;
  logic [8*W-1:0] cqe_w_data;
  logic [12:0] cqe_w_len;
  logic [15:0] cqe_w_tag;
  logic        cqe_fault;
  logic [31:0] cqe_fault_addr;
  logic [2:0]  cqe_verdict;     // what a refusal names (rnic_port_arbiter)
  logic [31:0] cqe_check_key;
  rnic_cqe_writer #(.NUM_CQ(NUM_CQ), .W(W)) u_cqe (
    .clk, .rst_n,
    .cmd_valid(cq_cmd_valid), .cmd(cq_cmd), .cmd_sel(cq_sel), .cmd_base(cq_base), .cmd_log(cq_log),
    .db_valid(db_valid && db_kind == 2'd2), .db_index(16'(db_index)), .db_value, .db_ok(cq_db_ok),
    .cqe_req(st == rnic_pkg::S_CQE), .cqe_cq(j.cqe_cq), .cqe_qpn(16'(cur)), .cqe_idx(j.cqe_idx),
    .cqe_op(j.cqe_op), .cqe_status(j.cqe_status), .cqe_recv(j.cqe_recv), .cqe_len(j.cqe_len),
    .cqe_wrid(j.cqe_wrid), .cqe_verdict, .cqe_check_key, .cqe_done, .cqe_overflow, .cqe_last_beat,
    .w_valid(cqe_w_valid), .w_ready, .w_addr(cqe_w_addr), .w_len(cqe_w_len), .w_tag(cqe_w_tag),
    .w_data(cqe_w_data), .w_last(cqe_w_last),
    .cpl_valid(dma_wr_cpl_valid && dma_wr_cpl_tag[15]), .cpl_cq(rnic_pkg::CQ_IDX_W'(dma_wr_cpl_tag[14:0])),
    .cpl_err(dma_wr_cpl_err), .intr_set, .fault(cqe_fault), .fault_addr(cqe_fault_addr));

  // A BIND: the bind unit checks its window and region on the local check
  // port and commits the window (S_BIND); the engine keeps wq and cur
  // steady meanwhile.
  logic        bu_done, bu_ok;
  logic        bu_chk_valid;
  logic [1:0]  bu_chk_mode;
  logic [31:0] bu_chk_key, bu_chk_len;
  logic [3:0]  bu_chk_rights;
  logic [63:0] bu_chk_addr;
  rnic_bind_unit u_bind (
    .clk, .rst_n, .mutant,
    .start(st == rnic_pkg::S_BIND_START && !j.fetch_err), .win_key(wqe.rkey),
    .new_key(wqe_bind.bind_key), .new_rights(wqe_bind.bind_rights), .mr_lkey(wq_sge_lkeys[31:0]),
    .mr_addr(wq_sge_addrs[63:0]), .mr_len(wq_sge_lens[31:0]), .pz(cur_pz), .done(bu_done), .ok(bu_ok),
    .chk_valid(bu_chk_valid), .chk_mode(bu_chk_mode), .chk_key(bu_chk_key), .chk_rights(bu_chk_rights),
    .chk_addr(bu_chk_addr), .chk_len(bu_chk_len), .chk_rsp_valid(lchk_rsp_valid), .chk_verdict(lchk_verdict),
    .bind_valid, .bind_index, .bind_key, .bind_pz, .bind_base, .bind_len, .bind_rights, .bind_state,
    .bind_link, .bind_done, .bind_ok);

  // The shared ports: DMA reads and writes, local and remote checks.
  rnic_port_arbiter #(.W(W)) u_ports (
    .clk, .rst_n, .st,
    .fetch_addr(j.fetch_addr), .fetch_n(j.fetch_n), .fetch_i(j.fetch_i), .fetch_nsge,
    .rd_rsp_valid(dma_rd_rsp_valid), .rd_rsp_last(dma_rd_rsp_last), .fetch_cut, .rd_tail, .rd_owed, .tx_pf_drop, .tx_rd_req_valid, .tx_rd_req_addr, .tx_rd_req_len,
    .tx_rd_rsp_ready, .dma_rd_req_valid, .dma_rd_req_addr, .dma_rd_req_len, .dma_rd_req_tag, .dma_rd_rsp_ready,
    .sc_w_valid, .sc_w_addr, .sc_w_len, .sc_w_data, .sc_w_last,
    .cqe_w_valid, .cqe_w_addr, .cqe_w_len, .cqe_w_tag, .cqe_w_data, .cqe_w_last,
    .w_valid, .w_addr, .w_len, .w_tag, .w_data, .w_last,
    .chk_i(j.chk_i), .wq_nsge, .wq_is_read(wqe.opcode == rnic_pkg::OP_RDMA_READ), .sge_addr(wq_sge_addrs),
    .sge_len(wq_sge_lens), .sge_lkey(wq_sge_lkeys), .pz(cur_pz),
    .bu_chk_valid, .bu_chk_mode, .bu_chk_key, .bu_chk_rights, .bu_chk_addr, .bu_chk_len,
    .lchk_valid, .lchk_mode, .lchk_key, .lchk_pz, .lchk_rights, .lchk_addr, .lchk_len, .lchk_rsp_valid,
    .lchk_verdict, .rkey_fire, .rx_cont, .p_read_req(p_op == rnic_pkg::BTH_READ_REQUEST), .p_rkey, .p_va, .p_rlen, .p_plen,
    .wr_rkey(pq_xs.wr_rkey), .wr_va(pq_xs.wr_va), .rx_pz(pq_pz),
    .rchk_valid, .rchk_key, .rchk_pz, .rchk_rights, .rchk_addr, .rchk_len, .rchk_rsp_valid,
    .rx_is_read_req, .sq_go_pos(go_pos), .rcv_got(cur_xs.rcv_got), .out_got(cur_xs.out_got), .cur_wr_va(cur_xs.wr_va),
    .tx_seg_next, .tx_seg_take, .tx_seg_take_n, .sc_next, .sc_take, .sc_take_n,
    .sg_load, .sg_load_pos, .sg_single, .sg_single_addr, .sg_single_len, .sg_next, .sg_take, .sg_take_n,
    .cqe_status(j.cqe_status), .cqe_verdict, .cqe_check_key);

  // DMA faults the jobs saw, merged with the CQE writer's: when both come
  // in one cycle, the job's address is reported.
  assign ev_dma_fault = j.dma_fault || tx_fault || cqe_fault;
  assign ev_dma_addr  = j.dma_fault ? j.dma_addr : tx_fault ? tx_fault_addr : cqe_fault_addr;

  // ------------------------------------------------------------ the jobs
  logic [31:0] go_pos;
  rnic_requester u_req (
    .mutant, .j, .jd, .x(cur_xs), .oldest(cur_oldest), .cur_scq, .wqe, .wqe_bind, .wq_total, .wq_nsge, .wq_sge_len(wq_sge_lens),
    .rd_at_limit, .lchk_rsp_valid, .lchk_verdict, .tx_poison, .frame_waiting(rxb_valid && !j.rxb_release),
    .log_mtu(cur_log_mtu),
    .jn(req_jn), .xs_we(req_xs_we), .xs(req_xs), .fl_slot, .fl_we, .fl(fl_wr), .go_pos);

  // A READ request for cur waits behind the READ response under way, for a
  // PSN the response has already sent (j.tx_psn, in S_RD_RESP_DONE) or an
  // earlier one: the requester went back, and the responder ends that
  // response for it (rnic_responder.sv). A request for a later PSN is no
  // such sign: a resend brings every request after the one it went back to.
  logic rd_superseded;
  assign rd_superseded = rxb_valid && !j.rxb_release && p_roce && p_len_ok && p_qp == 24'(cur) &&
                         p_op == rnic_pkg::BTH_READ_REQUEST &&
                         rnic_pkg::psn_off(p_psn, j.tx_psn + 24'd1) >= 24'h800000 &&
                         mutant != rnic_pkg::MUTANT_NO_READ_SUPERSEDE;

  rnic_responder u_resp (
    .mutant, .j, .jd, .q(job_q), .x(cur_xs), .xp(pq_xs), .rq_base(parsing ? pq_rq_base : cur_rq_base),
    .rq_log(parsing ? pq_rq_log : cur_rq_log), .rcq(cur_rcq),
    .p_psn, .p_in_seq(p_psn == pq_xs.rq_psn), .min_rnr(pq_timers.min_rnr_timer),
    .p_va, .p_rkey, .p_rlen, .p_plen, .rx_is_send, .rx_is_write, .rx_is_read_req, .rx_first, .rx_last,
    .rx_cont, .resp_act, .resp_dup, .resp_nak_syndrome, .resp_nak_status,
    .wqe, .wq_total, .wq_nsge, .wq_sge_len(wq_sge_lens),
    .rchk_rsp_valid, .rchk_verdict, .rchk_key, .lchk_rsp_valid, .lchk_verdict, .tx_poison, .rd_superseded,
    .log_mtu(job_log_mtu),
    .jn(resp_jn), .xs_we(resp_xs_we), .xs(resp_xs));

  rnic_completer u_comp (
    .mutant, .j, .jd, .q(job_q), .x(cur_xs), .xp(pq_xs), .oldest(cur_oldest), .oldest_p(pq_oldest),
    .sq_base(parsing ? pq_sq_base : cur_sq_base), .sq_log(parsing ? pq_sq_log : cur_sq_log), .sq_pi(cur_sq_pi),
    .rq_base(cur_rq_base), .rq_log(cur_rq_log), .scq(parsing ? pq_scq : cur_scq), .rcq(cur_rcq),
    .rx_last, .p_plen, .comp_act, .comp_ack_status, .ack_psn, .ack_syn,
    .retry_cnt(parsing ? pq_timers.retry_cnt : cur_timers.retry_cnt),
    .rnr_retry(parsing ? pq_timers.rnr_retry : cur_timers.rnr_retry), .wqe, .log_mtu(job_log_mtu),
    .cqe_done, .cqe_overflow, .bu_done, .bu_ok, .bind_index, .bind_key,
    .jn(comp_jn), .xs_we(comp_xs_we), .xs(comp_xs));

  // The job control: the states no unit owns, and which unit's next job
  // registers and QP writes the engine takes.
  rnic_job_control #(.NUM_QP(NUM_QP)) u_ctl (
    .j, .enable, .rxb_valid, .rxb_next_valid, .bind_any, .bind_q, .retry_any, .retry_q, .pick_any, .pick_q, .flush_any, .flush_q,
    .nxt_done, .nxt_sq_ci, .nxt_sq_base, .nxt_sq_log,
    .dma_rd_req_ready(dma_rd_req_ready && !rd_owed), .dma_rd_rsp_valid, .fetch_cut, .dma_rd_rsp_err,
    .tx_started, .tx_done,
    .cur_sq_ci(cur_xs.sq_ci), .sc_done, .sc_overrun, .wr_outstanding, .dma_wr_cpl_valid,
    .payload_wr_err(dma_wr_cpl_valid && !dma_wr_cpl_tag[15] && dma_wr_cpl_err),
    .cur_rts(cur_state == 2'(rnic_pkg::QP_STATE_RTS)),
    .qp_cmd_valid, .bad_doorbell(db_valid && ((db_kind <= 2'd1 && !qp_db_ok) || (db_kind == 2'd2 && !cq_db_ok))),
    .db_index, .p_roce, .p_len_ok, .p_qp, .pq_state, .p_op, .p_psn, .p_ackreq, .rx_is_ack, .rx_is_rresp,
    .req_jn, .req_xs_we, .req_xs, .resp_jn, .resp_xs_we, .resp_xs, .comp_jn, .comp_xs_we, .comp_xs,
    .rx_to_resp, .jd, .jn, .xs_we, .xs_wr);

  // Idle -----------------------------------------------------------------
  // Everything that moves without a new input: a job (st != S_IDLE, and
  // with it every DMA read, since a read is only ever requested and
  // awaited inside a job, but for a fetch's dropped beats, rd_tail); what S_IDLE would start at the next edge (the
  // same conditions as rnic_job_control's S_IDLE; a frame released this cycle is
  // covered by the rxb_release pulse); DMA writes still leaving the output
  // FIFO or waiting for their completion; trace events still queued; and
  // the one-cycle pulses, each of which moves another block (STATUS,
  // INTR_STATUS, RX_DROPS, the trace FIFO, the framer, the receive buffer).
  // The gather and the scatter must be empty as well: a beat or a byte
  // left in them is work not finished. The commands and doorbells from the
  // register block are its own idle's.
  logic start_due, pulse_due;
  always_comb begin
    start_due = enable && (rxb_valid || bind_any || retry_any || pick_any || flush_any);
    pulse_due = ev_dma_fault || ev_bad_doorbell || ev_cq_overflow || ev_rx_drop || intr_set != '0 ||
                j.ev_valid || db_ev_valid || fr_start || rxb_release || tmr_arm || j.kick;
    // A held prefetch waits for its frame only while the job could still
    // send it: nothing due next means nothing will.
    tx_pf_keep = !qp_cmd_valid && (pf_in_message || (pf_wq_holds && (st != rnic_pkg::S_IDLE || start_due)));
    idle      = st == rnic_pkg::S_IDLE && !start_due && !pulse_due && wr_outstanding == 8'd0 && !rd_tail &&
                !dma_wr_valid && !trace_valid && tx_idle && sc_idle && tmr_idle;
  end

  // Sequential -----------------------------------------------------------
  always_ff @(posedge clk) begin
    ev_bad_doorbell <= 1'b0;
    db_ev_valid     <= 1'b0;
    if (!rst_n) begin
      j.st <= rnic_pkg::S_IDLE;
      j.ret_st <= rnic_pkg::S_IDLE;
      j.after_cqe <= rnic_pkg::S_IDLE;
      j.cur <= '0;
      j.wr_fault <= 1'b0;
      j.rx_held <= 1'b0;
      j.wq_held <= 1'b0;
      j.ev_valid <= 1'b0;
      j.ev_code <= '0;
      j.ev_qpn <= '0;
      j.ev_arg <= '0;
      j.ev_rx_drop <= 1'b0;
      j.ev_cq_overflow <= 1'b0;
      j.ev_queue <= '0;
      j.rxb_release <= 1'b0;
      j.dma_fault <= 1'b0;
      j.dma_addr <= '0;
      j.tmr_op <= rnic_pkg::TMR_NONE;
      j.kick <= 1'b0;
      wr_outstanding <= '0;
      db_ev_qpn <= '0;
      db_ev_arg <= '0;
    end else begin
      j <= jn;
      // Beat i of a fetch carries words i * WPB to i * WPB + WPB - 1.
      if (st == rnic_pkg::S_FETCH_DATA && dma_rd_rsp_valid)
        for (int unsigned k = 0; k < WPB; k++)
          if (32'(j.fetch_i) * WPB + k < WQ_WORDS) wq[32'(j.fetch_i) * WPB + k] <= dma_rd_rsp_data[64*k +: 64];
      // A doorbell event names the queue and carries {kind, new index};
      // kind 0 send, 1 receive, 2 CQ consumer (the context store or the CQE
      // writer applies it). A refused doorbell is no event.
      if (db_valid) begin
        db_ev_qpn <= 16'(db_index);
        db_ev_arg <= {46'd0, db_kind, db_value};
        unique case (db_kind)
          2'd0, 2'd1: if (qp_db_ok) db_ev_valid <= 1'b1; else ev_bad_doorbell <= 1'b1;
          2'd2:       if (cq_db_ok) db_ev_valid <= 1'b1; else ev_bad_doorbell <= 1'b1;
          default: ;
        endcase
      end
      wr_outstanding <= wr_outstanding
                        + ((w_valid && w_ready && w_last) ? 8'd1 : 8'd0)
                        - (dma_wr_cpl_valid ? 8'd1 : 8'd0);
    end
  end

  // The engine's rules are asserted in rnic_engine_checker, bound into it.
endmodule
