/* ssl.principal.mapping.rules: Kafka's SslPrincipalMapper, which turns the distinguished
 * name of a TLS client certificate into a principal name.
 *
 * Rules are comma-separated, tried in order; the first that applies wins:
 *   DEFAULT                       the distinguished name unchanged
 *   RULE:pattern/replacement/[LU] if the Java regular expression `pattern` matches the
 *                                 whole name, every match of it in the name is replaced by
 *                                 `replacement` ($1 = group 1, \x = literal x), then the
 *                                 result is lower-cased (L) or upper-cased (U).
 * Inside pattern and replacement a `/` is written `\/`. No rule applying is an error
 * (Kafka: NoMatchingRule), and so is a rule that does not parse.
 *
 * Pure: no I/O, no globals (regular expressions through PCRE2, close to Java's syntax).
 * A rules object is immutable after parsing; any thread may use it. */
#ifndef GR_AUTH_SSL_PRINCIPAL_H
#define GR_AUTH_SSL_PRINCIPAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

typedef struct gr_ssl_rules gr_ssl_rules_t;

/** Parse `rules` (NULL or "DEFAULT"-like text; NULL means "DEFAULT"). On error returns
 *  GR_ERR__INVALID_ARG with Kafka's reason in errstr ("Invalid rule: ..."). */
gr_err_t gr_ssl_rules_parse(const char *rules, gr_ssl_rules_t **out, char *errstr, size_t errstr_size);
void gr_ssl_rules_free(gr_ssl_rules_t *r);

/** Map the distinguished name `dn` (RFC 2253 text). Writes the principal name (without
 *  the "User:" prefix) to out. Returns false when no rule applies or the result does not
 *  fit in out (errstr says which). */
bool gr_ssl_rules_map(const gr_ssl_rules_t *r, const char *dn, char *out, size_t out_size, char *errstr,
                      size_t errstr_size);

#endif
