/* AlterUserScramCredentials validation with Kafka's rules and messages (ScramControlManager). */
#include <stdlib.h>
#include <string.h>

#include "auth/scram_store.h"

static const gr_scram_alter_op_t *g_sort_ops; /* qsort has no context argument */

static int by_user(const void *a, const void *b) {
    size_t i = *(const size_t *)a, k = *(const size_t *)b;
    int c = strcmp(g_sort_ops[i].user, g_sort_ops[k].user);
    return c ? c : (i > k) - (i < k);
}

static void set_err(gr_scram_alter_op_t *op, int16_t e, const char *msg) {
    op->error = e;
    op->message = msg;
}

static bool validate_one(const gr_scram_store_t *s, gr_scram_alter_op_t *op) {
    gr_scram_mech_t m = op->mech == 1 || op->mech == 2 ? (gr_scram_mech_t)op->mech : GR_SCRAM_UNKNOWN;
    if (!op->user[0]) return set_err(op, GR_ERR_UNACCEPTABLE_CREDENTIAL, "Username must not be empty"), false;
    if (m == GR_SCRAM_UNKNOWN) return set_err(op, GR_ERR_UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"), false;
    if (!op->upsert && !gr_scram_store_get(s, op->user, m))
        return set_err(op, GR_ERR_RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"), false;
    if (op->upsert && op->iterations < GR_SCRAM_MIN_ITERATIONS)
        return set_err(op, GR_ERR_UNACCEPTABLE_CREDENTIAL, "Too few iterations"), false;
    if (op->upsert && op->iterations > GR_SCRAM_MAX_ITERATIONS)
        return set_err(op, GR_ERR_UNACCEPTABLE_CREDENTIAL, "Too many iterations"), false;
    return true;
}

/* The ops of one user in request order (deletions before upsertions): the first op that
 * is not accepted ends the user's run; a second op for the user is DUPLICATE_RESOURCE. */
static void validate_user(const gr_scram_store_t *s, gr_scram_alter_op_t *ops, const size_t *idx, size_t n) {
    gr_scram_alter_op_t *carrier = NULL;
    for (size_t k = 0; k < n; k++) {
        gr_scram_alter_op_t *op = &ops[idx[k]];
        if (carrier && carrier->error) break; /* later ops of a failed user are ignored */
        if (carrier) {
            carrier->applied = false;
            carrier->first_of_user = false;
            set_err(op, GR_ERR_DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request");
        } else {
            op->applied = validate_one(s, op);
        }
        op->first_of_user = true;
        carrier = op;
    }
}

void gr_scram_alter_validate(const gr_scram_store_t *s, gr_scram_alter_op_t *ops, size_t n) {
    size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
    if (!idx) abort();
    for (size_t i = 0; i < n; i++) {
        idx[i] = i;
        ops[i].error = 0, ops[i].message = NULL, ops[i].applied = ops[i].first_of_user = false;
    }
    g_sort_ops = ops;
    qsort(idx, n, sizeof(*idx), by_user);
    for (size_t i = 0; i < n;) {
        size_t k = i + 1;
        while (k < n && !strcmp(ops[idx[k]].user, ops[idx[i]].user)) k++;
        validate_user(s, ops, idx + i, k - i);
        i = k;
    }
    free(idx);
}

void gr_scram_alter_apply(gr_scram_store_t *s, const gr_scram_alter_op_t *ops, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const gr_scram_alter_op_t *op = &ops[i];
        if (!op->applied) continue;
        if (!op->upsert) {
            gr_scram_store_remove(s, op->user, (gr_scram_mech_t)op->mech);
            continue;
        }
        gr_scram_cred_t c;
        gr_scram_cred_from_salted((gr_scram_mech_t)op->mech, op->salt, op->salt_len, op->salted, op->salted_len,
                                  op->iterations, &c);
        gr_scram_store_put(s, op->user, &c);
        gr_scram_cred_free(&c);
    }
}
