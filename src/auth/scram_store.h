/* SCRAM credentials of every user (what AlterUserScramCredentials sets and
 * DescribeUserScramCredentials shows), Kafka's validation of a request's changes, and
 * the file that keeps them: <dir>/gregor.scram, one line per credential
 * "<mechanism> <user hex> <iterations> <salt b64> <StoredKey b64> <ServerKey b64>" and a
 * closing "checksum=<crc32 hex>" line; replaced as a whole (temp file, fsync, rename,
 * fsync of the directory). The password is never stored or seen (clients send the
 * salted password). */
#ifndef GR_AUTH_SCRAM_STORE_H
#define GR_AUTH_SCRAM_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "auth/scram.h"
#include "base/err.h"

typedef struct gr_scram_store {
    gr_scram_cred_t *creds; /* unordered */
    char **users;           /* users[i] owns the name of creds[i] */
    size_t n;
} gr_scram_store_t;

void gr_scram_store_init(gr_scram_store_t *s);
void gr_scram_store_free(gr_scram_store_t *s);
/** The credential of (user, mech), or NULL. Valid until the store changes. */
const gr_scram_cred_t *gr_scram_store_get(const gr_scram_store_t *s, const char *user, gr_scram_mech_t mech);
/** Set (copying cred) or remove one credential. */
void gr_scram_store_put(gr_scram_store_t *s, const char *user, const gr_scram_cred_t *cred);
bool gr_scram_store_remove(gr_scram_store_t *s, const char *user, gr_scram_mech_t mech);

/** File text of the store (malloc'd, *len bytes) and back. parse: GR_ERR__MALFORMED with a
 *  reason on a bad line or checksum; the store is then empty. */
char *gr_scram_store_format(const gr_scram_store_t *s, size_t *len);
gr_err_t gr_scram_store_parse(gr_scram_store_t *s, const char *text, size_t len, char *errstr, size_t errstr_size);
/** Load dir/gregor.scram (a missing file is an empty store) / write it durably. */
gr_err_t gr_scram_store_load(gr_scram_store_t *s, const char *dir, char *errstr, size_t errstr_size);
gr_err_t gr_scram_store_save(const gr_scram_store_t *s, const char *dir, char *errstr, size_t errstr_size);

/* ---------------------------------------------------------------- AlterUserScramCredentials */

typedef struct gr_scram_alter_op {
    const char *user; /* NUL-terminated */
    int8_t mech;      /* Kafka's type: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512 */
    bool upsert;      /* else deletion */
    int32_t iterations;
    const uint8_t *salt, *salted;
    size_t salt_len, salted_len;
    /* results */
    int16_t error;
    const char *message; /* static text, NULL if none */
    bool applied;        /* the op goes into the store (error == 0) */
    bool first_of_user;  /* the op that carries the user's result */
} gr_scram_alter_op_t;

/** Validate a request's ops (deletions first, then upsertions, as Kafka's ScramControlManager
 *  reads them): a user named twice is DUPLICATE_RESOURCE, an empty name or bad iterations
 *  UNACCEPTABLE_CREDENTIAL, an unknown mechanism UNSUPPORTED_SASL_MECHANISM, deleting what
 *  does not exist RESOURCE_NOT_FOUND. Sets error/message/applied/first_of_user per op. */
void gr_scram_alter_validate(const gr_scram_store_t *s, gr_scram_alter_op_t *ops, size_t n);
/** Apply the ops validate accepted. */
void gr_scram_alter_apply(gr_scram_store_t *s, const gr_scram_alter_op_t *ops, size_t n);

#endif
