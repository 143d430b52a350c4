/* Unit tests for src/base/props (Java .properties parsing) and src/base/uuid. */
#include <stdlib.h>
#include <unistd.h>

#include "base/props.h"
#include "base/uuid.h"
#include "testutil.h"

static gr_err_t parse(gr_props_t *p, const char *text, char *err) {
    gr_props_init(p);
    return gr_props_parse(p, text, strlen(text), err, 256);
}

static void test_basic_forms(void) {
    gr_props_t p;
    char err[256];
    ASSERT_EQ(parse(&p, "# comment\n! other comment\n\n  a=1\nb : 2\nc 3\nd\t=\t4  \n  e=\nf\n", err), 0);
    ASSERT_EQ(p.n, 6);
    ASSERT_STREQ(gr_props_get(&p, "a"), "1");
    ASSERT_STREQ(gr_props_get(&p, "b"), "2");
    ASSERT_STREQ(gr_props_get(&p, "c"), "3");
    ASSERT_STREQ(gr_props_get(&p, "d"), "4");
    ASSERT_STREQ(gr_props_get(&p, "e"), "");
    ASSERT_STREQ(gr_props_get(&p, "f"), "");
    ASSERT_EQ(gr_props_find(&p, "a")->line, 4);
    ASSERT_EQ(gr_props_find(&p, "f")->line, 9);
    ASSERT_STREQ(p.v[0].key, "a"); /* order kept */
    ASSERT_STREQ(p.v[5].key, "f");
    ASSERT(gr_props_get(&p, "zz") == NULL);
    gr_props_free(&p);
}

static void test_continuation_and_escapes(void) {
    gr_props_t p;
    char err[256];
    const char *t = "list = a,\\\n      b,\\\r\n   c\n"
                    "k\\=x\\:y\\ z = v\\tw\n"
                    "u=\\u00e9\\u20AC\\uD83D\\uDE00\n"
                    "bs=ends\\\\\n"
                    "next=1\n"
                    "#comment \\\n"
                    "after=2\n"
                    "sp=keep\\ \n"
                    "last=x\\";
    ASSERT_EQ(parse(&p, t, err), 0);
    ASSERT_STREQ(gr_props_get(&p, "list"), "a,b,c");
    ASSERT_EQ(gr_props_find(&p, "list")->line, 1);
    ASSERT_STREQ(gr_props_get(&p, "k=x:y z"), "v\tw");
    ASSERT_EQ(gr_props_find(&p, "k=x:y z")->line, 4);
    ASSERT_STREQ(gr_props_get(&p, "u"), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    ASSERT_STREQ(gr_props_get(&p, "bs"), "ends\\");
    ASSERT_STREQ(gr_props_get(&p, "next"), "1");
    ASSERT_STREQ(gr_props_get(&p, "after"), "2"); /* comment lines do not continue */
    ASSERT_STREQ(gr_props_get(&p, "sp"), "keep ");
    ASSERT_STREQ(gr_props_get(&p, "last"), "x");
    gr_props_free(&p);
}

static void test_errors(void) {
    gr_props_t p;
    char err[256];
    ASSERT_EQ(parse(&p, "a=1\n\nb=\\u12G4\n", err), GR_ERR__MALFORMED);
    ASSERT(strstr(err, "line 3") != NULL);
    ASSERT_STREQ(gr_props_get(&p, "a"), "1");
    gr_props_free(&p);
    ASSERT_EQ(parse(&p, "a=\\uD800x\n", err), GR_ERR__MALFORMED);
    gr_props_free(&p);
    ASSERT_EQ(gr_props_load_file(&p, "/nonexistent/x.properties", err, sizeof(err)), GR_ERR__IO);
    ASSERT(strstr(err, "/nonexistent/x.properties") != NULL);
    gr_props_free(&p);
}

static void test_map_ops_and_format(void) {
    gr_props_t p, q;
    char err[256];
    gr_props_init(&p);
    gr_props_set(&p, "a", "1", 0);
    gr_props_set(&p, "b", " lead and trail ", 0);
    gr_props_set(&p, "we ird=:#!", "multi\nline\\ \t", 0);
    gr_props_set(&p, "a", "2", 7); /* replace keeps position */
    ASSERT_STREQ(p.v[0].value, "2");
    ASSERT_EQ(p.v[0].line, 7);
    char *text = gr_props_format(&p);
    ASSERT_EQ(parse(&q, text, err), 0);
    ASSERT_EQ(q.n, 3);
    for (size_t i = 0; i < p.n; i++) {
        ASSERT_STREQ(q.v[i].key, p.v[i].key);
        ASSERT_STREQ(q.v[i].value, p.v[i].value);
    }
    free(text);
    ASSERT(gr_props_unset(&p, "a"));
    ASSERT(!gr_props_unset(&p, "a"));
    ASSERT_STREQ(p.v[0].key, "b");
    gr_props_copy(&q, &p);
    ASSERT_EQ(q.n, 2);
    gr_props_free(&q);
    gr_props_free(&p);
}

static void test_load_file(void) {
    char path[] = "/tmp/gr_props_XXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    const char *t = "node.id=3\r\nlog.dirs = /tmp/x\r\n";
    ASSERT_EQ(write(fd, t, strlen(t)), (long long)strlen(t));
    close(fd);
    gr_props_t p;
    char err[256];
    gr_props_init(&p);
    ASSERT_EQ(gr_props_load_file(&p, path, err, sizeof(err)), 0);
    ASSERT_STREQ(gr_props_get(&p, "node.id"), "3");
    ASSERT_STREQ(gr_props_get(&p, "log.dirs"), "/tmp/x");
    ASSERT_EQ(gr_props_find(&p, "log.dirs")->line, 2);
    gr_props_free(&p);
    unlink(path);
}

static void test_uuid(void) {
    gr_uuid_t u = {{0}}, v;
    char s[23];
    ASSERT(gr_uuid_is_zero(&u));
    gr_uuid_to_base64(&u, s);
    ASSERT_STREQ(s, "AAAAAAAAAAAAAAAAAAAAAA");
    /* Kafka's Uuid(0xffffffffffffffff, 0xffffffffffffffff).toString() */
    memset(u.b, 0xff, 16);
    gr_uuid_to_base64(&u, s);
    ASSERT_STREQ(s, "_____________________w");
    ASSERT(gr_uuid_from_base64("_____________________w", &v));
    ASSERT(gr_uuid_eq(&u, &v));
    ASSERT(!gr_uuid_from_base64("short", &v));
    ASSERT(!gr_uuid_from_base64("AAAAAAAAAAAAAAAAAAAAA*", &v));
    ASSERT(!gr_uuid_from_base64("AAAAAAAAAAAAAAAAAAAAAAA", &v));
    for (int i = 0; i < 2000; i++) {
        u = gr_uuid_random();
        gr_uuid_to_base64(&u, s);
        ASSERT_EQ(strlen(s), 22);
        ASSERT(s[0] != '-');
        ASSERT(!gr_uuid_is_zero(&u));
        ASSERT_EQ(u.b[6] >> 4, 4);
        ASSERT(gr_uuid_from_base64(s, &v));
        ASSERT(gr_uuid_eq(&u, &v));
    }
}

int main(void) {
    RUN_TEST(test_basic_forms);
    RUN_TEST(test_continuation_and_escapes);
    RUN_TEST(test_errors);
    RUN_TEST(test_map_ops_and_format);
    RUN_TEST(test_load_file);
    RUN_TEST(test_uuid);
    return 0;
}
