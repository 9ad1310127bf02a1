/* The link socket of a NIC whose peer is in another process: bad input on
 * it is dropped and counted, never a crash, and the NIC still works after
 * it. This program opens rnic0 alone (its link leaves the process) and plays
 * both the peer NIC's socket and a stranger's with plain UDP sockets:
 *   - from a stranger: a frame-sized datagram, dropped as a stranger's;
 *   - from the peer: 0 bytes, 5 bytes (runts), 20000 bytes (oversize),
 *     each dropped and counted;
 *   - from the peer: 60 bytes that are no RoCE frame: handed to the NIC,
 *     whose receive path drops it (RX_DROPS counts it);
 *   - then the NIC sends a frame (a SEND on a QP aimed at the peer) and the
 *     peer's socket receives it: a RoCEv2 frame, UDP port 4791.
 * RNIC_LINK_PORT_BASE names the ports (CTest gives each test its own). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rnic_sim.h"
#include "rnic_test.h"

static int udp_bound(uint16_t port) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        perror("bind");
        exit(2);
    }
    return fd;
}

static void send_to(int fd, uint16_t port, const void *p, size_t n) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ(sendto(fd, p, n, 0, (struct sockaddr *)&a, sizeof(a)), (long)n);
}

static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Lets the NIC's time pass until `done` holds, for at most 60 s of wall time. */
static bool until(rnic_dev *dev, rnic_sim_dev *sim, bool (*done)(rnic_sim_dev *)) {
    const double end = wall() + 60;
    while (!done(sim)) {
        if (wall() > end)
            return false;
        rnic_wait(dev, 20000);
    }
    return true;
}

static bool all_dropped(rnic_sim_dev *s) {
    struct rnic_sim_link_stats st;
    return rnic_sim_get_link_stats(s, &st) == 0 && st.strangers >= 1 && st.runts >= 2 && st.oversize >= 1 &&
           st.delivered >= 1;
}

int main(void) {
    const char *b = getenv("RNIC_LINK_PORT_BASE");
    const uint16_t base = (uint16_t)(b ? atoi(b) : 24790);
    rnic_dev *dev;
    if (rnic_open("rnic0", &dev) != RNIC_OK) {
        fprintf(stderr, "cannot open rnic0\n");
        return 2;
    }
    rnic_sim_dev *sim;
    CHECK_EQ(rnic_sim_open("rnic0", &sim), 0);
    struct rnic_sim_link_stats st;
    CHECK_EQ(rnic_sim_get_link_stats(sim, &st), 0);
    CHECK_EQ(st.remote, 1);

    const int peer = udp_bound((uint16_t)(base + 1));
    const int stranger = udp_bound(0);
    uint8_t frame[60];
    memset(frame, 0xA5, sizeof(frame));
    send_to(stranger, base, frame, sizeof(frame));
    send_to(peer, base, frame, 0);
    send_to(peer, base, frame, 5);
    static uint8_t big[20000];
    send_to(peer, base, big, sizeof(big));
    const uint32_t drops0 = rnic_reg_read(dev, RNIC_REG_RX_DROPS);
    send_to(peer, base, frame, sizeof(frame));

    CHECK(until(dev, sim, all_dropped));
    CHECK_EQ(rnic_sim_get_link_stats(sim, &st), 0);
    CHECK_EQ(st.strangers, 1);
    CHECK_EQ(st.runts, 2);
    CHECK_EQ(st.oversize, 1);
    CHECK_EQ(st.delivered, 1);
    /* The NIC saw the 60 bytes and refused them itself (bad ICRC). */
    rnic_wait(dev, 10000);
    CHECK_EQ(rnic_reg_read(dev, RNIC_REG_RX_DROPS), drops0 + 1);

    /* The NIC still sends: a SEND towards the peer's NIC leaves as a RoCEv2
     * frame on the peer's socket. */
    uint16_t pz;
    rnic_cq *cq;
    rnic_qp *qp;
    CHECK_EQ(rnic_pz_alloc(dev, &pz), RNIC_OK);
    CHECK_EQ(rnic_cq_create(dev, 16, &cq), RNIC_OK);
    struct rnic_qp_attr a = {16, 16, cq, cq, pz, 1, 0, NULL};
    CHECK_EQ(rnic_qp_create(dev, &a, &qp), RNIC_OK);
    struct rnic_qp_remote r = {.qpn = 5, .ipv4 = 0x0A000002u, .mac = {2, 0, 0, 0, 0, 2}, .sq_psn = 1, .rq_psn = 1};
    CHECK_EQ(rnic_qp_connect(qp, &r), RNIC_OK);
    static uint8_t payload[64];
    rnic_mr *mr;
    CHECK_EQ(rnic_mr_reg(dev, payload, sizeof(payload), pz, ALL_ACCESS, &mr), RNIC_OK);
    struct rnic_sge s = {(uint64_t)(uintptr_t)payload, sizeof(payload), rnic_mr_key(mr)};
    struct rnic_send_wr w = {.wr_id = 1, .opcode = RNIC_OP_SEND, .flags = RNIC_WQE_FLAG_SIGNALED, .num_sge = 1, .sg = &s};
    CHECK_EQ(rnic_post_send(qp, &w), RNIC_OK);
    struct pollfd p = {peer, POLLIN, 0};
    const double end = wall() + 60;
    while (poll(&p, 1, 0) == 0 && wall() < end)
        rnic_wait(dev, 1000);
    uint8_t got[2048];
    const ssize_t n = recv(peer, got, sizeof(got), MSG_DONTWAIT);
    CHECK(n >= 58 + 64);
    if (n >= 42) {
        CHECK_EQ(got[12] << 8 | got[13], 0x0800);      /* IPv4 */
        CHECK_EQ(got[23], 17);                          /* UDP */
        CHECK_EQ(got[36] << 8 | got[37], 4791);         /* RoCEv2 */
    }
    CHECK_EQ(rnic_sim_get_link_stats(sim, &st), 0);
    CHECK(st.sent >= 1);
    close(peer);
    close(stranger);
    return rnic_test_finish("test_link_socket");
}
