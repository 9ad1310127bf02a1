// The headers as a C++ consumer sees them: they compile as C++17 with every
// warning, and the shared layouts are the same.
#include <dat/udat.h>
#include <dat/dat_registry.h>

#include <cstddef>
#include <cstdio>

static_assert(sizeof(DAT_LMR_TRIPLET) == 24, "LMR triplet");
static_assert(offsetof(DAT_LMR_TRIPLET, virtual_address) == 8, "LMR triplet address");
static_assert(sizeof(DAT_RMR_TRIPLET) == 24, "RMR triplet");
static_assert(offsetof(DAT_RMR_TRIPLET, segment_length) == 16, "RMR triplet length");
static_assert(DAT_MEM_PRIV_ALL_FLAG == 0x33, "privileges");
static_assert(DAT_EP_STATE_CONNECTED == 9, "EP states");

int main()
{
    // Name the functions a consumer calls, so a missing prototype fails here.
    DAT_RETURN (*fns[])(DAT_EVD_HANDLE, DAT_EVENT *) = { dat_evd_dequeue };
    std::printf("test_headers_cxx: %s\n", fns[0] ? "ok" : "FAILED");
    return fns[0] ? 0 : 1;
}
