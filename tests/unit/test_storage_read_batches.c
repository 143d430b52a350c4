/* gr_plog_read_batches: the batches reported by the callback match the slice and
 * the file, the read stops at the batch covering stop_offset, and the header scan
 * stays correct across big and small batches (its read window shrinks after a
 * big batch) and after reopening (index rebuilt by the scanner). */
#include "test_storage_util.h"

static char root[256], pdir[512];

typedef struct seen {
    gr_plog_batch_t v[256];
    int n;
} seen_t;

static void on_batch(void *arg, const gr_plog_batch_t *b) {
    seen_t *s = arg;
    ASSERT(s->n < 256);
    s->v[s->n++] = *b;
}

/* Every reported batch against the file bytes, and the slice against the batches. */
static void check(const gr_plog_slice_t *sl, const seen_t *s) {
    ASSERT_EQ(s->n, sl->n_batches);
    ASSERT(s->n > 0);
    ASSERT_EQ(s->v[0].pos, sl->pos);
    ASSERT_EQ(s->v[0].base, sl->first_offset);
    ASSERT_EQ(s->v[s->n - 1].last, sl->last_offset);
    ASSERT_EQ(s->v[s->n - 1].pos + s->v[s->n - 1].len - sl->pos, (int64_t)sl->len);
    for (int i = 0; i < s->n; i++) {
        uint8_t h[27];
        ASSERT_EQ(pread(sl->fd, h, sizeof(h), s->v[i].pos), (ssize_t)sizeof(h));
        ASSERT_EQ((int64_t)gr_be64(h), s->v[i].base);
        ASSERT_EQ(12 + (int64_t)gr_be32(h + 8), s->v[i].len);
        ASSERT_EQ(s->v[i].base + (int64_t)gr_be32(h + 23), s->v[i].last);
        if (i > 0) {
            ASSERT_EQ(s->v[i - 1].pos + s->v[i - 1].len, s->v[i].pos);
            ASSERT_EQ(s->v[i - 1].last + 1, s->v[i].base);
        }
    }
}

/* Batch i: i % 3 == 0 big (20 KiB, 20 records), 1 small (100 B, 2 records),
 * 2 just above the window switch (8 KiB + 1, 5 records). */
static int64_t fill(gr_plog_t *plog, int n) {
    for (int i = 0; i < n; i++) {
        int kind = i % 3;
        tb_append1(plog,
                   kind == 0   ? 20
                   : kind == 1 ? 2
                               : 5,
                   1000 + i,
                   kind == 0   ? 20 * 1024
                   : kind == 1 ? 100
                               : 8 * 1024 + 1,
                   1000);
    }
    return gr_plog_end_offset(plog);
}

static void reads(gr_plog_t *plog, int64_t end) {
    char es[256];
    gr_plog_slice_t sl, ref;
    /* No stop: the same slice as gr_plog_read, every batch reported. */
    for (int64_t off = 0; off < end; off += 7) {
        seen_t s = {.n = 0};
        ASSERT_EQ(gr_plog_read_batches(plog, off, 1 << 24, INT64_MAX, INT64_MAX, on_batch, &s, &sl, es, sizeof(es)), 0);
        ASSERT_EQ(gr_plog_read(plog, off, 1 << 24, INT64_MAX, &ref, es, sizeof(es)), 0);
        ASSERT_EQ(sl.pos, ref.pos);
        ASSERT_EQ(sl.len, ref.len);
        ASSERT_EQ(sl.n_batches, ref.n_batches);
        ASSERT_EQ(sl.next_offset, end);
        ASSERT(s.v[0].base <= off && off <= s.v[0].last);
        check(&sl, &s);
        gr_plog_slice_release(sl.owner);
        gr_plog_slice_release(ref.owner);
    }
    /* A stop offset: the slice ends with the batch that covers it. */
    for (int64_t off = 0; off < end; off += 5) {
        for (int64_t stop = off; stop < end; stop += 11) {
            seen_t s = {.n = 0};
            ASSERT_EQ(gr_plog_read_batches(plog, off, 1 << 24, INT64_MAX, stop, on_batch, &s, &sl, es, sizeof(es)), 0);
            check(&sl, &s);
            ASSERT(s.v[s.n - 1].base <= stop && stop <= s.v[s.n - 1].last);
            gr_plog_slice_release(sl.owner);
        }
    }
    /* max_bytes and the high watermark still apply first. */
    seen_t s = {.n = 0};
    ASSERT_EQ(gr_plog_read_batches(plog, 0, 1, INT64_MAX, end - 1, on_batch, &s, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(s.n, 1);
    check(&sl, &s);
    gr_plog_slice_release(sl.owner);
    s.n = 0;
    ASSERT_EQ(gr_plog_read_batches(plog, 0, 1 << 24, 20, end - 1, on_batch, &s, &sl, es, sizeof(es)), 0);
    check(&sl, &s);
    ASSERT_EQ(sl.n_batches, 1);
    ASSERT_EQ(sl.last_offset, 19);
    gr_plog_slice_release(sl.owner);
    /* No callback: the stop still applies. */
    ASSERT_EQ(gr_plog_read_batches(plog, 0, 1 << 24, INT64_MAX, 0, NULL, NULL, &sl, es, sizeof(es)), 0);
    ASSERT_EQ(sl.n_batches, 1);
    ASSERT_EQ(sl.last_offset, 19);
    gr_plog_slice_release(sl.owner);
}

static void test_read_batches(void) {
    tb_tmpdir(root, sizeof(root), pdir, sizeof(pdir));
    gr_plog_config_t cfg;
    tb_cfg(&cfg);
    gr_plog_t *plog = tb_open(pdir, &cfg, 1000);
    int64_t end = fill(plog, 60);
    ASSERT_EQ(end, 20 * 20 + 20 * 2 + 20 * 5);
    reads(plog, end);
    gr_plog_close(plog);
    /* Reopened without its index files: the scanner rebuilds them. */
    char path[1024];
    snprintf(path, sizeof(path), "%s/00000000000000000000.index", pdir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/00000000000000000000.timeindex", pdir);
    unlink(path);
    plog = tb_open(pdir, &cfg, 2000);
    ASSERT_EQ(gr_plog_end_offset(plog), end);
    reads(plog, end);
    gr_plog_close(plog);
    tb_rmrf(root);
}

int main(void) {
    RUN_TEST(test_read_batches);
    return 0;
}
