/* The authorizer: ACLs indexed by resource pattern so that one authorize() costs a
 * few hash lookups, not a scan of every ACL.
 *
 * Index: one entry per resource pattern (type, pattern type, name) holding that
 * pattern's access control entries. A LITERAL resource name N is governed by the
 * patterns (LITERAL, N), (LITERAL, "*") and (PREFIXED, P) for every prefix P of N;
 * prefixed patterns are found by looking up only the prefix lengths that some
 * PREFIXED pattern of that resource type has (kept per type, with counts).
 *
 * Decision (Kafka's StandardAuthorizerData): super users pass; any matching DENY
 * wins; then any matching ALLOW; if no ACL at all exists on a matching pattern the
 * default is allow.everyone.if.no.acl.found; otherwise DENIED. */
#include <stdlib.h>
#include <string.h>

#include "auth/acl.h"
#include "base/hash.h"
#include "base/htab.h"
#include "base/xalloc.h"

typedef struct ace {
    char *principal, *host;
    int8_t op, perm;
} ace_t;

typedef struct res {
    gr_hnode_t node;
    int8_t rtype, ptype;
    size_t name_len;
    char *name;
    ace_t *v;
    size_t n, cap;
} res_t;

typedef struct plens {
    size_t *len, *cnt; /* sorted distinct PREFIXED name lengths and how many patterns have each */
    size_t n, cap;
} plens_t;

struct gr_acl_authz {
    gr_htab_t tab;
    size_t count;
    char **supers;
    size_t n_supers;
    bool allow_if_no_acl;
    plens_t plen[GR_ACL_RT_N];
};

typedef struct key {
    int8_t rtype, ptype;
    const char *name;
    size_t len;
} rkey_t;

static uint64_t key_hash(const rkey_t *k) {
    gr_hasher_t h;
    gr_hasher_init(&h);
    uint8_t t[2] = {(uint8_t)k->rtype, (uint8_t)k->ptype};
    gr_hasher_update(&h, t, 2);
    gr_hasher_update(&h, k->name, k->len);
    return gr_hasher_final(&h);
}

static bool key_eq(const gr_hnode_t *node, const void *kp) {
    const res_t *r = GR_HTAB_ENTRY(node, res_t, node);
    const rkey_t *k = kp;
    return r->rtype == k->rtype && r->ptype == k->ptype && r->name_len == k->len && !memcmp(r->name, k->name, k->len);
}

static res_t *find(const gr_acl_authz_t *a, int8_t rtype, int8_t ptype, const char *name, size_t len) {
    rkey_t k = {rtype, ptype, name, len};
    gr_hnode_t **slot = gr_htab_slot(&a->tab, key_hash(&k), key_eq, &k);
    return GR_HTAB_ENTRY(*slot, res_t, node);
}

static void split_supers(gr_acl_authz_t *a, const char *list) {
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ";");
        const char *s = p, *e = p + n;
        while (s < e && (*s == ' ' || *s == '\t')) s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t')) e--;
        if (e > s) {
            a->supers = realloc(a->supers, (a->n_supers + 1) * sizeof(char *));
            if (!a->supers) abort();
            char *c = gr_xcalloc(1, (size_t)(e - s) + 1);
            memcpy(c, s, (size_t)(e - s));
            a->supers[a->n_supers++] = c;
        }
        p += n + (p[n] == ';');
    }
}

gr_acl_authz_t *gr_acl_authz_new(const char *super_users, bool allow_if_no_acl) {
    gr_acl_authz_t *a = gr_xcalloc(1, sizeof(*a));
    gr_htab_init(&a->tab, 64);
    a->allow_if_no_acl = allow_if_no_acl;
    split_supers(a, super_users);
    return a;
}

static void res_free(res_t *r) {
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].principal);
        free(r->v[i].host);
    }
    free(r->v);
    free(r->name);
    free(r);
}

void gr_acl_authz_free(gr_acl_authz_t *a) {
    if (!a) return;
    for (gr_hnode_t *n = gr_htab_first(&a->tab), *next; n; n = next) {
        next = gr_htab_next(&a->tab, n);
        res_free(GR_HTAB_ENTRY(n, res_t, node));
    }
    gr_htab_free(&a->tab);
    for (size_t i = 0; i < a->n_supers; i++) free(a->supers[i]);
    free(a->supers);
    for (int i = 0; i < GR_ACL_RT_N; i++) {
        free(a->plen[i].len);
        free(a->plen[i].cnt);
    }
    free(a);
}

/* Count one more (delta 1) or one fewer (-1) PREFIXED pattern of name length len. */
static void plen_update(plens_t *p, size_t len, int delta) {
    size_t i = 0;
    while (i < p->n && p->len[i] < len) i++;
    if (i < p->n && p->len[i] == len) {
        p->cnt[i] = (size_t)((long)p->cnt[i] + delta);
        if (p->cnt[i] == 0) {
            memmove(&p->len[i], &p->len[i + 1], (p->n - i - 1) * sizeof(size_t));
            memmove(&p->cnt[i], &p->cnt[i + 1], (p->n - i - 1) * sizeof(size_t));
            p->n--;
        }
        return;
    }
    if (delta < 0) return;
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 8;
        p->len = realloc(p->len, p->cap * sizeof(size_t));
        p->cnt = realloc(p->cnt, p->cap * sizeof(size_t));
        if (!p->len || !p->cnt) abort();
    }
    memmove(&p->len[i + 1], &p->len[i], (p->n - i) * sizeof(size_t));
    memmove(&p->cnt[i + 1], &p->cnt[i], (p->n - i) * sizeof(size_t));
    p->len[i] = len;
    p->cnt[i] = 1;
    p->n++;
}

static bool ace_eq(const ace_t *e, const gr_acl_binding_t *b) {
    return e->op == b->op && e->perm == b->perm && !strcmp(e->principal, b->principal) && !strcmp(e->host, b->host);
}

bool gr_acl_authz_add(gr_acl_authz_t *a, const gr_acl_binding_t *b) {
    size_t len = strlen(b->name);
    res_t *r = find(a, b->rtype, b->ptype, b->name, len);
    if (!r) {
        r = gr_xcalloc(1, sizeof(*r));
        r->rtype = b->rtype;
        r->ptype = b->ptype;
        r->name_len = len;
        r->name = gr_xstrdup(b->name);
        rkey_t k = {b->rtype, b->ptype, r->name, len};
        gr_htab_insert(&a->tab, &r->node, key_hash(&k));
        if (b->ptype == GR_ACL_PT_PREFIXED) plen_update(&a->plen[b->rtype], len, 1);
    }
    for (size_t i = 0; i < r->n; i++)
        if (ace_eq(&r->v[i], b)) return false;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 4;
        r->v = realloc(r->v, r->cap * sizeof(ace_t));
        if (!r->v) abort();
    }
    r->v[r->n++] = (ace_t){gr_xstrdup(b->principal), gr_xstrdup(b->host), b->op, b->perm};
    a->count++;
    return true;
}

bool gr_acl_authz_remove(gr_acl_authz_t *a, const gr_acl_binding_t *b) {
    size_t len = strlen(b->name);
    rkey_t k = {b->rtype, b->ptype, b->name, len};
    gr_hnode_t **slot = gr_htab_slot(&a->tab, key_hash(&k), key_eq, &k);
    res_t *r = GR_HTAB_ENTRY(*slot, res_t, node);
    if (!r) return false;
    for (size_t i = 0; i < r->n; i++) {
        if (!ace_eq(&r->v[i], b)) continue;
        free(r->v[i].principal);
        free(r->v[i].host);
        r->v[i] = r->v[--r->n];
        a->count--;
        if (r->n == 0) {
            gr_htab_unlink(&a->tab, slot);
            if (r->ptype == GR_ACL_PT_PREFIXED) plen_update(&a->plen[r->rtype], len, -1);
            res_free(r);
        }
        return true;
    }
    return false;
}

size_t gr_acl_authz_count(const gr_acl_authz_t *a) { return a->count; }

void gr_acl_authz_list(const gr_acl_authz_t *a, const gr_acl_filter_t *f, gr_acl_visit_fn *cb, void *arg) {
    for (gr_hnode_t *n = gr_htab_first(&a->tab); n; n = gr_htab_next(&a->tab, n)) {
        const res_t *r = GR_HTAB_ENTRY(n, res_t, node);
        for (size_t i = 0; i < r->n; i++) {
            gr_acl_binding_t b = {r->rtype,     r->ptype,   r->name,     r->v[i].principal,
                                  r->v[i].host, r->v[i].op, r->v[i].perm};
            if (!f || gr_acl_filter_matches(f, &b)) cb(arg, &b);
        }
    }
}

bool gr_acl_is_super(const gr_acl_authz_t *a, const char *principal) {
    for (size_t i = 0; i < a->n_supers; i++)
        if (!strcmp(a->supers[i], principal)) return true;
    return false;
}

static bool principal_matches(const char *acl_principal, const char *principal) {
    return !strcmp(acl_principal, principal) || !strcmp(acl_principal, GR_ACL_WILDCARD_PRINCIPAL);
}

static bool host_matches(const char *acl_host, const char *host) {
    return !strcmp(acl_host, GR_ACL_WILDCARD) || !strcmp(acl_host, host);
}

/* Does an ALLOW entry for acl_op grant op? (Kafka: READ/WRITE/DELETE/ALTER imply DESCRIBE,
 * ALTER_CONFIGS implies DESCRIBE_CONFIGS, ALL implies everything.) DENY is not widened. */
static bool op_covers(int8_t acl_op, int8_t perm, int8_t op) {
    if (acl_op == GR_ACL_OP_ALL || acl_op == op) return true;
    if (perm != GR_ACL_PERM_ALLOW) return false;
    if (op == GR_ACL_OP_DESCRIBE)
        return acl_op == GR_ACL_OP_READ || acl_op == GR_ACL_OP_WRITE || acl_op == GR_ACL_OP_DELETE ||
               acl_op == GR_ACL_OP_ALTER;
    return op == GR_ACL_OP_DESCRIBE_CONFIGS && acl_op == GR_ACL_OP_ALTER_CONFIGS;
}

typedef struct decision {
    bool has_acls, allow, deny;
} decision_t;

static void check(const res_t *r, const char *principal, const char *host, int8_t op, decision_t *d) {
    if (!r) return;
    d->has_acls = true;
    for (size_t i = 0; i < r->n && !d->deny; i++) {
        const ace_t *e = &r->v[i];
        if (!principal_matches(e->principal, principal) || !host_matches(e->host, host)) continue;
        if (!op_covers(e->op, e->perm, op)) continue;
        if (e->perm == GR_ACL_PERM_DENY)
            d->deny = true;
        else
            d->allow = true;
    }
}

bool gr_acl_authorize(const gr_acl_authz_t *a, const char *principal, const char *host, int8_t op, int8_t rtype,
                      const char *name) {
    if (gr_acl_is_super(a, principal)) return true;
    if (rtype <= GR_ACL_RT_ANY || rtype >= GR_ACL_RT_N) return false;
    size_t len = strlen(name);
    decision_t d = {false, false, false};
    check(find(a, rtype, GR_ACL_PT_LITERAL, name, len), principal, host, op, &d);
    const plens_t *p = &a->plen[rtype];
    for (size_t i = 0; i < p->n && p->len[i] <= len && !d.deny; i++)
        check(find(a, rtype, GR_ACL_PT_PREFIXED, name, p->len[i]), principal, host, op, &d);
    if (!d.deny && strcmp(name, GR_ACL_WILDCARD))
        check(find(a, rtype, GR_ACL_PT_LITERAL, GR_ACL_WILDCARD, 1), principal, host, op, &d);
    if (d.deny) return false;
    if (d.allow) return true;
    return !d.has_acls && a->allow_if_no_acl;
}
