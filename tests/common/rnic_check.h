/* The checks every test uses, C and C++ alike. One definition, so that a
 * failed check always names its file:line and the expression (with both
 * values for CHECK_EQ), and always counts toward the same exit code: a test
 * ends with rnic_check_summary or a finish function built on it.
 *
 * It includes nothing but <stdio.h>: the DAT tests use the public API only,
 * and test_headers.c includes it after the DAT headers it proves stand on
 * their own. Checks that need more (CHECK_RET needs dat_strerror) live next
 * to what they need and count through rnic_check_record. */
#ifndef RNIC_CHECK_H
#define RNIC_CHECK_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Counts one check and, unless ok, one failure; returns ok. Callable from
 * several threads at once: the thread tests check from each of theirs. */
int rnic_check_record(int ok);
int rnic_check_total(void);
/* A test that runs cases compares this before and after a case to say
 * which case failed. */
int rnic_check_failures(void);
/* Prints "name: N checks, M failed" and returns the exit code: 1 if a
 * check failed. */
int rnic_check_summary(const char *name);

#ifdef __cplusplus
}
#endif

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!rnic_check_record(!!(cond)))                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);    \
    } while (0)

/* Compared as 64-bit integers: signed or unsigned, the same bits are equal
 * either way, and printing both forms serves counts and masks alike. */
#define CHECK_EQ(a, b)                                                                  \
    do {                                                                                \
        long long a_ = (long long)(a), b_ = (long long)(b);                             \
        if (!rnic_check_record(a_ == b_))                                               \
            fprintf(stderr, "%s:%d: %s == %lld (0x%llx), expected %s == %lld (0x%llx)\n", __FILE__, __LINE__, \
                    #a, a_, (unsigned long long)a_, #b, b_, (unsigned long long)b_);    \
    } while (0)

#endif
