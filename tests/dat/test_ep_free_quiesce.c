/*
 * An EP freed while another CQ of its NIC holds a completion nobody took yet
 * still waits for its own flush before its QP goes (found by
 * tests/fuzz/dat_fuzz). In lockstep a wait returns at once while any CQ of
 * the NIC has its interrupt raised; the free counted such waits as time
 * passed, gave the flush up without the NIC having run, and destroyed the
 * QP with its receives still posted. Their flush completions came later:
 *  - reported for the next EP given the QP number: a fresh EP's receive,
 *    which nothing completed, came back DAT_DTO_ERR_FLUSHED;
 *  - or, landing in an EVD freed next, they left the NIC's interrupt raised
 *    for good, and every later lockstep wait of the process spun forever.
 */
#include "dat_test.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static struct dt_pair p;
static DAT_EVD_HANDLE idle_evd;   /* a DTO EVD no EP uses: polling it drains only its own CQ */

/* A completion lands in side 0's request EVD and stays there unread: an
 * RDMA WRITE, and polls of an EVD that drains nothing else while the NIC
 * completes it. */
static void leave_unread_completion(void)
{
    DAT_LMR_TRIPLET l = dt_iov(&p.s[0], 0, 64);
    DAT_RMR_TRIPLET r = dt_remote(&p.s[1], 0, 64);
    CHECK_OK(dat_ep_post_rdma_write(p.s[0].ep, 1, &l, dt_cookie(1), &r, DAT_COMPLETION_DEFAULT_FLAG));
    DAT_EVENT ev;
    for (int i = 0; i < 2000; i++)
        CHECK_RET(dat_evd_dequeue(idle_evd, &ev), DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
}

/* An unconnected EP of side 0 on its own EVDs, with `n` receives posted. */
static DAT_EP_HANDLE ep_with_receives(DAT_EVD_HANDLE recv, DAT_EVD_HANDLE req, int n, uint64_t cookie)
{
    struct dt_side *s = &p.s[0];
    DAT_EP_HANDLE ep;
    DT_MUST(dat_ep_create(s->ia, s->pz, recv, req, s->conn_evd, NULL, &ep));
    for (int i = 0; i < n; i++) {
        DAT_LMR_TRIPLET iov = dt_iov(s, 64 * (size_t)i, 64);
        CHECK_OK(dat_ep_post_recv(ep, 1, &iov, dt_cookie(cookie + (uint64_t)i), DAT_COMPLETION_DEFAULT_FLAG));
    }
    return ep;
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_ep_free_quiesce: a 1 ms dat_evd_wait did not return in 30 s\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(1);
}

int main(void)
{
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    struct dt_side *s = &p.s[0];
    DAT_EVD_HANDLE recv, req;
    DT_MUST(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &idle_evd));
    DT_MUST(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &recv));
    DT_MUST(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &req));

    /* The freed EP's flush is not reported for the next EP. */
    DAT_EP_HANDLE x = ep_with_receives(recv, req, 3, 100);
    leave_unread_completion();
    CHECK_OK(dat_ep_free(x));
    DAT_EP_HANDLE y = ep_with_receives(recv, req, 1, 77);
    DAT_EVENT ev;
    CHECK_RET(dt_wait(recv, 1000, &ev), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    DAT_EP_STATE st;
    DAT_BOOLEAN recv_idle;
    CHECK_OK(dat_ep_get_status(y, &st, &recv_idle, NULL));
    CHECK_EQ(st, DAT_EP_STATE_UNCONNECTED);
    CHECK(recv_idle == DAT_FALSE);   /* its receive is still posted */
    /* The completion that was left unread is reported all the same. */
    CHECK_EQ(dt_wait_dto(s->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK_OK(dat_ep_free(y));

    /* Its EVDs can go right after it, and waits still end. */
    DAT_EP_HANDLE z = ep_with_receives(recv, req, 2, 200);
    leave_unread_completion();
    CHECK_OK(dat_ep_free(z));
    for (int i = 0; i < 2000; i++)
        CHECK_RET(dat_evd_dequeue(idle_evd, &ev), DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
    CHECK_OK(dat_evd_free(recv));
    CHECK_OK(dat_evd_free(req));
    signal(SIGALRM, on_alarm);
    alarm(30);
    CHECK_RET(dt_wait(idle_evd, 1000, &ev), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    alarm(0);
    CHECK_EQ(dt_wait_dto(s->req_evd, NULL), DAT_DTO_SUCCESS);

    dt_pair_close(&p);
    return dt_finish("test_ep_free_quiesce");
}
