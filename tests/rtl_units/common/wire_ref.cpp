#include "wire_ref.h"

namespace wire {

const Opcode kOpcodes[14] = {
    SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_ONLY, WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_ONLY,
    READ_REQUEST, READ_RESPONSE_FIRST, READ_RESPONSE_MIDDLE, READ_RESPONSE_LAST, READ_RESPONSE_ONLY, ACKNOWLEDGE,
};

const char *opcode_name(uint8_t op) {
    switch (op) {
    case SEND_FIRST: return "SEND_FIRST";
    case SEND_MIDDLE: return "SEND_MIDDLE";
    case SEND_LAST: return "SEND_LAST";
    case SEND_ONLY: return "SEND_ONLY";
    case WRITE_FIRST: return "WRITE_FIRST";
    case WRITE_MIDDLE: return "WRITE_MIDDLE";
    case WRITE_LAST: return "WRITE_LAST";
    case WRITE_ONLY: return "WRITE_ONLY";
    case READ_REQUEST: return "READ_REQUEST";
    case READ_RESPONSE_FIRST: return "READ_RESPONSE_FIRST";
    case READ_RESPONSE_MIDDLE: return "READ_RESPONSE_MIDDLE";
    case READ_RESPONSE_LAST: return "READ_RESPONSE_LAST";
    case READ_RESPONSE_ONLY: return "READ_RESPONSE_ONLY";
    case ACKNOWLEDGE: return "ACKNOWLEDGE";
    default: return "?";
    }
}

// "ext. header" column: RETH on RDMA WRITE FIRST/ONLY and READ REQUEST,
// AETH on ACKNOWLEDGE and READ RESPONSE FIRST/LAST/ONLY.
Ext ext_of(uint8_t opcode) {
    switch (opcode) {
    case WRITE_FIRST:
    case WRITE_ONLY:
    case READ_REQUEST:
        return Ext::RETH;
    case READ_RESPONSE_FIRST:
    case READ_RESPONSE_LAST:
    case READ_RESPONSE_ONLY:
    case ACKNOWLEDGE:
        return Ext::AETH;
    default:
        return Ext::NONE;
    }
}

unsigned ext_bytes(Ext e) { return e == Ext::RETH ? kRethBytes : e == Ext::AETH ? kAethBytes : 0; }

unsigned header_bytes(const Fields &f) { return kBaseBytes + ext_bytes(ext_of(f.opcode)); }

unsigned frame_bytes(const Fields &f) { return header_bytes(f) + f.payload_len + f.pad + kIcrcBytes; }

namespace {
// Big-endian (network order) stores.
void put(std::vector<uint8_t> &b, unsigned off, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) b[off + i] = static_cast<uint8_t>(v >> (8 * (n - 1 - i)));
}
}  // namespace

std::vector<uint8_t> encode_headers(const Fields &f) {
    const unsigned len = frame_bytes(f);
    std::vector<uint8_t> h(header_bytes(f), 0);
    // Ethernet: destination, source, EtherType IPv4.
    put(h, 0, f.dst_mac, 6);
    put(h, 6, f.src_mac, 6);
    put(h, 12, 0x0800, 2);
    // IPv4 at 14: 0x45, TOS 0, total length, identification 0, DF, TTL 64,
    // UDP, checksum, source, destination.
    put(h, 14, 0x45, 1);
    put(h, 15, 0, 1);
    put(h, 16, len - 14, 2);
    put(h, 18, 0, 2);
    put(h, 20, 0x4000, 2);
    put(h, 22, 64, 1);
    put(h, 23, 17, 1);
    put(h, 24, 0, 2);
    put(h, 26, f.src_ip, 4);
    put(h, 30, f.dst_ip, 4);
    put(h, 24, static_cast<uint16_t>(~ipv4_sum(&h[14])), 2);
    // UDP at 34: source port, 4791, length, checksum 0.
    put(h, 34, f.udp_sport, 2);
    put(h, 36, kUdpPortRocev2, 2);
    put(h, 38, len - 34, 2);
    put(h, 40, 0, 2);
    // BTH at 42.
    put(h, 42, f.opcode, 1);
    put(h, 43, (f.solicited ? 0x80u : 0u) | (f.pad & 3u) << 4, 1);   // M 0, TVer 0
    put(h, 44, 0xFFFF, 2);                                          // P_Key
    put(h, 46, 0, 1);                                               // FECN, BECN, reserved
    put(h, 47, f.dest_qp & 0xFFFFFF, 3);
    put(h, 50, f.ack_req ? 0x80u : 0u, 1);
    put(h, 51, f.psn & 0xFFFFFF, 3);
    switch (ext_of(f.opcode)) {
    case Ext::RETH:
        put(h, 54, f.reth_va, 8);
        put(h, 62, f.reth_rkey, 4);
        put(h, 66, f.reth_len, 4);
        break;
    case Ext::AETH:
        put(h, 54, f.aeth_syndrome, 1);
        put(h, 55, f.aeth_msn & 0xFFFFFF, 3);
        break;
    case Ext::NONE:
        break;
    }
    return h;
}

uint16_t ipv4_sum(const uint8_t *ip) {
    uint32_t sum = 0;
    for (unsigned i = 0; i < 20; i += 2) sum += static_cast<uint32_t>(ip[i] << 8 | ip[i + 1]);
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    return static_cast<uint16_t>(sum);
}

namespace {
uint32_t crc_byte(uint32_t c, uint8_t b) {
    c ^= b;
    for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    return c;
}
}  // namespace

uint32_t crc32(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = crc_byte(c, p[i]);
    return ~c;
}

bool icrc_masked(size_t o) { return o == 15 || o == 22 || o == 24 || o == 25 || o == 40 || o == 41 || o == 46; }

uint32_t icrc(const uint8_t *frame, size_t len) {
    std::vector<uint8_t> covered(8, 0xFF);   // stands for the LRH a RoCEv2 packet lacks
    for (size_t o = kEthBytes; o < len; o++) covered.push_back(icrc_masked(o) ? 0xFF : frame[o]);
    return crc32(covered.data(), covered.size());
}

bool icrc_ok(const std::vector<uint8_t> &frame) {
    if (frame.size() < kIcrcBytes) return false;
    const size_t n = frame.size() - kIcrcBytes;
    uint32_t stored = 0;
    for (unsigned i = 0; i < 4; i++) stored |= static_cast<uint32_t>(frame[n + i]) << (8 * i);
    return stored == icrc(frame.data(), n);
}

void append_icrc(std::vector<uint8_t> &frame) {
    const uint32_t c = icrc(frame.data(), frame.size());
    for (unsigned i = 0; i < 4; i++) frame.push_back(static_cast<uint8_t>(c >> (8 * i)));
}

std::vector<uint8_t> make_frame(const Fields &f, const std::vector<uint8_t> &payload) {
    std::vector<uint8_t> fr = encode_headers(f);
    fr.insert(fr.end(), payload.begin(), payload.end());
    fr.resize(fr.size() + f.pad, 0);
    append_icrc(fr);
    return fr;
}

std::vector<uint8_t> captured_cnp() {
    static const char kHex[] =
        "e41d2dab2bc2" "7cfe90643b32" "0800"            // Ethernet
        "45c2003c718c40004011" "91610a0011010a001201"   // IPv4: TOS 0xC2
        "000012b700280000"                              // UDP to 4791
        "8100ffff40000118" "00000000"                   // BTH: opcode 0x81 (CNP), BECN in byte 46
        "00000000000000000000000000000000"              // CNP's reserved bytes
        "82fd002a";                                     // ICRC
    std::vector<uint8_t> f;
    auto nibble = [](char c) { return static_cast<unsigned>(c <= '9' ? c - '0' : c - 'a' + 10); };
    for (size_t i = 0; kHex[i] && kHex[i + 1]; i += 2)
        f.push_back(static_cast<uint8_t>(nibble(kHex[i]) << 4 | nibble(kHex[i + 1])));
    return f;
}

}  // namespace wire
