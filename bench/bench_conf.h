/* "name=value" client properties for the bench tools, read without writing to them (the
 * consumer threads of gregor_latency and gregor_hold build their configurations at once). */
#ifndef GR_BENCH_CONF_H
#define GR_BENCH_CONF_H

#include <gregor/gregor.h>
#include <stdio.h>
#include <string.h>

/* Set kv ("name=value") on c. Non-zero with errstr filled when kv is malformed or refused. */
static inline int bench_conf_set_kv(gr_conf_t *c, const char *kv, char *errstr, size_t errstr_size) {
    const char *eq = strchr(kv, '=');
    char name[256];
    if (!eq || (size_t)(eq - kv) >= sizeof(name)) {
        snprintf(errstr, errstr_size, "expected name=value: %s", kv);
        return -1;
    }
    memcpy(name, kv, (size_t)(eq - kv));
    name[eq - kv] = 0;
    return gr_conf_set(c, name, eq + 1, errstr, errstr_size) ? -1 : 0;
}

#endif
