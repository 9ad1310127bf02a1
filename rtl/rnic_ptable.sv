// The protection table: memory regions (and, later, windows) by index.
// Every key the NIC uses passes through one of its two check ports: l* for
// local keys (requester SGEs, receive buffers, READ-response destinations)
// and r* for remote keys (the responder). A check reads the entry in its
// first cycle and compares in the second, so the verdict comes exactly two
// cycles after the request. Each port reads its own copy of the table, so
// both ports and the management port work in the same cycle.
module rnic_ptable #(
  parameter int unsigned ENTRIES = rnic_pkg::PT_ENTRIES
) (
  input  logic        clk,
  input  logic        rst_n,
  input  logic [3:0]  mutant,

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
  input  logic [23:0] mgmt_link,
  output logic        mgmt_done,
  output logic        mgmt_err,
  output logic [7:0]  mgmt_r_key,
  output logic [15:0] mgmt_r_pz,
  output logic [63:0] mgmt_r_base,
  output logic [63:0] mgmt_r_len,
  output logic [3:0]  mgmt_r_rights,
  output logic [1:0]  mgmt_r_type,
  output logic [1:0]  mgmt_r_state,
  output logic [23:0] mgmt_r_link,

  input  logic        lchk_valid,
  input  logic [31:0] lchk_key,
  input  logic [15:0] lchk_pz,
  input  logic [3:0]  lchk_rights,
  input  logic [63:0] lchk_addr,
  input  logic [31:0] lchk_len,
  output logic        lchk_rsp_valid,
  output logic [2:0]  lchk_verdict,
  output logic [63:0] lchk_base,

  input  logic        rchk_valid,
  input  logic [31:0] rchk_key,
  input  logic [15:0] rchk_pz,
  input  logic [3:0]  rchk_rights,
  input  logic [63:0] rchk_addr,
  input  logic [31:0] rchk_len,
  output logic        rchk_rsp_valid,
  output logic [2:0]  rchk_verdict,
  output logic [63:0] rchk_base
);
  localparam int unsigned IW = $clog2(ENTRIES);
  // Entry layout packed into one word so each copy is a single RAM.
  localparam int unsigned EW = 8 + 16 + 64 + 64 + 4 + 2 + 2 + 24;

  logic [EW-1:0] mem_meta [ENTRIES];  // read back by the management port
  logic [ENTRIES-1:0] valid_bits;     // state lives here too so reset is one cycle

  logic          idx_ok;
  logic [EW-1:0] wr_word;
  assign idx_ok  = (mgmt_index < 24'(ENTRIES));
  assign wr_word = {mgmt_key, mgmt_pz, mgmt_base, mgmt_len, mgmt_rights, mgmt_type, mgmt_state, mgmt_link};

  // ---------------------------------------------------------- management
  logic [EW-1:0] rd_word;
  logic          rd_live;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      valid_bits <= '0;
      mgmt_done  <= 1'b0;
      mgmt_err   <= 1'b0;
      rd_word    <= '0;
      rd_live    <= 1'b0;
    end else begin
      mgmt_done <= mgmt_valid;
      mgmt_err  <= mgmt_valid && (!idx_ok || mgmt_cmd == 2'd0);
      if (mgmt_valid && idx_ok) begin
        unique case (mgmt_cmd)
          rnic_pkg::PT_CMD_WRITE: begin
            mem_meta[mgmt_index[IW-1:0]] <= wr_word;
            valid_bits[mgmt_index[IW-1:0]] <= 1'b1;
          end
          rnic_pkg::PT_CMD_READ: begin
            rd_word <= mem_meta[mgmt_index[IW-1:0]];
            rd_live <= valid_bits[mgmt_index[IW-1:0]];
          end
          rnic_pkg::PT_CMD_INVALIDATE: valid_bits[mgmt_index[IW-1:0]] <= 1'b0;
          default: ;
        endcase
      end
    end
  end
  always_comb begin
    {mgmt_r_key, mgmt_r_pz, mgmt_r_base, mgmt_r_len, mgmt_r_rights, mgmt_r_type, mgmt_r_state, mgmt_r_link} = rd_word;
    if (!rd_live) mgmt_r_state = 2'(rnic_pkg::PT_STATE_INVALID);
  end

  // ---------------------------------------------------------- check ports
  logic table_wr;
  assign table_wr = rst_n && mgmt_valid && idx_ok && mgmt_cmd == rnic_pkg::PT_CMD_WRITE;
  rnic_ptable_check #(.ENTRIES(ENTRIES), .EW(EW)) u_lchk (
    .clk, .rst_n, .mutant, .wr_en(table_wr), .wr_idx(mgmt_index[IW-1:0]), .wr_word, .valid_bits,
    .req_valid(lchk_valid), .req_key(lchk_key), .req_pz(lchk_pz), .req_rights(lchk_rights),
    .req_addr(lchk_addr), .req_len(lchk_len),
    .rsp_valid(lchk_rsp_valid), .verdict(lchk_verdict), .base(lchk_base));
  rnic_ptable_check #(.ENTRIES(ENTRIES), .EW(EW)) u_rchk (
    .clk, .rst_n, .mutant, .wr_en(table_wr), .wr_idx(mgmt_index[IW-1:0]), .wr_word, .valid_bits,
    .req_valid(rchk_valid), .req_key(rchk_key), .req_pz(rchk_pz), .req_rights(rchk_rights),
    .req_addr(rchk_addr), .req_len(rchk_len),
    .rsp_valid(rchk_rsp_valid), .verdict(rchk_verdict), .base(rchk_base));
endmodule
