/*
 * Connection management: every connection event (ESTABLISHED,
 * PEER_REJECTED, NON_PEER_REJECTED, ACCEPT_COMPLETION_ERROR, DISCONNECTED,
 * BROKEN, TIMED_OUT, UNREACHABLE), private data both ways, CR query, PSP
 * and RSP, the EP states a connection goes through and the calls refused
 * in each. One thread runs both sides.
 */
#include "dat_test.h"

#include <string.h>
#include <arpa/inet.h>

static DAT_RETURN connect_to(struct dt_side *a, struct dt_side *b, DAT_CONN_QUAL q, DAT_TIMEOUT t, const char *pd)
{
    return dat_ep_connect(a->ep, dt_addr(b->ia), q, t, pd ? (DAT_COUNT)strlen(pd) + 1 : 0, (DAT_PVOID)pd,
                          DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
}

static DAT_CR_HANDLE wait_request(struct dt_side *b, DAT_CR_ARRIVAL_EVENT_DATA *out)
{
    DAT_EVENT ev;
    if (dt_wait(b->cr_evd, DT_WAIT_US, &ev) != DAT_SUCCESS || ev.event_number != DAT_CONNECTION_REQUEST_EVENT)
        return DAT_HANDLE_NULL;
    if (out)
        *out = ev.event_data.cr_arrival_event_data;
    return ev.event_data.cr_arrival_event_data.cr_handle;
}

static DAT_EP_STATE state_of(DAT_EP_HANDLE ep)
{
    DAT_EP_STATE s = (DAT_EP_STATE)-1;
    dat_ep_get_status(ep, &s, NULL, NULL);
    return s;
}

static void established_with_private_data(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    CHECK_OK(connect_to(a, b, p.qual, DT_WAIT_US, "from the client"));
    /* dat_ep_connect returns at once: the connection is set up while the
     * sides wait. */
    CHECK_EQ(state_of(a->ep), DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);
    DAT_CR_ARRIVAL_EVENT_DATA arr;
    DAT_CR_HANDLE cr = wait_request(b, &arr);
    CHECK(cr != DAT_HANDLE_NULL);
    CHECK(arr.sp_handle.psp_handle == p.psp);
    CHECK_EQ(arr.conn_qual, p.qual);
    const struct sockaddr_in *la = (const struct sockaddr_in *)arr.local_ia_address_ptr;
    CHECK_EQ(ntohl(la->sin_addr.s_addr), 0x7F000002);   /* rnic1's IA address */
    DAT_CR_PARAM crp;
    CHECK_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
    CHECK_EQ(crp.private_data_size, 16);
    CHECK(crp.private_data && strcmp(crp.private_data, "from the client") == 0);
    CHECK(crp.local_ep_handle == DAT_HANDLE_NULL);
    const struct sockaddr_in *ra = (const struct sockaddr_in *)crp.remote_ia_address_ptr;
    CHECK_EQ(ra->sin_family, AF_INET);
    CHECK_EQ(ntohl(ra->sin_addr.s_addr), 0x7F000001);   /* the client's: rnic0 */
    DAT_EP_PARAM ap;
    CHECK_OK(dat_ep_query(a->ep, DAT_EP_FIELD_ALL, &ap));
    CHECK_EQ(crp.remote_port_qual, ap.local_port_qual);
    CHECK_EQ(state_of(b->ep), DAT_EP_STATE_UNCONNECTED);
    const char reply[] = "from the server";
    CHECK_OK(dat_cr_accept(cr, b->ep, sizeof(reply), (DAT_PVOID)reply));
    /* The CR is used up by the accept. */
    CHECK_RET(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
    DAT_EVENT ev;
    CHECK_OK(dt_wait(a->conn_evd, DT_WAIT_US, &ev));
    CHECK_EQ(ev.event_number, DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK(ev.event_data.connect_event_data.ep_handle == a->ep);
    CHECK_EQ(ev.event_data.connect_event_data.private_data_size, sizeof(reply));
    CHECK(ev.event_data.connect_event_data.private_data &&
          memcmp(ev.event_data.connect_event_data.private_data, reply, sizeof(reply)) == 0);
    CHECK_OK(dt_wait(b->conn_evd, DT_WAIT_US, &ev));
    CHECK_EQ(ev.event_number, DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK(ev.event_data.connect_event_data.ep_handle == b->ep);
    CHECK_EQ(state_of(a->ep), DAT_EP_STATE_CONNECTED);
    CHECK_EQ(state_of(b->ep), DAT_EP_STATE_CONNECTED);
    CHECK_OK(dat_ep_query(a->ep, DAT_EP_FIELD_ALL, &ap));
    CHECK_EQ(ap.remote_port_qual, p.qual);
    CHECK_EQ(ntohl(((struct sockaddr_in *)ap.remote_ia_address_ptr)->sin_addr.s_addr), 0x7F000002);
    /* Refused while connected. */
    CHECK_RET(connect_to(a, b, p.qual, DT_WAIT_US, NULL), DAT_INVALID_STATE, DAT_INVALID_STATE_EP_CONNECTED);
    CHECK_RET(dat_ep_reset(a->ep), DAT_INVALID_STATE, DAT_INVALID_STATE_EP_CONNECTED);
    DAT_EP_PARAM mp;
    memset(&mp, 0, sizeof(mp));
    mp.ep_attr.max_recv_dtos = 8;
    CHECK_RET(dat_ep_modify(a->ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &mp), DAT_INVALID_STATE,
              DAT_INVALID_STATE_EP_CONNECTED);
    /* Graceful disconnect: a request in flight completes, then both sides
     * see DISCONNECTED. */
    dt_fill(a->buf, 4096, 9);
    DAT_LMR_TRIPLET v = dt_iov(a, 0, 4096);
    DAT_RMR_TRIPLET r = dt_remote(b, 0, 4096);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(1), &r, 0));
    CHECK_OK(dat_ep_disconnect(a->ep, DAT_CLOSE_GRACEFUL_FLAG));
    CHECK_EQ(state_of(a->ep), DAT_EP_STATE_DISCONNECT_PENDING);
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    CHECK(memcmp(b->buf, a->buf, 4096) == 0);
    CHECK_EQ(state_of(a->ep), DAT_EP_STATE_DISCONNECTED);
    CHECK_EQ(state_of(b->ep), DAT_EP_STATE_DISCONNECTED);
    CHECK_RET(dat_ep_disconnect(a->ep, DAT_CLOSE_ABRUPT_FLAG), DAT_INVALID_STATE, DAT_INVALID_STATE_EP_DISCONNECTED);
    CHECK_RET(connect_to(a, b, p.qual, DT_WAIT_US, NULL), DAT_INVALID_STATE, DAT_INVALID_STATE_EP_DISCONNECTED);
    /* Reset, and the same EPs connect again. */
    CHECK_OK(dat_ep_reset(a->ep));
    CHECK_OK(dat_ep_reset(b->ep));
    CHECK_EQ(state_of(a->ep), DAT_EP_STATE_UNCONNECTED);
    dt_pair_connect(&p);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(2), &r, 0));
    CHECK_EQ(dt_wait_dto(a->req_evd, NULL), DAT_DTO_SUCCESS);
    /* Closing an IA abruptly disconnects its EPs: the peer is told. */
    dt_side_close(a);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    dt_side_close(b);
}

static void rejected(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    CHECK_OK(connect_to(a, b, p.qual, DT_WAIT_US, "please"));
    DAT_CR_HANDLE cr = wait_request(b, NULL);
    CHECK_OK(dat_cr_reject(cr));
    CHECK_RET(dat_cr_reject(cr), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_PEER_REJECTED);
    CHECK_EQ(state_of(a->ep), DAT_EP_STATE_DISCONNECTED);
    CHECK_EQ(state_of(b->ep), DAT_EP_STATE_UNCONNECTED);
    /* No service point at that qualifier: rejected by the provider. */
    CHECK_OK(dat_ep_reset(a->ep));
    /* A qualifier nobody listens on: one where a PSP can be created (and is
     * freed again). Qualifiers are ports of this machine, and tests running
     * beside this one listen on some: the first free one after ours. */
    DAT_CONN_QUAL unused = p.qual;
    bool found = false;
    for (int i = 0; i < 200 && !found; i++) {
        DAT_PSP_HANDLE probe;
        unused = unused >= 65535 ? 1024 : unused + 1;
        if (dat_psp_create(b->ia, unused, b->cr_evd, DAT_PSP_CONSUMER_FLAG, &probe) == DAT_SUCCESS) {
            CHECK_OK(dat_psp_free(probe));
            found = true;
        }
    }
    CHECK(found);
    CHECK_OK(connect_to(a, b, unused, DT_WAIT_US, NULL));
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
    CHECK_EQ(state_of(a->ep), DAT_EP_STATE_DISCONNECTED);
    /* An address the connection manager cannot reach, and a NIC the
     * simulated link does not join to ours. */
    CHECK_OK(dat_ep_reset(a->ep));
    struct sockaddr_in far = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x0A000002) };
    CHECK_OK(dat_ep_connect(a->ep, (DAT_IA_ADDRESS_PTR)&far, p.qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT,
                            DAT_CONNECT_DEFAULT_FLAG));
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_UNREACHABLE);
    CHECK_OK(dat_ep_reset(a->ep));
    DAT_PSP_HANDLE self;
    DAT_CONN_QUAL sq;
    CHECK_OK(dat_psp_create_any(a->ia, &sq, a->cr_evd, DAT_PSP_CONSUMER_FLAG, &self));
    CHECK_OK(dat_ep_connect(a->ep, dt_addr(a->ia), sq, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT,
                            DAT_CONNECT_DEFAULT_FLAG));
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_UNREACHABLE);
    CHECK_OK(dat_psp_free(self));
    dt_pair_close(&p);
}

static void timed_out(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    /* Nobody answers the request within 50 us of NIC time. */
    CHECK_OK(connect_to(a, b, p.qual, 50, NULL));
    DAT_CR_HANDLE cr = wait_request(b, NULL);
    CHECK(cr != DAT_HANDLE_NULL);
    DAT_EVENT ev;
    CHECK_RET(dt_wait(a->conn_evd, 40, &ev), DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_TIMED_OUT);
    CHECK_EQ(state_of(a->ep), DAT_EP_STATE_DISCONNECTED);
    /* Accepting it now is too late. */
    CHECK_OK(dat_cr_accept(cr, b->ep, 0, NULL));
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
    CHECK_EQ(state_of(b->ep), DAT_EP_STATE_DISCONNECTED);
    dt_pair_close(&p);
}

/* An error completion breaks the connection for both peers. */
static void broken(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    DAT_LMR_TRIPLET v = dt_iov(a, 0, 64);
    DAT_RMR_TRIPLET r = dt_remote(b, 0, 64);
    r.rmr_context ^= 0x55;   /* a key the peer never issued */
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 1, &v, dt_cookie(3), &r, DAT_COMPLETION_SUPPRESS_FLAG));
    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_ERR_REMOTE_ACCESS);   /* errors are never suppressed */
    CHECK_EQ(d.user_cookie.as_64, 3);
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    CHECK_EQ(state_of(a->ep), DAT_EP_STATE_DISCONNECTED);
    CHECK_EQ(state_of(b->ep), DAT_EP_STATE_DISCONNECTED);
    dt_pair_close(&p);
}

static void reserved_service_point(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    DAT_RSP_HANDLE rsp;
    DAT_CONN_QUAL q = p.qual == 65535 ? 65533 : p.qual + 2;
    DAT_RETURN rr = dat_rsp_create(b->ia, q, b->ep, b->cr_evd, &rsp);
    CHECK_OK(rr);
    if (rr != DAT_SUCCESS) {
        dt_pair_close(&p);
        return;
    }
    CHECK_EQ(state_of(b->ep), DAT_EP_STATE_RESERVED);
    DAT_RSP_PARAM rp;
    CHECK_OK(dat_rsp_query(rsp, DAT_RSP_FIELD_ALL, &rp));
    CHECK(rp.ep_handle == b->ep && rp.conn_qual == q && rp.evd_handle == b->cr_evd && rp.ia_handle == b->ia);
    /* A reserved EP cannot be used for anything else. */
    CHECK_RET(connect_to(b, a, q, DT_WAIT_US, NULL), DAT_INVALID_STATE, DAT_INVALID_STATE_EP_RESERVED);
    CHECK_OK(connect_to(a, b, q, DT_WAIT_US, "rsp"));
    DAT_CR_ARRIVAL_EVENT_DATA arr;
    DAT_CR_HANDLE cr = wait_request(b, &arr);
    CHECK(arr.sp_handle.rsp_handle == rsp);
    DAT_CR_PARAM crp;
    CHECK_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
    CHECK(crp.local_ep_handle == b->ep);
    CHECK_EQ(state_of(b->ep), DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING);
    /* Only the reserved EP may accept it; NULL names it. */
    DAT_EP_HANDLE other;
    CHECK_OK(dat_ep_create(b->ia, b->pz, b->recv_evd, b->req_evd, b->conn_evd, NULL, &other));
    CHECK_RET(dat_cr_accept(cr, other, 0, NULL), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
    CHECK_OK(dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL));
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_OK(dat_rsp_free(rsp));
    CHECK_OK(dat_ep_free(other));
    dt_pair_close(&p);
}

static void service_points(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    DAT_PSP_HANDLE again;
    CHECK_RET(dat_psp_create(b->ia, p.qual, b->cr_evd, DAT_PSP_CONSUMER_FLAG, &again), DAT_CONN_QUAL_IN_USE,
              DAT_NO_SUBTYPE);
    /* The same qualifier on the other IA is another service point. */
    DAT_RETURN r = dat_psp_create(a->ia, p.qual, a->cr_evd, DAT_PSP_CONSUMER_FLAG, &again);
    CHECK_OK(r);
    if (r == DAT_SUCCESS)
        CHECK_OK(dat_psp_free(again));
    DAT_PSP_PARAM pp;
    CHECK_OK(dat_psp_query(p.psp, DAT_PSP_FIELD_ALL, &pp));
    CHECK(pp.ia_handle == b->ia && pp.conn_qual == p.qual && pp.evd_handle == b->cr_evd &&
          pp.psp_flags == DAT_PSP_CONSUMER_FLAG);
    CHECK_RET(dat_psp_create(b->ia, p.qual + 1, b->cr_evd, DAT_PSP_PROVIDER_FLAG, &again), DAT_MODEL_NOT_SUPPORTED,
              DAT_NO_SUBTYPE);
    CHECK_RET(dat_psp_create(b->ia, p.qual + 1, b->cr_evd, (DAT_PSP_FLAGS)7, &again), DAT_INVALID_PARAMETER,
              DAT_INVALID_ARG4);
    CHECK_RET(dat_psp_create(b->ia, 1u << 20, b->cr_evd, DAT_PSP_CONSUMER_FLAG, &again), DAT_INVALID_PARAMETER,
              DAT_INVALID_ARG2);
    /* A request that arrived stays answerable after its PSP is freed. */
    CHECK_OK(connect_to(a, b, p.qual, DT_WAIT_US, NULL));
    DAT_CR_HANDLE cr = wait_request(b, NULL);
    CHECK_OK(dat_psp_free(p.psp));
    CHECK_OK(dat_cr_accept(cr, b->ep, 0, NULL));
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    /* dup_connect: a second EP to the same service point. */
    DAT_PSP_HANDLE psp2;
    DAT_CONN_QUAL q2;
    CHECK_OK(dat_psp_create_any(b->ia, &q2, b->cr_evd, DAT_PSP_CONSUMER_FLAG, &psp2));
    DAT_EP_HANDLE a2, b2, a3, b3;
    CHECK_OK(dat_ep_create(a->ia, a->pz, a->recv_evd, a->req_evd, a->conn_evd, NULL, &a2));
    CHECK_OK(dat_ep_create(b->ia, b->pz, b->recv_evd, b->req_evd, b->conn_evd, NULL, &b2));
    CHECK_OK(dat_ep_create(a->ia, a->pz, a->recv_evd, a->req_evd, a->conn_evd, NULL, &a3));
    CHECK_OK(dat_ep_create(b->ia, b->pz, b->recv_evd, b->req_evd, b->conn_evd, NULL, &b3));
    CHECK_OK(dat_ep_connect(a2, dt_addr(b->ia), q2, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT, 0));
    CHECK_OK(dat_cr_accept(wait_request(b, NULL), b2, 0, NULL));
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_OK(dat_ep_dup_connect(a3, a2, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT));
    DAT_CR_ARRIVAL_EVENT_DATA arr;
    CHECK_OK(dat_cr_accept(wait_request(b, &arr), b3, 0, NULL));
    CHECK_EQ(arr.conn_qual, q2);
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_EQ(state_of(a3), DAT_EP_STATE_CONNECTED);
    /* Freeing a connected EP disconnects it: the peer is told. */
    CHECK_OK(dat_ep_free(a3));
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    CHECK_EQ(state_of(b3), DAT_EP_STATE_DISCONNECTED);
    dt_pair_close(&p);
}

static void arguments(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    struct dt_side *a = &p.s[0], *b = &p.s[1];
    DAT_IA_ADDRESS_PTR to = dt_addr(b->ia);
    char big[300] = { 0 };
    CHECK_RET(dat_ep_connect(a->ep, NULL, p.qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT, 0),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    struct sockaddr_in6 six = { .sin6_family = AF_INET6 };
    CHECK_RET(dat_ep_connect(a->ep, (DAT_IA_ADDRESS_PTR)&six, p.qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT, 0),
              DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNSUPPORTED);
    CHECK_RET(dat_ep_connect(a->ep, to, 1u << 20, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT, 0),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    CHECK_RET(dat_ep_connect(a->ep, to, p.qual, DT_WAIT_US, 300, big, DAT_QOS_BEST_EFFORT, 0),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
    CHECK_RET(dat_ep_connect(a->ep, to, p.qual, DT_WAIT_US, 4, NULL, DAT_QOS_BEST_EFFORT, 0), DAT_INVALID_PARAMETER,
              DAT_INVALID_ARG6);
    CHECK_RET(dat_ep_connect(a->ep, to, p.qual, DT_WAIT_US, 0, NULL, DAT_QOS_PREMIUM, 0), DAT_MODEL_NOT_SUPPORTED,
              DAT_NO_SUBTYPE);
    CHECK_RET(dat_ep_connect(a->ep, to, p.qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT, DAT_CONNECT_MULTIPATH_FLAG),
              DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
    CHECK_RET(dat_ep_connect(a->ep, to, p.qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT, (DAT_CONNECT_FLAGS)6),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);
    CHECK_RET(dat_ep_disconnect(a->ep, DAT_CLOSE_ABRUPT_FLAG), DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED);
    CHECK_RET(dat_ep_disconnect(a->ep, (DAT_CLOSE_FLAGS)5), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_EQ(state_of(a->ep), DAT_EP_STATE_UNCONNECTED);   /* none of those started anything */
    /* Accept: private data limits, and EPs in the wrong state. */
    CHECK_OK(connect_to(a, b, p.qual, DT_WAIT_US, NULL));
    DAT_CR_HANDLE cr = wait_request(b, NULL);
    CHECK_RET(dat_cr_accept(cr, b->ep, 300, big), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    CHECK_RET(dat_cr_accept(cr, b->ep, 4, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
    CHECK_RET(dat_cr_accept(cr, a->ep, 0, NULL), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);   /* another IA's */
    DAT_EP_HANDLE bare;
    CHECK_OK(dat_ep_create(b->ia, b->pz, b->recv_evd, b->req_evd, DAT_HANDLE_NULL, NULL, &bare));
    CHECK_EQ(state_of(bare), DAT_EP_STATE_UNCONFIGURED_UNCONNECTED);
    CHECK_RET(dat_cr_accept(cr, bare, 0, NULL), DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONFIGURED);
    CHECK_RET(dat_ep_connect(bare, dt_addr(a->ia), p.qual, DT_WAIT_US, 0, NULL, DAT_QOS_BEST_EFFORT, 0),
              DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONFIGURED);
    /* Configured by dat_ep_modify, it is an ordinary EP. */
    DAT_EP_PARAM mp;
    memset(&mp, 0, sizeof(mp));
    mp.connect_evd_handle = b->conn_evd;
    CHECK_OK(dat_ep_modify(bare, DAT_EP_FIELD_CONNECT_EVD_HANDLE, &mp));
    CHECK_EQ(state_of(bare), DAT_EP_STATE_UNCONNECTED);
    CHECK_OK(dat_cr_accept(cr, bare, 0, NULL));
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_ESTABLISHED);
    CHECK_OK(dat_ep_disconnect(bare, DAT_CLOSE_ABRUPT_FLAG));
    CHECK_EQ(dt_wait_number(a->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    CHECK_EQ(dt_wait_number(b->conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    dt_pair_close(&p);
}

int main(void)
{
    established_with_private_data();
    rejected();
    timed_out();
    broken();
    reserved_service_point();
    service_points();
    arguments();
    return dt_finish("test_connect");
}
