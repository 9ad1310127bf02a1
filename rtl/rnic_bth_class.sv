// What a BTH opcode says about its packet: which operation, and where in
// its message it sits. One decode for every unit that asks (the engine
// classifies the frame in the receive buffer at parse, and its kept opcode
// after the frame is released).
//
// Combinational.
module rnic_bth_class (
  input  logic [7:0] op,            // rnic_pkg::BTH_*
  output logic       is_send,       // SEND FIRST/MIDDLE/LAST/ONLY (with an immediate: not supported)
  output logic       is_write,      // RDMA WRITE FIRST/MIDDLE/LAST/ONLY
  output logic       is_read_req,
  output logic       is_read_resp,
  output logic       is_ack,
  output logic       is_request,    // for the responder: every RC opcode up to READ REQUEST
  output logic       first,         // FIRST or ONLY of a SEND, WRITE or READ response
  output logic       last,          // LAST or ONLY
  output logic       cont           // a WRITE packet after its FIRST: no RETH
);
  always_comb begin
    is_send      = op == rnic_pkg::BTH_SEND_FIRST || op == rnic_pkg::BTH_SEND_MIDDLE ||
                   op == rnic_pkg::BTH_SEND_LAST || op == rnic_pkg::BTH_SEND_ONLY;
    is_write     = op == rnic_pkg::BTH_WRITE_FIRST || op == rnic_pkg::BTH_WRITE_MIDDLE ||
                   op == rnic_pkg::BTH_WRITE_LAST || op == rnic_pkg::BTH_WRITE_ONLY;
    is_read_req  = op == rnic_pkg::BTH_READ_REQUEST;
    is_read_resp = op >= rnic_pkg::BTH_READ_RESPONSE_FIRST && op <= rnic_pkg::BTH_READ_RESPONSE_ONLY;
    is_ack       = op == rnic_pkg::BTH_ACKNOWLEDGE;
    is_request   = op <= rnic_pkg::BTH_READ_REQUEST;
    first        = op == rnic_pkg::BTH_SEND_FIRST || op == rnic_pkg::BTH_SEND_ONLY ||
                   op == rnic_pkg::BTH_WRITE_FIRST || op == rnic_pkg::BTH_WRITE_ONLY ||
                   op == rnic_pkg::BTH_READ_RESPONSE_FIRST || op == rnic_pkg::BTH_READ_RESPONSE_ONLY;
    last         = op == rnic_pkg::BTH_SEND_LAST || op == rnic_pkg::BTH_SEND_ONLY ||
                   op == rnic_pkg::BTH_WRITE_LAST || op == rnic_pkg::BTH_WRITE_ONLY ||
                   op == rnic_pkg::BTH_READ_RESPONSE_LAST || op == rnic_pkg::BTH_READ_RESPONSE_ONLY;
    cont         = is_write && !first;
  end
endmodule
