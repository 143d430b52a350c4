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

/* A configuration of scope from fixed (name, value, ..., NULL) and then kv[0..n) ("name=value",
 * later ones win). NULL, with the reason on stderr, when a property is malformed or refused. */
static inline gr_conf_t *bench_conf_from(gr_conf_scope_t scope, const char *const *fixed, char *const *kv, int n) {
    char errstr[512];
    gr_conf_t *c = gr_conf_new(scope);
    for (; *fixed; fixed += 2)
        if (gr_conf_set(c, fixed[0], fixed[1], errstr, sizeof(errstr))) goto bad;
    for (int i = 0; i < n; i++)
        if (bench_conf_set_kv(c, kv[i], errstr, sizeof(errstr))) goto bad;
    return c;
bad:
    fprintf(stderr, "configuration error: %s\n", errstr);
    gr_conf_destroy(c);
    return NULL;
}

#endif
