/* libgregor internals: the admin client's handle and its result tables, shared by
 * admin.c (topics, configs), admin_groups.c (groups, share groups) and
 * admin_result.c (the table). */
#ifndef GR_CLIENT_ADMIN_INT_H
#define GR_CLIENT_ADMIN_INT_H

#include "client/client.h"
#include "gregor/admin.h"

struct gr_admin {
    gr__client_t *cl;
    char errbuf[1024];
};

/** A result with the given columns (a NULL-terminated static array). */
gr_admin_result_t *gr__result_new(const char *const *cols);
/** Append an empty row (all cells null); returns its index. */
size_t gr__result_add_row(gr_admin_result_t *r);
/** Set a cell by column name (the name must be one of the result's columns). */
void gr__result_set_str(gr_admin_result_t *r, size_t row, const char *col, gr_str_t s);
void gr__result_set_cstr(gr_admin_result_t *r, size_t row, const char *col, const char *s);
void gr__result_set_int(gr_admin_result_t *r, size_t row, const char *col, int64_t v);
/** Set the "error" and "error_message" cells (the message defaults to the error's text). */
void gr__result_set_error(gr_admin_result_t *r, size_t row, int16_t code, gr_str_t msg);
/** The first row error, explained in errbuf as "<what> <key>: <message>"; key is
 *  the value of column key_col. GR_ERR_NONE if no row failed. */
gr_err_t gr__result_first_error(const gr_admin_result_t *r, const char *key_col, char *errbuf, size_t size);

/** Deadline for a call: timeout_ms, or default.api.timeout.ms when negative. */
int64_t gr__admin_deadline(gr_admin_t *a, int timeout_ms);
/** The node id of the coordinator of group (FindCoordinator, key type 0). */
gr_err_t gr__admin_coordinator(gr_admin_t *a, const char *group, int64_t deadline, int32_t *node_id);

/** Describe each of n groups with one(a, group, deadline, r) into a new result of cols; the
 *  first row error explained in errbuf (describe share groups, describe consumer groups). */
typedef gr_err_t gr__admin_group_fn(gr_admin_t *a, const char *group, int64_t deadline, gr_admin_result_t *r);
gr_err_t gr__admin_per_group(gr_admin_t *a, const char *const *groups, size_t n, int timeout_ms,
                             const char *const *cols, gr__admin_group_fn *one, gr_admin_result_t **res);

/** Learn the brokers of the cluster (Metadata without topics). */
gr_err_t gr__admin_learn_brokers(gr_admin_t *a, int64_t deadline);

#endif
