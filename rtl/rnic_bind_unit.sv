// The bind unit: commits a BIND's memory window into the protection table,
// once the engine has made the BIND the oldest WQE in flight of its QP (the
// bind fence, which holds every later WQE of the QP until then, is the
// engine's send-queue scheduler's).
//
// Sequence, one check at a time on the engine's local check port:
//   1. the window the BIND names, by its current key (PT_MODE_WINDOW: the
//      entry must be a window of the QP's PZ);
//   2. the region it binds to (SGE 0), for the local rights the window's
//      remote rights need, over the whole range; skipped for an unbind
//      (zero length: the window goes back to FREE);
//   3. the commit on the table's bind port, repeated until the table takes
//      it (it does so in a cycle without a management command), and
//      refused if the window changed under it meanwhile.
// done (combinational) ends it; ok says whether the window was committed.
// A refusal anywhere leaves the window as it was.
//
// The engine keeps start's inputs (the WQE and the QP's PZ) steady until
// done: they are read in every step.
module rnic_bind_unit (
  input  logic        clk,
  input  logic        rst_n,
  input  logic [4:0]  mutant,        // rnic_pkg::MUTANT_*: 0 outside verification builds

  input  logic        start,
  input  logic [31:0] win_key,       // the window's current key (the WQE's RKEY)
  input  logic [7:0]  new_key,       // the key byte the window gets
  input  logic [3:0]  new_rights,    // remote rights only (the engine refused others)
  input  logic [31:0] mr_lkey,       // SGE 0: the region and the range within it
  input  logic [63:0] mr_addr,
  input  logic [31:0] mr_len,
  input  logic [15:0] pz,
  output logic        done,
  output logic        ok,

  // A request on the engine's local check port.
  output logic        chk_valid,
  output logic [1:0]  chk_mode,
  output logic [31:0] chk_key,
  output logic [3:0]  chk_rights,
  output logic [63:0] chk_addr,
  output logic [31:0] chk_len,
  input  logic        chk_rsp_valid,
  input  logic [2:0]  chk_verdict,

  // rnic_ptable's bind port.
  output logic        bind_valid,
  output logic [23:0] bind_index,
  output logic [7:0]  bind_key,
  output logic [15:0] bind_pz,
  output logic [63:0] bind_base,
  output logic [63:0] bind_len,
  output logic [3:0]  bind_rights,
  output logic [1:0]  bind_state,
  output logic [31:0] bind_link,
  input  logic        bind_done,
  input  logic        bind_ok
);
  typedef enum logic [2:0] { B_IDLE, B_WIN, B_WIN_WAIT, B_LMR, B_LMR_WAIT, B_COMMIT, B_DONE } bstate_t;
  bstate_t bs;

  rnic_pkg::key_t win;                // win_key by field
  logic granted, unbind;
  // The window keeps its remote rights only where the region grants their
  // local counterpart: remote read needs local read, remote write local write.
  logic [3:0] need;
  always_comb begin
    win     = win_key;
    granted = 32'(chk_verdict) == 32'(rnic_pkg::PT_VERDICT_OK);
    unbind  = mr_len == 32'd0;
    need    = 4'd0;
    if ((new_rights & rnic_pkg::ACCESS_REMOTE_READ) != 4'd0)  need = need | rnic_pkg::ACCESS_LOCAL_READ;
    if ((new_rights & rnic_pkg::ACCESS_REMOTE_WRITE) != 4'd0) need = need | rnic_pkg::ACCESS_LOCAL_WRITE;

    chk_valid  = bs == B_WIN || bs == B_LMR;
    chk_mode   = (bs == B_WIN) ? rnic_pkg::PT_MODE_WINDOW : rnic_pkg::PT_MODE_LOCAL;
    chk_key    = (bs == B_WIN) ? win_key : mr_lkey;
    chk_rights = (bs == B_WIN) ? 4'd0 : need;
    chk_addr   = mr_addr;
    chk_len    = mr_len;

    bind_valid  = bs == B_COMMIT;
    bind_index  = win.index;
    bind_key    = (mutant == rnic_pkg::MUTANT_NO_BIND_KEY_CHANGE) ? win.key : new_key;
    bind_pz     = pz;
    bind_base   = unbind ? 64'd0 : mr_addr;
    bind_len    = {32'd0, mr_len};
    bind_rights = unbind ? 4'd0 : new_rights;
    bind_state  = unbind ? rnic_pkg::PT_STATE_FREE : rnic_pkg::PT_STATE_VALID;
    bind_link   = unbind ? 32'd0 : mr_lkey;

    done = ((bs == B_WIN_WAIT || bs == B_LMR_WAIT) && chk_rsp_valid && !granted) || (bs == B_DONE && bind_done);
    ok   = bs == B_DONE && bind_ok;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      bs <= B_IDLE;
    end else begin
      unique case (bs)
        B_IDLE:     if (start) bs <= B_WIN;
        B_WIN:      bs <= B_WIN_WAIT;
        B_WIN_WAIT: if (chk_rsp_valid) begin
          if (!granted)                                               bs <= B_IDLE;
          else if (unbind || mutant == rnic_pkg::MUTANT_NO_BIND_LMR_CHECK) bs <= B_COMMIT;
          else                                                        bs <= B_LMR;
        end
        B_LMR:      bs <= B_LMR_WAIT;
        B_LMR_WAIT: if (chk_rsp_valid) bs <= granted ? B_COMMIT : B_IDLE;
        B_COMMIT:   bs <= B_DONE;
        B_DONE:     bs <= bind_done ? B_IDLE : B_COMMIT;
        default:    bs <= B_IDLE;
      endcase
    end
  end

`ifndef SYNTHESIS
  // A commit only ever follows a granted check of the window and (unless it
  // unbinds) of the region, and gives the window a key other than its own.
  logic sva_win_ok, sva_lmr_ok;
  always_ff @(posedge clk) begin
    if (!rst_n || bs == B_IDLE) begin
      sva_win_ok <= 1'b0;
      sva_lmr_ok <= 1'b0;
    end else begin
      if (bs == B_WIN_WAIT && chk_rsp_valid) sva_win_ok <= granted;
      if (bs == B_LMR_WAIT && chk_rsp_valid) sva_lmr_ok <= granted;
    end
    if (rst_n && bind_valid) begin
      a_bind_win: assert (sva_win_ok) else $error("BIND committed without a granted window check");
      if (!unbind && mutant != rnic_pkg::MUTANT_NO_BIND_LMR_CHECK)
        a_bind_lmr: assert (sva_lmr_ok) else $error("BIND committed without a granted region check");
      if (mutant != rnic_pkg::MUTANT_NO_BIND_KEY_CHANGE)
        a_bind_new_key: assert (bind_key != win.key) else $error("BIND committed the window's old key");
    end
    if (rst_n && bs != B_IDLE)
      a_bind_no_restart: assert (!start) else $error("BIND started while another was under way");
  end
`endif
endmodule
