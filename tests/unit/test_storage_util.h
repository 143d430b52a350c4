/* Helpers shared by the storage tests: v2 batch builder, temp dirs. */
#ifndef GR_TEST_STORAGE_UTIL_H
#define GR_TEST_STORAGE_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/crc32c.h"
#include "storage/plog.h"
#include "testutil.h"

/* Build a v2 batch of n_records (opaque payload of payload bytes, filled with a
 * pattern from seed) with maxTimestamp ts into p. Returns its size. */
static inline size_t tb_batch(uint8_t *p, int n_records, int64_t ts, size_t payload, unsigned seed) {
    size_t total = 61 + payload;
    memset(p, 0, 61);
    gr_put_be64(p, 0);                          /* baseOffset: the broker assigns it */
    gr_put_be32(p + 8, (uint32_t)(total - 12)); /* batchLength */
    gr_put_be32(p + 12, (uint32_t)-1);          /* partitionLeaderEpoch */
    p[16] = 2;                                  /* magic */
    gr_put_be16(p + 21, 0);                     /* attributes */
    gr_put_be32(p + 23, (uint32_t)(n_records - 1));
    gr_put_be64(p + 27, (uint64_t)ts);
    gr_put_be64(p + 35, (uint64_t)ts);
    gr_put_be64(p + 43, (uint64_t)-1);
    gr_put_be16(p + 51, (uint16_t)-1);
    gr_put_be32(p + 53, (uint32_t)-1);
    gr_put_be32(p + 57, (uint32_t)n_records);
    for (size_t i = 0; i < payload; i++) p[61 + i] = (uint8_t)(seed * 31 + i * 7);
    gr_put_be32(p + 17, gr_crc32c(0, p + 21, total - 21));
    return total;
}

static inline int tb_rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* rm -rf */
static inline void tb_rmrf(const char *path) { nftw(path, tb_rm_cb, 16, FTW_DEPTH | FTW_PHYS); }

/* A fresh temp dir; the partition dir is <tmp>/t-0. */
static inline void tb_tmpdir(char *root, size_t n, char *pdir, size_t pn) {
    snprintf(root, n, "/tmp/gr_storage_XXXXXX");
    ASSERT(mkdtemp(root) != NULL);
    snprintf(pdir, pn, "%s/t-0", root);
}

static inline void tb_cfg(gr_plog_config_t *cfg) {
    gr_plog_config_default(cfg);
    cfg->retention_ms = -1;
    cfg->checkpoint_interval_ms = 0;
}

static inline gr_plog_t *tb_open(const char *dir, const gr_plog_config_t *cfg, int64_t now) {
    gr_plog_t *plog = NULL;
    char es[512] = "";
    gr_err_t err = gr_plog_open(dir, cfg, now, &plog, es, sizeof(es));
    if (err) GR__FAIL("open %s: %s", dir, es);
    return plog;
}

/* Append one batch; returns its base offset. */
static inline int64_t tb_append1(gr_plog_t *plog, int n_records, int64_t ts, size_t payload, int64_t now) {
    uint8_t *b = malloc(61 + payload);
    ASSERT(b);
    size_t len = tb_batch(b, n_records, ts, payload, (unsigned)gr_plog_end_offset(plog));
    gr_plog_append_opts_t o = {.now_ms = now};
    gr_plog_append_result_t res;
    char es[512] = "";
    gr_err_t err = gr_plog_append(plog, b, len, &o, &res, es, sizeof(es));
    if (err) GR__FAIL("append: %s", es);
    free(b);
    ASSERT_EQ(res.last_offset, res.base_offset + n_records - 1);
    return res.base_offset;
}

static inline int64_t tb_file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* Check a batch read back: header sane, baseOffset as expected, CRC valid. */
static inline void tb_check_batch(const uint8_t *p, size_t len, int64_t base) {
    ASSERT(len >= 61);
    ASSERT_EQ((int64_t)gr_be64(p), base);
    ASSERT_EQ(12 + gr_be32(p + 8), len);
    ASSERT_EQ(gr_crc32c(0, p + 21, len - 21), gr_be32(p + 17));
}

#endif
