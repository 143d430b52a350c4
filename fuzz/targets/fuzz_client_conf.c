/* libFuzzer target: libgregor's configuration (src/client/conf.c): properties set from
 * strings (gr_conf_set) and property files (gr_conf_load_file), as applications and the
 * gregor CLI (--command-config, --producer-property) pass them.
 *
 * Input byte 0: bits 0-1 the scope (producer, consumer, admin), bit 2 the mode.
 *   mode 0: the rest is a .properties file (given through a memfd, no disk). Loading
 *     never crashes; when it succeeds every entry reads back (gr_conf_get) as its
 *     trimmed value.
 *   mode 1: byte 1 picks a property of the table, the rest (to a NUL) is its value. An
 *     accepted value reads back trimmed, is accepted again as read back with the same
 *     parsed meaning, and survives gr_conf_dup; a refused one leaves the old value. */
#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/props.h"
#include "client/conf_int.h"

static const gr_conf_scope_t scopes[] = {GR_CONF_PRODUCER, GR_CONF_CONSUMER, GR_CONF_ADMIN, GR_CONF_PRODUCER};

static char *trimmed(const char *v) {
    while (isspace((unsigned char)*v)) v++;
    size_t n = strlen(v);
    while (n && isspace((unsigned char)v[n - 1])) n--;
    return strndup(v, n);
}

static bool is_alias_pair(const char *k) { /* one value behind two names: the last set wins */
    return !strcmp(k, "message.max.bytes") || !strcmp(k, "max.request.size");
}

static void fuzz_file(gr_conf_t *conf, const uint8_t *data, size_t size) {
    static int fd = -1;
    if (fd < 0) fd = memfd_create("fuzz_client_conf", 0);
    assert(fd >= 0);
    assert(ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == (ssize_t)size);
    char path[64], err[512];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    err[0] = '\0';
    if (gr_conf_load_file(conf, path, err, sizeof(err)) != GR_ERR_NONE) {
        assert(err[0] != '\0');
        return;
    }
    gr_props_t p;
    gr_props_init(&p);
    assert(gr_props_parse(&p, (const char *)data, size, err, sizeof(err)) == GR_ERR_NONE);
    bool aliases = gr_props_get(&p, "message.max.bytes") && gr_props_get(&p, "max.request.size");
    for (size_t i = 0; i < p.n; i++) {
        if (aliases && is_alias_pair(p.v[i].key)) continue;
        char *t = trimmed(p.v[i].value);
        const char *got = gr_conf_get(conf, p.v[i].key);
        assert(got && strcmp(got, t) == 0);
        free(t);
    }
    gr_props_free(&p);
}

static void fuzz_one(gr_conf_t *conf, uint8_t sel, const char *value) {
    size_t count = 0;
    while (gr_conf_property_name(gr_conf_scope(conf), count)) count++;
    const char *name = gr_conf_property_name(gr_conf_scope(conf), sel % count);
    char *before = strdup(gr_conf_get(conf, name));
    char err[512];
    if (gr_conf_set(conf, name, value, err, sizeof(err)) != GR_ERR_NONE) {
        assert(strcmp(gr_conf_get(conf, name), before) == 0);
        free(before);
        return;
    }
    char *t = trimmed(value);
    char *got = strdup(gr_conf_get(conf, name));
    assert(strcmp(got, t) == 0);
    gr_conf_t *dup = gr_conf_dup(conf);
    assert(strcmp(gr_conf_get(dup, name), got) == 0);
    assert(gr_conf_set(dup, name, got, err, sizeof(err)) == GR_ERR_NONE);
    assert(strcmp(gr_conf_get(dup, name), got) == 0);
    for (int i = 0; i < GR__CP_COUNT; i++)
        assert(gr__conf_int(dup, (gr__cprop_t)i) == gr__conf_int(conf, (gr__cprop_t)i));
    gr_conf_destroy(dup);
    free(got);
    free(t);
    free(before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    gr_conf_t *conf = gr_conf_new(scopes[data[0] & 3]);
    if (data[0] & 4) {
        char *value = strndup((const char *)data + 2, size - 2);
        fuzz_one(conf, data[1], value);
        free(value);
    } else {
        fuzz_file(conf, data + 1, size - 1);
    }
    gr_conf_destroy(conf);
    return 0;
}
