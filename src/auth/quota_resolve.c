/* DescribeClientQuotas' filter (Kafka's ClientQuotasImage.describe) and the default
 * quota callback's resolution of a (user, client-id) pair (Kafka's DefaultQuotaCallback). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "auth/quota.h"
#include "auth/quota_int.h"
#include "base/err.h"

static int type_bit(const char *t) {
    if (!strcmp(t, "user")) return GR_QE_USER;
    if (!strcmp(t, "client-id")) return GR_QE_CLIENT;
    if (!strcmp(t, "ip")) return GR_QE_IP;
    return 0;
}

int16_t gr_quota_filter_check(const gr_quota_filter_comp_t *c, size_t n, char *msg, size_t msg_size) {
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        const char *t = c[i].type ? c[i].type : "";
        int bit = type_bit(t);
        bool again = false;
        for (size_t k = 0; k < i && !again; k++) again = c[k].type && !strcmp(c[k].type, t);
        if (!*t) return snprintf(msg, msg_size, "Invalid empty entity type."), GR_ERR_INVALID_REQUEST;
        if (again)
            return snprintf(msg, msg_size, "Entity type %s cannot appear more than once in the filter.", t),
                   GR_ERR_INVALID_REQUEST;
        if (!bit) return snprintf(msg, msg_size, "Unsupported entity type %s", t), GR_ERR_UNSUPPORTED_VERSION;
        if (c[i].match_type == 0 && !c[i].match)
            return snprintf(msg, msg_size, "Request specified MATCH_TYPE_EXACT, but set match string to null."),
                   GR_ERR_INVALID_REQUEST;
        if (c[i].match_type == 1 && c[i].match)
            return snprintf(msg, msg_size, "Request specified MATCH_TYPE_DEFAULT, but also specified a match string."),
                   GR_ERR_INVALID_REQUEST;
        if (c[i].match_type == 2 && c[i].match)
            return snprintf(msg, msg_size,
                            "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string."),
                   GR_ERR_INVALID_REQUEST;
        if (c[i].match_type < 0 || c[i].match_type > 2)
            return snprintf(msg, msg_size, "Unknown match type %d", c[i].match_type), GR_ERR_INVALID_REQUEST;
        seen |= bit;
    }
    if ((seen & GR_QE_IP) && (seen & (GR_QE_USER | GR_QE_CLIENT)))
        return snprintf(msg, msg_size,
                        "Invalid entity filter component combination. IP filter component should not be used with "
                        "user or clientId filter component."),
               GR_ERR_INVALID_REQUEST;
    return 0;
}

static const char *entry_name(const gr_quota_entry_t *e, int bit) {
    return bit == GR_QE_USER ? e->user : bit == GR_QE_CLIENT ? e->client : e->ip;
}

bool gr_quota_filter_match(const gr_quota_filter_comp_t *c, size_t n, bool strict, const gr_quota_entry_t *e) {
    size_t types = 0;
    for (int b = 1; b <= 4; b <<= 1) types += (e->types & b) != 0;
    if (strict && types != n) return false;
    for (size_t i = 0; i < n; i++) {
        int bit = type_bit(c[i].type);
        if (!(e->types & bit)) return false;
        const char *name = entry_name(e, bit);
        if (c[i].match_type == 0 && (!name || strcmp(name, c[i].match))) return false;
        if (c[i].match_type == 1 && name) return false;
    }
    return true;
}

/* The value of key k on the entity (user, client), NULL names being defaults. */
static bool get(const gr_quota_store_t *s, gr_quota_key_t k, uint8_t types, const char *user, const char *client,
                double *v) {
    gr_quota_entity_t e = {types, user, client, NULL};
    const gr_quota_entry_t *x = gr_quota_store_find(s, &e);
    if (!x || !(x->set & (1u << k))) return false;
    *v = x->v[k];
    return true;
}

enum { U = GR_QE_USER, C = GR_QE_CLIENT, UC = GR_QE_USER | GR_QE_CLIENT };

/* Kafka's eight places, in order. */
void gr_quota_resolve(const gr_quota_store_t *s, gr_quota_key_t k, const char *user, const char *client,
                      gr_quota_resolved_t *out) {
    double v;
    memset(out, 0, sizeof(*out));
    out->has_limit = true;
    if (get(s, k, UC, user, client, &v) || get(s, k, UC, user, NULL, &v)) {
        out->user_tag = out->client_tag = true;
    } else if (get(s, k, U, user, NULL, &v)) {
        out->user_tag = true;
    } else if (get(s, k, UC, NULL, client, &v) || get(s, k, UC, NULL, NULL, &v)) {
        out->user_tag = out->client_tag = true;
    } else if (get(s, k, U, NULL, NULL, &v)) {
        out->user_tag = true;
    } else {
        out->client_tag = true;
        if (!get(s, k, C, NULL, client, &v) && !get(s, k, C, NULL, NULL, &v)) out->has_limit = false;
    }
    out->limit = out->has_limit ? v : 0;
}

/* An IP entity's name as a 16-byte address (IPv4 mapped into IPv6); false if not a literal. */
static bool parse_ip(const char *name, uint8_t out[16]) {
    memset(out, 0, 16);
    if (inet_pton(AF_INET6, name, out) == 1) return true;
    if (inet_pton(AF_INET, name, out + 12) != 1) return false;
    out[10] = out[11] = 0xff;
    return true;
}

bool gr_quota_ip_limit(const gr_quota_store_t *s, const uint8_t addr[16], double *limit) {
    const gr_quota_entry_t *dflt = NULL;
    const uint32_t bit = 1u << GR_QK_CONNECTION_CREATION_RATE;
    for (size_t i = 0; i < s->n; i++) {
        const gr_quota_entry_t *e = &s->e[i];
        if (e->types != GR_QE_IP || !(e->set & bit)) continue;
        uint8_t a[16];
        if (!e->ip)
            dflt = e;
        else if (parse_ip(e->ip, a) && !memcmp(a, addr, 16))
            return *limit = e->v[GR_QK_CONNECTION_CREATION_RATE], true;
    }
    if (dflt) *limit = dflt->v[GR_QK_CONNECTION_CREATION_RATE];
    return dflt != NULL;
}
