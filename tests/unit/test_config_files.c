/* The malformed-file corpus (tests/bad-input/<reader>/): every file must be rejected by its
 * reader with "FILE:LINE: reason" naming that file, one line, no crash; the well-formed seeds
 * of the fuzzer (tests/fuzz/seeds/<reader>/) must be accepted. Run from the repository root
 * (as tests/run.sh does). HC_BAD_INPUT_SHOW=1 prints every reason. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "hc_graph.h"
#include "hc_machine.h"
#include "hc_mapfile.h"
#include "hc_perffile.h"
#include "hc_test.h"
#include "hc_tuning_file.h"

static int read_with(const char *reader, const char *path, char *err, size_t errlen)
{
    int rc = -2;
    if (!strcmp(reader, "graph")) {
        hc_graph g;
        memset(&g, 0, sizeof g);
        if ((rc = hc_graph_read_metis(&g, path, err, errlen)) == 0)
            hc_graph_free(&g);
    } else if (!strcmp(reader, "matrix")) {
        hc_machine m;
        memset(&m, 0, sizeof m);
        if ((rc = hc_machine_read_matrix(&m, path, err, errlen)) == 0)
            hc_machine_free(&m);
    } else if (!strcmp(reader, "mapfile")) {
        hc_mapfile f;
        memset(&f, 0, sizeof f);
        if ((rc = hc_mapfile_read(&f, path, err, errlen)) == 0)
            hc_mapfile_free(&f);
    } else if (!strcmp(reader, "perf")) {
        hc_perf p;
        memset(&p, 0, sizeof p);
        rc = hc_perf_read(&p, path, err, errlen);
    } else if (!strcmp(reader, "tuning")) {
        hc_tuning_rule *rules = NULL;
        int n = 0;
        rc = hc_tuning_read(path, &rules, &n, err, errlen);
        free(rules);
    }
    return rc;
}

static const char *readers[] = {"graph", "matrix", "mapfile", "perf", "tuning"};

/* Calls fn(reader, path) for every regular file of base/<reader>/; returns how many. */
static int each_file(const char *base, void (*fn)(const char *, const char *))
{
    int n = 0;
    for (size_t k = 0; k < sizeof readers / sizeof readers[0]; k++) {
        char dir[256];
        snprintf(dir, sizeof dir, "%s/%s", base, readers[k]);
        DIR *d = opendir(dir);
        if (!d)
            continue;
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.')
                continue;
            char path[600];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            fn(readers[k], path);
            n++;
        }
        closedir(d);
    }
    return n;
}

static void expect_rejected(const char *reader, const char *path)
{
    char err[1024] = "";
    int rc = read_with(reader, path, err, sizeof err);
    if (getenv("HC_BAD_INPUT_SHOW"))
        printf("  %-7s %s\n", reader, err);
    HC_CHECK_MSG(rc == -1, "%s accepted by the %s reader (rc %d)", path, reader, rc);
    if (rc != -1)
        return;
    size_t n = strlen(path);
    char *end = NULL;
    long line = strncmp(err, path, n) == 0 && err[n] == ':' ? strtol(err + n + 1, &end, 10) : -1;
    HC_CHECK_MSG(line >= 0 && end && end != err + n + 1 && end[0] == ':' && end[1] == ' ' &&
                     strlen(end + 2) > 3,
                 "%s: rejection is not 'FILE:LINE: reason': %s", path, err);
    HC_CHECK_MSG(!strchr(err, '\n'), "%s: reason spans lines: %s", path, err);
}

static void expect_accepted(const char *reader, const char *path)
{
    char err[1024] = "";
    HC_CHECK_MSG(read_with(reader, path, err, sizeof err) == 0, "%s rejected: %s", path, err);
}

HC_TEST(bad_input_corpus_rejected)
{
    int n = each_file("tests/bad-input", expect_rejected);
    HC_CHECK_MSG(n >= 20, "only %d files in tests/bad-input (run from the repository root)", n);
}

HC_TEST(fuzz_seeds_accepted)
{
    HC_CHECK(each_file("tests/fuzz/seeds", expect_accepted) >= 5);
}

HC_TEST(missing_file_named)
{
    char err[512] = "";
    for (size_t k = 0; k < sizeof readers / sizeof readers[0]; k++) {
        err[0] = 0;
        HC_CHECK_MSG(read_with(readers[k], "/nonexistent/hc-file", err, sizeof err) == -1,
                     "%s reader accepted a missing file", readers[k]);
        HC_CHECK_MSG(strstr(err, "/nonexistent/hc-file") != NULL, "%s: %s", readers[k], err);
    }
}

int main(void) { return hc_test_main(); }
