// The trace port carries one event a cycle, but two sources can fire in the
// same cycle: an accepted doorbell (port a) and the engine's state machine
// (port b). This small queue takes up to two events a cycle (a before b)
// and replays them one a cycle, in order.
//
// The state machine makes at most one event a cycle, and its events are
// never lost: when the queue is short of room, b takes it and a's event is
// dropped. Doorbells can come every cycle (a program posting in a tight
// loop, in lockstep a post is a cycle), faster than the port drains, so
// their events are best effort; the doorbells themselves are not affected.
module rnic_trace_fifo #(
  parameter int unsigned DEPTH = 4   // power of two
) (
  input  logic        clk,
  input  logic        rst_n,
  input  logic        a_valid,
  input  logic [7:0]  a_event,
  input  logic [15:0] a_qpn,
  input  logic [63:0] a_arg,
  input  logic        b_valid,
  input  logic [7:0]  b_event,
  input  logic [15:0] b_qpn,
  input  logic [63:0] b_arg,
  output logic        trace_valid,
  output logic [7:0]  trace_event,
  output logic [15:0] trace_qpn,
  output logic [63:0] trace_arg
);
  localparam int unsigned AW = $clog2(DEPTH);

  logic [7:0]  q_event [DEPTH];
  logic [15:0] q_qpn [DEPTH];
  logic [63:0] q_arg [DEPTH];
  logic [AW-1:0] head, tail;
  logic [AW:0]   count;

  // Zero while no event is shown: a waveform then reads as the events alone
  // (the queue's stale slots would otherwise sit beside every real event).
  assign trace_valid = count != '0;
  assign trace_event = trace_valid ? q_event[head] : '0;
  assign trace_qpn   = trace_valid ? q_qpn[head] : '0;
  assign trace_arg   = trace_valid ? q_arg[head] : '0;

  // Room after this cycle's pop decides what is kept.
  logic [AW:0] room;
  logic        keep_a, keep_b;
  always_comb begin
    room   = (AW+1)'(DEPTH) - count + ((count != '0) ? (AW+1)'(1) : '0);
    keep_b = b_valid && room != '0;
    keep_a = a_valid && room > (keep_b ? (AW+1)'(1) : '0);
  end

  always_ff @(posedge clk) begin
    if (keep_a) begin
      q_event[tail] <= a_event;
      q_qpn[tail]   <= a_qpn;
      q_arg[tail]   <= a_arg;
    end
    if (keep_b) begin
      q_event[tail + AW'(keep_a)] <= b_event;
      q_qpn[tail + AW'(keep_a)]   <= b_qpn;
      q_arg[tail + AW'(keep_a)]   <= b_arg;
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      head  <= '0;
      tail  <= '0;
      count <= '0;
    end else begin
      head  <= head + AW'(count != '0);
      tail  <= tail + AW'(keep_a) + AW'(keep_b);
      count <= count - ((count != '0) ? (AW+1)'(1) : '0) + (AW+1)'(keep_a) + (AW+1)'(keep_b);
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (rst_n) a_fsm_kept: assert (!b_valid || keep_b) else $error("trace fifo: a state-machine event lost");
  end
`endif
endmodule
