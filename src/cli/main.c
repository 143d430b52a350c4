/* gregor: the command-line tool for Gregor and any Kafka 4.x cluster.
 *
 *   gregor <subcommand> --bootstrap-server HOST:PORT [options]
 *
 * One subcommand per job, each mirroring the Kafka tool of the same job (same verbs
 * and flags): topics (kafka-topics.sh), configs (kafka-configs.sh), produce
 * (kafka-console-producer.sh), consume (kafka-console-consumer.sh), share-consume
 * (kafka-console-share-consumer.sh), share-groups (kafka-share-groups.sh), consumer-groups
 * (kafka-consumer-groups.sh) and acls (kafka-acls.sh).
 * Built only on the public libgregor API. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *about;
} commands[] = {
    {"topics", cli_topics, "create, list, describe, alter and delete topics (kafka-topics.sh)"},
    {"configs", cli_configs, "describe and alter topic, broker and group configs (kafka-configs.sh)"},
    {"produce", cli_produce, "write lines of standard input to a topic (kafka-console-producer.sh)"},
    {"consume", cli_consume, "print the records of a topic (kafka-console-consumer.sh)"},
    {"share-consume", cli_share_consume, "consume as a member of a share group (kafka-console-share-consumer.sh)"},
    {"share-groups", cli_share_groups, "list, describe, reset and delete share groups (kafka-share-groups.sh)"},
    {"consumer-groups", cli_consumer_groups,
     "list, describe, reset the offsets of and delete consumer groups (kafka-consumer-groups.sh)"},
    {"acls", cli_acls, "add, remove and list ACLs (kafka-acls.sh)"},
};

static void usage(FILE *f) {
    fprintf(f, "Usage: gregor <command> --bootstrap-server HOST:PORT [options]\n\nCommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %-15s %s\n", commands[i].name, commands[i].about);
    fprintf(f, "\n'gregor <command> --help' lists the options of a command; 'gregor --version' the version.\n");
}

int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("gregor %s (libgregor %s)\n", gr_version_str(), gr_version_str());
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "Error: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
