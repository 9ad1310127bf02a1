// A small byte-granular FIFO: up to W bytes in and up to W bytes out per
// cycle, capacity CAP bytes. With CAP = 3*W a producer that waits for
// `space >= W` and a consumer that drains W a cycle both run every cycle,
// whatever the alignment, without a combinational path between them. It is how the datapath turns unaligned pieces
// (odd-length headers, SGEs at any byte address, a payload that starts in
// the middle of a received word) into packed W-byte beats without stalls.
module rnic_byte_queue #(
  parameter int unsigned W = rnic_pkg::DATA_BYTES,
  parameter int unsigned CAP = 3 * W
) (
  input  logic                 clk,
  input  logic                 rst_n,
  input  logic                 clear,      // drop everything (start of a new stream)
  input  logic [8*W-1:0]       push_data,  // bytes low-aligned: byte 0 in [7:0]
  input  logic [$clog2(W):0]   push_n,     // bytes to push this cycle, <= space
  input  logic [$clog2(W):0]   pop_n,      // bytes to pop this cycle, <= count
  output logic [8*W-1:0]       head,       // the W oldest bytes, byte 0 oldest
  output logic [$clog2(CAP):0] count,
  output logic [$clog2(CAP):0] space
);
  localparam int unsigned CW = $clog2(CAP) + 1;
  logic [8*CAP-1:0] q;
  logic [8*CAP-1:0] shifted, incoming, in_mask;
  logic [CW-1:0]   kept;

  always_comb begin
    kept     = count - CW'(pop_n);
    shifted  = q >> (8 * pop_n);
    in_mask  = ~({8*CAP{1'b1}} << (8 * push_n));
    incoming = ({{8*(CAP-W){1'b0}}, push_data} & in_mask) << (8 * kept);
    head     = q[8*W-1:0];
    space    = CW'(CAP) - count;
  end

  always_ff @(posedge clk) begin
    if (!rst_n || clear) begin
      q     <= '0;
      count <= '0;
    end else begin
      q     <= shifted | incoming;
      count <= kept + CW'(push_n);
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (rst_n && !clear) begin
      assert (CW'(pop_n) <= count) else $error("byte queue underflow");
      assert (count - CW'(pop_n) + CW'(push_n) <= CW'(CAP)) else $error("byte queue overflow");
    end
  end
`endif
endmodule
