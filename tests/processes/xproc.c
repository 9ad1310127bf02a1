/*
 * Across two processes, what works in one: connection reject and private
 * data, SEND/RECV, a memory-window bind whose new context travels right
 * behind it, an RDMA WRITE through the window, an abrupt disconnect; and a
 * peer killed in the middle of a transfer. Public DAT API only.
 *
 *   xproc server QUAL              rnic1: rejects the first request, accepts
 *                                  the second, binds a window and SENDs its
 *                                  context behind the bind, then computes
 *                                  (no DAT call) until the client's WRITEs
 *                                  through it have landed, and checks them
 *   xproc client HOST QUAL         rnic0: the other side of that
 *   xproc victim QUAL              rnic1: accepts, then waits to be killed
 *   xproc survivor HOST QUAL       rnic0: streams 1 MiB WRITEs; once its peer
 *                                  is killed it must see BROKEN and every
 *                                  outstanding WRITE complete, within its wait
 *   xproc small_recv QUAL          rnic1: accepts with one 64-byte RECV posted;
 *                                  the SEND that comes is too large for it:
 *                                  LOCAL_LENGTH, not a byte past the RECV, BROKEN
 *   xproc big_send HOST QUAL       rnic0: SENDs 4 KiB into that RECV: the
 *                                  peer's NAK says why (REMOTE_RESPONDER), and
 *                                  arrives before the connection manager's
 *                                  BROKEN could turn it into a flush
 *
 * Both coherency modes: on a non-coherent host (lmr_sync_req) the server
 * syncs what the client wrote before it reads it.
 */
#define _GNU_SOURCE
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dat_test.h"

#define WAIT_US 60000000u   /* a minute of NIC time: long, never hit when things work */
#define BUF (2u << 20)
#define WIN_OFF 4096u
#define WIN_LEN 8192u
#define FLAG 0x600DF1A9600DF1A9ull

struct side {
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async, req, recv, conn, cr;
    DAT_PZ_HANDLE pz;
    DAT_EP_HANDLE ep;
    uint8_t *buf;
    DAT_LMR_HANDLE lmr;
    DAT_LMR_CONTEXT lctx;
    DAT_RMR_CONTEXT rctx;
    bool sync;
};

/* Messages: a tag and three numbers, in the last 64 bytes of the buffer
 * (receives) and the 64 before them (sends). */
struct msg {
    uint64_t tag, a, b, c;
};
#define RX_OFF (BUF - 64)
#define TX_OFF (BUF - 128)

static void side_open(struct side *s, char *name)
{
    memset(s, 0, sizeof(*s));
    s->async = DAT_HANDLE_NULL;
    DT_MUST(dat_ia_open(name, 8, &s->async, &s->ia));
    DT_MUST(dat_pz_create(s->ia, &s->pz));
    DT_MUST(dat_evd_create(s->ia, 64, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG, &s->req));
    DT_MUST(dat_evd_create(s->ia, 64, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &s->recv));
    DT_MUST(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &s->conn));
    DT_MUST(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &s->cr));
    DT_MUST(dat_ep_create(s->ia, s->pz, s->recv, s->req, s->conn, NULL, &s->ep));
    s->buf = aligned_alloc(4096, BUF);
    memset(s->buf, 0, BUF);
    DAT_REGION_DESCRIPTION r = {.for_va = s->buf};
    DAT_VLEN size;
    DAT_VADDR addr;
    DT_MUST(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, r, BUF, s->pz, DAT_MEM_PRIV_ALL_FLAG, &s->lmr, &s->lctx,
                           &s->rctx, &size, &addr));
    DAT_PROVIDER_ATTR pa;
    DT_MUST(dat_ia_query(s->ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &pa));
    s->sync = pa.lmr_sync_req == DAT_TRUE;
}

static DAT_LMR_TRIPLET iov(const struct side *s, size_t off, size_t len)
{
    DAT_LMR_TRIPLET t = {s->lctx, 0, (DAT_VADDR)(uintptr_t)(s->buf + off), len};
    return t;
}

static DAT_EVENT next(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER want, const char *what)
{
    DAT_EVENT ev;
    DAT_COUNT more;
    DAT_RETURN r = dat_evd_wait(evd, WAIT_US, 1, &ev, &more);
    if (r != DAT_SUCCESS || ev.event_number != want) {
        fprintf(stderr, "waiting for %s: return 0x%x, event 0x%x (expected 0x%x)\n", what, (unsigned)r,
                r == DAT_SUCCESS ? (unsigned)ev.event_number : 0u, (unsigned)want);
        exit(1);
    }
    return ev;
}

static void dto_ok(DAT_EVD_HANDLE evd, const char *what)
{
    DAT_EVENT ev = next(evd, DAT_DTO_COMPLETION_EVENT, what);
    CHECK_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_SUCCESS);
}

static void post_recv(struct side *s)
{
    DAT_LMR_TRIPLET t = iov(s, RX_OFF, 64);
    DT_MUST(dat_ep_post_recv(s->ep, 1, &t, dt_cookie(0), DAT_COMPLETION_DEFAULT_FLAG));
}

static void send_msg(struct side *s, uint64_t tag, uint64_t a, uint64_t b, uint64_t c)
{
    struct msg m = {tag, a, b, c};
    memcpy(s->buf + TX_OFF, &m, sizeof(m));
    DAT_LMR_TRIPLET t = iov(s, TX_OFF, sizeof(m));
    DT_MUST(dat_ep_post_send(s->ep, 1, &t, dt_cookie(tag), DAT_COMPLETION_DEFAULT_FLAG));
}

static struct msg recv_msg(struct side *s, uint64_t tag)
{
    DAT_EVENT ev = next(s->recv, DAT_DTO_COMPLETION_EVENT, "a message");
    CHECK_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_SUCCESS);
    struct msg m;
    memcpy(&m, s->buf + RX_OFF, sizeof(m));
    CHECK_EQ(m.tag, tag);
    return m;
}

static DAT_CR_HANDLE request(struct side *s, const char *pdata)
{
    DAT_EVENT ev = next(s->cr, DAT_CONNECTION_REQUEST_EVENT, "a connection request");
    DAT_CR_HANDLE cr = ev.event_data.cr_arrival_event_data.cr_handle;
    DAT_CR_PARAM p;
    DT_MUST(dat_cr_query(cr, DAT_CR_FIELD_ALL, &p));
    CHECK_EQ(p.private_data_size, (DAT_COUNT)strlen(pdata) + 1);
    if (p.private_data_size == (DAT_COUNT)strlen(pdata) + 1)
        CHECK(memcmp(p.private_data, pdata, strlen(pdata) + 1) == 0);
    return cr;
}

static void listen_on(struct side *s, DAT_CONN_QUAL q, DAT_PSP_HANDLE *psp)
{
    DT_MUST(dat_psp_create(s->ia, q, s->cr, DAT_PSP_CONSUMER_FLAG, psp));
    printf("listening on conn_qual %llu\n", (unsigned long long)q);
    fflush(stdout);
}

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int server(DAT_CONN_QUAL q)
{
    struct side s;
    char name[] = "rnic1";
    side_open(&s, name);
    DAT_PSP_HANDLE psp;
    listen_on(&s, q, &psp);

    /* The first request is refused. */
    DT_MUST(dat_cr_reject(request(&s, "xproc first")));

    /* The second is accepted, with private data both ways. */
    DAT_CR_HANDLE cr = request(&s, "xproc second");
    for (int i = 0; i < 4; i++)
        post_recv(&s);
    static char welcome[] = "xproc welcome";
    DT_MUST(dat_cr_accept(cr, s.ep, sizeof(welcome), welcome));
    next(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED");
    recv_msg(&s, 1);

    /* A window over part of the buffer; its new context goes to the client
     * right behind the bind, without waiting for the bind's completion: the
     * bind fences the SEND, so the window is in force when it arrives. */
    DAT_RMR_HANDLE rmr;
    DT_MUST(dat_rmr_create(s.pz, &rmr));
    DAT_LMR_TRIPLET win = iov(&s, WIN_OFF, WIN_LEN);
    DAT_RMR_CONTEXT wctx;
    DT_MUST(dat_rmr_bind(rmr, &win, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, s.ep, dt_rcookie(7), DAT_COMPLETION_DEFAULT_FLAG,
                         &wctx));
    send_msg(&s, 2, wctx, (uint64_t)(uintptr_t)(s.buf + WIN_OFF), WIN_LEN);
    DAT_EVENT b = next(s.req, DAT_RMR_BIND_COMPLETION_EVENT, "the bind");
    CHECK_EQ(b.event_data.rmr_completion_event_data.status, DAT_RMR_BIND_SUCCESS);
    dto_ok(s.req, "the SEND of the window's context");

    /* The client writes through the window, its last 8 bytes (a flag) in a
     * WRITE of their own. On a coherent host this process now computes,
     * making no DAT call, and watches the flag in plain memory: the NIC
     * runs beside it (free-running) and places the WRITEs meanwhile. */
    uint64_t *flag = (uint64_t *)(s.buf + WIN_OFF + WIN_LEN - 8);
    if (!s.sync) {
        const double end = wall() + 60;
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != FLAG && wall() < end) {
        }
        CHECK(__atomic_load_n(flag, __ATOMIC_ACQUIRE) == FLAG);
    }
    recv_msg(&s, 3);
    if (s.sync) {
        DAT_LMR_TRIPLET t = iov(&s, WIN_OFF, WIN_LEN);
        DT_MUST(dat_lmr_sync_rdma_write(s.ia, &t, 1));
    }
    uint8_t want[WIN_LEN];
    dt_fill(want, WIN_LEN - 8, 42);
    const uint64_t f = FLAG;
    memcpy(want + WIN_LEN - 8, &f, 8);
    size_t bad = 0;
    while (bad < WIN_LEN && s.buf[WIN_OFF + bad] == want[bad])
        bad++;
    if (bad < WIN_LEN)
        fprintf(stderr, "window byte %zu is 0x%02x, expected 0x%02x\n", bad, s.buf[WIN_OFF + bad], want[bad]);
    CHECK_EQ(bad, WIN_LEN);

    /* The client disconnects abruptly. */
    next(s.conn, DAT_CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED");
    DT_MUST(dat_rmr_free(rmr));
    DT_MUST(dat_psp_free(psp));
    DT_MUST(dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG));
    return dt_finish("xproc server");
}

static struct sockaddr_in resolve(const char *host)
{
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, NULL, &hints, &res) != 0) {
        fprintf(stderr, "cannot resolve %s\n", host);
        exit(2);
    }
    struct sockaddr_in a;
    memcpy(&a, res->ai_addr, sizeof(a));
    freeaddrinfo(res);
    return a;
}

static void connect_to(struct side *s, struct sockaddr_in *a, DAT_CONN_QUAL q, const char *pdata)
{
    char copy[64];
    snprintf(copy, sizeof(copy), "%s", pdata);
    DT_MUST(dat_ep_connect(s->ep, (DAT_IA_ADDRESS_PTR)a, q, WAIT_US, (DAT_COUNT)strlen(copy) + 1, copy,
                           DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
}

static int client(const char *host, DAT_CONN_QUAL q)
{
    struct side s;
    char name[] = "rnic0";
    side_open(&s, name);
    struct sockaddr_in a = resolve(host);

    connect_to(&s, &a, q, "xproc first");
    next(s.conn, DAT_CONNECTION_EVENT_PEER_REJECTED, "PEER_REJECTED");
    DT_MUST(dat_ep_reset(s.ep));

    for (int i = 0; i < 4; i++)
        post_recv(&s);
    connect_to(&s, &a, q, "xproc second");
    DAT_EVENT ev = next(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED");
    CHECK_EQ(ev.event_data.connect_event_data.private_data_size, (DAT_COUNT)sizeof("xproc welcome"));
    if (ev.event_data.connect_event_data.private_data)
        CHECK(strcmp(ev.event_data.connect_event_data.private_data, "xproc welcome") == 0);
    send_msg(&s, 1, 0, 0, 0);
    dto_ok(s.req, "the first SEND");

    /* Write through the window the moment its context arrives. */
    struct msg w = recv_msg(&s, 2);
    CHECK_EQ(w.c, WIN_LEN);
    dt_fill(s.buf, WIN_LEN - 8, 42);
    const uint64_t f = FLAG;
    memcpy(s.buf + WIN_LEN - 8, &f, 8);
    DAT_LMR_TRIPLET l = iov(&s, 0, WIN_LEN - 8);
    DAT_RMR_TRIPLET r = {(DAT_RMR_CONTEXT)w.a, 0, w.b, WIN_LEN - 8};
    DT_MUST(dat_ep_post_rdma_write(s.ep, 1, &l, dt_cookie(9), &r, DAT_COMPLETION_DEFAULT_FLAG));
    dto_ok(s.req, "the WRITE through the window");
    /* The flag last: WRITEs are placed in order, so whoever sees it sees the data. */
    DAT_LMR_TRIPLET lf = iov(&s, WIN_LEN - 8, 8);
    DAT_RMR_TRIPLET rf = {(DAT_RMR_CONTEXT)w.a, 0, w.b + WIN_LEN - 8, 8};
    DT_MUST(dat_ep_post_rdma_write(s.ep, 1, &lf, dt_cookie(10), &rf, DAT_COMPLETION_DEFAULT_FLAG));
    dto_ok(s.req, "the flag's WRITE");
    send_msg(&s, 3, 0, 0, 0);
    dto_ok(s.req, "the SEND after the WRITE");

    DT_MUST(dat_ep_disconnect(s.ep, DAT_CLOSE_ABRUPT_FLAG));
    next(s.conn, DAT_CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED");
    DT_MUST(dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG));
    return dt_finish("xproc client");
}

static int victim(DAT_CONN_QUAL q)
{
    struct side s;
    char name[] = "rnic1";
    side_open(&s, name);
    DAT_PSP_HANDLE psp;
    listen_on(&s, q, &psp);
    DT_MUST(dat_cr_accept(request(&s, "xproc stream"), s.ep, 0, NULL));
    next(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED");
    send_msg(&s, 5, s.rctx, (uint64_t)(uintptr_t)s.buf, BUF - 128);
    dto_ok(s.req, "the SEND of the buffer's triplet");
    /* Until killed. */
    DAT_EVENT e;
    DAT_COUNT more;
    dat_evd_wait(s.conn, DAT_TIMEOUT_INFINITE, 1, &e, &more);
    return 1;
}

static int survivor(const char *host, DAT_CONN_QUAL q)
{
    struct side s;
    char name[] = "rnic0";
    side_open(&s, name);
    struct sockaddr_in a = resolve(host);
    post_recv(&s);
    connect_to(&s, &a, q, "xproc stream");
    next(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED");
    struct msg t = recv_msg(&s, 5);

    /* 1 MiB WRITEs, four at a time, until the peer is gone; then every one
     * still outstanding must complete (flushed, or done before) and the
     * connection must be reported BROKEN. */
    const DAT_VLEN len = 1u << 20;
    int outstanding = 0, done = 0, flushed = 0;
    bool broken = false, told = false;
    const double give_up = wall() + 300;
    while (wall() < give_up) {
        while (!broken && outstanding < 4) {
            DAT_LMR_TRIPLET l = iov(&s, 0, len);
            DAT_RMR_TRIPLET r = {(DAT_RMR_CONTEXT)t.a, 0, t.b, len};
            DT_MUST(dat_ep_post_rdma_write(s.ep, 1, &l, dt_cookie(1), &r, DAT_COMPLETION_DEFAULT_FLAG));
            outstanding++;
        }
        DAT_EVENT ev;
        DAT_COUNT more;
        if (dat_evd_wait(s.req, 2000000, 1, &ev, &more) == DAT_SUCCESS) {
            CHECK_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
            const DAT_DTO_COMPLETION_STATUS st = ev.event_data.dto_completion_event_data.status;
            CHECK(st == DAT_DTO_SUCCESS || st == DAT_DTO_ERR_FLUSHED);
            outstanding--;
            done += st == DAT_DTO_SUCCESS;
            flushed += st == DAT_DTO_ERR_FLUSHED;
            if (done == 1 && !told) {
                printf("streaming\n");
                fflush(stdout);
                told = true;
            }
        }
        while (dat_evd_dequeue(s.conn, &ev) == DAT_SUCCESS) {
            CHECK_EQ(ev.event_number, DAT_CONNECTION_EVENT_BROKEN);
            broken = true;
        }
        if (broken && outstanding == 0)
            break;
    }
    printf("survivor: %d WRITEs done, %d flushed, broken %d, outstanding %d\n", done, flushed, (int)broken,
           outstanding);
    CHECK(broken);
    CHECK_EQ(outstanding, 0);
    CHECK(done >= 1);
    DT_MUST(dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG));
    return dt_finish("xproc survivor");
}

static int small_recv(DAT_CONN_QUAL q)
{
    struct side s;
    char name[] = "rnic1";
    side_open(&s, name);
    memset(s.buf, 0x5A, BUF);
    post_recv(&s);
    DAT_PSP_HANDLE psp;
    listen_on(&s, q, &psp);
    DT_MUST(dat_cr_accept(request(&s, "xproc too large"), s.ep, 0, NULL));
    next(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED");
    DAT_EVENT ev = next(s.recv, DAT_DTO_COMPLETION_EVENT, "the RECV's completion");
    CHECK_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_ERR_LOCAL_LENGTH);
    next(s.conn, DAT_CONNECTION_EVENT_BROKEN, "BROKEN");
    /* Nothing outside the RECV's 64 bytes was written. */
    for (size_t i = 0; i < BUF; i++) {
        if (i >= RX_OFF && i < RX_OFF + 64)
            continue;
        if (s.buf[i] != 0x5A) {
            CHECK_EQ(s.buf[i], 0x5A);
            break;
        }
    }
    DT_MUST(dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG));
    return dt_finish("xproc small_recv");
}

static int big_send(const char *host, DAT_CONN_QUAL q)
{
    struct side s;
    char name[] = "rnic0";
    side_open(&s, name);
    struct sockaddr_in a = resolve(host);
    connect_to(&s, &a, q, "xproc too large");
    next(s.conn, DAT_CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED");
    DAT_LMR_TRIPLET t = iov(&s, 0, 4096);
    DT_MUST(dat_ep_post_send(s.ep, 1, &t, dt_cookie(7), DAT_COMPLETION_DEFAULT_FLAG));
    DAT_EVENT ev = next(s.req, DAT_DTO_COMPLETION_EVENT, "the SEND's completion");
    CHECK_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 7);
    CHECK_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_ERR_REMOTE_RESPONDER);
    next(s.conn, DAT_CONNECTION_EVENT_BROKEN, "BROKEN");
    DT_MUST(dat_ia_close(s.ia, DAT_CLOSE_ABRUPT_FLAG));
    return dt_finish("xproc big_send");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "server") == 0)
        return server(strtoull(argv[2], NULL, 10));
    if (argc == 4 && strcmp(argv[1], "client") == 0)
        return client(argv[2], strtoull(argv[3], NULL, 10));
    if (argc == 3 && strcmp(argv[1], "victim") == 0)
        return victim(strtoull(argv[2], NULL, 10));
    if (argc == 4 && strcmp(argv[1], "survivor") == 0)
        return survivor(argv[2], strtoull(argv[3], NULL, 10));
    if (argc == 3 && strcmp(argv[1], "small_recv") == 0)
        return small_recv(strtoull(argv[2], NULL, 10));
    if (argc == 4 && strcmp(argv[1], "big_send") == 0)
        return big_send(argv[2], strtoull(argv[3], NULL, 10));
    fprintf(stderr, "usage: xproc server QUAL | client HOST QUAL | victim QUAL | survivor HOST QUAL | "
                    "small_recv QUAL | big_send HOST QUAL\n");
    return 2;
}
