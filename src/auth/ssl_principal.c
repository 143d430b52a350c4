/* ssl.principal.mapping.rules (see ssl_principal.h). The rule text is split and parsed by
 * hand following the grammar of Kafka's SslPrincipalMapper; patterns are compiled with PCRE2,
 * whose syntax is close to java.util.regex for the patterns such rules use. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "auth/ssl_principal.h"

#include <ctype.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rule {
    bool is_default, lower, upper;
    pcre2_code *re;
    char *replacement;
} rule_t;

struct gr_ssl_rules {
    rule_t *v;
    size_t n;
};

void gr_ssl_rules_free(gr_ssl_rules_t *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) {
        pcre2_code_free(r->v[i].re);
        free(r->v[i].replacement);
    }
    free(r->v);
    free(r);
}

/* Length of a pattern or replacement: escaped pairs and anything but '\' and '/'. */
static size_t body_len(const char *s, size_t n) {
    size_t i = 0;
    while (i < n && s[i] != '/') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
    return i;
}

static gr_err_t add_rule(gr_ssl_rules_t *r, const rule_t *rule) {
    rule_t *v = realloc(r->v, (r->n + 1) * sizeof(*v));
    if (!v) abort();
    r->v = v;
    r->v[r->n++] = *rule;
    return GR_ERR_NONE;
}

/* One RULE:pattern/replacement/[LU] at s[0..n); *used = bytes of the rule proper. 0 = not a RULE. */
static int parse_rule(const char *s, size_t n, rule_t *rule, size_t *used, char *errstr, size_t sz) {
    if (n < 5 || strncmp(s, "RULE:", 5)) return 0;
    size_t p0 = 5, pl = body_len(s + p0, n - p0);
    if (p0 + pl >= n) return 0;
    size_t r0 = p0 + pl + 1, rl = body_len(s + r0, n - r0);
    if (r0 + rl >= n) return 0;
    size_t end = r0 + rl + 1;
    if (end < n && (s[end] == 'L' || s[end] == 'U')) {
        rule->lower = s[end] == 'L';
        rule->upper = s[end] == 'U';
        end++;
    }
    int ec;
    PCRE2_SIZE eoff;
    rule->re = pcre2_compile((PCRE2_SPTR)(s + p0), pl, 0, &ec, &eoff, NULL);
    if (!rule->re) {
        char msg[128];
        pcre2_get_error_message(ec, (PCRE2_UCHAR *)msg, sizeof(msg));
        snprintf(errstr, sz, "Invalid rule: %.*s: bad pattern (%s at offset %zu)", (int)n, s, msg, (size_t)eoff);
        return -1;
    }
    rule->replacement = strndup(s + r0, rl);
    if (!rule->replacement) abort();
    *used = end;
    return 1;
}

/* One comma-separated item, already trimmed; an empty one adds nothing (as in Kafka). */
static gr_err_t parse_item(gr_ssl_rules_t *r, const char *s, size_t n, char *errstr, size_t sz) {
    rule_t rule = {0};
    size_t used = 0;
    if (n == 0) return GR_ERR_NONE;
    if (n >= 7 && !strncmp(s, "DEFAULT", 7)) {
        rule.is_default = true;
        used = 7;
    } else {
        int rc = parse_rule(s, n, &rule, &used, errstr, sz);
        if (rc < 0) return GR_ERR__INVALID_ARG;
    }
    if (used != n) {
        pcre2_code_free(rule.re);
        free(rule.replacement);
        snprintf(errstr, sz, "Invalid rule: `%.*s`, unmatched substring: `%.*s`", (int)n, s, (int)(n - used), s + used);
        return GR_ERR__INVALID_ARG;
    }
    return add_rule(r, &rule);
}

/* Split at commas that are not inside a RULE's pattern or replacement (those may contain
 * commas: RULE:^CN=(.*?),OU=x$/$1/). */
gr_err_t gr_ssl_rules_parse(const char *text, gr_ssl_rules_t **out, char *errstr, size_t sz) {
    gr_ssl_rules_t *r = calloc(1, sizeof(*r));
    if (!r) abort();
    if (!text) text = "DEFAULT";
    size_t len = strlen(text), i = 0;
    while (i <= len) {
        while (i < len && isspace((unsigned char)text[i])) i++;
        const char *s = text + i;
        size_t n = len - i, item = strcspn(s, ",");
        rule_t probe = {0};
        size_t used = 0;
        char ignore[8];
        /* A well-formed RULE extends past commas in its body; then up to the next comma. */
        if (parse_rule(s, n, &probe, &used, ignore, sizeof(ignore)) > 0 && used > item)
            item = used + strcspn(s + used, ",");
        pcre2_code_free(probe.re);
        free(probe.replacement);
        size_t t = item;
        while (t && isspace((unsigned char)s[t - 1])) t--;
        if (parse_item(r, s, t, errstr, sz)) {
            gr_ssl_rules_free(r);
            return GR_ERR__INVALID_ARG;
        }
        i += item + 1;
    }
    *out = r;
    return GR_ERR_NONE;
}

/* Append s[0..n) to out (cap bytes), tracking overflow in *len (may exceed cap). */
static void put(char *out, size_t cap, size_t *len, const char *s, size_t n) {
    for (size_t k = 0; k < n; k++, (*len)++)
        if (*len + 1 < cap) out[*len] = s[k];
}

/* Java's Matcher.appendReplacement: $n is group n, \x is x. */
static void put_replacement(const rule_t *rule, const char *subj, const PCRE2_SIZE *ov, uint32_t ngroups, char *out,
                            size_t cap, size_t *len) {
    for (const char *p = rule->replacement; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            put(out, cap, len, p, 1);
        } else if (*p == '$' && isdigit((unsigned char)p[1])) {
            unsigned g = (unsigned)(*++p - '0');
            /* Java takes more digits while they still name a group. */
            while (isdigit((unsigned char)p[1]) && g * 10 + (unsigned)(p[1] - '0') < ngroups)
                g = g * 10 + (unsigned)(*++p - '0');
            if (g < ngroups && ov[2 * g] != PCRE2_UNSET)
                put(out, cap, len, subj + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
        } else {
            put(out, cap, len, p, 1);
        }
    }
}

/* Rule.apply: NULL-equivalent (false) unless the pattern matches the whole name; then
 * String.replaceAll semantics (every match replaced, an empty match advances one char). */
static bool apply(const rule_t *rule, const char *dn, char *out, size_t cap, size_t *len) {
    size_t n = strlen(dn);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(rule->re, NULL);
    if (!md) abort();
    bool ok = pcre2_match(rule->re, (PCRE2_SPTR)dn, n, 0, PCRE2_ANCHORED | PCRE2_ENDANCHORED, md, NULL) >= 0;
    size_t last = 0, pos = 0;
    while (ok && pos <= n) {
        int rc = pcre2_match(rule->re, (PCRE2_SPTR)dn, n, pos, 0, md, NULL);
        if (rc < 0) break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        put(out, cap, len, dn + last, ov[0] - last);
        put_replacement(rule, dn, ov, pcre2_get_ovector_count(md), out, cap, len);
        last = ov[1];
        pos = ov[1] > ov[0] ? ov[1] : ov[1] + 1;
    }
    if (ok) put(out, cap, len, dn + last, n - last);
    pcre2_match_data_free(md);
    return ok;
}

bool gr_ssl_rules_map(const gr_ssl_rules_t *r, const char *dn, char *out, size_t cap, char *errstr, size_t sz) {
    for (size_t i = 0; i < r->n; i++) {
        const rule_t *rule = &r->v[i];
        size_t len = 0;
        if (rule->is_default)
            put(out, cap, &len, dn, strlen(dn));
        else if (!apply(rule, dn, out, cap, &len))
            continue;
        if (len + 1 > cap) {
            snprintf(errstr, sz, "principal mapped from %s is longer than %zu bytes", dn, cap - 1);
            return false;
        }
        out[len] = '\0';
        for (size_t k = 0; k < len; k++) {
            if (rule->lower) out[k] = (char)tolower((unsigned char)out[k]);
            if (rule->upper) out[k] = (char)toupper((unsigned char)out[k]);
        }
        return true;
    }
    snprintf(errstr, sz, "No rules apply to %s", dn);
    return false;
}
