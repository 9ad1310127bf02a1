/* Link faults on a link that leaves the process: rnic0 is opened alone, so
 * its frames go out as UDP datagrams, and this program plays the peer's
 * socket. Each case sets a rule on rnic0's frame 0, posts a SEND, then a
 * marker SEND the rule does not touch, and reads the datagrams up to the
 * marker (PSNs tell the frames apart). Each case has a QP of its own: no
 * SEND is ever acknowledged, and a QP keeps at most 8 WQEs in flight.
 *   dup      the SEND twice, identical, then the marker;
 *   drop     the marker alone;
 *   corrupt  the SEND with a wrong ICRC (recomputed here with zlib), then
 *            the marker with a right one;
 *   delay    the SEND, then the marker: order kept;
 *   reorder  the marker, then the SEND.
 * The fault counters and the socket's sent count agree with what arrived.
 * The NIC runs in the default mode (free-running once a frame has left);
 * every wait is bounded in simulated cycles. RNIC_LINK_PORT_BASE names the
 * ports (CTest gives each test its own). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include "rnic_sim.h"
#include "rnic_test.h"

/* Cycles a case waits for a datagram: far more than a SEND takes to leave. */
#define LIMIT 50000000u

static rnic_dev *dev;
static uint16_t pz;
static rnic_cq *cq;
static rnic_qp *qp;
static rnic_mr *mr;
static uint8_t payload[64];
static int peer = -1;
static uint16_t nic_port;   /* rnic0's link socket */
static uint32_t next_psn = 1;

static int udp_bound(uint16_t port) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        perror("bind");
        exit(2);
    }
    return fd;
}

struct dgram {
    uint8_t b[2048];
    ssize_t n;
};

static uint32_t psn_of(const struct dgram *d) {
    return d->n >= 54 ? (uint32_t)d->b[51] << 16 | (uint32_t)d->b[52] << 8 | d->b[53] : ~0u;
}

/* The ICRC as the receiver checks it (see tests/sim/test_link.c). */
static int icrc_ok(const struct dgram *d) {
    if (d->n < 58 || d->n > 2048)
        return 0;
    uint8_t buf[8 + 2048];
    const size_t n = (size_t)d->n - 14 - 4;
    memset(buf, 0xFF, 8);
    memcpy(buf + 8, d->b + 14, n);
    const size_t masked[] = {15, 22, 24, 25, 40, 41, 46};
    for (size_t i = 0; i < sizeof(masked) / sizeof(masked[0]); i++)
        buf[8 + masked[i] - 14] = 0xFF;
    const uint32_t crc = (uint32_t)crc32(0L, buf, (uInt)(n + 8));
    const uint8_t *t = d->b + d->n - 4;
    return crc == ((uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24);
}

/* The next datagram from rnic0's socket on the peer's, letting the NIC's
 * time pass; 0 if none came within LIMIT cycles. Anything else that lands
 * on the port (another build's test on the same ports) is not ours. */
static int read_one(struct dgram *d) {
    const uint64_t start = rnic_sim_cycle();
    struct pollfd p = {peer, POLLIN, 0};
    for (;;) {
        while (poll(&p, 1, 0) == 0) {
            if (rnic_sim_cycle() - start > LIMIT)
                return 0;
            rnic_wait(dev, 1000);
        }
        struct sockaddr_in from;
        socklen_t len = sizeof(from);
        d->n = recvfrom(peer, d->b, sizeof(d->b), MSG_DONTWAIT, (struct sockaddr *)&from, &len);
        if (d->n > 0 && ntohs(from.sin_port) == nic_port)
            return 1;
    }
}

/* Datagrams up to and including the one with PSN `marker`; their count. */
static int read_until(uint32_t marker, struct dgram *out, int max) {
    int n = 0;
    while (n < max && read_one(&out[n]))
        if (psn_of(&out[n++]) == marker)
            return n;
    return -1;
}

static uint32_t post_send(void) {
    struct rnic_sge s = {(uint64_t)(uintptr_t)payload, sizeof(payload), rnic_mr_key(mr)};
    struct rnic_send_wr w = {.wr_id = next_psn, .opcode = RNIC_OP_SEND, .num_sge = 1, .sg = &s};
    CHECK_EQ(rnic_post_send(qp, &w), RNIC_OK);
    return next_psn++;
}

/* A QP aimed at the peer, its PSNs from 1. */
static void new_qp(void) {
    if (qp)
        rnic_qp_destroy(qp);
    /* No ACK timeout: these SENDs are never acknowledged (the peer is a
     * socket), and a resend after a slow stall would change the counts. */
    static const struct rnic_qp_timers no_timeout = {0, 7, 7, 12};
    struct rnic_qp_attr a = {16, 16, cq, cq, pz, 1, 0, &no_timeout};
    CHECK_EQ(rnic_qp_create(dev, &a, &qp), RNIC_OK);
    struct rnic_qp_remote r = {.qpn = 5, .ipv4 = 0x0A000002u, .mac = {2, 0, 0, 0, 0, 2}, .sq_psn = 1, .rq_psn = 1};
    CHECK_EQ(rnic_qp_connect(qp, &r), RNIC_OK);
    next_psn = 1;
}

static void set_rule(int kind) {
    new_qp();
    struct rnic_sim_link_faults f;
    memset(&f, 0, sizeof(f));
    f.rule = kind;
    f.delay_cycles = 2000;
    /* Free-running, a slow build (ASan) can take more than the default
     * 1,000 cycles to post the marker: the held frame must wait for the
     * marker, not for a deadline the wall clock decides. */
    f.reorder_cycles = 1000000000u;
    f.seed = 5;
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
}

static uint64_t sent(rnic_sim_dev *sim) {
    struct rnic_sim_link_stats st;
    CHECK_EQ(rnic_sim_get_link_stats(sim, &st), 0);
    return st.sent;
}

static struct rnic_sim_link_fault_stats stats(void) {
    struct rnic_sim_link_fault_stats st;
    memset(&st, 0xFF, sizeof(st));
    CHECK_EQ(rnic_sim_get_link_fault_stats(0, &st), 0);
    return st;
}

int main(void) {
    const char *b = getenv("RNIC_LINK_PORT_BASE");
    const uint16_t base = (uint16_t)(b ? atoi(b) : 24790);
    if (rnic_open("rnic0", &dev) != RNIC_OK) {
        fprintf(stderr, "cannot open rnic0\n");
        return 2;
    }
    rnic_sim_dev *sim;
    CHECK_EQ(rnic_sim_open("rnic0", &sim), 0);
    nic_port = base;
    peer = udp_bound((uint16_t)(base + 1));

    CHECK_EQ(rnic_pz_alloc(dev, &pz), RNIC_OK);
    CHECK_EQ(rnic_cq_create(dev, 64, &cq), RNIC_OK);
    fill_pattern(payload, sizeof(payload), 9);
    CHECK_EQ(rnic_mr_reg(dev, payload, sizeof(payload), pz, ALL_ACCESS, &mr), RNIC_OK);
    if (rnic_check_failures())
        return rnic_test_finish("test_link_faults_udp");

    struct dgram d[8];
    uint32_t p, m;
    uint64_t s0;

    set_rule(RNIC_SIM_FAULT_DUP);
    s0 = sent(sim);
    p = post_send();
    m = post_send();
    CHECK_EQ(read_until(m, d, 8), 3);
    CHECK_EQ(psn_of(&d[0]), p);
    CHECK_EQ(psn_of(&d[1]), p);
    CHECK(d[0].n == d[1].n && memcmp(d[0].b, d[1].b, (size_t)d[0].n) == 0);
    CHECK(icrc_ok(&d[0]) && icrc_ok(&d[2]));
    CHECK_EQ(stats().seen, 2);
    CHECK_EQ(stats().duplicated, 1);
    CHECK_EQ(sent(sim) - s0, 3);

    set_rule(RNIC_SIM_FAULT_DROP);
    s0 = sent(sim);
    post_send();
    m = post_send();
    CHECK_EQ(read_until(m, d, 8), 1);
    CHECK_EQ(stats().dropped, 1);
    CHECK_EQ(sent(sim) - s0, 1);

    set_rule(RNIC_SIM_FAULT_CORRUPT);
    post_send();
    m = post_send();
    CHECK_EQ(read_until(m, d, 8), 2);
    CHECK(!icrc_ok(&d[0]));
    CHECK(icrc_ok(&d[1]));
    CHECK_EQ(stats().corrupted, 1);

    set_rule(RNIC_SIM_FAULT_DELAY);
    p = post_send();
    m = post_send();
    CHECK_EQ(read_until(m, d, 8), 2);
    CHECK_EQ(psn_of(&d[0]), p);
    CHECK_EQ(stats().delayed, 1);

    set_rule(RNIC_SIM_FAULT_REORDER);
    p = post_send();
    m = post_send();
    CHECK_EQ(read_until(m, d, 8), 1);
    CHECK(read_one(&d[1]));
    CHECK_EQ(psn_of(&d[1]), p);
    CHECK_EQ(stats().reordered, 1);
    CHECK_EQ(stats().held, 0);

    /* Nothing else was sent. */
    struct rnic_sim_link_stats ls;
    CHECK_EQ(rnic_sim_get_link_stats(sim, &ls), 0);
    CHECK_EQ(ls.sent, 3 + 1 + 2 + 2 + 2);
    CHECK_EQ(rnic_sim_set_link_faults(0, NULL), 0);
    close(peer);
    return rnic_test_finish("test_link_faults_udp");
}
