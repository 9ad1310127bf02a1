// The idle output and the time base (time_now): when a NIC says it is idle,
// and that skipping idle cycles without clocking the NICs changes nothing
// but the time (docs/rtl-interfaces.md, "Time and idle"). Every other bench
// test also checks the idle promise cycle by cycle (fabric.cpp, check_idle).
#include <algorithm>
#include <limits>
#include <utility>

#include "bench_common.h"

namespace {

// Clocks until both NICs are idle and the models quiet; false after `budget` cycles.
bool step_until_idle(Fabric &f, uint64_t budget) {
    for (uint64_t i = 0; i < budget; i++) {
        if (f.idle(0) && f.idle(1) && f.models_quiet()) return true;
        f.step();
    }
    return false;
}

}  // namespace

// idle is low in reset, high once reset is over, low from a doorbell until
// the work it started is done (the CQE written and its completion back),
// then high again; skipped time shows in CYCLE_LO/HI.
BENCH_TEST(idle) {
    {
        Fabric f{FabricConfig()};
        CHECK(!f.idle(0));   // evaluated last with rst_n low: nothing is idle in reset
        CHECK(!f.idle(1));
        f.step();
        CHECK(f.idle(0));
        CHECK(f.idle(1));
        f.run(20);
        CHECK(f.idle(0));
        CHECK(f.idle(1));
        CHECK_EQ(f.protocol_errors, 0);
    }

    Bench b;
    Fabric &f = b.f;
    Qp q0, q1;
    b.pair(7, q0, q1);
    Buf src = b.buffer(0, 3000, b.next_index());
    Buf dst = b.buffer(1, 3000, b.next_index());
    b.fill(src, 5);
    CHECK(step_until_idle(f, 100));
    f.run(50);
    CHECK(f.idle(0));
    CHECK(f.idle(1));

    // A WQE written to host memory is nothing to the NIC until its doorbell.
    SendWr wr;
    wr.opcode = RNIC_OP_RDMA_WRITE;
    wr.sg = {Sge{src.addr, 3000, src.key}};
    wr.remote_addr = dst.addr;
    wr.rkey = dst.key;
    wr.wr_id = 77;
    b.d.post_send(q0, wr, false);
    f.run(10);
    CHECK(f.idle(0));
    b.d.ring_sq(q0);
    CHECK(!f.idle(0));   // the doorbell pulse

    // In flight: the two NICs and the models are never all quiet at once.
    // Each NIC alone may be idle in between: the requester while its frames
    // and the ACK are on the wire, the responder before they arrive.
    bool all_idle = false, idle0_seen = false, busy1_seen = false;
    Cqe c;
    uint64_t t = 0;
    while (!b.d.poll(b.scq[0], c, false) && t++ < 100000) {
        all_idle |= f.idle(0) && f.idle(1) && f.models_quiet();
        idle0_seen |= f.idle(0);
        busy1_seen |= !f.idle(1);
        f.step();
    }
    CHECK(t < 100000);
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(c.wr_id, 77);
    CHECK(!all_idle);
    CHECK(idle0_seen);
    CHECK(busy1_seen);
    CHECK(b.read(dst) == b.read(src));

    // The CQE is in host memory; its write completion is still on its way
    // (and with it the interrupt), so nic0 is not idle until it is back.
    unsigned early = 0;
    t = 0;
    while (!f.irq(0) && t++ < 1000) {
        if (f.idle(0)) early++;
        f.step();
    }
    CHECK(f.irq(0));
    CHECK_EQ(early, 0);
    CHECK(step_until_idle(f, 200));
    size_t ev0 = f.events[0].size(), wr0 = f.writes[0].size(), fr0 = f.frames_sent[0] + f.frames_sent[1];
    f.run(300);
    CHECK(f.idle(0));
    CHECK(f.idle(1));
    CHECK_EQ(f.events[0].size(), ev0);
    CHECK_EQ(f.writes[0].size(), wr0);
    CHECK_EQ(f.frames_sent[0] + f.frames_sent[1], fr0);

    // Any doorbell drops it, even one that starts nothing (the CQ consumer's).
    f.bar_write(0, static_cast<uint16_t>(RNIC_REG_DB_CQ + 4 * b.scq[0].num), b.scq[0].ci);
    CHECK(!f.idle(0));
    CHECK(step_until_idle(f, 20));
    CHECK_EQ(count_events(f, 0, RNIC_EV_DOORBELL), 2);   // the SQ's and the CQ's
    // Writing a staging register is no work; a read is, until its response.
    f.bar_write(0, RNIC_REG_QP_SEL, 3);
    CHECK(f.idle(0));
    f.bar_write(0, RNIC_REG_INTR_STATUS_N(b.scq[0].num / 32), 1u << (b.scq[0].num % 32));
    CHECK(f.idle(0));
    CHECK(!f.irq(0));

    // Skipped time shows in CYCLE_LO/HI: jump past 2^32 cycles without
    // clocking, then read the time base back.
    f.skip_idle = true;
    f.skip_max = std::numeric_limits<uint64_t>::max();
    const uint64_t before = f.now(), jump = (1ull << 32) + 5000;
    f.run(jump);
    f.skip_idle = false;
    CHECK_EQ(f.now(), before + jump);
    CHECK(f.skipped_cycles > (1ull << 32));
    CHECK(f.skipped_cycles < jump);
    const uint64_t at = f.now();
    uint32_t lo = f.bar_read(1, RNIC_REG_CYCLE_LO);
    uint32_t hi = f.bar_read(1, RNIC_REG_CYCLE_HI);
    CHECK_EQ(static_cast<uint64_t>(hi) << 32 | lo, at);
    CHECK_EQ(hi, 1);

    // And the NICs carry on where they were.
    b.fill(src, 6);
    wr.wr_id = 78;
    b.d.post_send(q0, wr);
    CHECK(b.d.wait_cqe(b.scq[0], c));
    CHECK_EQ(c.status, RNIC_CQE_STATUS_SUCCESS);
    CHECK_EQ(c.wr_id, 78);
    CHECK(b.read(dst) == b.read(src));
    CHECK_EQ(f.protocol_errors, 0);
}

namespace {

// What one run of the skip test's traffic leaves behind.
struct Outcome {
    std::vector<TraceEvent> events[2];
    std::vector<std::vector<uint8_t>> sent[2];
    std::vector<DmaWriteRecord> writes[2];
    std::vector<uint64_t> seen;   // CQEs, CYCLE registers, the final cycle, memory contents
    uint64_t cycles = 0, skipped = 0, skipped_with_frames = 0, skips = 0;
};

uint64_t digest(const std::vector<uint8_t> &v) {
    uint64_t h = 1469598103934665603ull;
    for (uint8_t x : v) h = (h ^ x) * 1099511628211ull;
    return h;
}

void note_cycle_regs(Bench &b, Outcome &o) {
    for (int n = 0; n < 2; n++) {
        const uint64_t at = b.f.now();
        uint32_t lo = b.f.bar_read(n, RNIC_REG_CYCLE_LO);
        uint32_t hi = b.f.bar_read(n, RNIC_REG_CYCLE_HI);
        CHECK_EQ(static_cast<uint64_t>(hi) << 32 | lo, at);
        o.seen.push_back(static_cast<uint64_t>(hi) << 32 | lo);
    }
}

// SEND, RDMA WRITE and RDMA READ on several QPs in both directions, a
// WRITE whose rkey is refused, and idle stretches between the rounds. All
// waiting is done with run(), so a skipping fabric may skip any of it.
Outcome skip_traffic(bool skip, unsigned link_latency, unsigned stall_pct, bool skip_links) {
    FabricConfig cfg;
    cfg.link_latency = link_latency;
    cfg.stall_pct = stall_pct;
    cfg.seed = 7;
    Bench b(cfg);
    Fabric &f = b.f;
    Outcome o;
    Qp a2, z2, a3, z3, a4, z4, a5, z5;
    b.pair(2, a2, z2);
    b.pair(3, a3, z3);
    b.pair(4, a4, z4);
    b.pair(5, a5, z5);
    Buf s0 = b.buffer(0, 32768, b.next_index());   // nic0: WRITE and SEND source, WRITE target
    Buf r0 = b.buffer(0, 32768, b.next_index());   // nic0: READ destination, RECV buffer
    Buf d1 = b.buffer(1, 32768, b.next_index());   // nic1: WRITE target, RECV buffer
    Buf r1 = b.buffer(1, 32768, b.next_index());   // nic1: READ source, WRITE and SEND source
    b.fill(s0, 11);
    b.fill(r1, 13);
    f.skip_idle = skip;
    f.skip_links = skip_links;
    f.run(3000);

    // Round 1, from nic0: a WRITE (QP 2), a two-SGE SEND into a RECV (QP 3), a READ (QP 4).
    b.d.post_recv(z3, {Sge{d1.addr + 16384, 8000, d1.key}}, 31);
    SendWr w;
    w.opcode = RNIC_OP_RDMA_WRITE;
    w.sg = {Sge{s0.addr, 5000, s0.key}};
    w.remote_addr = d1.addr;
    w.rkey = d1.key;
    w.wr_id = 21;
    b.d.post_send(a2, w);
    SendWr sd;
    sd.opcode = RNIC_OP_SEND;
    sd.sg = {Sge{s0.addr + 5000, 3000, s0.key}, Sge{s0.addr + 9000, 4000, s0.key}};
    sd.wr_id = 22;
    b.d.post_send(a3, sd);
    SendWr rd;
    rd.opcode = RNIC_OP_RDMA_READ;
    rd.sg = {Sge{r0.addr, 6000, r0.key}};
    rd.remote_addr = r1.addr;
    rd.rkey = r1.key;
    rd.wr_id = 23;
    b.d.post_send(a4, rd);
    f.run(30000);
    note_cycle_regs(b, o);

    // Round 2: a WRITE with a refused rkey (QP 5: NAK, both ends to ERROR),
    // and from nic1 a SEND (QP 4) and a WRITE (QP 2) back to nic0.
    SendWr bad = w;
    bad.sg = {Sge{s0.addr, 64, s0.key}};
    bad.rkey = d1.key ^ 0x1;   // same entry, wrong key
    bad.wr_id = 24;
    b.d.post_send(a5, bad);
    b.d.post_recv(a4, {Sge{r0.addr + 8192, 4000, r0.key}}, 41);
    SendWr s1;
    s1.opcode = RNIC_OP_SEND;
    s1.sg = {Sge{r1.addr + 100, 3000, r1.key}};
    s1.wr_id = 42;
    b.d.post_send(z4, s1);
    SendWr w1;
    w1.opcode = RNIC_OP_RDMA_WRITE;
    w1.sg = {Sge{r1.addr, 9000, r1.key}};
    w1.remote_addr = s0.addr + 16384;
    w1.rkey = s0.key;
    w1.wr_id = 43;
    b.d.post_send(z2, w1);
    f.run(30000);

    // Round 3, after the idle time: another READ on QP 4, unsignaled.
    rd.sg = {Sge{r0.addr + 16384, 2000, r0.key}};
    rd.remote_addr = r1.addr + 20000;
    rd.flags = 0;
    rd.wr_id = 25;
    b.d.post_send(a4, rd);
    f.run(20000);

    // Every CQE, in the order the CQs hold them.
    Cq *cqs[4] = {&b.scq[0], &b.rcq[0], &b.scq[1], &b.rcq[1]};
    std::vector<std::pair<uint64_t, unsigned>> by_wr;   // wr_id, status
    for (Cq *cq : cqs) {
        Cqe c;
        while (b.d.poll(*cq, c)) {
            o.seen.insert(o.seen.end(), {cq->nic * 2ull + cq->num, c.status, c.opcode, c.qpn, c.wqe_idx, c.is_recv,
                                         c.byte_len, c.wr_id});
            by_wr.emplace_back(c.wr_id, c.status);
        }
    }
    f.run(2000);
    note_cycle_regs(b, o);
    o.seen.push_back(f.now());
    for (const Buf *x : {&s0, &r0, &d1, &r1}) o.seen.push_back(digest(b.read(*x)));

    // The traffic did what it says (the same in every run).
    std::sort(by_wr.begin(), by_wr.end());
    std::vector<std::pair<uint64_t, unsigned>> want = {
        {21, RNIC_CQE_STATUS_SUCCESS}, {22, RNIC_CQE_STATUS_SUCCESS}, {23, RNIC_CQE_STATUS_SUCCESS},
        {24, RNIC_CQE_STATUS_REMOTE_ACCESS}, {31, RNIC_CQE_STATUS_SUCCESS}, {41, RNIC_CQE_STATUS_SUCCESS},
        {42, RNIC_CQE_STATUS_SUCCESS}, {43, RNIC_CQE_STATUS_SUCCESS}};
    CHECK(by_wr == want);
    CHECK(b.read(1, d1.addr, 5000) == b.read(0, s0.addr, 5000));
    std::vector<uint8_t> msg = b.read(0, s0.addr + 5000, 3000), tail = b.read(0, s0.addr + 9000, 4000);
    msg.insert(msg.end(), tail.begin(), tail.end());
    CHECK(b.read(1, d1.addr + 16384, 7000) == msg);
    CHECK(b.read(0, r0.addr, 6000) == b.read(1, r1.addr, 6000));
    CHECK(b.read(0, r0.addr + 8192, 3000) == b.read(1, r1.addr + 100, 3000));
    CHECK(b.read(0, s0.addr + 16384, 9000) == b.read(1, r1.addr, 9000));
    CHECK(b.read(0, r0.addr + 16384, 2000) == b.read(1, r1.addr + 20000, 2000));
    CHECK_EQ(count_events(f, 1, RNIC_EV_NAK_SENT), 1);
    CHECK_EQ(b.d.qp_state(0, 5) & 0xFF, RNIC_QP_STATE_ERROR);
    CHECK_EQ(b.d.qp_state(1, 5) & 0xFF, RNIC_QP_STATE_ERROR);
    CHECK_EQ(f.protocol_errors, 0);

    for (int n = 0; n < 2; n++) {
        o.events[n] = f.events[n];
        o.sent[n] = f.sent[n];
        o.writes[n] = f.writes[n];
    }
    o.cycles = f.now();
    o.skipped = f.skipped_cycles;
    o.skipped_with_frames = f.skipped_with_frames;
    o.skips = f.skips;
    return o;
}

// Reports the first difference between a clocked run and a skipping one.
bool same(const Outcome &a, const Outcome &b) {
    bool ok = true;
    for (int n = 0; n < 2; n++) {
        const size_t ne = std::min(a.events[n].size(), b.events[n].size());
        for (size_t i = 0; i < ne; i++) {
            const TraceEvent &x = a.events[n][i], &y = b.events[n][i];
            if (x.cycle != y.cycle || x.event != y.event || x.qpn != y.qpn || x.arg != y.arg) {
                std::fprintf(stderr, "nic%d trace event %zu: cycle %llu event %u qp %u arg 0x%llx clocked, "
                                     "cycle %llu event %u qp %u arg 0x%llx skipping\n",
                             n, i, static_cast<unsigned long long>(x.cycle), x.event, x.qpn,
                             static_cast<unsigned long long>(x.arg), static_cast<unsigned long long>(y.cycle),
                             y.event, y.qpn, static_cast<unsigned long long>(y.arg));
                ok = false;
                break;
            }
        }
        if (a.events[n].size() != b.events[n].size()) {
            std::fprintf(stderr, "nic%d: %zu trace events clocked, %zu skipping\n", n, a.events[n].size(),
                         b.events[n].size());
            ok = false;
        }
        if (a.sent[n] != b.sent[n]) {
            std::fprintf(stderr, "nic%d: the frames sent differ (%zu clocked, %zu skipping)\n", n, a.sent[n].size(),
                         b.sent[n].size());
            ok = false;
        }
        const size_t nw = std::min(a.writes[n].size(), b.writes[n].size());
        for (size_t i = 0; i < nw; i++) {
            const DmaWriteRecord &x = a.writes[n][i], &y = b.writes[n][i];
            if (x.cycle != y.cycle || x.addr != y.addr || x.len != y.len || x.err != y.err) {
                std::fprintf(stderr, "nic%d DMA write %zu: cycle %llu 0x%llx+%u clocked, cycle %llu 0x%llx+%u "
                                     "skipping\n",
                             n, i, static_cast<unsigned long long>(x.cycle), static_cast<unsigned long long>(x.addr),
                             x.len, static_cast<unsigned long long>(y.cycle), static_cast<unsigned long long>(y.addr),
                             y.len);
                ok = false;
                break;
            }
        }
        if (a.writes[n].size() != b.writes[n].size()) {
            std::fprintf(stderr, "nic%d: %zu DMA writes clocked, %zu skipping\n", n, a.writes[n].size(),
                         b.writes[n].size());
            ok = false;
        }
    }
    if (a.seen != b.seen) {
        std::fprintf(stderr, "the CQEs, CYCLE registers, final cycle or memory contents differ\n");
        ok = false;
    }
    return ok;
}

}  // namespace

// The same traffic clocked cycle by cycle and with idle time skipped gives
// the same frames, trace events and DMA writes at the same cycles. First as
// a platform would skip when nothing at all is in flight (short links, no
// stalls), then also while frames are on long links, with random
// back-pressure on every handshake.
BENCH_TEST(skip) {
    struct Mode {
        const char *name;
        unsigned link_latency, stall_pct;
        bool skip_links;
    };
    for (const Mode &m : {Mode{"quiet fabric", 20, 0, false}, Mode{"frames in flight, stalls", 400, 10, true}}) {
        Outcome clocked = skip_traffic(false, m.link_latency, m.stall_pct, m.skip_links);
        Outcome skipping = skip_traffic(true, m.link_latency, m.stall_pct, m.skip_links);
        std::printf("skip (%s): %llu of %llu cycles skipped in %llu skips (%llu with frames on a link); "
                    "%zu + %zu trace events, %zu + %zu frames, %zu + %zu DMA writes compared\n",
                    m.name, static_cast<unsigned long long>(skipping.skipped),
                    static_cast<unsigned long long>(skipping.cycles), static_cast<unsigned long long>(skipping.skips),
                    static_cast<unsigned long long>(skipping.skipped_with_frames), clocked.events[0].size(),
                    clocked.events[1].size(), clocked.sent[0].size(), clocked.sent[1].size(),
                    clocked.writes[0].size(), clocked.writes[1].size());
        CHECK_EQ(clocked.skipped, 0);
        CHECK(skipping.skipped > 0);
        if (m.skip_links) CHECK(skipping.skipped_with_frames > 0);
        CHECK(!clocked.events[0].empty() && !clocked.sent[0].empty() && !clocked.writes[1].empty());
        CHECK(same(clocked, skipping));
    }
}
