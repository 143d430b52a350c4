/* Record output of gregor consume and gregor share-consume, as Kafka's
 * DefaultMessageFormatter writes it (facts checked against Kafka 4.4.0):
 *   [CreateTime:<ts>] [Partition:<p>] [Offset:<o>] [Delivery:<n>] [<k>:<v>,...] [key] [value]
 * Fields are separated by key.separator; after the last field printed comes
 * line.separator. A null key, value or header value prints null.literal. Properties
 * come from --formatter-config FILE, then --property / --formatter-property. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

static bool is_true(const char *s) {
    while (*s == ' ') s++;
    return !strncasecmp(s, "true", 4) && strspn(s + 4, " ") == strlen(s + 4);
}

static int set_prop(const cli_vals_t *v, cli_fmt_t *f, const char *p, bool share) {
    const char *eq = strchr(p, '=');
    if (!eq) return cli_usage_error(v, "Invalid formatter property '%s': expected key=value", p);
    const char *val = eq + 1;
    size_t l = (size_t)(eq - p);
#define IS(s) (l == strlen(s) && !strncmp(p, s, l))
    if (IS("print.timestamp"))
        f->ts = is_true(val);
    else if (IS("print.key"))
        f->key = is_true(val);
    else if (IS("print.offset"))
        f->offset = is_true(val);
    else if (IS("print.partition"))
        f->partition = is_true(val);
    else if (IS("print.headers"))
        f->headers = is_true(val);
    else if (IS("print.value"))
        f->value = is_true(val);
    else if (IS("print.delivery") || (share && IS("print.delivery.count")))
        f->delivery = is_true(val);
    else if (IS("key.separator"))
        f->key_sep = val;
    else if (IS("line.separator"))
        f->line_sep = val;
    else if (IS("headers.separator"))
        f->headers_sep = val;
    else if (IS("null.literal"))
        f->null_lit = val;
    else if (IS("print.epoch") && !is_true(val)) {
    } else if (IS("print.epoch") || IS("key.deserializer") || IS("value.deserializer") || IS("headers.deserializer"))
        return cli_usage_error(v, "Formatter property '%.*s' is not supported by gregor (docs/cli.md)", (int)l, p);
    else
        return cli_usage_error(v, "Unknown formatter property '%.*s'", (int)l, p);
#undef IS
    return 0;
}

int cli_fmt_parse(const cli_vals_t *v, cli_fmt_t *f, bool share, char **file_buf) {
    *f = (cli_fmt_t){.value = true, .key_sep = "\t", .line_sep = "\n", .headers_sep = ",", .null_lit = "null"};
    *file_buf = NULL;
    const char *path = cli_str(v, "formatter-config");
    if (path) {
        const char *items[256];
        size_t n;
        if (!(*file_buf = cli_read_props(path, items, 256, &n))) return CLI_FAIL;
        for (size_t i = 0; i < n; i++)
            if (set_prop(v, f, items[i], share)) return CLI_USAGE;
    }
    const char *names[] = {"property", "formatter-property"};
    for (int k = 0; k < 2; k++) {
        size_t n;
        const char **props = cli_all(v, names[k], &n);
        for (size_t i = 0; i < n; i++)
            if (set_prop(v, f, props[i], share)) return CLI_USAGE;
    }
    return 0;
}

static void put(const void *p, size_t len, const char *null_lit) {
    if (p)
        fwrite(p, 1, len, stdout);
    else
        fputs(null_lit, stdout);
}

/* After a field: key.separator if another field follows, else line.separator. */
static void sep(const cli_fmt_t *f, bool more) { fputs(more ? f->key_sep : f->line_sep, stdout); }

bool cli_fmt_write(const cli_fmt_t *f, const cli_rec_t *r) {
    cli_progress_hide();
    if (f->ts) {
        if (r->ts_type < 0)
            fputs("NO_TIMESTAMP", stdout);
        else
            printf("%s:%" PRId64, r->ts_type ? "LogAppendTime" : "CreateTime", r->ts);
        sep(f, f->partition || f->offset || f->delivery || f->headers || f->key || f->value);
    }
    if (f->partition) {
        printf("Partition:%" PRId32, r->partition);
        sep(f, f->offset || f->delivery || f->headers || f->key || f->value);
    }
    if (f->offset) {
        printf("Offset:%" PRId64, r->offset);
        sep(f, f->delivery || f->headers || f->key || f->value);
    }
    if (f->delivery) {
        if (r->delivery < 0)
            fputs("Delivery:NOT_PRESENT", stdout);
        else
            printf("Delivery:%d", r->delivery);
        sep(f, f->headers || f->key || f->value);
    }
    if (f->headers) {
        if (!r->n_headers) fputs("NO_HEADERS", stdout);
        for (size_t i = 0; i < r->n_headers; i++) {
            const char *k;
            const void *hv;
            size_t kl, vl;
            if (!r->header(r->rec, i, &k, &kl, &hv, &vl)) break;
            fwrite(k, 1, kl, stdout);
            putchar(':');
            put(hv, vl, f->null_lit);
            if (i + 1 < r->n_headers) fputs(f->headers_sep, stdout);
        }
        sep(f, f->key || f->value);
    }
    if (f->key) {
        put(r->key, r->key_len, f->null_lit);
        sep(f, f->value);
    }
    if (f->value) {
        put(r->value, r->value_len, f->null_lit);
        fputs(f->line_sep, stdout);
    }
    return !ferror(stdout);
}
