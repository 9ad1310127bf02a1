// A reference model of the CQE writer's completion queues, written from the
// contract (rtl/rnic_cqe_writer.sv's header, rnic.toml's CQ_CMD, DB_CQ and
// CQE), not from the RTL's code:
//   - CQ_CMD_CREATE arms a CQ with its base and ring size (2^log CQEs),
//     producer and consumer index 0, phase 1; any other command destroys it;
//   - a CQE request is refused when the CQ does not exist or is full
//     (pi - ci > ring - 1, mod 2^16); else its CQE goes to
//     base + (pi mod ring) * CQE_BYTES and pi advances;
//   - the phase bit is 1 on the first pass round the ring, 0 on the second...
//   - a consumer doorbell is accepted only for an existing CQ and an index in
//     [ci .. pi] (mod 2^16): the consumer frees what was produced, never more,
//     and never goes back.
// The CQE's words are built with rnic_hw.h's RNIC_SET, the same generated
// source as the RTL's rnic_pkg::cqe_t.
#ifndef CQ_MODEL_H
#define CQ_MODEL_H

#include <cstdint>

#include "rnic_hw.h"

// The fields of one completion, as the engine hands them to the writer.
struct CqeFields {
    unsigned cq = 0;
    uint16_t qpn = 0;
    uint16_t idx = 0;
    uint8_t op = 0;
    uint8_t status = 0;
    bool recv = false;
    uint32_t len = 0;
    uint64_t wrid = 0;
    uint8_t verdict = 0;     // PT_VERDICT_* of a refused local check
    uint32_t check_key = 0;  // the key it refused
};

struct CqState {
    bool valid = false;
    bool base_known = false;   // set by a CREATE; a destroyed CQ's base is no one's business
    uint64_t base = 0;
    unsigned log = 0;
    uint16_t pi = 0;
    uint16_t ci = 0;
};

class CqModel {
public:
    static constexpr unsigned kNumCq = RNIC_NUM_CQ;

    void reset();
    void command(unsigned op, unsigned sel, uint64_t base, unsigned log);
    bool doorbell_ok(uint32_t index, uint16_t value) const;
    // Applies an accepted doorbell; returns whether it was accepted.
    bool doorbell(uint32_t index, uint16_t value);

    bool exists(unsigned cq) const { return cq < kNumCq && q_[cq].valid; }
    bool full(unsigned cq) const;
    bool refuses(unsigned cq) const { return !exists(cq) || full(cq); }
    uint16_t ring(unsigned cq) const { return static_cast<uint16_t>(1u << q_[cq].log); }
    uint16_t mask(unsigned cq) const { return static_cast<uint16_t>(ring(cq) - 1u); }
    uint16_t used(unsigned cq) const { return static_cast<uint16_t>(q_[cq].pi - q_[cq].ci); }
    uint64_t slot_addr(unsigned cq) const;
    unsigned phase(unsigned cq) const { return ((q_[cq].pi >> q_[cq].log) & 1u) ? 0u : 1u; }
    // The CQE at pi was written: pi advances.
    void produced(unsigned cq);
    const CqState &cq(unsigned cq) const { return q_[cq]; }

private:
    CqState q_[kNumCq];
};

// The CQE's RNIC_CQE_WORDS little-endian words, field by field (RNIC_SET).
void cqe_encode(const CqeFields &f, unsigned phase, uint64_t words[RNIC_CQE_WORDS]);

#endif
