// The RNIC's transport engine: one sequential state machine that serves,
// one job at a time, the received frame waiting in the receive buffer
// (first) or the next WQE of a send queue (round-robin over ready QPs).
//
// Why sequential: a job owns the DMA ports, the framer and the protection
// table while it runs, so no arbitration is needed and every step is easy
// to follow in a waveform. Payload moves at the full datapath width inside
// a job (DMA read -> framer, receive buffer -> DMA write), so bulk transfers
// still run near line rate.
//
// Each QP has up to MAX_RD_ATOMIC requester WQEs in flight (sent, waiting
// for their ACK or READ responses), completed in order. A WQE with the
// FENCE flag waits until every earlier WQE of its QP has completed,
// outstanding RDMA READs included.
//
// A BIND takes its place among the WQEs in flight and commits its window
// when it is the oldest (every earlier WQE completed: a bind that an earlier
// error flushes never changes the window), and every later WQE of its QP
// waits until it has committed (the bind fence). Nothing else waits. Per-packet state that
// a multi-packet message needs (write cursor, receive cursor, read cursor)
// is kept per QP; WQEs are re-read from the rings when a later packet needs
// their scatter list, instead of being cached on chip.
//
// Every WQE, SGE and CQE field, opcode, syndrome and status is a name from
// rnic_pkg, generated from rtl/spec/rnic.toml: the WQE in wq is read through
// the wqe / wqe_bind views, a CQE is assembled in cqe.
module rnic_engine #(
  parameter int unsigned NUM_QP = rnic_pkg::NUM_QP,
  parameter int unsigned NUM_CQ = rnic_pkg::NUM_CQ,
  parameter int unsigned W = rnic_pkg::DATA_BYTES,
  parameter int unsigned RXD = (rnic_pkg::MTU + 128) / rnic_pkg::DATA_BYTES
) (
  input  logic        clk,
  input  logic        rst_n,
  input  logic        enable,
  input  logic [47:0] mac,
  input  logic [31:0] ipv4,
  input  logic [3:0]  mutant,        // rnic_pkg::MUTANT_*: 0 outside verification builds

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
  output logic [7:0]  ev_queue,
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
  input  logic [63:0] dma_rd_rsp_data,
  input  logic        dma_rd_rsp_last,
  input  logic        dma_rd_rsp_err,
  output logic        dma_wr_valid,
  input  logic        dma_wr_ready,
  output logic [63:0] dma_wr_addr,
  output logic [12:0] dma_wr_len,
  output logic [7:0]  dma_wr_tag,
  output logic [63:0] dma_wr_data,
  output logic        dma_wr_last,
  input  logic        dma_wr_cpl_valid,
  input  logic [7:0]  dma_wr_cpl_tag,
  input  logic        dma_wr_cpl_err,

  output logic        fr_start,
  output logic [15:0] fr_len,
  input  logic        fr_busy,
  input  logic        fr_push_ok,
  output logic [63:0] fr_push_data,
  output logic [3:0]  fr_push_n,
  output logic        fr_poison,

  input  logic        rxb_valid,
  input  logic [15:0] rxb_len,
  input  logic [8*80-1:0] rxb_hdr,
  output logic [$clog2(RXD)-1:0] rxb_rd_addr,
  input  logic [63:0] rxb_rd_data,
  output logic        rxb_release,

  output logic        trace_valid,
  output logic [7:0]  trace_event,
  output logic [15:0] trace_qpn,
  output logic [63:0] trace_arg,

  // Nothing to do and nothing under way: see the block before the state
  // machine's always_ff.
  output logic        idle
);
  localparam int unsigned QW  = $clog2(NUM_QP);
  localparam int unsigned CQW = $clog2(NUM_CQ);
  localparam int unsigned S   = rnic_pkg::MAX_SGE;
  localparam int unsigned SIW = $clog2(S);
  localparam int unsigned D   = rnic_pkg::MAX_RD_ATOMIC;   // WQEs in flight per QP
  localparam int unsigned DW  = $clog2(D);
  localparam logic [31:0] MTU = 32'(rnic_pkg::MTU);
  localparam logic [31:0] V_OK = 32'(rnic_pkg::PT_VERDICT_OK);
  localparam int unsigned WQE_WORDS = rnic_pkg::WQE_WORDS;
  // A completion needs only a WQE's words up to its WR_ID (opcode, flags, wr_id).
  localparam int unsigned WQE_CPL_WORDS = rnic_pkg::WQE_WR_ID_WORD + 1;

  // ------------------------------------------------------------ contexts
  // A QP's configuration, state and producer indices: rnic_qp_config
  // (u_qp_cfg, below). What moves with the work is here.
  logic [23:0] q_sq_psn [NUM_QP];   // next PSN to send
  logic [23:0] q_rq_psn [NUM_QP];   // next PSN expected as responder
  logic [23:0] q_msn [NUM_QP];
  logic [15:0] q_sq_ci [NUM_QP];    // next WQE to start
  logic [15:0] q_rq_ci [NUM_QP];
  logic [15:0] q_done [NUM_QP];     // oldest WQE not completed; q_done..sq_ci-1 are in flight
  logic        q_fenced [NUM_QP];   // the WQE at sq_ci waits until nothing is in flight
  logic        q_bind_wait [NUM_QP];// a BIND is in flight, not yet committed: nothing after it starts
  // The WQE at sq_ci is a READ over the QP's limit of READs in flight: it
  // waits until the oldest WQE in flight (q_hold_done) has completed.
  logic        q_rd_hold [NUM_QP];
  logic [15:0] q_hold_done [NUM_QP];
  logic [31:0] q_out_got [NUM_QP];  // oldest WQE, a READ: bytes of it received so far
  // Per WQE in flight, at slot {qp, index mod D}.
  logic [7:0]  o_op [NUM_QP*D];
  logic [23:0] o_first [NUM_QP*D];  // first PSN of its packets (READ: of its responses)
  logic [23:0] o_last [NUM_QP*D];   // last PSN: the one its ACK names
  logic [31:0] o_len [NUM_QP*D];
  logic [63:0] q_wr_va [NUM_QP];    // responder RDMA WRITE cursor
  logic [31:0] q_wr_left [NUM_QP];
  logic [31:0] q_wr_rkey [NUM_QP];  // its rkey: every packet of a WRITE is checked again
  logic [31:0] q_rcv_got [NUM_QP];  // responder SEND: bytes placed in the current RECV
  logic        q_snd_open [NUM_QP]; // responder SEND: a message's FIRST came, its LAST not yet

  // The QP context store: configuration, state and producer indices.
  logic [63:0]    cur_sq_base, cur_rq_base, pq_sq_base, pq_rq_base, nxt_sq_base;
  logic [3:0]     cur_sq_log, cur_rq_log, pq_sq_log, pq_rq_log, nxt_sq_log;
  logic [CQW-1:0] cur_scq, cur_rcq, pq_scq;
  logic [15:0]    cur_pz, pq_pz, cur_sq_pi, pq_rq_pi;
  logic [23:0]    cur_rqpn;
  logic [31:0]    cur_rip;
  logic [47:0]    cur_rmac;
  logic [1:0]     pq_state, sel_state;
  logic [7:0]     pq_flags, sel_err;
  logic [2*NUM_QP-1:0]  all_state;
  logic [8*NUM_QP-1:0]  all_flags;
  logic [16*NUM_QP-1:0] all_sq_pi, all_rq_pi;
  logic           qp_db_ok, qp_err_set;

  // Trace: the state machine's events and accepted doorbells, merged into
  // the one-event-a-cycle trace port.
  logic        fsm_ev_valid, db_ev_valid;
  logic [7:0]  fsm_ev_code;
  logic [15:0] fsm_ev_qpn, db_ev_qpn;
  logic [63:0] fsm_ev_arg, db_ev_arg;
  rnic_trace_fifo u_trace (
    .clk, .rst_n,
    .a_valid(db_ev_valid), .a_event(rnic_pkg::EV_DOORBELL), .a_qpn(db_ev_qpn), .a_arg(db_ev_arg),
    .b_valid(fsm_ev_valid), .b_event(fsm_ev_code), .b_qpn(fsm_ev_qpn), .b_arg(fsm_ev_arg),
    .trace_valid, .trace_event, .trace_qpn, .trace_arg);

  // ------------------------------------------------------------ FSM
  typedef enum logic [5:0] {
    S_IDLE, S_FETCH_REQ, S_FETCH_DATA,
    S_SQ_DECODE, S_SQ_NOP, S_SQ_CHECK, S_SQ_CHECK_WAIT, S_SQ_GO, S_SQ_PKT, S_SQ_PKT_DONE,
    S_TX,
    S_RX_PARSE, S_RX_RKEY_FIRE, S_RX_RKEY_WAIT, S_RX_SEND_WQE, S_RX_SEND_CHECK, S_RX_SEND_CHECK_WAIT,
    S_RX_SEND_PLACE, S_RX_RRESP_WQE, S_RX_SCATTER, S_RX_WAIT_WR, S_RX_AFTER,
    S_RD_RESP_PKT, S_RD_RESP_DONE, S_ACK_SEND, S_ACK_DONE,
    S_CQE_FETCH_DONE, S_CQE,
    S_FLUSH_PICK, S_FLUSH_FETCHED, S_SQ_ERR, S_ERROR_QP,
    S_BIND_START, S_BIND
  } state_t;
  state_t st, ret_st;

  // Job registers.
  logic [QW-1:0]  cur;                 // QP the job is for
  logic [63:0]    wq [WQE_WORDS];      // the WQE being worked on (read it through wqe below)
  logic [4:0]     fetch_i, fetch_n;
  logic [63:0]    fetch_addr;
  logic           fetch_err;
  // Which WQE wq holds whole (a 16-word fetch), so the packets of one
  // message after the first (READ responses, SEND middles) need not fetch
  // their WQE again. The next fetch or any QP command forgets it.
  logic           wq_held, wq_held_recv, fetch_recv;
  logic [QW-1:0]  wq_held_qp, fetch_qp;
  logic [15:0]    wq_held_idx, fetch_idx;
  logic [2:0]     chk_i;
  logic [31:0]    bytes_left, total;
  logic [15:0]    pkt_i;
  // Header fields of the frame being sent.
  rnic_pkg::bth_t  tx_opcode;
  rnic_pkg::aeth_t tx_syndrome;
  logic           tx_ackreq, tx_se;
  logic [1:0]     tx_ext, tx_pad;      // tx_ext: rnic_pkg::HDR_EXT_*
  logic [23:0]    tx_psn;
  logic [63:0]    tx_va;
  logic [31:0]    tx_rkey, tx_rlen;
  logic [15:0]    tx_plen;
  // Received frame.
  logic           wr_fault;
  logic           rx_held;             // the receive buffer's frame is still ours
  logic [7:0]     l_op;                // fields of that frame kept past its release
  logic [23:0]    l_psn;
  logic           l_ackreq;
  logic [7:0]     wr_outstanding;
  // Completion to write.
  logic [CQW-1:0] cqe_cq;
  logic [7:0]     cqe_status, cqe_op;
  logic [15:0]    cqe_idx;
  logic           cqe_recv;
  logic [31:0]    cqe_len;
  logic [63:0]    cqe_wrid;
  logic [7:0]     err_status;          // status that moves `cur` to ERROR after the CQE
  logic           flush_recv;
  state_t         after_cqe;

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
    .hdr(rxb_hdr), .frame_len(rxb_len), .my_ip(ipv4), .is_roce(p_roce), .opcode(p_op),
    .solicited(p_se), .pad(p_pad), .dest_qp(p_qp), .ack_req(p_ackreq), .psn(p_psn),
    .reth_va(p_va), .reth_rkey(p_rkey), .reth_len(p_rlen), .aeth_syndrome(p_syn),
    .payload_off(p_off), .payload_len(p_plen), .len_ok(p_len_ok));
  logic [QW-1:0] pq;
  assign pq = p_qp[QW-1:0];
  // Slot of the oldest WQE in flight on the received frame's QP, and on cur.
  logic [QW+DW-1:0] old_pq, old_cur;
  assign old_pq  = {pq, q_done[pq][DW-1:0]};
  assign old_cur = {cur, q_done[cur][DW-1:0]};
  logic [QW+DW-1:0] wslot;           // slot of the WQE being sent

  // Transmit: in S_TX the gather sends the frame tx_* describes, its
  // payload from the cursor; it answers done in the cycle the engine moves
  // on to ret_st.
  logic        tx_started, tx_done, tx_poison, tx_idle;
  logic        tx_seg_next, tx_seg_take;
  logic [31:0] tx_seg_take_n;
  logic        tx_rd_req_valid, tx_rd_rsp_ready;
  logic [63:0] tx_rd_req_addr;
  logic [12:0] tx_rd_req_len;
  logic        tx_fault;
  logic [31:0] tx_fault_addr;
  logic        sg_more;
  logic [31:0] seg_rem;
  logic [63:0] sg_addr, sg_base;
  rnic_tx_gather u_gather (
    .clk, .rst_n, .start(st == S_TX), .started(tx_started), .done(tx_done), .poison(tx_poison), .idle(tx_idle),
    .src_mac(mac), .src_ip(ipv4), .dst_mac(cur_rmac), .dst_ip(cur_rip),
    .udp_sport(rnic_pkg::UDP_SPORT_BASE | 16'(cur)), .dest_qp(cur_rqpn),
    .opcode(tx_opcode), .solicited(tx_se), .pad(tx_pad), .ack_req(tx_ackreq), .psn(tx_psn), .ext(tx_ext),
    .reth_va(tx_va), .reth_rkey(tx_rkey), .reth_len(tx_rlen), .aeth_syndrome(tx_syndrome), .aeth_msn(q_msn[cur]),
    .plen(tx_plen),
    .seg_more(sg_more), .seg_rem, .seg_addr(sg_addr), .seg_base(sg_base),
    .seg_next(tx_seg_next), .seg_take(tx_seg_take), .seg_take_n(tx_seg_take_n),
    .rd_req_valid(tx_rd_req_valid), .rd_req_ready(dma_rd_req_ready), .rd_req_addr(tx_rd_req_addr),
    .rd_req_len(tx_rd_req_len), .rd_rsp_valid(dma_rd_rsp_valid), .rd_rsp_ready(tx_rd_rsp_ready),
    .rd_rsp_data(dma_rd_rsp_data), .rd_rsp_last(dma_rd_rsp_last), .rd_rsp_err(dma_rd_rsp_err),
    .fault(tx_fault), .fault_addr(tx_fault_addr),
    .fr_start, .fr_len, .fr_busy, .fr_push_ok, .fr_push_data, .fr_push_n, .fr_poison);

  // Helpers ------------------------------------------------------------
  function automatic logic [31:0] min32(input logic [31:0] x, input logic [31:0] y);
    min32 = (x < y) ? x : y;
  endfunction
  function automatic logic [15:0] ring_mask(input logic [3:0] lg);
    ring_mask = 16'((17'd1 << lg) - 17'd1);
  endfunction
  // Host address of slot `idx` (mod ring size) of a ring of `sz`-byte entries.
  function automatic logic [63:0] slot(input logic [63:0] base, input logic [15:0] idx,
                                       input logic [3:0] lg, input logic [7:0] sz);
    slot = base + {48'd0, idx & ring_mask(lg)} * {56'd0, sz};
  endfunction

  // The WQE in wq, field by field as rtl/spec/rnic.toml lays it out
  // (rnic_pkg::wqe_t); a BIND reads word 1 as its window's new key and
  // rights (rnic_pkg::wqe_bind_t). The SGEs are unpacked into arrays, which
  // the loops and the lkey checks index (Yosys reads no array of structs).
  // Each view has fields this engine does not read.
  /* verilator lint_off UNUSEDSIGNAL */
  rnic_pkg::wqe_t      wqe;
  rnic_pkg::wqe_bind_t wqe_bind;
  /* verilator lint_on UNUSEDSIGNAL */
  rnic_pkg::sge_t      wq_sge;
  logic [63:0] wq_sge_addr [S];
  logic [31:0] wq_sge_len [S];
  logic [31:0] wq_sge_lkey [S];
  always_comb begin
    for (int unsigned w = 0; w < WQE_WORDS; w++) begin
      wqe[64*w +: 64]      = wq[w];
      wqe_bind[64*w +: 64] = wq[w];
    end
    for (int unsigned i = 0; i < S; i++) begin
      wq_sge         = wqe.sge[rnic_pkg::SGE_BITS*i +: rnic_pkg::SGE_BITS];
      wq_sge_addr[i] = wq_sge.addr;
      wq_sge_len[i]  = wq_sge.len;
      wq_sge_lkey[i] = wq_sge.lkey;
    end
  end

  logic [15:0] sq_idx, rq_idx;
  logic [63:0] sq_wqe_addr, rq_wqe_addr, done_wqe_addr;
  logic        busy_q;               // cur has WQEs in flight
  logic [2:0]  wq_nsge;
  always_comb begin
    sq_idx       = q_sq_ci[cur];
    rq_idx       = q_rq_ci[cur];
    sq_wqe_addr  = slot(cur_sq_base, sq_idx, cur_sq_log, 8'(rnic_pkg::WQE_BYTES));
    rq_wqe_addr  = slot(cur_rq_base, rq_idx, cur_rq_log, 8'(rnic_pkg::WQE_BYTES));
    done_wqe_addr = slot(cur_sq_base, q_done[cur], cur_sq_log, 8'(rnic_pkg::WQE_BYTES));
    busy_q       = q_sq_ci[cur] != q_done[cur];
    wq_nsge = (wqe.num_sge > 8'(S)) ? 3'(S) : 3'(wqe.num_sge);
  end

  // The send-queue scheduler: the next QP with send work (a BIND to
  // commit, a WQE to start, a queue to flush), round-robin, and whether a
  // READ of cur must wait for the READ limit. It sees the contexts packed.
  logic [NUM_QP-1:0]     sch_fenced, sch_bind_wait, sch_rd_hold;
  logic [16*NUM_QP-1:0]  sch_hold_done, sch_sq_ci, sch_done, sch_rq_ci;
  logic [8*NUM_QP*D-1:0] sch_op;
  always_comb begin
    for (int unsigned i = 0; i < NUM_QP; i++) begin
      sch_fenced[i]            = q_fenced[i];
      sch_bind_wait[i]         = q_bind_wait[i];
      sch_rd_hold[i]           = q_rd_hold[i];
      sch_hold_done[16*i +: 16] = q_hold_done[i];
      sch_sq_ci[16*i +: 16]    = q_sq_ci[i];
      sch_done[16*i +: 16]     = q_done[i];
      sch_rq_ci[16*i +: 16]    = q_rq_ci[i];
    end
    for (int unsigned i = 0; i < NUM_QP*D; i++) sch_op[8*i +: 8] = o_op[i];
  end
  logic          pick_any, flush_any, bind_any, rd_at_limit;
  logic [QW-1:0] pick_q, flush_q, bind_q;
  rnic_sq_scheduler #(.NUM_QP(NUM_QP)) u_sched (
    .clk, .rst_n, .mutant, .state(all_state), .fenced(sch_fenced), .bind_wait(sch_bind_wait),
    .rd_hold(sch_rd_hold), .hold_done(sch_hold_done), .sq_pi(all_sq_pi), .sq_ci(sch_sq_ci), .done(sch_done),
    .rq_pi(all_rq_pi), .rq_ci(sch_rq_ci), .inflight_op(sch_op), .flags(all_flags),
    .advance(st == S_IDLE && enable && !(rxb_valid && !rxb_release) && !bind_any && pick_any),
    .pick_any, .pick_q, .bind_any, .bind_q, .flush_any, .flush_q, .cur, .rd_at_limit);

  // The QP context store: each QP's configuration, state and producer
  // indices, written by the QP commands, the doorbells and S_ERROR_QP.
  rnic_qp_config #(.NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ)) u_qp_cfg (
    .clk, .rst_n,
    .cmd_valid(qp_cmd_valid), .cmd(qp_cmd), .cmd_sel(qp_sel), .cmd_sq_base(qp_sq_base), .cmd_rq_base(qp_rq_base),
    .cmd_sq_log(qp_sq_log), .cmd_rq_log(qp_rq_log), .cmd_scq(qp_scq), .cmd_rcq(qp_rcq), .cmd_pz(qp_pz),
    .cmd_flags(qp_flags), .cmd_remote_qpn(qp_remote_qpn), .cmd_remote_ip(qp_remote_ip),
    .cmd_remote_mac(qp_remote_mac),
    .db_valid, .db_kind, .db_index, .db_value, .db_sq_ci(q_sq_ci[db_index]), .db_rq_ci(q_rq_ci[db_index]),
    .db_ok(qp_db_ok),
    .err_valid(qp_err_set), .err_qp(cur), .err_status,
    .cur, .cur_sq_base, .cur_rq_base, .cur_sq_log, .cur_rq_log, .cur_scq, .cur_rcq, .cur_pz,
    .cur_remote_qpn(cur_rqpn), .cur_remote_ip(cur_rip), .cur_remote_mac(cur_rmac), .cur_sq_pi,
    .pq, .pq_state, .pq_sq_base, .pq_rq_base, .pq_sq_log, .pq_rq_log, .pq_scq, .pq_pz, .pq_flags, .pq_rq_pi,
    .nxt(bind_any ? bind_q : pick_q), .nxt_sq_base, .nxt_sq_log,
    .sel_state, .sel_err,
    .all_state, .all_flags, .all_sq_pi, .all_rq_pi);
  assign qp_state_rd = {sel_err, 6'd0, sel_state};
  assign qp_err_set  = st == S_ERROR_QP;

  // DMA writes (payload pieces and CQEs) leave through a two-entry FIFO, so
  // the byte queue and counters behind it never depend on dma_wr_ready.
  // The tag says what a burst is, so its completion can be acted on: bit 7
  // set for a CQE (bits 6:0 its CQ: the interrupt is raised only once the
  // CQE is in host memory), clear for payload.
  logic        w_valid, w_ready, w_last;
  logic [63:0] w_addr, w_data;
  logic [12:0] w_len;
  logic [7:0]  w_tag;
  rnic_beat_fifo #(.WIDTH(64 + 13 + 8 + 64 + 1)) u_wr_out (
    .clk, .rst_n, .in_valid(w_valid), .in_ready(w_ready), .in_data({w_addr, w_len, w_tag, w_data, w_last}),
    .out_valid(dma_wr_valid), .out_ready(dma_wr_ready),
    .out_data({dma_wr_addr, dma_wr_len, dma_wr_tag, dma_wr_data, dma_wr_last}));

  // Receive scatter: in S_RX_SCATTER it places the frame's payload (loaded
  // at parse) over the cursor's segments.
  logic        sc_done, sc_overrun, sc_idle;
  logic        sc_next, sc_take;
  logic [31:0] sc_take_n;
  logic        sc_w_valid, sc_w_last;
  logic [63:0] sc_w_addr, sc_w_data;
  logic [12:0] sc_w_len;
  rnic_rx_scatter #(.W(W), .RXD(RXD)) u_scatter (
    .clk, .rst_n, .load(st == S_RX_PARSE), .load_off(p_off), .load_len(p_plen), .start(st == S_RX_SCATTER),
    .done(sc_done), .overrun(sc_overrun), .idle(sc_idle), .rxb_rd_addr, .rxb_rd_data,
    .seg_more(sg_more), .seg_rem, .seg_addr(sg_addr), .seg_next(sc_next), .seg_take(sc_take),
    .seg_take_n(sc_take_n), .w_valid(sc_w_valid), .w_ready, .w_addr(sc_w_addr), .w_len(sc_w_len),
    .w_data(sc_w_data), .w_last(sc_w_last));
  // Completions: the CQE writer owns the CQs; in S_CQE the engine hands it
  // the completion in cqe_* and waits for cqe_done.
  logic        cqe_done, cqe_overflow, cq_db_ok;
  /* verilator lint_off UNUSEDSIGNAL */
  logic        cqe_last_beat;   // read by rnic_engine_checker only
  /* verilator lint_on UNUSEDSIGNAL */
  logic        cqe_w_valid, cqe_w_last;
  logic [63:0] cqe_w_addr, cqe_w_data;
  logic [12:0] cqe_w_len;
  logic [7:0]  cqe_w_tag;
  logic        cqe_fault;
  logic [31:0] cqe_fault_addr;
  rnic_cqe_writer #(.NUM_CQ(NUM_CQ)) u_cqe (
    .clk, .rst_n,
    .cmd_valid(cq_cmd_valid), .cmd(cq_cmd), .cmd_sel(cq_sel), .cmd_base(cq_base), .cmd_log(cq_log),
    .db_valid(db_valid && db_kind == 2'd2), .db_index(16'(db_index)), .db_value, .db_ok(cq_db_ok),
    .cqe_req(st == S_CQE), .cqe_cq, .cqe_qpn(16'(cur)), .cqe_idx, .cqe_op, .cqe_status, .cqe_recv,
    .cqe_len, .cqe_wrid, .cqe_verdict, .cqe_check_key, .cqe_done, .cqe_overflow, .cqe_last_beat,
    .w_valid(cqe_w_valid), .w_ready, .w_addr(cqe_w_addr), .w_len(cqe_w_len), .w_tag(cqe_w_tag),
    .w_data(cqe_w_data), .w_last(cqe_w_last),
    .cpl_valid(dma_wr_cpl_valid && dma_wr_cpl_tag[7]), .cpl_cq(CQW'(dma_wr_cpl_tag[6:0])), .cpl_err(dma_wr_cpl_err),
    .intr_set, .fault(cqe_fault), .fault_addr(cqe_fault_addr));

  // DMA faults the state machine saw, merged with the CQE writer's: when
  // both come in one cycle, the state machine's address is reported.
  logic        fsm_dma_fault;
  logic [31:0] fsm_dma_addr;
  assign ev_dma_fault = fsm_dma_fault || tx_fault || cqe_fault;
  assign ev_dma_addr  = fsm_dma_fault ? fsm_dma_addr : tx_fault ? tx_fault_addr : cqe_fault_addr;

  always_comb begin
    w_valid = sc_w_valid;
    w_addr  = sc_w_addr;
    w_len   = sc_w_len;
    w_tag   = 8'd0;
    w_data  = sc_w_data;
    w_last  = sc_w_last;
    if (!sc_w_valid && cqe_w_valid) begin
      w_valid = 1'b1;
      w_addr  = cqe_w_addr;
      w_len   = cqe_w_len;
      w_tag   = cqe_w_tag;
      w_last  = cqe_w_last;
      w_data  = cqe_w_data;
    end
  end

  // DMA reads: WQE fetches and payload gathers.
  always_comb begin
    dma_rd_req_valid = 1'b0;
    dma_rd_req_addr  = fetch_addr;
    dma_rd_req_len   = 13'({fetch_n, 3'b000});
    dma_rd_req_tag   = 8'd0;
    dma_rd_rsp_ready = 1'b0;
    unique case (st)
      S_FETCH_REQ: dma_rd_req_valid = 1'b1;
      S_FETCH_DATA: dma_rd_rsp_ready = 1'b1;
      S_TX: begin
        dma_rd_req_valid = tx_rd_req_valid;
        dma_rd_req_addr  = tx_rd_req_addr;
        dma_rd_req_len   = tx_rd_req_len;
        dma_rd_rsp_ready = tx_rd_rsp_ready;
      end
      default: ;
    endcase
  end

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
    .start(st == S_BIND_START && !fetch_err), .win_key(wqe.rkey), .new_key(wqe_bind.bind_key),
    .new_rights(wqe_bind.bind_rights), .mr_lkey(wq_sge_lkey[0]), .mr_addr(wq_sge_addr[0]),
    .mr_len(wq_sge_len[0]), .pz(cur_pz), .done(bu_done), .ok(bu_ok),
    .chk_valid(bu_chk_valid), .chk_mode(bu_chk_mode), .chk_key(bu_chk_key), .chk_rights(bu_chk_rights),
    .chk_addr(bu_chk_addr), .chk_len(bu_chk_len), .chk_rsp_valid(lchk_rsp_valid), .chk_verdict(lchk_verdict),
    .bind_valid, .bind_index, .bind_key, .bind_pz, .bind_base, .bind_len, .bind_rights, .bind_state,
    .bind_link, .bind_done, .bind_ok);

  // Protection checks.
  always_comb begin
    lchk_valid  = 1'b0;
    lchk_mode   = rnic_pkg::PT_MODE_LOCAL;
    // Only valid with chk_i < wq_nsge, so within the SGE arrays.
    lchk_key    = wq_sge_lkey[chk_i[SIW-1:0]];
    lchk_pz     = cur_pz;
    lchk_rights = 4'd0;
    lchk_addr   = wq_sge_addr[chk_i[SIW-1:0]];
    lchk_len    = wq_sge_len[chk_i[SIW-1:0]];
    if (st == S_SQ_CHECK && chk_i < wq_nsge && wq_sge_len[chk_i[SIW-1:0]] != 32'd0) begin
      lchk_valid  = 1'b1;
      lchk_rights = (wqe.opcode == rnic_pkg::OP_RDMA_READ) ? rnic_pkg::ACCESS_LOCAL_WRITE
                                                           : rnic_pkg::ACCESS_LOCAL_READ;
    end
    if (st == S_RX_SEND_CHECK && chk_i < wq_nsge && wq_sge_len[chk_i[SIW-1:0]] != 32'd0) begin
      lchk_valid  = 1'b1;
      lchk_rights = rnic_pkg::ACCESS_LOCAL_WRITE;
    end
    if (bu_chk_valid) begin
      lchk_valid  = 1'b1;
      lchk_mode   = bu_chk_mode;
      lchk_key    = bu_chk_key;
      lchk_rights = bu_chk_rights;
      lchk_addr   = bu_chk_addr;
      lchk_len    = bu_chk_len;
    end
    // A WRITE's MIDDLE and LAST packets carry no RETH: they are checked at
    // the QP's cursor, with the rkey of the message's FIRST, so a region or
    // window that goes away mid-message stops the rest of it.
    rchk_valid  = st == S_RX_RKEY_FIRE;
    rchk_key    = rx_cont ? q_wr_rkey[pq] : p_rkey;
    rchk_pz     = pq_pz;
    rchk_rights = (p_op == rnic_pkg::BTH_READ_REQUEST) ? rnic_pkg::ACCESS_REMOTE_READ : rnic_pkg::ACCESS_REMOTE_WRITE;
    rchk_addr   = rx_cont ? q_wr_va[pq] : p_va;
    rchk_len    = rx_cont ? 32'(p_plen) : p_rlen;
  end

  // Classification of the received frame.
  logic rx_is_resp_op, rx_is_send, rx_is_write, rx_is_read_req, rx_is_ack, rx_is_rresp;
  logic rx_first, rx_last, rx_cont;
  logic [7:0] op;
  always_comb begin
    op             = (st == S_RX_PARSE) ? p_op : l_op;
    // SEND and RDMA WRITE FIRST/MIDDLE/LAST/ONLY (those with an immediate are not supported).
    rx_is_send     = op == rnic_pkg::BTH_SEND_FIRST || op == rnic_pkg::BTH_SEND_MIDDLE ||
                     op == rnic_pkg::BTH_SEND_LAST || op == rnic_pkg::BTH_SEND_ONLY;
    rx_is_write    = op == rnic_pkg::BTH_WRITE_FIRST || op == rnic_pkg::BTH_WRITE_MIDDLE ||
                     op == rnic_pkg::BTH_WRITE_LAST || op == rnic_pkg::BTH_WRITE_ONLY;
    rx_is_read_req = op == rnic_pkg::BTH_READ_REQUEST;
    rx_is_rresp    = op >= rnic_pkg::BTH_READ_RESPONSE_FIRST && op <= rnic_pkg::BTH_READ_RESPONSE_ONLY;
    rx_is_ack      = op == rnic_pkg::BTH_ACKNOWLEDGE;
    // Requests, for the responder: every RC opcode up to READ REQUEST.
    rx_is_resp_op  = op <= rnic_pkg::BTH_READ_REQUEST;
    rx_first       = op == rnic_pkg::BTH_SEND_FIRST || op == rnic_pkg::BTH_SEND_ONLY ||
                     op == rnic_pkg::BTH_WRITE_FIRST || op == rnic_pkg::BTH_WRITE_ONLY ||
                     op == rnic_pkg::BTH_READ_RESPONSE_FIRST || op == rnic_pkg::BTH_READ_RESPONSE_ONLY;
    rx_last        = op == rnic_pkg::BTH_SEND_LAST || op == rnic_pkg::BTH_SEND_ONLY ||
                     op == rnic_pkg::BTH_WRITE_LAST || op == rnic_pkg::BTH_WRITE_ONLY ||
                     op == rnic_pkg::BTH_READ_RESPONSE_LAST || op == rnic_pkg::BTH_READ_RESPONSE_ONLY;
    rx_cont        = rx_is_write && !rx_first;
  end

  // The completer's check on an ACK or READ response (rnic_comp_check.sv).
  logic       comp_accept;
  logic [7:0] comp_ack_status;
  rnic_comp_check u_comp_check (
    .is_ack(rx_is_ack), .is_read_resp(rx_is_rresp), .syndrome(p_syn), .psn(p_psn),
    .in_flight(q_sq_ci[pq] != q_done[pq]), .oldest_op(o_op[old_pq]), .oldest_first(o_first[old_pq]),
    .oldest_last(o_last[old_pq]), .oldest_got(q_out_got[pq]),
    .accept(comp_accept), .ack_status(comp_ack_status));

  // The responder's checks on a request packet (rnic_resp_check.sv).
  rnic_pkg::resp_act_t resp_act;
  rnic_pkg::aeth_t     resp_nak_syndrome;
  logic [7:0]          resp_nak_status;
  rnic_resp_check u_resp_check (
    .is_request(rx_is_resp_op), .is_write(rx_is_write), .is_read(rx_is_read_req), .is_send(rx_is_send),
    .first(rx_first), .last(rx_last), .psn_expected(p_psn == q_rq_psn[pq]), .reth_len(p_rlen),
    .payload_len(p_plen), .allow_write(pq_flags[rnic_pkg::QP_FLAGS_ALLOW_WR_LSB]),
    .allow_read(pq_flags[rnic_pkg::QP_FLAGS_ALLOW_RD_LSB]), .write_left(q_wr_left[pq]),
    .send_open(q_snd_open[pq]), .recv_posted(q_rq_ci[pq] != pq_rq_pi),
    .recv_held(wq_held && wq_held_recv && wq_held_qp == pq && wq_held_idx == q_rq_ci[pq]),
    .act(resp_act), .nak_syndrome(resp_nak_syndrome), .nak_status(resp_nak_status));

  // Sum of the first n SGE lengths of the WQE in wq (33 bits: never wraps).
  logic [32:0] wq_total;
  always_comb begin
    wq_total = 33'd0;
    for (int unsigned i = 0; i < S; i++) begin
      if (3'(i) < wq_nsge) wq_total = wq_total + 33'(wq_sge_len[i]);
    end
  end

  // The scatter/gather cursor: loaded from the WQE in wq (a SEND or
  // WRITE to gather, a RECV or READ to scatter into, at the byte where this
  // packet starts) or with the one range a received frame names; the
  // gather and the scatter move it. No job leaves anything in it for a
  // later job, so the states below load it whenever they might need it.
  logic            sg_load, sg_single, sg_next, sg_take;
  logic [31:0]     sg_load_pos, sg_single_len, sg_take_n;
  logic [63:0]     sg_single_addr;
  logic [64*S-1:0] sg_load_addr;
  logic [32*S-1:0] sg_load_len;
  always_comb begin
    for (int unsigned i = 0; i < S; i++) begin
      sg_load_addr[64*i +: 64] = wq_sge_addr[i];
      sg_load_len[32*i +: 32]  = wq_sge_len[i];
    end
    sg_load        = 1'b0;
    sg_load_pos    = 32'd0;
    sg_single      = 1'b0;
    sg_single_addr = p_va;
    sg_single_len  = 32'(p_plen);
    unique case (st)
      S_SQ_GO:         sg_load = 1'b1;
      S_RX_SEND_PLACE: begin sg_load = 1'b1; sg_load_pos = q_rcv_got[cur]; end
      S_RX_RRESP_WQE:  begin sg_load = 1'b1; sg_load_pos = q_out_got[cur]; end
      // A WRITE MIDDLE or LAST without payload: nothing to place.
      S_RX_PARSE:      begin sg_single = 1'b1; sg_single_addr = q_wr_va[pq]; sg_single_len = 32'd0; end
      // Granted: the READ's range, or this WRITE packet's (at the cursor
      // the message's FIRST set, for a MIDDLE or LAST).
      S_RX_RKEY_WAIT: begin
        sg_single = rchk_rsp_valid;
        if (rx_is_read_req) sg_single_len = p_rlen;
        else if (rx_cont)   sg_single_addr = q_wr_va[cur];
      end
      default: ;
    endcase
    sg_next   = tx_seg_next || sc_next;
    sg_take   = tx_seg_take || sc_take;
    sg_take_n = tx_seg_take ? tx_seg_take_n : sc_take_n;
  end
  rnic_sg_cursor u_cursor (
    .clk, .rst_n, .load(sg_load), .load_n(wq_nsge), .load_addr(sg_load_addr), .load_len(sg_load_len),
    .load_pos(sg_load_pos), .single(sg_single), .single_addr(sg_single_addr), .single_len(sg_single_len),
    .next(sg_next), .take(sg_take), .take_n(sg_take_n),
    .more(sg_more), .rem(seg_rem), .addr(sg_addr), .seg_base(sg_base));

  // PSNs a READ of wq_total bytes takes: one per response packet, at least one.
  logic [23:0] rd_pkts;
  assign rd_pkts = (wq_total[31:0] == 32'd0) ? 24'd1 : 24'((wq_total[31:0] + MTU - 32'd1) >> $clog2(rnic_pkg::MTU));

  // A WQE that fails a local check completes with `status`. While WQEs of
  // its QP are in flight it is held like a fenced WQE, so its error
  // completion comes after theirs, in order.
  task automatic fail_wqe(input logic [7:0] status);
    err_status <= status;
    if (busy_q) begin
      q_fenced[cur] <= 1'b1;
      st <= S_IDLE;
    end else begin
      st <= S_SQ_ERR;
    end
  endtask

  // A BIND that fails completes with `status` (always a CQE) and breaks its
  // connection; its window is left as it was.
  task automatic bind_fail(input logic [7:0] status);
    cqe_status <= status;
    err_status <= status;
    q_done[cur] <= q_done[cur] + 16'd1;
    q_bind_wait[cur] <= 1'b0;
    after_cqe <= S_ERROR_QP;
    st <= S_CQE;
  endtask


  // A READ request is granted: its responses come from memory (the cursor
  // holds its range), so the frame can go.
  task automatic start_read_response();
    rxb_release <= 1'b1;
    rx_held <= 1'b0;
    bytes_left <= p_rlen;
    total <= p_rlen;
    pkt_i <= '0;
    tx_psn <= p_psn;
    st <= S_RD_RESP_PKT;
  endtask

  // Idle -----------------------------------------------------------------
  // Everything that moves without a new input: a job (st != S_IDLE, and
  // with it every DMA read, since a read is only ever requested and
  // awaited inside a job); what S_IDLE would start at the next edge (the
  // same conditions as its branch below; a frame released this cycle is
  // covered by the rxb_release pulse); DMA writes still leaving the output
  // FIFO or waiting for their completion; trace events still queued; and
  // the one-cycle pulses this block clears by itself, each of which moves
  // another block (STATUS, INTR_STATUS, RX_DROPS, the trace FIFO, the
  // framer, the receive buffer). The payload register (rs_*) and the
  // receive byte queue only move inside a job, but a beat or a byte left
  // in them is work not finished, so they must be empty as well. The
  // commands and doorbells from the register block are its own idle's.
  logic start_due, pulse_due;
  always_comb begin
    start_due = enable && (rxb_valid || bind_any || pick_any || flush_any);
    pulse_due = ev_dma_fault || ev_bad_doorbell || ev_cq_overflow || ev_rx_drop || intr_set != '0 ||
                fsm_ev_valid || db_ev_valid || fr_start || rxb_release;
    idle      = st == S_IDLE && !start_due && !pulse_due && wr_outstanding == 8'd0 && !dma_wr_valid &&
                !trace_valid && tx_idle && sc_idle;
  end

  // The last local protection check, for the CQE a refusal ends in: a
  // LOCAL_PROTECTION or BIND_FAILED CQE follows its own refused check with
  // no other check in between (a WQE held behind work in flight is checked
  // again when it resumes), so it tells software which check refused and on
  // which key (CQE VERDICT and CHECK_KEY) instead of one status for all.
  logic [2:0]  lchk_last_verdict;
  logic [31:0] lchk_last_key, lchk_asked_key;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      lchk_last_verdict <= 3'(rnic_pkg::PT_VERDICT_OK);
      lchk_last_key     <= 32'd0;
      lchk_asked_key    <= 32'd0;
    end else begin
      if (lchk_valid) lchk_asked_key <= lchk_key;
      if (lchk_rsp_valid) begin
        lchk_last_verdict <= lchk_verdict;
        lchk_last_key     <= lchk_asked_key;
      end
    end
  end
  logic        cqe_refused;
  logic [2:0]  cqe_verdict;
  logic [31:0] cqe_check_key;
  always_comb begin
    cqe_refused   = (cqe_status == rnic_pkg::CQE_STATUS_LOCAL_PROTECTION ||
                     cqe_status == rnic_pkg::CQE_STATUS_BIND_FAILED) &&
                    32'(lchk_last_verdict) != 32'(rnic_pkg::PT_VERDICT_OK);
    cqe_verdict   = cqe_refused ? lchk_last_verdict : 3'(rnic_pkg::PT_VERDICT_OK);
    cqe_check_key = cqe_refused ? lchk_last_key : 32'd0;
  end

  // Sequential -----------------------------------------------------------
  always_ff @(posedge clk) begin
    fsm_dma_fault   <= 1'b0;
    ev_bad_doorbell <= 1'b0;
    ev_cq_overflow  <= 1'b0;
    ev_rx_drop      <= 1'b0;
    fsm_ev_valid     <= 1'b0;
    db_ev_valid     <= 1'b0;
    rxb_release     <= 1'b0;
    if (!rst_n) begin
      st <= S_IDLE;
      ret_st <= S_IDLE;
      after_cqe <= S_IDLE;
      cur <= '0;
      wr_outstanding <= '0;
      wr_fault <= 1'b0;
      rx_held <= 1'b0;
      wq_held <= 1'b0;
      fsm_dma_addr <= '0;
      ev_queue <= '0;
      fsm_ev_code <= '0;
      fsm_ev_qpn <= '0;
      fsm_ev_arg <= '0;
      db_ev_qpn <= '0;
      db_ev_arg <= '0;
      for (int unsigned i = 0; i < NUM_QP; i++) begin
        q_fenced[i] <= 1'b0;
        q_bind_wait[i] <= 1'b0;
        q_rd_hold[i] <= 1'b0;
        q_snd_open[i] <= 1'b0;
        q_wr_left[i] <= '0;
        q_done[i] <= '0;
        q_sq_ci[i] <= '0; q_rq_ci[i] <= '0;
      end
    end else begin
      // ---- commands from the register block (between jobs: the engine
      // never holds a QP's context across a command to that QP for long,
      // and commands are rare) ----
      if (qp_cmd_valid) begin
        wq_held <= 1'b0;
        unique case (qp_cmd)
          3'(rnic_pkg::QP_CMD_INIT): begin
            q_sq_ci[qp_sel] <= '0;
            q_rq_ci[qp_sel] <= '0;
            q_done[qp_sel] <= '0;
            q_fenced[qp_sel] <= 1'b0;
            q_bind_wait[qp_sel] <= 1'b0;
            q_rd_hold[qp_sel] <= 1'b0;
            q_out_got[qp_sel] <= '0;
            q_rcv_got[qp_sel] <= '0;
            q_snd_open[qp_sel] <= 1'b0;
            q_wr_left[qp_sel] <= '0;   // no WRITE continues from a previous connection
            q_msn[qp_sel] <= '0;
          end
          3'(rnic_pkg::QP_CMD_RTS): if (sel_state == 2'(rnic_pkg::QP_STATE_INIT)) begin
            q_sq_psn[qp_sel] <= qp_sq_psn; q_rq_psn[qp_sel] <= qp_rq_psn;
          end
          3'(rnic_pkg::QP_CMD_RESET): begin
            q_fenced[qp_sel] <= 1'b0;
            q_bind_wait[qp_sel] <= 1'b0;
          end
          default: ;
        endcase
      end
      if (db_valid) begin
        // The event names the queue and carries {kind, new index}; kind 0
        // send, 1 receive, 2 CQ consumer. A refused doorbell is no event.
        db_ev_qpn <= 16'(db_index);
        db_ev_arg <= {46'd0, db_kind, db_value};
        unique case (db_kind)
          2'd0, 2'd1: if (qp_db_ok) begin   // the context store applies it
                  db_ev_valid <= 1'b1;
                end else begin
                  ev_bad_doorbell <= 1'b1; ev_queue <= 8'(db_index);
                end
          2'd2: if (cq_db_ok) begin   // the CQE writer applies it
                  db_ev_valid <= 1'b1;
                end else begin
                  ev_bad_doorbell <= 1'b1; ev_queue <= 8'(db_index);
                end
          default: ;
        endcase
      end
      // A payload write the host refused fails the job placing it (a CQE's
      // completion, tag bit 7, is the CQE writer's).
      if (dma_wr_cpl_valid && !dma_wr_cpl_tag[7] && dma_wr_cpl_err) wr_fault <= 1'b1;
      wr_outstanding <= wr_outstanding
                        + ((w_valid && w_ready && w_last) ? 8'd1 : 8'd0)
                        - (dma_wr_cpl_valid ? 8'd1 : 8'd0);

      unique case (st)
        // ------------------------------------------------------------ idle
        S_IDLE: begin
          // A frame released this cycle still shows as valid until the edge.
          if (enable && rxb_valid && !rxb_release) begin
            st <= S_RX_PARSE;
          end else if (enable && bind_any) begin
            // A BIND became the oldest in flight: commit it (its WQE again from the ring).
            cur <= bind_q;
            if (wq_held && !wq_held_recv && wq_held_qp == bind_q && wq_held_idx == q_done[bind_q]) begin
              fetch_err <= 1'b0;
              st <= S_BIND_START;
            end else begin
              st <= S_FETCH_REQ;
              ret_st <= S_BIND_START;
              fetch_n <= 5'(WQE_WORDS);
              fetch_addr <= slot(nxt_sq_base, q_done[bind_q], nxt_sq_log, 8'(rnic_pkg::WQE_BYTES));
              fetch_recv <= 1'b0; fetch_qp <= bind_q; fetch_idx <= q_done[bind_q];
            end
          end else if (enable && pick_any) begin
            cur <= pick_q;
            st <= S_FETCH_REQ;
            ret_st <= S_SQ_DECODE;
            fetch_n <= 5'(WQE_WORDS);
            fetch_addr <= slot(nxt_sq_base, q_sq_ci[pick_q], nxt_sq_log, 8'(rnic_pkg::WQE_BYTES));
            fetch_recv <= 1'b0; fetch_qp <= pick_q; fetch_idx <= q_sq_ci[pick_q];
          end else if (enable && flush_any) begin
            cur <= flush_q;
            st <= S_FLUSH_PICK;
          end
        end

        // ------------------------------------------------------- WQE fetch
        S_FETCH_REQ: if (dma_rd_req_ready) begin
          st <= S_FETCH_DATA;
          fetch_i <= '0;
          fetch_err <= 1'b0;
          wq_held <= 1'b0;
        end
        S_FETCH_DATA: if (dma_rd_rsp_valid) begin
          wq[fetch_i[3:0]] <= dma_rd_rsp_data;
          fetch_i <= fetch_i + 5'd1;
          if (dma_rd_rsp_err) begin
            fetch_err <= 1'b1;
            fsm_dma_fault <= 1'b1;
            fsm_dma_addr <= fetch_addr[31:0];
          end
          if (dma_rd_rsp_last) begin
            st <= ret_st;
            wq_held <= fetch_n == 5'(WQE_WORDS) && !fetch_err && !dma_rd_rsp_err;
            wq_held_recv <= fetch_recv;
            wq_held_qp <= fetch_qp;
            wq_held_idx <= fetch_idx;
          end
        end

        // ------------------------------------------------------- requester
        S_SQ_DECODE: begin
          fsm_ev_valid <= 1'b1; fsm_ev_code <= rnic_pkg::EV_WQE_FETCHED;
          fsm_ev_qpn <= 16'(cur); fsm_ev_arg <= {32'd0, 16'd0, sq_idx};
          chk_i <= 3'd0;
          cqe_idx <= sq_idx; cqe_op <= wqe.opcode; cqe_wrid <= wqe.wr_id; cqe_recv <= 1'b0;
          cqe_cq <= cur_scq; cqe_len <= 32'd0;
          if (fetch_err) begin
            fail_wqe(rnic_pkg::CQE_STATUS_DMA_FAULT);
          end else if ((wqe.opcode != rnic_pkg::OP_SEND && wqe.opcode != rnic_pkg::OP_RDMA_WRITE &&
                        wqe.opcode != rnic_pkg::OP_RDMA_READ && wqe.opcode != rnic_pkg::OP_NOP &&
                        wqe.opcode != rnic_pkg::OP_BIND) ||
                       // A BIND: one segment (the region's range), remote rights only, a new key.
                       (wqe.opcode == rnic_pkg::OP_BIND &&
                        (wqe.num_sge != 8'd1 || wqe_bind.bind_rights.local_read ||
                         wqe_bind.bind_rights.local_write || wqe_bind.bind_key == wqe.rkey.key)) ||
                       wqe.num_sge > 8'(S) || wq_total[32] ||
                       (wqe.opcode != rnic_pkg::OP_NOP && {1'b0, wqe.total_len} != wq_total) ||
                       (wqe.opcode == rnic_pkg::OP_RDMA_READ && wq_total > 33'h7FFF_FFFF)) begin
            // Unknown opcode, too many SGEs, or TOTAL_LEN not the sum of the SGE lengths.
            fail_wqe(rnic_pkg::CQE_STATUS_BAD_WQE);
          end else if (wqe.opcode == rnic_pkg::OP_NOP) begin
            // Moves no data; completes in order, after what is in flight.
            if (busy_q) begin
              q_fenced[cur] <= 1'b1;
              st <= S_IDLE;
            end else begin
              st <= S_SQ_NOP;
            end
          end else if (wqe.opcode == rnic_pkg::OP_RDMA_READ && rd_at_limit) begin
            // Too many READs in flight: wait until the oldest WQE completes.
            q_rd_hold[cur] <= 1'b1;
            q_hold_done[cur] <= q_done[cur];
            st <= S_IDLE;
          end else if (wqe.flags.fence && busy_q && mutant != rnic_pkg::MUTANT_NO_FENCE) begin
            // Barrier fence: everything before it, READs included, completes first.
            q_fenced[cur] <= 1'b1;
            fsm_ev_valid <= 1'b1; fsm_ev_code <= rnic_pkg::EV_FENCE_HOLD;
            fsm_ev_qpn <= 16'(cur); fsm_ev_arg <= {32'd0, 16'd0, sq_idx};
            st <= S_IDLE;
          end else if (wqe.opcode == rnic_pkg::OP_BIND) begin
            // Issued: it holds the WQEs behind it until it commits, which it
            // does as the oldest in flight (at once if nothing is).
            q_sq_ci[cur] <= sq_idx + 16'd1;
            o_op[{cur, sq_idx[DW-1:0]}] <= rnic_pkg::OP_BIND;
            o_len[{cur, sq_idx[DW-1:0]}] <= 32'd0;
            q_bind_wait[cur] <= 1'b1;
            if (busy_q) begin
              fsm_ev_valid <= 1'b1; fsm_ev_code <= rnic_pkg::EV_FENCE_HOLD;
              fsm_ev_qpn <= 16'(cur); fsm_ev_arg <= {32'd0, 15'd0, 1'b1, sq_idx};
              st <= S_IDLE;
            end else begin
              fetch_err <= 1'b0;
              st <= S_BIND_START;
            end
          end else begin
            st <= S_SQ_CHECK;
          end
        end
        S_SQ_CHECK: begin
          if (chk_i >= wq_nsge) st <= S_SQ_GO;
          else if (wq_sge_len[chk_i[SIW-1:0]] == 32'd0) chk_i <= chk_i + 3'd1;
          else st <= S_SQ_CHECK_WAIT;
        end
        S_SQ_CHECK_WAIT: if (lchk_rsp_valid) begin
          if (32'(lchk_verdict) != V_OK) begin
            fail_wqe(rnic_pkg::CQE_STATUS_LOCAL_PROTECTION);
          end else begin
            chk_i <= chk_i + 3'd1;
            st <= S_SQ_CHECK;
          end
        end
        S_SQ_NOP: begin
          q_sq_ci[cur] <= sq_idx + 16'd1;
          q_done[cur] <= sq_idx + 16'd1;
          cqe_status <= rnic_pkg::CQE_STATUS_SUCCESS;
          after_cqe <= S_IDLE;
          st <= wqe.flags.signaled ? S_CQE : S_IDLE;
        end
        S_SQ_GO: begin
          q_rd_hold[cur] <= 1'b0;
          total <= wq_total[31:0];
          bytes_left <= wq_total[31:0];
          pkt_i <= '0;
          q_sq_ci[cur] <= sq_idx + 16'd1;
          wslot <= {cur, sq_idx[DW-1:0]};
          o_op[{cur, sq_idx[DW-1:0]}] <= wqe.opcode;
          o_len[{cur, sq_idx[DW-1:0]}] <= wq_total[31:0];
          o_first[{cur, sq_idx[DW-1:0]}] <= q_sq_psn[cur];
          if (wqe.opcode == rnic_pkg::OP_RDMA_READ) begin
            // One request; the responder answers with ceil(len/MTU) packets (at least one).
            tx_opcode <= rnic_pkg::BTH_READ_REQUEST; tx_ext <= rnic_pkg::HDR_EXT_RETH;
            tx_ackreq <= 1'b1; tx_se <= 1'b0; tx_pad <= 2'd0;
            tx_psn <= q_sq_psn[cur]; tx_va <= wqe.remote_addr; tx_rkey <= wqe.rkey; tx_rlen <= wq_total[31:0];
            tx_plen <= 16'd0;
            q_sq_psn[cur] <= q_sq_psn[cur] + rd_pkts;
            o_last[{cur, sq_idx[DW-1:0]}] <= q_sq_psn[cur] + rd_pkts - 24'd1;
            bytes_left <= 32'd0;
            ret_st <= S_SQ_PKT_DONE;
            st <= S_TX;
          end else begin
            st <= S_SQ_PKT;
          end
        end
        S_SQ_PKT: begin
          logic first, last;
          logic [15:0] plen;
          first = pkt_i == 16'd0;
          last  = bytes_left <= MTU;
          plen  = 16'(min32(bytes_left, MTU));
          if (wqe.opcode == rnic_pkg::OP_SEND)
            tx_opcode <= first ? (last ? rnic_pkg::BTH_SEND_ONLY : rnic_pkg::BTH_SEND_FIRST)
                               : (last ? rnic_pkg::BTH_SEND_LAST : rnic_pkg::BTH_SEND_MIDDLE);
          else
            tx_opcode <= first ? (last ? rnic_pkg::BTH_WRITE_ONLY : rnic_pkg::BTH_WRITE_FIRST)
                               : (last ? rnic_pkg::BTH_WRITE_LAST : rnic_pkg::BTH_WRITE_MIDDLE);
          tx_ext <= (first && wqe.opcode == rnic_pkg::OP_RDMA_WRITE) ? rnic_pkg::HDR_EXT_RETH : rnic_pkg::HDR_EXT_NONE;
          tx_ackreq <= last;
          tx_se <= last && wqe.opcode == rnic_pkg::OP_SEND && wqe.flags.solicited;
          tx_pad <= 2'd0 - plen[1:0];
          tx_psn <= q_sq_psn[cur];
          q_sq_psn[cur] <= q_sq_psn[cur] + 24'd1;
          if (last) o_last[wslot] <= q_sq_psn[cur];
          tx_va <= wqe.remote_addr; tx_rkey <= wqe.rkey; tx_rlen <= total;
          tx_plen <= plen;
          bytes_left <= bytes_left - 32'(plen);
          ret_st <= S_SQ_PKT_DONE;
          st <= S_TX;
        end
        S_SQ_PKT_DONE: begin
          pkt_i <= pkt_i + 16'd1;
          if (tx_poison) begin
            // The payload could not be read: the frame left poisoned (the
            // peer drops it), and the WQE fails here instead of waiting for
            // an ACK that will never come.
            cqe_status <= rnic_pkg::CQE_STATUS_DMA_FAULT;
            err_status <= rnic_pkg::CQE_STATUS_DMA_FAULT;
            if (q_done[cur] == cqe_idx) begin
              // It is the oldest: complete it with its own status.
              q_done[cur] <= cqe_idx + 16'd1;
              after_cqe <= S_ERROR_QP;
              st <= S_CQE;
            end else begin
              st <= S_ERROR_QP;   // the flush completes it after the older ones
            end
          end else if (bytes_left != 32'd0) begin
            st <= S_SQ_PKT;
          end else begin
            st <= S_IDLE;
          end
        end

        // ------------------------------------------------------- transmit
        // The gather sends the frame tx_* describes (payload from the
        // cursor), then the job goes on at ret_st.
        S_TX: begin
          if (tx_started && pkt_i == 16'd0 && ret_st == S_SQ_PKT_DONE) begin
            fsm_ev_valid <= 1'b1; fsm_ev_code <= rnic_pkg::EV_PKT_FIRST;
            fsm_ev_qpn <= 16'(cur); fsm_ev_arg <= {32'd0, 16'd0, sq_idx - 16'd1};
          end
          if (tx_done) st <= ret_st;
        end

        // -------------------------------------------------------- receive
        S_RX_PARSE: begin
          cur <= pq;
          rx_held <= 1'b1;
          l_op <= p_op;
          l_psn <= p_psn;
          l_ackreq <= p_ackreq;
          flush_recv <= 1'b0;
          if (!p_roce || !p_len_ok || 32'(p_qp) >= 32'(NUM_QP) ||
              pq_state != 2'(rnic_pkg::QP_STATE_RTS)) begin
            ev_rx_drop <= 1'b1;
            rxb_release <= 1'b1;
            rx_held <= 1'b0;
            st <= S_IDLE;
          end else if (rx_is_ack || rx_is_rresp) begin
            // Requester side: for the oldest WQE in flight, in PSN order. An
            // ACK names its last PSN; a NAK may name any of its packets.
            if (!comp_accept) begin
              ev_rx_drop <= 1'b1;
              rxb_release <= 1'b1;
              rx_held <= 1'b0;
              st <= S_IDLE;
            end else if (rx_is_ack) begin
              rxb_release <= 1'b1;
              rx_held <= 1'b0;
              cqe_cq <= pq_scq; cqe_recv <= 1'b0; cqe_len <= o_len[old_pq];
              cqe_status <= comp_ack_status;
              err_status <= comp_ack_status;
              q_done[pq] <= q_done[pq] + 16'd1;
              q_out_got[pq] <= 32'd0;
              if (q_done[pq] + 16'd1 == q_sq_ci[pq]) q_fenced[pq] <= 1'b0;
              fetch_n <= 5'(WQE_CPL_WORDS);
              fetch_addr <= slot(pq_sq_base, q_done[pq], pq_sq_log, 8'(rnic_pkg::WQE_BYTES));
              cqe_idx <= q_done[pq];
              ret_st <= S_CQE_FETCH_DONE;
              st <= S_FETCH_REQ;
            end else if (wq_held && !wq_held_recv && wq_held_qp == pq && wq_held_idx == q_done[pq]) begin
              fetch_err <= 1'b0;   // its READ WQE is still in wq
              st <= S_RX_RRESP_WQE;
            end else begin
              fetch_n <= 5'(WQE_WORDS);
              fetch_addr <= slot(pq_sq_base, q_done[pq], pq_sq_log, 8'(rnic_pkg::WQE_BYTES));
              fetch_recv <= 1'b0; fetch_qp <= pq; fetch_idx <= q_done[pq];
              ret_st <= S_RX_RRESP_WQE;
              st <= S_FETCH_REQ;
            end
          end else begin
            // Responder side: rnic_resp_check decides, this does it.
            unique case (resp_act)
              rnic_pkg::RESP_ACT_NAK: begin
                tx_syndrome <= resp_nak_syndrome; err_status <= resp_nak_status;
                st <= S_ACK_SEND;
              end
              rnic_pkg::RESP_ACT_WRITE_EMPTY: begin
                q_wr_va[pq] <= p_va; q_wr_left[pq] <= 32'd0;
                st <= S_RX_WAIT_WR;
              end
              rnic_pkg::RESP_ACT_RKEY:       st <= S_RX_RKEY_FIRE;
              rnic_pkg::RESP_ACT_READ_EMPTY: start_read_response();
              rnic_pkg::RESP_ACT_PLACE_NONE: st <= S_RX_SCATTER;
              rnic_pkg::RESP_ACT_SEND_HELD: begin
                fetch_err <= 1'b0;   // its RECV WQE is still in wq
                st <= S_RX_SEND_WQE;
              end
              rnic_pkg::RESP_ACT_SEND_FETCH: begin
                fetch_n <= 5'(WQE_WORDS);
                fetch_addr <= slot(pq_rq_base, q_rq_ci[pq], pq_rq_log, 8'(rnic_pkg::WQE_BYTES));
                fetch_recv <= 1'b1; fetch_qp <= pq; fetch_idx <= q_rq_ci[pq];
                ret_st <= S_RX_SEND_WQE;
                st <= S_FETCH_REQ;
              end
              default: begin   // RESP_ACT_DROP: not in sequence, or not a request
                ev_rx_drop <= 1'b1;
                rxb_release <= 1'b1;
                rx_held <= 1'b0;
                st <= S_IDLE;
              end
            endcase
          end
        end

        // rkey verdict for every RDMA WRITE packet with payload and READ requests.
        S_RX_RKEY_FIRE: st <= S_RX_RKEY_WAIT;
        S_RX_RKEY_WAIT: begin
          if (rchk_rsp_valid) begin
            fsm_ev_valid <= 1'b1; fsm_ev_code <= rnic_pkg::EV_RKEY_CHECK;
            fsm_ev_qpn <= 16'(cur); fsm_ev_arg <= {rchk_key, 29'd0, rchk_verdict};
            if (32'(rchk_verdict) != V_OK) begin
              tx_syndrome <= rnic_pkg::AETH_NAK_REMOTE_ACCESS; err_status <= rnic_pkg::CQE_STATUS_REMOTE_ACCESS;
              st <= S_ACK_SEND;
            end else if (rx_is_read_req) begin
              start_read_response();
            end else if (rx_cont) begin
              // MIDDLE or LAST, its length checked at parse.
              q_wr_va[cur] <= q_wr_va[cur] + 64'(p_plen);
              q_wr_left[cur] <= q_wr_left[cur] - 32'(p_plen);
              st <= S_RX_SCATTER;
            end else if (32'(p_plen) > p_rlen || (rx_last && 32'(p_plen) != p_rlen)) begin
              tx_syndrome <= rnic_pkg::AETH_NAK_INVALID_REQUEST; err_status <= rnic_pkg::CQE_STATUS_REMOTE_OPERATION;
              st <= S_ACK_SEND;
            end else begin
              q_wr_va[cur] <= p_va + 64'(p_plen);
              q_wr_left[cur] <= p_rlen - 32'(p_plen);
              q_wr_rkey[cur] <= p_rkey;
              st <= S_RX_SCATTER;
            end
          end
        end
        // Fire the rkey check one cycle after parse (the check port samples
        // rchk_* while rchk_valid is high; see the pulse below).

        // SEND: the RECV WQE is in wq.
        S_RX_SEND_WQE: begin
          cqe_idx <= q_rq_ci[cur]; cqe_op <= rnic_pkg::OP_RECV; cqe_wrid <= wqe.wr_id;
          cqe_recv <= 1'b1; cqe_cq <= cur_rcq;
          chk_i <= 3'd0;
          if (fetch_err || wqe.opcode != rnic_pkg::OP_RECV || wqe.num_sge > 8'(S)) begin
            cqe_status <= fetch_err ? rnic_pkg::CQE_STATUS_DMA_FAULT : rnic_pkg::CQE_STATUS_BAD_WQE;
            tx_syndrome <= rnic_pkg::AETH_NAK_REMOTE_OPERATIONAL; err_status <= rnic_pkg::CQE_STATUS_REMOTE_OPERATION;
            cqe_len <= 32'd0;
            flush_recv <= 1'b1;
            st <= S_ACK_SEND;
          end else if (33'(q_rcv_got[cur]) + 33'(p_plen) > wq_total) begin
            cqe_status <= rnic_pkg::CQE_STATUS_LOCAL_LENGTH;
            tx_syndrome <= rnic_pkg::AETH_NAK_INVALID_REQUEST; err_status <= rnic_pkg::CQE_STATUS_REMOTE_OPERATION;
            cqe_len <= q_rcv_got[cur];
            flush_recv <= 1'b1;
            st <= S_ACK_SEND;
          end else begin
            st <= rx_first ? S_RX_SEND_CHECK : S_RX_SEND_PLACE;
          end
        end
        S_RX_SEND_CHECK: begin
          if (chk_i >= wq_nsge) st <= S_RX_SEND_PLACE;
          else if (wq_sge_len[chk_i[SIW-1:0]] == 32'd0) chk_i <= chk_i + 3'd1;
          else st <= S_RX_SEND_CHECK_WAIT;
        end
        S_RX_SEND_CHECK_WAIT: if (lchk_rsp_valid) begin
          if (32'(lchk_verdict) != V_OK) begin
            cqe_status <= rnic_pkg::CQE_STATUS_LOCAL_PROTECTION;
            tx_syndrome <= rnic_pkg::AETH_NAK_REMOTE_OPERATIONAL; err_status <= rnic_pkg::CQE_STATUS_REMOTE_OPERATION;
            cqe_len <= 32'd0;
            flush_recv <= 1'b1;
            st <= S_ACK_SEND;
          end else begin
            chk_i <= chk_i + 3'd1;
            st <= S_RX_SEND_CHECK;
          end
        end
        S_RX_SEND_PLACE: begin
          q_snd_open[cur] <= !rx_last;
          q_rcv_got[cur] <= q_rcv_got[cur] + 32'(p_plen);
          st <= S_RX_SCATTER;
        end

        // READ response: the READ WQE is in wq.
        S_RX_RRESP_WQE: begin
          cqe_idx <= q_done[cur]; cqe_op <= rnic_pkg::OP_RDMA_READ; cqe_wrid <= wqe.wr_id;
          cqe_recv <= 1'b0; cqe_cq <= cur_scq; cqe_len <= o_len[old_cur];
          if (fetch_err || 33'(q_out_got[cur]) + 33'(p_plen) > 33'(o_len[old_cur]) ||
              (rx_last && q_out_got[cur] + 32'(p_plen) != o_len[old_cur])) begin
            cqe_status <= fetch_err ? rnic_pkg::CQE_STATUS_DMA_FAULT : rnic_pkg::CQE_STATUS_BAD_RESPONSE;
            err_status <= fetch_err ? rnic_pkg::CQE_STATUS_DMA_FAULT : rnic_pkg::CQE_STATUS_BAD_RESPONSE;
            q_done[cur] <= q_done[cur] + 16'd1;
            q_out_got[cur] <= 32'd0;
            rxb_release <= 1'b1;
            rx_held <= 1'b0;
            after_cqe <= S_ERROR_QP;
            st <= S_CQE;
          end else begin
            q_out_got[cur] <= q_out_got[cur] + 32'(p_plen);
            st <= S_RX_SCATTER;
          end
        end

        // Payload: receive buffer -> byte queue -> DMA writes over the segments.
        S_RX_SCATTER: if (sc_done) begin
          // Segments ran out before the payload did: the length checks make
          // this unreachable; fail the message rather than hang.
          if (sc_overrun) wr_fault <= 1'b1;
          st <= S_RX_WAIT_WR;
        end
        S_RX_WAIT_WR: if (wr_outstanding == 8'd0 && !dma_wr_cpl_valid) begin
          if (rx_held) begin
            rxb_release <= 1'b1;
            rx_held <= 1'b0;
          end
          st <= S_RX_AFTER;
        end
        S_RX_AFTER: begin
          if (wr_fault) begin
            wr_fault <= 1'b0;
            fsm_dma_fault <= 1'b1;
            if (rx_is_rresp) begin
              cqe_status <= rnic_pkg::CQE_STATUS_DMA_FAULT;
              err_status <= rnic_pkg::CQE_STATUS_DMA_FAULT;
              q_done[cur] <= q_done[cur] + 16'd1;
              q_out_got[cur] <= 32'd0;
              after_cqe <= S_ERROR_QP;
              st <= S_CQE;
            end else begin
              // The IOMMU refused the target: for an RDMA WRITE that is a
              // remote access error (its region went away under it, say);
              // for a SEND, the responder's own receive buffer failed.
              tx_syndrome <= rx_is_write ? rnic_pkg::AETH_NAK_REMOTE_ACCESS : rnic_pkg::AETH_NAK_REMOTE_OPERATIONAL;
              err_status <= rnic_pkg::CQE_STATUS_DMA_FAULT;
              st <= S_ACK_SEND;
            end
          end else if (rx_is_rresp) begin
            if (rx_last) begin
              q_done[cur] <= q_done[cur] + 16'd1;
              q_out_got[cur] <= 32'd0;
              if (q_done[cur] + 16'd1 == q_sq_ci[cur]) q_fenced[cur] <= 1'b0;
              cqe_status <= rnic_pkg::CQE_STATUS_SUCCESS;
              err_status <= rnic_pkg::CQE_STATUS_SUCCESS;
              after_cqe <= S_IDLE;
              st <= wqe.flags.signaled ? S_CQE : S_IDLE;
            end else begin
              st <= S_IDLE;
            end
          end else begin
            // Responder: the packet is placed.
            q_rq_psn[cur] <= q_rq_psn[cur] + 24'd1;
            if (rx_is_send && rx_last) begin
              cqe_status <= rnic_pkg::CQE_STATUS_SUCCESS;
              cqe_len <= q_rcv_got[cur];
              q_rcv_got[cur] <= 32'd0;
              q_rq_ci[cur] <= q_rq_ci[cur] + 16'd1;
              q_msn[cur] <= q_msn[cur] + 24'd1;
              after_cqe <= l_ackreq ? S_ACK_SEND : S_IDLE;
              tx_syndrome <= rnic_pkg::AETH_ACK;
              err_status <= rnic_pkg::CQE_STATUS_SUCCESS;
              st <= S_CQE;
            end else if (l_ackreq) begin
              if (rx_last) q_msn[cur] <= q_msn[cur] + 24'd1;
              tx_syndrome <= rnic_pkg::AETH_ACK;
              err_status <= rnic_pkg::CQE_STATUS_SUCCESS;
              st <= S_ACK_SEND;
            end else begin
              st <= S_IDLE;
            end
          end
        end

        // READ responses: one packet per MTU of the requested range.
        S_RD_RESP_PKT: begin
          logic first, last;
          logic [15:0] plen;
          first = pkt_i == 16'd0;
          last  = bytes_left <= MTU;
          plen  = 16'(min32(bytes_left, MTU));
          tx_opcode <= first ? (last ? rnic_pkg::BTH_READ_RESPONSE_ONLY : rnic_pkg::BTH_READ_RESPONSE_FIRST)
                             : (last ? rnic_pkg::BTH_READ_RESPONSE_LAST : rnic_pkg::BTH_READ_RESPONSE_MIDDLE);
          tx_ext <= (first || last) ? rnic_pkg::HDR_EXT_AETH : rnic_pkg::HDR_EXT_NONE;
          tx_syndrome <= rnic_pkg::AETH_ACK;
          tx_ackreq <= 1'b0; tx_se <= 1'b0;
          tx_pad <= 2'd0 - plen[1:0];
          tx_plen <= plen;
          bytes_left <= bytes_left - 32'(plen);
          ret_st <= S_RD_RESP_DONE;
          st <= S_TX;
        end
        S_RD_RESP_DONE: begin
          pkt_i <= pkt_i + 16'd1;
          tx_psn <= tx_psn + 24'd1;
          if (tx_poison) begin
            // The response left poisoned (dropped by the requester); tell the
            // requester why with a NAK so its READ fails instead of waiting:
            // the memory it reads was refused, a remote access error.
            tx_syndrome <= rnic_pkg::AETH_NAK_REMOTE_ACCESS;
            err_status <= rnic_pkg::CQE_STATUS_DMA_FAULT;
            flush_recv <= 1'b0;
            st <= S_ACK_SEND;
          end else if (bytes_left != 32'd0) begin
            st <= S_RD_RESP_PKT;
          end else begin
            q_rq_psn[cur] <= tx_psn + 24'd1;
            q_msn[cur] <= q_msn[cur] + 24'd1;
            st <= S_IDLE;
          end
        end

        // ACK (rnic_pkg::AETH_ACK) or NAK for the frame just handled. A NAK moves
        // the QP to ERROR once it has left.
        S_ACK_SEND: begin
          tx_opcode <= rnic_pkg::BTH_ACKNOWLEDGE; tx_ext <= rnic_pkg::HDR_EXT_AETH;
          tx_ackreq <= 1'b0; tx_se <= 1'b0; tx_pad <= 2'd0;
          tx_plen <= 16'd0;
          // ACK: the PSN of the packet that asked for it; NAK: the PSN expected.
          tx_psn <= (tx_syndrome == rnic_pkg::AETH_ACK) ? l_psn : q_rq_psn[cur];
          bytes_left <= 32'd0;
          pkt_i <= 16'd1;
          if (rx_held) begin
            rxb_release <= 1'b1;
            rx_held <= 1'b0;
          end
          ret_st <= S_ACK_DONE;
          st <= S_TX;
          if (tx_syndrome != rnic_pkg::AETH_ACK) begin
            fsm_ev_valid <= 1'b1; fsm_ev_code <= rnic_pkg::EV_NAK_SENT;
            fsm_ev_qpn <= 16'(cur); fsm_ev_arg <= {32'd0, 24'd0, tx_syndrome};
          end
        end
        S_ACK_DONE: begin
          if (tx_syndrome == rnic_pkg::AETH_ACK) begin
            st <= S_IDLE;
          end else if (flush_recv) begin
            // The RECV that failed completes with its own status first.
            flush_recv <= 1'b0;
            q_rq_ci[cur] <= q_rq_ci[cur] + 16'd1;
            q_rcv_got[cur] <= 32'd0;
            after_cqe <= S_ERROR_QP;
            st <= S_CQE;
          end else begin
            st <= S_ERROR_QP;
          end
        end

        // ------------------------------------------------------ completions
        S_CQE_FETCH_DONE: begin
          cqe_op <= wqe.opcode; cqe_wrid <= wqe.wr_id;
          if (fetch_err) cqe_status <= rnic_pkg::CQE_STATUS_DMA_FAULT;
          after_cqe <= (cqe_status == rnic_pkg::CQE_STATUS_SUCCESS && !fetch_err) ? S_IDLE : S_ERROR_QP;
          err_status <= fetch_err ? rnic_pkg::CQE_STATUS_DMA_FAULT : cqe_status;
          // Unsignaled successes leave no CQE; errors always do.
          st <= (cqe_status != rnic_pkg::CQE_STATUS_SUCCESS || fetch_err || wqe.flags.signaled) ? S_CQE : S_IDLE;
        end
        // The CQE writer has the completion in cqe_*: a CQ that does not
        // exist or is full loses it (CQ_OVERFLOW), else it is written.
        S_CQE: if (cqe_done) begin
          if (cqe_overflow) begin
            ev_cq_overflow <= 1'b1; ev_queue <= 8'(cqe_cq);
          end else begin
            fsm_ev_valid <= 1'b1; fsm_ev_code <= rnic_pkg::EV_CQE_WRITTEN;
            fsm_ev_qpn <= 16'(cur); fsm_ev_arg <= {24'd0, cqe_status, 16'd0, cqe_idx};
          end
          st <= after_cqe;
        end

        // ------------------------------------------------------ errors
        // Local error on the WQE at sq_ci: complete it with err_status, then
        // move the QP to ERROR.
        S_SQ_ERR: begin
          cqe_status <= err_status;
          q_sq_ci[cur] <= sq_idx + 16'd1;
          q_done[cur] <= sq_idx + 16'd1;
          after_cqe <= S_ERROR_QP;
          st <= S_CQE;
        end
        S_ERROR_QP: begin
          // The context store moves cur to ERROR (qp_err_set).
          fsm_ev_valid <= 1'b1; fsm_ev_code <= rnic_pkg::EV_QP_ERROR;
          fsm_ev_qpn <= 16'(cur); fsm_ev_arg <= {56'd0, err_status};
          st <= S_IDLE;
        end
        // Flush: complete the in-flight WQE, then every posted WQE, FLUSHED.
        S_FLUSH_PICK: begin
          cqe_status <= rnic_pkg::CQE_STATUS_FLUSHED;
          after_cqe <= S_IDLE;
          fetch_n <= 5'(WQE_CPL_WORDS);
          if (busy_q) begin
            cqe_recv <= 1'b0; cqe_cq <= cur_scq; cqe_idx <= q_done[cur]; cqe_len <= 32'd0;
            fetch_addr <= done_wqe_addr;
            q_done[cur] <= q_done[cur] + 16'd1;
            q_out_got[cur] <= 32'd0;
          end else if (q_sq_ci[cur] != cur_sq_pi) begin
            cqe_recv <= 1'b0; cqe_cq <= cur_scq; cqe_idx <= q_sq_ci[cur]; cqe_len <= 32'd0;
            fetch_addr <= sq_wqe_addr;
            q_sq_ci[cur] <= q_sq_ci[cur] + 16'd1;
            q_done[cur] <= q_sq_ci[cur] + 16'd1;
          end else begin
            cqe_recv <= 1'b1; cqe_cq <= cur_rcq; cqe_idx <= q_rq_ci[cur]; cqe_len <= 32'd0;
            fetch_addr <= rq_wqe_addr;
            q_rq_ci[cur] <= q_rq_ci[cur] + 16'd1;
          end
          ret_st <= S_FLUSH_FETCHED;
          st <= S_FETCH_REQ;
        end
        S_FLUSH_FETCHED: begin
          cqe_op <= cqe_recv ? rnic_pkg::OP_RECV : wqe.opcode;
          cqe_wrid <= wqe.wr_id;
          st <= S_CQE;
        end

        // ------------------------------------------------------- bind
        // The BIND at q_done (the oldest in flight) is in wq: the bind unit
        // checks its window, then its region, then commits the window.
        S_BIND_START: begin
          cqe_idx <= q_done[cur]; cqe_op <= rnic_pkg::OP_BIND; cqe_wrid <= wqe.wr_id; cqe_recv <= 1'b0;
          cqe_cq <= cur_scq; cqe_len <= 32'd0;
          if (fetch_err) bind_fail(rnic_pkg::CQE_STATUS_DMA_FAULT);
          else           st <= S_BIND;
        end
        S_BIND: if (bu_done && !bu_ok) begin
          bind_fail(rnic_pkg::CQE_STATUS_BIND_FAILED);   // a check refused, or the window changed meanwhile
        end else if (bu_done) begin
          fsm_ev_valid <= 1'b1; fsm_ev_code <= rnic_pkg::EV_BIND_COMMIT;
          fsm_ev_qpn <= 16'(cur); fsm_ev_arg <= {bind_index, bind_key, 16'd0, cqe_idx};
          q_done[cur] <= q_done[cur] + 16'd1;
          q_bind_wait[cur] <= 1'b0;
          if (q_done[cur] + 16'd1 == q_sq_ci[cur]) q_fenced[cur] <= 1'b0;
          cqe_status <= rnic_pkg::CQE_STATUS_SUCCESS;
          err_status <= rnic_pkg::CQE_STATUS_SUCCESS;
          after_cqe <= S_IDLE;
          st <= wqe.flags.signaled ? S_CQE : S_IDLE;
        end
        default: st <= S_IDLE;
      endcase

    end
  end

  // The engine's rules are asserted in rnic_engine_checker, bound into it.
endmodule
