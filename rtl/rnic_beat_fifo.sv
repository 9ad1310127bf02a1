// Two-entry register FIFO for the beats the NIC sends out (network and DMA
// write). Its input side is ready from its own state only, so the port's
// ready signal moves nothing but this FIFO's pointers: the byte queues and
// counters behind it never depend on an input of the chip (shorter paths in
// hardware; in Verilator, input-dependent logic is evaluated on every
// evaluation, so keeping it this small is what keeps two NICs fast).
// With one beat in and one out a cycle it runs at full rate.
module rnic_beat_fifo #(
  parameter int unsigned WIDTH = 64
) (
  input  logic             clk,
  input  logic             rst_n,
  input  logic             in_valid,
  output logic             in_ready,
  input  logic [WIDTH-1:0] in_data,
  output logic             out_valid,
  input  logic             out_ready,
  output logic [WIDTH-1:0] out_data
);
  logic [WIDTH-1:0] mem [2];
  logic             head, tail;
  logic [1:0]       count;

  assign in_ready  = count != 2'd2;
  assign out_valid = count != 2'd0;
  assign out_data  = mem[head];

  always_ff @(posedge clk) begin
    if (in_valid && in_ready) mem[tail] <= in_data;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      head  <= 1'b0;
      tail  <= 1'b0;
      count <= 2'd0;
    end else begin
      if (in_valid && in_ready) tail <= !tail;
      if (out_valid && out_ready) head <= !head;
      count <= count + 2'(in_valid && in_ready) - 2'(out_valid && out_ready);
    end
  end
endmodule
