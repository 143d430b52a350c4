/* Java .properties files and ordered string maps.
 *
 * The parser follows java.util.Properties.load: '#' and '!' comment lines,
 * "key=value", "key: value" and "key value" forms, backslash line continuations,
 * \t \n \r \f \uXXXX escapes (any other escaped character stands for itself).
 * One deliberate difference: unescaped trailing whitespace of a value is trimmed,
 * as Kafka's ConfigDef trims every value it parses anyway.
 *
 * gr_props_t is also the string map used for config layers (topic overrides,
 * dynamic broker configs): keys are unique, insertion order is kept.
 * Not thread-safe; each map belongs to one thread. */
#ifndef GR_BASE_PROPS_H
#define GR_BASE_PROPS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

typedef struct gr_prop {
    char *key;   /* owned, NUL-terminated */
    char *value; /* owned, NUL-terminated (never NULL) */
    int line;    /* 1-based line where the entry started; 0 if not from a file */
} gr_prop_t;

typedef struct gr_props {
    gr_prop_t *v;
    size_t n, cap;
} gr_props_t;

/** Initialise an empty map (no allocation). */
void gr_props_init(gr_props_t *p);
/** Free every entry; the map is empty and reusable afterwards. */
void gr_props_free(gr_props_t *p);
/** Deep copy of src into dst (dst must be initialised; its old entries are freed). */
void gr_props_copy(gr_props_t *dst, const gr_props_t *src);

/** Value for key, or NULL. The pointer is valid until the key is set or removed. */
const char *gr_props_get(const gr_props_t *p, const char *key);
/** Entry for key, or NULL. */
const gr_prop_t *gr_props_find(const gr_props_t *p, const char *key);
/** Set key to value (both copied). An existing key keeps its position and takes the new
 *  value and line; a new key is appended. Aborts on OOM. */
void gr_props_set(gr_props_t *p, const char *key, const char *value, int line);
/** Remove key. Returns true if it was present. Later entries keep their order. */
bool gr_props_unset(gr_props_t *p, const char *key);

/** Parse .properties text (len bytes, need not be NUL-terminated) into p; entries are
 *  added with gr_props_set, so a repeated key keeps the last value (like Java).
 *  Returns GR_ERR__MALFORMED with "line N: reason" in errstr on a malformed \u escape
 *  or a NUL byte; p then holds the entries before the bad line. */
gr_err_t gr_props_parse(gr_props_t *p, const char *text, size_t len, char *errstr, size_t errstr_size);
/** Read and parse a file. GR_ERR__IO (errstr names the path and errno text) or as gr_props_parse. */
gr_err_t gr_props_load_file(gr_props_t *p, const char *path, char *errstr, size_t errstr_size);

/** Render p as .properties text ("key=value\n" per entry, escaped so that
 *  gr_props_parse gives back the same map). Returns a malloc'd string, caller frees. */
char *gr_props_format(const gr_props_t *p);

#endif
