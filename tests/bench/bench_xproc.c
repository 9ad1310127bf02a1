/* Benchmark (a program, not a test): back-to-back 1 MiB RDMA WRITEs between
 * a server on rnic1 and a client on rnic0, as two processes (their NICs
 * joined by the UDP link) or as two threads of one process (one fabric),
 * free-running either way (docs/performance.md, "Two processes").
 *
 *   bench_xproc server QUAL [writes]        rnic1
 *   bench_xproc client HOST QUAL [writes]   rnic0
 *   bench_xproc threads QUAL [writes]       both, as threads
 *
 * The client prints payload bytes per NIC cycle (its own NIC's cycles from
 * the first post to the last completion; four WRITEs outstanding) and NIC
 * cycles per wall second; the server prints its NIC's cycles per wall
 * second over the same transfer. Static libdat: reads the cycle counter. */
#define _GNU_SOURCE
#include <netdb.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dat_test.h"
#include "rnic_sim.h"

#define MIB (1u << 20)
#define WAIT_US 600000000u

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static DAT_EVENT next(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER want)
{
    DAT_EVENT ev;
    DAT_COUNT more;
    DT_MUST(dat_evd_wait(evd, WAIT_US, 1, &ev, &more));
    if (ev.event_number != want) {
        fprintf(stderr, "event 0x%x, expected 0x%x\n", (unsigned)ev.event_number, (unsigned)want);
        exit(2);
    }
    return ev;
}

struct triplet {
    uint64_t ctx, addr;
};

static DAT_CONN_QUAL g_qual;
/* Threads: the client connects once the server listens. */
static pthread_mutex_t listen_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t listen_cv = PTHREAD_COND_INITIALIZER;
static bool listening;
static int g_writes = 32;
static const char *g_host = "127.0.0.2";

/* A 1 MiB buffer filled with `fill`, registered on side s with every privilege. */
static uint8_t *mib_region(struct dt_side *s, int fill, DAT_LMR_CONTEXT *lc, DAT_RMR_CONTEXT *rc)
{
    uint8_t *buf = aligned_alloc(4096, MIB);
    memset(buf, fill, MIB);
    DAT_LMR_HANDLE lmr;
    DAT_VLEN sz;
    DAT_VADDR va;
    DAT_REGION_DESCRIPTION r = {.for_va = buf};
    DT_MUST(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, r, MIB, s->pz, DAT_MEM_PRIV_ALL_FLAG, &lmr, lc, rc, &sz, &va));
    return buf;
}

static void *server(void *arg)
{
    (void)arg;
    struct dt_side s;
    dt_side_open(&s, 1, NULL);
    DAT_LMR_CONTEXT lc;
    DAT_RMR_CONTEXT rc;
    uint8_t *buf = mib_region(&s, 0, &lc, &rc);
    DAT_LMR_TRIPLET rx = dt_iov(&s, 0, 64);
    DT_MUST(dat_ep_post_recv(s.ep, 1, &rx, dt_cookie(0), DAT_COMPLETION_DEFAULT_FLAG));
    DAT_PSP_HANDLE psp;
    DT_MUST(dat_psp_create(s.ia, g_qual, s.cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
    printf("server: listening on conn_qual %llu\n", (unsigned long long)g_qual);
    fflush(stdout);
    pthread_mutex_lock(&listen_mu);
    listening = true;
    pthread_cond_broadcast(&listen_cv);
    pthread_mutex_unlock(&listen_mu);
    DAT_EVENT ev = next(s.cr_evd, DAT_CONNECTION_REQUEST_EVENT);
    struct triplet t = {rc, (uint64_t)(uintptr_t)buf};
    DT_MUST(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, s.ep, sizeof(t), &t));
    next(s.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
    const uint64_t c0 = rnic_sim_cycle();
    const double w0 = wall();
    next(s.recv_evd, DAT_DTO_COMPLETION_EVENT);   /* "done" */
    const double w = wall() - w0;
    const uint64_t c = rnic_sim_cycle() - c0;
    printf("server: rnic1 ran %llu cycles in %.3f s: %.0f NIC cycles/s\n", (unsigned long long)c, w, (double)c / w);
    next(s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
    DT_MUST(dat_psp_free(psp));
    dt_side_close(&s);
    return NULL;
}

static void *client(void *arg)
{
    (void)arg;
    struct dt_side s;
    dt_side_open(&s, 0, NULL);
    DAT_LMR_CONTEXT lc;
    DAT_RMR_CONTEXT rc;
    uint8_t *buf = mib_region(&s, 0x3C, &lc, &rc);
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(g_host, NULL, &hints, &res) != 0)
        exit(2);
    /* The server may not listen yet (threads): ask again while it refuses. */
    DAT_EVENT ev;
    for (int tries = 0;; tries++) {
        DT_MUST(dat_ep_connect(s.ep, (DAT_IA_ADDRESS_PTR)res->ai_addr, g_qual, WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT,
                               DAT_CONNECT_DEFAULT_FLAG));
        DAT_COUNT more;
        DT_MUST(dat_evd_wait(s.conn_evd, WAIT_US, 1, &ev, &more));
        if (ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED)
            break;
        if (tries > 1000) {
            fprintf(stderr, "client: no connection (event 0x%x)\n", (unsigned)ev.event_number);
            exit(2);
        }
        DT_MUST(dat_ep_reset(s.ep));
    }
    freeaddrinfo(res);
    struct triplet t;
    memcpy(&t, ev.event_data.connect_event_data.private_data, sizeof(t));

    DAT_LMR_TRIPLET l = {lc, 0, (DAT_VADDR)(uintptr_t)buf, MIB};
    DAT_RMR_TRIPLET rt = {(DAT_RMR_CONTEXT)t.ctx, 0, t.addr, MIB};
    int posted = 0, done = 0;
    const uint64_t c0 = rnic_sim_cycle();
    const double w0 = wall();
    while (done < g_writes) {
        while (posted < g_writes && posted - done < 4) {
            DT_MUST(dat_ep_post_rdma_write(s.ep, 1, &l, dt_cookie((uint64_t)posted), &rt, DAT_COMPLETION_DEFAULT_FLAG));
            posted++;
        }
        ev = next(s.req_evd, DAT_DTO_COMPLETION_EVENT);
        if (ev.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS)
            exit(3);
        done++;
    }
    const double w = wall() - w0;
    const uint64_t c = rnic_sim_cycle() - c0;
    printf("client: %d x 1 MiB RDMA WRITE: %llu cycles, %.3f payload bytes/cycle; rnic0 ran %.0f NIC cycles/s\n",
           g_writes, (unsigned long long)c, (double)g_writes * MIB / (double)c, (double)c / w);
    DAT_LMR_TRIPLET msg = dt_iov(&s, 0, 64);
    DT_MUST(dat_ep_post_send(s.ep, 1, &msg, dt_cookie(999), DAT_COMPLETION_DEFAULT_FLAG));
    next(s.req_evd, DAT_DTO_COMPLETION_EVENT);
    DT_MUST(dat_ep_disconnect(s.ep, DAT_CLOSE_GRACEFUL_FLAG));
    next(s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
    dt_side_close(&s);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "server") == 0) {
        g_qual = strtoull(argv[2], NULL, 10);
        server(NULL);
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "client") == 0) {
        g_host = argv[2];
        g_qual = strtoull(argv[3], NULL, 10);
        if (argc > 4)
            g_writes = atoi(argv[4]);
        client(NULL);
        return 0;
    }
    if (argc >= 3 && strcmp(argv[1], "threads") == 0) {
        g_qual = strtoull(argv[2], NULL, 10);
        if (argc > 3)
            g_writes = atoi(argv[3]);
        pthread_t a, b;
        pthread_create(&a, NULL, server, NULL);
        pthread_mutex_lock(&listen_mu);
        while (!listening)
            pthread_cond_wait(&listen_cv, &listen_mu);
        pthread_mutex_unlock(&listen_mu);
        pthread_create(&b, NULL, client, NULL);
        pthread_join(b, NULL);
        pthread_join(a, NULL);
        return 0;
    }
    fprintf(stderr, "usage: bench_xproc server QUAL | client HOST QUAL [writes] | threads QUAL [writes]\n");
    return 2;
}
