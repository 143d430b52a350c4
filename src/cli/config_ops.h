/* The --add-config list of gregor configs, read as kafka-configs reads it (config_ops.c).
 * Pure. */
#ifndef GR_CLI_CONFIG_OPS_H
#define GR_CLI_CONFIG_OPS_H

#include <stdbool.h>
#include <stddef.h>

#define CLI_CONFIG_BAD_FORMAT (-1) /* a piece is not one key=value */
#define CLI_CONFIG_BAD_KEY    (-2) /* a key has a character outside [$a-zA-Z0-9._-] */
#define CLI_CONFIG_TOO_MANY   (-3) /* more than max pairs (or 1024 pieces) */

/** Kafka's ConfigCommand.parseConfigsToBeAdded on s (cut in place): pieces at the commas
 *  not inside square brackets (trailing empty pieces dropped, as Java's split does), each
 *  exactly one key=value at an '=' not inside brackets; the key trimmed, the value without
 *  any '[' or ']' and trimmed ("k=[a,b]" is "a,b"). A key given twice keeps its last value.
 *  keys[i] / vals[i] point into s. Returns the number of pairs, CLI_CONFIG_BAD_FORMAT,
 *  CLI_CONFIG_BAD_KEY (*bad_key = the key) or CLI_CONFIG_TOO_MANY (never cut short). */
int cli_parse_add_config(char *s, char **keys, char **vals, size_t max, const char **bad_key);
/** One line "k=v" of an --add-config-file, in place: *key and *val point into it; a
 *  value wholly in brackets loses them. False (item unchanged) without '=' or with an
 *  empty key. */
bool cli_config_kv(char *item, char **key, char **val);

#endif
