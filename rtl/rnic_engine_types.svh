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

  // Host address of WQE `idx` (mod the ring's 2^lg entries) of a ring at `base`.
  function automatic logic [63:0] wqe_addr(input logic [63:0] base, input logic [15:0] idx,
                                           input logic [3:0] lg);
    wqe_addr = base + {48'd0, idx & 16'((17'd1 << lg) - 17'd1)} * 64'(WQE_BYTES);
  endfunction

  // The payload of the next packet of a message with `left` bytes to go:
  // a whole MTU, or what is left.
  function automatic logic [15:0] pkt_len(input logic [31:0] left);
    pkt_len = 16'((left < 32'(MTU)) ? left : 32'(MTU));
  endfunction

  // The engine runs one job at a time, in these states. Which unit owns
  // each: rnic_job_control (idle, fetch, transmit, the start and the
  // payload of a received frame), rnic_requester (S_SQ_*), rnic_responder
  // (a request packet: S_RX_RKEY_*, S_RX_SEND_*, S_RD_RESP_*, S_ACK_*) and
  // rnic_completer (an ACK or READ response, CQEs, flushes, errors, binds).
  typedef enum logic [5:0] {
    S_IDLE, S_FETCH_REQ, S_FETCH_DATA,
    S_SQ_DECODE, S_SQ_NOP, S_SQ_CHECK, S_SQ_CHECK_WAIT, S_SQ_GO, S_SQ_PKT, S_SQ_PKT_DONE,
    S_TX,
    S_RX_PARSE, S_RX_RKEY_FIRE, S_RX_RKEY_WAIT, S_RX_SEND_WQE, S_RX_SEND_CHECK, S_RX_SEND_CHECK_WAIT,
    S_RX_SEND_PLACE, S_RX_RRESP_WQE, S_RX_SCATTER, S_RX_WAIT_WR, S_RX_AFTER,
    S_RD_RESP_PKT, S_RD_RESP_DONE, S_ACK_SEND, S_ACK_DONE,
    S_CQE_FETCH_DONE, S_CQE,
    S_FLUSH_PICK, S_FLUSH_FETCHED, S_SQ_ERR, S_ERROR_QP,
    S_BIND_START, S_BIND
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
    // Which WQE wq holds whole (a 16-word fetch), so the packets of one
    // message after the first (READ responses, SEND middles) need not
    // fetch their WQE again. The next fetch or any QP command forgets it.
    logic            wq_held, wq_held_recv, fetch_recv;
    logic [QP_IDX_W-1:0]   wq_held_qp, fetch_qp;
    logic [15:0]     wq_held_idx, fetch_idx;
    logic [2:0]      chk_i;           // SGE being checked
    logic [31:0]     bytes_left, total;
    logic [15:0]     pkt_i;
    logic [QP_IDX_W+FLIGHT_IDX_W-1:0] wslot;          // in-flight slot of the WQE being sent
    // Header fields of the frame being sent.
    bth_t            tx_opcode;
    aeth_t           tx_syndrome;
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
    logic [7:0]      ev_queue;
    logic            rxb_release;
    logic            dma_fault;
    logic [31:0]     dma_addr;
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
  } qp_xs_t;

  // A job's write to one QP's transport state: a write enable per field.
  typedef struct packed {
    logic sq_psn, rq_psn, msn, sq_ci, rq_ci, done, fenced, bind_wait, rd_hold, hold_done,
          out_got, wr_va, wr_left, wr_rkey, rcv_got, snd_open;
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
