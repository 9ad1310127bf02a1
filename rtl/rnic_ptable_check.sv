// One check port of the protection table. Cycle 1 reads the entry of the
// key's index; cycle 2 applies the checks in a fixed order (index, state,
// key, PZ, rights, bounds) and reports the first that fails. Each port owns
// its copy of the entries (written by the management port), so it reads
// them through its own RAM port.
module rnic_ptable_check #(
  parameter int unsigned ENTRIES = rnic_pkg::PT_ENTRIES,
  parameter int unsigned EW = 184
) (
  input  logic          clk,
  input  logic          rst_n,
  input  logic [3:0]    mutant,
  input  logic          wr_en,
  input  logic [$clog2(ENTRIES)-1:0] wr_idx,
  input  logic [EW-1:0] wr_word,
  input  logic [ENTRIES-1:0] valid_bits,
  input  logic          req_valid,
  input  logic [31:0]   req_key,
  input  logic [15:0]   req_pz,
  input  logic [3:0]    req_rights,
  input  logic [63:0]   req_addr,
  input  logic [31:0]   req_len,
  output logic          rsp_valid,
  output logic [2:0]    verdict,
  output logic [63:0]   base
);
  localparam int unsigned IW = $clog2(ENTRIES);

  logic [EW-1:0] mem [ENTRIES];
  always_ff @(posedge clk) begin
    if (wr_en) mem[wr_idx] <= wr_word;
  end

  // Stage 1: the entry and the request, registered.
  logic          s1_valid, s1_idx_ok, s1_live;
  logic [EW-1:0] s1_entry;
  logic [7:0]    s1_key;
  logic [15:0]   s1_pz;
  logic [3:0]    s1_rights;
  logic [63:0]   s1_addr;
  logic [31:0]   s1_len;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      s1_valid <= 1'b0;
    end else begin
      s1_valid <= req_valid;
    end
    s1_idx_ok <= (req_key[31:8] < 24'(ENTRIES));
    s1_entry  <= mem[req_key[8+IW-1:8]];
    s1_live   <= valid_bits[req_key[8+IW-1:8]];
    s1_key    <= req_key[7:0];
    s1_pz     <= req_pz;
    s1_rights <= req_rights;
    s1_addr   <= req_addr;
    s1_len    <= req_len;
  end

  // Stage 2: compare.
  logic [7:0]  e_key;
  logic [15:0] e_pz;
  logic [63:0] e_base, e_len;
  logic [3:0]  e_rights;
  logic [1:0]  e_state;
  // Type and link describe windows; the checks do not depend on them yet.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [1:0]  e_type;
  logic [23:0] e_link;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [64:0] acc_end, ent_end;
  logic        bad_state, bad_key, bad_pz, bad_rights, bad_bounds;
  logic [2:0]  v;
  always_comb begin
    {e_key, e_pz, e_base, e_len, e_rights, e_type, e_state, e_link} = s1_entry;
    acc_end    = {1'b0, s1_addr} + {33'd0, s1_len};
    ent_end    = {1'b0, e_base} + {1'b0, e_len};
    bad_state  = !s1_live || e_state != 2'(rnic_pkg::PT_STATE_VALID);
    bad_key    = e_key != s1_key;
    bad_pz     = e_pz != s1_pz;
    bad_rights = (s1_rights & ~e_rights) != 4'd0;
    // An access that wraps past 2^64 or an entry that does never fits.
    bad_bounds = s1_addr < e_base || acc_end > ent_end || acc_end[64] || ent_end[64];
    if (mutant == 4'(rnic_pkg::MUTANT_NO_STATE_CHECK))  bad_state  = 1'b0;
    if (mutant == 4'(rnic_pkg::MUTANT_NO_KEY_CHECK))    bad_key    = 1'b0;
    if (mutant == 4'(rnic_pkg::MUTANT_NO_PZ_CHECK))     bad_pz     = 1'b0;
    if (mutant == 4'(rnic_pkg::MUTANT_NO_RIGHTS_CHECK)) bad_rights = 1'b0;
    if (mutant == 4'(rnic_pkg::MUTANT_NO_BOUNDS_CHECK)) bad_bounds = 1'b0;
    if (!s1_idx_ok)      v = 3'(rnic_pkg::PT_VERDICT_INDEX);
    else if (bad_state)  v = 3'(rnic_pkg::PT_VERDICT_STATE);
    else if (bad_key)    v = 3'(rnic_pkg::PT_VERDICT_KEY);
    else if (bad_pz)     v = 3'(rnic_pkg::PT_VERDICT_PZ);
    else if (bad_rights) v = 3'(rnic_pkg::PT_VERDICT_RIGHTS);
    else if (bad_bounds) v = 3'(rnic_pkg::PT_VERDICT_BOUNDS);
    else                 v = 3'(rnic_pkg::PT_VERDICT_OK);
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      rsp_valid <= 1'b0;
      verdict   <= '0;
      base      <= '0;
    end else begin
      rsp_valid <= s1_valid;
      verdict   <= v;
      base      <= e_base;
    end
  end

`ifndef SYNTHESIS
  // With no mutant selected, an OK verdict means every rule held.
  always_ff @(posedge clk) begin
    if (rst_n && s1_valid && mutant == 4'd0 && v == 3'(rnic_pkg::PT_VERDICT_OK)) begin
      assert (s1_idx_ok && !bad_state && !bad_key && !bad_pz && !bad_rights && !bad_bounds)
        else $error("protection verdict OK with a failing rule");
    end
  end
`endif
endmodule
