/* libFuzzer target: the JAAS config parser (src/auth/jaas.c), which reads
 * listener.name.<l>.<mech>.sasl.jaas.config and sasl.jaas.config from server.properties.
 * Parsing never crashes; a success has at least one entry, each with a login module, and
 * option keys are unique within an entry; a failure explains itself. */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "auth/jaas.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gr_jaas_t j;
    char err[256] = "";
    if (gr_jaas_parse((const char *)data, size, &j, err, sizeof(err)) != GR_ERR_NONE) {
        assert(err[0] != '\0' && j.n == 0);
        return 0;
    }
    assert(j.n >= 1);
    for (size_t i = 0; i < j.n; i++) {
        assert(j.entries[i].login_module && j.entries[i].login_module[0]);
        for (size_t k = 0; k < j.entries[i].n_opts; k++) {
            assert(gr_jaas_option(&j.entries[i], j.entries[i].opts[k].key) == j.entries[i].opts[k].value);
            for (size_t m = k + 1; m < j.entries[i].n_opts; m++)
                assert(strcmp(j.entries[i].opts[k].key, j.entries[i].opts[m].key) != 0);
        }
    }
    gr_jaas_free(&j);
    return 0;
}
