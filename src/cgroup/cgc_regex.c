/* Regex subscriptions (SubscribedTopicRegex): Kafka compiles them with RE2/J and matches
 * whole topic names. We compile with PCRE2 after refusing what RE2 does not have
 * (backreferences, lookaround, atomic groups, possessive quantifiers, recursion,
 * conditionals), with RE2/J's descriptions, so the same patterns are refused with
 * INVALID_REGULAR_EXPRESSION. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <string.h>

#include "cgroup/cgc_int.h"

static bool say(char *why, size_t n, const char *msg) {
    if (why && n) snprintf(why, n, "%s", msg);
    return false;
}

/* Constructs PCRE2 accepts and RE2 refuses. */
static bool re2_subset(const char *re, char *why, size_t n) {
    bool in_class = false;
    for (const char *p = re; *p; p++) {
        if (*p == '\\') {
            char e = p[1];
            if (!e) break; /* PCRE2 reports the trailing backslash */
            if ((e >= '1' && e <= '9') || e == 'g' || e == 'k' || e == 'K' || e == 'R' || e == 'X' || e == 'G' ||
                e == 'h' || e == 'H' || e == 'V' || e == 'N' || e == 'o' || e == 'e' || e == 'c')
                return say(why, n, "invalid escape sequence");
            p++;
            continue;
        }
        if (in_class) {
            if (*p == ']') in_class = false;
            continue;
        }
        if (*p == '[') {
            in_class = true;
            if (p[1] == '^') p++;
            if (p[1] == ']') p++;
            continue;
        }
        if (*p == '(' && p[1] == '?') {
            const char *q = p + 2;
            /* RE2/J reads "(?<" as a named group: lookbehind is a bad name to it. */
            if (*q == '<' && (q[1] == '=' || q[1] == '!')) return say(why, n, "invalid named capture");
            if (*q == '=' || *q == '!' || *q == '>' || *q == '|' || *q == '(' || *q == 'R' || *q == '&' ||
                (*q >= '0' && *q <= '9') || *q == '+' || (*q == 'P' && (q[1] == '=' || q[1] == '>')))
                return say(why, n, "invalid or unsupported Perl syntax");
        }
        if ((*p == '*' || *p == '+' || *p == '?' || *p == '}') && p[1] == '+' && p != re)
            return say(why, n, "invalid nested repetition operator");
    }
    return true;
}

void *cgc_regex_compile(const char *re, char *why, size_t why_size) {
    if (!re2_subset(re, why, why_size)) return NULL;
    int ec;
    PCRE2_SIZE off;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &ec, &off, NULL);
    if (!code && why && why_size) {
        char msg[160];
        pcre2_get_error_message(ec, (PCRE2_UCHAR *)msg, sizeof(msg));
        /* RE2/J's words for the common cases. */
        if (strstr(msg, "missing closing parenthesis"))
            snprintf(why, why_size, "missing closing )");
        else if (strstr(msg, "unmatched closing parenthesis"))
            snprintf(why, why_size, "unexpected )");
        else if (strstr(msg, "missing terminating ]"))
            snprintf(why, why_size, "missing closing ]");
        else if (strstr(msg, "quantifier does not follow"))
            snprintf(why, why_size, "missing argument to repetition operator");
        else
            snprintf(why, why_size, "%s", msg);
    }
    return code;
}

bool cgc_regex_match(void *code, const char *name) {
    pcre2_code *c = code;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(c, NULL);
    if (!md) return false;
    int rc = pcre2_match(c, (PCRE2_SPTR)name, strlen(name), 0, PCRE2_ANCHORED | PCRE2_ENDANCHORED, md, NULL);
    pcre2_match_data_free(md);
    return rc >= 0;
}

void cgc_regex_free(void *code) {
    if (code) pcre2_code_free(code);
}

bool gr_cgc_regex_valid(const char *re, char *why, size_t why_size) {
    void *c = cgc_regex_compile(re, why, why_size);
    cgc_regex_free(c);
    return c != NULL;
}
