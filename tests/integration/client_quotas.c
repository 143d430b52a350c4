/* libgregor's client quota calls (gr_admin_describe_client_quotas,
 * gr_admin_alter_client_quotas_n) through the public API, one line per step with only
 * what must be identical between gregord and Apache Kafka 4.4.0 (error names, entities,
 * keys and values; no messages, which go to stderr).
 *
 *   client_quotas BOOTSTRAP PREFIX
 *       validate-only alterations of three entities (one refused), a real alteration of
 *       three entities, describe with exact / default / any filters (strict or not), a key
 *       removed, an alteration applied for one entity and refused for another, a refused
 *       filter. Kafka applies the alteration through its metadata log,
 *       so the describes after it wait (up to 10 s) for the expected rows.
 * Exit status 0 when the scenario ran (the lines are compared by test_libgregor_admin.sh). */
#include <gregor/gregor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static gr_admin_t *a;
static char u1[128], u2[128], c1[128];
static const char *prefix;

/* "user=P-u1,client_id=<default>" for row r (the run's prefix shown as "P"). */
static void entity(gr_admin_result_t *r, size_t row, char *out, size_t size) {
    static const char *const cols[] = {"user", "client_id", "ip"};
    size_t o = 0, pl = strlen(prefix);
    out[0] = 0;
    for (int i = 0; i < 3; i++) {
        char dcol[32];
        snprintf(dcol, sizeof(dcol), "%s_default", cols[i]);
        const char *name = gr_admin_result_str(r, row, cols[i]);
        bool dflt = gr_admin_result_int(r, row, dcol, 0) != 0;
        if (!name && !dflt) continue;
        bool ours = name && !strncmp(name, prefix, pl); /* "P-u1": the same on every run */
        int w = snprintf(out + o, size - o, "%s%s=%s%s", o ? "," : "", cols[i],
                         dflt   ? "<default>"
                         : ours ? "P"
                                : "",
                         dflt   ? ""
                         : ours ? name + pl
                                : name);
        if (w > 0 && (size_t)w < size - o) o += (size_t)w;
    }
}

/* "[entity ERROR]" per row of an alteration, or "[entity key=value]" per row of a describe,
 * sorted as text (the order is the broker's: Kafka's follows its hash maps). */
static void rows_text(gr_admin_result_t *r, bool alter, char *out, size_t size) {
    size_t n = gr_admin_result_rows(r), o = 0;
    char(*row)[256] = calloc(n ? n : 1, sizeof(*row));
    if (!row) abort();
    for (size_t i = 0; i < n; i++) {
        char ent[200];
        entity(r, i, ent, sizeof(ent));
        if (alter)
            snprintf(row[i], sizeof(row[i]), "[%s %s]", ent, gr_err_name(gr_admin_result_error(r, i)));
        else
            snprintf(row[i], sizeof(row[i]), "[%s %s=%s]", ent, gr_admin_result_str(r, i, "key"),
                     gr_admin_result_str(r, i, "value"));
    }
    qsort(row, n, sizeof(*row), (int (*)(const void *, const void *))strcmp);
    out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(out + o, size - o, " %s", row[i]);
        if (w > 0 && (size_t)w < size - o) o += (size_t)w;
    }
    free(row);
}

static void alter(const char *step, const gr_client_quota_alteration_t *x, size_t n, int flags) {
    gr_admin_result_t *r = NULL;
    gr_err_t err = gr_admin_alter_client_quotas_n(a, x, n, flags, 10000, &r);
    char text[2048];
    rows_text(r, true, text, sizeof(text));
    printf("%s: %s rows=%zu%s\n", step, gr_err_name(err), gr_admin_result_rows(r), text);
    if (err) fprintf(stderr, "%s: %s\n", step, gr_admin_last_error(a));
    gr_admin_result_destroy(r);
}

/* Describe with filter (3 strings per component) until the rows read want (10 s). */
static void describe(const char *step, const char *const *filter, size_t n, bool strict, const char *want) {
    char text[2048] = "";
    gr_err_t err = GR_ERR_NONE;
    for (int tries = 0; tries < 100; tries++) {
        gr_admin_result_t *r = NULL;
        err = gr_admin_describe_client_quotas(a, filter, n, strict, 10000, &r);
        text[0] = 0;
        if (!err) rows_text(r, false, text, sizeof(text));
        gr_admin_result_destroy(r);
        if (err || !want || !strcmp(text, want)) break;
        usleep(100000);
    }
    printf("%s: %s%s\n", step, gr_err_name(err), text);
    if (err) fprintf(stderr, "%s: %s\n", step, gr_admin_last_error(a));
}

int main(int argc, char **argv) {
    if (argc < 3) return fprintf(stderr, "usage: client_quotas BOOTSTRAP PREFIX\n"), 2;
    prefix = argv[2];
    snprintf(u1, sizeof(u1), "%s-u1", argv[2]);
    snprintf(u2, sizeof(u2), "%s-u2", argv[2]);
    snprintf(c1, sizeof(c1), "%s-c1", argv[2]);
    char err[512];
    gr_conf_t *conf = gr_conf_new(GR_CONF_ADMIN);
    if (gr_conf_set(conf, "bootstrap.servers", argv[1], err, sizeof(err)) || gr_admin_new(conf, &a, err, sizeof(err)))
        return printf("setup: %s\n", err), 1;
    gr_conf_destroy(conf);
    const char *user[] = {"user", u1}, *user_client[] = {"user", u1, "client-id", c1};
    const char *client_dflt[] = {"client-id", NULL}, *ip[] = {"ip", "127.0.0.9"};
    const char *set2[] = {"producer_byte_rate", "1024", "consumer_byte_rate", "2e7"};
    const char *set1[] = {"request_percentage", "12.5"}, *conn[] = {"connection_creation_rate", "5"};
    const char *bad[] = {"producer_byte_rate", "10"}; /* not a quota of an ip */
    gr_client_quota_alteration_t x[] = {{user, 1, set2, 2}, {ip, 1, bad, 1}, {user_client, 2, set1, 1}};
    alter("alter validate-only, one refused", x, 3, GR_ADMIN_VALIDATE_ONLY);
    const char *f_user[] = {"user", "exact", u1};
    describe("describe after validate-only", f_user, 1, true, NULL);
    x[1] = (gr_client_quota_alteration_t){client_dflt, 1, set1, 1};
    alter("alter three entities", x, 3, 0);
    alter("alter an ip", &(gr_client_quota_alteration_t){ip, 1, conn, 1}, 1, 0);
    char want[512];
    snprintf(want, sizeof(want), " [user=P-u1 consumer_byte_rate=2e+07] [user=P-u1 producer_byte_rate=1024]");
    describe("describe user exact strict", f_user, 1, true, want);
    describe("describe user exact, any other part", f_user, 1, false, NULL);
    const char *f_uc[] = {"user", "exact", u1, "client-id", "any", NULL};
    describe("describe user exact + any client strict", f_uc, 2, true, NULL);
    const char *f_cd[] = {"client-id", "default", NULL};
    describe("describe default client", f_cd, 1, true, NULL);
    const char *f_ip[] = {"ip", "any", NULL};
    describe("describe any ip", f_ip, 1, true, NULL);
    const char *rm[] = {"consumer_byte_rate", NULL};
    alter("remove a key", &(gr_client_quota_alteration_t){user, 1, rm, 1}, 1, 0);
    snprintf(want, sizeof(want), " [user=P-u1 producer_byte_rate=1024]");
    describe("describe after the removal", f_user, 1, true, want);
    const char *user2[] = {"user", u2};
    gr_client_quota_alteration_t mixed[] = {{ip, 1, bad, 1}, {user2, 1, set1, 1}};
    alter("alter two entities, one refused", mixed, 2, 0);
    const char *f_user2[] = {"user", "exact", u2};
    snprintf(want, sizeof(want), " [user=P-u2 request_percentage=12.5]");
    describe("describe the entity that was applied", f_user2, 1, true, want);
    const char *f_bad[] = {"bogus-type", "any", NULL};
    describe("describe an unknown entity type", f_bad, 1, false, NULL);
    gr_admin_destroy(a);
    return 0;
}
