/* DescribeProducers (61), v0: the active producers of partitions, as Kafka's
 * KafkaApis.handleDescribeProducersRequest and Partition.activeProducerState.
 *
 * Per topic, in Kafka's order: an invalid name is INVALID_TOPIC_EXCEPTION (with the
 * reason), no READ on the topic TOPIC_AUTHORIZATION_FAILED, a topic the metadata
 * does not know UNKNOWN_TOPIC_OR_PARTITION; those carry Kafka's default message.
 * Then per partition: one that is not hosted is UNKNOWN_TOPIC_OR_PARTITION (no
 * message); else every producer of the partition's producer state with its epoch,
 * last sequence, last timestamp, coordinator epoch and the first offset of its
 * ongoing transaction (-1 when none).
 * @locality loop thread. */
#include <string.h>

#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "broker/producers.h"
#include "proto_msgs.h"

typedef gr_DescribeProducersResponse_PartitionResponse_t dp_part_t;
typedef gr_DescribeProducersResponse_ProducerState_t dp_prod_t;

typedef struct fill {
    dp_prod_t *v;
    int32_t n;
} fill_t;

static void add_one(void *arg, const gr_producer_info_t *in) {
    fill_t *f = arg;
    dp_prod_t *o = &f->v[f->n++];
    o->ProducerId = in->pid;
    o->ProducerEpoch = in->epoch;
    o->LastSequence = in->last_sequence;
    o->LastTimestamp = in->last_timestamp;
    o->CoordinatorEpoch = in->coordinator_epoch;
    o->CurrentTxnStartOffset = in->txn_start_offset;
}

static void describe_partition(gr_req_t *req, gr_partition_t *p, dp_part_t *out) {
    if (!p) {
        out->ErrorCode = GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
        return;
    }
    size_t n = gr_producers_count(p->producers);
    fill_t f = {gr_req_alloc(req, &gr_DescribeProducersResponse_ProducerState_sd, (int32_t)n), 0};
    gr_producers_foreach(p->producers, add_one, &f);
    out->ActiveProducers.v = f.v;
    out->ActiveProducers.n = f.n;
}

/* The topic-level error and its message, or GR_ERR_NONE. */
static gr_err_t topic_error(gr_req_t *req, const char *name, gr_str_t *msg) {
    char why[256];
    if (gr_meta_topic_name_validate(name, why, sizeof(why))) {
        *msg = gr_req_msg(req, "%s", why);
        return GR_ERR_INVALID_TOPIC_EXCEPTION;
    }
    if (gr_req_authz(req, GR_AZ_FETCH, name)) {
        *msg = GR_STR("Topic authorization failed.");
        return GR_ERR_TOPIC_AUTHORIZATION_FAILED;
    }
    if (!gr_meta_topic_find(req->b->meta, name)) {
        *msg = GR_STR("This server does not host this topic-partition.");
        return GR_ERR_UNKNOWN_TOPIC_OR_PARTITION;
    }
    return GR_ERR_NONE;
}

void gr_h_describe_producers(gr_req_t *req) {
    const gr_DescribeProducersRequest_t *rq = req->body;
    gr_DescribeProducersResponse_t *resp = gr_req_resp_new(req);
    int32_t nt = rq->Topics.n > 0 ? rq->Topics.n : 0;
    resp->Topics.v = gr_req_alloc(req, &gr_DescribeProducersResponse_TopicResponse_sd, nt);
    resp->Topics.n = nt;
    for (int32_t t = 0; t < nt; t++) {
        const gr_DescribeProducersRequest_TopicRequest_t *tq = &rq->Topics.v[t];
        gr_DescribeProducersResponse_TopicResponse_t *tr = &resp->Topics.v[t];
        const char *name = gr_req_cstr(req, tq->Name);
        tr->Name = tq->Name;
        gr_str_t msg = GR_STR_NULL;
        gr_err_t err = topic_error(req, name, &msg);
        int32_t np = tq->PartitionIndexes.n > 0 ? tq->PartitionIndexes.n : 0;
        tr->Partitions.v = gr_req_alloc(req, &gr_DescribeProducersResponse_PartitionResponse_sd, np);
        tr->Partitions.n = np;
        for (int32_t i = 0; i < np; i++) {
            dp_part_t *out = &tr->Partitions.v[i];
            out->PartitionIndex = tq->PartitionIndexes.v[i];
            if (err) {
                out->ErrorCode = (int16_t)err;
                out->ErrorMessage = msg;
                continue;
            }
            describe_partition(req, gr_parts_find(req->b->parts, name, out->PartitionIndex), out);
        }
    }
    gr_req_respond(req, resp);
}
