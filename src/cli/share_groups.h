/* gregor share-groups: the actions, split over share_groups.c (options, --list,
 * --describe), share_groups_alter.c (--reset-offsets, --delete-offsets, --delete)
 * share_capacity.c (--describe --capacity) and share_redrive.c (--redrive). */
#ifndef GR_CLI_SHARE_GROUPS_H
#define GR_CLI_SHARE_GROUPS_H

#include "cli.h"

/** The groups named by --group (repeatable) or, with --all-groups, every share group.
 *  Returns their number; *out is malloc'd (strings owned by v or by *res). */
size_t sg_groups(const cli_vals_t *v, gr_admin_t *a, const char ***out, gr_admin_result_t **res);
/** The state of a share group ("Empty", "Stable", ...), NULL if it does not exist;
 *  *err set for other failures (after printing why). Returned string is malloc'd. */
char *sg_state(const cli_vals_t *v, gr_admin_t *a, const char *group, bool *err);

int sg_reset_offsets(const cli_vals_t *v, gr_admin_t *a);
int sg_delete_offsets(const cli_vals_t *v, gr_admin_t *a);
int sg_delete(const cli_vals_t *v, gr_admin_t *a);
/** --describe --capacity (share_capacity.c): over HTTP from gregord's admin endpoint. */
int sg_capacity(const cli_vals_t *v);
/** http://<first host of bootstrap>:9644, gregord's usual admin endpoint (share_capacity.c). */
void sg_default_admin_url(const char *bootstrap, char *buf, size_t size);
/** --describe --state (share_delayed.c): the delayed-redelivery table of a group whose
 *  gregor.share.redelivery.backoff.ms is on (text output, from the admin endpoint). */
void sg_delayed(const cli_vals_t *v, gr_admin_t *a, const char *group);

/** --redrive --group g --from-dlq (share_redrive.c): re-produce the group's dead letters. */
int sg_redrive(const cli_vals_t *v, gr_admin_t *a);

#endif
