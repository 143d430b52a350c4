/* libFuzzer target for the ACL file reader (src/auth/acl_file.c).
 *
 * Input: the text of a gregor.acls file. Invariants (abort on violation): parsing never
 * reads outside the input (ASan); a file that parses holds only valid ACLs, and each one
 * authorizes its own principal and host as its permission says (a DENY or ALLOW on its
 * exact literal resource, for its own operation when that is not ALL). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth/acl_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void verify(void *arg, const gr_acl_binding_t *b) {
    const gr_acl_authz_t *a = arg;
    char msg[512];
    if (gr_acl_validate_new(b, msg, sizeof(msg))) abort();
    if (b->ptype != GR_ACL_PT_LITERAL || !strcmp(b->host, "*") || !strcmp(b->name, "*")) return;
    int8_t op = b->op == GR_ACL_OP_ALL ? GR_ACL_OP_READ : b->op;
    bool allowed = gr_acl_authorize(a, b->principal, b->host, op, b->rtype, b->name);
    if (b->perm == GR_ACL_PERM_DENY && allowed) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gr_acl_authz_t *a = gr_acl_authz_new(NULL, false);
    char errstr[256];
    if (!gr_acl_file_parse(a, (const char *)data, size, "fuzz", errstr, sizeof(errstr)))
        gr_acl_authz_list(a, NULL, verify, a);
    gr_acl_authz_free(a);
    return 0;
}
