// The receive scatter: places the payload of the frame in the receive
// buffer into host memory, over the scatter/gather cursor's segments, as
// DMA write bursts of at most one MTU that never cross a segment.
//
// Two halves run at once: the source reads the buffer's words from the
// payload's offset and pushes their bytes into a byte queue, the sink pops
// the queue into the burst it has opened for the current piece of a
// segment. The queue is what lets an unaligned payload meet an unaligned
// destination at full rate.
//
// The source starts before the placement does: reading the buffer changes
// nothing, so it fills the queue while the engine still checks the frame's
// key. A burst's first beat then leaves in the cycle the burst is opened
// (w_addr and w_len are the segment's in that cycle, the burst's registers
// after it).
//
// Contract with the engine: load (a pulse, when the frame is parsed) takes
// the payload's offset and length in the buffer; hold is then high from the
// next cycle for as long as the frame stays the engine's (the source may
// read ahead), and start is held high until done (combinational), with the
// cursor loaded for this frame. A hold that falls without a start abandons
// the frame: the queue is emptied, and the next load comes before any
// start.
//
// done comes in the cycle the last burst's last beat is taken, once every
// byte has a burst, or in a cycle no burst is open and either every byte
// has a burst (none at all: an empty payload) or the segments ran out
// first (overrun: the engine's length checks make that unreachable; the
// engine fails the message instead of hanging). Done with the last beat,
// the engine's next state is a cycle sooner; that beat's write is counted
// as outstanding at the same edge, and the bursts' write completions are
// the engine's to wait for.
module rnic_rx_scatter #(
  parameter int unsigned W   = rnic_pkg::DATA_BYTES,
  parameter int unsigned MTU = rnic_pkg::MTU,
  parameter int unsigned RXD = (rnic_pkg::MTU + 128) / W
) (
  input  logic        clk,
  input  logic        rst_n,

  input  logic        load,
  input  logic [15:0] load_off,      // the payload's first byte in the buffer
  input  logic [15:0] load_len,
  input  logic        hold,          // the loaded frame is still in the buffer
  input  logic        start,
  output logic        done,
  output logic        overrun,       // with done: bytes left over, no segment for them
  output logic        idle,          // no byte held in the queue

  // The receive buffer's frame.
  output logic [$clog2(RXD)-1:0] rxb_rd_addr,
  input  logic [8*W-1:0] rxb_rd_data,

  // The destination.
  input  logic        seg_more,
  input  logic [31:0] seg_rem,
  input  logic [63:0] seg_addr,
  output logic        seg_next,
  output logic        seg_take,
  output logic [31:0] seg_take_n,

  // Bursts into the DMA write stream (tag 0: payload).
  output logic        w_valid,
  input  logic        w_ready,
  output logic [63:0] w_addr,      // held from the burst's first beat to its last
  output logic [12:0] w_len,
  output logic [8*W-1:0] w_data,
  output logic        w_last
);
  localparam logic [31:0] MTU32 = 32'(MTU);
  localparam int unsigned LW = $clog2(W);       // byte-in-word bits
  localparam int unsigned NW = LW + 1;          // a count of 0..W bytes
  localparam int unsigned QC = $clog2(3 * W) + 1;   // the queue's count and space (its CAP is 3W)

  logic [15:0] src_off, src_left;
  logic [31:0] scat_left;     // bytes not yet given a burst
  logic        sink_active;   // a burst is open (since a cycle before)
  logic [12:0] sink_beat_left;
  logic [63:0] burst_addr;
  logic [12:0] burst_len;

  function automatic logic [31:0] min32(input logic [31:0] x, input logic [31:0] y);
    min32 = (x < y) ? x : y;
  endfunction

  logic [8*W-1:0] q_head, q_push_data;
  logic [QC-1:0]  q_count, q_space;
  logic [NW-1:0]  q_push_n, q_pop_n;
  // Cleared when a frame is loaded, and once the frame is neither held nor
  // placed: normally empty then already (every byte placed), but bytes read
  // ahead of an overrun, or of a frame refused at its key check, must not
  // come out at the head of the next frame, nor keep the engine from idle.
  logic q_clear;
  assign q_clear = load || (!hold && !start);
  rnic_byte_queue #(.W(W)) u_queue (
    .clk, .rst_n, .clear(q_clear), .push_data(q_push_data), .push_n(q_push_n),
    .pop_n(q_pop_n), .head(q_head), .count(q_count), .space(q_space));

  // Source: buffer words -> byte queue.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [15:0] src_word;   // only the bits that address the buffer matter
  /* verilator lint_on UNUSEDSIGNAL */
  logic [LW-1:0] src_skip;
  logic [NW-1:0] src_n;
  logic        src_go;
  always_comb begin
    src_word    = src_off >> LW;
    src_skip    = src_off[LW-1:0];
    rxb_rd_addr = src_word[$clog2(RXD)-1:0];
    src_n       = NW'(min32(32'(W) - 32'(src_skip), 32'(src_left)));
    src_go      = (start || hold) && !load && src_left != 16'd0 && q_space >= QC'(W);
    q_push_data = rxb_rd_data >> (8 * src_skip);
    q_push_n    = src_go ? src_n : NW'(0);
  end

  // Sink: byte queue -> the open burst, or the one opened now.
  logic [NW-1:0] sink_n;
  logic [31:0] piece, scat_rest;
  logic [12:0] beat_left;   // of the burst open this cycle
  always_comb begin
    piece      = min32(min32(scat_left, seg_rem), MTU32);
    seg_next   = start && !sink_active && scat_left != 32'd0 && seg_more && seg_rem == 32'd0;
    seg_take   = start && !sink_active && scat_left != 32'd0 && seg_rem != 32'd0;
    seg_take_n = piece;
    scat_rest  = seg_take ? scat_left - piece : scat_left;
    beat_left  = sink_active ? sink_beat_left : 13'(piece);
    w_addr     = sink_active ? burst_addr : seg_addr;
    w_len      = sink_active ? burst_len : 13'(piece);
    sink_n  = (beat_left >= 13'(W)) ? NW'(W) : NW'(beat_left);
    w_valid = (sink_active || seg_take) && start && q_count >= QC'(sink_n);
    // Only the beat's own bytes: the lanes above them are queue bytes the
    // source may still be pushing, and a held beat must not change.
    w_data  = q_head & ~({8*W{1'b1}} << (8 * sink_n));
    w_last  = beat_left <= 13'(W);
    q_pop_n = (w_valid && w_ready) ? sink_n : NW'(0);
    done       = start && ((!sink_active && (scat_left == 32'd0 || !seg_more)) ||
                           (w_valid && w_ready && w_last && scat_rest == 32'd0));
    overrun    = scat_rest != 32'd0;
    idle       = q_count == '0;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      sink_active <= 1'b0;
      src_left    <= '0;
      scat_left   <= '0;
    end else if (load) begin
      src_off     <= load_off;
      src_left    <= load_len;
      scat_left   <= 32'(load_len);
      sink_active <= 1'b0;
    end else begin
      if (src_go) begin
        src_off  <= src_off + 16'(src_n);
        src_left <= src_left - 16'(src_n);
      end
      if (seg_take) begin
        burst_addr <= seg_addr;
        burst_len  <= 13'(piece);
        scat_left  <= scat_rest;
      end
      // A burst of one beat taken as it opens never shows as open.
      if (w_valid && w_ready) begin
        sink_beat_left <= beat_left - 13'(sink_n);
        sink_active    <= !w_last;
      end else if (seg_take) begin
        sink_beat_left <= beat_left;
        sink_active    <= 1'b1;
      end
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    // The engine parses a frame only between two scatters.
    if (rst_n && load) a_load_idle: assert (!sink_active) else $error("rx scatter: load with a burst open");
    // Every byte the source read went into a burst: when the last burst
    // is out, the payload is used up and nothing is left in the queue but
    // the last beat's bytes, popped at this edge.
    if (rst_n && done && !overrun)
      a_all_placed: assert (src_left == 16'd0 && q_count == QC'(q_pop_n)) else $error("rx scatter: payload bytes left over");
  end
`endif
endmodule
