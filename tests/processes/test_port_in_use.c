/* A NIC whose link socket's port is taken (another process has that NIC
 * open, or anything else holds the port): dat_ia_open says so with a clear
 * error and a line on stderr naming the port, and works once the port is
 * free. Public DAT API, plus a plain UDP socket holding the port. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dat_test.h"

int main(void)
{
    const char *b = getenv("RNIC_LINK_PORT_BASE");
    const uint16_t base = (uint16_t)(b ? atoi(b) : 24790);
    int holder = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(base), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (holder < 0 || bind(holder, (struct sockaddr *)&a, sizeof(a)) != 0) {
        perror("bind");
        return 2;
    }

    /* What the library says on stderr goes to a pipe we read back. */
    int pipefd[2];
    CHECK_EQ(pipe(pipefd), 0);
    const int saved = dup(2);
    dup2(pipefd[1], 2);
    DAT_IA_HANDLE ia;
    DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
    char rnic0[] = "rnic0";
    DAT_RETURN r = dat_ia_open(rnic0, 8, &async, &ia);
    fflush(stderr);
    dup2(saved, 2);
    close(pipefd[1]);
    char said[1024] = "";
    const ssize_t n = read(pipefd[0], said, sizeof(said) - 1);
    said[n > 0 ? n : 0] = '\0';
    fprintf(stderr, "stderr of dat_ia_open: %s", said);

    CHECK_RET(r, DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE);
    char port[16];
    snprintf(port, sizeof(port), ":%u", (unsigned)base);
    CHECK(strstr(said, "in use") != NULL);
    CHECK(strstr(said, port) != NULL);
    CHECK(strstr(said, "rnic0") != NULL);
    /* libdat's own line after the platform's: which IA, which device, why. */
    CHECK(strstr(said, "libdat: dat_ia_open(\"rnic0\"): device rnic0: link port busy") != NULL);

    /* Port free again: the same open works. */
    close(holder);
    async = DAT_HANDLE_NULL;
    CHECK_OK(dat_ia_open(rnic0, 8, &async, &ia));
    CHECK_OK(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
    return dt_finish("test_port_in_use");
}
