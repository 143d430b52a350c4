/* The --add-config list of gregor configs, read as kafka-configs reads it: pieces at the
 * commas outside brackets, each one key=value (config_ops.h). Pure: unit test
 * test_config_ops. */
#include "config_ops.h"

#include <string.h>

/* Kafka's lookahead (?=[^\]]*(?:\[|$)): a separator at s[i] counts unless a ']' comes
 * after it before any '['. */
static bool outside_brackets(const char *s) {
    for (const char *p = s + 1; *p; p++) {
        if (*p == '[') return true;
        if (*p == ']') return false;
    }
    return true;
}

/* String.trim: cut characters <= ' ' at both ends. */
static char *trim(char *s) {
    while (*s && (unsigned char)*s <= ' ') s++;
    size_t l = strlen(s);
    while (l && (unsigned char)s[l - 1] <= ' ') s[--l] = 0;
    return s;
}

/* One piece into *key and *val; false unless exactly one '=' outside brackets. */
static bool split_pair(char *piece, char **key, char **val) {
    char *eq = NULL;
    for (char *p = piece; *p; p++)
        if (*p == '=' && outside_brackets(p)) {
            if (eq) return false;
            eq = p;
        }
    if (!eq) return false;
    *eq = 0;
    *key = trim(piece);
    char *o = eq + 1;
    for (char *p = eq + 1; *p; p++) /* replaceAll("\\[?\\]?", ""): every bracket goes */
        if (*p != '[' && *p != ']') *o++ = *p;
    *o = 0;
    *val = trim(eq + 1);
    return true;
}

static bool valid_key(const char *k) {
    return strspn(k, "$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == strlen(k);
}

int cli_parse_add_config(char *s, char **keys, char **vals, size_t max, const char **bad_key) {
    char *pieces[1024];
    size_t np = 0, n = 0;
    pieces[np++] = s;
    for (char *p = s; *p; p++) /* left to right: the text after p is still whole */
        if (*p == ',' && outside_brackets(p)) {
            *p = 0;
            if (np == sizeof(pieces) / sizeof(pieces[0])) return CLI_CONFIG_TOO_MANY;
            pieces[np++] = p + 1;
        }
    if (np > 1)
        while (np && !*pieces[np - 1]) np--; /* Java's split drops trailing empty strings */
    for (size_t i = 0; i < np; i++) {
        char *k, *v;
        if (!split_pair(pieces[i], &k, &v)) return CLI_CONFIG_BAD_FORMAT;
        size_t j = 0;
        while (j < n && strcmp(keys[j], k)) j++;
        if (j == n && n == max) return CLI_CONFIG_TOO_MANY;
        keys[j] = k, vals[j] = v;
        if (j == n) n++;
    }
    for (size_t i = 0; i < n; i++)
        if (!valid_key(keys[i])) return *bad_key = keys[i], CLI_CONFIG_BAD_KEY;
    return (int)n;
}

bool cli_config_kv(char *item, char **key, char **val) {
    char *eq = strchr(item, '=');
    if (!eq || eq == item) return false;
    *eq = 0;
    *key = item;
    *val = eq + 1;
    size_t l = strlen(*val);
    if (l >= 2 && (*val)[0] == '[' && (*val)[l - 1] == ']') (*val)[l - 1] = 0, (*val)++;
    return true;
}
