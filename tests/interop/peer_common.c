#define _GNU_SOURCE
#include "peer_common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

double peer_wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int peer_fail(const char *prog, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: FAILED: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

bool peer_parse_mac(const char *s, uint8_t mac[6]) {
    unsigned b[6];
    char tail;
    if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6) return false;
    for (int i = 0; i < 6; i++) mac[i] = (uint8_t)b[i];
    return true;
}

bool peer_parse_uint(const char *s, unsigned long max, unsigned *out) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 0);
    if (errno != 0 || end == s || *end != '\0' || v > max) return false;
    *out = (unsigned)v;
    return true;
}

int peer_tcp_connect(const char *host, unsigned port) {
    char service[8];
    snprintf(service, sizeof(service), "%u", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, service, &hints, &res) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *t = res; t && fd < 0; t = t->ai_next) {
        fd = socket(t->ai_family, t->ai_socktype | SOCK_CLOEXEC, t->ai_protocol);
        if (fd >= 0 && connect(fd, t->ai_addr, t->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}

int peer_tcp_listen(unsigned port) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 1) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int peer_tcp_accept(int lfd, double deadline) {
    struct pollfd pfd = {.fd = lfd, .events = POLLIN};
    int left_ms = (int)((deadline - peer_wall_now()) * 1000);
    if (left_ms <= 0 || poll(&pfd, 1, left_ms) != 1) return -1;
    return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
}

bool peer_read_all(int fd, void *p, size_t n) {
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        got += (size_t)r;
    }
    return true;
}

bool peer_write_all(int fd, const void *p, size_t n) {
    for (size_t put = 0; put < n;) {
        ssize_t r = write(fd, (const char *)p + put, n - put);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        put += (size_t)r;
    }
    return true;
}

int peer_tcp_hello(const char *host, unsigned port, const void *hello, size_t n, void *reply, size_t m,
                   double deadline) {
    for (;;) {
        int fd = peer_tcp_connect(host, port);
        if (fd >= 0) {
            if (peer_write_all(fd, hello, n) && peer_read_all(fd, reply, m)) return fd;
            close(fd);
        }
        if (peer_wall_now() > deadline) return -1;
        usleep(100 * 1000);
    }
}

void peer_gid_of_ipv4(uint32_t ipv4, uint8_t gid[16]) {
    memset(gid, 0, 16);
    gid[10] = gid[11] = 0xFF;
    for (int i = 0; i < 4; i++) gid[12 + i] = (uint8_t)(ipv4 >> (24 - 8 * i));
}

bool peer_gid_ipv4(const uint8_t gid[16], uint32_t *ipv4) {
    static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    if (memcmp(gid, v4mapped, sizeof(v4mapped)) != 0) return false;
    *ipv4 = 0;
    for (int i = 0; i < 4; i++) *ipv4 = *ipv4 << 8 | gid[12 + i];
    return true;
}

int peer_nic_open(struct peer_nic *n, const char *prog, const char *dev, size_t bytes, unsigned sq, unsigned rq,
                  uint32_t remote) {
    memset(n, 0, sizeof(*n));
    int r = rnic_open(dev, &n->dev);
    if (r != RNIC_OK) return peer_fail(prog, "rnic_open %s: %s (%s)", dev, rnic_strerror(r), rnic_open_error());
    rnic_query(n->dev, &n->info);
    n->bytes = (bytes + 4095) & ~(size_t)4095;
    n->mem = aligned_alloc(4096, n->bytes);
    struct rnic_qp_attr qa = {.sq_entries = sq, .rq_entries = rq, .max_rd = (uint8_t)n->info.max_rd,
                              .allow_remote = (uint8_t)remote};
    if (!n->mem) {
        r = RNIC_E_NOMEM;
    } else if ((r = rnic_pz_alloc(n->dev, &n->pz)) == RNIC_OK) {
        n->have_pz = true;
        qa.pz = n->pz;
        if ((r = rnic_cq_create(n->dev, 2 * (sq + rq), &n->cq)) == RNIC_OK) {
            qa.send_cq = qa.recv_cq = n->cq;
            if ((r = rnic_mr_reg(n->dev, n->mem, n->bytes, n->pz,
                                 RNIC_ACCESS_LOCAL_READ | RNIC_ACCESS_LOCAL_WRITE | remote, &n->mr)) == RNIC_OK)
                r = rnic_qp_create(n->dev, &qa, &n->qp);
        }
    }
    if (r != RNIC_OK) {
        peer_nic_close(n);
        return peer_fail(prog, "setting up the NIC: %s", rnic_strerror(r));
    }
    memset(n->mem, 0, n->bytes);
    n->lkey = n->rkey = rnic_mr_key(n->mr);
    n->drops0 = rnic_reg_read(n->dev, RNIC_REG_RX_DROPS);
    return 0;
}

void peer_nic_close(struct peer_nic *n) {
    if (n->qp) rnic_qp_destroy(n->qp);
    if (n->mr) rnic_mr_dereg(n->mr);
    if (n->cq) rnic_cq_destroy(n->cq);
    if (n->have_pz) rnic_pz_free(n->dev, n->pz);
    free(n->mem);
    if (n->dev) rnic_close(n->dev);
    memset(n, 0, sizeof(*n));
}

int peer_nic_connect(struct peer_nic *n, const char *prog, uint32_t qpn, uint32_t my_psn, uint32_t peer_psn,
                     const uint8_t gid[16], const uint8_t mac[6], unsigned max_rd) {
    struct rnic_qp_remote rem = {
        .qpn = qpn, .sq_psn = my_psn, .rq_psn = peer_psn, .max_rd = (uint8_t)max_rd, .path_mtu = n->path_mtu};
    if (!peer_gid_ipv4(gid, &rem.ipv4))
        return peer_fail(prog, "the peer's GID is not IPv4-mapped: give it the index of its IPv4 GID");
    memcpy(rem.mac, mac, 6);
    int r = rnic_qp_connect(n->qp, &rem);
    return r == RNIC_OK ? 0 : peer_fail(prog, "rnic_qp_connect: %s", rnic_strerror(r));
}

unsigned peer_mtu_code(unsigned bytes) {
    for (unsigned code = 1; code <= 5; code++)
        if (bytes == 128u << code) return code;
    return 0;
}

int peer_nic_next_wc(struct peer_nic *n, const char *prog, struct rnic_wc *wc, double deadline) {
    while (peer_wall_now() < deadline) {
        int r = rnic_cq_wait(n->cq, wc, 250000); /* 1 ms of the NIC's clock */
        if (r == 1) return 0;
        if (r != RNIC_E_TIMEOUT) return peer_fail(prog, "rnic_cq_wait: %s", rnic_strerror(r));
    }
    return peer_fail(prog, "no completion before the deadline");
}

uint32_t peer_first_psn(long fixed) {
    if (fixed >= 0) return (uint32_t)fixed & 0xFFFFFFu;
    srand48((long)getpid() * (long)time(NULL));
    return (uint32_t)lrand48() & 0xFFFFFFu;
}
