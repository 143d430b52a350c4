/* max.connections.per.ip: open connections counted per peer address, with the
 * per-host overrides of max.connections.per.ip.overrides ("host:n,host:n"; a host
 * is an IPv4/IPv6 address, [v6] in brackets, or a name resolved once at start-up).
 * Addresses are 16 bytes (IPv4 mapped into IPv6). The table is keyed by the address,
 * which the peer chooses, so it uses the process-keyed hash. */
#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "net/conn_int.h"

typedef struct ip_entry {
    gr_hnode_t node;
    uint8_t addr[16];
    int64_t count;
} ip_entry_t;

typedef struct ip_override {
    uint8_t addr[16];
    int64_t limit;
} ip_override_t;

struct gr__ip_limits {
    gr_htab_t map;
    ip_override_t *ov;
    size_t n_ov;
};

static bool addr_eq(const gr_hnode_t *node, const void *key) {
    return !memcmp(GR_HTAB_ENTRY(node, ip_entry_t, node)->addr, key, 16);
}

static void add_override(gr__ip_limits_t *ips, const uint8_t addr[16], int64_t limit) {
    ip_override_t *v = realloc(ips->ov, (ips->n_ov + 1) * sizeof(*v));
    if (!v) abort();
    ips->ov = v;
    memcpy(v[ips->n_ov].addr, addr, 16);
    v[ips->n_ov++].limit = limit;
}

/* Every address of host (numeric or a name) gets the limit. */
static bool resolve_override(gr__ip_limits_t *ips, const char *host, int64_t limit, char *errstr, size_t sz) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    int rc = getaddrinfo(host, NULL, &hints, &res);
    if (rc) {
        snprintf(errstr, sz, "Invalid value for configuration max.connections.per.ip.overrides: cannot resolve %s: %s",
                 host, gai_strerror(rc));
        return false;
    }
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        uint8_t a[16];
        gr__addr_from_sockaddr(ai->ai_addr, a);
        add_override(ips, a, limit);
    }
    freeaddrinfo(res);
    return true;
}

void gr__addr_from_sockaddr(const struct sockaddr *sa, uint8_t out[16]) {
    memset(out, 0, 16);
    if (sa->sa_family == AF_INET) {
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    } else if (sa->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
    }
}

/* One "host:n" item (trimmed, len bytes at p). */
static bool parse_item(gr__ip_limits_t *ips, const char *p, size_t len, char *errstr, size_t sz) {
    char item[300];
    snprintf(item, sizeof(item), "%.*s", (int)(len < sizeof(item) ? len : sizeof(item) - 1), p);
    char *colon = strrchr(item, ':');
    char *end = NULL;
    long long limit = colon ? strtoll(colon + 1, &end, 10) : -1;
    if (!colon || colon == item || !end || end == colon + 1 || *end || limit < 0 || limit > INT32_MAX) {
        snprintf(errstr, sz, "Invalid value %s for configuration max.connections.per.ip.overrides: expected host:count",
                 item);
        return false;
    }
    *colon = '\0';
    char *host = item;
    size_t hl = strlen(host);
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        host[hl - 1] = '\0';
        host++;
    }
    return resolve_override(ips, host, limit, errstr, sz);
}

gr__ip_limits_t *gr__ip_limits_new(const char *overrides, char *errstr, size_t errstr_size) {
    gr__ip_limits_t *ips = calloc(1, sizeof(*ips));
    if (!ips) abort();
    gr_htab_init(&ips->map, 16);
    for (const char *p = overrides ? overrides : ""; *p;) {
        while (*p == ',' || isspace((unsigned char)*p)) p++;
        size_t len = strcspn(p, ",");
        size_t tl = len;
        while (tl && isspace((unsigned char)p[tl - 1])) tl--;
        if (tl && !parse_item(ips, p, tl, errstr, errstr_size)) {
            gr__ip_limits_free(ips);
            return NULL;
        }
        p += len;
    }
    return ips;
}

void gr__ip_limits_free(gr__ip_limits_t *ips) {
    if (!ips) return;
    for (gr_hnode_t *n = gr_htab_first(&ips->map), *next; n; n = next) {
        next = gr_htab_next(&ips->map, n);
        free(GR_HTAB_ENTRY(n, ip_entry_t, node));
    }
    gr_htab_free(&ips->map);
    free(ips->ov);
    free(ips);
}

void *gr__ip_limits_acquire(gr__ip_limits_t *ips, const uint8_t addr[16], int64_t per_ip, int64_t *limit) {
    *limit = per_ip;
    for (size_t i = 0; i < ips->n_ov; i++)
        if (!memcmp(ips->ov[i].addr, addr, 16)) *limit = ips->ov[i].limit;
    uint64_t h = gr_hash(addr, 16);
    gr_hnode_t *node = *gr_htab_slot(&ips->map, h, addr_eq, addr);
    ip_entry_t *e = GR_HTAB_ENTRY(node, ip_entry_t, node);
    if ((e ? e->count : 0) >= *limit) return NULL;
    if (!e) {
        e = calloc(1, sizeof(*e));
        if (!e) abort();
        memcpy(e->addr, addr, 16);
        gr_htab_insert(&ips->map, &e->node, h);
    }
    e->count++;
    return e;
}

void gr__ip_limits_release(gr__ip_limits_t *ips, void *entry) {
    ip_entry_t *e = entry;
    if (--e->count > 0) return;
    gr_hnode_t **slot = gr_htab_slot(&ips->map, e->node.hash, addr_eq, e->addr);
    gr_htab_unlink(&ips->map, slot);
    free(e);
}
