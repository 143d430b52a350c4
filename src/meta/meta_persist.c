/* Persistence of the metadata store: meta.properties and gregor.metadata.
 *
 * gregor.metadata is .properties text (so it stays readable with `cat`) followed by a
 * "checksum=<crc32 hex>" line covering every byte before it. It is always replaced as a
 * whole: temp file, fsync, rename, fsync of the directory, so a crash leaves either the
 * old or the new file. A checksum mismatch means someone edited or truncated it; we
 * refuse to start rather than silently lose topics. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/uuid.h"
#include "meta/meta_int.h"

#define META_HEADER     "# gregor cluster metadata, written by gregord. Do not edit: it is checksummed.\n"
#define MAX_TOPIC_INDEX 10000000

static char *path_join(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (!p) abort();
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static gr_err_t io_err(char *errstr, size_t sz, const char *what, const char *path) {
    snprintf(errstr, sz, "%s %s: %s", what, path, strerror(errno));
    return GR_ERR__IO;
}

static gr_err_t fsync_dir_of(const char *path, char *errstr, size_t sz) {
    char *dir = strdup(path);
    if (!dir) abort();
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    gr_err_t err = GR_ERR_NONE;
    if (fd < 0 || fsync(fd) != 0) err = io_err(errstr, sz, "cannot fsync directory", dir);
    if (fd >= 0) close(fd);
    free(dir);
    return err;
}

gr_err_t gr__meta_write_atomic(const char *path, const char *text, size_t len, char *errstr, size_t sz) {
    char *tmp = malloc(strlen(path) + 5);
    if (!tmp) abort();
    sprintf(tmp, "%s.tmp", path);
    gr_err_t err = GR_ERR_NONE;
    /* Owner only: dynamic broker configs may hold ssl.key.password or an inline private key. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        err = io_err(errstr, sz, "cannot create", tmp);
        goto out;
    }
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
            err = io_err(errstr, sz, "cannot write", tmp);
            break;
        }
        off += (size_t)w;
    }
    if (!err && fsync(fd) != 0) err = io_err(errstr, sz, "cannot fsync", tmp);
    close(fd);
    if (!err && rename(tmp, path) != 0) err = io_err(errstr, sz, "cannot rename to", path);
    if (!err) err = fsync_dir_of(path, errstr, sz);
    if (err) unlink(tmp);
out:
    free(tmp);
    return err;
}

/* Whole file into a malloc'd NUL-terminated buffer; *len its size. ENOENT gives GR_ERR__NOENT. */
static gr_err_t read_all(const char *path, char **out, size_t *len, char *errstr, size_t sz) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT) return GR_ERR__NOENT;
        return io_err(errstr, sz, "cannot open", path);
    }
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n - 1 == 0) b = realloc(b, cap *= 2);
    }
    if (!b) abort();
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        return io_err(errstr, sz, "cannot read", path);
    }
    b[n] = '\0';
    *out = b;
    *len = n;
    return GR_ERR_NONE;
}

bool gr_meta_has_dynamic_tls(const char *log_dir) {
    char *path = path_join(log_dir, "gregor.metadata"), *text = NULL, why[256];
    size_t len = 0;
    bool found = false;
    if (!read_all(path, &text, &len, why, sizeof(why))) {
        const char *k = "\nbroker.node.config.listener.name.";
        for (const char *p = strstr(text, k); p && !found; p = strstr(p + 1, k)) {
            const char *base;
            char key[512], lname[128];
            size_t n = strcspn(p + 20, "=\n");
            snprintf(key, sizeof(key), "%.*s", (int)n, p + 20);
            found = gr_cfg_listener_ssl_key(key, &base, lname, sizeof(lname));
        }
    }
    free(text);
    free(path);
    return found;
}

/* ---- meta.properties ---- */

static gr_err_t check_meta_properties(gr_meta_t *meta, const gr_props_t *p, const char *path, char *errstr, size_t sz) {
    const char *ver = gr_props_get(p, "version"), *node = gr_props_get(p, "node.id");
    const char *cid = gr_props_get(p, "cluster.id");
    int64_t id;
    if (!ver || strcmp(ver, "1") != 0) {
        snprintf(errstr, sz, "%s: unsupported meta.properties version %s (expected 1)", path, ver ? ver : "(none)");
        return GR_ERR__MALFORMED;
    }
    if (!cid || !cid[0] || strlen(cid) >= sizeof(meta->cluster_id) || !node ||
        !gr_cfg_parse_i64(GR_CFG_INT, node, &id)) {
        snprintf(errstr, sz, "%s: cluster.id or node.id missing or malformed", path);
        return GR_ERR__MALFORMED;
    }
    if (id != meta->node_id) {
        snprintf(errstr, sz,
                 "Stored node id %lld in %s doesn't match configured node.id %d. If you moved your data, "
                 "make sure the configured node id matches; to create a new node, remove the data directory.",
                 (long long)id, path, meta->node_id);
        return GR_ERR__STATE;
    }
    snprintf(meta->cluster_id, sizeof(meta->cluster_id), "%s", cid);
    return GR_ERR_NONE;
}

gr_err_t gr__meta_load_meta_properties(gr_meta_t *meta, char *errstr, size_t sz) {
    char *path = path_join(meta->log_dir, "meta.properties");
    gr_props_t p;
    gr_props_init(&p);
    gr_err_t err;
    if (access(path, F_OK) == 0) {
        if (!(err = gr_props_load_file(&p, path, errstr, sz))) err = check_meta_properties(meta, &p, path, errstr, sz);
    } else {
        gr_uuid_t u = gr_uuid_random();
        gr_uuid_to_base64(&u, meta->cluster_id);
        char text[256];
        int n = snprintf(text, sizeof(text), "#\n#Written by gregord\ncluster.id=%s\nnode.id=%d\nversion=1\n",
                         meta->cluster_id, meta->node_id);
        err = gr__meta_write_atomic(path, text, (size_t)n, errstr, sz);
        meta->is_new = !err;
    }
    gr_props_free(&p);
    free(path);
    return err;
}

/* ---- gregor.metadata ---- */

static void topic_props(const gr_meta_topic_t *t, size_t i, gr_props_t *p) {
    char key[512], val[64];
    snprintf(key, sizeof(key), "topic.%zu.name", i);
    gr_props_set(p, key, t->name, 0);
    gr_uuid_to_base64(&t->id, val);
    snprintf(key, sizeof(key), "topic.%zu.id", i);
    gr_props_set(p, key, val, 0);
    snprintf(key, sizeof(key), "topic.%zu.partitions", i);
    snprintf(val, sizeof(val), "%d", t->partitions);
    gr_props_set(p, key, val, 0);
    snprintf(key, sizeof(key), "topic.%zu.created.ms", i);
    snprintf(val, sizeof(val), "%lld", (long long)t->created_ms);
    gr_props_set(p, key, val, 0);
    for (size_t k = 0; k < t->configs.n; k++) {
        snprintf(key, sizeof(key), "topic.%zu.config.%s", i, t->configs.v[k].key);
        gr_props_set(p, key, t->configs.v[k].value, 0);
    }
}

static void level_props(const gr_props_t *level, const char *prefix, gr_props_t *p) {
    char key[512];
    for (size_t k = 0; k < level->n; k++) {
        snprintf(key, sizeof(key), "%s%s", prefix, level->v[k].key);
        gr_props_set(p, key, level->v[k].value, 0);
    }
}

gr_err_t gr__meta_persist(const gr_meta_t *meta, char *errstr, size_t sz) {
    gr_props_t p;
    gr_props_init(&p);
    gr_props_set(&p, "format.version", "1", 0);
    for (size_t i = 0; i < meta->n_topics; i++) topic_props(meta->topics[i], i, &p);
    level_props(&meta->dyn_broker, "broker.node.config.", &p);
    level_props(&meta->dyn_default, "broker.default.config.", &p);
    level_props(&meta->features, "feature.", &p);
    if (meta->features.n) {
        char ep[32];
        snprintf(ep, sizeof(ep), "%lld", (long long)meta->features_epoch);
        gr_props_set(&p, "features.epoch", ep, 0);
    }
    char *body = gr_props_format(&p);
    gr_props_free(&p);
    size_t hl = strlen(META_HEADER), bl = strlen(body);
    char *text = malloc(hl + bl + 32);
    if (!text) abort();
    memcpy(text, META_HEADER, hl);
    memcpy(text + hl, body, bl);
    uLong crc = crc32(0L, (const Bytef *)text, (uInt)(hl + bl));
    int n = snprintf(text + hl + bl, 32, "checksum=%08lx\n", (unsigned long)crc);
    gr_err_t err = gr__meta_write_atomic(meta->meta_path, text, hl + bl + (size_t)n, errstr, sz);
    free(text);
    free(body);
    return err;
}

static gr_err_t corrupt(char *errstr, size_t sz, const char *path, const char *why) {
    snprintf(errstr, sz,
             "metadata file %s is corrupted (%s); restore it from a backup, or move it away to start "
             "with no topics",
             path, why);
    return GR_ERR__MALFORMED;
}

/* Verify the trailer; *body_len is the length covered by the checksum. */
static bool check_crc(const char *b, size_t len, size_t *body_len) {
    if (len < 2 || b[len - 1] != '\n') return false;
    size_t i = len - 1;
    while (i > 0 && b[i - 1] != '\n') i--;
    unsigned long want;
    char tail;
    if (sscanf(b + i, "checksum=%8lx%c", &want, &tail) != 2 || tail != '\n') return false;
    *body_len = i;
    return crc32(0L, (const Bytef *)b, (uInt)i) == want;
}

typedef struct topic_slots {
    gr_meta_topic_t **v;
    size_t n;
} topic_slots_t;

static gr_meta_topic_t *slot(topic_slots_t *s, size_t idx) {
    if (idx >= s->n) {
        size_t nn = idx + 1;
        s->v = realloc(s->v, nn * sizeof(*s->v));
        if (!s->v) abort();
        memset(s->v + s->n, 0, (nn - s->n) * sizeof(*s->v));
        s->n = nn;
    }
    if (!s->v[idx]) {
        s->v[idx] = calloc(1, sizeof(gr_meta_topic_t));
        if (!s->v[idx]) abort();
        gr_props_init(&s->v[idx]->configs);
    }
    return s->v[idx];
}

/* One "topic.<n>.<field>" entry. Returns false if malformed. */
static bool load_topic_field(topic_slots_t *s, const char *key, const char *val) {
    char *end;
    unsigned long idx = strtoul(key + 6, &end, 10);
    if (end == key + 6 || *end != '.' || idx > MAX_TOPIC_INDEX) return false;
    const char *field = end + 1;
    gr_meta_topic_t *t = slot(s, idx);
    int64_t x;
    if (!strcmp(field, "name")) {
        free(t->name);
        t->name = strdup(val);
        return t->name != NULL;
    }
    if (!strcmp(field, "id")) return gr_uuid_from_base64(val, &t->id) && !gr_uuid_is_zero(&t->id);
    if (!strcmp(field, "partitions")) {
        if (!gr_cfg_parse_i64(GR_CFG_INT, val, &x) || x < 1 || x > GR_META_MAX_PARTITIONS) return false;
        t->partitions = (int32_t)x;
        return true;
    }
    if (!strcmp(field, "created.ms")) return gr_cfg_parse_i64(GR_CFG_LONG, val, &t->created_ms);
    if (!strncmp(field, "config.", 7) && field[7]) {
        gr_props_set(&t->configs, field + 7, val, 0);
        return true;
    }
    return false;
}

static gr_err_t load_entries(gr_meta_t *meta, const gr_props_t *p, topic_slots_t *s, char *errstr, size_t sz) {
    const char *ver = gr_props_get(p, "format.version");
    if (!ver || strcmp(ver, "1")) return corrupt(errstr, sz, meta->meta_path, "unknown format.version");
    for (size_t i = 0; i < p->n; i++) {
        const char *k = p->v[i].key, *v = p->v[i].value;
        char why[320];
        bool ok = true;
        if (!strcmp(k, "format.version")) continue;
        if (!strncmp(k, "topic.", 6))
            ok = load_topic_field(s, k, v);
        else if (!strncmp(k, "broker.node.config.", 19) && k[19])
            gr_props_set(&meta->dyn_broker, k + 19, v, 0);
        else if (!strncmp(k, "broker.default.config.", 22) && k[22])
            gr_props_set(&meta->dyn_default, k + 22, v, 0);
        else if (!strncmp(k, "feature.", 8) && k[8])
            gr_props_set(&meta->features, k + 8, v, 0);
        else if (!strcmp(k, "features.epoch"))
            ok = gr_cfg_parse_i64(GR_CFG_LONG, v, &meta->features_epoch) && meta->features_epoch >= 1;
        else
            ok = false;
        if (!ok) {
            snprintf(why, sizeof(why), "bad entry %.200s", k);
            return corrupt(errstr, sz, meta->meta_path, why);
        }
    }
    return GR_ERR_NONE;
}

/* Move complete topics from the slots into the store, checking uniqueness. */
static gr_err_t adopt_topics(gr_meta_t *meta, topic_slots_t *s, char *errstr, size_t sz) {
    for (size_t i = 0; i < s->n; i++) {
        gr_meta_topic_t *t = s->v[i];
        if (!t) continue;
        if (!t->name || gr_uuid_is_zero(&t->id) || t->partitions < 1)
            return corrupt(errstr, sz, meta->meta_path, "incomplete topic entry");
        if (gr_meta_topic_find(meta, t->name) || gr_meta_topic_find_id(meta, &t->id))
            return corrupt(errstr, sz, meta->meta_path, "duplicate topic");
        s->v[i] = NULL;
        gr__meta_insert(meta, t);
    }
    return GR_ERR_NONE;
}

gr_err_t gr__meta_load(gr_meta_t *meta, char *errstr, size_t sz) {
    char *b = NULL;
    size_t len = 0, body_len = 0;
    gr_err_t err = read_all(meta->meta_path, &b, &len, errstr, sz);
    if (err == GR_ERR__NOENT) return GR_ERR_NONE;
    if (err) return err;
    gr_props_t p;
    gr_props_init(&p);
    topic_slots_t s = {0};
    char tmp[256];
    if (!check_crc(b, len, &body_len))
        err = corrupt(errstr, sz, meta->meta_path, "checksum mismatch");
    else if (gr_props_parse(&p, b, body_len, tmp, sizeof(tmp)))
        err = corrupt(errstr, sz, meta->meta_path, tmp);
    else if (!(err = load_entries(meta, &p, &s, errstr, sz)))
        err = adopt_topics(meta, &s, errstr, sz);
    for (size_t i = 0; i < s.n; i++)
        if (s.v[i]) gr__meta_topic_free(s.v[i]);
    free(s.v);
    gr_props_free(&p);
    free(b);
    return err;
}
