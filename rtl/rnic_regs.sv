// BAR0: decodes register accesses, keeps the staging registers that
// software fills before a command, and turns command and doorbell writes
// into one-cycle pulses for the protection table and the engine. Errors
// from anywhere in the NIC are latched here (STATUS, ERR_ADDR) so software
// has one place to look. CYCLE_LO/HI show the platform's time base
// (time_now), not a counter of this block's own: a platform that skips idle
// cycles without clocking the NIC still has them counted.
module rnic_regs #(
  parameter int unsigned NUM_QP = rnic_pkg::NUM_QP,
  parameter int unsigned NUM_CQ = rnic_pkg::NUM_CQ
) (
  input  logic        clk,
  input  logic        rst_n,
  input  logic [63:0] time_now,        // the platform's time base, in clock cycles

  input  logic        bar_req_valid,
  input  logic        bar_req_write,
  input  logic [15:0] bar_req_addr,
  input  logic [31:0] bar_req_wdata,
  output logic        bar_rsp_valid,
  output logic [31:0] bar_rsp_rdata,

  output logic        soft_reset,
  output logic        enable,
  output logic [47:0] mac,
  output logic [31:0] ipv4,
  output logic [3:0]  mutant,

  // protection-table management
  output logic        pt_valid,
  output logic [1:0]  pt_cmd,
  output logic [23:0] pt_index,
  output logic [7:0]  pt_key,
  output logic [15:0] pt_pz,
  output logic [63:0] pt_base,
  output logic [63:0] pt_len,
  output logic [3:0]  pt_rights,
  output logic [1:0]  pt_type,
  output logic [1:0]  pt_state,
  output logic [31:0] pt_link,
  input  logic        pt_done,
  input  logic        pt_err,
  input  logic [7:0]  pt_r_key,
  input  logic [15:0] pt_r_pz,
  input  logic [63:0] pt_r_base,
  input  logic [63:0] pt_r_len,
  input  logic [3:0]  pt_r_rights,
  input  logic [1:0]  pt_r_type,
  input  logic [1:0]  pt_r_state,
  input  logic [31:0] pt_r_link,

  // completion-queue commands
  output logic        cq_cmd_valid,
  output logic [1:0]  cq_cmd,
  output logic [$clog2(NUM_CQ)-1:0] cq_sel,
  output logic [63:0] cq_base,
  output logic [3:0]  cq_log,

  // queue-pair commands
  output logic        qp_cmd_valid,
  output logic [2:0]  qp_cmd,
  output logic [$clog2(NUM_QP)-1:0] qp_sel,
  output logic [63:0] qp_sq_base,
  output logic [63:0] qp_rq_base,
  output logic [3:0]  qp_sq_log,
  output logic [3:0]  qp_rq_log,
  output logic [$clog2(NUM_CQ)-1:0] qp_scq,
  output logic [$clog2(NUM_CQ)-1:0] qp_rcq,
  output logic [15:0] qp_pz,
  output logic [23:0] qp_remote_qpn,
  output logic [31:0] qp_remote_ip,
  output logic [47:0] qp_remote_mac,
  output logic [23:0] qp_sq_psn,
  output logic [23:0] qp_rq_psn,
  output logic [7:0]  qp_flags,
  input  logic [15:0] qp_state_rd,     // state (7:0) and error status (15:8) of qp_sel

  // doorbells: kind 0 = send, 1 = receive, 2 = CQ consumer
  output logic        db_valid,
  output logic [1:0]  db_kind,
  output logic [$clog2(NUM_QP)-1:0] db_index,
  output logic [15:0] db_value,

  // error and interrupt sources
  input  logic        ev_dma_fault,
  input  logic [31:0] ev_dma_addr,
  input  logic        ev_bad_doorbell,
  input  logic        ev_cq_overflow,
  input  logic [7:0]  ev_queue,
  input  logic        ev_rx_drop,
  input  logic [NUM_CQ-1:0] intr_set,
  output logic        irq,

  // Nothing of this block's own is under way: no command or doorbell pulse,
  // no PT command waiting for the table, no soft reset, no read response.
  output logic        idle
);
  localparam int unsigned QW = $clog2(NUM_QP);
  localparam int unsigned CQW = $clog2(NUM_CQ);

  logic [31:0] status, err_addr, rx_drops, intr_status;
  logic [31:0] cycle_hi_latch;

  // Decode --------------------------------------------------------------
  logic        wr, rd;
  logic [15:0] a;
  logic        is_db_sq, is_db_rq, is_db_cq, known;
  // Only the low bits of a doorbell's offset say which queue it is for.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [15:0] db_off;
  /* verilator lint_on UNUSEDSIGNAL */
  assign wr = bar_req_valid && bar_req_write;
  assign rd = bar_req_valid && !bar_req_write;
  assign a  = bar_req_addr;

  always_comb begin
    db_off   = a - rnic_pkg::REG_DB_SQ;
    is_db_sq = a >= rnic_pkg::REG_DB_SQ && a < rnic_pkg::REG_DB_SQ + 16'(8 * NUM_QP) && db_off[2:0] == 3'd0;
    is_db_rq = a >= rnic_pkg::REG_DB_SQ && a < rnic_pkg::REG_DB_SQ + 16'(8 * NUM_QP) && db_off[2:0] == 3'd4;
    is_db_cq = a >= rnic_pkg::REG_DB_CQ && a < rnic_pkg::REG_DB_CQ + 16'(4 * NUM_CQ) && a[1:0] == 2'd0;
    unique case (a)
      rnic_pkg::REG_ID, rnic_pkg::REG_VERSION, rnic_pkg::REG_CAP_QUEUES, rnic_pkg::REG_CAP_TABLE,
      rnic_pkg::REG_CTRL, rnic_pkg::REG_STATUS, rnic_pkg::REG_ERR_ADDR, rnic_pkg::REG_CYCLE_LO,
      rnic_pkg::REG_CYCLE_HI, rnic_pkg::REG_RX_DROPS, rnic_pkg::REG_MUTANT, rnic_pkg::REG_MAC_LO,
      rnic_pkg::REG_MAC_HI, rnic_pkg::REG_IPV4, rnic_pkg::REG_INTR_STATUS,
      rnic_pkg::REG_PT_INDEX, rnic_pkg::REG_PT_KEY_PZ, rnic_pkg::REG_PT_BASE_LO, rnic_pkg::REG_PT_BASE_HI,
      rnic_pkg::REG_PT_LEN_LO, rnic_pkg::REG_PT_LEN_HI, rnic_pkg::REG_PT_FLAGS, rnic_pkg::REG_PT_CMD,
      rnic_pkg::REG_PT_LINK,
      rnic_pkg::REG_CQ_SEL, rnic_pkg::REG_CQ_BASE_LO, rnic_pkg::REG_CQ_BASE_HI, rnic_pkg::REG_CQ_LOG_SIZE,
      rnic_pkg::REG_CQ_CMD, rnic_pkg::REG_QP_SEL, rnic_pkg::REG_QP_SQ_BASE_LO, rnic_pkg::REG_QP_SQ_BASE_HI,
      rnic_pkg::REG_QP_RQ_BASE_LO, rnic_pkg::REG_QP_RQ_BASE_HI, rnic_pkg::REG_QP_RINGS, rnic_pkg::REG_QP_PZ,
      rnic_pkg::REG_QP_REMOTE, rnic_pkg::REG_QP_REMOTE_IPV4, rnic_pkg::REG_QP_REMOTE_MAC_LO,
      rnic_pkg::REG_QP_REMOTE_MAC_HI, rnic_pkg::REG_QP_SQ_PSN, rnic_pkg::REG_QP_RQ_PSN,
      rnic_pkg::REG_QP_STATE, rnic_pkg::REG_QP_CMD, rnic_pkg::REG_QP_FLAGS: known = 1'b1;
      default: known = is_db_sq || is_db_rq || is_db_cq;
    endcase
  end

  // Staging registers ----------------------------------------------------
  logic [7:0]  pt_flags;
  logic        pt_busy;    // a PT command is on its way to the table
  logic [31:0] pt_index_r, pt_key_pz, pt_link_r, cq_sel_r, cq_log_r, qp_sel_r, qp_rings, qp_pz_r;
  logic [31:0] qp_remote, qp_sq_psn_r, qp_rq_psn_r, qp_flags_r, mac_lo, mac_hi;
  // Outside a mutant build the register exists but drives nothing.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] mutant_r;
  /* verilator lint_on UNUSEDSIGNAL */
  logic        cq_cfg_ok, qp_cfg_ok;

  assign pt_index  = pt_index_r[23:0];
  assign pt_key    = pt_key_pz[7:0];
  assign pt_pz     = pt_key_pz[23:8];
  assign pt_rights = pt_flags[3:0];
  assign pt_type   = pt_flags[5:4];
  assign pt_state  = pt_flags[7:6];
  assign pt_link   = pt_link_r;
  assign cq_sel    = cq_sel_r[CQW-1:0];
  assign cq_log    = cq_log_r[3:0];
  assign qp_sel    = qp_sel_r[QW-1:0];
  assign qp_sq_log = qp_rings[3:0];
  assign qp_rq_log = qp_rings[7:4];
  assign qp_scq    = qp_rings[8 +: CQW];
  assign qp_rcq    = qp_rings[16 +: CQW];
  assign qp_pz     = qp_pz_r[15:0];
  assign qp_remote_qpn = qp_remote[23:0];
  assign qp_sq_psn = qp_sq_psn_r[23:0];
  assign qp_rq_psn = qp_rq_psn_r[23:0];
  assign qp_flags  = qp_flags_r[7:0];
  assign mac       = {mac_hi[15:0], mac_lo};
  assign irq       = intr_status != 32'd0;
`ifdef RNIC_MUTANTS
  assign mutant    = mutant_r[3:0];
`else
  assign mutant    = 4'd0;
`endif

  always_comb begin
    cq_cfg_ok = cq_sel_r < 32'(NUM_CQ) && cq_log_r >= 32'd1 && cq_log_r <= 32'(rnic_pkg::MAX_LOG_RING);
    qp_cfg_ok = qp_sel_r < 32'(NUM_QP) && qp_rings[3:0] >= 4'd1 && qp_rings[7:4] >= 4'd1 &&
                32'(qp_rings[15:8]) < 32'(NUM_CQ) && 32'(qp_rings[23:16]) < 32'(NUM_CQ);
  end

  // Read mux -----------------------------------------------------------
  logic [31:0] rdata;
  always_comb begin
    unique case (a)
      rnic_pkg::REG_ID:          rdata = 32'(rnic_pkg::DEVICE_ID);
      rnic_pkg::REG_VERSION:     rdata = 32'(rnic_pkg::VERSION);
      rnic_pkg::REG_CAP_QUEUES:  rdata = {16'(NUM_CQ), 16'(NUM_QP)};
      rnic_pkg::REG_CAP_TABLE:   rdata = {4'(rnic_pkg::MAX_RD_ATOMIC), 4'($clog2(rnic_pkg::MTU)),
                                          4'(rnic_pkg::MAX_SGE), 4'(rnic_pkg::DATA_BYTES),
                                          16'(rnic_pkg::PT_ENTRIES)};
      rnic_pkg::REG_CTRL:        rdata = {30'd0, enable, 1'b0};
      rnic_pkg::REG_STATUS:      rdata = status;
      rnic_pkg::REG_ERR_ADDR:    rdata = err_addr;
      rnic_pkg::REG_CYCLE_LO:    rdata = time_now[31:0];
      rnic_pkg::REG_CYCLE_HI:    rdata = cycle_hi_latch;
      rnic_pkg::REG_RX_DROPS:    rdata = rx_drops;
      rnic_pkg::REG_MUTANT:      rdata = {28'd0, mutant};
      rnic_pkg::REG_MAC_LO:      rdata = mac_lo;
      rnic_pkg::REG_MAC_HI:      rdata = mac_hi;
      rnic_pkg::REG_IPV4:        rdata = ipv4;
      rnic_pkg::REG_INTR_STATUS: rdata = intr_status;
      rnic_pkg::REG_PT_INDEX:    rdata = pt_index_r;
      rnic_pkg::REG_PT_KEY_PZ:   rdata = pt_key_pz;
      rnic_pkg::REG_PT_BASE_LO:  rdata = pt_base[31:0];
      rnic_pkg::REG_PT_BASE_HI:  rdata = pt_base[63:32];
      rnic_pkg::REG_PT_LEN_LO:   rdata = pt_len[31:0];
      rnic_pkg::REG_PT_LEN_HI:   rdata = pt_len[63:32];
      rnic_pkg::REG_PT_FLAGS:    rdata = 32'(pt_flags);
      rnic_pkg::REG_PT_LINK:     rdata = pt_link_r;
      rnic_pkg::REG_PT_CMD:      rdata = {31'd0, pt_busy};
      rnic_pkg::REG_CQ_SEL:      rdata = cq_sel_r;
      rnic_pkg::REG_CQ_BASE_LO:  rdata = cq_base[31:0];
      rnic_pkg::REG_CQ_BASE_HI:  rdata = cq_base[63:32];
      rnic_pkg::REG_CQ_LOG_SIZE: rdata = cq_log_r;
      rnic_pkg::REG_QP_SEL:      rdata = qp_sel_r;
      rnic_pkg::REG_QP_SQ_BASE_LO: rdata = qp_sq_base[31:0];
      rnic_pkg::REG_QP_SQ_BASE_HI: rdata = qp_sq_base[63:32];
      rnic_pkg::REG_QP_RQ_BASE_LO: rdata = qp_rq_base[31:0];
      rnic_pkg::REG_QP_RQ_BASE_HI: rdata = qp_rq_base[63:32];
      rnic_pkg::REG_QP_RINGS:    rdata = qp_rings;
      rnic_pkg::REG_QP_PZ:       rdata = qp_pz_r;
      rnic_pkg::REG_QP_REMOTE:   rdata = qp_remote;
      rnic_pkg::REG_QP_REMOTE_IPV4: rdata = qp_remote_ip;
      rnic_pkg::REG_QP_REMOTE_MAC_LO: rdata = qp_remote_mac[31:0];
      rnic_pkg::REG_QP_REMOTE_MAC_HI: rdata = {16'd0, qp_remote_mac[47:32]};
      rnic_pkg::REG_QP_SQ_PSN:   rdata = qp_sq_psn_r;
      rnic_pkg::REG_QP_RQ_PSN:   rdata = qp_rq_psn_r;
      rnic_pkg::REG_QP_STATE:    rdata = {16'd0, qp_state_rd};
      rnic_pkg::REG_QP_FLAGS:    rdata = qp_flags_r;
      default:                   rdata = 32'd0;
    endcase
  end

  // Sequential ---------------------------------------------------------
  logic [31:0] status_set;
  always_comb begin
    status_set = '0;
    status_set[0] = bar_req_valid && !known;
    status_set[1] = ev_dma_fault;
    status_set[2] = ev_bad_doorbell;
    status_set[3] = (wr && a == rnic_pkg::REG_CQ_CMD && !cq_cfg_ok) ||
                    (wr && a == rnic_pkg::REG_QP_CMD && !qp_cfg_ok) ||
                    (pt_done && pt_err);
    status_set[4] = ev_rx_drop;
    status_set[5] = ev_cq_overflow;
  end

  // The response path ignores soft reset: a read right after a reset request answers.
  // The data loads only with a read: nothing samples it without
  // bar_rsp_valid, and a register that followed the decode (and time_now)
  // every cycle would never hold still while the NIC is idle.
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      bar_rsp_valid <= 1'b0;
      bar_rsp_rdata <= '0;
    end else begin
      bar_rsp_valid <= rd;
      if (rd) bar_rsp_rdata <= known ? rdata : 32'd0;
    end
  end

  // Every pulse above lasts one cycle and is then cleared by this block
  // itself, a PT command waits for the table's answer (pt_busy), and a
  // soft reset clears the whole core the cycle after it was written: each
  // is a change that comes without a new BAR access, so none may be under
  // way. The rest (staging registers, STATUS, INTR_STATUS, RX_DROPS) only
  // moves on a BAR access or on a pulse from a block whose own idle covers it.
  assign idle = !pt_valid && !cq_cmd_valid && !qp_cmd_valid && !db_valid && !pt_busy &&
                !soft_reset && !bar_rsp_valid;

  always_ff @(posedge clk) begin
    if (!rst_n || soft_reset) begin
      soft_reset    <= 1'b0;
      enable        <= 1'b1;
      status        <= '0;
      err_addr      <= '0;
      rx_drops      <= '0;
      intr_status   <= '0;
      cycle_hi_latch <= '0;
      ipv4 <= '0; mac_lo <= '0; mac_hi <= '0; mutant_r <= '0;
      pt_index_r <= '0; pt_key_pz <= '0; pt_base <= '0; pt_len <= '0; pt_flags <= '0; pt_link_r <= '0;
      cq_sel_r <= '0; cq_base <= '0; cq_log_r <= '0;
      qp_sel_r <= '0; qp_sq_base <= '0; qp_rq_base <= '0; qp_rings <= '0; qp_pz_r <= '0;
      qp_remote <= '0; qp_remote_ip <= '0; qp_remote_mac <= '0; qp_sq_psn_r <= '0;
      qp_rq_psn_r <= '0; qp_flags_r <= '0;
      pt_valid <= 1'b0; pt_cmd <= '0; pt_busy <= 1'b0;
      cq_cmd_valid <= 1'b0; cq_cmd <= '0;
      qp_cmd_valid <= 1'b0; qp_cmd <= '0;
      db_valid <= 1'b0; db_kind <= '0; db_index <= '0; db_value <= '0;
    end else begin
      if (rd && a == rnic_pkg::REG_CYCLE_LO) cycle_hi_latch <= time_now[63:32];
      pt_valid     <= 1'b0;
      cq_cmd_valid <= 1'b0;
      qp_cmd_valid <= 1'b0;
      db_valid     <= 1'b0;

      // First error wins ERR_ADDR; later ones only set their STATUS bit.
      if (status == 32'd0 && status_set != 32'd0) begin
        if (status_set[0])      err_addr <= {16'd0, a};
        else if (status_set[1]) err_addr <= ev_dma_addr;
        else if (status_set[3]) err_addr <= (a == rnic_pkg::REG_CQ_CMD) ? cq_sel_r : qp_sel_r;
        else                    err_addr <= {24'd0, ev_queue};
      end
      status      <= (status | status_set) & ~((wr && a == rnic_pkg::REG_STATUS) ? bar_req_wdata : 32'd0);
      intr_status <= (intr_status | 32'(intr_set)) &
                     ~((wr && a == rnic_pkg::REG_INTR_STATUS) ? bar_req_wdata : 32'd0);
      if (ev_rx_drop) rx_drops <= rx_drops + 32'd1;

      // The table answers every command one cycle after it.
      if (pt_done) pt_busy <= 1'b0;
      if (pt_done && !pt_err && pt_cmd == rnic_pkg::PT_CMD_READ) begin
        pt_key_pz <= {8'd0, pt_r_pz, pt_r_key};
        pt_base   <= pt_r_base;
        pt_len    <= pt_r_len;
        pt_flags  <= {pt_r_state, pt_r_type, pt_r_rights};
        pt_link_r <= pt_r_link;
      end

      if (wr) begin
        unique case (a)
          rnic_pkg::REG_CTRL: begin
            soft_reset <= bar_req_wdata[0];
            enable     <= bar_req_wdata[1];
          end
          rnic_pkg::REG_MUTANT:      mutant_r <= bar_req_wdata;
          rnic_pkg::REG_MAC_LO:      mac_lo <= bar_req_wdata;
          rnic_pkg::REG_MAC_HI:      mac_hi <= {16'd0, bar_req_wdata[15:0]};
          rnic_pkg::REG_IPV4:        ipv4 <= bar_req_wdata;
          rnic_pkg::REG_PT_INDEX:    pt_index_r <= bar_req_wdata;
          rnic_pkg::REG_PT_KEY_PZ:   pt_key_pz <= bar_req_wdata;
          rnic_pkg::REG_PT_BASE_LO:  pt_base[31:0] <= bar_req_wdata;
          rnic_pkg::REG_PT_BASE_HI:  pt_base[63:32] <= bar_req_wdata;
          rnic_pkg::REG_PT_LEN_LO:   pt_len[31:0] <= bar_req_wdata;
          rnic_pkg::REG_PT_LEN_HI:   pt_len[63:32] <= bar_req_wdata;
          rnic_pkg::REG_PT_FLAGS:    pt_flags <= bar_req_wdata[7:0];
          rnic_pkg::REG_PT_LINK:     pt_link_r <= bar_req_wdata;
          rnic_pkg::REG_PT_CMD: begin
            pt_valid <= 1'b1;
            pt_busy  <= 1'b1;
            pt_cmd   <= bar_req_wdata[1:0];
          end
          rnic_pkg::REG_CQ_SEL:      cq_sel_r <= bar_req_wdata;
          rnic_pkg::REG_CQ_BASE_LO:  cq_base[31:0] <= bar_req_wdata;
          rnic_pkg::REG_CQ_BASE_HI:  cq_base[63:32] <= bar_req_wdata;
          rnic_pkg::REG_CQ_LOG_SIZE: cq_log_r <= bar_req_wdata;
          rnic_pkg::REG_CQ_CMD: begin
            cq_cmd_valid <= cq_cfg_ok;
            cq_cmd       <= bar_req_wdata[1:0];
          end
          rnic_pkg::REG_QP_SEL:        qp_sel_r <= bar_req_wdata;
          rnic_pkg::REG_QP_SQ_BASE_LO: qp_sq_base[31:0] <= bar_req_wdata;
          rnic_pkg::REG_QP_SQ_BASE_HI: qp_sq_base[63:32] <= bar_req_wdata;
          rnic_pkg::REG_QP_RQ_BASE_LO: qp_rq_base[31:0] <= bar_req_wdata;
          rnic_pkg::REG_QP_RQ_BASE_HI: qp_rq_base[63:32] <= bar_req_wdata;
          rnic_pkg::REG_QP_RINGS:      qp_rings <= bar_req_wdata;
          rnic_pkg::REG_QP_PZ:         qp_pz_r <= bar_req_wdata;
          rnic_pkg::REG_QP_REMOTE:     qp_remote <= bar_req_wdata;
          rnic_pkg::REG_QP_REMOTE_IPV4: qp_remote_ip <= bar_req_wdata;
          rnic_pkg::REG_QP_REMOTE_MAC_LO: qp_remote_mac[31:0] <= bar_req_wdata;
          rnic_pkg::REG_QP_REMOTE_MAC_HI: qp_remote_mac[47:32] <= bar_req_wdata[15:0];
          rnic_pkg::REG_QP_SQ_PSN:     qp_sq_psn_r <= bar_req_wdata;
          rnic_pkg::REG_QP_RQ_PSN:     qp_rq_psn_r <= bar_req_wdata;
          rnic_pkg::REG_QP_FLAGS:      qp_flags_r <= bar_req_wdata;
          rnic_pkg::REG_QP_CMD: begin
            qp_cmd_valid <= qp_cfg_ok;
            qp_cmd       <= bar_req_wdata[2:0];
          end
          default: begin
            if (is_db_sq || is_db_rq) begin
              db_valid <= 1'b1;
              db_kind  <= is_db_sq ? 2'd0 : 2'd1;
              db_index <= db_off[3 +: QW];
              db_value <= bar_req_wdata[15:0];
            end else if (is_db_cq) begin
              db_valid <= 1'b1;
              db_kind  <= 2'd2;
              db_index <= QW'(a[2 +: CQW]);
              db_value <= bar_req_wdata[15:0];
            end
          end
        endcase
      end
    end
  end
endmodule
