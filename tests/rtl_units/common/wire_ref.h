// An independent byte-level model of docs/wire-format.md, for the unit
// benches: it encodes the headers of a frame byte by byte from the layout
// tables (offsets and constants written here as the document gives them, not
// taken from rnic_pkg or rnic_hw.h, so a wrong constant in the spec shows
// up as a mismatch), computes the IPv4 header checksum and the RoCEv2 ICRC
// with its masked fields, and builds whole frames.
#ifndef RTL_UNIT_WIRE_REF_H
#define RTL_UNIT_WIRE_REF_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wire {

// docs/wire-format.md, "Layout".
constexpr unsigned kEthBytes = 14, kIpBytes = 20, kUdpBytes = 8, kBthBytes = 12;
constexpr unsigned kBaseBytes = kEthBytes + kIpBytes + kUdpBytes + kBthBytes;   // 54
constexpr unsigned kRethBytes = 16, kAethBytes = 4, kIcrcBytes = 4;
constexpr unsigned kMinFrame = kBaseBytes + kIcrcBytes;                           // 58
constexpr unsigned kMtu = 4096;
constexpr uint16_t kUdpPortRocev2 = 4791;

// docs/wire-format.md, "Opcodes (reliable connection)".
enum Opcode : uint8_t {
    SEND_FIRST = 0x00, SEND_MIDDLE = 0x01, SEND_LAST = 0x02, SEND_ONLY = 0x04,
    WRITE_FIRST = 0x06, WRITE_MIDDLE = 0x07, WRITE_LAST = 0x08, WRITE_ONLY = 0x0A,
    READ_REQUEST = 0x0C,
    READ_RESPONSE_FIRST = 0x0D, READ_RESPONSE_MIDDLE = 0x0E, READ_RESPONSE_LAST = 0x0F,
    READ_RESPONSE_ONLY = 0x10,
    ACKNOWLEDGE = 0x11,
};
// Every opcode the engine sends, in the order of the table.
extern const Opcode kOpcodes[14];
const char *opcode_name(uint8_t op);

enum class Ext { NONE, RETH, AETH };
Ext ext_of(uint8_t opcode);          // the extended header the table gives the opcode
unsigned ext_bytes(Ext e);

// Everything a frame's headers carry that varies.
struct Fields {
    uint64_t dst_mac = 0, src_mac = 0;   // 48 bits
    uint32_t src_ip = 0, dst_ip = 0;
    uint16_t udp_sport = 0;
    uint8_t opcode = 0;
    bool solicited = false;
    unsigned pad = 0;                    // 0..3
    uint32_t dest_qp = 0;                // 24 bits
    bool ack_req = false;
    uint32_t psn = 0;                    // 24 bits
    uint64_t reth_va = 0;
    uint32_t reth_rkey = 0, reth_len = 0;
    uint8_t aeth_syndrome = 0;
    uint32_t aeth_msn = 0;               // 24 bits
    unsigned payload_len = 0;            // without pad
};

unsigned header_bytes(const Fields &f);   // 54, 58 or 70
unsigned frame_bytes(const Fields &f);    // headers + payload + pad + ICRC

// The headers, byte 0 first (header_bytes(f) of them), checksum included.
std::vector<uint8_t> encode_headers(const Fields &f);

// Ones' complement sum of the ten 16-bit words of an IPv4 header, folded:
// 0xFFFF for a header whose checksum is right.
uint16_t ipv4_sum(const uint8_t *ip);

// Plain CRC-32 (reflected, polynomial 0xEDB88320, init and final ~0) over
// bytes: 0xCBF43926 for "123456789". Bit by bit, as the definition reads.
uint32_t crc32(const uint8_t *p, size_t n);
// The ICRC of a frame whose ICRC is not yet appended (len bytes: headers,
// payload, pad): CRC-32 over 8 bytes of 0xFF then bytes 14..len-1, with
// TOS (15), TTL (22), IPv4 checksum (24-25), UDP checksum (40-41) and the
// FECN/BECN byte (46) taken as 0xFF.
uint32_t icrc(const uint8_t *frame, size_t len);
// Whether frame offset o is one of the masked bytes, or before the IP header.
bool icrc_masked(size_t o);
// The last 4 bytes hold the ICRC of the rest (stored least significant byte first).
bool icrc_ok(const std::vector<uint8_t> &frame);
void append_icrc(std::vector<uint8_t> &frame);

// Headers + payload + pad zeros + ICRC: a frame as it goes on the wire.
std::vector<uint8_t> make_frame(const Fields &f, const std::vector<uint8_t> &payload);

// A known answer from outside this project: a RoCEv2 CNP (74 bytes) as a
// ConnectX-4 Lx sent it, its ICRC bytes 82 fd 00 2a as captured. Its TOS
// (0xC2) and BECN bit are set, both bytes the ICRC masks.
std::vector<uint8_t> captured_cnp();

}  // namespace wire

#endif
