/* gregor consumer-groups --delete and --delete-offsets, as kafka-consumer-groups 4.4.0:
 *   --delete (--group g... | --all-groups): "Deletion of requested consumer groups ('g')
 *     was successful." or "Error: Deletion of some consumer groups failed:" with one
 *     "* Group 'g' could not be deleted due to: <exception>" line per failure;
 *   --delete-offsets --group g --topic t[:p,..]...: "Request succeeded for deleting
 *     offsets from group g." or the group-level error, then TOPIC PARTITION STATUS rows
 *     sorted by topic and partition as text ("t10" before "t2", as Kafka sorts them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_plan.h"
#include "consumer_groups.h"
#include "gregor/consumer.h"

int cg_delete(const cli_vals_t *v, gr_admin_t *a) {
    const char **groups;
    gr_admin_result_t *lres;
    size_t n = cg_groups(v, a, &groups, &lres), ok = 0, failed = 0;
    if (n == (size_t)-1) return CLI_FAIL;
    char okbuf[8192] = "", failbuf[16384] = "";
    cg_java_sort(groups, n); /* Kafka's tool reports from HashMaps keyed by group id */
    for (size_t i = 0; i < n; i++) {
        gr_admin_result_t *res = NULL;
        gr_err_t err = gr_admin_delete_groups(a, &groups[i], 1, cg_timeout(v), &res);
        if (err && !res) {
            free(groups);
            gr_admin_result_destroy(lres);
            return cli_fail("%s", gr_admin_last_error(a));
        }
        size_t l = strlen(okbuf), fl = strlen(failbuf);
        if (!err) {
            snprintf(okbuf + l, sizeof(okbuf) - l, "%s'%s'", ok++ ? ", " : "", groups[i]);
        } else {
            int code = (int)gr_admin_result_error(res, 0);
            snprintf(failbuf + fl, sizeof(failbuf) - fl,
                     "* Group '%s' could not be deleted due to: "
                     "org.apache.kafka.common.errors.%s: %s\n",
                     groups[i], cg_exception_name(code),
                     cg_exception_message(code)); /* DeleteGroups answers carry no message */
            failed++;
        }
        gr_admin_result_destroy(res);
    }
    if (!failed) {
        printf("Deletion of requested consumer groups (%s) was successful.\n", okbuf);
    } else {
        cg_print_error("Deletion of some consumer groups failed:");
        fputs(failbuf, stdout);
        if (ok) printf("\nThese consumer groups were deleted successfully: %s\n", okbuf);
    }
    free(groups);
    gr_admin_result_destroy(lres);
    return failed ? CLI_FAIL : CLI_OK;
}

/* The partitions named by --topic (whole topics from metadata). */
static int delete_scope(const cli_vals_t *v, const char ***topics, int32_t **parts, size_t *n, char ***owned) {
    size_t nt;
    const char **args = cli_all(v, "topic", &nt);
    size_t cap = 64;
    *topics = malloc(cap * sizeof(char *));
    *parts = malloc(cap * sizeof(int32_t));
    *owned = calloc(nt + 1, sizeof(char *));
    if (!*topics || !*parts || !*owned) abort();
    *n = 0;
    gr_conf_t *conf = cli_conf(v, GR_CONF_CONSUMER, NULL, 0);
    gr_consumer_t *c = NULL;
    char err[512];
    if (!conf || gr_consumer_new(conf, &c, err, sizeof(err)) != GR_ERR_NONE) {
        gr_conf_destroy(conf);
        return conf ? cli_fail("%s", err) : CLI_FAIL;
    }
    gr_conf_destroy(conf);
    int rc = CLI_OK;
    for (size_t i = 0; i < nt && rc == CLI_OK; i++) {
        char topic[512];
        int32_t ps[1024];
        size_t np;
        bool whole;
        if (!cg_parse_topic_arg(args[i], topic, sizeof(topic), ps, 1024, &np, &whole, err, sizeof(err))) {
            rc = cli_usage_error(v, "%s", err);
            break;
        }
        int32_t count = 0;
        if (whole && gr_consumer_partition_count(c, topic, cg_timeout(v), &count) != GR_ERR_NONE) count = 0;
        (*owned)[i] = strdup(topic);
        size_t k = whole ? (size_t)count : np;
        for (size_t j = 0; j < k; j++) {
            if (*n == cap) {
                cap *= 2;
                *topics = realloc(*topics, cap * sizeof(char *));
                *parts = realloc(*parts, cap * sizeof(int32_t));
                if (!*topics || !*parts) abort();
            }
            (*topics)[*n] = (*owned)[i];
            (*parts)[(*n)++] = whole ? (int32_t)j : ps[j];
        }
    }
    gr_consumer_destroy(c);
    return rc;
}

static int cmp_key(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

int cg_delete_offsets(const cli_vals_t *v, gr_admin_t *a) {
    size_t ng;
    const char *group = cli_all(v, "group", &ng)[ng - 1];
    const char **topics;
    int32_t *parts;
    char **owned;
    size_t n, nt;
    cli_all(v, "topic", &nt);
    int rc = delete_scope(v, &topics, &parts, &n, &owned);
    gr_admin_result_t *res = NULL;
    gr_err_t err = GR_ERR_NONE;
    if (rc == CLI_OK) err = gr_admin_delete_consumer_group_offsets(a, group, topics, parts, n, cg_timeout(v), &res);
    if (rc == CLI_OK && err && !res) rc = cli_fail("%s", gr_admin_last_error(a));
    if (rc == CLI_OK) {
        if (!err)
            printf("Request succeeded for deleting offsets from group %s.\n", group);
        else if (err == GR_ERR_INVALID_GROUP_ID || err == GR_ERR_GROUP_ID_NOT_FOUND ||
                 err == GR_ERR_GROUP_AUTHORIZATION_FAILED || err == GR_ERR_NON_EMPTY_GROUP)
            cg_print_error("%s", cg_exception_message(err));
        else if (err == GR_ERR_GROUP_SUBSCRIBED_TO_TOPIC || err == GR_ERR_TOPIC_AUTHORIZATION_FAILED ||
                 err == GR_ERR_UNKNOWN_TOPIC_OR_PARTITION)
            cg_print_error("Encountered some partition-level error, see the follow-up details.");
        else
            cg_print_error("Encountered some unknown error: %s", gr_err_name(err));
        size_t rows = gr_admin_result_rows(res);
        char **keys = malloc((rows + 1) * sizeof(char *));
        int wt = 15;
        if (!keys) abort();
        for (size_t r = 0; r < rows; r++) {
            const char *t = gr_admin_result_str(res, r, "topic");
            int64_t p = gr_admin_result_int(res, r, "partition", -1);
            int code = (int)gr_admin_result_error(res, r);
            wt = wt > (int)strlen(t) ? wt : (int)strlen(t);
            /* sort key topic+partition, then the printed fields after a NUL-free separator */
            if (asprintf(&keys[r], "%s%lld\x01%s\x01%lld\x01%s%s%s", t, (long long)p, t, (long long)p,
                         code ? "Error: org.apache.kafka.common.errors." : "Successful",
                         code ? cg_exception_name(code) : "", code ? "" : "") < 0)
                abort();
            if (code) {
                char *k2;
                if (asprintf(&k2, "%s: %s", keys[r], cg_exception_message(code)) < 0) abort();
                free(keys[r]);
                keys[r] = k2;
            }
        }
        qsort(keys, rows, sizeof(char *), cmp_key);
        printf("\n%-*s %-10s %-15s", wt, "TOPIC", "PARTITION", "STATUS");
        for (size_t r = 0; r < rows; r++) {
            char *f1 = strchr(keys[r], '\x01') + 1, *f2 = strchr(f1, '\x01'), *f3;
            *f2++ = 0;
            f3 = strchr(f2, '\x01');
            *f3++ = 0;
            printf("\n%-*s %-10s %-15s", wt, f1, f2, f3);
            free(keys[r]);
        }
        putchar('\n');
        free(keys);
    }
    for (size_t i = 0; i < nt; i++) free(owned[i]);
    free(owned), free(topics), free(parts);
    gr_admin_result_destroy(res);
    return rc == CLI_OK && err ? CLI_FAIL : rc;
}
