// The packed structs rnic_qp_transport's ports carry (rnic_pkg's qp_xs_t,
// qp_xs_we_t, flight_t, flight_we_t and sched_xs_t, written in
// rtl/rnic_engine_types.svh; sched_xs_t's table is in pkg_struct.h)
// as the bench sees them: a value is an array of fields, indexed by the enums
// below, and packing puts it into the vector Verilator makes of the struct.
//
// The tables list the members in declaration order with their widths, and
// pkg_struct.h (shared with the other benches) computes the offsets and
// packs: a packed struct is one vector with its first member in the most
// significant bits. The widths are typed here (no header Verilator or
// gen_spec.py writes carries them); the `layout` test reads the generated
// package and fails on any difference of name, order or width, and the word
// counts of the ports are checked at compile time (xs_harness.h).
#ifndef XS_LAYOUT_H
#define XS_LAYOUT_H

#include <array>
#include <cstdint>

#include "pkg_struct.h"

// qp_xs_t, in declaration order.
enum XsField : unsigned {
    kSqPsn, kRqPsn, kMsn, kSqCi, kRqCi, kDone, kFenced, kBindWait, kRdHold, kHoldDone,
    kOutGot, kWrVa, kWrLeft, kWrRkey, kRcvGot, kSndOpen,
    kRetryLeft, kRnrLeft, kRnrWait, kRetrying, kKickWhy, kAckedPsn, kNakSent, kPaused, kPausePkts, kXsFields
};
inline constexpr FieldDesc kXsDesc[kXsFields] = {
    {"sq_psn", 24}, {"rq_psn", 24}, {"msn", 24},    {"sq_ci", 16},   {"rq_ci", 16},  {"done", 16},
    {"fenced", 1},  {"bind_wait", 1}, {"rd_hold", 1}, {"hold_done", 16}, {"out_got", 32}, {"wr_va", 64},
    {"wr_left", 32}, {"wr_rkey", 32}, {"rcv_got", 32}, {"snd_open", 1},
    {"retry_left", 3}, {"rnr_left", 3}, {"rnr_wait", 1}, {"retrying", 1}, {"kick_why", 2}, {"acked_psn", 24},
    {"nak_sent", 1}, {"paused", 1}, {"pause_pkts", 16},
};

// flight_t, in declaration order.
enum FlField : unsigned { kFlOp, kFlFirst, kFlLast, kFlLen, kFlFields };
inline constexpr FieldDesc kFlDesc[kFlFields] = {{"op", 8}, {"first", 24}, {"last", 24}, {"len", 32}};

// sched_xs_t, one look's row (look_xs), the scheduler's part of a QP: its
// table (SxField, kSxDesc, kSxBits) is pkg_struct.h's, the one the
// scheduler's bench drives the same rows with.
//
// The qp_xs_t member each sched_xs_t member but oldest_op shows (oldest_op
// is the in-flight table's op at {QP, done mod MAX_RD_ATOMIC}).
inline constexpr XsField kSxFrom[kSxOldestOp] = {kSqCi,    kDone,     kRqCi,    kHoldDone, kFenced,
                                                 kBindWait, kRdHold,  kRnrWait, kPaused};

constexpr bool same_name(const char *a, const char *b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}
// A row member shows the qp_xs_t member of its name and width: a mapping
// typed out of order fails here, not as a puzzling mismatch at run time.
constexpr bool sx_from_matches() {
    for (unsigned i = 0; i < kSxOldestOp; i++)
        if (!same_name(kSxDesc[i].name, kXsDesc[kSxFrom[i]].name) || kSxDesc[i].width != kXsDesc[kSxFrom[i]].width)
            return false;
    return true;
}
static_assert(sx_from_matches(), "kSxFrom names each row member's qp_xs_t member");

constexpr unsigned kXsBits = total_bits(kXsDesc);
constexpr unsigned kFlBits = total_bits(kFlDesc);

// qp_xs_we_t and flight_we_t: one bit per member of the struct they enable,
// same names, same order, so member i's enable is bit (members - 1 - i).
constexpr uint32_t xs_we(XsField f) { return 1u << (kXsFields - 1u - f); }
constexpr uint32_t fl_we(FlField f) { return 1u << (kFlFields - 1u - f); }
static_assert(kXsFields < 32, "qp_xs_we_t is held in a uint32_t (and kXsWeAll shifts by its width)");
constexpr uint32_t kXsWeAll = (1u << kXsFields) - 1u;
constexpr uint32_t kFlWeAll = (1u << kFlFields) - 1u;

using Xs = std::array<uint64_t, kXsFields>;
using Flight = std::array<uint64_t, kFlFields>;
using Sched = std::array<uint64_t, kSxFields>;

#endif
