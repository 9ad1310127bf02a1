// Round-robin choice among N requests: the first request at or after
// `from`, wrapping to the lowest one when none is at or after it.
//
// Why words and not a loop over N bits: the scheduler picks among every QP
// each cycle, up to 1,024 of them, and a bit-by-bit search is as long as N
// in logic depth and in simulation time. Here the requests are taken LW bits
// at a time: the lowest non-empty word is found, then the lowest bit in it
// by halving (log2 LW steps). N and LW are powers of two.
module rnic_rr_pick #(
  parameter int unsigned N  = 16,
  localparam int unsigned W  = $clog2(N),
  localparam int unsigned LW = N < 64 ? N : 64,   // bits searched as one word
  localparam int unsigned NW = N / LW,
  localparam int unsigned LB = $clog2(LW)
) (
  input  logic [N-1:0] req,
  input  logic [W-1:0] from,
  output logic         any,
  output logic [W-1:0] idx
);
  // The index of the lowest set bit of v (no index in particular when v is 0:
  // any is low then).
  function automatic logic [W-1:0] lowest(input logic [N-1:0] v);
    logic [LW-1:0] word;
    logic [W-1:0]  base;
    logic [LB-1:0] pos;
    word = v[LW-1:0];
    base = '0;
    for (int w = NW - 1; w >= 0; w--) begin
      if (v[LW*w +: LW] != '0) begin
        word = v[LW*w +: LW];
        base = W'(LW * w);
      end
    end
    pos = '0;
    for (int s = LB - 1; s >= 0; s--) begin
      if ((word & ~({LW{1'b1}} << (1 << s))) == '0) begin
        pos  = pos | LB'(1 << s);
        word = word >> (1 << s);
      end
    end
    lowest = base | W'(pos);
  endfunction

  logic [N-1:0] at_or_after;
  always_comb begin
    at_or_after = req & ({N{1'b1}} << from);
    any = req != '0;
    idx = lowest(at_or_after != '0 ? at_or_after : req);
  end

`ifndef SYNTHESIS
  initial a_sizes: assert (N >= 2 && (N & (N - 1)) == 0) else $fatal(1, "rnic_rr_pick: N must be a power of two");
  // The choice is a request. That it is the first at or after `from` is
  // the bench's to check (tests/rtl_units/rr_pick): a loop over N here
  // would cost every simulated cycle as much as the search saves.
  always_comb begin
    if (any) a_is_request: assert (req[idx]) else $error("rnic_rr_pick: picked %0d, not a request", idx);
  end
`endif
endmodule
