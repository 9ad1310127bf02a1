/*
 * dat_rmr_bind(3DAT) and the other RMR calls, as far as this stage goes:
 * memory windows come with issue 4, so every call checks its handles and
 * then reports DAT_NOT_IMPLEMENTED. No RMR handle can exist yet, so every
 * one is invalid.
 */
#include "dat_test.h"

int main(void)
{
    struct dt_side s;
    dt_side_open(&s, 0, NULL);
    DAT_RMR_HANDLE rmr = (DAT_RMR_HANDLE)0x5000;
    CHECK_RET(dat_rmr_create(s.pz, &rmr), DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
    CHECK_RET(dat_rmr_create(s.ia, &rmr), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
    CHECK_RET(dat_rmr_create(DAT_HANDLE_NULL, &rmr), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
    CHECK_RET(dat_rmr_create(s.pz, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    DAT_LMR_TRIPLET t = { s.lmr_ctx, 0, (DAT_VADDR)(uintptr_t)s.buf, 64 };
    DAT_RMR_CONTEXT ctx;
    DAT_RMR_COOKIE ck = { .as_64 = 1 };
    DAT_HANDLE not_rmr[] = { DAT_HANDLE_NULL, s.lmr, s.ep, s.pz, (DAT_HANDLE)0x1234 };
    for (size_t i = 0; i < sizeof(not_rmr) / sizeof(not_rmr[0]); i++) {
        CHECK_RET(dat_rmr_bind(not_rmr[i], &t, DAT_MEM_PRIV_REMOTE_READ_FLAG, s.ep, ck, 0, &ctx), DAT_INVALID_HANDLE,
                  DAT_INVALID_HANDLE_RMR);
        DAT_RMR_PARAM q;
        CHECK_RET(dat_rmr_query(not_rmr[i], DAT_RMR_FIELD_ALL, &q), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
        CHECK_RET(dat_rmr_free(not_rmr[i]), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
    }
    /* No RMR can be bound into an LMR, so an LMR is never in use by one. */
    DAT_LMR_HANDLE l;
    DAT_LMR_CONTEXT c;
    DAT_REGION_DESCRIPTION r = { .for_va = s.buf };
    CHECK_OK(dat_lmr_create(s.ia, DAT_MEM_TYPE_VIRTUAL, r, 4096, s.pz, DAT_MEM_PRIV_ALL_FLAG, &l, &c, NULL, NULL,
                            NULL));
    CHECK_OK(dat_lmr_free(l));
    dt_side_close(&s);
    return dt_finish("test_rmr_bind");
}
