/* libFuzzer harness for every reader of user-supplied text, one target per build
 * (-DHC_FUZZ_TARGET=n, see tests/fuzz/run.sh):
 *   1 graph      hc_graph_read_metis        METIS task graph
 *   2 matrix     hc_machine_read_matrix     bandwidth-matrix machine file
 *   3 mapfile    hc_mapfile_read            mapping.txt
 *   4 perf       hc_perf_read               machine-perf file (hiercoll commperf)
 *   5 machine    hc_machine_from_synthetic + hc_machine_set_unavailable
 *   6 config     hc_config_parse_value on every HIERCOLL_* variable
 *   7 tuning     hc_tuning_read             tuning file (HIERCOLL_TUNING)
 * File readers get the input through a memfd (/proc/self/fd/N), so no disk is touched.
 * A reader must return 0 or -1 with a one-line "FILE:LINE: reason"; anything else aborts,
 * as do AddressSanitizer and UndefinedBehaviorSanitizer reports. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hc_config.h"
#include "hc_graph.h"
#include "hc_machine.h"
#include "hc_mapfile.h"
#include "hc_perffile.h"
#include "hc_tuning_file.h"

static int memfd = -1;
static char path[64];

/* The input as a file the readers can open by name. */
static const char *as_file(const uint8_t *data, size_t size)
{
    if (memfd < 0) {
        memfd = memfd_create("hc-fuzz", 0);
        snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
    }
    if (ftruncate(memfd, 0) != 0 || pwrite(memfd, data, size, 0) != (ssize_t)size)
        abort();
    return path;
}

/* A rejection names the file and a line and is one line long. */
static void check_err(int rc, const char *err, int need_line)
{
    if (rc == 0)
        return;
    if (rc != -1 || !*err || (need_line >= 0 && strchr(err, '\n'))) {
        fprintf(stderr, "reader returned %d with message '%s'\n", rc, err);
        abort();
    }
    if (need_line > 0) {
        size_t n = strlen(path);
        long line;
        char *end;
        if (strncmp(err, path, n) != 0 || err[n] != ':' ||
            ((line = strtol(err + n + 1, &end, 10)), end == err + n + 1) || *end != ':' ||
            line < 0) {
            fprintf(stderr, "rejection without FILE:LINE: '%s'\n", err);
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    int rc = 0;
#if HC_FUZZ_TARGET == 1
    hc_graph g;
    memset(&g, 0, sizeof g);
    rc = hc_graph_read_metis(&g, as_file(data, size), err, sizeof err);
    if (rc == 0) {
        /* What the reader accepts is a valid graph: symmetric CSR, neighbours in range. */
        for (int v = 0; v < g.n; v++)
            for (long long e = g.xadj[v]; e < g.xadj[v + 1]; e++)
                if (g.adjncy[e] < 0 || g.adjncy[e] >= g.n || g.adjncy[e] == v || !(g.adjwgt[e] >= 0))
                    abort();
        hc_graph_free(&g);
    }
    check_err(rc, err, 1);
#elif HC_FUZZ_TARGET == 2
    hc_machine m;
    memset(&m, 0, sizeof m);
    rc = hc_machine_read_matrix(&m, as_file(data, size), err, sizeof err);
    if (rc == 0) {
        for (int p = 0; p < m.ncores; p++)
            for (int q = 0; q < m.ncores; q++)
                if (p != q && !(hc_machine_bw(&m, p, q) > 0))
                    abort();
        hc_machine_free(&m);
    }
    check_err(rc, err, 1);
#elif HC_FUZZ_TARGET == 3
    hc_mapfile f;
    memset(&f, 0, sizeof f);
    rc = hc_mapfile_read(&f, as_file(data, size), err, sizeof err);
    if (rc == 0)
        hc_mapfile_free(&f);
    check_err(rc, err, 1);
#elif HC_FUZZ_TARGET == 4
    hc_perf p;
    memset(&p, 0, sizeof p);
    rc = hc_perf_read(&p, as_file(data, size), err, sizeof err);
    if (rc == 0 && (p.nlevels < 1 || p.nlevels > HC_PERF_MAX_LEVELS))
        abort();
    check_err(rc, err, 1);
#elif HC_FUZZ_TARGET == 5
    /* "SPEC|UNAVAILABLE": a synthetic machine string and a core list. */
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    char *bar = strchr(text, '|');
    if (bar)
        *bar++ = 0;
    double bw[HC_MACHINE_MAX_LEVELS + 2];
    for (int l = 0; l < HC_MACHINE_MAX_LEVELS + 2; l++)
        bw[l] = 1e9 * (l + 1);
    hc_machine m;
    memset(&m, 0, sizeof m);
    for (int nbw = 1; nbw <= 4 && rc == 0; nbw++) {
        memset(&m, 0, sizeof m);
        rc = hc_machine_from_synthetic(&m, text, bw, nbw, err, sizeof err);
        if (rc == 0) {
            if (m.ncores < 1 || m.ncores > HC_MACHINE_MAX_CORES)
                abort();
            if (bar) {
                /* command-line text: the message may quote a newline it was given */
                int r2 = hc_machine_set_unavailable(&m, bar, err, sizeof err);
                check_err(r2, err, -1);
            }
            hc_machine_free(&m);
        }
        check_err(rc, err, -1);
        rc = 0;
    }
    free(text);
#elif HC_FUZZ_TARGET == 6
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    for (int i = 0; i < hc_var_count; i++) {
        hc_value v;
        rc = hc_config_parse_value(&hc_var_table[i], text, &v, err, sizeof err);
        check_err(rc, err, 0);
    }
    free(text);
#elif HC_FUZZ_TARGET == 7
    hc_tuning_rule *rules = NULL;
    int n = -1;
    rc = hc_tuning_read(as_file(data, size), &rules, &n, err, sizeof err);
    if (rc == 0 && n < 0)
        abort();
    for (int i = 0; rc == 0 && i < n; i++)
        if (rules[i].algo < 0 || rules[i].rlo > rules[i].rhi || rules[i].nlo > rules[i].nhi ||
            (rules[i].hi >= 0 && rules[i].hi <= rules[i].lo))
            abort();
    free(rules);
    check_err(rc, err, 1);
#else
#error "HC_FUZZ_TARGET 1..7"
#endif
    return 0;
}
