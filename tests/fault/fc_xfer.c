/*
 * One transfer of the fault campaign: drawn from the seed, posted as a DAT
 * consumer posts it, its completions taken, every byte checked, judged.
 *
 * A transfer owns slot `slot` of its pair on both sides (FC_SLOT bytes
 * each). Every byte of a side's buffer holds the side's background pattern
 * (kept in fc_side.ref) except the source range of a transfer in flight,
 * which holds the transfer's data pattern, and what the NIC wrote. So after
 * a success the destination range must hold the data, the source range
 * must still hold it, and every other byte of both slots must be the
 * background. After an error or a hang the same holds outside the
 * destination range, checked once the pair's EPs are freed (nothing can
 * write then).
 *
 * Operations: SEND (a RECV posted on the peer first, a little larger than
 * the message), RDMA WRITE and RDMA READ through the peer's LMR context, and
 * BIND+WRITE / BIND+READ: the target binds its window of that slot over a
 * range around the remote buffer (dat_rmr_bind on its EP), and once the bind
 * has completed the initiator uses the window's rmr_context.
 */
#include "fc.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rnic_sim.h"

const char *const fc_op_name[OP_COUNT] = { "SEND", "WRITE", "READ", "BIND+WRITE", "BIND+READ" };

uint64_t fc_cookie(uint64_t id, int slot, enum fc_part part)
{
    return (id << 8) | ((uint64_t)slot << 2) | (uint64_t)part;
}

static void cookie_split(uint64_t c, uint64_t *id, int *slot, enum fc_part *part)
{
    *id = c >> 8;
    *slot = (int)((c >> 2) & 0x3f);
    *part = (enum fc_part)(c & 3);
}

static int src_side(const struct fc_xfer *x)
{
    return (x->op == OP_READ || x->op == OP_BIND_READ) ? 1 - x->init : x->init;
}

static uint64_t timeout_cycles(void)
{
    return fc_opt.timeout_us * FC_CYCLES_PER_US;
}

static uint8_t *ref_of(int side, uint8_t *p)
{
    return fc_side[side].ref + (p - fc_side[side].buf);
}

/* [off, off + len) of side's slot as n contiguous segments (n <= 4). */
static int make_iov(struct fc_xfer *x, DAT_LMR_TRIPLET *iov, int n, int side, uint8_t *slot, size_t off, uint64_t len)
{
    if (n <= 0)
        return 0;
    uint64_t cut[5];
    cut[0] = 0;
    cut[n] = len;
    for (int i = 1; i < n; i++)
        cut[i] = fc_below(&x->rng, len + 1);
    /* sort the inner cuts */
    for (int i = 1; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (cut[j] < cut[i]) {
                uint64_t t = cut[i];
                cut[i] = cut[j];
                cut[j] = t;
            }
    for (int i = 0; i < n; i++) {
        iov[i].lmr_context = fc_side[side].lctx;
        iov[i].pad = 0;
        iov[i].virtual_address = (DAT_VADDR)(uintptr_t)(slot + off + cut[i]);
        iov[i].segment_length = cut[i + 1] - cut[i];
    }
    return n;
}

static uint64_t draw_len(uint64_t *rng)
{
    const uint64_t r = fc_below(rng, 100);
    const uint64_t max = fc_opt.max_len;
    if (r < 4)
        return 0;
    if (r < 90 || max <= 65536)
        return fc_log_uniform(rng, 1, max < 65536 ? max : 65536);
    return fc_log_uniform(rng, 65537, max);
}

static void note_error(struct fc_pair *p);

/* A post the campaign expected to be taken was refused (a failure of the
 * campaign): the transfer ends in error, and its pair is given up. */
static void refused(struct fc_pair *p, struct fc_xfer *x, const char *call, DAT_RETURN r)
{
    fc_st.posts_refused++;
    note_error(p);
    printf("fault_campaign: transfer %" PRIu64 " (%s, pair %d): %s refused: %s\n", x->id, fc_op_name[x->op], p->idx,
           call, fc_ret_str(r));
}

/* The campaign's own test (--inject-error): the first RDMA WRITE or READ
 * with data from transfer N on names a key the peer never issued, as a
 * consumer's bug would: the peer refuses it, an error completion and a
 * broken connection that the campaign must take in its stride. */
static DAT_RMR_CONTEXT bad_key(const struct fc_xfer *x)
{
    static bool done;
    if (!fc_opt.inject_error || done || x->id < fc_opt.inject_error || x->len == 0)
        return 0;
    done = true;
    printf("fault_campaign: injected: transfer %" PRIu64 " (%s) names a key the peer never issued\n", x->id,
           fc_op_name[x->op]);
    return 0x80000000u;
}

/* The DTO of a transfer (after its bind, for the BIND ones). */
static void post_dto(struct fc_pair *p, int slot, struct fc_xfer *x)
{
    const int t = 1 - x->init, s = src_side(x), d = 1 - s;
    uint8_t *sslot = fc_slot(s, p->idx, slot), *dslot = fc_slot(d, p->idx, slot);
    DAT_LMR_TRIPLET iov[4];
    DAT_RETURN r;
    x->deadline = rnic_sim_cycle() + timeout_cycles();
    x->need_req = true;
    if (x->op == OP_SEND) {
        x->need_recv = true;
        const int nrecv = x->recv_len ? 1 + (int)fc_below(&x->rng, 4) : (int)fc_below(&x->rng, 2);
        const int nr = make_iov(x, iov, nrecv, d, dslot, x->dst_off, x->recv_len);
        r = dat_ep_post_recv(p->ep[t], nr, iov, (DAT_DTO_COOKIE){ .as_64 = fc_cookie(x->id, slot, PART_RECV) },
                             DAT_COMPLETION_DEFAULT_FLAG);
        if (r != DAT_SUCCESS) {
            refused(p, x, "dat_ep_post_recv", r);
            x->need_recv = x->need_req = false;
            x->recv_status = -1;
            return;
        }
    }
    const int n = make_iov(x, iov, x->nseg, x->init, x->op == OP_READ || x->op == OP_BIND_READ ? dslot : sslot,
                           x->op == OP_READ || x->op == OP_BIND_READ ? x->dst_off : x->src_off, x->len);
    const DAT_DTO_COOKIE ck = { .as_64 = fc_cookie(x->id, slot, PART_REQ) };
    DAT_RMR_TRIPLET rem = { 0, 0, 0, x->len };
    const char *call = "dat_ep_post_send";
    switch (x->op) {
    case OP_SEND:
        r = dat_ep_post_send(p->ep[x->init], n, iov, ck, DAT_COMPLETION_DEFAULT_FLAG);
        break;
    case OP_WRITE:
    case OP_BIND_WRITE:
        rem.rmr_context = x->op == OP_WRITE ? fc_side[t].rctx : x->win_ctx;
        rem.rmr_context ^= bad_key(x);
        rem.target_address = (DAT_VADDR)(uintptr_t)(dslot + x->dst_off);
        call = "dat_ep_post_rdma_write";
        r = dat_ep_post_rdma_write(p->ep[x->init], n, iov, ck, &rem, DAT_COMPLETION_DEFAULT_FLAG);
        break;
    default:
        rem.rmr_context = x->op == OP_READ ? fc_side[t].rctx : x->win_ctx;
        rem.rmr_context ^= bad_key(x);
        rem.target_address = (DAT_VADDR)(uintptr_t)(sslot + x->src_off);
        call = "dat_ep_post_rdma_read";
        r = dat_ep_post_rdma_read(p->ep[x->init], n, iov, ck, &rem, DAT_COMPLETION_DEFAULT_FLAG);
        break;
    }
    if (r != DAT_SUCCESS) {
        refused(p, x, call, r);
        x->need_req = false;
        x->req_status = -1;
        return;
    }
    x->req_posted = true;
}

static void post_bind(struct fc_pair *p, int slot, struct fc_xfer *x)
{
    const int t = 1 - x->init;
    uint8_t *tslot = fc_slot(t, p->idx, slot);
    DAT_LMR_TRIPLET w = { fc_side[t].lctx, 0, (DAT_VADDR)(uintptr_t)(tslot + x->win_off), x->win_len };
    DAT_MEM_PRIV_FLAGS priv = x->op == OP_BIND_WRITE ? DAT_MEM_PRIV_REMOTE_WRITE_FLAG : DAT_MEM_PRIV_REMOTE_READ_FLAG;
    if (fc_chance(&x->rng, 30))
        priv = DAT_MEM_PRIV_REMOTE_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_READ_FLAG;
    x->need_bind = true;
    x->deadline = rnic_sim_cycle() + timeout_cycles();
    const DAT_RETURN r = dat_rmr_bind(fc_side[t].rmr[p->idx][slot], &w, priv, p->ep[t],
                                      (DAT_RMR_COOKIE){ .as_64 = fc_cookie(x->id, slot, PART_BIND) },
                                      DAT_COMPLETION_DEFAULT_FLAG, &x->win_ctx);
    if (r != DAT_SUCCESS) {
        refused(p, x, "dat_rmr_bind", r);
        x->need_bind = false;
        x->bind_status = -1;
    }
}

void fc_xfer_start(struct fc_pair *p, int slot, uint64_t id)
{
    struct fc_xfer *x = &p->x[slot];
    memset(x, 0, sizeof(*x));
    x->live = true;
    x->id = id;
    x->rng = fc_xfer_rng_seed(fc_opt.seed, id);
    x->op = (enum fc_op)fc_below(&x->rng, OP_COUNT);
    x->init = (int)fc_below(&x->rng, 2);
    if (fc_opt.one_way)   /* the same draws either way: only the initiator differs */
        x->init = x->op == OP_READ || x->op == OP_BIND_READ ? 1 : 0;
    x->len = draw_len(&x->rng);
    x->nseg = x->len == 0 ? (int)fc_below(&x->rng, 2) : 1 + (int)fc_below(&x->rng, x->len < 4 ? x->len : 4);
    x->src_off = (size_t)fc_below(&x->rng, FC_SLOT - x->len + 1);
    x->dst_off = (size_t)fc_below(&x->rng, FC_SLOT - x->len + 1);
    if (x->op == OP_SEND) {
        const uint64_t room = FC_SLOT - x->dst_off - x->len;
        x->recv_len = x->len + (fc_chance(&x->rng, 50) ? 0 : fc_below(&x->rng, (room < 4096 ? room : 4096) + 1));
    }
    if (x->op == OP_BIND_WRITE || x->op == OP_BIND_READ) {
        /* A window around the remote buffer, at least one byte (a zero
         * length would unbind it). */
        const size_t roff = x->op == OP_BIND_WRITE ? x->dst_off : x->src_off;
        const uint64_t room = FC_SLOT - roff - x->len;
        uint64_t a = fc_below(&x->rng, (roff < 4096 ? roff : 4096) + 1);
        uint64_t b = fc_below(&x->rng, (room < 4096 ? room : 4096) + 1);
        if (a + x->len + b == 0) {
            if (room)
                b = 1;
            else
                a = 1;
        }
        x->win_off = roff - a;
        x->win_len = a + x->len + b;
    }
    fc_st.issued++;
    fc_st.per_op[x->op]++;
    fc_st.bytes_posted += x->len;
    p->live++;

    /* The source range gets the transfer's data; the rest of both slots is
     * the background already. */
    const int s = src_side(x);
    fc_pattern_fill(fc_slot(s, p->idx, slot) + x->src_off, x->len, fc_key_data(fc_opt.seed, x->id), 0);

    if (x->op == OP_BIND_WRITE || x->op == OP_BIND_READ)
        post_bind(p, slot, x);
    else
        post_dto(p, slot, x);
}

static struct fc_xfer *find(struct fc_pair **pp, int pair, int slot, uint64_t id)
{
    if (pair < 0 || pair >= fc_opt.pairs || slot < 0 || slot >= fc_opt.depth)
        return NULL;
    struct fc_xfer *x = &fc_pair[pair].x[slot];
    if (!x->live || x->id != id || x->verdict != V_NONE)
        return NULL;
    *pp = &fc_pair[pair];
    return x;
}

static void note_error(struct fc_pair *p)
{
    /* Every error completion breaks the connection (docs/libdat.md): no
     * new transfers on it; it is torn down once all are judged. */
    if (p->st == PS_UP)
        p->st = PS_DRAINING;
}

bool fc_xfer_dto_event(const DAT_DTO_COMPLETION_EVENT_DATA *d, int side)
{
    int pair, eside, slot;
    uint64_t id;
    enum fc_part part;
    if (!fc_ep_owner(d->ep_handle, &pair, &eside) || eside != side)
        return false;
    cookie_split(d->user_cookie.as_64, &id, &slot, &part);
    struct fc_pair *p;
    struct fc_xfer *x = find(&p, pair, slot, id);
    if (!x)
        return false;
    const int st = (int)d->status;
    if (st != DAT_DTO_SUCCESS) {
        fc_st.dto_status[st & 15]++;
        note_error(p);
    }
    if (part == PART_REQ && x->req_posted && !x->req_done && side == x->init) {
        x->req_done = true;
        x->req_status = st;
        x->req_len = d->transfered_length;
    } else if (part == PART_RECV && x->need_recv && !x->recv_done && side == 1 - x->init) {
        x->recv_done = true;
        x->recv_status = st;
        x->recv_got = d->transfered_length;
    } else {
        printf("fault_campaign: transfer %" PRIu64 " (%s, pair %d): an unexpected completion (part %d, side %d, "
               "status %d)\n", x->id, fc_op_name[x->op], p->idx, (int)part, side, st);
        fc_st.unexpected++;
    }
    return true;
}

bool fc_xfer_bind_event(const DAT_RMR_BIND_COMPLETION_EVENT_DATA *d, int side)
{
    int pair, slot, cslot;
    uint64_t id;
    enum fc_part part;
    if (!fc_rmr_owner(d->rmr_handle, side, &pair, &slot))
        return false;
    cookie_split(d->user_cookie.as_64, &id, &cslot, &part);
    struct fc_pair *p;
    struct fc_xfer *x = find(&p, pair, slot, id);
    if (!x || cslot != slot || part != PART_BIND || !x->need_bind || x->bind_done || side != 1 - x->init)
        return false;
    x->bind_done = true;
    x->bind_status = (int)d->status;
    if (d->status != DAT_RMR_BIND_SUCCESS) {
        fc_st.bind_status[(int)d->status & 15]++;
        note_error(p);
        return true;
    }
    if (p->st == PS_UP)
        post_dto(p, slot, x);
    return true;
}

/* The statuses of a transfer, as one: -2 none failed, else the first
 * failure that is not a flush (a flush only follows another error), else
 * FLUSHED; -1 a post refused. */
static int first_failure(const struct fc_xfer *x)
{
    int flushed = -2;
    const int sts[3] = { x->bind_status, x->req_status, x->recv_status };   /* 0 (success) when not used */
    for (int i = 0; i < 3; i++) {
        if (sts[i] == DAT_DTO_SUCCESS)
            continue;
        if (sts[i] == -1)
            return -1;
        if (sts[i] != DAT_DTO_ERR_FLUSHED)
            return sts[i];
        flushed = DAT_DTO_ERR_FLUSHED;
    }
    return flushed;
}

static const char *where_str(int side, const char *what, size_t off)
{
    static char b[96];
    snprintf(b, sizeof(b), "rnic%d %s, slot byte %zu", side, what, off);
    return b;
}

/* The campaign's own test (--inject-wrong, --inject-stray): a byte of the
 * destination changed after the completion, as a NIC that wrote it wrong
 * (inside the range) or wrote past it would have: the check must see it. */
static void inject(const struct fc_pair *p, int slot, const struct fc_xfer *x)
{
    static bool wrong_done, stray_done;
    uint8_t *ds = fc_slot(1 - src_side(x), p->idx, slot);
    if (fc_opt.inject_wrong && !wrong_done && x->id >= fc_opt.inject_wrong && x->len > 0) {
        ds[x->dst_off + x->len / 2] ^= 0x5A;
        wrong_done = true;
        printf("fault_campaign: injected: byte %zu of transfer %" PRIu64 "'s destination changed\n",
               (size_t)(x->len / 2), x->id);
    } else if (fc_opt.inject_stray && !stray_done && x->id >= fc_opt.inject_stray) {
        const size_t at = x->dst_off + x->len < FC_SLOT ? x->dst_off + x->len : x->dst_off - 1;
        ds[at] ^= 0xA5;
        stray_done = true;
        printf("fault_campaign: injected: the byte %s transfer %" PRIu64 "'s destination changed\n",
               at == x->dst_off - 1 ? "before" : "after", x->id);
    }
}

/* What a success must have left; NULL when it did. */
static const char *check_success(const struct fc_pair *p, int slot, const struct fc_xfer *x)
{
    const int s = src_side(x), d = 1 - s;
    uint8_t *ss = fc_slot(s, p->idx, slot), *ds = fc_slot(d, p->idx, slot);
    const uint64_t key = fc_key_data(fc_opt.seed, x->id);
    size_t at;
    if (x->req_len != x->len)
        return "the request's transfered_length is not the length posted";
    if (x->op == OP_SEND && x->recv_got != x->len)
        return "the receive's transfered_length is not the length sent";
    if ((at = fc_pattern_check(ds + x->dst_off, x->len, key, 0)) != SIZE_MAX)
        return where_str(d, "destination range differs from the source", x->dst_off + at);
    if ((at = fc_pattern_check(ss + x->src_off, x->len, key, 0)) != SIZE_MAX)
        return where_str(s, "source range changed", x->src_off + at);
    struct {
        int side;
        uint8_t *slot;
        size_t off, len;
    } out[2] = { { d, ds, x->dst_off, x->len }, { s, ss, x->src_off, x->len } };
    for (int i = 0; i < 2; i++) {
        const uint8_t *b = out[i].slot, *r = ref_of(out[i].side, out[i].slot);
        if (memcmp(b, r, out[i].off) != 0 ||
            memcmp(b + out[i].off + out[i].len, r + out[i].off + out[i].len, FC_SLOT - out[i].off - out[i].len)) {
            for (size_t k = 0; k < FC_SLOT; k++)
                if ((k < out[i].off || k >= out[i].off + out[i].len) && b[k] != r[k])
                    return where_str(out[i].side, "byte outside the transfer's range changed", k);
        }
    }
    return NULL;
}

static void restore_slot(const struct fc_pair *p, int slot)
{
    for (int s = 0; s < 2; s++) {
        uint8_t *b = fc_slot(s, p->idx, slot);
        memcpy(b, ref_of(s, b), FC_SLOT);
    }
}

static void verdict(struct fc_pair *p, int slot, struct fc_xfer *x, enum fc_verdict v, const char *why)
{
    x->verdict = v;
    p->live--;
    fc_st.verdicts[v]++;
    fc_st.verdict_op[v][x->op]++;
    fc_report_verdict(p, x, why);
    if (v == V_SUCCESS || v == V_WRONG) {
        if (v == V_SUCCESS)
            fc_st.bytes_delivered += x->len;
        /* The slot is the background again, and free. */
        const int s = src_side(x);
        uint8_t *ss = fc_slot(s, p->idx, slot) + x->src_off, *ds = fc_slot(1 - s, p->idx, slot) + x->dst_off;
        if (v == V_SUCCESS) {
            memcpy(ss, ref_of(s, ss), x->len);
            memcpy(ds, ref_of(1 - s, ds), x->len);
        } else {
            restore_slot(p, slot);
        }
        x->live = false;
    }
}

void fc_xfer_judge(struct fc_pair *p, uint64_t now)
{
    for (int k = 0; k < fc_opt.depth; k++) {
        struct fc_xfer *x = &p->x[k];
        if (!x->live || x->verdict != V_NONE)
            continue;
        const bool bind_failed = x->bind_done && x->bind_status != DAT_RMR_BIND_SUCCESS;
        const bool refused_post = x->bind_status == -1 || x->req_status == -1 || x->recv_status == -1;
        const bool bind_pending = x->need_bind && !x->bind_done;
        const bool dto_pending = !bind_failed && !refused_post &&
                                 ((x->need_req && !x->req_done) || (x->need_recv && !x->recv_done));
        /* A bind that succeeded while the pair was being torn down: its
         * DTO was never posted. */
        const bool abandoned = x->need_bind && x->bind_done && !bind_failed && !x->need_req;
        if (!bind_pending && !dto_pending) {
            const int f = first_failure(x);
            if (f == -1) {
                verdict(p, k, x, V_ERROR, "a post was refused");
            } else if (f != -2) {
                fc_st.error_first[f & 15]++;
                verdict(p, k, x, V_ERROR, NULL);
            } else if (abandoned) {
                verdict(p, k, x, V_ABANDONED, "its bind completed after the connection was given up");
            } else {
                inject(p, k, x);
                const char *bad = check_success(p, k, x);
                verdict(p, k, x, bad ? V_WRONG : V_SUCCESS, bad);
            }
        } else if (now >= x->deadline) {
            if (p->broken_reported) {
                /* The connection said BROKEN: the failure was reported,
                 * though the flush of this transfer never came. */
                fc_st.error_first[16]++;
                verdict(p, k, x, V_ERROR, "BROKEN reported, no completion within the timeout");
            } else {
                p->hung = true;
                if (p->st == PS_UP)
                    p->st = PS_DRAINING;
                verdict(p, k, x, V_HANG, bind_pending ? "no bind completion" : "no completion");
            }
        }
    }
}

/* After an error or a hang: outside the destination range every byte of
 * both slots must be the background, and the source range the data. */
static void check_outside(struct fc_pair *p, int slot, struct fc_xfer *x)
{
    const int s = src_side(x), d = 1 - s;
    uint8_t *ss = fc_slot(s, p->idx, slot), *ds = fc_slot(d, p->idx, slot);
    const uint64_t dlen = x->op == OP_SEND ? x->recv_len : x->len;
    const char *bad = NULL;
    size_t at = fc_pattern_check(ss + x->src_off, x->len, fc_key_data(fc_opt.seed, x->id), 0);
    if (at != SIZE_MAX)
        bad = where_str(s, "source range changed", x->src_off + at);
    for (size_t k = 0; !bad && k < FC_SLOT; k++) {
        if (ds[k] != ref_of(d, ds)[k] && (k < x->dst_off || k >= x->dst_off + dlen))
            bad = where_str(d, "byte outside the destination range changed", k);
        else if (ss[k] != ref_of(s, ss)[k] && (k < x->src_off || k >= x->src_off + x->len))
            bad = where_str(s, "byte outside the source range changed", k);
    }
    if (bad) {
        fc_st.wrong_outside++;
        printf("fault_campaign: WRONG DATA transfer %" PRIu64 " (%s, pair %d, after its %s): %s\n", x->id,
               fc_op_name[x->op], p->idx, x->verdict == V_HANG ? "hang" : "error", bad);
    }
}

void fc_xfer_release_all(struct fc_pair *p)
{
    for (int k = 0; k < fc_opt.depth; k++) {
        struct fc_xfer *x = &p->x[k];
        if (!x->live)
            continue;
        if (x->verdict == V_ERROR || x->verdict == V_HANG || x->verdict == V_ABANDONED)
            check_outside(p, k, x);
        restore_slot(p, k);
        x->live = false;
    }
}
