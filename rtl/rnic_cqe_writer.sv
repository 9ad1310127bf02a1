// The CQE writer: owns the completion queues (their contexts, producer and
// consumer indices) and writes each completion the engine hands it into
// host memory, one CQE per request.
//
// Contract with the engine: the engine holds cqe_req high, with the CQE's
// fields steady, until cqe_done (combinational) ends the request. The
// writer then either refused it (cqe_overflow in the same cycle: the CQ
// does not exist or is full, nothing is written, the CQE is lost as the
// CQ_OVERFLOW event reports) or wrote all its beats and advanced the CQ's
// producer index. A request takes 1 cycle when refused, else one a beat
// (plus any cycles w_ready is low): the first beat is offered in the
// cycle the request is checked, and cqe_done comes with the last beat
// taken, so a completion reaches host memory with no cycle of the
// writer's own (every doorbell-to-CQE figure counts them).
//
// Beats leave through the engine's DMA write stream, tagged {1, cq} so the
// write completion can be told from payload: the interrupt of a CQ is raised
// only once its CQE is in host memory (cpl_valid), never on issue.
//
// The CQ contexts are RAMs, not flip-flops, so that NUM_CQ can grow into
// the thousands: base, ring size, producer and consumer index are arrays
// with one write port each and no reset (asynchronous reads, so LUT RAM).
// Only single bits per CQ stay flip-flops: whether the CQ exists, and one
// "fresh" bit per index. A CQ command and reset cannot clear an index in
// the RAM (that would be a second write port, or NUM_CQ of them); they set
// its fresh bit instead, and a fresh index reads as 0 whatever its RAM word
// holds. The index's own writer (the last beat for the producer index, an
// accepted doorbell for the consumer index) writes the RAM and clears the
// bit. A CQ command in the same cycle as that writer, on the same CQ, loses
// to it, as the writer's later assignment did when the indices were
// registers.
module rnic_cqe_writer #(
  parameter int unsigned NUM_CQ = rnic_pkg::NUM_CQ,
  parameter int unsigned W      = rnic_pkg::DATA_BYTES,   // bytes a DMA write beat
  localparam int unsigned CQW   = $clog2(NUM_CQ)
) (
  input  logic           clk,
  input  logic           rst_n,

  // CQ_CMD from the register block.
  input  logic           cmd_valid,
  input  logic [1:0]     cmd,
  input  logic [CQW-1:0] cmd_sel,
  input  logic [63:0]    cmd_base,
  input  logic [3:0]     cmd_log,

  // A consumer-index doorbell: db_ok says whether it is accepted (the CQ
  // exists and the index is within what was produced); it is applied when
  // db_valid is high and db_ok.
  input  logic           db_valid,
  input  logic [15:0]    db_index,
  input  logic [15:0]    db_value,
  output logic           db_ok,

  // The completion to write.
  input  logic           cqe_req,
  input  logic [CQW-1:0] cqe_cq,
  input  logic [15:0]    cqe_qpn,
  input  logic [15:0]    cqe_idx,
  input  logic [7:0]     cqe_op,
  input  logic [7:0]     cqe_status,
  input  logic           cqe_recv,
  input  logic [31:0]    cqe_len,
  input  logic [63:0]    cqe_wrid,
  input  logic [2:0]     cqe_verdict,
  input  logic [31:0]    cqe_check_key,
  output logic           cqe_done,
  output logic           cqe_overflow,   // with cqe_done: refused, nothing written
  output logic           cqe_last_beat,  // the CQE's last beat is accepted this cycle

  // Beats into the DMA write stream.
  output logic           w_valid,
  input  logic           w_ready,
  output logic [63:0]    w_addr,
  output logic [12:0]    w_len,
  output logic [15:0]    w_tag,
  output logic [8*W-1:0] w_data,
  output logic           w_last,

  // DMA write completions of CQE bursts (tag bit 15 set).
  input  logic           cpl_valid,
  input  logic [CQW-1:0] cpl_cq,
  input  logic           cpl_err,
  output logic [NUM_CQ-1:0] intr_set,
  output logic           fault,          // the host refused a CQE: no interrupt
  output logic [31:0]    fault_addr
);
  // A CQE is CQE_BYTES in ceil(CQE_BYTES / W) beats: at 64 bytes a beat,
  // one beat with w_len saying only its first half is the CQE.
  localparam int unsigned BEATS = (rnic_pkg::CQE_BYTES + W - 1) / W;
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1;
  localparam logic [BW-1:0] LAST_BEAT = BW'(BEATS - 1);

  // The context RAMs (one write port each, no reset: the header says why).
  logic [63:0] c_base [NUM_CQ];
  logic [3:0]  c_log [NUM_CQ];
  logic [15:0] c_pi [NUM_CQ];
  logic [15:0] c_ci [NUM_CQ];
  // Flip-flops: the CQ exists; its producer / consumer index reads as 0
  // (commanded or reset since its RAM word was last written).
  logic [NUM_CQ-1:0] c_valid;
  logic [NUM_CQ-1:0] pi_fresh;
  logic [NUM_CQ-1:0] ci_fresh;

  function automatic logic [15:0] ring_mask(input logic [3:0] lg);
    ring_mask = 16'((17'd1 << lg) - 17'd1);
  endfunction

  // W_CHECK: no request, or one in its first cycle (checked, first beat
  // offered); W_DATA: its later beats, or its first while w_ready was low.
  typedef enum logic { W_CHECK, W_DATA } wstate_t;
  wstate_t     ws;
  logic [BW-1:0] beat;

  // A doorbell may move the consumer index anywhere between where it is and
  // the producer index: never past what was written, never back (counted
  // mod 2^16 from the consumer index, as pi - ci is).
  logic [CQW-1:0] db_cq;
  logic [15:0]    db_pi, db_ci;
  always_comb begin
    db_cq = CQW'(db_index);
    db_pi = pi_fresh[db_cq] ? 16'd0 : c_pi[db_cq];
    db_ci = ci_fresh[db_cq] ? 16'd0 : c_ci[db_cq];
    db_ok = 32'(db_index) < 32'(NUM_CQ) && c_valid[db_cq] &&
            (db_value - db_ci) <= (db_pi - db_ci);
  end

  // The request's CQ, as its context reads.
  logic [15:0] q_pi, q_ci;
  logic [3:0]  q_log;
  always_comb begin
    q_pi  = pi_fresh[cqe_cq] ? 16'd0 : c_pi[cqe_cq];
    q_ci  = ci_fresh[cqe_cq] ? 16'd0 : c_ci[cqe_cq];
    q_log = c_log[cqe_cq];
  end

  // The CQE, field by field (rnic_pkg::cqe_t); bytes nW to nW + W - 1 leave
  // in beat n. Its
  // phase bit flips each time the producer index wraps the ring, so software
  // finds new CQEs without a shared producer index.
  rnic_pkg::cqe_t cqe;
  logic [8*W*BEATS-1:0] cqe_beats;   // the CQE, zero-padded to whole beats
  logic           full;
  always_comb begin
    cqe          = '0;
    cqe.status   = cqe_status;
    cqe.opcode   = cqe_op;
    cqe.qpn      = cqe_qpn;
    cqe.wqe_idx  = cqe_idx;
    cqe.is_recv  = cqe_recv;
    cqe.phase    = ~q_pi[q_log];
    cqe.byte_len = cqe_len;
    cqe.wr_id    = cqe_wrid;
    cqe.verdict  = cqe_verdict;
    cqe.check_key = cqe_check_key;
    full         = (q_pi - q_ci) > ring_mask(q_log);

    cqe_overflow  = cqe_req && ws == W_CHECK && (!c_valid[cqe_cq] || full);
    w_valid = cqe_req && !cqe_overflow;
    w_addr  = c_base[cqe_cq] + {48'd0, q_pi & ring_mask(q_log)} * 64'(rnic_pkg::CQE_BYTES);
    w_len   = 13'(rnic_pkg::CQE_BYTES);
    w_tag   = {1'b1, 15'(cqe_cq)};
    cqe_beats = '0;
    cqe_beats[8*rnic_pkg::CQE_BYTES-1:0] = cqe;
    w_data  = cqe_beats[8*W*beat +: 8*W];
    w_last  = beat == LAST_BEAT;

    cqe_last_beat = w_valid && w_ready && w_last;
    cqe_done      = cqe_overflow || cqe_last_beat;
  end

  always_ff @(posedge clk) begin
    intr_set <= '0;
    fault    <= 1'b0;
    if (!rst_n) begin
      ws <= W_CHECK;
      beat <= '0;
      fault_addr <= '0;
      c_valid <= '0;
      pi_fresh <= '1;
      ci_fresh <= '1;
    end else begin
      // The command zeroes the indices through their fresh bits; the
      // doorbell and the last beat below clear them again, after it, so on
      // the same CQ they win over it (the header says why).
      if (cmd_valid) begin
        c_valid[cmd_sel] <= cmd == 2'(rnic_pkg::CQ_CMD_CREATE);
        pi_fresh[cmd_sel] <= 1'b1;
        ci_fresh[cmd_sel] <= 1'b1;
      end
      if (db_valid && db_ok) ci_fresh[db_cq] <= 1'b0;
      if (cpl_valid) begin
        if (cpl_err) begin
          fault <= 1'b1;
          fault_addr <= c_base[cpl_cq][31:0];
        end else begin
          intr_set[cpl_cq] <= 1'b1;
        end
      end
      if (cqe_last_beat) begin
        pi_fresh[cqe_cq] <= 1'b0;
        beat <= '0;
        ws <= W_CHECK;
      end else if (w_valid) begin
        if (w_ready) beat <= beat + BW'(1);
        ws <= W_DATA;
      end
    end
  end

  // The context RAMs' write ports, one each and no reset. They are gated by
  // rst_n as the registers' updates above are: nothing moves in reset.
  always_ff @(posedge clk) begin
    if (rst_n && cmd_valid) begin
      c_base[cmd_sel] <= cmd_base;
      c_log[cmd_sel] <= cmd_log;
    end
  end
  always_ff @(posedge clk) begin
    if (rst_n && cqe_last_beat) c_pi[cqe_cq] <= q_pi + 16'd1;
  end
  always_ff @(posedge clk) begin
    if (rst_n && db_valid && db_ok) c_ci[db_cq] <= db_value;
  end

`ifndef SYNTHESIS
  // The engine keeps a request up until it is done: a CQE half written and
  // abandoned would leave a torn entry that software takes for a new one.
  always_ff @(posedge clk) begin
    if (rst_n && ws != W_CHECK)
      a_req_held: assert (cqe_req) else $error("CQE request dropped while its CQE was being written");
  end

`endif
endmodule
