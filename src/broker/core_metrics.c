/* Request accounting on the hot path (see core_metrics.h). */
#include "broker/core_metrics.h"

#include <stdio.h>
#include <string.h>

static uint32_t err_key(int16_t api, int16_t ver, int16_t code) {
    return (uint32_t)(uint8_t)api << 24 | (uint32_t)(uint8_t)ver << 16 | (uint16_t)code;
}

/* Fibonacci hashing into the power-of-two table. */
static void err_add(gr_core_metrics_t *m, uint32_t key) {
    uint32_t mask = GR_CM_ERR_SLOTS - 1, i = (uint32_t)((key * 2654435761u) >> 22) & mask;
    for (;; i = (i + 1) & mask) {
        gr_cm_err_t *e = &m->errs[i];
        if (e->key == key) {
            e->n++;
            return;
        }
        if (!e->key) {
            if (m->n_errs >= GR_CM_ERR_MAX) return; /* bounded: see GR_CM_ERR_MAX */
            e->key = key;
            e->n = 1;
            m->n_errs++;
            return;
        }
    }
}

static bool is_error_field(const gr_field_desc_t *f) {
    static const char suffix[] = "ErrorCode";
    size_t n = strlen(f->name), k = sizeof(suffix) - 1;
    return n >= k && !memcmp(f->name + n - k, suffix, k);
}

static void walk(gr_core_metrics_t *m, int16_t api, int16_t ver, const gr_struct_desc_t *sd, const void *obj) {
    for (uint16_t i = 0; i < sd->n_fields; i++) {
        const gr_field_desc_t *f = &sd->fields[i];
        if (f->type != GR_T_STRUCT && (f->type != GR_T_INT16 || f->is_array)) continue; /* most fields */
        if (f->ver_min < 0 || ver < f->ver_min || ver > f->ver_max) continue;
        const char *at = (const char *)obj + f->offset;
        if (f->type == GR_T_STRUCT && f->is_array) {
            const gr_array_t *a = (const gr_array_t *)at;
            for (int32_t k = 0; k < a->n; k++) walk(m, api, ver, f->sub, (const char *)a->v + (size_t)k * f->elem_size);
        } else if (f->type == GR_T_STRUCT) {
            const void *sub;
            memcpy(&sub, at, sizeof(sub));
            if (sub) walk(m, api, ver, f->sub, sub);
        } else {
            int16_t code;
            memcpy(&code, at, sizeof(code));
            if (code && is_error_field(f)) err_add(m, err_key(api, ver, code));
        }
    }
}

void gr_cm_count_errors(gr_core_metrics_t *m, const gr_msg_desc_t *desc, int16_t ver, const void *body) {
    if (!desc || !body || desc->api_key < 0 || desc->api_key > GR_API__MAX || ver < 0 || ver >= GR_CM_VERSIONS) return;
    walk(m, desc->api_key, ver, desc->body, body);
}

void gr_cm_response(gr_core_metrics_t *m, const gr_req_t *req, const void *resp) {
    int16_t api = req->hdr.api_key;
    if (api < 0 || api > GR_API__MAX) return;
    if (resp) gr_cm_count_errors(m, req->resp_desc, req->hdr.api_version, resp);
    if (req->recv_us) gr_hist_observe(&m->duration[api], gr_cm_now_us() - req->recv_us);
}

const char *gr_cm_api_name(int16_t api, char *buf, size_t size) {
    const gr_msg_desc_t *d = gr_api_request(api);
    if (!d) return NULL;
    size_t n = strlen(d->name), k = strlen("Request");
    if (n > k && !strcmp(d->name + n - k, "Request")) n -= k;
    snprintf(buf, size, "%.*s", (int)n, d->name);
    return buf;
}
