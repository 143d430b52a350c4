/* The broker's client listeners: one gr_listener per `listeners` entry (config.h
 * gr_listener_config_t), TLS contexts for SSL / SASL_SSL ones, and the advertised endpoint
 * a request's own listener answers with (Metadata, FindCoordinator, DescribeCluster). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/ssl_principal.h"
#include "base/log.h"
#include "broker/broker_int.h"
#include "broker/quotas.h"

static const char *const g_proto_names[] = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"};

static bool is_tls(const gr_listener_config_t *lc) {
    return lc->sec_proto == GR_SEC_SSL || lc->sec_proto == GR_SEC_SASL_SSL;
}

static bool map_principal(void *arg, const char *dn, char *out, size_t n, char *err, size_t en) {
    return gr_ssl_rules_map(arg, dn, out, n, err, en);
}

/* The TLS context of one listener from o (its rules in *rules, freed by the caller). */
static gr_err_t tls_ctx(const gr_listener_config_t *lc, const gr_tls_opts_t *opts, gr_tls_ctx_t **ctx,
                        gr_ssl_rules_t **rules, char *errstr, size_t sz) {
    if (gr_ssl_rules_parse(lc->ssl_rules, rules, errstr, sz)) return GR_ERR_INVALID_CONFIG; /* checked at load */
    gr_tls_opts_t o = *opts;
    o.map_principal = map_principal;
    o.map_arg = *rules;
    return gr_tls_ctx_new(&o, lc->name, ctx, errstr, sz);
}

gr_err_t gr_broker_check_tls(const gr_server_config_t *cfg, char *errstr, size_t sz) {
    for (size_t i = 0; i < cfg->n_listeners; i++) {
        if (!is_tls(&cfg->listeners[i])) continue;
        gr_tls_ctx_t *ctx = NULL;
        gr_ssl_rules_t *rules = NULL;
        gr_err_t err = tls_ctx(&cfg->listeners[i], &cfg->listeners[i].tls, &ctx, &rules, errstr, sz);
        gr_tls_ctx_free(ctx);
        gr_ssl_rules_free(rules);
        if (err) return err;
    }
    return GR_ERR_NONE;
}

static gr_err_t open_one(gr_broker_t *b, size_t i, char *errstr, size_t sz) {
    const gr_listener_config_t *lc = &b->cfg->listeners[i];
    gr_conn_opts_t opts;
    gr_conn_opts_default(&opts);
    opts.max_request_bytes = (size_t)b->cfg->socket_request_max_bytes;
    opts.idle_ms = b->cfg->connections_max_idle_ms;
    opts.queued_max_bytes = b->cfg->queued_max_request_bytes > 0 ? (size_t)b->cfg->queued_max_request_bytes : 0;
    opts.request_timeout_ms = b->cfg->socket_request_read_timeout_ms;
    opts.max_connections = b->cfg->max_connections;
    opts.max_connections_per_ip = b->cfg->max_connections_per_ip;
    opts.per_ip_overrides = b->cfg->max_connections_per_ip_overrides;
    opts.sec_proto = (gr_sec_proto_t)lc->sec_proto;
    opts.listener_name = lc->name;
    if (is_tls(lc)) {
        /* server.properties with the dynamic keystore/truststore settings on top (tls_reload.c) */
        gr_tls_opts_t o;
        gr__broker_tls_opts(b, i, gr_meta_broker_configs(b->meta, false), &o);
        gr__broker_file_stamp(o.keystore_location, &b->lst[i].ks_stamp);
        gr__broker_file_stamp(o.truststore_location, &b->lst[i].ts_stamp);
        gr_err_t err = tls_ctx(lc, &o, &b->lst[i].tls, &b->lst[i].rules, errstr, sz);
        if (err) return err;
        opts.tls = b->lst[i].tls;
    }
    gr_conn_handler_t h = {.on_frame = gr_broker_on_frame,
                           .on_close = gr_broker_on_close,
                           .on_accept = gr_broker_sasl_on_accept,
                           .on_admit = gr_broker_conn_admit,
                           .ctx = b};
    gr_err_t err = gr_listener_open(b->loop, lc->host, lc->port, &opts, &h, &b->lst[i].l, errstr, sz);
    if (err) return err;
    if (is_tls(lc))
        GR_INFO("broker", "listener %s (%s) on port %u: TLS, ssl.client.auth=%s; fetched file data goes out %s",
                lc->name, g_proto_names[lc->sec_proto], gr_listener_port(b->lst[i].l),
                lc->tls.client_auth == GR_TLS_AUTH_REQUIRED    ? "required"
                : lc->tls.client_auth == GR_TLS_AUTH_REQUESTED ? "requested"
                                                               : "none",
                gr_tls_ktls_available() ? "with kTLS (SSL_sendfile, zero-copy where the cipher allows)"
                                        : "through pread + SSL_write (no kTLS in this kernel: one extra copy)");
    return GR_ERR_NONE;
}

gr_err_t gr__broker_open_listeners(gr_broker_t *b, char *errstr, size_t sz) {
    const gr_server_config_t *cfg = b->cfg;
    b->lst = calloc(cfg->n_listeners, sizeof(*b->lst));
    if (!b->lst) abort();
    b->n_lst = cfg->n_listeners;
    for (size_t i = 0; i < cfg->n_listeners; i++) {
        char why[768];
        gr_err_t err = open_one(b, i, why, sizeof(why));
        if (err) {
            const gr_listener_config_t *lc = &cfg->listeners[i];
            bool v6 = strchr(lc->host, ':') != NULL;
            snprintf(errstr, sz, "listeners=%s://%s%s%s:%u: %s", lc->name, v6 ? "[" : "", lc->host, v6 ? "]" : "",
                     lc->port, why);
            return err;
        }
    }
    b->listener = b->lst[0].l;
    return GR_ERR_NONE;
}

void gr__broker_close_listeners(gr_broker_t *b) {
    for (size_t i = 0; i < b->n_lst; i++) {
        if (b->lst[i].l) gr_listener_close(b->lst[i].l);
        gr_tls_ctx_free(b->lst[i].tls);
        gr_ssl_rules_free(b->lst[i].rules);
    }
    free(b->lst);
    b->lst = NULL;
    b->n_lst = 0;
    b->listener = NULL;
}

/* The listener a connection came in on (the first one if unknown). */
static size_t index_of(const gr_broker_t *b, const gr_conn_t *conn) {
    const char *name = conn ? gr_conn_listener_name(conn) : NULL;
    for (size_t i = 0; name && i < b->cfg->n_listeners; i++)
        if (!strcmp(b->cfg->listeners[i].name, name)) return i;
    return 0;
}

const char *gr_broker_host(const gr_broker_t *b, const gr_conn_t *conn) {
    return b->cfg->listeners[index_of(b, conn)].adv_host;
}

int32_t gr_broker_adv_port(const gr_broker_t *b, const gr_conn_t *conn) {
    size_t i = index_of(b, conn);
    if (b->cfg->listeners[i].adv_port) return b->cfg->listeners[i].adv_port;
    return i < b->n_lst && b->lst[i].l ? gr_listener_port(b->lst[i].l) : 0;
}

uint16_t gr_broker_listener_port(const gr_broker_t *b, size_t i) {
    return i < b->n_lst && b->lst[i].l ? gr_listener_port(b->lst[i].l) : 0;
}
