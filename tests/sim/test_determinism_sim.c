/* Lockstep determinism of the platform: the same sequence of calls gives
 * the same cycles and the same frames, bit for bit. The test executes
 * itself twice as a fresh process ("child" mode, each with its own fabric,
 * address-space randomisation off and its buffers at one fixed address, so
 * both runs make exactly the same calls); each child runs a mixed workload
 * and reports the cycle count of every operation, a hash of every frame
 * (sender, cycle, bytes) and of every trace-port event, and the parent
 * compares the two reports.
 *
 * `test_determinism_sim skip`: the first child clocks every cycle
 * (RNIC_SIM_SKIP=0), the second jumps idle time: skipping must change
 * nothing but the wall time. The workload has idle stretches (a long
 * advance, waits on a quiet interrupt line, gaps between operations) so
 * there is something to skip. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rnic_sim.h"
#include "rnic_test.h"

/* Above AddressSanitizer's shadow, clear of its allocator (0x6000_0000_0000),
 * of the heap and of the libraries. */
#define FIXED_BASE ((void *)0x4a0000000000ull)
#define BUF_BYTES (1u << 18)

static uint64_t frame_hash = 1469598103934665603ull, event_hash = 1469598103934665603ull;
static uint64_t frames_seen, events_seen;

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static int link_hook(unsigned from, uint8_t *frame, size_t len, void *arg) {
    (void)arg;
    uint64_t c = rnic_sim_cycle();
    frame_hash = fnv(frame_hash, &from, sizeof(from));
    frame_hash = fnv(frame_hash, &c, sizeof(c));
    frame_hash = fnv(frame_hash, frame, len);
    frames_seen++;
    return 0;
}

static void event_hook(const struct rnic_sim_event *ev, void *arg) {
    (void)arg;
    uint64_t f[5] = {ev->cycle, ev->nic, ev->event, ev->qpn, ev->arg};
    event_hash = fnv(event_hash, f, sizeof(f));
    events_seen++;
}

static char report[4096];
static size_t report_len;
#define SAY(...) (report_len += (size_t)snprintf(report + report_len, sizeof(report) - report_len, __VA_ARGS__))

static void one_op(struct pair *P, uint8_t op, uint8_t *a, uint8_t *b, uint32_t len, uint32_t lkey, uint32_t rkey) {
    struct rnic_sge s = {(uint64_t)(uintptr_t)a, len, lkey};
    struct rnic_send_wr w = {.wr_id = len, .opcode = op, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1, .sg = &s,
                             .remote_addr = (uint64_t)(uintptr_t)b, .rkey = rkey};
    struct rnic_wc wc = {0};
    uint64_t t0 = rnic_sim_cycle();
    int rc = post_and_wait(P, 0, &w, &wc);
    SAY("%u/%u:%d:%u:%llu ", op, len, rc, wc.status, (unsigned long long)(rnic_sim_cycle() - t0));
}

static int child(int fd) {
    uint8_t *mem = mmap(FIXED_BASE, 2 * BUF_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                        -1, 0);
    if (mem != FIXED_BASE)
        return 3;
    uint8_t *a = mem, *b = mem + BUF_BYTES;
    fill_pattern(a, BUF_BYTES, 11);
    struct pair P;
    pair_open(&P);
    rnic_sim_set_link_hook(link_hook, NULL);
    rnic_sim_set_event_hook(event_hook, NULL);
    rnic_mr *ma, *mb;
    if (rnic_mr_reg(P.dev[0], a, BUF_BYTES, P.pz[0], ALL_ACCESS, &ma) || rnic_mr_reg(P.dev[1], b, BUF_BYTES, P.pz[1], ALL_ACCESS, &mb))
        return 4;
    const uint32_t ka = rnic_mr_key(ma), kb = rnic_mr_key(mb);

    const uint32_t sizes[] = {1, 4097, 65536};
    for (int i = 0; i < 3; i++)
        one_op(&P, RNIC_OP_RDMA_WRITE, a, b, sizes[i], ka, kb);
    for (int i = 0; i < 3; i++)
        one_op(&P, RNIC_OP_RDMA_READ, a, b, sizes[i], ka, kb);

    /* A SEND into a posted receive. */
    struct rnic_sge r = {(uint64_t)(uintptr_t)b, 3000, kb};
    struct rnic_wc wc = {0};
    int rc = rnic_post_recv(P.qp[1], 77, &r, 1);
    one_op(&P, RNIC_OP_SEND, a, NULL, 3000, ka, 0);
    rc |= rnic_cq_wait(P.cq[1], &wc, BUDGET) != 1;
    SAY("recv:%d:%u:%u ", rc, wc.status, wc.byte_len);

    /* A refused rkey: the error path is deterministic too. */
    one_op(&P, RNIC_OP_RDMA_WRITE, a, b, 100, ka, kb ^ 0x10);

    /* Idle stretches: a long advance, a wait on a line that stays quiet, a
     * doorbell after them, each with an operation behind it. */
    pair_reconnect(&P);
    uint64_t t0 = rnic_sim_cycle();
    rnic_sim_advance(3000000);
    SAY("adv:%llu ", (unsigned long long)(rnic_sim_cycle() - t0));
    /* Whatever the refused WRITE left in the CQs (flushes) is taken, so
     * rnic1's interrupt line stays quiet from here. */
    struct rnic_wc junk;
    int left = 0;
    for (int s = 0; s < 2; s++)
        while (rnic_cq_take(P.cq[s], &junk, 1) == 1)
            left++;
    SAY("left:%d ", left);
    t0 = rnic_sim_cycle();
    const uint64_t waited = rnic_wait(P.dev[1], 1500000);
    SAY("quiet:%llu:%llu ", (unsigned long long)waited, (unsigned long long)(rnic_sim_cycle() - t0));
    one_op(&P, RNIC_OP_RDMA_WRITE, a, b, 2048, ka, kb);
    rnic_sim_advance(777);
    one_op(&P, RNIC_OP_RDMA_READ, a, b, 512, ka, kb);
    /* An empty poll costs the CPU's look at memory. */
    t0 = rnic_sim_cycle();
    struct rnic_wc none;
    const int polled = rnic_cq_poll(P.cq[0], &none, 1);
    SAY("poll:%d:%llu ", polled, (unsigned long long)(rnic_sim_cycle() - t0));

    SAY("end=%llu frames=%llu/%llu hooked=%llu hash=%016llx events=%llu ehash=%016llx",
        (unsigned long long)rnic_sim_cycle(), (unsigned long long)rnic_sim_link_frames(0),
        (unsigned long long)rnic_sim_link_frames(1), (unsigned long long)frames_seen, (unsigned long long)frame_hash,
        (unsigned long long)events_seen, (unsigned long long)event_hash);
    if (write(fd, report, report_len) != (ssize_t)report_len)
        return 5;
    /* Not compared: how much was jumped. */
    char tail[64];
    const int n = snprintf(tail, sizeof(tail), "\nskipped=%llu", (unsigned long long)rnic_sim_skipped_cycles());
    if (write(fd, tail, (size_t)n) != n)
        return 5;
    return 0;
}

/* Runs this program again as "child <fd>" (with RNIC_SIM_SKIP=skip when
 * skip is not NULL) and collects its report; *skipped gets the cycles it
 * jumped. */
static void run_child(char *buf, size_t cap, const char *skip, unsigned long long *skipped) {
    int fds[2];
    CHECK_EQ(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        personality(ADDR_NO_RANDOMIZE);   /* may be refused: the fixed buffers still match */
        if (skip)
            setenv("RNIC_SIM_SKIP", skip, 1);
        char fd[16];
        snprintf(fd, sizeof(fd), "%d", fds[1]);
        execl("/proc/self/exe", "test_determinism_sim", "child", fd, (char *)NULL);
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
    CHECK(WIFEXITED(st));
    CHECK_EQ(WEXITSTATUS(st), 0);
    char *t = strstr(buf, "\nskipped=");
    CHECK(t != NULL);
    if (t) {
        *skipped = strtoull(t + 9, NULL, 10);
        *t = '\0';
    }
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "child") == 0)
        return child(atoi(argv[2]));
    const bool skip = argc == 2 && strcmp(argv[1], "skip") == 0;
    static char r1[4096], r2[4096];
    unsigned long long s1 = 0, s2 = 0;
    run_child(r1, sizeof(r1), skip ? "0" : NULL, &s1);
    run_child(r2, sizeof(r2), skip ? "1" : NULL, &s2);
    printf("run 1: %s (skipped %llu)\nrun 2: %s (skipped %llu)\n", r1, s1, r2, s2);
    if (skip) {
        /* The first clocked every cycle; the second jumped most of the idle stretches. */
        CHECK_EQ(s1, 0);
        CHECK(s2 > 4000000);
    }
    CHECK(strstr(r1, "adv:3000000 ") != NULL && strstr(r1, " quiet:1500000:1500000 ") != NULL);
    CHECK(strstr(r1, " poll:0:16 ") != NULL);   /* RNIC_POLL_CYCLES */
    /* The workload itself worked: the first WRITE succeeded, frames and events were seen. */
    CHECK(strncmp(r1, "2/1:1:0:", 8) == 0);
    CHECK(strstr(r1, "recv:0:0:3000 ") != NULL);
    CHECK(strstr(r1, " hooked=0 ") == NULL && strstr(r1, " events=0 ") == NULL);
    CHECK(strlen(r1) > 100);
    CHECK(strcmp(r1, r2) == 0);
    return rnic_test_finish("test_determinism_sim");
}
