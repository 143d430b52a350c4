/* Error codes shared by the broker, the codec and the client.
 *
 * The table lives once, in the public header include/gregor/error.h (libgregor
 * users see the same codes): 0 is OK, positive values are the Kafka wire error
 * codes unchanged, negative values are local errors (never put on the wire,
 * except GR_ERR_UNKNOWN_SERVER_ERROR, which is Kafka's -1). */
#ifndef GR_BASE_ERR_WRAPPER_H
#define GR_BASE_ERR_WRAPPER_H

#include <stddef.h>

#include "gregor/error.h"

/** Format a reason into errstr (when errstr is not NULL and errstr_size > 0) and
 *  return err, so a failure path is one `return gr_err_fmt(...)`. */
gr_err_t gr_err_fmt(gr_err_t err, char *errstr, size_t errstr_size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
