/* Hosted partitions: topic entries hashed by name and by topic id, each with
 * its array of partitions and their logs. */
#include "broker/partitions.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/log.h"
#include "broker/dir_reaper.h"
#include "broker/part_tomb.h"
#include "broker/producers.h"
#include "broker/producers_load.h"
#include "proto/records.h"

typedef struct parts_topic {
    char *name;
    gr_uuid_t id;
    int32_t n;
    gr_partition_t **p;
    struct parts_topic *next_name, *next_id; /* hash chains */
} parts_topic_t;

#define PARTS_BUCKETS 1024

/* A deleted topic whose directories are not all removed yet (its tombstone on disk). */
typedef struct tomb {
    struct tomb *next;
    gr_uuid_t id;
    char *name;   /* a topic of this name opens no log while left > 0 */
    int32_t left; /* directories not removed yet */
} tomb_t;

/* One partition directory to remove: an open log (p) or, after a restart, only the path.
 * It waits in the FIFO (until unpinned), then goes to the reaper thread without its log. */
typedef struct doomed {
    gr_reap_item_t it; /* first: it.next links the FIFO too, it.dir is the directory */
    gr_partition_t *p; /* NULL: only the path */
    tomb_t *tomb;
} doomed_t;

struct gr_parts {
    gr_meta_t *meta;
    char *log_dir;
    parts_topic_t *by_name[PARTS_BUCKETS];
    parts_topic_t *by_id[PARTS_BUCKETS];
    gr_partition_t **all; /* flat list for housekeeping */
    size_t n_all, cap_all;
    gr_reap_item_t *doomed, **doomed_tail; /* FIFO of doomed_t, handed over by gr_parts_reap_some */
    size_t n_doomed;                       /* directories not removed yet (FIFO + reaper) */
    tomb_t *tombs;
    gr_dir_reaper_t *reaper;       /* started at the first delete */
    int fs_fd;                     /* the data dir, open from start-up: syncfs at shutdown sees every error since */
    gr_parts_progress_cb progress; /* set only while gr_parts_open runs */
    void *progress_arg;
};

/* Keyed: topic names are the clients' choice. */
static uint32_t hash_bytes(const void *p, size_t n) { return (uint32_t)gr_hash(p, n); }
static uint32_t name_bucket(const char *name) { return hash_bytes(name, strlen(name)) % PARTS_BUCKETS; }
static uint32_t id_bucket(const gr_uuid_t *id) { return hash_bytes(id->b, 16) % PARTS_BUCKETS; }

static parts_topic_t *topic_by_name(gr_parts_t *ps, const char *name) {
    for (parts_topic_t *t = ps->by_name[name_bucket(name)]; t; t = t->next_name)
        if (!strcmp(t->name, name)) return t;
    return NULL;
}
static parts_topic_t *topic_by_id(gr_parts_t *ps, const gr_uuid_t *id) {
    for (parts_topic_t *t = ps->by_id[id_bucket(id)]; t; t = t->next_id)
        if (!memcmp(t->id.b, id->b, 16)) return t;
    return NULL;
}

/* Kafka stores "forever" as Long.MAX_VALUE; the log engine uses -1. */
static int64_t forever_as_none(int64_t v) { return v >= INT64_MAX / 2 ? -1 : v; }

static void plog_config_for(gr_parts_t *ps, const gr_meta_topic_t *t, gr_plog_config_t *c) {
    gr_plog_config_default(c);
    c->segment_bytes = gr_meta_topic_config_i64(ps->meta, t, "segment.bytes");
    c->segment_ms = gr_meta_topic_config_i64(ps->meta, t, "segment.ms");
    c->segment_index_bytes = gr_meta_topic_config_i64(ps->meta, t, "segment.index.bytes");
    c->index_interval_bytes = (int32_t)gr_meta_topic_config_i64(ps->meta, t, "index.interval.bytes");
    c->retention_ms = gr_meta_topic_config_i64(ps->meta, t, "retention.ms");
    c->retention_bytes = gr_meta_topic_config_i64(ps->meta, t, "retention.bytes");
    c->flush_interval_messages = gr_meta_topic_config_i64(ps->meta, t, "flush.messages");
    c->flush_interval_ms = forever_as_none(gr_meta_topic_config_i64(ps->meta, t, "flush.ms"));
    if (c->segment_bytes <= 0) c->segment_bytes = 1073741824;
    if (c->segment_index_bytes <= 0) c->segment_index_bytes = 10485760;
    if (c->index_interval_bytes <= 0) c->index_interval_bytes = 4096;
    if (c->flush_interval_messages <= 0) c->flush_interval_messages = INT64_MAX;
}

static void all_push(gr_parts_t *ps, gr_partition_t *p) {
    if (ps->n_all == ps->cap_all) {
        ps->cap_all = ps->cap_all ? ps->cap_all * 2 : 64;
        ps->all = realloc(ps->all, ps->cap_all * sizeof(*ps->all));
        if (!ps->all) abort();
    }
    ps->all[ps->n_all++] = p;
}

/* One pass for a whole topic (a per-partition search was quadratic: seconds for a
 * topic of 19,000 partitions). */
static void all_remove_topic(gr_parts_t *ps, const gr_uuid_t *id) {
    size_t k = 0;
    for (size_t i = 0; i < ps->n_all; i++)
        if (memcmp(ps->all[i]->topic_id.b, id->b, 16)) ps->all[k++] = ps->all[i];
    ps->n_all = k;
}

/* Producer state (idempotence and transactions) comes back from the partition's
 * snapshot and the log after it (producers_load.c). A partition gets a durable snapshot
 * before its first transactional batch (gr_partition_txn_ready), so one without a snapshot
 * never had a transaction and its tail is enough to rebuild; only partitions with a
 * snapshot write it again (periodically and at shutdown), others never pay for it. A snapshot replaced later
 * without fsync can be lost to a power failure only as a whole file replaced by a torn
 * one (rename), which makes the open read the whole log, never as a missing file. */
#define SNAPSHOT_EVERY_MIN (16u << 20)

static size_t producers_max(gr_parts_t *ps) {
    int64_t max = gr_meta_broker_config_i64(ps->meta, "gregor.producer.state.max.producers");
    return max > 0 ? (size_t)max : GR_PRODUCERS_DEFAULT_MAX;
}

static void load_producers(gr_parts_t *ps, gr_partition_t *p) {
    gr_producers_load_info_t li;
    size_t max = producers_max(ps);
    p->producers = gr_producers_load(p->plog, p->dir, max, &li);
    uint64_t evicted, refused;
    gr_producers_counters(p->producers, &evicted, &refused);
    if (evicted)
        GR_WARN("partitions",
                "%s-%d: %llu producer id(s) left out of the rebuilt producer state "
                "(gregor.producer.state.max.producers=%zu); the most recent were kept",
                p->topic, p->index, (unsigned long long)evicted, max);
    p->snap_every = SNAPSHOT_EVERY_MIN;
    p->snap_exists = li.had_snapshot || li.full_scan;
    if (li.full_scan) {
        GR_INFO("partitions", "%s-%d: producer state rebuilt from the whole log", p->topic, p->index);
        gr_producers_save(p->producers, p->plog, p->dir, false); /* next time from here */
    }
}

gr_err_t gr_partition_txn_ready(gr_partition_t *p) {
    if (p->snap_durable) return GR_ERR_NONE;
    if (gr_producers_save(p->producers, p->plog, p->dir, true)) return GR_ERR_KAFKA_STORAGE_ERROR;
    p->snap_durable = p->snap_exists = true;
    p->snap_bytes = 0;
    return GR_ERR_NONE;
}

int64_t gr_partition_lso(const gr_partition_t *p) {
    int64_t hw = gr_plog_end_offset(p->plog), fu = gr_producers_first_unstable(p->producers);
    if (fu < 0 || fu >= hw) return hw;
    int64_t start = gr_plog_start_offset(p->plog); /* Kafka: never below the log start */
    return fu > start ? fu : start;
}

void gr_partition_appended(gr_partition_t *p, size_t bytes) {
    p->snap_bytes += bytes;
    gr_producers_prune(p->producers, gr_plog_start_offset(p->plog)); /* retention, DeleteRecords */
    if (!p->snap_exists || p->snap_bytes < p->snap_every || p->markers_pending > 0 || p->offline) return;
    p->snap_bytes = 0;
    /* A large state (many aborted transactions kept) is written less often. */
    size_t approx = gr_producers_count(p->producers) * 120 +
                    gr_producers_aborted(p->producers, INT64_MIN, INT64_MAX, NULL, 0) * 32 + 64;
    p->snap_every = approx * 8 > SNAPSHOT_EVERY_MIN ? approx * 8 : SNAPSHOT_EVERY_MIN;
    gr_producers_save(p->producers, p->plog, p->dir, false);
}

static gr_err_t open_partition(gr_parts_t *ps, parts_topic_t *t, const gr_meta_topic_t *mt, int32_t i, int64_t now_ms,
                               char *errstr, size_t errstr_size) {
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/%s-%d", ps->log_dir, t->name, i);
    gr_plog_config_t cfg;
    plog_config_for(ps, mt, &cfg);
    gr_plog_t *plog;
    gr_err_t err = gr_plog_open(dir, &cfg, now_ms, &plog, errstr, errstr_size);
    if (err) return err;
    gr_partition_t *p = calloc(1, sizeof(*p));
    if (!p) abort();
    p->topic = strdup(t->name); /* own copy: a pinned partition may outlive its topic */
    p->topic_id = t->id;
    p->index = i;
    p->plog = plog;
    p->dir = strdup(dir);
    p->waiters.next = p->waiters.prev = &p->waiters;
    load_producers(ps, p);
    t->p[i] = p;
    all_push(ps, p);
    if (ps->progress) ps->progress(ps->progress_arg);
    return GR_ERR_NONE;
}

gr_err_t gr_parts_add_topic(gr_parts_t *ps, const gr_meta_topic_t *mt, int64_t now_ms, char *errstr,
                            size_t errstr_size) {
    bool done;
    return gr_parts_add_topic_some(ps, mt, now_ms, INT32_MAX, &done, errstr, errstr_size);
}

/* True while a deleted topic of this name still has directories to remove: a topic of
 * the same name opens no log before they are gone (its directories have the same names). */
static bool name_doomed(const gr_parts_t *ps, const char *name) {
    for (const tomb_t *tb = ps->tombs; tb; tb = tb->next)
        if (!strcmp(tb->name, name)) return true;
    return false;
}

static void reap_named(gr_parts_t *ps, const char *name);

gr_err_t gr_parts_add_topic_some(gr_parts_t *ps, const gr_meta_topic_t *mt, int64_t now_ms, int32_t max_new, bool *done,
                                 char *errstr, size_t errstr_size) {
    *done = false;
    if (ps->n_doomed && name_doomed(ps, mt->name)) {
        /* Opening everything at once (start-up, auto-creation) removes them now; the
         * progressive opening waits for gr_parts_reap_some. */
        if (max_new != INT32_MAX) return GR_ERR_NONE;
        reap_named(ps, mt->name);
        if (name_doomed(ps, mt->name)) {
            snprintf(errstr, errstr_size, "the deleted topic %s still has partition directories in use", mt->name);
            return GR_ERR_KAFKA_STORAGE_ERROR;
        }
    }
    parts_topic_t *t = topic_by_name(ps, mt->name);
    if (!t) {
        t = calloc(1, sizeof(*t));
        if (!t) abort();
        t->name = strdup(mt->name);
        t->id = mt->id;
        uint32_t nb = name_bucket(t->name), ib = id_bucket(&t->id);
        t->next_name = ps->by_name[nb];
        ps->by_name[nb] = t;
        t->next_id = ps->by_id[ib];
        ps->by_id[ib] = t;
    }
    *done = mt->partitions <= t->n;
    if (*done) return GR_ERR_NONE;
    gr_partition_t **np = realloc(t->p, (size_t)mt->partitions * sizeof(*np));
    if (!np) abort();
    t->p = np;
    int32_t end = mt->partitions - t->n > max_new ? t->n + max_new : mt->partitions;
    for (int32_t i = t->n; i < end; i++) {
        t->p[i] = NULL;
        gr_err_t err = open_partition(ps, t, mt, i, now_ms, errstr, errstr_size);
        if (err) return err;
        t->n = i + 1; /* lookups see each partition as soon as its log is open */
    }
    *done = t->n == mt->partitions;
    return GR_ERR_NONE;
}

static tomb_t *tomb_new(gr_parts_t *ps, const gr_uuid_t *id, const char *name) {
    tomb_t *tb = calloc(1, sizeof(*tb));
    if (!tb || !(tb->name = strdup(name))) abort();
    tb->id = *id;
    tb->next = ps->tombs;
    ps->tombs = tb;
    return tb;
}

static void doom(gr_parts_t *ps, tomb_t *tb, gr_partition_t *p, const char *topic, int32_t index) {
    doomed_t *d = calloc(1, sizeof(*d));
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/%s-%d", ps->log_dir, topic, index);
    if (!d || !(d->it.dir = strdup(dir))) abort();
    d->p = p;
    d->tomb = tb;
    tb->left++;
    *ps->doomed_tail = &d->it;
    ps->doomed_tail = &d->it.next;
    ps->n_doomed++;
}

/* A tombstone left by a delete that a restart interrupted: finish it, unless the topic is
 * still in the metadata (the crash came before the delete was committed: nothing happened). */
static void adopt_tomb(void *arg, const gr_uuid_t *id, const char *name, int32_t count) {
    gr_parts_t *ps = arg;
    if (gr_meta_topic_find_id(ps->meta, id) || count == 0) {
        gr_tomb_remove(ps->log_dir, id);
        return;
    }
    GR_INFO("partitions", "removing the %d partition directories of deleted topic %s", count, name);
    tomb_t *tb = tomb_new(ps, id, name);
    for (int32_t i = 0; i < count; i++) doom(ps, tb, NULL, name, i);
}

gr_err_t gr_parts_open(gr_parts_t **out, gr_meta_t *meta, const char *log_dir, int64_t now_ms,
                       gr_parts_progress_cb progress, void *progress_arg, char *errstr, size_t errstr_size) {
    gr_parts_t *ps = calloc(1, sizeof(*ps));
    if (!ps) abort();
    ps->meta = meta;
    ps->log_dir = strdup(log_dir);
    ps->doomed_tail = &ps->doomed;
    ps->fs_fd = open(log_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ps->progress = progress;
    ps->progress_arg = progress_arg;
    gr_tomb_scan(log_dir, adopt_tomb, ps);
    for (size_t i = 0; i < gr_meta_topic_count(meta); i++) {
        gr_err_t err = gr_parts_add_topic(ps, gr_meta_topic_at(meta, i), now_ms, errstr, errstr_size);
        if (err) {
            gr_parts_close(ps, progress, progress_arg);
            return err;
        }
    }
    ps->progress = NULL; /* later openings run in slices on the loop (topic_open.c) */
    *out = ps;
    return GR_ERR_NONE;
}

/* Wake (and thereby detach) parked fetches before the partition goes away. */
static void wake_all(gr_partition_t *p) {
    while (p->waiters.next != &p->waiters) {
        gr_partition_waiter_t *w = p->waiters.next;
        gr_partition_unwait(w);
        w->fn(w->arg);
    }
}

/* A deleted topic's partition: its log is closed without a flush (the reaper thread or the
 * next start removes the files). */
static void partition_free(gr_partition_t *p) {
    wake_all(p);
    gr_plog_abandon(p->plog);
    gr_producers_free(p->producers);
    free(p->dir);
    free(p->topic);
    free(p);
}

static void topic_unlink(gr_parts_t *ps, parts_topic_t *t) {
    parts_topic_t **pp = &ps->by_name[name_bucket(t->name)];
    while (*pp != t) pp = &(*pp)->next_name;
    *pp = t->next_name;
    pp = &ps->by_id[id_bucket(&t->id)];
    while (*pp != t) pp = &(*pp)->next_id;
    *pp = t->next_id;
}

static void topic_free(parts_topic_t *t) {
    free(t->p);
    free(t->name);
    free(t);
}

/* Only what the request must see happens here: the tombstone, the lookups and the
 * waiters. Closing the logs and removing their files (about 80 us each) is left to
 * gr_parts_reap_some, a few per loop iteration. */
gr_err_t gr_parts_delete_topic(gr_parts_t *ps, const gr_uuid_t *topic_id, char *errstr, size_t errstr_size) {
    parts_topic_t *t = topic_by_id(ps, topic_id);
    if (!t) return GR_ERR_NONE;
    if (t->n > 0) {
        gr_err_t err = gr_tomb_write(ps->log_dir, &t->id, t->name, t->n, errstr, errstr_size);
        if (err) return err;
    }
    topic_unlink(ps, t);
    all_remove_topic(ps, &t->id);
    tomb_t *tb = t->n > 0 ? tomb_new(ps, &t->id, t->name) : NULL;
    for (int32_t i = 0; i < t->n; i++) {
        gr_partition_t *p = t->p[i];
        wake_all(p);
        p->deleted = true;
        doom(ps, tb, p, t->name, i);
    }
    topic_free(t);
    return GR_ERR_NONE;
}

static void tomb_done(gr_parts_t *ps, tomb_t *tb) {
    if (--tb->left > 0) return;
    gr_tomb_remove(ps->log_dir, &tb->id);
    tomb_t **pp = &ps->tombs;
    while (*pp != tb) pp = &(*pp)->next;
    *pp = tb->next;
    free(tb->name);
    free(tb);
}

static void doomed_free(doomed_t *d) {
    free(d->it.dir);
    free(d);
}

/* Take back what the reaper thread removed: a topic's tombstone goes with its last one. */
static void drain_done(gr_parts_t *ps) {
    gr_reap_item_t *it = ps->reaper ? gr_dir_reaper_take_done(ps->reaper) : NULL;
    while (it) {
        doomed_t *d = (doomed_t *)it;
        it = it->next;
        if (d->it.result < 0) GR_WARN("partitions", "removing %s: %s", d->it.dir, strerror(-d->it.result));
        ps->n_doomed--;
        tomb_done(ps, d->tomb);
        doomed_free(d);
    }
}

/* Close *pp's log (the loop thread owns it) and hand its directory to the reaper thread,
 * unless a flusher request still pins the log. Without a thread, remove it right here. */
static bool hand_over(gr_parts_t *ps, gr_reap_item_t **pp) {
    doomed_t *d = (doomed_t *)*pp;
    if (d->p && d->p->pins > 0) return false;
    *pp = d->it.next;
    if (!*pp) ps->doomed_tail = pp;
    if (d->p) partition_free(d->p); /* closes the fds; the files stay for the thread */
    d->p = NULL;
    if (!ps->reaper) ps->reaper = gr_dir_reaper_new();
    if (ps->reaper) {
        gr_dir_reaper_push(ps->reaper, &d->it);
        return true;
    }
    d->it.result = gr_tomb_rmdir(d->it.dir);
    if (d->it.result < 0) GR_WARN("partitions", "removing %s: %s", d->it.dir, strerror(-d->it.result));
    ps->n_doomed--;
    tomb_done(ps, d->tomb);
    doomed_free(d);
    return true;
}

size_t gr_parts_reap_some(gr_parts_t *ps, size_t max) {
    drain_done(ps);
    size_t n = 0;
    gr_reap_item_t **pp = &ps->doomed;
    while (*pp && n < max)
        if (hand_over(ps, pp))
            n++;
        else
            pp = &(*pp)->next;
    return n;
}

/* Synchronous paths: hand over every directory of that name and wait for the thread. */
static void reap_named(gr_parts_t *ps, const char *name) {
    gr_reap_item_t **pp = &ps->doomed;
    while (*pp)
        if (strcmp(((doomed_t *)*pp)->tomb->name, name) || !hand_over(ps, pp)) pp = &(*pp)->next;
    if (ps->reaper) gr_dir_reaper_wait_idle(ps->reaper);
    drain_done(ps);
}

size_t gr_parts_deleting(const gr_parts_t *ps) { return ps->n_doomed; }

bool gr_parts_name_deleting(const gr_parts_t *ps, const char *name) { return ps->n_doomed && name_doomed(ps, name); }

/* The logs of every hosted partition, closed together (gr_plog_close_many). */
static void close_all_logs(gr_parts_t *ps, gr_parts_progress_cb progress, void *progress_arg) {
    gr_plog_t **logs = malloc((ps->n_all ? ps->n_all : 1) * sizeof(*logs));
    if (!logs) abort();
    size_t n = 0;
    for (size_t b = 0; b < PARTS_BUCKETS; b++) {
        parts_topic_t *t = ps->by_name[b];
        while (t) {
            parts_topic_t *next = t->next_name;
            for (int32_t i = 0; i < t->n; i++) {
                gr_partition_t *p = t->p[i];
                wake_all(p);
                /* Not fsynced here: gr_plog_close_many's syncfs covers it. */
                if (p->snap_exists && p->snap_bytes > 0 && p->markers_pending == 0 && !p->offline)
                    gr_producers_save(p->producers, p->plog, p->dir, false);
                if (n < ps->n_all)
                    logs[n++] = p->plog;
                else
                    gr_plog_close(p->plog); /* not in the flat list: cannot happen, but stay safe */
                gr_producers_free(p->producers);
                free(p->dir);
                free(p->topic);
                free(p);
            }
            topic_free(t);
            t = next;
        }
    }
    gr_plog_close_many(logs, n, ps->fs_fd, progress, progress_arg);
    free(logs);
}

void gr_parts_close(gr_parts_t *ps, gr_parts_progress_cb progress, void *progress_arg) {
    if (!ps) return;
    close_all_logs(ps, progress, progress_arg);
    /* Directories not removed yet keep their tombstone: the next start removes them. */
    gr_reap_item_t *queued, *done;
    gr_dir_reaper_free(ps->reaper, &queued, &done);
    while (done) {
        doomed_t *d = (doomed_t *)done;
        done = done->next;
        tomb_done(ps, d->tomb);
        doomed_free(d);
    }
    while (queued) {
        doomed_t *d = (doomed_t *)queued;
        queued = queued->next;
        doomed_free(d);
    }
    while (ps->doomed) {
        doomed_t *d = (doomed_t *)ps->doomed;
        ps->doomed = d->it.next;
        if (d->p) partition_free(d->p);
        doomed_free(d);
    }
    while (ps->tombs) {
        tomb_t *tb = ps->tombs;
        ps->tombs = tb->next;
        free(tb->name);
        free(tb);
    }
    if (ps->fs_fd >= 0) close(ps->fs_fd);
    free(ps->all);
    free(ps->log_dir);
    free(ps);
}

gr_partition_t *gr_parts_find(gr_parts_t *ps, const char *topic, int32_t index) {
    parts_topic_t *t = topic_by_name(ps, topic);
    return t && index >= 0 && index < t->n ? t->p[index] : NULL;
}

gr_partition_t *gr_parts_find_id(gr_parts_t *ps, const gr_uuid_t *topic_id, int32_t index) {
    parts_topic_t *t = topic_by_id(ps, topic_id);
    return t && index >= 0 && index < t->n ? t->p[index] : NULL;
}

size_t gr_parts_count(const gr_parts_t *ps) { return ps->n_all; }
gr_partition_t *gr_parts_at(gr_parts_t *ps, size_t i) { return ps->all[i]; }

void gr_parts_reconfigure(gr_parts_t *ps, const gr_meta_topic_t *mt) {
    parts_topic_t *t = topic_by_name(ps, mt->name);
    if (!t) return;
    gr_plog_config_t cfg;
    plog_config_for(ps, mt, &cfg);
    size_t max = producers_max(ps);
    for (int32_t i = 0; i < t->n; i++) {
        gr_plog_set_config(t->p[i]->plog, &cfg);
        if (!t->p[i]->producers) continue;
        size_t n = gr_producers_set_max(t->p[i]->producers, max);
        if (n)
            GR_INFO("partitions", "%s-%d: %zu producer id(s) evicted (gregor.producer.state.max.producers=%zu)",
                    t->p[i]->topic, t->p[i]->index, n, max);
    }
}

void gr_parts_reconfigure_all(gr_parts_t *ps) {
    for (size_t i = 0; i < gr_meta_topic_count(ps->meta); i++) gr_parts_reconfigure(ps, gr_meta_topic_at(ps->meta, i));
}

void gr_partition_pin(gr_partition_t *p) { p->pins++; }

/* A deleted partition is freed by gr_parts_reap_some once unpinned. */
void gr_partition_unpin(gr_partition_t *p) { p->pins--; }

void gr_partition_wait(gr_partition_t *p, gr_partition_waiter_t *w, gr_partition_wake_fn fn, void *arg) {
    w->fn = fn;
    w->arg = arg;
    w->next = &p->waiters;
    w->prev = p->waiters.prev;
    w->prev->next = w;
    p->waiters.prev = w;
    w->linked = true;
}

void gr_partition_unwait(gr_partition_waiter_t *w) {
    if (!w->linked) return;
    w->prev->next = w->next;
    w->next->prev = w->prev;
    w->linked = false;
}

void gr_partition_notify(gr_partition_t *p) {
    /* A woken waiter usually unlinks itself (and possibly others); restart
     * from the head each time so the iteration survives that. */
    gr_partition_waiter_t *w = p->waiters.next;
    while (w != &p->waiters) {
        gr_partition_waiter_t *next = w->next;
        w->fn(w->arg);
        w = next;
    }
}
