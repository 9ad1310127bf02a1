#include "frame_check.h"

#include <algorithm>

namespace {
uint16_t be16(const uint8_t *p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
uint32_t be24(const uint8_t *p) { return static_cast<uint32_t>(p[0]) << 16 | static_cast<uint32_t>(p[1]) << 8 | p[2]; }
uint32_t be32(const uint8_t *p) { return static_cast<uint32_t>(be16(p)) << 16 | be16(p + 2); }
uint64_t be64(const uint8_t *p) { return static_cast<uint64_t>(be32(p)) << 32 | be32(p + 4); }

bool opcode_has_reth(uint8_t op) { return op == 0x06 || op == 0x0a || op == 0x0c; }
bool opcode_has_aeth(uint8_t op) { return op == 0x0d || op == 0x0f || op == 0x10 || op == 0x11; }
}  // namespace

uint32_t crc32_bitwise(uint32_t crc, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++) crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    return crc;
}

std::string decode_frame(const std::vector<uint8_t> &f, RoceFrame &r) {
    if (f.size() < 14 + 20 + 8 + 12 + 4) return "shorter than Ethernet+IPv4+UDP+BTH+ICRC";
    const uint8_t *p = f.data();
    for (int i = 0; i < 6; i++) {
        r.dst_mac[i] = p[i];
        r.src_mac[i] = p[6 + i];
    }
    r.ethertype = be16(p + 12);
    const uint8_t *ip = p + 14;
    r.ip_ver_ihl = ip[0];
    r.ip_len = be16(ip + 2);
    r.ip_flags_frag = be16(ip + 6);
    r.ip_ttl = ip[8];
    r.ip_proto = ip[9];
    r.ip_csum = be16(ip + 10);
    r.ip_src = be32(ip + 12);
    r.ip_dst = be32(ip + 16);
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2) sum += be16(ip + i);
    while (sum >> 16) sum = (sum & 0xFFFFu) + (sum >> 16);
    r.ip_csum_ok = sum == 0xFFFFu;
    const uint8_t *udp = ip + 20;
    r.udp_sport = be16(udp);
    r.udp_dport = be16(udp + 2);
    r.udp_len = be16(udp + 4);
    r.udp_csum = be16(udp + 6);
    const uint8_t *bth = udp + 8;
    r.opcode = bth[0];
    r.se = bth[1] >> 7;
    r.mig = bth[1] >> 6 & 1u;
    r.pad = bth[1] >> 4 & 3u;
    r.tver = bth[1] & 0xFu;
    r.pkey = be16(bth + 2);
    r.dest_qp = be24(bth + 5);
    r.ack_req = bth[8] >> 7;
    r.psn = be24(bth + 9);
    size_t off = 14 + 20 + 8 + 12;
    r.has_reth = opcode_has_reth(r.opcode);
    r.has_aeth = opcode_has_aeth(r.opcode);
    if (r.has_reth) {
        if (f.size() < off + 16 + 4) return "too short for its RETH";
        r.reth_va = be64(p + off);
        r.reth_rkey = be32(p + off + 8);
        r.reth_len = be32(p + off + 12);
        off += 16;
    } else if (r.has_aeth) {
        if (f.size() < off + 4 + 4) return "too short for its AETH";
        r.aeth_syndrome = p[off];
        r.aeth_msn = be24(p + off + 1);
        off += 4;
    }
    if (f.size() < off + r.pad + 4) return "too short for its pad";
    size_t payload = f.size() - off - r.pad - 4;
    r.payload.assign(p + off, p + off + payload);
    for (size_t i = 0; i < r.pad; i++)
        if (p[off + payload + i] != 0) return "pad bytes not zero";
    const uint8_t *ic = p + f.size() - 4;
    r.icrc_wire = static_cast<uint32_t>(ic[0]) | static_cast<uint32_t>(ic[1]) << 8 |
                  static_cast<uint32_t>(ic[2]) << 16 | static_cast<uint32_t>(ic[3]) << 24;

    // ICRC: 8 bytes of 0xFF stand for the absent LRH; then the IP header to
    // the end of the pad with the variant fields taken as all ones.
    std::vector<uint8_t> c(8 + f.size() - 14 - 4, 0xFF);
    std::copy(f.begin() + 14, f.end() - 4, c.begin() + 8);
    const size_t ipo = 8;
    c[ipo + 1] = 0xFF;                        // TOS
    c[ipo + 8] = 0xFF;                        // TTL
    c[ipo + 10] = c[ipo + 11] = 0xFF;         // header checksum
    c[ipo + 20 + 6] = c[ipo + 20 + 7] = 0xFF; // UDP checksum
    c[ipo + 28 + 4] = 0xFF;                   // BTH FECN/BECN/resv
    r.icrc_computed = ~crc32_bitwise(0xFFFFFFFFu, c.data(), c.size());

    if (r.ip_len != f.size() - 14) return "IPv4 total length does not match the frame";
    if (r.udp_len != f.size() - 14 - 20) return "UDP length does not match the frame";
    return "";
}

void reseal_frame(std::vector<uint8_t> &f) {
    uint8_t *ip = f.data() + 14;
    ip[10] = ip[11] = 0;
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2) sum += be16(ip + i);
    while (sum >> 16) sum = (sum & 0xFFFFu) + (sum >> 16);
    uint16_t csum = static_cast<uint16_t>(~sum);
    ip[10] = static_cast<uint8_t>(csum >> 8);
    ip[11] = static_cast<uint8_t>(csum);
    RoceFrame r;
    decode_frame(f, r);
    uint8_t *ic = f.data() + f.size() - 4;
    for (int i = 0; i < 4; i++) ic[i] = static_cast<uint8_t>(r.icrc_computed >> (8 * i));
}
