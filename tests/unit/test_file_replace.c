/* base/file_replace: the state files' atomic replace and whole-file read. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_replace.h"
#include "testutil.h"

static char dir[] = "/tmp/gr-test-file-replace.XXXXXX";

static bool exists(const char *name) {
    char p[4200];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

static void test_replace_and_read(void) {
    char err[256] = "", *buf;
    size_t len;
    ASSERT_EQ(gr_file_read_small(dir, "state", 100, &buf, &len, err, sizeof(err)), GR_ERR_NONE);
    ASSERT(buf == NULL && len == 0); /* absent: empty, no error */
    ASSERT_EQ(gr_file_replace(dir, "state", "first\n", 6, err, sizeof(err)), GR_ERR_NONE);
    ASSERT_EQ(gr_file_replace(dir, "state", "second\n", 7, err, sizeof(err)), GR_ERR_NONE);
    ASSERT(!exists("state.tmp"));
    ASSERT_EQ(gr_file_read_small(dir, "state", 100, &buf, &len, err, sizeof(err)), GR_ERR_NONE);
    ASSERT(len == 7 && !strcmp(buf, "second\n"));
    free(buf);
    /* over the limit: refused with the path in the message */
    ASSERT_EQ(gr_file_read_small(dir, "state", 3, &buf, &len, err, sizeof(err)), GR_ERR__IO);
    ASSERT(strstr(err, "/state: cannot read or larger than 3 bytes"));
}

/* A failed replace leaves the old file and no temp file. */
static void test_failed_replace(void) {
    char err[256] = "", sub[4200], *buf;
    size_t len;
    snprintf(sub, sizeof(sub), "%s/missing", dir);
    ASSERT_EQ(gr_file_replace(sub, "state", "x", 1, err, sizeof(err)), GR_ERR__IO);
    ASSERT(strstr(err, "cannot create") && strstr(err, "No such file or directory"));
    /* the temp name taken by a directory: create fails, the old content stays */
    char tmpdir[4200];
    snprintf(tmpdir, sizeof(tmpdir), "%s/state.tmp", dir);
    ASSERT_EQ(mkdir(tmpdir, 0700), 0);
    ASSERT_EQ(gr_file_replace(dir, "state", "third\n", 6, err, sizeof(err)), GR_ERR__IO);
    ASSERT_EQ(rmdir(tmpdir), 0);
    ASSERT_EQ(gr_file_read_small(dir, "state", 100, &buf, &len, err, sizeof(err)), GR_ERR_NONE);
    ASSERT(!strcmp(buf, "second\n"));
    free(buf);
}

int main(void) {
    ASSERT(mkdtemp(dir) != NULL);
    RUN_TEST(test_replace_and_read);
    RUN_TEST(test_failed_replace);
    char p[4200];
    snprintf(p, sizeof(p), "%s/state", dir);
    unlink(p);
    rmdir(dir);
    fprintf(stderr, "test_file_replace: ok\n");
    return 0;
}
