// The reliable connection over a link that loses, duplicates and reorders:
// the ACK timeout and go-back-N resend, cumulative ACKs, sequence NAKs and
// resuming a message in its middle, duplicate requests, RNR NAKs and their
// retries, and a connection that gives up. Each test breaks one frame on
// the link (the bench's hook) and checks what both NICs did about it, to
// the frame and the event. The transport mutants (MUTANT 12-18) each make
// at least one of these fail (tests/mutants/run_mutants.sh).
#include <algorithm>

#include "bench_common.h"
#include "frame_check.h"

namespace {

// QP_TIMERS: ACK timeout 1024 x 2^t cycles, retry and RNR retry counts, the
// RNR timer code a NAK carries.
uint32_t timers(unsigned t, unsigned retry, unsigned rnr, unsigned min_rnr) {
    return t << RNIC_QP_TIMERS_ACK_TIMEOUT_SHIFT | retry << RNIC_QP_TIMERS_RETRY_CNT_SHIFT |
           rnr << RNIC_QP_TIMERS_RNR_RETRY_SHIFT | min_rnr << RNIC_QP_TIMERS_MIN_RNR_TIMER_SHIFT;
}

constexpr unsigned kOpOffset = 42;    // BTH opcode in a frame (Ethernet, IPv4, UDP before it)
constexpr unsigned kPsnOffset = 51;
constexpr uint32_t kPsn0 = 0x100;     // Bench::pair: the first PSN nic0 sends

unsigned op_of(const std::vector<uint8_t> &f) { return f.size() > kOpOffset ? f[kOpOffset] : 0xFFu; }
uint32_t psn_of(const std::vector<uint8_t> &f) {
    return static_cast<uint32_t>(f[kPsnOffset] << 16 | f[kPsnOffset + 1] << 8 | f[kPsnOffset + 2]);
}

std::vector<TraceEvent> events_of(const Fabric &f, int n, unsigned ev) {
    std::vector<TraceEvent> out;
    for (const TraceEvent &e : f.events[n])
        if (e.event == ev) out.push_back(e);
    return out;
}

unsigned retry_why(const TraceEvent &e) {
    return static_cast<unsigned>(e.arg >> RNIC_EV_ARG_RETRY_WHY_SHIFT & RNIC_EV_ARG_RETRY_WHY_MASK);
}
uint32_t retry_psn(const TraceEvent &e) {
    return static_cast<uint32_t>(e.arg >> RNIC_EV_ARG_RETRY_PSN_SHIFT & RNIC_EV_ARG_RETRY_PSN_MASK);
}

unsigned count_sent(const Fabric &f, int n, unsigned opcode) {
    unsigned k = 0;
    for (const std::vector<uint8_t> &fr : f.sent[n])
        if (op_of(fr) == opcode) k++;
    return k;
}

unsigned state_of(Bench &b, int n, unsigned qpn) { return b.d.qp_state(n, qpn) & 0xFFu; }
unsigned rx_drops(Bench &b, int n) { return b.f.bar_read(n, RNIC_REG_RX_DROPS); }

SendWr rdma(unsigned opcode, const Buf &local, uint32_t len, const Buf &remote, uint64_t wr_id) {
    SendWr wr;
    wr.opcode = opcode;
    wr.sg = {Sge{local.addr, len, local.key}};
    wr.remote_addr = remote.addr;
    wr.rkey = remote.key;
    wr.wr_id = wr_id;
    return wr;
}

SendWr send_wr(const Buf &local, uint32_t len, uint64_t wr_id) {
    SendWr wr;
    wr.opcode = RNIC_OP_SEND;
    wr.sg = {Sge{local.addr, len, local.key}};
    wr.wr_id = wr_id;
    return wr;
}

// QP 2 of each NIC, connected, with these QP_TIMERS.
void connect(Bench &b, Qp &q0, Qp &q1, uint32_t qp_timers) {
    b.d.qp_timers = qp_timers;
    b.pair(2, q0, q1);
}

// A registered buffer of `len` bytes on NIC n, filled from `seed`.
Buf filled(Bench &b, int n, uint32_t len, unsigned seed) {
    Buf x = b.buffer(n, len, b.next_index());
    b.fill(x, seed);
    return x;
}

// A READ of `len` bytes from `remote` into `local` on q0 completes once,
// with SUCCESS, and the bytes match.
void read_completes_once(Bench &b, Qp &q0, const Buf &local, uint32_t len, const Buf &remote, uint64_t wr_id) {
    b.d.post_send(q0, rdma(RNIC_OP_RDMA_READ, local, len, remote, wr_id));
    Cqe c;
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(c.wr_id, wr_id);
    b.d.settle();
    CHECK(!b.d.poll(b.scq[0], c));
    CHECK(b.read(local) == b.read(remote));
}

// Drops the first frame NIC `from` sends with `opcode`.
void drop_first(Bench &b, int from, unsigned opcode) {
    auto left = std::make_shared<int>(1);
    b.f.link_hook = [=](int n, std::vector<uint8_t> &fr) {
        if (n == from && op_of(fr) == opcode && *left > 0) {
            (*left)--;
            return false;
        }
        return true;
    };
}

// The payload bytes of each frame NIC n sent with an opcode in [lo, hi].
std::vector<size_t> payloads(const Fabric &f, int n, unsigned lo, unsigned hi) {
    std::vector<size_t> out;
    for (const std::vector<uint8_t> &fr : f.sent[n]) {
        RoceFrame rf;
        if (op_of(fr) >= lo && op_of(fr) <= hi && decode_frame(fr, rf).empty()) out.push_back(rf.payload.size());
    }
    return out;
}

// A message of len bytes cut at a path MTU of mtu bytes.
std::vector<size_t> cut(size_t len, size_t mtu) {
    std::vector<size_t> out;
    for (size_t at = 0; at < len; at += mtu) out.push_back(std::min(mtu, len - at));
    return out;
}

}  // namespace

// A lost WRITE: nothing answers it, the ACK timeout (1024 x 2^1 cycles)
// runs out, the requester resends it whole, and it completes once.
BENCH_TEST(timeout_retry) {
    Bench b;
    Qp q0, q1;
    connect(b, q0, q1, timers(1, 7, 7, 12));
    Buf src = filled(b, 0, 256, 1);
    Buf dst = filled(b, 1, 256, 2);
    drop_first(b, 0, RNIC_BTH_WRITE_ONLY);
    b.d.post_send(q0, rdma(RNIC_OP_RDMA_WRITE, src, 200, dst, 11));
    Cqe c;
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(c.wr_id, 11);
    CHECK(b.read(1, dst.addr, 200) == b.read(0, src.addr, 200));
    std::vector<TraceEvent> r = events_of(b.f, 0, RNIC_EV_RETRY);
    CHECK_EQ(r.size(), 1);
    if (!r.empty()) {
        CHECK_EQ(retry_why(r[0]), RNIC_RETRY_WHY_TIMEOUT);
        CHECK_EQ(retry_psn(r[0]), kPsn0);
        std::vector<TraceEvent> first = events_of(b.f, 0, RNIC_EV_PKT_FIRST);
        CHECK(!first.empty() && r[0].cycle - first[0].cycle >= 2048);
    }
    CHECK_EQ(count_sent(b.f, 0, RNIC_BTH_WRITE_ONLY), 2);
    b.d.settle();
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_RTS);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// A 40-packet WRITE, nothing lost: the responder acknowledges every PSN
// whose low ACK_PERIOD_LOG2 bits are all ones (AckReq or not) and the last
// (AckReq): with the first PSN 0x100, ACKs at packets 15, 31 and 39. Each
// earlier one is progress to the requester (its timer starts again), not a
// stray frame: RX_DROPS stays 0. This NIC's requester restarts its timer at
// every packet it sends and would not miss them; rxe's runs from the oldest
// packet unacknowledged, 67 ms of real time, which a long message from it
// outlasts at this NIC's simulated speed without them (docs/interop.md).
BENCH_TEST(periodic_ack) {
    Bench b;
    Qp q0, q1;
    connect(b, q0, q1, timers(6, 7, 7, 12));
    const uint32_t pkts = 40, len = pkts * RNIC_MTU, period = 1u << RNIC_ACK_PERIOD_LOG2;
    Buf src = filled(b, 0, len, 16);
    Buf dst = filled(b, 1, len, 17);
    b.d.post_send(q0, rdma(RNIC_OP_RDMA_WRITE, src, len, dst, 91));
    Cqe c;
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK(b.read(dst) == b.read(src));
    b.d.settle();
    std::vector<uint32_t> acks, want;
    for (const std::vector<uint8_t> &fr : b.f.sent[1])
        if (op_of(fr) == RNIC_BTH_ACKNOWLEDGE) acks.push_back(psn_of(fr) - kPsn0);
    for (uint32_t i = 0; i < pkts; i++)
        if (((kPsn0 + i) & (period - 1)) == period - 1 || i == pkts - 1) want.push_back(i);
    CHECK(want.size() >= 3);
    CHECK(acks == want);
    CHECK(events_of(b.f, 0, RNIC_EV_RETRY).empty());
    CHECK_EQ(count_sent(b.f, 0, RNIC_BTH_WRITE_MIDDLE), pkts - 2);
    CHECK_EQ(rx_drops(b, 0), 0);
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_RTS);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// Two WRITEs, the first one's ACK lost: the second ACK is cumulative and
// completes both, in order, with no resend.
BENCH_TEST(cumulative_ack) {
    Bench b;
    Qp q0, q1;
    connect(b, q0, q1, timers(3, 7, 7, 12));
    Buf src = filled(b, 0, 512, 3);
    Buf dst = b.buffer(1, 512, b.next_index());
    drop_first(b, 1, RNIC_BTH_ACKNOWLEDGE);
    b.d.post_send(q0, rdma(RNIC_OP_RDMA_WRITE, src, 100, dst, 21));
    Buf src2 = src, dst2 = dst;
    src2.addr += 256;
    dst2.addr += 256;
    b.d.post_send(q0, rdma(RNIC_OP_RDMA_WRITE, src2, 100, dst2, 22));
    Cqe c1, c2;
    CHECK(b.d.wait_cqe(b.scq[0], c1));
    CHECK(b.d.wait_cqe(b.scq[0], c2));
    CHECK_EQ(c1.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(c1.wr_id, 21);
    CHECK_EQ(c2.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(c2.wr_id, 22);
    CHECK_EQ(count_sent(b.f, 1, RNIC_BTH_ACKNOWLEDGE), 2);
    CHECK_EQ(events_of(b.f, 0, RNIC_EV_RETRY).size(), 0);
    CHECK_EQ(count_sent(b.f, 0, RNIC_BTH_WRITE_ONLY), 2);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// The middle packet of a three-packet WRITE is lost: the responder sends one
// sequence NAK naming it, and the requester resends from there (the middle
// and the last packet), not from the first.
BENCH_TEST(seq_nak_resume) {
    Bench b;
    Qp q0, q1;
    connect(b, q0, q1, timers(6, 7, 7, 12));
    const uint32_t len = 3 * RNIC_MTU;
    Buf src = filled(b, 0, len, 5);
    Buf dst = filled(b, 1, len, 6);
    drop_first(b, 0, RNIC_BTH_WRITE_MIDDLE);
    b.d.post_send(q0, rdma(RNIC_OP_RDMA_WRITE, src, len, dst, 31));
    Cqe c;
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK(b.read(dst) == b.read(src));
    bool seq_nak = false;
    for (const TraceEvent &e : events_of(b.f, 1, RNIC_EV_NAK_SENT))
        if ((e.arg & 0xFF) == RNIC_AETH_NAK_PSN_SEQUENCE) seq_nak = true;
    CHECK(seq_nak);
    std::vector<TraceEvent> r = events_of(b.f, 0, RNIC_EV_RETRY);
    CHECK_EQ(r.size(), 1);
    if (!r.empty()) {
        CHECK_EQ(retry_why(r[0]), RNIC_RETRY_WHY_SEQ_NAK);
        CHECK_EQ(retry_psn(r[0]), kPsn0 + 1);
    }
    CHECK_EQ(count_sent(b.f, 0, RNIC_BTH_WRITE_FIRST), 1);
    CHECK_EQ(count_sent(b.f, 0, RNIC_BTH_WRITE_MIDDLE), 2);
    CHECK_EQ(count_sent(b.f, 0, RNIC_BTH_WRITE_LAST), 2);
    CHECK_EQ(state_of(b, 1, 2), RNIC_QP_STATE_RTS);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// A SEND arrives twice: the duplicate is acknowledged again and takes no
// second RECV; the next SEND lands in that RECV.
BENCH_TEST(dup_send) {
    Bench b;
    Qp q0, q1;
    connect(b, q0, q1, timers(6, 7, 7, 12));
    Buf src = filled(b, 0, 256, 7);
    Buf dst = b.buffer(1, 512, b.next_index());
    b.d.post_recv(q1, {Sge{dst.addr, 256, dst.key}}, 41);
    b.d.post_recv(q1, {Sge{dst.addr + 256, 256, dst.key}}, 42);
    auto dups = std::make_shared<int>(1);
    b.f.link_dup = [=](int n, const std::vector<uint8_t> &fr) {
        if (n == 0 && op_of(fr) == RNIC_BTH_SEND_ONLY && *dups > 0) {
            (*dups)--;
            return true;
        }
        return false;
    };
    SendWr wr;
    wr.opcode = RNIC_OP_SEND;
    wr.sg = {Sge{src.addr, 64, src.key}};
    wr.wr_id = 43;
    b.d.post_send(q0, wr);
    Cqe c;
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK(b.d.wait_cqe(b.rcq[1], c));
    CHECK_EQ(c.wr_id, 41);
    b.d.settle();
    CHECK(!b.d.poll(b.rcq[1], c));   // the duplicate took no RECV
    CHECK_EQ(count_sent(b.f, 1, RNIC_BTH_ACKNOWLEDGE), 2);
    wr.wr_id = 44;
    wr.sg = {Sge{src.addr + 64, 32, src.key}};
    b.d.post_send(q0, wr);
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK(b.d.wait_cqe(b.rcq[1], c));
    CHECK_EQ(c.wr_id, 42);
    CHECK_EQ(c.byte_len, 32);
    CHECK(b.read(1, dst.addr, 64) == b.read(0, src.addr, 64));
    CHECK(b.read(1, dst.addr + 256, 32) == b.read(0, src.addr + 64, 32));
    CHECK_EQ(b.f.protocol_errors, 0);
}

// A READ request arrives twice: the duplicate, waiting behind the first
// response packet, ends that response (its second packet never leaves) and
// is answered from memory in full; the requester drops the repeated first
// packet, and the READ completes once.
BENCH_TEST(dup_read) {
    Bench b;
    Qp q0, q1;
    connect(b, q0, q1, timers(6, 7, 7, 12));
    const uint32_t len = 2 * RNIC_MTU;
    Buf remote = filled(b, 1, len, 8);
    Buf local = filled(b, 0, len, 9);
    auto dups = std::make_shared<int>(1);
    b.f.link_dup = [=](int n, const std::vector<uint8_t> &fr) {
        if (n == 0 && op_of(fr) == RNIC_BTH_READ_REQUEST && *dups > 0) {
            (*dups)--;
            return true;
        }
        return false;
    };
    read_completes_once(b, q0, local, len, remote, 51);
    CHECK_EQ(count_sent(b.f, 1, RNIC_BTH_READ_RESPONSE_FIRST), 2);
    CHECK_EQ(count_sent(b.f, 1, RNIC_BTH_READ_RESPONSE_LAST), 1);
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_RTS);
    CHECK_EQ(state_of(b, 1, 2), RNIC_QP_STATE_RTS);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// The middle response of a three-packet READ is lost: the next one shows
// it, and the requester asks again for the rest only (a READ request at the
// lost response's PSN, for the last two packets' bytes).
BENCH_TEST(read_resume) {
    Bench b;
    Qp q0, q1;
    connect(b, q0, q1, timers(6, 7, 7, 12));
    const uint32_t len = 3 * RNIC_MTU;
    Buf remote = filled(b, 1, len, 10);
    Buf local = filled(b, 0, len, 11);
    drop_first(b, 1, RNIC_BTH_READ_RESPONSE_MIDDLE);
    b.d.post_send(q0, rdma(RNIC_OP_RDMA_READ, local, len, remote, 61));
    Cqe c;
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK(b.read(local) == b.read(remote));
    std::vector<TraceEvent> r = events_of(b.f, 0, RNIC_EV_RETRY);
    CHECK_EQ(r.size(), 1);
    if (!r.empty()) {
        CHECK_EQ(retry_why(r[0]), RNIC_RETRY_WHY_IMPLICIT);
        CHECK_EQ(retry_psn(r[0]), kPsn0 + 1);
    }
    std::vector<uint32_t> req_psns;
    for (const std::vector<uint8_t> &fr : b.f.sent[0])
        if (op_of(fr) == RNIC_BTH_READ_REQUEST) req_psns.push_back(psn_of(fr));
    CHECK_EQ(req_psns.size(), 2);
    if (req_psns.size() == 2) CHECK_EQ(req_psns[1], kPsn0 + 1);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// The AETH MSN of READ responses counts the READ itself, as rxe's does
// (InfiniBand C9-148): after one WRITE (MSN 1), a two-packet READ's FIRST
// and LAST carry 2, and the next WRITE's ACK 3.
BENCH_TEST(read_response_msn) {
    Bench b;
    Qp q0, q1;
    connect(b, q0, q1, timers(6, 7, 7, 12));
    const uint32_t len = 2 * RNIC_MTU;
    Buf local = filled(b, 0, len, 28);
    Buf remote = filled(b, 1, len, 29);
    Cqe c;
    b.d.post_send(q0, rdma(RNIC_OP_RDMA_WRITE, local, 64, remote, 1));
    CHECK(b.d.wait_cqe(b.scq[0], c));
    read_completes_once(b, q0, local, len, remote, 2);
    b.d.post_send(q0, rdma(RNIC_OP_RDMA_WRITE, local, 64, remote, 3));
    CHECK(b.d.wait_cqe(b.scq[0], c));
    constexpr unsigned kAethMsn = 55;   // after the BTH: AETH syndrome, then the 24-bit MSN
    std::vector<std::pair<unsigned, uint32_t>> msns;
    for (const std::vector<uint8_t> &fr : b.f.sent[1])
        if (fr.size() > kAethMsn + 2)
            msns.emplace_back(op_of(fr), static_cast<uint32_t>(fr[kAethMsn] << 16 | fr[kAethMsn + 1] << 8 |
                                                               fr[kAethMsn + 2]));
    std::vector<std::pair<unsigned, uint32_t>> want = {{RNIC_BTH_ACKNOWLEDGE, 1},
                                                       {RNIC_BTH_READ_RESPONSE_FIRST, 2},
                                                       {RNIC_BTH_READ_RESPONSE_LAST, 2},
                                                       {RNIC_BTH_ACKNOWLEDGE, 3}};
    CHECK(msns == want);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// The second response of a 16-packet READ is lost. The third shows it, the
// requester asks again from there, and that request reaches the responder
// while it still sends the first answer: the responder ends that answer
// where it is and answers the new request. The PSNs it sends: 0 up to some
// k short of the end, then 1 to 15, each once. Answering both in full
// (0..15, then 1..15) is how a slow peer in another process fell behind the
// requester's timeouts until it gave up.
BENCH_TEST(read_superseded) {
    Bench b;
    Qp q0, q1;
    connect(b, q0, q1, timers(6, 7, 7, 12));
    const uint32_t pkts = 16, len = pkts * RNIC_MTU;
    Buf remote = filled(b, 1, len, 14);
    Buf local = filled(b, 0, len, 15);
    drop_first(b, 1, RNIC_BTH_READ_RESPONSE_MIDDLE);
    read_completes_once(b, q0, local, len, remote, 81);
    std::vector<uint32_t> psns;
    for (const std::vector<uint8_t> &fr : b.f.sent[1]) {
        unsigned op = op_of(fr);
        if (op >= RNIC_BTH_READ_RESPONSE_FIRST && op <= RNIC_BTH_READ_RESPONSE_ONLY) psns.push_back(psn_of(fr) - kPsn0);
    }
    // Where the first answer stopped: the first PSN not one past the last.
    size_t k = 1;
    while (k < psns.size() && psns[k] == psns[k - 1] + 1) k++;
    std::printf("read_superseded: the first answer stopped after %zu of %u packets\n", k, pkts);
    CHECK(k < pkts);
    std::vector<uint32_t> want;
    for (uint32_t i = 0; i < k; i++) want.push_back(i);
    for (uint32_t i = 1; i < pkts; i++) want.push_back(i);
    CHECK(psns == want);
    CHECK_EQ(events_of(b.f, 0, RNIC_EV_RETRY).size(), 1);
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_RTS);
    CHECK_EQ(state_of(b, 1, 2), RNIC_QP_STATE_RTS);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// No RECV posted and RNR_RETRY 0: the RNR NAK carries the responder's timer
// code, the SEND fails with RNR, and only the requester's QP goes to ERROR.
BENCH_TEST(rnr_exhausted) {
    Bench b;
    Qp q0, q1;
    connect(b, q0, q1, timers(6, 7, 0, 1));
    Buf src = b.buffer(0, 64, b.next_index());
    SendWr wr;
    wr.opcode = RNIC_OP_SEND;
    wr.sg = {Sge{src.addr, 64, src.key}};
    wr.wr_id = 3;
    b.d.post_send(q0, wr);
    Cqe c;
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_RNR);
    CHECK_EQ(c.wr_id, 3);
    b.d.settle();
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_ERROR);
    CHECK_EQ(state_of(b, 1, 2), RNIC_QP_STATE_RTS);
    bool rnr = false;
    for (const TraceEvent &e : events_of(b.f, 1, RNIC_EV_NAK_SENT))
        if ((e.arg & 0xFF) == (RNIC_AETH_RNR_NAK | 1u)) rnr = true;
    CHECK(rnr);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// No RECV posted yet: RNR NAK, the requester waits the RNR delay (code 1:
// 10 us, 2,500 cycles) and resends; once the RECV is posted the SEND lands.
BENCH_TEST(rnr_retry) {
    Bench b;
    Qp q0, q1;
    connect(b, q0, q1, timers(6, 7, 7, 1));
    Buf src = filled(b, 0, 128, 12);
    Buf dst = b.buffer(1, 128, b.next_index());
    SendWr wr;
    wr.opcode = RNIC_OP_SEND;
    wr.sg = {Sge{src.addr, 100, src.key}};
    wr.wr_id = 71;
    b.d.post_send(q0, wr);
    for (int i = 0; i < 200 && events_of(b.f, 1, RNIC_EV_NAK_SENT).empty(); i++)
        b.f.run(100);
    CHECK_EQ(events_of(b.f, 1, RNIC_EV_NAK_SENT).size(), 1);
    b.d.post_recv(q1, {Sge{dst.addr, 128, dst.key}}, 72);
    Cqe c;
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK(b.d.wait_cqe(b.rcq[1], c));
    CHECK_EQ(c.wr_id, 72);
    CHECK_EQ(c.byte_len, 100);
    CHECK(b.read(1, dst.addr, 100) == b.read(0, src.addr, 100));
    std::vector<TraceEvent> r = events_of(b.f, 0, RNIC_EV_RETRY);
    CHECK(!r.empty());
    if (!r.empty()) CHECK_EQ(retry_why(r[0]), RNIC_RETRY_WHY_RNR);
    std::vector<TraceEvent> nak = events_of(b.f, 1, RNIC_EV_NAK_SENT);
    if (!r.empty() && !nak.empty()) CHECK(r[0].cycle - nak[0].cycle >= 2500);
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_RTS);
    CHECK_EQ(state_of(b, 1, 2), RNIC_QP_STATE_RTS);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// The link drops everything nic0 sends: two retries (RETRY_CNT 2), then the
// WRITE fails with TRANSPORT and the requester's QP goes to ERROR.
BENCH_TEST(retry_exhausted) {
    Bench b;
    Qp q0, q1;
    connect(b, q0, q1, timers(1, 2, 7, 12));
    Buf src = b.buffer(0, 256, b.next_index());
    Buf dst = b.buffer(1, 256, b.next_index());
    b.f.link_hook = [](int n, std::vector<uint8_t> &) { return n != 0; };
    b.d.post_send(q0, rdma(RNIC_OP_RDMA_WRITE, src, 100, dst, 81));
    Cqe c;
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_TRANSPORT);
    CHECK_EQ(c.wr_id, 81);
    CHECK_EQ(events_of(b.f, 0, RNIC_EV_RETRY).size(), 2);
    CHECK_EQ(count_sent(b.f, 0, RNIC_BTH_WRITE_ONLY), 3);
    b.d.settle();
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_ERROR);
    CHECK_EQ(b.f.protocol_errors, 0);
}

namespace {


// Both NICs move `len` bytes to each other at once with `opcode` (a WRITE
// pushes, a READ pulls), each from its own QP 2 of the pair. Returns after
// checking that both complete with their data.
void both_ways(Bench &b, unsigned opcode, uint32_t len) {
    Qp q0, q1;
    b.pair(2, q0, q1);
    Buf a0 = filled(b, 0, len, 61);
    Buf a1 = filled(b, 1, len, 62);
    Buf b0 = filled(b, 0, len, 63);
    Buf b1 = filled(b, 1, len, 64);
    // A WRITE sends a0 into a1 and b1 into b0; a READ fetches a1 into a0
    // and b0 into b1.
    b.d.post_send(q0, rdma(opcode, a0, len, a1, 71));
    b.d.post_send(q1, rdma(opcode, b1, len, b0, 72));
    Cqe c0, c1;
    CHECK(b.d.wait_cqe(b.scq[0], c0));
    CHECK(b.d.wait_cqe(b.scq[1], c1));
    CHECK_EQ(c0.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(c0.wr_id, 71);
    CHECK_EQ(c1.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(c1.wr_id, 72);
    CHECK(b.read(a0) == b.read(a1));
    CHECK(b.read(b0) == b.read(b1));
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_RTS);
    CHECK_EQ(state_of(b, 1, 2), RNIC_QP_STATE_RTS);
}

// Neither NIC dropped a frame at its receive buffer or resent anything.
void nothing_lost(Bench &b) {
    for (int n = 0; n < 2; n++) {
        CHECK_EQ(rx_drops(b, n), 0);
        CHECK_EQ(events_of(b.f, n, RNIC_EV_RETRY).size(), 0);
    }
}

}  // namespace

// Both NICs WRITE 16 packets to each other at once. Each pauses its WRITE
// between packets whenever a frame of the peer waits, takes that frame in,
// and goes on: no frame waits long enough to be dropped, nothing is resent,
// and each WRITE's WQE is fetched again after its pauses.
BENCH_TEST(both_ways_pause) {
    Bench b;
    b.d.qp_timers = timers(10, 7, 7, 12);
    both_ways(b, RNIC_OP_RDMA_WRITE, 16 * RNIC_MTU);
    nothing_lost(b);
    CHECK(events_of(b.f, 0, RNIC_EV_WQE_FETCHED).size() > 2);
    CHECK(events_of(b.f, 1, RNIC_EV_WQE_FETCHED).size() > 2);
    CHECK_EQ(count_sent(b.f, 0, RNIC_BTH_WRITE_MIDDLE), 14);
    CHECK_EQ(count_sent(b.f, 1, RNIC_BTH_WRITE_MIDDLE), 14);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// A WRITE paused with the QP's whole window in flight: seven small WRITEs
// whose ACKs the link loses, then a 16-packet one, while the peer WRITEs
// 16 packets the other way (its frames make the long WRITE pause). Going
// on with a paused WQE is not starting one: the engine's checks on a WQE's
// start (the window, the fence, the bind fence) must not see it as one.
// Then the long WRITE's cumulative ACK completes all eight.
BENCH_TEST(resume_at_depth) {
    Bench b;
    Qp q0, q1;
    connect(b, q0, q1, timers(12, 7, 7, 12));
    const uint32_t big = 16 * RNIC_MTU;
    Buf src = filled(b, 0, big, 24);
    Buf dst = filled(b, 1, big, 25);
    Buf src1 = filled(b, 1, big, 26);
    Buf dst1 = filled(b, 0, big, 27);
    auto acks_lost = std::make_shared<int>(7);
    b.f.link_hook = [=](int n, std::vector<uint8_t> &fr) {
        if (n == 1 && op_of(fr) == RNIC_BTH_ACKNOWLEDGE && *acks_lost > 0) {
            (*acks_lost)--;
            return false;
        }
        return true;
    };
    for (uint64_t i = 0; i < 7; i++) b.d.post_send(q0, rdma(RNIC_OP_RDMA_WRITE, src, 8, dst, 100 + i));
    b.d.post_send(q0, rdma(RNIC_OP_RDMA_WRITE, src, big, dst, 107));
    b.d.post_send(q1, rdma(RNIC_OP_RDMA_WRITE, src1, big, dst1, 200));
    Cqe c;
    for (uint64_t i = 0; i < 8; i++) {
        CHECK(b.d.wait_cqe(b.scq[0], c));
        CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
        CHECK_EQ(c.wr_id, 100 + i);
    }
    CHECK(b.d.wait_cqe(b.scq[1], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK(b.read(dst) == b.read(src));
    CHECK(b.read(dst1) == b.read(src1));
    CHECK_EQ(*acks_lost, 0);
    // The long WRITE paused: its WQE was fetched again.
    CHECK(events_of(b.f, 0, RNIC_EV_WQE_FETCHED).size() > 8);
    CHECK(events_of(b.f, 0, RNIC_EV_RETRY).empty());
    CHECK_EQ(b.f.protocol_errors, 0);
}

// Both NICs READ 16 packets from each other at once. A READ's responses
// are one job that does not pause, so each NIC's receive buffer holds the
// peer's responses back while its own go out; the bench's links never push
// back on a transmit port, so neither NIC waits on both directions at once
// (the receive buffer's pause limit never acts: tests/rtl_units/rx_buffer
// and tests/driver/test_both_ways.c, whose links do push back, show it)
// and nothing is dropped or resent.
BENCH_TEST(both_ways_read) {
    Bench b;
    b.d.qp_timers = timers(10, 7, 7, 12);
    both_ways(b, RNIC_OP_RDMA_READ, 16 * RNIC_MTU);
    nothing_lost(b);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// At each path MTU (QP_PATH.PATH_MTU 1..5, 256 to 4,096 bytes, both ends
// alike) a WRITE, a READ and a SEND of 5,000 bytes go out cut at that MTU,
// the READ's responses likewise and its request takes one PSN per
// response, and every byte arrives. rxe's default path MTU on a 1,500-byte
// Ethernet is 1,024 (docs/interop.md); a NIC that counted READ responses
// per 4,096 bytes there would refuse all but the first.
BENCH_TEST(path_mtu) {
    for (uint32_t code = 1; code <= 5; code++) {
        Bench b;
        b.d.qp_path[0] = b.d.qp_path[1] = code;
        Qp q0, q1;
        connect(b, q0, q1, timers(8, 7, 7, 12));
        const size_t mtu = size_t{128} << code;
        const uint32_t len = 5000, pkts = static_cast<uint32_t>((len + mtu - 1) / mtu);
        Buf src = filled(b, 0, len, 30 + code);
        Buf dst = filled(b, 1, len, 40 + code);
        b.d.post_send(q0, rdma(RNIC_OP_RDMA_WRITE, src, len, dst, 71));
        Cqe c;
        CHECK(b.d.wait_cqe(b.scq[0], c));
        CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
        CHECK(b.read(dst) == b.read(src));
        Buf back = filled(b, 0, len, 50 + code);
        read_completes_once(b, q0, back, len, dst, 72);
        Buf inbox = filled(b, 1, len, 60 + code);
        b.d.post_recv(q1, {Sge{inbox.addr, len, inbox.key}}, 73);
        b.d.post_send(q0, send_wr(src, len, 74));
        CHECK(b.d.wait_cqe(b.scq[0], c));
        CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
        CHECK(b.d.wait_cqe(b.rcq[1], c));
        CHECK_EQ(c.byte_len, len);
        CHECK(b.read(inbox) == b.read(src));
        b.d.settle();
        const std::vector<size_t> want = cut(len, mtu);
        CHECK(payloads(b.f, 0, RNIC_BTH_WRITE_FIRST, RNIC_BTH_WRITE_ONLY) == want);
        CHECK(payloads(b.f, 0, RNIC_BTH_SEND_FIRST, RNIC_BTH_SEND_ONLY) == want);
        CHECK(payloads(b.f, 1, RNIC_BTH_READ_RESPONSE_FIRST, RNIC_BTH_READ_RESPONSE_ONLY) == want);
        // The request PSNs: the WRITE's, the READ's (one request standing
        // for its pkts responses), then the SEND's after those.
        std::vector<uint32_t> psns, want_psns;
        for (const std::vector<uint8_t> &fr : b.f.sent[0])
            if (op_of(fr) <= RNIC_BTH_READ_REQUEST) psns.push_back(psn_of(fr) - kPsn0);
        for (uint32_t i = 0; i < pkts; i++) want_psns.push_back(i);
        want_psns.push_back(pkts);
        for (uint32_t i = 0; i < pkts; i++) want_psns.push_back(2 * pkts + i);
        CHECK(psns == want_psns);
        CHECK(events_of(b.f, 0, RNIC_EV_RETRY).empty());
        CHECK_EQ(rx_drops(b, 0) + rx_drops(b, 1), 0);
        CHECK_EQ(b.f.protocol_errors, 0);
    }
}

// The two ends disagree. This requester at 4,096 bytes, its peer at 1,024:
// the first packet of a 5,000-byte WRITE carries more than the responder's
// path MTU. The other way round, a SEND's first packet of 1,024 bytes is
// short of the responder's 4,096. Either is refused at once (one NAK
// INVALID_REQUEST, REMOTE_OPERATION at the requester), not a byte placed.
BENCH_TEST(path_mtu_mismatch) {
    for (int way = 0; way < 2; way++) {
        Bench b;
        b.d.qp_path[way == 0 ? 1 : 0] = 3;
        Qp q0, q1;
        connect(b, q0, q1, timers(8, 7, 7, 12));
        const uint32_t len = 5000;
        Buf src = filled(b, 0, len, 80);
        Buf dst = filled(b, 1, len, 81);
        const std::vector<uint8_t> before = b.read(dst);
        if (way == 0) {
            b.d.post_send(q0, rdma(RNIC_OP_RDMA_WRITE, src, len, dst, 91));
        } else {
            b.d.post_recv(q1, {Sge{dst.addr, len, dst.key}}, 92);
            b.d.post_send(q0, send_wr(src, len, 93));
        }
        Cqe c;
        CHECK(b.d.wait_cqe(b.scq[0], c));
        CHECK_EQ(c.status, RNIC_CQE_STATUS_REMOTE_OPERATION);
        b.d.settle();
        CHECK(b.read(dst) == before);
        unsigned naks = 0;
        for (const std::vector<uint8_t> &fr : b.f.sent[1]) {
            RoceFrame rf;
            if (op_of(fr) == RNIC_BTH_ACKNOWLEDGE && decode_frame(fr, rf).empty() &&
                rf.aeth_syndrome == RNIC_AETH_NAK_INVALID_REQUEST)
                naks++;
        }
        CHECK_EQ(naks, 1);
        CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_ERROR);
        CHECK_EQ(b.f.protocol_errors, 0);
    }
}
