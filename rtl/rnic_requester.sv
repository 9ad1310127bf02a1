// The requester: a send-queue WQE from decode to its last packet, in
// rxe_req.c's manner. It decodes the WQE the engine fetched into wq, holds it
// behind the fences and the READ limit, checks its local keys, records it in
// the in-flight table and cuts its message into packets for the gather.
// What completes it is the completer's.
//
// Holds, in order (the first that applies):
//   an unknown opcode, a malformed BIND, too many SGEs, or TOTAL_LEN not the
//   sum of the SGE lengths: BAD_WQE;
//   a NOP waits for everything in flight, then completes;
//   a READ over the QP's READ limit waits for the oldest in flight;
//   a WQE with FENCE waits until nothing is in flight (the barrier fence);
//   a BIND is issued at once: it holds every later WQE (the bind fence)
//   and commits as the oldest in flight (rnic_completer).
// A WQE that fails a local check completes with its status; while WQEs of
// its QP are in flight it is held like a fenced WQE, so its error
// completion comes after theirs, in order (S_SQ_ERR then completes it).
//
// A SEND or WRITE pauses between two of its packets when a frame waits in
// the receive buffer: the engine does one job at a time, and a NIC that
// sent a whole 1 MiB message before looking at its receive buffer would
// hold its peer's frames (and ACKs) back for the whole message, and with
// a peer doing the same, both would wait on the link for ever. Paused, the
// WQE stays in flight (sq_ci is past it) and the QP keeps paused and the
// packets sent; the next pick of the QP decodes the WQE again (from wq when
// the frame in between needed none of its own, else fetched again), checks
// its keys again and goes on from the next packet (as a resend goes on from
// where the peer stopped).
//
// Combinational: given the job registers and the QP's transport state, the
// next job registers and the writes to that state, for the S_SQ_* states.
module rnic_requester #(
  localparam int unsigned S   = rnic_pkg::MAX_SGE,
  localparam int unsigned SIW = $clog2(S),
  localparam int unsigned DW  = rnic_pkg::FLIGHT_IDX_W
) (
  input  logic [4:0]                  mutant,
  // Whole structs: a unit reads the fields it needs only.
  /* verilator lint_off UNUSEDSIGNAL */
  input  rnic_pkg::job_t              j,           // the job registers now
  input  rnic_pkg::job_t              jd,          // ... as they stay if this unit writes nothing
  input  rnic_pkg::qp_xs_t            x,           // cur's transport state
  input  rnic_pkg::flight_t           oldest,      // ... its oldest WQE in flight (a resend's last send)
  input  rnic_pkg::wqe_t              wqe,         // the WQE in wq
  input  rnic_pkg::wqe_bind_t         wqe_bind,
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [rnic_pkg::CQ_IDX_W-1:0] cur_scq,
  input  logic [32:0]                 wq_total,
  input  logic [2:0]                  wq_nsge,
  input  logic [32*S-1:0]             wq_sge_len,
  input  logic                        rd_at_limit,
  input  logic                        lchk_rsp_valid,
  input  logic [2:0]                  lchk_verdict,
  input  logic                        tx_poison,
  input  logic                        frame_waiting, // the receive buffer holds a frame for the engine
  input  logic [3:0]                  log_mtu,       // cur's path MTU, log2 bytes

  output rnic_pkg::job_t              jn,
  output rnic_pkg::qp_xs_we_t         xs_we,
  output rnic_pkg::qp_xs_t            xs,
  output logic [rnic_pkg::QP_IDX_W+DW-1:0] fl_slot,
  output rnic_pkg::flight_we_t        fl_we,
  output rnic_pkg::flight_t           fl,
  output logic [31:0]                 go_pos   // S_SQ_GO: the payload offset the message starts at
);
  logic [15:0] sq_idx;
  logic        busy_q;          // cur has WQEs in flight
  logic        bad_wqe;
  logic        fail;            // a local check failed: complete with fail_status
  logic [7:0]  fail_status;
  logic        first, last;
  logic        pkt_now;         // the job cuts a SEND or WRITE packet now
  logic [15:0] plen;
  logic [31:0] chk_len;
  logic [23:0] msg_pkts;        // PSNs the message in wq takes
  logic [23:0] resume;          // packets of the WQE in wq the peer already has (a resend), or sent (a pause)
  logic [23:0] first_psn;       // the WQE's first PSN
  always_comb begin
    sq_idx  = x.sq_ci - 16'(x.paused);
    busy_q  = sq_idx != x.done;
    // One PSN per packet (a READ: per response packet), at least one.
    msg_pkts = rnic_pkg::msg_psns(wq_total[31:0], log_mtu);
    // Unknown opcode; a BIND that is not one segment (the region's range),
    // remote rights only and a new key; too many SGEs; TOTAL_LEN not the sum
    // of the SGE lengths; a READ over 2^31 bytes.
    bad_wqe = (wqe.opcode != rnic_pkg::OP_SEND && wqe.opcode != rnic_pkg::OP_RDMA_WRITE &&
               wqe.opcode != rnic_pkg::OP_RDMA_READ && wqe.opcode != rnic_pkg::OP_NOP &&
               wqe.opcode != rnic_pkg::OP_BIND) ||
              (wqe.opcode == rnic_pkg::OP_BIND &&
               (wqe.num_sge != 8'd1 || wqe_bind.bind_rights.local_read ||
                wqe_bind.bind_rights.local_write || wqe_bind.bind_key == wqe.rkey.key)) ||
              wqe.num_sge > 8'(S) || wq_total[32] ||
              (wqe.opcode != rnic_pkg::OP_NOP && {1'b0, wqe.total_len} != wq_total) ||
              (wqe.opcode == rnic_pkg::OP_RDMA_READ && wq_total > 33'h7FFF_FFFF);
    // Only read with chk_i < wq_nsge, so within the SGEs.
    chk_len = wq_sge_len[32*j.chk_i[SIW-1:0] +: 32];
    // From S_SQ_PKT_DONE the packet is the one after pkt_i: never the first.
    first   = j.st == rnic_pkg::S_SQ_PKT && j.pkt_i == 16'd0;
    last    = j.bytes_left <= rnic_pkg::mtu_bytes(log_mtu);
    plen    = rnic_pkg::pkt_len(j.bytes_left, log_mtu);
    // Only the oldest WQE in flight resumes, and only in a resend
    // (rnic_completer's S_RETRY set retrying and rewound sq_ci to it).
    // A paused one goes on after the packets it sent (sq_psn is past them).
    if (x.paused)
      resume = 24'(x.pause_pkts);
    else if (x.retrying && sq_idx == x.done)
      resume = rnic_pkg::resume_pkts(wqe.opcode == rnic_pkg::OP_RDMA_READ, oldest.first, oldest.last, x.out_got, x.acked_psn,
                                       log_mtu);
    else
      resume = 24'd0;
    first_psn = x.paused ? x.sq_psn - resume : x.sq_psn;
    go_pos  = 32'(resume) << log_mtu;

    jn = jd;
    xs_we = '0;
    xs = x;
    fl_slot = {j.cur, sq_idx[DW-1:0]};
    fl_we = '0;
    fl = '0;
    fail = 1'b0;
    pkt_now = 1'b0;
    fail_status = rnic_pkg::CQE_STATUS_SUCCESS;
    unique case (j.st)
      rnic_pkg::S_SQ_DECODE: begin
        jn.ev_valid = 1'b1; jn.ev_code = rnic_pkg::EV_WQE_FETCHED;
        jn.ev_qpn = 16'(j.cur); jn.ev_arg = {32'd0, 16'd0, sq_idx};
        jn.chk_i = 3'd0;
        jn.cqe_idx = sq_idx; jn.cqe_op = wqe.opcode; jn.cqe_wrid = wqe.wr_id; jn.cqe_recv = 1'b0;
        jn.cqe_cq = cur_scq; jn.cqe_len = 32'd0;
        if (j.fetch_err) begin
          fail = 1'b1; fail_status = rnic_pkg::CQE_STATUS_DMA_FAULT;
        end else if (bad_wqe) begin
          fail = 1'b1; fail_status = rnic_pkg::CQE_STATUS_BAD_WQE;
        end else if (x.paused) begin
          // Its holds were passed when it started.
          jn.st = rnic_pkg::S_SQ_CHECK;
        end else if (wqe.opcode == rnic_pkg::OP_NOP) begin
          // Moves no data; completes in order, after what is in flight.
          if (busy_q) begin
            xs_we.fenced = 1'b1; xs.fenced = 1'b1;
            jn.st = rnic_pkg::S_IDLE;
          end else begin
            jn.st = rnic_pkg::S_SQ_NOP;
          end
        end else if (wqe.opcode == rnic_pkg::OP_RDMA_READ && rd_at_limit) begin
          // Too many READs in flight: wait until the oldest WQE completes.
          xs_we.rd_hold = 1'b1; xs.rd_hold = 1'b1;
          xs_we.hold_done = 1'b1; xs.hold_done = x.done;
          jn.st = rnic_pkg::S_IDLE;
        end else if (wqe.flags.fence && busy_q && mutant != rnic_pkg::MUTANT_NO_FENCE) begin
          // Barrier fence: everything before it, READs included, completes first.
          xs_we.fenced = 1'b1; xs.fenced = 1'b1;
          jn.ev_valid = 1'b1; jn.ev_code = rnic_pkg::EV_FENCE_HOLD;
          jn.ev_qpn = 16'(j.cur); jn.ev_arg = {32'd0, 16'd0, sq_idx};
          jn.st = rnic_pkg::S_IDLE;
        end else if (wqe.opcode == rnic_pkg::OP_BIND) begin
          // Issued: it holds the WQEs behind it until it commits, which it
          // does as the oldest in flight (at once if nothing is).
          xs_we.sq_ci = 1'b1; xs.sq_ci = sq_idx + 16'd1;
          fl_we.op = 1'b1; fl.op = rnic_pkg::OP_BIND;
          fl_we.len = 1'b1; fl.len = 32'd0;
          xs_we.bind_wait = 1'b1; xs.bind_wait = 1'b1;
          if (busy_q) begin
            jn.ev_valid = 1'b1; jn.ev_code = rnic_pkg::EV_FENCE_HOLD;
            jn.ev_qpn = 16'(j.cur); jn.ev_arg = {32'd0, 15'd0, 1'b1, sq_idx};
            jn.st = rnic_pkg::S_IDLE;
          end else begin
            jn.fetch_err = 1'b0;
            jn.st = rnic_pkg::S_BIND_START;
          end
        end else begin
          jn.st = rnic_pkg::S_SQ_CHECK;
        end
      end
      // Each SGE with bytes: its lkey, for local read (local write for a READ).
      rnic_pkg::S_SQ_CHECK: begin
        if (j.chk_i >= wq_nsge) jn.st = rnic_pkg::S_SQ_GO;
        else if (chk_len == 32'd0) jn.chk_i = j.chk_i + 3'd1;
        else jn.st = rnic_pkg::S_SQ_CHECK_WAIT;
      end
      rnic_pkg::S_SQ_CHECK_WAIT: if (lchk_rsp_valid) begin
        if (32'(lchk_verdict) != 32'(rnic_pkg::PT_VERDICT_OK)) begin
          fail = 1'b1; fail_status = rnic_pkg::CQE_STATUS_LOCAL_PROTECTION;
        end else begin
          jn.chk_i = j.chk_i + 3'd1;
          // The last SGE passed: go now rather than through S_SQ_CHECK's
          // own test of the same condition (a cycle off every WQE).
          jn.st = (4'(j.chk_i) + 4'd1 >= 4'(wq_nsge)) ? rnic_pkg::S_SQ_GO : rnic_pkg::S_SQ_CHECK;
        end
      end
      rnic_pkg::S_SQ_NOP: begin
        xs_we.sq_ci = 1'b1; xs.sq_ci = sq_idx + 16'd1;
        xs_we.done = 1'b1; xs.done = sq_idx + 16'd1;
        jn.cqe_status = rnic_pkg::CQE_STATUS_SUCCESS;
        jn.after_cqe = rnic_pkg::S_IDLE;
        jn.st = wqe.flags.signaled ? rnic_pkg::S_CQE : rnic_pkg::S_IDLE;
      end
      // A resend of the oldest starts where the peer stopped (resume packets
      // in: a READ asks for the rest, a SEND or WRITE goes on in its middle).
      rnic_pkg::S_SQ_GO: begin
        xs_we.rd_hold = 1'b1; xs.rd_hold = 1'b0;
        xs_we.paused = 1'b1; xs.paused = 1'b0;
        jn.total = wq_total[31:0];
        jn.bytes_left = wq_total[31:0] - go_pos;
        jn.pkt_i = 16'(resume);
        jn.tmr_op = rnic_pkg::TMR_ARM_ACK;
        xs_we.sq_ci = 1'b1; xs.sq_ci = sq_idx + 16'd1;
        fl_we.op = 1'b1; fl.op = wqe.opcode;
        fl_we.len = 1'b1; fl.len = wq_total[31:0];
        fl_we.first = 1'b1; fl.first = first_psn;
        // Its last PSN from the start: ACKs and NAKs may come between its
        // packets (a pause), and the completer must not read a stale one.
        fl_we.last = 1'b1; fl.last = first_psn + msg_pkts - 24'd1;
        if (wqe.opcode == rnic_pkg::OP_RDMA_READ) begin
          // One request; the responder answers with msg_pkts packets.
          jn.tx_opcode = rnic_pkg::BTH_READ_REQUEST; jn.tx_ext = rnic_pkg::HDR_EXT_RETH;
          jn.tx_ackreq = 1'b1; jn.tx_se = 1'b0; jn.tx_pad = 2'd0;
          jn.tx_psn = first_psn + resume; jn.tx_va = wqe.remote_addr + 64'(go_pos); jn.tx_rkey = wqe.rkey;
          jn.tx_rlen = wq_total[31:0] - go_pos;
          jn.tx_plen = 16'd0;
          xs_we.sq_psn = 1'b1; xs.sq_psn = first_psn + msg_pkts;
          jn.bytes_left = 32'd0;
          jn.ret_st = rnic_pkg::S_SQ_PKT_DONE;
          jn.st = rnic_pkg::S_TX;
        end else begin
          xs_we.sq_psn = 1'b1; xs.sq_psn = first_psn + resume;
          jn.st = rnic_pkg::S_SQ_PKT;
        end
      end
      // A SEND or WRITE: one packet per MTU of the message. Its first here
      // (from S_SQ_GO), the others from S_SQ_PKT_DONE (below the case).
      rnic_pkg::S_SQ_PKT: pkt_now = 1'b1;
      rnic_pkg::S_SQ_PKT_DONE: begin
        jn.pkt_i = j.pkt_i + 16'd1;
        if (tx_poison) begin
          // The payload could not be read: the frame left poisoned (the
          // peer drops it), and the WQE fails here instead of waiting for
          // an ACK that will never come.
          jn.cqe_status = rnic_pkg::CQE_STATUS_DMA_FAULT;
          jn.err_status = rnic_pkg::CQE_STATUS_DMA_FAULT;
          if (x.done == j.cqe_idx) begin
            // It is the oldest: complete it with its own status.
            xs_we.done = 1'b1; xs.done = j.cqe_idx + 16'd1;
            jn.after_cqe = rnic_pkg::S_ERROR_QP;
            jn.st = rnic_pkg::S_CQE;
          end else begin
            jn.st = rnic_pkg::S_ERROR_QP;   // the flush completes it after the older ones
          end
        end else if (j.bytes_left != 32'd0 && frame_waiting) begin
          xs_we.paused = 1'b1; xs.paused = 1'b1;
          xs_we.pause_pkts = 1'b1; xs.pause_pkts = j.pkt_i + 16'd1;
          jn.st = rnic_pkg::S_IDLE;
        end else if (j.bytes_left != 32'd0) begin
          pkt_now = 1'b1;
        end else begin
          jn.st = rnic_pkg::S_IDLE;
        end
      end
      // A local error on the WQE at sq_ci: complete it with err_status, then
      // move the QP to ERROR.
      rnic_pkg::S_SQ_ERR: begin
        jn.cqe_status = j.err_status;
        xs_we.paused = 1'b1; xs.paused = 1'b0;
        xs_we.sq_ci = 1'b1; xs.sq_ci = sq_idx + 16'd1;
        xs_we.done = 1'b1; xs.done = sq_idx + 16'd1;
        jn.after_cqe = rnic_pkg::S_ERROR_QP;
        jn.st = rnic_pkg::S_CQE;
      end
      default: ;
    endcase
    // The packet to send: S_SQ_PKT's, or the next of the message straight
    // from S_SQ_PKT_DONE (a cycle off every packet but a message's first,
    // while the gather's prefetch of it is already under way).
    if (pkt_now) begin
      if (wqe.opcode == rnic_pkg::OP_SEND)
        jn.tx_opcode = first ? (last ? rnic_pkg::BTH_SEND_ONLY : rnic_pkg::BTH_SEND_FIRST)
                             : (last ? rnic_pkg::BTH_SEND_LAST : rnic_pkg::BTH_SEND_MIDDLE);
      else
        jn.tx_opcode = first ? (last ? rnic_pkg::BTH_WRITE_ONLY : rnic_pkg::BTH_WRITE_FIRST)
                             : (last ? rnic_pkg::BTH_WRITE_LAST : rnic_pkg::BTH_WRITE_MIDDLE);
      jn.tx_ext = (first && wqe.opcode == rnic_pkg::OP_RDMA_WRITE) ? rnic_pkg::HDR_EXT_RETH
                                                                   : rnic_pkg::HDR_EXT_NONE;
      jn.tx_ackreq = last;
      jn.tx_se = last && wqe.opcode == rnic_pkg::OP_SEND && wqe.flags.solicited;
      jn.tx_pad = 2'd0 - plen[1:0];
      jn.tx_psn = x.sq_psn;
      jn.tmr_op = rnic_pkg::TMR_ARM_ACK;
      xs_we.sq_psn = 1'b1; xs.sq_psn = x.sq_psn + 24'd1;
      jn.tx_va = wqe.remote_addr; jn.tx_rkey = wqe.rkey; jn.tx_rlen = j.total;
      jn.tx_plen = plen;
      jn.bytes_left = j.bytes_left - 32'(plen);
      jn.ret_st = rnic_pkg::S_SQ_PKT_DONE;
      jn.st = rnic_pkg::S_TX;
    end
    if (fail) begin
      jn.err_status = fail_status;
      if (busy_q && x.paused) begin
        // Started, so not fenced (the fence waits for sq_ci, past it): it is
        // picked again until the older WQEs have completed.
        jn.st = rnic_pkg::S_IDLE;
      end else if (busy_q) begin
        xs_we.fenced = 1'b1; xs.fenced = 1'b1;
        jn.st = rnic_pkg::S_IDLE;
      end else begin
        jn.st = rnic_pkg::S_SQ_ERR;
      end
    end
  end
endmodule
