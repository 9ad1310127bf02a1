#define _GNU_SOURCE
#include "run_child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Files, not pipes: the child may print more than a pipe holds before the
 * parent reads, and nothing here needs the output while it runs. */
static void slurp(FILE *f, char *buf, size_t cap)
{
    rewind(f);
    const size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static void apply_env(const char *const *env)
{
    for (; env && *env; env++) {
        const char *eq = strchr(*env, '=');
        if (!eq) {
            unsetenv(*env);
            continue;
        }
        char name[256];
        snprintf(name, sizeof(name), "%.*s", (int)(eq - *env), *env);
        setenv(name, eq + 1, 1);
    }
}

int run_child(struct child_run *r, const char *const *env, const char *const *args)
{
    memset(r, 0, sizeof(*r));
    FILE *out = tmpfile(), *err = tmpfile();
    if (!out || !err)
        return -1;
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        apply_env(env);
        const char *argv[16] = {"child"};
        for (size_t i = 1; i + 1 < sizeof(argv) / sizeof(argv[0]) && args && args[i - 1]; i++)
            argv[i] = args[i - 1];
        execv("/proc/self/exe", (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    r->exited = WIFEXITED(st);
    r->code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    slurp(out, r->out, sizeof(r->out));
    slurp(err, r->err, sizeof(r->err));
    return 0;
}

size_t count_lines(const char *text)
{
    size_t n = 0;
    for (const char *p = text; *p; p++)
        if (*p == '\n' || p[1] == '\0')
            n++;
    return n;
}
