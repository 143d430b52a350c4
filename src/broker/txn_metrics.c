/* Transaction coordinator metrics (docs/metrics.md, "Transactions"): transactional ids
 * by state, transactions completed since start-up by result, the coordinator's timeout
 * aborts, expired ids, and the transactional offsets pending in consumer groups.
 * Broker-wide series only (no per-id series: ids are unbounded).
 * @locality loop thread. */
#include "broker/broker_int.h"
#include "broker/broker_metrics.h"
#include "broker/cgroup_coord.h"
#include "broker/txn_coord.h"

void gr_broker_collect_txn(gr_broker_t *b, gr_prom_t *p) {
    const struct gr_txn_ctx *c = b->txn;
    uint64_t by_state[GR_TXN_N_STATES] = {0};
    if (c)
        for (gr_txn_t *t = gr_txn_first(&c->reg); t; t = gr_txn_next(&c->reg, t))
            if (t->loaded) by_state[t->m.state]++;
    gr_prom_family(p, "gregor_transactional_ids", GR_PROM_GAUGE,
                   "Transactional ids by the state of their transaction (Kafka: DescribeTransactions' names)");
    for (int st = 0; st < GR_TXN_N_STATES; st++) {
        if (st == GR_TXN_DEAD || st == GR_TXN_PREPARE_EPOCH_FENCE) continue; /* never durable */
        gr_prom_labels_t l;
        gr_prom_labels_init(&l);
        gr_prom_label(&l, "state", gr_txn_state_name(st));
        gr_prom_u64(p, "gregor_transactional_ids", &l, by_state[st]);
    }
    gr_prom_family(p, "gregor_transactions_completed_total", GR_PROM_COUNTER,
                   "Transactions completed (markers written, COMPLETE_* durable) since start-up, by result");
    static const char *const results[2] = {"commit", "abort"};
    for (int i = 0; i < 2; i++) {
        gr_prom_labels_t l;
        gr_prom_labels_init(&l);
        gr_prom_label(&l, "result", results[i]);
        gr_prom_u64(p, "gregor_transactions_completed_total", &l, !c ? 0 : i ? c->n_aborted : c->n_committed);
    }
    gr_prom_family(p, "gregor_transactions_timed_out_total", GR_PROM_COUNTER,
                   "Transactions the coordinator aborted because transaction.timeout.ms passed");
    gr_prom_u64(p, "gregor_transactions_timed_out_total", NULL, c ? c->n_timed_out : 0);
    gr_prom_family(p, "gregor_transactional_ids_expired_total", GR_PROM_COUNTER,
                   "Transactional ids removed after transactional.id.expiration.ms");
    gr_prom_u64(p, "gregor_transactional_ids_expired_total", NULL, c ? c->n_expired : 0);
    gr_prom_family(p, "gregor_transaction_produce_add_waits_total", GR_PROM_COUNTER,
                   "Transaction-version-2 produce requests whose partition add waited for the previous "
                   "transaction to complete, by outcome (add.partitions.to.txn.retry.backoff.max.ms)");
    static const char *const outcomes[2] = {"completed", "timed_out"};
    for (int i = 0; i < 2; i++) {
        gr_prom_labels_t l;
        gr_prom_labels_init(&l);
        gr_prom_label(&l, "result", outcomes[i]);
        gr_prom_u64(p, "gregor_transaction_produce_add_waits_total", &l,
                    !c  ? 0
                    : i ? c->n_add_waits_timed_out
                        : c->n_add_waits_done);
    }
    gr_prom_family(p, "gregor_transactional_offsets_pending", GR_PROM_GAUGE,
                   "Offsets committed by TxnOffsetCommit whose transaction has not ended");
    gr_prom_u64(p, "gregor_transactional_offsets_pending", NULL,
                b->cgroup ? (uint64_t)gr_cg_txn_count(b->cgroup->reg) : 0);
}
