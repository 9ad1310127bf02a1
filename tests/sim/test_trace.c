/* FST tracing switched on at run time. The test runs itself as a child
 * process with RNIC_TRACE naming a file under a directory that does not
 * exist yet (relative to RNIC_WAVE_DIR, which CTest points into the build
 * tree): the directory is created and the trace is a well-formed FST file
 * covering both NICs in nanoseconds (checked with fst2vcd when GTKWave's
 * tools are installed); RNIC_PCAP opens a pcap capture, a relative name
 * under RNIC_WAVE_DIR too. Without RNIC_WAVE_DIR both relative names are
 * the working directory's. A trace path that cannot be written leaves
 * tracing off and the simulation running. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rnic_sim.h"
#include "rnic_test.h"

#define SUBDIR "trace_test_dir"
#define NAME SUBDIR "/trace_test.fst"

static int child(void) {
    rnic_sim_dev *d;
    if (rnic_sim_open("rnic0", &d) != 0)
        return 3;
    if (rnic_sim_bar_read32(d, RNIC_REG_ID) != RNIC_DEVICE_ID)
        return 4;
    rnic_sim_bar_write32(d, RNIC_REG_DB_SQ_N(3), 0);
    rnic_sim_advance(100);
    return rnic_sim_cycle() > 100 ? 0 : 5;
}

/* Runs this program as "child" with RNIC_TRACE set to `trace` (and
 * RNIC_PCAP to `pcap` if given); with `cwd`, in that directory and without
 * RNIC_WAVE_DIR. Returns its exit status. */
static int run_child(const char *trace, const char *pcap, const char *cwd) {
    pid_t pid = fork();
    if (pid == 0) {
        setenv("RNIC_TRACE", trace, 1);
        if (pcap)
            setenv("RNIC_PCAP", pcap, 1);
        if (cwd) {
            unsetenv("RNIC_WAVE_DIR");
            if (chdir(cwd) != 0)
                _exit(126);
        }
        execl("/proc/self/exe", "test_trace", "child", (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* Removes `dir` and the files in it (a crashed writer leaves its temporaries). */
static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[8192];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static int run(const char *cmd, char *out, size_t cap) {
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    return pclose(p);
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "child") == 0)
        return child();
    const char *dir = getenv("RNIC_WAVE_DIR");
    if (!dir || !*dir) {
        fprintf(stderr, "test_trace: RNIC_WAVE_DIR must name a scratch directory\n");
        return 1;
    }
    char path[4096], sub[4096];
    snprintf(sub, sizeof(sub), "%s/%s", dir, SUBDIR);
    snprintf(path, sizeof(path), "%s/%s", dir, NAME);
    remove_dir(sub);
    struct stat st;
    CHECK(stat(sub, &st) != 0);

    char pcap[4200];
    snprintf(pcap, sizeof(pcap), "%s/trace_test.pcap", dir);
    unlink(pcap);
    CHECK_EQ(run_child(NAME, "trace_test.pcap", NULL), 0);
    CHECK_EQ(stat(path, &st), 0);
    CHECK(st.st_size > 64);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f) {
        unsigned char hdr[9] = {0xFF};
        CHECK_EQ(fread(hdr, 1, sizeof(hdr), f), sizeof(hdr));
        CHECK_EQ(hdr[0], 0);   /* FST header block */
        fclose(f);
    }
    /* The capture starts with the nanosecond pcap header, Ethernet link type. */
    f = fopen(pcap, "rb");
    CHECK(f != NULL);
    if (f) {
        uint32_t ph[6] = {0};
        CHECK_EQ(fread(ph, sizeof(ph), 1, f), 1);
        CHECK_EQ(ph[0], 0xa1b23c4du);
        CHECK_EQ(ph[5], 1);
        fclose(f);
    }
    unlink(pcap);
#ifdef FST2VCD
    static char vcd[4 << 20];   /* the child's ~110 cycles decode to about 250 KB */
    char cmd[8300];
    snprintf(cmd, sizeof(cmd), "'%s' '%s' 2>/dev/null", FST2VCD, path);
    CHECK_EQ(run(cmd, vcd, sizeof(vcd)), 0);
    CHECK(strstr(vcd, "$scope module rnic0 $end") != NULL);
    CHECK(strstr(vcd, "$scope module rnic1 $end") != NULL);
    CHECK(strstr(vcd, "1ns") != NULL);
    CHECK(strstr(vcd, " trace_event ") != NULL);
    CHECK(strstr(vcd, "\n#2\n") != NULL && strstr(vcd, "\n#4\n") != NULL);   /* a 4 ns clock */
#else
    (void)run;
#endif

    /* No RNIC_WAVE_DIR: relative names land in the working directory
     * (here the scratch subdirectory the first run made), the trace's
     * missing directory created. */
    char cwd_trace[4300], cwd_pcap[4300];
    snprintf(cwd_trace, sizeof(cwd_trace), "%s/cwd/trace_test.fst", sub);
    snprintf(cwd_pcap, sizeof(cwd_pcap), "%s/trace_test.pcap", sub);
    CHECK_EQ(run_child("cwd/trace_test.fst", "trace_test.pcap", sub), 0);
    CHECK_EQ(stat(cwd_trace, &st), 0);
    CHECK(st.st_size > 64);
    CHECK_EQ(stat(cwd_pcap, &st), 0);
    CHECK(st.st_size >= 24);
    unlink(cwd_trace);
    unlink(cwd_pcap);
    char cwd_dir[4300];
    snprintf(cwd_dir, sizeof(cwd_dir), "%s/cwd", sub);
    rmdir(cwd_dir);

    /* An impossible path: a warning, no trace, and the simulation still runs. */
    CHECK_EQ(run_child("/proc/no/such/dir/x.fst", NULL, NULL), 0);

    remove_dir(sub);
    return rnic_test_finish("test_trace");
}
