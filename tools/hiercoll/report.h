/* hiercoll report: the profile directory in memory, and its text, SVG and HTML renderings. */
#ifndef HC_REPORT_H
#define HC_REPORT_H

#include <stdio.h>

#include "hc_mapfile.h"

typedef struct rep_rank {
    char host[64];
    int core, numa;
    double mpi_us;
    long long p2p, coll, calls;
} rep_rank;

typedef struct rep_pair {
    int s, r;
    long long p2p, coll, total, msgs; /* msgs -1 when comm_msgs.csv is absent */
} rep_pair;

typedef struct rep_site {
    int id;
    char fn[48];
    long long calls, bytes;
    double time_us;
    char module[512];
    unsigned long long offset;
    char symbol[256];
    char func[256];  /* resolved by addr2line, else the symbol, else "?" */
    char where[512]; /* file:line, else module+offset */
} rep_site;

/* A choice the run learned (tuning.txt): the rule, and its site resolved like a call site's. */
typedef struct rep_learned {
    char coll[16], bytes[32], algo[32];
    int ranks, nodes, root;  /* root -1: none (allreduce) */
    long long calls;
    double time_us, vendor_us; /* the chosen algorithm's median, the vendor's (0: not tried) */
    char others[256];          /* every algorithm tried, "name time" */
    rep_site site;             /* the broadcast's deciding site, the allreduce's as seen */
} rep_learned;

enum { REP_LVL_NUMA, REP_LVL_NODE, REP_LVL_NETWORK, REP_NLEVELS };
extern const char *const rep_level_names[REP_NLEVELS];

typedef struct rep_profile {
    char dir[4096];
    int nranks, nhosts;
    rep_rank *ranks;
    rep_pair *pairs; /* sorted by sender then receiver */
    long long npairs;
    int has_msgs;
    rep_site *sites; /* sorted by time, descending */
    int nsites;
    int has_mapping;
    hc_mapfile map;
    rep_learned *learned; /* tuning.txt's learned rules, in file order */
    int nlearned;
} rep_profile;

/* Reads DIR (ranks.csv and comm_bytes.csv required; comm_msgs.csv, callsites.csv, mapping.txt,
 * tuning.txt when present). 0, or -1 after "FILE:LINE: reason" on stderr. */
int rep_load(rep_profile *p, const char *dir);
void rep_free(rep_profile *p);
/* Call sites' (and the learned choices' sites') function and file:line through addr2line
 * (once per module). */
void rep_resolve_sites(rep_profile *p);

/* Level at which ranks a and b meet, as placed in the profiled run. */
int rep_level(const rep_profile *p, int a, int b);
/* Display order: slot -> rank, sorted by (host, core) as run, or as the mapping places them. */
void rep_order_as_run(const rep_profile *p, int *order);
int rep_order_mapped(const rep_profile *p, int *order);
/* The host of every rank in that view (caller frees the array, not the strings). */
const char **rep_hosts(const rep_profile *p, int mapped);
/* Pair indices sorted by total bytes, descending (caller frees). */
long long *rep_top_pairs(const rep_profile *p);
/* Text escaped for XML/HTML (&, <, >, "). */
void rep_xml(FILE *out, const char *s);
/* "12.3 MiB" */
const char *rep_bytes(double b, char *buf, size_t len);

void rep_text(const rep_profile *p, FILE *out);
void rep_json(const rep_profile *p, FILE *out);
/* The heat map of the matrix with ranks in display order (host[r]: where rank r is); cells aggregated beyond
 * REP_MAX_CELLS ranks per axis. */
#define REP_MAX_CELLS 256
void rep_svg(const rep_profile *p, const int *order, const char *const *host, const char *title,
             FILE *out);
void rep_html(const rep_profile *p, FILE *out);

#endif
