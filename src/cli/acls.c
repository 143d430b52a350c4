/* gregor acls: kafka-acls.sh.
 *   --add|--remove|--list, resources --topic T / --group G / --cluster / --transactional-id X
 *   (repeatable), --resource-pattern-type literal|prefixed (add) or also any|match (list,
 *   remove), --allow-principal/--deny-principal P with --allow-host/--deny-host H (default
 *   "*"), --operation OP (repeatable, default All), --principal P (list), --force (remove).
 * Output as AclCommand prints it: "Adding ACLs for resource `ResourcePattern(...)`: " then a
 * "\t(principal=..., host=..., operation=..., permissionType=...)" line per ACL; --list prints
 * "Current ACLs for resource `...`:" blocks; --remove asks "(y/n)" on stdin unless --force. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_opt_t opts[] = {
    {"bootstrap-server", "String: server to connect to", "REQUIRED: The Kafka server to connect to."},
    {"command-config", "String: command config property file",
     "Property file containing configs to be passed to the admin client."},
    {"add", NULL, "Indicates you are trying to add ACLs."},
    {"remove", NULL, "Indicates you are trying to remove ACLs."},
    {"list", NULL, "List ACLs for the specified resource, use --topic <topic> or --group <group> or --cluster."},
    {"topic", "String: topic", "topic to which ACLs should be added or removed ('*': all topics)."},
    {"group", "String: group", "Group to which the ACLs should be added or removed ('*': all groups)."},
    {"cluster", NULL, "Add/Remove cluster ACLs."},
    {"transactional-id", "String: transactional-id", "The transactionalId to which ACLs should be added or removed."},
    {"resource-pattern-type", "ANY|MATCH|LITERAL|PREFIXED",
     "The type of the resource pattern or pattern filter (default: LITERAL)."},
    {"allow-principal", "String: allow-principal", "principal in principalType:name format, e.g. User:alice."},
    {"deny-principal", "String: deny-principal", "principal in principalType:name format to deny."},
    {"allow-host", "String: allow-host", "Host from which the --allow-principal principals have access (default *)."},
    {"deny-host", "String: deny-host", "Host from which the --deny-principal principals are denied (default *)."},
    {"principal", "String: principal", "List ACLs for the specified principal (repeatable)."},
    {"operation", "String", "Operation that is being allowed or denied (default: All)."},
    {"force", NULL, "Assume Yes to all queries and do not prompt."},
    {"timeout", "Long: timeout (ms)", "Timeout of each admin call (default 30000)."},
    {"help", NULL, "Print usage information."},
    {NULL, NULL, NULL},
};

/* Operations each resource type supports (Kafka's AclEntry.supportedOperations), as bits. */
#define B(op) (1u << (op))
static unsigned supported(int8_t rt) {
    switch (rt) {
    case 2: return B(2) | B(3) | B(4) | B(5) | B(6) | B(7) | B(8) | B(10) | B(11);
    case 3: return B(2) | B(3) | B(6) | B(8) | B(10) | B(11);
    case 4: return B(2) | B(5) | B(7) | B(8) | B(9) | B(10) | B(11) | B(12);
    case 5: return B(2) | B(4) | B(8) | B(15);
    default: return 0;
    }
}

/* Letters only, upper case: "DescribeConfigs", "describe_configs", "DESCRIBE-CONFIGS" match. */
static void squash(const char *s, char *out, size_t n) {
    size_t j = 0;
    for (; *s && j + 1 < n; s++)
        if (*s != '_' && *s != '-') out[j++] = (char)toupper((unsigned char)*s);
    out[j] = '\0';
}

/* Operations from ALL on; the names end at the first code libgregor calls UNKNOWN. */
static int8_t parse_op(const char *s) {
    char want[64], name[64];
    squash(s, want, sizeof(want));
    for (int8_t op = 2; strcmp(gr_admin_acl_operation_name(op), "UNKNOWN"); op++) {
        squash(gr_admin_acl_operation_name(op), name, sizeof(name));
        if (!strcmp(want, name)) return op;
    }
    return -1;
}

static int8_t parse_ptype(const char *s) {
    int8_t pt = gr_admin_acl_pattern_type_code(s);
    return pt ? pt : -1;
}

typedef struct res {
    int8_t rtype;
    const char *name;
} res_t;

static void print_pattern(int8_t rt, const char *name, int8_t pt) {
    printf("ResourcePattern(resourceType=%s, name=%s, patternType=%s)", gr_admin_acl_resource_type_name(rt), name,
           gr_admin_acl_pattern_type_name(pt));
}

static void print_entry(const char *principal, const char *host, int8_t op, int8_t perm) {
    printf("(principal=%s, host=%s, operation=%s, permissionType=%s)", principal, host, gr_admin_acl_operation_name(op),
           gr_admin_acl_permission_name(perm));
}

/* The resources named by --topic/--group/--cluster/--transactional-id; n = 0 if none. */
static size_t collect_resources(const cli_vals_t *v, res_t *out, size_t max) {
    static const struct {
        const char *opt;
        int8_t rt;
    } kinds[] = {{"topic", 2}, {"group", 3}, {"transactional-id", 5}};
    size_t n = 0;
    for (size_t k = 0; k < 3; k++) {
        size_t m;
        const char **names = cli_all(v, kinds[k].opt, &m);
        for (size_t i = 0; i < m && n < max; i++) out[n++] = (res_t){kinds[k].rt, names[i]};
    }
    if (cli_has(v, "cluster") && n < max) out[n++] = (res_t){4, "kafka-cluster"};
    return n;
}

typedef struct entry {
    const char *principal, *host;
    int8_t op, perm;
} entry_t;

/* The entries of --allow-principal x --allow-host x --operation (and deny); NULL on error. */
static entry_t *collect_entries(const cli_vals_t *v, size_t *n_out) {
    size_t n_ops, cap = 0, n = 0;
    const char **ops = cli_all(v, "operation", &n_ops);
    static const char *const all_op[] = {"All"};
    if (!n_ops) ops = (const char **)all_op, n_ops = 1;
    entry_t *e = NULL;
    for (int perm = 3; perm >= 2; perm--) {
        size_t np, nh;
        const char **ps = cli_all(v, perm == 3 ? "allow-principal" : "deny-principal", &np);
        const char **hs = cli_all(v, perm == 3 ? "allow-host" : "deny-host", &nh);
        static const char *const star[] = {"*"};
        if (!nh) hs = (const char **)star, nh = 1;
        for (size_t i = 0; i < np; i++)
            for (size_t j = 0; j < nh; j++)
                for (size_t k = 0; k < n_ops; k++) {
                    int8_t op = parse_op(ops[k]);
                    if (op < 0) {
                        free(e);
                        cli_usage_error(v, "Invalid operation %s", ops[k]);
                        return NULL;
                    }
                    if (n == cap) {
                        cap = cap ? cap * 2 : 8;
                        e = realloc(e, cap * sizeof(*e));
                        if (!e) abort();
                    }
                    e[n++] = (entry_t){ps[i], hs[j], op, (int8_t)perm};
                }
    }
    *n_out = n;
    return e ? e : calloc(1, sizeof(*e));
}

static int do_add(const cli_vals_t *v, gr_admin_t *a, const res_t *rs, size_t nr, int8_t pt, const entry_t *e,
                  size_t ne) {
    if (!ne)
        return cli_usage_error(v, "You must specify one of: --allow-principal, --deny-principal when trying to add "
                                  "ACLs.");
    for (size_t r = 0; r < nr; r++)
        for (size_t i = 0; i < ne; i++)
            if (!(supported(rs[r].rtype) & B(e[i].op))) {
                fprintf(stderr, "ResourceType %s only supports operations",
                        gr_admin_acl_resource_type_name(rs[r].rtype));
                for (int op = 2, first = 1; op < 16; op++)
                    if (supported(rs[r].rtype) & B(op))
                        fprintf(stderr, "%s%s", first ? " [" : ", ", gr_admin_acl_operation_name(op)), first = 0;
                fprintf(stderr, "]\n");
                return CLI_FAIL;
            }
    int rc = CLI_OK;
    for (size_t r = 0; r < nr; r++) {
        printf("Adding ACLs for resource `");
        print_pattern(rs[r].rtype, rs[r].name, pt);
        printf("`: \n \t");
        for (size_t i = 0; i < ne; i++) {
            print_entry(e[i].principal, e[i].host, e[i].op, e[i].perm);
            printf(i + 1 < ne ? "\n\t" : "\n\n");
        }
        fflush(stdout);
        for (size_t i = 0; i < ne; i++) {
            gr_admin_result_t *res = NULL;
            gr_err_t err = gr_admin_create_acl(a, rs[r].rtype, rs[r].name, pt, e[i].principal, e[i].host, e[i].op,
                                               e[i].perm, cli_timeout(v), &res);
            if (err) rc = cli_fail("Error while executing ACL command: %s", gr_admin_last_error(a));
            gr_admin_result_destroy(res);
            if (err) return rc;
        }
    }
    return rc;
}

/* Print the ACLs of a result grouped by resource pattern (in order of appearance). */
static void print_current(gr_admin_result_t *res) {
    size_t n = gr_admin_result_rows(res);
    char *done = calloc(n + 1, 1);
    if (!done) abort();
    for (size_t i = 0; i < n; i++) {
        if (done[i]) continue;
        const char *name = gr_admin_result_str(res, i, "resource_name");
        int8_t rt = (int8_t)gr_admin_result_int(res, i, "resource_type", 0);
        int8_t pt = (int8_t)gr_admin_result_int(res, i, "pattern_type", 0);
        printf("Current ACLs for resource `");
        print_pattern(rt, name ? name : "", pt);
        printf("`:\n");
        for (size_t j = i; j < n; j++) {
            const char *nj = gr_admin_result_str(res, j, "resource_name");
            if (done[j] || gr_admin_result_int(res, j, "resource_type", 0) != rt ||
                gr_admin_result_int(res, j, "pattern_type", 0) != pt || strcmp(nj ? nj : "", name ? name : ""))
                continue;
            done[j] = 1;
            printf("\t");
            print_entry(gr_admin_result_str(res, j, "principal"), gr_admin_result_str(res, j, "host"),
                        (int8_t)gr_admin_result_int(res, j, "operation", 0),
                        (int8_t)gr_admin_result_int(res, j, "permission", 0));
            printf("\n");
        }
        printf("\n");
    }
    free(done);
}

static int do_list(const cli_vals_t *v, gr_admin_t *a, const res_t *rs, size_t nr, int8_t pt) {
    size_t np;
    const char **ps = cli_all(v, "principal", &np);
    res_t any = {1, NULL};
    if (!nr) rs = &any, nr = 1, pt = 1;
    for (size_t r = 0; r < nr; r++)
        for (size_t i = 0; i < (np ? np : 1); i++) {
            gr_admin_result_t *res = NULL;
            gr_err_t err = gr_admin_describe_acls(a, rs[r].rtype, rs[r].name, pt, np ? ps[i] : NULL, NULL, 1, 1,
                                                  cli_timeout(v), &res);
            if (err) return cli_fail("Error while executing ACL command: %s", gr_admin_last_error(a));
            print_current(res);
            gr_admin_result_destroy(res);
        }
    return CLI_OK;
}

static bool confirm(void) {
    char line[64];
    fflush(stdout);
    return fgets(line, sizeof(line), stdin) && (line[0] == 'y' || line[0] == 'Y');
}

static int do_remove(const cli_vals_t *v, gr_admin_t *a, const res_t *rs, size_t nr, int8_t pt, const entry_t *e,
                     size_t ne) {
    bool force = cli_has(v, "force");
    for (size_t r = 0; r < nr; r++) {
        if (!force) {
            if (ne) {
                printf("Are you sure you want to remove ACLs: \n \t");
                for (size_t i = 0; i < ne; i++) {
                    print_entry(e[i].principal, e[i].host, e[i].op, e[i].perm);
                    printf(i + 1 < ne ? "\n\t" : "\n");
                }
                printf(" from resource filter `");
            } else {
                printf("Are you sure you want to delete all ACLs for resource filter `");
            }
            print_pattern(rs[r].rtype, rs[r].name, pt);
            printf("`? (y/n)\n");
            if (!confirm()) continue;
        }
        for (size_t i = 0; i < (ne ? ne : 1); i++) {
            gr_admin_result_t *res = NULL;
            gr_err_t err =
                ne ? gr_admin_delete_acls(a, rs[r].rtype, rs[r].name, pt, e[i].principal, e[i].host, e[i].op, e[i].perm,
                                          cli_timeout(v), &res)
                   : gr_admin_delete_acls(a, rs[r].rtype, rs[r].name, pt, NULL, NULL, 1, 1, cli_timeout(v), &res);
            gr_admin_result_destroy(res);
            if (err) return cli_fail("Error while executing ACL command: %s", gr_admin_last_error(a));
        }
    }
    return CLI_OK;
}

int cli_acls(int argc, char **argv) {
    cli_vals_t v;
    int rc = cli_parse(&v, "gregor acls", "Manage ACLs (kafka-acls.sh).", opts, argc, argv);
    if (rc) return rc < 0 ? CLI_OK : rc;
    static const char *const actions[] = {"add", "remove", "list", NULL};
    int action = cli_one_of(&v, actions, true);
    res_t rs[256];
    size_t nr = collect_resources(&v, rs, 256), ne = 0;
    const char *pts = cli_str(&v, "resource-pattern-type");
    int8_t pt = pts ? parse_ptype(pts) : 3;
    entry_t *e = NULL;
    gr_admin_t *a = NULL;
    if (action < 0) {
        rc = CLI_USAGE;
    } else if (pt < 0) {
        rc = cli_usage_error(&v, "Invalid resource pattern type %s", pts);
    } else if (action == 0 && pt != 3 && pt != 4) {
        rc = cli_usage_error(&v, "A '--resource-pattern-type' value of '%s' is not valid when adding acls.", pts);
    } else if (action != 2 && !nr) {
        rc = cli_usage_error(&v, "You must provide at least one resource: --topic <topic> or --cluster or --group "
                                 "<group> or --transactional-id <id>");
    } else if (!(e = collect_entries(&v, &ne))) {
        rc = CLI_USAGE;
    } else if (!(a = cli_admin(&v))) {
        rc = CLI_FAIL;
    } else {
        rc = action == 0   ? do_add(&v, a, rs, nr, pt, e, ne)
             : action == 1 ? do_remove(&v, a, rs, nr, pt, e, ne)
                           : do_list(&v, a, rs, nr, pt);
    }
    gr_admin_destroy(a);
    free(e);
    cli_vals_free(&v);
    return rc;
}
