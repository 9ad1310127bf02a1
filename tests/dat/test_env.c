/*
 * The environment through the DAT API (docs/libdat.md, "Environment"): a
 * bad value of a variable libdat reads, or of one the platform reads under
 * it, makes dat_ia_open return DAT_INVALID_PARAMETER / DAT_INVALID_ARG1
 * (the IA that name opens cannot be configured as asked), with one stderr
 * line naming the variable, the value and what it accepts (a platform
 * variable's is followed by libdat's line on the device that did not
 * open, and nothing else); a bad
 * RNIC_SIM_NICS or DAT_OVERRIDE makes dat_registry_list_providers return
 * DAT_INTERNAL_ERROR rather than a list of other IAs. Nothing crashes, and
 * no bad value is replaced by the default. Each case is a child process.
 */
#include <stdlib.h>
#include <string.h>

#include "dat_test.h"
#include "run_child.h"

static int open_child(void)
{
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
    char name[] = "rnic0";
    const DAT_RETURN r = dat_ia_open(name, 8, &async, &ia);
    printf("%u %u\n", (unsigned)DAT_GET_TYPE(r), (unsigned)DAT_GET_SUBTYPE(r));
    if (r == DAT_SUCCESS)
        dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
    return 0;
}

static int list_child(void)
{
    DAT_COUNT n = -1;
    const DAT_RETURN r = dat_registry_list_providers(0, &n, NULL);
    printf("%u %u %d\n", (unsigned)DAT_GET_TYPE(r), (unsigned)DAT_GET_SUBTYPE(r), (int)n);
    return 0;
}

struct env_case {
    const char *call;          /* "open" or "list" */
    const char *name, *value;
    DAT_UINT32 type, subtype;  /* what the call returns */
    int n;                     /* list: the count; -1 when refused */
    bool at_device_open;       /* the platform's: refused when the driver opens the NIC */
};

#define OPEN_REFUSED DAT_INVALID_PARAMETER, DAT_INVALID_ARG1, 0, false
#define LIST_REFUSED DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE, -1, false
#define DEVICE_REFUSED DAT_INVALID_PARAMETER, DAT_INVALID_ARG1, 0, true

static const struct env_case bad[] = {
    {"open", "DAT_RNIC_CM_PORT_BASE", "abc", OPEN_REFUSED},
    {"open", "DAT_RNIC_CM_PORT_BASE", "-1", OPEN_REFUSED},
    {"open", "DAT_RNIC_CM_PORT_BASE", "65536", OPEN_REFUSED},
    {"open", "RNIC_CLOCK_MHZ", "0", OPEN_REFUSED},
    {"open", "RNIC_CLOCK_MHZ", "fast", OPEN_REFUSED},
    {"open", "RNIC_CLOCK_MHZ", "99999999999999999999999", OPEN_REFUSED},
    {"open", "DAT_RNIC_LOG_ERRORS", "2", OPEN_REFUSED},
    {"open", "DAT_RNIC_LOG_ERRORS", "yes", OPEN_REFUSED},
    {"open", "RNIC_ACK_TIMEOUT", "32", OPEN_REFUSED},
    {"open", "RNIC_RETRY_CNT", "8", OPEN_REFUSED},
    {"open", "RNIC_RETRY_CNT", "-1", OPEN_REFUSED},
    {"open", "RNIC_RNR_RETRY", "8", OPEN_REFUSED},
    {"open", "RNIC_MIN_RNR_TIMER", "32", OPEN_REFUSED},
    {"open", "RNIC_SIM_NICS", "two", OPEN_REFUSED},
    {"open", "DAT_OVERRIDE", "/nonexistent/dat.conf", OPEN_REFUSED},
    /* The platform's, refused at the driver's open under dat_ia_open. */
    {"open", "RNIC_SIM_MODE", "bogus", DEVICE_REFUSED},
    {"open", "RNIC_LINK_LATENCY", "abc", DEVICE_REFUSED},
    {"open", "RNIC_SIM_LOG", "maybe", DEVICE_REFUSED},
    {"open", "RNIC_HOST_COHERENCY", "sometimes", DEVICE_REFUSED},
    {"list", "RNIC_SIM_NICS", "0", LIST_REFUSED},
    {"list", "RNIC_SIM_NICS", "17", LIST_REFUSED},
    {"list", "DAT_OVERRIDE", "/nonexistent/dat.conf", LIST_REFUSED},
};

static const struct env_case good[] = {
    {"open", "DAT_RNIC_CM_PORT_BASE", "10", DAT_SUCCESS, DAT_NO_SUBTYPE, 0, false},
    {"open", "RNIC_CLOCK_MHZ", "", DAT_SUCCESS, DAT_NO_SUBTYPE, 0, false},   /* empty is unset */
    {"open", "DAT_OVERRIDE", "/dev/null", DAT_SUCCESS, DAT_NO_SUBTYPE, 0, false},
    {"open", "RNIC_RETRY_CNT", "7", DAT_SUCCESS, DAT_NO_SUBTYPE, 0, false},
    {"open", "RNIC_ACK_TIMEOUT", "0", DAT_SUCCESS, DAT_NO_SUBTYPE, 0, false},   /* 0: no timeout */
    {"list", "RNIC_SIM_NICS", "4", DAT_SUCCESS, DAT_NO_SUBTYPE, 4, false},
};

static void run_case(const struct env_case *c, bool refused)
{
    static struct child_run r;
    char var[512];
    snprintf(var, sizeof(var), "%s=%s", c->name, c->value);
    /* The list's count is the built-in names only. */
    const char *env[] = {var, strcmp(c->name, "DAT_OVERRIDE") ? "DAT_OVERRIDE=/dev/null" : NULL, NULL};
    const char *args[] = {c->call, NULL};
    const int before = rnic_check_failures();
    CHECK_EQ(run_child(&r, env, args), 0);
    CHECK(r.exited && r.code == 0);   /* no crash, no abort */
    unsigned type = 0, sub = 0;
    int n = 0;
    const int got = sscanf(r.out, "%u %u %d", &type, &sub, &n);
    CHECK_EQ(got, strcmp(c->call, "list") == 0 ? 3 : 2);
    CHECK_EQ(type, c->type);
    CHECK_EQ(sub, c->subtype);
    CHECK_EQ(n, c->n);
    if (refused) {
        char want[512];
        snprintf(want, sizeof(want), "%s=%s ", c->name, c->value);
        CHECK_EQ(count_lines(r.err), c->at_device_open ? 2 : 1);
        CHECK(strstr(r.err, want) != NULL && strstr(r.err, "accepted: ") != NULL);
        if (c->at_device_open)
            CHECK(strstr(r.err, "\nlibdat: dat_ia_open(\"rnic0\"): device rnic0: the simulated platform refused") !=
                  NULL);
    } else {
        CHECK(r.err[0] == '\0');
    }
    if (rnic_check_failures() != before)
        fprintf(stderr, "  %s with %s=\"%s\": stdout \"%s\", stderr \"%s\"\n", c->call, c->name, c->value, r.out, r.err);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "open") == 0)
        return open_child();
    if (argc == 2 && strcmp(argv[1], "list") == 0)
        return list_child();
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        run_case(&bad[i], true);
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        run_case(&good[i], false);
    return dt_finish("test_env");
}
