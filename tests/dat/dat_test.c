/* Helpers shared by the DAT tests (see dat_test.h). */
#define _DEFAULT_SOURCE   /* setenv, mkstemp */
#include "dat_test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int dt_finish(const char *name)
{
    return rnic_check_summary(name);
}

void dt_side_open(struct dt_side *s, int i, const DAT_EP_ATTR *ep_attr)
{
    memset(s, 0, sizeof(*s));
    char name[16];
    snprintf(name, sizeof(name), "rnic%d", i);
    s->async_evd = DAT_HANDLE_NULL;
    DT_MUST(dat_ia_open(name, 8, &s->async_evd, &s->ia));
    DT_MUST(dat_pz_create(s->ia, &s->pz));
    DT_MUST(dat_evd_create(s->ia, 64, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &s->req_evd));
    DT_MUST(dat_evd_create(s->ia, 64, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &s->recv_evd));
    DT_MUST(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &s->conn_evd));
    DT_MUST(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &s->cr_evd));
    DT_MUST(dat_ep_create(s->ia, s->pz, s->recv_evd, s->req_evd, s->conn_evd, ep_attr, &s->ep));
    s->buf = aligned_alloc(4096, DT_BUF);
    memset(s->buf, 0, DT_BUF);
    DAT_REGION_DESCRIPTION r = { .for_va = s->buf };
    DAT_VLEN size;
    DAT_VADDR addr;
    DT_MUST(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, r, DT_BUF, s->pz, DAT_MEM_PRIV_ALL_FLAG, &s->lmr, &s->lmr_ctx,
                        &s->rmr_ctx, &size, &addr));
}

void dt_side_close(struct dt_side *s)
{
    /* Abrupt close frees whatever the test left behind. */
    DT_MUST(dat_ia_close(s->ia, DAT_CLOSE_ABRUPT_FLAG));
    free(s->buf);
    memset(s, 0, sizeof(*s));
}

DAT_IA_ADDRESS_PTR dt_addr(DAT_IA_HANDLE ia)
{
    DAT_IA_ATTR a;
    DT_MUST(dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &a, 0, NULL));
    return a.ia_address_ptr;
}

DAT_RETURN dt_wait(DAT_EVD_HANDLE evd, DAT_TIMEOUT timeout_us, DAT_EVENT *ev)
{
    DAT_COUNT more;
    return dat_evd_wait(evd, timeout_us, 1, ev, &more);
}

int dt_wait_dto(DAT_EVD_HANDLE evd, DAT_DTO_COMPLETION_EVENT_DATA *out)
{
    DAT_EVENT ev;
    if (dt_wait(evd, DT_WAIT_US, &ev) != DAT_SUCCESS || ev.event_number != DAT_DTO_COMPLETION_EVENT)
        return -1;
    if (out)
        *out = ev.event_data.dto_completion_event_data;
    return ev.event_data.dto_completion_event_data.status;
}

DAT_EVENT_NUMBER dt_wait_number(DAT_EVD_HANDLE evd, DAT_TIMEOUT timeout_us)
{
    DAT_EVENT ev;
    if (dt_wait(evd, timeout_us, &ev) != DAT_SUCCESS)
        return (DAT_EVENT_NUMBER)0;
    return ev.event_number;
}

void dt_pair_open(struct dt_pair *p, const DAT_EP_ATTR *attr0, const DAT_EP_ATTR *attr1)
{
    memset(p, 0, sizeof(*p));
    dt_side_open(&p->s[0], 0, attr0);
    dt_side_open(&p->s[1], 1, attr1);
    DT_MUST(dat_psp_create_any(p->s[1].ia, &p->qual, p->s[1].cr_evd, DAT_PSP_CONSUMER_FLAG, &p->psp));
}

void dt_pair_connect(struct dt_pair *p) { dt_pair_connect_within(p, DT_WAIT_US); }

void dt_pair_connect_within(struct dt_pair *p, DAT_TIMEOUT timeout_us)
{
    DT_MUST(dat_ep_connect(p->s[0].ep, dt_addr(p->s[1].ia), p->qual, timeout_us, 0, NULL, DAT_QOS_BEST_EFFORT,
                        DAT_CONNECT_DEFAULT_FLAG));
    DAT_EVENT ev;
    DT_MUST(dt_wait(p->s[1].cr_evd, timeout_us, &ev));
    if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT) {
        fprintf(stderr, "fixture: event 0x%x instead of a connection request\n", ev.event_number);
        exit(2);
    }
    DT_MUST(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, p->s[1].ep, 0, NULL));
    for (int i = 0; i < 2; i++) {
        DT_MUST(dt_wait(p->s[i].conn_evd, timeout_us, &ev));
        if (ev.event_number != DAT_CONNECTION_EVENT_ESTABLISHED) {
            fprintf(stderr, "fixture: side %d got event 0x%x instead of ESTABLISHED\n", i, ev.event_number);
            exit(2);
        }
    }
}

void dt_pair_close(struct dt_pair *p)
{
    dt_side_close(&p->s[0]);
    dt_side_close(&p->s[1]);
}

DAT_LMR_TRIPLET dt_iov(const struct dt_side *s, size_t off, size_t len)
{
    DAT_LMR_TRIPLET t = { s->lmr_ctx, 0, (DAT_VADDR)(uintptr_t)(s->buf + off), len };
    return t;
}

DAT_RMR_TRIPLET dt_remote(const struct dt_side *s, size_t off, size_t len)
{
    DAT_RMR_TRIPLET t = { s->rmr_ctx, 0, (DAT_VADDR)(uintptr_t)(s->buf + off), len };
    return t;
}

DAT_DTO_COOKIE dt_cookie(uint64_t v)
{
    DAT_DTO_COOKIE c;
    c.as_64 = v;
    return c;
}

void dt_fill(uint8_t *b, size_t n, unsigned seed)
{
    uint32_t x = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        b[i] = (uint8_t)(x >> 24);
    }
}

DAT_RMR_COOKIE dt_rcookie(uint64_t v)
{
    DAT_RMR_COOKIE c;
    c.as_64 = v;
    return c;
}

int dt_wait_bind(DAT_EVD_HANDLE evd, DAT_RMR_HANDLE rmr, uint64_t cookie)
{
    DAT_EVENT ev;
    if (dt_wait(evd, DT_WAIT_US, &ev) != DAT_SUCCESS || ev.event_number != DAT_RMR_BIND_COMPLETION_EVENT)
        return -1;
    if (rmr != DAT_HANDLE_NULL) {
        CHECK(ev.event_data.rmr_completion_event_data.rmr_handle == rmr);
        CHECK_EQ(ev.event_data.rmr_completion_event_data.user_cookie.as_64, cookie);
    }
    return (int)ev.event_data.rmr_completion_event_data.status;
}

int dt_peer_write(struct dt_pair *p, DAT_RMR_CONTEXT ctx, size_t off, size_t len, unsigned seed)
{
    dt_fill(p->s[0].buf, len, seed);
    DAT_LMR_TRIPLET l = dt_iov(&p->s[0], 0, len);
    DAT_RMR_TRIPLET r = { ctx, 0, (DAT_VADDR)(uintptr_t)(p->s[1].buf + off), len };
    if (dat_ep_post_rdma_write(p->s[0].ep, 1, &l, dt_cookie(seed), &r, DAT_COMPLETION_DEFAULT_FLAG) != DAT_SUCCESS)
        return -2;
    return dt_wait_dto(p->s[0].req_evd, NULL);
}

void dt_conf_use(char path[DT_CONF_PATH], const char *text)
{
    snprintf(path, DT_CONF_PATH, "/tmp/dat_conf_XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const size_t n = strlen(text);
    CHECK_EQ(write(fd, text, n), (long)n);
    close(fd);
    setenv("DAT_OVERRIDE", path, 1);
}

void dt_conf_drop(const char *path)
{
    unsetenv("DAT_OVERRIDE");
    unlink(path);
}

/* ------------------------------------------------------------ stderr capture */

char dt_captured[DT_CAPTURED];
static int saved_fd = -1;
static FILE *capture_file;

void dt_capture_start(void)
{
    fflush(stderr);
    capture_file = tmpfile();
    if (!capture_file) {
        perror("tmpfile");
        exit(2);
    }
    saved_fd = dup(2);
    dup2(fileno(capture_file), 2);
}

const char *dt_capture_end(void)
{
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    rewind(capture_file);
    size_t n = fread(dt_captured, 1, sizeof(dt_captured) - 1, capture_file);
    dt_captured[n] = '\0';
    fclose(capture_file);
    fputs(dt_captured, stderr);   /* still shown in the test's output */
    return dt_captured;
}
