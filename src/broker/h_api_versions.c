/* ApiVersions (18): advertise exactly the handler table, plus the features as
 * Apache Kafka 4.4 reports them (share consumers look for share.version). */
#include <string.h>

#include "broker/broker_int.h"
#include "broker/handlers.h"
#include "proto_msgs.h"

/* Share-group APIs are advertised only while the finalized share.version is >= 1
 * (spec §0); the feature table lives in broker.c. */
static bool is_share_api(int16_t key) {
    switch (key) {
    case GR_API_ShareGroupHeartbeat:
    case GR_API_ShareGroupDescribe:
    case GR_API_ShareFetch:
    case GR_API_ShareAcknowledge:
    case GR_API_DescribeShareGroupOffsets:
    case GR_API_AlterShareGroupOffsets:
    case GR_API_DeleteShareGroupOffsets: return true;
    default: return false;
    }
}

static bool share_enabled(const gr_broker_t *b) { return gr_broker_feature_level(b, "share.version") >= 1; }

static void fill_api_keys(gr_req_t *req, gr_ApiVersionsResponse_t *resp, bool only_self) {
    bool share = share_enabled(req->b);
    size_t n;
    const gr_handler_t *hs = gr_handlers(&n);
    resp->ApiKeys.v = gr_req_alloc(req, &gr_ApiVersionsResponse_ApiVersion_sd, (int32_t)n);
    resp->ApiKeys.n = 0;
    for (size_t i = 0; i < n; i++) {
        if (only_self && hs[i].api_key != GR_API_ApiVersions) continue;
        if (!share && is_share_api(hs[i].api_key)) continue;
        gr_ApiVersionsResponse_ApiVersion_t *k = &resp->ApiKeys.v[resp->ApiKeys.n++];
        k->ApiKey = hs[i].api_key;
        k->MinVersion = hs[i].advertise_from_v0 ? 0 : hs[i].min_ver;
        k->MaxVersion = hs[i].max_ver;
    }
}

static void fill_features(gr_req_t *req, gr_ApiVersionsResponse_t *resp) {
    size_t n;
    const gr_broker_feature_t *fs = gr_broker_features(req->b, &n);
    /* Below v4, Kafka leaves out the supported features whose minimum version is 0:
     * older clients fail to parse a range starting at 0 (KAFKA-17011). Finalized
     * features are listed at every version. */
    bool omit_min0 = req->hdr.api_version < 4;
    resp->SupportedFeatures.v = gr_req_alloc(req, &gr_ApiVersionsResponse_SupportedFeatureKey_sd, (int32_t)n);
    resp->FinalizedFeatures.v = gr_req_alloc(req, &gr_ApiVersionsResponse_FinalizedFeatureKey_sd, (int32_t)n);
    resp->SupportedFeatures.n = 0;
    resp->FinalizedFeatures.n = (int32_t)n;
    for (size_t i = 0; i < n; i++) {
        if (!(omit_min0 && fs[i].min_supported == 0)) {
            gr_ApiVersionsResponse_SupportedFeatureKey_t *sf = &resp->SupportedFeatures.v[resp->SupportedFeatures.n++];
            sf->Name = gr_str_c(fs[i].name);
            sf->MinVersion = fs[i].min_supported;
            sf->MaxVersion = fs[i].max_supported;
        }
        resp->FinalizedFeatures.v[i].Name = gr_str_c(fs[i].name);
        resp->FinalizedFeatures.v[i].MinVersionLevel = fs[i].finalized;
        resp->FinalizedFeatures.v[i].MaxVersionLevel = fs[i].finalized;
    }
    resp->FinalizedFeaturesEpoch = gr_broker_features_epoch(req->b);
}

/* v5 (KIP-1242): the client may name the cluster and node it means to reach, so a
 * connection that landed on another broker is noticed. As Apache Kafka 4.4.0 answers
 * (differential test, apiversions/v5_*): one without the other is INVALID_REQUEST, a
 * mismatch REBOOTSTRAP_REQUIRED; both answers carry no ApiKeys and no features. */
static int16_t check_target(const gr_req_t *req) {
    const gr_ApiVersionsRequest_t *r = req->body;
    if (req->hdr.api_version < 5) return GR_ERR_NONE;
    bool has_cluster = !gr_str_is_null(r->ClusterId), has_node = r->NodeId != -1;
    if (!has_cluster && !has_node) return GR_ERR_NONE;
    if (has_cluster != has_node) return GR_ERR_INVALID_REQUEST;
    if (!gr_str_eq_c(r->ClusterId, gr_meta_cluster_id(req->b->meta)) || r->NodeId != gr_broker_node_id(req->b))
        return GR_ERR_REBOOTSTRAP_REQUIRED;
    return GR_ERR_NONE;
}

void gr_h_api_versions(gr_req_t *req) {
    gr_ApiVersionsResponse_t *resp = gr_req_resp_new(req);
    if ((resp->ErrorCode = check_target(req))) {
        gr_req_respond(req, resp);
        return;
    }
    fill_api_keys(req, resp, false);
    if (req->hdr.api_version >= 3) fill_features(req, resp);
    gr_req_respond(req, resp);
}

void gr_h_api_versions_unsupported(gr_req_t *req) {
    req->req_desc = gr_api_request(GR_API_ApiVersions);
    req->resp_desc = gr_api_response(GR_API_ApiVersions);
    req->hdr.api_version = 0; /* the answer uses the v0 body layout */
    gr_ApiVersionsResponse_t *resp = gr_req_resp_new(req);
    resp->ErrorCode = GR_ERR_UNSUPPORTED_VERSION;
    fill_api_keys(req, resp, true);
    gr_req_respond(req, resp);
}
