/* Small helpers shared by the C tests of the driver and the platform: the
 * checks (rnic_check.h), and a connected pair of QPs on rnic0 and rnic1 with
 * registered buffers. */
#ifndef RNIC_TEST_H
#define RNIC_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rnic/rnic_drv.h"
#include "rnic_check.h"
#include "rnic_hw.h"

/* Prints the summary line CTest output shows and returns the exit code: a
 * test that checked nothing fails too, since it proved nothing. */
int rnic_test_finish(const char *name);

#define ALL_ACCESS (RNIC_ACCESS_LOCAL_READ | RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE)
/* Cycles a test waits for one completion: a 1 MiB transfer takes ~140,000. */
#define BUDGET 2000000u

struct pair {
    rnic_dev *dev[2];
    uint16_t pz[2];
    rnic_cq *cq[2];
    rnic_qp *qp[2];
    /* The QP_TIMERS both QPs get (rnic_qp_attr.timers): NULL, as pair_open
     * leaves it, is the driver's defaults. Set it, then pair_reconnect, for
     * a pair with other timers (a test about the platform's time may want
     * no ACK timeout). */
    const struct rnic_qp_timers *timers;
};

/* Opens rnic0 and rnic1 (once per process) and connects a fresh QP pair
 * (every member zeroed first: default timers). */
void pair_open(struct pair *p);
void pair_close(struct pair *p);
/* A fresh QP pair on the already open devices, with p->timers. */
void pair_reconnect(struct pair *p);

/* Posts one send-queue WR on side `s` and waits for its completion. */
int post_and_wait(struct pair *p, int s, const struct rnic_send_wr *wr, struct rnic_wc *wc);
/* Waits for one completion on side `s`; returns 1 or RNIC_E_TIMEOUT. */
int wait_cq(struct pair *p, int s, struct rnic_wc *wc);

void fill_pattern(uint8_t *b, size_t n, unsigned seed);
#endif
