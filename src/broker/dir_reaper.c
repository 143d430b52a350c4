/* Directory removal thread (see dir_reaper.h). One mutex guards both lists; the thread
 * holds it only to move items, never while removing. */
#include "broker/dir_reaper.h"

#include <pthread.h>
#include <stdlib.h>

#include "broker/part_tomb.h"

struct gr_dir_reaper {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;      /* work queued, or stop */
    pthread_cond_t idle_cv; /* the queue ran empty */
    gr_reap_item_t *head, **tail;
    gr_reap_item_t *done;
    bool busy, stop;
};

static void *reaper_main(void *arg) {
    gr_dir_reaper_t *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->head && !r->stop) pthread_cond_wait(&r->cv, &r->mu);
        if (r->stop) break;
        gr_reap_item_t *it = r->head;
        r->head = it->next;
        if (!r->head) r->tail = &r->head;
        r->busy = true;
        pthread_mutex_unlock(&r->mu);
        it->result = gr_tomb_rmdir(it->dir);
        pthread_mutex_lock(&r->mu);
        r->busy = false;
        it->next = r->done;
        r->done = it;
        if (!r->head) pthread_cond_broadcast(&r->idle_cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

gr_dir_reaper_t *gr_dir_reaper_new(void) {
    gr_dir_reaper_t *r = calloc(1, sizeof(*r));
    if (!r) abort();
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    pthread_cond_init(&r->idle_cv, NULL);
    r->tail = &r->head;
    if (pthread_create(&r->th, NULL, reaper_main, r) != 0) {
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->cv);
        pthread_cond_destroy(&r->idle_cv);
        free(r);
        return NULL;
    }
    return r;
}

void gr_dir_reaper_push(gr_dir_reaper_t *r, gr_reap_item_t *it) {
    it->next = NULL;
    pthread_mutex_lock(&r->mu);
    *r->tail = it;
    r->tail = &it->next;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

gr_reap_item_t *gr_dir_reaper_take_done(gr_dir_reaper_t *r) {
    pthread_mutex_lock(&r->mu);
    gr_reap_item_t *d = r->done;
    r->done = NULL;
    pthread_mutex_unlock(&r->mu);
    return d;
}

void gr_dir_reaper_wait_idle(gr_dir_reaper_t *r) {
    pthread_mutex_lock(&r->mu);
    while (r->head || r->busy) pthread_cond_wait(&r->idle_cv, &r->mu);
    pthread_mutex_unlock(&r->mu);
}

void gr_dir_reaper_free(gr_dir_reaper_t *r, gr_reap_item_t **queued, gr_reap_item_t **done) {
    *queued = *done = NULL;
    if (!r) return;
    pthread_mutex_lock(&r->mu);
    r->stop = true;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->th, NULL);
    *queued = r->head;
    *done = r->done;
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    pthread_cond_destroy(&r->idle_cv);
    free(r);
}
