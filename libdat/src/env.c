/*
 * The environment libdat reads, every variable through one helper: unset or
 * empty means the default; any value the variable does not accept is named
 * on stderr with what it accepts, and the call that read it fails. A wrong
 * value is never taken for the default: a typo would otherwise run a
 * program other than the one its user asked for, silently.
 *
 * dat_ia_open checks them all first, so a bad value fails the open; the
 * places that use a variable read it again through the same helper.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dat_internal.h"

/* The NICs' interrupt lines are bits of the platform's 32-bit mask, and it
 * keeps 16 handles: the same bound as the platform's own check. */
#define MAX_NICS 16u
/* A cycle must last at least a nanosecond: free-running waits count whole
 * nanoseconds per cycle. */
#define MAX_CLOCK_MHZ 1000u

/* The value of `name`, or NULL when unset or empty. */
static const char *value_of(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static bool refuse(const char *name, const char *value, const char *accepted)
{
    fprintf(stderr, "libdat: %s=%s is invalid; accepted: %s\n", name, value, accepted);
    return false;
}

/* Digits only: strtoull would take a sign ("-5" wraps to a huge number),
 * blanks and a suffix, and saturate on overflow. */
static bool parse_decimal(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        const uint64_t d = (uint64_t)(*p - '0');
        if (d > max || v > (max - d) / 10)   /* d > max: max - d would wrap */
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return *s != '\0';
}

bool dat_env_number(const char *name, uint64_t min, uint64_t max, uint64_t *out)
{
    const char *v = value_of(name);
    uint64_t x;
    if (!v)
        return true;
    if (parse_decimal(v, max, &x) && x >= min) {
        *out = x;
        return true;
    }
    char accepted[64];
    snprintf(accepted, sizeof(accepted), "a decimal number from %llu to %llu", (unsigned long long)min,
             (unsigned long long)max);
    return refuse(name, v, accepted);
}

bool dat_env_conf(const char **path)
{
    const char *v = value_of("DAT_OVERRIDE");
    *path = v ? v : "/etc/dat.conf";
    /* Without DAT_OVERRIDE a system without /etc/dat.conf is normal; a file
     * named on purpose that cannot be read is a mistake to report. */
    return !v || access(v, R_OK) == 0 || refuse("DAT_OVERRIDE", v, "the path of a readable dat.conf");
}

bool dat_env_cm_port_base(unsigned *base)
{
    uint64_t b = 0;
    if (!dat_env_number("DAT_RNIC_CM_PORT_BASE", 0, 65535, &b))
        return false;
    *base = (unsigned)b;
    return true;
}

bool dat_env_nics(unsigned *n)
{
    uint64_t v = 2;
    if (!dat_env_number("RNIC_SIM_NICS", 1, MAX_NICS, &v))
        return false;
    *n = (unsigned)v;
    return true;
}

/* Read at the first dat_ia_open that succeeds, under the API lock, before
 * any IA exists: every later reader comes after it. */
static uint64_t clock_mhz;

uint64_t dat_cycles_per_us(void)
{
    return clock_mhz ? clock_mhz : 250u;
}

/* Set at each dat_ia_open, under the API lock, as the clock is; read by the
 * completion path under the same lock. */
static bool log_errors;

bool dat_log_errors(void)
{
    return log_errors;
}

/* The largest value a QP_TIMERS field holds (31 or 7): the same bound the
 * driver checks, so a value accepted here is never refused at
 * dat_ep_create, where the consumer could not tell why. */
#define TIMER_MAX(F) ((uint64_t)(RNIC_QP_TIMERS_##F##_MASK >> RNIC_QP_TIMERS_##F##_SHIFT))

DAT_RETURN dat_env_check(struct rnic_qp_timers *timers)
{
    const char *conf;
    unsigned base, nics;
    uint64_t mhz = 250, log = 0;
    uint64_t ack = RNIC_QP_DEFAULT_ACK_TIMEOUT, retry = RNIC_QP_DEFAULT_RETRY_CNT,
             rnr = RNIC_QP_DEFAULT_RNR_RETRY, min_rnr = RNIC_QP_DEFAULT_MIN_RNR_TIMER;
    if (!dat_env_conf(&conf) || !dat_env_cm_port_base(&base) || !dat_env_nics(&nics) ||
        !dat_env_number("RNIC_CLOCK_MHZ", 1, MAX_CLOCK_MHZ, &mhz) ||
        !dat_env_number("DAT_RNIC_LOG_ERRORS", 0, 1, &log) ||
        !dat_env_number("RNIC_ACK_TIMEOUT", 0, TIMER_MAX(ACK_TIMEOUT), &ack) ||
        !dat_env_number("RNIC_RETRY_CNT", 0, TIMER_MAX(RETRY_CNT), &retry) ||
        !dat_env_number("RNIC_RNR_RETRY", 0, TIMER_MAX(RNR_RETRY), &rnr) ||
        !dat_env_number("RNIC_MIN_RNR_TIMER", 0, TIMER_MAX(MIN_RNR_TIMER), &min_rnr))
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    if (!clock_mhz)
        clock_mhz = mhz;
    log_errors = log != 0;
    *timers = (struct rnic_qp_timers){(uint8_t)ack, (uint8_t)retry, (uint8_t)rnr, (uint8_t)min_rnr};
    return DAT_SUCCESS;
}
