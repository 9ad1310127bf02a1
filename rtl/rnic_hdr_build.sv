// Lays out the headers of one outgoing RoCEv2 frame: Ethernet II, IPv4
// (no options, DF, TTL 64, header checksum computed here), UDP to port
// 4791 (checksum 0, as RoCEv2 allows), BTH, then RETH or AETH. Bytes are
// in wire order: byte i of the frame in hdr[8*i +: 8]. The constant fields
// and header lengths are rnic_pkg's wire constants (rtl/spec/rnic.toml).
module rnic_hdr_build (
  input  logic [47:0]  src_mac,
  input  logic [47:0]  dst_mac,
  input  logic [31:0]  src_ip,
  input  logic [31:0]  dst_ip,
  input  logic [15:0]  udp_sport,
  input  logic [7:0]   opcode,
  input  logic         solicited,
  input  logic [1:0]   pad,
  input  logic [23:0]  dest_qp,
  input  logic         ack_req,
  input  logic [23:0]  psn,
  input  logic [1:0]   ext,         // rnic_pkg::HDR_EXT_*: none, RETH or AETH
  input  logic [63:0]  reth_va,
  input  logic [31:0]  reth_rkey,
  input  logic [31:0]  reth_len,
  input  logic [7:0]   aeth_syndrome,
  input  logic [23:0]  aeth_msn,
  input  logic [15:0]  payload_len, // without pad
  output logic [8*72-1:0] hdr,
  output logic [6:0]   hdr_len,
  output logic [15:0]  frame_len    // headers + payload + pad + ICRC
);
  // Ethernet, IPv4, UDP and BTH: the headers every frame has (54 bytes).
  localparam logic [15:0] BASE_LEN = rnic_pkg::ETH_HDR_BYTES + rnic_pkg::IPV4_HDR_BYTES +
                                     rnic_pkg::UDP_HDR_BYTES + rnic_pkg::BTH_HDR_BYTES;

  logic [15:0] ext_len, ip_len, udp_len;
  logic [31:0] sum;
  logic [15:0] csum;

  always_comb begin
    unique case (ext)
      rnic_pkg::HDR_EXT_RETH: ext_len = rnic_pkg::RETH_HDR_BYTES;
      rnic_pkg::HDR_EXT_AETH: ext_len = rnic_pkg::AETH_HDR_BYTES;
      default:                ext_len = 16'd0;
    endcase
    hdr_len   = 7'(BASE_LEN + ext_len);
    udp_len   = rnic_pkg::UDP_HDR_BYTES + rnic_pkg::BTH_HDR_BYTES + ext_len + payload_len + 16'(pad) +
                rnic_pkg::ICRC_BYTES;
    ip_len    = rnic_pkg::IPV4_HDR_BYTES + udp_len;
    frame_len = rnic_pkg::ETH_HDR_BYTES + ip_len;

    // IPv4 header checksum: ones' complement sum of the 16-bit words (the
    // identification word is 0).
    sum = 32'({rnic_pkg::IPV4_VERSION_IHL, rnic_pkg::IPV4_TOS}) + 32'(ip_len) +
          32'(rnic_pkg::IPV4_FLAGS_FRAG) + 32'({rnic_pkg::IPV4_TTL, rnic_pkg::IPV4_PROTOCOL_UDP}) +
          32'(src_ip[31:16]) + 32'(src_ip[15:0]) + 32'(dst_ip[31:16]) + 32'(dst_ip[15:0]);
    sum  = 32'(sum[15:0]) + 32'(sum[31:16]);
    sum  = 32'(sum[15:0]) + 32'(sum[31:16]);
    csum = ~sum[15:0];

    hdr = '0;
    for (int i = 0; i < 6; i++) begin
      hdr[8*i +: 8]       = dst_mac[8*(5-i) +: 8];
      hdr[8*(6+i) +: 8]   = src_mac[8*(5-i) +: 8];
    end
    {hdr[8*12 +: 8], hdr[8*13 +: 8]} = rnic_pkg::ETHERTYPE_IPV4;
    // IPv4
    hdr[8*14 +: 8] = rnic_pkg::IPV4_VERSION_IHL;
    hdr[8*15 +: 8] = rnic_pkg::IPV4_TOS;
    hdr[8*16 +: 8] = ip_len[15:8];
    hdr[8*17 +: 8] = ip_len[7:0];
    {hdr[8*20 +: 8], hdr[8*21 +: 8]} = rnic_pkg::IPV4_FLAGS_FRAG;   // DF
    hdr[8*22 +: 8] = rnic_pkg::IPV4_TTL;
    hdr[8*23 +: 8] = rnic_pkg::IPV4_PROTOCOL_UDP;
    hdr[8*24 +: 8] = csum[15:8];
    hdr[8*25 +: 8] = csum[7:0];
    for (int i = 0; i < 4; i++) begin
      hdr[8*(26+i) +: 8] = src_ip[8*(3-i) +: 8];
      hdr[8*(30+i) +: 8] = dst_ip[8*(3-i) +: 8];
    end
    // UDP
    hdr[8*34 +: 8] = udp_sport[15:8];
    hdr[8*35 +: 8] = udp_sport[7:0];
    {hdr[8*36 +: 8], hdr[8*37 +: 8]} = rnic_pkg::UDP_PORT_ROCEV2;
    hdr[8*38 +: 8] = udp_len[15:8];
    hdr[8*39 +: 8] = udp_len[7:0];
    // BTH
    hdr[8*42 +: 8] = opcode;
    hdr[8*43 +: 8] = {solicited, 1'b0, pad, 4'd0};
    {hdr[8*44 +: 8], hdr[8*45 +: 8]} = rnic_pkg::BTH_PKEY_DEFAULT;
    hdr[8*47 +: 8] = dest_qp[23:16];
    hdr[8*48 +: 8] = dest_qp[15:8];
    hdr[8*49 +: 8] = dest_qp[7:0];
    hdr[8*50 +: 8] = {ack_req, 7'd0};
    hdr[8*51 +: 8] = psn[23:16];
    hdr[8*52 +: 8] = psn[15:8];
    hdr[8*53 +: 8] = psn[7:0];
    if (ext == rnic_pkg::HDR_EXT_RETH) begin
      for (int i = 0; i < 8; i++) hdr[8*(54+i) +: 8] = reth_va[8*(7-i) +: 8];
      for (int i = 0; i < 4; i++) hdr[8*(62+i) +: 8] = reth_rkey[8*(3-i) +: 8];
      for (int i = 0; i < 4; i++) hdr[8*(66+i) +: 8] = reth_len[8*(3-i) +: 8];
    end else if (ext == rnic_pkg::HDR_EXT_AETH) begin
      hdr[8*54 +: 8] = aeth_syndrome;
      hdr[8*55 +: 8] = aeth_msn[23:16];
      hdr[8*56 +: 8] = aeth_msn[15:8];
      hdr[8*57 +: 8] = aeth_msn[7:0];
    end
  end
endmodule
