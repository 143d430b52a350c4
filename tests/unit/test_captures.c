/* Decode and re-encode the frames real clients put on the wire.
 *
 * For every NNN-<Api>-v<N>-request.bin under tests/data/wire-captures:
 * strip the length prefix, decode the header and the body, re-encode both and
 * compare byte for byte. The responses (written by librdkafka's mock cluster)
 * are decoded too and re-encoded byte for byte where the mock wrote what Kafka
 * would; the hand-built ApiVersions v3 error reply is skipped (see the README
 * in that folder). A few decoded fields are spot-checked.
 *
 * The captures are checked in (tests/data/wire-captures); a missing folder is a
 * failure, never a skip. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proto/codec.h"
#include "proto_msgs.h"
#include "testutil.h"

static int g_sharefetch, g_req, g_resp, g_resp_exact, g_skipped, g_trailing;

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    ASSERT(fp != NULL);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)n + 1);
    ASSERT(p && fread(p, 1, (size_t)n, fp) == (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return p;
}

static void join(char *buf, size_t size, const char *a, const char *b) {
    int n = snprintf(buf, size, "%s/%s", a, b);
    ASSERT(n > 0 && (size_t)n < size);
}

static bool uuid_is_zero(const gr_uuid_t *u) {
    for (int i = 0; i < 16; i++)
        if (u->b[i]) return false;
    return true;
}

/* Spot checks of request fields, keyed by scenario and file name. */
static void spot_check_request(const char *scen, const char *file, const gr_req_header_t *h, const void *body) {
    if (!strcmp(scen, "1-kcat-produce-none") && h->api_key == GR_API_Produce) {
        const gr_ProduceRequest_t *p = body;
        ASSERT_EQ(h->api_version, 7);
        ASSERT(gr_str_eq_c(h->client_id, "rdkafka"));
        ASSERT_EQ(p->Acks, -1);
        ASSERT(gr_str_is_null(p->TransactionalId));
        ASSERT_EQ(p->TopicData.n, 1);
        ASSERT(gr_str_eq_c(p->TopicData.v[0].Name, "cap-none"));
        ASSERT_EQ(p->TopicData.v[0].PartitionData.n, 1);
        const gr_bytes_t *rec = &p->TopicData.v[0].PartitionData.v[0].Records;
        ASSERT(rec->len > 61);
        ASSERT_EQ(rec->ptr[16], 2); /* record batch magic */
    }
    if (h->api_key == GR_API_ShareFetch && !strncmp(scen, "3-librdkafka-sharedrain", 23)) {
        g_sharefetch++;
        const gr_ShareFetchRequest_t *sf = body;
        ASSERT_EQ(h->api_version, 1);
        ASSERT(gr_str_eq_c(sf->GroupId, !strcmp(scen, "3-librdkafka-sharedrain") ? "share-drain-g" : "share-big-g"));
        ASSERT(sf->MemberId.len > 0);
        for (int32_t i = 0; i < sf->Topics.n; i++) ASSERT(!uuid_is_zero(&sf->Topics.v[i].TopicId));
    }
    if (!strcmp(scen, "3-librdkafka-sharedrain") && !strcmp(file, "034-ShareFetch-v1-request.bin")) {
        const gr_ShareFetchRequest_t *sf = body;
        int acks = 0;
        for (int32_t i = 0; i < sf->Topics.n; i++)
            for (int32_t j = 0; j < sf->Topics.v[i].Partitions.n; j++)
                acks += sf->Topics.v[i].Partitions.v[j].AcknowledgementBatches.n;
        ASSERT(acks > 0); /* the previous round's acks ride along */
    }
    if (h->api_key == GR_API_ShareGroupHeartbeat && !strcmp(scen, "3-librdkafka-sharedrain")) {
        const gr_ShareGroupHeartbeatRequest_t *hb = body;
        ASSERT(gr_str_eq_c(hb->GroupId, "share-drain-g"));
    }
    if (h->api_key == GR_API_CreateTopics && !strcmp(scen, "4-librdkafka-admin")) {
        const gr_CreateTopicsRequest_t *ct = body;
        ASSERT_EQ(ct->Topics.n, 1);
        ASSERT_EQ(ct->Topics.v[0].NumPartitions, 3);
        ASSERT_EQ(ct->Topics.v[0].ReplicationFactor, -1);
    }
    if (h->api_key == GR_API_IncrementalAlterConfigs && !strcmp(scen, "4-librdkafka-admin")) {
        const gr_IncrementalAlterConfigsRequest_t *ia = body;
        ASSERT_EQ(ia->Resources.n, 1);
        ASSERT(gr_str_eq_c(ia->Resources.v[0].Configs.v[0].Name, "share.auto.offset.reset"));
        ASSERT(gr_str_eq_c(ia->Resources.v[0].Configs.v[0].Value, "earliest"));
    }
    if (h->api_key == GR_API_ApiVersions && h->api_version == 3 && !strncmp(scen, "3-", 2)) {
        const gr_ApiVersionsRequest_t *av = body;
        ASSERT(gr_str_eq_c(av->ClientSoftwareName, "librdkafka"));
    }
}

static bool same_bytes(const gr_wbuf_t *wb, const uint8_t *p, size_t n) {
    return wb->len == n && (n == 0 || !memcmp(wb->mem, p, n));
}

static void check_request(const char *scen, const char *file, const uint8_t *frame, size_t len, int16_t *key,
                          int16_t *ver) {
    gr_rbuf_t rb;
    gr_req_header_t h;
    gr_arena_t a;
    gr_wbuf_t wb;
    ASSERT(len >= 4 && gr_be32(frame) == len - 4);
    gr_rbuf_init(&rb, frame + 4, len - 4);
    if (gr_req_header_decode(&rb, &h)) GR__FAIL("%s/%s: header: %s", scen, file, rb.why);
    const gr_msg_desc_t *m = gr_api_request(h.api_key);
    if (!m) GR__FAIL("%s/%s: unknown api key %d", scen, file, h.api_key);
    gr_arena_init(&a);
    void *body = gr_arena_alloc(&a, m->body->size);
    if (gr_decode(m, h.api_version, &rb, &a, body))
        GR__FAIL("%s/%s: body: %s at offset %zu", scen, file, rb.why, gr_rbuf_offset(&rb));
    if (gr_rbuf_remaining(&rb)) GR__FAIL("%s/%s: %zu trailing bytes", scen, file, gr_rbuf_remaining(&rb));
    spot_check_request(scen, file, &h, body);
    gr_wbuf_init(&wb);
    gr_req_header_encode(&h, &wb);
    gr_encode(m, h.api_version, body, &wb);
    if (!same_bytes(&wb, frame + 4, len - 4)) GR__FAIL("%s/%s: re-encoded request differs", scen, file);
    gr_wbuf_free(&wb);
    gr_arena_free(&a);
    *key = h.api_key;
    *ver = h.api_version;
    g_req++;
}

static void spot_check_response(const char *scen, int16_t key, const void *body) {
    if (key == GR_API_Produce && !strcmp(scen, "1-kcat-produce-none")) {
        const gr_ProduceResponse_t *p = body;
        ASSERT_EQ(p->Responses.n, 1);
        ASSERT(gr_str_eq_c(p->Responses.v[0].Name, "cap-none"));
        ASSERT_EQ(p->Responses.v[0].PartitionResponses.v[0].ErrorCode, 0);
        ASSERT_EQ(p->Responses.v[0].PartitionResponses.v[0].LogAppendTimeMs, 1234); /* the mock's fixed value */
    }
    if (key == GR_API_Metadata && !strcmp(scen, "2-kcat-metadata")) {
        const gr_MetadataResponse_t *md = body;
        ASSERT_EQ(md->Brokers.n, 3);
    }
}

static void check_response(const char *scen, const char *file, const uint8_t *frame, size_t len, int16_t key,
                           int16_t ver) {
    gr_rbuf_t rb;
    gr_arena_t a;
    gr_wbuf_t wb;
    int32_t corr;
    ASSERT(len >= 8 && gr_be32(frame) == len - 4);
    if (key == GR_API_ApiVersions && ver == 3 && len >= 10 && gr_be16(frame + 8) == GR_ERR_UNSUPPORTED_VERSION) {
        g_skipped++; /* the mock's hand-built reply, not a v3 body */
        return;
    }
    gr_rbuf_init(&rb, frame + 4, len - 4);
    ASSERT(gr_rbuf_i32(&rb, &corr));
    int hv = gr_resp_header_version(key, ver);
    uint32_t ntags = 0;
    if (hv == 1) ASSERT(gr_rbuf_uvarint(&rb, &ntags) && ntags == 0);
    const gr_msg_desc_t *m = gr_api_response(key);
    gr_arena_init(&a);
    void *body = gr_arena_alloc(&a, m->body->size);
    if (gr_decode(m, ver, &rb, &a, body))
        GR__FAIL("%s/%s: body: %s at offset %zu", scen, file, rb.why, gr_rbuf_offset(&rb));
    /* librdkafka's mock puts a stray byte after some flexible bodies (Metadata v12). */
    size_t trailing = gr_rbuf_remaining(&rb);
    if (trailing) {
        fprintf(stderr, "   note: %s/%s: %zu trailing bytes ignored (mock quirk)\n", scen, file, trailing);
        g_trailing++;
    }
    spot_check_response(scen, key, body);
    gr_wbuf_init(&wb);
    gr_resp_header_encode(corr, hv, &wb);
    gr_encode(m, ver, body, &wb);
    if (same_bytes(&wb, frame + 4, len - 4 - trailing))
        g_resp_exact++;
    else
        fprintf(stderr, "   note: %s/%s decodes but re-encodes differently\n", scen, file);
    gr_wbuf_free(&wb);
    gr_arena_free(&a);
    g_resp++;
}

static void check_pair(const char *dir, const char *scen, const char *req_name) {
    char path[4096], resp_name[512];
    size_t len;
    int16_t key, ver;
    join(path, sizeof(path), dir, req_name);
    uint8_t *frame = read_file(path, &len);
    check_request(scen, req_name, frame, len, &key, &ver);
    free(frame);
    size_t n = strlen(req_name) - strlen("request.bin");
    ASSERT(n + 13 < sizeof(resp_name));
    memcpy(resp_name, req_name, n);
    memcpy(resp_name + n, "response.bin", 13);
    join(path, sizeof(path), dir, resp_name);
    struct stat st;
    if (stat(path, &st) != 0) return;
    frame = read_file(path, &len);
    check_response(scen, resp_name, frame, len, key, ver);
    free(frame);
}

static void check_scenario(const char *root, const char *scen) {
    char dir[4096];
    join(dir, sizeof(dir), root, scen);
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort);
    if (n < 0) return;
    for (int i = 0; i < n; i++) {
        const char *name = ents[i]->d_name;
        size_t l = strlen(name);
        if (l > 12 && !strcmp(name + l - 12, "-request.bin")) check_pair(dir, scen, name);
        free(ents[i]);
    }
    free(ents);
}

static const char *find_root(char *buf, size_t size) {
    struct stat st;
    join(buf, size, GR_SOURCE_DIR, "tests/data/wire-captures");
    return stat(buf, &st) ? NULL : buf;
}

int main(void) {
    char buf[4096];
    const char *root = find_root(buf, sizeof(buf));
    if (!root) {
        fprintf(stderr, "wire captures not found under %s/tests/data/wire-captures\n", GR_SOURCE_DIR);
        return 1;
    }
    struct dirent **ents;
    int n = scandir(root, &ents, NULL, alphasort);
    ASSERT(n > 0);
    for (int i = 0; i < n; i++) {
        if (ents[i]->d_name[0] != '.' && ents[i]->d_type == DT_DIR) check_scenario(root, ents[i]->d_name);
        free(ents[i]);
    }
    free(ents);
    fprintf(stderr,
            "requests: %d decoded and re-encoded exactly; responses: %d decoded (%d with trailing bytes), "
            "%d re-encoded exactly, %d skipped\n",
            g_req, g_resp, g_trailing, g_resp_exact, g_skipped);
    ASSERT(g_req >= 200);
    ASSERT(g_sharefetch > 0);
    ASSERT_EQ(g_resp, g_resp_exact);
    return 0;
}
