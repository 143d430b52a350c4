/* Option parsing for the gregor subcommands, with Kafka-tool conventions:
 * `--name value` or `--name=value`, repeatable options, optional arguments
 * (`--state` or `--state Stable`), and `--help` printing the option table. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void print_help(const cli_vals_t *v, const char *about) {
    printf("%s\nUsage: %s [options]\n\n%-40s %s\n%-40s %s\n", about, v->cmd, "Option", "Description", "------",
           "-----------");
    for (size_t i = 0; i < v->n_opts; i++) {
        const cli_opt_t *o = &v->opts[i];
        char left[128];
        if (o->arg)
            snprintf(left, sizeof(left), "--%s %s%s%s", o->name, o->arg[0] == '[' ? "" : "<", o->arg,
                     o->arg[0] == '[' ? "" : ">");
        else
            snprintf(left, sizeof(left), "--%s", o->name);
        printf("%-40s %s\n", left, o->help);
    }
    printf("%-40s %s\n", "--version", "Print the version of gregor.");
}

static int find_opt(const cli_vals_t *v, const char *name, size_t len) {
    for (size_t i = 0; i < v->n_opts; i++)
        if (strlen(v->opts[i].name) == len && !strncmp(v->opts[i].name, name, len)) return (int)i;
    return -1;
}

static void add_val(cli_vals_t *v, int i, const char *val) {
    unsigned n = v->count[i]++;
    v->vals[i] = realloc(v->vals[i], (n + 1) * sizeof(*v->vals[i]));
    if (!v->vals[i]) abort();
    v->vals[i][n] = val;
}

int cli_parse(cli_vals_t *v, const char *cmd, const char *about, const cli_opt_t *opts, int argc, char **argv) {
    memset(v, 0, sizeof(*v));
    v->cmd = cmd;
    v->opts = opts;
    while (opts[v->n_opts].name) v->n_opts++;
    v->count = calloc(v->n_opts + 1, sizeof(*v->count));
    v->vals = calloc(v->n_opts + 1, sizeof(*v->vals));
    if (!v->count || !v->vals) abort();
    for (int a = 1; a < argc; a++) {
        const char *s = argv[a];
        if (strncmp(s, "--", 2) != 0) return cli_usage_error(v, "unexpected argument '%s'", s);
        if (!strcmp(s, "--version")) { /* every subcommand, as every Kafka tool */
            printf("gregor %s (libgregor %s)\n", gr_version_str(), gr_version_str());
            return -1;
        }
        const char *eq = strchr(s + 2, '=');
        size_t len = eq ? (size_t)(eq - s - 2) : strlen(s + 2);
        int i = find_opt(v, s + 2, len);
        if (i < 0) return cli_usage_error(v, "%.*s is not a recognized option", (int)(len + 2), s);
        const cli_opt_t *o = &opts[i];
        if (!strcmp(o->name, "help")) {
            print_help(v, about);
            return -1;
        }
        if (!o->arg) {
            if (eq) return cli_usage_error(v, "Option --%s does not take an argument", o->name);
            add_val(v, i, NULL);
        } else if (eq) {
            add_val(v, i, eq + 1);
        } else if (a + 1 < argc && (o->arg[0] != '[' || strncmp(argv[a + 1], "--", 2) != 0)) {
            add_val(v, i, argv[++a]);
        } else if (o->arg[0] == '[') {
            add_val(v, i, NULL);
        } else {
            return cli_usage_error(v, "Option --%s requires an argument", o->name);
        }
    }
    return 0;
}

void cli_vals_free(cli_vals_t *v) {
    for (size_t i = 0; i < v->n_opts; i++) free(v->vals[i]);
    free(v->vals);
    free(v->count);
}

static int idx(const cli_vals_t *v, const char *name) { return find_opt(v, name, strlen(name)); }

bool cli_has(const cli_vals_t *v, const char *name) {
    int i = idx(v, name);
    return i >= 0 && v->count[i] > 0;
}

const char *cli_str(const cli_vals_t *v, const char *name) {
    int i = idx(v, name);
    return i >= 0 && v->count[i] ? v->vals[i][v->count[i] - 1] : NULL;
}

const char **cli_all(const cli_vals_t *v, const char *name, size_t *n) {
    int i = idx(v, name);
    *n = i >= 0 ? v->count[i] : 0;
    return *n ? v->vals[i] : NULL;
}

int64_t cli_int(const cli_vals_t *v, const char *name, int64_t dflt) {
    const char *s = cli_str(v, name);
    if (!s) return dflt;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end) {
        cli_usage_error(v, "Option --%s needs a number, not '%s'", name, s);
        exit(CLI_USAGE);
    }
    return x;
}

int cli_usage_error(const cli_vals_t *v, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("Error: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help' for the options.\n", v->cmd);
    return CLI_USAGE;
}

int cli_one_of(const cli_vals_t *v, const char *const *names, bool required) {
    int found = -1, n = 0;
    char list[256] = "";
    for (int i = 0; names[i]; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof(list) - l, "%s--%s", i ? ", " : "", names[i]);
        if (cli_has(v, names[i])) found = i, n++;
    }
    if (n > 1) return cli_usage_error(v, "Command must include exactly one action: %s", list), -CLI_USAGE;
    if (n == 0 && required) return cli_usage_error(v, "Command must include exactly one action: %s", list), -CLI_USAGE;
    return found;
}

int cli_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("Error: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_FAIL;
}

size_t cli_split(char *s, char sep, char **out, size_t max) {
    size_t n = 0;
    while (s && *s && n < max) {
        char *e = strchr(s, sep);
        if (e) *e = 0;
        while (*s == ' ') s++;
        size_t l = strlen(s);
        while (l && s[l - 1] == ' ') s[--l] = 0;
        if (*s) out[n++] = s;
        s = e ? e + 1 : NULL;
    }
    return n;
}

char *cli_read_props(const char *path, const char **items, size_t max, size_t *n) {
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_fail("Cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t len = 0, cap = 256;
    char *buf = malloc(cap), *line = NULL;
    size_t lcap = 0;
    ssize_t got;
    if (!buf) abort();
    size_t offs[1024], k = 0;
    while ((got = getline(&line, &lcap, f)) >= 0) {
        while (got && (line[got - 1] == '\n' || line[got - 1] == '\r')) line[--got] = 0;
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '#' || *p == '!') continue;
        char *eq = p + strcspn(p, "=:");
        if (*eq) {
            char *ke = eq;
            while (ke > p && (ke[-1] == ' ' || ke[-1] == '\t')) ke--;
            char *vs = eq + 1;
            while (*vs == ' ' || *vs == '\t') vs++;
            *ke = 0;
            memmove(ke + 1, vs, strlen(vs) + 1);
            *ke = '=';
        }
        size_t l = strlen(p);
        if (len + l + 1 > cap) {
            cap = (len + l + 1) * 2;
            buf = realloc(buf, cap);
            if (!buf) abort();
        }
        if (k == max || k == sizeof(offs) / sizeof(offs[0])) { /* refused, never silently dropped */
            cli_fail("%s: more than %zu entries", path, k);
            free(line);
            free(buf);
            fclose(f);
            return NULL;
        }
        memcpy(buf + len, p, l + 1);
        offs[k++] = len;
        len += l + 1;
    }
    free(line);
    fclose(f);
    for (size_t i = 0; i < k; i++) items[i] = buf + offs[i];
    *n = k;
    return buf;
}
