/*
 * A connection ending while requests are in flight: what each side sees.
 *
 * - A SEND too large for the peer's RECV: the peer's NIC NAKs it and its
 *   RECV completes DAT_DTO_ERR_LOCAL_LENGTH; the peer's library then breaks
 *   the connection. The sender must see its SEND fail with the remote error
 *   (DAT_DTO_ERR_REMOTE_RESPONDER) and then BROKEN, not a FLUSHED SEND
 *   because the peer's connection-manager message overtook the NAK.
 * - A graceful disconnect right after a 1 MiB RDMA WRITE: the WRITE
 *   completes first (every byte lands), then both sides see DISCONNECTED.
 *   A graceful disconnect must not flush what is in flight, whether the
 *   WRITE's completion is reported or suppressed (then no CQE says when it
 *   is done, and the library has to find out another way).
 */
#include "dat_test.h"

#include <string.h>

static void send_too_large(void)
{
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);

    DAT_LMR_TRIPLET small = dt_iov(&p.s[1], 0, 16);
    CHECK_OK(dat_ep_post_recv(p.s[1].ep, 1, &small, dt_cookie(7), DAT_COMPLETION_DEFAULT_FLAG));
    DAT_LMR_TRIPLET big = dt_iov(&p.s[0], 0, 1000);
    CHECK_OK(dat_ep_post_send(p.s[0].ep, 1, &big, dt_cookie(8), DAT_COMPLETION_DEFAULT_FLAG));

    DAT_DTO_COMPLETION_EVENT_DATA d;
    CHECK_EQ(dt_wait_dto(p.s[0].req_evd, &d), DAT_DTO_ERR_REMOTE_RESPONDER);
    CHECK_EQ(d.user_cookie.as_64, 8u);
    CHECK_EQ(dt_wait_number(p.s[0].conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);

    CHECK_EQ(dt_wait_dto(p.s[1].recv_evd, &d), DAT_DTO_ERR_LOCAL_LENGTH);
    CHECK_EQ(d.user_cookie.as_64, 7u);
    CHECK_EQ(dt_wait_number(p.s[1].conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_BROKEN);
    dt_pair_close(&p);
}

static void graceful_after_write(DAT_COMPLETION_FLAGS flags)
{
    enum { LEN = 1u << 20 };
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);
    dt_pair_connect(&p);

    uint8_t *src = malloc(LEN), *dst = malloc(LEN);
    if (!src || !dst) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    dt_fill(src, LEN, 41);
    memset(dst, 0, LEN);
    DAT_REGION_DESCRIPTION r;
    DAT_LMR_HANDLE lmr_src, lmr_dst;
    DAT_LMR_CONTEXT ctx_src, ctx_dst;
    DAT_RMR_CONTEXT rctx_src, rctx_dst;
    DAT_VLEN reg_len;
    DAT_VADDR reg_addr;
    r.for_va = src;
    DT_MUST(dat_lmr_create(p.s[0].ia, DAT_MEM_TYPE_VIRTUAL, r, LEN, p.s[0].pz, DAT_MEM_PRIV_ALL_FLAG, &lmr_src,
                           &ctx_src, &rctx_src, &reg_len, &reg_addr));
    r.for_va = dst;
    DT_MUST(dat_lmr_create(p.s[1].ia, DAT_MEM_TYPE_VIRTUAL, r, LEN, p.s[1].pz, DAT_MEM_PRIV_ALL_FLAG, &lmr_dst,
                           &ctx_dst, &rctx_dst, &reg_len, &reg_addr));

    DAT_LMR_TRIPLET l = {.lmr_context = ctx_src, .virtual_address = (DAT_VADDR)(uintptr_t)src, .segment_length = LEN};
    DAT_RMR_TRIPLET rt = {.rmr_context = rctx_dst, .target_address = (DAT_VADDR)(uintptr_t)dst, .segment_length = LEN};
    CHECK_OK(dat_ep_post_rdma_write(p.s[0].ep, 1, &l, dt_cookie(9), &rt, flags));
    CHECK_OK(dat_ep_disconnect(p.s[0].ep, DAT_CLOSE_GRACEFUL_FLAG));

    DAT_DTO_COMPLETION_EVENT_DATA d;
    if (flags == DAT_COMPLETION_DEFAULT_FLAG) {
        CHECK_EQ(dt_wait_dto(p.s[0].req_evd, &d), DAT_DTO_SUCCESS);
        CHECK_EQ(d.transfered_length, LEN);
    }
    CHECK_EQ(dt_wait_number(p.s[0].conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    /* A suppressed success leaves no event; a flush would have left one. */
    DAT_EVENT ev;
    CHECK_EQ(DAT_GET_TYPE(dt_wait(p.s[0].req_evd, 0, &ev)), DAT_TIMEOUT_EXPIRED);
    CHECK_EQ(dt_wait_number(p.s[1].conn_evd, DT_WAIT_US), DAT_CONNECTION_EVENT_DISCONNECTED);
    CHECK(memcmp(src, dst, LEN) == 0);

    CHECK_OK(dat_lmr_free(lmr_src));
    CHECK_OK(dat_lmr_free(lmr_dst));
    free(src);
    free(dst);
    dt_pair_close(&p);
}

int main(void)
{
    send_too_large();
    graceful_after_write(DAT_COMPLETION_DEFAULT_FLAG);
    graceful_after_write(DAT_COMPLETION_SUPPRESS_FLAG);
    return dt_finish("test_peer_loss");
}
