/*
 * A DAT client and server over the two simulated NICs, in one program:
 * the simulated fabric lives in this process, so one thread runs both
 * sides, and each side's steps happen while the other side waits on its
 * EVDs.
 *
 *   server (rnic1): PSP on conn_qual 4321, accepts with private data
 *   client (rnic0): connects, RDMA-writes a greeting into the server's
 *                   buffer, SENDs a note that it is there, RDMA-reads it
 *                   back, writes through a memory window the server
 *                   bound for it, disconnects
 *
 * Build against an installed libdat:
 *   cc dat_example.c $(pkg-config --cflags --libs dat) -o dat_example
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dat/udat.h>

#define CONN_QUAL 4321
#define BUF_BYTES 4096
#define WAIT_US 1000000u   /* of NIC time: generous */

static int fail(const char *what, DAT_RETURN r)
{
    const char *major = "?", *minor = "?";
    dat_strerror(r, &major, &minor);
    fprintf(stderr, "%s failed: %s (%s)\n", what, major, minor);
    exit(1);
}

#define TRY(call)                                                                       \
    do {                                                                                \
        DAT_RETURN r_ = (call);                                                         \
        if (r_ != DAT_SUCCESS)                                                          \
            fail(#call, r_);                                                            \
    } while (0)

/* One side of the connection: an IA with its PZ, EVDs, EP and a buffer. */
struct side {
    const char *name;
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async_evd, dto_evd, conn_evd, cr_evd;
    DAT_PZ_HANDLE pz;
    DAT_EP_HANDLE ep;
    char *buf;
    DAT_LMR_HANDLE lmr;
    DAT_LMR_CONTEXT lmr_context;
    DAT_RMR_CONTEXT rmr_context;
};

static void side_open(struct side *s, char *ia_name)
{
    s->name = ia_name;
    s->async_evd = DAT_HANDLE_NULL;
    TRY(dat_ia_open(ia_name, 8, &s->async_evd, &s->ia));
    TRY(dat_pz_create(s->ia, &s->pz));
    TRY(dat_evd_create(s->ia, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &s->dto_evd));
    TRY(dat_evd_create(s->ia, 4, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &s->conn_evd));
    TRY(dat_evd_create(s->ia, 4, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &s->cr_evd));
    TRY(dat_ep_create(s->ia, s->pz, s->dto_evd, s->dto_evd, s->conn_evd, NULL, &s->ep));
    s->buf = aligned_alloc(DAT_OPTIMAL_ALIGNMENT, BUF_BYTES);
    memset(s->buf, 0, BUF_BYTES);
    DAT_REGION_DESCRIPTION region = { .for_va = s->buf };
    DAT_VLEN size;
    DAT_VADDR addr;
    TRY(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, region, BUF_BYTES, s->pz, DAT_MEM_PRIV_ALL_FLAG, &s->lmr,
                       &s->lmr_context, &s->rmr_context, &size, &addr));
}

static void side_close(struct side *s)
{
    TRY(dat_ep_free(s->ep));
    TRY(dat_lmr_free(s->lmr));
    TRY(dat_evd_free(s->dto_evd));
    TRY(dat_evd_free(s->conn_evd));
    TRY(dat_evd_free(s->cr_evd));
    TRY(dat_pz_free(s->pz));
    TRY(dat_ia_close(s->ia, DAT_CLOSE_GRACEFUL_FLAG));
    free(s->buf);
}

static DAT_EVENT wait_event(struct side *s, DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER want)
{
    DAT_EVENT ev;
    DAT_COUNT more;
    TRY(dat_evd_wait(evd, WAIT_US, 1, &ev, &more));
    if (ev.event_number != want) {
        fprintf(stderr, "%s: event 0x%x, expected 0x%x\n", s->name, ev.event_number, want);
        exit(1);
    }
    if (want == DAT_DTO_COMPLETION_EVENT && ev.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS) {
        fprintf(stderr, "%s: DTO completed with status %d\n", s->name,
                ev.event_data.dto_completion_event_data.status);
        exit(1);
    }
    return ev;
}

/* What the server tells the client when it accepts: where to write. */
struct server_info {
    DAT_RMR_TRIPLET target;
};

int main(void)
{
    struct side server, client;
    char server_ia[] = "rnic1", client_ia[] = "rnic0";
    side_open(&server, server_ia);
    side_open(&client, client_ia);

    /* Server: a PSP on its IA address, and a receive for the client's note. */
    DAT_PSP_HANDLE psp;
    TRY(dat_psp_create(server.ia, CONN_QUAL, server.cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
    DAT_LMR_TRIPLET note_buf = { server.lmr_context, 0, (DAT_VADDR)(uintptr_t)(server.buf + 2048), 64 };
    DAT_DTO_COOKIE cookie = { .as_64 = 1 };
    TRY(dat_ep_post_recv(server.ep, 1, &note_buf, cookie, DAT_COMPLETION_DEFAULT_FLAG));

    /* Client: connect to the server IA's own address. */
    DAT_IA_ATTR attr;
    TRY(dat_ia_query(server.ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &attr, 0, NULL));
    const char hello[] = "client here";
    TRY(dat_ep_connect(client.ep, attr.ia_address_ptr, CONN_QUAL, WAIT_US, sizeof(hello), (DAT_PVOID)hello,
                       DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));

    /* Server: the request arrives while it waits; accept, telling the
     * client which buffer it may write. */
    DAT_EVENT ev = wait_event(&server, server.cr_evd, DAT_CONNECTION_REQUEST_EVENT);
    DAT_CR_HANDLE cr = ev.event_data.cr_arrival_event_data.cr_handle;
    DAT_CR_PARAM crp;
    TRY(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
    printf("server: request with \"%.*s\"\n", crp.private_data_size, (const char *)crp.private_data);
    struct server_info info = { { server.rmr_context, 0, (DAT_VADDR)(uintptr_t)server.buf, 1024 } };
    TRY(dat_cr_accept(cr, server.ep, sizeof(info), &info));

    ev = wait_event(&client, client.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
    struct server_info got;
    memcpy(&got, ev.event_data.connect_event_data.private_data, sizeof(got));
    wait_event(&server, server.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED);
    printf("client: connected\n");

    /* Client: RDMA WRITE a greeting, then a SEND saying it is there. */
    const char greeting[] = "hello from rnic0, by RDMA WRITE";
    strcpy(client.buf, greeting);
    DAT_LMR_TRIPLET src = { client.lmr_context, 0, (DAT_VADDR)(uintptr_t)client.buf, sizeof(greeting) };
    cookie.as_64 = 2;
    TRY(dat_ep_post_rdma_write(client.ep, 1, &src, cookie, &got.target, DAT_COMPLETION_DEFAULT_FLAG));
    strcpy(client.buf + 512, "written");
    DAT_LMR_TRIPLET note = { client.lmr_context, 0, (DAT_VADDR)(uintptr_t)(client.buf + 512), 8 };
    cookie.as_64 = 3;
    TRY(dat_ep_post_send(client.ep, 1, &note, cookie, DAT_COMPLETION_DEFAULT_FLAG));
    wait_event(&client, client.dto_evd, DAT_DTO_COMPLETION_EVENT);
    wait_event(&client, client.dto_evd, DAT_DTO_COMPLETION_EVENT);

    ev = wait_event(&server, server.dto_evd, DAT_DTO_COMPLETION_EVENT);
    /* The WRITE landed before the note. On a host whose provider says
     * lmr_sync_req (a cache the NIC does not snoop) it is visible only after
     * this sync; elsewhere the sync costs nothing, so a portable consumer
     * always makes it. */
    DAT_LMR_TRIPLET written = { server.lmr_context, 0, got.target.target_address, sizeof(greeting) };
    TRY(dat_lmr_sync_rdma_write(server.ia, &written, 1));
    printf("server: note \"%s\" (%llu bytes); buffer holds \"%s\"\n", server.buf + 2048,
           (unsigned long long)ev.event_data.dto_completion_event_data.transfered_length, server.buf);

    /* Client: read it back with an RDMA READ. */
    DAT_LMR_TRIPLET dst = { client.lmr_context, 0, (DAT_VADDR)(uintptr_t)(client.buf + 1024), sizeof(greeting) };
    DAT_RMR_TRIPLET from = got.target;
    from.segment_length = sizeof(greeting);
    cookie.as_64 = 4;
    TRY(dat_ep_post_rdma_read(client.ep, 1, &dst, cookie, &from, DAT_COMPLETION_DEFAULT_FLAG));
    wait_event(&client, client.dto_evd, DAT_DTO_COMPLETION_EVENT);
    printf("client: read back \"%s\"\n", client.buf + 1024);
    int ok = strcmp(client.buf + 1024, greeting) == 0 && strcmp(server.buf, greeting) == 0;

    /* Server: a memory window over 256 bytes of its buffer, remote write
     * only, bound on its EP; the window's context goes to the client in a
     * SEND posted right behind the bind. The bind fences the SEND, so the
     * client may use the context the moment it arrives. */
    DAT_LMR_TRIPLET inbox = { client.lmr_context, 0, (DAT_VADDR)(uintptr_t)(client.buf + 2048),
                              sizeof(DAT_RMR_TRIPLET) };
    cookie.as_64 = 5;
    TRY(dat_ep_post_recv(client.ep, 1, &inbox, cookie, DAT_COMPLETION_DEFAULT_FLAG));
    DAT_RMR_HANDLE rmr;
    TRY(dat_rmr_create(server.pz, &rmr));
    DAT_LMR_TRIPLET window = { server.lmr_context, 0, (DAT_VADDR)(uintptr_t)(server.buf + 3072), 256 };
    DAT_RMR_COOKIE bind_cookie = { .as_64 = 6 };
    DAT_RMR_CONTEXT window_context;
    TRY(dat_rmr_bind(rmr, &window, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, server.ep, bind_cookie,
                     DAT_COMPLETION_DEFAULT_FLAG, &window_context));
    DAT_RMR_TRIPLET offer = { window_context, 0, window.virtual_address, window.segment_length };
    memcpy(server.buf + 3584, &offer, sizeof(offer));
    DAT_LMR_TRIPLET offer_msg = { server.lmr_context, 0, (DAT_VADDR)(uintptr_t)(server.buf + 3584), sizeof(offer) };
    cookie.as_64 = 7;
    TRY(dat_ep_post_send(server.ep, 1, &offer_msg, cookie, DAT_COMPLETION_DEFAULT_FLAG));

    wait_event(&client, client.dto_evd, DAT_DTO_COMPLETION_EVENT);
    DAT_RMR_TRIPLET window_target;
    memcpy(&window_target, client.buf + 2048, sizeof(window_target));
    const char through[] = "written through a memory window";
    strcpy(client.buf + 2560, through);
    DAT_LMR_TRIPLET wsrc = { client.lmr_context, 0, (DAT_VADDR)(uintptr_t)(client.buf + 2560), sizeof(through) };
    cookie.as_64 = 8;
    TRY(dat_ep_post_rdma_write(client.ep, 1, &wsrc, cookie, &window_target, DAT_COMPLETION_DEFAULT_FLAG));
    wait_event(&client, client.dto_evd, DAT_DTO_COMPLETION_EVENT);
    wait_event(&server, server.dto_evd, DAT_RMR_BIND_COMPLETION_EVENT);
    wait_event(&server, server.dto_evd, DAT_DTO_COMPLETION_EVENT);
    DAT_LMR_TRIPLET arrived = window;   /* what the client wrote, made visible as above */
    TRY(dat_lmr_sync_rdma_write(server.ia, &arrived, 1));
    printf("server: window 0x%08x holds \"%s\"\n", (unsigned)window_context, server.buf + 3072);
    ok = ok && strcmp(server.buf + 3072, through) == 0;
    TRY(dat_rmr_free(rmr));

    /* Both sides see the disconnect. */
    TRY(dat_ep_disconnect(client.ep, DAT_CLOSE_GRACEFUL_FLAG));
    wait_event(&client, client.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
    wait_event(&server, server.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED);
    TRY(dat_psp_free(psp));
    side_close(&client);
    side_close(&server);
    printf(ok ? "ok\n" : "MISMATCH\n");
    return ok ? 0 : 1;
}
