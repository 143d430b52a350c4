/* SCRAM credential store, its file and Kafka's AlterUserScramCredentials validation. */
#include "auth/scram_store.h"
#include "auth/checked_lines.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define HEADER "# gregor SCRAM credentials (salted and hashed), written by gregord. Do not edit: checksummed.\n"

void gr_scram_store_init(gr_scram_store_t *s) { memset(s, 0, sizeof(*s)); }

void gr_scram_store_free(gr_scram_store_t *s) {
    for (size_t i = 0; i < s->n; i++) {
        gr_scram_cred_free(&s->creds[i]);
        free(s->users[i]);
    }
    free(s->creds);
    free(s->users);
    memset(s, 0, sizeof(*s));
}

static long find(const gr_scram_store_t *s, const char *user, gr_scram_mech_t mech) {
    for (size_t i = 0; i < s->n; i++)
        if (s->creds[i].mech == mech && !strcmp(s->users[i], user)) return (long)i;
    return -1;
}

const gr_scram_cred_t *gr_scram_store_get(const gr_scram_store_t *s, const char *user, gr_scram_mech_t mech) {
    long i = find(s, user, mech);
    return i < 0 ? NULL : &s->creds[i];
}

void gr_scram_store_put(gr_scram_store_t *s, const char *user, const gr_scram_cred_t *cred) {
    long i = find(s, user, cred->mech);
    if (i >= 0) {
        gr_scram_cred_free(&s->creds[i]);
        gr_scram_cred_copy(&s->creds[i], cred);
        return;
    }
    gr_scram_cred_t *c = realloc(s->creds, (s->n + 1) * sizeof(*c));
    if (!c) abort();
    s->creds = c;
    char **u = realloc(s->users, (s->n + 1) * sizeof(*u));
    if (!u) abort();
    s->users = u;
    gr_scram_cred_copy(&s->creds[s->n], cred);
    if (!(s->users[s->n] = strdup(user))) abort();
    s->n++;
}

bool gr_scram_store_remove(gr_scram_store_t *s, const char *user, gr_scram_mech_t mech) {
    long i = find(s, user, mech);
    if (i < 0) return false;
    gr_scram_cred_free(&s->creds[i]);
    free(s->users[i]);
    s->creds[i] = s->creds[s->n - 1];
    s->users[i] = s->users[s->n - 1];
    s->n--;
    return true;
}

/* ---------------------------------------------------------------- file text */

static void append(char **buf, size_t *len, size_t *cap, const char *s, size_t n) {
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        if (!(*buf = realloc(*buf, *cap))) abort();
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
}

static void append_b64(char **buf, size_t *len, size_t *cap, const uint8_t *p, size_t n) {
    char *t = malloc(4 * ((n + 2) / 3) + 2);
    if (!t) abort();
    size_t k = gr_b64_encode(p, n, t);
    if (k == 0) t[k++] = '-'; /* an empty salt */
    append(buf, len, cap, t, k);
    free(t);
}

char *gr_scram_store_format(const gr_scram_store_t *s, size_t *len) {
    char *buf = NULL, tmp[64];
    size_t cap = 0;
    *len = 0;
    append(&buf, len, &cap, HEADER, strlen(HEADER));
    for (size_t i = 0; i < s->n; i++) {
        const gr_scram_cred_t *c = &s->creds[i];
        size_t hl = gr_scram_hash_len(c->mech);
        append(&buf, len, &cap, gr_scram_mech_name(c->mech), strlen(gr_scram_mech_name(c->mech)));
        append(&buf, len, &cap, " ", 1);
        for (const char *p = s->users[i]; *p; p++) {
            snprintf(tmp, sizeof(tmp), "%02x", (unsigned char)*p);
            append(&buf, len, &cap, tmp, 2);
        }
        int n = snprintf(tmp, sizeof(tmp), " %d ", (int)c->iterations);
        append(&buf, len, &cap, tmp, (size_t)n);
        append_b64(&buf, len, &cap, c->salt, c->salt_len);
        append(&buf, len, &cap, " ", 1);
        append_b64(&buf, len, &cap, c->stored_key, hl);
        append(&buf, len, &cap, " ", 1);
        append_b64(&buf, len, &cap, c->server_key, hl);
        append(&buf, len, &cap, "\n", 1);
    }
    int n = snprintf(tmp, sizeof(tmp), "checksum=%08lx\n", crc32(0, (const Bytef *)buf, (uInt)*len));
    append(&buf, len, &cap, tmp, (size_t)n);
    return buf;
}

static bool parse_hex(const char *p, size_t n, char *out) {
    if (n % 2 || n == 0 || n / 2 > GR_SCRAM_MAX_NAME) return false;
    for (size_t i = 0; i < n; i += 2) {
        unsigned v;
        char h[3] = {p[i], p[i + 1], 0};
        if (sscanf(h, "%2x", &v) != 1 || v == 0) return false;
        out[i / 2] = (char)v;
    }
    out[n / 2] = '\0';
    return true;
}

static bool parse_b64_field(const char *p, size_t n, uint8_t *out, size_t *out_len) {
    if (n == 1 && p[0] == '-') return *out_len = 0, true;
    long k = gr_b64_decode(p, n, out);
    return k >= 0 && (*out_len = (size_t)k, true);
}

/* "<mech> <user hex> <iterations> <salt> <stored> <server>" */
static bool parse_line(gr_scram_store_t *s, char *line) {
    char *f[6], *save = NULL;
    int n = 0;
    for (char *t = strtok_r(line, " ", &save); t && n < 7; t = strtok_r(NULL, " ", &save)) {
        if (n == 6) return false;
        f[n++] = t;
    }
    if (n != 6) return false;
    gr_scram_cred_t c = {.mech = gr_scram_mech_from_name(f[0])};
    char user[GR_SCRAM_MAX_NAME + 1];
    size_t hl = gr_scram_hash_len(c.mech), kl = 0, sl = 0;
    char *end;
    long it = strtol(f[2], &end, 10);
    if (!hl || !parse_hex(f[1], strlen(f[1]), user) || *end || it <= 0 || it > INT32_MAX) return false;
    c.iterations = (int32_t)it;
    size_t saltn = strlen(f[3]);
    c.salt = malloc(saltn + 1);
    if (!c.salt) abort();
    bool ok = parse_b64_field(f[3], saltn, c.salt, &c.salt_len) && strlen(f[4]) <= 4 * ((GR_SCRAM_MAX_HASH + 2) / 3) &&
              parse_b64_field(f[4], strlen(f[4]), c.stored_key, &kl) && kl == hl &&
              strlen(f[5]) <= 4 * ((GR_SCRAM_MAX_HASH + 2) / 3) &&
              parse_b64_field(f[5], strlen(f[5]), c.server_key, &sl) && sl == hl;
    if (ok) gr_scram_store_put(s, user, &c);
    gr_scram_cred_free(&c);
    return ok;
}

static bool parse_line_cb(void *ctx, char *line) { return parse_line(ctx, line); }

gr_err_t gr_scram_store_parse(gr_scram_store_t *s, const char *text, size_t len, char *errstr, size_t errstr_size) {
    gr_scram_store_init(s);
    gr_err_t err = gr_checked_lines(text, len, parse_line_cb, s, "credential", errstr, errstr_size);
    if (err) {
        gr_scram_store_free(s);
        return err;
    }
    return GR_ERR_NONE;
}
