/* The JAAS configuration text Kafka takes in sasl.jaas.config:
 *
 *   <loginModuleClass> <controlFlag> (<optionName>=<optionValue>)*;
 *
 * tokenised as Java's StreamTokenizer does in Kafka's JaasConfig: words of letters,
 * digits, '.', '-', '_', '$' (and bytes >= 0xA0) that start with a letter, '_' or '$';
 * values in "double" or 'single' quotes with backslash escapes (\n \t \r \b \f \a \v,
 * octal \ooo, any other escaped character stands for itself; a quote runs to the end
 * of its line at most); // and / * * / comments, and a lone '/' comments out the rest of
 * the line. A token that starts with a digit, '.' or '-' is a number, which is not a
 * valid name or value. Pure; no globals. */
#ifndef GR_AUTH_JAAS_H
#define GR_AUTH_JAAS_H

#include <stddef.h>

#include "base/err.h"

typedef enum { GR_JAAS_REQUIRED, GR_JAAS_REQUISITE, GR_JAAS_SUFFICIENT, GR_JAAS_OPTIONAL } gr_jaas_flag_t;

typedef struct gr_jaas_option {
    char *key, *value; /* owned, NUL-terminated (a value may hold NUL-free bytes only) */
} gr_jaas_option_t;

typedef struct gr_jaas_entry {
    char *login_module; /* owned */
    gr_jaas_flag_t flag;
    gr_jaas_option_t *opts; /* a repeated key keeps its last value (Java's HashMap) */
    size_t n_opts;
} gr_jaas_entry_t;

typedef struct gr_jaas {
    gr_jaas_entry_t *entries;
    size_t n;
} gr_jaas_t;

/** Parse len bytes of text. On success *out holds at least one entry (free with
 *  gr_jaas_free). Errors: GR_ERR__INVALID_ARG with Kafka's message in errstr
 *  ("Value not specified for key 'x' in JAAS config", ...); *out is then empty. */
gr_err_t gr_jaas_parse(const char *text, size_t len, gr_jaas_t *out, char *errstr, size_t errstr_size);
void gr_jaas_free(gr_jaas_t *j);
/** The value of option key in entry e, or NULL. */
const char *gr_jaas_option(const gr_jaas_entry_t *e, const char *key);

#endif
