/* The admin client: consumer groups (listing and describing). ListGroups goes to
 * every broker; describing a group goes to its coordinator: ConsumerGroupDescribe for
 * KIP-848 groups, DescribeGroups for classic groups (a GROUP_ID_NOT_FOUND answer of
 * ConsumerGroupDescribe, or a broker without that API), as Kafka's Admin client does.
 * The committed offsets are in admin_coffsets.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/admin_int.h"
#include "proto_msgs.h"

#define CALL(a, node, api, rq, deadline, ar, resp, ver) \
    gr__client_call((a)->cl, node, api, rq, deadline, ar, resp, ver, (a)->errbuf, sizeof((a)->errbuf))

/* ---- list ---- */

static const char *const list_cols[] = {"group", "type", "state", "protocol_type", NULL};

/* Whether s is one of the comma-separated items of list (case-insensitive); NULL list: yes. */
static bool in_list(const char *list, gr_str_t s) {
    if (!list || !*list) return true;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if ((int32_t)n == s.len && !strncasecmp(p, s.ptr, n)) return true;
        p += n;
        if (*p) p++;
    }
    return false;
}

/* The items of a comma-separated list as wire strings (pointing into list). */
static void str_array(gr_arena_t *ar, const char *list, gr_str_t **v, int32_t *n) {
    size_t cnt = 0;
    for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 1 : 0)) cnt++;
    *v = gr_arena_alloc(ar, (cnt ? cnt : 1) * sizeof(gr_str_t));
    *n = 0;
    for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 1 : 0))
        (*v)[(*n)++] = (gr_str_t){p, (int32_t)strcspn(p, ",")};
}

static gr_err_t list_on(gr_admin_t *a, int32_t node, const char *types, const char *states, int64_t deadline,
                        gr_admin_result_t *r) {
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_ListGroupsRequest_t rq;
    gr_struct_init(&gr_ListGroupsRequest_sd, &rq);
    str_array(&ar, types, &rq.TypesFilter.v, &rq.TypesFilter.n);
    str_array(&ar, states, &rq.StatesFilter.v, &rq.StatesFilter.n);
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
            gr_str_t type = ver >= 5 ? g->GroupType : GR_STR("classic");
            gr_str_t state = ver >= 4 ? g->GroupState : GR_STR_NULL;
            if (g->ProtocolType.len > 0 && !in_list("consumer", g->ProtocolType)) continue;
            if (!in_list(types, type) || (state.len >= 0 && !in_list(states, state))) continue;
            size_t row = gr__result_add_row(r);
            gr__result_set_str(r, row, "group", g->GroupId);
            gr__result_set_str(r, row, "type", type);
            gr__result_set_str(r, row, "state", state);
            gr__result_set_str(r, row, "protocol_type", g->ProtocolType);
        }
    }
    gr_arena_free(&ar);
    return err;
}

gr_err_t gr_admin_list_consumer_groups(gr_admin_t *a, const char *types, const char *states, int timeout_ms,
                                       gr_admin_result_t **res) {
    *res = NULL;
    int64_t deadline = gr__admin_deadline(a, timeout_ms);
    gr_err_t err = gr__admin_learn_brokers(a, deadline);
    if (err) return err;
    int32_t ids[256];
    size_t n = gr__client_brokers(a->cl, ids, 256);
    gr_admin_result_t *r = gr__result_new(list_cols);
    if (!types) types = "classic,consumer";
    for (size_t i = 0; !err && i < n; i++) err = list_on(a, ids[i], types, states, deadline, r);
    if (err) {
        gr_admin_result_destroy(r);
        return err;
    }
    *res = r;
    return GR_ERR_NONE;
}

/* ---- describe ---- */

static const char *const cg_cols[] = {"group",
                                      "type",
                                      "state",
                                      "protocol_type",
                                      "assignor",
                                      "group_epoch",
                                      "assignment_epoch",
                                      "coordinator_id",
                                      "coordinator",
                                      "member_id",
                                      "instance_id",
                                      "client_id",
                                      "client_host",
                                      "member_epoch",
                                      "member_type",
                                      "partitions",
                                      "assignment",
                                      "target_assignment",
                                      "error",
                                      "error_message",
                                      NULL};

typedef struct cg_coord {
    int32_t id;
    const char *name; /* "host:port", or NULL */
} cg_coord_t;

/* One topic's partitions of an assignment, for formatting. */
typedef struct tparts {
    gr_str_t topic;
    const int32_t *parts;
    int32_t n;
} tparts_t;

static int cmp_i32(const void *x, const void *y) {
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return a < b ? -1 : a > b;
}

static int cmp_tparts(const void *x, const void *y) {
    const tparts_t *a = x, *b = y;
    int32_t n = a->topic.len < b->topic.len ? a->topic.len : b->topic.len;
    int c = n > 0 ? memcmp(a->topic.ptr, b->topic.ptr, (size_t)n) : 0;
    return c ? c : (a->topic.len > b->topic.len) - (a->topic.len < b->topic.len);
}

/* "t:0,1;u:3" (topics sorted, partitions ascending) into the arena; *count the partitions. */
static const char *format_assignment(gr_arena_t *ar, tparts_t *tp, size_t nt, int64_t *count) {
    size_t len = 1;
    *count = 0;
    for (size_t i = 0; i < nt; i++)
        len += (size_t)(tp[i].topic.len > 0 ? tp[i].topic.len : 0) + 2 + 12 * (size_t)tp[i].n;
    char *s = gr_arena_alloc(ar, len), *o = s;
    qsort(tp, nt, sizeof(*tp), cmp_tparts);
    for (size_t i = 0; i < nt; i++) {
        if (tp[i].n <= 0) continue;
        int32_t *p = gr_arena_alloc(ar, (size_t)tp[i].n * sizeof(int32_t));
        memcpy(p, tp[i].parts, (size_t)tp[i].n * sizeof(int32_t));
        qsort(p, (size_t)tp[i].n, sizeof(int32_t), cmp_i32);
        o += sprintf(o, "%s%.*s:", o == s ? "" : ";", tp[i].topic.len, tp[i].topic.ptr);
        for (int32_t k = 0; k < tp[i].n; k++) o += sprintf(o, "%s%d", k ? "," : "", p[k]);
        *count += tp[i].n;
    }
    *o = 0;
    return s;
}

static const char *kip848_assignment(gr_arena_t *ar, const gr_ConsumerGroupDescribeResponse_Assignment_t *as,
                                     int64_t *count) {
    int32_t nt = as ? as->TopicPartitions.n : 0;
    tparts_t *tp = gr_arena_alloc(ar, (size_t)(nt > 0 ? nt : 1) * sizeof(*tp));
    for (int32_t i = 0; i < nt; i++)
        tp[i] = (tparts_t){as->TopicPartitions.v[i].TopicName, as->TopicPartitions.v[i].Partitions.v,
                           as->TopicPartitions.v[i].Partitions.n};
    return format_assignment(ar, tp, nt > 0 ? (size_t)nt : 0, count);
}

/* A ConsumerProtocol Assignment (version int16, [topic string, [partition int32]],
 * user data bytes): the text form, or NULL if malformed. */
static const char *classic_assignment(gr_arena_t *ar, gr_bytes_t b, int64_t *count) {
    *count = 0;
    if (b.len <= 0) return "";
    const uint8_t *p = b.ptr, *end = b.ptr + b.len;
#define NEED(k) \
    if (end - p < (k)) return NULL
    NEED(6);
    p += 2; /* version */
    int32_t nt = (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
    p += 4;
    if (nt < 0 || nt > (end - p) / 6) return NULL;
    tparts_t *tp = gr_arena_alloc(ar, (size_t)(nt ? nt : 1) * sizeof(*tp));
    for (int32_t i = 0; i < nt; i++) {
        NEED(2);
        int32_t sl = (int32_t)((uint32_t)p[0] << 8 | p[1]);
        p += 2;
        NEED(sl + 4);
        tp[i].topic = (gr_str_t){(const char *)p, sl};
        p += sl;
        int32_t np = (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
        p += 4;
        if (np < 0 || np > (end - p) / 4) return NULL;
        int32_t *parts = gr_arena_alloc(ar, (size_t)(np ? np : 1) * sizeof(int32_t));
        for (int32_t k = 0; k < np; k++, p += 4)
            parts[k] = (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
        tp[i].parts = parts;
        tp[i].n = np;
    }
#undef NEED
    return format_assignment(ar, tp, (size_t)nt, count);
}

static size_t group_row(gr_admin_result_t *r, gr_str_t group, const char *type, const cg_coord_t *co) {
    size_t row = gr__result_add_row(r);
    gr__result_set_str(r, row, "group", group);
    gr__result_set_cstr(r, row, "type", type);
    gr__result_set_int(r, row, "coordinator_id", co->id);
    gr__result_set_cstr(r, row, "coordinator", co->name);
    gr__result_set_error(r, row, 0, GR_STR_NULL);
    return row;
}

static void kip848_rows(gr_admin_result_t *r, gr_arena_t *ar,
                        const gr_ConsumerGroupDescribeResponse_DescribedGroup_t *g, const cg_coord_t *co) {
    for (int32_t i = 0; i < (g->Members.n > 0 ? g->Members.n : 1); i++) {
        size_t row = group_row(r, g->GroupId, "consumer", co);
        gr__result_set_str(r, row, "state", g->GroupState);
        gr__result_set_cstr(r, row, "protocol_type", "consumer");
        gr__result_set_str(r, row, "assignor", g->AssignorName);
        gr__result_set_int(r, row, "group_epoch", g->GroupEpoch);
        gr__result_set_int(r, row, "assignment_epoch", g->AssignmentEpoch);
        if (g->Members.n <= 0) break;
        const gr_ConsumerGroupDescribeResponse_Member_t *m = &g->Members.v[i];
        int64_t n, nt;
        gr__result_set_str(r, row, "member_id", m->MemberId);
        gr__result_set_str(r, row, "instance_id", m->InstanceId);
        gr__result_set_str(r, row, "client_id", m->ClientId);
        gr__result_set_str(r, row, "client_host", m->ClientHost);
        gr__result_set_int(r, row, "member_epoch", m->MemberEpoch);
        gr__result_set_int(r, row, "member_type", m->MemberType);
        gr__result_set_cstr(r, row, "assignment", kip848_assignment(ar, m->Assignment, &n));
        gr__result_set_int(r, row, "partitions", n);
        gr__result_set_cstr(r, row, "target_assignment", kip848_assignment(ar, m->TargetAssignment, &nt));
    }
}

static void classic_rows(gr_admin_result_t *r, gr_arena_t *ar, const gr_DescribeGroupsResponse_DescribedGroup_t *g,
                         const cg_coord_t *co) {
    gr_str_t pt = g->ProtocolType;
    if (pt.len > 0 && !(pt.len == 8 && !memcmp(pt.ptr, "consumer", 8))) {
        size_t row = group_row(r, g->GroupId, "classic", co);
        char msg[512];
        snprintf(msg, sizeof(msg), "GroupId %.*s is not a consumer group (%.*s).", g->GroupId.len, g->GroupId.ptr,
                 pt.len, pt.ptr);
        gr__result_set_error(r, row, GR_ERR_INVALID_GROUP_ID, gr_str_c(msg));
        return;
    }
    for (int32_t i = 0; i < (g->Members.n > 0 ? g->Members.n : 1); i++) {
        size_t row = group_row(r, g->GroupId, "classic", co);
        gr__result_set_str(r, row, "state", g->GroupState);
        gr__result_set_str(r, row, "protocol_type", pt);
        gr__result_set_str(r, row, "assignor", g->ProtocolData);
        gr__result_set_int(r, row, "group_epoch", -1);
        gr__result_set_int(r, row, "assignment_epoch", -1);
        if (g->Members.n <= 0) break;
        const gr_DescribeGroupsResponse_DescribedGroupMember_t *m = &g->Members.v[i];
        int64_t n;
        const char *as = classic_assignment(ar, m->MemberAssignment, &n);
        gr__result_set_str(r, row, "member_id", m->MemberId);
        gr__result_set_str(r, row, "instance_id", m->GroupInstanceId);
        gr__result_set_str(r, row, "client_id", m->ClientId);
        gr__result_set_str(r, row, "client_host", m->ClientHost);
        gr__result_set_int(r, row, "member_type", -1);
        gr__result_set_cstr(r, row, "assignment", as ? as : "");
        gr__result_set_int(r, row, "partitions", as ? n : 0);
    }
}

static bool coord_retriable(int16_t code) {
    return code == GR_ERR_COORDINATOR_LOAD_IN_PROGRESS || code == GR_ERR_COORDINATOR_NOT_AVAILABLE ||
           code == GR_ERR_NOT_COORDINATOR;
}

/* Back off 100 ms (servicing the connections) if there is time left. */
static bool backoff(gr_admin_t *a, int64_t deadline) {
    if (gr__client_tick(a->cl) + 100 >= deadline) return false;
    gr__client_io(a->cl, 100);
    return true;
}

/* ConsumerGroupDescribe; *classic set when the group must be described the classic way. */
static gr_err_t describe_kip848(gr_admin_t *a, const char *group, int32_t node, const cg_coord_t *co, int64_t deadline,
                                gr_admin_result_t *r, bool *classic, bool *retry) {
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_ConsumerGroupDescribeRequest_t rq;
    gr_struct_init(&gr_ConsumerGroupDescribeRequest_sd, &rq);
    rq.GroupIds.n = 1;
    rq.GroupIds.v = gr_arena_alloc(&ar, sizeof(gr_str_t));
    rq.GroupIds.v[0] = gr_str_c(group);
    void *resp;
    int16_t ver;
    gr_err_t err = CALL(a, node, GR_API_ConsumerGroupDescribe, &rq, deadline, &ar, &resp, &ver);
    *classic = *retry = false;
    if (err == GR_ERR_UNSUPPORTED_VERSION) {
        *classic = true;
        err = GR_ERR_NONE;
    } else if (!err) {
        const gr_ConsumerGroupDescribeResponse_t *rs = resp;
        for (int32_t i = 0; i < rs->Groups.n; i++) {
            const gr_ConsumerGroupDescribeResponse_DescribedGroup_t *g = &rs->Groups.v[i];
            if (g->ErrorCode == GR_ERR_GROUP_ID_NOT_FOUND) {
                *classic = true;
            } else if (coord_retriable(g->ErrorCode)) {
                *retry = true;
            } else if (g->ErrorCode) {
                size_t row = group_row(r, g->GroupId, "consumer", co);
                gr__result_set_error(r, row, g->ErrorCode, g->ErrorMessage);
            } else {
                kip848_rows(r, &ar, g, co);
            }
        }
    }
    gr_arena_free(&ar);
    return err;
}

static gr_err_t describe_classic(gr_admin_t *a, const char *group, int32_t node, const cg_coord_t *co, int64_t deadline,
                                 gr_admin_result_t *r, bool *retry) {
    gr_arena_t ar;
    gr_arena_init(&ar);
    gr_DescribeGroupsRequest_t rq;
    gr_struct_init(&gr_DescribeGroupsRequest_sd, &rq);
    rq.Groups.n = 1;
    rq.Groups.v = gr_arena_alloc(&ar, sizeof(gr_str_t));
    rq.Groups.v[0] = gr_str_c(group);
    void *resp;
    int16_t ver;
    gr_err_t err = CALL(a, node, GR_API_DescribeGroups, &rq, deadline, &ar, &resp, &ver);
    *retry = false;
    if (!err) {
        const gr_DescribeGroupsResponse_t *rs = resp;
        for (int32_t i = 0; i < rs->Groups.n; i++) {
            const gr_DescribeGroupsResponse_DescribedGroup_t *g = &rs->Groups.v[i];
            if (coord_retriable(g->ErrorCode)) {
                *retry = true;
            } else if (g->ErrorCode) {
                size_t row = group_row(r, g->GroupId, "classic", co);
                gr__result_set_error(r, row, g->ErrorCode, g->ErrorMessage);
            } else {
                classic_rows(r, &ar, g, co);
            }
        }
    }
    gr_arena_free(&ar);
    return err;
}

static gr_err_t describe_one(gr_admin_t *a, const char *group, int64_t deadline, gr_admin_result_t *r) {
    for (;;) {
        int32_t node;
        gr_err_t err = gr__admin_coordinator(a, group, deadline, &node);
        if (err) return err;
        gr__node_t *cn = gr__client_node(a->cl, node);
        cg_coord_t co = {node, cn ? gr__node_name(cn) : NULL};
        bool classic, retry;
        err = describe_kip848(a, group, node, &co, deadline, r, &classic, &retry);
        if (!err && classic) err = describe_classic(a, group, node, &co, deadline, r, &retry);
        if (err || !retry) return err;
        if (!backoff(a, deadline))
            return gr__fmt(GR_ERR__TIMED_OUT, a->errbuf, sizeof(a->errbuf),
                           "describing group %s: the coordinator is not available", group);
    }
}

gr_err_t gr_admin_describe_consumer_groups(gr_admin_t *a, const char *const *groups, size_t n, int timeout_ms,
                                           gr_admin_result_t **res) {
    return gr__admin_per_group(a, groups, n, timeout_ms, cg_cols, describe_one, res);
}
