/*
 * The QP timers from the environment (docs/libdat.md, "Environment"):
 * RNIC_ACK_TIMEOUT, RNIC_RETRY_CNT, RNIC_RNR_RETRY and RNIC_MIN_RNR_TIMER.
 * A value out of range fails dat_ia_open with DAT_INVALID_PARAMETER /
 * DAT_INVALID_ARG1 and the one stderr line every libdat variable has; valid
 * ones reach every QP the IA creates for an EP, taken as they were at
 * dat_ia_open; unset or empty, the driver's defaults.
 *
 * Nothing in the DAT API shows a QP's timers, so this test looks at the
 * NIC's QP_TIMERS staging register through the simulated platform (as
 * bench_post_cost drives it): it holds the last word the driver wrote, for
 * the QP created or connected last on that NIC. Linked statically, so the
 * platform it reads is the one libdat runs.
 */
#define _DEFAULT_SOURCE   /* setenv, unsetenv */
#include <stdlib.h>
#include <string.h>

#include "dat_test.h"
#include "rnic/rnic_drv.h"
#include "rnic_hw.h"
#include "rnic_sim.h"

static const char *const vars[] = {"RNIC_ACK_TIMEOUT", "RNIC_RETRY_CNT", "RNIC_RNR_RETRY", "RNIC_MIN_RNR_TIMER"};

static uint32_t word(uint32_t ack, uint32_t retry, uint32_t rnr, uint32_t min_rnr)
{
    return ack << RNIC_QP_TIMERS_ACK_TIMEOUT_SHIFT | retry << RNIC_QP_TIMERS_RETRY_CNT_SHIFT |
           rnr << RNIC_QP_TIMERS_RNR_RETRY_SHIFT | min_rnr << RNIC_QP_TIMERS_MIN_RNR_TIMER_SHIFT;
}

#define DEFAULTS word(RNIC_QP_DEFAULT_ACK_TIMEOUT, RNIC_QP_DEFAULT_RETRY_CNT, RNIC_QP_DEFAULT_RNR_RETRY, \
                      RNIC_QP_DEFAULT_MIN_RNR_TIMER)

static void set_all(const char *ack, const char *retry, const char *rnr, const char *min_rnr)
{
    const char *v[] = {ack, retry, rnr, min_rnr};
    for (int i = 0; i < 4; i++) {
        if (v[i])
            setenv(vars[i], v[i], 1);
        else
            unsetenv(vars[i]);
    }
}

static uint32_t staged(int nic)
{
    static rnic_sim_dev *dev[2];
    char name[8];
    snprintf(name, sizeof(name), "rnic%d", nic);
    if (!dev[nic] && rnic_sim_open(name, &dev[nic]) != 0) {
        fprintf(stderr, "cannot reach %s through the platform\n", name);
        exit(2);
    }
    return rnic_sim_bar_read32(dev[nic], RNIC_REG_QP_TIMERS);
}

/* A bad value: refused at the open, named on stderr exactly as
 * docs/libdat.md shows, with nothing else printed. */
static void refused(const char *name, const char *value, const char *accepted)
{
    setenv(name, value, 1);
    DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
    DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
    char ia_name[] = "rnic0";
    dt_capture_start();
    CHECK_RET(dat_ia_open(ia_name, 8, &async, &ia), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    const char *err = dt_capture_end();
    char want[256];
    snprintf(want, sizeof(want), "libdat: %s=%s is invalid; accepted: %s\n", name, value, accepted);
    if (!rnic_check_record(strcmp(err, want) == 0))
        fprintf(stderr, "  stderr \"%s\", expected \"%s\"\n", err, want);
    CHECK(ia == DAT_HANDLE_NULL);
    unsetenv(name);
}

/* An IA on rnic<nic> with a PZ and a DTO EVD, for EPs without a connection. */
struct bare {
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async, dto, conn;
    DAT_PZ_HANDLE pz;
};

static void bare_open(struct bare *b, int nic)
{
    char name[8];
    snprintf(name, sizeof(name), "rnic%d", nic);
    b->async = DAT_HANDLE_NULL;
    DT_MUST(dat_ia_open(name, 8, &b->async, &b->ia));
    DT_MUST(dat_pz_create(b->ia, &b->pz));
    DT_MUST(dat_evd_create(b->ia, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &b->dto));
    DT_MUST(dat_evd_create(b->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &b->conn));
}

/* An EP on b: its QP is created now, so the register holds its timers. */
static uint32_t ep_timers(struct bare *b, int nic)
{
    DAT_EP_HANDLE ep;
    DT_MUST(dat_ep_create(b->ia, b->pz, b->dto, b->dto, b->conn, NULL, &ep));
    const uint32_t w = staged(nic);
    CHECK_OK(dat_ep_free(ep));
    return w;
}

int main(void)
{
    set_all(NULL, NULL, NULL, NULL);

    /* Each variable one past its range, a sign, a word. */
    refused("RNIC_RETRY_CNT", "8", "a decimal number from 0 to 7");
    refused("RNIC_RETRY_CNT", "-1", "a decimal number from 0 to 7");
    refused("RNIC_RETRY_CNT", "seven", "a decimal number from 0 to 7");
    refused("RNIC_ACK_TIMEOUT", "32", "a decimal number from 0 to 31");
    refused("RNIC_RNR_RETRY", "8", "a decimal number from 0 to 7");
    refused("RNIC_MIN_RNR_TIMER", "32", "a decimal number from 0 to 31");
    /* One bad variable among good ones is enough. */
    set_all("20", "3", "9", "1");
    refused("RNIC_RNR_RETRY", "9", "a decimal number from 0 to 7");

    /* Unset: the driver's defaults (ibv_rc_pingpong's). */
    set_all(NULL, NULL, NULL, NULL);
    struct bare d0;
    bare_open(&d0, 0);
    CHECK_EQ(ep_timers(&d0, 0), word(14, 7, 7, 12));
    CHECK_EQ(DEFAULTS, word(14, 7, 7, 12));

    /* Valid values, the largest included, reach the QP; an empty variable
     * is an unset one. d0, opened before, keeps what it was opened with. */
    set_all("31", "0", "7", "");
    struct bare x0, x1;
    bare_open(&x0, 0);
    CHECK_EQ(ep_timers(&x0, 0), word(31, 0, 7, RNIC_QP_DEFAULT_MIN_RNR_TIMER));
    CHECK_EQ(ep_timers(&d0, 0), DEFAULTS);
    set_all("20", "3", "0", "1");
    bare_open(&x1, 1);
    CHECK_EQ(ep_timers(&x1, 1), word(20, 3, 0, 1));
    CHECK_EQ(ep_timers(&x0, 0), word(31, 0, 7, RNIC_QP_DEFAULT_MIN_RNR_TIMER));

    /* Connecting loads the timers again (QP_CMD_RTS): the connecting EP's
     * own, though a QP of another IA was created after it. And the
     * connection carries data. */
    struct dt_pair p;
    dt_pair_open(&p, NULL, NULL);   /* opened with 20, 3, 0, 1 */
    CHECK_EQ(staged(1), word(20, 3, 0, 1));
    CHECK_EQ(ep_timers(&d0, 0), DEFAULTS);
    dt_pair_connect(&p);
    CHECK_EQ(staged(0), word(20, 3, 0, 1));
    CHECK_EQ(staged(1), word(20, 3, 0, 1));
    CHECK_EQ(dt_peer_write(&p, p.s[1].rmr_ctx, 0, 256, 5), DAT_DTO_SUCCESS);
    dt_pair_close(&p);

    CHECK_OK(dat_ia_close(d0.ia, DAT_CLOSE_ABRUPT_FLAG));
    CHECK_OK(dat_ia_close(x0.ia, DAT_CLOSE_ABRUPT_FLAG));
    CHECK_OK(dat_ia_close(x1.ia, DAT_CLOSE_ABRUPT_FLAG));
    return dt_finish("test_qp_timers_env");
}
