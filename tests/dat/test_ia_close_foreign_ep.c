/*
 * An EP may take its EVDs from another IA on the same NIC. When that IA is
 * closed abruptly, the cascade takes the EP with it (it feeds the IA's
 * EVDs: an object associated with the IA indirectly, the dat_evd_free
 * page): afterwards the EP's handle is stale, and every call on it says
 * DAT_INVALID_HANDLE instead of reading the EVDs that are gone. A
 * connected EP's peer learns the connection is gone. A graceful close is
 * refused while the EVDs exist (docs/libdat.md, "Closing an IA").
 */
#include "dat_test.h"

#include <string.h>

struct owner {
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async_evd, req, recv, conn;
};

static void owner_open(struct owner *o)
{
    memset(o, 0, sizeof(*o));
    o->async_evd = DAT_HANDLE_NULL;
    DT_MUST(dat_ia_open("rnic0", 8, &o->async_evd, &o->ia));
    DT_MUST(dat_evd_create(o->ia, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &o->req));
    DT_MUST(dat_evd_create(o->ia, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &o->recv));
    DT_MUST(dat_evd_create(o->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &o->conn));
}

/* Every call on the EP after its EVDs' IA is gone: a stale handle. */
static void ep_is_gone(DAT_EP_HANDLE ep)
{
    DAT_EP_PARAM prm;
    CHECK_RET(dat_ep_query(ep, DAT_EP_FIELD_ALL, &prm), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    DAT_EP_STATE st;
    CHECK_RET(dat_ep_get_status(ep, &st, NULL, NULL), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    CHECK_RET(dat_ep_disconnect(ep, DAT_CLOSE_ABRUPT_FLAG), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    CHECK_RET(dat_ep_free(ep), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
}

/* An unconnected EP of IA b on the EVDs of IA a. */
static void unconnected(void)
{
    struct owner a;
    owner_open(&a);
    DAT_IA_HANDLE b;
    DAT_EVD_HANDLE b_async = DAT_HANDLE_NULL;
    DT_MUST(dat_ia_open("rnic0", 8, &b_async, &b));
    DAT_PZ_HANDLE pz;
    DT_MUST(dat_pz_create(b, &pz));
    DAT_EP_HANDLE ep;
    CHECK_OK(dat_ep_create(b, pz, a.recv, a.req, a.conn, NULL, &ep));
    DAT_EP_PARAM prm;
    CHECK_OK(dat_ep_query(ep, DAT_EP_FIELD_ALL, &prm));
    CHECK(prm.request_evd_handle == a.req && prm.ia_handle == b);
    /* In use: neither the EVDs nor (gracefully) their IA go. */
    CHECK_RET(dat_evd_free(a.req), DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE);
    CHECK_RET(dat_ia_close(a.ia, DAT_CLOSE_GRACEFUL_FLAG), DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE);

    CHECK_OK(dat_ia_close(a.ia, DAT_CLOSE_ABRUPT_FLAG));
    ep_is_gone(ep);
    CHECK_RET(dat_evd_free(a.req), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
    /* b's own objects are b's: its PZ is no longer used by the EP. */
    CHECK_OK(dat_pz_free(pz));
    CHECK_OK(dat_ia_close(b, DAT_CLOSE_GRACEFUL_FLAG));
}

/* Only the receive EVD is a's: that is enough to take the EP. */
static void recv_evd_only(void)
{
    struct owner a;
    owner_open(&a);
    DAT_IA_HANDLE b;
    DAT_EVD_HANDLE b_async = DAT_HANDLE_NULL, req, conn;
    DT_MUST(dat_ia_open("rnic0", 8, &b_async, &b));
    DAT_PZ_HANDLE pz;
    DT_MUST(dat_pz_create(b, &pz));
    DT_MUST(dat_evd_create(b, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &req));
    DT_MUST(dat_evd_create(b, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &conn));
    DAT_EP_HANDLE ep;
    CHECK_OK(dat_ep_create(b, pz, a.recv, req, conn, NULL, &ep));
    CHECK_OK(dat_ia_close(a.ia, DAT_CLOSE_ABRUPT_FLAG));
    ep_is_gone(ep);
    /* b's EVDs were the EP's: free again. */
    CHECK_OK(dat_evd_free(req));
    CHECK_OK(dat_evd_free(conn));
    CHECK_OK(dat_pz_free(pz));
    CHECK_OK(dat_ia_close(b, DAT_CLOSE_GRACEFUL_FLAG));
}

/* Connected to rnic1: the peer sees the connection end. */
static void connected(void)
{
    struct owner a;
    owner_open(&a);
    DAT_IA_HANDLE b;
    DAT_EVD_HANDLE b_async = DAT_HANDLE_NULL;
    DT_MUST(dat_ia_open("rnic0", 8, &b_async, &b));
    DAT_PZ_HANDLE pz;
    DT_MUST(dat_pz_create(b, &pz));
    DAT_EP_HANDLE ep;
    DT_MUST(dat_ep_create(b, pz, a.recv, a.req, a.conn, NULL, &ep));

    struct dt_side peer;
    dt_side_open(&peer, 1, NULL);
    DAT_CONN_QUAL qual;
    DAT_PSP_HANDLE psp;
    DT_MUST(dat_psp_create_any(peer.ia, &qual, peer.cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
    DT_MUST(dat_ep_connect(ep, dt_addr(peer.ia), qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT,
                           DAT_CONNECT_DEFAULT_FLAG));
    DAT_EVENT ev;
    DT_MUST(dt_wait(peer.cr_evd, DT_WAIT_US, &ev));
    CHECK_EQ(ev.event_number, DAT_CONNECTION_REQUEST_EVENT);
    DT_MUST(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, peer.ep, 0, NULL));
    CHECK_EQ(dt_wait_number(peer.conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_EQ(dt_wait_number(a.conn, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    /* A WRITE in flight too: its completion would go to a's request EVD. */
    DAT_LMR_TRIPLET none = { 0, 0, 0, 0 };
    DAT_RMR_TRIPLET r = dt_remote(&peer, 0, 0);
    CHECK_OK(dat_ep_post_rdma_write(ep, 0, &none, dt_cookie(1), &r, DAT_COMPLETION_DEFAULT_FLAG));

    CHECK_OK(dat_ia_close(a.ia, DAT_CLOSE_ABRUPT_FLAG));
    ep_is_gone(ep);
    CHECK_EQ(dt_wait_number(peer.conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    DAT_EP_STATE st;
    CHECK_OK(dat_ep_get_status(peer.ep, &st, NULL, NULL));
    CHECK_EQ(st, DAT_EP_STATE_DISCONNECTED);
    CHECK_OK(dat_pz_free(pz));
    CHECK_OK(dat_ia_close(b, DAT_CLOSE_GRACEFUL_FLAG));
    CHECK_OK(dat_psp_free(psp));
    dt_side_close(&peer);
}

int main(void)
{
    unconnected();
    recv_evd_only();
    connected();
    return dt_finish("test_ia_close_foreign_ep");
}
