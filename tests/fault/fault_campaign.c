/*
 * Fault campaign: random transfers between two NICs over a link that drops,
 * duplicates, reorders or corrupts frames, every byte checked
 * (docs/reliability.md).
 *
 *   fault_campaign [--seed N] [--transfers N] [--faults none|drop|dup|reorder|corrupt|delay|mix]
 *                  [--loss P] [--pairs N] [--depth N] [--max-len BYTES] [--ack-timeout T]
 *                  [--retry-cnt N] [--rnr-retry N] [--timeout-us US] [--flow both|one-way]
 *                  [--max-hangs N] [--hang-seconds S] [--trace]
 *                  [--inject-wrong N] [--inject-stray N] [--inject-error N]   (the campaign's own test)
 *
 * A DAT 1.2 consumer: one process, lockstep (both NICs of the pair, rnic0
 * and rnic1, simulated here, so a run is its seed's), an IA on each, N
 * connected EP pairs. Transfers of every kind (SEND to a posted RECV, RDMA
 * WRITE, RDMA READ, and an RMR bound over the target's memory then used as
 * the target of a WRITE or a READ), 0 bytes to 1 MiB (mostly small), at
 * random offsets, a few in flight per EP pair, initiated from either side.
 * With --flow one-way the data only flows from rnic0 to rnic1 (SEND and
 * WRITE from rnic0, READ from rnic1; the draws are the same): two large
 * transfers whose data crosses the link in opposite directions at the same
 * time deadlock the NICs today, fault or no fault (docs/reliability.md,
 * "Known problems").
 *
 * Each transfer ends in one verdict:
 *   success     every completion SUCCESS: the data must be the source's, and
 *               no other byte of either side's slot changed (else WRONG
 *               DATA: a failure of the campaign);
 *   error       a completion with another status, or the connection reported
 *               BROKEN: counted by status; the EP pair is torn down once every
 *               transfer on it is judged, and a new one connected;
 *   hang        no completion within --timeout-us of NIC time: a failure of
 *               the campaign (nothing reported it); the pair is torn down too.
 * Exit status: 0 when no hang, no wrong data and nothing unexpected (a post
 * refused, a stray completion, an async error); 1 otherwise; 2 when the
 * campaign could not run (a DAT call it needs failed, bad options); 3 when
 * the campaign itself stopped moving (the host-time watchdog).
 *
 * The link faults come from the simulated platform (rnic_sim.h,
 * docs/platform.md "Link faults"), on the frames of both NICs, seeded from
 * --seed; they start once every pair is connected.
 */
#define _GNU_SOURCE   /* setenv */
#include "fc.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "rnic_sim.h"

const char *const fc_fault_name[FK_COUNT] = { "none", "drop", "dup", "reorder", "corrupt", "delay", "mix" };

struct fc_opts fc_opt = {
    .seed = 1,
    .transfers = 200,
    .pairs = 4,
    .depth = 4,
    .faults = FK_NONE,
    .loss = 0.0,
    /* 4.096 us x 2^9 = 2.1 ms: a NIC runs one job at a time, and a 1 MiB
     * message is one job of about 140,000 cycles (0.56 ms) that delays
     * every other QP's answers; with pairs x depth of them queued, an ACK
     * can be 2.2 M cycles late without any loss. Eight timeouts of 2.1 ms
     * outlast that, so no retry count runs out on a clean link. */
    .ack_timeout = 9,
    .retry_cnt = 7,
    .rnr_retry = 7,
    .timeout_us = 0,   /* 0: from the retry settings (below) */
    .max_len = FC_MAX_LEN,
    .hang_seconds = 300,
    .max_hangs = 100,
};

/* ------------------------------------------------------------ watchdog */

static volatile sig_atomic_t loop_mark;
static const char *volatile doing = "setup";
static sig_atomic_t watch_last, watch_still;

static void put(const char *s)
{
    (void)!write(2, s, strlen(s));
}

static void on_watchdog(int sig)
{
    (void)sig;
    if (loop_mark != watch_last) {
        watch_last = loop_mark;
        watch_still = 0;
        return;
    }
    if ((unsigned)++watch_still * 5u >= fc_opt.hang_seconds) {
        put("fault_campaign: the campaign itself stopped moving (no progress for --hang-seconds of host time) in ");
        put(doing);
        put("; FAIL\n");
        _exit(3);
    }
}

static void watchdog_start(void)
{
    if (!fc_opt.hang_seconds)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_watchdog;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    const struct itimerval every5 = { { 5, 0 }, { 5, 0 } };
    setitimer(ITIMER_REAL, &every5, NULL);
}

static void watchdog_stop(void)
{
    const struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
}

/* ------------------------------------------------------------ options */

static void usage(const char *argv0, int status)
{
    fprintf(status ? stderr : stdout,
            "usage: %s [--seed N] [--transfers N] [--faults none|drop|dup|reorder|corrupt|delay|mix] [--loss P]\n"
            "          [--pairs 1..%d] [--depth 1..%d] [--max-len BYTES] [--ack-timeout 0..31] [--retry-cnt 0..7]\n"
            "          [--rnr-retry 0..7] [--timeout-us US] [--flow both|one-way] [--max-hangs N (0: no limit)]\n"
            "          [--hang-seconds S (0: no watchdog)] [--trace]\n"
            "          [--inject-wrong N] [--inject-stray N] [--inject-error N]\n"
            "  --loss P: probability per frame, 0..1 (mix: P split evenly over drop, dup, reorder, corrupt)\n"
            "  --inject-wrong N, --inject-stray N (N >= 1): the campaign's own test: the first success from\n"
            "    transfer N on gets a byte of its destination range (wrong) or the byte next to it (stray)\n"
            "    changed before the check; the run must report it as wrong data\n"
            "  --inject-error N: the first RDMA WRITE or READ from transfer N on names a key the peer never\n"
            "    issued: an error completion, reported; the pair is torn down and connected again\n",
            argv0, FC_PAIRS_MAX, FC_DEPTH_MAX);
    exit(status);
}

static uint64_t num(const char *s, uint64_t lo, uint64_t hi, const char *argv0)
{
    char *end;
    const unsigned long long v = strtoull(s, &end, 0);
    if (!*s || *end || v < lo || v > hi)
        usage(argv0, 2);
    return (uint64_t)v;
}

static void parse(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            usage(argv[0], 0);
        if (!strcmp(a, "--trace")) {
            fc_opt.trace = true;
            continue;
        }
        if (!v)
            usage(argv[0], 2);
        i++;
        if (!strcmp(a, "--seed"))
            fc_opt.seed = num(v, 0, UINT64_MAX, argv[0]);
        else if (!strcmp(a, "--transfers"))
            fc_opt.transfers = num(v, 0, (1ull << 50), argv[0]);
        else if (!strcmp(a, "--pairs"))
            fc_opt.pairs = (int)num(v, 1, FC_PAIRS_MAX, argv[0]);
        else if (!strcmp(a, "--depth"))
            fc_opt.depth = (int)num(v, 1, FC_DEPTH_MAX, argv[0]);
        else if (!strcmp(a, "--max-len"))
            fc_opt.max_len = (uint32_t)num(v, 0, FC_MAX_LEN, argv[0]);
        else if (!strcmp(a, "--ack-timeout"))
            fc_opt.ack_timeout = (unsigned)num(v, 0, 31, argv[0]);
        else if (!strcmp(a, "--retry-cnt"))
            fc_opt.retry_cnt = (unsigned)num(v, 0, 7, argv[0]);
        else if (!strcmp(a, "--rnr-retry"))
            fc_opt.rnr_retry = (unsigned)num(v, 0, 7, argv[0]);
        else if (!strcmp(a, "--timeout-us"))
            fc_opt.timeout_us = num(v, 1, UINT64_MAX / 1000, argv[0]);
        else if (!strcmp(a, "--inject-wrong"))
            fc_opt.inject_wrong = num(v, 0, UINT64_MAX, argv[0]);
        else if (!strcmp(a, "--inject-error"))
            fc_opt.inject_error = num(v, 0, UINT64_MAX, argv[0]);
        else if (!strcmp(a, "--inject-stray"))
            fc_opt.inject_stray = num(v, 0, UINT64_MAX, argv[0]);
        else if (!strcmp(a, "--max-hangs"))
            fc_opt.max_hangs = num(v, 0, UINT64_MAX, argv[0]);
        else if (!strcmp(a, "--flow")) {
            if (strcmp(v, "both") && strcmp(v, "one-way"))
                usage(argv[0], 2);
            fc_opt.one_way = !strcmp(v, "one-way");
        } else if (!strcmp(a, "--hang-seconds"))
            fc_opt.hang_seconds = (unsigned)num(v, 0, 1u << 30, argv[0]);
        else if (!strcmp(a, "--loss")) {
            char *end;
            fc_opt.loss = strtod(v, &end);
            if (!*v || *end || !(fc_opt.loss >= 0.0 && fc_opt.loss <= 1.0))
                usage(argv[0], 2);
        } else if (!strcmp(a, "--faults")) {
            int k = 0;
            while (k < FK_COUNT && strcmp(v, fc_fault_name[k]))
                k++;
            if (k == FK_COUNT)
                usage(argv[0], 2);
            fc_opt.faults = (enum fc_fault_kind)k;
        } else
            usage(argv[0], 2);
    }
    if (fc_opt.faults == FK_NONE)
        fc_opt.loss = 0.0;
    else if (fc_opt.loss == 0.0)
        fc_opt.faults = FK_NONE;
    if (!fc_opt.timeout_us) {
        /* Generous: 100 ms of NIC time (a 1 MiB transfer takes ~0.6 ms,
         * and at most pairs x depth of them share the link), plus twice
         * every retry the QP may make: (retry_cnt + 1) ACK timeouts of
         * 4.096 us x 2^t. */
        const uint64_t ack_ns = 4096ull << fc_opt.ack_timeout;
        fc_opt.timeout_us = 100000 + 2 * (fc_opt.retry_cnt + 1ull) * ack_ns / 1000;
    }
}

/* The QP settings libdat is to read at dat_ia_open (the reliable transport:
 * ACK timeout, retries), and the platform's mode: lockstep, so that a run
 * is its seed's, unless the user asks for another. */
static void set_environment(void)
{
    char v[32];
    snprintf(v, sizeof(v), "%u", fc_opt.ack_timeout);
    setenv("RNIC_ACK_TIMEOUT", v, 1);
    snprintf(v, sizeof(v), "%u", fc_opt.retry_cnt);
    setenv("RNIC_RETRY_CNT", v, 1);
    snprintf(v, sizeof(v), "%u", fc_opt.rnr_retry);
    setenv("RNIC_RNR_RETRY", v, 1);
    setenv("RNIC_SIM_MODE", "lockstep", 0);
}

static void set_link_faults(void)
{
    struct rnic_sim_link_faults f;
    memset(&f, 0, sizeof(f));
    const double p = fc_opt.loss;
    switch (fc_opt.faults) {
    case FK_DROP: f.drop = p; break;
    case FK_DUP: f.dup = p; break;
    case FK_REORDER: f.reorder = p; break;
    case FK_CORRUPT: f.corrupt = p; break;
    case FK_DELAY: f.delay = p; break;
    case FK_MIX: f.drop = f.dup = f.reorder = f.corrupt = p / 4; break;
    default: break;
    }
    f.seed = fc_mix64(fc_opt.seed ^ 0x11F4u);
    for (int i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof(name), "rnic%d", i);
        const long nic = rnic_sim_name_index(name);
        /* No faults is a configuration of zeros, not none: the frames are
         * still counted. */
        const int rc = nic < 0 ? -1 : rnic_sim_set_link_faults((unsigned)nic, &f);
        if (rc != 0) {
            fprintf(stderr, "fault_campaign: rnic_sim_set_link_faults(%s) -> %d\n", name, rc);
            exit(2);
        }
    }
}

/* ------------------------------------------------------------ events */

static void fatal_event(const char *what, int pair)
{
    fflush(stdout);
    fprintf(stderr, "fault_campaign: %s (pair %d): the campaign cannot go on\n", what, pair);
    fc_st.t_end_cycle = rnic_sim_cycle();
    fc_report_figures();
    printf("fault_campaign: FAIL (%s)\n", what);
    fflush(stdout);
    _Exit(2);
}

static void connection_event(const DAT_EVENT *ev, int side)
{
    int pair, eside;
    if (!fc_ep_owner(ev->event_data.connect_event_data.ep_handle, &pair, &eside) || eside != side) {
        fc_st.late_events++;   /* an EP freed since */
        return;
    }
    struct fc_pair *p = &fc_pair[pair];
    switch (ev->event_number) {
    case DAT_CONNECTION_EVENT_ESTABLISHED:
        if (p->st != PS_CONNECTING)
            fatal_event("ESTABLISHED on a pair that was not connecting", pair);
        p->established[side] = true;
        if (p->established[0] && p->established[1]) {
            p->st = PS_UP;
            p->connections++;
            fc_st.connections++;
        }
        break;
    case DAT_CONNECTION_EVENT_BROKEN:
    case DAT_CONNECTION_EVENT_DISCONNECTED:
        if (ev->event_number == DAT_CONNECTION_EVENT_BROKEN)
            fc_st.broken_events++;
        else
            fc_st.disconnected_events++;   /* the campaign never disconnects a live pair */
        p->broken_reported = true;
        if (p->st == PS_UP || p->st == PS_CONNECTING)
            p->st = PS_DRAINING;
        break;
    case DAT_CONNECTION_EVENT_PEER_REJECTED:
        fatal_event("connection rejected by the peer", pair);
        break;
    case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:
        fatal_event("connection rejected (no such service point)", pair);
        break;
    case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR:
        fatal_event("connection accept failed", pair);
        break;
    case DAT_CONNECTION_EVENT_TIMED_OUT:
        fatal_event("connection timed out", pair);
        break;
    case DAT_CONNECTION_EVENT_UNREACHABLE:
        fatal_event("peer unreachable", pair);
        break;
    default:
        fatal_event("an unknown connection event", pair);
    }
}

static void dispatch(const DAT_EVENT *ev, int side)
{
    switch (ev->event_number) {
    case DAT_DTO_COMPLETION_EVENT:
        if (!fc_xfer_dto_event(&ev->event_data.dto_completion_event_data, side))
            fc_st.late_events++;
        break;
    case DAT_RMR_BIND_COMPLETION_EVENT:
        if (!fc_xfer_bind_event(&ev->event_data.rmr_completion_event_data, side))
            fc_st.late_events++;
        break;
    case DAT_CONNECTION_REQUEST_EVENT:
        fc_accept(&ev->event_data.cr_arrival_event_data);
        break;
    default:
        if (ev->event_number >= DAT_CONNECTION_EVENT_ESTABLISHED &&
            ev->event_number <= DAT_CONNECTION_EVENT_UNREACHABLE) {
            connection_event(ev, side);
        } else {
            fc_st.async_other++;
            printf("fault_campaign: rnic%d: event 0x%x at cycle %" PRIu64 "\n", side, (unsigned)ev->event_number,
                   rnic_sim_cycle());
        }
    }
}

/* Every event every EVD has now. */
static int poll_all(void)
{
    int n = 0;
    for (int side = 0; side < 2; side++) {
        const struct fc_side *s = &fc_side[side];
        DAT_EVD_HANDLE evds[4] = { s->dto_evd, s->conn_evd, s->cr_evd, s->async_evd };
        for (int e = 0; e < 4; e++) {
            if (evds[e] == DAT_HANDLE_NULL)
                continue;
            for (;;) {
                DAT_EVENT ev;
                doing = "dat_evd_dequeue";
                const DAT_RETURN r = dat_evd_dequeue(evds[e], &ev);
                if (DAT_GET_TYPE(r) == DAT_QUEUE_EMPTY)
                    break;
                FC_MUST(r);
                dispatch(&ev, side);
                n++;
            }
        }
    }
    return n;
}

/* Nothing in the EVDs: wait in the EVD the oldest thing expected comes to
 * (the earliest deadline), at most until that deadline, in slices that
 * double while nothing comes, up to FC_SLICE_MAX_US. An event may come to
 * another EVD meanwhile (the EVDs are on two IAs, so no CNO can gather
 * them): the slice bounds how late it is seen. A wait on an idle fabric
 * costs little host time (lockstep jumps idle time), so a hang is found in
 * a timeout's worth of short waits. */
#define FC_SLICE_MAX_US 64u
static uint64_t slice_us = 2;

static void wait_some(uint64_t now)
{
    uint64_t first = UINT64_MAX;
    DAT_EVD_HANDLE evd = fc_side[0].dto_evd;
    int evd_side = 0;
    for (int pi = 0; pi < fc_opt.pairs; pi++) {
        const struct fc_pair *p = &fc_pair[pi];
        if (p->st == PS_CONNECTING && p->connect_deadline < first) {
            first = p->connect_deadline;
            evd_side = !p->accepted || !p->established[1] ? 1 : 0;
            evd = !p->accepted ? fc_side[1].cr_evd : fc_side[evd_side].conn_evd;
        }
        for (int k = 0; k < fc_opt.depth; k++) {
            const struct fc_xfer *x = &p->x[k];
            if (!x->live || x->verdict != V_NONE || x->deadline >= first)
                continue;
            first = x->deadline;
            if (x->need_bind && !x->bind_done)
                evd_side = 1 - x->init;
            else if (x->req_posted && !x->req_done)
                evd_side = x->init;
            else
                evd_side = 1 - x->init;
            evd = fc_side[evd_side].dto_evd;
        }
    }
    uint64_t t = slice_us;
    if (first != UINT64_MAX) {
        const uint64_t left_us = first > now ? (first - now + FC_CYCLES_PER_US - 1) / FC_CYCLES_PER_US : 1;
        if (t > left_us)
            t = left_us;
    }
    DAT_EVENT ev;
    DAT_COUNT more;
    doing = "dat_evd_wait";
    const DAT_RETURN r = dat_evd_wait(evd, (DAT_TIMEOUT)t, 1, &ev, &more);
    if (r == DAT_SUCCESS) {
        dispatch(&ev, evd_side);
        slice_us = 2;
    } else if (DAT_GET_TYPE(r) == DAT_TIMEOUT_EXPIRED) {
        if (slice_us < FC_SLICE_MAX_US)
            slice_us *= 2;
    } else {
        FC_MUST(r);
    }
}

/* ------------------------------------------------------------ the campaign */

static int free_slot(const struct fc_pair *p)
{
    for (int k = 0; k < fc_opt.depth; k++)
        if (!p->x[k].live)
            return k;
    return -1;
}

static int in_flight(const struct fc_pair *p)
{
    int n = 0;
    for (int k = 0; k < fc_opt.depth; k++)
        n += p->x[k].live;
    return n;
}

static void connect_all(void)
{
    for (int i = 0; i < fc_opt.pairs; i++)
        fc_pair_connect(&fc_pair[i]);
    for (;;) {
        int up = 0;
        for (int i = 0; i < fc_opt.pairs; i++) {
            up += fc_pair[i].st == PS_UP;
            if (fc_pair[i].st == PS_CONNECTING && rnic_sim_cycle() > fc_pair[i].connect_deadline)
                fatal_event("no connection within the connect timeout", i);
            if (fc_pair[i].st == PS_DRAINING || fc_pair[i].st == PS_DOWN)
                fatal_event("the connection ended while it was being set up", i);
        }
        if (up == fc_opt.pairs)
            return;
        if (!poll_all())
            wait_some(rnic_sim_cycle());
        loop_mark++;
    }
}

static void run(void)
{
    uint64_t sched_rng = fc_opt.seed;   /* which pair, how deep: the schedule's draws */
    uint64_t next_id = 0, limit = fc_opt.transfers;
    for (;;) {
        loop_mark++;
        if (fc_opt.max_hangs && fc_st.verdicts[V_HANG] >= fc_opt.max_hangs && next_id < limit) {
            /* A NIC that stopped for good makes every later transfer a
             * hang, each one a timeout long: enough is known. */
            fc_st.stopped = true;
            printf("fault_campaign: %" PRIu64 " hangs: no more transfers issued (--max-hangs)\n",
                   fc_st.verdicts[V_HANG]);
            limit = next_id;
        }
        bool posted = false;
        /* Post: each pair that is up gets transfers up to a depth drawn
         * now, so the number in flight varies; pairs in turn from a random one. */
        const int first = (int)fc_below(&sched_rng, (uint64_t)fc_opt.pairs);
        for (int i = 0; i < fc_opt.pairs && next_id < limit; i++) {
            struct fc_pair *p = &fc_pair[(first + i) % fc_opt.pairs];
            const int target = 1 + (int)fc_below(&sched_rng, (uint64_t)fc_opt.depth);
            int k;
            doing = "posting";
            while (p->st == PS_UP && in_flight(p) < target && next_id < limit &&
                   (k = free_slot(p)) >= 0) {
                fc_xfer_start(p, k, next_id++);
                posted = true;
            }
        }
        const int n = poll_all();
        const uint64_t now = rnic_sim_cycle();
        int undecided = 0;
        for (int i = 0; i < fc_opt.pairs; i++) {
            struct fc_pair *p = &fc_pair[i];
            fc_xfer_judge(p, now);
            if (p->st == PS_DRAINING && p->live == 0) {
                /* Every transfer of the connection judged: tear it down
                 * (abruptly: what is left is flushed), check what the
                 * failed transfers left, connect a new pair. */
                doing = "dat_ep_free";
                fc_pair_free_eps(p);
                fc_st.teardowns++;
                fc_xfer_release_all(p);
                if (next_id < limit) {
                    doing = "dat_ep_connect";
                    fc_pair_connect(p);
                }
            }
            if (p->st == PS_CONNECTING && now > p->connect_deadline)
                fatal_event("no connection within the connect timeout", i);
            undecided += p->live;
        }
        if (next_id >= limit && undecided == 0)
            break;
        if (n || posted)
            slice_us = 2;
        else
            wait_some(now);
    }
}

int main(int argc, char **argv)
{
    parse(argc, argv);
    set_environment();
    printf("fault_campaign: seed %" PRIu64 ", %" PRIu64 " transfers, faults %s %.3f%% per frame, %d EP pairs, "
           "depth %d, max %u bytes; ACK timeout %u (%.1f us), retry %u, RNR retry %u; hang after %" PRIu64
           " us of NIC time; mode %s\n",
           fc_opt.seed, fc_opt.transfers, fc_fault_name[fc_opt.faults], fc_opt.loss * 100.0, fc_opt.pairs, fc_opt.depth,
           fc_opt.max_len, fc_opt.ack_timeout, 4.096 * (double)(1ull << fc_opt.ack_timeout), fc_opt.retry_cnt,
           fc_opt.rnr_retry, fc_opt.timeout_us, getenv("RNIC_SIM_MODE"));
    printf("fault_campaign: reproduce with: fault_campaign --seed %" PRIu64 " --transfers %" PRIu64
           " --faults %s --loss %g --pairs %d --depth %d --max-len %u --ack-timeout %u --retry-cnt %u --rnr-retry %u"
           " --timeout-us %" PRIu64 " --flow %s --max-hangs %" PRIu64 "\n",
           fc_opt.seed, fc_opt.transfers, fc_fault_name[fc_opt.faults], fc_opt.loss, fc_opt.pairs, fc_opt.depth,
           fc_opt.max_len, fc_opt.ack_timeout, fc_opt.retry_cnt, fc_opt.rnr_retry, fc_opt.timeout_us,
           fc_opt.one_way ? "one-way" : "both", fc_opt.max_hangs);
    fflush(stdout);
    watchdog_start();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);

    doing = "setup";
    fc_fabric_open();
    connect_all();
    set_link_faults();
    fc_st.t_start_cycle = rnic_sim_cycle();
    run();
    fc_st.t_end_cycle = rnic_sim_cycle();

    clock_gettime(CLOCK_MONOTONIC, &t1);
    fc_st.host_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fc_report_figures();   /* before the close: the fault counters are the campaign's */
    doing = "dat_ia_close";
    fc_fabric_close();
    watchdog_stop();
    return fc_report_verdict_line();
}
