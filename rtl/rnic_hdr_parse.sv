// Pulls the fields the engine needs out of the first bytes of a received
// frame (wire order, byte i in hdr[8*i +: 8]) and says whether it is a
// RoCEv2 frame for this port at all.
module rnic_hdr_parse (
  input  logic [8*rnic_pkg::RX_HDR_BYTES-1:0] hdr,
  input  logic [15:0]  frame_len,
  input  logic [31:0]  my_ip,
  output logic         is_roce,       // IPv4, UDP 4791, addressed to my_ip
  output logic [7:0]   opcode,
  output logic         solicited,
  output logic [1:0]   pad,
  output logic [23:0]  dest_qp,
  output logic         ack_req,
  output logic [23:0]  psn,
  output logic [63:0]  reth_va,
  output logic [31:0]  reth_rkey,
  output logic [31:0]  reth_len,
  output logic [7:0]   aeth_syndrome,
  output logic [15:0]  payload_off,
  output logic [15:0]  payload_len,
  output logic         len_ok         // the frame is long enough for its headers
);
  // Ethernet, IPv4, UDP and BTH: the headers every frame has (54 bytes).
  localparam logic [15:0] BASE_LEN = rnic_pkg::ETH_HDR_BYTES + rnic_pkg::IPV4_HDR_BYTES +
                                     rnic_pkg::UDP_HDR_BYTES + rnic_pkg::BTH_HDR_BYTES;

  logic [15:0] ext_len, overhead;
  logic [31:0] dst_ip;
  always_comb begin
    for (int i = 0; i < 4; i++) dst_ip[8*(3-i) +: 8] = hdr[8*(30+i) +: 8];
    is_roce = {hdr[8*12 +: 8], hdr[8*13 +: 8]} == rnic_pkg::ETHERTYPE_IPV4 &&
              hdr[8*14 +: 8] == rnic_pkg::IPV4_VERSION_IHL && hdr[8*23 +: 8] == rnic_pkg::IPV4_PROTOCOL_UDP &&
              {hdr[8*36 +: 8], hdr[8*37 +: 8]} == rnic_pkg::UDP_PORT_ROCEV2 && dst_ip == my_ip;
    opcode    = hdr[8*42 +: 8];
    solicited = hdr[8*43 + 7];
    pad       = hdr[8*43 + 4 +: 2];
    dest_qp   = {hdr[8*47 +: 8], hdr[8*48 +: 8], hdr[8*49 +: 8]};
    ack_req   = hdr[8*50 + 7];
    psn       = {hdr[8*51 +: 8], hdr[8*52 +: 8], hdr[8*53 +: 8]};
    for (int i = 0; i < 8; i++) reth_va[8*(7-i) +: 8] = hdr[8*(54+i) +: 8];
    for (int i = 0; i < 4; i++) reth_rkey[8*(3-i) +: 8] = hdr[8*(62+i) +: 8];
    for (int i = 0; i < 4; i++) reth_len[8*(3-i) +: 8] = hdr[8*(66+i) +: 8];
    aeth_syndrome = hdr[8*54 +: 8];
    unique case (opcode)
      rnic_pkg::BTH_WRITE_FIRST, rnic_pkg::BTH_WRITE_ONLY, rnic_pkg::BTH_READ_REQUEST:
        ext_len = rnic_pkg::RETH_HDR_BYTES;
      rnic_pkg::BTH_READ_RESPONSE_FIRST, rnic_pkg::BTH_READ_RESPONSE_LAST, rnic_pkg::BTH_READ_RESPONSE_ONLY,
      rnic_pkg::BTH_ACKNOWLEDGE:
        ext_len = rnic_pkg::AETH_HDR_BYTES;
      default:
        ext_len = 16'd0;
    endcase
    payload_off = BASE_LEN + ext_len;
    overhead    = payload_off + 16'(pad) + rnic_pkg::ICRC_BYTES;
    len_ok      = frame_len >= overhead;
    payload_len = len_ok ? frame_len - overhead : 16'd0;
  end
endmodule
