/* hiercoll report: one self-contained HTML page (no scripts, no external files): the summary
 * tables and the matrix as placed in the profiled run and as the mapping would place it. */
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* The text summary inside <pre>: every number a reader wants, in one place. */
static void summary_block(const rep_profile *p, FILE *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return;
    rep_text(p, mem);
    fclose(mem);
    fprintf(out, "<pre>");
    rep_xml(out, buf);
    fprintf(out, "</pre>\n");
    free(buf);
}

void rep_html(const rep_profile *p, FILE *out)
{
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>"
                 "hiercoll report: ");
    rep_xml(out, p->dir);
    fprintf(out, "</title>\n<style>\n"
                 "body{font-family:sans-serif;margin:1.5em;color:#222;background:#fff}\n"
                 "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}\n"
                 "pre{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:.85em}\n"
                 ".matrices{display:flex;flex-wrap:wrap;gap:1.5em}\n"
                 ".matrices figure{margin:0}figcaption{font-size:.9em;color:#444;max-width:700px}\n"
                 "</style></head><body>\n");
    fprintf(out, "<h1>hiercoll profile report</h1>\n<p>");
    rep_xml(out, p->dir);
    fprintf(out, ": %d ranks on %d host%s.</p>\n", p->nranks, p->nhosts, p->nhosts == 1 ? "" : "s");

    fprintf(out, "<h2>Communication matrix</h2>\n<div class=\"matrices\">\n<figure id=\"as-run\">\n");
    int *order = malloc(sizeof(int) * (size_t)p->nranks);
    const char **host = rep_hosts(p, 0);
    rep_order_as_run(p, order);
    rep_svg(p, order, host, "As run (profiled placement)", out);
    free(host);
    fprintf(out, "<figcaption>Ranks in the order they were placed on the machine in the profiled "
                 "run (host, then core). Traffic inside a host block stays on the node.</figcaption>"
                 "\n</figure>\n");
    if (rep_order_mapped(p, order) == 0) {
        fprintf(out, "<figure id=\"mapped\">\n");
        host = rep_hosts(p, 1);
        rep_svg(p, order, host, "With the recommended mapping", out);
        free(host);
        fprintf(out, "<figcaption>The same traffic with ranks where mapping.txt places them "
                     "(algorithm ");
        rep_xml(out, p->map.algorithm);
        fprintf(out, ").</figcaption>\n</figure>\n");
    } else {
        fprintf(out, "<p>No mapping.txt in this profile: no mapped matrix.</p>\n");
    }
    free(order);
    fprintf(out, "</div>\n<h2>Summary</h2>\n");
    summary_block(p, out);
    fprintf(out, "<p>Files: taskgraph.graph, comm_bytes.csv, ranks.csv, callsites.csv%s in ",
            p->has_mapping ? ", mapping.txt, next-run.sh" : "");
    rep_xml(out, p->dir);
    fprintf(out, ".</p>\n</body></html>\n");
}
