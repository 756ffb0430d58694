/* Shared by the mapping unit tests: a temporary directory, files written into it, and a
 * main that removes it. Include after hc_test.h, once per test program. */
#ifndef TEST_MAP_UTIL_H
#define TEST_MAP_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/hc_test_map_XXXXXX";

/* Writes text to tmpdir/name; returns the path (valid until the next call). */
static const char *write_tmp(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 1;
    int rc = hc_test_main();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}

#endif
