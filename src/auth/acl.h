/* Kafka's ACL model: resource types, pattern types, operations and permissions with
 * Kafka's wire codes; ACL bindings and binding filters with Kafka's validation and
 * matching rules (ResourcePatternFilter / AccessControlEntryFilter); and the
 * authorizer (acl_authz.c), an indexed ACL set answering authorize() exactly as
 * Kafka's StandardAuthorizer does.
 *
 * Pure: no I/O, no clock, no globals. An authorizer belongs to one thread. */
#ifndef GR_AUTH_ACL_H
#define GR_AUTH_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Kafka's codes (org.apache.kafka.common.resource.ResourceType and friends). */
enum {
    GR_ACL_RT_UNKNOWN = 0,
    GR_ACL_RT_ANY = 1,
    GR_ACL_RT_TOPIC = 2,
    GR_ACL_RT_GROUP = 3,
    GR_ACL_RT_CLUSTER = 4,
    GR_ACL_RT_TRANSACTIONAL_ID = 5,
    GR_ACL_RT_DELEGATION_TOKEN = 6,
    GR_ACL_RT_USER = 7,
    GR_ACL_RT_N
};
enum {
    GR_ACL_PT_UNKNOWN = 0,
    GR_ACL_PT_ANY = 1,
    GR_ACL_PT_MATCH = 2,
    GR_ACL_PT_LITERAL = 3,
    GR_ACL_PT_PREFIXED = 4,
    GR_ACL_PT_N
};
enum {
    GR_ACL_OP_UNKNOWN = 0,
    GR_ACL_OP_ANY = 1,
    GR_ACL_OP_ALL = 2,
    GR_ACL_OP_READ = 3,
    GR_ACL_OP_WRITE = 4,
    GR_ACL_OP_CREATE = 5,
    GR_ACL_OP_DELETE = 6,
    GR_ACL_OP_ALTER = 7,
    GR_ACL_OP_DESCRIBE = 8,
    GR_ACL_OP_CLUSTER_ACTION = 9,
    GR_ACL_OP_DESCRIBE_CONFIGS = 10,
    GR_ACL_OP_ALTER_CONFIGS = 11,
    GR_ACL_OP_IDEMPOTENT_WRITE = 12,
    GR_ACL_OP_CREATE_TOKENS = 13,
    GR_ACL_OP_DESCRIBE_TOKENS = 14,
    GR_ACL_OP_TWO_PHASE_COMMIT = 15,
    GR_ACL_OP_N
};
enum { GR_ACL_PERM_UNKNOWN = 0, GR_ACL_PERM_ANY = 1, GR_ACL_PERM_DENY = 2, GR_ACL_PERM_ALLOW = 3, GR_ACL_PERM_N };

#define GR_ACL_WILDCARD           "*"
#define GR_ACL_WILDCARD_PRINCIPAL "User:*"
#define GR_ACL_CLUSTER_NAME       "kafka-cluster"

/** An ACL: a resource pattern and an access control entry. Strings are borrowed. */
typedef struct gr_acl_binding {
    int8_t rtype, ptype;
    const char *name;
    const char *principal, *host;
    int8_t op, perm;
} gr_acl_binding_t;

/** A filter over bindings; NULL strings match anything. */
typedef struct gr_acl_filter {
    int8_t rtype, ptype;
    const char *name;
    const char *principal, *host;
    int8_t op, perm;
} gr_acl_filter_t;

/** Codes Kafka does not know decode as UNKNOWN (fromCode), as on the broker. */
int8_t gr_acl_rtype_norm(int8_t code);
int8_t gr_acl_ptype_norm(int8_t code);
int8_t gr_acl_op_norm(int8_t code);
int8_t gr_acl_perm_norm(int8_t code);

/** Kafka's enum names ("TOPIC", "PREFIXED", "DESCRIBE_CONFIGS", "ALLOW"); static strings.
 *  The one copy of these tables: libgregor compiles this file too (its public
 *  gr_admin_acl_*_name / _code), so it must stay free of broker dependencies. */
const char *gr_acl_rtype_name(int8_t code);
const char *gr_acl_ptype_name(int8_t code);
const char *gr_acl_op_name(int8_t code);
const char *gr_acl_perm_name(int8_t code);

/** CreateAcls validation as Kafka 4.4.0 answers it: 0; GR_ERR_INVALID_REQUEST with Kafka's
 *  text; or GR_ERR_UNKNOWN_SERVER_ERROR (msg "") for the filter-only values ANY / MATCH. */
gr_err_t gr_acl_validate_new(const gr_acl_binding_t *b, char *msg, size_t msg_size);
/** DeleteAcls filter validation: 0 or GR_ERR_INVALID_REQUEST ("Unknown patternFilter."). */
gr_err_t gr_acl_validate_filter(const gr_acl_filter_t *f, char *msg, size_t msg_size);
/** Does filter f match binding b (ANY, MATCH with wildcard and prefix rules)? */
bool gr_acl_filter_matches(const gr_acl_filter_t *f, const gr_acl_binding_t *b);

/* ---- The authorizer (acl_authz.c) ---- */
typedef struct gr_acl_authz gr_acl_authz_t;

/** super_users: Kafka's super.users, a ';'-separated principal list (may be NULL).
 *  allow_if_no_acl: allow.everyone.if.no.acl.found. */
gr_acl_authz_t *gr_acl_authz_new(const char *super_users, bool allow_if_no_acl);
void gr_acl_authz_free(gr_acl_authz_t *a);
/** Add a (validated) binding; false if an equal one is present. Strings are copied. */
bool gr_acl_authz_add(gr_acl_authz_t *a, const gr_acl_binding_t *b);
/** Remove an equal binding; false if absent. */
bool gr_acl_authz_remove(gr_acl_authz_t *a, const gr_acl_binding_t *b);
size_t gr_acl_authz_count(const gr_acl_authz_t *a);
/** Call cb for each binding matching f (NULL: all). cb must not change the set. */
typedef void gr_acl_visit_fn(void *arg, const gr_acl_binding_t *b);
void gr_acl_authz_list(const gr_acl_authz_t *a, const gr_acl_filter_t *f, gr_acl_visit_fn *cb, void *arg);
bool gr_acl_is_super(const gr_acl_authz_t *a, const char *principal);
/** StandardAuthorizer.authorize for a LITERAL resource: super users pass; a matching
 *  DENY wins; then a matching ALLOW (implied operations); no ACL at all on the resource
 *  falls back to allow.everyone.if.no.acl.found; otherwise denied. */
bool gr_acl_authorize(const gr_acl_authz_t *a, const char *principal, const char *host, int8_t op, int8_t rtype,
                      const char *name);
/** Authorizer.authorizeByResourceType: may the principal do op on some resource of rtype? */
bool gr_acl_authorize_any(const gr_acl_authz_t *a, const char *principal, const char *host, int8_t op, int8_t rtype);

#endif
