/*
 * Time, as an unmodified DAT program sees it (docs/platform.md, "Time").
 * Each subtest is a CTest of its own (test_time <name>):
 *
 *   poll         a 64-byte RDMA WRITE, then `while (dequeue == QUEUE_EMPTY)`;
 *                it completes, and run twice (two fresh processes) it takes
 *                the same number of polls and the same cycles
 *   timeout      dat_evd_wait with a 5 s timeout on an idle fabric returns
 *                DAT_TIMEOUT_EXPIRED after 5 s of NIC time, jumped, not clocked
 *   report       dat_evd_wait(DAT_TIMEOUT_INFINITE) that nothing can end is
 *                said on stderr, once, naming the wait (a child process does
 *                it; this one reads its stderr, then ends it)
 *   conf_mode    dat.conf's sim_mode=freerun makes the process free-running
 *   conf_bad     sim_mode=sometimes is refused at dat_ia_open
 *
 * Linked with the static libdat, so the test reads the platform's cycle
 * counter (rnic_sim.h) beside the DAT calls.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dat_test.h"
#include "rnic_sim.h"

/* ------------------------------------------------------------------ poll */

static int poll_child(int fd)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    char out[256];
    size_t len = 0;
    for (int round = 0; round < 3; round++) {
        dt_fill(p.s[0].buf, 64, (unsigned)round);
        DAT_LMR_TRIPLET l = dt_iov(&p.s[0], 0, 64);
        DAT_RMR_TRIPLET r = dt_remote(&p.s[1], 0, 64);
        const uint64_t c0 = rnic_sim_cycle();
        if (dat_ep_post_rdma_write(p.s[0].ep, 1, &l, dt_cookie(round), &r, DAT_COMPLETION_DEFAULT_FLAG) != DAT_SUCCESS)
            return 3;
        DAT_EVENT ev;
        unsigned long polls = 0;
        /* The loop every RDMA program has: no wait, no timeout. */
        while (DAT_GET_TYPE(dat_evd_dequeue(p.s[0].req_evd, &ev)) == DAT_QUEUE_EMPTY)
            polls++;
        if (ev.event_number != DAT_DTO_COMPLETION_EVENT || ev.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS ||
            memcmp(p.s[0].buf, p.s[1].buf, 64) != 0)
            return 4;
        len += (size_t)snprintf(out + len, sizeof(out) - len, "polls=%lu cycles=%llu ", polls,
                                (unsigned long long)(rnic_sim_cycle() - c0));
    }
    dt_pair_close(&p);
    return write(fd, out, len) == (ssize_t)len ? 0 : 5;
}

static void run_self(const char *arg, char *buf, size_t cap)
{
    int fds[2];
    CHECK_EQ(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        char fd[16];
        snprintf(fd, sizeof(fd), "%d", fds[1]);
        execl("/proc/self/exe", "test_time", arg, fd, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t got;
    while (n + 1 < cap && (got = read(fds[0], buf + n, cap - 1 - n)) > 0)
        n += (size_t)got;
    buf[n] = '\0';
    close(fds[0]);
    int st = 0;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void t_poll(void)
{
    char a[256], b[256];
    run_self("poll_child", a, sizeof(a));
    run_self("poll_child", b, sizeof(b));
    printf("run 1: %s\nrun 2: %s\n", a, b);
    CHECK(strlen(a) > 20);
    CHECK(strcmp(a, b) == 0);
    /* Every poll moved the NIC: a few dozen of them, not millions. */
    unsigned long polls = strtoul(strstr(a, "polls=") ? strstr(a, "polls=") + 6 : "0", NULL, 10);
    CHECK(polls >= 5 && polls < 1000);
}

/* --------------------------------------------------------------- timeout */

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void t_timeout(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    const uint64_t c0 = rnic_sim_cycle(), s0 = rnic_sim_skipped_cycles();
    const double w0 = wall();
    DAT_EVENT ev;
    DAT_COUNT more;
    CHECK_RET(dat_evd_wait(p.s[0].req_evd, 5000000, 1, &ev, &more), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    const uint64_t cycles = rnic_sim_cycle() - c0, skipped = rnic_sim_skipped_cycles() - s0;
    printf("5 s timeout: %llu NIC cycles (%llu jumped), %.3f s of wall time\n", (unsigned long long)cycles,
           (unsigned long long)skipped, wall() - w0);
    /* 5 s at 250 MHz, no earlier; nearly all of it jumped. */
    CHECK(cycles >= 1250000000ull);
    CHECK(cycles < 1250000000ull + 100000);
    CHECK(skipped > 1249000000ull);
    dt_pair_close(&p);
}

/* ---------------------------------------------------------------- report */

static int report_child(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    DAT_EVENT ev;
    DAT_COUNT more;
    dat_evd_wait(p.s[0].req_evd, DAT_TIMEOUT_INFINITE, 1, &ev, &more);
    return 7;   /* never: the parent ends this process */
}

/* Reads what the child says on stderr until `until` (wall clock), into buf. */
static size_t read_until(int fd, char *buf, size_t len, size_t cap, double until, const char *want)
{
    while (wall() < until && !(want && strstr(buf, want))) {
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, 100) > 0) {
            const ssize_t n = read(fd, buf + len, cap - 1 - len);
            if (n <= 0)
                break;
            len += (size_t)n;
            buf[len] = '\0';
        }
    }
    return len;
}

static void t_report(void)
{
    int fds[2];
    CHECK_EQ(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        execl("/proc/self/exe", "test_time", "report_child", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    static char said[8192];
    const char *line = "only another thread or another process can end this wait";
    size_t n = read_until(fds[0], said, 0, sizeof(said), wall() + 120, line);
    /* Said once: a wait that goes on does not say it again. */
    n = read_until(fds[0], said, n, sizeof(said), wall() + 3, NULL);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(fds[0]);
    fprintf(stderr, "the child said: %s", said);
    const char *first = strstr(said, line);
    CHECK(first != NULL);
    CHECK(first && strstr(first + 1, line) == NULL);
    CHECK(strstr(said, "dat_evd_wait") != NULL);
    CHECK(strstr(said, "DAT_TIMEOUT_INFINITE") != NULL);
    CHECK(strstr(said, "rnic0") != NULL);
}

/* ------------------------------------------------------------------ conf */

static void t_conf_mode(void)
{
    char path[DT_CONF_PATH];
    dt_conf_use(path, "fr u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic0 sim_mode=freerun\" \"\"\n");
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
    char name[] = "fr";
    CHECK_OK(dat_ia_open(name, 8, &async, &ia));
    CHECK_EQ(rnic_sim_mode(), RNIC_SIM_MODE_FREERUN);
    /* Time runs by itself: with the consumer doing nothing, it passes. */
    const uint64_t c0 = rnic_sim_cycle();
    DAT_EVENT ev;
    DAT_COUNT more;
    CHECK_RET(dat_evd_wait(async, 20000, 1, &ev, &more), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    CHECK(rnic_sim_cycle() - c0 >= 20000u * 250u);
    CHECK_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
    dt_conf_drop(path);
}

static void t_conf_bad(void)
{
    char path[DT_CONF_PATH];
    dt_conf_use(path, "odd u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic0 sim_mode=sometimes\" \"\"\n");
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
    char name[] = "odd";
    CHECK_RET(dat_ia_open(name, 8, &async, &ia), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    dt_conf_drop(path);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "poll_child") == 0)
        return poll_child(atoi(argv[2]));
    if (argc == 2 && strcmp(argv[1], "report_child") == 0)
        return report_child();
    static const struct {
        const char *name;
        void (*run)(void);
    } tests[] = {{"poll", t_poll}, {"timeout", t_timeout}, {"report", t_report}, {"conf_mode", t_conf_mode},
                 {"conf_bad", t_conf_bad}};
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
        if (argc == 2 && strcmp(argv[1], tests[i].name) == 0) {
            tests[i].run();
            return dt_finish(tests[i].name);
        }
    }
    fprintf(stderr, "usage: test_time poll|timeout|report|conf_mode|conf_bad\n");
    return 2;
}
