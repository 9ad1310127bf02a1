/* The counters behind rnic_check.h, for every test of every area. */
#include "rnic_check.h"

/* Updated atomically: the thread tests check from several threads. */
static int checks, failures;

int rnic_check_record(int ok)
{
    __atomic_add_fetch(&checks, 1, __ATOMIC_RELAXED);
    if (!ok)
        __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    return ok;
}

int rnic_check_total(void)
{
    return __atomic_load_n(&checks, __ATOMIC_RELAXED);
}

int rnic_check_failures(void)
{
    return __atomic_load_n(&failures, __ATOMIC_RELAXED);
}

int rnic_check_summary(const char *name)
{
    int n = rnic_check_failures();
    printf("%s: %d checks, %d failed\n", name, rnic_check_total(), n);
    return n ? 1 : 0;
}
