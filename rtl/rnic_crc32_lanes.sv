// One cycle of the RoCEv2 ICRC: CRC-32 (reflected, polynomial 0xEDB88320)
// over up to W bytes. Lanes whose `en` bit is clear are skipped; a lane whose `mask` bit is
// set counts as 0xFF, which is how the ICRC ignores fields that routers may
// change (IP TOS/TTL/checksum, UDP checksum, the BTH FECN/BECN byte).
module rnic_crc32_lanes #(
  parameter int unsigned W = rnic_pkg::DATA_BYTES
) (
  input  logic [31:0]        crc_in,
  input  logic [8*W-1:0]     data,
  input  logic [W-1:0]       en,
  input  logic [W-1:0]       mask,
  output logic [31:0]        crc_out
);
  always_comb begin
    logic [31:0] c;
    logic [7:0]  b;
    c = crc_in;
    b = 8'h00;
    for (int unsigned lane = 0; lane < W; lane++) begin
      if (en[lane]) begin
        b = mask[lane] ? 8'hFF : data[8*lane +: 8];
        c = c ^ {24'd0, b};
        for (int bit_i = 0; bit_i < 8; bit_i++) begin
          c = c[0] ? ((c >> 1) ^ 32'hEDB88320) : (c >> 1);
        end
      end
    end
    crc_out = c;
  end
endmodule
