/* gregor consumer-groups: kafka-consumer-groups.sh (ConsumerGroupCommand, kafka-tools
 * 4.4.0), split over consumer_groups.c (options, checks, --list), cg_describe.c
 * (--describe: offsets, members, state), cg_reset.c (--reset-offsets) and cg_delete.c
 * (--delete, --delete-offsets). The pure parsing is cg_plan.c. */
#ifndef GR_CLI_CONSUMER_GROUPS_H
#define GR_CLI_CONSUMER_GROUPS_H

#include "cli.h"

/** The groups named by --group (repeatable) or, with --all-groups, every consumer
 *  group (in the broker's order, as Kafka's tool). Returns their number, or (size_t)-1
 *  after printing why; *out is malloc'd (strings owned by v or by *res). */
size_t cg_groups(const cli_vals_t *v, gr_admin_t *a, const char ***out, gr_admin_result_t **res);
/** Kafka's "Error: <msg>" on stdout, after a blank line (ConsumerGroupCommand.printError). */
void cg_print_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** The Java exception class of a Kafka error code ("GroupNotEmptyException"), and
 *  Kafka's default message for it ("The group is not empty."). */
const char *cg_exception_name(int code);
const char *cg_exception_message(int code);
/** Timeout of the admin calls: --timeout, default 5000 ms as Kafka's tool. */
int cg_timeout(const cli_vals_t *v);

/** Reorder v[0..n) as a java.util.HashMap keyed by them (filled in this order) iterates:
 *  Kafka's Admin returns listed groups that way, and its tool prints deleted groups so. */
void cg_java_sort(const char **v, size_t n);

int cg_describe(const cli_vals_t *v, gr_admin_t *a);
int cg_reset_offsets(const cli_vals_t *v, gr_admin_t *a);
int cg_delete(const cli_vals_t *v, gr_admin_t *a);
int cg_delete_offsets(const cli_vals_t *v, gr_admin_t *a);

#endif
