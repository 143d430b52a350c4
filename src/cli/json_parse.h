/* A small JSON (RFC 8259) reader for documents the CLI fetches over HTTP (the
 * capacity view). It builds a tree; nesting is limited to 32 levels. */
#ifndef GR_CLI_JSON_PARSE_H
#define GR_CLI_JSON_PARSE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { CLI_JNULL, CLI_JBOOL, CLI_JNUM, CLI_JSTR, CLI_JARR, CLI_JOBJ } cli_jtype_t;

typedef struct cli_jv {
    cli_jtype_t type;
    bool b;
    double num;
    char *str;           /* CLI_JSTR, NUL-terminated UTF-8 */
    size_t n;            /* items (array) or members (object) */
    char **keys;         /* object member names */
    struct cli_jv *vals; /* array items / object member values */
} cli_jv_t;

/** Parse the whole of s (len bytes; whitespace around the value allowed).
 *  NULL with the reason in err when it is not JSON. Free with cli_jv_free. */
cli_jv_t *cli_jv_parse(const char *s, size_t len, char *err, size_t err_size);
void cli_jv_free(cli_jv_t *v);

/** Member key of an object (the first one with that name), or NULL. */
const cli_jv_t *cli_jv_get(const cli_jv_t *obj, const char *key);
/** Number of a member; NAN when absent, null or not a number. */
double cli_jv_num(const cli_jv_t *obj, const char *key);
/** String of a member, or NULL. */
const char *cli_jv_str(const cli_jv_t *obj, const char *key);

#endif
