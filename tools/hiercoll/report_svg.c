/* hiercoll report: the communication matrix as an SVG heat map. Bytes sender -> receiver on a
 * log colour scale; ranks in display order (as placed on the machine), host boundaries drawn;
 * beyond REP_MAX_CELLS ranks per axis, cells aggregate blocks of ranks, so the picture stays
 * the same size at 1 024 or 16 384 ranks. Only non-empty cells are written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define PLOT 512.0
#define LEFT 70.0
#define TOP 70.0

/* Light yellow to dark red: readable on white, monotone in lightness. */
static const unsigned char palette[][3] = {
    {255, 255, 178}, {254, 204, 92}, {253, 141, 60}, {240, 59, 32}, {189, 0, 38}, {90, 0, 30}};
#define NPAL (int)(sizeof palette / sizeof palette[0])

static void colour(double t, char *buf, size_t len)
{
    if (t < 0)
        t = 0;
    if (t > 1)
        t = 1;
    double x = t * (NPAL - 1);
    int i = (int)x;
    if (i >= NPAL - 1)
        i = NPAL - 2;
    double f = x - i;
    int c[3];
    for (int k = 0; k < 3; k++)
        c[k] = (int)lround(palette[i][k] + f * (palette[i + 1][k] - palette[i][k]));
    snprintf(buf, len, "#%02x%02x%02x", c[0], c[1], c[2]);
}

void rep_svg(const rep_profile *p, const int *order, const char *const *host, const char *title,
             FILE *out)
{
    int n = p->nranks;
    int b = (n + REP_MAX_CELLS - 1) / REP_MAX_CELLS; /* ranks per cell */
    int g = (n + b - 1) / b;                         /* cells per axis */
    int *pos = malloc(sizeof(int) * (size_t)n);
    double *cell = calloc((size_t)g * (size_t)g, sizeof(double));
    if (!pos || !cell) {
        free(pos);
        free(cell);
        return;
    }
    for (int i = 0; i < n; i++)
        pos[order[i]] = i;
    for (long long i = 0; i < p->npairs; i++) {
        const rep_pair *x = &p->pairs[i];
        cell[(size_t)(pos[x->s] / b) * (size_t)g + (size_t)(pos[x->r] / b)] += (double)x->total;
    }
    double vmin = 0, vmax = 0;
    for (size_t i = 0; i < (size_t)g * (size_t)g; i++)
        if (cell[i] > 0) {
            if (vmin == 0 || cell[i] < vmin)
                vmin = cell[i];
            if (cell[i] > vmax)
                vmax = cell[i];
        }
    double lmin = vmin > 0 ? log(vmin) : 0, span = vmax > vmin ? log(vmax) - lmin : 1;
    double cs = PLOT / g, W = LEFT + PLOT + 130, H = TOP + PLOT + 50;
    char c[16], b1[32], b2[32];

    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                 "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
            W, H, W, H);
    fprintf(out, "<title>");
    rep_xml(out, title);
    fprintf(out, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    fprintf(out, "<text x=\"%.0f\" y=\"18\" font-size=\"14\" font-weight=\"bold\">", LEFT);
    rep_xml(out, title);
    fprintf(out, "</text>\n<text x=\"%.0f\" y=\"34\" fill=\"#444\">bytes sender (rows) to "
                 "receiver (columns), log colour scale; %d ranks",
            LEFT, n);
    if (b > 1)
        fprintf(out, ", each cell %d x %d ranks", b, b);
    fprintf(out, "; lines: host boundaries</text>\n");
    fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\" "
                 "stroke=\"#888\"/>\n<g shape-rendering=\"crispEdges\">\n",
            LEFT, TOP, PLOT, PLOT);
    for (int i = 0; i < g; i++)
        for (int j = 0; j < g; j++) {
            double v = cell[(size_t)i * (size_t)g + (size_t)j];
            if (v <= 0)
                continue;
            colour(vmax > vmin ? (log(v) - lmin) / span : 1, c, sizeof c);
            fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">",
                    LEFT + j * cs, TOP + i * cs, cs, cs, c);
            if (b == 1)
                fprintf(out, "<title>%d -&gt; %d: %s</title>", order[i], order[j],
                        rep_bytes(v, b1, sizeof b1));
            else
                fprintf(out, "<title>slots %d-%d -&gt; %d-%d: %s</title>", i * b,
                        (i + 1) * b - 1, j * b, (j + 1) * b - 1, rep_bytes(v, b1, sizeof b1));
            fprintf(out, "</rect>\n");
        }
    fprintf(out, "</g>\n");

    /* Host boundaries and names (names only when they fit). */
    int label_hosts = p->nhosts <= 32, draw_lines = p->nhosts <= 1024;
    int seg_start = 0;
    for (int i = 1; i <= n; i++) {
        if (i < n && strcmp(host[order[i]], host[order[i - 1]]) == 0)
            continue;
        double x = LEFT + PLOT * i / n, y = TOP + PLOT * i / n;
        if (i < n && draw_lines)
            fprintf(out, "<line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.0f\" stroke=\"#1f4e99\" "
                         "stroke-width=\"1.2\"/><line x1=\"%.0f\" y1=\"%.2f\" x2=\"%.0f\" "
                         "y2=\"%.2f\" stroke=\"#1f4e99\" stroke-width=\"1.2\"/>\n",
                    x, TOP, x, TOP + PLOT, LEFT, y, LEFT + PLOT, y);
        if (label_hosts) {
            double mid = LEFT + PLOT * (seg_start + i) / 2.0 / n;
            fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#1f4e99\" "
                         "font-size=\"10\">",
                    mid, TOP - 18);
            rep_xml(out, host[order[seg_start]]);
            fprintf(out, "</text>\n");
        }
        seg_start = i;
    }

    /* Rank ticks: at most ~16 labels per axis. */
    int step = 1;
    while (n / step > 16)
        step *= 2;
    for (int i = 0; i < n; i += step) {
        double at = PLOT * (i + 0.5) / n;
        fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"9\">%d</text>"
                     "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"9\">%d</text>\n",
                LEFT + at, TOP - 5, order[i], LEFT - 4, TOP + at + 3, order[i]);
    }
    fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">receiver rank (placement "
                 "order: host, core)</text>\n",
            LEFT + PLOT / 2, TOP + PLOT + 20);
    fprintf(out, "<text transform=\"translate(%.0f %.0f) rotate(-90)\" text-anchor=\"middle\">"
                 "sender rank</text>\n",
            LEFT - 40, TOP + PLOT / 2);

    /* Colour bar. */
    double lx = LEFT + PLOT + 30;
    fprintf(out, "<defs><linearGradient id=\"hcbar\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">");
    for (int k = 0; k < NPAL; k++)
        fprintf(out, "<stop offset=\"%.3f\" stop-color=\"#%02x%02x%02x\"/>",
                (double)k / (NPAL - 1), palette[k][0], palette[k][1], palette[k][2]);
    fprintf(out, "</linearGradient></defs>\n<rect x=\"%.0f\" y=\"%.0f\" width=\"16\" "
                 "height=\"%.0f\" fill=\"url(#hcbar)\" stroke=\"#888\"/>\n",
            lx, TOP, PLOT);
    if (vmax > 0) {
        fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", lx + 20, TOP + 8,
                rep_bytes(vmax, b1, sizeof b1));
        fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", lx + 20, TOP + PLOT / 2 + 4,
                rep_bytes(sqrt(vmin * vmax), b2, sizeof b2));
        fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", lx + 20, TOP + PLOT,
                rep_bytes(vmin, b1, sizeof b1));
    } else {
        fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">no traffic</text>\n", lx + 20, TOP + 8);
    }
    fprintf(out, "</svg>\n");
    free(pos);
    free(cell);
}
