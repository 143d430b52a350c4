/* libFuzzer target: what `gregor share-groups --capacity` reads from the network, the HTTP
 * response parser (src/cli/http_get.c, cli_http_parse_response: status line, headers,
 * Content-Length, chunked bodies) and the JSON reader (src/cli/json_parse.c).
 *
 * Input: any bytes, used whole as a response and as a JSON text.
 * Invariants: no crash or leak; a parsed body is no longer than the input and
 * NUL-terminated at its length; parsing the same JSON text twice gives the same verdict,
 * and every member lookup on a parsed object finds its first member. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/http_get.h"
#include "cli/json_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *raw = malloc(size + 1);
    if (!raw) abort();
    memcpy(raw, data, size);
    raw[size] = 0;
    size_t len = size;
    int status = 0;
    if (cli_http_parse_response(raw, &len, &status)) assert(len <= size && raw[len] == 0);
    free(raw);

    char err[128];
    cli_jv_t *a = cli_jv_parse((const char *)data, size, err, sizeof(err));
    cli_jv_t *b = cli_jv_parse((const char *)data, size, err, sizeof(err));
    assert(!a == !b);
    if (a && a->type == CLI_JOBJ && a->n > 0) assert(cli_jv_get(a, a->keys[0]) == &a->vals[0]);
    cli_jv_free(a);
    cli_jv_free(b);
    return 0;
}
