// One check port of the protection table, with its own copy of the entries
// (rnic_ptable_ram) so both check ports and the management port run in the
// same cycle. Cycle 1 reads the entry named by the key's index; cycle 2
// applies the rules in a fixed order (index, state, key, PZ, rights, bounds)
// and registers the first that fails, so the verdict comes exactly two
// cycles after the request, in order, with no back-pressure.
//
// The entry layout lives here only: the management fields go in and come
// back out unpacked, so the word can change (issue 4's windows) in one file.
module rnic_ptable_check #(
  parameter int unsigned ENTRIES = rnic_pkg::PT_ENTRIES
) (
  input  logic        clk,
  input  logic        rst_n,
  input  logic [3:0]  mutant,

  // Management side of this copy: a write or a read per cycle.
  input  logic        tbl_we,
  input  logic        tbl_re,
  input  logic [$clog2(ENTRIES)-1:0] tbl_index,
  input  logic [7:0]  w_key,
  input  logic [15:0] w_pz,
  input  logic [63:0] w_base,
  input  logic [63:0] w_len,
  input  logic [3:0]  w_rights,
  input  logic [1:0]  w_type,
  input  logic [1:0]  w_state,
  input  logic [23:0] w_link,
  output logic [7:0]  r_key,       // the stored word, one cycle after tbl_re
  output logic [15:0] r_pz,
  output logic [63:0] r_base,
  output logic [63:0] r_len,
  output logic [3:0]  r_rights,
  output logic [1:0]  r_type,
  output logic [1:0]  r_state,
  output logic [23:0] r_link,
  input  logic        req_valid,
  input  logic [31:0] req_key,
  input  logic        req_live,    // the live bit of the entry req_key names, this cycle
  input  logic [15:0] req_pz,
  input  logic [3:0]  req_rights,
  input  logic [63:0] req_addr,
  input  logic [31:0] req_len,
  output logic        rsp_valid,
  output logic [2:0]  verdict,
  output logic [63:0] base         // the entry's base with an OK verdict, 0 otherwise
);
  localparam int unsigned IW = $clog2(ENTRIES);
  localparam int unsigned EW = 8 + 16 + 64 + 64 + 4 + 2 + 2 + 24;

  logic [EW-1:0] wr_word, rd_word, entry;
  assign wr_word = {w_key, w_pz, w_base, w_len, w_rights, w_type, w_state, w_link};
  assign {r_key, r_pz, r_base, r_len, r_rights, r_type, r_state, r_link} = rd_word;

  rnic_ptable_ram #(.DEPTH(ENTRIES), .WIDTH(EW)) u_ram (
    .clk,
    .a_en(tbl_we || tbl_re), .a_we(tbl_we), .a_addr(tbl_index), .a_wdata(wr_word), .a_rdata(rd_word),
    .b_en(req_valid), .b_addr(req_key[8 +: IW]), .b_rdata(entry));

  // ------------------------------------------------------------ cycle 1
  // The request, registered beside the RAM read. The access's end is summed
  // here because it does not depend on the entry, which shortens cycle 2.
  logic        s1_valid, s1_idx_ok, s1_live;
  logic [7:0]  s1_key;
  logic [15:0] s1_pz;
  logic [3:0]  s1_rights;
  logic [63:0] s1_addr;
  logic [64:0] s1_acc_end;
  always_ff @(posedge clk) begin
    if (!rst_n) s1_valid <= 1'b0;
    else        s1_valid <= req_valid;
  end
  always_ff @(posedge clk) begin
    if (req_valid) begin
      s1_idx_ok  <= req_key[31:8] < 24'(ENTRIES);
      s1_live    <= req_live;
      s1_key     <= req_key[7:0];
      s1_pz      <= req_pz;
      s1_rights  <= req_rights;
      s1_addr    <= req_addr;
      s1_acc_end <= {1'b0, req_addr} + {33'd0, req_len};
    end
  end

  // ------------------------------------------------------------ cycle 2
  logic [7:0]  e_key;
  logic [15:0] e_pz;
  logic [63:0] e_base, e_len;
  logic [3:0]  e_rights;
  logic [1:0]  e_state;
  // Type and link matter to binding windows (issue 4), not to a check.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [1:0]  e_type;
  logic [23:0] e_link;
  /* verilator lint_on UNUSEDSIGNAL */
  assign {e_key, e_pz, e_base, e_len, e_rights, e_type, e_state, e_link} = entry;

  logic [64:0] ent_end;
  logic        bad_state, bad_key, bad_pz, bad_rights, bad_bounds;
  logic [2:0]  v;
  always_comb begin
    ent_end    = {1'b0, e_base} + {1'b0, e_len};
    bad_state  = !s1_live || e_state != rnic_pkg::PT_STATE_VALID;
    bad_key    = e_key != s1_key;
    bad_pz     = e_pz != s1_pz;
    bad_rights = (s1_rights & ~e_rights) != 4'd0;
    // 65-bit ends: an entry whose range runs past 2^64 refuses every access,
    // and within a valid entry no access can wrap.
    bad_bounds = s1_addr < e_base || s1_acc_end > ent_end || (ent_end[64] && ent_end[63:0] != 64'd0);
    if (mutant == 4'(rnic_pkg::MUTANT_NO_STATE_CHECK))  bad_state  = 1'b0;
    if (mutant == 4'(rnic_pkg::MUTANT_NO_KEY_CHECK))    bad_key    = 1'b0;
    if (mutant == 4'(rnic_pkg::MUTANT_NO_PZ_CHECK))     bad_pz     = 1'b0;
    if (mutant == 4'(rnic_pkg::MUTANT_NO_RIGHTS_CHECK)) bad_rights = 1'b0;
    if (mutant == 4'(rnic_pkg::MUTANT_NO_BOUNDS_CHECK)) bad_bounds = 1'b0;
    if (!s1_idx_ok)      v = rnic_pkg::PT_VERDICT_INDEX;
    else if (bad_state)  v = rnic_pkg::PT_VERDICT_STATE;
    else if (bad_key)    v = rnic_pkg::PT_VERDICT_KEY;
    else if (bad_pz)     v = rnic_pkg::PT_VERDICT_PZ;
    else if (bad_rights) v = rnic_pkg::PT_VERDICT_RIGHTS;
    else if (bad_bounds) v = rnic_pkg::PT_VERDICT_BOUNDS;
    else                 v = rnic_pkg::PT_VERDICT_OK;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) rsp_valid <= 1'b0;
    else        rsp_valid <= s1_valid;
  end
  always_ff @(posedge clk) begin
    if (s1_valid) begin
      verdict <= v;
      base    <= (v == rnic_pkg::PT_VERDICT_OK) ? e_base : 64'd0;
    end
  end

`ifndef SYNTHESIS
  // The rules once more, in another form (the access as an offset inside the
  // entry, the entry's no-wrap limit as a subtraction), so a slip in the
  // verdict logic above fails an assertion instead of passing quietly.
  logic [31:0] s1_len;
  always_ff @(posedge clk) begin
    if (req_valid) s1_len <= req_len;
  end
  logic        state_holds, key_holds, pz_holds, rights_holds, bounds_holds;
  logic        m_state, m_key, m_pz, m_rights, m_bounds;
  logic [64:0] off_end;
  always_comb begin
    off_end      = {1'b0, s1_addr - e_base} + {33'd0, s1_len};
    state_holds  = s1_live && e_state == rnic_pkg::PT_STATE_VALID;
    key_holds    = s1_key == e_key;
    pz_holds     = s1_pz == e_pz;
    rights_holds = (s1_rights | e_rights) == e_rights;
    bounds_holds = s1_addr >= e_base && off_end <= {1'b0, e_len} &&
                   {1'b0, e_len} <= 65'h1_0000_0000_0000_0000 - {1'b0, e_base};
    m_state  = mutant == 4'(rnic_pkg::MUTANT_NO_STATE_CHECK);
    m_key    = mutant == 4'(rnic_pkg::MUTANT_NO_KEY_CHECK);
    m_pz     = mutant == 4'(rnic_pkg::MUTANT_NO_PZ_CHECK);
    m_rights = mutant == 4'(rnic_pkg::MUTANT_NO_RIGHTS_CHECK);
    m_bounds = mutant == 4'(rnic_pkg::MUTANT_NO_BOUNDS_CHECK);
  end

  always_ff @(posedge clk) begin
    if (rst_n && s1_valid) begin
      // OK means every rule held, except the one a mutant switched off.
      if (v == rnic_pkg::PT_VERDICT_OK) begin
        a_ok_index:  assert (s1_idx_ok)                 else $error("ptable: OK for an index past the table");
        a_ok_state:  assert (m_state || state_holds)   else $error("ptable: OK for an entry not VALID");
        a_ok_key:    assert (m_key || key_holds)       else $error("ptable: OK with the wrong key");
        a_ok_pz:     assert (m_pz || pz_holds)         else $error("ptable: OK from another PZ");
        a_ok_rights: assert (m_rights || rights_holds) else $error("ptable: OK without a required right");
        a_ok_bounds: assert (m_bounds || bounds_holds) else $error("ptable: OK outside the entry's range");
      end
      // A refusal names the first rule that fails.
      a_first: assert (
        v == (!s1_idx_ok                    ? rnic_pkg::PT_VERDICT_INDEX  :
              !(m_state || state_holds)     ? rnic_pkg::PT_VERDICT_STATE  :
              !(m_key || key_holds)         ? rnic_pkg::PT_VERDICT_KEY    :
              !(m_pz || pz_holds)           ? rnic_pkg::PT_VERDICT_PZ     :
              !(m_rights || rights_holds)   ? rnic_pkg::PT_VERDICT_RIGHTS :
              !(m_bounds || bounds_holds)   ? rnic_pkg::PT_VERDICT_BOUNDS :
                                              rnic_pkg::PT_VERDICT_OK))
        else $error("ptable: verdict %0d is not the first failing rule", v);
    end
  end
`endif
endmodule
