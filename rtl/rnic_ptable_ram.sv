// One copy of the protection-table entries, shaped so synthesis maps it onto
// block RAM: port A is the management port (a write, or a read, per cycle;
// the read is registered and, as in a READ_FIRST block RAM, a write cycle
// loads the word it overwrites), port B is a registered read for a check
// port. No reset: a block RAM cannot be cleared in one cycle, so rnic_ptable
// keeps whether an entry exists elsewhere (rnic_ptable_live).
//
// A read on port B in the same cycle as a write of the same address on
// port A returns the old word (the read is not transparent), so a check
// never sees half an entry.
module rnic_ptable_ram #(
  parameter int unsigned DEPTH = 1024,
  parameter int unsigned WIDTH = 184
) (
  input  logic                     clk,

  input  logic                     a_en,
  input  logic                     a_we,
  input  logic [$clog2(DEPTH)-1:0] a_addr,
  input  logic [WIDTH-1:0]         a_wdata,
  output logic [WIDTH-1:0]         a_rdata,  // holds until the next a_en

  input  logic                     b_en,
  input  logic [$clog2(DEPTH)-1:0] b_addr,
  output logic [WIDTH-1:0]         b_rdata   // holds until the next read on port B
);
  logic [WIDTH-1:0] mem [DEPTH];

  // Read-first rather than the block RAM's NO_CHANGE mode (which would keep
  // a_rdata across writes): Yosys 0.23 cannot map NO_CHANGE and builds it
  // from 184 flip-flops and multiplexers instead.
  always_ff @(posedge clk) begin
    if (a_en) begin
      if (a_we) mem[a_addr] <= a_wdata;
      a_rdata <= mem[a_addr];
    end
  end

  always_ff @(posedge clk) begin
    if (b_en) b_rdata <= mem[b_addr];
  end
endmodule
