/*
 * dat.conf lines of this provider that are wrong: each is reported on
 * stderr with the file, the line and what is wrong, and an IA such a line
 * names fails to open with DAT_INVALID_PARAMETER, not as a name nobody
 * registered. Other providers' lines, even malformed ones, are no concern of
 * ours and are passed over in silence. Quoted fields take \" and \\.
 */
#define _POSIX_C_SOURCE 200809L   /* dup, dup2, fileno */
#include "dat_test.h"

#include <arpa/inet.h>
#include <string.h>
#include <unistd.h>

/* Opens `name` with dat.conf = text; returns dat_ia_open's result and
 * leaves its stderr in `dt_captured`. */
static DAT_RETURN open_with(const char *text, const char *name, DAT_IA_HANDLE *ia)
{
    char path[DT_CONF_PATH];
    dt_conf_use(path, text);
    char n[64];
    snprintf(n, sizeof(n), "%s", name);
    DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
    dt_capture_start();
    DAT_RETURN r = dat_ia_open(n, 4, &evd, ia);
    dt_capture_end();
    dt_conf_drop(path);
    return r;
}

static void bad_line(const char *text, const char *name, const char *what)
{
    DAT_IA_HANDLE ia;
    CHECK_RET(open_with(text, name, &ia), DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
    CHECK(strstr(dt_captured, ":2: ") != NULL);   /* every text below has its bad line second */
    const bool named = strstr(dt_captured, what) != NULL;
    CHECK(named);
    if (!named)
        fprintf(stderr, "  expected \"%s\" in the report\n", what);
}

int main(void)
{
    const char *head = "# line 1\n";
    char t[512];

    snprintf(t, sizeof(t), "%sseven u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic1\"\n", head);
    bad_line(t, "seven", "7 fields, 8 expected");
    snprintf(t, sizeof(t), "%shost u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic1 coherency=maybe\" \"\"\n",
             head);
    bad_line(t, "host", "coherency=maybe is neither coherent nor noncoherent");
    snprintf(t, sizeof(t), "%skey u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic1 colour=red\" \"\"\n", head);
    bad_line(t, "key", "colour=red is no key");
    snprintf(t, sizeof(t), "%saddr u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic1 cm_addr=1.2.3\" \"\"\n", head);
    bad_line(t, "addr", "cm_addr=1.2.3 is not an IPv4 address");
    snprintf(t, sizeof(t), "%sver 1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic1\" \"\"\n", head);
    bad_line(t, "ver", "api_version (field 2) 1.2");
    snprintf(t, sizeof(t), "%sts u1.2 safe default libdat.so.1 rnic.1.0 \"rnic1\" \"\"\n", head);
    bad_line(t, "ts", "thread_safety (field 3) safe");
    snprintf(t, sizeof(t), "%squote u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic1 \"\"\n", head);
    bad_line(t, "quote", "a quoted field is not closed");

    /* Another provider's lines, however wrong, are passed over in silence;
     * a name that no line gives is not registered. */
    DAT_IA_HANDLE ia;
    snprintf(t, sizeof(t), "%sib0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 \"ib0 0\"\nx y\n", head);
    CHECK_RET(open_with(t, "ib0", &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
    CHECK_EQ(strlen(dt_captured), 0);
    snprintf(t, sizeof(t), "%sfabric u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic1\" \"\"\n", head);
    CHECK_RET(open_with(t, "fabirc", &ia), DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);

    /* Escapes in a quoted field; a good line beside a bad one still opens. */
    snprintf(t, sizeof(t),
             "%sbad u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic1 colour=red\" \"\"\n"
             "esc u1.2 threadsafe default libdat.so.1 rnic.1.0 \"rnic1 cm_addr=127.0.0.9\" \"a \\\"quoted\\\" \\\\ word\"\n",
             head);
    CHECK_OK(open_with(t, "esc", &ia));
    CHECK(strstr(dt_captured, ":2: ") != NULL && strstr(dt_captured, "colour=red") != NULL);
    DAT_IA_ATTR attr;
    CHECK_OK(dat_ia_query(ia, NULL, DAT_IA_FIELD_ALL, &attr, 0, NULL));
    CHECK_EQ(ntohl(((const struct sockaddr_in *)attr.ia_address_ptr)->sin_addr.s_addr), 0x7F000009);
    CHECK_OK(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
    return dt_finish("test_conf_lines");
}
