/*
 * IA names. Built in: rnic<N>, the NICs of the driver's sim backend. A
 * dat.conf-format file (DAT_OVERRIDE, else /etc/dat.conf) may add names:
 *
 *   <ia_name> u<major>.<minor> <threadsafe|nonthreadsafe> <default|nondefault>
 *       <lib_path> <provider>.<major>.<minor> "<ia_params>" "<platform_params>"
 *
 * Only lines whose lib_path names this library (basename libdat*) count:
 * a system dat.conf lists other providers too. ia_params is the driver
 * device ("rnic1", "vfio:0000:01:00.0"), then optional key=value words:
 * cm_addr=<IPv4> sets the IA address the connection manager listens on;
 * coherency=coherent|noncoherent sets the host's coherency (the device's
 * mode while it is open; a simulated NIC can be either); sim_mode=auto|
 * lockstep|freerun, link_local=<host:port> and link_peer=<host:port> go to
 * the simulated platform (how time runs, and where the NIC's link socket
 * is and where its peer's is: docs/platform.md).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "dat_internal.h"

/* Splits one dat.conf line into at most 8 fields; quoted fields keep their
 * spaces. Returns the number of fields. */
static int split_fields(char *line, char *field[8])
{
    int n = 0;
    char *p = line;
    while (n < 8) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0' || *p == '#')
            break;
        if (*p == '"') {
            field[n++] = ++p;
            while (*p && *p != '"')
                p++;
        } else {
            field[n++] = p;
            while (*p && !isspace((unsigned char)*p))
                p++;
        }
        if (*p)
            *p++ = '\0';
    }
    return n;
}

static bool names_this_library(const char *lib_path)
{
    const char *base = strrchr(lib_path, '/');
    base = base ? base + 1 : lib_path;
    return strncmp(base, "libdat", 6) == 0;
}

static bool parse_ia_params(char *params, struct dat_ia_entry *e)
{
    char *save = NULL;
    char *tok = strtok_r(params, " \t", &save);
    if (!tok || strlen(tok) >= sizeof(e->device))
        return false;
    strcpy(e->device, tok);
    while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
        if (strncmp(tok, "cm_addr=", 8) == 0 && inet_pton(AF_INET, tok + 8, &e->cm_addr) != 1)
            return false;
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
                    return false;
            }
        }
        if (strncmp(tok, "coherency=", 10) == 0) {
            if (strcmp(tok + 10, "coherent") == 0)
                e->coherency = RNIC_HOST_COHERENT;
            else if (strcmp(tok + 10, "noncoherent") == 0)
                e->coherency = RNIC_HOST_NONCOHERENT;
            else
                return false;
        }
    }
    return true;
}

/* Fills e from a dat.conf line; false if the line is not one of ours. */
static bool parse_line(char *line, struct dat_ia_entry *e)
{
    char *f[8];
    if (split_fields(line, f) != 8)
        return false;
    if (strlen(f[0]) >= sizeof(e->ia_name) || f[1][0] != 'u' || !names_this_library(f[4]))
        return false;
    unsigned major, minor;
    if (sscanf(f[1] + 1, "%u.%u", &major, &minor) != 2)
        return false;
    memset(e, 0, sizeof(*e));
    strcpy(e->ia_name, f[0]);
    e->major = major;
    e->minor = minor;
    e->thread_safe = strcmp(f[2], "threadsafe") == 0 ? DAT_TRUE : DAT_FALSE;
    e->coherency = RNIC_HOST_DEFAULT;
    return parse_ia_params(f[6], e);
}

/* Calls fn on every entry of ours in dat.conf until it returns true. */
static bool conf_each(bool (*fn)(const struct dat_ia_entry *, void *), void *arg)
{
    const char *path;
    if (!dat_env_conf(&path))
        return false;
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[1024];
    bool stop = false;
    while (!stop && fgets(line, sizeof(line), f)) {
        struct dat_ia_entry e;
        if (parse_line(line, &e))
            stop = fn(&e, arg);
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
    if (conf_each(match_name, &fa))
        return DAT_SUCCESS;
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

static bool list_conf(const struct dat_ia_entry *e, void *arg)
{
    list_add(arg, e->ia_name, e->major, e->minor, e->thread_safe);
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
    conf_each(list_conf, &la);
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
