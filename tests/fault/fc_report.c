/*
 * The figures of the fault campaign: counted as it runs, printed at the
 * end, and the verdict of the whole run (exit status).
 */
#include "fc.h"

#include <inttypes.h>
#include <stdio.h>

#include "rnic_sim.h"

struct fc_stats fc_st;

static const char *const status_name[16] = {
    "SUCCESS", "FLUSHED", "LOCAL_LENGTH", "LOCAL_EP", "LOCAL_PROTECTION", "BAD_RESPONSE", "REMOTE_ACCESS",
    "REMOTE_RESPONDER", "TRANSPORT", "RECEIVER_NOT_READY", "PARTIAL_PACKET", "RMR_OPERATION_FAILED",
    "status 12", "status 13", "status 14", "status 15",
};
static const char *const verdict_name[V_COUNT] = { "-", "success", "error", "HANG", "WRONG DATA", "abandoned" };

/* Verdict lines printed at most, per kind (the figures count them all). */
#define FC_LINES_MAX 40

void fc_report_verdict(const struct fc_pair *p, const struct fc_xfer *x, const char *why)
{
    static unsigned lines[V_COUNT];
    const bool failure = x->verdict == V_HANG || x->verdict == V_WRONG;
    if (!failure && !fc_opt.trace)
        return;
    if (!fc_opt.trace && ++lines[x->verdict] > FC_LINES_MAX) {
        if (lines[x->verdict] == FC_LINES_MAX + 1)
            printf("fault_campaign: (more %s verdicts: not printed)\n", verdict_name[x->verdict]);
        return;
    }
    printf("fault_campaign: %s transfer %" PRIu64 " %s len %" PRIu64 " pair %d conn %d initiator rnic%d "
           "cycle %" PRIu64 ": bind %d req %d recv %d",
           verdict_name[x->verdict], x->id, fc_op_name[x->op], x->len, p->idx, p->connections, x->init,
           rnic_sim_cycle(), x->need_bind ? (x->bind_done ? x->bind_status : -9) : -8,
           x->need_req ? (x->req_done ? x->req_status : -9) : -8,
           x->need_recv ? (x->recv_done ? x->recv_status : -9) : -8);
    if (why)
        printf(" (%s)", why);
    printf("\n");
}

/* Counts by DAT status (16: BROKEN reported, the completion never came). */
static void by_status(const uint64_t *n, int k)
{
    bool any = false;
    for (int s = 0; s < k; s++)
        if (n[s]) {
            printf(" %s %" PRIu64, s == 16 ? "BROKEN-no-completion" : status_name[s], n[s]);
            any = true;
        }
    if (!any)
        printf(" none");
}

static void fault_line(unsigned nic)
{
    struct rnic_sim_link_fault_stats f;
    if (rnic_sim_get_link_fault_stats(nic, &f) != 0) {
        printf("  rnic%u: no fault counters\n", nic);
        return;
    }
    printf("  faults rnic%u->      frames %" PRIu64 ": dropped %" PRIu64 ", duplicated %" PRIu64 ", reordered %" PRIu64
           ", corrupted %" PRIu64 ", delayed %" PRIu64 "\n",
           nic, f.seen, f.dropped, f.duplicated, f.reordered, f.corrupted, f.delayed);
}

void fc_report_figures(void)
{
    const uint64_t cycles = fc_st.t_end_cycle > fc_st.t_start_cycle ? fc_st.t_end_cycle - fc_st.t_start_cycle : 0;
    printf("fault_campaign: figures (seed %" PRIu64 ", faults %s %.3f%%)\n", fc_opt.seed, fc_fault_name[fc_opt.faults],
           fc_opt.loss * 100.0);
    printf("  transfers           %" PRIu64 " of %" PRIu64 ":", fc_st.issued, fc_opt.transfers);
    for (int o = 0; o < OP_COUNT; o++)
        printf(" %s %" PRIu64, fc_op_name[o], fc_st.per_op[o]);
    printf("%s\n", fc_st.stopped ? " (stopped at --max-hangs)" : "");
    printf("  bytes               %" PRIu64 " posted, %" PRIu64 " delivered and checked\n", fc_st.bytes_posted,
           fc_st.bytes_delivered);
    printf("  successes           %" PRIu64 "\n", fc_st.verdicts[V_SUCCESS]);
    printf("  error completions   %" PRIu64 " transfers; by first status:", fc_st.verdicts[V_ERROR]);
    by_status(fc_st.error_first, 17);
    printf("\n  error events        DTO:");
    by_status(fc_st.dto_status, 16);
    printf("; bind:");
    by_status(fc_st.bind_status, 16);
    printf("; BROKEN %" PRIu64 ", DISCONNECTED %" PRIu64 "\n", fc_st.broken_events, fc_st.disconnected_events);
    printf("  connections         %" PRIu64 " made, %" PRIu64 " torn down after a failure\n", fc_st.connections,
           fc_st.teardowns);
    printf("  abandoned           %" PRIu64 " (bind done, connection already given up)\n",
           fc_st.verdicts[V_ABANDONED]);
    printf("  hangs               %" PRIu64, fc_st.verdicts[V_HANG]);
    for (int o = 0; o < OP_COUNT; o++)
        if (fc_st.verdict_op[V_HANG][o])
            printf(" %s %" PRIu64, fc_op_name[o], fc_st.verdict_op[V_HANG][o]);
    printf("\n  wrong data          %" PRIu64 " (success with wrong bytes), %" PRIu64
           " (bytes changed outside the range of a failed transfer)\n",
           fc_st.verdicts[V_WRONG], fc_st.wrong_outside);
    printf("  unexpected          %" PRIu64 " refused posts, %" PRIu64 " stray completions, %" PRIu64
           " async events; %" PRIu64 " late completions (ignored)\n",
           fc_st.posts_refused, fc_st.unexpected, fc_st.async_other, fc_st.late_events);
    fault_line(0);
    fault_line(1);
    printf("  simulated cycles    %" PRIu64 " (campaign), %" PRIu64 " (since the fabric was built)\n", cycles,
           rnic_sim_cycle());
    printf("  goodput             %.2f bytes/us (delivered bytes per simulated microsecond, %u cycles/us)\n",
           cycles ? (double)fc_st.bytes_delivered * FC_CYCLES_PER_US / (double)cycles : 0.0, FC_CYCLES_PER_US);
    printf("  host time           %.2f s\n", fc_st.host_seconds);
    fflush(stdout);
}

int fc_report_verdict_line(void)
{
    const uint64_t judged = fc_st.verdicts[V_SUCCESS] + fc_st.verdicts[V_ERROR] + fc_st.verdicts[V_HANG] +
                            fc_st.verdicts[V_WRONG] + fc_st.verdicts[V_ABANDONED];
    int bad = 0;
    printf("fault_campaign:");
    if (fc_st.verdicts[V_HANG]) {
        printf(" %" PRIu64 " hang(s);", fc_st.verdicts[V_HANG]);
        bad = 1;
    }
    if (fc_st.verdicts[V_WRONG] || fc_st.wrong_outside) {
        printf(" %" PRIu64 " wrong data;", fc_st.verdicts[V_WRONG] + fc_st.wrong_outside);
        bad = 1;
    }
    if (fc_st.posts_refused || fc_st.unexpected || fc_st.async_other) {
        printf(" %" PRIu64 " unexpected return(s) or event(s);", fc_st.posts_refused + fc_st.unexpected + fc_st.async_other);
        bad = 1;
    }
    if (judged != fc_opt.transfers || fc_st.issued != fc_opt.transfers) {
        printf(" %" PRIu64 " of %" PRIu64 " transfers judged;", judged, fc_opt.transfers);
        bad = 1;
    }
    printf(bad ? " FAIL\n" : " PASS\n");
    fflush(stdout);
    return bad;
}
