/* libFuzzer target: ssl.principal.mapping.rules (src/auth/ssl_principal.c), which parses
 * operator text and maps certificate subjects chosen by TLS clients.
 * Input: rules, a NUL byte, then a distinguished name (the rest). Parsing and mapping
 * never crash; a mapped name always fits the output and is NUL-terminated. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth/ssl_principal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *nul = memchr(data, 0, size);
    size_t rl = nul ? (size_t)(nul - data) : size;
    char *rules = strndup((const char *)data, rl);
    char *dn = nul ? strndup((const char *)nul + 1, size - rl - 1) : strdup("CN=x");
    char err[256], out[64];
    gr_ssl_rules_t *r = NULL;
    if (gr_ssl_rules_parse(rules, &r, err, sizeof(err)) == GR_ERR_NONE) {
        if (gr_ssl_rules_map(r, dn, out, sizeof(out), err, sizeof(err))) assert(strlen(out) < sizeof(out));
        gr_ssl_rules_free(r);
    }
    free(rules);
    free(dn);
    return 0;
}
