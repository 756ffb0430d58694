/* At MPI_Finalize: every rank's rows, place and text lines, and each node leader's record of
 * its host's cores, are gathered to rank 0 (memory linear in the number of edges, no
 * all-to-all), which merges them and writes the profile. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hc_config.h"
#include "hc_log.h"
#include "hc_shm.h"
#include "learn_save.h"
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
            memcpy(rows[k].odd, e->odd, sizeof e->odd);
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
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    r->host_cpus = cpus > 0 && cpus < INT_MAX ? (int)cpus : 1;
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
                rows[k].odd[c] += rows[i].odd[c];
            }
        } else {
            rows[++k] = rows[i];
        }
    }
    return k + 1;
}

/* The tuning file of what every rank learned, on rank 0 (collective over MPI_COMM_WORLD). */
static char *learned_file(void)
{
    char *lines = hc_learn_gather(MPI_COMM_WORLD), *text = NULL;
    if (lines) {
        char date[32];
        time_t now = time(NULL);
        strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
        text = hc_learn_file_text(lines, date);
        free(lines);
    }
    return text;
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

void hc_prof_finalize(uint64_t began_ns)
{
    if (!hc_prof_on)
        return;
    hc_prof_on = 0; /* from here on our own PMPI traffic and the user's threads are not counted */
    hc_prof_calibrate();
    double npt = hc_prof_ns_per_tick();
    int n = hc_world_size, root = hc_world_rank == 0;

    /* Local part. The node's first rank describes its host: found at MPI_Init (a new
     * communicator here cost MPICH 40-80 ms with more ranks than cores); where that failed,
     * rank 0 maps every host with its own cores. */
    int host_leader = hc_shm_node_rank() == 0 || (hc_shm_node_rank() < 0 && root);
    int incomplete = 0;
    long long nrows = 0;
    hc_prof_row *rows = local_rows(&nrows, &incomplete);
    hc_prof_buf text = {0};
    local_text(&text, npt);
    int topo_len;
    void *topo = host_record(host_leader, &topo_len);
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

    /* Each rank's sizes travel in its record, so rank 0 allocates once; then its rows, and
     * its text lines followed by its host's record as one run of bytes. Every collective
     * here costs milliseconds where ranks outnumber cores: as few as can carry it. Agreed
     * failure: a rank 0 that cannot allocate tells everyone to send nothing. */
    me.nrows = (int)nrows;
    me.text_len = (int)text.len;
    me.topo_len = topo_len;
    if (topo_len)
        hc_prof_buf_append(&text, topo, (size_t)topo_len);
    if (text.oom) { /* no room for the host's record: the text alone */
        me.topo_len = 0;
        text.oom = 0;
    }
    hc_prof_rank *ranks = root ? malloc(sizeof *ranks * (size_t)n) : NULL;
    /* What the profiler's finalize costs is each rank's part so far (the slowest's counts)
     * and rank 0's from here on: the wait for the last rank to reach MPI_Finalize in between
     * is the program's (the job ends with its last rank either way). */
    me.local_ns = hc_now_ns() - began_ns;
    PMPI_Gather(&me, (int)sizeof me, MPI_BYTE, ranks, (int)sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD);
    uint64_t gathered_ns = hc_now_ns();
    char *learned = learned_file();

    int *rcount = NULL, *rdispl = NULL, *bcount = NULL, *bdispl = NULL;
    hc_prof_row *all_rows = NULL;
    char *all_bytes = NULL, *all_text = NULL, *all_topo = NULL;
    long long total_rows = 0, total_text = 0, total_topo = 0;
    int ok = 1;
    if (root) {
        rcount = malloc(sizeof(int) * (size_t)n);
        rdispl = malloc(sizeof(int) * (size_t)n);
        bcount = malloc(sizeof(int) * (size_t)n);
        bdispl = malloc(sizeof(int) * (size_t)n);
        ok = ranks && rcount && rdispl && bcount && bdispl;
        for (int r = 0; ok && r < n; r++) {
            rcount[r] = ranks[r].nrows;
            bcount[r] = ranks[r].text_len + ranks[r].topo_len;
            rdispl[r] = (int)total_rows;
            bdispl[r] = (int)(total_text + total_topo);
            total_rows += rcount[r];
            total_text += ranks[r].text_len;
            total_topo += ranks[r].topo_len;
        }
        ok = ok && total_rows < INT_MAX && total_text + total_topo < INT_MAX;
        if (ok) {
            all_rows = malloc(sizeof *all_rows * (size_t)(total_rows ? total_rows : 1));
            all_bytes = malloc((size_t)(total_text + total_topo) + 1);
            all_text = malloc((size_t)total_text + 1);
            all_topo = malloc((size_t)total_topo + 1);
            ok = all_rows && all_bytes && all_text && all_topo;
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
        PMPI_Gatherv(text.p, me.text_len + me.topo_len, MPI_BYTE, all_bytes, bcount, bdispl,
                     MPI_BYTE, 0, MPI_COMM_WORLD);
    }
    if (root && ok) { /* every rank's text lines together, and the hosts' records together */
        char *t = all_text, *h = all_topo;
        for (int r = 0; r < n; r++) {
            memcpy(t, all_bytes + bdispl[r], (size_t)ranks[r].text_len);
            memcpy(h, all_bytes + bdispl[r] + ranks[r].text_len, (size_t)ranks[r].topo_len);
            t += ranks[r].text_len;
            h += ranks[r].topo_len;
        }
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
                          .finalize_t0_ns = began_ns,
                          .gathered_ns = gathered_ns};
        d.hosts = unpack_hosts(all_topo, total_topo, &d.nhosts);
        hc_prof_write(hc_cfg.profile.s, &d);
        for (int h = 0; h < d.nhosts; h++)
            hc_host_topo_free(&d.hosts[h]);
        free(d.hosts);
    }
    free(ranks);
    free(rcount);
    free(rdispl);
    free(bcount);
    free(bdispl);
    free(all_rows);
    free(all_bytes);
    free(all_text);
    free(all_topo);
    free(topo);
    free(rows);
    free(text.p);
    free(learned);
    free_threads();
}
