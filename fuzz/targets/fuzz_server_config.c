/* libFuzzer target: the gregord configuration (src/server/config.c): server.properties
 * text plus --override strings, validated and turned into typed fields
 * (gr_server_config_parse, the in-memory form of gr_server_config_load).
 *
 * Input: .properties text, then optionally a NUL byte and NUL-separated --override
 * strings. Invariants: no crash or leak; an error has a message; an accepted config has
 * a listener, a routable advertised host, a log dir, share bounds min <= default <= max,
 * and its raw layer (file + overrides), formatted as .properties text and loaded again
 * without overrides, gives the same typed configuration. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/props.h"
#include "server/config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    gr_log_set_level(GR_LOG_ERROR); /* unknown keys are warned about: keep the output quiet */
    return 0;
}

static void assert_same(const gr_server_config_t *a, const gr_server_config_t *b) {
    assert(!strcmp(a->listener_name, b->listener_name) && !strcmp(a->listen_host, b->listen_host));
    assert(a->listen_port == b->listen_port && a->advertised_port == b->advertised_port);
    assert(!strcmp(a->advertised_host, b->advertised_host));
    assert(a->node_id == b->node_id && !strcmp(a->log_dir, b->log_dir));
    assert(a->log_dir_is_default == b->log_dir_is_default && a->log_level == b->log_level);
    assert(a->max_connections == b->max_connections && a->max_connections_per_ip == b->max_connections_per_ip);
    assert(!strcmp(a->max_connections_per_ip_overrides, b->max_connections_per_ip_overrides));
    assert(a->queued_max_request_bytes == b->queued_max_request_bytes);
    assert(a->log_retention_ms == b->log_retention_ms && a->log_segment_bytes == b->log_segment_bytes);
    assert(a->log_roll_ms == b->log_roll_ms && a->log_flush_interval_ms == b->log_flush_interval_ms);
    assert(!strcmp(a->compression_type, b->compression_type));
    assert(memcmp(&a->share, &b->share, sizeof(a->share)) == 0);
}

static void check_accepted(const gr_server_config_t *cfg) {
    assert(cfg->listener_name[0] && cfg->advertised_host[0] && cfg->log_dir[0]);
    assert(strcmp(cfg->advertised_host, "0.0.0.0") && strcmp(cfg->advertised_host, "::"));
    const gr_share_config_t *s = &cfg->share;
    assert(s->sg.min_delivery_count_limit <= s->sg.delivery_count_limit);
    assert(s->sg.delivery_count_limit <= s->sg.max_delivery_count_limit);
    assert(s->sg.min_session_timeout_ms <= s->sg.session_timeout_ms &&
           s->sg.session_timeout_ms <= s->sg.max_session_timeout_ms);
    assert(s->max_share_sessions >= s->sg.max_size);
    assert(cfg->max_connections >= 0 && cfg->max_connections_per_ip >= 0);
    assert(cfg->max_connections_per_ip > 0 || cfg->max_connections_per_ip_overrides[0]);
    char *text = gr_props_format(&cfg->raw);
    gr_server_config_t again;
    char err[1024];
    gr_err_t e = gr_server_config_parse(&again, text, strlen(text), "formatted", NULL, 0, err, sizeof(err));
    assert(e == GR_ERR_NONE);
    assert_same(cfg, &again);
    gr_server_config_free(&again);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *t = (const char *)data;
    const char *nul = memchr(t, '\0', size);
    size_t text_len = nul ? (size_t)(nul - t) : size;
    /* Overrides: NUL-separated C strings after the first NUL (a copy ends the last one). */
    char *ovbuf = NULL;
    const char *ov[64];
    int n_ov = 0;
    if (nul) {
        size_t rest = size - text_len - 1;
        ovbuf = malloc(rest + 1);
        memcpy(ovbuf, nul + 1, rest);
        ovbuf[rest] = '\0';
        for (size_t i = 0; i <= rest && n_ov < 64;) {
            ov[n_ov++] = ovbuf + i;
            i += strlen(ovbuf + i) + 1;
        }
    }
    gr_server_config_t cfg;
    char err[1024];
    err[0] = '\0';
    gr_err_t e = gr_server_config_parse(&cfg, t, text_len, "fuzz.properties", ov, n_ov, err, sizeof(err));
    if (e == GR_ERR_NONE) {
        check_accepted(&cfg);
        gr_server_config_free(&cfg);
    } else {
        assert(err[0] != '\0');
    }
    free(ovbuf);
    return 0;
}
