// Who drives the engine's shared ports: the DMA read port, the DMA write
// port, the protection table's local and remote check ports, and the
// scatter/gather cursor.
//
// The engine runs one job at a time and a job owns the ports while it runs,
// so most grants are the job's state: a WQE fetch (S_FETCH_*) or the gather
// (S_TX) reads; the requester's and the responder's lkey checks (S_SQ_CHECK,
// S_RX_SEND_CHECK) or the bind unit (S_BIND) use the local check port; a
// request packet's rkey check (rkey_fire, at its parse) the remote one. Only the DMA
// write port has two users at once: the receive scatter's payload goes
// first, the CQE writer's beats fill the gaps (a CQE never waits on a job).
//
// The cursor is loaded from the WQE in wq (a SEND or WRITE to gather, a RECV
// or READ response to scatter into, at the byte where this packet starts) or
// with the one range a received frame names; the gather or the scatter,
// whichever runs, moves it. No job leaves anything in it for a later job, so
// it is loaded whenever a state might need it.
//
// A WQE fetch asks for every word a WQE may use (WQE_FETCH_WORDS) before it
// knows how many SGEs the WQE has; word 0 says. The fetch ends (fetch_cut)
// with the beat that holds the last word the WQE uses, so at 8 bytes a
// one-SGE WQE goes on six beats before the fetch's last (at 64 the fetch
// is two beats, and the one-SGE WQE needs only the first); the beats still
// to come (rd_tail) are taken
// and dropped, and no fetch and no gather is given a beat until they are
// gone (the read port answers in order). The dropped words are SGEs past
// num_sge, which nothing reads. The gather's prefetch (rnic_tx_gather) is
// the other read that can be owed outside S_TX: a fetch's request waits
// until its beats are gone too (rd_owed), and while the gather throws them
// away (tx_pf_drop) the port takes them whatever the state.
//
// It also remembers the last local check, for the CQE a refusal ends in: a
// LOCAL_PROTECTION or BIND_FAILED CQE follows its own refused check with no
// other check in between (a WQE held behind work in flight is checked again
// when it resumes), so the CQE can tell software which check refused and on
// which key (VERDICT and CHECK_KEY) instead of one status for all.
module rnic_port_arbiter #(
  parameter  int unsigned W   = rnic_pkg::DATA_BYTES,   // bytes a DMA beat
  localparam int unsigned WPB = W / 8,                  // 64-bit WQE words a beat
  localparam int unsigned S   = rnic_pkg::MAX_SGE,
  localparam int unsigned SIW = $clog2(S)
) (
  input  logic                    clk,
  input  logic                    rst_n,
  input  rnic_pkg::job_state_t        st,

  // DMA reads: the job's WQE fetch or the gather.
  input  logic [63:0]             fetch_addr,
  input  logic [4:0]              fetch_n,        // 64-bit words
  input  logic [4:0]              fetch_i,        // beats of the fetch taken (WPB words each)
  input  logic [7:0]              fetch_nsge,     // NUM_SGE of the WQE being fetched (its word 0)
  input  logic                    rd_rsp_valid,
  input  logic                    rd_rsp_last,
  output logic                    fetch_cut,      // this beat ends the fetch: the WQE's last word
  output logic                    rd_tail,        // a fetch's dropped beats are still to come
  input  logic                    rd_owed,        // rd_tail, or the gather's prefetch still owed: no fetch yet
  input  logic                    tx_pf_drop,     // the gather throws a prefetch's beats away
  input  logic                    tx_rd_req_valid,
  input  logic [63:0]             tx_rd_req_addr,
  input  logic [12:0]             tx_rd_req_len,
  input  logic                    tx_rd_rsp_ready,
  output logic                    dma_rd_req_valid,
  output logic [63:0]             dma_rd_req_addr,
  output logic [12:0]             dma_rd_req_len,
  output logic [7:0]              dma_rd_req_tag,
  output logic                    dma_rd_rsp_ready,

  // DMA writes: the scatter's payload, the CQE writer's CQEs.
  input  logic                    sc_w_valid,
  input  logic [63:0]             sc_w_addr,
  input  logic [12:0]             sc_w_len,
  input  logic [8*W-1:0]             sc_w_data,
  input  logic                    sc_w_last,
  input  logic                    cqe_w_valid,
  input  logic [63:0]             cqe_w_addr,
  input  logic [12:0]             cqe_w_len,
  input  logic [15:0]             cqe_w_tag,
  input  logic [8*W-1:0]             cqe_w_data,
  input  logic                    cqe_w_last,
  output logic                    w_valid,
  output logic [63:0]             w_addr,
  output logic [12:0]             w_len,
  output logic [15:0]             w_tag,
  output logic [8*W-1:0]             w_data,
  output logic                    w_last,

  // Local checks: the WQE's SGEs (chk_i of them), or the bind unit's.
  input  logic [2:0]              chk_i,
  input  logic [2:0]              wq_nsge,
  input  logic                    wq_is_read,     // the send WQE is a READ: its SGEs are written
  input  logic [64*S-1:0]         sge_addr,
  input  logic [32*S-1:0]         sge_len,
  input  logic [32*S-1:0]         sge_lkey,
  input  logic [15:0]             pz,
  input  logic                    bu_chk_valid,
  input  logic [1:0]              bu_chk_mode,
  input  logic [31:0]             bu_chk_key,
  input  logic [3:0]              bu_chk_rights,
  input  logic [63:0]             bu_chk_addr,
  input  logic [31:0]             bu_chk_len,
  output logic                    lchk_valid,
  output logic [1:0]              lchk_mode,
  output logic [31:0]             lchk_key,
  output logic [15:0]             lchk_pz,
  output logic [3:0]              lchk_rights,
  output logic [63:0]             lchk_addr,
  output logic [31:0]             lchk_len,
  input  logic                    lchk_rsp_valid,
  input  logic [2:0]              lchk_verdict,

  // The remote check of a request packet: its RETH, or for a WRITE's
  // MIDDLE or LAST (no RETH) the QP's cursor and the rkey of the message's
  // FIRST, so a region or window that goes away mid-message stops the rest.
  input  logic                    rkey_fire,      // the check goes to the table this cycle
  input  logic                    rx_cont,
  input  logic                    p_read_req,     // the frame in the buffer is a READ request
  input  logic [31:0]             p_rkey,
  input  logic [63:0]             p_va,
  input  logic [31:0]             p_rlen,
  input  logic [15:0]             p_plen,
  input  logic [31:0]             wr_rkey,        // the frame's QP's WRITE rkey and cursor
  input  logic [63:0]             wr_va,
  input  logic [15:0]             rx_pz,
  output logic                    rchk_valid,
  output logic [31:0]             rchk_key,
  output logic [15:0]             rchk_pz,
  output logic [3:0]              rchk_rights,
  output logic [63:0]             rchk_addr,
  output logic [31:0]             rchk_len,

  input  logic                    rchk_rsp_valid,

  // The cursor: what loads it, who moves it.
  input  logic                    rx_is_read_req, // the job's frame is a READ request
  input  logic [31:0]             sq_go_pos,      // S_SQ_GO: where a resend's payload starts
  input  logic [31:0]             rcv_got,        // the job's QP: bytes of its RECV placed
  input  logic [31:0]             out_got,        // ... bytes of its oldest READ received
  input  logic [63:0]             cur_wr_va,      // ... its WRITE cursor
  input  logic                    tx_seg_next,
  input  logic                    tx_seg_take,
  input  logic [31:0]             tx_seg_take_n,
  input  logic                    sc_next,
  input  logic                    sc_take,
  input  logic [31:0]             sc_take_n,
  output logic                    sg_load,
  output logic [31:0]             sg_load_pos,
  output logic                    sg_single,
  output logic [63:0]             sg_single_addr,
  output logic [31:0]             sg_single_len,
  output logic                    sg_next,
  output logic                    sg_take,
  output logic [31:0]             sg_take_n,

  // The CQE being written, and what its refusal names.
  input  logic [7:0]              cqe_status,
  output logic [2:0]              cqe_verdict,
  output logic [31:0]             cqe_check_key
);
  logic [SIW-1:0] k;             // the SGE being checked (only with chk_i < wq_nsge)
  logic           sge_checked;   // it has bytes: its lkey is checked
  assign k           = chk_i[SIW-1:0];
  assign sge_checked = chk_i < wq_nsge && sge_len[32*k +: 32] != 32'd0;

  // The words the WQE uses: its header and num_sge SGEs (too many SGEs is
  // BAD_WQE, which the header says).
  logic [4:0] tail_n, fetch_beats;
  logic [5:0] used_words;
  always_comb begin
    used_words = 6'(rnic_pkg::WQE_SGE_WORD) +
                 ((fetch_nsge > 8'(S)) ? 6'd0 : 6'(rnic_pkg::SGE_WORDS) * 6'(fetch_nsge));
    fetch_cut  = st == rnic_pkg::S_FETCH_DATA && rd_rsp_valid &&
                 (rd_rsp_last || (32'(fetch_i) + 32'd1) * WPB >= 32'(used_words));
    fetch_beats = 5'((32'(fetch_n) + WPB - 1) / WPB);
    rd_tail    = tail_n != 5'd0;
  end
  always_ff @(posedge clk) begin
    if (!rst_n)
      tail_n <= '0;
    else if (fetch_cut && !rd_rsp_last)
      tail_n <= fetch_beats - fetch_i - 5'd1;
    else if (rd_tail && rd_rsp_valid)
      tail_n <= tail_n - 5'd1;
  end

  always_comb begin
    dma_rd_req_valid = st == rnic_pkg::S_FETCH_REQ && !rd_owed;
    dma_rd_req_addr  = fetch_addr;
    dma_rd_req_len   = 13'({fetch_n, 3'b000});
    dma_rd_req_tag   = 8'd0;
    dma_rd_rsp_ready = st == rnic_pkg::S_FETCH_DATA;
    if (st == rnic_pkg::S_TX) begin
      dma_rd_req_valid = tx_rd_req_valid;
      dma_rd_req_addr  = tx_rd_req_addr;
      dma_rd_req_len   = tx_rd_req_len;
      dma_rd_rsp_ready = tx_rd_rsp_ready;
    end
    if (rd_tail || tx_pf_drop) dma_rd_rsp_ready = 1'b1;

    w_valid = sc_w_valid;
    w_addr  = sc_w_addr;
    w_len   = sc_w_len;
    w_tag   = 16'd0;           // tag bit 15 clear: payload
    w_data  = sc_w_data;
    w_last  = sc_w_last;
    if (!sc_w_valid && cqe_w_valid) begin
      w_valid = 1'b1;
      w_addr  = cqe_w_addr;
      w_len   = cqe_w_len;
      w_tag   = cqe_w_tag;
      w_data  = cqe_w_data;
      w_last  = cqe_w_last;
    end

    lchk_valid  = 1'b0;
    lchk_mode   = rnic_pkg::PT_MODE_LOCAL;
    lchk_key    = sge_lkey[32*k +: 32];
    lchk_pz     = pz;
    lchk_rights = 4'd0;
    lchk_addr   = sge_addr[64*k +: 64];
    lchk_len    = sge_len[32*k +: 32];
    if (sge_checked && st == rnic_pkg::S_SQ_CHECK) begin
      lchk_valid  = 1'b1;
      lchk_rights = wq_is_read ? rnic_pkg::ACCESS_LOCAL_WRITE : rnic_pkg::ACCESS_LOCAL_READ;
    end
    if (sge_checked && st == rnic_pkg::S_RX_SEND_CHECK) begin
      lchk_valid  = 1'b1;
      lchk_rights = rnic_pkg::ACCESS_LOCAL_WRITE;
    end
    if (bu_chk_valid) begin
      lchk_valid  = 1'b1;
      lchk_mode   = bu_chk_mode;
      lchk_key    = bu_chk_key;
      lchk_rights = bu_chk_rights;
      lchk_addr   = bu_chk_addr;
      lchk_len    = bu_chk_len;
    end

    rchk_valid  = rkey_fire;
    rchk_key    = rx_cont ? wr_rkey : p_rkey;
    rchk_pz     = rx_pz;
    rchk_rights = p_read_req ? rnic_pkg::ACCESS_REMOTE_READ : rnic_pkg::ACCESS_REMOTE_WRITE;
    rchk_addr   = rx_cont ? wr_va : p_va;
    rchk_len    = rx_cont ? 32'(p_plen) : p_rlen;

    sg_load        = 1'b0;
    sg_load_pos    = 32'd0;
    sg_single      = 1'b0;
    sg_single_addr = p_va;
    sg_single_len  = 32'(p_plen);
    unique case (st)
      rnic_pkg::S_SQ_GO:         begin sg_load = 1'b1; sg_load_pos = sq_go_pos; end
      rnic_pkg::S_RX_SEND_PLACE: begin sg_load = 1'b1; sg_load_pos = rcv_got; end
      rnic_pkg::S_RX_RRESP_WQE:  begin sg_load = 1'b1; sg_load_pos = out_got; end
      // A WRITE MIDDLE or LAST without payload: nothing to place.
      rnic_pkg::S_RX_PARSE: begin sg_single = 1'b1; sg_single_addr = wr_va; sg_single_len = 32'd0; end
      // Granted: the READ's range, or this WRITE packet's (at the cursor
      // the message's FIRST set, for a MIDDLE or LAST).
      rnic_pkg::S_RX_RKEY_WAIT: begin
        sg_single = rchk_rsp_valid;
        if (rx_is_read_req) sg_single_len = p_rlen;
        else if (rx_cont)   sg_single_addr = cur_wr_va;
      end
      default: ;
    endcase
    sg_next   = tx_seg_next || sc_next;
    sg_take   = tx_seg_take || sc_take;
    sg_take_n = tx_seg_take ? tx_seg_take_n : sc_take_n;
  end

  logic [2:0]  last_verdict;
  logic [31:0] last_key, asked_key;
  logic        refused;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      last_verdict <= 3'(rnic_pkg::PT_VERDICT_OK);
      last_key     <= 32'd0;
      asked_key    <= 32'd0;
    end else begin
      if (lchk_valid) asked_key <= lchk_key;
      if (lchk_rsp_valid) begin
        last_verdict <= lchk_verdict;
        last_key     <= asked_key;
      end
    end
  end
  always_comb begin
    refused       = (cqe_status == rnic_pkg::CQE_STATUS_LOCAL_PROTECTION ||
                     cqe_status == rnic_pkg::CQE_STATUS_BIND_FAILED) &&
                    32'(last_verdict) != 32'(rnic_pkg::PT_VERDICT_OK);
    cqe_verdict   = refused ? last_verdict : 3'(rnic_pkg::PT_VERDICT_OK);
    cqe_check_key = refused ? last_key : 32'd0;
  end
`ifndef SYNTHESIS
  // The dropped beats are the rest of one burst: its last beat ends them,
  // and no fetch starts before.
  always_ff @(posedge clk) begin
    if (rst_n && rd_tail && rd_rsp_valid)
      a_tail_last: assert ((tail_n == 5'd1) == rd_rsp_last) else $error("a fetch's dropped beats and its burst's end disagree");
    if (rst_n && rd_tail)
      a_tail_no_fetch: assert (st != rnic_pkg::S_FETCH_DATA) else $error("a fetch began before the last one's beats were gone");
  end
`endif
endmodule
