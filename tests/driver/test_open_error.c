/*
 * rnic_open_error(): after a failed rnic_open / rnic_open_with, the step
 * that failed and what it was given; "" after one that succeeded. Per
 * thread: another thread's open neither sets nor clears it.
 *
 * `test_open_error busy` runs the link-port case alone: it needs a process
 * whose platform is not in lockstep (only then does a NIC bind a socket),
 * and holds a port the kernel chose, so it collides with no other test.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rnic_test.h"

#define NO_BDF "0000:ff:1f.7"

static void check_has(const char *text, const char *want)
{
    const bool has = strstr(text, want) != NULL;
    CHECK(has);
    if (!has)
        fprintf(stderr, "  expected \"%s\" in \"%s\"\n", want, text);
}

/* An open that must fail with `want`; returns the reason it left. */
static const char *fails(const char *name, const char *options, int want)
{
    rnic_dev *dev = NULL;
    CHECK_EQ(rnic_open_with(name, options, &dev), want);
    CHECK(dev == NULL);
    const char *why = rnic_open_error();
    CHECK(why[0] != '\0');
    CHECK(strchr(why, '\n') == NULL);   /* one line, for a caller to put in its own */
    return why;
}

static char thread_saw_before[512], thread_saw_after[512];

static void *other_thread(void *arg)
{
    (void)arg;
    snprintf(thread_saw_before, sizeof(thread_saw_before), "%s", rnic_open_error());
    rnic_dev *dev = NULL;
    if (rnic_open("rnic9", &dev) == RNIC_OK)
        rnic_close(dev);
    snprintf(thread_saw_after, sizeof(thread_saw_after), "%s", rnic_open_error());
    return NULL;
}

static int busy(void)
{
    /* Auto mode, whatever CTest set: in lockstep no NIC binds a socket. */
    setenv("RNIC_SIM_MODE", "auto", 1);
    int holder = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    if (holder < 0 || bind(holder, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        getsockname(holder, (struct sockaddr *)&a, &len) != 0) {
        perror("holding a UDP port");
        return 2;
    }
    char opts[64];
    snprintf(opts, sizeof(opts), "link_local=127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    const char *why = fails("rnic0", opts, RNIC_E_BUSY);
    check_has(why, "link port busy");
    close(holder);
    return rnic_test_finish("test_open_error busy");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "busy") == 0)
        return busy();
    setenv("RNIC_SIM_NICS", "2", 1);

    /* Nothing opened yet: nothing to explain. */
    CHECK_EQ(strlen(rnic_open_error()), 0);

    /* A NIC the platform does not have: it says how many it has. */
    const char *why = fails("rnic7", NULL, RNIC_E_NODEV);
    check_has(why, "no such NIC");
    check_has(why, "has 2 NICs, rnic0 to rnic1");

    /* A name the platform cannot parse. */
    why = fails("rnic01", NULL, RNIC_E_NODEV);
    check_has(why, "no NIC named rnic01");

    /* The sim backend's options. */
    why = fails("rnic0", "colour=red", RNIC_E_INVAL);
    check_has(why, "colour=red is no key");
    why = fails("rnic0", "mode=sideways", RNIC_E_INVAL);
    check_has(why, "mode=sideways is none of auto, lockstep, freerun");
    why = fails("rnic0", "link_peer=01234567890123456789012345678901234567890123456789012345678901234567890123456789"
                         "0123456789012345678901234567890123456789012345678901234567890123456789",
                RNIC_E_INVAL);
    check_has(why, "link_peer= has a value longer than 127 bytes");

    /* VFIO: the first step, by name, with the path and errno's text. */
    if (access("/sys/bus/pci/devices/" NO_BDF, F_OK) == 0) {
        fprintf(stderr, "this machine has PCI function %s: the test needs one it does not have\n", NO_BDF);
        return 2;
    }
    why = fails("vfio:" NO_BDF, NULL, RNIC_E_NODEV);
    check_has(why, "sysfs iommu_group lookup: readlink /sys/bus/pci/devices/" NO_BDF "/iommu_group: ");
    check_has(why, strerror(ENOENT));
    why = fails("vfio:" NO_BDF, "mode=lockstep", RNIC_E_INVAL);
    check_has(why, "the vfio backend takes no options");

    /* Arguments. */
    rnic_dev *dev = NULL;
    CHECK_EQ(rnic_open(NULL, &dev), RNIC_E_INVAL);
    check_has(rnic_open_error(), "the device name is NULL");

    /* Per thread: another thread starts with nothing and its failure is
     * its own. */
    why = fails("rnic7", NULL, RNIC_E_NODEV);
    char mine[512];
    snprintf(mine, sizeof(mine), "%s", why);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, other_thread, NULL), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_EQ(strlen(thread_saw_before), 0);
    check_has(thread_saw_after, "no such NIC");
    CHECK(strcmp(rnic_open_error(), mine) == 0);

    /* An open that succeeds clears it; a reset of an open device does not
     * set it. */
    dev = NULL;
    CHECK_EQ(rnic_open("rnic0", &dev), RNIC_OK);
    CHECK_EQ(strlen(rnic_open_error()), 0);
    if (dev) {
        CHECK_EQ(rnic_reset(dev), RNIC_OK);
        CHECK_EQ(strlen(rnic_open_error()), 0);
        rnic_close(dev);
    }
    return rnic_test_finish("test_open_error");
}
