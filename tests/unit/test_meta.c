/* Unit tests for src/meta/meta: meta.properties, topics, configs, persistence. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/uuid.h"
#include "meta/meta.h"
#include "testutil.h"

static char dir[64];
static char err[512];

static void rm_rf(const char *path) {
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char sub[512];
            snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
            rm_rf(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void setup(void) {
    snprintf(dir, sizeof(dir), "/tmp/gr_meta_XXXXXX");
    ASSERT(mkdtemp(dir));
}

static gr_meta_t *open_meta(int32_t node, const gr_props_t *st) {
    gr_meta_t *m = NULL;
    char logdir[128];
    snprintf(logdir, sizeof(logdir), "%s/data/sub", dir);
    gr_err_t e = gr_meta_open(&m, logdir, node, st, err, sizeof(err));
    if (e) GR__FAIL("open: %s", err);
    return m;
}

static void test_meta_properties(void) {
    setup();
    gr_meta_t *m = open_meta(1, NULL);
    char cid[64];
    snprintf(cid, sizeof(cid), "%s", gr_meta_cluster_id(m));
    ASSERT_EQ(strlen(cid), 22);
    gr_uuid_t u;
    ASSERT(gr_uuid_from_base64(cid, &u));
    gr_meta_close(m);
    m = open_meta(1, NULL);
    ASSERT_STREQ(gr_meta_cluster_id(m), cid); /* stable across restarts */
    ASSERT_EQ(gr_meta_node_id(m), 1);
    gr_meta_close(m);
    char logdir[128];
    snprintf(logdir, sizeof(logdir), "%s/data/sub", dir);
    ASSERT_EQ(gr_meta_open(&m, logdir, 2, NULL, err, sizeof(err)), GR_ERR__STATE);
    ASSERT(strstr(err, "node id"));
    rm_rf(dir);
}

/* A fresh directory says so once; feature levels persist; an unrecorded one reports the default. */
static void test_new_directory_and_features(void) {
    setup();
    gr_meta_t *m = open_meta(1, NULL);
    ASSERT(gr_meta_is_new(m));
    ASSERT_EQ(gr_meta_feature_level(m, "share.version", 1), 1);
    gr_meta_close(m);
    m = open_meta(1, NULL);
    ASSERT(!gr_meta_is_new(m)); /* created earlier, nothing recorded: the caller's default */
    ASSERT_EQ(gr_meta_feature_level(m, "share.version", 1), 1);
    int64_t epoch = gr_meta_features_epoch(m);
    ASSERT_EQ(gr_meta_feature_set(m, "share.version", 2, err, sizeof(err)), GR_ERR_NONE);
    ASSERT(gr_meta_features_epoch(m) > epoch);
    gr_meta_close(m);
    m = open_meta(1, NULL);
    ASSERT(!gr_meta_is_new(m));
    ASSERT_EQ(gr_meta_feature_level(m, "share.version", 1), 2);
    ASSERT_EQ(gr_meta_feature_level(m, "transaction.version", 2), 2);
    gr_meta_close(m);
    rm_rf(dir);
}

static void test_topic_names(void) {
    ASSERT_EQ(gr_meta_topic_name_validate("ok.topic_name-1", err, sizeof(err)), 0);
    ASSERT_EQ(gr_meta_topic_name_validate("", err, sizeof(err)), GR_ERR_INVALID_TOPIC_EXCEPTION);
    ASSERT_EQ(gr_meta_topic_name_validate(".", err, sizeof(err)), GR_ERR_INVALID_TOPIC_EXCEPTION);
    ASSERT_EQ(gr_meta_topic_name_validate("..", err, sizeof(err)), GR_ERR_INVALID_TOPIC_EXCEPTION);
    ASSERT_EQ(gr_meta_topic_name_validate("...", err, sizeof(err)), 0);
    ASSERT_EQ(gr_meta_topic_name_validate("a b", err, sizeof(err)), GR_ERR_INVALID_TOPIC_EXCEPTION);
    ASSERT_STREQ(err, "Topic name is invalid: 'a b' contains one or more characters other than ASCII "
                      "alphanumerics, '.', '_' and '-'"); /* Kafka 4.x wording */
    char longname[251];
    memset(longname, 'x', 250);
    longname[250] = '\0';
    ASSERT_EQ(gr_meta_topic_name_validate(longname, err, sizeof(err)), GR_ERR_INVALID_TOPIC_EXCEPTION);
    longname[249] = '\0';
    ASSERT_EQ(gr_meta_topic_name_validate(longname, err, sizeof(err)), 0);
}

static void test_topics_and_persistence(void) {
    setup();
    gr_props_t st;
    gr_props_init(&st);
    gr_props_set(&st, "num.partitions", "4", 0);
    gr_props_set(&st, "log.retention.hours", "2", 0);
    gr_meta_t *m = open_meta(1, &st);
    const gr_meta_topic_t *t;
    gr_props_t cfg;
    gr_props_init(&cfg);
    gr_props_set(&cfg, "retention.ms", "1000", 0);
    ASSERT_EQ(gr_meta_topic_create(m, "orders", -1, &cfg, 1234, false, &t, err, sizeof(err)), 0);
    ASSERT_EQ(t->partitions, 4);
    ASSERT_EQ(t->created_ms, 1234);
    gr_uuid_t id = t->id;
    ASSERT_EQ(gr_meta_topic_create(m, "a_b", 1, NULL, 0, false, NULL, err, sizeof(err)), 0);
    ASSERT_EQ(gr_meta_topic_create(m, "a.b", 1, NULL, 0, false, NULL, err, sizeof(err)),
              GR_ERR_INVALID_TOPIC_EXCEPTION);
    ASSERT_STREQ(err, "Topic 'a.b' collides with existing topic: a_b");
    ASSERT_EQ(gr_meta_topic_create(m, "orders", 1, NULL, 0, false, NULL, err, sizeof(err)),
              GR_ERR_TOPIC_ALREADY_EXISTS);
    ASSERT_STREQ(err, "Topic 'orders' already exists.");
    ASSERT_EQ(gr_meta_topic_create(m, "zero", 0, NULL, 0, false, NULL, err, sizeof(err)), GR_ERR_INVALID_PARTITIONS);
    gr_props_set(&cfg, "cleanup.policy", "compact", 0);
    ASSERT_EQ(gr_meta_topic_create(m, "compacted", 1, &cfg, 0, false, NULL, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT(gr_meta_topic_find(m, "compacted") == NULL);
    ASSERT_EQ(gr_meta_topic_create(m, "vonly", 1, NULL, 0, true, &t, err, sizeof(err)), 0);
    ASSERT(t == NULL && gr_meta_topic_find(m, "vonly") == NULL);
    ASSERT_EQ(gr_meta_topic_create(m, "__internal", 3, NULL, 0, false, NULL, err, sizeof(err)), 0);
    ASSERT_EQ(gr_meta_topic_count(m), 3);
    ASSERT_STREQ(gr_meta_topic_at(m, 0)->name, "__internal"); /* name order */
    ASSERT_STREQ(gr_meta_topic_at(m, 2)->name, "orders");

    t = gr_meta_topic_find(m, "orders");
    ASSERT(gr_meta_topic_find_id(m, &id) == t);
    ASSERT_EQ(gr_meta_topic_config_i64(m, t, "retention.ms"), 1000);
    ASSERT_EQ(gr_meta_topic_config_i64(m, gr_meta_topic_find(m, "a_b"), "retention.ms"), 7200000);
    ASSERT_EQ(gr_meta_topic_config_i64(m, t, "segment.bytes"), 1073741824);

    ASSERT_EQ(gr_meta_topic_add_partitions(m, "orders", 3, false, err, sizeof(err)), GR_ERR_INVALID_PARTITIONS);
    ASSERT_STREQ(err, "The topic orders currently has 4 partition(s); 3 would not be an increase.");
    ASSERT_EQ(gr_meta_topic_add_partitions(m, "orders", 4, false, err, sizeof(err)), GR_ERR_INVALID_PARTITIONS);
    ASSERT_EQ(gr_meta_topic_add_partitions(m, "nope", 9, false, err, sizeof(err)), GR_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    ASSERT_EQ(gr_meta_topic_add_partitions(m, "orders", 6, true, err, sizeof(err)), 0);
    ASSERT_EQ(t->partitions, 4);
    ASSERT_EQ(gr_meta_topic_add_partitions(m, "orders", 6, false, err, sizeof(err)), 0);
    ASSERT_EQ(t->partitions, 6);

    ASSERT_EQ(gr_meta_topic_set_config(m, "orders", "segment.bytes", "2097152", false, err, sizeof(err)), 0);
    ASSERT_EQ(gr_meta_topic_set_config(m, "orders", "segment.bytes", "12", false, err, sizeof(err)),
              GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(gr_meta_topic_set_config(m, "orders", "bogus", NULL, false, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(gr_meta_topic_set_config(m, "orders", "retention.ms", NULL, false, err, sizeof(err)), 0);
    ASSERT_EQ(gr_meta_topic_config_i64(m, t, "retention.ms"), 7200000);
    ASSERT_EQ(gr_meta_topic_config_i64(m, t, "segment.bytes"), 2097152);
    gr_props_set(&cfg, "message.timestamp.type", "LogAppendTime", 0);
    gr_props_unset(&cfg, "cleanup.policy");
    ASSERT_EQ(gr_meta_topic_set_configs(m, "a_b", &cfg, false, err, sizeof(err)), 0);

    ASSERT_EQ(gr_meta_broker_set_config(m, true, "log.retention.ms", "5000", false, err, sizeof(err)), 0);
    ASSERT_EQ(gr_meta_broker_set_config(m, false, "node.id", "5", false, err, sizeof(err)), GR_ERR_INVALID_CONFIG);
    ASSERT_STREQ(err, "Cannot update these configs dynamically: [node.id]");
    ASSERT_EQ(gr_meta_broker_set_config(m, false, "log.segment.bytes", "5", false, err, sizeof(err)),
              GR_ERR_INVALID_CONFIG);
    ASSERT_EQ(gr_meta_broker_set_config(m, false, "message.max.bytes", "2000000", false, err, sizeof(err)), 0);
    ASSERT_EQ(gr_meta_topic_config_i64(m, gr_meta_topic_find(m, "__internal"), "retention.ms"), 5000);
    ASSERT_EQ(gr_meta_topic_config_i64(m, t, "max.message.bytes"), 2000000);
    ASSERT_EQ(gr_meta_broker_config_i64(m, "message.max.bytes"), 2000000);

    ASSERT_EQ(gr_meta_topic_delete(m, "__internal", err, sizeof(err)), 0);
    ASSERT_EQ(gr_meta_topic_delete(m, "__internal", err, sizeof(err)), GR_ERR_UNKNOWN_TOPIC_OR_PARTITION);
    gr_meta_close(m);

    /* Restart: everything is back. */
    m = open_meta(1, &st);
    ASSERT_EQ(gr_meta_topic_count(m), 2);
    t = gr_meta_topic_find(m, "orders");
    ASSERT(t && gr_uuid_eq(&t->id, &id));
    ASSERT_EQ(t->partitions, 6);
    ASSERT_EQ(t->created_ms, 1234);
    ASSERT_EQ(gr_meta_topic_config_i64(m, t, "segment.bytes"), 2097152);
    ASSERT_EQ(gr_meta_topic_config_i64(m, t, "retention.ms"), 5000);
    ASSERT_STREQ(gr_props_get(&gr_meta_topic_find(m, "a_b")->configs, "message.timestamp.type"), "LogAppendTime");
    ASSERT_STREQ(gr_props_get(gr_meta_broker_configs(m, false), "message.max.bytes"), "2000000");
    /* a stored listener keystore override is seen before the metadata is opened */
    char logdir[160];
    snprintf(logdir, sizeof(logdir), "%s/data/sub", dir);
    ASSERT(!gr_meta_has_dynamic_tls(logdir));
    ASSERT_EQ(gr_meta_broker_set_config(m, false, "listener.name.ssl.ssl.keystore.location", "/k.pem", false, err,
                                        sizeof(err)),
              0);
    ASSERT(gr_meta_has_dynamic_tls(logdir));
    ASSERT_EQ(
        gr_meta_broker_set_config(m, false, "listener.name.ssl.ssl.keystore.location", NULL, false, err, sizeof(err)),
        0);
    ASSERT(!gr_meta_has_dynamic_tls(logdir));
    ASSERT_EQ(gr_meta_topic_delete_id(m, &id, err, sizeof(err)), 0);
    ASSERT_EQ(gr_meta_topic_delete_id(m, &id, err, sizeof(err)), GR_ERR_UNKNOWN_TOPIC_ID);
    ASSERT(gr_meta_topic_find(m, "orders") == NULL);
    gr_cfg_layers_t l;
    gr_meta_config_layers(m, gr_meta_topic_find(m, "a_b"), &l);
    ASSERT(l.topic && l.dynamic_default && l.static_broker);
    gr_meta_close(m);
    gr_props_free(&cfg);
    gr_props_free(&st);
    rm_rf(dir);
}

static void test_many_topics(void) {
    setup();
    gr_meta_t *m = open_meta(1, NULL);
    char name[32];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof(name), "t-%03d", i);
        ASSERT_EQ(gr_meta_topic_create(m, name, 1, NULL, i, false, NULL, err, sizeof(err)), 0);
    }
    for (int i = 0; i < 300; i += 2) {
        snprintf(name, sizeof(name), "t-%03d", i);
        ASSERT_EQ(gr_meta_topic_delete(m, name, err, sizeof(err)), 0);
    }
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof(name), "t-%03d", i);
        const gr_meta_topic_t *t = gr_meta_topic_find(m, name);
        ASSERT_EQ(t != NULL, i % 2 == 1);
        if (t) ASSERT(gr_meta_topic_find_id(m, &t->id) == t);
    }
    gr_meta_close(m);
    rm_rf(dir);
}

static void corrupt_and_expect(const char *logdir, long off, const char *what) {
    char path[256];
    snprintf(path, sizeof(path), "%s/gregor.metadata", logdir);
    int fd = open(path, O_RDWR);
    ASSERT(fd >= 0);
    if (off >= 0) {
        char c;
        ASSERT_EQ(pread(fd, &c, 1, off), 1);
        c ^= 0x01;
        ASSERT_EQ(pwrite(fd, &c, 1, off), 1);
    } else {
        ASSERT_EQ(ftruncate(fd, 40), 0);
    }
    close(fd);
    gr_meta_t *m = NULL;
    ASSERT_EQ(gr_meta_open(&m, logdir, 1, NULL, err, sizeof(err)), GR_ERR__MALFORMED);
    ASSERT(strstr(err, "corrupted"));
    ASSERT(strstr(err, what));
    ASSERT(m == NULL);
}

static void test_corruption(void) {
    setup();
    char logdir[128];
    snprintf(logdir, sizeof(logdir), "%s/data/sub", dir);
    gr_meta_t *m = open_meta(1, NULL);
    ASSERT_EQ(gr_meta_topic_create(m, "x", 1, NULL, 0, false, NULL, err, sizeof(err)), 0);
    gr_meta_close(m);
    corrupt_and_expect(logdir, 100, "checksum");
    corrupt_and_expect(logdir, -1, "checksum");
    /* A failed write leaves memory unchanged: a non-empty directory in place of the
     * metadata file makes the rename fail, even for root. */
    char path[256], sub[300];
    snprintf(path, sizeof(path), "%s/gregor.metadata", logdir);
    unlink(path);
    m = open_meta(1, NULL);
    ASSERT_EQ(mkdir(path, 0755), 0);
    snprintf(sub, sizeof(sub), "%s/keep", path);
    ASSERT_EQ(mkdir(sub, 0755), 0);
    ASSERT_EQ(gr_meta_topic_create(m, "y", 1, NULL, 0, false, NULL, err, sizeof(err)), GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT(gr_meta_topic_find(m, "y") == NULL);
    ASSERT_EQ(gr_meta_topic_count(m), 0);
    ASSERT_EQ(gr_meta_broker_set_config(m, true, "log.retention.ms", "1", false, err, sizeof(err)),
              GR_ERR_KAFKA_STORAGE_ERROR);
    ASSERT(gr_props_get(gr_meta_broker_configs(m, true), "log.retention.ms") == NULL);
    gr_meta_close(m);
    rm_rf(dir);
}

int main(void) {
    RUN_TEST(test_meta_properties);
    RUN_TEST(test_new_directory_and_features);
    RUN_TEST(test_topic_names);
    RUN_TEST(test_topics_and_persistence);
    RUN_TEST(test_many_topics);
    RUN_TEST(test_corruption);
    return 0;
}
