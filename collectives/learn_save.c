/* What this run learned, kept for the next (seed 004's save-then-reuse): when a
 * communicator's state is freed its learned choices become records here; at finalize rank 0
 * gathers every rank's records into tuning-file rules (docs/tuning.md, version 2), which the
 * profile directory keeps as tuning.txt and next-run.sh passes back as HIERCOLL_TUNING.
 *
 * Saved: the broadcast's choices of a root for its own node (keyed by the root's call site and
 * rank: in the next run the same rank decides again) and the allreduce's (identical on every
 * rank: rank 0's). A key still warming up has learned nothing and is not saved. */
#include "learn_save.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_algos.h"
#include "hc_config.h"
#include "hc_site.h"

typedef struct record {
    char key[800];  /* the rule without algorithm and measurements: what makes it unique */
    char line[1200]; /* the whole rule */
    uint64_t calls;
} record;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static record *records;
static int nrecords, cap;

/* "64K-128K" for the size class k ([2^k, 2^(k+1)) bytes). */
static void class_range(int k, char *out, size_t len)
{
    char lo[24], hi[24];
    hc_format_size(1LL << k, lo, sizeof lo);
    hc_format_size(2LL << k, hi, sizeof hi);
    snprintf(out, len, "%s-%s", lo, hi);
}

static void keep(const record *r)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nrecords; i++)
        if (strcmp(records[i].key, r->key) == 0) {
            if (r->calls > records[i].calls) /* the most used communicator of that shape */
                records[i] = *r;
            pthread_mutex_unlock(&lock);
            return;
        }
    if (nrecords == cap) {
        int ncap = cap ? 2 * cap : 32;
        record *grown = realloc(records, sizeof *grown * (size_t)ncap);
        if (!grown) { /* lose this record, keep the rest: the next run relearns it */
            pthread_mutex_unlock(&lock);
            return;
        }
        records = grown;
        cap = ncap;
    }
    records[nrecords++] = *r;
    pthread_mutex_unlock(&lock);
}

void hc_learn_keep(int coll, const hc_comm *c, const hc_learn_entry *e)
{
    if (e->phase == HC_LEARN_WARM && e->origin != HC_ORIGIN_SAVED)
        return; /* nothing learned: a key called a handful of times */
    /* a step taken ahead, and quiet calls counted at once, are no calls yet */
    record r = {.calls = e->calls - (e->ahead >= 0) - e->quiet};
    char range[64], site[512] = "", head[128], opts[600] = "";
    class_range(e->key.sclass, range, sizeof range);
    snprintf(head, sizeof head, "%s %s %d %d", hc_coll_name(coll), range, c->size, c->num_nodes);
    if (coll == HC_COLL_BCAST) {
        hc_site_key(e->key.site, site, sizeof site);
        snprintf(opts, sizeof opts, " site=%s root=%d", site, e->key.root);
    }
    /* Allreduce ops and element sizes of one size class share the rule: the most called
     * wins (keep); where rank 0 called it from is told, not matched (every rank must agree). */
    snprintf(r.key, sizeof r.key, "%s%s", head, opts);
    int at = snprintf(r.line, sizeof r.line, "%s %s%s from=learned calls=%llu", head,
                      hc_algo(coll, e->cand[e->current])->name, opts,
                      (unsigned long long)r.calls);
    if (coll == HC_COLL_ALLREDUCE && e->seen_site) {
        hc_site_key(e->seen_site, site, sizeof site);
        at += snprintf(r.line + at, sizeof r.line - (size_t)at, " seen=%s", site);
    }
    const char *sep = " times=";
    for (int i = 0; i < e->ncand && at < (int)sizeof r.line; i++)
        if (e->time[i] > 0 && !((e->borrowed >> i) & 1u)) { /* what this key measured */
            at += snprintf(r.line + at, sizeof r.line - (size_t)at, "%s%s:%.2f", sep,
                           hc_algo(coll, e->cand[i])->name, e->time[i]);
            sep = ",";
        }
    /* The reader takes sites up to 247 characters and lines up to 512: a longer module path
     * would make the whole file unreadable to the next run, so its rule is left out. */
    if (strlen(site) >= 248 || strlen(r.line) >= 500)
        return;
    keep(&r);
}

/* Records sorted by their rule's key, so the file reads in order of collective and size. */
static int by_key(const void *a, const void *b)
{
    return strcmp(((const record *)a)->key, ((const record *)b)->key);
}

char *hc_learn_gather(MPI_Comm world)
{
    int rank, size;
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &size);
    pthread_mutex_lock(&lock);
    size_t len = 0;
    for (int i = 0; i < nrecords; i++)
        len += strlen(records[i].line) + 1;
    char *mine = malloc(len + 1), *all = NULL;
    size_t at = 0;
    for (int i = 0; mine && i < nrecords; i++)
        at += (size_t)sprintf(mine + at, "%s\n", records[i].line);
    pthread_mutex_unlock(&lock);
    int n = mine ? (int)at : 0, *counts = NULL, *displs = NULL, total = 0;
    if (rank == 0) {
        counts = calloc((size_t)size, sizeof *counts);
        displs = calloc((size_t)size, sizeof *displs);
    }
    PMPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, world);
    if (rank == 0 && counts && displs) {
        for (int r = 0; r < size; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all = malloc((size_t)total + 1);
    }
    /* Every rank takes part even when rank 0 ran out of memory: it then keeps nothing. */
    PMPI_Gatherv(mine, n, MPI_CHAR, all, counts, displs, MPI_CHAR, 0, world);
    free(mine);
    free(counts);
    free(displs);
    if (!all)
        return NULL;
    all[total] = 0;
    return all;
}

/* Rank 0: the gathered lines as one file, duplicates (the same key from several
 * communicators) merged, most calls first among equals. */
char *hc_learn_file_text(char *lines, const char *date)
{
    record *tab = NULL;
    int n = 0, cap_tab = 0;
    for (char *save = NULL, *l = strtok_r(lines, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (n == cap_tab) {
            cap_tab = cap_tab ? 2 * cap_tab : 32;
            record *grown = realloc(tab, sizeof *grown * (size_t)cap_tab);
            if (!grown)
                break;
            tab = grown;
        }
        record r = {0};
        snprintf(r.line, sizeof r.line, "%s", l);
        const char *c = strstr(l, " calls=");
        r.calls = c ? strtoull(c + 7, NULL, 10) : 0;
        /* the key: the rule without its algorithm (fifth field) and measurements */
        char f[5][128] = {{0}};
        const char *site = strstr(l, " site="), *root = strstr(l, " root=");
        sscanf(l, "%127s %127s %127s %127s %127s", f[0], f[1], f[2], f[3], f[4]);
        snprintf(r.key, sizeof r.key, "%s %s %s %s %.*s %.*s", f[0], f[1], f[2], f[3],
                 site ? (int)strcspn(site + 1, " ") : 0, site ? site + 1 : "",
                 root ? (int)strcspn(root + 1, " ") : 0, root ? root + 1 : "");
        int dup = -1;
        for (int i = 0; i < n && dup < 0; i++)
            if (strcmp(tab[i].key, r.key) == 0)
                dup = i;
        if (dup < 0)
            tab[n++] = r;
        else if (r.calls > tab[dup].calls)
            tab[dup] = r;
    }
    qsort(tab, (size_t)n, sizeof *tab, by_key);
    size_t len = 1024;
    for (int i = 0; i < n; i++)
        len += strlen(tab[i].line) + 1;
    char *text = malloc(len);
    if (text) {
        size_t at = (size_t)snprintf(
            text, len,
            "hiercoll-tuning 2\n"
            "# Learned by a run on %s (HIERCOLL_LEARN): per call site, root and size class the\n"
            "# algorithm that was fastest on the program's own calls; times= are the medians\n"
            "# measured (microseconds). HIERCOLL_TUNING=this file starts the next run from them,\n"
            "# and it keeps checking (docs/tuning.md).\n"
            "# collective  bytes  ranks  nodes  algorithm  options\n",
            date);
        for (int i = 0; i < n; i++)
            at += (size_t)snprintf(text + at, len - at, "%s\n", tab[i].line);
    }
    free(tab);
    return text;
}
