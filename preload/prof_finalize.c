/* At MPI_Finalize: every rank's rows, place and text lines, and each node leader's record of
 * its host's cores, are gathered to rank 0 (memory linear in the number of edges, no
 * all-to-all), which merges them and writes the profile. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_config.h"
#include "hc_log.h"
#include "prof.h"

/* This thread-merged view of the rank's edges, as rows (duplicates across threads allowed). */
static hc_prof_row *local_rows(long long *count, int *incomplete)
{
    long long n = 0;
    for (hc_prof_thread *t = hc_prof_threads; t; t = t->next) {
        n += (long long)t->edge_count;
        *incomplete |= t->oom;
    }
    hc_prof_row *rows = malloc(sizeof *rows * (size_t)(n ? n : 1));
    if (!rows) {
        *count = 0;
        *incomplete = 1;
        return NULL;
    }
    long long k = 0;
    for (hc_prof_thread *t = hc_prof_threads; t; t = t->next)
        for (size_t i = 0; i < t->edge_cap; i++) {
            const hc_prof_edge *e = &t->edges[i];
            if (!e->key)
                continue;
            rows[k].src = (e->key - 1) >> 32;
            rows[k].dst = (e->key - 1) & 0xffffffffu;
            memcpy(rows[k].bytes, e->bytes, sizeof e->bytes);
            memcpy(rows[k].msgs, e->msgs, sizeof e->msgs);
            k++;
        }
    *count = k;
    return rows;
}

static void local_text(hc_prof_buf *b, double npt)
{
    uint64_t calls[HC_PF_COUNT] = {0}, bytes[HC_PF_COUNT] = {0}, ticks[HC_PF_COUNT] = {0};
    for (hc_prof_thread *t = hc_prof_threads; t; t = t->next)
        for (int f = 0; f < HC_PF_COUNT; f++) {
            calls[f] += t->fn[f].calls;
            bytes[f] += t->fn[f].bytes;
            ticks[f] += t->fn[f].ticks;
        }
    for (int f = 0; f < HC_PF_COUNT; f++)
        if (calls[f])
            hc_prof_buf_printf(b, "F\t%d\t%s\t%llu\t%llu\t%.0f\n", hc_world_rank,
                               hc_prof_fn_name[f], (unsigned long long)calls[f],
                               (unsigned long long)bytes[f], (double)ticks[f] * npt);
    if (hc_prof_depth)
        hc_prof_site_dump(b, npt);
}

/* A node leader's record of its host's cores, packed for the gather (*len 0: none). */
static void *host_record(int host_leader, int *len)
{
    hc_host_topo t;
    *len = 0;
    if (!host_leader || hc_host_topo_load(&t, hc_host_info_get()->host) != 0)
        return NULL; /* rank 0 then maps this host with its own topology */
    size_t n = hc_host_topo_packed_size(&t);
    void *buf = n < INT_MAX / 2 ? malloc(n) : NULL;
    if (buf) {
        hc_host_topo_pack(&t, buf);
        *len = (int)n;
    }
    hc_host_topo_free(&t);
    return buf;
}

/* The gathered records, one after the other, as hosts (rank 0). */
static hc_host_topo *unpack_hosts(const char *p, long long n, int *nhosts)
{
    int cap = 0;
    hc_host_topo *hosts = NULL;
    *nhosts = 0;
    while (n > 0) {
        if (*nhosts == cap) {
            cap = cap ? 2 * cap : 8;
            hc_host_topo *h = realloc(hosts, sizeof *h * (size_t)cap);
            if (!h)
                break;
            hosts = h;
        }
        long used = hc_host_topo_unpack(&hosts[*nhosts], p, (size_t)n);
        if (used <= 0)
            break; /* cannot happen between ranks of one build; the rest is mapped as here */
        (*nhosts)++;
        p += used;
        n -= used;
    }
    return hosts;
}

static void fill_rank(hc_prof_rank *r, double npt, int incomplete, uint64_t began_ns)
{
    const hc_host_info *me = hc_host_info_get();
    memset(r, 0, sizeof *r);
    if (hc_cfg.virtual_node_size.i > 0)
        snprintf(r->host, sizeof r->host, "%.50s#%d", me->host, hc_virtual_node());
    else
        snprintf(r->host, sizeof r->host, "%s", me->host);
    r->core = me->core;
    r->numa = me->numa;
    r->incomplete = incomplete;
    uint64_t ticks = 0;
    for (hc_prof_thread *t = hc_prof_threads; t; t = t->next)
        for (int f = 0; f < HC_PF_COUNT; f++) {
            r->calls += t->fn[f].calls;
            ticks += t->fn[f].ticks;
        }
    r->mpi_ns = (uint64_t)((double)ticks * npt);
    hc_prof_own_time(r->calls, began_ns, &r->run_ns, &r->record_ns, &r->record_per_call_ns);
}

static int row_cmp(const void *a, const void *b)
{
    const hc_prof_row *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* Sorts by (src, dst) and sums duplicates in place; returns the new count. */
static long long merge_rows(hc_prof_row *rows, long long n)
{
    if (n <= 0)
        return 0;
    qsort(rows, (size_t)n, sizeof *rows, row_cmp);
    long long k = 0;
    for (long long i = 1; i < n; i++) {
        if (rows[i].src == rows[k].src && rows[i].dst == rows[k].dst) {
            for (int c = 0; c < HC_PK_COUNT; c++) {
                rows[k].bytes[c] += rows[i].bytes[c];
                rows[k].msgs[c] += rows[i].msgs[c];
            }
        } else {
            rows[++k] = rows[i];
        }
    }
    return k + 1;
}

static void free_threads(void)
{
    hc_prof_thread *t = hc_prof_threads;
    while (t) {
        hc_prof_thread *next = t->next;
        free(t->edges);
        free(t->sites);
        free(t);
        t = next;
    }
    hc_prof_threads = NULL;
    hc_prof_self = NULL;
}

void hc_prof_finalize(const char *learned, uint64_t began_ns)
{
    if (!hc_prof_on)
        return;
    hc_prof_on = 0; /* from here on our own PMPI traffic and the user's threads are not counted */
    hc_prof_calibrate();
    double npt = hc_prof_ns_per_tick();
    int n = hc_world_size, root = hc_world_rank == 0;

    /* Local part. */
    MPI_Comm node;
    int local_rank = 0;
    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    PMPI_Comm_rank(node, &local_rank);
    PMPI_Comm_free(&node);
    int incomplete = 0;
    long long nrows = 0;
    hc_prof_row *rows = local_rows(&nrows, &incomplete);
    hc_prof_buf text = {0};
    local_text(&text, npt);
    int topo_len;
    void *topo = host_record(local_rank == 0, &topo_len);
    hc_prof_rank me;
    fill_rank(&me, npt, incomplete | text.oom, began_ns);
    /* Beyond what an int count can carry, send nothing rather than fail the gather. */
    if (text.oom || text.len > INT_MAX / 2) {
        text.len = 0;
        me.incomplete = 1;
    }
    if (nrows > INT_MAX / 2) {
        nrows = 0;
        me.incomplete = 1;
    }

    /* Sizes first, so rank 0 allocates once. Agreed failure: a rank 0 that cannot allocate
     * tells everyone to send nothing. */
    int counts[3] = {(int)nrows, (int)text.len, topo_len}, *all_counts = NULL;
    hc_prof_rank *ranks = NULL;
    if (root) {
        all_counts = malloc(sizeof(int) * 3 * (size_t)n);
        ranks = malloc(sizeof *ranks * (size_t)n);
    }
    PMPI_Gather(counts, 3, MPI_INT, all_counts, 3, MPI_INT, 0, MPI_COMM_WORLD);
    PMPI_Gather(&me, (int)sizeof me, MPI_BYTE, ranks, (int)sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD);

    int *rcount = NULL, *rdispl = NULL, *tcount = NULL, *tdispl = NULL, *hcount = NULL,
        *hdispl = NULL;
    hc_prof_row *all_rows = NULL;
    char *all_text = NULL, *all_topo = NULL;
    long long total_rows = 0, total_text = 0, total_topo = 0;
    int ok = 1;
    if (root) {
        rcount = malloc(sizeof(int) * (size_t)n);
        rdispl = malloc(sizeof(int) * (size_t)n);
        tcount = malloc(sizeof(int) * (size_t)n);
        tdispl = malloc(sizeof(int) * (size_t)n);
        hcount = malloc(sizeof(int) * (size_t)n);
        hdispl = malloc(sizeof(int) * (size_t)n);
        ok = all_counts && ranks && rcount && rdispl && tcount && tdispl && hcount && hdispl;
        for (int r = 0; ok && r < n; r++) {
            rcount[r] = all_counts[3 * r];
            tcount[r] = all_counts[3 * r + 1];
            hcount[r] = all_counts[3 * r + 2];
            rdispl[r] = (int)total_rows;
            tdispl[r] = (int)total_text;
            hdispl[r] = (int)total_topo;
            total_rows += rcount[r];
            total_text += tcount[r];
            total_topo += hcount[r];
        }
        ok = ok && total_rows < INT_MAX && total_text < INT_MAX && total_topo < INT_MAX;
        if (ok) {
            all_rows = malloc(sizeof *all_rows * (size_t)(total_rows ? total_rows : 1));
            all_text = malloc((size_t)total_text + 1);
            all_topo = malloc((size_t)total_topo + 1);
            ok = all_rows && all_text && all_topo;
        }
        if (!ok)
            hc_warn("profile not written: out of memory gathering %lld rows", total_rows);
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (ok) {
        MPI_Datatype row_type;
        PMPI_Type_contiguous((int)(sizeof(hc_prof_row) / sizeof(uint64_t)), MPI_UINT64_T, &row_type);
        PMPI_Type_commit(&row_type);
        PMPI_Gatherv(rows, (int)nrows, row_type, all_rows, rcount, rdispl, row_type, 0,
                     MPI_COMM_WORLD);
        PMPI_Type_free(&row_type);
        PMPI_Gatherv(text.p, (int)text.len, MPI_CHAR, all_text, tcount, tdispl, MPI_CHAR, 0,
                     MPI_COMM_WORLD);
        PMPI_Gatherv(topo, topo_len, MPI_BYTE, all_topo, hcount, hdispl, MPI_BYTE, 0,
                     MPI_COMM_WORLD);
    }
    if (root && ok) {
        all_text[total_text] = 0;
        hc_prof_data d = {.nranks = n,
                          .rows = all_rows,
                          .nrows = merge_rows(all_rows, total_rows),
                          .ranks = ranks,
                          .text = all_text,
                          .text_len = (size_t)total_text,
                          .learned = learned,
                          .finalize_t0_ns = began_ns};
        d.hosts = unpack_hosts(all_topo, total_topo, &d.nhosts);
        hc_prof_write(hc_cfg.profile.s, &d);
        for (int h = 0; h < d.nhosts; h++)
            hc_host_topo_free(&d.hosts[h]);
        free(d.hosts);
    }
    free(all_counts);
    free(ranks);
    free(rcount);
    free(rdispl);
    free(tcount);
    free(tdispl);
    free(hcount);
    free(hdispl);
    free(all_rows);
    free(all_text);
    free(all_topo);
    free(topo);
    free(rows);
    free(text.p);
    free_threads();
}
