/*
 * EP attributes the DAT 1.1 way: a consumer written for DAT 1.1 (or for
 * another uDAPL provider) zeroes its DAT_EP_ATTR and sets only the fields
 * it knows. The zeros where zero is no usable limit take the provider's
 * defaults (docs/libdat.md, "EP attributes from DAT 1.1 consumers"), so
 * SEND, multi-segment RDMA WRITE and RDMA READ work, and dat_ep_query
 * reports the values in force. Out-of-range values are still refused, at
 * dat_ep_create and dat_ep_modify; dat_ep_modify applies the zero rules to
 * the fields its mask names, and only to those.
 */
#include "dat_test.h"

#include <string.h>

/* What the provider gives an EP created with NULL attributes. */
static DAT_EP_ATTR def;
/* The IA's limits. */
static DAT_IA_ATTR ia_attr;

static void learn_defaults(void)
{
    struct dt_side t;
    dt_side_open(&t, 0, NULL);
    DAT_EP_PARAM prm;
    CHECK_OK(dat_ep_query(t.ep, DAT_EP_FIELD_ALL, &prm));
    def = prm.ep_attr;
    CHECK_OK(dat_ia_query(t.ia, NULL, DAT_IA_FIELD_ALL, &ia_attr, 0, NULL));
    dt_side_close(&t);
    /* The defaults themselves are usable limits. */
    CHECK(def.max_message_size != 0);
    CHECK(def.max_rdma_size != 0);
    CHECK(def.max_recv_dtos != 0);
    CHECK(def.max_request_dtos != 0);
    CHECK(def.max_recv_iov >= 2);
    CHECK(def.max_request_iov >= 2);
    CHECK(def.max_rdma_read_in != 0);
    CHECK(def.max_rdma_read_out != 0);
    CHECK(def.max_rdma_read_iov >= 3);
    CHECK(def.max_rdma_write_iov >= 3);
    CHECK_EQ(def.srq_soft_hw, DAT_HW_DEFAULT);
}

/* What a DAT 1.1 program fills in. msg != 0: it also sets max_message_size. */
static DAT_EP_ATTR attr11(DAT_VLEN msg)
{
    DAT_EP_ATTR a;
    memset(&a, 0, sizeof(a));
    a.service_type = DAT_SERVICE_TYPE_RC;
    a.max_message_size = msg;
    a.qos = DAT_QOS_BEST_EFFORT;
    a.recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
    a.request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
    a.max_recv_dtos = 8;
    a.max_request_dtos = 8;
    a.max_recv_iov = 2;
    a.max_request_iov = 2;
    return a;
}

/* dat_ep_query reports for every field the value given, or the provider's
 * default where the given one was 0; never a zero where 0 is no limit. */
static void check_in_force(DAT_EP_HANDLE ep, const DAT_EP_ATTR *given)
{
    DAT_EP_PARAM prm;
    memset(&prm, 0xA5, sizeof(prm));
    CHECK_OK(dat_ep_query(ep, DAT_EP_FIELD_ALL, &prm));
    const DAT_EP_ATTR *q = &prm.ep_attr;
#define IN_FORCE(field)                                                                 \
    do {                                                                                \
        CHECK(q->field != 0);                                                           \
        CHECK_EQ(q->field, given->field ? given->field : def.field);                    \
    } while (0)
    IN_FORCE(max_message_size);
    IN_FORCE(max_rdma_size);
    IN_FORCE(max_recv_dtos);
    IN_FORCE(max_request_dtos);
    IN_FORCE(max_recv_iov);
    IN_FORCE(max_request_iov);
    IN_FORCE(max_rdma_read_in);
    IN_FORCE(max_rdma_read_out);
    IN_FORCE(max_rdma_read_iov);
    IN_FORCE(max_rdma_write_iov);
    IN_FORCE(srq_soft_hw);
#undef IN_FORCE
    /* Fields whose zero is the default value itself. */
    CHECK_EQ(q->service_type, DAT_SERVICE_TYPE_RC);
    CHECK_EQ(q->qos, DAT_QOS_BEST_EFFORT);
    CHECK_EQ(q->recv_completion_flags, given->recv_completion_flags);
    CHECK_EQ(q->request_completion_flags, given->request_completion_flags);
    CHECK_EQ(q->ep_transport_specific_count, 0);
    CHECK_EQ(q->ep_provider_specific_count, 0);
}

/* A SEND of send_len bytes from side 0 (two segments) into a RECV of side 1
 * (two segments), one back from side 1, an RDMA WRITE gathered from three
 * segments and an RDMA READ scattered into three; every byte checked. */
static void exercise(struct dt_pair *p, size_t send_len)
{
    struct dt_side *a = &p->s[0], *b = &p->s[1];
    DAT_DTO_COMPLETION_EVENT_DATA d;

    /* SEND a -> b: a's [0, send_len) into b's [30000, 40000) and [42000, 54000). */
    dt_fill(a->buf, send_len, (unsigned)send_len);
    memset(b->buf, 0, DT_BUF);
    DAT_LMR_TRIPLET rv[2] = { dt_iov(b, 30000, 10000), dt_iov(b, 42000, 12000) };
    CHECK_OK(dat_ep_post_recv(b->ep, 2, rv, dt_cookie(1), DAT_COMPLETION_DEFAULT_FLAG));
    const size_t first = send_len / 3;
    DAT_LMR_TRIPLET sv[2] = { dt_iov(a, 0, first), dt_iov(a, first, send_len - first) };
    CHECK_OK(dat_ep_post_send(a->ep, 2, sv, dt_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 2);
    CHECK_EQ(d.transfered_length, send_len);
    CHECK_EQ(dt_wait_dto(b->recv_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 1);
    CHECK_EQ(d.transfered_length, send_len);
    const size_t in_first = send_len < 10000 ? send_len : 10000;
    CHECK(memcmp(b->buf + 30000, a->buf, in_first) == 0);
    CHECK(memcmp(b->buf + 42000, a->buf + in_first, send_len - in_first) == 0);
    CHECK_EQ(b->buf[29999], 0);
    CHECK_EQ(b->buf[42000 + (send_len - in_first)], 0);

    /* SEND b -> a: the passive side's EP got the same attributes. */
    dt_fill(b->buf, 4000, 11);
    memset(a->buf + 50000, 0, 8000);
    DAT_LMR_TRIPLET ra = dt_iov(a, 50000, 6000), sb = dt_iov(b, 0, 4000);
    CHECK_OK(dat_ep_post_recv(a->ep, 1, &ra, dt_cookie(3), DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_OK(dat_ep_post_send(b->ep, 1, &sb, dt_cookie(4), DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_EQ(dt_wait_dto(b->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 4);
    CHECK_EQ(dt_wait_dto(a->recv_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 3);
    CHECK_EQ(d.transfered_length, 4000);
    CHECK(memcmp(a->buf + 50000, b->buf, 4000) == 0);
    CHECK_EQ(a->buf[54000], 0);

    /* RDMA WRITE a -> b, gathered from three segments into b's [10000, 16000). */
    dt_fill(a->buf, 9000, 21);
    memset(b->buf, 0, DT_BUF);
    DAT_LMR_TRIPLET wv[3] = { dt_iov(a, 0, 1000), dt_iov(a, 2000, 2000), dt_iov(a, 6000, 3000) };
    DAT_RMR_TRIPLET wr = dt_remote(b, 10000, 6000);
    CHECK_OK(dat_ep_post_rdma_write(a->ep, 3, wv, dt_cookie(5), &wr, DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 5);
    CHECK_EQ(d.transfered_length, 6000);
    CHECK(memcmp(b->buf + 10000, a->buf, 1000) == 0);
    CHECK(memcmp(b->buf + 11000, a->buf + 2000, 2000) == 0);
    CHECK(memcmp(b->buf + 13000, a->buf + 6000, 3000) == 0);
    CHECK_EQ(b->buf[9999], 0);
    CHECK_EQ(b->buf[16000], 0);

    /* RDMA READ of b's [20000, 26000) into three segments of a. */
    dt_fill(b->buf + 20000, 6000, 31);
    memset(a->buf + 30000, 0, 16000);
    DAT_LMR_TRIPLET rdv[3] = { dt_iov(a, 30000, 1500), dt_iov(a, 33000, 2000), dt_iov(a, 40000, 2500) };
    DAT_RMR_TRIPLET rr = dt_remote(b, 20000, 6000);
    CHECK_OK(dat_ep_post_rdma_read(a->ep, 3, rdv, dt_cookie(6), &rr, DAT_COMPLETION_DEFAULT_FLAG));
    CHECK_EQ(dt_wait_dto(a->req_evd, &d), DAT_DTO_SUCCESS);
    CHECK_EQ(d.user_cookie.as_64, 6);
    CHECK_EQ(d.transfered_length, 6000);
    CHECK(memcmp(a->buf + 30000, b->buf + 20000, 1500) == 0);
    CHECK(memcmp(a->buf + 33000, b->buf + 21500, 2000) == 0);
    CHECK(memcmp(a->buf + 40000, b->buf + 23500, 2500) == 0);
    CHECK_EQ(a->buf[31500], 0);
    CHECK_EQ(a->buf[35000], 0);
    CHECK_EQ(a->buf[42500], 0);
}

/* A DAT 1.1 program that sets max_message_size: its value is kept (a SEND
 * beyond it is a length error), the zeros it left become the defaults. */
static void dat11_with_message_size(void)
{
    const DAT_EP_ATTR a = attr11(8192);
    struct dt_pair p;
    dt_pair_open(&p, &a, &a);
    check_in_force(p.s[0].ep, &a);
    check_in_force(p.s[1].ep, &a);
    dt_pair_connect(&p);
    exercise(&p, 8192);
    check_in_force(p.s[0].ep, &a);
    DAT_LMR_TRIPLET big[2] = { dt_iov(&p.s[0], 0, 4096), dt_iov(&p.s[0], 4096, 4097) };
    CHECK_RET(dat_ep_post_send(p.s[0].ep, 2, big, dt_cookie(7), DAT_COMPLETION_DEFAULT_FLAG), DAT_LENGTH_ERROR,
              DAT_NO_SUBTYPE);
    /* The explicit limit of 2 segments is kept too. */
    DAT_LMR_TRIPLET three[3] = { dt_iov(&p.s[0], 0, 10), dt_iov(&p.s[0], 10, 10), dt_iov(&p.s[0], 20, 10) };
    CHECK_RET(dat_ep_post_send(p.s[0].ep, 3, three, dt_cookie(8), DAT_COMPLETION_DEFAULT_FLAG),
              DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    DAT_EVENT ev;
    CHECK_RET(dat_evd_dequeue(p.s[0].req_evd, &ev), DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
    dt_pair_close(&p);
}

/* max_message_size left 0 as well: a SEND well beyond 8 KiB is fine. */
static void dat11_without_message_size(void)
{
    const DAT_EP_ATTR a = attr11(0);
    struct dt_pair p;
    dt_pair_open(&p, &a, &a);
    check_in_force(p.s[0].ep, &a);
    check_in_force(p.s[1].ep, &a);
    dt_pair_connect(&p);
    exercise(&p, 20000);
    check_in_force(p.s[0].ep, &a);
    check_in_force(p.s[1].ep, &a);
    dt_pair_close(&p);
}

/* Out-of-range values: refused at create (ARG6) and at modify (ARG3), and
 * the EP keeps its attributes after a refused modify. */
static void out_of_range(void)
{
    struct dt_side s;
    dt_side_open(&s, 0, NULL);
    struct bad {
        const char *what;
        DAT_EP_PARAM_MASK bit;
        DAT_EP_ATTR a;
    } bad[12];
    int n = 0;
#define BAD(bit_, field, value)                                                          \
    do {                                                                                \
        bad[n].what = #field " = " #value;                                              \
        bad[n].bit = (bit_);                                                            \
        bad[n].a = attr11(0);                                                           \
        bad[n].a.field = (value);                                                       \
        n++;                                                                            \
    } while (0)
    BAD(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV, max_request_iov, ia_attr.max_iov_segments_per_dto + 1);
    BAD(DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV, max_recv_iov, ia_attr.max_iov_segments_per_dto + 1);
    BAD(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV, max_rdma_write_iov, ia_attr.max_iov_segments_per_rdma_write + 1);
    BAD(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV, max_rdma_read_iov, ia_attr.max_iov_segments_per_rdma_read + 1);
    BAD(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, max_rdma_read_in, ia_attr.max_rdma_read_per_ep_in + 1);
    BAD(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, max_rdma_read_out, ia_attr.max_rdma_read_per_ep_out + 1);
    BAD(DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, max_recv_dtos, ia_attr.max_dto_per_ep + 1);
    BAD(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS, max_request_dtos, ia_attr.max_dto_per_ep + 1);
    BAD(DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, max_message_size, ia_attr.max_message_size + 1);
    BAD(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, max_rdma_size, ia_attr.max_rdma_size + 1);
    /* Negative is not zero: no default for it. */
    BAD(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV, max_request_iov, -1);
    BAD(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, max_rdma_read_out, -1);
#undef BAD
    for (int i = 0; i < n; i++) {
        DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
        const int before = rnic_check_failures();
        CHECK_RET(dat_ep_create(s.ia, s.pz, s.recv_evd, s.req_evd, s.conn_evd, &bad[i].a, &ep),
                  DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
        CHECK(ep == DAT_HANDLE_NULL);
        DAT_EP_PARAM mp;
        memset(&mp, 0, sizeof(mp));
        mp.ep_attr = bad[i].a;
        CHECK_RET(dat_ep_modify(s.ep, bad[i].bit, &mp), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
        if (rnic_check_failures() != before)
            fprintf(stderr, "  (with %s)\n", bad[i].what);
    }
    check_in_force(s.ep, &def);
    dt_side_close(&s);
}

/* dat_ep_modify: zeros in the fields its mask names become the defaults;
 * a field it does not name keeps its value, whatever ep_attr holds there.
 * The EP then works at the defaults' limits, not the old small ones. */
static void modify_to_zero(void)
{
    DAT_EP_ATTR small = def;
    small.max_message_size = 64;
    small.max_rdma_size = 64;
    small.max_recv_dtos = 4;
    small.max_request_dtos = 4;
    small.max_recv_iov = 1;
    small.max_request_iov = 1;
    small.max_rdma_read_in = 1;
    small.max_rdma_read_out = 1;
    small.max_rdma_read_iov = 1;
    small.max_rdma_write_iov = 1;
    small.srq_soft_hw = 5;
    struct dt_pair p;
    dt_pair_open(&p, &small, NULL);
    check_in_force(p.s[0].ep, &small);   /* non-zero values are kept */
    const DAT_EP_PARAM_MASK named =
        DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE | DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE |
        DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS | DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV |
        DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV | DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN |
        DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT | DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV |
        DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV | DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW;
    DAT_EP_PARAM mp;
    memset(&mp, 0, sizeof(mp));
    CHECK_OK(dat_ep_modify(p.s[0].ep, named, &mp));
    DAT_EP_ATTR now = def;
    now.max_recv_dtos = 4;   /* not named: kept, although mp holds 0 there */
    check_in_force(p.s[0].ep, &now);
    /* Service type named with 0: RC, accepted. */
    CHECK_OK(dat_ep_modify(p.s[0].ep, DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, &mp));
    check_in_force(p.s[0].ep, &now);
    dt_pair_connect(&p);
    exercise(&p, 3000);
    dt_pair_close(&p);
}

int main(void)
{
    learn_defaults();
    dat11_with_message_size();
    dat11_without_message_size();
    out_of_range();
    modify_to_zero();
    return dt_finish("test_ep_attr11");
}
