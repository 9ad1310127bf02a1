// The protection table: memory regions and memory windows by index. Every
// key the NIC uses passes one of the two check ports: l* for local keys
// (requester SGEs, receive buffers, READ-response destinations, and the
// window and region of a BIND) and r* for remote keys (the responder).
// A BIND commits its window through the bind port. Ports and rules:
// docs/ptable-interface.md.
//
// Storage: each check port owns a block-RAM copy of the entries
// (rnic_ptable_check); management writes go to both copies, management reads
// come from the local copy's second port. A block RAM cannot be cleared in a
// cycle, so whether an entry exists is a separate live bit per entry
// (rnic_ptable_live): reset clears them all at once, WRITE sets one,
// INVALIDATE clears one and leaves the stored fields alone.
//
// A management command and a check of the same index in the same cycle: the
// check sees the entry as it was before the command (old fields, old live
// bit), never a mix; checks issued from the next cycle on see the new entry.
// The same holds for a bind commit, which is taken only in a cycle without a
// management command and only for a window that is still live (a window
// freed between the BIND's checks and its commit stays freed).
module rnic_ptable #(
  parameter int unsigned ENTRIES = rnic_pkg::PT_ENTRIES   // 4 .. 2^24
) (
  input  logic        clk,
  input  logic        rst_n,
  input  logic [4:0]  mutant,

  input  logic        mgmt_valid,
  input  logic [1:0]  mgmt_cmd,
  input  logic [23:0] mgmt_index,
  input  logic [7:0]  mgmt_key,
  input  logic [15:0] mgmt_pz,
  input  logic [63:0] mgmt_base,
  input  logic [63:0] mgmt_len,
  input  logic [3:0]  mgmt_rights,
  input  logic [1:0]  mgmt_type,
  input  logic [1:0]  mgmt_state,
  input  logic [31:0] mgmt_link,
  output logic        mgmt_done,
  output logic        mgmt_err,
  output logic [7:0]  mgmt_r_key,
  output logic [15:0] mgmt_r_pz,
  output logic [63:0] mgmt_r_base,
  output logic [63:0] mgmt_r_len,
  output logic [3:0]  mgmt_r_rights,
  output logic [1:0]  mgmt_r_type,
  output logic [1:0]  mgmt_r_state,
  output logic [31:0] mgmt_r_link,

  // A BIND's commit: the whole window entry (type MW). Held until bind_done.
  input  logic        bind_valid,
  input  logic [23:0] bind_index,
  input  logic [7:0]  bind_key,
  input  logic [15:0] bind_pz,
  input  logic [63:0] bind_base,
  input  logic [63:0] bind_len,
  input  logic [3:0]  bind_rights,
  input  logic [1:0]  bind_state,
  input  logic [31:0] bind_link,
  output logic        bind_done,
  output logic        bind_ok,         // with bind_done: written (the window was still live)

  output logic        lchk_ready,
  input  logic        lchk_valid,
  input  logic [1:0]  lchk_mode,
  input  logic [31:0] lchk_key,
  input  logic [15:0] lchk_pz,
  input  logic [3:0]  lchk_rights,
  input  logic [63:0] lchk_addr,
  input  logic [31:0] lchk_len,
  output logic        lchk_rsp_valid,
  output logic [2:0]  lchk_verdict,
  output logic [63:0] lchk_base,

  output logic        rchk_ready,
  input  logic        rchk_valid,
  input  logic [31:0] rchk_key,
  input  logic [15:0] rchk_pz,
  input  logic [3:0]  rchk_rights,
  input  logic [63:0] rchk_addr,
  input  logic [31:0] rchk_len,
  output logic        rchk_rsp_valid,
  output logic [2:0]  rchk_verdict,
  output logic [63:0] rchk_base,

  // No request of any port between its request and its answer.
  output logic        idle
);
  localparam int unsigned IW = $clog2(ENTRIES);
  localparam logic [1:0] MR = 2'(rnic_pkg::PT_TYPE_MR);
  localparam logic [1:0] MW = 2'(rnic_pkg::PT_TYPE_MW);

  // ---------------------------------------------------------- management
  // A WRITE stores a region, or a window that is FREE: a bound window comes
  // only from a BIND's commit, after its checks.
  logic          idx_ok, cmd_ok, write_ok, tbl_we, tbl_re, tbl_inv;
  logic          bind_go, bind_idx_ok, bind_we, mgmt_we;
  logic [IW-1:0] idx, m_index;
  logic          m_live, l_live, r_live;
  always_comb begin
    idx      = mgmt_index[IW-1:0];
    idx_ok   = mgmt_index < 24'(ENTRIES);
    cmd_ok   = mgmt_cmd == rnic_pkg::PT_CMD_WRITE || mgmt_cmd == rnic_pkg::PT_CMD_READ ||
               mgmt_cmd == rnic_pkg::PT_CMD_INVALIDATE;
    write_ok = mgmt_type == MR || (mgmt_type == MW && mgmt_state == rnic_pkg::PT_STATE_FREE);
    mgmt_we  = rst_n && mgmt_valid && idx_ok && mgmt_cmd == rnic_pkg::PT_CMD_WRITE && write_ok;
    tbl_re   = rst_n && mgmt_valid && idx_ok && mgmt_cmd == rnic_pkg::PT_CMD_READ;
    tbl_inv  = rst_n && mgmt_valid && idx_ok && mgmt_cmd == rnic_pkg::PT_CMD_INVALIDATE;
    // The bind port waits for a cycle without a management command.
    bind_go     = rst_n && bind_valid && !mgmt_valid;
    bind_idx_ok = bind_index < 24'(ENTRIES);
    m_index     = bind_go ? bind_index[IW-1:0] : idx;
  end
  assign bind_we = bind_go && bind_idx_ok && m_live;
  assign tbl_we  = mgmt_we || bind_we;

  logic [IW-1:0] l_live_index, r_live_index;
  rnic_ptable_live #(.ENTRIES(ENTRIES)) u_live (
    .clk, .rst_n,
    .m_index, .m_set(mgmt_we), .m_clr(tbl_inv), .m_live,
    .l_index(l_live_index), .l_live,
    .r_index(r_live_index), .r_live);

  logic rd_live;   // live bit of the entry the last READ loaded
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      rd_live   <= 1'b0;
      mgmt_done <= 1'b0;
      mgmt_err  <= 1'b0;
      bind_done <= 1'b0;
      bind_ok   <= 1'b0;
    end else begin
      mgmt_done <= mgmt_valid;
      mgmt_err  <= mgmt_valid && !(idx_ok && cmd_ok && (mgmt_cmd != rnic_pkg::PT_CMD_WRITE || write_ok));
      bind_done <= bind_go;
      bind_ok   <= bind_we;
      if (tbl_re) rd_live <= m_live;
    end
  end

  // What the copies store: the management fields, or the bind's window.
  logic [7:0]  w_key;
  logic [15:0] w_pz;
  logic [63:0] w_base, w_len;
  logic [3:0]  w_rights;
  logic [1:0]  w_type, w_state;
  logic [31:0] w_link;
  always_comb begin
    if (bind_go) begin
      {w_key, w_pz, w_base, w_len, w_rights, w_type, w_state, w_link} =
        {bind_key, bind_pz, bind_base, bind_len, bind_rights, MW, bind_state, bind_link};
    end else begin
      {w_key, w_pz, w_base, w_len, w_rights, w_type, w_state, w_link} =
        {mgmt_key, mgmt_pz, mgmt_base, mgmt_len, mgmt_rights, mgmt_type, mgmt_state, mgmt_link};
    end
  end

  // ---------------------------------------------------------- the two copies
  logic        l_idle, r_idle;
  logic [7:0]  l_key;
  logic [15:0] l_pz;
  logic [63:0] l_base, l_len;
  logic [3:0]  l_rights;
  logic [1:0]  l_type, l_state;
  logic [31:0] l_link;
  rnic_ptable_check #(.ENTRIES(ENTRIES)) u_lchk (
    .clk, .rst_n, .mutant,
    .tbl_we, .tbl_re, .tbl_index(m_index),
    .w_key, .w_pz, .w_base, .w_len, .w_rights, .w_type, .w_state, .w_link,
    .r_key(l_key), .r_pz(l_pz), .r_base(l_base), .r_len(l_len),
    .r_rights(l_rights), .r_type(l_type), .r_state(l_state), .r_link(l_link),
    .req_ready(lchk_ready), .req_valid(lchk_valid), .req_mode(lchk_mode), .req_key(lchk_key),
    .live_index(l_live_index), .live(l_live), .req_pz(lchk_pz),
    .req_rights(lchk_rights),
    .req_addr(lchk_addr), .req_len(lchk_len),
    .rsp_valid(lchk_rsp_valid), .verdict(lchk_verdict), .base(lchk_base), .idle(l_idle));

  // The remote copy's read-back only feeds the lockstep assertion below;
  // synthesis drops it, leaving that RAM one write and one read port.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [7:0]  r_key;
  logic [15:0] r_pz;
  logic [63:0] r_base, r_len;
  logic [3:0]  r_rights;
  logic [1:0]  r_type, r_state;
  logic [31:0] r_link;
  /* verilator lint_on UNUSEDSIGNAL */
  rnic_ptable_check #(.ENTRIES(ENTRIES)) u_rchk (
    .clk, .rst_n, .mutant,
    .tbl_we, .tbl_re, .tbl_index(m_index),
    .w_key, .w_pz, .w_base, .w_len, .w_rights, .w_type, .w_state, .w_link,
    .r_key, .r_pz, .r_base, .r_len, .r_rights, .r_type, .r_state, .r_link,
    .req_ready(rchk_ready), .req_valid(rchk_valid), .req_mode(rnic_pkg::PT_MODE_REMOTE), .req_key(rchk_key),
    .live_index(r_live_index), .live(r_live), .req_pz(rchk_pz),
    .req_rights(rchk_rights),
    .req_addr(rchk_addr), .req_len(rchk_len),
    .rsp_valid(rchk_rsp_valid), .verdict(rchk_verdict), .base(rchk_base), .idle(r_idle));

  // The table's own requests in flight: a check on either port (its stages
  // and its verdict pulse), a management command's answer (mgmt_done, one
  // cycle after mgmt_valid) and a bind's (bind_done). Its requesters wait
  // for every answer (the register block's pt_busy, the engine's *_WAIT and
  // S_BIND_DONE states), so their idle already implies this one; it is kept
  // so the table says so itself (rnic_top asserts the implication).
  assign idle = l_idle && r_idle && !mgmt_done && !bind_done;

  // Valid with mgmt_done after a READ (a WRITE cycle also loads the RAM's
  // read register, with the word it overwrites). An entry that is not live
  // reads back with state INVALID and whatever fields the RAM holds (its
  // last WRITE, or anything after a reset). Zeroing those fields too would
  // cost about 200 LUTs for a value only the driver sees, which must not
  // trust an INVALID entry's fields anyway.
  always_comb begin
    mgmt_r_key    = l_key;
    mgmt_r_pz     = l_pz;
    mgmt_r_base   = l_base;
    mgmt_r_len    = l_len;
    mgmt_r_rights = l_rights;
    mgmt_r_type   = l_type;
    mgmt_r_state  = rd_live ? l_state : rnic_pkg::PT_STATE_INVALID;
    mgmt_r_link   = l_link;
  end

`ifndef SYNTHESIS
  logic rd_done;   // mgmt_done of a READ that reached the table
  always_ff @(posedge clk) begin
    if (!rst_n) rd_done <= 1'b0;
    else        rd_done <= tbl_re;
  end
  always_ff @(posedge clk) begin
    if (rst_n) begin
      a_err_done: assert (!mgmt_err || mgmt_done) else $error("ptable: mgmt_err without mgmt_done");
      a_bind_alone: assert (!(bind_we && mgmt_valid)) else $error("ptable: bind commit beside a command");
      // Only a BIND makes a window bound.
      if (mgmt_we) a_no_mgmt_bound_window: assert (!(mgmt_type == MW && mgmt_state != rnic_pkg::PT_STATE_FREE))
        else $error("ptable: a management WRITE stored a bound window");
      // Both copies took every write since reset, so a live entry reads back
      // the same word from each.
      if (rd_done && rd_live)
        a_lockstep: assert ({l_key, l_pz, l_base, l_len, l_rights, l_type, l_state, l_link} ==
                            {r_key, r_pz, r_base, r_len, r_rights, r_type, r_state, r_link})
          else $error("ptable: the two copies of the entries differ");
    end
  end
`endif
endmodule
