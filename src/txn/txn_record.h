/* Transaction log records (the store under <log.dir>/__transaction_state-0): one
 * key -> value per transactional id, the last record of a key wins, a null value
 * removes the id (expiration). Our own encoding, version 0, integers big-endian:
 *
 *   key:   i16 0 | transactional id (UTF-8, 1..32767 bytes, no NUL)
 *   value: i16 0 | i64 producer id | i64 previous producer id | i64 next producer id
 *          | i16 epoch | i16 last epoch | i32 timeout ms | i8 state (Kafka's ids 0..5)
 *          | i64 start ms | i64 last update ms | i8 transaction version
 *          | i32 n | n x (i16 topic length | topic | i32 partition)
 *
 * Pure; the decoder takes bytes read from disk and checks every length. */
#ifndef GR_TXN_TXN_RECORD_H
#define GR_TXN_TXN_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "txn/txn.h"

void gr_txn_rec_key(gr_wbuf_t *k, const char *id, size_t id_len);
void gr_txn_rec_value(gr_wbuf_t *v, const gr_txn_meta_t *m);

/** Decode a key: *id points into key (not NUL-terminated). 0 or GR_ERR__MALFORMED. */
gr_err_t gr_txn_rec_decode_key(const uint8_t *key, size_t kl, const char **id, size_t *id_len, const char **why);
/** Decode a value into m (initialised here; free with gr_txn_meta_free, also on error).
 *  0 or GR_ERR__MALFORMED with *why. */
gr_err_t gr_txn_rec_decode_value(const uint8_t *val, size_t vl, gr_txn_meta_t *m, const char **why);

#endif
