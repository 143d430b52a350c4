/* ACL codes, names, validation and filter matching (Kafka's ResourcePatternFilter,
 * AccessControlEntryFilter and the controller's validateNewAcl / validateFilter). */
#include <stdio.h>
#include <string.h>

#include "auth/acl.h"

static const char *const rtype_names[] = {"UNKNOWN",          "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID",
                                          "DELEGATION_TOKEN", "USER"};
static const char *const ptype_names[] = {"UNKNOWN", "ANY", "MATCH", "LITERAL", "PREFIXED"};
static const char *const op_names[] = {"UNKNOWN",
                                       "ANY",
                                       "ALL",
                                       "READ",
                                       "WRITE",
                                       "CREATE",
                                       "DELETE",
                                       "ALTER",
                                       "DESCRIBE",
                                       "CLUSTER_ACTION",
                                       "DESCRIBE_CONFIGS",
                                       "ALTER_CONFIGS",
                                       "IDEMPOTENT_WRITE",
                                       "CREATE_TOKENS",
                                       "DESCRIBE_TOKENS",
                                       "TWO_PHASE_COMMIT"};
static const char *const perm_names[] = {"UNKNOWN", "ANY", "DENY", "ALLOW"};

#define NORM(code, n) ((code) >= 0 && (code) < (n) ? (code) : 0)
int8_t gr_acl_rtype_norm(int8_t c) { return (int8_t)NORM(c, GR_ACL_RT_N); }
int8_t gr_acl_ptype_norm(int8_t c) { return (int8_t)NORM(c, GR_ACL_PT_N); }
int8_t gr_acl_op_norm(int8_t c) { return (int8_t)NORM(c, GR_ACL_OP_N); }
int8_t gr_acl_perm_norm(int8_t c) { return (int8_t)NORM(c, GR_ACL_PERM_N); }

const char *gr_acl_rtype_name(int8_t c) { return rtype_names[gr_acl_rtype_norm(c)]; }
const char *gr_acl_ptype_name(int8_t c) { return ptype_names[gr_acl_ptype_norm(c)]; }
const char *gr_acl_op_name(int8_t c) { return op_names[gr_acl_op_norm(c)]; }
const char *gr_acl_perm_name(int8_t c) { return perm_names[gr_acl_perm_norm(c)]; }

static gr_err_t invalid(char *msg, size_t n, const char *what, const char *name) {
    snprintf(msg, n, "%s%s", what, name);
    return GR_ERR_INVALID_REQUEST;
}

gr_err_t gr_acl_validate_new(const gr_acl_binding_t *b, char *msg, size_t n) {
    int8_t rt = gr_acl_rtype_norm(b->rtype), pt = gr_acl_ptype_norm(b->ptype);
    int8_t op = gr_acl_op_norm(b->op), perm = gr_acl_perm_norm(b->perm);
    msg[0] = '\0';
    /* Kafka 4.4.0 cannot even build such a binding (ANY/MATCH are filter values): its
     * answer is UNKNOWN_SERVER_ERROR with no message. */
    if (rt == GR_ACL_RT_ANY || pt == GR_ACL_PT_ANY || pt == GR_ACL_PT_MATCH || op == GR_ACL_OP_ANY ||
        perm == GR_ACL_PERM_ANY)
        return GR_ERR_UNKNOWN_SERVER_ERROR;
    if (rt == GR_ACL_RT_CLUSTER && strcmp(b->name ? b->name : "", GR_ACL_CLUSTER_NAME))
        return invalid(msg, n, "The only valid name for the CLUSTER resource is ", GR_ACL_CLUSTER_NAME);
    if (!b->name || !b->name[0]) return invalid(msg, n, "Invalid empty resource name", "");
    if (rt == GR_ACL_RT_UNKNOWN) return invalid(msg, n, "Invalid resourceType ", rtype_names[rt]);
    if (pt == GR_ACL_PT_UNKNOWN) return invalid(msg, n, "Invalid patternType ", ptype_names[pt]);
    if (op == GR_ACL_OP_UNKNOWN) return invalid(msg, n, "Invalid operation ", op_names[op]);
    if (perm == GR_ACL_PERM_UNKNOWN) return invalid(msg, n, "Invalid permissionType ", perm_names[perm]);
    if (!b->principal || !strchr(b->principal, ':')) {
        snprintf(msg, n,
                 "Could not parse principal from `%s` (no colon is present separating the principal type from the "
                 "principal name)",
                 b->principal ? b->principal : "null");
        return GR_ERR_INVALID_REQUEST;
    }
    return GR_ERR_NONE;
}

gr_err_t gr_acl_validate_filter(const gr_acl_filter_t *f, char *msg, size_t n) {
    if (gr_acl_rtype_norm(f->rtype) == GR_ACL_RT_UNKNOWN || gr_acl_ptype_norm(f->ptype) == GR_ACL_PT_UNKNOWN)
        return invalid(msg, n, "Unknown patternFilter.", "");
    if (gr_acl_op_norm(f->op) == GR_ACL_OP_UNKNOWN || gr_acl_perm_norm(f->perm) == GR_ACL_PERM_UNKNOWN)
        return invalid(msg, n, "Unknown entryFilter.", "");
    msg[0] = '\0';
    return GR_ERR_NONE;
}

static bool pattern_matches(const gr_acl_filter_t *f, const gr_acl_binding_t *b) {
    int8_t frt = gr_acl_rtype_norm(f->rtype), fpt = gr_acl_ptype_norm(f->ptype);
    if (frt != GR_ACL_RT_ANY && frt != b->rtype) return false;
    if (fpt != GR_ACL_PT_ANY && fpt != GR_ACL_PT_MATCH && fpt != b->ptype) return false;
    if (!f->name) return true;
    if (fpt == GR_ACL_PT_ANY || fpt == b->ptype) return !strcmp(f->name, b->name);
    /* MATCH: the bindings that would apply to a resource of that name. */
    if (b->ptype == GR_ACL_PT_LITERAL) return !strcmp(f->name, b->name) || !strcmp(b->name, GR_ACL_WILDCARD);
    if (b->ptype == GR_ACL_PT_PREFIXED) return !strncmp(f->name, b->name, strlen(b->name));
    return false;
}

bool gr_acl_filter_matches(const gr_acl_filter_t *f, const gr_acl_binding_t *b) {
    if (!pattern_matches(f, b)) return false;
    if (f->principal && strcmp(f->principal, b->principal)) return false;
    if (f->host && strcmp(f->host, b->host)) return false;
    int8_t op = gr_acl_op_norm(f->op), perm = gr_acl_perm_norm(f->perm);
    if (op != GR_ACL_OP_ANY && op != b->op) return false;
    return perm == GR_ACL_PERM_ANY || perm == b->perm;
}
