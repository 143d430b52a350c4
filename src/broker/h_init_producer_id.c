/* InitProducerId (22): producer ids for idempotent producers, and for a
 * transactional id the transaction coordinator's epoch bump / fencing
 * (txn/txn.h, txn_coord.h). Ids are handed out from blocks reserved on disk
 * first (<log dir>/producer-id-block), so an id is never reused after a crash. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "broker/txn_coord.h"
#include "proto_msgs.h"

#define PID_BLOCK 1000

static gr_err_t write_limit(gr_broker_t *b, int64_t limit, char *errstr, size_t errstr_size) {
    char path[4096], tmp[4200], line[64];
    snprintf(path, sizeof(path), "%s/producer-id-block", b->cfg->log_dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int n = snprintf(line, sizeof(line), "%" PRId64 "\n", limit);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = fd >= 0 && write(fd, line, (size_t)n) == n && fsync(fd) == 0;
    if (fd >= 0) close(fd);
    ok = ok && rename(tmp, path) == 0;
    if (ok) {
        int dfd = open(b->cfg->log_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    }
    if (!ok) {
        snprintf(errstr, errstr_size, "cannot write %s: %s", path, strerror(errno));
        return GR_ERR_KAFKA_STORAGE_ERROR;
    }
    b->producer_id_limit = limit;
    return GR_ERR_NONE;
}

gr_err_t gr_broker_producer_ids_open(gr_broker_t *b, char *errstr, size_t errstr_size) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/producer-id-block", b->cfg->log_dir);
    FILE *f = fopen(path, "r");
    int64_t limit = 0;
    if (f) {
        if (fscanf(f, "%" SCNd64, &limit) != 1 || limit < 0) limit = 0;
        fclose(f);
    }
    /* Everything below the stored limit may have been handed out before. */
    b->next_producer_id = limit;
    return write_limit(b, limit + PID_BLOCK, errstr, errstr_size);
}

int64_t gr_broker_producer_id_next(gr_broker_t *b) {
    char errstr[256];
    if (b->next_producer_id >= b->producer_id_limit &&
        write_limit(b, b->producer_id_limit + PID_BLOCK, errstr, sizeof(errstr))) {
        GR_ERROR("broker", "%s", errstr);
        return -1;
    }
    return b->next_producer_id++;
}

typedef struct init_wait {
    gr_req_t *req;
    gr_InitProducerIdResponse_t *resp;
    gr_txn_t *t;
    bool fence;
} init_wait_t;

static void init_answer(void *arg, gr_err_t err) {
    init_wait_t *w = arg;
    if (w->fence && !err) err = GR_ERR_CONCURRENT_TRANSACTIONS; /* the client retries once the abort is done */
    w->resp->ErrorCode = (int16_t)err;
    if (!err) {
        w->resp->ProducerId = w->t->m.pid;
        w->resp->ProducerEpoch = w->t->m.epoch;
    }
    gr_req_respond(w->req, w->resp);
}

/* Kafka's TransactionCoordinator.handleInitProducerId. */
static void init_txn(gr_req_t *req, gr_InitProducerIdRequest_t *ireq, gr_InitProducerIdResponse_t *resp) {
    gr_broker_t *b = req->b;
    gr_txn_reg_t *reg = &b->txn->reg;
    gr_str_t id = ireq->TransactionalId;
    if (id.len == 0) {
        resp->ErrorCode = GR_ERR_INVALID_REQUEST;
    } else if (ireq->TransactionTimeoutMs <= 0 || ireq->TransactionTimeoutMs > reg->cfg.max_timeout_ms) {
        resp->ErrorCode = GR_ERR_INVALID_TRANSACTION_TIMEOUT;
    } else {
        int64_t now = gr_clock_wall_ms();
        gr_txn_t *t = gr_txn_find(reg, id.ptr, (size_t)id.len);
        if (!t) {
            gr_txn_meta_t m;
            gr_txn_meta_init(&m);
            m.pid = gr_broker_producer_id_next(b);
            m.timeout_ms = ireq->TransactionTimeoutMs;
            m.update_ms = now;
            if (m.pid < 0) {
                resp->ErrorCode = GR_ERR_COORDINATOR_NOT_AVAILABLE;
                gr_req_respond(req, resp);
                return;
            }
            t = gr_txn_put(reg, id.ptr, (size_t)id.len, &m);
        }
        bool has_expected = ireq->ProducerId != -1;
        int e = gr_txn_init_pid(reg, t, ireq->TransactionTimeoutMs, has_expected, ireq->ProducerId, ireq->ProducerEpoch,
                                now);
        if (e == 0 || e == GR_TXN_FENCE) {
            init_wait_t *w = gr_arena_alloc(&req->arena, sizeof(*w));
            *w = (init_wait_t){req, resp, t, e == GR_TXN_FENCE};
            if (e == GR_TXN_FENCE)
                gr_txn_coord_fence_abort(b, t, init_answer, w);
            else
                gr_txn_coord_persist(b, t, init_answer, w);
            return;
        }
        resp->ErrorCode = (int16_t)e;
    }
    gr_req_respond(req, resp);
}

void gr_h_init_producer_id(gr_req_t *req) {
    gr_InitProducerIdRequest_t *ireq = req->body;
    gr_InitProducerIdResponse_t *resp = gr_req_resp_new(req);
    gr_broker_t *b = req->b;
    resp->ProducerId = -1;
    resp->ProducerEpoch = -1;
    /* Kafka: WRITE on the transactional id; without one, IDEMPOTENT_WRITE on the cluster
     * or WRITE on some topic. */
    gr_err_t denied = !gr_str_is_null(ireq->TransactionalId)
                          ? gr_req_authz_s(req, GR_AZ_INIT_PID_TXN, ireq->TransactionalId)
                          : (gr_req_allowed(req, GR_AZ_INIT_PID_IDEMPOTENT, NULL) ||
                                     gr_req_allowed_any(req, GR_ACL_OP_WRITE, GR_ACL_RT_TOPIC)
                                 ? GR_ERR_NONE
                                 : gr_az_rule(GR_AZ_INIT_PID_IDEMPOTENT)->err);
    if (denied) {
        resp->ErrorCode = (int16_t)denied;
    } else if ((ireq->ProducerId == -1) != (ireq->ProducerEpoch == -1)) {
        resp->ErrorCode = GR_ERR_INVALID_REQUEST; /* Kafka: both or neither */
    } else if (!gr_str_is_null(ireq->TransactionalId)) {
        init_txn(req, ireq, resp);
        return;
    } else {
        int64_t pid = gr_broker_producer_id_next(b);
        if (pid < 0) {
            resp->ErrorCode = GR_ERR_COORDINATOR_NOT_AVAILABLE;
        } else {
            resp->ProducerId = pid;
            resp->ProducerEpoch = 0;
        }
    }
    gr_req_respond(req, resp);
}
