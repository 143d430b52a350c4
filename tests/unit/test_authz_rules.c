/* The authorization decision table (src/auth/authz_rules.c): every check is filled in,
 * the operation is one the resource type supports, the error matches the resource type
 * (with Kafka's exceptions), and the rows of the classic-group, offset, SCRAM, feature and
 * follower-fetch checks are Kafka 4.4.0's. */
#include "auth/authz_rules.h"
#include "testutil.h"

/* The error Kafka answers a denial on a resource type with. */
static gr_err_t natural_error(int8_t rtype) {
    switch (rtype) {
    case GR_ACL_RT_TOPIC: return GR_ERR_TOPIC_AUTHORIZATION_FAILED;
    case GR_ACL_RT_GROUP: return GR_ERR_GROUP_AUTHORIZATION_FAILED;
    case GR_ACL_RT_CLUSTER: return GR_ERR_CLUSTER_AUTHORIZATION_FAILED;
    default: return GR_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    }
}

static void test_every_row(void) {
    for (int c = 0; c < GR_AZ_N; c++) {
        const gr_az_rule_t *r = gr_az_rule((gr_az_t)c);
        ASSERT(r->op >= GR_ACL_OP_READ && r->op < GR_ACL_OP_N);
        ASSERT(r->rtype >= GR_ACL_RT_TOPIC && r->rtype <= GR_ACL_RT_TRANSACTIONAL_ID);
        /* Kafka's controller asks DELETE on the cluster (DeleteTopics), an operation the
         * cluster's authorized-operations list does not have. */
        if (r->rtype != GR_ACL_RT_TRANSACTIONAL_ID && c != GR_AZ_DELETE_TOPICS_CLUSTER)
            ASSERT(gr_az_supported_ops(r->rtype) & (1 << r->op));
        /* Kafka's exceptions: cluster-level checks that answer per topic, and the
         * filtering checks that answer nothing. */
        bool exception = c == GR_AZ_AUTO_CREATE_CLUSTER || c == GR_AZ_CREATE_TOPICS_CLUSTER ||
                         c == GR_AZ_DELETE_TOPICS_CLUSTER || c == GR_AZ_FETCH_FOLLOWER || r->err == GR_ERR_NONE;
        if (!exception) ASSERT_EQ(r->err, natural_error(r->rtype));
    }
}

static void expect(gr_az_t c, int16_t api, int8_t op, int8_t rtype, gr_err_t err) {
    const gr_az_rule_t *r = gr_az_rule(c);
    ASSERT_EQ(r->api_key, api);
    ASSERT_EQ(r->op, op);
    ASSERT_EQ(r->rtype, rtype);
    ASSERT_EQ(r->err, err);
}

static void test_kafka_rows(void) {
    const gr_err_t T = GR_ERR_TOPIC_AUTHORIZATION_FAILED, G = GR_ERR_GROUP_AUTHORIZATION_FAILED,
                   C = GR_ERR_CLUSTER_AUTHORIZATION_FAILED;
    expect(GR_AZ_FETCH_FOLLOWER, 1, GR_ACL_OP_CLUSTER_ACTION, GR_ACL_RT_CLUSTER, T);
    expect(GR_AZ_OFFSET_COMMIT, 8, GR_ACL_OP_READ, GR_ACL_RT_GROUP, G);
    expect(GR_AZ_OFFSET_COMMIT_TOPIC, 8, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, T);
    expect(GR_AZ_OFFSET_FETCH, 9, GR_ACL_OP_DESCRIBE, GR_ACL_RT_GROUP, G);
    expect(GR_AZ_OFFSET_FETCH_TOPIC, 9, GR_ACL_OP_DESCRIBE, GR_ACL_RT_TOPIC, T);
    expect(GR_AZ_JOIN_GROUP, 11, GR_ACL_OP_READ, GR_ACL_RT_GROUP, G);
    expect(GR_AZ_HEARTBEAT, 12, GR_ACL_OP_READ, GR_ACL_RT_GROUP, G);
    expect(GR_AZ_LEAVE_GROUP, 13, GR_ACL_OP_READ, GR_ACL_RT_GROUP, G);
    expect(GR_AZ_SYNC_GROUP, 14, GR_ACL_OP_READ, GR_ACL_RT_GROUP, G);
    expect(GR_AZ_OFFSET_DELETE, 47, GR_ACL_OP_DELETE, GR_ACL_RT_GROUP, G);
    expect(GR_AZ_OFFSET_DELETE_TOPIC, 47, GR_ACL_OP_READ, GR_ACL_RT_TOPIC, T);
    expect(GR_AZ_DESCRIBE_SCRAM, 50, GR_ACL_OP_DESCRIBE, GR_ACL_RT_CLUSTER, C);
    expect(GR_AZ_ALTER_SCRAM, 51, GR_ACL_OP_ALTER, GR_ACL_RT_CLUSTER, C);
    expect(GR_AZ_UPDATE_FEATURES, 57, GR_ACL_OP_ALTER, GR_ACL_RT_CLUSTER, C);
    expect(GR_AZ_DESCRIBE_CLIENT_QUOTAS, 48, GR_ACL_OP_DESCRIBE_CONFIGS, GR_ACL_RT_CLUSTER, C);
    expect(GR_AZ_ALTER_CLIENT_QUOTAS, 49, GR_ACL_OP_ALTER_CONFIGS, GR_ACL_RT_CLUSTER, C);
}

int main(void) {
    test_every_row();
    test_kafka_rows();
    printf("test_authz_rules ok\n");
    return 0;
}
