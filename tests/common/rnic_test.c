#include "rnic_test.h"

#include <stdlib.h>
#include <string.h>

int rnic_test_finish(const char *name) {
    int rc = rnic_check_summary(name);
    return rc == 0 && rnic_check_total() > 0 ? 0 : 1;
}

static rnic_dev *g_dev[2];

void pair_reconnect(struct pair *p) {
    for (int s = 0; s < 2; s++) {
        struct rnic_qp_attr a = {64, 64, p->cq[s], p->cq[s], p->pz[s], 1,
                                 RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE, p->timers};
        int rc = rnic_qp_create(p->dev[s], &a, &p->qp[s]);
        if (rc) {
            fprintf(stderr, "qp_create: %s\n", rnic_strerror(rc));
            exit(2);
        }
    }
    if (rnic_qp_connect_local(p->qp[0], p->qp[1]) != RNIC_OK) {
        fprintf(stderr, "connect failed\n");
        exit(2);
    }
}

/* The two devices the tests drive: rnic0 and rnic1 (the simulation), or
 * what RNIC_TEST_DEVICES names, "A,B" (docs/bringup.md: two board
 * functions, "vfio:<bdf>,vfio:<bdf>"). A malformed value stops the test. */
static void device_names(char names[2][128]) {
    strcpy(names[0], "rnic0");
    strcpy(names[1], "rnic1");
    const char *v = getenv("RNIC_TEST_DEVICES");
    if (!v || !*v)
        return;
    const char *comma = strchr(v, ',');
    size_t a = comma ? (size_t)(comma - v) : 0, b = comma ? strlen(comma + 1) : 0;
    if (!comma || a == 0 || b == 0 || a >= 128 || b >= 128 || strchr(comma + 1, ',')) {
        fprintf(stderr, "RNIC_TEST_DEVICES=%s is invalid; accepted: two device names, \"A,B\"\n", v);
        exit(2);
    }
    memcpy(names[0], v, a);
    names[0][a] = 0;
    memcpy(names[1], comma + 1, b + 1);
}

void pair_open(struct pair *p) {
    memset(p, 0, sizeof(*p));
    char names[2][128];
    device_names(names);
    for (int s = 0; s < 2; s++) {
        if (!g_dev[s] && rnic_open(names[s], &g_dev[s]) != RNIC_OK) {
            fprintf(stderr, "cannot open %s\n", names[s]);
            exit(2);
        }
        p->dev[s] = g_dev[s];
        if (rnic_pz_alloc(p->dev[s], &p->pz[s]) || rnic_cq_create(p->dev[s], 256, &p->cq[s])) {
            fprintf(stderr, "pz/cq setup failed\n");
            exit(2);
        }
    }
    pair_reconnect(p);
}

void pair_close(struct pair *p) {
    for (int s = 0; s < 2; s++) {
        if (p->qp[s])
            rnic_qp_destroy(p->qp[s]);
        rnic_cq_destroy(p->cq[s]);
        rnic_pz_free(p->dev[s], p->pz[s]);
    }
}

int wait_cq(struct pair *p, int s, struct rnic_wc *wc) { return rnic_cq_wait(p->cq[s], wc, BUDGET); }

int post_and_wait(struct pair *p, int s, const struct rnic_send_wr *wr, struct rnic_wc *wc) {
    int rc = rnic_post_send(p->qp[s], wr);
    if (rc)
        return rc;
    return wait_cq(p, s, wc);
}

void fill_pattern(uint8_t *b, size_t n, unsigned seed) {
    uint32_t x = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        b[i] = (uint8_t)(x >> 16);
    }
}
