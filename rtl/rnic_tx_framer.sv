// Builds the byte stream of one outgoing frame. The engine announces the
// frame length, then pushes header, payload and pad bytes (up to W a cycle,
// whenever `push_ok`); the framer computes the ICRC over what it is given,
// appends it after the last pushed byte, and emits packed W-byte beats on
// the AXI-Stream port, so a frame leaves at full width whatever the
// alignment of its pieces. A frame whose payload could not be read (DMA
// fault) is poisoned: it leaves with a wrong ICRC so no receiver uses it.
module rnic_tx_framer #(
  parameter int unsigned W = rnic_pkg::DATA_BYTES
) (
  input  logic                clk,
  input  logic                rst_n,
  input  logic                start,       // idle only: a new frame of frame_len bytes
  input  logic [15:0]         frame_len,   // header + payload + pad + 4 (ICRC)
  output logic                busy,
  // No frame from the next cycle on: none now, or the last beat leaves
  // now. A start registered in this cycle finds the framer free, so the
  // next frame's headers follow the last beat with no idle cycle between.
  output logic                free_next,
  output logic                push_ok,     // W bytes may be pushed this cycle
  input  logic [8*W-1:0]      push_data,
  input  logic [$clog2(W):0]  push_n,
  input  logic                poison,      // send a wrong ICRC: the peer will drop the frame
  output logic                tx_tvalid,
  input  logic                tx_tready,
  output logic [8*W-1:0]      tx_tdata,
  output logic [W-1:0]        tx_tkeep,
  output logic                tx_tlast,
  output logic                idle         // no frame under way and no beat waiting to leave
);
  localparam int unsigned NW = $clog2(W) + 1;
  localparam int unsigned CW = $clog2(3*W) + 1;

  logic [15:0] len, pushed, emitted;
  logic [31:0] crc;
  logic        crc_pushed;

  logic [8*W-1:0] head;
  logic [CW-1:0]  count, space;
  logic [15:0]    left_to_emit, body_left;
  logic [NW-1:0]  beat_n, q_push_n, q_pop_n;
  logic [8*W-1:0] q_push_data;
  logic           appending;
  logic [W-1:0]   lane_mask, lane_skip, lane_en;
  logic [31:0]    crc_next;
  logic           o_valid, o_ready, o_last;
  logic [W-1:0]   o_keep;

  rnic_byte_queue #(.W(W)) u_q (
    .clk, .rst_n, .clear(start), .push_data(q_push_data), .push_n(q_push_n), .pop_n(q_pop_n),
    .head, .count, .space);
  rnic_icrc_mask #(.W(W)) u_mask (.offset(pushed), .mask(lane_mask), .skip(lane_skip));
  rnic_crc32_lanes #(.W(W)) u_crc (.crc_in(crc), .data(push_data), .en(lane_en), .mask(lane_mask), .crc_out(crc_next));

  // push_ok is what the engine's push depends on: keep it in its own block.
  // The ICRC goes in once the body is complete and there is room for it
  // (the queue may be full while the link holds tready low).
  logic need_crc;
  always_comb begin
    body_left    = len - 16'd4 - pushed;
    need_crc     = busy && !crc_pushed && body_left == 16'd0;
    appending    = need_crc && space >= CW'(4);
    push_ok      = busy && !need_crc && !crc_pushed && space >= CW'(W);
  end

  always_comb begin
    for (int unsigned lane = 0; lane < W; lane++) begin
      lane_en[lane] = (NW'(lane) < push_n) && !lane_skip[lane];
    end
    if (appending) begin
      q_push_data = {{(8*W-32){1'b0}}, poison ? crc : ~crc};
      q_push_n    = NW'(4);
    end else begin
      q_push_data = push_data;
      q_push_n    = push_ok ? push_n : '0;
    end
  end

  // The output side in a block of its own, apart from the pushes:
  // rnic_tx_gather's started depends on free_next, and its pushes come from
  // the same block as started, so one block here for both would be a loop
  // to a simulator (it evaluates a block whole and would iterate).
  always_comb begin
    left_to_emit = len - emitted;
    beat_n       = (left_to_emit >= 16'(W)) ? NW'(W) : left_to_emit[NW-1:0];
    o_valid      = busy && left_to_emit != 16'd0 && count >= CW'(beat_n);
    for (int unsigned lane = 0; lane < W; lane++) begin
      o_keep[lane] = NW'(lane) < beat_n;
    end
    o_last       = left_to_emit <= 16'(W);
    q_pop_n      = (o_valid && o_ready) ? beat_n : '0;
  end

  // Beats leave through a two-entry FIFO: tx_tready moves only its pointers.
  rnic_beat_fifo #(.WIDTH(8*W + W + 1)) u_out (
    .clk, .rst_n, .in_valid(o_valid), .in_ready(o_ready), .in_data({o_last, o_keep, head}),
    .out_valid(tx_tvalid), .out_ready(tx_tready), .out_data({tx_tlast, tx_tkeep, tx_tdata}));

  // Without a frame (busy low) nothing is pushed, appended or popped, so the
  // counters and the byte queue hold; what is left is the output FIFO, whose
  // beats leave by themselves while tx_tready is high.
  assign idle = !busy && !tx_tvalid;
  assign free_next = !busy || (o_valid && o_ready && o_last);

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      busy       <= 1'b0;
      len        <= '0;
      pushed     <= '0;
      emitted    <= '0;
      crc        <= 32'hDEBB20E3;
      crc_pushed <= 1'b0;
    end else if (start) begin
      busy       <= 1'b1;
      len        <= frame_len;
      pushed     <= '0;
      emitted    <= '0;
      // The ICRC starts as if 8 bytes of 0xFF (the absent IB LRH) came first.
      crc        <= 32'hDEBB20E3;
      crc_pushed <= 1'b0;
    end else if (busy) begin
      if (appending) begin
        crc_pushed <= 1'b1;
      end else if (push_ok && push_n != '0) begin
        pushed <= pushed + 16'(push_n);
        crc    <= crc_next;
      end
      if (o_valid && o_ready) begin
        emitted <= emitted + 16'(beat_n);
        if (o_last) busy <= 1'b0;
      end
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (rst_n && busy && push_ok && push_n != '0) begin
      assert (16'(push_n) <= body_left) else $error("tx framer: pushed past the frame body");
    end
    if (rst_n && start) assert (!busy) else $error("tx framer: start while busy");
  end
`endif
endmodule
