// The bench's own minimal driver: programs a NIC of the Fabric through its
// BAR and its host memory the way docs/register-map.md says software must
// (staging registers + commands, rings in host memory, doorbells, CQEs with
// a phase bit). It is written from the spec, not from driver/, so the RTL is
// checked against the spec rather than against the driver's reading of it.
#ifndef RTL_CORE_BENCH_DRIVER_H
#define RTL_CORE_BENCH_DRIVER_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "fabric.h"
#include "rnic_hw.h"

struct Sge {
    uint64_t addr;
    uint32_t len;
    uint32_t lkey;
};

// A WQE's scatter/gather list. A WQE is 16 words and SGE i sits at words
// 4+2i, 5+2i, so a WQE has room for six entries at most (the NIC takes
// MAX_SGE of them; the error benches write more by hand). The list is that
// many slots and a count, a plain value: a work request copies as a few
// words, without the heap. (A std::vector here had GCC 12 at -O3 warn
// -Wnonnull on its copy-assignment: it could not prove the storage of a
// vector with room for n > 0 entries non-null.)
class SgList {
public:
    static constexpr size_t kSlots = 6;

    SgList() = default;
    SgList(std::initializer_list<Sge> l) {
        for (const Sge &s : l) push_back(s);
    }
    void push_back(const Sge &s);   // aborts past kSlots: a bench bug
    size_t size() const { return n_; }
    bool empty() const { return n_ == 0; }
    const Sge &operator[](size_t i) const { return e_[i]; }
    const Sge *begin() const { return e_.data(); }
    const Sge *end() const { return e_.data() + n_; }

private:
    std::array<Sge, kSlots> e_{};
    size_t n_ = 0;
};

struct Cq {
    int nic = 0;
    unsigned num = 0, log = 0;
    uint64_t ring = 0;
    uint16_t ci = 0;
};

struct Qp {
    int nic = 0;
    unsigned num = 0, sq_log = 0, rq_log = 0, scq = 0, rcq = 0;
    uint64_t sq = 0, rq = 0;
    uint16_t sq_pi = 0, rq_pi = 0, pz = 0;
};

struct Cqe {
    unsigned status = 0, opcode = 0, qpn = 0, wqe_idx = 0, is_recv = 0, phase = 0;
    uint32_t byte_len = 0;
    uint64_t wr_id = 0;
};

struct SendWr {
    unsigned opcode = 0, flags = 1;   // SIGNALED by default
    uint64_t remote_addr = 0;
    uint32_t rkey = 0;
    SgList sg;
    uint64_t wr_id = 0;
};

class BenchDriver {
public:
    explicit BenchDriver(Fabric &f) : f_(f) {}

    // QP_TIMERS for the QPs created and connected from now on (0: no ACK
    // timeout, no retries: a lost frame then leaves its WQE waiting).
    uint32_t qp_timers = 0;
    // QP_PATH of NIC n for the QPs created and connected from now on (0:
    // the path MTU is MTU).
    uint32_t qp_path[2] = {0, 0};

    // Port identity as the team brief assigns it: NIC i is 02:00:00:00:00:0(i+1), 10.0.0.(i+1).
    void open(int n);
    static uint32_t key(uint32_t index, uint8_t key8) { return index << 8 | key8; }
    void pt_write(int n, uint32_t index, uint8_t key8, uint16_t pz, uint64_t base, uint64_t len,
                  unsigned rights, unsigned state = 1 /* VALID */);
    Cq cq_create(int n, unsigned num, unsigned log);
    // QP in INIT with rings of 2^sq_log / 2^rq_log WQEs.
    Qp qp_create(int n, unsigned num, const Cq &scq, const Cq &rcq, uint16_t pz, uint32_t flags,
                 unsigned sq_log = 6, unsigned rq_log = 6);
    // Both QPs to RTS, each naming the other; a's first PSN is psn_a, b's psn_b.
    void connect(Qp &a, Qp &b, uint32_t psn_a = 0x100, uint32_t psn_b = 0x200);
    uint32_t qp_state(int n, unsigned qpn);
    void qp_cmd(int n, unsigned qpn, unsigned cmd);

    // Stages QP_PATH on NIC n when it differs from what the register holds
    // (a write that changes nothing would move every later cycle).
    void stage_path(int n);

    void write_wqe(const Qp &q, bool send_ring, uint16_t idx, const uint64_t w[16]);
    // Writes the WQE at the producer index; rings the doorbell unless told not to.
    void post_send(Qp &q, const SendWr &wr, bool ring = true);
    void post_recv(Qp &q, const SgList &sg, uint64_t wr_id, bool ring = true);
    void post_raw(Qp &q, const uint64_t w[16], bool ring = true);
    void ring_sq(const Qp &q) { f_.bar_write(q.nic, static_cast<uint16_t>(RNIC_REG_DB_SQ_N(q.num)), q.sq_pi); }
    void ring_rq(const Qp &q) { f_.bar_write(q.nic, static_cast<uint16_t>(RNIC_REG_DB_RQ_N(q.num)), q.rq_pi); }

    // One CQE if the slot at the consumer index holds a new one (phase bit).
    bool poll(Cq &cq, Cqe &out, bool ring_db = true);
    // Clocks the fabric until a CQE arrives; false after `budget` cycles.
    bool wait_cqe(Cq &cq, Cqe &out, uint64_t budget = 2000000);
    // Clocks until both NICs are quiet (no frame, DMA or BAR activity) for `quiet` cycles.
    void settle(unsigned quiet = 400);

    Fabric &fabric() { return f_; }

private:
    uint32_t path_staged_[2] = {0, 0};   // QP_PATH as last written (reset: 0)
    Fabric &f_;
};

#endif
