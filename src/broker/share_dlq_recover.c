/* Start-up recovery of the atomic DLQ write (docs/dlq.md §7).
 *
 * A dead-lettering transition appends its DLQ records, then its share-state record;
 * the share-state record commits both. After kill -9 between the two appends, the
 * DLQ holds records whose archive the share state does not have: without recovery
 * the source records would be delivered again and could be dead-lettered twice.
 * Such records can only sit at the tail of a DLQ partition (the two appends happen
 * in one step on the loop thread, DLQ first), so the tail of every DLQ topic's
 * partitions is read back and each record whose source offset the share state does
 * not show archived gets its archive written now (rolled forward), with the delivery
 * count its header names. Records of groups or topics that no longer exist are left.
 *
 * @locality loop thread, at start-up. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/share_dlq.h"
#include "share/dlq.h"

#define RECOVER_BYTES (4 << 20) /* DLQ log tail examined per partition */
#define CLEAN_NAME    "share-dlq.clean"

/* The clean-shutdown marker: written (fsynced) by a clean close, removed (durably)
 * at start-up. Without it the last run may have stopped between the two appends. A
 * clean start skips the scan, so an offset reset (AlterShareGroupOffsets) after the
 * last dead-lettering is never mistaken for a lost archive. */
static void clean_path(const gr_broker_t *b, char *buf, size_t n) {
    snprintf(buf, n, "%s/" CLEAN_NAME, b->cfg->log_dir);
}

static void sync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

void gr_share_dlq_mark_clean(gr_broker_t *b) {
    char path[4096];
    clean_path(b, path, sizeof(path));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return; /* the next start scans: harmless */
    (void)fsync(fd);
    close(fd);
    sync_dir(b->cfg->log_dir);
}

/* True if the last run closed cleanly; the marker is gone (durably) afterwards. */
static bool take_clean(gr_broker_t *b) {
    char path[4096];
    clean_path(b, path, sizeof(path));
    if (unlink(path) != 0) return false;
    sync_dir(b->cfg->log_dir);
    return true;
}

/* One DLQ record: roll its archive forward if the share state lacks it. */
static int64_t check_record(gr_broker_t *b, const gr_record_t *rec) {
    gr_dlq_src_t s;
    if (!gr_dlq_parse(rec, &s) || s.topic_len > 255 || s.group_len > GR_SSTORE_MAX_GROUP_LEN) return 0;
    char topic[256];
    memcpy(topic, s.topic, (size_t)s.topic_len);
    topic[s.topic_len] = 0;
    const gr_meta_topic_t *t = gr_meta_topic_find(b->meta, topic);
    if (!t) return 0;
    gr_sstore_key_t key = {s.group, (size_t)s.group_len, t->id, s.partition};
    gr_sstore_state_t st;
    if (gr_sstore_read(b->share.sstore, &key, &st)) return 0; /* group or its state deleted since */
    if (gr_dlq_committed(st.start_offset, st.batches, st.n_batches, s.offset)) return 0;
    gr_sstore_batch_t bt;
    gr_sstore_update_t up;
    gr_dlq_rollforward(&st, s.offset, s.delivery_count, &bt, &up);
    gr_err_t err = gr_sstore_write(b->share.sstore, &key, &up, NULL, NULL);
    GR_WARN("share", "DLQ recovery: %.*s %s-%d offset %" PRId64 " is in the DLQ but its archive was not written: %s",
            s.group_len, s.group, topic, s.partition, s.offset, err ? gr_err_name(err) : "archived now");
    return err ? 0 : 1;
}

static int64_t recover_partition(gr_broker_t *b, gr_partition_t *p) {
    int64_t off = gr_plog_tail_offset(p->plog, RECOVER_BYTES), end = gr_plog_end_offset(p->plog), n = 0;
    gr_wbuf_t wb, scratch;
    gr_wbuf_init(&wb);
    gr_wbuf_init(&scratch);
    while (off < end) {
        gr_plog_slice_t sl;
        gr_wbuf_reset(&wb);
        if (gr_plog_read_copy(p->plog, off, 1 << 20, end, &wb, &sl, NULL, 0) || !sl.len) break;
        gr_batch_iter_t it;
        gr_batch_view_t bv;
        gr_batch_iter_init(&it, wb.mem, wb.len);
        while (!gr_batch_iter_next(&it, &bv, NULL, 0)) {
            gr_record_iter_t ri;
            gr_record_t rec;
            if (!(bv.attributes & GR_BATCH_ATTR_CONTROL) && !gr_record_iter_init(&ri, &bv, &scratch, 0, NULL, 0))
                while (!gr_record_iter_next(&ri, &rec, NULL, 0)) n += check_record(b, &rec);
        }
        off = sl.next_offset > off ? sl.next_offset : end;
    }
    gr_wbuf_free(&wb);
    gr_wbuf_free(&scratch);
    return n;
}

int64_t gr_share_dlq_recover(gr_broker_t *b) {
    int64_t n = 0;
    if (!b->share.sstore || take_clean(b)) return 0;
    for (size_t i = 0; i < gr_meta_topic_count(b->meta); i++) {
        const gr_meta_topic_t *t = gr_meta_topic_at(b->meta, i);
        if (!gr_meta_topic_config_bool(b->meta, t, "errors.deadletterqueue.group.enable")) continue;
        for (int32_t k = 0; k < t->partitions; k++) {
            gr_partition_t *p = gr_parts_find_id(b->parts, &t->id, k);
            if (p && !p->offline) n += recover_partition(b, p);
        }
    }
    if (n) {
        gr_err_t err = gr_sstore_sync(b->share.sstore);
        GR_WARN("share", "DLQ recovery: %" PRId64 " archive(s) rolled forward%s", n, err ? " (fsync failed)" : "");
    }
    return n;
}
