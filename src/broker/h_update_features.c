/* UpdateFeatures (57), v0-2: change a finalized feature level, as a single
 * Apache Kafka 4.4.0 node answers (docs/dlq.md §1). The new level is written to the
 * metadata store (fsynced) before the answer; every later decision reads it there
 * (share.version >= 2 turns the share-group dead-letter queue on at once).
 *
 * Kafka checks every update before applying any: the first refused one fails the
 * request with a top-level INVALID_UPDATE_VERSION and no per-feature results. Before
 * that, its controller requires ALTER on the cluster (a top-level
 * CLUSTER_AUTHORIZATION_FAILED, no results). */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "proto_msgs.h"

enum { UPGRADE = 1, SAFE_DOWNGRADE = 2, UNSAFE_DOWNGRADE = 3 };

typedef gr_UpdateFeaturesRequest_FeatureUpdateKey_t upd_t;

/* Kafka 4.4.0's reason (QuorumFeatures / FeatureControlManager) for a refused update. */
static bool check_one(gr_broker_t *b, const char *name, int16_t level, int8_t type, char *why, size_t n) {
    const gr_broker_feature_t *f = gr_broker_feature_find(name);
    if (!f) {
        snprintf(why, n, "Invalid update version %d for feature %s. Local controller %d does not support this feature.",
                 level, name, gr_broker_node_id(b));
        return false;
    }
    if (level > f->max_supported || level < f->min_supported) {
        snprintf(why, n, "Invalid update version %d for feature %s. Local controller %d only supports versions %d-%d",
                 level, name, gr_broker_node_id(b), f->min_supported, f->max_supported);
        return false;
    }
    if (type < UPGRADE || type > UNSAFE_DOWNGRADE) {
        snprintf(why, n, "Invalid update version %d for feature %s. Unknown upgrade type %d.", level, name, type);
        return false;
    }
    if (level < gr_broker_feature_level(b, name) && type == UPGRADE) {
        snprintf(why, n,
                 "Invalid update version %d for feature %s. Can't downgrade the version of this feature without "
                 "setting the upgrade type to either safe or unsafe downgrade.",
                 level, name);
        return false;
    }
    if (!strcmp(name, "metadata.version") && level != f->finalized) {
        snprintf(why, n, "Invalid update version %d for feature %s. gregord has no KRaft metadata log to change.",
                 level, name); /* docs/compatibility.md */
        return false;
    }
    return true;
}

static int8_t upgrade_type(const gr_req_t *req, const upd_t *u) {
    if (req->hdr.api_version == 0) return u->AllowDowngrade ? SAFE_DOWNGRADE : UPGRADE;
    return u->UpgradeType;
}

void gr_h_update_features(gr_req_t *req) {
    const gr_UpdateFeaturesRequest_t *rq = req->body;
    gr_UpdateFeaturesResponse_t *resp = gr_req_resp_new(req);
    resp->ErrorMessage = GR_STR_NULL;
    if ((resp->ErrorCode = (int16_t)gr_req_authz(req, GR_AZ_UPDATE_FEATURES, NULL))) {
        resp->ErrorMessage = gr_req_denied_msg(req, GR_AZ_UPDATE_FEATURES);
        gr_req_respond(req, resp);
        return;
    }
    int32_t n = rq->FeatureUpdates.n > 0 ? rq->FeatureUpdates.n : 0;
    char why[512];
    for (int32_t i = 0; i < n; i++) {
        const upd_t *u = &rq->FeatureUpdates.v[i];
        if (!check_one(req->b, gr_req_cstr(req, u->Feature), u->MaxVersionLevel, upgrade_type(req, u), why,
                       sizeof(why))) {
            resp->ErrorCode = GR_ERR_INVALID_UPDATE_VERSION;
            resp->ErrorMessage =
                gr_req_msg(req, "The update failed for all features since the following feature had an error: %s", why);
            gr_req_respond(req, resp);
            return;
        }
    }
    resp->Results.v = gr_req_alloc(req, &gr_UpdateFeaturesResponse_UpdatableFeatureResult_sd, n);
    resp->Results.n = n;
    for (int32_t i = 0; i < n; i++) {
        const upd_t *u = &rq->FeatureUpdates.v[i];
        gr_UpdateFeaturesResponse_UpdatableFeatureResult_t *r = &resp->Results.v[i];
        r->Feature = u->Feature;
        r->ErrorMessage = gr_str_c("NONE"); /* Kafka 4.4.0's text for a successful update */
        if (rq->ValidateOnly) continue;
        const char *name = gr_req_cstr(req, u->Feature);
        if (u->MaxVersionLevel == gr_broker_feature_level(req->b, name)) continue;
        if (gr_meta_feature_set(req->b->meta, name, u->MaxVersionLevel, why, sizeof(why))) {
            GR_ERROR("broker", "UpdateFeatures %s=%d not written: %s", name, u->MaxVersionLevel, why);
            resp->ErrorCode = GR_ERR_KAFKA_STORAGE_ERROR;
            resp->ErrorMessage = gr_req_msg(req, "The feature level could not be written: %s", why);
            resp->Results.n = 0;
            break;
        }
        GR_INFO("broker", "feature %s finalized at level %d", name, u->MaxVersionLevel);
    }
    gr_req_respond(req, resp);
}
