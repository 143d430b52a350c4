/* process_* metrics from /proc/self (Linux). See process_metrics.h. */
#include "server/process_metrics.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

typedef struct proc_stat {
    double utime, stime, starttime; /* clock ticks */
    double vsize;                   /* bytes */
    double rss;                     /* pages */
} proc_stat_t;

/* /proc/self/stat: the fields after "(comm)" (which may hold spaces and parentheses). */
static bool read_stat(proc_stat_t *st) {
    char buf[2048];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return false;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (!p) return false;
    p++;
    /* Field 3 (state) is the first after ')'; we need 14, 15, 22, 23, 24. */
    double v[25] = {0};
    for (int field = 3; field <= 24; field++) {
        while (*p == ' ') p++;
        if (!*p) return false;
        char *end;
        v[field] = strtod(p, &end);
        if (end == p) end = p + strcspn(p, " "); /* the state letter */
        p = end;
    }
    st->utime = v[14];
    st->stime = v[15];
    st->starttime = v[22];
    st->vsize = v[23];
    st->rss = v[24];
    return true;
}

/* Boot time (seconds since the epoch) from /proc/stat's btime line. */
static bool read_btime(double *out) {
    char line[256];
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return false;
    bool ok = false;
    while (fgets(line, sizeof(line), f))
        if (!strncmp(line, "btime ", 6)) {
            *out = strtod(line + 6, NULL);
            ok = true;
            break;
        }
    fclose(f);
    return ok;
}

static long count_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - 1; /* the directory stream's own descriptor */
}

void gr_process_metrics_write(gr_prom_t *p) {
    proc_stat_t st;
    bool have = read_stat(&st);
    double tick = (double)sysconf(_SC_CLK_TCK), page = (double)sysconf(_SC_PAGESIZE), btime = 0;
    gr_prom_family(p, "process_cpu_seconds_total", GR_PROM_COUNTER, "Total user and system CPU time spent in seconds.");
    if (have && tick > 0) gr_prom_f64(p, "process_cpu_seconds_total", NULL, (st.utime + st.stime) / tick);
    gr_prom_family(p, "process_resident_memory_bytes", GR_PROM_GAUGE, "Resident memory size in bytes.");
    if (have) gr_prom_f64(p, "process_resident_memory_bytes", NULL, st.rss * page);
    gr_prom_family(p, "process_virtual_memory_bytes", GR_PROM_GAUGE, "Virtual memory size in bytes.");
    if (have) gr_prom_f64(p, "process_virtual_memory_bytes", NULL, st.vsize);
    gr_prom_family(p, "process_open_fds", GR_PROM_GAUGE, "Number of open file descriptors.");
    long fds = count_fds();
    if (fds >= 0) gr_prom_i64(p, "process_open_fds", NULL, fds);
    gr_prom_family(p, "process_max_fds", GR_PROM_GAUGE, "Maximum number of open file descriptors.");
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        gr_prom_f64(p, "process_max_fds", NULL, rl.rlim_cur == RLIM_INFINITY ? -1.0 : (double)rl.rlim_cur);
    gr_prom_family(p, "process_start_time_seconds", GR_PROM_GAUGE,
                   "Start time of the process since unix epoch in seconds.");
    if (have && tick > 0 && read_btime(&btime))
        gr_prom_f64(p, "process_start_time_seconds", NULL, btime + st.starttime / tick);
}
