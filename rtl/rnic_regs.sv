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
  output logic [4:0]  mutant,

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
  output rnic_pkg::reg_qp_timers_t qp_timers,
  output logic [3:0]  qp_log_mtu,      // QP_PATH.PATH_MTU as log2 bytes
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
  input  logic [15:0] ev_queue,
  input  logic        ev_rx_drop,
  input  logic [NUM_CQ-1:0] intr_set,
  output logic        irq,

  // Nothing of this block's own is under way: no command or doorbell pulse,
  // no PT command waiting for the table, no soft reset, no read response.
  output logic        idle
);
  localparam int unsigned QW = $clog2(NUM_QP);
  localparam int unsigned CQB = 32 * rnic_pkg::CQ_WORDS;   // bits of a bit-per-CQ register array
  localparam int unsigned CQW = $clog2(NUM_CQ);

  // Decode -------------------------------------------------------------
  // rnic_reg_decode is generated from rtl/spec/rnic.toml (gen_spec.py): it
  // knows every offset, field and reset value, decodes the access, answers
  // reads, and keeps the registers software writes. What is left here is
  // what the hardware does with them: commands, doorbells, errors, counters.
  // reg2hw, access and hw2reg are its ports seen as rnic_pkg::reg2hw_t (the
  // stored values), reg_access_t (this cycle's access: strobes, the bits a
  // command writes) and hw2reg_t (Yosys 0.23 takes no struct port, hence the
  // flat vectors). Stored values apart from the access keep everything that
  // reads a register off the BAR request's lines: a simulator then
  // evaluates that logic once a cycle, not again at each input change.
  logic [rnic_pkg::REG2HW_BITS-1:0] reg2hw_bits;
  logic [rnic_pkg::REG_ACCESS_BITS-1:0] access_bits;
  logic [rnic_pkg::HW2REG_BITS-1:0] hw2reg_bits;
  // Not every register bit drives the hardware: QP_RINGS 31:24, PT_INDEX
  // 31:24 and the like only read back.
  /* verilator lint_off UNUSEDSIGNAL */
  rnic_pkg::reg2hw_t reg2hw;
  rnic_pkg::reg_access_t access;
  /* verilator lint_on UNUSEDSIGNAL */
  rnic_pkg::hw2reg_t hw2reg;
  logic        known;      // the offset names a register
  logic [31:0] rdata;      // what a read of it returns
  assign reg2hw      = reg2hw_bits;
  assign access      = access_bits;
  assign hw2reg_bits = hw2reg;

  rnic_reg_decode #(.NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ)) u_decode (
    .clk, .rst_n, .clear(soft_reset),
    .req_valid(bar_req_valid), .req_write(bar_req_write), .req_addr(bar_req_addr),
    .req_wdata(bar_req_wdata),
    .reg2hw(reg2hw_bits), .access(access_bits), .hw2reg(hw2reg_bits), .known, .rdata);

  // State of this block's own -------------------------------------------
  logic        pt_busy;    // a PT command is on its way to the table
  logic [31:0] err_addr, rx_drops, cycle_hi_latch;
  logic [31:0] time_lo, time_hi;   // time_now as CYCLE_LO reads it and CYCLE_HI latches it
  // Outside a mutant build the register exists but drives nothing.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [4:0]  mutant_r;
  /* verilator lint_on UNUSEDSIGNAL */
  logic        cq_cfg_ok, qp_cfg_ok;

  // Staging registers, by field, to the table and the engine. A register
  // that stages one narrower number (PT_INDEX, QP_PZ, QP_REMOTE, the PSNs,
  // the selects) keeps and reads back all 32 bits; the port takes what it
  // is wide enough for. The selects and CQ_LOG_SIZE are range-checked in
  // full (cq_cfg_ok, qp_cfg_ok) before a command uses them.
  assign pt_index  = 24'(reg2hw.pt_index);
  assign pt_key    = reg2hw.pt_key_pz.key;
  assign pt_pz     = reg2hw.pt_key_pz.pz;
  assign pt_base   = {reg2hw.pt_base_hi, reg2hw.pt_base_lo};
  assign pt_len    = {reg2hw.pt_len_hi, reg2hw.pt_len_lo};
  assign pt_rights = reg2hw.pt_flags.rights;
  assign pt_type   = reg2hw.pt_flags.type_;
  assign pt_state  = reg2hw.pt_flags.state;
  assign pt_link   = reg2hw.pt_link;
  assign cq_sel    = CQW'(reg2hw.cq_sel);
  assign cq_base   = {reg2hw.cq_base_hi, reg2hw.cq_base_lo};
  assign cq_log    = 4'(reg2hw.cq_log_size);
  assign qp_sel    = QW'(reg2hw.qp_sel);
  assign qp_sq_base = {reg2hw.qp_sq_base_hi, reg2hw.qp_sq_base_lo};
  assign qp_rq_base = {reg2hw.qp_rq_base_hi, reg2hw.qp_rq_base_lo};
  assign qp_sq_log = reg2hw.qp_rings.sq_log;
  assign qp_rq_log = reg2hw.qp_rings.rq_log;
  assign qp_scq    = CQW'(reg2hw.qp_rings.scq);
  assign qp_rcq    = CQW'(reg2hw.qp_rings.rcq);
  assign qp_pz     = 16'(reg2hw.qp_pz);
  assign qp_remote_qpn = 24'(reg2hw.qp_remote);
  assign qp_remote_ip  = reg2hw.qp_remote_ipv4;
  assign qp_remote_mac = {reg2hw.qp_remote_mac_hi, reg2hw.qp_remote_mac_lo};
  assign qp_sq_psn = 24'(reg2hw.qp_sq_psn);
  assign qp_rq_psn = 24'(reg2hw.qp_rq_psn);
  assign qp_flags  = 8'(reg2hw.qp_flags);
  assign qp_timers = reg2hw.qp_timers;
  assign qp_log_mtu = rnic_pkg::path_log_mtu(reg2hw.qp_path.path_mtu);
  assign enable    = reg2hw.ctrl.enable;
  assign mac       = {reg2hw.mac_hi, reg2hw.mac_lo};
  assign ipv4      = reg2hw.ipv4;
  assign irq       = reg2hw.intr_status != '0;
  assign {time_hi, time_lo} = time_now;
`ifdef RNIC_MUTANTS
  assign mutant    = mutant_r;
`elsif RNIC_MUTANT_CONST
  // A synthesis that measures what one rule's logic costs (rtl/synth/
  // rule_costs.py) makes the rule's switch a constant, so the logic that
  // only that rule needs is optimized away.
  assign mutant    = 5'(`RNIC_MUTANT_CONST);
`else
  assign mutant    = '0;
`endif

  // The selected CQ or QP and what is staged for it: a command for
  // anything else is refused (STATUS.BAD_CONFIG) and goes nowhere.
  always_comb begin
    cq_cfg_ok = reg2hw.cq_sel < 32'(NUM_CQ) && reg2hw.cq_log_size >= 32'd1 &&
                reg2hw.cq_log_size <= 32'(rnic_pkg::MAX_LOG_RING);
    qp_cfg_ok = reg2hw.qp_sel < 32'(NUM_QP) && reg2hw.qp_rings.sq_log >= 4'd1 && reg2hw.qp_rings.rq_log >= 4'd1 &&
                32'(reg2hw.qp_rings.scq) < 32'(NUM_CQ) && 32'(reg2hw.qp_rings.rcq) < 32'(NUM_CQ) &&
                32'(reg2hw.qp_path.path_mtu) <= 32'($clog2(rnic_pkg::MTU) - 7);
  end

  // To the decode: what reads return, the bits STATUS and INTR_STATUS
  // latch, and the table's answer to PT_CMD_READ into the staging registers.
  logic pt_load;
  assign pt_load = pt_done && !pt_err && pt_cmd == rnic_pkg::PT_CMD_READ;
  always_comb begin
    hw2reg = '0;
    hw2reg.status_set.bad_reg      = bar_req_valid && !known;
    hw2reg.status_set.dma_fault    = ev_dma_fault;
    hw2reg.status_set.bad_doorbell = ev_bad_doorbell;
    hw2reg.status_set.bad_config   = (access.cq_cmd_qe && !cq_cfg_ok) || (access.qp_cmd_qe && !qp_cfg_ok) ||
                                     (pt_done && pt_err);
    hw2reg.status_set.rx_drop      = ev_rx_drop;
    hw2reg.status_set.cq_overflow  = ev_cq_overflow;
    hw2reg.intr_status_set         = CQB'(intr_set);
    hw2reg.cq_overflowed_set       = ev_cq_overflow ? CQB'(1) << ev_queue : '0;
    hw2reg.err_addr   = err_addr;
    hw2reg.cycle_lo   = time_lo;
    hw2reg.cycle_hi   = cycle_hi_latch;
    hw2reg.rx_drops   = rx_drops;
    hw2reg.mutant     = mutant;
    hw2reg.pt_cmd     = pt_busy;
    hw2reg.qp_state   = qp_state_rd;
    hw2reg.pt_key_pz_d.key = pt_r_key;
    hw2reg.pt_key_pz_d.pz  = pt_r_pz;
    {hw2reg.pt_base_hi_d, hw2reg.pt_base_lo_d} = pt_r_base;
    {hw2reg.pt_len_hi_d, hw2reg.pt_len_lo_d}   = pt_r_len;
    hw2reg.pt_flags_d.rights = pt_r_rights;
    hw2reg.pt_flags_d.type_  = pt_r_type;
    hw2reg.pt_flags_d.state  = pt_r_state;
    hw2reg.pt_link_d         = pt_r_link;
    hw2reg.pt_key_pz_de  = pt_load;
    hw2reg.pt_base_lo_de = pt_load;
    hw2reg.pt_base_hi_de = pt_load;
    hw2reg.pt_len_lo_de  = pt_load;
    hw2reg.pt_len_hi_de  = pt_load;
    hw2reg.pt_flags_de   = pt_load;
    hw2reg.pt_link_de    = pt_load;
  end

  // Sequential ---------------------------------------------------------
  // The response path ignores soft reset: a read right after a reset request answers.
  // The data loads only with a read: nothing samples it without
  // bar_rsp_valid, and a register that followed the decode (and time_now)
  // every cycle would never hold still while the NIC is idle.
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      bar_rsp_valid <= 1'b0;
      bar_rsp_rdata <= '0;
    end else begin
      bar_rsp_valid <= bar_req_valid && !bar_req_write;
      if (bar_req_valid && !bar_req_write) bar_rsp_rdata <= rdata;
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
      soft_reset     <= 1'b0;
      err_addr       <= '0;
      rx_drops       <= '0;
      cycle_hi_latch <= '0;
      mutant_r       <= '0;
      pt_valid <= 1'b0; pt_cmd <= '0; pt_busy <= 1'b0;
      cq_cmd_valid <= 1'b0; cq_cmd <= '0;
      qp_cmd_valid <= 1'b0; qp_cmd <= '0;
      db_valid <= 1'b0; db_kind <= '0; db_index <= '0; db_value <= '0;
    end else begin
      if (access.cycle_lo_re) cycle_hi_latch <= time_hi;
      pt_valid     <= 1'b0;
      cq_cmd_valid <= 1'b0;
      qp_cmd_valid <= 1'b0;
      db_valid     <= 1'b0;

      // First error wins ERR_ADDR; later ones only set their STATUS bit.
      // A BAD_CONFIG names CQ_SEL when the bus shows the CQ_CMD offset (the
      // address alone decides, valid or not, as it always has), else QP_SEL,
      // a refused PT command included.
      if (reg2hw.status == '0 && hw2reg.status_set != '0) begin
        if (hw2reg.status_set.bad_reg)         err_addr <= 32'(bar_req_addr);
        else if (hw2reg.status_set.dma_fault)  err_addr <= ev_dma_addr;
        else if (hw2reg.status_set.bad_config) err_addr <= access.hit.cq_cmd ? reg2hw.cq_sel : reg2hw.qp_sel;
        else                                   err_addr <= 32'(ev_queue);
      end
      if (ev_rx_drop) rx_drops <= rx_drops + 32'd1;

      // The table answers every command one cycle after it.
      if (pt_done) pt_busy <= 1'b0;

      // Commands and doorbells: the decode says which was written and
      // with what; the pulse goes out the next cycle.
      if (access.ctrl_qe) soft_reset <= access.ctrl_wr.soft_reset;
      if (access.mutant_qe) mutant_r <= access.mutant;
      if (access.pt_cmd_qe) begin
        pt_valid <= 1'b1;
        pt_busy  <= 1'b1;
        pt_cmd   <= access.pt_cmd;
      end
      if (access.cq_cmd_qe) begin
        cq_cmd_valid <= cq_cfg_ok;
        cq_cmd       <= access.cq_cmd;
      end
      if (access.qp_cmd_qe) begin
        qp_cmd_valid <= qp_cfg_ok;
        qp_cmd       <= access.qp_cmd;
      end
      // Doorbell kinds as the engine numbers them: 0 send, 1 receive, 2 CQ.
      if (access.db_sq_qe || access.db_rq_qe) begin
        db_valid <= 1'b1;
        db_kind  <= access.db_sq_qe ? 2'd0 : 2'd1;
        db_index <= QW'(access.db_sq_qe ? access.db_sq_idx : access.db_rq_idx);
        db_value <= access.db_sq_qe ? access.db_sq : access.db_rq;
      end else if (access.db_cq_qe) begin
        db_valid <= 1'b1;
        db_kind  <= 2'd2;
        db_index <= QW'(access.db_cq_idx);
        db_value <= access.db_cq;
      end
    end
  end
endmodule
