// Whether each protection-table entry exists: set by a WRITE, cleared by an
// INVALIDATE, and all cleared by reset in a single cycle, which the entry
// RAMs cannot do.
//
// A flat vector of ENTRIES flip-flops would do it but costs a 1024-way
// decoder and three 1024-to-1 read multiplexers (thousands of LUTs). Here
// the bits sit in GW-bit words in a small LUT RAM (one write port and three
// asynchronous read ports: the shape of a Xilinx RAM32M), and only one
// flip-flop per word says whether the word has been written since reset.
// A word not written since reset reads as all zeros, so reset only clears
// those NG flip-flops; the first set or clear after reset writes the whole
// word with every other bit zero.
module rnic_ptable_live #(
  parameter int unsigned ENTRIES = rnic_pkg::PT_ENTRIES   // 4 .. 2^24
) (
  input  logic clk,
  input  logic rst_n,

  // Management side: the index the command names, and what it does.
  input  logic [$clog2(ENTRIES)-1:0] m_index,
  input  logic m_set,
  input  logic m_clr,
  output logic m_live,                      // this cycle, before the command

  input  logic [$clog2(ENTRIES)-1:0] l_index,
  output logic l_live,                      // this cycle
  input  logic [$clog2(ENTRIES)-1:0] r_index,
  output logic r_live                       // this cycle
);
  localparam int unsigned IW  = $clog2(ENTRIES);
  localparam int unsigned LGW = IW / 2;             // bits per word: about sqrt(ENTRIES)
  localparam int unsigned GW  = 1 << LGW;
  localparam int unsigned GIW = IW - LGW;
  localparam int unsigned NG  = 1 << GIW;

`ifndef SYNTHESIS
  initial begin
    a_entries: assert (ENTRIES >= 4 && ENTRIES <= (1 << 24))
      else $error("rnic_ptable_live: ENTRIES %0d outside 4 .. 2^24", ENTRIES);
  end
`endif

  logic [GW-1:0] word [NG];
  logic [NG-1:0] word_ok;   // word written since reset

  logic [GIW-1:0] m_g, l_g, r_g;
  logic [LGW-1:0] m_b, l_b, r_b;
  logic [GW-1:0]  m_word, m_next;
  always_comb begin
    {m_g, m_b} = m_index;
    {l_g, l_b} = l_index;
    {r_g, r_b} = r_index;
    m_word = word_ok[m_g] ? word[m_g] : '0;
    m_live = m_word[m_b];
    l_live = word_ok[l_g] && word[l_g][l_b];
    r_live = word_ok[r_g] && word[r_g][r_b];
    m_next = m_word;
    m_next[m_b] = m_set;
  end

  always_ff @(posedge clk) begin
    if (m_set || m_clr) word[m_g] <= m_next;
  end
  always_ff @(posedge clk) begin
    if (!rst_n)               word_ok      <= '0;
    else if (m_set || m_clr)  word_ok[m_g] <= 1'b1;
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (rst_n) a_one_cmd: assert (!(m_set && m_clr)) else $error("rnic_ptable_live: set and clear at once");
  end
`endif
endmodule
