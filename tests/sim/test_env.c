/* The platform's environment variables (docs/platform.md, "Options"): each
 * bad value makes rnic_open fail with RNIC_E_INVAL, and the process says so
 * in one stderr line that names the variable, the value and what it
 * accepts; it neither crashes nor runs with the default instead. Good
 * values, and empty ones (as if unset), still open. Each case is a child
 * process: the platform reads its environment once, at the first open.
 * The tests run in lockstep (CTest sets RNIC_SIM_MODE), so no case binds a
 * link socket. */
#include <stdlib.h>
#include <string.h>

#include "rnic_test.h"
#include "run_child.h"

/* Child: opens rnic0 and prints the driver's code. */
static int open_child(void) {
    rnic_dev *d = NULL;
    const int rc = rnic_open("rnic0", &d);
    printf("rc=%d\n", rc);
    if (rc == RNIC_OK)
        rnic_close(d);
    return 0;
}

struct env_case {
    const char *name, *value;
    const char *also;   /* another NAME=VALUE the case needs, or NULL */
};

static const struct env_case bad[] = {
    {"RNIC_LINK_LATENCY", "abc", NULL},
    {"RNIC_LINK_LATENCY", "-5", NULL},
    {"RNIC_LINK_LATENCY", "0", NULL},
    {"RNIC_LINK_LATENCY", "18446744073709551616", NULL},   /* 2^64 */
    {"RNIC_LINK_LATENCY", "5000000000", NULL},
    {"RNIC_LINK_LATENCY", "37 ", NULL},
    {"RNIC_SIM_MODE", "bogus", NULL},
    {"RNIC_SIM_MODE", "Lockstep", NULL},
    {"RNIC_SIM_LOG", "maybe", NULL},
    {"RNIC_SIM_LOG", "2", NULL},
    {"RNIC_SIM_SKIP", "yes", NULL},
    {"RNIC_SIM_NICS", "0", NULL},
    {"RNIC_SIM_NICS", "17", NULL},
    {"RNIC_SIM_NICS", "4x", NULL},
    {"RNIC_HOST_COHERENCY", "sometimes", NULL},
    {"RNIC_LINK_PORT_BASE", "0", NULL},
    {"RNIC_LINK_PORT_BASE", "65536", NULL},
    {"RNIC_LINK_PORT_BASE", "+24790", NULL},
    {"RNIC_LINK_FAULTS", "drop=2", NULL},
    {"RNIC_LINK_FAULTS", "drop=0.5,dup=0.6", NULL},
    {"RNIC_LINK_FAULTS", "nic=2,drop=0.1", NULL},   /* a fabric of two NICs */
    {"RNIC_LINK_FAULTS", "drop=0.1;", NULL},
    {"RNIC_LINK_FAULTS", "frame=3", NULL},
    {"RNIC_LINK_FAULTS", "rule=explode", NULL},
    {"RNIC_LINK_FAULTS", "loss=0.1", NULL},
    /* Read only when a NIC's link leaves the process: auto mode, rnic1 not open. */
    {"RNIC0_LINK_LOCAL", "nowhere", "RNIC_SIM_MODE=auto"},
    {"RNIC0_LINK_PEER", "127.0.0.1:99999", "RNIC_SIM_MODE=auto"},
};

static const struct env_case good[] = {
    {"RNIC_LINK_LATENCY", "", NULL},   /* empty is unset */
    {"RNIC_LINK_LATENCY", "1000000000", NULL},
    {"RNIC_SIM_LOG", "0", NULL},
    {"RNIC_SIM_SKIP", "0", NULL},
    {"RNIC_SIM_NICS", "16", NULL},
    {"RNIC_HOST_COHERENCY", "noncoherent", NULL},
    {"RNIC_SIM_LOG", "", NULL},
    {"RNIC_LINK_FAULTS", "drop=0.01,dup=0.01,seed=7", NULL},
    {"RNIC_LINK_FAULTS", "nic=1,rule=corrupt,frame=3,opcode=0x0a;reorder=0.5,reorder_cycles=20", NULL},
    {"RNIC_LINK_FAULTS", "", NULL},
};

static int run_case(const struct env_case *c, struct child_run *r) {
    char var[512];
    snprintf(var, sizeof(var), "%s=%s", c->name, c->value);
    const char *env[] = {var, c->also, NULL};
    const char *args[] = {"open", NULL};
    return run_child(r, env, args);
}

static void check_bad(const struct env_case *c) {
    static struct child_run r;
    const int before = rnic_check_failures();
    CHECK_EQ(run_case(c, &r), 0);
    CHECK(r.exited && r.code == 0);   /* no crash, no abort */
    char want[512];
    snprintf(want, sizeof(want), "rc=%d\n", RNIC_E_INVAL);
    CHECK(strcmp(r.out, want) == 0);
    CHECK_EQ(count_lines(r.err), 1);
    snprintf(want, sizeof(want), "%s=%s ", c->name, c->value);
    CHECK(strstr(r.err, want) != NULL);
    CHECK(strstr(r.err, "accepted: ") != NULL);
    if (rnic_check_failures() != before)
        fprintf(stderr, "  case %s=\"%s\": stdout \"%s\", stderr \"%s\"\n", c->name, c->value, r.out, r.err);
}

static void check_good(const struct env_case *c) {
    static struct child_run r;
    const int before = rnic_check_failures();
    CHECK_EQ(run_case(c, &r), 0);
    CHECK(r.exited && r.code == 0);
    CHECK(strcmp(r.out, "rc=0\n") == 0);
    CHECK(r.err[0] == '\0');
    if (rnic_check_failures() != before)
        fprintf(stderr, "  case %s=\"%s\": stdout \"%s\", stderr \"%s\"\n", c->name, c->value, r.out, r.err);
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "open") == 0)
        return open_child();
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        check_bad(&bad[i]);
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        check_good(&good[i]);
    return rnic_test_finish("test_env");
}
