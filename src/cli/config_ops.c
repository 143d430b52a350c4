/* The --add-config list of gregor configs: items split at the commas outside brackets,
 * each a key=value pair (config_ops.h). Pure: unit test test_config_ops. */
#include "config_ops.h"

#include <string.h>

size_t cli_split_configs(char *s, char **out, size_t max) {
    size_t n = 0;
    int depth = 0;
    char *start = s;
    for (char *p = s;; p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']' && depth > 0)
            depth--;
        if (*p && (*p != ',' || depth)) continue;
        bool end = !*p;
        *p = 0;
        while (*start == ' ') start++;
        size_t l = strlen(start);
        while (l && start[l - 1] == ' ') start[--l] = 0;
        if (*start && n < max) out[n++] = start;
        if (end) break;
        start = p + 1;
    }
    return n;
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
