// The ports of rnic_top that the port model serves (docs/rtl-interfaces.md):
// DMA read request/response, DMA write beats/completions, link tx/rx, and
// the BAR (bar_port.h). They are plain structs so that the model needs
// neither Verilator nor SystemC.
//
// The templates at the end are the thin adapter to a verilated rnic_top.
// They are templates because every build verilates rnic_top on its own (the
// platform and the rtl_core bench with different options), so each has its
// own class Vrnic_top: the copies are compiled where that class is known.
// Field names are the RTL's port names.
#pragma once

#include <cstdint>

// What the platform drives into the NIC.
struct PortInputs {
    bool dma_rd_req_ready = false;
    bool dma_rd_rsp_valid = false;
    uint64_t dma_rd_rsp_data = 0;
    uint8_t dma_rd_rsp_tag = 0;
    bool dma_rd_rsp_last = false;
    bool dma_rd_rsp_err = false;

    bool dma_wr_ready = false;
    bool dma_wr_cpl_valid = false;
    uint16_t dma_wr_cpl_tag = 0;
    bool dma_wr_cpl_err = false;

    bool tx_tready = false;
    bool rx_tvalid = false;
    uint64_t rx_tdata = 0;
    uint8_t rx_tkeep = 0;
    bool rx_tlast = false;
};

// What the NIC drives towards the platform, as sampled with the clock low
// (the handshakes that fire at the coming edge).
struct PortOutputs {
    bool dma_rd_req_valid = false;
    uint64_t dma_rd_req_addr = 0;
    uint16_t dma_rd_req_len = 0;   // 13 bits
    uint8_t dma_rd_req_tag = 0;
    bool dma_rd_rsp_ready = false;

    bool dma_wr_valid = false;
    uint64_t dma_wr_addr = 0;
    uint16_t dma_wr_len = 0;       // 13 bits
    uint16_t dma_wr_tag = 0;
    uint64_t dma_wr_data = 0;
    bool dma_wr_last = false;

    bool tx_tvalid = false;
    uint64_t tx_tdata = 0;
    uint8_t tx_tkeep = 0;
    bool tx_tlast = false;
    bool rx_tready = false;
};

// The BAR: what the platform drives (one register access, no handshake)...
struct BarRequest {
    bool bar_req_valid = false;
    bool bar_req_write = false;
    uint16_t bar_req_addr = 0;
    uint32_t bar_req_wdata = 0;
};

// ...and what the NIC answers a read with, one cycle later.
struct BarResponse {
    bool bar_rsp_valid = false;
    uint32_t bar_rsp_rdata = 0;
};

template <class Model> inline void put_port_inputs(Model &m, const PortInputs &in) {
    m.dma_rd_req_ready = in.dma_rd_req_ready;
    m.dma_rd_rsp_valid = in.dma_rd_rsp_valid;
    m.dma_rd_rsp_data = in.dma_rd_rsp_data;
    m.dma_rd_rsp_tag = in.dma_rd_rsp_tag;
    m.dma_rd_rsp_last = in.dma_rd_rsp_last;
    m.dma_rd_rsp_err = in.dma_rd_rsp_err;
    m.dma_wr_ready = in.dma_wr_ready;
    m.dma_wr_cpl_valid = in.dma_wr_cpl_valid;
    m.dma_wr_cpl_tag = in.dma_wr_cpl_tag;
    m.dma_wr_cpl_err = in.dma_wr_cpl_err;
    m.tx_tready = in.tx_tready;
    m.rx_tvalid = in.rx_tvalid;
    m.rx_tdata = in.rx_tdata;
    m.rx_tkeep = in.rx_tkeep;
    m.rx_tlast = in.rx_tlast;
}

template <class Model> inline void get_port_outputs(const Model &m, PortOutputs &out) {
    out.dma_rd_req_valid = m.dma_rd_req_valid;
    out.dma_rd_req_addr = m.dma_rd_req_addr;
    out.dma_rd_req_len = static_cast<uint16_t>(m.dma_rd_req_len);
    out.dma_rd_req_tag = m.dma_rd_req_tag;
    out.dma_rd_rsp_ready = m.dma_rd_rsp_ready;
    out.dma_wr_valid = m.dma_wr_valid;
    out.dma_wr_addr = m.dma_wr_addr;
    out.dma_wr_len = static_cast<uint16_t>(m.dma_wr_len);
    out.dma_wr_tag = m.dma_wr_tag;
    out.dma_wr_data = m.dma_wr_data;
    out.dma_wr_last = m.dma_wr_last;
    out.tx_tvalid = m.tx_tvalid;
    out.tx_tdata = m.tx_tdata;
    out.tx_tkeep = m.tx_tkeep;
    out.tx_tlast = m.tx_tlast;
    out.rx_tready = m.rx_tready;
}

template <class Model> inline void put_bar_request(Model &m, const BarRequest &req) {
    m.bar_req_valid = req.bar_req_valid;
    m.bar_req_write = req.bar_req_write;
    m.bar_req_addr = req.bar_req_addr;
    m.bar_req_wdata = req.bar_req_wdata;
}

template <class Model> inline void get_bar_response(const Model &m, BarResponse &rsp) {
    rsp.bar_rsp_valid = m.bar_rsp_valid;
    rsp.bar_rsp_rdata = m.bar_rsp_rdata;
}
