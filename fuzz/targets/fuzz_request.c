/* libFuzzer target for the request decoders.
 *
 * Input: a request frame without its length prefix (header, then body).
 *   - built with -DGR_FUZZ_API=<key> (fuzz_req_<key>): the api key of the
 *     input is forced to <key> and its version folded into the valid range,
 *     so every input exercises that one decoder;
 *   - built with -DGR_FUZZ_HEADER_ONLY (fuzz_request_header): the header only;
 *   - built with -DGR_FUZZ_RESPONSES (fuzz_response): int16 api key, int16
 *     version, then a RESPONSE body — the decoders libgregor runs on what a
 *     broker sends;
 *   - built with none of these (fuzz_request): whatever api key the input names.
 * Invariants checked (abort on violation): decoding never reads outside the
 * input (ASan), and for every successful decode, encode(decode(x)) decodes
 * again, consumes all of its bytes and re-encodes to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/codec.h"
#include "proto_msgs.h"

#define FUZZ_ARENA_LIMIT (16u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef GR_FUZZ_HEADER_ONLY
static void check_header(const uint8_t *data, size_t size) {
    gr_rbuf_t rb;
    gr_req_header_t h;
    gr_rbuf_init(&rb, data, size);
    if (gr_req_header_decode(&rb, &h) != GR_ERR_NONE) return;
    gr_wbuf_t wb;
    gr_wbuf_init(&wb);
    gr_req_header_encode(&h, &wb);
    gr_rbuf_t rb2;
    gr_req_header_t h2;
    gr_rbuf_init(&rb2, wb.mem, wb.len);
    if (gr_req_header_decode(&rb2, &h2) != GR_ERR_NONE || gr_rbuf_remaining(&rb2)) abort();
    if (h2.api_key != h.api_key || h2.api_version != h.api_version || h2.correlation_id != h.correlation_id ||
        h2.header_version != h.header_version || !gr_str_eq(h2.client_id, h.client_id))
        abort();
    /* Without tagged fields the header is reproduced exactly. */
    size_t used = gr_rbuf_offset(&rb);
    if (h.header_version == 1 && (used != wb.len || memcmp(data, wb.mem, used))) abort();
    gr_wbuf_free(&wb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_header(data, size);
    return 0;
}

#else

static void check_body(const gr_msg_desc_t *m, int16_t ver, gr_rbuf_t *rb) {
    gr_arena_t a;
    gr_arena_init(&a);
    a.limit = FUZZ_ARENA_LIMIT;
    void *obj = gr_arena_alloc(&a, m->body->size);
    if (gr_decode(m, ver, rb, &a, obj) == GR_ERR_NONE) {
        gr_wbuf_t w1, w2;
        gr_wbuf_init(&w1);
        gr_wbuf_init(&w2);
        gr_encode(m, ver, obj, &w1);
        void *obj2 = gr_arena_alloc(&a, m->body->size);
        gr_rbuf_t rb2;
        gr_rbuf_init(&rb2, w1.mem, w1.len);
        a.limit = 0; /* the re-decode may need as much again */
        if (gr_decode(m, ver, &rb2, &a, obj2) != GR_ERR_NONE || gr_rbuf_remaining(&rb2)) abort();
        gr_encode(m, ver, obj2, &w2);
        if (w1.len != w2.len || (w1.len && memcmp(w1.mem, w2.mem, w1.len))) abort();
        gr_wbuf_free(&w1);
        gr_wbuf_free(&w2);
    }
    gr_arena_free(&a);
}

#ifdef GR_FUZZ_RESPONSES
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 4) return 0;
    const gr_msg_desc_t *m = gr_api_response((int16_t)gr_be16(data));
    if (!m) return 0;
    int span = m->max_ver - m->min_ver + 1;
    int16_t v = (int16_t)(m->min_ver + (int)(gr_be16(data + 2) % (unsigned)span));
    /* An exact-size copy, so ASan catches any read past the body. */
    uint8_t *body = malloc(size - 4 ? size - 4 : 1);
    if (!body) return 0;
    memcpy(body, data + 4, size - 4);
    gr_rbuf_t rb;
    gr_rbuf_init(&rb, body, size - 4);
    check_body(m, v, &rb);
    free(body);
    return 0;
}
#else
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
#ifdef GR_FUZZ_API
    if (size >= 4) {
        const gr_msg_desc_t *fm = gr_api_request(GR_FUZZ_API);
        int span = fm->max_ver - fm->min_ver + 1;
        int16_t v = (int16_t)(fm->min_ver + (int)(gr_be16(copy + 2) % (unsigned)span));
        gr_put_be16(copy, (uint16_t)GR_FUZZ_API);
        gr_put_be16(copy + 2, (uint16_t)v);
    }
#endif
    gr_rbuf_t rb;
    gr_req_header_t h;
    gr_rbuf_init(&rb, copy, size);
    const gr_msg_desc_t *m;
    if (gr_req_header_decode(&rb, &h) == GR_ERR_NONE && (m = gr_api_request(h.api_key)) != NULL &&
        h.api_version >= m->min_ver && h.api_version <= m->max_ver) {
        /* Let ASan catch any read past the body: decode from an exact-size copy. */
        size_t n = gr_rbuf_remaining(&rb);
        uint8_t *body = malloc(n ? n : 1);
        if (body) {
            memcpy(body, rb.pos, n);
            gr_rbuf_init(&rb, body, n);
            check_body(m, h.api_version, &rb);
            free(body);
        }
    }
    free(copy);
    return 0;
}
#endif /* GR_FUZZ_RESPONSES */

#endif
