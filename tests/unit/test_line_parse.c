/* Unit tests for src/cli/line_parse (the `gregor produce` line reader): settings, keys,
 * values, headers, null.marker and ignore.error, as Kafka's LineMessageReader reads them. */
#include <stdlib.h>

#include "cli/line_parse.h"
#include "testutil.h"

typedef struct hdrs {
    char text[512]; /* "key=value;" per header, "key=<null>;" for a null value */
    int n;
} hdrs_t;

static void collect(void *opaque, line_span_t pair, line_span_t key, line_span_t val) {
    hdrs_t *h = opaque;
    (void)pair;
    size_t o = strlen(h->text);
    if (val.p)
        snprintf(h->text + o, sizeof(h->text) - o, "%.*s=%.*s;", (int)key.len, key.p, (int)val.len, val.p);
    else
        snprintf(h->text + o, sizeof(h->text) - o, "%.*s=<null>;", (int)key.len, key.p);
    h->n++;
}

static line_err_t parse(const line_reader_t *r, const char *line, line_record_t *rec, hdrs_t *h) {
    memset(h, 0, sizeof(*h));
    return line_parse(r, line, strlen(line), rec, collect, h);
}

static void assert_span(line_span_t s, const char *want) {
    if (!want) {
        ASSERT(s.p == NULL);
        return;
    }
    ASSERT(s.p != NULL);
    ASSERT_EQ(s.len, strlen(want));
    ASSERT_MEMEQ(s.p, want, s.len);
}

static void test_settings(void) {
    line_reader_t r;
    char buf[128];
    line_reader_init(&r);
    ASSERT(!r.parse_key && !r.parse_headers && !r.ignore_error && r.null_marker == NULL);
    ASSERT_STREQ(r.key_sep, "\t");
    ASSERT(line_reader_check(&r, buf, sizeof(buf)) == NULL);
    ASSERT(line_reader_set(&r, "parse.key=TRUE"));
    ASSERT(r.parse_key);
    ASSERT(line_reader_set(&r, "parse.key=yes")); /* anything but true is false, as in Kafka */
    ASSERT(!r.parse_key);
    ASSERT(line_reader_set(&r, "key.separator=::"));
    ASSERT_STREQ(r.key_sep, "::");
    ASSERT(!line_reader_set(&r, "no.such=1"));
    ASSERT(!line_reader_set(&r, "parse.key"));
    ASSERT(line_reader_set(&r, "headers.separator=:"));
    ASSERT_STREQ(line_reader_check(&r, buf, sizeof(buf)),
                 "headers.separator and headers.key.separator may not be equal");
    line_reader_init(&r);
    ASSERT(line_reader_set(&r, "null.marker=\t"));
    ASSERT_STREQ(line_reader_check(&r, buf, sizeof(buf)), "null.marker and key.separator may not be equal");
    line_reader_init(&r);
    ASSERT(line_reader_set(&r, "key.separator="));
    ASSERT_STREQ(line_reader_check(&r, buf, sizeof(buf)), "Reader separators must not be empty");
}

static void test_plain_and_key(void) {
    line_reader_t r;
    line_record_t rec;
    hdrs_t h;
    line_reader_init(&r);
    ASSERT_EQ(parse(&r, "a\tb", &rec, &h), LINE_OK);
    ASSERT(rec.key.p == NULL && !rec.has_headers);
    assert_span(rec.value, "a\tb");
    ASSERT(line_reader_set(&r, "parse.key=true") && line_reader_set(&r, "key.separator=:"));
    ASSERT_EQ(parse(&r, "k:v:w", &rec, &h), LINE_OK); /* the first separator splits */
    assert_span(rec.key, "k");
    assert_span(rec.value, "v:w");
    ASSERT_EQ(parse(&r, ":", &rec, &h), LINE_OK);
    assert_span(rec.key, "");
    assert_span(rec.value, "");
    ASSERT_EQ(parse(&r, "novalue", &rec, &h), LINE_NO_KEY_SEP);
    ASSERT(line_reader_set(&r, "ignore.error=true"));
    ASSERT_EQ(parse(&r, "novalue", &rec, &h), LINE_OK); /* no key, the whole line is the value */
    ASSERT(rec.key.p == NULL);
    assert_span(rec.value, "novalue");
    ASSERT(line_reader_set(&r, "null.marker=NULL"));
    ASSERT_EQ(parse(&r, "NULL:NULL", &rec, &h), LINE_OK);
    ASSERT(rec.key.p == NULL && rec.value.p == NULL);
    ASSERT_EQ(parse(&r, "NULLx:xNULL", &rec, &h), LINE_OK);
    assert_span(rec.key, "NULLx");
    assert_span(rec.value, "xNULL");
}

static void test_headers(void) {
    line_reader_t r;
    line_record_t rec;
    hdrs_t h;
    line_reader_init(&r);
    ASSERT(line_reader_set(&r, "parse.headers=true") && line_reader_set(&r, "parse.key=true") &&
           line_reader_set(&r, "null.marker=NULL"));
    /* The lines of tests/integration/test_cli.sh (produce_headers). */
    ASSERT_EQ(parse(&r, "a:1,b:NULL\tk1\tv1", &rec, &h), LINE_OK);
    ASSERT_STREQ(h.text, "a=1;b=<null>;");
    ASSERT(rec.has_headers);
    assert_span(rec.headers, "a:1,b:NULL");
    assert_span(rec.key, "k1");
    assert_span(rec.value, "v1");
    ASSERT_EQ(parse(&r, "NULL\tk2\tNULL", &rec, &h), LINE_OK); /* null header section: no headers */
    ASSERT(!rec.has_headers && h.n == 0 && rec.value.p == NULL);
    assert_span(rec.key, "k2");
    ASSERT_EQ(parse(&r, "c:3\tNULL\tv3", &rec, &h), LINE_OK);
    ASSERT_STREQ(h.text, "c=3;");
    ASSERT(rec.key.p == NULL);
    ASSERT_EQ(parse(&r, "no-delimiter", &rec, &h), LINE_NO_HEADERS_DELIM);
    ASSERT_EQ(parse(&r, "a:1\tno-key-separator", &rec, &h), LINE_NO_KEY_SEP);
    ASSERT_EQ(parse(&r, "a:1,bad\tk\tv", &rec, &h), LINE_NO_HEADER_KEY_SEP);
    assert_span(rec.bad, "bad");
    ASSERT_EQ(h.n, 0); /* nothing reported from a refused line */
    ASSERT_EQ(parse(&r, "NULL:1\tk\tv", &rec, &h), LINE_HEADER_KEY_IS_NULL);
    ASSERT_EQ(parse(&r, "a:1,\tk\tv", &rec, &h), LINE_NO_HEADER_KEY_SEP); /* a trailing separator: empty pair */
    assert_span(rec.bad, "");
    ASSERT_EQ(parse(&r, "a:b:c\tk\tv", &rec, &h), LINE_OK); /* the first key separator splits */
    ASSERT_STREQ(h.text, "a=b:c;");
    ASSERT(line_reader_set(&r, "ignore.error=true"));
    ASSERT_EQ(parse(&r, "a:1,bad,:e\tk\tv", &rec, &h), LINE_OK);
    ASSERT_STREQ(h.text, "a=1;bad=<null>;=e;");
    ASSERT_EQ(parse(&r, "NULL:1\tk\tv", &rec, &h), LINE_HEADER_KEY_IS_NULL); /* even with ignore.error */
    ASSERT_EQ(parse(&r, "no-delimiter", &rec, &h), LINE_OK);                 /* no headers, no key */
    ASSERT(!rec.has_headers && rec.key.p == NULL);
    assert_span(rec.value, "no-delimiter");
}

static void test_multibyte_separators_and_nul(void) {
    line_reader_t r;
    line_record_t rec;
    hdrs_t h;
    line_reader_init(&r);
    ASSERT(line_reader_set(&r, "parse.headers=true") && line_reader_set(&r, "parse.key=true"));
    ASSERT(line_reader_set(&r, "headers.delimiter=||") && line_reader_set(&r, "headers.separator=;;") &&
           line_reader_set(&r, "headers.key.separator==>") && line_reader_set(&r, "key.separator=->"));
    ASSERT_EQ(parse(&r, "x=>1;;y=>2||key->va->lue", &rec, &h), LINE_OK);
    ASSERT_STREQ(h.text, "x=1;y=2;");
    assert_span(rec.key, "key");
    assert_span(rec.value, "va->lue");
    /* A NUL byte is data: the line is a length, not a C string. */
    static const char nul_line[] = "h=>\0||k\0->v\0";
    ASSERT_EQ(line_parse(&r, nul_line, sizeof(nul_line) - 1, &rec, NULL, NULL), LINE_OK);
    ASSERT_EQ(rec.key.len, 2);
    ASSERT_EQ(rec.value.len, 2);
    ASSERT_EQ(rec.headers.len, 4);
}

int main(void) {
    RUN_TEST(test_settings);
    RUN_TEST(test_plain_and_key);
    RUN_TEST(test_headers);
    RUN_TEST(test_multibyte_separators_and_nul);
    return 0;
}
