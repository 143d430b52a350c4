/* libFuzzer target: transaction log records as read back from disk
 * (txn/txn_record.h). The input is split at its first byte into key and value; a
 * record that decodes must encode back to the same bytes, and its metadata must be
 * usable by the state machine (a prepare on it, then a cancel). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "txn/txn.h"
#include "txn/txn_record.h"

static int64_t no_pid(void *arg) {
    (void)arg;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    size_t kl = data[0] < size - 1 ? data[0] : size - 1;
    const uint8_t *key = data + 1, *val = data + 1 + kl;
    size_t vl = size - 1 - kl;
    const char *id, *why = NULL;
    size_t idl;
    if (gr_txn_rec_decode_key(key, kl, &id, &idl, &why) == 0) {
        gr_wbuf_t k;
        gr_wbuf_init(&k);
        gr_txn_rec_key(&k, id, idl);
        if (k.len != kl || memcmp(k.mem, key, kl)) abort();
        gr_wbuf_free(&k);
    } else if (!why) {
        abort();
    }
    gr_txn_meta_t m;
    why = NULL;
    if (gr_txn_rec_decode_value(val, vl, &m, &why) == 0) {
        gr_wbuf_t v;
        gr_wbuf_init(&v);
        gr_txn_rec_value(&v, &m);
        if (v.len != vl || memcmp(v.mem, val, vl)) abort();
        gr_wbuf_free(&v);
        gr_txn_reg_t reg;
        gr_txn_cfg_t cfg;
        gr_txn_cfg_default(&cfg);
        gr_txn_reg_init(&reg, &cfg, no_pid, NULL);
        gr_txn_t *t = gr_txn_put(&reg, "x", 1, &m);
        int64_t op;
        int16_t oe;
        if (gr_txn_end(&reg, t, m.pid, m.epoch, true, true, m.tv, 0, &op, &oe) == 0) gr_txn_cancel(t);
        if (gr_txn_init_pid(&reg, t, 1000, false, -1, -1, 0) == 0) gr_txn_cancel(t);
        if (t->pending) gr_txn_cancel(t); /* a fence */
        gr_txn_reg_free(&reg);
    } else if (!why) {
        abort();
    }
    gr_txn_meta_free(&m);
    return 0;
}
