/* The --add-config list of gregor configs, as kafka-configs splits it (config_ops.c). Pure. */
#ifndef GR_CLI_CONFIG_OPS_H
#define GR_CLI_CONFIG_OPS_H

#include <stdbool.h>
#include <stddef.h>

/** Split s in place at the commas outside square brackets ("k=[a,b]" keeps its comma);
 *  blanks around each item are cut and empty items dropped. At most max items go to
 *  out; returns how many. */
size_t cli_split_configs(char *s, char **out, size_t max);
/** One item "k=v" in place: *key and *val point into it; a value wholly in brackets
 *  loses them ("k=[a,b]" is "a,b"). False (item unchanged) without '=' or with an empty
 *  key. */
bool cli_config_kv(char *item, char **key, char **val);

#endif
