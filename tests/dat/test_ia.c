/*
 * IA open (names, dat.conf through DAT_OVERRIDE, the version check, async
 * EVD choices), query (the IA address is its own, limits, provider
 * attributes), close (graceful and abrupt), the registry list, strerror,
 * handle types and consumer contexts.
 */
#include "dat_test.h"

#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

static void open_errors(void)
{
    char rnic0[] = "rnic0", nosuch[] = "rnic-does-not-exist", eth[] = "eth0";
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
    CHECK_RET(dat_ia_openv(NULL, 4, &async, &ia, 1, 2, DAT_FALSE), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    char longname[300];
    memset(longname, 'r', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    CHECK_RET(dat_ia_open(longname, 4, &async, &ia), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    CHECK_RET(dat_ia_open(nosuch, 4, &async, &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
    CHECK_RET(dat_ia_open(eth, 4, &async, &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
    char rnic9[] = "rnic9";   /* a name of the right shape, but no such NIC in the fabric */
    CHECK_RET(dat_ia_open(rnic9, 4, &async, &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
    /* The version the consumer was built for. */
    CHECK_RET(dat_ia_openv(rnic0, 4, &async, &ia, 2, 0, DAT_FALSE), DAT_PROVIDER_NOT_FOUND, DAT_MAJOR_NOT_FOUND);
    CHECK_RET(dat_ia_openv(rnic0, 4, &async, &ia, 1, 3, DAT_FALSE), DAT_PROVIDER_NOT_FOUND, DAT_MINOR_NOT_FOUND);
    /* A thread-safe provider is what a consumer asking for one gets. */
    CHECK_OK(dat_ia_openv(rnic0, 4, &async, &ia, 1, 2, DAT_TRUE));
    CHECK_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
    async = DAT_HANDLE_NULL;
    CHECK_RET(dat_ia_openv(rnic0, 4, &async, &ia, 1, 2, (DAT_BOOLEAN)7), DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
    CHECK_RET(dat_ia_open(rnic0, 0, &async, &ia), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_RET(dat_ia_open(rnic0, 4, NULL, &ia), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    CHECK_RET(dat_ia_open(rnic0, 4, &async, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
    CHECK(async == DAT_HANDLE_NULL);
    /* A DAT 1.1 consumer is served by this 1.2 provider. */
    CHECK_OK(dat_ia_openv(rnic0, 4, &async, &ia, 1, 1, DAT_FALSE));
    CHECK_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

static void query_and_async(void)
{
    char n0[] = "rnic0", n1[] = "rnic1";
    DAT_IA_HANDLE ia0, ia1, ia0b, ia0c;
    DAT_EVD_HANDLE async0 = DAT_HANDLE_NULL, async1 = DAT_HANDLE_NULL;
    CHECK_OK(dat_ia_open(n0, 4, &async0, &ia0));
    CHECK_OK(dat_ia_open(n1, 4, &async1, &ia1));
    CHECK(async0 != DAT_HANDLE_NULL && async0 != async1);
    DAT_EVD_HANDLE q_async;
    DAT_IA_ATTR a;
    DAT_PROVIDER_ATTR pa;
    CHECK_OK(dat_ia_query(ia0, &q_async, DAT_IA_FIELD_ALL, &a, DAT_PROVIDER_FIELD_ALL, &pa));
    CHECK(q_async == async0);
    DAT_EVD_PARAM ep;
    CHECK_OK(dat_evd_query(async0, DAT_EVD_FIELD_ALL, &ep));
    CHECK(ep.evd_flags & DAT_EVD_ASYNC_FLAG);
    CHECK_EQ(ep.evd_qlen, 4);
    /* The IA address: an IPv4 address of its own, one per NIC. */
    const struct sockaddr_in *sa = (const struct sockaddr_in *)a.ia_address_ptr;
    CHECK_EQ(sa->sin_family, AF_INET);
    CHECK_EQ(ntohl(sa->sin_addr.s_addr), 0x7F000001);
    DAT_IA_ATTR a1;
    CHECK_OK(dat_ia_query(ia1, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &a1, 0, NULL));
    CHECK_EQ(ntohl(((const struct sockaddr_in *)a1.ia_address_ptr)->sin_addr.s_addr), 0x7F000002);
    /* Limits. */
    CHECK(a.max_eps >= 2);
    CHECK_EQ(a.max_iov_segments_per_dto, 4);
    CHECK_EQ(a.max_rdma_read_per_ep_out, 8);
    CHECK(a.max_lmrs >= 1000);
    CHECK(a.max_evd_qlen >= 1024);
    CHECK(a.max_message_size >= 65536);
    CHECK(strcmp(a.adapter_name, "rnic0") == 0);
    /* Provider attributes. */
    CHECK_EQ(pa.dapl_version_major, 1);
    CHECK_EQ(pa.dapl_version_minor, 2);
    CHECK_EQ(pa.lmr_sync_req, DAT_FALSE);
    CHECK_EQ(pa.is_thread_safe, DAT_TRUE);
    CHECK_EQ(pa.max_private_data_size, 256);
    CHECK_EQ(pa.optimal_buffer_alignment, DAT_OPTIMAL_ALIGNMENT);
    CHECK_EQ(pa.iov_ownership_on_return, DAT_IOV_CONSUMER);
    CHECK(strlen(pa.provider_name) > 0);
    CHECK_RET(dat_ia_query(ia0, NULL, DAT_IA_FIELD_ALL, NULL, 0, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
    CHECK_RET(dat_ia_query(ia0, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, NULL), DAT_INVALID_PARAMETER,
              DAT_INVALID_ARG6);
    CHECK_OK(dat_ia_query(ia0, NULL, 0, NULL, 0, NULL));
    /* A second open of the same NIC that shares the first one's async EVD... */
    DAT_EVD_HANDLE shared = async0;
    CHECK_OK(dat_ia_open(n0, 4, &shared, &ia0b));
    CHECK(shared == async0);
    CHECK_OK(dat_ia_query(ia0b, &q_async, 0, NULL, 0, NULL));
    CHECK(q_async == async0);
    /* ...and one that has none. */
    DAT_EVD_HANDLE none = DAT_EVD_ASYNC_EXISTS;
    CHECK_OK(dat_ia_open(n0, 4, &none, &ia0c));
    CHECK_OK(dat_ia_query(ia0c, &q_async, 0, NULL, 0, NULL));
    CHECK(q_async == DAT_EVD_OUT_OF_SCOPE);
    /* Another NIC's async EVD cannot be shared. */
    DAT_IA_HANDLE x;
    DAT_EVD_HANDLE wrong = async1;
    CHECK_RET(dat_ia_open(n0, 4, &wrong, &x), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_ASYNC);
    /* The async EVD is the IA's: it goes with dat_ia_close. */
    CHECK_RET(dat_evd_free(async0), DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE);
    /* Graceful close refuses while something is open on the IA. */
    CHECK_RET(dat_ia_close(ia0, DAT_CLOSE_GRACEFUL_FLAG), DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE);
    CHECK_OK(dat_ia_close(ia0b, DAT_CLOSE_GRACEFUL_FLAG));
    CHECK_OK(dat_ia_close(ia0c, DAT_CLOSE_GRACEFUL_FLAG));
    DAT_PZ_HANDLE pz;
    CHECK_OK(dat_pz_create(ia0, &pz));
    CHECK_RET(dat_ia_close(ia0, DAT_CLOSE_GRACEFUL_FLAG), DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE);
    CHECK_RET(dat_ia_close(ia0, (DAT_CLOSE_FLAGS)9), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_OK(dat_pz_free(pz));
    CHECK_OK(dat_ia_close(ia0, DAT_CLOSE_GRACEFUL_FLAG));
    CHECK_RET(dat_ia_close(ia0, DAT_CLOSE_GRACEFUL_FLAG), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
    CHECK_RET(dat_evd_query(async0, DAT_EVD_FIELD_ALL, &ep), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
    /* Abrupt close frees everything on the IA: its handles go stale. */
    DAT_EVD_HANDLE evd;
    DAT_CNO_HANDLE cno;
    CHECK_OK(dat_pz_create(ia1, &pz));
    CHECK_OK(dat_cno_create(ia1, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
    CHECK_OK(dat_evd_create(ia1, 8, cno, DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG, &evd));
    DAT_EP_HANDLE e;
    CHECK_OK(dat_ep_create(ia1, pz, evd, evd, evd, NULL, &e));
    CHECK_OK(dat_ia_close(ia1, DAT_CLOSE_ABRUPT_FLAG));
    DAT_HANDLE_TYPE ht;
    CHECK_RET(dat_get_handle_type(e, &ht), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
    CHECK_RET(dat_get_handle_type(pz, &ht), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
    CHECK_RET(dat_get_handle_type(evd, &ht), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
    CHECK_RET(dat_get_handle_type(cno, &ht), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
    CHECK_RET(dat_get_handle_type(async1, &ht), DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
}

static void dat_conf(void)
{
    const char text[] =
        "# a dat.conf: our lines, and another provider's\n"
        "fabric-b u1.2 nonthreadsafe default libdat.so.1 rnic.1.0 \"rnic1 cm_addr=127.0.0.9\" \"\"\n"
        "fabric-a u1.2 nonthreadsafe nondefault /usr/lib/libdat.so rnic.1.0 \"rnic0\" \"\"\n"
        "ofa-v2-ib0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 \"ib0 0\" \"\"\n"
        "broken-line u1.2\n";
    char path[DT_CONF_PATH];
    dt_conf_use(path, text);
    char fa[] = "fabric-a", fb[] = "fabric-b", ofa[] = "ofa-v2-ib0";
    DAT_IA_HANDLE a, b, x;
    DAT_EVD_HANDLE ea = DAT_HANDLE_NULL, eb = DAT_HANDLE_NULL, ex = DAT_HANDLE_NULL;
    CHECK_OK(dat_ia_open(fa, 4, &ea, &a));
    CHECK_OK(dat_ia_open(fb, 4, &eb, &b));
    CHECK_RET(dat_ia_open(ofa, 4, &ex, &x), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
    DAT_IA_ATTR attr;
    CHECK_OK(dat_ia_query(b, NULL, DAT_IA_FIELD_ALL, &attr, 0, NULL));
    CHECK_EQ(ntohl(((const struct sockaddr_in *)attr.ia_address_ptr)->sin_addr.s_addr), 0x7F000009);
    CHECK(strcmp(attr.adapter_name, "rnic1") == 0);
    /* The registry lists them, and the built-in names. */
    DAT_PROVIDER_INFO infos[8], *list[8];
    for (int i = 0; i < 8; i++)
        list[i] = &infos[i];
    DAT_COUNT n = 0, total = 0;
    CHECK_OK(dat_registry_list_providers(0, &total, NULL));
    CHECK_EQ(total, 4);
    CHECK_OK(dat_registry_list_providers(8, &n, list));
    CHECK_EQ(n, 4);
    CHECK(strcmp(infos[0].ia_name, "fabric-b") == 0 && strcmp(infos[1].ia_name, "fabric-a") == 0);
    CHECK(strcmp(infos[2].ia_name, "rnic0") == 0 && strcmp(infos[3].ia_name, "rnic1") == 0);
    CHECK_EQ(infos[0].dapl_version_major, 1);
    CHECK_EQ(infos[0].dapl_version_minor, 2);
    CHECK_OK(dat_registry_list_providers(2, &n, list));
    CHECK_EQ(n, 2);
    CHECK_RET(dat_registry_list_providers(-1, &n, list), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    CHECK_RET(dat_registry_list_providers(2, NULL, list), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    /* An EP on the alias connects to a PSP on the alias's address. */
    CHECK_OK(dat_ia_close(a, DAT_CLOSE_ABRUPT_FLAG));
    CHECK_OK(dat_ia_close(b, DAT_CLOSE_ABRUPT_FLAG));
    dt_conf_drop(path);
}

static void strerror_and_contexts(void)
{
    const char *ma = NULL, *mi = NULL;
    CHECK_OK(dat_strerror(DAT_CLASS_ERROR | DAT_INVALID_HANDLE | DAT_INVALID_HANDLE_EVD_CONN, &ma, &mi));
    CHECK(ma && strcmp(ma, "DAT_INVALID_HANDLE") == 0);
    CHECK(mi && strcmp(mi, "DAT_INVALID_HANDLE_EVD_CONN") == 0);
    CHECK_OK(dat_strerror(DAT_SUCCESS, &ma, &mi));
    CHECK(strcmp(ma, "DAT_SUCCESS") == 0);
    CHECK_OK(dat_strerror(DAT_CLASS_ERROR | DAT_PROVIDER_NOT_FOUND | DAT_THREAD_SAFETY_NOT_FOUND, &ma, &mi));
    CHECK(strcmp(mi, "DAT_THREAD_SAFETY_NOT_FOUND") == 0);
    CHECK_OK(dat_strerror(DAT_CLASS_ERROR | DAT_NOT_IMPLEMENTED, &ma, &mi));
    CHECK(strcmp(ma, "DAT_NOT_IMPLEMENTED") == 0);
    CHECK_RET(dat_strerror(0x00150000u, &ma, &mi), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    CHECK_RET(dat_strerror(DAT_INVALID_HANDLE | 500, &ma, &mi), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    CHECK_RET(dat_strerror(DAT_SUCCESS, NULL, &mi), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);

    struct dt_side s;
    dt_side_open(&s, 0, NULL);
    DAT_HANDLE all[] = { s.ia, s.pz, s.req_evd, s.ep, s.lmr };
    DAT_HANDLE_TYPE want[] = { DAT_HANDLE_TYPE_IA, DAT_HANDLE_TYPE_PZ, DAT_HANDLE_TYPE_EVD, DAT_HANDLE_TYPE_EP,
                               DAT_HANDLE_TYPE_LMR };
    for (int i = 0; i < 5; i++) {
        DAT_HANDLE_TYPE t;
        CHECK_OK(dat_get_handle_type(all[i], &t));
        CHECK_EQ(t, want[i]);
        DAT_CONTEXT c = { .as_64 = 0x1000u + (uint64_t)i }, back;
        CHECK_OK(dat_set_consumer_context(all[i], c));
        CHECK_OK(dat_get_consumer_context(all[i], &back));
        CHECK_EQ(back.as_64, 0x1000u + (uint64_t)i);
    }
    CHECK_RET(dat_get_handle_type(s.ia, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    CHECK_RET(dat_get_consumer_context(s.ia, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    /* PZ query and the PZ in use. */
    DAT_PZ_PARAM pp;
    CHECK_OK(dat_pz_query(s.pz, DAT_PZ_FIELD_ALL, &pp));
    CHECK(pp.ia_handle == s.ia);
    CHECK_RET(dat_pz_query(s.pz, DAT_PZ_FIELD_ALL, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    CHECK_RET(dat_pz_free(s.pz), DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE);
    CHECK_RET(dat_pz_create(s.ia, NULL), DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    dt_side_close(&s);
}

int main(void)
{
    open_errors();
    query_and_async();
    dat_conf();
    strerror_and_contexts();
    return dt_finish("test_ia");
}
