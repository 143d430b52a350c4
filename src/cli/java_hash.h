/* Java's String.hashCode and java.util.HashMap iteration order (java_hash.c), for output
 * that must list things in the order the Kafka tools print them. Pure. */
#ifndef GR_CLI_JAVA_HASH_H
#define GR_CLI_JAVA_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** java.lang.String.hashCode of a UTF-8 string (over its UTF-16 code units; a byte that
 *  is not valid UTF-8 counts as U+FFFD, as Java's decoder does). */
int32_t cli_java_string_hash(const char *s);
/** Sort idx[0..n) (indexes of distinct keys with hash codes hash[]) into the iteration
 *  order of a java.util.HashMap created with new HashMap<>(initial) (0: new HashMap<>())
 *  and filled with them in index order by put(): by bucket of the table the map has after
 *  the n puts (resized at 0.75 load, and when a bucket reaches 9 entries in a table under
 *  64), insertion order within a bucket. Buckets that Java turns into trees (9 entries in
 *  a table of 64 or more) keep insertion order here. Returns false if out of memory (idx
 *  is then in index order). */
bool cli_java_hashmap_order(const int32_t *hash, size_t n, size_t initial, size_t *idx);

#endif
