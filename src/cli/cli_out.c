/* Output of the gregor subcommands: tables as the Kafka tools print them (each
 * column left-aligned to the wider of its minimum width and its longest cell, one
 * space between columns, '-' for a missing value) or as JSON; progress lines on a
 * terminal. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

void cli_table_init(cli_table_t *t, const cli_col_t *cols, size_t n_cols) {
    memset(t, 0, sizeof(*t));
    t->cols = cols;
    t->n_cols = n_cols;
}

void cli_table_add(cli_table_t *t, const char *const *cells) {
    if (t->rows == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->cells = realloc(t->cells, t->cap * t->n_cols * sizeof(*t->cells));
        if (!t->cells) abort();
    }
    for (size_t i = 0; i < t->n_cols; i++) {
        char *c = cells[i] ? strdup(cells[i]) : NULL;
        if (cells[i] && !c) abort();
        t->cells[t->rows * t->n_cols + i] = c;
    }
    t->rows++;
}

void cli_table_free(cli_table_t *t) {
    for (size_t i = 0; i < t->rows * t->n_cols; i++) free(t->cells[i]);
    free(t->cells);
}

static int cmp_cell(const char *a, const char *b, cli_ctype_t type) {
    if (!a || !b) return !a - !b;
    if (type == CLI_INT) {
        long long x = strtoll(a, NULL, 10), y = strtoll(b, NULL, 10);
        return x < y ? -1 : x > y;
    }
    return strcmp(a, b);
}

static int cmp_rows(const cli_table_t *t, const size_t *by, size_t n_by, char *const *a, char *const *b) {
    for (size_t k = 0; k < n_by; k++) {
        size_t c = by[k];
        int r = cmp_cell(a[c], b[c], t->cols[c].type);
        if (r) return r;
    }
    return 0;
}

void cli_table_sort(cli_table_t *t, const size_t *by, size_t n_by) {
    char **flat = malloc((t->n_cols ? t->n_cols : 1) * sizeof(*flat));
    if (!flat) abort();
    /* A stable insertion sort: equal rows keep their input order (tables are small). */
    for (size_t i = 1; i < t->rows; i++) {
        memcpy(flat, &t->cells[i * t->n_cols], t->n_cols * sizeof(*flat));
        size_t j = i;
        while (j > 0 && cmp_rows(t, by, n_by, &t->cells[(j - 1) * t->n_cols], flat) > 0) {
            memcpy(&t->cells[j * t->n_cols], &t->cells[(j - 1) * t->n_cols], t->n_cols * sizeof(*flat));
            j--;
        }
        memcpy(&t->cells[j * t->n_cols], flat, t->n_cols * sizeof(*flat));
    }
    free(flat);
}

/* Length of the valid UTF-8 sequence at p (1-4), or 0 if the byte at p does not start
 * one (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *p) {
    unsigned char c = p[0];
    if (c < 0x80) return 1;
    size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!n) return 0;
    unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if ((p[i] & 0xc0) != 0x80) return 0; /* also stops at the terminating NUL */
    return n;
}

void cli_json_str(const char *s) {
    if (!s) {
        fputs("null", stdout);
        return;
    }
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        if (n == 0) {
            fputs("\\ufffd", stdout); /* not UTF-8: one replacement character per byte */
            p++;
            continue;
        }
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p == '\t')
            fputs("\\t", stdout);
        else if (*p < 0x20 || *p == 0x7f)
            printf("\\u%04x", *p);
        else
            fwrite(p, 1, n, stdout);
        p += n;
    }
    putchar('"');
}

static bool is_int(const char *v) {
    const char *d = v + (*v == '-');
    return *d && strspn(d, "0123456789") == strlen(d);
}

/* A JSON number: -?int(.digits)?([eE][+-]?digits)?, the int without leading zeros. */
static bool is_json_number(const char *v) {
    const char *p = v + (*v == '-');
    size_t n = strspn(p, "0123456789");
    if (!n || (n > 1 && *p == '0')) return false;
    p += n;
    if (*p == '.') {
        if (!(n = strspn(++p, "0123456789"))) return false;
        p += n;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '+' || *p == '-';
        if (!(n = strspn(p, "0123456789"))) return false;
        p += n;
    }
    return !*p;
}

/* "1,2,3" as [1,2,3]; false (nothing printed) if an item is not an integer. */
static bool print_int_list(const char *v) {
    char item[32];
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof(item)) return false;
        memcpy(item, p, n);
        item[n] = 0;
        if (!is_int(item)) return false;
        p += n + (p[n] == ',');
    }
    putchar('[');
    for (const char *p = v; *p; p++) putchar(*p);
    putchar(']');
    return true;
}

static void print_cell(const char *v, cli_ctype_t type) {
    if (v && ((type == CLI_INT && is_int(v)) || (type == CLI_NUM && is_json_number(v))))
        fputs(v, stdout);
    else if (v && type == CLI_BOOL && (!strcmp(v, "true") || !strcmp(v, "false")))
        fputs(v, stdout);
    else if (!v || type != CLI_INT_LIST || !print_int_list(v))
        cli_json_str(v);
}

static void print_json(const cli_table_t *t) {
    putchar('[');
    for (size_t r = 0; r < t->rows; r++) {
        printf("%s{", r ? ",\n " : "");
        for (size_t c = 0; c < t->n_cols; c++) {
            printf("%s", c ? "," : "");
            cli_json_str(t->cols[c].key);
            putchar(':');
            print_cell(t->cells[r * t->n_cols + c], t->cols[c].type);
        }
        putchar('}');
    }
    puts("]");
}

void cli_table_print(const cli_table_t *t, bool json, bool lead_blank) {
    if (json) {
        print_json(t);
        return;
    }
    int w[32];
    for (size_t c = 0; c < t->n_cols && c < 32; c++) {
        w[c] = t->cols[c].width;
        if ((int)strlen(t->cols[c].header) > w[c]) w[c] = (int)strlen(t->cols[c].header);
        for (size_t r = 0; r < t->rows; r++) {
            const char *v = t->cells[r * t->n_cols + c];
            if (v && (int)strlen(v) > w[c]) w[c] = (int)strlen(v);
        }
    }
    if (lead_blank) putchar('\n');
    for (size_t r = 0; r <= t->rows; r++) {
        for (size_t c = 0; c < t->n_cols; c++) {
            const char *v = r == 0 ? t->cols[c].header : t->cells[(r - 1) * t->n_cols + c];
            if (!v) v = "-";
            if (c + 1 == t->n_cols)
                printf("%s\n", v);
            else
                printf("%-*s ", w[c], v);
        }
    }
}

bool cli_json(const cli_vals_t *v) {
    const char *o = cli_str(v, "output");
    if (!o || !strcmp(o, "text")) return false;
    if (!strcmp(o, "json")) return true;
    exit(cli_usage_error(v, "--output must be json or text, not '%s'", o));
}

const char *cli_i64(char *buf, size_t size, int64_t v, bool neg_missing) {
    if (neg_missing && v < 0) return NULL;
    snprintf(buf, size, "%" PRId64, v);
    return buf;
}

bool cli_tty(void) { return isatty(STDERR_FILENO) == 1; }

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool shown; /* a progress line is on the terminal */

void cli_progress_hide(void) {
    if (shown && isatty(STDOUT_FILENO) == 1) {
        fputs("\r\033[K", stderr);
        shown = false;
    }
}

void cli_progress(const char *what, uint64_t n, bool final) {
    static int tty = -1;
    static int64_t start, last;
    if (tty < 0) tty = cli_tty(), start = last = now_ms();
    if (!tty) return;
    if (final) {
        if (shown) fputs("\r\033[K", stderr); /* erase the progress line */
        shown = false;
        return;
    }
    int64_t now = now_ms();
    if (now - last < 200) return; /* at most 5 updates a second, the first after 200 ms */
    last = now;
    double secs = (double)(now - start) / 1000.0;
    fprintf(stderr, "\r\033[K%s %" PRIu64 " records (%.0f records/s)", what, n, secs > 0 ? (double)n / secs : 0.0);
    fflush(stderr);
    shown = true;
}
