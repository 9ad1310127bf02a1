// The BAR0 register block, the frames on the wire (checked against an
// independent decoder and CRC-32), the trace port and the interrupt.
#include <map>

#include "bench_common.h"
#include "frame_check.h"

BENCH_TEST(regs) {
    Bench b;
    Fabric &f = b.f;
    CHECK_EQ(f.bar_read(0, RNIC_REG_ID), RNIC_DEVICE_ID);
    CHECK_EQ(f.bar_read(0, RNIC_REG_VERSION), RNIC_VERSION);
    CHECK_EQ(f.bar_read(0, RNIC_REG_CAP_QUEUES), RNIC_NUM_CQ << 16 | RNIC_NUM_QP);
    uint32_t cap = f.bar_read(0, RNIC_REG_CAP_TABLE);
    CHECK_EQ((cap & RNIC_CAP_TABLE_PT_ENTRIES_MASK) >> RNIC_CAP_TABLE_PT_ENTRIES_SHIFT, RNIC_PT_ENTRIES);
    CHECK_EQ(1u << ((cap & RNIC_CAP_TABLE_LOG_DATA_BYTES_MASK) >> RNIC_CAP_TABLE_LOG_DATA_BYTES_SHIFT), RNIC_DATA_BYTES);
    CHECK_EQ((cap & RNIC_CAP_TABLE_MAX_SGE_MASK) >> RNIC_CAP_TABLE_MAX_SGE_SHIFT, RNIC_MAX_SGE);
    CHECK_EQ(1u << ((cap & RNIC_CAP_TABLE_LOG_MTU_MASK) >> RNIC_CAP_TABLE_LOG_MTU_SHIFT), RNIC_MTU);
    CHECK_EQ((cap & RNIC_CAP_TABLE_MAX_RD_MASK) >> RNIC_CAP_TABLE_MAX_RD_SHIFT, RNIC_MAX_RD_ATOMIC);
    CHECK_EQ(f.bar_read(0, RNIC_REG_STATUS), 0);
    CHECK_EQ(f.bar_read(0, RNIC_REG_CTRL) & RNIC_CTRL_ENABLE_MASK, RNIC_CTRL_ENABLE_MASK);

    // Identity registers read back; MAC_HI keeps its 16 bits only.
    CHECK_EQ(f.bar_read(1, RNIC_REG_MAC_LO), 2);
    f.bar_write(1, RNIC_REG_MAC_HI, 0xFFFF0200u);
    CHECK_EQ(f.bar_read(1, RNIC_REG_MAC_HI), 0x0200);
    CHECK_EQ(f.bar_read(1, RNIC_REG_IPV4), 0x0A000002u);

    // CYCLE_LO is time_now (the bench's cycle counter) in the cycle of the
    // read request; CYCLE_HI is what that read latched.
    uint64_t t0 = f.now();
    uint32_t c0 = f.bar_read(0, RNIC_REG_CYCLE_LO);
    CHECK_EQ(c0, static_cast<uint32_t>(t0));
    f.run(100);
    uint32_t c1 = f.bar_read(0, RNIC_REG_CYCLE_LO);
    CHECK_EQ(c1 - c0, 102);   // 100 idle cycles and the two of the second read
    CHECK_EQ(f.bar_read(0, RNIC_REG_CYCLE_HI), 0);

    // Unknown and misaligned offsets: BAD_REG, ERR_ADDR, read as 0; STATUS is write-one-to-clear.
    CHECK_EQ(f.bar_read(0, 0x0044), 0);
    CHECK_EQ(f.bar_read(0, RNIC_REG_STATUS), RNIC_STATUS_BAD_REG_MASK);
    CHECK_EQ(f.bar_read(0, RNIC_REG_ERR_ADDR), 0x0044);
    f.bar_write(0, 0x0102, 1);   // misaligned: a later error keeps the first address
    CHECK_EQ(f.bar_read(0, RNIC_REG_ERR_ADDR), 0x0044);
    f.bar_write(0, RNIC_REG_STATUS, 0);
    CHECK_EQ(f.bar_read(0, RNIC_REG_STATUS), RNIC_STATUS_BAD_REG_MASK);
    f.bar_write(0, RNIC_REG_STATUS, RNIC_STATUS_BAD_REG_MASK);
    CHECK_EQ(f.bar_read(0, RNIC_REG_STATUS), 0);
    f.bar_write(0, 0x0102, 1);
    CHECK_EQ(f.bar_read(0, RNIC_REG_ERR_ADDR), 0x0102);
    f.bar_write(0, RNIC_REG_STATUS, 0xFFFFFFFFu);
    CHECK_EQ(f.bar_read(0, static_cast<uint16_t>(RNIC_REG_DB_SQ + 8 * (RNIC_NUM_QP - 1))), 0);   // write-only
    CHECK_EQ(f.bar_read(0, RNIC_REG_STATUS), 0);
    f.bar_read(0, static_cast<uint16_t>(RNIC_REG_DB_SQ + 8 * RNIC_NUM_QP));   // past the last QP
    CHECK_EQ(f.bar_read(0, RNIC_REG_STATUS), RNIC_STATUS_BAD_REG_MASK);
    f.bar_write(0, RNIC_REG_STATUS, 0xFFFFFFFFu);

    // MUTANT is dead in a normal build.
    f.bar_write(0, RNIC_REG_MUTANT, 5);
#ifndef RNIC_MUTANTS
    CHECK_EQ(f.bar_read(0, RNIC_REG_MUTANT), 0);
#endif
    f.bar_write(0, RNIC_REG_MUTANT, 0);

    // Protection table: write an entry, clobber the staging registers, read it back.
    b.d.pt_write(0, 33, 0x5A, 0x1234, 0x123456789ABCull, 0x10000001ull, 0xB);
    f.bar_write(0, RNIC_REG_PT_KEY_PZ, 0);
    f.bar_write(0, RNIC_REG_PT_BASE_LO, 0);
    f.bar_write(0, RNIC_REG_PT_BASE_HI, 0);
    f.bar_write(0, RNIC_REG_PT_LEN_LO, 0);
    f.bar_write(0, RNIC_REG_PT_FLAGS, 0);
    f.bar_write(0, RNIC_REG_PT_INDEX, 33);
    f.bar_write(0, RNIC_REG_PT_CMD, RNIC_PT_CMD_READ);
    f.run(4);
    CHECK_EQ(f.bar_read(0, RNIC_REG_PT_KEY_PZ), 0x12345Au);
    CHECK_EQ(f.bar_read(0, RNIC_REG_PT_BASE_LO), 0x56789ABCu);
    CHECK_EQ(f.bar_read(0, RNIC_REG_PT_BASE_HI), 0x1234u);
    CHECK_EQ(f.bar_read(0, RNIC_REG_PT_LEN_LO), 0x10000001u);
    CHECK_EQ(f.bar_read(0, RNIC_REG_PT_FLAGS), 0xB | RNIC_PT_STATE_VALID << RNIC_PT_FLAGS_STATE_SHIFT);
    // An index past the table is a bad command.
    f.bar_write(0, RNIC_REG_PT_INDEX, RNIC_PT_ENTRIES);
    f.bar_write(0, RNIC_REG_PT_CMD, RNIC_PT_CMD_WRITE);
    f.run(4);
    CHECK(f.bar_read(0, RNIC_REG_STATUS) & RNIC_STATUS_BAD_CONFIG_MASK);
    f.bar_write(0, RNIC_REG_STATUS, 0xFFFFFFFFu);

    // QP state machine as QP_STATE shows it.
    CHECK_EQ(b.d.qp_state(0, 3), RNIC_QP_STATE_RESET);
    Qp q0 = b.d.qp_create(0, 3, b.scq[0], b.rcq[0], b.pz[0], kQpFlagsAll);
    CHECK_EQ(b.d.qp_state(0, 3), RNIC_QP_STATE_INIT);
    Qp q1 = b.d.qp_create(1, 3, b.scq[1], b.rcq[1], b.pz[1], kQpFlagsAll);
    b.d.connect(q0, q1);
    CHECK_EQ(b.d.qp_state(0, 3), RNIC_QP_STATE_RTS);
    b.d.qp_cmd(0, 3, RNIC_QP_CMD_ERROR);
    CHECK_EQ(b.d.qp_state(0, 3), RNIC_QP_STATE_ERROR);
    b.d.qp_cmd(0, 3, RNIC_QP_CMD_RESET);
    CHECK_EQ(b.d.qp_state(0, 3), RNIC_QP_STATE_RESET);
    // Out-of-range QP and CQ configurations are refused.
    f.bar_write(0, RNIC_REG_QP_SEL, RNIC_NUM_QP + 3);
    f.bar_write(0, RNIC_REG_QP_CMD, RNIC_QP_CMD_INIT);
    CHECK(f.bar_read(0, RNIC_REG_STATUS) & RNIC_STATUS_BAD_CONFIG_MASK);
    CHECK_EQ(f.bar_read(0, RNIC_REG_ERR_ADDR), RNIC_NUM_QP + 3);
    f.bar_write(0, RNIC_REG_STATUS, 0xFFFFFFFFu);
    f.bar_write(0, RNIC_REG_CQ_SEL, 2);
    f.bar_write(0, RNIC_REG_CQ_LOG_SIZE, RNIC_MAX_LOG_RING + 1);
    f.bar_write(0, RNIC_REG_CQ_CMD, RNIC_CQ_CMD_CREATE);
    CHECK(f.bar_read(0, RNIC_REG_STATUS) & RNIC_STATUS_BAD_CONFIG_MASK);
    f.bar_write(0, RNIC_REG_STATUS, 0xFFFFFFFFu);
    // A path MTU above this NIC's MTU (code 6, 8,192 bytes) is refused; the
    // largest, code 5 (4,096 bytes), is taken.
    f.bar_write(0, RNIC_REG_QP_SEL, 3);
    f.bar_write(0, RNIC_REG_QP_PATH, 6);
    f.bar_write(0, RNIC_REG_QP_CMD, RNIC_QP_CMD_INIT);
    CHECK(f.bar_read(0, RNIC_REG_STATUS) & RNIC_STATUS_BAD_CONFIG_MASK);
    CHECK_EQ(b.d.qp_state(0, 3), RNIC_QP_STATE_RESET);
    f.bar_write(0, RNIC_REG_STATUS, 0xFFFFFFFFu);
    f.bar_write(0, RNIC_REG_QP_SEL, 3);
    f.bar_write(0, RNIC_REG_QP_PATH, 5);
    f.bar_write(0, RNIC_REG_QP_CMD, RNIC_QP_CMD_INIT);
    CHECK_EQ(f.bar_read(0, RNIC_REG_STATUS) & RNIC_STATUS_BAD_CONFIG_MASK, 0u);
    CHECK_EQ(b.d.qp_state(0, 3), RNIC_QP_STATE_INIT);
    b.d.qp_cmd(0, 3, RNIC_QP_CMD_RESET);
    f.bar_write(0, RNIC_REG_QP_PATH, 0);

    // Soft reset: queues, table, counters and identity back to their reset values.
    b.d.qp_create(0, 4, b.scq[0], b.rcq[0], b.pz[0], kQpFlagsAll);
    f.bar_read(0, 0x0048);   // leave an error behind
    f.bar_write(0, RNIC_REG_CTRL, RNIC_CTRL_SOFT_RESET_MASK | RNIC_CTRL_ENABLE_MASK);
    f.run(4);
    CHECK_EQ(f.bar_read(0, RNIC_REG_STATUS), 0);
    CHECK_EQ(f.bar_read(0, RNIC_REG_MAC_LO), 0);
    CHECK_EQ(f.bar_read(0, RNIC_REG_CTRL) & RNIC_CTRL_SOFT_RESET_MASK, 0);
    CHECK_EQ(b.d.qp_state(0, 4), RNIC_QP_STATE_RESET);
    f.bar_write(0, RNIC_REG_PT_INDEX, 33);
    f.bar_write(0, RNIC_REG_PT_CMD, RNIC_PT_CMD_READ);
    f.run(4);
    CHECK_EQ((f.bar_read(0, RNIC_REG_PT_FLAGS) & RNIC_PT_FLAGS_STATE_MASK) >> RNIC_PT_FLAGS_STATE_SHIFT,
             RNIC_PT_STATE_INVALID);
    CHECK_EQ(f.protocol_errors, 0);
}

// Every frame of a mixed exchange, both directions, against an independent
// decoder: Ethernet/IPv4/UDP/BTH fields, the IPv4 checksum and the ICRC.
BENCH_TEST(wire) {
    // The CRC-32 itself: the standard check value of "123456789".
    const uint8_t check[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
    CHECK_EQ(~crc32_bitwise(0xFFFFFFFFu, check, sizeof check), 0xCBF43926u);

    Bench b;
    Qp q0, q1;
    b.pair(5, q0, q1);
    Buf s0 = b.buffer(0, 20000, b.next_index());
    Buf s1 = b.buffer(1, 20000, b.next_index());
    b.fill(s0, 1);
    b.fill(s1, 2);
    Cqe c;
    for (uint32_t len : {1u, 2u, 3u, 4u, 4096u, 9001u}) {
        SendWr wr;
        wr.sg = {Sge{s0.addr + 1, len, s0.key}};
        wr.remote_addr = s1.addr + 3;
        wr.rkey = s1.key;
        wr.opcode = RNIC_OP_RDMA_WRITE;
        b.d.post_send(q0, wr);
        CHECK(b.d.wait_cqe(b.scq[0], c));
        wr.opcode = RNIC_OP_RDMA_READ;
        b.d.post_send(q0, wr);
        CHECK(b.d.wait_cqe(b.scq[0], c));
        b.d.post_recv(q1, {Sge{s1.addr, 20000, s1.key}}, 1);
        wr.opcode = RNIC_OP_SEND;
        b.d.post_send(q0, wr);
        CHECK(b.d.wait_cqe(b.scq[0], c));
        CHECK(b.d.wait_cqe(b.rcq[1], c));
    }
    b.d.settle();
    std::map<unsigned, unsigned> opcodes;
    for (int n = 0; n < 2; n++) {
        uint32_t next_req_psn = 0x100;
        bool in_msg = false;
        for (const std::vector<uint8_t> &fr : b.f.sent[n]) {
            RoceFrame r;
            std::string bad = decode_frame(fr, r);
            CHECK(bad.empty());
            if (!bad.empty()) std::fprintf(stderr, "  nic%d frame: %s\n", n, bad.c_str());
            opcodes[r.opcode]++;
            for (int i = 0; i < 6; i++) {
                CHECK_EQ(r.dst_mac[i], i == 0 ? 2 : i == 5 ? 2 - n : 0);
                CHECK_EQ(r.src_mac[i], i == 0 ? 2 : i == 5 ? 1 + n : 0);
            }
            CHECK_EQ(r.ethertype, 0x0800);
            CHECK_EQ(r.ip_ver_ihl, 0x45);
            CHECK_EQ(r.ip_flags_frag, 0x4000);   // DF, no fragment
            CHECK_EQ(r.ip_ttl, 64);
            CHECK_EQ(r.ip_proto, 17);
            CHECK(r.ip_csum_ok);
            CHECK_EQ(r.ip_src, 0x0A000001u + n);
            CHECK_EQ(r.ip_dst, 0x0A000002u - n);
            CHECK_EQ(r.udp_dport, 4791);
            CHECK_EQ(r.udp_csum, 0);
            CHECK_EQ(r.pkey, 0xFFFF);
            CHECK_EQ(r.tver, 0);
            CHECK_EQ(r.dest_qp, 5);
            CHECK_EQ(r.icrc_wire, r.icrc_computed);
            CHECK_EQ(r.pad, (4 - r.payload.size() % 4) % 4);
            CHECK(r.payload.size() <= RNIC_MTU);
            CHECK_EQ((fr.size() - 14) % 4, 0);
            // Requests from nic0: consecutive PSNs from 0x100; RETH only on a
            // message's first WRITE packet; AckReq on the last packet of each.
            if (n == 0 && r.opcode <= 0x0c) {
                CHECK_EQ(r.psn, next_req_psn);
                bool first = r.opcode == 0x00 || r.opcode == 0x04 || r.opcode == 0x06 || r.opcode == 0x0a ||
                             r.opcode == 0x0c;
                bool last = r.opcode == 0x02 || r.opcode == 0x04 || r.opcode == 0x08 || r.opcode == 0x0a ||
                            r.opcode == 0x0c;
                CHECK_EQ(r.has_reth, r.opcode == 0x06 || r.opcode == 0x0a || r.opcode == 0x0c);
                CHECK_EQ(r.ack_req, last);
                CHECK(first || in_msg);
                in_msg = !last;
                if (r.opcode != 0x0c && !last) CHECK_EQ(r.payload.size(), RNIC_MTU);
                next_req_psn = (next_req_psn + (r.opcode == 0x0c ? (r.reth_len + RNIC_MTU - 1) / RNIC_MTU : 1)) &
                               0xFFFFFF;
                if (r.opcode == 0x0c && r.reth_len == 0) next_req_psn = (next_req_psn + 1) & 0xFFFFFF;
            }
            if (n == 1) {
                CHECK(r.opcode == 0x11 || (r.opcode >= 0x0d && r.opcode <= 0x10));
                if (r.opcode == 0x11) CHECK_EQ(r.aeth_syndrome, 0x1F);
                CHECK_EQ(r.has_aeth, r.opcode != 0x0e);
            }
        }
    }
    // Every kind of packet the exchange needs was seen.
    for (unsigned op : {0x00u, 0x01u, 0x02u, 0x04u, 0x06u, 0x07u, 0x08u, 0x0au, 0x0cu, 0x0du, 0x0eu, 0x0fu, 0x10u,
                        0x11u})
        CHECK(opcodes[op] > 0);
    CHECK_EQ(b.f.bar_read(0, RNIC_REG_RX_DROPS), 0);
    CHECK_EQ(b.f.bar_read(1, RNIC_REG_RX_DROPS), 0);

    // The receiver checks the ICRC: a frame whose ICRC alone is wrong is dropped.
    int hits = 0;
    b.f.link_hook = [&](int from, std::vector<uint8_t> &f) {
        if (from == 0 && hits == 0) {
            f[f.size() - 1] ^= 0x80;
            hits++;
        }
        return true;
    };
    SendWr wr;
    wr.opcode = RNIC_OP_RDMA_WRITE;
    wr.sg = {Sge{s0.addr, 8, s0.key}};
    wr.remote_addr = s1.addr;
    wr.rkey = s1.key;
    b.d.post_send(q0, wr);
    b.d.settle();
    CHECK_EQ(hits, 1);
    CHECK_EQ(b.f.bar_read(1, RNIC_REG_RX_DROPS), 1);
    CHECK_EQ(b.f.protocol_errors, 0);
}

// The trace port tells the story of one RDMA WRITE, and the CQE raises the
// interrupt until software clears INTR_STATUS.
BENCH_TEST(trace) {
    Bench b;
    Qp q0, q1;
    b.pair(6, q0, q1);
    Buf src = b.buffer(0, 64, b.next_index());
    Buf dst = b.buffer(1, 64, b.next_index());
    CHECK_EQ(b.f.irq(0), 0);
    SendWr wr;
    wr.opcode = RNIC_OP_RDMA_WRITE;
    wr.sg = {Sge{src.addr, 64, src.key}};
    wr.remote_addr = dst.addr;
    wr.rkey = dst.key;
    b.d.post_send(q0, wr);
    // The interrupt rises only once the CQE is in host memory.
    uint64_t t = 0;
    while (!b.f.irq(0) && t++ < 100000) b.f.step();
    CHECK(b.f.irq(0));
    Cqe c;
    CHECK(b.d.poll(b.scq[0], c, false));
    b.d.settle();
    std::vector<unsigned> seq;
    for (const TraceEvent &e : b.f.events[0]) {
        if (e.qpn != 6) continue;
        seq.push_back(e.event);
        if (e.event == RNIC_EV_DOORBELL) CHECK_EQ(e.arg, 1);   // the new producer index
        if (e.event == RNIC_EV_WQE_FETCHED || e.event == RNIC_EV_PKT_FIRST) CHECK_EQ(e.arg, 0);
        if (e.event == RNIC_EV_CQE_WRITTEN) CHECK_EQ(e.arg, static_cast<uint64_t>(RNIC_CQE_STATUS_SUCCESS) << 32);
    }
    std::vector<unsigned> want = {RNIC_EV_DOORBELL, RNIC_EV_WQE_FETCHED, RNIC_EV_PKT_FIRST, RNIC_EV_CQE_WRITTEN};
    CHECK(seq == want);
    bool checked = false;
    for (const TraceEvent &e : b.f.events[1]) {
        if (e.event != RNIC_EV_RKEY_CHECK) continue;
        CHECK_EQ(e.qpn, 6);
        CHECK_EQ(e.arg, static_cast<uint64_t>(dst.key) << 32 | RNIC_PT_VERDICT_OK);
        checked = true;
    }
    CHECK(checked);
    // Interrupt: CQ 0 of nic0 has a CQE.
    CHECK_EQ(b.f.irq(0), 1);
    CHECK_EQ(b.f.bar_read(0, RNIC_REG_INTR_STATUS_N(b.scq[0].num / 32)), 1u << (b.scq[0].num % 32));
    // A BAR write has taken effect when its bus cycle ends: the driver polls
    // the line right after clearing it.
    b.f.bar_write(0, RNIC_REG_INTR_STATUS_N(b.scq[0].num / 32), 1u << (b.scq[0].num % 32));
    CHECK_EQ(b.f.irq(0), 0);
    CHECK_EQ(b.f.bar_read(0, RNIC_REG_INTR_STATUS_N(b.scq[0].num / 32)), 0);
    CHECK_EQ(b.f.irq(1), 0);   // the responder wrote no CQE
    CHECK_EQ(b.f.protocol_errors, 0);
}
