/* Admin results: an immutable table of named columns once returned. Every cell
 * keeps its text (integers are formatted when set) and, for integers, the value. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "client/admin_int.h"

typedef struct cell {
    const char *s; /* NULL = null cell */
    int64_t i;
    bool is_int;
} cell_t;

struct gr_admin_result {
    const char *const *cols;
    size_t ncols, nrows, caprows;
    cell_t *cells;
    gr_arena_t arena;
};

gr_admin_result_t *gr__result_new(const char *const *cols) {
    gr_admin_result_t *r = calloc(1, sizeof(*r));
    if (!r) abort();
    r->cols = cols;
    while (cols[r->ncols]) r->ncols++;
    gr_arena_init(&r->arena);
    return r;
}

size_t gr__result_add_row(gr_admin_result_t *r) {
    if (r->nrows == r->caprows) {
        r->caprows = r->caprows ? r->caprows * 2 : 16;
        r->cells = realloc(r->cells, r->caprows * r->ncols * sizeof(cell_t));
        if (!r->cells) abort();
    }
    memset(&r->cells[r->nrows * r->ncols], 0, r->ncols * sizeof(cell_t));
    return r->nrows++;
}

static int col_index(const gr_admin_result_t *r, const char *col) {
    for (size_t i = 0; i < r->ncols; i++)
        if (!strcmp(r->cols[i], col)) return (int)i;
    return -1;
}

static cell_t *cell_at(gr_admin_result_t *r, size_t row, const char *col) {
    int c = col_index(r, col);
    if (c < 0 || row >= r->nrows) abort(); /* internal misuse */
    return &r->cells[row * r->ncols + (size_t)c];
}

void gr__result_set_str(gr_admin_result_t *r, size_t row, const char *col, gr_str_t s) {
    cell_t *c = cell_at(r, row, col);
    c->s = s.len < 0 ? NULL : gr_arena_strndup(&r->arena, s.ptr ? s.ptr : "", (size_t)s.len);
    c->is_int = false;
}

void gr__result_set_cstr(gr_admin_result_t *r, size_t row, const char *col, const char *s) {
    gr__result_set_str(r, row, col, s ? gr_str_c(s) : GR_STR_NULL);
}

void gr__result_set_int(gr_admin_result_t *r, size_t row, const char *col, int64_t v) {
    cell_t *c = cell_at(r, row, col);
    c->s = gr_arena_sprintf(&r->arena, "%" PRId64, v);
    c->i = v;
    c->is_int = true;
}

void gr__result_set_error(gr_admin_result_t *r, size_t row, int16_t code, gr_str_t msg) {
    gr__result_set_int(r, row, "error", code);
    if (msg.len < 0 || (msg.len == 0 && code)) msg = code ? gr_str_c(gr_err_str((gr_err_t)code)) : GR_STR_NULL;
    gr__result_set_str(r, row, "error_message", msg);
}

gr_err_t gr__result_first_error(const gr_admin_result_t *r, const char *key_col, char *errbuf, size_t size) {
    for (size_t row = 0; row < r->nrows; row++) {
        gr_err_t e = gr_admin_result_error(r, row);
        if (!e) continue;
        const char *key = gr_admin_result_str(r, row, key_col);
        const char *msg = gr_admin_result_str(r, row, "error_message");
        return gr__fmt(e, errbuf, size, "%s %s: %s", key_col, key ? key : "?", msg ? msg : gr_err_str(e));
    }
    return GR_ERR_NONE;
}

size_t gr_admin_result_rows(const gr_admin_result_t *r) { return r ? r->nrows : 0; }
size_t gr_admin_result_columns(const gr_admin_result_t *r) { return r ? r->ncols : 0; }
const char *gr_admin_result_column_name(const gr_admin_result_t *r, size_t i) {
    return r && i < r->ncols ? r->cols[i] : NULL;
}

const char *gr_admin_result_str(const gr_admin_result_t *r, size_t row, const char *column) {
    if (!r || !column || row >= r->nrows) return NULL;
    int c = col_index(r, column);
    return c < 0 ? NULL : r->cells[row * r->ncols + (size_t)c].s;
}

int64_t gr_admin_result_int(const gr_admin_result_t *r, size_t row, const char *column, int64_t dflt) {
    if (!r || !column || row >= r->nrows) return dflt;
    int c = col_index(r, column);
    if (c < 0) return dflt;
    const cell_t *cl = &r->cells[row * r->ncols + (size_t)c];
    if (cl->is_int) return cl->i;
    if (!cl->s) return dflt;
    char *end;
    long long v = strtoll(cl->s, &end, 10);
    return *cl->s && !*end ? v : dflt;
}

gr_err_t gr_admin_result_error(const gr_admin_result_t *r, size_t row) {
    return (gr_err_t)gr_admin_result_int(r, row, "error", 0);
}

void gr_admin_result_destroy(gr_admin_result_t *r) {
    if (!r) return;
    free(r->cells);
    gr_arena_free(&r->arena);
    free(r);
}
