/* hiercoll-commperf: latency and bandwidth between two ranks at every level of the machine
 * hierarchy present in this job (same NUMA domain, same package, same node, other node), written
 * as the machine file the mapping reads (docs/formats.md, "machine-perf"):
 *
 *   # hiercoll machine-perf v1
 *   level network latency_us 2.51 bandwidth_Bps 4.1e+09
 *   level numa latency_us 0.42 bandwidth_Bps 9.8e+09
 *
 * Levels are listed from the top. HIERCOLL_VIRTUAL_NODE_SIZE=k makes ranks of different virtual
 * nodes count as "other node", so the file can be produced (and tested) on one machine.
 * Each rank is bound to a core of its host (local rank modulo the PUs) unless --no-bind; a pair
 * of processes sharing one core is never measured, since it would time the scheduler. */
#include <getopt.h>
#include <hwloc.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hc_config.h"

extern char **environ;

enum { LVL_NETWORK, LVL_NODE, LVL_PACKAGE, LVL_NUMA, NLEVELS };
static const char *level_names[NLEVELS] = {"network", "node", "package", "numa"};

typedef struct place {
    char host[64];  /* virtual node name when HIERCOLL_VIRTUAL_NODE_SIZE is set */
    char real[64];  /* the machine's own name */
    int core, package, numa;
} place;

typedef struct options {
    const char *out;
    int iters;
    long long size;
    int bind;
    int quiet; /* no table on stdout (hiercoll commperf --json) */
} options;

static int rank, nranks;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void locate(place *me, int vnode, int bind)
{
    memset(me, 0, sizeof *me);
    if (gethostname(me->real, sizeof me->real) != 0)
        strcpy(me->real, "unknown");
    me->real[sizeof me->real - 1] = 0;
    if (vnode > 0)
        snprintf(me->host, sizeof me->host, "%.40s#%d", me->real, rank / vnode);
    else
        snprintf(me->host, sizeof me->host, "%s", me->real);
    MPI_Comm local;
    int lrank;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &lrank);
    MPI_Comm_free(&local);

    hwloc_topology_t topo;
    hwloc_topology_init(&topo);
    hwloc_topology_load(topo);
    int npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    if (bind && npu > 0) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)(lrank % npu));
        if (hwloc_set_cpubind(topo, pu->cpuset, HWLOC_CPUBIND_PROCESS) != 0 && rank == 0)
            fprintf(stderr, "hiercoll-commperf: could not bind to a core; measuring unbound\n");
    }
    me->core = sched_getcpu();
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)(me->core < 0 ? 0 : me->core));
    hwloc_obj_t pkg = pu ? hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu) : NULL;
    hwloc_obj_t numa =
        pu ? hwloc_get_next_obj_covering_cpuset_by_type(topo, pu->cpuset, HWLOC_OBJ_NUMANODE, NULL)
           : NULL;
    me->package = pkg ? (int)pkg->logical_index : 0;
    me->numa = numa ? (int)numa->logical_index : 0;
    hwloc_topology_destroy(topo);
}

/* The level at which ranks a and b meet, or -1 when they share a core (not measurable). */
static int level_of(const place *a, const place *b)
{
    if (strcmp(a->real, b->real) == 0 && a->core == b->core)
        return -1;
    if (strcmp(a->host, b->host) != 0)
        return LVL_NETWORK;
    if (a->package != b->package)
        return LVL_NODE;
    if (a->numa != b->numa)
        return LVL_PACKAGE;
    return LVL_NUMA;
}

/* Ping-pong between a and b; median of half round trips in seconds. */
static double pingpong(int a, int b, char *buf, long long bytes, int iters)
{
    int peer = rank == a ? b : a;
    double *t = malloc(sizeof(double) * (size_t)iters);
    for (int i = -3; i < iters; i++) { /* three warm-up round trips */
        double t0 = MPI_Wtime();
        if (rank == a) {
            MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
        }
        if (i >= 0)
            t[i] = (MPI_Wtime() - t0) / 2;
    }
    qsort(t, (size_t)iters, sizeof *t, cmp_double);
    double m = t[iters / 2];
    free(t);
    return m;
}

/* Ranks not measuring wait here without spinning, so the measured pair has the cores. */
static void quiet_barrier(void)
{
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    int done = 0;
    struct timespec nap = {0, 200000};
    for (;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        nanosleep(&nap, NULL);
    }
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"out", required_argument, 0, 'o'},  {"iters", required_argument, 0, 'i'},
        {"size", required_argument, 0, 's'}, {"no-bind", no_argument, 0, 'n'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
    *o = (options){.out = "hiercoll-machine.txt", .iters = 200, .size = 4 << 20, .bind = 1};
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o->out = optarg; break;
        case 'i': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1000000)
                return fprintf(stderr, "hiercoll-commperf: bad --iters '%s'\n", optarg), 2;
            o->iters = (int)v;
            break;
        }
        case 's':
            if (hc_parse_size(optarg, &o->size) != 0 || o->size < 1 || o->size > (1LL << 30))
                return fprintf(stderr, "hiercoll-commperf: bad --size '%s'\n", optarg), 2;
            break;
        case 'n': o->bind = 0; break;
        case 'q': o->quiet = 1; break;
        case 'h':
            printf("usage: hiercoll-commperf [--out FILE] [--iters N] [--size BYTES] [--no-bind] [--quiet]\n"
                   "Run under mpiexec.mpich with at least 2 ranks; writes the machine-perf file.\n");
            return 1;
        default: return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc == 0 && nranks < 2) {
        if (rank == 0)
            fprintf(stderr, "hiercoll-commperf: needs at least 2 ranks\n");
        rc = 2;
    }
    static hc_config cfg;
    char err[512], warn[1024];
    if (rc == 0 && hc_config_load(&cfg, environ, err, sizeof err, warn, sizeof warn) != 0) {
        if (rank == 0)
            fprintf(stderr, "hiercoll-commperf: %s\n", err);
        rc = 2;
    }
    if (rc != 0) {
        MPI_Finalize();
        return rc == 1 ? 0 : rc;
    }
    int vnode = (int)cfg.virtual_node_size.i;

    place me, *all = malloc(sizeof(place) * (size_t)nranks);
    locate(&me, vnode, o.bind);
    MPI_Allgather(&me, sizeof me, MPI_BYTE, all, sizeof me, MPI_BYTE, MPI_COMM_WORLD);

    if (rank == 0 && cfg.verbose.i >= 1)
        for (int r = 0; r < nranks; r++)
            fprintf(stderr, "hiercoll-commperf: rank %d on %s (%s) core %d package %d numa %d\n", r,
                    all[r].host, all[r].real, all[r].core, all[r].package, all[r].numa);
    /* Every rank computes the same pairs from the same data: the first pair in rank order
     * meeting at each level. */
    int pa[NLEVELS], pb[NLEVELS], nfound = 0;
    for (int l = 0; l < NLEVELS; l++)
        pa[l] = pb[l] = -1;
    for (int a = 0; a < nranks && nfound < NLEVELS; a++)
        for (int b = a + 1; b < nranks && nfound < NLEVELS; b++) {
            int l = level_of(&all[a], &all[b]);
            if (l >= 0 && pa[l] < 0)
                pa[l] = a, pb[l] = b, nfound++;
        }
    if (nfound == 0) {
        if (rank == 0)
            fprintf(stderr, "hiercoll-commperf: every pair of ranks shares a core; nothing to "
                            "measure (use fewer ranks than cores, or HIERCOLL_VIRTUAL_NODE_SIZE)\n");
        MPI_Finalize();
        return 1;
    }

    char *buf = calloc(1, (size_t)o.size);
    double lat[NLEVELS] = {0}, bw[NLEVELS] = {0};
    int step = 0;
    int bw_iters = o.iters / 10 < 5 ? 5 : o.iters / 10;
    for (int l = 0; l < NLEVELS; l++) {
        if (pa[l] < 0)
            continue;
        step++;
        if (rank == 0)
            fprintf(stderr, "hiercoll-commperf: [%d/%d] %-7s ranks %d and %d (%s core %d, %s core %d)\n",
                    step, nfound, level_names[l], pa[l], pb[l], all[pa[l]].host, all[pa[l]].core,
                    all[pb[l]].host, all[pb[l]].core);
        double res[2] = {0, 0}, got[2];
        if (rank == pa[l] || rank == pb[l]) {
            res[0] = pingpong(pa[l], pb[l], buf, 8, o.iters);
            double t = pingpong(pa[l], pb[l], buf, o.size, bw_iters);
            res[1] = t > 0 ? (double)o.size / t : 0;
            if (rank == pb[l])
                res[0] = res[1] = 0; /* rank a reports */
        }
        quiet_barrier();
        MPI_Reduce(res, got, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        lat[l] = got[0] * 1e6;
        bw[l] = got[1];
        if (rank == 0)
            fprintf(stderr, "hiercoll-commperf:       latency %.2f us, bandwidth %.2f GB/s\n",
                    lat[l], bw[l] / 1e9);
    }

    rc = 0;
    if (rank == 0) {
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp.%d", o.out, (int)getpid());
        FILE *f = fopen(tmp, "w");
        if (!f) {
            perror(tmp);
            rc = 1;
        } else {
            fprintf(f, "# hiercoll machine-perf v1\n");
            fprintf(f, "# hiercoll-commperf: %d ranks, virtual node size %d, latency of 8 B and "
                       "bandwidth of %lld B ping-pongs, medians of %d and %d\n",
                    nranks, vnode, o.size, o.iters, bw_iters);
            for (int l = 0; l < NLEVELS; l++) {
                if (pa[l] < 0)
                    continue;
                fprintf(f, "# %s: ranks %d (%s core %d) and %d (%s core %d)\n", level_names[l],
                        pa[l], all[pa[l]].host, all[pa[l]].core, pb[l], all[pb[l]].host,
                        all[pb[l]].core);
                fprintf(f, "level %s latency_us %.3f bandwidth_Bps %.6g\n", level_names[l],
                        lat[l], bw[l]);
            }
            if (fclose(f) != 0 || rename(tmp, o.out) != 0) {
                perror(o.out);
                unlink(tmp);
                rc = 1;
            }
        }
        if (rc == 0 && !o.quiet) {
            printf("level     latency_us  bandwidth_GB/s  ranks\n");
            for (int l = 0; l < NLEVELS; l++)
                if (pa[l] >= 0)
                    printf("%-8s %11.2f %15.2f  %d,%d\n", level_names[l], lat[l], bw[l] / 1e9,
                           pa[l], pb[l]);
            printf("machine file: %s\n", o.out);
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(buf);
    free(all);
    MPI_Finalize();
    return rc;
}
