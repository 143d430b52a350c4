/* Authorizer.authorizeByResourceType (Kafka's default method, used by InitProducerId
 * without a transactional id): is op allowed on at least one resource of a type?
 *
 * Kafka's rule: first authorize the literal name "hardcode" (so super users, and
 * allow.everyone.if.no.acl.found with no ACL on it, pass); then, over the ACLs of that
 * type that match the principal and host and name op itself or ALL (no implied
 * operations here): a DENY on the LITERAL "*" denies; an ALLOW on the LITERAL "*" allows;
 * else some ALLOW pattern must survive the DENYs: a LITERAL allow not denied by the same
 * LITERAL name, and no PREFIXED deny that is a prefix of the allowed name. */
#include <stdlib.h>
#include <string.h>

#include "auth/acl.h"

typedef struct names {
    const char **v;
    size_t n, cap;
} names_t;

typedef struct scan {
    const char *principal, *host;
    int8_t op;
    bool deny_all, allow_all;
    names_t allow_lit, allow_pre, deny_lit, deny_pre;
} scan_t;

static void push(names_t *s, const char *name) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->v = realloc(s->v, s->cap * sizeof(char *));
        if (!s->v) abort();
    }
    s->v[s->n++] = name;
}

static bool contains(const names_t *s, const char *name, size_t len) {
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->v[i]) == len && !memcmp(s->v[i], name, len)) return true;
    return false;
}

static void visit(void *arg, const gr_acl_binding_t *b) {
    scan_t *s = arg;
    if (strcmp(b->host, s->host) && strcmp(b->host, GR_ACL_WILDCARD)) return;
    if (strcmp(b->principal, s->principal) && strcmp(b->principal, GR_ACL_WILDCARD_PRINCIPAL)) return;
    if (b->op != s->op && b->op != GR_ACL_OP_ALL) return;
    bool lit = b->ptype == GR_ACL_PT_LITERAL, star = lit && !strcmp(b->name, GR_ACL_WILDCARD);
    if (b->perm == GR_ACL_PERM_DENY) {
        if (star) s->deny_all = true;
        push(lit ? &s->deny_lit : &s->deny_pre, b->name);
    } else if (b->perm == GR_ACL_PERM_ALLOW) {
        if (star)
            s->allow_all = true;
        else
            push(lit ? &s->allow_lit : &s->allow_pre, b->name);
    }
}

/* Is there an allowed name no DENY dominates? */
static bool survives(const scan_t *s, const names_t *allow, bool literal) {
    for (size_t i = 0; i < allow->n; i++) {
        const char *name = allow->v[i];
        size_t len = strlen(name);
        if (literal && contains(&s->deny_lit, name, len)) continue;
        bool dominated = false;
        for (size_t l = 1; l <= len && !dominated; l++) dominated = contains(&s->deny_pre, name, l);
        if (!dominated) return true;
    }
    return false;
}

bool gr_acl_authorize_any(const gr_acl_authz_t *a, const char *principal, const char *host, int8_t op, int8_t rtype) {
    if (gr_acl_authorize(a, principal, host, op, rtype, "hardcode")) return true;
    scan_t s = {.principal = principal, .host = host, .op = op};
    gr_acl_filter_t f = {rtype, GR_ACL_PT_ANY, NULL, NULL, NULL, GR_ACL_OP_ANY, GR_ACL_PERM_ANY};
    gr_acl_authz_list(a, &f, visit, &s);
    bool ok = !s.deny_all && (s.allow_all || survives(&s, &s.allow_lit, true) || survives(&s, &s.allow_pre, false));
    free(s.allow_lit.v);
    free(s.allow_pre.v);
    free(s.deny_lit.v);
    free(s.deny_pre.v);
    return ok;
}
