/* InitProducerId (22): producer ids for idempotent producers. Ids are handed
 * out from blocks reserved on disk first (<log dir>/producer-id-block), so an
 * id is never reused after a crash. Transactions are not supported yet. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
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
    } else if (!gr_str_is_null(ireq->TransactionalId)) {
        resp->ErrorCode = GR_ERR_INVALID_REQUEST; /* no transaction coordinator yet */
    } else if ((ireq->ProducerId == -1) != (ireq->ProducerEpoch == -1)) {
        resp->ErrorCode = GR_ERR_INVALID_REQUEST; /* Kafka: both or neither */
    } else {
        char errstr[256];
        if (b->next_producer_id >= b->producer_id_limit &&
            write_limit(b, b->producer_id_limit + PID_BLOCK, errstr, sizeof(errstr))) {
            GR_ERROR("broker", "%s", errstr);
            resp->ErrorCode = GR_ERR_COORDINATOR_NOT_AVAILABLE;
        } else {
            resp->ProducerId = b->next_producer_id++;
            resp->ProducerEpoch = 0;
        }
    }
    gr_req_respond(req, resp);
}
