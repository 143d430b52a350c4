/* Opening the partition logs of a created or grown topic a few at a time, and removing
 * the partition directories of deleted topics the same way.
 *
 * Each log costs a directory, three files and several fsyncs (about 0.25 ms on a
 * fast disk), so one CreateTopics with 19,000 partitions used to hold the event loop
 * for seconds. The metadata is written at once (the topic exists; Metadata shows its
 * partitions with LEADER_NOT_AVAILABLE until their logs are open); the logs are opened
 * from a zero-delay timer, at most OPEN_BUDGET_MS per loop iteration, in FIFO order,
 * and the request is answered when all of its topics are done. A job outlives its
 * request: a client that disconnects (or a cancelled request) does not stop the
 * opening. At shutdown the jobs are dropped; the next start opens every partition the
 * metadata lists.
 *
 * Deletion is the mirror image: DeleteTopics writes a tombstone, drops the topic from the
 * lookups and the metadata at once (partitions.c), and this timer closes the logs
 * (REAP_BATCH between two looks at the clock) and hands their directories to the reaper
 * thread (dir_reaper.c), before any opening, so a topic re-created with the same name opens its logs only once the old
 * directories are gone. @locality loop thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "broker/broker_int.h"

#define OPEN_BUDGET_MS  5  /* loop time spent opening logs per iteration */
#define OPEN_BATCH      1  /* logs opened between two looks at the clock (one costs several fsyncs) */
#define REAP_BATCH      1  /* deleted partition logs closed between two looks (their files go in a thread) */
#define PINNED_RETRY_MS 10 /* deleted partitions pinned or in the reaper thread: look again later */

struct gr_topic_job {
    gr_topic_job_t *next;
    gr_uuid_t topic_id;
    char *name;
    bool drop_on_error; /* a new topic: an open failure deletes it (no half-created topic) */
    gr_req_t *req;      /* waiting request (NULL once answered or cancelled) */
    int16_t *err_code;  /* where to report a failure, inside req's response */
    gr_str_t *err_msg;
};

/* Park state of a request waiting for its jobs. */
typedef struct job_wait {
    int pending;
    const void *resp;
} job_wait_t;

static void job_finish(gr_broker_t *b, gr_topic_job_t *job, gr_err_t err, const char *errstr) {
    gr_req_t *req = job->req;
    if (req && err) {
        *job->err_code = (int16_t)err;
        *job->err_msg = gr_req_msg(req, "%s", errstr);
    }
    free(job->name);
    free(job);
    if (!req) return;
    job_wait_t *w = req->park;
    if (--w->pending > 0) return;
    gr_broker_unpark(b, req);
    gr_req_respond(req, w->resp);
}

/* A failed open of a new topic removes it again; a grown topic keeps what is open. */
static void job_failed(gr_broker_t *b, gr_topic_job_t *job, const char *errstr) {
    GR_ERROR("topics", "opening the logs of topic %s failed: %s", job->name, errstr);
    if (!job->drop_on_error) return;
    char tmp[256];
    if (gr_parts_delete_topic(b->parts, &job->topic_id, tmp, sizeof(tmp)))
        GR_ERROR("topics", "rolling back topic %s: %s", job->name, tmp);
    else if (gr_meta_topic_delete(b->meta, job->name, tmp, sizeof(tmp)))
        GR_ERROR("topics", "rolling back topic %s failed: %s", job->name, tmp);
}

static void open_step(gr_timer_t *timer, int64_t now) {
    gr_broker_t *b = timer->data;
    int64_t t0 = gr_clock_mono_ms();
    int64_t again = 0;
    (void)now;
    while (gr_clock_mono_ms() - t0 < OPEN_BUDGET_MS) {
        /* Deleted topics' directories first: a re-created topic of the same name waits for them. */
        if (gr_parts_reap_some(b->parts, REAP_BATCH) > 0) continue;
        if (gr_parts_deleting(b->parts)) again = PINNED_RETRY_MS; /* only pinned ones left */
        if (!b->topic_jobs) break;
        gr_topic_job_t *job = b->topic_jobs;
        const gr_meta_topic_t *mt = gr_meta_topic_find_id(b->meta, &job->topic_id);
        bool done = true;
        gr_err_t err = GR_ERR_NONE;
        char errstr[256] = "";
        if (mt && gr_parts_name_deleting(b->parts, job->name)) break; /* retried after PINNED_RETRY_MS */
        /* A topic deleted meanwhile is simply done. */
        if (mt)
            err = gr_parts_add_topic_some(b->parts, mt, gr_clock_wall_ms(), OPEN_BATCH, &done, errstr, sizeof(errstr));
        if (!err && !done) continue;
        b->topic_jobs = job->next;
        if (err) {
            job_failed(b, job, errstr);
            err = GR_ERR_KAFKA_STORAGE_ERROR;
        } else if (mt) {
            GR_INFO("topics", "topic %s: all %d partition log(s) open", job->name, mt->partitions);
        }
        job_finish(b, job, err, errstr);
    }
    if (b->topic_jobs || gr_parts_deleting(b->parts)) gr_timer_start(timer, again, 0);
}

void gr_broker_topic_jobs_kick(gr_broker_t *b) {
    if (!gr_timer_is_active(&b->topic_timer)) gr_timer_start(&b->topic_timer, 0, 0);
}

void gr_broker_topic_jobs_init(gr_broker_t *b) {
    gr_timer_init(b->loop, &b->topic_timer, open_step, b);
    /* Runs once the loop does (after the partitions are open): finishes the deletes a
     * restart interrupted (their tombstones), if any. */
    gr_timer_start(&b->topic_timer, 0, 0);
}

void gr_broker_topic_jobs_stop(gr_broker_t *b) {
    gr_timer_stop(&b->topic_timer);
    while (b->topic_jobs) {
        gr_topic_job_t *job = b->topic_jobs;
        b->topic_jobs = job->next;
        free(job->name);
        free(job);
    }
}

void gr_broker_topic_open_later(gr_broker_t *b, gr_req_t *req, const gr_meta_topic_t *t, bool drop_on_error,
                                int16_t *err_code, gr_str_t *err_msg) {
    gr_topic_job_t *job = calloc(1, sizeof(*job));
    if (!job) abort();
    job->topic_id = t->id;
    job->name = strdup(t->name);
    if (!job->name) abort();
    job->drop_on_error = drop_on_error;
    job->req = req;
    job->err_code = err_code;
    job->err_msg = err_msg;
    gr_topic_job_t **pp = &b->topic_jobs;
    while (*pp) pp = &(*pp)->next;
    *pp = job;
    if (!req->park) {
        job_wait_t *w = gr_arena_alloc(&req->arena, sizeof(*w));
        *w = (job_wait_t){0};
        req->park = w;
    }
    ((job_wait_t *)req->park)->pending++;
    if (!gr_timer_is_active(&b->topic_timer)) gr_timer_start(&b->topic_timer, 0, 0);
}

/* Client gone or shutdown: answer now (the answer is dropped), the jobs go on. */
static void wait_cancel(gr_req_t *req) {
    for (gr_topic_job_t *job = req->b->topic_jobs; job; job = job->next)
        if (job->req == req) job->req = NULL;
    gr_req_respond(req, ((job_wait_t *)req->park)->resp);
}

void gr_broker_topic_respond_when_open(gr_req_t *req, const void *resp) {
    job_wait_t *w = req->park;
    if (!w || w->pending == 0) {
        gr_req_respond(req, resp);
        return;
    }
    w->resp = resp;
    gr_broker_park(req->b, req, wait_cancel);
}
