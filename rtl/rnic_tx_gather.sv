// The transmit gather: sends one frame into the framer, its headers built
// from the fields the engine holds steady, then plen payload bytes read by
// DMA from the scatter/gather cursor's segments, then the pad.
//
// Contract with the engine: the engine holds start high, with the header
// fields steady, until done (combinational) ends the frame; the engine
// moves on in that same cycle. started (combinational) marks the cycle the
// frame begins (the framer was free).
//
// W bytes go to the framer a cycle (issue 12: W = 8, 16, 32 or 64): the
// headers W at a time, each payload beat as the DMA gave it (a burst's
// beats hold W bytes each from its first, the last one the rest).
//
// The first burst of the payload is asked for in the cycle the frame
// starts, so its DMA latency hides behind the headers (at W = 8 a 4 KiB
// packet is 512 beats; its headers 7 to 9 and the latency 16 on the
// platform; at W = 64 the headers are 1 or 2 beats and the latency shows,
// which is what the prefetch below is for): its beats wait in the DMA
// channel until the last header beat is pushed (the first is taken in that
// cycle, so the payload follows the headers with no idle cycle). Later bursts, and a first segment the cursor must
// step past (an empty SGE), are asked for after the one before.
//
// done comes with the last byte pushed when no pad follows: the frame's
// last payload beat (unless the host refused it), or its last header beat
// when it has no payload; later only if the prefetch's read request is
// still waiting for the DMA to take it (G_PF_WAIT: the port is the
// gather's only while start is high). The engine's next frame can then start while
// the framer still appends the ICRC: a frame waits for the framer only in
// started, on fr_free (the framer takes a start registered now).
//
// A payload the host refused to read (a DMA read error), or a segment list
// that runs dry before plen bytes (cannot happen for a checked WQE), sends
// the frame poisoned: the framer gives it a wrong ICRC so the peer drops
// it. A dry list still fills the frame to its length (zeros), since the
// framer waits for every byte it was told of. poison stays readable after done until the next frame starts, so the
// engine can fail the work request behind the frame.
//
// The prefetch (issue 12): at W = 32 and 64 the headers are too few beats
// to hide the first burst's DMA latency, so once every burst of this frame
// has been asked for, the gather asks for the first burst of the next
// packet of the same message (pf_plen bytes: the engine says how many, 0
// for none), from where the cursor then stands, without moving the cursor.
// The read port answers in order, so those beats wait in the DMA channel
// behind this frame's. The next frame that starts with the same pf_id, at
// the same address and length, takes them as its first burst (the cursor
// moves then, as if it had asked). Any other frame, or pf_keep going low
// (the engine is about to do something that could change what those bytes
// should be, or needs the read port), drops them: they are read and thrown
// away, refused or not, and pf_busy stays high until the last has gone.
// The bytes then sent are host memory read while the same work request
// was being sent, which is when a gather without prefetch reads them too.
//
// Payload beats pass through one register on their way from the DMA read
// channel to the framer: the framer's ICRC and byte queue then depend on
// flip-flops, not on the bus (the simulator evaluates input-dependent logic
// on every evaluation). Ready stays high while the register drains, so the
// stream keeps its full rate.
module rnic_tx_gather #(
  parameter int unsigned W   = rnic_pkg::DATA_BYTES,   // bytes a DMA beat and a framer push
  parameter int unsigned MTU = rnic_pkg::MTU,
  parameter int unsigned PF_ID_W = 1
) (
  input  logic        clk,
  input  logic        rst_n,

  input  logic        start,
  output logic        started,
  output logic        done,
  output logic        poison,
  output logic        idle,          // no payload beat held, no prefetch owed

  // The prefetch (above). pf_id names the message a frame belongs to.
  input  logic [15:0] pf_plen,       // the next packet's payload bytes (0: none), with start
  input  logic [PF_ID_W-1:0] pf_id,
  input  logic        pf_keep,       // a held prefetch may wait for its frame this cycle
  output logic [PF_ID_W-1:0] pf_held_id,
  output logic        pf_busy,       // a prefetch's beats are still owed (held or being dropped)
  output logic        pf_drop,       // its beats are being thrown away (rd_rsp_ready is high)

  // Who sends and to whom.
  input  logic [47:0] src_mac,
  input  logic [31:0] src_ip,
  input  logic [47:0] dst_mac,
  input  logic [31:0] dst_ip,
  input  logic [15:0] udp_sport,
  input  logic [23:0] dest_qp,
  // The transport headers (rnic_hdr_build's fields).
  input  rnic_pkg::bth_t  opcode,
  input  logic        solicited,
  input  logic [1:0]  pad,
  input  logic        ack_req,
  input  logic [23:0] psn,
  input  logic [1:0]  ext,           // rnic_pkg::HDR_EXT_*
  input  logic [63:0] reth_va,
  input  logic [31:0] reth_rkey,
  input  logic [31:0] reth_len,
  input  logic [7:0]  aeth_syndrome,   // rnic_pkg::AETH_*, or an RNR NAK with its timer
  input  logic [23:0] aeth_msn,
  input  logic [15:0] plen,

  // The payload's source.
  input  logic        seg_more,
  input  logic [31:0] seg_rem,
  input  logic [63:0] seg_addr,
  // The fault report (the DMA_FAULT register) holds only 32 address bits.
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [63:0] seg_base,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic        seg_next,
  output logic        seg_take,
  output logic [31:0] seg_take_n,

  // DMA reads (the engine gives the port to this unit while start is high).
  output logic        rd_req_valid,
  input  logic        rd_req_ready,
  output logic [63:0] rd_req_addr,
  output logic [12:0] rd_req_len,
  input  logic        rd_rsp_valid,
  output logic        rd_rsp_ready,
  input  logic [8*W-1:0] rd_rsp_data,
  input  logic        rd_rsp_last,
  input  logic        rd_rsp_err,

  // A refused read (one-cycle pulse) and the segment it was for.
  output logic        fault,
  output logic [31:0] fault_addr,

  // The framer.
  output logic        fr_start,
  output logic [15:0] fr_len,
  input  logic        fr_free,       // a start registered now finds the framer free (its free_next)
  input  logic        fr_push_ok,
  output logic [8*W-1:0] fr_push_data,
  output logic [$clog2(W):0] fr_push_n,
  output logic        fr_poison
);
  localparam logic [31:0] MTU32 = 32'(MTU);
  localparam logic [31:0] W32   = 32'(W);
  localparam int unsigned NW    = $clog2(W) + 1;   // fr_push_n: 0..W
  // rnic_hdr_build's 72 bytes in whole beats (the last one zero-filled at
  // W = 16, 32, 64) so the last header beat's select stays inside.
  localparam int unsigned HB_BEATS = (72 + W - 1) / W;
  localparam int unsigned HI = (HB_BEATS > 1) ? $clog2(HB_BEATS) : 1;

  // G_PF_WAIT: the frame is all pushed, but the prefetch's request is still
  // offered (a request is never withdrawn), so done waits for its handshake.
  typedef enum logic [2:0] { G_IDLE, G_HDR, G_PIECE, G_DATA, G_FILL, G_PAD, G_PF_WAIT } gather_state_t;
  gather_state_t gs;

  logic [HI-1:0] hdr_i;
  logic        early;        // the first burst was asked for (at the start or during the headers)
  logic [31:0] piece_left;   // bytes of this frame's payload still to request
  logic [31:0] burst_left;   // bytes of the current DMA burst still to push
  logic        rs_valid, rs_last, rs_err;
  logic [8*W-1:0] rs_data;

  function automatic logic [31:0] min32(input logic [31:0] x, input logic [31:0] y);
    min32 = (x < y) ? x : y;
  endfunction

  logic [8*72-1:0] hb;
  logic [6:0]      hb_len;
  logic [15:0]     hb_frame_len;
  logic [8*W*HB_BEATS-1:0] hbw;
  assign hbw = (8*W*HB_BEATS)'(hb);
  rnic_hdr_build u_build (
    .src_mac, .dst_mac, .src_ip, .dst_ip, .udp_sport, .opcode, .solicited, .pad, .dest_qp, .ack_req,
    .psn, .ext, .reth_va, .reth_rkey, .reth_len, .aeth_syndrome, .aeth_msn, .payload_len(plen),
    .hdr(hb), .hdr_len(hb_len), .frame_len(hb_frame_len));

  typedef enum logic [1:0] { PF_NONE, PF_HELD, PF_DROP } pf_state_t;
  pf_state_t   pfs;
  logic [63:0] pf_addr;
  logic [31:0] pf_len;
  logic        pf_doomed;    // pf_keep went low while this frame still took its own beats
  logic        pf_req;       // the prefetch is asked for now
  logic        pf_asking;    // it was offered and not yet taken: offered again, unchanged
  logic        pf_wait;      // it is offered and not taken in this cycle
  logic        done_raw;     // the frame is all pushed (done but for pf_wait)
  logic        pf_hit;       // the frame starting now takes the held prefetch
  logic [31:0] pf_piece;
  logic        own_req;      // this frame's own burst is asked for now
  logic        rsp_valid;    // a beat of this frame's (not one being dropped)
  logic        rsp_ready;

  logic [31:0] piece;
  logic [31:0] left;         // bytes still to request, the new frame's in its first cycle
  logic        hdr_last;     // the header beat pushed now is the last
  logic        data_end;     // the last payload beat is pushed now
  always_comb begin
    hdr_last = gs == G_HDR && fr_push_ok && (32'(hdr_i) + 32'd1) * W32 >= 32'(hb_len);
    started = start && gs == G_IDLE && fr_free;
    // In the cycle a frame starts, piece_left still holds the last frame's 0.
    left    = (gs == G_IDLE) ? 32'(plen) : piece_left;
    // A refused last beat ends the frame a cycle later, in G_PAD, so poison
    // (a flip-flop) already says so at done.
    data_end = gs == G_DATA && rs_valid && fr_push_ok && rs_last && !rs_err && piece_left == 32'd0;
    done_raw = (gs == G_PAD && (pad == 2'd0 || fr_push_ok)) || gs == G_PF_WAIT ||
               (pad == 2'd0 && (data_end || (hdr_last && plen == 16'd0)));
    idle    = !rs_valid && pfs == PF_NONE;
    piece   = min32(min32(left, seg_rem), MTU32);

    pf_busy    = pfs != PF_NONE;
    pf_drop    = pfs == PF_DROP;
    pf_hit     = started && pf_keep && pfs == PF_HELD && !pf_doomed && pf_held_id == pf_id && left != 32'd0 &&
                 seg_rem != 32'd0 && seg_addr == pf_addr && piece == pf_len;
    own_req    = (started || gs == G_PIECE || (gs == G_HDR && !early)) && left != 32'd0 &&
                 seg_rem != 32'd0 && !pf_hit;
    // Every burst of this frame asked for (early: the one of G_HDR too), and
    // nothing held yet: the next packet's first burst, from the cursor's
    // segment only (a step to the next SGE waits for its own frame).
    pf_piece   = min32(min32(32'(pf_plen), seg_rem), MTU32);
    // Once offered it stays offered until taken (the cursor, pf_plen and so
    // the request do not change until the frame is done, and done waits).
    pf_req     = pf_asking ||
                 ((gs == G_DATA || (gs == G_HDR && early)) && piece_left == 32'd0 && pfs == PF_NONE &&
                  pf_plen != 16'd0 && seg_rem != 32'd0);
    pf_wait    = pf_req && !rd_req_ready;
    done       = done_raw && !pf_wait;

    rd_req_valid = own_req || pf_req;
    rd_req_addr  = seg_addr;
    rd_req_len   = 13'(own_req ? piece : pf_piece);
    // A beat is taken into rs in G_DATA, or already as the last header beat
    // goes (the payload's first push then follows it at once). Not past a
    // burst's last beat: the beats behind it are the next burst's, perhaps
    // a prefetch the next frame is to take.
    rsp_valid    = rd_rsp_valid && pfs != PF_DROP;
    rsp_ready    = (gs == G_DATA || (hdr_last && early)) && (!rs_valid || (fr_push_ok && !rs_last));
    rd_rsp_ready = (pfs == PF_DROP) || rsp_ready;

    seg_next   = gs == G_PIECE && piece_left != 32'd0 && seg_rem == 32'd0 && seg_more;
    seg_take   = (own_req && rd_req_ready) || pf_hit;
    seg_take_n = piece;

    fr_len       = hb_frame_len;
    fr_poison    = poison;
    fr_push_data = '0;
    fr_push_n    = '0;
    unique case (gs)
      G_HDR: if (fr_push_ok) begin
        fr_push_data = hbw[8*W*hdr_i +: 8*W];
        fr_push_n    = NW'(min32(W32, 32'(hb_len) - 32'(hdr_i) * W32));
      end
      G_DATA: if (fr_push_ok && rs_valid) begin
        fr_push_data = rs_data;
        fr_push_n    = NW'(min32(W32, burst_left));
      end
      G_FILL: if (fr_push_ok) fr_push_n = NW'(min32(W32, burst_left));
      G_PAD: if (fr_push_ok) fr_push_n = NW'(pad);
      default: ;
    endcase
  end

  always_ff @(posedge clk) begin
    fr_start <= 1'b0;
    fault    <= 1'b0;
    if (!rst_n) begin
      gs       <= G_IDLE;
      poison   <= 1'b0;
      rs_valid <= 1'b0;
      rs_last  <= 1'b0;
      rs_err   <= 1'b0;
      rs_data  <= '0;
      fault_addr <= '0;
      pfs        <= PF_NONE;
      pf_addr    <= '0;
      pf_len     <= '0;
      pf_held_id <= '0;
      pf_doomed  <= 1'b0;
      pf_asking  <= 1'b0;
    end else begin
      pf_asking <= pf_wait;
      if (rsp_valid && rsp_ready) begin
        rs_valid <= 1'b1;
        rs_last  <= rd_rsp_last;
        rs_err   <= rd_rsp_err;
        rs_data  <= rd_rsp_data;
      end else if (gs == G_DATA && fr_push_ok) begin
        rs_valid <= 1'b0;
      end
      unique case (pfs)
        PF_NONE: if (pf_req && rd_req_ready) begin
          pfs        <= PF_HELD;
          pf_doomed  <= 1'b0;
          pf_addr    <= seg_addr;
          pf_len     <= pf_piece;
          pf_held_id <= pf_id;
        end
        // Dropping starts only once this frame's own beats are all taken
        // (gs back in G_IDLE), since they come before the prefetch's.
        PF_HELD: if (pf_hit) pfs <= PF_NONE;
                 else if (gs == G_IDLE && (started || !pf_keep || pf_doomed)) pfs <= PF_DROP;
                 else if (!pf_keep) pf_doomed <= 1'b1;
        PF_DROP: if (rd_rsp_valid && rd_rsp_last) pfs <= PF_NONE;
        default: pfs <= PF_NONE;
      endcase
      unique case (gs)
        G_IDLE: if (started) begin
          fr_start   <= 1'b1;
          hdr_i      <= '0;
          early      <= seg_take;
          piece_left <= seg_take ? 32'(plen) - piece : 32'(plen);
          burst_left <= piece;
          // Poison belongs to one frame: the engine has already acted on
          // the previous one (an ACK or NAK after a faulted payload must
          // leave intact).
          poison     <= 1'b0;
          gs         <= G_HDR;
        end
        G_HDR: begin
          if (seg_take) begin
            piece_left <= piece_left - piece;
            burst_left <= piece;
            early      <= 1'b1;
          end
          if (fr_push_ok) hdr_i <= hdr_i + HI'(1);
          if (hdr_last)
            gs <= (early || seg_take) ? G_DATA :
                  (plen != 16'd0) ? G_PIECE : done ? G_IDLE : done_raw ? G_PF_WAIT : G_PAD;
        end
        G_PIECE: begin
          if (piece_left == 32'd0) begin
            gs <= G_PAD;
          end else if (seg_rem == 32'd0) begin
            if (!seg_more) begin
              poison     <= 1'b1;   // the list ran dry: zeros for the rest
              burst_left <= piece_left;
              gs         <= G_FILL;
            end
          end else if (rd_req_ready) begin
            piece_left <= piece_left - piece;
            burst_left <= piece;
            gs <= G_DATA;
          end
        end
        G_DATA: if (rs_valid && fr_push_ok) begin
          burst_left <= burst_left - 32'(fr_push_n);
          if (rs_err) begin
            poison     <= 1'b1;
            fault      <= 1'b1;
            fault_addr <= seg_base[31:0];
          end
          if (rs_last) gs <= (piece_left != 32'd0) ? G_PIECE : done ? G_IDLE : done_raw ? G_PF_WAIT : G_PAD;
        end
        G_FILL: if (fr_push_ok) begin
          burst_left <= burst_left - 32'(fr_push_n);
          if (burst_left <= W32) gs <= G_PAD;
        end
        G_PAD: if (done) gs <= G_IDLE; else if (done_raw) gs <= G_PF_WAIT;
        G_PF_WAIT: if (done) gs <= G_IDLE;
        default: gs <= G_IDLE;
      endcase
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    // The engine keeps asking until done: a frame is never abandoned.
    if (rst_n && gs != G_IDLE) a_start_held: assert (start) else $error("tx gather: start dropped mid-frame");
    // One burst a cycle, and a prefetch only once the frame has asked for all of its own.
    if (rst_n) a_pf_alone: assert (!(own_req && pf_req)) else $error("tx gather: prefetch beside the frame's own read");
  end
`endif
endmodule
