// Builds the byte stream of outgoing frames. The engine announces a frame's
// length, then pushes header, payload and pad bytes (up to W a cycle,
// whenever `push_ok`, from the start's own cycle on); the framer computes
// the ICRC over what it is given, appends it after the last pushed byte,
// and emits packed W-byte beats on the AXI-Stream port, so a frame leaves
// at full width whatever the alignment of its pieces. A frame whose payload
// could not be read (DMA fault) is poisoned: it leaves with a wrong ICRC so
// no receiver uses it.
//
// It holds two frames: the one being pushed (the in-side, until its ICRC
// is in the byte queue) and the one whose beats are leaving (the out-side,
// until its last beat is out). The next frame's bytes queue up behind the
// last one's ICRC, so frames leave back to back with no idle beat between;
// the byte queue is a plain byte FIFO and the out-side takes each frame's
// length from a two-entry FIFO of lengths.
module rnic_tx_framer #(
  parameter int unsigned W = rnic_pkg::DATA_BYTES
) (
  input  logic                clk,
  input  logic                rst_n,
  input  logic                start,       // only when free_next was high a cycle before
  input  logic [15:0]         frame_len,   // header + payload + pad + 4 (ICRC); more than 4
  output logic                busy,        // a frame is being pushed or is leaving
  // A start registered in this cycle will be taken: the frame being pushed
  // has none, or has its ICRC appended now, and the length FIFO has room.
  // So the next frame's headers follow the last frame's ICRC into the queue
  // with no cycle between.
  output logic                free_next,
  output logic                push_ok,     // W bytes may be pushed this cycle
  input  logic [8*W-1:0]      push_data,
  input  logic [$clog2(W):0]  push_n,
  // Send a wrong ICRC: the peer will drop the frame. Read when the ICRC is
  // appended, so it must hold until then (the gather holds it to its next start).
  input  logic                poison,
  output logic                tx_tvalid,
  input  logic                tx_tready,
  output logic [8*W-1:0]      tx_tdata,
  output logic [W-1:0]        tx_tkeep,
  output logic                tx_tlast,
  output logic                idle         // no frame under way and no beat waiting to leave
);
  localparam int unsigned NW = $clog2(W) + 1;
  localparam int unsigned CW = $clog2(3*W) + 1;
  // The ICRC starts as if 8 bytes of 0xFF (the absent IB LRH) came first.
  localparam logic [31:0] CRC_INIT = 32'hDEBB20E3;

  // In-side: the frame being pushed.
  logic        in_busy;
  logic [15:0] len, pushed;
  logic [31:0] crc;
  // Its values in the start's cycle, when the registers still hold the last
  // frame's (only pushed and crc: push_ok must not depend on frame_len, which
  // comes from the same block of the gather as its pushes).
  logic [15:0] in_pushed;
  logic [31:0] in_crc;

  // Out-side: the frame whose beats leave.
  logic        o_frame;
  logic [15:0] o_len, emitted;
  logic        lf_room;

  logic [8*W-1:0] head;
  logic [CW-1:0]  count, space;
  logic [15:0]    left_to_emit, body_left;
  logic [NW-1:0]  beat_n, q_push_n, q_pop_n;
  logic [8*W-1:0] q_push_data;
  logic           appending, need_crc, o_pop_last;
  logic [W-1:0]   lane_mask, lane_skip, lane_en;
  logic [31:0]    crc_next;
  logic           o_valid, o_ready, o_last;
  logic [W-1:0]   o_keep;

  // Frames follow each other in the queue, so it is never cleared.
  rnic_byte_queue #(.W(W)) u_q (
    .clk, .rst_n, .clear(1'b0), .push_data(q_push_data), .push_n(q_push_n), .pop_n(q_pop_n),
    .head, .count, .space);
  rnic_icrc_mask #(.W(W)) u_mask (.offset(in_pushed), .mask(lane_mask), .skip(lane_skip));
  rnic_crc32_lanes #(.W(W)) u_crc (.crc_in(in_crc), .data(push_data), .en(lane_en), .mask(lane_mask),
    .crc_out(crc_next));

  // Each frame's length, from its start until its last beat has left.
  rnic_beat_fifo #(.WIDTH(16)) u_lens (
    .clk, .rst_n, .in_valid(start), .in_ready(lf_room), .in_data(frame_len),
    .out_valid(o_frame), .out_ready(o_pop_last), .out_data(o_len));

  // push_ok is what the engine's push depends on: keep it in its own block.
  // The ICRC goes in once the body is complete and there is room for it
  // (the queue may be full while the link holds tready low). A frame is
  // longer than its ICRC, so the start's cycle never appends.
  always_comb begin
    in_pushed = start ? 16'd0 : pushed;
    in_crc    = start ? CRC_INIT : crc;
    body_left = len - 16'd4 - pushed;
    need_crc  = in_busy && body_left == 16'd0;
    appending = need_crc && space >= CW'(4);
    push_ok   = (start || (in_busy && !need_crc)) && space >= CW'(W);
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
  // to a simulator (it evaluates a block whole and would iterate). The queue
  // may already hold the next frame's bytes behind this one's: beat_n never
  // reaches past this frame's end.
  always_comb begin
    left_to_emit = o_len - emitted;
    beat_n       = (left_to_emit >= 16'(W)) ? NW'(W) : left_to_emit[NW-1:0];
    o_valid      = o_frame && count >= CW'(beat_n);
    for (int unsigned lane = 0; lane < W; lane++) begin
      o_keep[lane] = NW'(lane) < beat_n;
    end
    o_last       = left_to_emit <= 16'(W);
    q_pop_n      = (o_valid && o_ready) ? beat_n : '0;
    o_pop_last   = o_valid && o_ready && o_last;
  end

  // Beats leave through a two-entry FIFO: tx_tready moves only its pointers.
  rnic_beat_fifo #(.WIDTH(8*W + W + 1)) u_out (
    .clk, .rst_n, .in_valid(o_valid), .in_ready(o_ready), .in_data({o_last, o_keep, head}),
    .out_valid(tx_tvalid), .out_ready(tx_tready), .out_data({tx_tlast, tx_tkeep, tx_tdata}));

  assign busy      = in_busy || o_frame;
  assign idle      = !start && !busy && !tx_tvalid;
  assign free_next = !start && (!in_busy || appending) && (lf_room || o_pop_last);

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      in_busy <= 1'b0;
      len     <= '0;
      pushed  <= '0;
      crc     <= CRC_INIT;
    end else begin
      if (start) begin
        in_busy <= 1'b1;
        len     <= frame_len;
      end else if (appending) begin
        in_busy <= 1'b0;
      end
      if (push_ok && push_n != '0) begin
        pushed <= in_pushed + 16'(push_n);
        crc    <= crc_next;
      end else if (start) begin
        pushed <= '0;
        crc    <= CRC_INIT;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      emitted <= '0;
    end else if (o_valid && o_ready) begin
      emitted <= o_last ? 16'd0 : emitted + 16'(beat_n);
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (rst_n && push_ok && push_n != '0) begin
      assert (16'(push_n) <= (start ? frame_len - 16'd4 : body_left)) else $error("tx framer: pushed past the frame body");
    end
    if (rst_n && start) begin
      assert (!in_busy && lf_room) else $error("tx framer: start while a frame is being pushed or two are held");
      assert (frame_len > 16'd4) else $error("tx framer: a frame no longer than its ICRC");
    end
  end
`endif
endmodule
