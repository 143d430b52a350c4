/* Error codes shared by the broker, the codec and the client.
 *
 * The table lives once, in the public header include/gregor/error.h (libgregor
 * users see the same codes): 0 is OK, positive values are the Kafka wire error
 * codes unchanged, negative values are local errors (never put on the wire,
 * except GR_ERR_UNKNOWN_SERVER_ERROR, which is Kafka's -1). */
#ifndef GR_BASE_ERR_WRAPPER_H
#define GR_BASE_ERR_WRAPPER_H

#include "gregor/error.h"

#endif
