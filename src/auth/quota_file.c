/* <dir>/gregor.quotas: one line per entity
 *   "q <types> <user> <client-id> <ip> <set> <v0> <v1> <v2> <v3> <v4>"
 * names in hex, "*" for the default entity, "-" for a type the entity does not name; values
 * as C99 hex floats (exact); then "checksum=<crc32 hex>". Replaced as a whole: temp file,
 * fsync, rename, fsync of the directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "auth/checked_lines.h"
#include "auth/quota.h"
#include "base/file_replace.h"
#include "base/xalloc.h"

#define FILE_NAME "gregor.quotas"
#define MAX_FILE  (64u << 20)
#define HEADER    "# gregor client quotas, written by gregord. Do not edit: checksummed.\n"

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf_t;

static void put(sbuf_t *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = gr_xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void put_name(sbuf_t *b, bool present, const char *name) {
    char h[3];
    put(b, " ", 1);
    if (!present) return put(b, "-", 1);
    if (!name) return put(b, "*", 1);
    for (const char *p = name; *p; p++) {
        snprintf(h, sizeof(h), "%02x", (unsigned char)*p);
        put(b, h, 2);
    }
}

char *gr_quota_store_format(const gr_quota_store_t *s, size_t *len) {
    sbuf_t b = {0};
    char tmp[64];
    put(&b, HEADER, strlen(HEADER));
    for (size_t i = 0; i < s->n; i++) {
        const gr_quota_entry_t *e = &s->e[i];
        int n = snprintf(tmp, sizeof(tmp), "q %u", (unsigned)e->types);
        put(&b, tmp, (size_t)n);
        put_name(&b, e->types & GR_QE_USER, e->user);
        put_name(&b, e->types & GR_QE_CLIENT, e->client);
        put_name(&b, e->types & GR_QE_IP, e->ip);
        n = snprintf(tmp, sizeof(tmp), " %u", (unsigned)e->set);
        put(&b, tmp, (size_t)n);
        for (int k = 0; k < GR_QK__N; k++) {
            n = snprintf(tmp, sizeof(tmp), " %a", e->v[k]);
            put(&b, tmp, (size_t)n);
        }
        put(&b, "\n", 1);
    }
    int n = snprintf(tmp, sizeof(tmp), "checksum=%08lx\n", crc32(0, (const Bytef *)b.p, (uInt)b.len));
    put(&b, tmp, (size_t)n);
    *len = b.len;
    return b.p;
}

/* A name field into out (NULL for "*"); false if malformed. */
static bool parse_name(const char *f, char **out) {
    size_t n = strlen(f);
    *out = NULL;
    if (!strcmp(f, "*") || !strcmp(f, "-")) return true;
    if (n % 2 || n == 0) return false;
    char *s = gr_xmalloc(n / 2 + 1);
    for (size_t i = 0; i < n; i += 2) {
        unsigned v;
        char h[3] = {f[i], f[i + 1], 0};
        if (sscanf(h, "%2x", &v) != 1 || v == 0) return free(s), false;
        s[i / 2] = (char)v;
    }
    s[n / 2] = '\0';
    *out = s;
    return true;
}

static bool parse_line(gr_quota_store_t *s, char *line) {
    char *f[12], *save = NULL, *end;
    int n = 0;
    for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (n == 11) return false;
        f[n++] = t;
    }
    if (n != 11 || strcmp(f[0], "q")) return false;
    unsigned long types = strtoul(f[1], &end, 10), set;
    if (*end || !types || types > 7) return false;
    set = strtoul(f[5], &end, 10);
    if (*end || set >= (1u << GR_QK__N)) return false;
    char *names[3] = {0};
    bool ok = true;
    for (int i = 0; i < 3; i++) ok = ok && parse_name(f[2 + i], &names[i]) && ((types >> i) & 1) == (*f[2 + i] != '-');
    gr_quota_entity_t e = {(uint8_t)types, names[0], names[1], names[2]};
    for (int k = 0; ok && k < GR_QK__N; k++) {
        double v = strtod(f[6 + k], &end);
        ok = !*end;
        if (ok && (set >> k) & 1) gr_quota_store_set(s, &e, (gr_quota_key_t)k, true, v);
    }
    for (int i = 0; i < 3; i++) free(names[i]);
    return ok;
}

static bool parse_line_cb(void *ctx, char *line) { return parse_line(ctx, line); }

gr_err_t gr_quota_store_parse(gr_quota_store_t *s, const char *text, size_t len, char *errstr, size_t errstr_size) {
    gr_quota_store_init(s);
    gr_err_t err = gr_checked_lines(text, len, parse_line_cb, s, "quota", errstr, errstr_size);
    if (err) {
        gr_quota_store_free(s);
        return err;
    }
    s->version = 1;
    return GR_ERR_NONE;
}

gr_err_t gr_quota_store_load(gr_quota_store_t *s, const char *dir, char *errstr, size_t errstr_size) {
    gr_quota_store_init(s);
    char *buf;
    size_t have;
    gr_err_t err = gr_file_read_small(dir, FILE_NAME, MAX_FILE, &buf, &have, errstr, errstr_size);
    if (err || !buf) return err;
    char why[256];
    err = gr_quota_store_parse(s, buf, have, why, sizeof(why));
    free(buf);
    if (err) snprintf(errstr, errstr_size, "%s/%s: %s", dir, FILE_NAME, why);
    return err;
}

gr_err_t gr_quota_store_save(const gr_quota_store_t *s, const char *dir, char *errstr, size_t errstr_size) {
    size_t len;
    char *text = gr_quota_store_format(s, &len);
    gr_err_t err = gr_file_replace(dir, FILE_NAME, text, len, errstr, errstr_size);
    free(text);
    return err;
}
