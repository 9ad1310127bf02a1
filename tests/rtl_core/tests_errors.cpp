// Error paths: refused rkeys (NAK 0x62, no byte changed), refused lkeys (no
// frame sent), bad WQEs, WQE fetch faults, bad doorbells, SEND without a
// RECV or longer than it, corrupted frames, CQ overflow, flush.
#include <algorithm>

#include "bench_common.h"
#include "frame_check.h"

namespace {

uint32_t state_of(Bench &b, int n, unsigned qpn) { return b.d.qp_state(n, qpn) & 0xFFu; }
uint32_t err_of(Bench &b, int n, unsigned qpn) { return b.d.qp_state(n, qpn) >> 8 & 0xFFu; }

bool has_event(const Fabric &f, int n, unsigned ev, unsigned qpn) {
    for (const TraceEvent &e : f.events[n])
        if (e.event == ev && e.qpn == qpn) return true;
    return false;
}

// Every DMA write burst of NIC n that touched [addr, addr + len).
size_t writes_into(const Fabric &f, int n, uint64_t addr, uint64_t len) {
    size_t k = 0;
    for (const DmaWriteRecord &w : f.writes[n])
        if (w.addr < addr + len && addr < w.addr + w.len) k++;
    return k;
}

struct RkeyCase {
    const char *what;
    unsigned verdict;
};

}  // namespace

// A responder refuses the rkey: key, PZ, right, bounds, state, for WRITE and
// READ. The requester gets REMOTE_ACCESS then FLUSHED, both QPs end in ERROR,
// and the responder's memory is untouched (not a single DMA write into it).
BENCH_TEST(rkey) {
    Bench b;
    const RkeyCase cases[] = {
        {"wrong key", RNIC_PT_VERDICT_KEY},       {"other PZ", RNIC_PT_VERDICT_PZ},
        {"missing right", RNIC_PT_VERDICT_RIGHTS}, {"one past the end", RNIC_PT_VERDICT_BOUNDS},
        {"invalid entry", RNIC_PT_VERDICT_STATE},  {"no such index", RNIC_PT_VERDICT_INDEX},
    };
    unsigned qpn = 2;
    for (unsigned op : {RNIC_OP_RDMA_WRITE, RNIC_OP_RDMA_READ}) {
        for (const RkeyCase &k : cases) {
            int failures_before = rnic_check_failures();
            Qp q0, q1;
            b.pair(qpn, q0, q1);
            Buf local = b.buffer(0, 8192, b.next_index());
            uint32_t idx = b.next_index();
            Buf target = b.buffer(1, 8192, idx);
            b.fill(local, qpn);
            b.fill(target, 100 + qpn);
            uint32_t rkey = target.key;
            uint64_t raddr = target.addr;
            uint32_t len = 5000;   // two packets for a WRITE: the check covers the whole RETH length
            unsigned need = op == RNIC_OP_RDMA_WRITE ? RNIC_ACCESS_REMOTE_WRITE : RNIC_ACCESS_REMOTE_READ;
            switch (k.verdict) {
            case RNIC_PT_VERDICT_KEY: rkey ^= 0x01; break;
            case RNIC_PT_VERDICT_PZ:
                b.d.pt_write(1, idx, static_cast<uint8_t>(target.key), b.pz[1] + 1, target.addr, 8192, kAllAccess);
                break;
            case RNIC_PT_VERDICT_RIGHTS:
                b.d.pt_write(1, idx, static_cast<uint8_t>(target.key), b.pz[1], target.addr, 8192, kAllAccess & ~need);
                break;
            case RNIC_PT_VERDICT_BOUNDS: raddr = target.addr + 8192 - len + 1; break;
            case RNIC_PT_VERDICT_STATE:
                b.d.pt_write(1, idx, static_cast<uint8_t>(target.key), b.pz[1], target.addr, 8192, kAllAccess,
                             RNIC_PT_STATE_INVALID);
                break;
            default: rkey = BenchDriver::key(RNIC_PT_ENTRIES + 5, static_cast<uint8_t>(rkey)); break;
            }
            std::vector<uint8_t> target_before = b.read(target), local_before = b.read(local);
            size_t writes1 = b.f.writes[1].size();
            SendWr wr;
            wr.opcode = op;
            wr.sg = {Sge{local.addr, len, local.key}};
            wr.remote_addr = raddr;
            wr.rkey = rkey;
            wr.wr_id = 1;
            b.d.post_send(q0, wr);
            wr.opcode = RNIC_OP_RDMA_WRITE;   // a good one behind it: flushed
            wr.remote_addr = target.addr;
            wr.rkey = target.key;
            wr.wr_id = 2;
            wr.flags = 0;                      // unsignaled: an error completion is still written
            b.d.post_send(q0, wr);
            Cqe c;
            bool got = b.d.wait_cqe(b.scq[0], c);
            CHECK(got);
            if (got) {
                CHECK_EQ(c.status, RNIC_CQE_STATUS_REMOTE_ACCESS);
                CHECK_EQ(c.wr_id, 1);
                CHECK_EQ(c.qpn, qpn);
            }
            got = b.d.wait_cqe(b.scq[0], c);
            CHECK(got);
            if (got) {
                CHECK_EQ(c.status, RNIC_CQE_STATUS_FLUSHED);
                CHECK_EQ(c.wr_id, 2);
            }
            b.d.settle();
            CHECK(b.read(target) == target_before);
            CHECK(b.read(local) == local_before);
            size_t touched = 0;
            for (size_t i = writes1; i < b.f.writes[1].size(); i++) {
                const DmaWriteRecord &w = b.f.writes[1][i];
                if (w.addr < target.addr + 8192 && target.addr < w.addr + w.len) touched++;
            }
            CHECK_EQ(touched, 0);
            CHECK_EQ(writes_into(b.f, 0, local.addr, 8192), 0);
            CHECK_EQ(state_of(b, 0, qpn), RNIC_QP_STATE_ERROR);
            CHECK_EQ(err_of(b, 0, qpn), RNIC_CQE_STATUS_REMOTE_ACCESS);
            CHECK_EQ(state_of(b, 1, qpn), RNIC_QP_STATE_ERROR);
            // The responder's trace: the verdict, then the NAK (remote access error).
            bool verdict_seen = false, nak_seen = false;
            for (const TraceEvent &e : b.f.events[1]) {
                if (e.qpn != qpn) continue;
                if (e.event == RNIC_EV_RKEY_CHECK) {
                    CHECK_EQ(e.arg & 7u, k.verdict);
                    CHECK_EQ(e.arg >> 32, rkey);
                    verdict_seen = true;
                }
                if (e.event == RNIC_EV_NAK_SENT) {
                    CHECK_EQ(e.arg & 0xFFu, 0x62);
                    nak_seen = true;
                }
            }
            // An index past the table names no entry at all: still a verdict.
            CHECK(verdict_seen);
            CHECK(nak_seen);
            CHECK(has_event(b.f, 0, RNIC_EV_QP_ERROR, qpn));
            if (rnic_check_failures() != failures_before) std::fprintf(stderr, "  (case: %s, op %u)\n", k.what, op);
            qpn++;
        }
    }
    // A QP that does not allow remote writes refuses them whatever the key.
    Qp q0, q1;
    b.pair(15, q0, q1, RNIC_QP_FLAGS_ALLOW_RD_MASK);
    Buf local = b.buffer(0, 64, b.next_index());
    Buf target = b.buffer(1, 64, b.next_index());
    b.fill(target, 3);
    std::vector<uint8_t> before = b.read(target);
    SendWr wr;
    wr.opcode = RNIC_OP_RDMA_WRITE;
    wr.sg = {Sge{local.addr, 64, local.key}};
    wr.remote_addr = target.addr;
    wr.rkey = target.key;
    b.d.post_send(q0, wr);
    Cqe c;
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_REMOTE_ACCESS);
    CHECK(b.read(target) == before);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// The requester refuses a bad lkey itself: LOCAL_PROTECTION, nothing sent.
BENCH_TEST(lkey) {
    Bench b;
    unsigned qpn = 2;
    for (unsigned op : {RNIC_OP_SEND, RNIC_OP_RDMA_WRITE, RNIC_OP_RDMA_READ}) {
        for (int variant = 0; variant < 3; variant++) {
            Qp q0, q1;
            b.pair(qpn, q0, q1);
            unsigned rights = kAllAccess;
            if (variant == 1)   // the one right this operation needs is missing
                rights &= op == RNIC_OP_RDMA_READ ? ~RNIC_ACCESS_LOCAL_WRITE : ~RNIC_ACCESS_LOCAL_READ;
            Buf good = b.buffer(0, 4096, b.next_index());
            Buf bad = b.buffer(0, 4096, b.next_index(), rights);
            Buf remote = b.buffer(1, 8192, b.next_index());
            b.fill(remote, 1);
            b.fill(good, 2);
            std::vector<uint8_t> remote_before = b.read(remote), good_before = b.read(good);
            uint32_t lkey = variant == 0 ? bad.key ^ 0x80 : bad.key;
            uint32_t len = variant == 2 ? 4097 : 100;   // 2: past the end of the region
            if (op == RNIC_OP_SEND) b.d.post_recv(q1, {Sge{remote.addr, 8192, remote.key}}, 5);
            uint64_t frames = b.f.frames_sent[0];
            SendWr wr;
            wr.opcode = op;
            // The failing entry is the last of three: the first two pass.
            wr.sg = {Sge{good.addr, 10, good.key}, Sge{good.addr + 100, 10, good.key}, Sge{bad.addr, len, lkey}};
            wr.remote_addr = remote.addr;
            wr.rkey = remote.key;
            wr.wr_id = 1;
            b.d.post_send(q0, wr);
            wr.sg = {Sge{good.addr, 10, good.key}};
            wr.wr_id = 2;
            b.d.post_send(q0, wr);
            Cqe c;
            CHECK(b.d.wait_cqe(b.scq[0], c));
            CHECK_EQ(c.status, RNIC_CQE_STATUS_LOCAL_PROTECTION);
            CHECK_EQ(c.wr_id, 1);
            CHECK(b.d.wait_cqe(b.scq[0], c));
            CHECK_EQ(c.status, RNIC_CQE_STATUS_FLUSHED);
            CHECK_EQ(c.wr_id, 2);
            b.d.settle();
            CHECK_EQ(b.f.frames_sent[0], frames);   // not a single frame left
            bool first_pkt = false;
            for (const TraceEvent &e : b.f.events[0])
                if (e.event == RNIC_EV_PKT_FIRST && e.qpn == qpn) first_pkt = true;
            CHECK(!first_pkt);
            CHECK(b.read(remote) == remote_before);
            CHECK(b.read(good) == good_before);
            CHECK_EQ(state_of(b, 0, qpn), RNIC_QP_STATE_ERROR);
            CHECK_EQ(err_of(b, 0, qpn), RNIC_CQE_STATUS_LOCAL_PROTECTION);
            CHECK_EQ(state_of(b, 1, qpn), RNIC_QP_STATE_RTS);   // the peer never heard of it
            qpn++;
        }
    }
    // A RECV whose buffer lacks LOCAL_WRITE: the SEND is refused at the
    // responder (NAK 0x63), its RECV completes LOCAL_PROTECTION, no byte lands.
    Qp q0, q1;
    b.pair(14, q0, q1);
    Buf src = b.buffer(0, 256, b.next_index());
    Buf ro = b.buffer(1, 256, b.next_index(), kAllAccess & ~RNIC_ACCESS_LOCAL_WRITE);
    b.fill(ro, 9);
    std::vector<uint8_t> before = b.read(ro);
    b.d.post_recv(q1, {Sge{ro.addr, 256, ro.key}}, 44);
    SendWr wr;
    wr.opcode = RNIC_OP_SEND;
    wr.sg = {Sge{src.addr, 200, src.key}};
    b.d.post_send(q0, wr);
    Cqe c;
    CHECK(b.d.wait_cqe(b.rcq[1], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_LOCAL_PROTECTION);
    CHECK_EQ(c.wr_id, 44);
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_REMOTE_OPERATION);
    CHECK(b.read(ro) == before);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// Unknown opcode, a RECV on the send queue, too many SGEs, a wrong TOTAL_LEN,
// a WQE that cannot be fetched.
BENCH_TEST(badwqe) {
    Bench b;
    Buf buf = b.buffer(0, 4096, b.next_index());
    for (int variant = 0; variant < 5; variant++) {
        unsigned qpn = 2 + variant;
        Qp q0, q1;
        b.pair(qpn, q0, q1);
        uint64_t w[16] = {0};
        unsigned want = RNIC_CQE_STATUS_BAD_WQE;
        uint64_t frames = b.f.frames_sent[0];
        uint32_t status_before = b.f.bar_read(0, RNIC_REG_STATUS);
        if (variant == 0) {
            RNIC_SET(w, WQE, OPCODE, 0x77);
            RNIC_SET(w, WQE, FLAGS, RNIC_WQE_FLAG_SIGNALED);
        } else if (variant == 1) {
            RNIC_SET(w, WQE, OPCODE, RNIC_OP_RECV);   // a receive opcode on the send queue
        } else if (variant == 2) {
            RNIC_SET(w, WQE, OPCODE, RNIC_OP_RDMA_WRITE);
            RNIC_SET(w, WQE, NUM_SGE, RNIC_MAX_SGE + 1);
            for (unsigned i = 0; i < RNIC_MAX_SGE + 1; i++) {
                uint64_t *s = w + 4 + 2 * i;
                RNIC_SET(s, SGE, ADDR, buf.addr);
                RNIC_SET(s, SGE, LEN, 8);
                RNIC_SET(s, SGE, LKEY, buf.key);
            }
        } else if (variant == 4) {
            // TOTAL_LEN must be the sum of the SGE lengths.
            RNIC_SET(w, WQE, OPCODE, RNIC_OP_RDMA_WRITE);
            RNIC_SET(w, WQE, NUM_SGE, 1);
            RNIC_SET(w, WQE, TOTAL_LEN, 9);
            uint64_t *s = w + 4;
            RNIC_SET(s, SGE, ADDR, buf.addr);
            RNIC_SET(s, SGE, LEN, 8);
            RNIC_SET(s, SGE, LKEY, buf.key);
        } else {
            // The send ring moved to an unmapped address: the fetch faults.
            want = RNIC_CQE_STATUS_DMA_FAULT;
            uint64_t hole = b.f.mem(0).alloc(RNIC_WQE_BYTES * 64, RNIC_WQE_BYTES, false);
            b.f.bar_write(0, RNIC_REG_QP_SEL, qpn);
            b.f.bar_write(0, RNIC_REG_QP_SQ_BASE_LO, static_cast<uint32_t>(hole));
            b.f.bar_write(0, RNIC_REG_QP_SQ_BASE_HI, static_cast<uint32_t>(hole >> 32));
            b.f.bar_write(0, RNIC_REG_QP_CMD, RNIC_QP_CMD_INIT);
            b.f.bar_write(0, RNIC_REG_QP_CMD, RNIC_QP_CMD_RTS);
            b.f.run(4);
            q0.sq = hole;
        }
        RNIC_SET(w, WQE, WR_ID, 0x99);
        if (variant == 3) {
            q0.sq_pi++;
            b.d.ring_sq(q0);
        } else {
            b.d.post_raw(q0, w);
        }
        SendWr good;
        good.opcode = RNIC_OP_RDMA_WRITE;
        good.sg = {Sge{buf.addr, 8, buf.key}};
        good.wr_id = 2;
        if (variant != 3) b.d.post_send(q0, good);
        Cqe c;
        CHECK(b.d.wait_cqe(b.scq[0], c));
        CHECK_EQ(c.status, want);
        CHECK_EQ(c.wqe_idx, 0);
        CHECK_EQ(c.qpn, qpn);
        if (variant != 3) {
            CHECK_EQ(c.wr_id, 0x99);
            CHECK(b.d.wait_cqe(b.scq[0], c));
            CHECK_EQ(c.status, RNIC_CQE_STATUS_FLUSHED);
            CHECK_EQ(c.wr_id, 2);
        }
        b.d.settle();
        CHECK_EQ(b.f.frames_sent[0], frames);
        CHECK_EQ(state_of(b, 0, qpn), RNIC_QP_STATE_ERROR);
        CHECK_EQ(err_of(b, 0, qpn), want);
        uint32_t st = b.f.bar_read(0, RNIC_REG_STATUS);
        if (variant == 3) {
            CHECK(st & RNIC_STATUS_DMA_FAULT_MASK);
            if (!(status_before & ~RNIC_STATUS_DMA_FAULT_MASK))   // first error: its address
                CHECK_EQ(b.f.bar_read(0, RNIC_REG_ERR_ADDR), static_cast<uint32_t>(q0.sq));
        }
        b.f.bar_write(0, RNIC_REG_STATUS, 0xFFFFFFFFu);
    }
    CHECK_EQ(b.f.protocol_errors, 0);
}

// Doorbells that name no configured queue, or run ahead of the ring, are
// refused with STATUS.BAD_DOORBELL and change nothing.
BENCH_TEST(doorbell) {
    Bench b;
    Qp q0, q1;
    b.pair(2, q0, q1);
    Buf buf = b.buffer(0, 64, b.next_index());
    Buf rem = b.buffer(1, 64, b.next_index());
    auto expect_bad = [&](const char *what, uint32_t err_addr) {
        uint32_t st = b.f.bar_read(0, RNIC_REG_STATUS);
        CHECK(st & RNIC_STATUS_BAD_DOORBELL_MASK);
        CHECK_EQ(b.f.bar_read(0, RNIC_REG_ERR_ADDR), err_addr);
        if (!(st & RNIC_STATUS_BAD_DOORBELL_MASK)) std::fprintf(stderr, "  (%s)\n", what);
        b.f.bar_write(0, RNIC_REG_STATUS, RNIC_STATUS_BAD_DOORBELL_MASK);
        CHECK_EQ(b.f.bar_read(0, RNIC_REG_STATUS), 0);
    };
    CHECK_EQ(b.f.bar_read(0, RNIC_REG_STATUS), 0);
    uint64_t reads = b.f.dma_read_bytes[0];
    b.f.bar_write(0, static_cast<uint16_t>(RNIC_REG_DB_SQ + 8 * 9), 1);   // QP 9 is in RESET
    b.f.run(50);
    expect_bad("send doorbell of a QP in RESET", 9);
    b.f.bar_write(0, static_cast<uint16_t>(RNIC_REG_DB_RQ + 8 * 9), 1);
    b.f.run(50);
    expect_bad("receive doorbell of a QP in RESET", 9);
    b.f.bar_write(0, static_cast<uint16_t>(RNIC_REG_DB_CQ + 4 * 5), 1);   // CQ 5 was never created
    b.f.run(50);
    expect_bad("doorbell of a CQ not created", 5);
    // 65 ahead of the consumer in a ring of 64.
    b.f.bar_write(0, static_cast<uint16_t>(RNIC_REG_DB_SQ + 8 * 2), 65);
    b.f.run(200);
    expect_bad("index more than the ring ahead", 2);
    CHECK_EQ(b.f.dma_read_bytes[0], reads);   // nothing fetched
    // A doorbell going backwards (behind what was already posted).
    SendWr wr;
    wr.opcode = RNIC_OP_RDMA_WRITE;
    wr.sg = {Sge{buf.addr, 8, buf.key}};
    wr.remote_addr = rem.addr;
    wr.rkey = rem.key;
    b.d.post_send(q0, wr);
    b.d.post_send(q0, wr);
    Cqe c;
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK(b.d.wait_cqe(b.scq[0], c));
    b.f.bar_write(0, static_cast<uint16_t>(RNIC_REG_DB_SQ + 8 * 2), 1);
    b.f.run(50);
    expect_bad("doorbell behind the consumer", 2);
    // The QP still works after all of that.
    b.d.post_send(q0, wr);
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(c.wqe_idx, 2);
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_RTS);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// A SEND longer than the posted RECV: LOCAL_LENGTH at the receiver, NAK
// (invalid request) and REMOTE_OPERATION at the sender; no byte past the
// receive buffer is written.
BENCH_TEST(recvshort) {
    Bench b;
    Qp q0, q1;
    b.pair(2, q0, q1);
    Buf src = b.buffer(0, 9000, b.next_index());
    Buf dst = b.buffer(1, 9000, b.next_index());
    b.fill(src, 1);
    b.fill(dst, 2);
    std::vector<uint8_t> before = b.read(dst);
    b.d.post_recv(q1, {Sge{dst.addr, 100, dst.key}, Sge{dst.addr + 200, 50, dst.key}}, 8);
    SendWr wr;
    wr.opcode = RNIC_OP_SEND;
    wr.sg = {Sge{src.addr, 151, src.key}};
    b.d.post_send(q0, wr);
    Cqe c;
    CHECK(b.d.wait_cqe(b.rcq[1], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_LOCAL_LENGTH);
    CHECK_EQ(c.wr_id, 8);
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_REMOTE_OPERATION);
    b.d.settle();
    std::vector<uint8_t> after = b.read(dst);
    CHECK(std::equal(after.begin() + 100, after.begin() + 200, before.begin() + 100));
    CHECK(std::equal(after.begin() + 250, after.end(), before.begin() + 250));
    CHECK_EQ(state_of(b, 1, 2), RNIC_QP_STATE_ERROR);
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_ERROR);
    // A multi-packet SEND that overruns in a later packet fails the same way.
    Qp r0, r1;
    b.pair(3, r0, r1);
    b.d.post_recv(r1, {Sge{dst.addr, 5000, dst.key}}, 9);
    wr.sg = {Sge{src.addr, 9000, src.key}};
    b.d.post_send(r0, wr);
    CHECK(b.d.wait_cqe(b.rcq[1], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_LOCAL_LENGTH);
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_REMOTE_OPERATION);
    b.d.settle();
    after = b.read(dst);
    CHECK(std::equal(after.begin() + 5000, after.end(), before.begin() + 5000));
    CHECK_EQ(b.f.protocol_errors, 0);
}

// A frame corrupted on the link is dropped by the receiver (bad ICRC),
// counted in RX_DROPS and STATUS.RX_DROP, and changes no byte.
BENCH_TEST(drop) {
    Bench b;
    Qp q0, q1;
    b.pair(2, q0, q1);
    Buf src = b.buffer(0, 256, b.next_index());
    Buf dst = b.buffer(1, 256, b.next_index());
    b.fill(src, 1);
    b.fill(dst, 2);
    std::vector<uint8_t> before = b.read(dst);
    int corrupt = 1;
    b.f.link_hook = [&](int from, std::vector<uint8_t> &f) {
        if (from == 0 && corrupt > 0 && f[42] == 0x0a) {
            f[80] ^= 0x10;   // a payload byte
            corrupt--;
        }
        return true;
    };
    CHECK_EQ(b.f.bar_read(1, RNIC_REG_RX_DROPS), 0);
    SendWr wr;
    wr.opcode = RNIC_OP_RDMA_WRITE;
    wr.sg = {Sge{src.addr, 200, src.key}};
    wr.remote_addr = dst.addr;
    wr.rkey = dst.key;
    b.d.post_send(q0, wr);
    b.d.settle();
    CHECK_EQ(corrupt, 0);
    CHECK_EQ(b.f.bar_read(1, RNIC_REG_RX_DROPS), 1);
    CHECK(b.f.bar_read(1, RNIC_REG_STATUS) & RNIC_STATUS_RX_DROP_MASK);
    CHECK(b.read(dst) == before);
    CHECK_EQ(writes_into(b.f, 1, dst.addr, 256), 0);
    // A frame with a good ICRC that is not for this port (other IPv4
    // destination) is dropped and counted too.
    b.f.link_hook = [&](int from, std::vector<uint8_t> &f) {
        if (from == 0 && f[42] == 0x0a) {
            f[33] ^= 1;   // last byte of the destination IP
            reseal_frame(f);
        }
        return true;
    };
    Qp r0, r1;
    b.pair(3, r0, r1);
    b.d.post_send(r0, wr);
    b.d.settle();
    b.f.link_hook = nullptr;
    CHECK_EQ(b.f.bar_read(1, RNIC_REG_RX_DROPS), 2);
    CHECK(b.read(dst) == before);
    // The QP still waits for the ACK of the lost WRITE; moving it to ERROR
    // flushes it (the way software recovers without retransmission).
    b.d.qp_cmd(0, 2, RNIC_QP_CMD_ERROR);
    Cqe c;
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_FLUSHED);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// A full CQ drops the CQE and says so (STATUS.CQ_OVERFLOW, ERR_ADDR = CQ);
// freeing slots with the CQ doorbell makes room again.
BENCH_TEST(cqoverflow) {
    Bench b;
    Cq small = b.d.cq_create(0, 6, 1);   // two entries
    Qp q0 = b.d.qp_create(0, 2, small, b.rcq[0], b.pz[0], kQpFlagsAll);
    Qp q1 = b.d.qp_create(1, 2, b.scq[1], b.rcq[1], b.pz[1], kQpFlagsAll);
    b.d.connect(q0, q1);
    Buf src = b.buffer(0, 64, b.next_index());
    Buf dst = b.buffer(1, 64, b.next_index());
    SendWr wr;
    wr.opcode = RNIC_OP_RDMA_WRITE;
    wr.sg = {Sge{src.addr, 8, src.key}};
    wr.remote_addr = dst.addr;
    wr.rkey = dst.key;
    for (int i = 0; i < 3; i++) {
        wr.wr_id = i;
        b.d.post_send(q0, wr);
    }
    b.d.settle();
    CHECK(b.f.bar_read(0, RNIC_REG_STATUS) & RNIC_STATUS_CQ_OVERFLOW_MASK);
    CHECK_EQ(b.f.bar_read(0, RNIC_REG_ERR_ADDR), 6);
    CHECK_EQ(b.f.bar_read(0, RNIC_REG_CQ_OVERFLOWED_N(0)), 1u << 6);   // which CQ lost a CQE, whatever came first
    Cqe c;
    CHECK(b.d.poll(small, c));
    CHECK_EQ(c.wr_id, 0);
    CHECK(b.d.poll(small, c));
    CHECK_EQ(c.wr_id, 1);
    CHECK(!b.d.poll(small, c, false));   // the third was dropped: slot 0 still holds phase 1
    // The ring has room again (consumer doorbell rung by poll): the next one lands.
    wr.wr_id = 3;
    b.d.post_send(q0, wr);
    CHECK(b.d.wait_cqe(small, c));
    CHECK_EQ(c.wr_id, 3);
    CHECK_EQ(c.phase, 0);   // second pass round the ring
    CHECK_EQ(b.f.protocol_errors, 0);
}

// QP_CMD_ERROR flushes every posted WQE, send and receive, in order.
BENCH_TEST(flush) {
    Bench b;
    Qp q0, q1;
    b.pair(2, q0, q1);
    Buf buf = b.buffer(0, 64, b.next_index());
    SendWr wr;
    wr.opcode = RNIC_OP_SEND;
    wr.sg = {Sge{buf.addr, 8, buf.key}};
    wr.flags = 0;
    b.d.qp_cmd(0, 2, RNIC_QP_CMD_ERROR);
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_ERROR);
    for (int i = 0; i < 3; i++) {
        wr.wr_id = 10 + i;
        b.d.post_send(q0, wr, false);
        b.d.post_recv(q0, {Sge{buf.addr, 64, buf.key}}, 20 + i, false);
    }
    b.d.ring_sq(q0);
    b.d.ring_rq(q0);
    Cqe c;
    for (int i = 0; i < 3; i++) {
        CHECK(b.d.wait_cqe(b.scq[0], c));
        CHECK_EQ(c.status, RNIC_CQE_STATUS_FLUSHED);
        CHECK_EQ(c.wr_id, 10 + i);
        CHECK_EQ(c.opcode, RNIC_OP_SEND);
        CHECK_EQ(c.wqe_idx, i);
        CHECK_EQ(c.is_recv, 0);
    }
    for (int i = 0; i < 3; i++) {
        CHECK(b.d.wait_cqe(b.rcq[0], c));
        CHECK_EQ(c.status, RNIC_CQE_STATUS_FLUSHED);
        CHECK_EQ(c.wr_id, 20 + i);
        CHECK_EQ(c.opcode, RNIC_OP_RECV);
        CHECK_EQ(c.is_recv, 1);
    }
    b.d.settle();
    CHECK(!b.d.poll(b.scq[0], c));
    CHECK_EQ(b.f.frames_sent[0], 0);
    // RESET, INIT and RTS bring it back.
    b.d.qp_cmd(0, 2, RNIC_QP_CMD_RESET);
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_RESET);
    q0 = b.d.qp_create(0, 2, b.scq[0], b.rcq[0], b.pz[0], kQpFlagsAll);
    q1 = b.d.qp_create(1, 2, b.scq[1], b.rcq[1], b.pz[1], kQpFlagsAll);
    b.d.connect(q0, q1);
    Buf dst = b.buffer(1, 64, b.next_index());
    wr.opcode = RNIC_OP_RDMA_WRITE;
    wr.flags = RNIC_WQE_FLAG_SIGNALED;
    wr.remote_addr = dst.addr;
    wr.rkey = dst.key;
    b.d.post_send(q0, wr);
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// Opcode sequence: a SEND MIDDLE or RDMA WRITE MIDDLE that no FIRST opened
// is refused (NAK, invalid request) and writes nothing; in particular it
// cannot reach a receive buffer whose lkey its FIRST would have refused.
BENCH_TEST(sequence) {
    Bench b;
    Buf src = b.buffer(0, 256, b.next_index());
    b.fill(src, 4);
    for (int variant = 0; variant < 2; variant++) {
        unsigned qpn = 2 + variant;
        Qp q0, q1;
        b.pair(qpn, q0, q1);
        // For the SEND: a receive buffer without LOCAL_WRITE.
        Buf dst = b.buffer(1, 256, b.next_index(),
                           variant == 0 ? kAllAccess & ~RNIC_ACCESS_LOCAL_WRITE : kAllAccess);
        b.fill(dst, 5);
        std::vector<uint8_t> before = b.read(dst);
        int rewritten = 0;
        b.f.link_hook = [&](int from, std::vector<uint8_t> &f) {
            if (from == 0 && (f[42] == 0x04 || f[42] == 0x0a)) {
                f[42] = f[42] == 0x04 ? 0x01 : 0x07;   // ONLY -> MIDDLE
                reseal_frame(f);
                rewritten++;
            }
            return true;
        };
        SendWr wr;
        wr.opcode = variant == 0 ? RNIC_OP_SEND : RNIC_OP_RDMA_WRITE;
        wr.sg = {Sge{src.addr, 100, src.key}};
        wr.remote_addr = dst.addr;
        wr.rkey = dst.key;
        if (variant == 0) b.d.post_recv(q1, {Sge{dst.addr, 256, dst.key}}, 6);
        b.d.post_send(q0, wr);
        Cqe c;
        CHECK(b.d.wait_cqe(b.scq[0], c));
        CHECK_EQ(c.status, RNIC_CQE_STATUS_REMOTE_OPERATION);
        b.d.settle();
        b.f.link_hook = nullptr;
        CHECK_EQ(rewritten, 1);
        CHECK(b.read(dst) == before);
        CHECK_EQ(writes_into(b.f, 1, dst.addr, 256), 0);
        bool nak = false;
        for (const TraceEvent &e : b.f.events[1])
            if (e.event == RNIC_EV_NAK_SENT && e.qpn == qpn && (e.arg & 0xFF) == 0x61) nak = true;
        CHECK(nak);
        CHECK_EQ(state_of(b, 1, qpn), RNIC_QP_STATE_ERROR);
        if (variant == 0) {   // the RECV is flushed, never filled
            CHECK(b.d.wait_cqe(b.rcq[1], c));
            CHECK_EQ(c.status, RNIC_CQE_STATUS_FLUSHED);
        }
    }
    CHECK_EQ(b.f.protocol_errors, 0);
}

// Software resets a QP in the middle of its work (a driver destroying an
// endpoint with a message under way): the requester's 256 KiB WRITE with
// its ACK timer armed, then the responder's answer to a 256 KiB READ. The
// NIC sends at most the packets already started, resends nothing (three
// ACK timeouts pass), writes no CQE for the QP and leaves it in RESET (the
// engine's error for a reset QP is dropped): its rings and CQs may be
// another QP's by now. A WQE whose fetch was under way at the reset is not
// started at all. The QP number then serves a new connection.
BENCH_TEST(reset_midway) {
    Bench b;
    // ACK timeout 1024 x 2^4 cycles, two retries: armed while the WRITE is under way.
    b.d.qp_timers = 4u << RNIC_QP_TIMERS_ACK_TIMEOUT_SHIFT | 2u << RNIC_QP_TIMERS_RETRY_CNT_SHIFT;
    constexpr uint32_t kLen = 256 * 1024;   // 64 packets
    constexpr uint64_t kQuiet = 200000;     // past three timeouts
    Qp q0, q1, r0, r1;
    b.pair(2, q0, q1);
    b.pair(3, r0, r1);
    Buf src = b.buffer(0, kLen, b.next_index());
    Buf dst = b.buffer(1, kLen, b.next_index());
    b.fill(src, 3);

    // The requester: reset after its fourth packet has left.
    SendWr wr;
    wr.opcode = RNIC_OP_RDMA_WRITE;
    wr.sg = {Sge{src.addr, kLen, src.key}};
    wr.remote_addr = dst.addr;
    wr.rkey = dst.key;
    wr.wr_id = 1;
    uint64_t f0 = b.f.frames_sent[0];
    b.d.post_send(q0, wr);
    for (int i = 0; i < 100000 && b.f.frames_sent[0] - f0 < 4; i++) b.f.step();
    CHECK_EQ(b.f.frames_sent[0] - f0, 4u);
    b.d.qp_cmd(0, 2, RNIC_QP_CMD_RESET);
    uint64_t at = b.f.frames_sent[0];
    b.f.run(kQuiet);
    CHECK(b.f.frames_sent[0] - at <= 2);   // the packet leaving, and the next one if it had started
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_RESET);
    CHECK(!has_event(b.f, 0, RNIC_EV_RETRY, 2));
    CHECK(!has_event(b.f, 0, RNIC_EV_QP_ERROR, 2));
    Cqe c;
    CHECK(!b.d.poll(b.scq[0], c));

    // The responder: NIC 1's QP reset after its fourth READ response.
    Buf rsrc = b.buffer(1, kLen, b.next_index());
    Buf rdst = b.buffer(0, kLen, b.next_index());
    wr.opcode = RNIC_OP_RDMA_READ;
    wr.sg = {Sge{rdst.addr, kLen, rdst.key}};
    wr.remote_addr = rsrc.addr;
    wr.rkey = rsrc.key;
    wr.wr_id = 2;
    const uint64_t f1 = b.f.frames_sent[1];
    b.d.post_send(r0, wr);
    for (int i = 0; i < 100000 && b.f.frames_sent[1] - f1 < 4; i++) b.f.step();
    CHECK_EQ(b.f.frames_sent[1] - f1, 4u);
    b.d.qp_cmd(1, 3, RNIC_QP_CMD_RESET);
    at = b.f.frames_sent[1];
    b.f.run(kQuiet);
    CHECK(b.f.frames_sent[1] - at <= 2);
    CHECK_EQ(state_of(b, 1, 3), RNIC_QP_STATE_RESET);
    CHECK(!b.d.poll(b.scq[1], c));
    CHECK(!b.d.poll(b.rcq[1], c));
    // NIC 0's READ found no answer: its retries ran out, as on a dead link.
    CHECK(b.d.poll(b.scq[0], c));
    CHECK_EQ(c.wr_id, 2u);
    CHECK_EQ(c.status, RNIC_CQE_STATUS_TRANSPORT);

    // QP 2 again, on both NICs: a fresh connection moves data.
    b.d.qp_cmd(1, 2, RNIC_QP_CMD_RESET);
    b.d.qp_timers = 0;
    b.pair(2, q0, q1);

    // Reset while the WQE is being fetched (the DMA latency is 16 cycles):
    // no frame leaves, no CQE.
    wr.opcode = RNIC_OP_RDMA_WRITE;
    wr.sg = {Sge{src.addr, 4096, src.key}};
    wr.remote_addr = dst.addr;
    wr.rkey = dst.key;
    wr.wr_id = 4;
    f0 = b.f.frames_sent[0];
    b.d.post_send(q0, wr);
    b.f.run(6);   // the doorbell taken, the fetch asked for (the bench is exact to the cycle)
    b.d.qp_cmd(0, 2, RNIC_QP_CMD_RESET);
    b.f.run(kQuiet);
    CHECK_EQ(b.f.frames_sent[0], f0);
    CHECK(!b.d.poll(b.scq[0], c));
    CHECK_EQ(state_of(b, 0, 2), RNIC_QP_STATE_RESET);
    b.d.qp_cmd(1, 2, RNIC_QP_CMD_RESET);
    b.pair(2, q0, q1);
    Buf dst2 = b.buffer(1, 4096, b.next_index());
    wr.opcode = RNIC_OP_RDMA_WRITE;
    wr.sg = {Sge{src.addr, 4096, src.key}};
    wr.remote_addr = dst2.addr;
    wr.rkey = dst2.key;
    wr.wr_id = 3;
    b.d.post_send(q0, wr);
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.wr_id, 3u);
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK(b.read(dst2) == pattern(4096, 3));
    CHECK_EQ(b.f.protocol_errors, 0);
}
