/* libgregor's transactional producer, its pure decisions (src/client/txn_rules.c):
 *  - transaction version 2 only with transaction.version >= 2 finalized and the coordinator
 *    offering Produce v12+, EndTxn v5+ and TxnOffsetCommit v5+;
 *  - version 1 keeps Produce <= v11, EndTxn and TxnOffsetCommit <= v4; version 2 caps nothing;
 *  - errors: fatal (fenced, authorization, unexpected EndTxn codes, INVALID_TXN_STATE) versus
 *    abortable (TRANSACTION_ABORTABLE, UNKNOWN_PRODUCER_ID, local timeouts), as Java's
 *    TransactionManager decides; INVALID_PRODUCER_EPOCH is reported as PRODUCER_FENCED. */
#include "client/txn_rules.h"

#include "proto_msgs.h"
#include "testutil.h"

static void test_v2_choice(void) {
    gr__txn_caps_t c = {2, 12, 5, 5};
    ASSERT(gr__txn_v2_usable(&c));
    c.feature = 3; /* a later version still includes version 2's protocol */
    ASSERT(gr__txn_v2_usable(&c));
    c.feature = 1; /* finalized at 1: the node was downgraded */
    ASSERT(!gr__txn_v2_usable(&c));
    c.feature = 0; /* not finalized */
    ASSERT(!gr__txn_v2_usable(&c));
    c.feature = -1; /* a broker without finalized features (ApiVersions < v3, old broker) */
    ASSERT(!gr__txn_v2_usable(&c));
    gr__txn_caps_t old_produce = {2, 11, 5, 5}, old_end = {2, 12, 4, 5}, old_toc = {2, 12, 5, 4};
    ASSERT(!gr__txn_v2_usable(&old_produce));
    ASSERT(!gr__txn_v2_usable(&old_end));
    ASSERT(!gr__txn_v2_usable(&old_toc));
}

static void test_version_caps(void) {
    ASSERT_EQ(gr__txn_max_version(false, GR_API_Produce), 11);
    ASSERT_EQ(gr__txn_max_version(false, GR_API_EndTxn), 4);
    ASSERT_EQ(gr__txn_max_version(false, GR_API_TxnOffsetCommit), 4);
    ASSERT_EQ(gr__txn_max_version(false, GR_API_InitProducerId), -1);
    ASSERT_EQ(gr__txn_max_version(false, GR_API_AddOffsetsToTxn), -1);
    ASSERT_EQ(gr__txn_max_version(true, GR_API_Produce), -1);
    ASSERT_EQ(gr__txn_max_version(true, GR_API_EndTxn), -1);
    ASSERT_EQ(gr__txn_max_version(true, GR_API_TxnOffsetCommit), -1);
}

static void test_errors(void) {
    ASSERT(gr__txn_fatal_code(GR_ERR_PRODUCER_FENCED));
    ASSERT(gr__txn_fatal_code(GR_ERR_INVALID_PRODUCER_EPOCH));
    ASSERT(gr__txn_fatal_code(GR_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
    ASSERT(gr__txn_fatal_code(GR_ERR_CLUSTER_AUTHORIZATION_FAILED));
    ASSERT(!gr__txn_fatal_code(GR_ERR_TRANSACTION_ABORTABLE));
    ASSERT(!gr__txn_fatal_code(GR_ERR_INVALID_TXN_STATE)); /* a batch's: the transaction aborts */
    ASSERT(!gr__txn_fatal_code(GR_ERR_CONCURRENT_TRANSACTIONS));

    ASSERT_EQ(gr__txn_end_outcome(GR_ERR_TRANSACTION_ABORTABLE), GR__TXN_ABORTABLE);
    ASSERT_EQ(gr__txn_end_outcome(GR_ERR_UNKNOWN_PRODUCER_ID), GR__TXN_ABORTABLE);
    ASSERT_EQ(gr__txn_end_outcome(GR_ERR__TIMED_OUT), GR__TXN_ABORTABLE);
    ASSERT_EQ(gr__txn_end_outcome(GR_ERR__TRANSPORT), GR__TXN_ABORTABLE);
    ASSERT_EQ(gr__txn_end_outcome(GR_ERR_CONCURRENT_TRANSACTIONS), GR__TXN_ABORTABLE); /* past the deadline */
    ASSERT_EQ(gr__txn_end_outcome(GR_ERR_PRODUCER_FENCED), GR__TXN_FATAL);
    ASSERT_EQ(gr__txn_end_outcome(GR_ERR_INVALID_PRODUCER_EPOCH), GR__TXN_FATAL);
    ASSERT_EQ(gr__txn_end_outcome(GR_ERR_INVALID_TXN_STATE), GR__TXN_FATAL);
    ASSERT_EQ(gr__txn_end_outcome(GR_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED), GR__TXN_FATAL);
    ASSERT_EQ(gr__txn_end_outcome(GR_ERR_INVALID_PRODUCER_ID_MAPPING), GR__TXN_FATAL);
    ASSERT_EQ(gr__txn_end_outcome(GR_ERR_UNKNOWN_SERVER_ERROR), GR__TXN_FATAL); /* Kafka's -1 */

    ASSERT_EQ(gr__txn_reported_code(GR_ERR_INVALID_PRODUCER_EPOCH), GR_ERR_PRODUCER_FENCED);
    ASSERT_EQ(gr__txn_reported_code(GR_ERR_PRODUCER_FENCED), GR_ERR_PRODUCER_FENCED);
    ASSERT_EQ(gr__txn_reported_code(GR_ERR_TRANSACTION_ABORTABLE), GR_ERR_TRANSACTION_ABORTABLE);
}

int main(void) {
    RUN_TEST(test_v2_choice);
    RUN_TEST(test_version_caps);
    RUN_TEST(test_errors);
    return 0;
}
