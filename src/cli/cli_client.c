/* Clients for the gregor subcommands: a configuration from --bootstrap-server,
 * --command-config (a Java .properties file) and k=v properties, in that order,
 * so that explicit properties win over the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static bool set_prop(gr_conf_t *conf, const char *kv) {
    char name[256], err[512];
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(name)) {
        cli_fail("Invalid property '%s': expected key=value", kv);
        return false;
    }
    memcpy(name, kv, (size_t)(eq - kv));
    name[eq - kv] = 0;
    if (gr_conf_set(conf, name, eq + 1, err, sizeof(err)) != GR_ERR_NONE) {
        cli_fail("%s", err);
        return false;
    }
    return true;
}

/* The first entry of a comma-separated HOST:PORT list that is not one (host non-empty,
 * port 1-65535; "[v6addr]:port" too), copied into bad; false if all are fine. */
static bool bad_server(const char *list, char *bad, size_t size) {
    for (const char *p = list; *p;) {
        while (*p == ' ' || *p == ',') p++;
        size_t n = strcspn(p, ", ");
        if (!n) break;
        const char *colon = NULL;
        for (size_t i = 0; i < n; i++)
            if (p[i] == ':') colon = p + i;
        char *end = NULL;
        long port = colon ? strtol(colon + 1, &end, 10) : 0;
        if (!colon || colon == p || end != p + n || colon + 1 == end || port <= 0 || port > 65535) {
            snprintf(bad, size, "%.*s", (int)n, p);
            return true;
        }
        p += n;
    }
    return false;
}

gr_conf_t *cli_conf(const cli_vals_t *v, gr_conf_scope_t scope, const char **props, size_t n) {
    const char *bs = cli_str(v, "bootstrap-server");
    if (!bs) {
        cli_usage_error(v, "Missing required argument \"[bootstrap-server]\"");
        exit(CLI_USAGE);
    }
    char bad[256];
    if (bad_server(bs, bad, sizeof(bad)) || !bs[strspn(bs, " ,")]) {
        /* A malformed option value is a usage error (exit 2), found before any connection. */
        cli_usage_error(v, "Invalid url in --bootstrap-server: '%s' (expected HOST:PORT[,HOST:PORT...])",
                        bs[strspn(bs, " ,")] ? bad : bs);
        exit(CLI_USAGE);
    }
    char err[512];
    gr_conf_t *conf = gr_conf_new(scope);
    gr_conf_set(conf, "client.id", "gregor-cli", NULL, 0);
    const char *file = cli_str(v, "command-config");
    if (file && gr_conf_load_file(conf, file, err, sizeof(err)) != GR_ERR_NONE) {
        cli_fail("%s", err);
        goto err;
    }
    for (size_t i = 0; i < n; i++)
        if (!set_prop(conf, props[i])) goto err;
    if (gr_conf_set(conf, "bootstrap.servers", bs, err, sizeof(err)) != GR_ERR_NONE) {
        cli_fail("%s", err);
        goto err;
    }
    return conf;
err:
    gr_conf_destroy(conf);
    return NULL;
}

gr_admin_t *cli_admin(const cli_vals_t *v) {
    gr_conf_t *conf = cli_conf(v, GR_CONF_ADMIN, NULL, 0);
    if (!conf) return NULL;
    gr_admin_t *a = NULL;
    char err[512];
    if (gr_admin_new(conf, &a, err, sizeof(err)) != GR_ERR_NONE) cli_fail("%s", err);
    gr_conf_destroy(conf);
    return a;
}

int cli_timeout(const cli_vals_t *v) {
    int64_t t = cli_int(v, "timeout", 30000);
    return t < 0 || t > 0x7fffffff ? 30000 : (int)t;
}
