/*
 * The reliable connection as a DAT consumer sees it (docs/reliability.md):
 *
 * - The link loses every frame one way: the RDMA WRITE is resent
 *   RNIC_RETRY_CNT times, then completes DAT_DTO_ERR_TRANSPORT, and both
 *   ends see BROKEN.
 * - A SEND with no RECV posted waits (RNR NAKs, resent after each delay)
 *   until the peer posts one, then both complete; with RNIC_RNR_RETRY 2 it
 *   fails DAT_DTO_ERR_RECEIVER_NOT_READY instead, and both ends see BROKEN.
 * - 5 % of the frames lost both ways, every transfer still completes
 *   DAT_SUCCESS with every byte right.
 *
 * The QP settings come from the environment, read at each dat_ia_open.
 */
#define _DEFAULT_SOURCE   /* setenv */
#include "dat_test.h"
#include "rnic_sim.h"

#include <stdlib.h>
#include <string.h>

static void set_timers(const char *ack, const char *retry, const char *rnr, const char *min_rnr)
{
    setenv("RNIC_ACK_TIMEOUT", ack, 1);
    setenv("RNIC_RETRY_CNT", retry, 1);
    setenv("RNIC_RNR_RETRY", rnr, 1);
    setenv("RNIC_MIN_RNR_TIMER", min_rnr, 1);
}

static void no_faults(void)
{
    CHECK_EQ(rnic_sim_set_link_faults(0, NULL), 0);
    CHECK_EQ(rnic_sim_set_link_faults(1, NULL), 0);
}

static void retries_exhausted(void)
{
    set_timers("4", "3", "7", "1");   /* 16,384-cycle timeout, three resends */
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);

    struct rnic_sim_link_faults f;
    memset(&f, 0, sizeof(f));
    f.drop = 1.0;
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
    DAT_LMR_TRIPLET l = dt_iov(&p.s[0], 0, 100);
    DAT_RMR_TRIPLET r = dt_remote(&p.s[1], 0, 100);
    CHECK_OK(dat_ep_post_rdma_write(p.s[0].ep, 1, &l, dt_cookie(1), &r, DAT_COMPLETION_DEFAULT_FLAG));
    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(p.s[0].req_evd, &d), DAT_DTO_ERR_TRANSPORT);
    CHECK_EQ(d.user_cookie.as_64, 1u);
    CHECK_EQ(dt_wait_number(p.s[0].conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(dt_wait_number(p.s[1].conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    struct rnic_sim_link_fault_stats st;
    CHECK_EQ(rnic_sim_get_link_fault_stats(0, &st), 0);
    CHECK_EQ(st.dropped, 4u);   /* the WRITE and its three resends */
    no_faults();
    dt_pair_close(&p);
}

static void rnr_then_recv(void)
{
    set_timers("14", "7", "7", "1");   /* RNR delay code 1: 10 us */
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);

    dt_fill(p.s[0].buf, 64, 5);
    memset(p.s[1].buf, 0, 64);
    DAT_LMR_TRIPLET l = dt_iov(&p.s[0], 0, 64);
    CHECK_OK(dat_ep_post_send(p.s[0].ep, 1, &l, dt_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
    /* 500,000 cycles of RNR NAKs and resends: nothing completes meanwhile. */
    DAT_EVENT ev;
    CHECK_EQ(DAT_GET_TYPE(dt_wait(p.s[0].req_evd, 2000, &ev)), DAT_TIMEOUT_EXPIRED);
    DAT_LMR_TRIPLET rl = dt_iov(&p.s[1], 0, 64);
    CHECK_OK(dat_ep_post_recv(p.s[1].ep, 1, &rl, dt_cookie(3), DAT_COMPLETION_DEFAULT_FLAG));
    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(p.s[0].req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(dt_wait_dto(p.s[1].recv_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.transfered_length, 64u);
    CHECK_EQ(memcmp(p.s[0].buf, p.s[1].buf, 64), 0);
    dt_pair_close(&p);
}

static void rnr_exhausted(void)
{
    set_timers("14", "7", "2", "1");
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);

    DAT_LMR_TRIPLET l = dt_iov(&p.s[0], 0, 64);
    CHECK_OK(dat_ep_post_send(p.s[0].ep, 1, &l, dt_cookie(4), DAT_COMPLETION_DEFAULT_FLAG));
    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(p.s[0].req_evd, &d), DAT_DTO_ERR_RECEIVER_NOT_READY);
    CHECK_EQ(d.user_cookie.as_64, 4u);
    CHECK_EQ(dt_wait_number(p.s[0].conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(dt_wait_number(p.s[1].conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    dt_pair_close(&p);
}

static void lossy_link(void)
{
    enum { N = 16, LEN = DT_BUF / 2 };
    set_timers("6", "7", "7", "1");
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);

    struct rnic_sim_link_faults f;
    memset(&f, 0, sizeof(f));
    f.drop = 0.05;
    f.seed = 11;
    CHECK_EQ(rnic_sim_set_link_faults(0, &f), 0);
    f.seed = 12;
    CHECK_EQ(rnic_sim_set_link_faults(1, &f), 0);
    for (unsigned i = 0; i < N; i++) {
        dt_fill(p.s[0].buf, LEN, 100 + i);
        memset(p.s[1].buf, 0, DT_BUF);
        DAT_LMR_TRIPLET l = dt_iov(&p.s[0], 0, LEN);
        DAT_RMR_TRIPLET r = dt_remote(&p.s[1], i % 2 ? LEN : 0, LEN);
        DAT_DTO_COMPLETION_EVENT_DATA d;
        if (i % 4 == 3) {
            /* A READ back into side 0's upper half. */
            dt_fill(p.s[1].buf, LEN, 200 + i);
            DAT_LMR_TRIPLET up = dt_iov(&p.s[0], LEN, LEN);
            DAT_RMR_TRIPLET src = dt_remote(&p.s[1], 0, LEN);
            CHECK_OK(dat_ep_post_rdma_read(p.s[0].ep, 1, &up, dt_cookie(i), &src, DAT_COMPLETION_DEFAULT_FLAG));
            CHECK_EQ(dt_wait_dto(p.s[0].req_evd, &d), DAT_DTO_SUCCESS);
            CHECK_EQ(memcmp(p.s[0].buf + LEN, p.s[1].buf, LEN), 0);
            continue;
        }
        CHECK_OK(dat_ep_post_rdma_write(p.s[0].ep, 1, &l, dt_cookie(i), &r, DAT_COMPLETION_DEFAULT_FLAG));
        CHECK_EQ(dt_wait_dto(p.s[0].req_evd, &d), DAT_DTO_SUCCESS);
        CHECK_EQ(d.user_cookie.as_64, i);
        CHECK_EQ(memcmp(p.s[0].buf, p.s[1].buf + (i % 2 ? LEN : 0), LEN), 0);
    }
    struct rnic_sim_link_fault_stats st;
    CHECK_EQ(rnic_sim_get_link_fault_stats(0, &st), 0);
    CHECK(st.dropped > 0);   /* the seed loses frames: the test tests something */
    no_faults();
    dt_pair_close(&p);
}

int main(void)
{
    setenv("RNIC_SIM_MODE", "lockstep", 1);
    retries_exhausted();
    rnr_then_recv();
    rnr_exhausted();
    lossy_link();
    return dt_finish("test_transport");
}
