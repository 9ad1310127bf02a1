// One check port of the protection table, with its own copy of the entries
// (rnic_ptable_ram) so both check ports and the management port run in the
// same cycle. Cycle 1 reads the entry named by the key's index; cycle 2
// applies the rules in a fixed order (index, state, type, key, PZ, rights,
// bounds) and registers the first that fails, so a region's verdict comes
// exactly two cycles after the request.
//
// A bound window (REMOTE mode) grants only while the region it was bound to
// is still valid with the key it had at the bind: cycle 2 then reads that
// region's entry on the same RAM port, and its verdict comes one cycle later
// (three after the request). The port takes one request at a time
// (req_ready), which is how the engine uses it: it waits for each verdict.
//
// The entry layout lives here only: the management fields go in and come
// back out unpacked, so the word can change in one file.
module rnic_ptable_check #(
  parameter int unsigned ENTRIES = rnic_pkg::PT_ENTRIES
) (
  input  logic        clk,
  input  logic        rst_n,
  input  logic [4:0]  mutant,

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
  input  logic [31:0] w_link,
  output logic [7:0]  r_key,       // the stored word, one cycle after tbl_re
  output logic [15:0] r_pz,
  output logic [63:0] r_base,
  output logic [63:0] r_len,
  output logic [3:0]  r_rights,
  output logic [1:0]  r_type,
  output logic [1:0]  r_state,
  output logic [31:0] r_link,

  output logic        req_ready,   // no request in progress: one may start
  input  logic        req_valid,
  input  logic [1:0]  req_mode,    // rnic_pkg::PT_MODE_*
  input  logic [31:0] req_key,
  input  logic [15:0] req_pz,
  input  logic [3:0]  req_rights,
  input  logic [63:0] req_addr,
  input  logic [31:0] req_len,
  // The live bit of the entry live_index names, this cycle (rnic_ptable_live).
  output logic [$clog2(ENTRIES)-1:0] live_index,
  input  logic        live,
  output logic        rsp_valid,
  output logic [2:0]  verdict,
  output logic [63:0] base,        // the entry's base with an OK verdict, 0 otherwise
  output logic        idle         // no request between req_valid and its rsp_valid pulse
);
  localparam int unsigned IW = $clog2(ENTRIES);
  localparam int unsigned EW = 8 + 16 + 64 + 64 + 4 + 2 + 2 + 32;
  localparam logic [1:0] MR = 2'(rnic_pkg::PT_TYPE_MR);
  localparam logic [1:0] MW = 2'(rnic_pkg::PT_TYPE_MW);

  logic [EW-1:0] wr_word, rd_word, entry;
  assign wr_word = {w_key, w_pz, w_base, w_len, w_rights, w_type, w_state, w_link};
  assign {r_key, r_pz, r_base, r_len, r_rights, r_type, r_state, r_link} = rd_word;

  // Fields of the entry the RAM returns this cycle (the request's in cycle
  // 2, the window's region in cycle 3).
  logic [7:0]  e_key;
  logic [15:0] e_pz;
  logic [63:0] e_base, e_len;
  logic [3:0]  e_rights;
  logic [1:0]  e_type, e_state;
  logic [31:0] e_link;
  assign {e_key, e_pz, e_base, e_len, e_rights, e_type, e_state, e_link} = entry;

  logic        s1_valid, s2_valid, link_go;
  logic [IW-1:0] b_addr;
  assign req_ready  = !s1_valid && !s2_valid;
  // A request moves on each cycle by itself (cycle 1, cycle 3, the verdict
  // pulse), so it is under way from req_valid until rsp_valid has dropped.
  assign idle       = !s1_valid && !s2_valid && !rsp_valid;
  assign b_addr     = link_go ? e_link[8 +: IW] : req_key[8 +: IW];
  assign live_index = b_addr;

  rnic_ptable_ram #(.DEPTH(ENTRIES), .WIDTH(EW)) u_ram (
    .clk,
    .a_en(tbl_we || tbl_re), .a_we(tbl_we), .a_addr(tbl_index), .a_wdata(wr_word), .a_rdata(rd_word),
    .b_en(req_valid || link_go), .b_addr, .b_rdata(entry));

  // ------------------------------------------------------------ cycle 1
  // The request, registered beside the RAM read. The access's end is summed
  // here because it does not depend on the entry, which shortens cycle 2.
  logic        s1_idx_ok, s1_live;
  logic [1:0]  s1_mode;
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
      s1_live    <= live;
      s1_mode    <= req_mode;
      s1_key     <= req_key[7:0];
      s1_pz      <= req_pz;
      s1_rights  <= req_rights;
      s1_addr    <= req_addr;
      s1_acc_end <= {1'b0, req_addr} + {33'd0, req_len};
    end
  end

  // ------------------------------------------------------------ cycle 2
  logic [64:0] ent_end;
  logic        bad_state, bad_type, bad_key, bad_pz, bad_rights, bad_bounds, is_window;
  logic [2:0]  v;
  always_comb begin
    is_window  = e_type == MW;
    ent_end    = {1'b0, e_base} + {1'b0, e_len};
    // The window a BIND names may be bound or free; anything else must be valid.
    bad_state  = !s1_live || (e_state != rnic_pkg::PT_STATE_VALID &&
                              !(s1_mode == rnic_pkg::PT_MODE_WINDOW && e_state == rnic_pkg::PT_STATE_FREE));
    unique case (s1_mode)
      rnic_pkg::PT_MODE_LOCAL:  bad_type = e_type != MR;
      rnic_pkg::PT_MODE_REMOTE: bad_type = e_type != MR && !is_window;
      rnic_pkg::PT_MODE_WINDOW: bad_type = !is_window;
      default:                  bad_type = 1'b1;
    endcase
    bad_key    = e_key != s1_key;
    bad_pz     = e_pz != s1_pz;
    bad_rights = (s1_rights & ~e_rights) != 4'd0;
    // 65-bit ends: an entry whose range runs past 2^64 refuses every access,
    // and within a valid entry no access can wrap.
    bad_bounds = s1_addr < e_base || s1_acc_end > ent_end || (ent_end[64] && ent_end[63:0] != 64'd0);
    // A BIND's window check is about the window itself: its range and rights
    // are what the bind is about to replace.
    if (s1_mode == rnic_pkg::PT_MODE_WINDOW) begin
      bad_rights = 1'b0;
      bad_bounds = 1'b0;
    end
    if (mutant == rnic_pkg::MUTANT_NO_STATE_CHECK)  bad_state  = 1'b0;
    if (mutant == rnic_pkg::MUTANT_NO_TYPE_CHECK)   bad_type   = 1'b0;
    if (mutant == rnic_pkg::MUTANT_NO_KEY_CHECK)    bad_key    = 1'b0;
    if (mutant == rnic_pkg::MUTANT_NO_PZ_CHECK)     bad_pz     = 1'b0;
    if (mutant == rnic_pkg::MUTANT_NO_RIGHTS_CHECK) bad_rights = 1'b0;
    if (mutant == rnic_pkg::MUTANT_NO_BOUNDS_CHECK) bad_bounds = 1'b0;
    if (!s1_idx_ok)      v = rnic_pkg::PT_VERDICT_INDEX;
    else if (bad_state)  v = rnic_pkg::PT_VERDICT_STATE;
    else if (bad_type)   v = rnic_pkg::PT_VERDICT_TYPE;
    else if (bad_key)    v = rnic_pkg::PT_VERDICT_KEY;
    else if (bad_pz)     v = rnic_pkg::PT_VERDICT_PZ;
    else if (bad_rights) v = rnic_pkg::PT_VERDICT_RIGHTS;
    else if (bad_bounds) v = rnic_pkg::PT_VERDICT_BOUNDS;
    else                 v = rnic_pkg::PT_VERDICT_OK;
    // A remote access a window grants goes on to its region.
    link_go = s1_valid && s1_mode == rnic_pkg::PT_MODE_REMOTE && is_window && v == rnic_pkg::PT_VERDICT_OK &&
              mutant != rnic_pkg::MUTANT_NO_LINK_CHECK;
  end

  // ------------------------------------------------------------ cycle 3
  // Only for a window: its region, read in cycle 2.
  logic        s2_idx_ok, s2_live;
  logic [7:0]  s2_key;
  logic [63:0] s2_base;
  logic        link_ok;
  always_ff @(posedge clk) begin
    if (!rst_n) s2_valid <= 1'b0;
    else        s2_valid <= link_go;
  end
  always_ff @(posedge clk) begin
    if (link_go) begin
      s2_idx_ok <= e_link[31:8] < 24'(ENTRIES);
      s2_live   <= live;
      s2_key    <= e_link[7:0];
      s2_base   <= e_base;
    end
  end
  assign link_ok = s2_idx_ok && s2_live && e_state == rnic_pkg::PT_STATE_VALID &&
                   e_type == MR && e_key == s2_key;

  always_ff @(posedge clk) begin
    if (!rst_n) rsp_valid <= 1'b0;
    else        rsp_valid <= (s1_valid && !link_go) || s2_valid;
  end
  always_ff @(posedge clk) begin
    if (s2_valid) begin
      verdict <= link_ok ? rnic_pkg::PT_VERDICT_OK : rnic_pkg::PT_VERDICT_STATE;
      base    <= link_ok ? s2_base : 64'd0;
    end else if (s1_valid && !link_go) begin
      verdict <= v;
      base    <= (v == rnic_pkg::PT_VERDICT_OK) ? e_base : 64'd0;
    end
  end

`ifndef SYNTHESIS
  // The rules once more, in another form (the access as an offset inside the
  // entry, the entry's no-wrap limit as a subtraction, the mode's types as a
  // set), so a slip in the verdict logic above fails an assertion instead of
  // passing quietly.
  logic [31:0] s1_len;
  always_ff @(posedge clk) begin
    if (req_valid) s1_len <= req_len;
  end
  logic        state_holds, type_holds, key_holds, pz_holds, rights_holds, bounds_holds, window_mode;
  logic        m_state, m_type, m_key, m_pz, m_rights, m_bounds;
  logic [64:0] off_end;
  always_comb begin
    window_mode  = s1_mode == rnic_pkg::PT_MODE_WINDOW;
    off_end      = {1'b0, s1_addr - e_base} + {33'd0, s1_len};
    state_holds  = s1_live && (e_state == rnic_pkg::PT_STATE_VALID ||
                               (window_mode && e_state == rnic_pkg::PT_STATE_FREE));
    type_holds   = (s1_mode == rnic_pkg::PT_MODE_LOCAL  && e_type == MR) ||
                   (s1_mode == rnic_pkg::PT_MODE_REMOTE && (e_type == MR || e_type == MW)) ||
                   (window_mode && e_type == MW);
    key_holds    = s1_key == e_key;
    pz_holds     = s1_pz == e_pz;
    rights_holds = window_mode || (s1_rights | e_rights) == e_rights;
    bounds_holds = window_mode || (s1_addr >= e_base && off_end <= {1'b0, e_len} &&
                   {1'b0, e_len} <= 65'h1_0000_0000_0000_0000 - {1'b0, e_base});
    m_state  = mutant == rnic_pkg::MUTANT_NO_STATE_CHECK;
    m_type   = mutant == rnic_pkg::MUTANT_NO_TYPE_CHECK;
    m_key    = mutant == rnic_pkg::MUTANT_NO_KEY_CHECK;
    m_pz     = mutant == rnic_pkg::MUTANT_NO_PZ_CHECK;
    m_rights = mutant == rnic_pkg::MUTANT_NO_RIGHTS_CHECK;
    m_bounds = mutant == rnic_pkg::MUTANT_NO_BOUNDS_CHECK;
  end

  always_ff @(posedge clk) begin
    if (rst_n) begin
      a_one_at_a_time: assert (!req_valid || req_ready) else $error("ptable: a request while one is in progress");
    end
    if (rst_n && s1_valid) begin
      // OK means every rule held, except the one a mutant switched off.
      if (v == rnic_pkg::PT_VERDICT_OK) begin
        a_ok_index:  assert (s1_idx_ok)                 else $error("ptable: OK for an index past the table");
        a_ok_state:  assert (m_state || state_holds)   else $error("ptable: OK for an entry in the wrong state");
        a_ok_type:   assert (m_type || type_holds)     else $error("ptable: OK for an entry of the wrong type");
        a_ok_key:    assert (m_key || key_holds)       else $error("ptable: OK with the wrong key");
        a_ok_pz:     assert (m_pz || pz_holds)         else $error("ptable: OK from another PZ");
        a_ok_rights: assert (m_rights || rights_holds) else $error("ptable: OK without a required right");
        a_ok_bounds: assert (m_bounds || bounds_holds) else $error("ptable: OK outside the entry's range");
      end
      // A refusal names the first rule that fails.
      a_first: assert (
        v == (!s1_idx_ok                    ? rnic_pkg::PT_VERDICT_INDEX  :
              !(m_state || state_holds)     ? rnic_pkg::PT_VERDICT_STATE  :
              !(m_type || type_holds)       ? rnic_pkg::PT_VERDICT_TYPE   :
              !(m_key || key_holds)         ? rnic_pkg::PT_VERDICT_KEY    :
              !(m_pz || pz_holds)           ? rnic_pkg::PT_VERDICT_PZ     :
              !(m_rights || rights_holds)   ? rnic_pkg::PT_VERDICT_RIGHTS :
              !(m_bounds || bounds_holds)   ? rnic_pkg::PT_VERDICT_BOUNDS :
                                              rnic_pkg::PT_VERDICT_OK))
        else $error("ptable: verdict %0d is not the first failing rule (mode %0d type %0d state %0d live %0d)", v, s1_mode, e_type, e_state, s1_live);
    end
    // A window's grant is its region's: OK only for a live, valid region
    // with the very key the window was bound to.
    if (rst_n && s2_valid && link_ok)
      a_link: assert (s2_live && e_type == MR && e_state == rnic_pkg::PT_STATE_VALID &&
                      e_key == s2_key && s2_idx_ok)
        else $error("ptable: a window granted access without its region");
  end
`endif
endmodule
