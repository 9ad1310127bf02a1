// Holds received frames until the engine has dealt with them: two slots, so
// one frame arrives while the engine places the previous one and the link
// keeps flowing at full rate. The ICRC is checked while a frame arrives, so
// the engine only ever sees intact frames: a corrupted frame is dropped
// here and can change no byte of host memory. With both slots full,
// rx_tready is low and the link waits, as a lossless (PFC) Ethernet port
// pauses its peer.
//
// The pause has a limit, as a switch's PFC watchdog does, for the one case
// it cannot end by itself: the engine drains this buffer between jobs, and
// a job may itself wait for the link (a send held by the peer's full
// buffer). Two NICs that each wait for the other to drain would wait for
// ever. So once a frame has waited PAUSE_MAX cycles at a full buffer while
// this NIC's own transmit port has waited as long (tx_waiting: a beat the
// link does not take), that frame and every one after it are taken in and
// dropped, until a slot is free or the transmit port moves; the reliable
// connection resends them (docs/reliability.md, "Both ways at once").
// A NIC whose engine is only busy (a long READ response going out) keeps
// its transmit port moving and pauses its peer without dropping.
module rnic_rx_buffer #(
  parameter int unsigned W = rnic_pkg::DATA_BYTES,
  // A slot's words: MTU + 128 bytes, the longest frame kept (4224, a
  // multiple of every W of issue 12). Over W, not DATA_BYTES: a buffer given
  // only a wider W had slots W / DATA_BYTES times too deep, and kept frames
  // longer than MTU + 128 that it must drop.
  parameter int unsigned DEPTH = (rnic_pkg::MTU + 128) / W,
  parameter int unsigned HDR_WORDS = 10,
  parameter int unsigned PAUSE_MAX = rnic_pkg::RX_PAUSE_MAX
) (
  input  logic                     clk,
  input  logic                     rst_n,
  input  logic                     tx_waiting,   // this NIC's transmit port holds a beat the link does not take
  input  logic                     rx_tvalid,
  output logic                     rx_tready,
  input  logic [8*W-1:0]           rx_tdata,
  input  logic [W-1:0]             rx_tkeep,
  input  logic                     rx_tlast,
  output logic                     frame_valid,
  // The slot after frame_valid's holds a whole frame too: the engine may
  // parse it in the cycle after it releases this one.
  output logic                     next_valid,
  output logic [15:0]              frame_len,
  output logic [8*W*HDR_WORDS-1:0] hdr,        // the first HDR_WORDS words, byte 0 in [7:0]
  input  logic [$clog2(DEPTH)-1:0] rd_addr,
  output logic [8*W-1:0]           rd_data,
  input  logic                     release_frame,
  output logic                     drop,         // one-cycle pulse: a frame was discarded (bad or shed)
  output logic                     idle          // no frame held, no beat on its way in, no drop pulse
);
  localparam int unsigned AW = $clog2(DEPTH);
  localparam int unsigned NW = $clog2(W) + 1;
  // Ethernet + IPv4 + UDP + BTH + ICRC: nothing shorter is a RoCE frame.
  localparam logic [15:0] MIN_FRAME = 16'd58;

  logic [8*W-1:0] mem [2 << AW];   // slot in the top address bit
  logic [1:0]     full;
  logic           wr_slot, rd_slot;
  logic [15:0]    slot_len [2];
  logic [8*W*HDR_WORDS-1:0] slot_hdr [2];
  logic [15:0]    len;
  logic [31:0]    crc;
  logic           too_long;
  logic [W-1:0]   lane_mask, lane_skip, lane_en;
  logic [31:0]    crc_next;
  logic [NW-1:0]  nbytes;
  logic           beat;   // a registered beat is stored this cycle
  logic [15:0]    widx;   // word of the frame this beat fills
  // Beats are registered on arrival and stored the cycle after: the ICRC
  // and storage logic then depend on flip-flops only, not on the port.
  // Only an accepted beat loads them: between beats they hold, whatever the
  // link drives beside a low tvalid.
  logic           in_v, in_last;
  logic [8*W-1:0] in_data;
  logic [W-1:0]   in_keep;
  // The pause limit: cycles a frame has waited at a full buffer, and the
  // frame being taken in only to be dropped.
  localparam int unsigned PW = $clog2(PAUSE_MAX + 1);
  logic [PW-1:0]  paused;
  logic [PW-1:0]  tx_held;    // cycles the transmit port has waited, in a row
  logic           shed;       // the limit is reached: frames are dropped
  logic           shedding;   // the frame on the port is being dropped
  logic           shed_beat;  // a beat of a dropped frame is taken this cycle
  logic           port_take;  // any beat is taken this cycle

  rnic_icrc_mask #(.W(W)) u_mask (.offset(len), .mask(lane_mask), .skip(lane_skip));
  rnic_crc32_lanes #(.W(W)) u_crc (.crc_in(crc), .data(in_data), .en(lane_en), .mask(lane_mask), .crc_out(crc_next));

  always_comb begin
    nbytes = '0;
    for (int unsigned lane = 0; lane < W; lane++) begin
      lane_en[lane] = in_keep[lane] && !lane_skip[lane];
      nbytes = nbytes + NW'(in_keep[lane]);
    end
    // After a frame's last beat the slot changes: accept nothing until it has.
    // A full slot means the port is between frames: past the pause limit the
    // next frame is taken in to be dropped.
    shed        = paused == PW'(PAUSE_MAX) && tx_held == PW'(PAUSE_MAX);
    rx_tready   = shedding || (!full[wr_slot] && !(in_v && in_last)) || (full[wr_slot] && shed);
    port_take   = rx_tvalid && rx_tready;
    shed_beat   = port_take && (shedding || full[wr_slot]);
    beat        = in_v;
    widx        = len >> $clog2(W);
    frame_valid = full[rd_slot];
    next_valid  = full[!rd_slot];
    frame_len   = slot_len[rd_slot];
    hdr         = slot_hdr[rd_slot];
    rd_data     = mem[{rd_slot, rd_addr}];
  end

  always_ff @(posedge clk) begin
    if (beat && widx < 16'(DEPTH)) mem[{wr_slot, widx[AW-1:0]}] <= in_data;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      in_v    <= 1'b0;
      in_last <= 1'b0;
      in_data <= '0;
      in_keep <= '0;
    end else begin
      in_v    <= port_take && !shed_beat;
      in_last <= port_take && !shed_beat && rx_tlast;
      if (port_take && !shed_beat) in_data <= rx_tdata;
      in_keep <= (port_take && !shed_beat) ? rx_tkeep : '0;
    end
  end

  // A full slot is work for the engine; a registered beat is stored (or
  // ends a frame) at the next edge; a drop pulse is counted by the register
  // block. A frame half received with the link pausing is not work: nothing
  // moves until its next beat arrives.
  assign idle = full == 2'b00 && !in_v && !in_last && !drop;

  // The pause count runs while a frame waits at a full buffer and restarts
  // once a slot is free; the transmit count restarts whenever the port
  // moves; a dropped frame's beats pass the port unseen.
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      paused   <= '0;
      tx_held  <= '0;
      shedding <= 1'b0;
    end else begin
      if (!full[wr_slot]) paused <= '0;
      else if (rx_tvalid && paused != PW'(PAUSE_MAX)) paused <= paused + PW'(1);
      if (!tx_waiting) tx_held <= '0;
      else if (tx_held != PW'(PAUSE_MAX)) tx_held <= tx_held + PW'(1);
      if (shed_beat) shedding <= !rx_tlast;
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      full        <= '0;
      wr_slot     <= 1'b0;
      rd_slot     <= 1'b0;
      len         <= '0;
      crc         <= 32'hDEBB20E3;
      too_long    <= 1'b0;
      drop        <= 1'b0;
      slot_len[0] <= '0;
      slot_len[1] <= '0;
      slot_hdr[0] <= '0;
      slot_hdr[1] <= '0;
    end else begin
      drop <= shed_beat && rx_tlast;
      if (release_frame) begin
        full[rd_slot] <= 1'b0;
        rd_slot       <= !rd_slot;
      end
      if (beat) begin
        if (widx >= 16'(DEPTH)) too_long <= 1'b1;
        for (int unsigned k = 0; k < HDR_WORDS; k++) begin
          if (widx == 16'(k)) slot_hdr[wr_slot][8*W*k +: 8*W] <= in_data;
        end
        if (in_last) begin
          // Running the CRC over the frame and its own ICRC leaves a constant.
          if (!too_long && widx < 16'(DEPTH) && len + 16'(nbytes) >= MIN_FRAME &&
              crc_next == 32'hDEBB20E3) begin
            full[wr_slot]     <= 1'b1;
            slot_len[wr_slot] <= len + 16'(nbytes);
            wr_slot           <= !wr_slot;
          end else begin
            drop <= 1'b1;
          end
          len      <= '0;
          crc      <= 32'hDEBB20E3;
          too_long <= 1'b0;
        end else begin
          len <= len + 16'(nbytes);
          crc <= crc_next;
        end
      end
    end
  end

`ifndef SYNTHESIS
  // How long both directions have been held back at once: never past the
  // limit (and the cycle it takes to act).
  int unsigned held;
  always_ff @(posedge clk) begin
    if (!rst_n || !rx_tvalid || rx_tready || !tx_waiting) held <= 0;
    else held <= held + 1;
  end
  always_ff @(posedge clk) begin
    if (rst_n && release_frame) assert (full[rd_slot]) else $error("rx buffer: release of an empty slot");
    // A dropped frame's last beat and a bad frame's end never meet: a shed
    // frame starts only at a full slot, so no frame is arriving into it.
    if (rst_n && shed_beat && rx_tlast) assert (!(beat && in_last)) else $error("rx buffer: two drops in one cycle");
    if (rst_n)
      assert (held <= PAUSE_MAX + 1) else $error("rx buffer: both directions held back past the pause limit");
  end
`endif
endmodule
