// check_rxe_capture PCAP: Linux soft-RoCE's (rxe) frames, as
// tests/interop/vm/capture-rxe recorded them between two VMs, through this
// NIC's receive path, unchanged RTL, verilated. Any RoCEv2 capture will do:
// the simulator's own (RNIC_PCAP) is the control, every header of it
// rebuilt the same by (d).
//
//   (a) rnic_rx_buffer  every RoCEv2 frame (UDP destination port 4791) is
//       offered beat by beat: it must be held, not dropped (our ICRC check
//       against rxe's ICRC), with its length, its first 80 bytes and every
//       word read back by address as sent. A copy of each frame with one
//       bit flipped in a byte the ICRC covers must be dropped: proof that
//       the check ran over these frames rather than let them all through.
//       The bench's ICRC model (tests/rtl_units/common/wire_ref) must agree
//       with rxe's stored ICRC too.
//   (b) rnic_hdr_parse  fed what the buffer holds (its hdr and frame_len, the
//       engine's own wiring) and the receiver's address: every field it
//       decodes must equal this file's reference decoder, written from the
//       InfiniBand layout (BTH, RETH, AETH, ImmDt, IETH, AtomicETH,
//       AtomicAckETH per RC opcode), which knows more opcodes than the RTL.
//       The AETH's MSN has no output: its values are listed.
//   (c) rnic_comp_check  the ACKs and READ responses, against a completer
//       state built from the requests the way rnic_completer keeps it
//       (oldest WQE in flight, its first and last PSN, the bytes of a READ
//       taken so far, the next PSN the requester sends: the one after the
//       newest PSN the captured requests used), as if this NIC had sent
//       rxe's requests and never resent (retrying 0): an ACK that answers
//       the oldest (a SEND or WRITE whose last PSN it reaches, a PSN the
//       requester has sent) must COMPLETE it, and, ACKs being cumulative,
//       every following WQE it reaches, the way the engine asks again; a
//       READ response in order by InfiniBand's rule (the PSN after the
//       previous response) must be DATA, at the capture's path MTU (the
//       payload of its FIRST and MIDDLE packets, which carry exactly that;
//       the unit's log_mtu port is given it, as rnic_qp_config gives it a
//       QP's QP_PATH); NAKs are listed with what they would do (the
//       WQEs they complete, then RETRY, RNR or FAIL with its status), and
//       the other packets with the act the unit gave them.
//   (d) rnic_hdr_build  the headers our transmit side would write for the
//       same packet (same addresses, opcode, QPN, PSN, flags, extension
//       header fields and payload length; UDP source port by the engine's
//       rule 0xC000 | source QPN), compared field by field with rxe's: a
//       table, reported, not asserted (the differences are the findings).
//   (e) per connection: start PSN, path MTU, packets, AckReq placement, ACKs
//       per message, MSNs, retransmissions: reported.
//
// Exit status: 0 every assertion held, 1 otherwise, 2 the capture cannot be
// read or holds no RoCEv2 frame.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "Vrnic_comp_check.h"
#include "Vrnic_hdr_build.h"
#include "Vrnic_hdr_parse.h"
#include "Vrnic_rx_buffer.h"
#include "rnic_check.h"
#include "rnic_hw.h"
#include "rnic_names.h"
#include "verilated.h"
#include "vl_port.h"
#include "wire_ref.h"

namespace {

// ---------------------------------------------------------------- pcap

struct Frame {
    unsigned no;        // 1-based, as Wireshark numbers them
    double t;           // seconds since the first frame
    std::vector<uint8_t> b;
};

uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }
uint32_t be(const uint8_t *p, unsigned n) {
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}
uint64_t be64(const uint8_t *p) { return static_cast<uint64_t>(be(p, 4)) << 32 | be(p + 4, 4); }

// The classic libpcap format with Ethernet frames (what capture-rxe
// writes, and tcpdump -w): little-endian, micro- or nanosecond stamps.
bool read_pcap(const char *path, std::vector<Frame> &out, std::string &err) {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> d((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) return err = "cannot read", false;
    if (d.size() < 24) return err = "shorter than a pcap header", false;
    const uint32_t magic = le32(&d[0]);
    if (magic != 0xA1B2C3D4u && magic != 0xA1B23C4Du) return err = "not a little-endian libpcap file", false;
    const double tick = magic == 0xA1B2C3D4u ? 1e-6 : 1e-9;
    if (le32(&d[20]) != 1) return err = "link type is not Ethernet", false;
    size_t o = 24;
    double t0 = -1;
    while (o + 16 <= d.size()) {
        const uint32_t caplen = le32(&d[o + 8]), len = le32(&d[o + 12]);
        const double t = le32(&d[o]) + le32(&d[o + 4]) * tick;
        if (o + 16 + caplen > d.size()) return err = "truncated record", false;
        if (caplen != len) return err = "a frame was cut short by the snap length", false;
        if (t0 < 0) t0 = t;
        out.push_back(Frame{static_cast<unsigned>(out.size() + 1), t - t0,
                            std::vector<uint8_t>(d.begin() + o + 16, d.begin() + o + 16 + caplen)});
        o += 16 + caplen;
    }
    return true;
}

// ------------------------------------------------- the reference decoder
// From the InfiniBand Architecture (vol. 1, ch. 9: BTH, extended transport
// headers per opcode) and RoCEv2 (IPv4/UDP 4791 in place of the LRH/GRH),
// independently of docs/wire-format.md and of the RTL's constants.

enum Ext : unsigned { RETH = 1, AETH = 2, IMMDT = 4, IETH = 8, ATOMICETH = 16, ATOMICACKETH = 32 };

struct OpInfo {
    const char *name;
    unsigned ext;
    bool known;
};

// RC opcodes (transport bits 000): the 5-bit operation.
OpInfo rc_op(uint8_t op) {
    switch (op) {
    case 0x00: return {"SEND_FIRST", 0, true};
    case 0x01: return {"SEND_MIDDLE", 0, true};
    case 0x02: return {"SEND_LAST", 0, true};
    case 0x03: return {"SEND_LAST_WITH_IMMEDIATE", IMMDT, true};
    case 0x04: return {"SEND_ONLY", 0, true};
    case 0x05: return {"SEND_ONLY_WITH_IMMEDIATE", IMMDT, true};
    case 0x06: return {"RDMA_WRITE_FIRST", RETH, true};
    case 0x07: return {"RDMA_WRITE_MIDDLE", 0, true};
    case 0x08: return {"RDMA_WRITE_LAST", 0, true};
    case 0x09: return {"RDMA_WRITE_LAST_WITH_IMMEDIATE", IMMDT, true};
    case 0x0A: return {"RDMA_WRITE_ONLY", RETH, true};
    case 0x0B: return {"RDMA_WRITE_ONLY_WITH_IMMEDIATE", RETH | IMMDT, true};
    case 0x0C: return {"RDMA_READ_REQUEST", RETH, true};
    case 0x0D: return {"RDMA_READ_RESPONSE_FIRST", AETH, true};
    case 0x0E: return {"RDMA_READ_RESPONSE_MIDDLE", 0, true};
    case 0x0F: return {"RDMA_READ_RESPONSE_LAST", AETH, true};
    case 0x10: return {"RDMA_READ_RESPONSE_ONLY", AETH, true};
    case 0x11: return {"ACKNOWLEDGE", AETH, true};
    case 0x12: return {"ATOMIC_ACKNOWLEDGE", AETH | ATOMICACKETH, true};
    case 0x13: return {"COMPARE_SWAP", ATOMICETH, true};
    case 0x14: return {"FETCH_ADD", ATOMICETH, true};
    case 0x16: return {"SEND_LAST_WITH_INVALIDATE", IETH, true};
    case 0x17: return {"SEND_ONLY_WITH_INVALIDATE", IETH, true};
    default: return {"not an RC opcode", 0, false};
    }
}

unsigned ext_len(unsigned ext) {
    return (ext & RETH ? 16 : 0) + (ext & AETH ? 4 : 0) + (ext & IMMDT ? 4 : 0) + (ext & IETH ? 4 : 0) +
           (ext & ATOMICETH ? 28 : 0) + (ext & ATOMICACKETH ? 8 : 0);
}

bool is_request(uint8_t op) { return op <= 0x0C || op == 0x13 || op == 0x14 || op == 0x16 || op == 0x17; }
bool is_read_response(uint8_t op) { return op >= 0x0D && op <= 0x10; }
bool ends_message(uint8_t op) {   // LAST or ONLY of a SEND or WRITE
    return op == 0x02 || op == 0x03 || op == 0x04 || op == 0x05 || op == 0x08 || op == 0x09 || op == 0x0A ||
           op == 0x0B || op == 0x16 || op == 0x17;
}

struct Ref {
    bool roce = false;          // IPv4, UDP, destination port 4791
    std::string problem;        // malformed, or empty
    unsigned ihl = 0;
    uint32_t src_ip = 0, dst_ip = 0;
    uint16_t sport = 0;
    uint8_t opcode = 0;
    OpInfo op{};
    bool se = false, mig = false, ack_req = false;
    unsigned pad = 0, tver = 0;
    uint16_t pkey = 0;
    uint32_t dest_qp = 0, psn = 0;
    uint64_t va = 0;
    uint32_t rkey = 0, dma_len = 0;
    uint8_t syndrome = 0;
    uint32_t msn = 0;
    unsigned payload_off = 0, payload_len = 0;
};

Ref decode(const std::vector<uint8_t> &f) {
    Ref r;
    const size_t n = f.size();
    if (n < 14 + 20 || be(&f[12], 2) != 0x0800 || f[14] >> 4 != 4) return r;
    r.ihl = (f[14] & 0x0F) * 4u;
    const size_t udp = 14 + r.ihl;
    if (r.ihl < 20 || n < udp + 8 || f[23] != 17 || be(&f[udp + 2], 2) != 4791) return r;
    r.roce = true;
    uint32_t sum = 0;
    for (unsigned i = 0; i < r.ihl; i += 2) sum += be(&f[14 + i], 2);
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    if (sum != 0xFFFF) r.problem = "IPv4 header checksum";
    if (be(&f[16], 2) != n - 14) r.problem = "IPv4 total length is not the frame's";
    if (be(&f[udp + 4], 2) != n - udp) r.problem = "UDP length is not the frame's";
    r.src_ip = be(&f[26], 4);
    r.dst_ip = be(&f[30], 4);
    r.sport = static_cast<uint16_t>(be(&f[udp], 2));
    const size_t bth = udp + 8;
    if (n < bth + 12 + 4) return r.problem = "shorter than BTH + ICRC", r;
    r.opcode = f[bth];
    r.op = rc_op(r.opcode);
    r.se = f[bth + 1] >> 7;
    r.mig = f[bth + 1] >> 6 & 1;
    r.pad = f[bth + 1] >> 4 & 3;
    r.tver = f[bth + 1] & 0xF;
    r.pkey = static_cast<uint16_t>(be(&f[bth + 2], 2));
    r.dest_qp = be(&f[bth + 5], 3);
    r.ack_req = f[bth + 8] >> 7;
    r.psn = be(&f[bth + 9], 3);
    size_t o = bth + 12;
    if (!r.op.known) return r;
    if (n < o + ext_len(r.op.ext) + r.pad + 4) return r.problem = "shorter than its headers", r;
    if (r.op.ext & RETH) {
        r.va = be64(&f[o]);
        r.rkey = be(&f[o + 8], 4);
        r.dma_len = be(&f[o + 12], 4);
    }
    if (r.op.ext & AETH) {
        const size_t a = o + (r.op.ext & ATOMICETH ? 28 : 0);
        r.syndrome = f[a];
        r.msn = be(&f[a + 1], 3);
    }
    r.payload_off = static_cast<unsigned>(o + ext_len(r.op.ext));
    r.payload_len = static_cast<unsigned>(n - r.payload_off - r.pad - 4);
    return r;
}

std::string ip_str(uint32_t ip) {
    char b[20];
    std::snprintf(b, sizeof b, "%u.%u.%u.%u", ip >> 24, ip >> 16 & 255, ip >> 8 & 255, ip & 255);
    return b;
}

// ------------------------------------------------------------ the RTL

template <std::size_t N> uint8_t get_byte(const VlWide<N> &w, unsigned i) {
    return static_cast<uint8_t>(w[i / 4] >> (8 * (i % 4)));
}

constexpr unsigned W = RNIC_DATA_BYTES;
constexpr unsigned kHdrBytes = 80;   // rnic_rx_buffer's hdr (HDR_WORDS 10) = rnic_hdr_parse's hdr

// rnic_rx_buffer feeding rnic_hdr_parse, as rnic_engine wires them.
class RxPath {
public:
    explicit RxPath(VerilatedContext *ctx) : ctx_(ctx), rx_(new Vrnic_rx_buffer(ctx)), parse_(new Vrnic_hdr_parse(ctx)) {
        rx_->rst_n = 0;
        rx_->rx_tvalid = 0;
        rx_->release_frame = 0;
        for (int i = 0; i < 3; i++) edge();
        rx_->rst_n = 1;
        edge();
    }
    ~RxPath() {
        rx_->final();
        parse_->final();
    }

    struct Outcome {
        bool held = false, dropped = false;
        bool len_ok = false, hdr_ok = false, data_ok = false;
    };

    // Offers f; when held, checks what the buffer shows, runs the parser
    // on it with my_ip (left in parser() until the next offer) and
    // releases it.
    Outcome offer(const std::vector<uint8_t> &f, uint32_t my_ip) {
        Outcome o;
        Vrnic_rx_buffer &d = *rx_;
        for (size_t off = 0; off < f.size(); off += W) {
            const size_t n = std::min<size_t>(W, f.size() - off);
            // Lanes past the frame's end zero, as the platform drives them.
            for (unsigned i = 0; i < W; i++) vlport::set_byte(d.rx_tdata, i, i < n ? f[off + i] : 0);
            d.rx_tvalid = 1;
            d.rx_tkeep = vlport::lanes(static_cast<unsigned>(n));
            d.rx_tlast = off + n == f.size();
            d.eval();
            for (int guard = 0; !d.rx_tready && guard < 100; guard++) {
                edge();
                o.dropped |= d.drop;
            }
            CHECK(d.rx_tready);   // nothing is held, so it must take the beat
            edge();
            o.dropped |= d.drop;
        }
        d.rx_tvalid = 0;
        d.eval();
        // The unit bench pins frame_valid and drop at two cycles after the
        // last beat; a few more leave room without hiding a lost frame.
        for (int c = 0; c < 8 && !d.frame_valid; c++) {
            edge();
            o.dropped |= d.drop;
        }
        o.held = d.frame_valid;
        if (!o.held) return o;
        o.len_ok = d.frame_len == f.size();
        o.hdr_ok = true;
        for (unsigned i = 0; i < kHdrBytes && i < f.size(); i++) o.hdr_ok &= get_byte(d.hdr, i) == f[i];
        o.data_ok = true;
        for (unsigned w = 0; w * W < f.size(); w++) {
            d.rd_addr = static_cast<uint16_t>(w);
            d.eval();
            for (unsigned i = 0; i < W && w * W + i < f.size(); i++)
                o.data_ok &= vlport::get_byte(d.rd_data, i) == f[w * W + i];
        }
        Vrnic_hdr_parse &p = *parse_;
        static_assert(sizeof p.hdr == sizeof d.hdr, "the buffer's hdr is the parser's");
        std::memcpy(&p.hdr, &d.hdr, sizeof p.hdr);
        p.frame_len = d.frame_len;
        p.my_ip = my_ip;
        p.eval();
        d.release_frame = 1;
        edge();
        d.release_frame = 0;
        d.eval();
        return o;
    }

    // The parser on the last frame held, for another address.
    bool roce_for(uint32_t my_ip) {
        parse_->my_ip = my_ip;
        parse_->eval();
        return parse_->is_roce;
    }
    Vrnic_hdr_parse &parser() { return *parse_; }

private:
    void edge() {
        rx_->clk = 0;
        rx_->eval();
        ctx_->timeInc(1);
        rx_->clk = 1;
        rx_->eval();
        ctx_->timeInc(1);
        rx_->clk = 0;
        rx_->eval();
    }
    VerilatedContext *ctx_;
    std::unique_ptr<Vrnic_rx_buffer> rx_;
    std::unique_ptr<Vrnic_hdr_parse> parse_;
};

// ----------------------------------------------- field-by-field tallies

// A field's values on each side (the capture or the reference decoder;
// the RTL unit), and where they differ.
struct Tally {
    unsigned compared = 0, differ = 0;
    std::map<uint64_t, unsigned> ref, rtl;
    std::string example;
};

std::string values(const std::map<uint64_t, unsigned> &m, bool hex) {
    std::string s;
    unsigned shown = 0;
    for (const auto &kv : m) {
        if (shown == 4) {
            s += ", ... (" + std::to_string(m.size()) + " values)";
            break;
        }
        char b[40];
        std::snprintf(b, sizeof b, hex ? "0x%" PRIx64 : "%" PRIu64, kv.first);
        s += (shown ? ", " : "") + std::string(b);
        shown++;
    }
    return s;
}

// One header field as both sides lay it out: `bytes` big-endian bytes at
// `off`, shifted right and masked.
struct HdrField {
    const char *name;
    unsigned off, bytes, shift;
    uint32_t mask;
    bool hex;
    const char *note;
};

const HdrField kTxFields[] = {
    {"EtherType", 12, 2, 0, 0xFFFF, true, ""},
    {"IPv4 version/IHL", 14, 1, 0, 0xFF, true, ""},
    {"IPv4 DSCP", 15, 1, 2, 0x3F, false, ""},
    {"IPv4 ECN", 15, 1, 0, 3, false, ""},
    {"IPv4 total length", 16, 2, 0, 0xFFFF, false, ""},
    {"IPv4 identification", 18, 2, 0, 0xFFFF, true, ""},
    {"IPv4 flags (DF=2)", 20, 2, 13, 7, false, ""},
    {"IPv4 fragment offset", 20, 2, 0, 0x1FFF, false, ""},
    {"IPv4 TTL", 22, 1, 0, 0xFF, false, ""},
    {"IPv4 protocol", 23, 1, 0, 0xFF, false, ""},
    {"IPv4 header checksum", 24, 2, 0, 0xFFFF, true, "follows the fields above"},
    {"IPv4 source", 26, 4, 0, 0xFFFFFFFF, true, ""},
    {"IPv4 destination", 30, 4, 0, 0xFFFFFFFF, true, ""},
    {"UDP source port", 34, 2, 0, 0xFFFF, true, ""},
    {"UDP destination port", 36, 2, 0, 0xFFFF, false, ""},
    {"UDP length", 38, 2, 0, 0xFFFF, false, ""},
    {"UDP checksum", 40, 2, 0, 0xFFFF, true, ""},
    {"BTH opcode", 42, 1, 0, 0xFF, true, ""},
    {"BTH SE", 43, 1, 7, 1, false, ""},
    {"BTH M (MigReq)", 43, 1, 6, 1, false, ""},
    {"BTH PadCnt", 43, 1, 4, 3, false, ""},
    {"BTH TVer", 43, 1, 0, 0xF, false, ""},
    {"BTH P_Key", 44, 2, 0, 0xFFFF, true, ""},
    {"BTH FECN", 46, 1, 7, 1, false, ""},
    {"BTH BECN", 46, 1, 6, 1, false, ""},
    {"BTH reserved (6 bits)", 46, 1, 0, 0x3F, false, ""},
    {"BTH DestQP", 47, 3, 0, 0xFFFFFF, true, ""},
    {"BTH AckReq", 50, 1, 7, 1, false, ""},
    {"BTH reserved (7 bits)", 50, 1, 0, 0x7F, false, ""},
    {"BTH PSN", 51, 3, 0, 0xFFFFFF, true, ""},
};

uint32_t field_of(const uint8_t *h, const HdrField &f) { return be(h + f.off, f.bytes) >> f.shift & f.mask; }

// ------------------------------------------------------------- flows

// One direction of one RC connection: the requests a requester sent to
// dest_qp, and what came back.
struct Flow {
    uint32_t src = 0, dst = 0, dest_qp = 0;
    uint32_t src_qp = 0xFFFFFFFF;       // learnt from the responses
    unsigned first_no = 0;
    uint32_t start_psn = 0;
    unsigned packets = 0, retransmitted = 0;
    std::set<uint32_t> psns;
    unsigned msgs_send = 0, msgs_write = 0, reads = 0;
    unsigned max_req_payload = 0, max_resp_payload = 0;
    std::map<std::string, unsigned> ackreq_on, no_ackreq_on;
    unsigned acks = 0, read_resps = 0;
    std::map<uint64_t, unsigned> syndromes;
    std::vector<uint32_t> ack_msns, resp_msns;
    // rnic_comp_check's view: the WQEs in flight, oldest first.
    struct Wqe {
        uint8_t op;                 // RNIC_OP_*
        uint32_t first, last;       // PSNs
        uint32_t len;               // a READ's
        uint32_t got = 0;           // bytes of responses rnic_comp_check took
        unsigned no;                // the frame that made it
        uint32_t next = 0;          // a READ's next response PSN in rxe's sequence
    };
    std::deque<Wqe> inflight;
    bool open_msg = false;
    uint32_t open_first = 0;
    // The PSNs each READ request covers at the capture's path MTU: a READ
    // request inside one is rxe retrying (from the first PSN not answered).
    std::vector<std::pair<uint32_t, uint32_t>> read_ranges;
    // The next PSN the requester sends: the one after the newest PSN its
    // requests used (a READ uses one per response at the path MTU).
    uint32_t sq_psn = 0;
    unsigned cc_ack_ok = 0, cc_ack_bad = 0, cc_ack_other = 0, reads_done = 0;
    unsigned cc_ack_more = 0;                  // WQEs completed by an ACK after the oldest (cumulative)
    unsigned cc_resp_ok = 0, cc_resp_refused = 0, cc_resp_dup = 0, cc_resp_other = 0;
    std::map<std::string, unsigned> cc_naks;   // "syndrome: what it does" -> count
    std::map<std::string, unsigned> cc_acts;   // ACKs answering nothing, READ responses not taken: act -> count
    std::string cc_first_bad;
};

uint32_t psn_add(uint32_t a, uint32_t b) { return (a + b) & 0xFFFFFF; }
bool psn_older(uint32_t a, uint32_t b) { return ((a - b) & 0xFFFFFF) >= 0x800000; }   // a before b

// rnic_pkg::comp_act_t (rtl/rnic_engine_types.svh), RTL-only: no generated
// constant. The values in the order the enum declares them.
enum : uint8_t {
    COMP_ACT_NONE,
    COMP_ACT_COMPLETE,
    COMP_ACT_DATA,
    COMP_ACT_FAIL,
    COMP_ACT_RETRY,
    COMP_ACT_RNR,
    COMP_ACT_PROGRESS
};
const char *comp_act_name(unsigned a) {
    static const char *const names[] = {"NONE", "COMPLETE", "DATA", "FAIL", "RETRY", "RNR", "PROGRESS"};
    return a < sizeof names / sizeof names[0] ? names[a] : "?";
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s CAPTURE.pcap\n", argv[0]);
        return 2;
    }
    std::vector<Frame> frames;
    std::string err;
    if (!read_pcap(argv[1], frames, err)) {
        std::fprintf(stderr, "check_rxe_capture: %s: %s\n", argv[1], err.c_str());
        return 2;
    }
    std::vector<std::pair<const Frame *, Ref>> roce;
    for (const Frame &f : frames) {
        Ref r = decode(f.b);
        if (r.roce) roce.emplace_back(&f, r);
    }
    std::printf("check_rxe_capture: %s: %zu frames, %zu RoCEv2 (UDP port 4791)\n", argv[1], frames.size(),
                roce.size());
    if (roce.empty()) return 2;

    // ---- frames per opcode and direction
    std::map<std::string, std::map<uint8_t, std::pair<unsigned, std::set<size_t>>>> per_dir;
    for (const auto &fr : roce) {
        const Ref &r = fr.second;
        auto &e = per_dir[ip_str(r.src_ip) + " -> " + ip_str(r.dst_ip)][r.opcode];
        e.first++;
        e.second.insert(fr.first->b.size());
    }
    std::printf("\n## Frames per opcode\n\n| direction | opcode | frames | frame bytes |\n| --- | --- | --- | --- |\n");
    for (const auto &d : per_dir)
        for (const auto &o : d.second) {
            std::string sizes;
            for (size_t s : o.second.second) sizes += (sizes.empty() ? "" : ", ") + std::to_string(s);
            std::printf("| %s | 0x%02x %s | %u | %s |\n", d.first.c_str(), o.first, rc_op(o.first).name,
                        o.second.first, sizes.c_str());
        }

    std::unique_ptr<VerilatedContext> ctx(new VerilatedContext);
    // Registers and memories start random (--x-initial unique), from a
    // fixed seed: nothing may rest on power-up contents, and a run repeats.
    ctx->randReset(2);
    ctx->randSeed(0x2e7e);

    // ---- (a) and (b)
    RxPath rx(ctx.get());
    unsigned held = 0, dropped = 0, whole = 0, icrc_model_ok = 0, flips_dropped = 0, malformed = 0;
    std::map<std::string, Tally> parse_tally;
    std::map<uint64_t, unsigned> msns_unparsed;
    auto cmp = [&](const char *field, uint64_t rtl, uint64_t ref, unsigned no) {
        Tally &t = parse_tally[field];
        t.compared++;
        t.ref[ref]++;
        t.rtl[rtl]++;
        if (rtl != ref) {
            if (!t.differ++) {
                char b[96];
                std::snprintf(b, sizeof b, "frame %u: RTL 0x%" PRIx64 ", reference 0x%" PRIx64, no, rtl, ref);
                t.example = b;
            }
        }
        CHECK_EQ(rtl, ref);
    };
    for (const auto &fr : roce) {
        const Frame &f = *fr.first;
        const Ref &r = fr.second;
        if (!r.problem.empty()) {
            malformed++;
            std::fprintf(stderr, "frame %u: malformed: %s\n", f.no, r.problem.c_str());
        }
        CHECK(r.problem.empty());
        const bool model = wire::icrc_ok(f.b);
        icrc_model_ok += model;
        if (!model) {
            const size_t n = f.b.size();
            std::fprintf(stderr, "frame %u: stored ICRC %02x %02x %02x %02x, wire_ref computes %08x\n", f.no,
                         f.b[n - 4], f.b[n - 3], f.b[n - 2], f.b[n - 1], wire::icrc(f.b.data(), n - 4));
        }
        CHECK(model);

        const RxPath::Outcome o = rx.offer(f.b, r.dst_ip);
        held += o.held;
        dropped += o.dropped;
        if (!o.held || o.dropped)
            std::fprintf(stderr, "frame %u (%s, %zu bytes): %s by rnic_rx_buffer\n", f.no, r.op.name, f.b.size(),
                         o.dropped ? "DROPPED" : "not held");
        CHECK(o.held);
        CHECK(!o.dropped);
        if (o.held) {
            whole += o.len_ok && o.hdr_ok && o.data_ok;
            CHECK(o.len_ok);
            CHECK(o.hdr_ok);
            CHECK(o.data_ok);
            const Vrnic_hdr_parse &p = rx.parser();
            cmp("is_roce (my_ip = destination)", p.is_roce, 1, f.no);
            cmp("len_ok", p.len_ok, 1, f.no);
            cmp("opcode", p.opcode, r.opcode, f.no);
            cmp("SE", p.solicited, r.se, f.no);
            cmp("PadCnt", p.pad, r.pad, f.no);
            cmp("DestQP", p.dest_qp, r.dest_qp, f.no);
            cmp("AckReq", p.ack_req, r.ack_req, f.no);
            cmp("PSN", p.psn, r.psn, f.no);
            if (r.op.ext & RETH) {
                cmp("RETH VA", p.reth_va, r.va, f.no);
                cmp("RETH R_Key", p.reth_rkey, r.rkey, f.no);
                cmp("RETH DMA length", p.reth_len, r.dma_len, f.no);
            }
            if (r.op.ext & AETH) {
                cmp("AETH syndrome", p.aeth_syndrome, r.syndrome, f.no);
                msns_unparsed[r.msn]++;
            }
            if (r.op.known) {
                cmp("payload offset", p.payload_off, r.payload_off, f.no);
                cmp("payload length", p.payload_len, r.payload_len, f.no);
            }
            cmp("is_roce (my_ip = source)", rx.roce_for(r.src_ip), r.src_ip == r.dst_ip, f.no);
        }

        // The same frame with one bit flipped where the ICRC looks: a byte
        // after the Ethernet header that is none of the masked ones, a
        // different one for each frame so that headers, payload and the
        // ICRC itself all get their turn.
        std::vector<uint8_t> bad = f.b;
        size_t at = 14 + (static_cast<size_t>(f.no) * 7919u) % (bad.size() - 14);
        while (wire::icrc_masked(at)) at = at + 1 < bad.size() ? at + 1 : 14;
        bad[at] ^= static_cast<uint8_t>(1u << (f.no % 8));
        const RxPath::Outcome ob = rx.offer(bad, r.dst_ip);
        flips_dropped += ob.dropped && !ob.held;
        if (!ob.dropped || ob.held)
            std::fprintf(stderr, "frame %u with byte %zu bit %u flipped: not dropped\n", f.no, at, f.no % 8);
        CHECK(ob.dropped && !ob.held);
    }
    std::printf("\n## (a) rnic_rx_buffer\n\n");
    std::printf("- %u of %zu frames held (%u whole: length, first 80 bytes and every word as sent), %u dropped\n",
                held, roce.size(), whole, dropped);
    std::printf("- the bench's ICRC model (wire_ref) agrees with the stored ICRC on %u of %zu\n", icrc_model_ok,
                roce.size());
    std::printf("- the same frames with one ICRC-covered bit flipped: %u of %zu dropped\n", flips_dropped, roce.size());
    std::printf("- malformed by the reference decoder (IPv4 checksum, lengths): %u\n", malformed);

    std::printf("\n## (b) rnic_hdr_parse against the reference decoder\n\n| field | frames | differ | values "
                "(reference) | first difference |\n| --- | --- | --- | --- | --- |\n");
    for (const auto &kv : parse_tally) {
        const Tally &t = kv.second;
        std::printf("| %s | %u | %u | %s | %s |\n", kv.first.c_str(), t.compared, t.differ, values(t.ref, true).c_str(),
                    t.example.empty() ? "-" : t.example.c_str());
    }
    std::printf("\nAETH MSN: rnic_hdr_parse has no output for it (the completer matches ACKs by PSN); the capture has "
                "%s\n", values(msns_unparsed, false).c_str());

    // ---- flows: requests grouped by (source, destination, DestQP)
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Flow> flows;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> req_qp_by_psn;   // (src, dst, psn) -> DestQP
    for (const auto &fr : roce) {
        const Ref &r = fr.second;
        if (is_request(r.opcode)) req_qp_by_psn[std::make_tuple(r.src_ip, r.dst_ip, r.psn)] = r.dest_qp;
    }
    // A response's DestQP is the requester's QPN: that names the source QP
    // of the requests it answers.
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> src_qp_of;   // flow key -> its source QPN
    for (const auto &fr : roce) {
        const Ref &r = fr.second;
        if (is_request(r.opcode) || !r.op.known) continue;
        auto it = req_qp_by_psn.find(std::make_tuple(r.dst_ip, r.src_ip, r.psn));
        if (it == req_qp_by_psn.end()) continue;
        src_qp_of[std::make_tuple(r.dst_ip, r.src_ip, it->second)] = r.dest_qp;
        src_qp_of[std::make_tuple(r.src_ip, r.dst_ip, r.dest_qp)] = it->second;
    }
    // The flow a response belongs to: responses go to the requester's QPN.
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::tuple<uint32_t, uint32_t, uint32_t>> flow_of_resp;
    for (const auto &kv : src_qp_of) {
        const auto &k = kv.first;   // (src, dst, dest_qp) of requests, or of responses
        flow_of_resp[std::make_tuple(std::get<1>(k), std::get<0>(k), kv.second)] = k;
    }

    // ---- (c) rnic_comp_check, in capture order
    std::unique_ptr<Vrnic_comp_check> cc(new Vrnic_comp_check(ctx.get()));
    // The path MTU: what a FIRST or MIDDLE packet of any message carries
    // (SEND 0x00/0x01, WRITE 0x06/0x07, READ response 0x0D/0x0E); the
    // RTL's largest when every message fit one packet.
    unsigned pmtu = 0;
    for (const auto &fr : roce) {
        const uint8_t op = fr.second.opcode;
        if (op == 0x00 || op == 0x01 || op == 0x06 || op == 0x07 || op == 0x0D || op == 0x0E)
            pmtu = std::max(pmtu, fr.second.payload_len);
    }
    if (!pmtu) pmtu = RNIC_MTU;
    unsigned log_mtu = 8;
    while (log_mtu < 12 && (1u << log_mtu) < pmtu) log_mtu++;
    std::printf("path MTU of the capture: %u bytes (log_mtu %u)\n", pmtu, log_mtu);
    for (const auto &fr : roce) {
        const Frame &f = *fr.first;
        const Ref &r = fr.second;
        if (!r.op.known) continue;
        if (is_request(r.opcode)) {
            Flow &fl = flows[std::make_tuple(r.src_ip, r.dst_ip, r.dest_qp)];
            if (!fl.packets) {
                fl.src = r.src_ip;
                fl.dst = r.dst_ip;
                fl.dest_qp = r.dest_qp;
                fl.first_no = f.no;
                fl.start_psn = r.psn;
                auto s = src_qp_of.find(std::make_tuple(r.src_ip, r.dst_ip, r.dest_qp));
                if (s != src_qp_of.end()) fl.src_qp = s->second;
            }
            fl.packets++;
            bool again = !fl.psns.insert(r.psn).second;
            for (const auto &rg : fl.read_ranges)
                again |= r.opcode == 0x0C && !psn_older(r.psn, rg.first) && !psn_older(rg.second, r.psn);
            fl.retransmitted += again;
            fl.max_req_payload = std::max(fl.max_req_payload, r.payload_len);
            (r.ack_req ? fl.ackreq_on : fl.no_ackreq_on)[r.op.name]++;
            {
                const uint32_t used = r.opcode == 0x0C && r.dma_len ? (r.dma_len + pmtu - 1) / pmtu : 1;
                const uint32_t next = psn_add(r.psn, used);
                if (fl.packets == 1 || psn_older(fl.sq_psn, next)) fl.sq_psn = next;
            }
            if (again) continue;
            const bool first = r.opcode == 0x00 || r.opcode == 0x06 || r.opcode == 0x04 || r.opcode == 0x05 ||
                               r.opcode == 0x0A || r.opcode == 0x0B || r.opcode == 0x17;
            // A MIDDLE or LAST with no message open: its FIRST never reached
            // the capture (lost on the host, see capture-rxe), yet the
            // requester has that message in flight all the same.
            if (first || (!fl.open_msg && r.opcode != 0x0C)) {
                fl.open_msg = true;
                fl.open_first = r.psn;
            }
            if (ends_message(r.opcode) && fl.open_msg) {
                fl.open_msg = false;
                const bool write = r.opcode >= 0x06;
                (write ? fl.msgs_write : fl.msgs_send)++;
                fl.inflight.push_back(Flow::Wqe{static_cast<uint8_t>(write ? RNIC_OP_RDMA_WRITE : RNIC_OP_SEND),
                                                fl.open_first, r.psn, 0, 0, f.no, 0});
            }
            if (r.opcode == 0x0C) {
                fl.reads++;
                fl.read_ranges.emplace_back(r.psn, psn_add(r.psn, r.dma_len ? (r.dma_len + pmtu - 1) / pmtu - 1 : 0));
                // Our requester's count of response PSNs: one per path MTU.
                const uint32_t pkts = r.dma_len == 0 ? 1 : (r.dma_len + pmtu - 1) / pmtu;
                fl.inflight.push_back(Flow::Wqe{static_cast<uint8_t>(RNIC_OP_RDMA_READ), r.psn,
                                                psn_add(r.psn, pkts - 1), r.dma_len, 0, f.no, r.psn});
            }
            continue;
        }
        auto fk = flow_of_resp.find(std::make_tuple(r.src_ip, r.dst_ip, r.dest_qp));
        if (fk == flow_of_resp.end()) continue;
        Flow &fl = flows[fk->second];
        const bool resp = is_read_response(r.opcode);
        if (r.opcode == 0x11) {
            fl.acks++;
            fl.syndromes[r.syndrome]++;
            fl.ack_msns.push_back(r.msn);
        } else if (resp) {
            fl.read_resps++;
            fl.max_resp_payload = std::max(fl.max_resp_payload, r.payload_len);
            if (r.op.ext & AETH) fl.resp_msns.push_back(r.msn);
        } else {
            continue;
        }
        // rnic_comp_check's act for this packet and the flow's oldest WQE
        // now (asked again after each WQE it completes, as the engine does).
        Vrnic_comp_check &c = *cc;
        auto ask = [&]() -> uint8_t {
            const Flow::Wqe *o = fl.inflight.empty() ? nullptr : &fl.inflight.front();
            c.mutant = RNIC_MUTANT_NONE;
            c.is_ack = r.opcode == 0x11;
            c.is_read_resp = resp;
            c.syndrome = r.syndrome;
            c.psn = r.psn;
            c.in_flight = o != nullptr;
            c.oldest_op = o ? o->op : RNIC_OP_SEND;
            c.oldest_first = o ? o->first : 0;
            c.oldest_last = o ? o->last : 0;
            c.oldest_got = o ? o->got : 0;
            c.sq_psn = fl.sq_psn;
            c.retrying = 0;     // this requester never resends: rxe's resends are in the capture
            c.acked_psn = 0;    // read only while retrying
            c.log_mtu = log_mtu;
            c.eval();
            return c.act;
        };
        const Flow::Wqe *w = fl.inflight.empty() ? nullptr : &fl.inflight.front();
        if (r.opcode == 0x11) {
            const unsigned kind = r.syndrome >> 5;
            if (kind == 3 || kind == 1) {
                // A NAK or RNR NAK: the WQEs that end before its PSN
                // complete, then it acts on the next (rxe's requester
                // resends on a PSN sequence NAK, and so does ours: RETRY).
                unsigned completed = 0;
                uint8_t act = ask();
                while (act == COMP_ACT_COMPLETE) {
                    fl.inflight.pop_front();
                    completed++;
                    act = ask();
                }
                char b[120];
                const char *st = rnic_cqe_status_name(c.ack_status);
                std::snprintf(b, sizeof b, "%s 0x%02x: %s%s%s%s", kind == 1 ? "RNR NAK" : "NAK", r.syndrome,
                              completed ? std::to_string(completed).c_str() : "",
                              completed ? (completed == 1 ? " WQE completed, then " : " WQEs completed, then ") : "",
                              comp_act_name(act),
                              act == COMP_ACT_FAIL ? (std::string(", status ") + (st ? st : "?")).c_str() : "");
                fl.cc_naks[b]++;
                if (act == COMP_ACT_FAIL) fl.inflight.pop_front();
                continue;
            }
            // An ACK answers the oldest when it is a SEND or WRITE whose last
            // PSN the ACK reaches, and names a PSN the requester has sent.
            auto answers = [&](const Flow::Wqe *o) {
                return kind == 0 && o && o->op != RNIC_OP_RDMA_READ && !psn_older(r.psn, o->last) &&
                       psn_older(r.psn, fl.sq_psn);
            };
            if (answers(w)) {
                bool ok = true;
                unsigned completed = 0;
                do {
                    const uint8_t act = ask();
                    if (act != COMP_ACT_COMPLETE) {
                        ok = false;
                        if (fl.cc_first_bad.empty())
                            fl.cc_first_bad = "frame " + std::to_string(f.no) + ": ACK " + comp_act_name(act) +
                                              " for the WQE of frame " + std::to_string(fl.inflight.front().no);
                    }
                    CHECK_EQ(act, COMP_ACT_COMPLETE);
                    fl.inflight.pop_front();
                    completed++;
                } while (answers(fl.inflight.empty() ? nullptr : &fl.inflight.front()));
                (ok ? fl.cc_ack_ok : fl.cc_ack_bad)++;
                fl.cc_ack_more += completed - 1;
                // Asked once more for the next oldest, which it does not
                // answer: nothing, or a READ it passed (RETRY: its
                // responses were lost).
                const uint8_t act = ask();
                if (act != COMP_ACT_NONE) fl.cc_acts[std::string("ACK, then ") + comp_act_name(act)]++;
            } else {
                // A repeated ACK (rxe answers a retransmitted request again),
                // one inside a message, one past a READ, or one for a message
                // the capture lost: it answers nothing.
                fl.cc_ack_other++;
                uint8_t act = ask();
                fl.cc_acts[std::string("ACK answering nothing: ") + comp_act_name(act)]++;
                while (act == COMP_ACT_COMPLETE) {
                    fl.inflight.pop_front();
                    act = ask();
                }
            }
            continue;
        }
        // A READ response. In rxe's sequence the next one for the oldest
        // READ carries w->next; rnic_comp_check wants first + got / path MTU.
        const bool for_read = w && w->op == RNIC_OP_RDMA_READ;
        const uint32_t iba_next = for_read ? w->next : 0;
        const uint8_t act = ask();
        if (act == COMP_ACT_DATA) {
            fl.cc_resp_ok++;
            Flow::Wqe &front = fl.inflight.front();
            front.got += r.payload_len;
            front.next = psn_add(r.psn, 1);
            if (r.opcode == 0x0F || r.opcode == 0x10) {
                fl.inflight.pop_front();
                fl.reads_done++;
            }
            continue;
        }
        fl.cc_acts[std::string("READ response not taken: ") + comp_act_name(act)]++;
        if (for_read && r.psn == iba_next) {
            // In order by InfiniBand's rule and still refused: the mismatch.
            fl.cc_resp_refused++;
            fl.inflight.front().next = psn_add(r.psn, 1);
            if (fl.cc_first_bad.empty()) {
                char b[220];
                std::snprintf(b, sizeof b, "frame %u: %s PSN 0x%06x (%u bytes) after %u bytes taken: %s; RTL wants "
                              "PSN 0x%06x = 0x%06x + %u / %u", f.no, r.op.name, r.psn, r.payload_len, w->got,
                              comp_act_name(act), psn_add(w->first, w->got >> log_mtu), w->first, w->got,
                              1u << log_mtu);
                fl.cc_first_bad = b;
            }
            CHECK(act == COMP_ACT_DATA);   // at the QP's path MTU an in-order response must be taken
        } else if (for_read && psn_older(r.psn, iba_next)) {
            fl.cc_resp_dup++;   // rxe answering a retried READ again: dropped by design
        } else {
            fl.cc_resp_other++; // a later READ's while the oldest waits, or past a PSN the capture lost
        }
    }

    std::printf("\n## (c) rnic_comp_check on the ACKs and READ responses\n\n");
    std::printf("| requester -> responder, QP | ACKs accepted / refused / answering nothing | more WQEs completed "
                "by those ACKs | NAKs | READ responses accepted | in order but refused | duplicates | other | READs "
                "completed | acts of the rest | first refusal |\n"
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    unsigned refused = 0;
    for (const auto &kv : flows) {
        const Flow &fl = kv.second;
        refused += fl.cc_resp_refused;
        std::string naks;
        for (const auto &n : fl.cc_naks) naks += (naks.empty() ? "" : "; ") + n.first + " (" + std::to_string(n.second) + ")";
        std::string acts;
        for (const auto &a : fl.cc_acts) acts += (acts.empty() ? "" : "; ") + a.first + " (" + std::to_string(a.second) + ")";
        std::printf("| %s -> %s, 0x%x | %u / %u / %u | %u | %s | %u | %u | %u | %u | %u of %u | %s | %s |\n",
                    ip_str(fl.src).c_str(), ip_str(fl.dst).c_str(), fl.dest_qp, fl.cc_ack_ok, fl.cc_ack_bad,
                    fl.cc_ack_other, fl.cc_ack_more, naks.empty() ? "-" : naks.c_str(), fl.cc_resp_ok,
                    fl.cc_resp_refused, fl.cc_resp_dup, fl.cc_resp_other, fl.reads_done, fl.reads,
                    acts.empty() ? "-" : acts.c_str(), fl.cc_first_bad.empty() ? "-" : fl.cc_first_bad.c_str());
    }
    if (refused)
        std::printf("\nMISMATCH: at a path MTU of %u bytes rnic_comp_check refused %u READ responses that were in order\n",
                    pmtu, refused);

    // ---- (d) rnic_hdr_build for the same packets
    std::unique_ptr<Vrnic_hdr_build> hb(new Vrnic_hdr_build(ctx.get()));
    std::map<std::string, Tally> tx;
    std::vector<std::string> tx_order;
    unsigned built = 0, no_src_qp = 0;
    for (const auto &fr : roce) {
        const Frame &f = *fr.first;
        const Ref &r = fr.second;
        const wire::Ext ext = wire::ext_of(r.opcode);
        // Only what our engine sends, and the extension header it gives them.
        if (std::string(wire::opcode_name(r.opcode)) == "?") continue;
        if ((ext == wire::Ext::RETH) != ((r.op.ext & RETH) != 0) || (ext == wire::Ext::AETH) != ((r.op.ext & AETH) != 0))
            continue;
        // The requester's QPN: the flow's source QP for a request, this
        // frame's own flow key for a response.
        auto s = src_qp_of.find(std::make_tuple(r.src_ip, r.dst_ip, r.dest_qp));
        if (s == src_qp_of.end()) {
            no_src_qp++;
            continue;
        }
        Vrnic_hdr_build &b = *hb;
        uint64_t dmac = 0, smac = 0;
        for (int i = 0; i < 6; i++) {
            dmac = dmac << 8 | f.b[i];
            smac = smac << 8 | f.b[6 + i];
        }
        b.dst_mac = dmac;
        b.src_mac = smac;
        b.src_ip = r.src_ip;
        b.dst_ip = r.dst_ip;
        // rnic_engine: UDP_SPORT_BASE | the sending QP's number.
        b.udp_sport = static_cast<uint16_t>(0xC000u | (s->second & 0xFFFF));
        b.opcode = r.opcode;
        b.solicited = r.se;
        b.pad = r.pad;
        b.dest_qp = r.dest_qp;
        b.ack_req = r.ack_req;
        b.psn = r.psn;
        b.ext = ext == wire::Ext::RETH ? 1 : ext == wire::Ext::AETH ? 2 : 0;   // rnic_pkg::HDR_EXT_*
        b.reth_va = r.va;
        b.reth_rkey = r.rkey;
        b.reth_len = r.dma_len;
        b.aeth_syndrome = r.syndrome;
        b.aeth_msn = r.msn;
        b.payload_len = static_cast<uint16_t>(r.payload_len);
        b.eval();
        std::vector<uint8_t> ours(72);
        for (unsigned i = 0; i < 72; i++) ours[i] = get_byte(b.hdr, i);
        CHECK_EQ(b.hdr_len, r.payload_off);
        CHECK_EQ(b.frame_len, f.b.size());
        built++;
        for (const HdrField &hf : kTxFields) {
            Tally &t = tx[hf.name];
            const uint32_t a = field_of(f.b.data(), hf), o = field_of(ours.data(), hf);
            t.compared++;
            t.ref[a]++;
            t.rtl[o]++;
            if (a != o && !t.differ++) {
                char e[120];
                std::snprintf(e, sizeof e, "frame %u (%s): captured 0x%x, built 0x%x", f.no, r.op.name, a, o);
                t.example = e;
            }
        }
    }
    std::printf("\n## (d) rnic_hdr_build for the same %u packets against the captured headers\n\n", built);
    std::printf("| field | captured | rnic_hdr_build | frames differing | first difference |\n"
                "| --- | --- | --- | --- | --- |\n");
    for (const HdrField &hf : kTxFields) {
        const Tally &t = tx[hf.name];
        std::printf("| %s%s%s%s | %s | %s | %u of %u | %s |\n", hf.name, *hf.note ? " (" : "", hf.note, *hf.note ? ")" : "",
                    values(t.ref, hf.hex).c_str(), values(t.rtl, hf.hex).c_str(), t.differ, t.compared,
                    t.example.empty() ? "-" : t.example.c_str());
    }
    if (no_src_qp) std::printf("\n(%u frames left out: no response named their source QP)\n", no_src_qp);

    // ---- (e) per connection
    std::printf("\n## (e) Requests and their answers, per requester\n\n");
    std::printf("| requester -> responder | QPs (src -> dest) | first frame | start PSN | packets (again) | SEND / WRITE "
                "msgs, READs | largest payload req / resp | AckReq set on | AckReq clear on | ACKs (syndromes) | ACK MSNs "
                "| READ response MSNs |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    auto names = [](const std::map<std::string, unsigned> &m) {
        std::string s;
        for (const auto &kv : m) s += (s.empty() ? "" : ", ") + kv.first + " " + std::to_string(kv.second);
        return s.empty() ? std::string("-") : s;
    };
    auto seq = [](const std::vector<uint32_t> &v) {
        std::string s;
        for (size_t i = 0; i < v.size() && i < 12; i++) s += (i ? " " : "") + std::to_string(v[i]);
        if (v.size() > 12) s += " ...";
        return s.empty() ? std::string("-") : s;
    };
    std::vector<const Flow *> by_time;
    for (const auto &kv : flows) by_time.push_back(&kv.second);
    std::sort(by_time.begin(), by_time.end(), [](const Flow *a, const Flow *b) { return a->first_no < b->first_no; });
    for (const Flow *fl : by_time) {
        std::map<uint64_t, unsigned> syn = fl->syndromes;
        std::printf("| %s -> %s | 0x%x -> 0x%x | %u | 0x%06x | %u (%u) | %u / %u, %u | %u / %u | %s | %s | %u (%s) | %s | %s |\n",
                    ip_str(fl->src).c_str(), ip_str(fl->dst).c_str(), fl->src_qp, fl->dest_qp, fl->first_no,
                    fl->start_psn, fl->packets, fl->retransmitted, fl->msgs_send, fl->msgs_write, fl->reads,
                    fl->max_req_payload, fl->max_resp_payload, names(fl->ackreq_on).c_str(),
                    names(fl->no_ackreq_on).c_str(), fl->acks, values(syn, true).c_str(), seq(fl->ack_msns).c_str(),
                    seq(fl->resp_msns).c_str());
    }
    std::printf("\nUDP source port of each connection: ");
    std::map<std::pair<uint32_t, uint32_t>, std::set<uint16_t>> sports;
    for (const auto &fr : roce) {
        auto s = src_qp_of.find(std::make_tuple(fr.second.src_ip, fr.second.dst_ip, fr.second.dest_qp));
        if (s != src_qp_of.end()) sports[std::make_pair(s->second, fr.second.dest_qp)].insert(fr.second.sport);
    }
    for (const auto &kv : sports) {
        std::printf("QP 0x%x -> 0x%x:", kv.first.first, kv.first.second);
        for (uint16_t p : kv.second) std::printf(" 0x%04x", p);
        std::printf("; ");
    }
    std::printf("\n\n");
    CHECK(held == roce.size());
    return rnic_check_summary("check_rxe_capture");
}
