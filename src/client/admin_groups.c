/* The admin client: groups and share groups. Requests about a group go to its
 * coordinator (FindCoordinator, key type 0 = GROUP); ListGroups goes to every broker. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/admin_int.h"
#include "proto_msgs.h"

#define CALL(a, node, api, rq, deadline, ar, resp, ver) \
    gr__client_call((a)->cl, node, api, rq, deadline, ar, resp, ver, (a)->errbuf, sizeof((a)->errbuf))

/* The group's coordinator (FindCoordinator key type 0, retried: coordinator.c). */
gr_err_t gr__admin_coordinator(gr_admin_t *a, const char *group, int64_t deadline, int32_t *node_id) {
    return gr__client_find_coordinator(a->cl, 0, group, deadline, node_id, a->errbuf, sizeof(a->errbuf));
}

/* ---- list groups ---- */

static const char *const list_cols[] = {"group", "type", "state", "protocol_type", NULL};

static bool type_wanted(const char *types, gr_str_t t) {
    if (!types) return true;
    for (const char *p = types; *p;) {
        size_t n = strcspn(p, ",");
        if ((int32_t)n == t.len && !strncasecmp(p, t.ptr, n)) return true;
        p += n;
        if (*p) p++;
    }
    return false;
}

static gr_err_t list_on(gr_admin_t *a, int32_t node, const char *types, int64_t deadline, gr_admin_result_t *r) {
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_ListGroupsRequest_t rq;
    gr_struct_init(&gr_ListGroupsRequest_sd, &rq);
    size_t nt = 0;
    for (const char *p = types; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 1 : 0)) nt++;
    rq.TypesFilter.n = (int32_t)nt;
    rq.TypesFilter.v = gr_arena_alloc(&ar, (nt ? nt : 1) * sizeof(gr_str_t));
    nt = 0;
    for (const char *p = types; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 1 : 0))
        rq.TypesFilter.v[nt++] = (gr_str_t){p, (int32_t)strcspn(p, ",")};
    void *resp;
    int16_t ver;
    gr_err_t err = CALL(a, node, GR_API_ListGroups, &rq, deadline, &ar, &resp, &ver);
    if (!err) {
        const gr_ListGroupsResponse_t *rs = resp;
        if (rs->ErrorCode)
            err = gr__fmt((gr_err_t)rs->ErrorCode, a->errbuf, sizeof(a->errbuf), "ListGroups on broker %d: %s", node,
                          gr_err_str((gr_err_t)rs->ErrorCode));
        for (int32_t i = 0; !err && i < rs->Groups.n; i++) {
            const gr_ListGroupsResponse_ListedGroup_t *g = &rs->Groups.v[i];
            gr_str_t type = ver >= 5 ? g->GroupType : g->ProtocolType.len ? g->ProtocolType : GR_STR("classic");
            if (!type_wanted(types, type)) continue; /* older brokers do not filter */
            size_t row = gr__result_add_row(r);
            gr__result_set_str(r, row, "group", g->GroupId);
            gr__result_set_str(r, row, "type", type);
            gr__result_set_str(r, row, "state", ver >= 4 ? g->GroupState : GR_STR_NULL);
            gr__result_set_str(r, row, "protocol_type", g->ProtocolType);
        }
    }
    gr_arena_free(&ar);
    return err;
}

gr_err_t gr_admin_list_groups(gr_admin_t *a, const char *types, int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_err_t err = gr__admin_learn_brokers(a, deadline);
    if (err) return err;
    int32_t ids[256];
    size_t n = gr__client_brokers(a->cl, ids, 256);
    gr_admin_result_t *r = gr__result_new(list_cols);
    for (size_t i = 0; !err && i < n; i++) err = list_on(a, ids[i], types, deadline, r);
    if (err) {
        gr_admin_result_destroy(r);
        return err;
    }
    *res = r;
    return GR_ERR_NONE;
}

/* ---- describe share groups ---- */

static const char *const sg_cols[] = {"group",        "state",     "group_epoch",   "assignment_epoch",
                                      "assignor",     "member_id", "client_id",     "client_host",
                                      "member_epoch", "topic",     "partition",     "coordinator_id",
                                      "coordinator",  "error",     "error_message", NULL};

/* The coordinator that answered, for the rows of its group. */
typedef struct sg_coord {
    int32_t id;
    const char *name; /* "host:port", or NULL */
} sg_coord_t;

static size_t sg_row(gr_admin_result_t *r, const gr_ShareGroupDescribeResponse_DescribedGroup_t *g,
                     const gr_ShareGroupDescribeResponse_Member_t *m, const sg_coord_t *co) {
    size_t row = gr__result_add_row(r);
    gr__result_set_str(r, row, "group", g->GroupId);
    gr__result_set_int(r, row, "coordinator_id", co->id);
    gr__result_set_cstr(r, row, "coordinator", co->name);
    gr__result_set_error(r, row, g->ErrorCode, g->ErrorMessage);
    if (g->ErrorCode) return row;
    gr__result_set_str(r, row, "state", g->GroupState);
    gr__result_set_int(r, row, "group_epoch", g->GroupEpoch);
    gr__result_set_int(r, row, "assignment_epoch", g->AssignmentEpoch);
    gr__result_set_str(r, row, "assignor", g->AssignorName);
    if (!m) return row;
    gr__result_set_str(r, row, "member_id", m->MemberId);
    gr__result_set_str(r, row, "client_id", m->ClientId);
    gr__result_set_str(r, row, "client_host", m->ClientHost);
    gr__result_set_int(r, row, "member_epoch", m->MemberEpoch);
    return row;
}

static void sg_rows(gr_admin_result_t *r, const gr_ShareGroupDescribeResponse_DescribedGroup_t *g,
                    const sg_coord_t *co) {
    if (g->ErrorCode || g->Members.n <= 0) {
        sg_row(r, g, NULL, co);
        return;
    }
    for (int32_t i = 0; i < g->Members.n; i++) {
        const gr_ShareGroupDescribeResponse_Member_t *m = &g->Members.v[i];
        const gr_ShareGroupDescribeResponse_Assignment_t *as = m->Assignment;
        bool any = false;
        for (int32_t t = 0; as && t < as->TopicPartitions.n; t++) {
            const gr_ShareGroupDescribeResponse_TopicPartitions_t *tp = &as->TopicPartitions.v[t];
            for (int32_t p = 0; p < tp->Partitions.n; p++) {
                size_t row = sg_row(r, g, m, co);
                gr__result_set_str(r, row, "topic", tp->TopicName);
                gr__result_set_int(r, row, "partition", tp->Partitions.v[p]);
                any = true;
            }
        }
        if (!any) sg_row(r, g, m, co);
    }
}

/* The coordinator may still be loading (14), unavailable (15) or elsewhere (16):
 * the Java Admin retries those until the deadline, and so do we. */
static bool group_retriable(int16_t code) {
    return code == GR_ERR_COORDINATOR_LOAD_IN_PROGRESS || code == GR_ERR_COORDINATOR_NOT_AVAILABLE ||
           code == GR_ERR_NOT_COORDINATOR;
}

static gr_err_t describe_one_share_group(gr_admin_t *a, const char *group, int64_t deadline, gr_admin_result_t *r) {
    for (;;) {
        int32_t node;
        gr_err_t err = gr__admin_coordinator(a, group, deadline, &node);
        if (err) return err;
        gr_arena_t ar;
        gr_arena_init(&ar);
        gr_ShareGroupDescribeRequest_t rq;
        gr_struct_init(&gr_ShareGroupDescribeRequest_sd, &rq);
        rq.GroupIds.n = 1;
        rq.GroupIds.v = gr_arena_alloc(&ar, sizeof(gr_str_t));
        rq.GroupIds.v[0] = gr_str_c(group);
        void *resp;
        int16_t ver;
        err = CALL(a, node, GR_API_ShareGroupDescribe, &rq, deadline, &ar, &resp, &ver);
        const gr_ShareGroupDescribeResponse_t *rs = err ? NULL : resp;
        if (rs && rs->Groups.n == 1 && group_retriable(rs->Groups.v[0].ErrorCode) &&
            gr__client_tick(a->cl) + 100 < deadline) {
            gr_arena_free(&ar);
            gr__client_io(a->cl, 100); /* back off, keeping the connections serviced */
            continue;
        }
        gr__node_t *cn = gr__client_node(a->cl, node);
        sg_coord_t co = {node, cn ? gr__node_name(cn) : NULL};
        if (rs)
            for (int32_t i = 0; i < rs->Groups.n; i++) sg_rows(r, &rs->Groups.v[i], &co);
        gr_arena_free(&ar);
        return err;
    }
}

gr_err_t gr__admin_per_group(gr_admin_t *a, const char *const *groups, size_t n, int timeout_ms,
                             const char *const *cols, gr__admin_group_fn *one, gr_admin_result_t **res) {
    *res = NULL;
    if (!groups || !n) return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf), "no group given");
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_admin_result_t *r = gr__result_new(cols);
    gr_err_t err = GR_ERR_NONE;
    for (size_t i = 0; !err && i < n; i++) err = one(a, groups[i], deadline, r);
    if (err) {
        gr_admin_result_destroy(r);
        return err;
    }
    *res = r;
    return gr__result_first_error(r, "group", a->errbuf, sizeof(a->errbuf));
}

gr_err_t gr_admin_describe_share_groups(gr_admin_t *a, const char *const *groups, size_t n, int timeout_ms,
                                        gr_admin_result_t **res) {
    return gr__admin_per_group(a, groups, n, timeout_ms, sg_cols, describe_one_share_group, res);
}

/* ---- share-group offsets ---- */

static const char *const sgo_cols[] = {"group", "topic",         "partition", "start_offset", "leader_epoch", "lag",
                                       "error", "error_message", NULL};

/* Topics with all their partitions, from metadata (DescribeShareGroupOffsets names partitions). */
static gr_err_t topic_partitions(gr_admin_t *a, const char *const *topics, size_t n, int64_t deadline, gr_arena_t *ar,
                                 gr_DescribeShareGroupOffsetsRequest_DescribeShareGroupOffsetsRequestGroup_t *g) {
    gr_admin_result_t *d = NULL;
    gr_err_t err = gr_admin_describe_topics(a, topics, n, (int)(deadline - gr__client_tick(a->cl)), &d);
    if (err) {
        gr_admin_result_destroy(d);
        return err;
    }
    g->Topics.n = (int32_t)n;
    g->Topics.v =
        gr_struct_alloc(ar, &gr_DescribeShareGroupOffsetsRequest_DescribeShareGroupOffsetsRequestTopic_sd, (int32_t)n);
    for (size_t i = 0; i < n; i++) {
        g->Topics.v[i].TopicName = gr_str_c(topics[i]);
        g->Topics.v[i].Partitions.v = gr_arena_alloc(ar, gr_admin_result_rows(d) * sizeof(int32_t) + 4);
        for (size_t row = 0; row < gr_admin_result_rows(d); row++)
            if (!strcmp(gr_admin_result_str(d, row, "topic"), topics[i]))
                g->Topics.v[i].Partitions.v[g->Topics.v[i].Partitions.n++] =
                    (int32_t)gr_admin_result_int(d, row, "partition", 0);
    }
    gr_admin_result_destroy(d);
    return GR_ERR_NONE;
}

static void sgo_rows(gr_admin_result_t *r,
                     const gr_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseGroup_t *g) {
    if (g->ErrorCode) {
        size_t row = gr__result_add_row(r);
        gr__result_set_str(r, row, "group", g->GroupId);
        gr__result_set_error(r, row, g->ErrorCode, g->ErrorMessage);
        return;
    }
    for (int32_t t = 0; t < g->Topics.n; t++) {
        const gr_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponseTopic_t *tp = &g->Topics.v[t];
        for (int32_t p = 0; p < tp->Partitions.n; p++) {
            const gr_DescribeShareGroupOffsetsResponse_DescribeShareGroupOffsetsResponsePartition_t *pp =
                &tp->Partitions.v[p];
            size_t row = gr__result_add_row(r);
            gr__result_set_str(r, row, "group", g->GroupId);
            gr__result_set_str(r, row, "topic", tp->TopicName);
            gr__result_set_int(r, row, "partition", pp->PartitionIndex);
            gr__result_set_int(r, row, "start_offset", pp->StartOffset);
            gr__result_set_int(r, row, "leader_epoch", pp->LeaderEpoch);
            gr__result_set_int(r, row, "lag", pp->Lag);
            gr__result_set_error(r, row, pp->ErrorCode, pp->ErrorMessage);
        }
    }
}

gr_err_t gr_admin_describe_share_group_offsets(gr_admin_t *a, const char *group, const char *const *topics, size_t n,
                                               int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    if (!group) return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf), "no group given");
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_DescribeShareGroupOffsetsRequest_t rq;
    gr_struct_init(&gr_DescribeShareGroupOffsetsRequest_sd, &rq);
    rq.Groups.n = 1;
    rq.Groups.v =
        gr_struct_alloc(&ar, &gr_DescribeShareGroupOffsetsRequest_DescribeShareGroupOffsetsRequestGroup_sd, 1);
    rq.Groups.v[0].GroupId = gr_str_c(group);
    rq.Groups.v[0].Topics.n = -1; /* every topic */
    int32_t node;
    gr_err_t err = n ? topic_partitions(a, topics, n, deadline, &ar, &rq.Groups.v[0]) : GR_ERR_NONE;
    if (!err) err = gr__admin_coordinator(a, group, deadline, &node);
    void *resp;
    int16_t ver;
    if (!err) err = CALL(a, node, GR_API_DescribeShareGroupOffsets, &rq, deadline, &ar, &resp, &ver);
    if (!err) {
        const gr_DescribeShareGroupOffsetsResponse_t *rs = resp;
        *res = gr__result_new(sgo_cols);
        for (int32_t i = 0; i < rs->Groups.n; i++) sgo_rows(*res, &rs->Groups.v[i]);
        err = gr__result_first_error(*res, "group", a->errbuf, sizeof(a->errbuf));
    }
    gr_arena_free(&ar);
    return err;
}

static const char *const part_cols[] = {"topic", "partition", "error", "error_message", NULL};

gr_err_t gr_admin_alter_share_group_offsets(gr_admin_t *a, const char *group, const char *topic,
                                            const int32_t *partitions, const int64_t *offsets, size_t n, int timeout_ms,
                                            gr_admin_result_t **res) {
    *res = NULL;
    if (!group || !topic || !n || !partitions || !offsets)
        return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf), "group, topic and partitions must be given");
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    int32_t node;
    gr_err_t err = gr__admin_coordinator(a, group, deadline, &node);
    if (err) return err;
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_AlterShareGroupOffsetsRequest_t rq;
    gr_struct_init(&gr_AlterShareGroupOffsetsRequest_sd, &rq);
    rq.GroupId = gr_str_c(group);
    rq.Topics.n = 1;
    rq.Topics.v = gr_struct_alloc(&ar, &gr_AlterShareGroupOffsetsRequest_AlterShareGroupOffsetsRequestTopic_sd, 1);
    rq.Topics.v[0].TopicName = gr_str_c(topic);
    rq.Topics.v[0].Partitions.n = (int32_t)n;
    rq.Topics.v[0].Partitions.v =
        gr_struct_alloc(&ar, &gr_AlterShareGroupOffsetsRequest_AlterShareGroupOffsetsRequestPartition_sd, (int32_t)n);
    for (size_t i = 0; i < n; i++) {
        rq.Topics.v[0].Partitions.v[i].PartitionIndex = partitions[i];
        rq.Topics.v[0].Partitions.v[i].StartOffset = offsets[i];
    }
    void *resp;
    int16_t ver;
    err = CALL(a, node, GR_API_AlterShareGroupOffsets, &rq, deadline, &ar, &resp, &ver);
    if (!err) {
        const gr_AlterShareGroupOffsetsResponse_t *rs = resp;
        gr_admin_result_t *r = *res = gr__result_new(part_cols);
        for (int32_t t = 0; t < rs->Responses.n; t++)
            for (int32_t p = 0; p < rs->Responses.v[t].Partitions.n; p++) {
                size_t row = gr__result_add_row(r);
                gr__result_set_str(r, row, "topic", rs->Responses.v[t].TopicName);
                gr__result_set_int(r, row, "partition", rs->Responses.v[t].Partitions.v[p].PartitionIndex);
                gr__result_set_error(r, row, rs->Responses.v[t].Partitions.v[p].ErrorCode,
                                     rs->Responses.v[t].Partitions.v[p].ErrorMessage);
            }
        if (rs->ErrorCode)
            err = gr__fmt((gr_err_t)rs->ErrorCode, a->errbuf, sizeof(a->errbuf), "group %s: %.*s", group,
                          rs->ErrorMessage.len > 0 ? rs->ErrorMessage.len : 0, rs->ErrorMessage.ptr);
        else
            err = gr__result_first_error(r, "topic", a->errbuf, sizeof(a->errbuf));
    }
    gr_arena_free(&ar);
    return err;
}

static const char *const topic_cols[] = {"topic", "error", "error_message", NULL};

gr_err_t gr_admin_delete_share_group_offsets(gr_admin_t *a, const char *group, const char *const *topics, size_t n,
                                             int timeout_ms, gr_admin_result_t **res) {
    *res = NULL;
    if (!group || !topics || !n)
        return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf), "group and topics must be given");
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    int32_t node;
    gr_err_t err = gr__admin_coordinator(a, group, deadline, &node);
    if (err) return err;
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_DeleteShareGroupOffsetsRequest_t rq;
    gr_struct_init(&gr_DeleteShareGroupOffsetsRequest_sd, &rq);
    rq.GroupId = gr_str_c(group);
    rq.Topics.n = (int32_t)n;
    rq.Topics.v =
        gr_struct_alloc(&ar, &gr_DeleteShareGroupOffsetsRequest_DeleteShareGroupOffsetsRequestTopic_sd, (int32_t)n);
    for (size_t i = 0; i < n; i++) rq.Topics.v[i].TopicName = gr_str_c(topics[i]);
    void *resp;
    int16_t ver;
    err = CALL(a, node, GR_API_DeleteShareGroupOffsets, &rq, deadline, &ar, &resp, &ver);
    if (!err) {
        const gr_DeleteShareGroupOffsetsResponse_t *rs = resp;
        gr_admin_result_t *r = *res = gr__result_new(topic_cols);
        for (int32_t t = 0; t < rs->Responses.n; t++) {
            size_t row = gr__result_add_row(r);
            gr__result_set_str(r, row, "topic", rs->Responses.v[t].TopicName);
            gr__result_set_error(r, row, rs->Responses.v[t].ErrorCode, rs->Responses.v[t].ErrorMessage);
        }
        if (rs->ErrorCode)
            err = gr__fmt((gr_err_t)rs->ErrorCode, a->errbuf, sizeof(a->errbuf), "group %s: %s", group,
                          gr_err_str((gr_err_t)rs->ErrorCode));
        else
            err = gr__result_first_error(r, "topic", a->errbuf, sizeof(a->errbuf));
    }
    gr_arena_free(&ar);
    return err;
}

/* ---- delete groups ---- */

static const char *const group_cols[] = {"group", "error", "error_message", NULL};

gr_err_t gr_admin_delete_groups(gr_admin_t *a, const char *const *groups, size_t n, int timeout_ms,
                                gr_admin_result_t **res) {
    *res = NULL;
    if (!groups || !n) return gr__fmt(GR_ERR__INVALID_ARG, a->errbuf, sizeof(a->errbuf), "no group given");
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_admin_result_t *r = gr__result_new(group_cols);
    gr_err_t err = GR_ERR_NONE;
    for (size_t i = 0; !err && i < n; i++) {
        int32_t node;
        if ((err = gr__admin_coordinator(a, groups[i], deadline, &node))) break;
        gr_arena_t ar;
        gr_arena_init(&ar);
        gr_DeleteGroupsRequest_t rq;
        gr_struct_init(&gr_DeleteGroupsRequest_sd, &rq);
        rq.GroupsNames.n = 1;
        rq.GroupsNames.v = gr_arena_alloc(&ar, sizeof(gr_str_t));
        rq.GroupsNames.v[0] = gr_str_c(groups[i]);
        void *resp;
        int16_t ver;
        err = CALL(a, node, GR_API_DeleteGroups, &rq, deadline, &ar, &resp, &ver);
        const gr_DeleteGroupsResponse_t *rs = resp;
        for (int32_t k = 0; !err && k < rs->Results.n; k++) {
            size_t row = gr__result_add_row(r);
            gr__result_set_str(r, row, "group", rs->Results.v[k].GroupId);
            gr__result_set_error(r, row, rs->Results.v[k].ErrorCode, rs->Results.v[k].ErrorMessage);
        }
        gr_arena_free(&ar);
    }
    if (err) {
        gr_admin_result_destroy(r);
        return err;
    }
    *res = r;
    return gr__result_first_error(r, "group", a->errbuf, sizeof(a->errbuf));
}
