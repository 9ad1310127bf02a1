/*
 * An IA opened with another IA's async-stream EVD as its async EVD
 * (dat_ia_open's async_evd_handle, in and out), then the other IA closed
 * abruptly: the EVD goes with the IA that created it, and the IA that was
 * given it is left without one (dat_ia_query: DAT_EVD_OUT_OF_SCOPE), never
 * with a pointer to freed memory. It adopts the next async-stream EVD it
 * creates. Closing the IA that was given the EVD does not destroy it (the
 * dat_ia_close page). A graceful close of the creator waits for its users
 * (docs/libdat.md, "Closing an IA").
 */
#include "dat_test.h"

static DAT_EVD_HANDLE async_of(DAT_IA_HANDLE ia)
{
    DAT_EVD_HANDLE h = DAT_HANDLE_NULL;
    CHECK_OK(dat_ia_query(ia, &h, 0, NULL, 0, NULL));
    return h;
}

/* The given EVD is one the creator made with the async stream, besides its
 * own async EVD. */
static void given_other_async_stream_evd(void)
{
    DAT_IA_HANDLE a, b;
    DAT_EVD_HANDLE a_async = DAT_HANDLE_NULL, stream;
    DT_MUST(dat_ia_open("rnic0", 8, &a_async, &a));
    CHECK_OK(dat_evd_create(a, 8, DAT_HANDLE_NULL, DAT_EVD_ASYNC_FLAG, &stream));
    CHECK(async_of(a) == a_async);
    DAT_EVD_HANDLE given = stream;
    CHECK_OK(dat_ia_open("rnic0", 8, &given, &b));
    CHECK(given == stream);
    CHECK(async_of(b) == stream);
    /* In use as b's async EVD. */
    CHECK_RET(dat_evd_free(stream), DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE);
    CHECK_RET(dat_ia_close(a, DAT_CLOSE_GRACEFUL_FLAG), DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE);

    CHECK_OK(dat_ia_close(a, DAT_CLOSE_ABRUPT_FLAG));
    CHECK(async_of(b) == DAT_EVD_OUT_OF_SCOPE);
    DAT_EVD_PARAM q;
    CHECK_RET(dat_evd_query(stream, DAT_EVD_FIELD_ALL, &q), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
    DAT_EVENT ev;
    CHECK_RET(dat_evd_dequeue(stream, &ev), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
    /* b takes the next EVD it creates with the async stream. */
    DAT_EVD_HANDLE own;
    CHECK_OK(dat_evd_create(b, 8, DAT_HANDLE_NULL, DAT_EVD_ASYNC_FLAG, &own));
    CHECK(async_of(b) == own);
    CHECK_OK(dat_ia_close(b, DAT_CLOSE_GRACEFUL_FLAG));
}

/* The given EVD is the creator's own async EVD. */
static void given_own_async_evd(void)
{
    DAT_IA_HANDLE a, b;
    DAT_EVD_HANDLE a_async = DAT_HANDLE_NULL;
    DT_MUST(dat_ia_open("rnic0", 8, &a_async, &a));
    DAT_EVD_HANDLE given = a_async;
    CHECK_OK(dat_ia_open("rnic0", 8, &given, &b));
    CHECK(async_of(b) == a_async);
    CHECK_RET(dat_ia_close(a, DAT_CLOSE_GRACEFUL_FLAG), DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE);
    CHECK_OK(dat_ia_close(a, DAT_CLOSE_ABRUPT_FLAG));
    CHECK(async_of(b) == DAT_EVD_OUT_OF_SCOPE);
    DAT_EVENT ev;
    CHECK_RET(dat_evd_dequeue(a_async, &ev), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
    CHECK_OK(dat_ia_close(b, DAT_CLOSE_GRACEFUL_FLAG));
}

/* The other order: the IA that was given the EVD closes first and leaves
 * it to its creator, which may then close gracefully. */
static void given_closes_first(void)
{
    DAT_IA_HANDLE a, b;
    DAT_EVD_HANDLE a_async = DAT_HANDLE_NULL, stream;
    DT_MUST(dat_ia_open("rnic0", 8, &a_async, &a));
    CHECK_OK(dat_evd_create(a, 8, DAT_HANDLE_NULL, DAT_EVD_ASYNC_FLAG, &stream));
    DAT_EVD_HANDLE given = stream;
    CHECK_OK(dat_ia_open("rnic0", 8, &given, &b));
    CHECK_OK(dat_ia_close(b, DAT_CLOSE_ABRUPT_FLAG));
    DAT_EVD_PARAM q;
    CHECK_OK(dat_evd_query(stream, DAT_EVD_FIELD_ALL, &q));
    CHECK(q.ia_handle == a);
    CHECK_OK(dat_evd_free(stream));
    CHECK_OK(dat_ia_close(a, DAT_CLOSE_GRACEFUL_FLAG));
}

int main(void)
{
    given_other_async_stream_evd();
    given_own_async_evd();
    given_closes_first();
    return dt_finish("test_ia_close_shared_async");
}
