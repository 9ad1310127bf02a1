/*
 * The public headers as a DAT 1.2 consumer sees them: one include pulls in
 * everything, the standard names exist with the standard values, and the
 * structures a consumer shares with the provider have the standard layout.
 * Most checks are compile-time; the run checks the DAT_RETURN macros.
 */
#include <dat/udat.h>

#include <stddef.h>
#include <stdio.h>

#define ABI(cond) _Static_assert(cond, #cond)

/* Triplets: 24 bytes, context / pad / address / length. */
ABI(sizeof(DAT_LMR_TRIPLET) == 24);
ABI(offsetof(DAT_LMR_TRIPLET, lmr_context) == 0);
ABI(offsetof(DAT_LMR_TRIPLET, pad) == 4);
ABI(offsetof(DAT_LMR_TRIPLET, virtual_address) == 8);
ABI(offsetof(DAT_LMR_TRIPLET, segment_length) == 16);
ABI(sizeof(DAT_RMR_TRIPLET) == 24);
ABI(offsetof(DAT_RMR_TRIPLET, rmr_context) == 0);
ABI(offsetof(DAT_RMR_TRIPLET, pad) == 4);
ABI(offsetof(DAT_RMR_TRIPLET, target_address) == 8);
ABI(offsetof(DAT_RMR_TRIPLET, segment_length) == 16);

/* Basic types. */
ABI(sizeof(DAT_UINT32) == 4 && sizeof(DAT_UINT64) == 8 && sizeof(DAT_COUNT) == sizeof(int));
ABI(sizeof(DAT_VLEN) == 8 && sizeof(DAT_VADDR) == 8);
ABI(sizeof(DAT_LMR_CONTEXT) == 4 && sizeof(DAT_RMR_CONTEXT) == 4);
ABI(sizeof(DAT_CONN_QUAL) == 8 && sizeof(DAT_PORT_QUAL) == 8 && sizeof(DAT_TIMEOUT) == 4);
ABI(sizeof(DAT_RETURN) == 4);
ABI(sizeof(DAT_CONTEXT) == 8);
ABI(offsetof(DAT_CONTEXT, as_ptr) == 0 && offsetof(DAT_CONTEXT, as_64) == 0 && offsetof(DAT_CONTEXT, as_index) == 0);
ABI(DAT_TIMEOUT_INFINITE == 0xFFFFFFFFu);
ABI(DAT_VERSION_MAJOR == 1 && DAT_VERSION_MINOR == 2);
ABI(DAT_NAME_MAX_LENGTH == 256 && DAT_OPTIMAL_ALIGNMENT == 256);

/* DAT_RETURN: class 31-30, type 29-16, subtype 15-0. */
ABI(DAT_CLASS_ERROR == 0x80000000u && DAT_CLASS_WARNING == 0x40000000u);
ABI(DAT_TYPE_MASK == 0x3FFF0000u && DAT_SUBTYPE_MASK == 0xFFFFu);
ABI(DAT_SUCCESS == 0 && DAT_ABORT == 0x10000 && DAT_CONN_QUAL_IN_USE == 0x20000);
ABI(DAT_INSUFFICIENT_RESOURCES == 0x30000 && DAT_INTERNAL_ERROR == 0x40000 && DAT_INVALID_HANDLE == 0x50000);
ABI(DAT_INVALID_PARAMETER == 0x60000 && DAT_INVALID_STATE == 0x70000 && DAT_LENGTH_ERROR == 0x80000);
ABI(DAT_MODEL_NOT_SUPPORTED == 0x90000 && DAT_PROVIDER_NOT_FOUND == 0xA0000);
ABI(DAT_PRIVILEGES_VIOLATION == 0xB0000 && DAT_PROTECTION_VIOLATION == 0xC0000);
ABI(DAT_QUEUE_EMPTY == 0xD0000 && DAT_QUEUE_FULL == 0xE0000 && DAT_TIMEOUT_EXPIRED == 0xF0000);
ABI(DAT_PROVIDER_ALREADY_REGISTERED == 0x100000 && DAT_PROVIDER_IN_USE == 0x110000);
ABI(DAT_INVALID_ADDRESS == 0x120000 && DAT_INTERRUPTED_CALL == 0x130000);
ABI(DAT_CONN_QUAL_UNAVAILABLE == 0x140000 && DAT_NOT_IMPLEMENTED == 0x0FFF0000);
ABI(DAT_UNSUFFICIENT_RESOURCES == DAT_INSUFFICIENT_RESOURCES);

/* Subtypes: a sample from each group, and the ends. */
ABI(DAT_NO_SUBTYPE == 0 && DAT_SUB_INTERRUPTED == 1 && DAT_RESOURCE_MEMORY == 2 && DAT_RESOURCE_SRQ == 10);
ABI(DAT_INVALID_HANDLE_IA == 11 && DAT_INVALID_HANDLE_EP == 12 && DAT_INVALID_HANDLE_LMR == 13);
ABI(DAT_INVALID_HANDLE_RMR == 14 && DAT_INVALID_HANDLE_PZ == 15 && DAT_INVALID_HANDLE_PSP == 16);
ABI(DAT_INVALID_HANDLE_RSP == 17 && DAT_INVALID_HANDLE_CR == 18 && DAT_INVALID_HANDLE_CNO == 19);
ABI(DAT_INVALID_HANDLE_EVD_CR == 20 && DAT_INVALID_HANDLE_EVD_REQUEST == 21 && DAT_INVALID_HANDLE_EVD_RECV == 22);
ABI(DAT_INVALID_HANDLE_EVD_CONN == 23 && DAT_INVALID_HANDLE_EVD_ASYNC == 24 && DAT_INVALID_HANDLE_SRQ == 25);
ABI(DAT_INVALID_HANDLE1 == 26 && DAT_INVALID_HANDLE10 == 35 && DAT_INVALID_ARG1 == 36 && DAT_INVALID_ARG10 == 45);
ABI(DAT_INVALID_STATE_EP_UNCONNECTED == 46 && DAT_INVALID_STATE_EP_CONNECTED == 50);
ABI(DAT_INVALID_STATE_EP_DISCONNECTED == 51 && DAT_INVALID_STATE_EP_UNCONFTENTATIVE == 65);
ABI(DAT_INVALID_STATE_CNO_IN_USE == 66 && DAT_INVALID_STATE_EVD_OPEN == 68 && DAT_INVALID_STATE_EVD_ASYNC == 78);
ABI(DAT_INVALID_STATE_IA_IN_USE == 79 && DAT_INVALID_STATE_LMR_IN_USE == 80 && DAT_INVALID_STATE_PZ_IN_USE == 82);
ABI(DAT_INVALID_STATE_SRQ_IN_USE == 86 && DAT_PRIVILEGES_READ == 87 && DAT_PRIVILEGES_RDMA_WRITE == 90);
ABI(DAT_PROTECTION_READ == 91 && DAT_PROTECTION_RDMA_WRITE == 94 && DAT_INVALID_ADDRESS_UNSUPPORTED == 95);
ABI(DAT_INVALID_ADDRESS_MALFORMED == 97 && DAT_NAME_NOT_REGISTERED == 98 && DAT_THREAD_SAFETY_NOT_FOUND == 101);

/* Flags, as the man pages print them. */
ABI(DAT_MEM_PRIV_NONE_FLAG == 0 && DAT_MEM_PRIV_LOCAL_READ_FLAG == 0x01 && DAT_MEM_PRIV_REMOTE_READ_FLAG == 0x02);
ABI(DAT_MEM_PRIV_LOCAL_WRITE_FLAG == 0x10 && DAT_MEM_PRIV_REMOTE_WRITE_FLAG == 0x20 && DAT_MEM_PRIV_ALL_FLAG == 0x33);
ABI(DAT_MEM_PRIV_READ_FLAG == 0x03 && DAT_MEM_PRIV_WRITE_FLAG == 0x30);
ABI(DAT_COMPLETION_DEFAULT_FLAG == 0 && DAT_COMPLETION_SUPPRESS_FLAG == 0x01);
ABI(DAT_COMPLETION_SOLICITED_WAIT_FLAG == 0x02 && DAT_COMPLETION_UNSIGNALLED_FLAG == 0x04);
ABI(DAT_COMPLETION_BARRIER_FENCE_FLAG == 0x08 && DAT_COMPLETION_EVD_THRESHOLD_FLAG == 0x10);
ABI(DAT_MEM_TYPE_VIRTUAL == 0 && DAT_MEM_TYPE_LMR == 1 && DAT_MEM_TYPE_SHARED_VIRTUAL == 2);
ABI(DAT_MEM_TYPE_SO_VIRTUAL == 3 && DAT_LMR_COOKIE_SIZE == 40);
ABI(sizeof(*(DAT_LMR_COOKIE)0) == 40);
ABI(DAT_EVD_SOFTWARE_FLAG == 0x1 && DAT_EVD_CR_FLAG == 0x10 && DAT_EVD_DTO_FLAG == 0x20);
ABI(DAT_EVD_CONNECTION_FLAG == 0x40 && DAT_EVD_RMR_BIND_FLAG == 0x80 && DAT_EVD_ASYNC_FLAG == 0x100);
ABI(DAT_EVD_DEFAULT_FLAG == 0x1F0);
ABI(DAT_CLOSE_ABRUPT_FLAG == 0 && DAT_CLOSE_GRACEFUL_FLAG == 1 && DAT_CLOSE_DEFAULT == DAT_CLOSE_ABRUPT_FLAG);
ABI(DAT_CONNECT_DEFAULT_FLAG == 0 && DAT_CONNECT_MULTIPATH_FLAG == 1);
ABI(DAT_PSP_CONSUMER_FLAG == 0 && DAT_PSP_PROVIDER_FLAG == 1);
ABI(DAT_QOS_BEST_EFFORT == 0 && DAT_QOS_HIGH_THROUGHPUT == 1 && DAT_QOS_LOW_LATENCY == 2);
ABI(DAT_QOS_ECONOMY == 4 && DAT_QOS_PREMIUM == 8);

/* Events, completion status, EP states, handle types. */
ABI(DAT_DTO_COMPLETION_EVENT == 0x1 && DAT_RMR_BIND_COMPLETION_EVENT == 0x1001);
ABI(DAT_CONNECTION_REQUEST_EVENT == 0x2001 && DAT_CONNECTION_EVENT_ESTABLISHED == 0x4001);
ABI(DAT_CONNECTION_EVENT_PEER_REJECTED == 0x4002 && DAT_CONNECTION_EVENT_NON_PEER_REJECTED == 0x4003);
ABI(DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR == 0x4004 && DAT_CONNECTION_EVENT_DISCONNECTED == 0x4005);
ABI(DAT_CONNECTION_EVENT_BROKEN == 0x4006 && DAT_CONNECTION_EVENT_TIMED_OUT == 0x4007);
ABI(DAT_CONNECTION_EVENT_UNREACHABLE == 0x4008 && DAT_ASYNC_ERROR_EVD_OVERFLOW == 0x8001);
ABI(DAT_ASYNC_ERROR_IA_CATASTROPHIC == 0x8002 && DAT_ASYNC_ERROR_EP_BROKEN == 0x8003);
ABI(DAT_ASYNC_ERROR_TIMED_OUT == 0x8004 && DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR == 0x8005);
ABI(DAT_SOFTWARE_EVENT == 0x10001);
ABI(DAT_DTO_SUCCESS == 0 && DAT_DTO_ERR_FLUSHED == 1 && DAT_DTO_ERR_LOCAL_LENGTH == 2 && DAT_DTO_ERR_LOCAL_EP == 3);
ABI(DAT_DTO_ERR_LOCAL_PROTECTION == 4 && DAT_DTO_ERR_BAD_RESPONSE == 5 && DAT_DTO_ERR_REMOTE_ACCESS == 6);
ABI(DAT_DTO_ERR_REMOTE_RESPONDER == 7 && DAT_DTO_ERR_TRANSPORT == 8 && DAT_DTO_ERR_RECEIVER_NOT_READY == 9);
ABI(DAT_DTO_ERR_PARTIAL_PACKET == 10 && DAT_RMR_OPERATION_FAILED == 11);
ABI(DAT_RMR_BIND_SUCCESS == DAT_DTO_SUCCESS && DAT_RMR_BIND_FAILURE == DAT_DTO_ERR_FLUSHED);
ABI(DAT_EP_STATE_UNCONNECTED == 0 && DAT_EP_STATE_UNCONFIGURED_UNCONNECTED == 1 && DAT_EP_STATE_RESERVED == 2);
ABI(DAT_EP_STATE_UNCONFIGURED_RESERVED == 3 && DAT_EP_STATE_PASSIVE_CONNECTION_PENDING == 4);
ABI(DAT_EP_STATE_UNCONFIGURED_PASSIVE == 5 && DAT_EP_STATE_ACTIVE_CONNECTION_PENDING == 6);
ABI(DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING == 7 && DAT_EP_STATE_UNCONFIGURED_TENTATIVE == 8);
ABI(DAT_EP_STATE_CONNECTED == 9 && DAT_EP_STATE_DISCONNECT_PENDING == 10 && DAT_EP_STATE_DISCONNECTED == 11);
ABI(DAT_EP_STATE_COMPLETION_PENDING == 12);
ABI(DAT_HANDLE_TYPE_CR == 0 && DAT_HANDLE_TYPE_EP == 1 && DAT_HANDLE_TYPE_EVD == 2 && DAT_HANDLE_TYPE_IA == 3);
ABI(DAT_HANDLE_TYPE_LMR == 4 && DAT_HANDLE_TYPE_PSP == 5 && DAT_HANDLE_TYPE_PZ == 6 && DAT_HANDLE_TYPE_RMR == 7);
ABI(DAT_HANDLE_TYPE_RSP == 8 && DAT_HANDLE_TYPE_CNO == 9 && DAT_HANDLE_TYPE_SRQ == 10);

/* Region description and the event data members. */
ABI(offsetof(DAT_SHARED_MEMORY, virtual_address) == 0 && offsetof(DAT_SHARED_MEMORY, shared_memory_id) == 8);
ABI(sizeof(DAT_REGION_DESCRIPTION) == sizeof(DAT_SHARED_MEMORY));
ABI(offsetof(DAT_EVENT, event_number) == 0 && offsetof(DAT_EVENT, evd_handle) == 8 && offsetof(DAT_EVENT, event_data) == 16);
ABI(offsetof(DAT_DTO_COMPLETION_EVENT_DATA, ep_handle) == 0 && offsetof(DAT_DTO_COMPLETION_EVENT_DATA, user_cookie) == 8);
ABI(offsetof(DAT_DTO_COMPLETION_EVENT_DATA, status) == 16 && offsetof(DAT_DTO_COMPLETION_EVENT_DATA, transfered_length) == 24);
ABI(offsetof(DAT_CR_ARRIVAL_EVENT_DATA, cr_handle) == 24);
ABI(offsetof(DAT_CONNECTION_EVENT_DATA, private_data) == 16);
ABI(offsetof(DAT_PROVIDER_ATTR, lmr_sync_req) > offsetof(DAT_PROVIDER_ATTR, evd_stream_merging_supported));
ABI(sizeof(((DAT_PROVIDER_ATTR *)0)->evd_stream_merging_supported) == 36 * sizeof(DAT_BOOLEAN));
ABI(offsetof(DAT_IA_ATTR, ia_address_ptr) == 2 * 256 + 16);
ABI(sizeof(DAT_IA_ADDRESS_PTR) == sizeof(struct sockaddr *));

/* dat_ia_open is the macro over dat_ia_openv with this header's version. */
#define STR2(x) #x
#define STR(x) STR2(x)
static const char open_expansion[] = STR(dat_ia_open(n, q, e, i));

static int failures;
#define CHECK(c)                                                                        \
    do {                                                                                \
        if (!(c)) {                                                                     \
            failures++;                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);        \
        }                                                                               \
    } while (0)

int main(void)
{
    DAT_RETURN r = (DAT_RETURN)(DAT_CLASS_ERROR | DAT_INVALID_HANDLE | DAT_INVALID_HANDLE_EP);
    CHECK(DAT_GET_TYPE(r) == DAT_INVALID_HANDLE);
    CHECK(DAT_GET_SUBTYPE(r) == DAT_INVALID_HANDLE_EP);
    CHECK(!DAT_IS_WARNING(r));
    CHECK(DAT_IS_WARNING(DAT_CLASS_WARNING | DAT_QUEUE_EMPTY));
    CHECK(DAT_GET_TYPE(DAT_SUCCESS) == DAT_SUCCESS);
    /* The not-implemented type survives the type mask whole. */
    CHECK(DAT_GET_TYPE(DAT_CLASS_ERROR | DAT_NOT_IMPLEMENTED) == DAT_NOT_IMPLEMENTED);
    CHECK(sizeof(open_expansion) > 1);
    const char *want = "dat_ia_openv((n), (q), (e), (i), 1, 2, DAT_FALSE)";
    int same = 1;
    for (size_t i = 0; want[i] || open_expansion[i]; i++)
        if (want[i] != open_expansion[i])
            same = 0;
    CHECK(same);
    if (!same)
        fprintf(stderr, "dat_ia_open expands to %s\n", open_expansion);
    DAT_OS_WAIT_PROXY_AGENT a = DAT_OS_WAIT_PROXY_AGENT_NULL;
    CHECK(a.instance_data == NULL && a.proxy_agent_func == NULL);
    printf("test_headers: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
