/* listeners, advertised.listeners, listener.security.protocol.map, inter.broker.listener.name
 * and the ssl.* settings of each listener, with Kafka's validation and wording (KafkaConfig,
 * SocketServerConfigs). Part of config.c's loading; see config.h. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "auth/ssl_principal.h"
#include "base/xalloc.h"
#include "net/conn.h"
#include "server/config_int.h"

#define MAX_EP 32

typedef struct endpoint {
    char name[64];
    char host[256];
    uint16_t port;
} endpoint_t;

/* ssl.* keys gregord reads, per listener; their Kafka defaults. */
#define SSL_OPT(field) offsetof(gr_tls_opts_t, field)
static const struct {
    const char *key, *dflt;
    size_t off;
} g_ssl[] = {
    {"ssl.keystore.type", "JKS", SSL_OPT(keystore_type)},
    {"ssl.keystore.location", NULL, SSL_OPT(keystore_location)},
    {"ssl.keystore.certificate.chain", NULL, SSL_OPT(keystore_chain)},
    {"ssl.keystore.key", NULL, SSL_OPT(keystore_key)},
    {"ssl.key.password", NULL, SSL_OPT(key_password)},
    {"ssl.truststore.type", "JKS", SSL_OPT(truststore_type)},
    {"ssl.truststore.location", NULL, SSL_OPT(truststore_location)},
    {"ssl.truststore.certificates", NULL, SSL_OPT(truststore_certs)},
    {"ssl.enabled.protocols", "TLSv1.2,TLSv1.3", SSL_OPT(enabled_protocols)},
    {"ssl.protocol", "TLSv1.3", SSL_OPT(protocol)},
    {"ssl.cipher.suites", "", SSL_OPT(cipher_suites)},
};
/* Read by gregord outside gr_tls_opts_t, or accepted without effect (JKS passwords, JSSE knobs,
 * the client-side ssl.endpoint.identification.algorithm). */
static const char *const g_ssl_other[] = {"ssl.client.auth",
                                          "ssl.principal.mapping.rules",
                                          "ssl.keystore.password",
                                          "ssl.truststore.password",
                                          "ssl.endpoint.identification.algorithm",
                                          "ssl.provider",
                                          "ssl.keymanager.algorithm",
                                          "ssl.trustmanager.algorithm",
                                          "ssl.secure.random.implementation",
                                          "ssl.engine.factory.class",
                                          "ssl.allow.dn.changes",
                                          "ssl.allow.san.changes",
                                          NULL};

static bool ssl_key(const char *k) {
    for (size_t i = 0; i < sizeof(g_ssl) / sizeof(g_ssl[0]); i++)
        if (!strcmp(k, g_ssl[i].key)) return true;
    for (size_t i = 0; g_ssl_other[i]; i++)
        if (!strcmp(k, g_ssl_other[i])) return true;
    return false;
}

bool gr__config_key_consumed(const char *key) {
    if (ssl_key(key) || !strcmp(key, "security.inter.broker.protocol")) return true;
    if (strncmp(key, "listener.name.", 14)) return false;
    const char *dot = strchr(key + 14, '.');
    if (!dot || dot == key + 14) return false;
    /* listener.name.<l>.ssl.*, .sasl.* and .<mechanism>.sasl.jaas.config (read by the SASL setup),
     * .max.connection.creation.rate (the connection quotas, src/broker/conn_quotas.c) */
    const char *rest = dot + 1, *jaas = ".sasl.jaas.config";
    size_t rl = strlen(rest), jl = strlen(jaas);
    return ssl_key(rest) || !strncmp(rest, "sasl.", 5) || (rl > jl && !strcmp(rest + rl - jl, jaas)) ||
           !strcmp(rest, "max.connection.creation.rate");
}

/* Parse an endpoint list (syntax already checked by configdefs' check_listeners). */
static size_t parse_list(const char *list, endpoint_t *ep, size_t max) {
    size_t n = 0;
    for (const char *p = list; *p && n < max;) {
        while (*p == ',' || isspace((unsigned char)*p)) p++;
        if (!*p) break;
        size_t len = strcspn(p, ",");
        while (len && isspace((unsigned char)p[len - 1])) len--;
        const char *sep = strstr(p, "://"), *colon = p + len;
        while (colon > sep && *colon != ':') colon--;
        size_t nl = (size_t)(sep - p);
        endpoint_t *e = &ep[n++];
        snprintf(e->name, sizeof(e->name), "%.*s", (int)nl, p);
        for (char *c = e->name; *c; c++) *c = (char)toupper((unsigned char)*c); /* ListenerName.normalised */
        const char *h = sep + 3;
        size_t hl = (size_t)(colon - h);
        if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') h++, hl -= 2;
        snprintf(e->host, sizeof(e->host), "%.*s", (int)hl, h);
        e->port = (uint16_t)atoi(colon + 1);
        p += strcspn(p, ",");
    }
    return n;
}

static bool in_names(const char *list, const char *name) {
    for (const char *p = list; *p;) {
        while (*p == ',' || isspace((unsigned char)*p)) p++;
        size_t len = strcspn(p, ",");
        size_t tl = len;
        while (tl && isspace((unsigned char)p[tl - 1])) tl--;
        if (tl && tl == strlen(name) && !strncasecmp(p, name, tl)) return true;
        p += len;
    }
    return false;
}

static int proto_named(const char *s) {
    static const char *const names[] = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"};
    for (int i = 0; i < 4; i++)
        if (!strcasecmp(s, names[i])) return i;
    return -1;
}

/* The protocol of listener `name` in the map: >= 0, -1 absent, -2 map malformed (errstr set). */
static int map_lookup(const char *map, const char *name, char *errstr, size_t sz) {
    for (const char *p = map; *p;) {
        while (*p == ',' || isspace((unsigned char)*p)) p++;
        if (!*p) break;
        size_t len = strcspn(p, ",");
        char item[256];
        snprintf(item, sizeof(item), "%.*s", (int)len, p);
        p += len;
        char *colon = strchr(item, ':');
        if (!colon) {
            snprintf(errstr, sz,
                     "Invalid value %s for configuration listener.security.protocol.map: Map entry '%s' "
                     "is improperly formatted. Expected NAME:PROTOCOL",
                     map, item);
            return -2;
        }
        *colon = '\0';
        char *v = colon + 1;
        while (isspace((unsigned char)*v)) v++;
        for (size_t l = strlen(v); l && isspace((unsigned char)v[l - 1]);) v[--l] = '\0';
        int proto = proto_named(v);
        if (proto < 0) {
            snprintf(errstr, sz, "Invalid security protocol `%s` defined in listener.security.protocol.map", v);
            return -2;
        }
        char *k = item;
        while (isspace((unsigned char)*k)) k++;
        for (size_t l = strlen(k); l && isspace((unsigned char)k[l - 1]);) k[--l] = '\0';
        if (!strcasecmp(k, name)) return proto;
    }
    return -1;
}

/* listener.name.<lower name>.<key>, else <key>, else the default. */
static const char *ssl_value(const gr_props_t *raw, const char *lname, const char *key, const char *dflt) {
    char k[256];
    snprintf(k, sizeof(k), "listener.name.%s.%s", lname, key);
    for (char *c = k + 14; *c && *c != '.'; c++) *c = (char)tolower((unsigned char)*c);
    const char *v = gr_props_get(raw, k);
    if (!v) v = gr_props_get(raw, key);
    return v ? v : dflt;
}

/* Is listener.name.<lower name>.<key> set? */
static bool own(const gr_props_t *raw, const char *lname, const char *key) {
    char k[256];
    snprintf(k, sizeof(k), "listener.name.%s.%s", lname, key);
    for (char *c = k + 14; *c && *c != '.'; c++) *c = (char)tolower((unsigned char)*c);
    return gr_props_get(raw, k) != NULL;
}

static gr_err_t fill_ssl(const gr_props_t *raw, gr_listener_config_t *l, char *errstr, size_t sz) {
    for (size_t i = 0; i < sizeof(g_ssl) / sizeof(g_ssl[0]); i++) {
        const char *v = ssl_value(raw, l->name, g_ssl[i].key, g_ssl[i].dflt);
        *(const char **)((char *)&l->tls + g_ssl[i].off) = v ? gr_xstrdup(v) : NULL;
    }
    /* A keystore given for this listener replaces a global one of the other form. */
    if (own(raw, l->name, "ssl.keystore.location") && !own(raw, l->name, "ssl.keystore.key")) {
        free((char *)l->tls.keystore_chain);
        free((char *)l->tls.keystore_key);
        l->tls.keystore_chain = l->tls.keystore_key = NULL;
    } else if (own(raw, l->name, "ssl.keystore.key") && !own(raw, l->name, "ssl.keystore.location")) {
        free((char *)l->tls.keystore_location);
        l->tls.keystore_location = NULL;
    }
    const char *auth = ssl_value(raw, l->name, "ssl.client.auth", "none");
    if (!strcmp(auth, "none"))
        l->tls.client_auth = GR_TLS_AUTH_NONE;
    else if (!strcmp(auth, "requested"))
        l->tls.client_auth = GR_TLS_AUTH_REQUESTED;
    else if (!strcmp(auth, "required"))
        l->tls.client_auth = GR_TLS_AUTH_REQUIRED;
    else {
        snprintf(errstr, sz,
                 "Invalid value %s for configuration ssl.client.auth: String must be one of: required, "
                 "requested, none",
                 auth);
        return GR_ERR_INVALID_CONFIG;
    }
    l->ssl_rules = gr_xstrdup(ssl_value(raw, l->name, "ssl.principal.mapping.rules", "DEFAULT"));
    gr_ssl_rules_t *rules = NULL;
    char why[400];
    if (gr_ssl_rules_parse(l->ssl_rules, &rules, why, sizeof(why))) {
        snprintf(errstr, sz, "Invalid value %s for configuration ssl.principal.mapping.rules: %s", l->ssl_rules, why);
        return GR_ERR_INVALID_CONFIG;
    }
    gr_ssl_rules_free(rules);
    return GR_ERR_NONE;
}

/* Kafka: inter.broker.listener.name or security.inter.broker.protocol (default PLAINTEXT)
 * must name an advertised listener, even on a broker with no peers. */
static gr_err_t check_inter_broker(gr_server_config_t *cfg, const char *map, const endpoint_t *adv, size_t n_adv,
                                   const char *controllers, char *errstr, size_t sz) {
    const char *name = gr_props_get(&cfg->raw, "inter.broker.listener.name");
    const char *proto = gr_props_get(&cfg->raw, "security.inter.broker.protocol");
    char want[64];
    if (name && proto) {
        snprintf(errstr, sz,
                 "Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.");
        return GR_ERR_INVALID_CONFIG;
    }
    if (name) {
        snprintf(want, sizeof(want), "%s", name);
        for (char *c = want; *c; c++) *c = (char)toupper((unsigned char)*c);
        char why[512];
        if (map_lookup(map, want, why, sizeof(why)) < 0) {
            snprintf(errstr, sz,
                     "Listener with name %s defined in inter.broker.listener.name not found in "
                     "listener.security.protocol.map.",
                     want);
            return GR_ERR_INVALID_CONFIG;
        }
    } else {
        if (!proto) proto = "PLAINTEXT";
        if (proto_named(proto) < 0) {
            snprintf(errstr, sz,
                     "Invalid value %s for configuration security.inter.broker.protocol: String must be one "
                     "of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL",
                     proto);
            return GR_ERR_INVALID_CONFIG;
        }
        snprintf(want, sizeof(want), "%s", proto);
        for (char *c = want; *c; c++) *c = (char)toupper((unsigned char)*c);
    }
    /* Kafka looks among the advertised names: advertised.listeners if set, else listeners. */
    char valid[MAX_EP * 66] = "";
    bool found = false;
    size_t n = n_adv ? n_adv : cfg->n_listeners;
    for (size_t i = 0; i < n; i++) {
        const char *name = n_adv ? adv[i].name : cfg->listeners[i].name;
        if (n_adv && in_names(controllers, name)) continue;
        found = found || !strcmp(name, want);
        size_t vl = strlen(valid);
        snprintf(valid + vl, sizeof(valid) - vl, "%s%.63s", vl ? "," : "", name);
    }
    if (!found) {
        snprintf(errstr, sz,
                 "inter.broker.listener.name must be a listener name defined in advertised.listeners. The "
                 "valid options based on currently configured listeners are %s",
                 valid);
        return GR_ERR_INVALID_CONFIG;
    }
    cfg->inter_broker_listener = gr_xstrdup(want);
    return GR_ERR_NONE;
}

/* Fill one listener from its endpoint and the advertised list. */
static gr_err_t fill_listener(gr_server_config_t *cfg, const endpoint_t *ep, int proto, const endpoint_t *adv,
                              size_t n_adv, const char *advs, char *errstr, size_t sz) {
    gr_listener_config_t *l = &cfg->listeners[cfg->n_listeners++];
    l->name = gr_xstrdup(ep->name);
    l->sec_proto = proto;
    l->host = gr_xstrdup(ep->host);
    l->port = ep->port;
    const endpoint_t *a = ep;
    for (size_t i = 0; i < n_adv; i++)
        if (!strcmp(adv[i].name, ep->name)) a = &adv[i];
    char host[256];
    snprintf(host, sizeof(host), "%s", a->host);
    if (!host[0] && (gethostname(host, sizeof(host)) != 0 || !host[0])) snprintf(host, sizeof(host), "localhost");
    host[sizeof(host) - 1] = '\0';
    if (!strcmp(host, "0.0.0.0") || !strcmp(host, "::")) {
        snprintf(errstr, sz,
                 "Invalid value %s for configuration advertised.listeners: the nonroutable meta-address %s cannot be "
                 "advertised; use a routable address",
                 advs, host);
        return GR_ERR_INVALID_CONFIG;
    }
    l->adv_host = gr_xstrdup(host);
    l->adv_port = a->port;
    if (proto == GR_SEC_SSL || proto == GR_SEC_SASL_SSL) return fill_ssl(&cfg->raw, l, errstr, sz);
    return GR_ERR_NONE;
}

/* "A://x:1, B://y:2" as Kafka prints a list: "[A://x:1, B://y:2]". */
static void bracketed(const char *list, char *out, size_t n) {
    size_t o = (size_t)snprintf(out, n, "[");
    for (const char *p = list; *p && o < n;) {
        while (*p == ',' || isspace((unsigned char)*p)) p++;
        size_t len = strcspn(p, ","), tl = len;
        while (tl && isspace((unsigned char)p[tl - 1])) tl--;
        if (tl) o += (size_t)snprintf(out + o, n - o, "%s%.*s", o > 1 ? ", " : "", (int)tl, p);
        p += len;
    }
    if (o < n) snprintf(out + o, n - o, "]");
}

/* Kafka lets two listeners share a port when one is an IPv4 and the other an IPv6 address. */
static bool v4_and_v6(const char *a, const char *b) {
    unsigned char x[16];
    bool a4 = inet_pton(AF_INET, a, x) == 1, a6 = inet_pton(AF_INET6, a, x) == 1;
    bool b4 = inet_pton(AF_INET, b, x) == 1, b6 = inet_pton(AF_INET6, b, x) == 1;
    return (a4 && b6) || (a6 && b4);
}

gr_err_t gr__config_listeners(gr_server_config_t *cfg, const char *listeners, const char *map, const char *controllers,
                              char *errstr, size_t sz) {
    endpoint_t ep[MAX_EP], adv[MAX_EP];
    size_t n = parse_list(listeners, ep, MAX_EP), n_adv = 0;
    const char *advs = gr_props_get(&cfg->raw, "advertised.listeners");
    if (advs) n_adv = parse_list(advs, adv, MAX_EP);
    char shown[2048]; /* Kafka prints the list as [A, B] */
    bracketed(listeners, shown, sizeof(shown));
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (ep[i].port && ep[i].port == ep[j].port && !v4_and_v6(ep[i].host, ep[j].host)) {
                snprintf(errstr, sz,
                         "Error creating broker listeners from '%s': If you have two listeners on the same port then "
                         "one needs to be IPv4 and the other IPv6, listeners: %s, port: %u",
                         shown, shown, ep[i].port);
                return GR_ERR_INVALID_CONFIG;
            }
    cfg->listeners = calloc(n ? n : 1, sizeof(*cfg->listeners));
    if (!cfg->listeners) abort();
    for (size_t i = 0; i < n; i++) {
        int proto = map_lookup(map, ep[i].name, errstr, sz);
        if (proto == -2) return GR_ERR_INVALID_CONFIG;
        bool ctrl = in_names(controllers, ep[i].name);
        /* Kafka adds controller listeners missing from a default (not explicit) map as PLAINTEXT. */
        if (proto == -1 && ctrl && !gr_props_get(&cfg->raw, "listener.security.protocol.map")) continue;
        if (proto == -1) {
            snprintf(errstr, sz,
                     "Error creating broker listeners from '%s': No security protocol defined for listener %s", shown,
                     ep[i].name);
            return GR_ERR_INVALID_CONFIG;
        }
        if (ctrl) continue; /* served by no one: no KRaft controller */
        gr_err_t err = fill_listener(cfg, &ep[i], proto, adv, n_adv, advs, errstr, sz);
        if (err) return err;
    }
    if (!cfg->n_listeners) {
        snprintf(errstr, sz, "Invalid value %s for configuration listeners: no listener to serve clients on",
                 listeners);
        return GR_ERR_INVALID_CONFIG;
    }
    gr_err_t err = check_inter_broker(cfg, map, adv, n_adv, controllers, errstr, sz);
    if (err) return err;
    /* Kafka names every advertised name in the message, and every listener (controllers too). */
    char found[MAX_EP * 66] = "", names[MAX_EP * 66] = "";
    bool bad = false;
    for (size_t i = 0; i < n_adv; i++) {
        if (in_names(controllers, adv[i].name)) continue;
        bool known = false;
        for (size_t j = 0; j < cfg->n_listeners; j++) known = known || !strcmp(adv[i].name, cfg->listeners[j].name);
        bad = bad || !known;
        size_t fl = strlen(found);
        snprintf(found + fl, sizeof(found) - fl, "%s%.63s", fl ? "," : "", adv[i].name);
    }
    for (size_t j = 0; j < n; j++) {
        size_t nl = strlen(names);
        snprintf(names + nl, sizeof(names) - nl, "%s%.63s", nl ? "," : "", ep[j].name);
    }
    if (bad) {
        snprintf(errstr, sz,
                 "advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. "
                 "Found %s. The valid options based on the current configuration are %s",
                 found, names);
        return GR_ERR_INVALID_CONFIG;
    }
    return GR_ERR_NONE;
}

void gr__config_listeners_free(gr_server_config_t *cfg) {
    for (size_t i = 0; i < cfg->n_listeners; i++) {
        gr_listener_config_t *l = &cfg->listeners[i];
        free(l->name);
        free(l->host);
        free(l->adv_host);
        free(l->ssl_rules);
        for (size_t k = 0; k < sizeof(g_ssl) / sizeof(g_ssl[0]); k++) free(*(char **)((char *)&l->tls + g_ssl[k].off));
    }
    free(cfg->listeners);
    free(cfg->inter_broker_listener);
}
