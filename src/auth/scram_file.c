/* Loading and durably replacing <dir>/gregor.scram (format in scram_store.h). */
#include <stdio.h>
#include <stdlib.h>

#include "auth/scram_store.h"
#include "base/file_replace.h"

#define FILE_NAME "gregor.scram"
#define MAX_FILE  (64u << 20)

gr_err_t gr_scram_store_load(gr_scram_store_t *s, const char *dir, char *errstr, size_t errstr_size) {
    char *buf;
    size_t have;
    gr_err_t err = gr_file_read_small(dir, FILE_NAME, MAX_FILE, &buf, &have, errstr, errstr_size);
    if (err || !buf) return err;
    char why[256];
    err = gr_scram_store_parse(s, buf, have, why, sizeof(why));
    free(buf);
    if (err) snprintf(errstr, errstr_size, "%s/%s: %s", dir, FILE_NAME, why);
    return err;
}

gr_err_t gr_scram_store_save(const gr_scram_store_t *s, const char *dir, char *errstr, size_t errstr_size) {
    size_t len;
    char *text = gr_scram_store_format(s, &len);
    gr_err_t err = gr_file_replace(dir, FILE_NAME, text, len, errstr, errstr_size);
    free(text);
    return err;
}
