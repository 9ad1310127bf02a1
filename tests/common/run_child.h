/* Runs the test program again as a child process with some environment
 * variables changed, and keeps what it printed: for tests of what a process
 * does with its environment, which it reads once, at start, so each value
 * needs a fresh process. */
#ifndef RUN_CHILD_H
#define RUN_CHILD_H

#include <stddef.h>

struct child_run {
    int exited;            /* 1: it exited (rather than died of a signal) */
    int code;              /* its exit code */
    char out[16384];       /* stdout, NUL-terminated (cut if longer) */
    char err[65536];       /* stderr, the same */
};

/* env: "NAME=VALUE" to set, "NAME" to unset, NULL-terminated; args: the
 * child's argv[1..], NULL-terminated. 0, or -1 if no child could be run. */
int run_child(struct child_run *r, const char *const *env, const char *const *args);

/* Lines in `text` (a last line without its newline counts too). */
size_t count_lines(const char *text);

#endif
