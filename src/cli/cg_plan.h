/* gregor consumer-groups: the pure pieces of --reset-offsets, as kafka-consumer-groups
 * 4.4.0 reads and orders them (no I/O; unit test test_cg_plan, fuzz target fuzz_cg_plan):
 *   - a --topic argument "topic" or "topic:0,1,2";
 *   - a --to-datetime value, read as Kafka's Utils.getDateTime;
 *   - a --from-file reset plan (CSV "topic,partition,offset" for one group, or
 *     "group,topic,partition,offset") and the --export CSV lines;
 *   - the order in which Kafka's tool prints a reset plan: the iteration order of the
 *     java.util.HashMap it keeps the plan in (String and TopicPartition hash codes). */
#ifndef GR_CLI_CG_PLAN_H
#define GR_CLI_CG_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Parse a --topic argument. Without ':' it is a whole topic (*n = 0, *whole = true).
 *  "t:0,1" gives the partitions (at most max). false with Kafka's message in err:
 *  "Invalid topic arg 't:', expected topic name and partitions" or
 *  "Invalid partition 'x' specified in topic arg 't:x''". */
bool cg_parse_topic_arg(const char *arg, char *topic, size_t topic_size, int32_t *parts, size_t max, size_t *n,
                        bool *whole, char *err, size_t err_size);

/** A --to-datetime value as Kafka's Utils.getDateTime reads it: "YYYY-MM-DDTHH:mm:SS.sss"
 *  with an optional zone (Z, +hh:mm, or +hh with anything after it ignored; none means UTC),
 *  fields checked strictly
 *  (non-lenient SimpleDateFormat), text after the zone ignored. Epoch milliseconds, or
 *  false with the reason in err. */
bool cg_parse_datetime(const char *s, int64_t *ms, char *err, size_t err_size);

/** One entry of a reset plan. */
typedef struct cg_entry {
    char *group; /* NULL in the single-group form */
    char *topic;
    int32_t partition;
    int64_t offset;
} cg_entry_t;

/** Parse a --from-file plan (the whole file in text/len). single_group: exactly one
 *  --group was given; then a file whose first line has 3 fields is read in the
 *  "topic,partition,offset" form, otherwise every line must be
 *  "group,topic,partition,offset". Fields may be quoted ("a,b", "" for a quote).
 *  Blank lines are skipped. *out is malloc'd (free with cg_entries_free), *n its size.
 *  false with "line N: ..." in err (at most max_entries entries). */
bool cg_parse_plan(const char *text, size_t len, bool single_group, size_t max_entries, cg_entry_t **out, size_t *n,
                   char *err, size_t err_size);
void cg_entries_free(cg_entry_t *v, size_t n);

/** One CSV field as Jackson's CSV writer writes it (quoted when it holds a comma, a
 *  quote, CR or LF, or begins or ends with a blank), appended to buf at *len. */
void cg_csv_field(char *buf, size_t size, size_t *len, const char *field);

/** java.lang.String.hashCode of a UTF-8 string (over its UTF-16 code units; a byte that
 *  is not valid UTF-8 counts as U+FFFD, as Java's decoder does). */
int32_t cg_java_string_hash(const char *s);
/** org.apache.kafka.common.TopicPartition.hashCode. */
int32_t cg_java_tp_hash(const char *topic, int32_t partition);
/** Sort idx[0..n) (indexes of items with hash codes hash[]) into the iteration order of a
 *  java.util.HashMap filled with them in index order by put() from empty: by bucket of
 *  the table size the map has after n puts, then by insertion order. */
void cg_java_hash_order(const int32_t *hash, size_t n, size_t *idx);

#endif
