// The RNIC: BAR0 registers, protection table, transport engine, transmit
// framer and receive buffer. Ports are described in docs/rtl-interfaces.md.
module rnic_top #(
  parameter int unsigned NUM_QP     = rnic_pkg::NUM_QP,
  parameter int unsigned NUM_CQ     = rnic_pkg::NUM_CQ,
  parameter int unsigned PT_ENTRIES = rnic_pkg::PT_ENTRIES,
  // The datapath width is the package's: the platform and the driver read
  // the same number (CAP_TABLE.LOG_DATA_BYTES), so it is not a knob here.
  localparam int unsigned W         = rnic_pkg::DATA_BYTES
) (
  input  logic        clk,
  input  logic        rst_n,
  // The platform's time base in clk cycles, read through CYCLE_LO/HI. On a
  // board the shell drives it from a free-running counter of clk (reset or
  // not, as it likes); a simulator that skips idle cycles without clocking
  // the NIC advances it by the cycles it skipped.
  input  logic [63:0] time_now,

  input  logic        bar_req_valid,
  input  logic        bar_req_write,
  input  logic [15:0] bar_req_addr,
  input  logic [31:0] bar_req_wdata,
  output logic        bar_rsp_valid,
  output logic [31:0] bar_rsp_rdata,

  output logic        dma_rd_req_valid,
  input  logic        dma_rd_req_ready,
  output logic [63:0] dma_rd_req_addr,
  output logic [12:0] dma_rd_req_len,
  output logic [7:0]  dma_rd_req_tag,
  input  logic        dma_rd_rsp_valid,
  output logic        dma_rd_rsp_ready,
  input  logic [8*W-1:0] dma_rd_rsp_data,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [7:0]  dma_rd_rsp_tag,    // one request at a time: the tag is informational
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic        dma_rd_rsp_last,
  input  logic        dma_rd_rsp_err,

  output logic        dma_wr_valid,
  input  logic        dma_wr_ready,
  output logic [63:0] dma_wr_addr,
  output logic [12:0] dma_wr_len,
  output logic [15:0] dma_wr_tag,
  output logic [8*W-1:0] dma_wr_data,
  output logic        dma_wr_last,
  input  logic        dma_wr_cpl_valid,
  input  logic [15:0] dma_wr_cpl_tag,
  input  logic        dma_wr_cpl_err,

  output logic        tx_tvalid,
  input  logic        tx_tready,
  output logic [8*W-1:0] tx_tdata,
  output logic [W-1:0]  tx_tkeep,
  output logic        tx_tlast,
  input  logic        rx_tvalid,
  output logic        rx_tready,
  input  logic [8*W-1:0] rx_tdata,
  input  logic [W-1:0]  rx_tkeep,
  input  logic        rx_tlast,

  output logic        irq,

  output logic        trace_valid,
  output logic [7:0]  trace_event,
  output logic [15:0] trace_qpn,
  output logic [63:0] trace_arg,

  // The NIC holds no work: while the inputs stay quiet (no BAR request, no
  // rx beat, no DMA read data, no DMA write completion; time_now aside,
  // until it reaches wake_at) no output changes at the next edge and idle
  // stays high. A function of flip-flops (and rst_n) only.
  // docs/rtl-interfaces.md says what it does and does not promise.
  output logic        idle,
  // A retransmission timer is armed: at time_now == wake_at the NIC has
  // work again (a timer may be due), so a platform that skips idle cycles
  // must clock the cycle in which time_now reaches wake_at. Also a function
  // of flip-flops; it may name a time at which nothing turns out to be due.
  output logic        wake_valid,
  output logic [63:0] wake_at
);
  localparam int unsigned QW  = $clog2(NUM_QP);
  localparam int unsigned CQW = $clog2(NUM_CQ);
  localparam int unsigned RXD = (rnic_pkg::MTU + 128) / W;
  // The receive buffer keeps a frame's first words apart for the parser:
  // enough of them for the longest header it reads (rnic_hdr_parse).
  localparam int unsigned HDR_WORDS = (rnic_pkg::RX_HDR_BYTES + W - 1) / W;

  // Soft reset resets everything but the register block's own response path.
  // Combinational from rst_n (both resets are synchronous): the core is in
  // reset from the very first edge of rst_n, whatever its power-up state.
  logic soft_reset, core_rst_n;
  assign core_rst_n = rst_n && !soft_reset;

  logic        enable;
  logic [47:0] mac;
  logic [31:0] ipv4;
  logic [4:0]  mutant;

  logic        pt_valid, pt_done, pt_err;
  logic [1:0]  pt_cmd, pt_type, pt_state, pt_r_type, pt_r_state;
  logic [23:0] pt_index;
  logic [31:0] pt_link, pt_r_link;
  logic [7:0]  pt_key, pt_r_key;
  logic [15:0] pt_pz, pt_r_pz;
  logic [63:0] pt_base, pt_len, pt_r_base, pt_r_len;
  logic [3:0]  pt_rights, pt_r_rights;

  logic        cq_cmd_valid;
  logic [1:0]  cq_cmd;
  logic [CQW-1:0] cq_sel;
  logic [63:0] cq_base;
  logic [3:0]  cq_log;

  logic        qp_cmd_valid;
  logic [2:0]  qp_cmd;
  logic [QW-1:0] qp_sel;
  logic [63:0] qp_sq_base, qp_rq_base;
  logic [3:0]  qp_sq_log, qp_rq_log;
  logic [CQW-1:0] qp_scq, qp_rcq;
  logic [15:0] qp_pz, qp_state_rd;
  logic [23:0] qp_remote_qpn, qp_sq_psn, qp_rq_psn;
  logic [31:0] qp_remote_ip;
  logic [47:0] qp_remote_mac;
  logic [7:0]  qp_flags;
  rnic_pkg::reg_qp_timers_t qp_timers;
  logic [3:0]  qp_log_mtu;

  logic        db_valid;
  logic [1:0]  db_kind;
  logic [QW-1:0] db_index;
  logic [15:0] db_value;

  logic        ev_dma_fault, ev_bad_doorbell, ev_cq_overflow, ev_rx_drop, eng_rx_drop, buf_rx_drop;
  logic [31:0] ev_dma_addr;
  logic [15:0] ev_queue;
  logic [NUM_CQ-1:0] intr_set;
  assign ev_rx_drop = eng_rx_drop || buf_rx_drop;

  logic regs_idle, pt_idle, eng_idle, tx_idle, rx_idle;

  rnic_regs #(.NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ)) u_regs (
    .clk, .rst_n, .time_now, .bar_req_valid, .bar_req_write, .bar_req_addr, .bar_req_wdata,
    .bar_rsp_valid, .bar_rsp_rdata, .soft_reset, .enable, .mac, .ipv4, .mutant,
    .pt_valid, .pt_cmd, .pt_index, .pt_key, .pt_pz, .pt_base, .pt_len, .pt_rights, .pt_type,
    .pt_state, .pt_link, .pt_done, .pt_err, .pt_r_key, .pt_r_pz, .pt_r_base, .pt_r_len,
    .pt_r_rights, .pt_r_type, .pt_r_state, .pt_r_link,
    .cq_cmd_valid, .cq_cmd, .cq_sel, .cq_base, .cq_log,
    .qp_cmd_valid, .qp_cmd, .qp_sel, .qp_sq_base, .qp_rq_base, .qp_sq_log, .qp_rq_log,
    .qp_scq, .qp_rcq, .qp_pz, .qp_remote_qpn, .qp_remote_ip, .qp_remote_mac, .qp_sq_psn,
    .qp_rq_psn, .qp_flags, .qp_timers, .qp_log_mtu, .qp_state_rd,
    .db_valid, .db_kind, .db_index, .db_value,
    .ev_dma_fault, .ev_dma_addr, .ev_bad_doorbell, .ev_cq_overflow, .ev_queue, .ev_rx_drop,
    .intr_set, .irq, .idle(regs_idle));

  logic        lchk_valid, lchk_rsp_valid, rchk_valid, rchk_rsp_valid;
  // The engine waits for each verdict before the next request, so the ports
  // are always ready when it asks (the table asserts it).
  /* verilator lint_off UNUSEDSIGNAL */
  logic        lchk_ready, rchk_ready;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [1:0]  lchk_mode;
  logic [31:0] lchk_key, lchk_len, rchk_key, rchk_len;
  logic [15:0] lchk_pz, rchk_pz;
  logic [3:0]  lchk_rights, rchk_rights;
  logic [63:0] lchk_addr, rchk_addr;
  logic [2:0]  lchk_verdict, rchk_verdict;
  // The engine addresses host memory by IOVA itself; the entry bases are for
  // a table user that translates (none here).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [63:0] lchk_base, rchk_base;
  /* verilator lint_on UNUSEDSIGNAL */

  logic        bind_valid, bind_done, bind_ok;
  logic [23:0] bind_index;
  logic [7:0]  bind_key;
  logic [15:0] bind_pz;
  logic [63:0] bind_base, bind_len;
  logic [3:0]  bind_rights;
  logic [1:0]  bind_state;
  logic [31:0] bind_link;

  rnic_ptable #(.ENTRIES(PT_ENTRIES)) u_pt (
    .clk, .rst_n(core_rst_n), .mutant,
    .mgmt_valid(pt_valid), .mgmt_cmd(pt_cmd), .mgmt_index(pt_index), .mgmt_key(pt_key),
    .mgmt_pz(pt_pz), .mgmt_base(pt_base), .mgmt_len(pt_len), .mgmt_rights(pt_rights),
    .mgmt_type(pt_type), .mgmt_state(pt_state), .mgmt_link(pt_link),
    .mgmt_done(pt_done), .mgmt_err(pt_err), .mgmt_r_key(pt_r_key), .mgmt_r_pz(pt_r_pz),
    .mgmt_r_base(pt_r_base), .mgmt_r_len(pt_r_len), .mgmt_r_rights(pt_r_rights),
    .mgmt_r_type(pt_r_type), .mgmt_r_state(pt_r_state), .mgmt_r_link(pt_r_link),
    .bind_valid, .bind_index, .bind_key, .bind_pz, .bind_base, .bind_len, .bind_rights,
    .bind_state, .bind_link, .bind_done, .bind_ok,
    .lchk_ready, .lchk_valid, .lchk_mode, .lchk_key, .lchk_pz, .lchk_rights, .lchk_addr, .lchk_len,
    .lchk_rsp_valid, .lchk_verdict, .lchk_base,
    .rchk_ready, .rchk_valid, .rchk_key, .rchk_pz, .rchk_rights, .rchk_addr, .rchk_len,
    .rchk_rsp_valid, .rchk_verdict, .rchk_base, .idle(pt_idle));

  logic        fr_start, fr_free_next, fr_push_ok, fr_poison;
  logic [15:0] fr_len;
  logic [8*W-1:0]    fr_push_data;
  logic [$clog2(W):0] fr_push_n;
  // busy is for the framer's own bench: the engine starts a frame on
  // free_next, a cycle before busy falls.
  /* verilator lint_off PINCONNECTEMPTY */
  rnic_tx_framer u_tx (
    .clk, .rst_n(core_rst_n), .start(fr_start), .frame_len(fr_len), .busy(), .free_next(fr_free_next),
    .push_ok(fr_push_ok), .push_data(fr_push_data), .push_n(fr_push_n), .poison(fr_poison),
    .tx_tvalid, .tx_tready, .tx_tdata, .tx_tkeep, .tx_tlast, .idle(tx_idle));
  /* verilator lint_on PINCONNECTEMPTY */

  logic        rxb_valid, rxb_next_valid, rxb_release;
  logic [15:0] rxb_len;
  logic [8*W*HDR_WORDS-1:0] rxb_hdr;
  logic [$clog2(RXD)-1:0] rxb_rd_addr;
  logic [8*W-1:0] rxb_rd_data;
  rnic_rx_buffer #(.W(W), .DEPTH(RXD), .HDR_WORDS(HDR_WORDS)) u_rx (
    .clk, .rst_n(core_rst_n), .tx_waiting(tx_tvalid && !tx_tready), .rx_tvalid, .rx_tready, .rx_tdata, .rx_tkeep, .rx_tlast,
    .frame_valid(rxb_valid), .next_valid(rxb_next_valid), .frame_len(rxb_len), .hdr(rxb_hdr), .rd_addr(rxb_rd_addr),
    .rd_data(rxb_rd_data), .release_frame(rxb_release), .drop(buf_rx_drop), .idle(rx_idle));

  rnic_engine #(.NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .RXD(RXD)) u_eng (
    .clk, .rst_n(core_rst_n), .enable, .mac, .ipv4, .mutant,
    .qp_cmd_valid, .qp_cmd, .qp_sel, .qp_sq_base, .qp_rq_base, .qp_sq_log, .qp_rq_log,
    .qp_scq, .qp_rcq, .qp_pz, .qp_remote_qpn, .qp_remote_ip, .qp_remote_mac, .qp_sq_psn,
    .qp_rq_psn, .qp_flags, .qp_timers, .qp_log_mtu, .qp_state_rd,
    .cq_cmd_valid, .cq_cmd, .cq_sel, .cq_base, .cq_log,
    .db_valid, .db_kind, .db_index, .db_value,
    .ev_dma_fault, .ev_dma_addr, .ev_bad_doorbell, .ev_cq_overflow, .ev_queue,
    .ev_rx_drop(eng_rx_drop), .intr_set,
    .lchk_valid, .lchk_mode, .lchk_key, .lchk_pz, .lchk_rights, .lchk_addr, .lchk_len,
    .lchk_rsp_valid, .lchk_verdict,
    .rchk_valid, .rchk_key, .rchk_pz, .rchk_rights, .rchk_addr, .rchk_len,
    .rchk_rsp_valid, .rchk_verdict,
    .bind_valid, .bind_index, .bind_key, .bind_pz, .bind_base, .bind_len, .bind_rights,
    .bind_state, .bind_link, .bind_done, .bind_ok,
    .dma_rd_req_valid, .dma_rd_req_ready, .dma_rd_req_addr, .dma_rd_req_len, .dma_rd_req_tag,
    .dma_rd_rsp_valid, .dma_rd_rsp_ready, .dma_rd_rsp_data, .dma_rd_rsp_last, .dma_rd_rsp_err,
    .dma_wr_valid, .dma_wr_ready, .dma_wr_addr, .dma_wr_len, .dma_wr_tag, .dma_wr_data,
    .dma_wr_last, .dma_wr_cpl_valid, .dma_wr_cpl_tag, .dma_wr_cpl_err,
    // A frame may start while the last one's last beat leaves (free_next).
    .fr_start, .fr_len, .fr_free(fr_free_next), .fr_push_ok, .fr_push_data, .fr_push_n, .fr_poison,
    .rxb_valid, .rxb_next_valid, .rxb_len, .rxb_hdr, .rxb_rd_addr, .rxb_rd_data, .rxb_release,
    .trace_valid, .trace_event, .trace_qpn, .trace_arg, .time_now, .wake_valid, .wake_at,
    .idle(eng_idle));

  // Every block that has state of its own says whether it is under way; in
  // reset nothing is idle (the registers are being set, and a platform must
  // clock a reset, not skip it).
  assign idle = rst_n && regs_idle && pt_idle && eng_idle && tx_idle && rx_idle;

`ifndef SYNTHESIS
  // The outputs that start something (valids, readies, the interrupt,
  // idle itself), to check that an idle NIC with quiet inputs holds them.
  // Data and address buses mean nothing without their valid; the rtl_core
  // bench holds every output bit to the promise, this check runs in every
  // simulation and must stay cheap (a wide copy a cycle costs percents).
  localparam int unsigned OUTW = 9;
  logic [OUTW-1:0] outs, sva_outs;
  assign outs = {bar_rsp_valid, dma_rd_req_valid, dma_rd_rsp_ready, dma_wr_valid, tx_tvalid, rx_tready, irq,
                 trace_valid, idle};
  logic quiet, sva_idle_quiet;
  assign quiet = !bar_req_valid && !rx_tvalid && !dma_rd_rsp_valid && !dma_wr_cpl_valid &&
                 !(wake_valid && time_now >= wake_at);

  always_ff @(posedge clk) begin
    if (rst_n && idle) begin
      a_idle_no_dma_rd: assert (!dma_rd_req_valid) else $error("idle with a DMA read request");
      a_idle_no_dma_wr: assert (!dma_wr_valid) else $error("idle with a DMA write beat");
      a_idle_no_tx: assert (!tx_tvalid) else $error("idle with a tx beat");
      a_idle_no_trace: assert (!trace_valid) else $error("idle with a trace event");
    end
    // The promise itself: idle and quiet inputs in one cycle, then the next
    // cycle has every output as it was (idle included).
    if (!rst_n) begin
      sva_idle_quiet <= 1'b0;
    end else begin
      sva_idle_quiet <= idle && quiet;
      if (sva_idle_quiet)
        a_idle_holds: assert (outs == sva_outs) else $error("idle NIC changed an output with quiet inputs");
    end
    sva_outs <= outs;
    // The table's requesters wait for its answers: their idle covers its own.
    if (rst_n && regs_idle && eng_idle)
      a_idle_pt_covered: assert (pt_idle) else $error("protection table busy behind idle requesters");
  end
`endif
endmodule
