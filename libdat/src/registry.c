/*
 * IA names. Built in: rnic<N>, the NICs of the driver's sim backend. A
 * dat.conf-format file (DAT_OVERRIDE, else /etc/dat.conf) may add names:
 *
 *   <ia_name> u<major>.<minor> <threadsafe|nonthreadsafe> <default|nondefault>
 *       <lib_path> <provider>.<major>.<minor> "<ia_params>" "<platform_params>"
 *
 * Only lines whose lib_path names this library (basename libdat*) count:
 * a system dat.conf lists other providers too. A line of ours that does not
 * parse is reported on stderr (file, line, what is wrong) and ignored; an
 * IA it names then fails to open with DAT_INVALID_PARAMETER, not as a name
 * nobody registered. In a quoted field, \" is a quote and \\ a backslash. ia_params is the driver
 * device ("rnic1", "vfio:0000:01:00.0"), then optional key=value words:
 * cm_addr=<IPv4> sets the IA address the connection manager listens on;
 * coherency=coherent|noncoherent sets the host's coherency (the device's
 * mode while it is open; a simulated NIC can be either); sim_mode=auto|
 * lockstep|freerun, link_local=<host:port> and link_peer=<host:port> go to
 * the simulated platform (how time runs, and where the NIC's link socket
 * is and where its peer's is: docs/platform.md).
 *
 * dat_registry_list_providers lists a line of ours only when its device can
 * be there (a simulated NIC of the fabric, a PCI function in sysfs): a
 * consumer that opens what the list offers must not meet a missing device.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "dat_internal.h"

#define CONF_FIELDS 8

/* Splits one dat.conf line into fields (at most CONF_FIELDS kept; the
 * count goes on past them); quoted fields keep their spaces and take \"
 * and \\ as escapes. Returns the number of fields, or -1 for a quote that
 * is not closed. */
static int split_fields(char *line, char *field[CONF_FIELDS])
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0' || *p == '#')
            break;
        char *start;
        if (*p == '"') {
            char *out = start = ++p;
            while (*p && *p != '"') {
                if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
                    p++;
                *out++ = *p++;
            }
            if (*p != '"')
                return -1;
            p++;
            *out = '\0';
        } else {
            start = p;
            while (*p && !isspace((unsigned char)*p))
                p++;
            if (*p)
                *p++ = '\0';
        }
        if (n < CONF_FIELDS)
            field[n] = start;
        n++;
    }
    return n;
}

static bool names_this_library(const char *lib_path)
{
    const char *base = strrchr(lib_path, '/');
    base = base ? base + 1 : lib_path;
    return strncmp(base, "libdat", 6) == 0;
}

/* What is wrong with a line of ours, for the report. */
struct conf_error {
    char what[256];
};

/* fmt has one %s, for the offending text (cut to 80 bytes: a report line). */
static bool conf_fail(struct conf_error *err, const char *fmt, const char *arg)
{
    char a[84];
    snprintf(a, sizeof(a), "%.80s", arg);
    snprintf(err->what, sizeof(err->what), fmt, a);
    return false;
}

static bool parse_ia_params(char *params, struct dat_ia_entry *e, struct conf_error *err)
{
    char *save = NULL;
    char *tok = strtok_r(params, " \t", &save);
    if (!tok)
        return conf_fail(err, "ia_params (field 7)%s names no device", "");
    if (strlen(tok) >= sizeof(e->device))
        return conf_fail(err, "ia_params (field 7): device name %s is too long", tok);
    strcpy(e->device, tok);
    while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
        bool known = false;
        if (strncmp(tok, "cm_addr=", 8) == 0) {
            if (inet_pton(AF_INET, tok + 8, &e->cm_addr) != 1)
                return conf_fail(err, "ia_params (field 7): %s is not an IPv4 address", tok);
            known = true;
        }
        static const struct {
            const char *word, *option;
        } platform[] = {{"sim_mode=", "mode="}, {"link_local=", "link_local="}, {"link_peer=", "link_peer="}};
        for (size_t i = 0; i < sizeof(platform) / sizeof(platform[0]); i++) {
            const size_t k = strlen(platform[i].word);
            if (strncmp(tok, platform[i].word, k) == 0) {
                const size_t used = strlen(e->options);
                const int w = snprintf(e->options + used, sizeof(e->options) - used, "%s%s%s", used ? " " : "",
                                       platform[i].option, tok + k);
                if (w < 0 || (size_t)w >= sizeof(e->options) - used)
                    return conf_fail(err, "ia_params (field 7): %s makes the options too long", tok);
                known = true;
            }
        }
        if (strncmp(tok, "coherency=", 10) == 0) {
            if (strcmp(tok + 10, "coherent") == 0)
                e->coherency = RNIC_HOST_COHERENT;
            else if (strcmp(tok + 10, "noncoherent") == 0)
                e->coherency = RNIC_HOST_NONCOHERENT;
            else
                return conf_fail(err, "ia_params (field 7): %s is neither coherent nor noncoherent", tok);
            known = true;
        }
        if (!known)
            return conf_fail(err, "ia_params (field 7): %s is no key this provider knows", tok);
    }
    return true;
}

enum line_kind { LINE_OTHER, LINE_OURS, LINE_BAD };

/* Fills e from a dat.conf line. LINE_OTHER: blank, a comment, or another
 * library's; LINE_BAD: ours (its 5th field names this library) but wrong,
 * err says how and e->ia_name names the IA (if it has a name). */
static enum line_kind parse_line(char *line, struct dat_ia_entry *e, struct conf_error *err)
{
    char *f[CONF_FIELDS];
    memset(e, 0, sizeof(*e));
    /* Read before the split cuts the line up: whether it may be ours, and
     * its first word (the IA it names) in case it cannot be split. */
    const bool mentions_us = strstr(line, "libdat") != NULL;
    char first[sizeof(e->ia_name)] = "";
    sscanf(line, "%255s", first);
    const int n = split_fields(line, f);
    if (n == 0)
        return LINE_OTHER;
    if (n < 0) {
        /* Whose line it is cannot be told; say so only if it may be ours. */
        if (!mentions_us)
            return LINE_OTHER;
        snprintf(e->ia_name, sizeof(e->ia_name), "%s", first);
        conf_fail(err, "a quoted field is not closed%s", "");
        return LINE_BAD;
    }
    snprintf(e->ia_name, sizeof(e->ia_name), "%s", f[0]);
    if (n < 5 || !names_this_library(f[4]))
        return LINE_OTHER;
    char count[16];
    snprintf(count, sizeof(count), "%d", n);
    if (n != CONF_FIELDS)
        return conf_fail(err, "%s fields, 8 expected", count), LINE_BAD;
    if (strlen(f[0]) >= sizeof(e->ia_name))
        return conf_fail(err, "ia_name (field 1) %s is too long", f[0]), LINE_BAD;
    unsigned major, minor;
    char tail;
    if (f[1][0] != 'u' || sscanf(f[1] + 1, "%u.%u%c", &major, &minor, &tail) != 2)
        return conf_fail(err, "api_version (field 2) %s is not u<major>.<minor>", f[1]), LINE_BAD;
    if (strcmp(f[2], "threadsafe") != 0 && strcmp(f[2], "nonthreadsafe") != 0)
        return conf_fail(err, "thread_safety (field 3) %s is neither threadsafe nor nonthreadsafe", f[2]), LINE_BAD;
    if (strcmp(f[3], "default") != 0 && strcmp(f[3], "nondefault") != 0)
        return conf_fail(err, "default (field 4) %s is neither default nor nondefault", f[3]), LINE_BAD;
    e->major = major;
    e->minor = minor;
    e->thread_safe = strcmp(f[2], "threadsafe") == 0 ? DAT_TRUE : DAT_FALSE;
    e->coherency = RNIC_HOST_DEFAULT;
    return parse_ia_params(f[6], e, err) ? LINE_OURS : LINE_BAD;
}

/* Calls fn on every entry of ours in dat.conf until it returns true. A bad
 * line of ours is reported and skipped; *bad_name (if given) is set when
 * one names `name`. */
static bool conf_each(bool (*fn)(const struct dat_ia_entry *, void *), void *arg, const char *name, bool *bad_name)
{
    const char *path;
    if (!dat_env_conf(&path))
        return false;
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[1024];
    bool stop = false;
    for (unsigned no = 1; !stop && fgets(line, sizeof(line), f); no++) {
        struct dat_ia_entry e;
        struct conf_error err = {{0}};
        switch (parse_line(line, &e, &err)) {
        case LINE_OURS:
            stop = fn(&e, arg);
            break;
        case LINE_BAD:
            fprintf(stderr, "libdat: %s:%u: %s; line ignored\n", path, no, err.what);
            if (name && bad_name && strcmp(e.ia_name, name) == 0)
                *bad_name = true;
            break;
        case LINE_OTHER:
            break;
        }
    }
    fclose(f);
    return stop;
}

static bool builtin_name(const char *name)
{
    if (strncmp(name, "rnic", 4) != 0 || name[4] == '\0')
        return false;
    for (const char *p = name + 4; *p; p++)
        if (!isdigit((unsigned char)*p))
            return false;
    return strlen(name) < 64;
}

struct find_arg {
    const char *name;
    struct dat_ia_entry *out;
};

static bool match_name(const struct dat_ia_entry *e, void *arg)
{
    struct find_arg *fa = arg;
    if (strcmp(e->ia_name, fa->name) != 0)
        return false;
    *fa->out = *e;
    return true;
}

DAT_RETURN dat_registry_find(const char *name, struct dat_ia_entry *out)
{
    struct find_arg fa = { name, out };
    bool bad = false;
    if (conf_each(match_name, &fa, name, &bad))
        return DAT_SUCCESS;
    if (bad)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);   /* its line is wrong: reported above */
    if (builtin_name(name)) {
        memset(out, 0, sizeof(*out));
        strcpy(out->ia_name, name);
        strcpy(out->device, name);
        out->major = DAT_VERSION_MAJOR;
        out->minor = DAT_VERSION_MINOR;
        out->thread_safe = DAT_TRUE;
        out->coherency = RNIC_HOST_DEFAULT;
        return DAT_SUCCESS;
    }
    return DAT_ERR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
}

struct list_arg {
    DAT_COUNT max, n;
    DAT_PROVIDER_INFO **list;
};

static void list_add(struct list_arg *la, const char *name, DAT_UINT32 major, DAT_UINT32 minor,
                     DAT_BOOLEAN ts)
{
    if (la->n < la->max && la->list[la->n]) {
        DAT_PROVIDER_INFO *pi = la->list[la->n];
        memset(pi, 0, sizeof(*pi));
        snprintf(pi->ia_name, DAT_NAME_MAX_LENGTH, "%s", name);
        pi->dapl_version_major = major;
        pi->dapl_version_minor = minor;
        pi->is_thread_safe = ts;
    }
    la->n++;
}

/* Whether `device` could be there, judged without opening it: opening
 * would build the simulated fabric, or take a board, for a mere listing.
 * A simulated NIC must be one of the RNIC_SIM_NICS the builtin names are
 * listed for (the platform spells them without leading zeros); a board's
 * PCI function must be in sysfs, where the driver's first VFIO step looks.
 * Any other device no backend opens. */
static bool device_present(const char *device, unsigned nics)
{
    if (builtin_name(device)) {
        const char *digits = device + 4;
        if (digits[0] == '0' && digits[1] != '\0')
            return false;
        return strlen(digits) <= 2 && (unsigned)atoi(digits) < nics;
    }
    if (strncmp(device, "vfio:", 5) == 0) {
        const char *bdf = device + 5;
        /* Only a name in that directory: not a path out of it. */
        if (bdf[0] == '\0' || bdf[0] == '.' || strchr(bdf, '/'))
            return false;
        char path[128];
        snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
        return access(path, F_OK) == 0;
    }
    return false;
}

struct list_conf_arg {
    struct list_arg *la;
    unsigned nics;
};

static bool list_conf(const struct dat_ia_entry *e, void *arg)
{
    const struct list_conf_arg *lc = arg;
    if (device_present(e->device, lc->nics))
        list_add(lc->la, e->ia_name, e->major, e->minor, e->thread_safe);
    return false;
}

DAT_RETURN dat_registry_list_providers(DAT_COUNT max_to_return, DAT_COUNT *entries_returned,
                                       DAT_PROVIDER_INFO *(dat_provider_list[]))
{
    DAT_API_LOCK();
    if (max_to_return < 0)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    if (!entries_returned)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
    if (max_to_return > 0 && !dat_provider_list)
        return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
    /* A list from a configuration other than the one given would mislead. */
    const char *conf;
    unsigned nics;
    if (!dat_env_conf(&conf) || !dat_env_nics(&nics))
        return DAT_ERR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
    struct list_arg la = { max_to_return, 0, dat_provider_list };
    struct list_conf_arg lc = { &la, nics };
    conf_each(list_conf, &lc, NULL, NULL);
    for (unsigned i = 0; i < nics; i++) {
        char name[16];
        snprintf(name, sizeof(name), "rnic%u", i);
        list_add(&la, name, DAT_VERSION_MAJOR, DAT_VERSION_MINOR, DAT_TRUE);
    }
    /* With room for none, report how many there are. */
    *entries_returned = max_to_return == 0 ? la.n : (la.n < max_to_return ? la.n : max_to_return);
    return DAT_SUCCESS;
}

/* This library is its own registry; the set of IAs is dat.conf's. */
#include <dat/dat_registry.h>

DAT_RETURN dat_registry_add_provider(DAT_PROVIDER *provider, const DAT_PROVIDER_INFO *provider_info)
{
    DAT_API_LOCK();
    (void)provider;
    (void)provider_info;
    return DAT_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
}

DAT_RETURN dat_registry_remove_provider(DAT_PROVIDER *provider,
                                        const DAT_PROVIDER_INFO *provider_info)
{
    DAT_API_LOCK();
    (void)provider;
    (void)provider_info;
    return DAT_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
}
