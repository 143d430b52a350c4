/* The gregor command: shared pieces of the subcommands (docs/cli.md).
 *
 * Every subcommand is one file (topics.c, configs.c, produce.c, consume.c,
 * share_consume.c, share_groups.c) with an entry point `int cli_<name>(argc, argv)`
 * returning the process exit status. They use only the public libgregor API
 * (include/gregor/), like any other client. This module gives them:
 *   - an option parser with Kafka-tool conventions (`--name value`, `--name=value`,
 *     repeatable options, optional arguments, `--help`);
 *   - clients built from --bootstrap-server, --command-config and k=v properties;
 *   - tables printed the way the Kafka tools print them (left-aligned columns, '-'
 *     for missing values) or as JSON (--output json);
 *   - errors: "Error: ..." on stderr and the exit status.
 * Exit status: 0 success, 1 the operation failed, 2 a usage error. */
#ifndef GR_CLI_CLI_H
#define GR_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gregor/gregor.h"

#define CLI_OK    0
#define CLI_FAIL  1
#define CLI_USAGE 2

/* ---- options ---- */

/** One option: name without dashes; arg is NULL for a flag, a metavar ("String:
 *  topic") for a required argument, or a metavar in brackets ("[String]") for an
 *  optional one. help is the description printed by --help. */
typedef struct cli_opt {
    const char *name;
    const char *arg;
    const char *help;
} cli_opt_t;

typedef struct cli_vals {
    const char *cmd;       /* "gregor topics" */
    const cli_opt_t *opts; /* NULL-name terminated */
    size_t n_opts;
    unsigned *count;    /* times each option was given */
    const char ***vals; /* values of each option, in order */
} cli_vals_t;

/** Parse argv (argv[0] is the subcommand) against opts. Prints --help (and returns
 *  -1: the caller exits 0), or an error with a hint (returns CLI_USAGE), or returns 0. */
int cli_parse(cli_vals_t *v, const char *cmd, const char *about, const cli_opt_t *opts, int argc, char **argv);
void cli_vals_free(cli_vals_t *v);
bool cli_has(const cli_vals_t *v, const char *name);
/** The last value of name, or NULL. */
const char *cli_str(const cli_vals_t *v, const char *name);
/** Every value of name (NULL if none); *n their number. */
const char **cli_all(const cli_vals_t *v, const char *name, size_t *n);
/** Integer value of name (dflt if absent); a bad number is a usage error (exits 2). */
int64_t cli_int(const cli_vals_t *v, const char *name, int64_t dflt);
/** Usage error: print "Error: <msg>" and the hint; returns CLI_USAGE. */
int cli_usage_error(const cli_vals_t *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Exactly one of the NULL-terminated names must be given; else a usage error (returns
 *  CLI_USAGE) naming them. Returns the index of the one given (>= 0) on success. */
int cli_one_of(const cli_vals_t *v, const char *const *names, bool required);

/* ---- errors ---- */

/** Print "Error: <msg>" on stderr; returns CLI_FAIL. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- clients ---- */

/** A configuration for scope from --bootstrap-server, --command-config and the
 *  "k=v" strings of props (n of them). NULL after printing why (the caller returns 1). */
gr_conf_t *cli_conf(const cli_vals_t *v, gr_conf_scope_t scope, const char **props, size_t n);
/** An admin client from the common options; NULL after printing why. */
gr_admin_t *cli_admin(const cli_vals_t *v);
/** Timeout for admin calls: --timeout, else 30000 ms. */
int cli_timeout(const cli_vals_t *v);
/** Split "a,b,c" in place into at most max pieces (trimmed); returns how many. */
size_t cli_split(char *s, char sep, char **out, size_t max);

/* ---- output ---- */

/** What a column holds, for JSON (and for sorting: CLI_INT compares as numbers). A cell
 *  that does not parse as its type is printed as a JSON string. */
typedef enum cli_ctype {
    CLI_TEXT,     /* a JSON string */
    CLI_INT,      /* a JSON number ("-12") */
    CLI_BOOL,     /* true / false */
    CLI_INT_LIST, /* "1,2,3" as [1,2,3] ("" is []) */
    CLI_NUM,      /* a JSON number with a fraction or exponent ("1024.0", "2.0E7") */
} cli_ctype_t;

typedef struct cli_col {
    const char *header; /* text header, e.g. "START-OFFSET" */
    const char *key;    /* JSON key, e.g. "start_offset" */
    int width;          /* minimum width; the last column is never padded */
    cli_ctype_t type;
} cli_col_t;

typedef struct cli_table {
    const cli_col_t *cols;
    size_t n_cols;
    char **cells; /* rows * n_cols, NULL = missing */
    size_t rows, cap;
} cli_table_t;

void cli_table_init(cli_table_t *t, const cli_col_t *cols, size_t n_cols);
/** Append a row of n_cols cells (copied; NULL = missing, printed as '-' / null). */
void cli_table_add(cli_table_t *t, const char *const *cells);
/** Sort rows by the given columns (numeric columns compare as numbers). */
void cli_table_sort(cli_table_t *t, const size_t *by, size_t n_by);
/** Print as text (blank line first when lead_blank, as the Kafka group tools do) or,
 *  when json, as a JSON array of objects. */
void cli_table_print(const cli_table_t *t, bool json, bool lead_blank);
void cli_table_free(cli_table_t *t);
/** True if --output json was given; a value other than json/text is a usage error. */
bool cli_json(const cli_vals_t *v);
/** Print s as a JSON string to stdout; NULL prints null. Control characters, quotes and
 *  backslashes are escaped; each byte that is not part of a valid UTF-8 sequence
 *  (bad lead or continuation byte, overlong form, surrogate, above U+10FFFF,
 *  truncated) becomes \ufffd, so the output is always valid JSON and valid UTF-8. */
void cli_json_str(const char *s);
/** "%lld" into buf (NULL if v < 0 and neg_missing). */
const char *cli_i64(char *buf, size_t size, int64_t v, bool neg_missing);

/* ---- progress on a terminal ---- */

/** Whether stderr is a terminal (progress lines are only shown then). */
bool cli_tty(void);
/** On a terminal only: "\r<what> <n> records (<rate> records/s)" on stderr, at most
 *  every 200 ms; final erases the line (the summary printed after it stays alone). */
void cli_progress(const char *what, uint64_t n, bool final);
/** Erase the progress line before a record goes to a terminal on stdout. */
void cli_progress_hide(void);

/** Read a .properties file of "k=v" (or "k: v") lines, skipping blanks and comments:
 *  items[i] point into the returned buffer (malloc'd; NULL after printing why), each
 *  normalized to "k=v"; *n their number (at most max). */
char *cli_read_props(const char *path, const char **items, size_t max, size_t *n);

/* ---- record formatter (cli_fmt.c) ---- */

typedef struct cli_fmt {
    bool ts, partition, offset, delivery, headers, key, value;
    const char *key_sep, *line_sep, *headers_sep, *null_lit;
} cli_fmt_t;

/** One record to print; header(rec, i, ...) gives header i (false past the end). */
typedef struct cli_rec {
    int64_t ts;
    int ts_type; /* -1 none, 0 CreateTime, 1 LogAppendTime */
    int32_t partition;
    int64_t offset;
    int delivery; /* -1 not present */
    const void *key, *value;
    size_t key_len, value_len, n_headers;
    const void *rec;
    bool (*header)(const void *rec, size_t i, const char **k, size_t *kl, const void **v, size_t *vl);
} cli_rec_t;

/** The formatter properties of --formatter-config, --property and --formatter-property
 *  (share: print.delivery.count is accepted as print.delivery). *file_buf holds the
 *  strings read from the file (free it after use). 0, or the exit status. */
int cli_fmt_parse(const cli_vals_t *v, cli_fmt_t *f, bool share, char **file_buf);
/** Write one record on stdout; false if it could not be written. */
bool cli_fmt_write(const cli_fmt_t *f, const cli_rec_t *r);

/* ---- subcommands ---- */

int cli_topics(int argc, char **argv);
int cli_configs(int argc, char **argv);
int cli_produce(int argc, char **argv);
int cli_consume(int argc, char **argv);
int cli_share_consume(int argc, char **argv);
int cli_share_groups(int argc, char **argv);
int cli_acls(int argc, char **argv);
int cli_consumer_groups(int argc, char **argv);

#endif
