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

static int cmp_cell(const char *a, const char *b, bool numeric) {
    if (!a || !b) return !a - !b;
    if (numeric) {
        long long x = strtoll(a, NULL, 10), y = strtoll(b, NULL, 10);
        return x < y ? -1 : x > y;
    }
    return strcmp(a, b);
}

static int cmp_rows(const cli_table_t *t, const size_t *by, size_t n_by, char *const *a, char *const *b) {
    for (size_t k = 0; k < n_by; k++) {
        size_t c = by[k];
        int r = cmp_cell(a[c], b[c], t->cols[c].numeric);
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

void cli_json_str(const char *s) {
    if (!s) {
        fputs("null", stdout);
        return;
    }
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p == '\t')
            fputs("\\t", stdout);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void print_json(const cli_table_t *t) {
    putchar('[');
    for (size_t r = 0; r < t->rows; r++) {
        printf("%s{", r ? ",\n " : "");
        for (size_t c = 0; c < t->n_cols; c++) {
            const char *v = t->cells[r * t->n_cols + c];
            printf("%s\"%s\":", c ? "," : "", t->cols[c].key);
            if (v && t->cols[c].numeric && *v && strspn(v + (*v == '-'), "0123456789") == strlen(v + (*v == '-')))
                fputs(v, stdout);
            else
                cli_json_str(v);
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
