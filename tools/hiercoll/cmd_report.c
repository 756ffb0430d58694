/* hiercoll report DIR: the text summary of a profile directory (top pairs, bytes per hierarchy
 * level, call sites with file:line, time in MPI per rank, mapping costs), and on request an SVG
 * heat map and a self-contained HTML page. Malformed files: FILE:LINE: reason, exit 1. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_cli.h"
#include "report.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hiercoll report DIR [--html FILE] [--svg FILE] [--mapped-svg FILE] [--json]\n"
            "  Summarises the profile directory DIR (written by HIERCOLL_PROFILE=DIR).\n"
            "  --html FILE        one self-contained page: both matrices and the tables\n"
            "  --svg FILE         heat map of the matrix as run (log scale, hosts marked)\n"
            "  --mapped-svg FILE  the same with the recommended mapping's placement\n"
            "  --json             the summary as JSON instead of text\n");
}

/* Writes FILE through a temporary name, so a reader never sees half a page. */
static int write_file(const char *path, const rep_profile *p, int which)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "hiercoll report: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (which == 0) {
        rep_html(p, f);
    } else {
        int *order = malloc(sizeof(int) * (size_t)p->nranks);
        if (which == 1)
            rep_order_as_run(p, order);
        else
            rep_order_mapped(p, order);
        const char **host = rep_hosts(p, which == 2);
        rep_svg(p, order, host,
                which == 1 ? "As run (profiled placement)" : "With the recommended mapping", f);
        free(host);
        free(order);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        fprintf(stderr, "hiercoll report: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int hc_cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {{"html", required_argument, 0, 'H'},
                                         {"svg", required_argument, 0, 's'},
                                         {"mapped-svg", required_argument, 0, 'm'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *html = NULL, *svg = NULL, *msvg = NULL;
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'H': html = optarg; break;
        case 's': svg = optarg; break;
        case 'm': msvg = optarg; break;
        case 'j': json = 1; break;
        case 'h': usage(stdout); return HC_EXIT_OK;
        default: usage(stderr); return HC_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "hiercoll report: %s\n",
                optind == argc ? "which profile directory?" : "one profile directory only");
        usage(stderr);
        return HC_EXIT_USAGE;
    }
    const char *dir = argv[optind];
    if (access(dir, F_OK) != 0) {
        fprintf(stderr, "hiercoll report: %s: %s\n", dir, strerror(errno));
        return HC_EXIT_FAIL;
    }
    rep_profile p;
    if (rep_load(&p, dir) != 0) {
        fprintf(stderr, "hiercoll report: %s is not a valid profile directory\n", dir);
        return HC_EXIT_FAIL;
    }
    if (msvg && !p.has_mapping) {
        fprintf(stderr, "hiercoll report: --mapped-svg: %s has no mapping.txt\n", dir);
        rep_free(&p);
        return HC_EXIT_FAIL;
    }
    rep_resolve_sites(&p);
    if (json)
        rep_json(&p, stdout);
    else
        rep_text(&p, stdout);
    int rc = HC_EXIT_OK;
    if (html && write_file(html, &p, 0) != 0)
        rc = HC_EXIT_FAIL;
    if (svg && write_file(svg, &p, 1) != 0)
        rc = HC_EXIT_FAIL;
    if (msvg && write_file(msvg, &p, 2) != 0)
        rc = HC_EXIT_FAIL;
    if (!json && rc == HC_EXIT_OK && (html || svg || msvg))
        fprintf(stderr, "hiercoll report: wrote%s%s%s%s%s%s\n", html ? " " : "", html ? html : "",
                svg ? " " : "", svg ? svg : "", msvg ? " " : "", msvg ? msvg : "");
    rep_free(&p);
    return rc;
}
