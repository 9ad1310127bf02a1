// rnic_ack_timer against its contract (the header of rtl/rnic_ack_timer.sv).
//
//   tb_rtl_ack_timer TEST... | all   runs the named tests
//   tb_rtl_ack_timer --list          prints every test name, one a line
//                                    (CMake registers one CTest per line)
//
// Every test runs the unit beside the model of its contract (tmr_model.h),
// due, wake_valid, wake_at and idle compared before and after every clock
// edge, and, every cycle no scan runs, every armed deadline held against
// wake_at (tmr_harness.h); the tests below state, by hand, what the
// contract says of each case. Time moves one a cycle unless a test jumps it
// (a platform skipping idle time, never past wake_at).
//
//   reset_state          after power-up and rst_n (junk on every input
//                        meanwhile, a scan under way, timers armed and
//                        QPs due): nothing due, no wake, idle; time passing
//                        with nothing armed starts no scan
//   deadline_passes      for every QP and deadlines 1 to 1000 cycles out:
//                        due exactly QP + 2 edges after the first cycle at
//                        the deadline (the scan starts, reads QPs 0..QP),
//                        never before; the same when the platform jumps
//                        to wake_at; a deadline reached while a scan reads
//                        QP j: found in that scan if j <= QP (QP - j + 1
//                        edges), else in the next (NUM_QP - j + QP + 2),
//                        for every QP and j; two QPs on one deadline
//   earliest_wake        QPs armed in random order: wake_at the earliest
//                        after each arm (a later one leaves it); jumping
//                        to each wake_at marks exactly the QPs of that
//                        deadline and publishes the next earliest; ties;
//                        nothing left: wake_valid low
//   stop_before_deadline a QP stopped before its deadline is never due: the
//                        scan at the old wake_at finds nothing and publishes
//                        no wake, or the next QP's later one; stopped in
//                        the cycle the deadline is reached; moved later
//   rearm_while_scanned  for every QP, the job's write in the cycle the
//                        scan reads it wins over its passed deadline: a new
//                        deadline (later, or already passed: found by the
//                        next scan) counts, a stop leaves nothing; a write
//                        the cycle before is read, the cycle after comes
//                        too late (due, and armed again)
//   arm_during_scan      an arm in the scan's first cycle and in the cycle
//                        of each read, of a QP already read, being read or
//                        not yet read: its deadline is the published
//                        wake_at when earliest, not when later; stopped
//                        later in the scan, wake_at may stay early
//   kick_take_clear      kick: due after that edge, at idle and during a
//                        scan, the timer left running; take clears only its
//                        QP; clear (INIT) stops the timer (never due, the
//                        next scan finds nothing) and clears due, also in
//                        the cycle the scan reads the QP
//   same_cycle           one QP, one cycle: take over kick and over the
//                        scan's finding, clear over all, arm with kick or
//                        take both land; four QPs each its own input at once
//   idle_while_scanning  idle low exactly the NUM_QP cycles after a scan
//                        starts (predicted by hand from wake_at and time),
//                        high one cycle between back-to-back scans, never
//                        low with nothing armed however time moves
//   wide_values          deadlines and time across 2^32 (64-bit compares),
//                        in the past, equal to time_now, and at 2^64 - 1
//   random_run           300,000 cycles of arms, stops, kicks, takes and
//                        clears over time that jumps while idle (up to
//                        wake_at) and sometimes runs fast in scans; the
//                        figures at the end say every case was exercised
//
// Each test prints its seed; RTL_UNIT_SEED=N replays another.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "rnic_check.h"
#include "tmr_harness.h"
#include "unit_bench.h"

namespace {

uint64_t seed(uint64_t fixed) { return unit_seed(fixed); }

bool due(const TmrOut &o, unsigned q) { return (o.due >> q) & 1u; }

// One cycle with nothing valid, at time t (>= now), or time one on.
TmrOut at(TmrHarness &h, uint64_t t) { return h.cycle(h.quiet(t)); }
TmrOut tick(TmrHarness &h) { return at(h, h.now() + 1); }

// One cycle of the job or the engine, time one on.
TmrIn arm_in(TmrHarness &h, unsigned q, uint64_t deadline) {
    TmrIn in = h.quiet(h.now() + 1);
    in.arm = true;
    in.arm_qp = q;
    in.arm_on = true;
    in.arm_at = deadline;
    return in;
}
TmrIn stop_in(TmrHarness &h, unsigned q) {
    TmrIn in = h.quiet(h.now() + 1);
    in.arm = true;
    in.arm_qp = q;
    in.arm_on = false;   // arm_at junk
    return in;
}
TmrOut arm(TmrHarness &h, unsigned q, uint64_t deadline) { return h.cycle(arm_in(h, q, deadline)); }
TmrOut stop(TmrHarness &h, unsigned q) { return h.cycle(stop_in(h, q)); }
TmrOut kick(TmrHarness &h, unsigned q) {
    TmrIn in = h.quiet(h.now() + 1);
    in.kick = true;
    in.kick_qp = q;
    return h.cycle(in);
}
TmrOut take(TmrHarness &h, unsigned q) {
    TmrIn in = h.quiet(h.now() + 1);
    in.take = true;
    in.take_qp = q;
    return h.cycle(in);
}
TmrOut clear(TmrHarness &h, unsigned q) {
    TmrIn in = h.quiet(h.now() + 1);
    in.clear = true;
    in.clear_qp = q;
    return h.cycle(in);
}

// Ticks until no scan runs (at most two scans' worth).
TmrOut finish_scan(TmrHarness &h) {
    TmrOut o = h.out();
    for (unsigned n = 0; n < 2 * kNumQp + 2 && !o.idle; n++) o = tick(h);
    CHECK(o.idle);
    return o;
}

// Takes every due QP, one a cycle, as the engine does.
void take_all(TmrHarness &h) {
    for (unsigned q = 0; q < kNumQp; q++)
        if (due(h.out(), q))
            take(h, q);
}

// Ticks (time one on) until q shows due, at most `limit` cycles; returns
// the edges counted from the first cycle at time >= deadline, `edges` of
// them already (0 if q is never due). q never due before its deadline.
unsigned edges_until_due(TmrHarness &h, unsigned q, uint64_t deadline, unsigned edges = 0, unsigned limit = 200) {
    CHECK(!due(h.out(), q));
    for (unsigned n = 0; n < limit; n++) {
        const uint64_t t = h.now() + 1;
        const TmrOut o = tick(h);
        if (t >= deadline)
            edges++;
        if (due(o, q)) {
            CHECK(t >= deadline);
            return edges;
        }
    }
    CHECK(false);   // never due
    return 0;
}

// Ticks while the scan has not reached q: the next cycle reads q.
void until_read(TmrHarness &h, unsigned q) {
    for (unsigned n = 0; n < 2 * kNumQp + 2; n++) {
        if (h.model().scanning() && h.model().scan_next() == q)
            return;
        tick(h);
    }
    CHECK(false);
}

// Runs the scans still to come: the platform jumps to each wake_at.
void drain(TmrHarness &h) {
    for (int n = 0; n < 4 && (h.out().wake_valid || !h.out().idle); n++) {
        finish_scan(h);
        if (h.out().wake_valid) {
            at(h, std::max(h.now() + 1, h.out().wake_at));
            finish_scan(h);
        }
    }
}

// Nothing armed, nothing due, no scan (a test's clean start, without rst_n):
// every timer stopped, the scans for wake_at left from before run (they
// find nothing), every due QP taken.
void settle(TmrHarness &h) {
    for (unsigned q = 0; q < kNumQp; q++) stop(h, q);
    drain(h);
    take_all(h);
    CHECK(!h.out().wake_valid);
    CHECK(h.out().idle);
    CHECK_EQ(h.out().due, 0u);
}

}  // namespace

UNIT_TEST(reset_state) {
    TmrHarness h(seed(0x7E5E7), 1000);
    TmrOut o = h.out();
    CHECK_EQ(o.due, 0u);
    CHECK(!o.wake_valid);
    CHECK(o.idle);
    // Time passing, in steps and jumps, with nothing armed: no scan, nothing due.
    Rng &r = h.rng();
    for (int i = 0; i < 300; i++) {
        o = at(h, h.now() + (r.percent(50) ? 1 : r.range(2, 1u << 30)));
        CHECK_EQ(o.due, 0u);
        CHECK(!o.wake_valid);
        CHECK(o.idle);
    }
    // Timers armed, QPs due, a scan under way: rst_n forgets all of it.
    for (int round = 0; round < 20; round++) {
        for (unsigned q = 0; q < kNumQp; q++) arm(h, q, h.now() + 5 + r.range(0, 40));
        kick(h, r.range(0, kNumQp - 1));
        const unsigned extra = r.range(0, 3 * kNumQp);
        for (unsigned n = 0; n < extra; n++) tick(h);
        h.reset();
        o = h.out();
        CHECK_EQ(o.due, 0u);
        CHECK(!o.wake_valid);
        CHECK(o.idle);
        // The deadlines pass: nothing is due, no scan runs.
        for (int i = 0; i < 100; i++) {
            o = tick(h);
            CHECK_EQ(o.due, 0u);
            CHECK(!o.wake_valid);
            CHECK(o.idle);
        }
    }
    // And it works afterwards.
    arm(h, 3, h.now() + 10);
    CHECK_EQ(edges_until_due(h, 3, h.model().deadline(3)), 3u + 2u);
}

UNIT_TEST(deadline_passes) {
    TmrHarness h(seed(0xDEAD1), 1000);
    // At idle, time one a cycle: QP + 2 edges from the cycle at the deadline.
    const uint64_t outs[] = {1, 2, 3, 17, 1000};
    for (unsigned q = 0; q < kNumQp; q++)
        for (uint64_t k : outs) {
            const uint64_t d = h.now() + 1 + k;
            TmrOut o = arm(h, q, d);
            CHECK(o.wake_valid);
            CHECK_EQ(o.wake_at, d);
            CHECK(o.idle);
            CHECK_EQ(edges_until_due(h, q, d, 0, k + 3 * kNumQp), q + 2);
            o = finish_scan(h);
            CHECK_EQ(o.due, 1u << q);   // that QP only
            CHECK(!o.wake_valid);       // nothing else armed
            take(h, q);
            CHECK_EQ(h.out().due, 0u);
        }
    // The platform skipping idle time: straight to wake_at, or to one before it.
    for (unsigned q = 0; q < kNumQp; q++)
        for (int before = 0; before < 2; before++) {
            const uint64_t d = h.now() + 1 + 1000000 + q;
            TmrOut o = arm(h, q, d);
            CHECK_EQ(o.wake_at, d);
            if (before) {
                o = at(h, d - 1);
                CHECK(o.idle);
                CHECK(!due(o, q));
            }
            o = at(h, o.wake_at);   // the cycle at the deadline: the scan starts
            CHECK(!o.idle);
            CHECK(!due(o, q));
            CHECK_EQ(edges_until_due(h, q, d, 1), q + 2);
            finish_scan(h);
            take(h, q);
        }
    // A deadline reached while a scan (started by another QP) reads QP j.
    for (unsigned q = 0; q < kNumQp; q++)
        for (unsigned j = 0; j < kNumQp; j++) {
            settle(h);
            const unsigned other = (q + 1 + j % (kNumQp - 1)) % kNumQp;
            const uint64_t t = h.now() + 10;   // the other QP's deadline: the scan's first cycle
            arm(h, other, t);
            const uint64_t d = t + 1 + j;      // reached in the cycle that reads QP j
            TmrOut o = arm(h, q, d);
            CHECK_EQ(o.wake_at, t);
            const unsigned want = j <= q ? q - j + 1 : kNumQp - j + q + 2;
            CHECK_EQ(edges_until_due(h, q, d, 0, 4 * kNumQp), want);
            CHECK(want <= kLatencyBound);
            finish_scan(h);
            take_all(h);
        }
    // Two QPs on one deadline: both in the same scan, each at its read.
    settle(h);
    const uint64_t d = h.now() + 20;
    arm(h, 11 % kNumQp, d);
    arm(h, 4 % kNumQp, d);
    TmrOut o = at(h, d);
    for (unsigned n = 0; n < 4 % kNumQp + 1; n++) {
        CHECK(!due(o, 4 % kNumQp));
        o = tick(h);
    }
    CHECK(due(o, 4 % kNumQp));
    CHECK(!due(o, 11 % kNumQp));
    o = finish_scan(h);
    CHECK(due(o, 11 % kNumQp));
    CHECK(!o.wake_valid);
}

UNIT_TEST(earliest_wake) {
    TmrHarness h(seed(0xEA51), 5000);
    Rng &r = h.rng();
    for (int round = 0; round < 40; round++) {
        const bool ties = round % 4 == 3;
        // Deadlines at least 60 apart (a scan's NUM_QP cycles find only
        // their own), or in ties round a handful shared among the QPs.
        std::vector<unsigned> rank(kNumQp);
        for (unsigned q = 0; q < kNumQp; q++) rank[q] = q;
        for (unsigned q = kNumQp - 1; q > 0; q--) std::swap(rank[q], rank[r.range(0, q)]);
        const uint64_t base = h.now() + 500;
        std::vector<uint64_t> dl(kNumQp);
        for (unsigned q = 0; q < kNumQp; q++)
            dl[q] = ties ? base + 100 * r.range(0, 3) : base + 100 * rank[q] + r.range(0, 40);
        // Armed in random order: wake_at the earliest so far, at once.
        std::vector<unsigned> order(kNumQp);
        for (unsigned q = 0; q < kNumQp; q++) order[q] = q;
        for (unsigned q = kNumQp - 1; q > 0; q--) std::swap(order[q], order[r.range(0, q)]);
        uint64_t earliest = ~0ull;
        for (unsigned q : order) {
            earliest = std::min(earliest, dl[q]);
            const TmrOut o = arm(h, q, dl[q]);
            CHECK(o.wake_valid);
            CHECK_EQ(o.wake_at, earliest);
        }
        // A QP moved later: wake_at stays where it was (it may be early).
        const unsigned moved = r.range(0, kNumQp - 1);
        const uint64_t was = h.out().wake_at;
        dl[moved] = *std::max_element(dl.begin(), dl.end()) + 1000;   // still a deadline of its own
        CHECK_EQ(arm(h, moved, dl[moved]).wake_at, was);
        // Each deadline in turn: the platform jumps to wake_at.
        uint32_t left = (1u << kNumQp) - 1;
        int scans = 0;
        while (left && scans++ < static_cast<int>(kNumQp) + 2) {
            uint64_t e = ~0ull;
            for (unsigned q = 0; q < kNumQp; q++)
                if (left >> q & 1u)
                    e = std::min(e, dl[q]);
            TmrOut o = h.out();
            // A scan for a moved QP may find nothing: it publishes the next.
            CHECK(o.wake_valid);
            CHECK(o.wake_at <= e);
            if (o.wake_at < e) {
                CHECK(at(h, o.wake_at).idle == false);
                o = finish_scan(h);
                CHECK_EQ(o.due, 0u);
                CHECK(o.wake_valid);
                CHECK_EQ(o.wake_at, e);
            }
            at(h, e);
            o = finish_scan(h);
            uint32_t want = 0;
            for (unsigned q = 0; q < kNumQp; q++)
                if (dl[q] == e)
                    want |= 1u << q;
            CHECK_EQ(o.due, want);
            left &= ~want;
            uint64_t next = ~0ull;
            for (unsigned q = 0; q < kNumQp; q++)
                if (left >> q & 1u)
                    next = std::min(next, dl[q]);
            CHECK_EQ(o.wake_valid, left != 0);
            if (left)
                CHECK_EQ(o.wake_at, next);
            take_all(h);
        }
        CHECK_EQ(left, 0u);
        CHECK(!h.out().wake_valid);
    }
    // Deadlines that differ only in their upper 32 bits, and only in the lower.
    settle(h);
    const uint64_t hi = (h.now() | 0xFFFFFFFFull) + 1;   // the next multiple of 2^32
    arm(h, 1, hi + (3ull << 32) + 5);
    CHECK_EQ(arm(h, 2, hi + (1ull << 32) + 7).wake_at, hi + (1ull << 32) + 7);
    CHECK_EQ(arm(h, 3, hi + (2ull << 32) + 1).wake_at, hi + (1ull << 32) + 7);
    CHECK_EQ(arm(h, 4, hi + (1ull << 32) + 6).wake_at, hi + (1ull << 32) + 6);
    settle(h);
}

UNIT_TEST(stop_before_deadline) {
    TmrHarness h(seed(0x5709), 2000);
    for (unsigned q = 0; q < kNumQp; q++) {
        // Alone: the scan at the old wake_at finds nothing, publishes none.
        uint64_t d = h.now() + 100;
        arm(h, q, d);
        for (int i = 0; i < 50; i++) tick(h);
        TmrOut o = stop(h, q);
        CHECK(o.wake_valid);   // may be early: a timer stopped since
        CHECK_EQ(o.wake_at, d);
        o = at(h, d);
        CHECK(!o.idle);        // the scan runs
        o = finish_scan(h);
        CHECK(!due(o, q));
        CHECK(!o.wake_valid);
        for (int i = 0; i < 200; i++) {
            o = tick(h);
            CHECK_EQ(o.due, 0u);
            CHECK(o.idle);
        }
        // With a later QP: the scan publishes that one's deadline.
        const unsigned later = (q + 5) % kNumQp;
        d = h.now() + 100;
        const uint64_t d2 = d + 1000;
        arm(h, q, d);
        arm(h, later, d2);
        stop(h, q);
        at(h, d);
        o = finish_scan(h);
        CHECK_EQ(o.due, 0u);
        CHECK(o.wake_valid);
        CHECK_EQ(o.wake_at, d2);
        at(h, d2);
        o = finish_scan(h);
        CHECK_EQ(o.due, 1u << later);
        take(h, later);
        // Stopped in the cycle the deadline is reached: the scan starts then,
        // the stop lands before any read.
        d = h.now() + 30;
        arm(h, q, d);
        for (int i = 0; i < 28; i++) tick(h);
        TmrIn in = stop_in(h, q);
        CHECK_EQ(in.now, d);
        o = h.cycle(in);
        CHECK(!o.idle);
        o = finish_scan(h);
        CHECK_EQ(o.due, 0u);
        CHECK(!o.wake_valid);
        // Moved later before it passes: not due at the old deadline, due at the new.
        d = h.now() + 40;
        arm(h, q, d);
        tick(h);
        const uint64_t moved = d + 500;
        arm(h, q, moved);
        CHECK_EQ(h.out().wake_at, d);
        at(h, d);
        o = finish_scan(h);
        CHECK_EQ(o.due, 0u);
        CHECK_EQ(o.wake_at, moved);
        CHECK_EQ(edges_until_due(h, q, moved, 0, 600), q + 2);
        finish_scan(h);
        take(h, q);
    }
}

UNIT_TEST(rearm_while_scanned) {
    TmrHarness h(seed(0x2EA2), 3000);
    for (unsigned q = 0; q < kNumQp; q++) {
        // Re-armed for later in the cycle the scan reads it, its deadline passed.
        uint64_t d = h.now() + 20;
        arm(h, q, d);
        at(h, d);
        until_read(h, q);
        uint64_t d2 = h.now() + 1 + 300;
        TmrOut o = arm(h, q, d2);
        CHECK(!due(o, q));
        o = finish_scan(h);
        CHECK(!due(o, q));
        CHECK(o.wake_valid);
        CHECK_EQ(o.wake_at, d2);
        CHECK_EQ(edges_until_due(h, q, d2, 0, 400), q + 2);
        finish_scan(h);
        take(h, q);

        // Stopped in that cycle: nothing due, nothing left to wake for.
        d = h.now() + 20;
        arm(h, q, d);
        at(h, d);
        until_read(h, q);
        o = stop(h, q);
        CHECK(!due(o, q));
        o = finish_scan(h);
        CHECK_EQ(o.due, 0u);
        CHECK(!o.wake_valid);
        for (int i = 0; i < 100; i++) CHECK_EQ(tick(h).due, 0u);

        // Re-armed for a deadline already passed: this scan does not mark
        // it (the write wins), the next one, at once, does.
        d = h.now() + 20;
        arm(h, q, d);
        at(h, d);
        until_read(h, q);
        d2 = h.now();   // the last cycle's time: passed in the next
        o = arm(h, q, d2);
        CHECK(!due(o, q));
        o = finish_scan(h);
        CHECK(!due(o, q));
        CHECK(o.wake_valid);
        CHECK_EQ(o.wake_at, d2);
        o = tick(h);   // the next scan's first cycle
        CHECK(!o.idle);
        for (unsigned n = 0; n < q + 1; n++) {
            CHECK(!due(o, q));
            o = tick(h);
        }
        CHECK(due(o, q));
        o = finish_scan(h);
        CHECK(!o.wake_valid);
        take(h, q);

        // Re-armed the cycle before the scan reads it: the new word is read.
        d = h.now() + 20;
        arm(h, q, d);
        if (q == 0) {
            TmrIn in = arm_in(h, q, 0);
            in.now = d;   // the scan's first cycle
            d2 = d + 300;
            in.arm_at = d2;
            h.cycle(in);
        } else {
            at(h, d);
            until_read(h, q - 1);
            d2 = h.now() + 300;
            arm(h, q, d2);
        }
        o = finish_scan(h);
        CHECK(!due(o, q));
        CHECK_EQ(o.wake_at, d2);
        CHECK_EQ(edges_until_due(h, q, d2, 0, 400), q + 2);
        finish_scan(h);
        take(h, q);

        // Re-armed the cycle after: too late, the old deadline made it due;
        // the new one makes it due again after a take.
        d = h.now() + 20;
        arm(h, q, d);
        at(h, d);
        until_read(h, q);
        o = tick(h);
        CHECK(due(o, q));
        d2 = h.now() + 300;
        o = arm(h, q, d2);
        CHECK(due(o, q));
        o = finish_scan(h);
        CHECK_EQ(o.wake_at, d2);
        take(h, q);
        CHECK_EQ(edges_until_due(h, q, d2, 0, 400), q + 2);
        finish_scan(h);
        take(h, q);
        CHECK_EQ(h.out().due, 0u);
    }
}

UNIT_TEST(arm_during_scan) {
    TmrHarness h(seed(0xA2D5), 4000);
    Rng &r = h.rng();
    // p = 0: the scan's first cycle (the one at wake_at); p = k + 1: the cycle that reads QP k.
    for (unsigned p = 0; p <= kNumQp; p++)
        for (int where = 0; where < 3; where++) {
            settle(h);
            const unsigned k = p ? p - 1 : 0;
            // The QP armed: one already read, the one being read, one not yet read.
            unsigned c;
            if (where == 0)
                c = p >= 2 ? r.range(0, k - 1) : kNumQp - 1;
            else if (where == 1)
                c = k;
            else
                c = k + 1 < kNumQp ? r.range(k + 1, kNumQp - 1) : 0;
            const unsigned a = (c + 1 + r.range(0, kNumQp - 3)) % kNumQp;   // the QP whose deadline starts the scan
            unsigned b = (a + 1) % kNumQp;                                   // one armed far out
            if (b == c)
                b = (b + 1) % kNumQp;
            const uint64_t t = h.now() + 10, far = t + 100000;
            arm(h, a, t);
            arm(h, b, far);
            const uint64_t e = t + 5000;   // earlier than far
            TmrOut o;
            if (p == 0) {
                TmrIn in = arm_in(h, c, e);
                in.now = t;
                o = h.cycle(in);
                CHECK(!o.idle);
            } else {
                at(h, t);
                for (unsigned n = 1; n < p; n++) tick(h);
                CHECK(h.model().scan_next() == k);
                o = arm(h, c, e);
            }
            o = finish_scan(h);
            CHECK_EQ(o.due, 1u << a);
            CHECK(o.wake_valid);
            CHECK_EQ(o.wake_at, e);
            take(h, a);
            o = at(h, e);
            CHECK_EQ(edges_until_due(h, c, e, 1), c + 2);
            o = finish_scan(h);
            CHECK_EQ(o.wake_at, far);
            take(h, c);

            // Later than the earliest armed: wake_at is that one, not the arm's.
            settle(h);
            const uint64_t t2 = h.now() + 10, near = t2 + 1000;
            arm(h, a, t2);
            arm(h, b, near);
            at(h, t2);
            for (unsigned n = 1; n < p; n++) tick(h);
            o = arm(h, c, near + 1);
            o = finish_scan(h);
            CHECK_EQ(o.wake_at, near);
            take(h, a);

            // Armed and stopped again within the scan: wake_at may stay at
            // the arm's deadline (early, never late).
            settle(h);
            const uint64_t t3 = h.now() + 10, far3 = t3 + 100000;
            arm(h, a, t3);
            arm(h, b, far3);
            at(h, t3);
            if (p < kNumQp) {
                for (unsigned n = 1; n < p; n++) tick(h);
                arm(h, c, t3 + 5000);
                stop(h, c);
                o = finish_scan(h);
                CHECK(o.wake_valid);
                CHECK(o.wake_at <= far3);
                CHECK(!due(o, c));
            }
            finish_scan(h);
            take_all(h);
        }
}

UNIT_TEST(kick_take_clear) {
    TmrHarness h(seed(0x1C1C), 6000);
    Rng &r = h.rng();
    // kick: due after that edge, the other bits as they were; take clears only its QP.
    for (unsigned q = 0; q < kNumQp; q++) {
        const uint32_t before = h.out().due;
        TmrOut o = kick(h, q);
        CHECK_EQ(o.due, before | (1u << q));
        o = kick(h, q);   // already due: stays
        CHECK_EQ(o.due, before | (1u << q));
    }
    CHECK_EQ(h.out().due, (1u << kNumQp) - 1);
    for (unsigned q = 0; q < kNumQp; q++) {
        const unsigned x = (q * 7 + 3) % kNumQp;
        const uint32_t before = h.out().due;
        const TmrOut o = take(h, x);
        CHECK_EQ(o.due, before & ~(1u << x));
    }
    CHECK_EQ(h.out().due, 0u);
    TmrOut o = take(h, 5);   // not due: nothing
    CHECK_EQ(o.due, 0u);
    // A kick leaves the timer running: due again at its deadline after a take.
    for (unsigned q = 0; q < kNumQp; q++) {
        const uint64_t d = h.now() + 40;
        arm(h, q, d);
        o = kick(h, q);
        CHECK_EQ(o.due, 1u << q);
        CHECK_EQ(o.wake_at, d);
        o = take(h, q);
        CHECK_EQ(o.due, 0u);
        CHECK_EQ(edges_until_due(h, q, d), q + 2);
        finish_scan(h);
        take(h, q);
    }
    // A kick during a scan: due after that edge, whichever QP the scan reads.
    for (unsigned q = 0; q < kNumQp; q++) {
        settle(h);
        const uint64_t d = h.now() + 10;
        arm(h, (q + 3) % kNumQp, d);
        at(h, d);
        until_read(h, r.range(0, kNumQp - 1));
        o = kick(h, q);
        CHECK(due(o, q));
        finish_scan(h);
        take_all(h);
    }
    // clear: the timer stops (never due; the scan at the old wake_at finds
    // nothing), due cleared, other QPs untouched.
    for (unsigned q = 0; q < kNumQp; q++) {
        settle(h);
        const unsigned other = (q + 1) % kNumQp;
        const uint64_t d = h.now() + 50;
        arm(h, q, d);
        arm(h, other, d + 5);
        kick(h, q);
        kick(h, other);
        o = clear(h, q);
        CHECK_EQ(o.due, 1u << other);
        CHECK_EQ(o.wake_at, d);
        drain(h);
        o = h.out();
        CHECK_EQ(o.due, 1u << other);
        CHECK(!o.wake_valid);
        for (int i = 0; i < 100; i++) CHECK(!due(tick(h), q));
        take(h, other);
    }
    // clear in the cycle the scan reads the QP, its deadline passed: not due.
    for (unsigned q = 0; q < kNumQp; q++) {
        settle(h);
        const uint64_t d = h.now() + 10;
        arm(h, q, d);
        at(h, d);
        until_read(h, q);
        o = clear(h, q);
        CHECK(!due(o, q));
        o = finish_scan(h);
        CHECK(!due(o, q));
        // The deadline as read may be published (early, a timer stopped
        // since): a scan then finds nothing.
        for (int i = 0; i < 3 * static_cast<int>(kNumQp); i++) CHECK(!due(tick(h), q));
        CHECK(!h.out().wake_valid);
    }
}

UNIT_TEST(same_cycle) {
    TmrHarness h(seed(0x5A3E), 7000);
    Rng &r = h.rng();
    for (unsigned q = 0; q < kNumQp; q++) {
        // kick and take: the take wins.
        TmrIn in = h.quiet(h.now() + 1);
        in.kick = in.take = true;
        in.kick_qp = in.take_qp = q;
        CHECK(!due(h.cycle(in), q));
        // kick and clear: not due.
        in = h.quiet(h.now() + 1);
        in.kick = in.clear = true;
        in.kick_qp = in.clear_qp = q;
        CHECK(!due(h.cycle(in), q));
        // arm and kick: armed and due.
        uint64_t d = h.now() + 40;
        in = arm_in(h, q, d);
        in.kick = true;
        in.kick_qp = q;
        TmrOut o = h.cycle(in);
        CHECK(due(o, q));
        CHECK_EQ(o.wake_at, d);
        take(h, q);
        CHECK_EQ(edges_until_due(h, q, d), q + 2);
        finish_scan(h);
        // arm and take: armed, not due.
        d = h.now() + 40;
        in = arm_in(h, q, d);
        in.take = true;
        in.take_qp = q;
        o = h.cycle(in);
        CHECK(!due(o, q));
        CHECK_EQ(edges_until_due(h, q, d), q + 2);
        finish_scan(h);
        take(h, q);
        // arm and clear: the clear wins, never due (wake_at may be early).
        d = h.now() + 40;
        in = arm_in(h, q, d);
        in.clear = true;
        in.clear_qp = q;
        h.cycle(in);
        for (int i = 0; i < 100; i++) CHECK(!due(tick(h), q));
        CHECK(!h.out().wake_valid);
        // The scan finds the deadline passed in the cycle the engine takes
        // the QP (due from a kick): the take wins, and the timer has run out.
        d = h.now() + 20;
        arm(h, q, d);
        kick(h, q);
        at(h, d);
        until_read(h, q);
        in = h.quiet(h.now() + 1);
        in.take = true;
        in.take_qp = q;
        o = h.cycle(in);
        CHECK(h.events().expired);
        CHECK(!due(o, q));
        o = finish_scan(h);
        CHECK(!o.wake_valid);
        for (int i = 0; i < 100; i++) CHECK(!due(tick(h), q));
        // ... and a kick in that cycle: due (it was anyway).
        d = h.now() + 20;
        arm(h, q, d);
        at(h, d);
        until_read(h, q);
        o = kick(h, q);
        CHECK(due(o, q));
        finish_scan(h);
        take(h, q);
        // take and clear: not due.
        kick(h, q);
        in = h.quiet(h.now() + 1);
        in.take = in.clear = true;
        in.take_qp = in.clear_qp = q;
        CHECK(!due(h.cycle(in), q));
    }
    // Four QPs, each its own input, in one cycle: all land.
    for (int i = 0; i < 200; i++) {
        settle(h);
        unsigned pick[4];
        for (unsigned j = 0; j < 4; j++) {
            bool again;
            do {
                pick[j] = r.range(0, kNumQp - 1);
                again = false;
                for (unsigned k = 0; k < j; k++) again |= pick[k] == pick[j];
            } while (again);
        }
        kick(h, pick[2]);   // to be taken
        arm(h, pick[3], h.now() + 1000);   // to be cleared
        kick(h, pick[3]);
        const uint64_t d = h.now() + 50;
        TmrIn in = arm_in(h, pick[0], d);
        in.kick = true;
        in.kick_qp = pick[1];
        in.take = true;
        in.take_qp = pick[2];
        in.clear = true;
        in.clear_qp = pick[3];
        const TmrOut o = h.cycle(in);
        CHECK_EQ(o.due, 1u << pick[1]);
        CHECK_EQ(o.wake_at, d);
        CHECK(h.model().armed(pick[0]));
        CHECK(!h.model().armed(pick[3]));
        take(h, pick[1]);
        CHECK_EQ(edges_until_due(h, pick[0], d), pick[0] + 2);
        finish_scan(h);
        take(h, pick[0]);
    }
}

UNIT_TEST(idle_while_scanning) {
    TmrHarness h(seed(0x1D1E), 8000);
    Rng &r = h.rng();
    // Predicted by hand from the outputs the cycle meets: a scan starts in
    // a cycle with idle high, wake_valid and time_now >= wake_at, and idle
    // is low for the NUM_QP cycles after it.
    unsigned low = 0;
    uint64_t scans = 0, back_to_back = 0, long_idle = 0;
    bool prev_pre_idle = true;
    for (int i = 0; i < 60000; i++) {
        // A quarter of the run with nothing armed: from a clean start, no arms.
        const bool none = i % 20000 < 5000;
        if (i % 20000 == 0 && i) {
            settle(h);
            low = 0;
        }
        const TmrOut pre = h.out();
        TmrIn in = h.quiet(h.now() + 1);
        if (pre.idle && r.percent(30)) {
            // The platform skips idle time, up to wake_at.
            uint64_t t = h.now() + r.range(1, 5000);
            if (pre.wake_valid && pre.wake_at > h.now())
                t = std::min(t, pre.wake_at);
            else if (pre.wake_valid)
                t = h.now() + 1;
            in.now = t;
        }
        if (!none && r.percent(10)) {
            in.arm = true;
            in.arm_qp = r.range(0, kNumQp - 1);
            in.arm_on = r.percent(80);
            in.arm_at = in.now + (r.percent(30) ? r.range(0, 20) : r.range(0, 3000));
            if (r.percent(3))
                in.arm_at = in.now - std::min<uint64_t>(in.now, r.range(1, 50));   // passed already
        }
        if (r.percent(2)) {
            in.clear = true;
            in.clear_qp = r.range(0, kNumQp - 1);
        }
        if (pre.due) {   // the engine takes a due QP
            in.take = true;
            in.take_qp = 0;
            while (!due(pre, in.take_qp)) in.take_qp++;
        }
        const bool start = pre.idle && pre.wake_valid && in.now >= pre.wake_at;
        if (start) {
            ++scans;
            back_to_back += !prev_pre_idle;   // the cycle before met the last read of a scan
        }
        prev_pre_idle = pre.idle;
        const TmrOut o = h.cycle(in);
        if (start)
            low = kNumQp;
        CHECK_EQ(o.idle, low == 0);
        if (low)
            low--;
        if (none && i % 20000 >= 2000) {
            CHECK(o.idle);
            CHECK(!o.wake_valid);
            ++long_idle;
        }
    }
    std::printf("idle_while_scanning: %llu scans, %llu straight after another, %llu cycles with nothing armed\n",
                static_cast<unsigned long long>(scans), static_cast<unsigned long long>(back_to_back),
                static_cast<unsigned long long>(long_idle));
    CHECK(scans > 1000);
    CHECK(back_to_back > 50);
}

UNIT_TEST(wide_values) {
    {
        TmrHarness h(seed(0x3264), 0xFFFFFF00ull);
        // A deadline just past 2^32, time just short of it: a 32-bit compare
        // would find it passed (low word 0x10 < 0xFFFFFF..).
        const uint64_t d = 0x100000010ull;
        arm(h, 6, d);
        CHECK_EQ(h.out().wake_at, d);
        CHECK_EQ(edges_until_due(h, 6, d, 0, 400), 6u + 2u);
        finish_scan(h);
        take(h, 6);
        // Time just past 2^32, a deadline with a larger low word but a
        // smaller high word: passed, found at once.
        const uint64_t past = 0xFFFFFFF0ull;
        arm(h, 9, past);
        CHECK_EQ(h.out().wake_at, past);
        CHECK_EQ(edges_until_due(h, 9, past), 9u + 2u);   // counted from the next cycle
        finish_scan(h);
        take(h, 9);
        // Deadline 0 and deadline equal to the cycle's own time.
        arm(h, 0, 0);
        CHECK_EQ(edges_until_due(h, 0, 0), 0u + 2u);
        finish_scan(h);
        take(h, 0);
        TmrIn in = arm_in(h, 15 % kNumQp, 0);
        in.arm_at = in.now;
        h.cycle(in);
        CHECK_EQ(edges_until_due(h, 15 % kNumQp, in.now), 15 % kNumQp + 2);
        finish_scan(h);
        take(h, 15 % kNumQp);
        // High words far apart.
        arm(h, 2, 0x7000000000000000ull);
        arm(h, 3, 0x0000700000000000ull);
        CHECK_EQ(h.out().wake_at, 0x0000700000000000ull);
        at(h, 0x0000700000000000ull);
        TmrOut o = finish_scan(h);
        CHECK_EQ(o.due, 1u << 3);
        CHECK_EQ(o.wake_at, 0x7000000000000000ull);
        take(h, 3);
    }
    {
        // The end of time: a deadline of 2^64 - 1 is reached at 2^64 - 1,
        // where time stands (it cannot go on).
        TmrHarness h(seed(0x3265), ~0ull - 1000);
        const uint64_t end = ~0ull;
        arm(h, 1, end);
        arm(h, 2, end - 100);
        CHECK_EQ(h.out().wake_at, end - 100);
        TmrOut o = at(h, end - 100);
        CHECK(!o.idle);
        o = finish_scan(h);
        CHECK_EQ(o.due, 1u << 2);
        CHECK_EQ(o.wake_at, end);
        take(h, 2);
        o = at(h, end);
        CHECK(!o.idle);
        CHECK(!due(at(h, end), 1));   // reads QP 0
        CHECK(due(at(h, end), 1));    // reads QP 1: the third edge
        for (unsigned n = 0; n < kNumQp && !h.out().idle; n++) at(h, end);
        CHECK(h.out().idle);
        CHECK(!h.out().wake_valid);
    }
}

namespace {
// A deadline for an arm at time now, from every range the contract has to handle.
uint64_t pick_deadline(Rng &r, uint64_t now, const TmrModel &m) {
    const unsigned k = r.range(0, 99);
    if (k < 35)
        return now + r.range(0, 40);                     // within a scan or two
    if (k < 55)
        return now + r.range(41, 3000);
    if (k < 63)
        return now + r.range(3000, 1u << 24);
    if (k < 68)
        return now + (r.next() >> 24);                   // up to 2^40 out
    if (k < 75)
        return now - std::min<uint64_t>(now, r.range(1, 100));   // passed already
    if (k < 80)
        return now;
    if (k < 92) {                                        // another QP's, or wake_at, or next to it
        const unsigned q = r.range(0, kNumQp - 1);
        const uint64_t base = r.percent(50) && m.wake_valid() ? m.wake_at() : m.deadline(q);
        const uint64_t d = base + r.range(0, 2) - 1;
        return d < now && r.percent(80) ? now + r.range(0, 40) : d;
    }
    if (k < 97)
        return ~0ull - r.range(0, 1000);                 // never reached
    return 0;
}
}  // namespace

UNIT_TEST(random_run) {
    TmrHarness h(seed(0x2A4D), 100);
    Rng &r = h.rng();
    const uint64_t kCycles = 300000;
    const int failures = rnic_check_failures();
    unsigned phase = 1;
    while (h.cycles() < kCycles && !unit_stop(failures)) {
        if (r.percent(1) && r.percent(3))
            h.reset();
        if (r.percent(1))
            phase = r.range(0, 2);   // quiet, busy, storm
        const TmrModel &m = h.model();
        // Time: the platform skips idle time (never past wake_at), and
        // sometimes runs faster than the clock (free-running).
        const uint64_t now = h.now();
        uint64_t t = now + 1;
        if (!m.scanning()) {
            if (r.percent(phase == 0 ? 50 : 12)) {
                const unsigned k = r.range(0, 9);
                uint64_t jump = k < 4 ? r.range(2, 60) : k < 8 ? r.range(61, 20000) : (r.next() >> 28);
                if (m.wake_valid() && m.wake_at() > now)
                    t = std::min(now + jump, r.percent(80) ? m.wake_at() : m.wake_at() - 1);
                else if (!m.wake_valid())
                    t = now + jump;
                if (t <= now)
                    t = now + 1;
            }
        } else if (r.percent(10)) {
            t = now + r.range(1, 4);
        }
        TmrIn in = h.quiet(t);
        // The QP the scan reads this cycle, often the job's too.
        const unsigned hot = m.scanning() ? m.scan_next() : r.range(0, kNumQp - 1);
        auto target = [&]() {
            if (r.percent(25))
                return hot;
            if (r.percent(10))
                return (hot + kNumQp - 1 + 2 * r.range(0, 1)) % kNumQp;   // just read, or next
            return r.range(0, kNumQp - 1);
        };
        const unsigned arm_pct[] = {3, 15, 45};
        if (r.percent(arm_pct[phase])) {
            in.arm = true;
            in.arm_qp = target();
            in.arm_on = r.percent(75);
            if (in.arm_on)
                in.arm_at = pick_deadline(r, t, m);
        }
        if (r.percent(3)) {
            in.kick = true;
            in.kick_qp = target();
        }
        // The engine takes one due QP at a time; now and then one not due.
        if (m.due_mask() && r.percent(40)) {
            unsigned q = r.range(0, kNumQp - 1);
            while (!m.due(q)) q = (q + 1) % kNumQp;
            in.take = true;
            in.take_qp = r.percent(20) ? target() : q;
        } else if (r.percent(2)) {
            in.take = true;
            in.take_qp = target();
        }
        if (r.percent(phase == 2 ? 3 : 1)) {
            in.clear = true;
            in.clear_qp = target();
        }
        h.cycle(in);
    }
    const TmrStats &s = h.stats();
    auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
    std::printf("random_run: %llu cycles, %llu resets, %llu output fields compared, %llu armed deadlines held "
                "against wake_at; %llu arms, %llu stops, %llu kicks, %llu takes (%llu of a due QP), %llu clears\n",
                u(s.cycles), u(s.resets), u(s.compared), u(s.wake_checks), u(s.arms), u(s.stops), u(s.kicks),
                u(s.takes), u(s.takes_due), u(s.clears));
    std::printf("random_run: %llu scans, %llu QPs found due (%llu taken in that cycle); the job's write on the QP "
                "read %llu (%llu saving a passed deadline); a clear of it %llu; arms kept by a scan %llu, lowering "
                "wake_at at once %llu; scans publishing none %llu, a later wake_at without marking %llu\n",
                u(s.scans), u(s.expiries), u(s.expiries_taken), u(s.rewritten), u(s.rewritten_passed),
                u(s.cleared_read), u(s.arms_to_scan), u(s.lowered), u(s.published_none), u(s.published_later));
    std::printf("random_run: time jumped while idle %llu times (%llu onto wake_at), ran fast in scans %llu; "
                "deadline reached to QP marked, edges:",
                u(s.jumps), u(s.jumps_to_wake), u(s.fast_scan_steps));
    for (uint64_t e = 1; e <= kLatencyBound; e++) std::printf(" %llu:%llu", u(e), u(s.latency_hist[e]));
    std::printf(" (max %llu, bound %llu)\n", u(s.latency_max), u(kLatencyBound));
    CHECK(h.cycles() >= kCycles);
    CHECK(s.resets > 10);
    CHECK(s.scans > 5000);
    CHECK(s.expiries > 5000);
    CHECK(s.expiries_taken > 20);
    CHECK(s.rewritten > 2000);
    CHECK(s.rewritten_passed > 300);
    CHECK(s.cleared_read > 50);
    CHECK(s.arms_to_scan > 10000);
    CHECK(s.lowered > 1000);
    CHECK(s.published_none > 100);
    CHECK(s.published_later > 200);
    CHECK(s.jumps > 5000);
    CHECK(s.jumps_to_wake > 1000);
    CHECK(s.fast_scan_steps > 1000);
    CHECK(s.latency_hist[kLatencyBound] > 0);   // the worst case was reached
    CHECK(s.latency_max <= kLatencyBound);
}
