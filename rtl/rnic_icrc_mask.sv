// Which bytes of a frame the ICRC treats as all ones, by frame offset:
// IPv4 TOS (15), TTL (22), header checksum (24-25), UDP checksum (40-41),
// and the BTH byte with FECN/BECN (46). Bytes before the IP header (the
// Ethernet header, offsets 0-13) are not covered at all (`skip`).
module rnic_icrc_mask #(
  parameter int unsigned W = rnic_pkg::DATA_BYTES
) (
  input  logic [15:0]  offset,   // frame offset of lane 0
  output logic [W-1:0] mask,
  output logic [W-1:0] skip
);
  always_comb begin
    logic [15:0] o;
    for (int unsigned lane = 0; lane < W; lane++) begin
      o = offset + 16'(lane);
      skip[lane] = (o < 16'd14);
      mask[lane] = (o == 16'd15) || (o == 16'd22) || (o == 16'd24) || (o == 16'd25) ||
                   (o == 16'd40) || (o == 16'd41) || (o == 16'd46);
    end
  end
endmodule
