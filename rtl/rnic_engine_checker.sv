// The engine's rules as assertions, in a checker bound into every
// rnic_engine (the bind at the end of this file), so the engine's file holds
// behaviour only and the rules read as a list.
//
// Each rule is stated on the engine's events (a WQE fetched, started, a
// request packet begun, an rkey verdict, a CQE written), which the bind
// computes from the engine's state; the units' own rules (bind unit, CQE
// writer, gather, scatter, cursor) are asserted in the units. Rules that a
// mutant build breaks on purpose are off while that mutant is selected: the
// benches must catch the mutant by behaviour, not by assertion.
//
// Simulation only: Yosys reads an empty file.
`ifndef SYNTHESIS
module rnic_engine_checker #(
  parameter int unsigned NUM_QP = rnic_pkg::NUM_QP,
  parameter int unsigned NUM_CQ = rnic_pkg::NUM_CQ,
  localparam int unsigned QW    = $clog2(NUM_QP),
  localparam int unsigned D     = rnic_pkg::MAX_RD_ATOMIC
) (
  input logic          clk,
  input logic          rst_n,
  input logic [4:0]    mutant,

  // The requester.
  input logic [QW-1:0] cur,
  input logic [3:0]    cur_log_mtu,      // cur's path MTU, log2 bytes
  input logic          wqe_fetched,      // a WQE of cur is decoded
  input logic          wqe_started,      // it starts (S_SQ_GO; not a paused one going on)
  input logic          req_pkt,          // a request packet of cur begins to leave
  input logic          cur_bind_wait,    // cur has a BIND in flight, not committed
  input logic [15:0]   cur_in_flight,    // WQEs of cur in flight
  input logic          wqe_fence,
  input logic          wqe_is_read,
  input logic          rd_below_limit,   // cur's READs in flight are below its limit
  input logic [23:0]   tx_psn,
  input logic          tx_is_read_req,
  input logic [31:0]   tx_rlen,          // a READ request's length: one response PSN per path MTU of it
  input logic          pkt_start,        // a frame of cur begins to leave (any kind) ...
  input logic          pkt_not_last,     // ... a SEND, WRITE or READ response packet before its message's last
  input logic [15:0]   pkt_len,          // ... with this payload
  input logic          retry,            // cur's send queue goes back to its oldest WQE ...
  input logic [QW-1:0] retry_qp,
  input logic [23:0]   retry_psn,        // ... and resends from this PSN

  // The bind commit.
  input logic          bind_valid,
  input logic          in_bind_state,
  input logic          bind_is_oldest,   // the WQE in the bind state is cur's oldest in flight, a BIND

  // The responder.
  input logic          job_idle,
  input logic          rkey_verdict,     // an rkey check of the frame answers
  input logic          rkey_ok,
  input logic          placing,          // payload goes from the frame to memory
  input logic          read_responding,  // a READ response packet is being sent
  input logic          read_names_memory,// ... for a READ of at least one byte
  input logic          payload_dma_write,
  input logic          place_needs_key,  // the frame is a WRITE packet that names memory
  input logic          rq_psn_moves,     // the job writes its QP's expected PSN
  input logic          dup_request,      // the job's request is a duplicate

  // QP commands and completions.
  input logic          qp_cmd_valid,
  input logic          qp_cmd_init,
  input logic [QW-1:0] qp_sel,
  input logic          cqe_last_beat,
  input logic          cqe_recv,
  input logic [15:0]   cqe_idx,
  input logic          cqe_local_refusal, // the CQE being written has status LOCAL_PROTECTION
  input logic          cqe_names_check    // ... and names the check that refused (VERDICT not OK)
);
  // The engine's job registers are sized by rnic_pkg (rnic_engine_types.svh).
  initial begin
    a_sizes: assert (NUM_QP == rnic_pkg::NUM_QP && NUM_CQ == rnic_pkg::NUM_CQ)
      else $fatal(1, "rnic_engine: NUM_QP and NUM_CQ must be rnic_pkg's");
  end

  logic no_bind_fence, no_fence;
  assign no_bind_fence = mutant == rnic_pkg::MUTANT_NO_BIND_FENCE;
  assign no_fence      = mutant == rnic_pkg::MUTANT_NO_FENCE;

  // Bind fence: while a BIND of a QP has not committed, no later WQE of that
  // QP is fetched or starts, and no request packet of it leaves.
  always_ff @(posedge clk) begin
    if (rst_n && !no_bind_fence) begin
      if (wqe_fetched)
        a_bind_fence_fetch: assert (!cur_bind_wait) else $error("WQE fetched behind an uncommitted BIND");
      if (wqe_started)
        a_bind_fence_go: assert (!cur_bind_wait) else $error("WQE started behind an uncommitted BIND");
      if (req_pkt)
        a_bind_fence_pkt: assert (!cur_bind_wait) else $error("request packet sent behind an uncommitted BIND");
    end
  end

  // Bind commit: as the oldest in flight of its QP, with the engine in its
  // bind state the whole time (so the WQE and cur the bind unit reads hold
  // that BIND). Its checks and new key: rnic_bind_unit's assertions.
  always_ff @(posedge clk) begin
    if (rst_n && bind_valid)
      a_bind_oldest: assert (in_bind_state && bind_is_oldest)
        else $error("BIND committed while not the oldest WQE in flight");
  end

  // Fence rule: a WQE with the fence flag starts with nothing of its QP in
  // flight. Never more WQEs in flight than the per-QP limit; a READ starts
  // only below the QP's limit of READs in flight.
  always_ff @(posedge clk) begin
    if (rst_n && wqe_started) begin
      if (wqe_fence && !no_fence)
        a_fence: assert (cur_in_flight == 16'd0) else $error("fenced WQE started with WQEs in flight");
      a_in_flight_limit: assert (cur_in_flight < 16'(D)) else $error("too many WQEs in flight");
      if (wqe_is_read)
        a_read_limit: assert (rd_below_limit) else $error("READ started over the QP's READ limit");
    end
  end

  // Protection: between a refused rkey and the end of that job, no payload
  // is placed (no scatter, no payload DMA write) and no READ response is
  // prepared; and every WRITE packet or READ request that names memory (a
  // zero-length one names none: no key is checked, InfiniBand's rule) is
  // only ever served after a granted rkey check of that very packet.
  logic refused, granted;
  always_ff @(posedge clk) begin
    if (!rst_n || job_idle) begin
      refused <= 1'b0;
      granted <= 1'b0;
    end else if (rkey_verdict) begin
      refused <= !rkey_ok;
      granted <= rkey_ok;
    end
    if (rst_n && refused) begin
      a_refused_no_place: assert (!placing && !read_responding) else $error("payload moved after a refused rkey");
      a_refused_no_write: assert (!payload_dma_write) else $error("DMA write after a refused rkey");
    end
    if (rst_n && placing && place_needs_key)
      a_write_granted: assert (granted) else $error("RDMA WRITE packet placed without a granted rkey check");
    if (rst_n && read_responding && read_names_memory)
      a_read_granted: assert (granted) else $error("READ response without a granted rkey check");
  end

  // PSNs: each request packet of a QP carries the PSN after the previous
  // one (a READ request counts for all its responses), modulo 2^24; after a
  // retry (go-back-N) the next carries the PSN the retry named.
  logic [23:0] next_psn [NUM_QP];
  logic [NUM_QP-1:0] psn_known;
  logic [23:0] rd_psns;
  always_comb rd_psns = rnic_pkg::msg_psns(tx_rlen, cur_log_mtu);
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      psn_known <= '0;
    end else begin
      if (qp_cmd_valid) psn_known[qp_sel] <= 1'b0;
      if (req_pkt) begin
        if (psn_known[cur]) a_psn_sequence: assert (tx_psn == next_psn[cur]) else $error("request PSN out of sequence");
        next_psn[cur]  <= tx_psn + (tx_is_read_req ? rd_psns : 24'd1);
        psn_known[cur] <= 1'b1;
      end
      if (retry) begin
        next_psn[retry_qp]  <= retry_psn;
        psn_known[retry_qp] <= 1'b1;
      end
    end
  end

  // Path MTU: every packet of a message but its last carries exactly the
  // QP's path MTU, as the responder at the other end checks (and counts
  // READ responses by).
  always_ff @(posedge clk) begin
    if (rst_n && pkt_start && pkt_not_last)
      a_pkt_at_path_mtu: assert (32'(pkt_len) == rnic_pkg::mtu_bytes(cur_log_mtu))
        else $error("a FIRST or MIDDLE packet without the path MTU");
  end

  // Duplicates: a request the responder has already executed never moves
  // its expected PSN (a duplicate READ is answered again, nothing more).
  always_ff @(posedge clk) begin
    if (rst_n && rq_psn_moves)
      a_dup_keeps_psn: assert (!dup_request) else $error("a duplicate request moved the expected PSN");
  end

  // Completions: at most one CQE per WQE, in ring order per queue (a later
  // CQE of a queue always names a later WQE).
  logic [15:0] last_idx [2*NUM_QP];
  logic [2*NUM_QP-1:0] idx_known;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      idx_known <= '0;
    end else begin
      if (qp_cmd_valid && qp_cmd_init) begin
        idx_known[{1'b0, qp_sel}] <= 1'b0;
        idx_known[{1'b1, qp_sel}] <= 1'b0;
      end
      if (cqe_last_beat) begin
        if (idx_known[{cqe_recv, cur}])
          a_cqe_order: assert ((cqe_idx - last_idx[{cqe_recv, cur}]) - 16'd1 < 16'h8000)
            else $error("second CQE for a WQE, or CQEs out of ring order");
        last_idx[{cqe_recv, cur}]  <= cqe_idx;
        idx_known[{cqe_recv, cur}] <= 1'b1;
      end
    end
  end

  // A local protection refusal always says which check refused: only the
  // local check port's refusals give that status, and the refused check is
  // the last one answered before the CQE.
  always_ff @(posedge clk) begin
    if (rst_n && cqe_last_beat && cqe_local_refusal)
      a_refusal_named: assert (cqe_names_check) else $error("LOCAL_PROTECTION CQE without the check that refused");
  end
endmodule

// Every rnic_engine gets the checker; the connections are the engine's
// events, named by its states (rnic_pkg::job_state_t).
bind rnic_engine rnic_engine_checker #(.NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ)) u_checker (
  .clk, .rst_n, .mutant,
  .cur, .cur_log_mtu,
  .wqe_fetched(st == rnic_pkg::S_SQ_DECODE),
  // A paused WQE's S_SQ_GO goes on with it: it started long before, and is
  // counted in flight already (rnic_requester).
  .wqe_started(st == rnic_pkg::S_SQ_GO && !cur_xs.paused),
  .req_pkt(st == rnic_pkg::S_TX && tx_started && j.ret_st == rnic_pkg::S_SQ_PKT_DONE),
  .cur_bind_wait(cur_xs.bind_wait),
  .cur_in_flight(cur_xs.sq_ci - cur_xs.done),
  .wqe_fence(wqe.flags.fence),
  .wqe_is_read(wqe.opcode == rnic_pkg::OP_RDMA_READ),
  .rd_below_limit(!rd_at_limit),
  .tx_psn(j.tx_psn),
  .tx_is_read_req(j.tx_opcode == rnic_pkg::BTH_READ_REQUEST),
  .tx_rlen(j.tx_rlen),
  .pkt_start(st == rnic_pkg::S_TX && tx_started),
  .pkt_not_last(j.tx_opcode == rnic_pkg::BTH_SEND_FIRST || j.tx_opcode == rnic_pkg::BTH_SEND_MIDDLE ||
                j.tx_opcode == rnic_pkg::BTH_WRITE_FIRST || j.tx_opcode == rnic_pkg::BTH_WRITE_MIDDLE ||
                j.tx_opcode == rnic_pkg::BTH_READ_RESPONSE_FIRST || j.tx_opcode == rnic_pkg::BTH_READ_RESPONSE_MIDDLE),
  .pkt_len(j.tx_plen),
  .retry(j.ev_valid && j.ev_code == rnic_pkg::EV_RETRY),
  .retry_qp(QW'(j.ev_qpn)),
  .retry_psn(j.ev_arg[23:0]),
  .bind_valid,
  .in_bind_state(st == rnic_pkg::S_BIND),
  .bind_is_oldest(cur_xs.done == j.cqe_idx && cur_oldest.op == rnic_pkg::OP_BIND),
  .job_idle(st == rnic_pkg::S_IDLE),
  .rkey_verdict(st == rnic_pkg::S_RX_RKEY_WAIT && rchk_rsp_valid),
  .rkey_ok(32'(rchk_verdict) == 32'(rnic_pkg::PT_VERDICT_OK)),
  .placing(st == rnic_pkg::S_RX_SCATTER),
  .read_responding(st == rnic_pkg::S_TX && j.ret_st == rnic_pkg::S_RD_RESP_DONE),
  .read_names_memory(j.total != 32'd0),
  .payload_dma_write(w_valid && !cqe_w_valid),
  .place_needs_key(rx_is_write && (rx_first ? p_rlen != 32'd0 : p_plen != 16'd0)),
  .rq_psn_moves(xs_we.rq_psn),
  .dup_request(j.l_dup && st != rnic_pkg::S_RX_PARSE),
  .qp_cmd_valid,
  .qp_cmd_init(qp_cmd == 3'(rnic_pkg::QP_CMD_INIT)),
  .qp_sel,
  .cqe_last_beat,
  .cqe_recv(j.cqe_recv),
  .cqe_idx(j.cqe_idx),
  .cqe_local_refusal(j.cqe_status == rnic_pkg::CQE_STATUS_LOCAL_PROTECTION),
  .cqe_names_check(32'(cqe_verdict) != 32'(rnic_pkg::PT_VERDICT_OK)));
`endif
