/*
 * A device that cannot be opened is named on stderr with the driver's
 * reason (rnic_open_error): one line per failed dat_ia_open, "libdat:
 * dat_ia_open("NAME"): device DEVICE: REASON", beside the unchanged return
 * code; a NIC the simulated platform does not have says how many it has, a
 * board behind VFIO says which step failed and errno's text. And
 * dat_registry_list_providers lists no dat.conf line whose device cannot
 * be there (a simulated NIC past RNIC_SIM_NICS, a PCI function not in
 * sysfs, a device no backend knows), without opening anything.
 */
#define _POSIX_C_SOURCE 200809L   /* dup, dup2, fileno, setenv */
#include "dat_test.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* A PCI function no machine here has (bus 0xff, device 0x1f, function 7). */
#define NO_BDF "0000:ff:1f.7"

static unsigned lines(const char *s)
{
    unsigned n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Checks that `text` holds `want`, and says what it holds when it does not. */
static void check_has(const char *text, const char *want)
{
    const bool has = strstr(text, want) != NULL;
    CHECK(has);
    if (!has)
        fprintf(stderr, "  expected \"%s\" in \"%s\"\n", want, text);
}

/* dat_ia_open(name), its stderr left in `dt_captured`; an IA it opened is closed. */
static DAT_RETURN open_ia(const char *name)
{
    char n[64];
    snprintf(n, sizeof(n), "%s", name);
    DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
    DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
    dt_capture_start();
    DAT_RETURN r = dat_ia_open(n, 4, &evd, &ia);
    dt_capture_end();
    if (r == DAT_SUCCESS)
        dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
    return r;
}

/* The names dat_registry_list_providers gives, with its stderr checked empty. */
#define LIST_MAX 16
static DAT_COUNT list(char names[LIST_MAX][DAT_NAME_MAX_LENGTH])
{
    DAT_PROVIDER_INFO info[LIST_MAX];
    DAT_PROVIDER_INFO *ptr[LIST_MAX];
    for (int i = 0; i < LIST_MAX; i++)
        ptr[i] = &info[i];
    DAT_COUNT n = -1, all = -1;
    dt_capture_start();
    CHECK_OK(dat_registry_list_providers(LIST_MAX, &n, ptr));
    CHECK_OK(dat_registry_list_providers(0, &all, NULL));
    dt_capture_end();
    CHECK_EQ(strlen(dt_captured), 0);   /* nothing opened, nothing refused */
    CHECK_EQ(all, n);                /* the count without a list is the same */
    for (DAT_COUNT i = 0; i < n && i < LIST_MAX; i++)
        snprintf(names[i], DAT_NAME_MAX_LENGTH, "%.*s", DAT_NAME_MAX_LENGTH - 1, info[i].ia_name);
    return n;
}

/* Between dat.conf files: none at all, so that a system /etc/dat.conf
 * cannot give the built-in names other devices. */
static void conf_drop(const char *path)
{
    dt_conf_drop(path);
    setenv("DAT_OVERRIDE", "/dev/null", 1);
}

static bool listed(char names[LIST_MAX][DAT_NAME_MAX_LENGTH], DAT_COUNT n, const char *name)
{
    for (DAT_COUNT i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

int main(void)
{
    /* The fabric this test expects, whatever the caller's environment. */
    setenv("RNIC_SIM_NICS", "2", 1);
    setenv("DAT_OVERRIDE", "/dev/null", 1);
    char path[DT_CONF_PATH];
    const char *enoent = strerror(ENOENT);

    /* The precondition of the VFIO cases: the function must not exist. */
    if (access("/sys/bus/pci/devices/" NO_BDF, F_OK) == 0) {
        fprintf(stderr, "this machine has PCI function %s: the test needs one it does not have\n", NO_BDF);
        return 2;
    }

    /* A built-in name the platform does not have: the code is unchanged,
     * and one line names the IA, the device, that it does not exist and
     * how many NICs there are. */
    CHECK_RET(open_ia("rnic7"), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
    check_has(dt_captured, "libdat: dat_ia_open(\"rnic7\"): device rnic7: no such NIC: ");
    check_has(dt_captured, "has 2 NICs, rnic0 to rnic1");
    CHECK_EQ(lines(dt_captured), 1);
    CHECK(strncmp(dt_captured, "libdat: ", 8) == 0);

    /* A dat.conf name for a board that is not there: the line names the
     * IA and the device, the VFIO step that failed (the sysfs lookup of the
     * function's IOMMU group), the path it looked at and errno's text. */
    dt_conf_use(path, "board u1.2 threadsafe default libdat.so.1 rnic.1.0 \"vfio:" NO_BDF "\" \"\"\n");
    CHECK_RET(open_ia("board"), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
    conf_drop(path);
    check_has(dt_captured, "libdat: dat_ia_open(\"board\"): device vfio:" NO_BDF ": sysfs iommu_group lookup: ");
    check_has(dt_captured, "/sys/bus/pci/devices/" NO_BDF "/iommu_group");
    check_has(dt_captured, enoent);
    CHECK_EQ(lines(dt_captured), 1);

    /* The name the consumer gave, prefix and all. */
    CHECK_RET(open_ia("RO_AWARE_rnic9"), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
    check_has(dt_captured, "libdat: dat_ia_open(\"RO_AWARE_rnic9\"): device rnic9: no such NIC: ");

    /* A mode the driver's sim backend does not know is the driver's to name
     * (libdat passes sim_mode= on as it is): still a bad parameter. */
    dt_conf_use(path, "sideways u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic1 sim_mode=sideways\" \"\"\n");
    CHECK_RET(open_ia("sideways"), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    conf_drop(path);
    check_has(dt_captured, "libdat: dat_ia_open(\"sideways\"): device rnic1: ");
    check_has(dt_captured, "mode=sideways is none of auto, lockstep, freerun");
    CHECK_EQ(lines(dt_captured), 1);

    /* A device that opens says nothing. */
    CHECK_OK(open_ia("rnic1"));
    CHECK_EQ(strlen(dt_captured), 0);

    /* The list: of four lines, only the NIC the platform has, then the
     * built-in names. */
    dt_conf_use(path,
                "ghost u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic7\" \"\"\n"
                "board u1.2 threadsafe default libdat.so.1 rnic.1.0 \"vfio:" NO_BDF "\" \"\"\n"
                "eth u1.2 threadsafe default libdat.so.1 rnic.1.0 \"eth0\" \"\"\n"
                "zero u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic01\" \"\"\n"
                "real u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic1 cm_addr=127.0.0.9\" \"\"\n");
    char names[LIST_MAX][DAT_NAME_MAX_LENGTH];
    DAT_COUNT n = list(names);
    CHECK_EQ(n, 3);
    CHECK(listed(names, n, "real"));
    CHECK(listed(names, n, "rnic0"));
    CHECK(listed(names, n, "rnic1"));
    CHECK(!listed(names, n, "ghost"));
    CHECK(!listed(names, n, "board"));
    CHECK(!listed(names, n, "eth"));
    CHECK(!listed(names, n, "zero"));
    if (n > 0)
        CHECK(strcmp(names[0], "real") == 0);   /* the file's lines first, in order */

    /* The bound is RNIC_SIM_NICS, read at each call as for the built-in
     * names: with 8 NICs rnic7 is listed (nothing is opened to find out). */
    setenv("RNIC_SIM_NICS", "8", 1);
    n = list(names);
    CHECK_EQ(n, 10);   /* ghost, real, rnic0..rnic7 */
    CHECK(listed(names, n, "ghost"));
    CHECK(!listed(names, n, "board"));
    setenv("RNIC_SIM_NICS", "2", 1);
    conf_drop(path);

    /* What is listed opens. */
    CHECK_OK(open_ia("rnic0"));
    CHECK_EQ(strlen(dt_captured), 0);
    return dt_finish("test_open_errors");
}
