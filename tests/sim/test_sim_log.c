/* RNIC_SIM_LOG (docs/platform.md): with 1, every trace-port event is a line
 * on stderr with its name and its arg's fields by name (rnic_names.h, from
 * rnic.toml): a WRITE's rkey check says verdict=OK and its CQE
 * status=SUCCESS; a WRITE with a wrong key says verdict=KEY, the NAK its
 * syndrome, the CQE and both QP errors REMOTE_ACCESS. With 0, or unset,
 * nothing is printed. The transfers run in a child process, whose stderr
 * this one reads; the child prints the numbers the lines must show. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_test.h"
#include "run_child.h"

static int transfers_child(void) {
    struct pair P;
    pair_open(&P);
    uint8_t *a = aligned_alloc(4096, 4096), *b = aligned_alloc(4096, 4096);
    fill_pattern(a, 4096, 3);
    rnic_mr *ma, *mb;
    if (rnic_mr_reg(P.dev[0], a, 4096, P.pz[0], ALL_ACCESS, &ma) || rnic_mr_reg(P.dev[1], b, 4096, P.pz[1], ALL_ACCESS, &mb))
        return 2;
    struct rnic_sge s = {(uint64_t)(uintptr_t)a, 256, rnic_mr_key(ma)};
    struct rnic_send_wr w = {.wr_id = 1, .opcode = RNIC_OP_RDMA_WRITE, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1,
                             .sg = &s, .remote_addr = (uint64_t)(uintptr_t)b, .rkey = rnic_mr_key(mb)};
    struct rnic_wc wc;
    if (post_and_wait(&P, 0, &w, &wc) != 1 || wc.status != RNIC_CQE_STATUS_SUCCESS)
        return 3;
    const uint32_t good = w.rkey;
    w.rkey ^= 0x10;   /* the right index, the wrong key */
    if (post_and_wait(&P, 0, &w, &wc) != 1 || wc.status != RNIC_CQE_STATUS_REMOTE_ACCESS)
        return 4;
    /* Its stdout is the test's: the numbers the log must show. */
    printf("%u %u %" PRIu32 " %" PRIu32 "\n", rnic_qp_num(P.qp[0]), rnic_qp_num(P.qp[1]), good, w.rkey);
    /* Nothing left for a leak checker to report on the stderr under test. */
    rnic_mr_dereg(ma);
    rnic_mr_dereg(mb);
    free(a);
    free(b);
    return 0;
}

static void run(const char *log, struct child_run *r) {
    const char *env[] = {log, NULL};
    const char *args[] = {"transfers", NULL};
    CHECK_EQ(run_child(r, env, args), 0);
    CHECK(r->exited && r->code == 0);
}

/* A line of `text` that contains `what`. */
static int has_line(const char *text, const char *what) {
    const int found = strstr(text, what) != NULL;
    if (!found)
        fprintf(stderr, "  no line has \"%s\"\n", what);
    return found;
}

static void check_log(const struct child_run *r) {
    unsigned q0, q1;
    uint32_t good, bad;
    CHECK_EQ(sscanf(r->out, "%u %u %" SCNu32 " %" SCNu32, &q0, &q1, &good, &bad), 4);
    char want[128];
    snprintf(want, sizeof(want), " rnic1 RKEY_CHECK qp %u rkey=0x%08" PRIx32 " verdict=OK\n", q1, good);
    CHECK(has_line(r->err, want));
    snprintf(want, sizeof(want), " rnic0 CQE_WRITTEN qp %u status=SUCCESS wqe_idx=0\n", q0);
    CHECK(has_line(r->err, want));
    snprintf(want, sizeof(want), " rnic1 RKEY_CHECK qp %u rkey=0x%08" PRIx32 " verdict=KEY\n", q1, bad);
    CHECK(has_line(r->err, want));
    snprintf(want, sizeof(want), " rnic1 NAK_SENT qp %u syndrome=NAK_REMOTE_ACCESS\n", q1);
    CHECK(has_line(r->err, want));
    snprintf(want, sizeof(want), " rnic0 CQE_WRITTEN qp %u status=REMOTE_ACCESS wqe_idx=1\n", q0);
    CHECK(has_line(r->err, want));
    snprintf(want, sizeof(want), " rnic0 QP_ERROR qp %u status=REMOTE_ACCESS\n", q0);
    CHECK(has_line(r->err, want));
    snprintf(want, sizeof(want), " rnic0 WQE_FETCHED qp %u wqe_idx=0\n", q0);
    CHECK(has_line(r->err, want));
    snprintf(want, sizeof(want), " rnic0 DOORBELL qp %u kind=SQ index=1\n", q0);
    CHECK(has_line(r->err, want));
    /* Every line is an event, and every bit of every arg has a name. */
    size_t events = 0;
    for (const char *p = r->err; (p = strstr(p, "cycle ")) != NULL; p++)
        events++;
    CHECK(events >= 10);
    CHECK_EQ(events, count_lines(r->err));
    CHECK(strstr(r->err, "rest=") == NULL && strstr(r->err, "?") == NULL && strstr(r->err, "arg=") == NULL);
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "transfers") == 0)
        return transfers_child();
    static struct child_run r;
    run("RNIC_SIM_LOG=1", &r);
    check_log(&r);
    if (rnic_check_failures())
        fprintf(stderr, "RNIC_SIM_LOG=1 stderr:\n%s", r.err);
    run("RNIC_SIM_LOG=0", &r);
    CHECK(r.err[0] == '\0');
    run("RNIC_SIM_LOG", &r);   /* unset */
    CHECK(r.err[0] == '\0');
    return rnic_test_finish("test_sim_log");
}
