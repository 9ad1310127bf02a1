// An independent reading of a RoCEv2 frame (docs/wire-format.md): header
// fields, the IPv4 header checksum and the ICRC, computed here from the
// published rules with a plain bitwise CRC-32, not with the RTL's lanes.
#ifndef RTL_CORE_FRAME_CHECK_H
#define RTL_CORE_FRAME_CHECK_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

uint32_t crc32_bitwise(uint32_t crc, const uint8_t *p, size_t n);   // reflected 0xEDB88320, no pre/post xor

struct RoceFrame {
    uint8_t dst_mac[6], src_mac[6];
    uint16_t ethertype = 0;
    uint8_t ip_ver_ihl = 0, ip_ttl = 0, ip_proto = 0;
    uint16_t ip_len = 0, ip_flags_frag = 0, ip_csum = 0;
    uint32_t ip_src = 0, ip_dst = 0;
    uint16_t udp_sport = 0, udp_dport = 0, udp_len = 0, udp_csum = 0;
    uint8_t opcode = 0, se = 0, mig = 0, pad = 0, tver = 0;
    uint16_t pkey = 0;
    uint32_t dest_qp = 0, psn = 0;
    uint8_t ack_req = 0;
    bool has_reth = false, has_aeth = false;
    uint64_t reth_va = 0;
    uint32_t reth_rkey = 0, reth_len = 0;
    uint8_t aeth_syndrome = 0;
    uint32_t aeth_msn = 0;
    std::vector<uint8_t> payload;   // without pad
    uint32_t icrc_wire = 0;         // as stored (least significant byte first)
    uint32_t icrc_computed = 0;
    bool ip_csum_ok = false;
};

// Decodes `f`; returns an empty string or what is malformed.
std::string decode_frame(const std::vector<uint8_t> &f, RoceFrame &out);
// Recomputes the IPv4 header checksum and the ICRC of a frame a test has
// edited, so the receiver sees a well-formed frame with the edit in it.
void reseal_frame(std::vector<uint8_t> &f);

#endif
