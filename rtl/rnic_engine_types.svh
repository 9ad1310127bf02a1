// The transport engine's own types, written by hand: its job states, the
// job registers, and the per-QP transport state with the write port the job
// units use. Layouts software or the wire sees are rnic.toml's; these are
// private to rnic_engine and its units. gen_spec.py copies this file into
// rnic_pkg (rnic.toml's sv_package_parts), because Yosys 0.23 resolves no
// other package's names inside a package: so the types are rnic_pkg::job_t
// and so on, sized by the spec's NUM_QP, NUM_CQ and MAX_RD_ATOMIC.
//
// Not a file to compile on its own: it is the body of a package.
  localparam int unsigned QP_IDX_W     = $clog2(NUM_QP);
  localparam int unsigned CQ_IDX_W     = $clog2(NUM_CQ);
  localparam int unsigned FLIGHT_IDX_W = $clog2(MAX_RD_ATOMIC);   // a slot of the in-flight table, per QP
  // The words of a WQE the engine reads: the header and MAX_SGE SGEs. The
  // rest of WQE_BYTES is room no field uses; fetching it would cost one
  // beat a word on every WQE (4 of 16 at the defaults).
  localparam int unsigned WQE_FETCH_WORDS = WQE_SGE_WORD + 2 * MAX_SGE;
  // The bytes of a received frame rnic_hdr_parse reads: the fields end
  // with the RETH at byte 70; 80 kept the buffer's header window whole
  // 8-byte words. The receive buffer keeps ceil(80 / DATA_BYTES) words apart.
  localparam int unsigned RX_HDR_BYTES = 80;

  // Host address of WQE `idx` (mod the ring's 2^lg entries) of a ring at `base`.
  function automatic logic [63:0] wqe_addr(input logic [63:0] base, input logic [15:0] idx,
                                           input logic [3:0] lg);
    wqe_addr = base + {48'd0, idx & 16'((17'd1 << lg) - 17'd1)} * 64'(WQE_BYTES);
  endfunction

  // Path MTUs are kept as log2 of their bytes (8..clog2(MTU)): a QP's is
  // rnic_qp_config's, from QP_PATH.PATH_MTU (InfiniBand's code 1..5 is
  // log2 - 7; code 0 is the largest this NIC builds, MTU).
  function automatic logic [3:0] path_log_mtu(input logic [3:0] code);
    path_log_mtu = (code == 4'd0) ? 4'($clog2(MTU)) : code + 4'd7;
  endfunction
  function automatic logic [31:0] mtu_bytes(input logic [3:0] lg);
    mtu_bytes = 32'd1 << lg;
  endfunction

  // The payload of the next packet of a message with `left` bytes to go:
  // a whole path MTU (2^lg bytes), or what is left.
  function automatic logic [15:0] pkt_len(input logic [31:0] left, input logic [3:0] lg);
    pkt_len = 16'((left < mtu_bytes(lg)) ? left : mtu_bytes(lg));
  endfunction

  // The PSNs a message of `len` bytes takes: one per path MTU, and one for
  // an empty message (a READ request takes as many, for its responses).
  function automatic logic [23:0] msg_psns(input logic [31:0] len, input logic [3:0] lg);
    msg_psns = (len == 32'd0) ? 24'd1 : 24'(({1'b0, len} + 33'(mtu_bytes(lg)) - 33'd1) >> lg);
  endfunction

  // PSNs are 24 bits and compare modulo 2^24: the distance from b to a.
  function automatic logic [23:0] psn_off(input logic [23:0] a, input logic [23:0] b);
    psn_off = a - b;
  endfunction

  // Where a retransmission of the oldest WQE in flight starts, in packets
  // from its first PSN: a READ asks again for what has not arrived (its
  // responses come in order, got bytes so far); a SEND or WRITE resumes at
  // the PSN the responder last said it expects (a sequence or RNR NAK's),
  // when that falls inside the WQE, else at its first packet.
  function automatic logic [23:0] resume_pkts(input logic is_read, input logic [23:0] first,
                                              input logic [23:0] last, input logic [31:0] got,
                                              input logic [23:0] acked, input logic [3:0] lg);
    if (is_read)
      resume_pkts = 24'(got >> lg);
    else if (psn_off(acked, first) <= psn_off(last, first))
      resume_pkts = psn_off(acked, first);
    else
      resume_pkts = 24'd0;
  endfunction

  // An RNR NAK's timer code as cycles at 250 MHz (InfiniBand's table, in
  // microseconds x 250; code 0 is the longest, 655.36 ms).
  function automatic logic [31:0] rnr_cycles(input logic [4:0] code);
    unique case (code)
      5'd0:  rnr_cycles = 32'd163840000;
      5'd1:  rnr_cycles = 32'd2500;
      5'd2:  rnr_cycles = 32'd5000;
      5'd3:  rnr_cycles = 32'd7500;
      5'd4:  rnr_cycles = 32'd10000;
      5'd5:  rnr_cycles = 32'd15000;
      5'd6:  rnr_cycles = 32'd20000;
      5'd7:  rnr_cycles = 32'd30000;
      5'd8:  rnr_cycles = 32'd40000;
      5'd9:  rnr_cycles = 32'd60000;
      5'd10: rnr_cycles = 32'd80000;
      5'd11: rnr_cycles = 32'd120000;
      5'd12: rnr_cycles = 32'd160000;
      5'd13: rnr_cycles = 32'd240000;
      5'd14: rnr_cycles = 32'd320000;
      5'd15: rnr_cycles = 32'd480000;
      5'd16: rnr_cycles = 32'd640000;
      5'd17: rnr_cycles = 32'd960000;
      5'd18: rnr_cycles = 32'd1280000;
      5'd19: rnr_cycles = 32'd1920000;
      5'd20: rnr_cycles = 32'd2560000;
      5'd21: rnr_cycles = 32'd3840000;
      5'd22: rnr_cycles = 32'd5120000;
      5'd23: rnr_cycles = 32'd7680000;
      5'd24: rnr_cycles = 32'd10240000;
      5'd25: rnr_cycles = 32'd15360000;
      5'd26: rnr_cycles = 32'd20480000;
      5'd27: rnr_cycles = 32'd30720000;
      5'd28: rnr_cycles = 32'd40960000;
      5'd29: rnr_cycles = 32'd61440000;
      5'd30: rnr_cycles = 32'd81920000;
      default: rnr_cycles = 32'd122880000;
    endcase
  endfunction

  // What a job asks of its QP's retransmission timer (rnic_ack_timer), one
  // cycle after the step that asks.
  typedef enum logic [1:0] {
    TMR_NONE,
    TMR_ARM_ACK,     // (re)start the ACK timeout: a request left, or progress came
    TMR_ARM_RNR,     // wait out an RNR NAK's delay (tmr_code)
    TMR_STOP         // nothing in flight any more
  } tmr_op_t;

  // What the completer does with an ACK, a NAK or a READ response, for the
  // QP's oldest WQE in flight (rnic_comp_check decides).
  typedef enum logic [2:0] {
    COMP_ACT_NONE,       // answers nothing new: a duplicate, stale or out of the window
    COMP_ACT_COMPLETE,   // the oldest is acknowledged: complete it, then look again
    COMP_ACT_DATA,       // the next READ response of the oldest, a READ
    COMP_ACT_FAIL,       // a NAK refused the oldest: complete it with ack_status
    COMP_ACT_RETRY,      // resend from the oldest (a sequence NAK, or a response lost)
    COMP_ACT_RNR,        // the responder had no RECV: wait, then resend
    COMP_ACT_PROGRESS    // an ACK inside the oldest SEND or WRITE: part of it arrived
  } comp_act_t;

  // The engine runs one job at a time, in these states. Which unit owns
  // each: rnic_job_control (idle, fetch, transmit, the start and the
  // payload of a received frame), rnic_requester (S_SQ_*), rnic_responder
  // (a request packet: S_RX_RKEY_*, S_RX_SEND_*, S_RD_RESP_*, S_ACK_*) and
  // rnic_completer (an ACK or READ response, CQEs, flushes, errors, binds).
  typedef enum logic [5:0] {
    S_IDLE, S_FETCH_REQ, S_FETCH_DATA,
    S_SQ_DECODE, S_SQ_NOP, S_SQ_CHECK, S_SQ_CHECK_WAIT, S_SQ_GO, S_SQ_PKT, S_SQ_PKT_DONE,
    S_TX,
    S_RX_PARSE, S_RX_RKEY_WAIT, S_RX_SEND_WQE, S_RX_SEND_CHECK, S_RX_SEND_CHECK_WAIT,
    S_RX_SEND_PLACE, S_RX_RRESP_WQE, S_RX_SCATTER, S_RX_WAIT_WR, S_RX_AFTER,
    S_RD_RESP_DONE, S_ACK_SEND, S_ACK_DONE,
    S_CQE_FETCH_DONE, S_CQE,
    S_FLUSH_PICK, S_FLUSH_FETCHED, S_SQ_ERR, S_ERROR_QP,
    S_BIND_START, S_BIND,
    S_ACK_MORE,      // a cumulative ACK or NAK: does it answer the next oldest too?
    S_RETRY          // a QP's retransmission is due: resend from the oldest, or fail it
  } job_state_t;

  // The job registers: what one job carries from state to state. Each
  // unit computes their next value for the states it owns; the engine
  // registers the owner's.
  typedef struct packed {
    job_state_t          st;
    job_state_t          ret_st;          // where S_FETCH_DATA and S_TX go on
    job_state_t          after_cqe;       // where S_CQE goes on
    logic [QP_IDX_W-1:0]   cur;             // QP the job is for
    // WQE fetch: fetch_n words from fetch_addr into the engine's wq.
    logic [4:0]      fetch_i, fetch_n;
    logic [63:0]     fetch_addr;
    logic            fetch_err;
    // Which WQE wq holds whole (a WQE_FETCH_WORDS fetch), so the packets of one
    // message after the first (READ responses, SEND middles) need not
    // fetch their WQE again. The next fetch or any QP command forgets it.
    logic            wq_held, wq_held_recv, fetch_recv;
    logic [QP_IDX_W-1:0]   wq_held_qp, fetch_qp;
    logic [15:0]     wq_held_idx, fetch_idx;
    logic [2:0]      chk_i;           // SGE being checked
    logic [31:0]     bytes_left, total;
    logic [15:0]     pkt_i;
    // Header fields of the frame being sent.
    bth_t            tx_opcode;
    logic [7:0]      tx_syndrome;     // rnic_pkg::AETH_*, or an RNR NAK with its timer code
    logic            tx_ackreq, tx_se;
    logic [1:0]      tx_ext, tx_pad;  // tx_ext: HDR_EXT_*
    logic [23:0]     tx_psn;
    logic [63:0]     tx_va;
    logic [31:0]     tx_rkey, tx_rlen;
    logic [15:0]     tx_plen;
    // The received frame.
    logic            wr_fault;        // a payload DMA write of this job failed
    logic            rx_held;         // the receive buffer's frame is still ours
    logic [7:0]      l_op;            // its fields, kept past its release
    logic [23:0]     l_psn;
    logic            l_ackreq;
    aeth_syndrome_t  l_syn;
    logic            l_dup;           // a request with an older PSN than expected: a duplicate
    // The completion to write.
    logic [CQ_IDX_W-1:0]  cqe_cq;
    logic [7:0]      cqe_status, cqe_op;
    logic [15:0]     cqe_idx;
    logic            cqe_recv;
    logic [31:0]     cqe_len;
    logic [63:0]     cqe_wrid;
    logic [7:0]      err_status;      // status that moves `cur` to ERROR after the CQE
    logic            flush_recv;      // a NAK's RECV completes with its own status first
    // One-cycle outputs: events, the frame's release, a DMA fault.
    logic            ev_valid;
    logic [7:0]      ev_code;
    logic [15:0]     ev_qpn;
    logic [63:0]     ev_arg;
    logic            ev_rx_drop;
    logic            ev_cq_overflow;
    logic [15:0]     ev_queue;
    logic            rxb_release;
    logic            dma_fault;
    logic [31:0]     dma_addr;
    tmr_op_t         tmr_op;          // to cur's retransmission timer
    logic [4:0]      tmr_code;        // TMR_ARM_RNR: the RNR NAK's timer code
    logic            kick;            // cur's retransmission is due now (a NAK or a lost response said so)
  } job_t;

  // What moves with the work, per QP (rnic_qp_transport holds it; what
  // software configured is rnic_qp_config's).
  typedef struct packed {
    logic [23:0] sq_psn;     // next PSN to send
    logic [23:0] rq_psn;     // next PSN expected as responder
    logic [23:0] msn;
    logic [15:0] sq_ci;      // next WQE to start
    logic [15:0] rq_ci;
    logic [15:0] done;       // oldest WQE not completed; done..sq_ci-1 are in flight
    logic        fenced;     // the WQE at sq_ci waits until nothing is in flight
    logic        bind_wait;  // a BIND is in flight, not yet committed: nothing after it starts
    // The WQE at sq_ci is a READ over the QP's limit of READs in flight: it
    // waits until the oldest WQE in flight (hold_done) has completed.
    logic        rd_hold;
    logic [15:0] hold_done;
    logic [31:0] out_got;    // oldest WQE, a READ: bytes of it received so far
    logic [63:0] wr_va;      // responder RDMA WRITE cursor
    logic [31:0] wr_left;
    logic [31:0] wr_rkey;    // its rkey: every packet of a WRITE is checked again
    logic [31:0] rcv_got;    // responder SEND: bytes placed in the current RECV
    logic        snd_open;   // responder SEND: a message's FIRST came, its LAST not yet
    // Reliability (requester): retries left before the oldest fails (both
    // reset whenever the peer shows progress), an RNR NAK's wait, a resend
    // under way (a lost response then starts no second one), what the next
    // retry is for, and the PSN the responder last said it expects.
    logic [2:0]  retry_left;
    logic [2:0]  rnr_left;
    logic        rnr_wait;
    logic        retrying;
    logic [1:0]  kick_why;   // RETRY_WHY_*: what asked for the retry due (TIMEOUT if the timer)
    logic [23:0] acked_psn;
    // Responder: a sequence (or RNR) NAK has gone out; later packets out of
    // sequence are dropped silently until the expected PSN comes.
    logic        nak_sent;
    // Requester: the WQE before sq_ci was paused between two of its packets
    // (a frame was waiting; rnic_requester), pause_pkts of them sent. It is
    // in flight, and the next pick of the QP sends the rest.
    logic        paused;
    logic [15:0] pause_pkts;
  } qp_xs_t;

  // A job's write to one QP's transport state: a write enable per field.
  typedef struct packed {
    logic sq_psn, rq_psn, msn, sq_ci, rq_ci, done, fenced, bind_wait, rd_hold, hold_done,
          out_got, wr_va, wr_left, wr_rkey, rcv_got, snd_open,
          retry_left, rnr_left, rnr_wait, retrying, kick_why, acked_psn, nak_sent, paused, pause_pkts;
  } qp_xs_we_t;

  // A WQE in flight, at slot {qp, index mod MAX_RD_ATOMIC}.
  typedef struct packed {
    logic [7:0]  op;
    logic [23:0] first;      // first PSN of its packets (READ: of its responses)
    logic [23:0] last;       // last PSN: the one its ACK names
    logic [31:0] len;
  } flight_t;

  typedef struct packed {
    logic op, first, last, len;
  } flight_we_t;

  // What the send-queue scheduler reads of one QP to decide whether it has
  // send work: rnic_qp_config's part and rnic_qp_transport's part. The
  // scheduler keeps its verdicts per QP and reads these rows only for the
  // QPs written in the cycle before (rnic_sq_scheduler).
  typedef struct packed {
    logic [1:0]  state;      // QP_STATE_*
    logic [15:0] sq_pi;
    logic [15:0] rq_pi;
  } sched_cfg_t;

  typedef struct packed {
    logic [15:0] sq_ci;
    logic [15:0] done;
    logic [15:0] rq_ci;
    logic [15:0] hold_done;
    logic        fenced, bind_wait, rd_hold, rnr_wait, paused;
    logic [7:0]  oldest_op;  // the opcode of the WQE at done (meaningful when done != sq_ci)
  } sched_xs_t;
  // Their widths, for ports that carry several rows (Yosys 0.23 takes no
  // $bits of a package's type there); rnic_sq_scheduler asserts they match.
  localparam int unsigned SCHED_CFG_W = 2 + 2 * 16;
  localparam int unsigned SCHED_XS_W  = 4 * 16 + 5 + 8;
