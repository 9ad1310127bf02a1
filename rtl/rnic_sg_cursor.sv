// The scatter/gather cursor: the segment list of the message part the
// engine is moving (a WQE's SGEs, or one range a received frame names) and
// the byte in it where the next piece starts.
//
// Why a unit of its own: the transmit gather reads through it and the
// receive scatter writes through it, one job at a time, and the engine
// loads it for both; one owner keeps the list and its cursor consistent.
//
// Commands (at most one per cycle; the engine's states make them exclusive,
// an assertion holds it):
//   load    the first load_n SGEs, cursor at byte load_pos of their
//           concatenation (a later packet of a message resumes where the
//           earlier ones ended); a position past the end leaves the cursor
//           at the end (more low).
//   single  a one-segment list, cursor at its start.
//   next    the current segment is used up: move to the next one.
//   take    take_n bytes of the current segment are moved.
module rnic_sg_cursor #(
  parameter int unsigned S = rnic_pkg::MAX_SGE,
  localparam int unsigned SIW = $clog2(S)
) (
  input  logic            clk,
  input  logic            rst_n,

  input  logic            load,
  input  logic [2:0]      load_n,        // at most S
  input  logic [64*S-1:0] load_addr,     // SGE i at [64*i +: 64]
  input  logic [32*S-1:0] load_len,
  input  logic [31:0]     load_pos,

  input  logic            single,
  input  logic [63:0]     single_addr,
  input  logic [31:0]     single_len,

  input  logic            next,
  input  logic            take,
  input  logic [31:0]     take_n,

  output logic            more,          // the cursor is inside the list
  output logic [31:0]     rem,           // bytes left in the current segment (0 past the end)
  output logic [63:0]     addr,          // host address of the cursor
  output logic [63:0]     seg_base       // start of the current segment (what a fault reports)
);
  logic [63:0] seg_addr [S];
  logic [31:0] seg_len [S];
  logic [2:0]  seg_n, seg_i;
  logic [31:0] seg_off;

  always_comb begin
    more     = seg_i < seg_n;
    // seg_i reaches S only at the end of a full list, where `more` is low
    // and nothing below is used.
    rem      = more ? seg_len[seg_i[SIW-1:0]] - seg_off : 32'd0;
    seg_base = seg_addr[seg_i[SIW-1:0]];
    addr     = seg_base + 64'(seg_off);
  end

  // The segment arrays need no reset: they are read only below seg_n.
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      seg_n   <= '0;
      seg_i   <= '0;
      seg_off <= '0;
    end else if (load) begin
      logic [31:0] p;
      logic        found;
      p     = load_pos;
      found = 1'b0;
      seg_n   <= load_n;
      seg_i   <= load_n;
      seg_off <= 32'd0;
      for (int unsigned i = 0; i < S; i++) begin
        seg_addr[i] <= load_addr[64*i +: 64];
        seg_len[i]  <= load_len[32*i +: 32];
        if (!found && 3'(i) < load_n) begin
          if (p < load_len[32*i +: 32]) begin
            found = 1'b1;
            seg_i   <= 3'(i);
            seg_off <= p;
          end else begin
            p = p - load_len[32*i +: 32];
          end
        end
      end
    end else if (single) begin
      seg_n   <= 3'd1;
      seg_i   <= 3'd0;
      seg_off <= 32'd0;
      seg_addr[0] <= single_addr;
      seg_len[0]  <= single_len;
      for (int unsigned i = 1; i < S; i++) begin
        seg_addr[i] <= 64'd0;
        seg_len[i]  <= 32'd0;
      end
    end else if (next) begin
      seg_i   <= seg_i + 3'd1;
      seg_off <= 32'd0;
    end else if (take) begin
      seg_off <= seg_off + take_n;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (rst_n) begin
      a_one_command: assert ($onehot0({load, single, next, take}))
        else $error("sg cursor: two commands in one cycle");
      if (take) a_take_within: assert (more && take_n <= rem)
        else $error("sg cursor: take past the current segment");
      if (next) a_next_within: assert (more) else $error("sg cursor: next past the end of the list");
      if (load) a_load_n: assert (32'(load_n) <= 32'(S)) else $error("sg cursor: more SGEs than MAX_SGE");
    end
  end
`endif
endmodule
