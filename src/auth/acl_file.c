/* Durable ACLs: the file "<log.dir>/gregor.acls", one ACL a line, replaced as a whole
 * (temp file, fsync, rename, fsync of the directory) so a crash leaves the old or the
 * new set. Strings are hex-encoded so any principal, host or name survives. The last
 * line "end <count>" tells a complete file from a damaged one; a damaged file stops
 * start-up rather than silently dropping DENY rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/acl_file.h"
#include "base/file_replace.h"

#define HEADER "# gregor ACLs, written by gregord; do not edit\n"

typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf_t;

static void put(sbuf_t *s, const char *fmt_or_text, size_t len) {
    if (s->n + len + 1 > s->cap) {
        s->cap = (s->n + len + 1) * 2;
        s->p = realloc(s->p, s->cap);
        if (!s->p) abort();
    }
    memcpy(s->p + s->n, fmt_or_text, len);
    s->n += len;
    s->p[s->n] = '\0';
}

static void put_hex(sbuf_t *s, const char *str) {
    static const char hx[] = "0123456789abcdef";
    char c[3] = {' ', 0, 0};
    put(s, c, 1);
    if (!*str) put(s, "-", 1);
    for (; *str; str++) {
        c[0] = hx[(unsigned char)*str >> 4];
        c[1] = hx[(unsigned char)*str & 15];
        put(s, c, 2);
    }
}

static void write_one(void *arg, const gr_acl_binding_t *b) {
    char head[64];
    int n = snprintf(head, sizeof(head), "acl %d %d %d %d", b->rtype, b->ptype, b->op, b->perm);
    put(arg, head, (size_t)n);
    put_hex(arg, b->principal);
    put_hex(arg, b->host);
    put_hex(arg, b->name);
    put(arg, "\n", 1);
}

gr_err_t gr_acl_file_save(const gr_acl_authz_t *a, const char *dir, char *errstr, size_t sz) {
    sbuf_t s = {0};
    put(&s, HEADER, strlen(HEADER));
    gr_acl_authz_list(a, NULL, write_one, &s);
    char tail[64];
    put(&s, tail, (size_t)snprintf(tail, sizeof(tail), "end %zu\n", gr_acl_authz_count(a)));
    gr_err_t err = gr_file_replace(dir, GR_ACL_FILE_NAME, s.p, s.n, errstr, sz);
    free(s.p);
    return err;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Decode one hex field in place; false if malformed. */
static bool unhex(char *f) {
    if (!strcmp(f, "-")) {
        f[0] = '\0';
        return true;
    }
    size_t n = strlen(f), j = 0;
    if (n % 2) return false;
    for (size_t i = 0; i < n; i += 2) {
        int h = hexval(f[i]), l = hexval(f[i + 1]);
        if (h < 0 || l < 0 || (h == 0 && l == 0)) return false;
        f[j++] = (char)(h << 4 | l);
    }
    f[j] = '\0';
    return true;
}

static bool parse_line(gr_acl_authz_t *a, char *line) {
    int rt, pt, op, perm, off = 0;
    if (sscanf(line, "acl %d %d %d %d %n", &rt, &pt, &op, &perm, &off) != 4 || !off) return false;
    char *f[3], *save = NULL, *p = line + off;
    for (int i = 0; i < 3; i++, p = NULL)
        if (!(f[i] = strtok_r(p, " \n", &save)) || !unhex(f[i])) return false;
    gr_acl_binding_t b = {(int8_t)rt, (int8_t)pt, f[2], f[0], f[1], (int8_t)op, (int8_t)perm};
    char msg[256];
    if (gr_acl_validate_new(&b, msg, sizeof(msg))) return false;
    gr_acl_authz_add(a, &b);
    return true;
}

gr_err_t gr_acl_file_parse(gr_acl_authz_t *a, const char *text, size_t len, const char *origin, char *errstr,
                           size_t sz) {
    size_t lineno = 0, count = 0;
    long long end = -1;
    char *line = NULL;
    gr_err_t err = GR_ERR_NONE;
    for (size_t off = 0; off < len && !err;) {
        const char *nl = memchr(text + off, '\n', len - off);
        size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
        line = realloc(line, n + 1);
        if (!line) abort();
        memcpy(line, text + off, n);
        line[n] = '\0';
        off += n + 1;
        lineno++;
        if (line[0] == '#') continue;
        bool ok = end < 0 && strlen(line) == n &&
                  (!strncmp(line, "end ", 4) ? sscanf(line, "end %lld", &end) == 1 : parse_line(a, line));
        if (!ok) {
            snprintf(errstr, sz, "%s line %zu: malformed ACL record", origin, lineno);
            err = GR_ERR__MALFORMED;
        } else if (end < 0) {
            count++;
        }
    }
    free(line);
    if (!err && end != (long long)count) {
        snprintf(errstr, sz, "%s: incomplete (%zu ACL records read, end marker %lld)", origin, count, end);
        err = GR_ERR__MALFORMED;
    }
    return err;
}

gr_err_t gr_acl_file_load(gr_acl_authz_t *a, const char *dir, char *errstr, size_t sz) {
    char path[4096], *buf;
    size_t len;
    snprintf(path, sizeof(path), "%s/%s", dir, GR_ACL_FILE_NAME);
    gr_err_t err = gr_file_read_small(dir, GR_ACL_FILE_NAME, (size_t)1 << 30, &buf, &len, errstr, sz);
    if (err || !buf) return err;
    err = gr_acl_file_parse(a, buf, len, path, errstr, sz);
    free(buf);
    return err;
}
