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

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "rnic_hw.h"

static_assert(RNIC_DATA_BYTES == 8 || RNIC_DATA_BYTES == 16 || RNIC_DATA_BYTES == 32 || RNIC_DATA_BYTES == 64,
              "the datapath is 8, 16, 32 or 64 bytes");

// One beat of a data port, RNIC_DATA_BYTES wide: byte i is lane i, bits
// 8i+7..8i of the port, so a beat is the bytes of memory or of a frame in
// order, whatever the width (and whatever the host's byte order).
struct Beat {
    static constexpr size_t kBytes = RNIC_DATA_BYTES;
    uint8_t bytes[kBytes] = {};

    void clear() { std::memset(bytes, 0, kBytes); }
    bool operator==(const Beat &o) const { return std::memcmp(bytes, o.bytes, kBytes) == 0; }
    bool operator!=(const Beat &o) const { return !(*this == o); }
};

// The tkeep of n lanes, n <= 64: bits 0..n-1 (a shift by 64 would be undefined).
constexpr uint64_t beat_lanes(unsigned n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// What the platform drives into the NIC.
struct PortInputs {
    bool dma_rd_req_ready = false;
    bool dma_rd_rsp_valid = false;
    Beat dma_rd_rsp_data;
    uint8_t dma_rd_rsp_tag = 0;
    bool dma_rd_rsp_last = false;
    bool dma_rd_rsp_err = false;

    bool dma_wr_ready = false;
    bool dma_wr_cpl_valid = false;
    uint16_t dma_wr_cpl_tag = 0;
    bool dma_wr_cpl_err = false;

    bool tx_tready = false;
    bool rx_tvalid = false;
    Beat rx_tdata;
    uint64_t rx_tkeep = 0;   // RNIC_DATA_BYTES bits
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
    Beat dma_wr_data;
    bool dma_wr_last = false;

    bool tx_tvalid = false;
    Beat tx_tdata;
    uint64_t tx_tkeep = 0;   // RNIC_DATA_BYTES bits
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

// Verilator gives a data port of 64 bits an integer (QData) and a wider one
// a VlWide<N>: N 32-bit words, word 0 the least significant. The wide form
// is reached through its words (m_storage) rather than by name, so this
// header needs no Verilator include.
template <class Port> inline void beat_to_port(Port &p, const Beat &b) {
    if constexpr (std::is_integral_v<Port>) {
        static_assert(sizeof(Port) == Beat::kBytes, "an integer port is the whole beat");
        uint64_t v = 0;
        for (size_t i = 0; i < Beat::kBytes; ++i)
            v |= static_cast<uint64_t>(b.bytes[i]) << (8 * i);
        p = static_cast<Port>(v);
    } else {
        static_assert(sizeof(p.m_storage) == Beat::kBytes, "a wide port is the whole beat");
        for (size_t w = 0; w < Beat::kBytes / 4; ++w) {
            uint32_t v = 0;
            for (size_t k = 0; k < 4; ++k)
                v |= static_cast<uint32_t>(b.bytes[4 * w + k]) << (8 * k);
            p.m_storage[w] = v;
        }
    }
}

template <class Port> inline void beat_from_port(const Port &p, Beat &b) {
    if constexpr (std::is_integral_v<Port>) {
        static_assert(sizeof(Port) == Beat::kBytes, "an integer port is the whole beat");
        const uint64_t v = p;
        for (size_t i = 0; i < Beat::kBytes; ++i)
            b.bytes[i] = static_cast<uint8_t>(v >> (8 * i));
    } else {
        static_assert(sizeof(p.m_storage) == Beat::kBytes, "a wide port is the whole beat");
        for (size_t w = 0; w < Beat::kBytes / 4; ++w)
            for (size_t k = 0; k < 4; ++k)
                b.bytes[4 * w + k] = static_cast<uint8_t>(p.m_storage[w] >> (8 * k));
    }
}

// tkeep is the narrowest of CData..QData that holds RNIC_DATA_BYTES bits.
template <class Port> inline void keep_to_port(Port &p, uint64_t keep) { p = static_cast<Port>(keep); }

template <class Model> inline void put_port_inputs(Model &m, const PortInputs &in) {
    m.dma_rd_req_ready = in.dma_rd_req_ready;
    m.dma_rd_rsp_valid = in.dma_rd_rsp_valid;
    beat_to_port(m.dma_rd_rsp_data, in.dma_rd_rsp_data);
    m.dma_rd_rsp_tag = in.dma_rd_rsp_tag;
    m.dma_rd_rsp_last = in.dma_rd_rsp_last;
    m.dma_rd_rsp_err = in.dma_rd_rsp_err;
    m.dma_wr_ready = in.dma_wr_ready;
    m.dma_wr_cpl_valid = in.dma_wr_cpl_valid;
    m.dma_wr_cpl_tag = in.dma_wr_cpl_tag;
    m.dma_wr_cpl_err = in.dma_wr_cpl_err;
    m.tx_tready = in.tx_tready;
    m.rx_tvalid = in.rx_tvalid;
    beat_to_port(m.rx_tdata, in.rx_tdata);
    keep_to_port(m.rx_tkeep, in.rx_tkeep);
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
    beat_from_port(m.dma_wr_data, out.dma_wr_data);
    out.dma_wr_last = m.dma_wr_last;
    out.tx_tvalid = m.tx_tvalid;
    beat_from_port(m.tx_tdata, out.tx_tdata);
    out.tx_tkeep = static_cast<uint64_t>(m.tx_tkeep);
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
