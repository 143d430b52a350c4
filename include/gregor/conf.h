/* libgregor: client configuration by Kafka property names.
 *
 * A gr_conf_t is a set of "name = value" strings checked against one table of
 * known properties (docs/libgregor.md lists them with defaults and ranges). The
 * names, defaults and ranges are the Java client's. A configuration has a scope
 * (producer, consumer or admin): a property that does not apply to the scope is
 * refused, like an unknown one, with a message that says why.
 *
 * Ownership: the caller owns a gr_conf_t until it hands it to a constructor
 * (gr_producer_new, gr_admin_new), which copies what it needs; the caller still
 * destroys it afterwards.
 * Thread-safety: a gr_conf_t is not locked; use one from one thread at a time. */
#ifndef GREGOR_CONF_H
#define GREGOR_CONF_H

#include <stddef.h>

#include "gregor/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a configuration is for. A property is accepted only in the scopes it applies to. */
typedef enum gr_conf_scope {
    GR_CONF_PRODUCER = 1,
    GR_CONF_CONSUMER = 2,
    GR_CONF_ADMIN = 4,
} gr_conf_scope_t;

/** An opaque configuration object. */
typedef struct gr_conf gr_conf_t;

/** Create an empty configuration (every property at its default) for scope.
 *  Returns a new object the caller frees with gr_conf_destroy. Never NULL (aborts on OOM). */
gr_conf_t *gr_conf_new(gr_conf_scope_t scope);

/** Deep copy of conf. The caller frees the copy with gr_conf_destroy. */
gr_conf_t *gr_conf_dup(const gr_conf_t *conf);

/** Free conf and everything it holds. NULL is allowed. */
void gr_conf_destroy(gr_conf_t *conf);

/** The scope conf was created with. */
gr_conf_scope_t gr_conf_scope(const gr_conf_t *conf);

/** Set property name to value (both copied; value is parsed and range-checked now).
 *  Returns GR_ERR_NONE, or GR_ERR__INVALID_ARG with a one-line explanation in errstr
 *  (may be NULL) for an unknown name, a property of another scope, or a bad value,
 *  e.g. "Invalid value 7 for configuration acks: String must be one of: all, -1, 0, 1".
 *  On failure the previous value is kept. */
gr_err_t gr_conf_set(gr_conf_t *conf, const char *name, const char *value, char *errstr, size_t errstr_size);

/** The value of name as text: the value set, or the default ("" for an unset string
 *  without a default). Returns NULL for an unknown name. The pointer is valid until
 *  the next gr_conf_set on conf or its destruction. */
const char *gr_conf_get(const gr_conf_t *conf, const char *name);

/** Set every "name=value" of a Java .properties file, in file order. Stops at the first
 *  bad entry: GR_ERR__INVALID_ARG (errstr names the file and the line) or GR_ERR__IO. */
gr_err_t gr_conf_load_file(gr_conf_t *conf, const char *path, char *errstr, size_t errstr_size);

/** Iterate the property table: the name of the i-th property that applies to scope,
 *  or NULL past the end. Static strings; for tools that list or document properties. */
const char *gr_conf_property_name(gr_conf_scope_t scope, size_t i);

#ifdef __cplusplus
}
#endif

#endif
