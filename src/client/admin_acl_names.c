/* The admin client's ACL names: Kafka's enum names of the ACL codes, from the one table
 * in src/auth/acl.c (pure, compiled into libgregor as well). */
#include <strings.h>

#include "auth/acl.h"
#include "gregor/admin.h"

const char *gr_admin_acl_resource_type_name(int8_t code) { return gr_acl_rtype_name(code); }
const char *gr_admin_acl_pattern_type_name(int8_t code) { return gr_acl_ptype_name(code); }
const char *gr_admin_acl_operation_name(int8_t code) { return gr_acl_op_name(code); }
const char *gr_admin_acl_permission_name(int8_t code) { return gr_acl_perm_name(code); }

/* Kafka's fromString: the code whose name equals s ignoring case, else UNKNOWN (0). */
static int8_t code_of(const char *s, const char *(*name)(int8_t), int n) {
    for (int8_t c = 1; s && c < n; c++)
        if (!strcasecmp(s, name(c))) return c;
    return 0;
}

int8_t gr_admin_acl_resource_type_code(const char *s) { return code_of(s, gr_acl_rtype_name, GR_ACL_RT_N); }
int8_t gr_admin_acl_pattern_type_code(const char *s) { return code_of(s, gr_acl_ptype_name, GR_ACL_PT_N); }
int8_t gr_admin_acl_operation_code(const char *s) { return code_of(s, gr_acl_op_name, GR_ACL_OP_N); }
int8_t gr_admin_acl_permission_code(const char *s) { return code_of(s, gr_acl_perm_name, GR_ACL_PERM_N); }
