/* The line reader of `gregor produce`: one line of standard input into headers, key
 * and value, as Kafka's console producer (LineMessageReader) reads it.
 *
 * With parse.headers=true the line starts with headers ("k:v,k2:v2") up to the first
 * headers.delimiter; with parse.key=true a key follows, up to the first key.separator;
 * the rest is the value. null.marker makes a key, a value, a header value or the whole
 * header section null (a header key may not be the marker). ignore.error=true turns a
 * missing delimiter/separator into "no headers"/"no key"/"header with a null value".
 *
 * Pure: no I/O, no allocation, no libgregor; the results point into the line. It is
 * kept apart from produce.c so that unit tests and fuzz_cli_line exercise it alone. */
#ifndef GR_CLI_LINE_PARSE_H
#define GR_CLI_LINE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Reader settings. Strings are borrowed (they must outlive the reader). */
typedef struct line_reader {
    bool parse_key, parse_headers, ignore_error;
    const char *key_sep, *h_delim, *h_sep, *h_key_sep, *null_marker; /* null_marker may be NULL */
} line_reader_t;

/** Kafka's defaults: no key, no headers, TAB, TAB, ",", ":", no null marker. */
void line_reader_init(line_reader_t *r);
/** Apply one "name=value" reader property (value borrowed from kv). Returns false if
 *  kv has no '=' or names no reader property. */
bool line_reader_set(line_reader_t *r, const char *kv);
/** Check the settings together (distinct separators, none empty). Returns NULL if they
 *  are usable, else the reason (a static string). */
const char *line_reader_check(const line_reader_t *r, char *buf, size_t buf_size);

/** [p, p + len) in the line; p is NULL for a null key/value. */
typedef struct line_span {
    const char *p;
    size_t len;
} line_span_t;

typedef enum line_err {
    LINE_OK = 0,
    LINE_NO_HEADERS_DELIM,   /* parse.headers and no headers.delimiter in the line */
    LINE_NO_KEY_SEP,         /* parse.key and no key.separator after the headers */
    LINE_NO_HEADER_KEY_SEP,  /* a header pair without headers.key.separator (bad = the pair) */
    LINE_HEADER_KEY_IS_NULL, /* a header key equal to null.marker */
} line_err_t;

/** Called for each header, in order, with the whole "key:value" pair it came from: key is
 *  never NULL; val.p is NULL for a null value (the marker, or no key separator). */
typedef void (*line_header_fn)(void *opaque, line_span_t pair, line_span_t key, line_span_t val);

typedef struct line_record {
    line_span_t key, value; /* p NULL: null */
    bool has_headers;       /* a header section was present and not null.marker */
    line_span_t headers;    /* the raw header section when has_headers */
    line_span_t bad;        /* LINE_NO_HEADER_KEY_SEP: the offending pair */
} line_record_t;

/** Split line [line, line + len) into out. Headers are first checked in full, then
 *  reported to on_header (may be NULL) only if the whole line is valid. r must have
 *  passed line_reader_check (an empty separator would never advance). */
line_err_t line_parse(const line_reader_t *r, const char *line, size_t len, line_record_t *out,
                      line_header_fn on_header, void *opaque);

#endif
