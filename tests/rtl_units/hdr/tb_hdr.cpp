// rnic_hdr_build and rnic_hdr_parse (rtl/rnic_hdr_*.sv) against the bench's
// own byte-level encoder of docs/wire-format.md (../common/wire_ref.h).
// Both modules are combinational: each check drives inputs, evaluates and
// reads the outputs.
//
//   ipv4_checksum  the header checksum of every frame length the engine can
//                  send, with addresses chosen for carries, sums to 0xFFFF;
//                  a published header (checksum 0xB861) is reproduced
//   build_fields   every opcode the engine sends, random fields (with all
//                  zeros and all ones mixed in) and every single input bit
//                  set alone: the header bytes, hdr_len and frame_len equal
//                  the encoder's
//   roundtrip      build -> frame with payload, pad and ICRC -> parse, for
//                  every opcode: every field the parser returns is the one
//                  built, is_roce and len_ok hold, payload offset and length
//   parse_rejects  a frame the parser accepts, changed in one field at a
//                  time: wrong EtherType, IP version / IHL, protocol, UDP
//                  destination port, destination IP (each bit) -> not RoCE
//   parse_len_ok   every opcode and pad count, frame lengths around the
//                  headers' length: len_ok exactly when the frame holds its
//                  headers, pad and ICRC; payload length, 0 when too short
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "Vrnic_hdr_build.h"
#include "Vrnic_hdr_parse.h"
#include "unit_bench.h"
#include "verilated.h"
#include "wire_ref.h"

namespace {

// rnic_pkg::HDR_EXT_* (rtl_only in rnic.toml, so not in rnic_hw.h): the
// builder's `ext` port. A wrong value shows as a header length mismatch.
constexpr unsigned kExtNone = 0, kExtReth = 1, kExtAeth = 2;
constexpr unsigned kBuildBytes = 72;   // rnic_hdr_build.hdr
constexpr unsigned kParseBytes = 80;   // rnic_hdr_parse.hdr

unsigned ext_port(wire::Ext e) {
    return e == wire::Ext::RETH ? kExtReth : e == wire::Ext::AETH ? kExtAeth : kExtNone;
}

template <std::size_t N> uint8_t get_byte(const VlWide<N> &w, unsigned i) {
    return static_cast<uint8_t>(w[i / 4] >> (8 * (i % 4)));
}
template <std::size_t N> void set_byte(VlWide<N> &w, unsigned i, uint8_t b) {
    const unsigned sh = 8 * (i % 4);
    w[i / 4] = (w[i / 4] & ~(0xFFu << sh)) | static_cast<uint32_t>(b) << sh;
}

std::string hex(const uint8_t *p, size_t n) {
    std::string s;
    char buf[4];
    for (size_t i = 0; i < n; i++) {
        std::snprintf(buf, sizeof buf, "%02x", p[i]);
        s += buf;
        if (i % 2) s += ' ';
    }
    return s;
}

struct Duts {
    explicit Duts(uint64_t seed)
        : ctx(unit_context(seed)), build(new Vrnic_hdr_build(ctx.get())), parse(new Vrnic_hdr_parse(ctx.get())) {}
    ~Duts() {
        build->final();
        parse->final();
    }
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vrnic_hdr_build> build;
    std::unique_ptr<Vrnic_hdr_parse> parse;

    // Drives the builder with f (ext as the opcode table gives it) and
    // returns its 72 header bytes.
    std::vector<uint8_t> run_build(const wire::Fields &f) {
        Vrnic_hdr_build &b = *build;
        b.src_mac = f.src_mac;
        b.dst_mac = f.dst_mac;
        b.src_ip = f.src_ip;
        b.dst_ip = f.dst_ip;
        b.udp_sport = f.udp_sport;
        b.opcode = f.opcode;
        b.solicited = f.solicited;
        b.pad = f.pad;
        b.dest_qp = f.dest_qp;
        b.ack_req = f.ack_req;
        b.psn = f.psn;
        b.ext = ext_port(wire::ext_of(f.opcode));
        b.reth_va = f.reth_va;
        b.reth_rkey = f.reth_rkey;
        b.reth_len = f.reth_len;
        b.aeth_syndrome = f.aeth_syndrome;
        b.aeth_msn = f.aeth_msn;
        b.payload_len = static_cast<uint16_t>(f.payload_len);
        b.eval();
        std::vector<uint8_t> h(kBuildBytes);
        for (unsigned i = 0; i < kBuildBytes; i++) h[i] = get_byte(b.hdr, i);
        return h;
    }

    // Drives the parser with the first 80 bytes of `bytes` (padded with
    // `fill`), the frame length and the port's address.
    void run_parse(const std::vector<uint8_t> &bytes, unsigned frame_len, uint32_t my_ip, uint8_t fill = 0) {
        Vrnic_hdr_parse &p = *parse;
        for (unsigned i = 0; i < kParseBytes; i++) set_byte(p.hdr, i, i < bytes.size() ? bytes[i] : fill);
        p.frame_len = static_cast<uint16_t>(frame_len);
        p.my_ip = my_ip;
        p.eval();
    }
};

// A value for a field of `bits` bits: mostly random, sometimes all zeros or
// all ones (the corners of sums and of byte boundaries).
uint64_t field(Rng &r, unsigned bits) {
    const uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    switch (r.range(0, 9)) {
    case 0: return 0;
    case 1: return mask;
    default: return r.next() & mask;
    }
}

// Random fields for opcode op, as the engine would send them: a payload of
// 0..MTU bytes (none for READ REQUEST and ACKNOWLEDGE) and the pad that
// rounds it to 4.
wire::Fields random_fields(Rng &r, uint8_t op) {
    wire::Fields f;
    f.dst_mac = field(r, 48);
    f.src_mac = field(r, 48);
    f.src_ip = static_cast<uint32_t>(field(r, 32));
    f.dst_ip = static_cast<uint32_t>(field(r, 32));
    f.udp_sport = static_cast<uint16_t>(field(r, 16));
    f.opcode = op;
    f.solicited = r.percent(50);
    f.dest_qp = static_cast<uint32_t>(field(r, 24));
    f.ack_req = r.percent(50);
    f.psn = static_cast<uint32_t>(field(r, 24));
    f.reth_va = field(r, 64);
    f.reth_rkey = static_cast<uint32_t>(field(r, 32));
    f.reth_len = static_cast<uint32_t>(field(r, 32));
    f.aeth_syndrome = static_cast<uint8_t>(field(r, 8));
    f.aeth_msn = static_cast<uint32_t>(field(r, 24));
    const bool no_payload = op == wire::READ_REQUEST || op == wire::ACKNOWLEDGE;
    f.payload_len = no_payload ? 0 : (r.percent(20) ? r.range(0, 8) : r.range(0, wire::kMtu));
    f.pad = (4 - f.payload_len % 4) % 4;
    return f;
}

// The builder's output for f against the encoder's bytes; `what` names the case.
void check_build(Duts &d, const wire::Fields &f, const char *what) {
    const std::vector<uint8_t> got = d.run_build(f);
    const std::vector<uint8_t> want = wire::encode_headers(f);
    CHECK_EQ(d.build->hdr_len, want.size());
    CHECK_EQ(d.build->frame_len, wire::frame_bytes(f));
    const bool same = std::memcmp(got.data(), want.data(), want.size()) == 0;
    CHECK(same);
    if (!same) {
        std::fprintf(stderr, "  %s, opcode %s: header bytes differ\n", what, wire::opcode_name(f.opcode));
        for (unsigned i = 0; i < want.size(); i++)
            if (got[i] != want[i])
                std::fprintf(stderr, "    byte %u: built 0x%02x, expected 0x%02x\n", i, got[i], want[i]);
    }
    CHECK_EQ(wire::ipv4_sum(&got[14]), 0xFFFF);
}

}  // namespace

UNIT_TEST(ipv4_checksum) {
    const uint64_t seed = unit_seed(0x1b4c0001);
    Duts d(seed);
    Rng r(seed);
    const int before = rnic_check_failures();

    // The header of the classic worked example (total length 0x73, DF, TTL
    // 64, UDP, 192.168.0.1 -> 192.168.0.199) has checksum 0xB861; its
    // identification is 0 and TOS 0, as this NIC sends. 0x73 = 115 bytes of
    // IP datagram: a frame of 129 bytes, 54 bytes of headers, 71 of payload.
    {
        wire::Fields f;
        f.opcode = wire::SEND_ONLY;
        f.src_ip = 0xC0A80001;
        f.dst_ip = 0xC0A800C7;
        f.payload_len = 71;
        const std::vector<uint8_t> h = d.run_build(f);
        CHECK_EQ(h[16] << 8 | h[17], 0x73);
        CHECK_EQ(h[24] << 8 | h[25], 0xB861);
        const std::vector<uint8_t> e = wire::encode_headers(f);
        CHECK_EQ(e[24] << 8 | e[25], 0xB861);   // the bench's encoder agrees with the example
    }

    // Every frame length from the shortest (an ACK) to the longest (a full
    // WRITE FIRST), with addresses that make the sum carry once, twice or
    // not at all.
    const uint32_t ips[] = {0, 0xFFFFFFFF, 0xFFFF0000, 0x0000FFFF, 0xFFFEFFFF, 0x7FFF8000, 0xC0A80001, 0x0A000002};
    unsigned n = 0;
    for (uint8_t op : {wire::ACKNOWLEDGE, wire::SEND_ONLY, wire::WRITE_FIRST}) {
        for (unsigned plen = 0; plen <= wire::kMtu && !unit_stop(before); plen++) {
            wire::Fields f = random_fields(r, op);
            f.payload_len = plen;
            f.pad = r.range(0, 3);
            if (plen % 7 == 0) {
                f.src_ip = ips[r.range(0, 7)];
                f.dst_ip = ips[r.range(0, 7)];
            }
            const std::vector<uint8_t> h = d.run_build(f);
            CHECK_EQ(wire::ipv4_sum(&h[14]), 0xFFFF);
            CHECK_EQ(h[24] << 8 | h[25], wire::encode_headers(f)[24] << 8 | wire::encode_headers(f)[25]);
            n++;
        }
    }
    // Sums whose first fold carries again, so the checksum needs the second
    // fold: a few in 65536 at random, so made on purpose here. The sum of
    // the words is aimed at 0x2FFFE..0x2FFFF or 0x3FFFD..0x3FFFF through the
    // low half of the destination address.
    unsigned folds = 0;
    while (folds < 500 && !unit_stop(before)) {
        wire::Fields f = random_fields(r, wire::kOpcodes[r.range(0, 13)]);
        f.src_ip = 0xFFFF0000u | r.range(0, 0xFFFF);
        f.dst_ip = 0xFFFF0000u;
        std::vector<uint8_t> e = wire::encode_headers(f);
        e[24] = e[25] = 0;
        uint32_t base = 0;
        for (unsigned i = 14; i < 34; i += 2) base += static_cast<uint32_t>(e[i] << 8 | e[i + 1]);
        const uint32_t k = r.range(2, 3);
        const uint32_t target = k << 16 | r.range(0x10000 - k, 0xFFFF);
        if (target < base || target - base > 0xFFFF) continue;
        f.dst_ip |= target - base;
        CHECK((target & 0xFFFF) + (target >> 16) > 0xFFFF);   // the case wanted
        CHECK_EQ(wire::ipv4_sum(&d.run_build(f)[14]), 0xFFFF);
        folds++;
        n++;
    }
    for (uint32_t a : ips)
        for (uint32_t b : ips) {
            wire::Fields f = random_fields(r, wire::kOpcodes[r.range(0, 13)]);
            f.src_ip = a;
            f.dst_ip = b;
            CHECK_EQ(wire::ipv4_sum(&d.run_build(f)[14]), 0xFFFF);
            n++;
        }
    std::printf("  %u headers summed\n", n);
}

UNIT_TEST(build_fields) {
    const uint64_t seed = unit_seed(0x1b4c0002);
    Duts d(seed);
    Rng r(seed);
    const int before = rnic_check_failures();

    unsigned n = 0;
    for (uint8_t op : wire::kOpcodes) {
        for (unsigned i = 0; i < 2000 && !unit_stop(before); i++) {
            wire::Fields f = random_fields(r, op);
            f.pad = r.range(0, 3);   // the builder only carries it
            check_build(d, f, "random fields");
            n++;
        }
    }

    // Each input bit alone, over an all-zero header of each opcode: a field
    // put one bit off, or two fields swapped, changes exactly the bytes the
    // encoder does not.
    struct Bits {
        const char *name;
        unsigned bits;
        void (*set)(wire::Fields &, uint64_t);
    };
    const Bits fields[] = {
        {"dst_mac", 48, [](wire::Fields &f, uint64_t v) { f.dst_mac = v; }},
        {"src_mac", 48, [](wire::Fields &f, uint64_t v) { f.src_mac = v; }},
        {"src_ip", 32, [](wire::Fields &f, uint64_t v) { f.src_ip = static_cast<uint32_t>(v); }},
        {"dst_ip", 32, [](wire::Fields &f, uint64_t v) { f.dst_ip = static_cast<uint32_t>(v); }},
        {"udp_sport", 16, [](wire::Fields &f, uint64_t v) { f.udp_sport = static_cast<uint16_t>(v); }},
        {"solicited", 1, [](wire::Fields &f, uint64_t v) { f.solicited = v != 0; }},
        {"pad", 2, [](wire::Fields &f, uint64_t v) { f.pad = static_cast<unsigned>(v); }},
        {"dest_qp", 24, [](wire::Fields &f, uint64_t v) { f.dest_qp = static_cast<uint32_t>(v); }},
        {"ack_req", 1, [](wire::Fields &f, uint64_t v) { f.ack_req = v != 0; }},
        {"psn", 24, [](wire::Fields &f, uint64_t v) { f.psn = static_cast<uint32_t>(v); }},
        {"reth_va", 64, [](wire::Fields &f, uint64_t v) { f.reth_va = v; }},
        {"reth_rkey", 32, [](wire::Fields &f, uint64_t v) { f.reth_rkey = static_cast<uint32_t>(v); }},
        {"reth_len", 32, [](wire::Fields &f, uint64_t v) { f.reth_len = static_cast<uint32_t>(v); }},
        {"aeth_syndrome", 8, [](wire::Fields &f, uint64_t v) { f.aeth_syndrome = static_cast<uint8_t>(v); }},
        {"aeth_msn", 24, [](wire::Fields &f, uint64_t v) { f.aeth_msn = static_cast<uint32_t>(v); }},
        {"payload_len", 12, [](wire::Fields &f, uint64_t v) { f.payload_len = static_cast<unsigned>(v); }},
    };
    for (uint8_t op : wire::kOpcodes) {
        for (const Bits &b : fields) {
            for (unsigned bit = 0; bit < b.bits && !unit_stop(before); bit++) {
                wire::Fields f;
                f.opcode = op;
                b.set(f, 1ull << bit);
                char what[64];
                std::snprintf(what, sizeof what, "%s bit %u alone", b.name, bit);
                check_build(d, f, what);
                n++;
            }
        }
    }
    std::printf("  %u headers compared\n", n);
}

UNIT_TEST(roundtrip) {
    const uint64_t seed = unit_seed(0x1b4c0003);
    Duts d(seed);
    Rng r(seed);
    const int before = rnic_check_failures();

    unsigned n = 0;
    for (uint8_t op : wire::kOpcodes) {
        for (unsigned i = 0; i < 2000 && !unit_stop(before); i++) {
            const wire::Fields f = random_fields(r, op);
            const std::vector<uint8_t> h = d.run_build(f);
            const unsigned hl = d.build->hdr_len, fl = d.build->frame_len;
            // The frame as the engine would push it: the built header, the
            // payload, the pad; then whatever follows in the receive buffer.
            std::vector<uint8_t> frame(h.begin(), h.begin() + hl);
            for (unsigned k = 0; k < f.payload_len; k++) frame.push_back(r.byte());
            frame.resize(frame.size() + f.pad, 0);
            wire::append_icrc(frame);
            CHECK_EQ(frame.size(), fl);
            d.run_parse(frame, fl, f.dst_ip, r.byte());
            const Vrnic_hdr_parse &p = *d.parse;
            const wire::Ext ext = wire::ext_of(op);
            CHECK(p.is_roce);
            CHECK(p.len_ok);
            CHECK_EQ(p.opcode, op);
            CHECK_EQ(p.solicited, f.solicited);
            CHECK_EQ(p.pad, f.pad);
            CHECK_EQ(p.dest_qp, f.dest_qp);
            CHECK_EQ(p.ack_req, f.ack_req);
            CHECK_EQ(p.psn, f.psn);
            if (ext == wire::Ext::RETH) {
                CHECK_EQ(p.reth_va, f.reth_va);
                CHECK_EQ(p.reth_rkey, f.reth_rkey);
                CHECK_EQ(p.reth_len, f.reth_len);
            }
            if (ext == wire::Ext::AETH) CHECK_EQ(p.aeth_syndrome, f.aeth_syndrome);
            CHECK_EQ(p.payload_off, wire::header_bytes(f));
            CHECK_EQ(p.payload_len, f.payload_len);
            if (rnic_check_failures() != before && i == 0)
                std::fprintf(stderr, "  %s: header %s\n", wire::opcode_name(op), hex(frame.data(), hl).c_str());
            n++;
        }
    }
    std::printf("  %u frames built and parsed\n", n);
}

UNIT_TEST(parse_rejects) {
    const uint64_t seed = unit_seed(0x1b4c0004);
    Duts d(seed);
    Rng r(seed);
    const int before = rnic_check_failures();

    struct Change {
        const char *what;
        unsigned off;
        std::vector<uint8_t> bytes;
    };
    const std::vector<Change> changes = {
        {"EtherType IPv6", 12, {0x86, 0xDD}},
        {"EtherType ARP", 12, {0x08, 0x06}},
        {"EtherType VLAN", 12, {0x81, 0x00}},
        {"EtherType 0x0801", 12, {0x08, 0x01}},
        {"EtherType 0x0000", 12, {0x00, 0x00}},
        {"EtherType byte-swapped", 12, {0x00, 0x08}},
        {"IP version 6", 14, {0x65}},
        {"IP version 5", 14, {0x55}},
        {"IP version 0", 14, {0x05}},
        {"IHL 6 (options)", 14, {0x46}},
        {"IHL 4", 14, {0x44}},
        {"IHL 15", 14, {0x4F}},
        {"IHL 0", 14, {0x40}},
        {"protocol TCP", 23, {6}},
        {"protocol ICMP", 23, {1}},
        {"protocol 0", 23, {0}},
        {"protocol 0x91", 23, {0x91}},
        {"UDP port 4790", 36, {0x12, 0xB6}},
        {"UDP port 4792", 36, {0x12, 0xB8}},
        {"UDP port byte-swapped", 36, {0xB7, 0x12}},
        {"UDP port 0", 36, {0x00, 0x00}},
        {"UDP port 0x13B7", 36, {0x13, 0xB7}},
    };
    unsigned n = 0;
    for (unsigned rep = 0; rep < 20 && !unit_stop(before); rep++) {
        for (uint8_t op : wire::kOpcodes) {
            const wire::Fields f = random_fields(r, op);
            std::vector<uint8_t> payload(f.payload_len);
            for (uint8_t &b : payload) b = r.byte();
            const std::vector<uint8_t> good = wire::make_frame(f, payload);
            const unsigned len = static_cast<unsigned>(good.size());

            d.run_parse(good, len, f.dst_ip);   // the control: accepted as it is
            CHECK(d.parse->is_roce);
            CHECK(d.parse->len_ok);
            for (const Change &c : changes) {
                std::vector<uint8_t> bad = good;
                std::copy(c.bytes.begin(), c.bytes.end(), bad.begin() + c.off);
                d.run_parse(bad, len, f.dst_ip);
                if (d.parse->is_roce)
                    std::fprintf(stderr, "  %s accepted as RoCE (%s)\n", c.what, wire::opcode_name(op));
                CHECK(!d.parse->is_roce);
                n++;
            }
            // Another destination: each bit of the address in the frame, and
            // of the port's own address.
            for (unsigned bit = 0; bit < 32; bit++) {
                std::vector<uint8_t> bad = good;
                bad[30 + (31 - bit) / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
                d.run_parse(bad, len, f.dst_ip);
                CHECK(!d.parse->is_roce);
                d.run_parse(good, len, f.dst_ip ^ (1u << bit));
                CHECK(!d.parse->is_roce);
                n += 2;
            }
            // The source address, the source port and the checksums are not
            // the parser's business: a frame stays RoCE with them changed.
            std::vector<uint8_t> other = good;
            for (unsigned o : {6u, 11u, 26u, 29u, 34u, 35u, 24u, 25u, 40u, 41u}) other[o] ^= 0x5A;
            d.run_parse(other, len, f.dst_ip);
            CHECK(d.parse->is_roce);
        }
    }
    std::printf("  %u altered frames refused\n", n);
}

UNIT_TEST(parse_len_ok) {
    const uint64_t seed = unit_seed(0x1b4c0005);
    Duts d(seed);
    Rng r(seed);
    const int before = rnic_check_failures();

    unsigned n = 0;
    for (uint8_t op : wire::kOpcodes) {
        for (unsigned pad = 0; pad < 4; pad++) {
            wire::Fields f = random_fields(r, op);
            f.pad = pad;
            const std::vector<uint8_t> h = wire::encode_headers(f);
            const unsigned off = wire::header_bytes(f);
            const unsigned need = off + pad + wire::kIcrcBytes;   // the shortest frame with these headers
            std::vector<unsigned> lens;
            for (unsigned l = 0; l <= need + 16; l++) lens.push_back(l);
            for (unsigned l : {need + 4096u, need + 4095u, 4170u, 0xFFFFu}) lens.push_back(l);
            for (unsigned l : lens) {
                if (unit_stop(before)) break;
                d.run_parse(h, l, f.dst_ip, r.byte());
                const Vrnic_hdr_parse &p = *d.parse;
                const bool ok = l >= need;
                if (p.len_ok != ok)
                    std::fprintf(stderr, "  %s pad %u: frame of %u bytes, len_ok %u\n", wire::opcode_name(op), pad, l,
                                 p.len_ok);
                CHECK_EQ(p.len_ok, ok);
                CHECK_EQ(p.payload_off, off);
                CHECK_EQ(p.payload_len, ok ? l - need : 0);
                CHECK(p.is_roce);   // the length is len_ok's business, not is_roce's
                n++;
            }
        }
    }
    std::printf("  %u lengths checked\n", n);
}
