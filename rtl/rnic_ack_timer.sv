// Each QP's retransmission timer, in rxe's manner of one timer per QP: the
// ACK timeout while requests wait for an answer, or an RNR NAK's delay.
// A timer that runs out marks its QP due; so does a kick (a NAK or a lost
// response asks for a resend at once). The engine takes one due QP at a
// time, as a job (rnic_completer's S_RETRY).
//
// Why a scan and not a comparator per QP: a deadline per QP is a RAM word
// (one write port for the job's arm, one read port for the scan), as the
// QP contexts will be; NUM_QP 64-bit comparators would not be. The scan
// runs only when the earliest deadline it knows of (wake_at) has come: it
// reads one QP a cycle, marks those whose deadline has passed and finds the
// next earliest. A QP armed meanwhile lowers wake_at at once. So wake_at is
// never later than any armed deadline: a platform that skips idle time up
// to wake_at (rnic_top's wake_at) misses none. It may be earlier (a timer
// stopped since): the scan then finds nothing due and moves wake_at on.
//
// A deadline passes at time_now >= deadline; 64 bits of cycles never wrap.
module rnic_ack_timer #(
  parameter int unsigned NUM_QP = rnic_pkg::NUM_QP,
  localparam int unsigned QW = $clog2(NUM_QP)
) (
  input  logic              clk,
  input  logic              rst_n,
  input  logic [63:0]       now,

  // The job's request for its QP: arm (deadline at), or stop.
  input  logic              arm_valid,
  input  logic [QW-1:0]     arm_qp,
  input  logic              arm_on,
  input  logic [63:0]       arm_at,
  // A QP whose retry is due now, and one whose connection starts again
  // (QP_CMD_INIT: its timer stops, nothing is due).
  input  logic              kick_valid,
  input  logic [QW-1:0]     kick_qp,
  input  logic              clear_valid,
  input  logic [QW-1:0]     clear_qp,

  output logic [NUM_QP-1:0] due,        // QPs whose retry is due
  input  logic              take_valid, // the engine starts the retry job of take_qp
  input  logic [QW-1:0]     take_qp,

  output logic              wake_valid,
  output logic [63:0]       wake_at,
  output logic              idle        // no scan under way
);
  logic [NUM_QP-1:0] t_on;   // a flip-flop per QP: reset clears every timer at once
  logic [63:0] t_at [NUM_QP];

  logic          scanning;
  logic [QW-1:0] idx;
  logic          min_valid;              // the scan's earliest armed deadline so far
  logic [63:0]   min_at;

  logic start, last, hit_on, expired, arm_here, nmin_valid;
  logic [63:0] hit_at, nmin_at;
  always_comb begin
    start    = !scanning && wake_valid && now >= wake_at;
    last     = scanning && 32'(idx) == NUM_QP - 1;
    hit_on   = t_on[idx];
    hit_at   = t_at[idx];
    // The job's write to the QP being scanned wins: its new deadline is
    // what counts, and the scan's minimum takes it from the arm below.
    arm_here = arm_valid && arm_qp == idx;
    expired  = scanning && hit_on && now >= hit_at && !arm_here &&
               !(clear_valid && clear_qp == idx);
    // The scan's minimum with this cycle's QP and this cycle's arm.
    nmin_valid = min_valid;
    nmin_at    = min_at;
    if (scanning && hit_on && !expired && !arm_here && (!nmin_valid || hit_at < nmin_at)) begin
      nmin_valid = 1'b1;
      nmin_at    = hit_at;
    end
    if (arm_valid && arm_on && (!nmin_valid || arm_at < nmin_at)) begin
      nmin_valid = 1'b1;
      nmin_at    = arm_at;
    end
    // A function of flip-flops, as rnic_top's idle must be: a deadline
    // coming due is time_now's doing, which rnic_top's wake_at announces.
    idle     = !scanning;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      t_on       <= '0;
      due        <= '0;
      scanning   <= 1'b0;
      idx        <= '0;
      min_valid  <= 1'b0;
      min_at     <= '0;
      wake_valid <= 1'b0;
      wake_at    <= '0;
    end else begin
      if (start) begin
        scanning  <= 1'b1;
        idx       <= '0;
        min_valid <= arm_valid && arm_on;   // an arm now is not in the old wake_at
        min_at    <= arm_at;
      end else if (scanning) begin
        min_valid <= nmin_valid;
        min_at    <= nmin_at;
        idx       <= idx + QW'(1);
        if (expired) begin
          t_on[idx] <= 1'b0;
          due[idx]  <= 1'b1;
        end
        if (last) begin
          scanning   <= 1'b0;
          wake_valid <= nmin_valid;
          wake_at    <= nmin_at;
        end
      end else if (arm_valid && arm_on && (!wake_valid || arm_at < wake_at)) begin
        wake_valid <= 1'b1;
        wake_at    <= arm_at;
      end
      if (arm_valid) begin
        t_on[arm_qp] <= arm_on;
        t_at[arm_qp] <= arm_at;
      end
      if (kick_valid) due[kick_qp] <= 1'b1;
      if (take_valid) due[take_qp] <= 1'b0;
      if (clear_valid) begin
        t_on[clear_qp] <= 1'b0;
        due[clear_qp]  <= 1'b0;
      end
    end
  end

`ifndef SYNTHESIS
  // The promise a platform skipping idle time relies on: every armed
  // deadline is at or after wake_at, or the scan is about to look at it.
  // One QP a cycle, in turn: a loop over every QP each cycle would cost
  // the simulation more than the timer itself, and a broken promise
  // stands until the deadline passes, thousands of cycles.
  logic [QW-1:0] chk;
  always_ff @(posedge clk) begin
    if (!rst_n) chk <= '0;
    else        chk <= chk + QW'(1);
    if (rst_n && !scanning && t_on[chk])
      a_wake_covers: assert (wake_valid && wake_at <= t_at[chk])
        else $error("QP %0d armed for %0d, wake_at %0d (valid %0d)", chk, t_at[chk], wake_at, wake_valid);
  end
`endif
endmodule
