#include "record.h"

#include <stdio.h>
#include <stdlib.h>

#include "rnic_hw.h"
#include "rnic_names.h"

static struct rnic_sim_event *g_ev;
static size_t g_n, g_cap;

static void on_event(const struct rnic_sim_event *ev, void *arg)
{
    (void)arg;
    if (g_n == g_cap) {
        size_t cap = g_cap ? 2 * g_cap : 4096;
        struct rnic_sim_event *p = realloc(g_ev, cap * sizeof(*p));
        if (!p) {
            fprintf(stderr, "record: out of memory\n");
            exit(2);
        }
        g_ev = p;
        g_cap = cap;
    }
    g_ev[g_n++] = *ev;
}

void rec_start(void)
{
    g_n = 0;
    rnic_sim_set_event_hook(on_event, NULL);
}

void rec_stop(void) { rnic_sim_set_event_hook(NULL, NULL); }
size_t rec_count(void) { return g_n; }
const struct rnic_sim_event *rec_at(size_t i) { return i < g_n ? &g_ev[i] : NULL; }
uint64_t rec_cycle(size_t i) { return i < g_n ? g_ev[i].cycle : UINT64_MAX; }

size_t rec_find(size_t from, int nic, unsigned event, int qpn, uint64_t mask, uint64_t val)
{
    for (size_t i = from; i < g_n; i++) {
        const struct rnic_sim_event *e = &g_ev[i];
        if ((int)e->nic == nic && e->event == event && (qpn == REC_ANY || e->qpn == qpn) && (e->arg & mask) == val)
            return i;
    }
    return REC_NONE;
}

int rec_any_between(int nic, unsigned event, int qpn, uint64_t t0, uint64_t t1)
{
    for (size_t i = 0; i < g_n; i++) {
        const struct rnic_sim_event *e = &g_ev[i];
        if ((int)e->nic == nic && e->event == event && (qpn == REC_ANY || e->qpn == qpn) && e->cycle > t0 &&
            e->cycle < t1)
            return 1;
    }
    return 0;
}

const char *rec_event_name(unsigned event)
{
    const char *name = rnic_ev_name(event);
    return name ? name : "?";
}

void rec_dump(const char *name)
{
    const char *dir = getenv("RNIC_SCENARIO_DIR");
    if (!dir || !*dir)
        return;
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s.csv", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "record: cannot write %s\n", path);
        return;
    }
    fprintf(f, "cycle,nic,qpn,event,arg\n");
    for (size_t i = 0; i < g_n; i++)
        fprintf(f, "%llu,%u,%u,%s,0x%016llx\n", (unsigned long long)g_ev[i].cycle, g_ev[i].nic, g_ev[i].qpn,
                rec_event_name(g_ev[i].event), (unsigned long long)g_ev[i].arg);
    fclose(f);
}
