/* GROUP (resource type 32) configs for DescribeConfigs / AlterConfigs /
 * IncrementalAlterConfigs (spec §5.2). The wire side stays in h_configs.c;
 * this file validates against the broker bounds (gr_sgc_validate), stores the
 * overrides in the group store and describes them (gr_sgc_describe).
 *
 * Like Kafka, a group's configs do not need the group to exist and do not
 * create it. They are stored, though, so such config-only groups count toward
 * group.share.max.groups: an alter that would store configs for one more group
 * beyond the cap is refused with POLICY_VIOLATION (docs/compatibility.md). An alter is made durable before the handler answers: it is rare,
 * so the group store is fsynced right away on the loop thread instead of
 * parking the request.
 * @locality loop thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "broker/share_coord.h"

gr_err_t gr_share_describe_group_configs(gr_broker_t *b, const char *group_id,
                                         bool (*wanted)(void *ctx, const char *name),
                                         void (*put)(void *ctx, const gr_sgc_entry_t *e), void *ctx, char *errstr,
                                         size_t errstr_size) {
    if (!*group_id) {
        snprintf(errstr, errstr_size, "Group name must not be empty.");
        return GR_ERR_INVALID_REQUEST;
    }
    size_t n = gr_sgc_count();
    gr_sgc_entry_t *es = calloc(n, sizeof(*es));
    if (!es) abort();
    gr_sgc_describe(gr_share_group_configs(b, group_id), &b->cfg->share.sg, es);
    for (size_t i = 0; i < n; i++)
        if (wanted(ctx, es[i].name)) put(ctx, &es[i]);
    free(es);
    return GR_ERR_NONE;
}

gr_err_t gr_share_alter_group_configs(gr_broker_t *b, const char *group_id, const gr_props_t *proposed,
                                      bool validate_only, char *errstr, size_t errstr_size) {
    if (!*group_id) {
        snprintf(errstr, errstr_size, "Group name must not be empty.");
        return GR_ERR_INVALID_REQUEST;
    }
    gr_err_t err = gr_sgc_validate(proposed, &b->cfg->share.sg, errstr, errstr_size);
    if (!err && proposed->n && !gr_share_group_configs(b, group_id) &&
        !gr_share_group_may_create(b, group_id, errstr, errstr_size)) {
        snprintf(errstr, errstr_size,
                 "Configs for group %s cannot be stored: the broker already holds the maximum of %d groups, "
                 "counting groups that only have configs (group.share.max.groups).",
                 group_id, b->cfg->share.max_groups);
        err = GR_ERR_POLICY_VIOLATION;
    }
    if (err || validate_only) return err;
    gr_share_group_configs_set(b, group_id, proposed, NULL);
    err = gr_gstore_sync(b->share.gstore);
    if (err) {
        GR_ERROR("share", "group configs of %s could not be made durable: %s", group_id, gr_err_str(err));
        snprintf(errstr, errstr_size, "The group configs could not be stored.");
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    GR_INFO("configs", "group %s configs altered (%zu override(s))", group_id, proposed->n);
    return GR_ERR_NONE;
}
