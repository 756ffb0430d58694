/* Broadcast and allreduce across the hosts of a cluster (tests/e2e/cluster_collectives.sh),
 * run under libhiercoll: every result compared element by element with the value computed
 * here and with the vendor's result on a duplicate that always takes the vendor's path.
 * Communicators: the world (launched with as many ranks on every host, in host order);
 * "uneven", up to 3 ranks of rank 0's host and the first of the last rank's host;
 * "interleaved", all ranks in an order that alternates the hosts (nodes not made of
 * consecutive ranks). Each runs the broadcast's built-in choice, queue and single copy with
 * the leaders' step between hosts, and the allreduce's built-in choice (small vectors: node,
 * then recursive doubling among the leaders, then node; from 64 KiB the ring), point-to-point
 * ring and lattice, on duplicates with info keys.
 * Rank 0 prints the hosts it sees, so the script can compare them with the nodes hiercoll
 * reports (HIERCOLL_VERBOSE); the last line is hc_mpitest.h's count of failed checks. */
#include <unistd.h>

#include "hc_mpitest.h"

static int host_of[1024]; /* world rank -> index of its host, in order of first rank */
static int nhosts;

static void find_hosts(void)
{
    char mine[64] = {0}, *all = malloc(64 * (size_t)hc_t_size);
    gethostname(mine, sizeof mine - 1);
    MPI_Allgather(mine, 64, MPI_CHAR, all, 64, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < hc_t_size; r++) {
        int h = 0;
        while (h < r && strcmp(all + 64 * h, all + 64 * r) != 0)
            h++;
        host_of[r] = h == r ? nhosts++ : host_of[h];
    }
    if (hc_t_rank == 0) {
        printf("world: %d ranks on %d hosts:", hc_t_size, nhosts);
        for (int r = 0; r < hc_t_size; r++)
            printf(" %s", all + 64 * r);
        printf("\n");
    }
    free(all);
}

/* The broadcast of bytes from root, through each of the algorithms on comms[] (duplicates
 * of one communicator with hiercoll's info keys) and through the vendor on ref: every reader
 * ends with the root's fill, the vendor's result, and an untouched guard byte. */
static void bcast_case(MPI_Comm *comms, const char **algos, int nalgos, MPI_Comm ref,
                       size_t bytes, int root, uint64_t seed, const char *name)
{
    int rank;
    MPI_Comm_rank(ref, &rank);
    unsigned char *got = malloc(bytes + 1), *want = malloc(bytes + 1), *vend = malloc(bytes + 1);
    hc_t_fill(want, bytes, seed);
    if (rank == root)
        memcpy(vend, want, bytes);
    else
        hc_t_fill(vend, bytes, seed + 2);
    MPI_Bcast(vend, (int)bytes, MPI_BYTE, root, ref);
    for (int a = 0; a < nalgos; a++) {
        if (rank == root)
            memcpy(got, want, bytes);
        else
            hc_t_fill(got, bytes, seed + 1 + (uint64_t)rank);
        got[bytes] = 0xA5;
        MPI_Bcast(got, (int)bytes, MPI_BYTE, root, comms[a]);
        long d = hc_t_first_diff(got, want, bytes), dv = hc_t_first_diff(got, vend, bytes);
        HC_T_CHECK(d < 0 && dv < 0 && got[bytes] == 0xA5,
                   "%s bcast %s: %zu bytes from root %d: byte %ld differs from the root's, %ld "
                   "from the vendor's, guard %s", name, algos[a], bytes, root, d, dv,
                   got[bytes] == 0xA5 ? "kept" : "overwritten");
    }
    free(got), free(want), free(vend);
}

/* A strided column on the root against contiguous ints on the readers: packed segment by
 * segment on both sides of the leaders' step. */
static void bcast_typed(MPI_Comm comm, MPI_Comm ref, int root, const char *what)
{
    int rank, n = 200003;
    MPI_Comm_rank(comm, &rank);
    MPI_Datatype col;
    MPI_Type_vector(n, 1, 2, MPI_INT, &col);
    MPI_Type_commit(&col);
    int *src = malloc(sizeof(int) * 2 * (size_t)n), *got = malloc(sizeof(int) * (size_t)n);
    int *vend = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < 2 * n; i++)
        src[i] = i % 2 ? -1 : i * 3 + root;
    if (rank == root) {
        MPI_Bcast(src, 1, col, root, comm);
        MPI_Bcast(src, 1, col, root, ref);
    } else {
        for (int i = 0; i < n; i++)
            got[i] = vend[i] = -2;
        MPI_Bcast(got, n, MPI_INT, root, comm);
        MPI_Bcast(vend, n, MPI_INT, root, ref);
        int bad = -1;
        for (int i = 0; i < n && bad < 0; i++)
            if (got[i] != 6 * i + root || got[i] != vend[i])
                bad = i;
        HC_T_CHECK(bad < 0, "%s: column from root %d: int %d differs", what, root, bad);
    }
    free(src), free(got), free(vend);
    MPI_Type_free(&col);
}

/* The broadcast's built-in choice, its queue and its single copy (info keys), every root for
 * small messages: from 1 MiB `auto` starts on the single copy, so the queue's segments across
 * hosts need a communicator of their own. */
static void bcasts(MPI_Comm comm, const char *name)
{
    int size;
    MPI_Comm_size(comm, &size);
    MPI_Comm ref = hc_t_vendor_dup(comm);
    const char *algos[] = {"auto", "shm", "shm-cma"};
    MPI_Comm comms[3] = {hc_t_algo_dup(comm, "", ""), hc_t_algo_dup(comm, "shm", ""),
                         hc_t_algo_dup(comm, "shm-cma", "")};
    /* 48/49: the last message on a control cell's first line and the first on its second;
     * 112/113: the largest in a cell and the first beyond (HC_BCELL_INLINE_MAX); 32 KiB + 1:
     * past a fragment; 512 KiB + 1: past a segment of the leaders' step; 3 MiB: several
     * segments. */
    const size_t sizes[] = {0,    1,    48,   49, 112, 113, 4096, (32u << 10) + 1, (512u << 10) + 1,
                            (3u << 20) + 5};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int root = 0; root < size; root++) {
            /* Large messages from the first and the last rank only (two hosts). */
            if (sizes[k] > 100000 && root != 0 && root != size - 1)
                continue;
            bcast_case(comms, algos, 3, ref, sizes[k], root, 1000 * k + (size_t)root, name);
        }
    char what[64];
    for (int a = 0; a < 3; a++) {
        snprintf(what, sizeof what, "%s bcast %s", name, algos[a]);
        bcast_typed(comms[a], ref, size - 1, what);
        MPI_Comm_free(&comms[a]);
    }
    MPI_Comm_free(&ref);
}

/* Integer-valued doubles (sums exact in any order) and ints, from the world rank, so every
 * rank can compute every other's contribution. */
static double dval(int wrank, int64_t i, int seed) { return (double)((i * 7 + wrank * 13 + seed) % 1001) - 500; }
static int ival(int wrank, int64_t i, int seed) { return (int)((i * 31 + wrank * 977 + seed) % 100003); }

/* count doubles summed and count ints reduced with MAX (in place when in_place) through each
 * algorithm on comms[], compared with the exact values and bit for bit with the vendor's. */
static void allreduce_case(MPI_Comm *comms, const char **algos, int nalgos, MPI_Comm ref,
                           const int *wranks, int64_t count, int in_place, int seed,
                           const char *name)
{
    int size, rank;
    MPI_Comm_size(ref, &size);
    MPI_Comm_rank(ref, &rank);
    size_t n = (size_t)count + 1;
    double *din = malloc(sizeof(double) * n), *dout = malloc(sizeof(double) * n);
    double *dvend = malloc(sizeof(double) * n), *dwant = malloc(sizeof(double) * n);
    int *iin = malloc(sizeof(int) * n), *iout = malloc(sizeof(int) * n);
    int *ivend = malloc(sizeof(int) * n), *iwant = malloc(sizeof(int) * n);
    for (int64_t i = 0; i < count; i++) {
        din[i] = dval(wranks[rank], i, seed);
        iin[i] = ival(wranks[rank], i, seed);
        dwant[i] = 0;
        iwant[i] = -1;
        for (int r = 0; r < size; r++) {
            dwant[i] += dval(wranks[r], i, seed);
            int v = ival(wranks[r], i, seed);
            iwant[i] = v > iwant[i] ? v : iwant[i];
        }
    }
    MPI_Allreduce(din, dvend, (int)count, MPI_DOUBLE, MPI_SUM, ref);
    MPI_Allreduce(iin, ivend, (int)count, MPI_INT, MPI_MAX, ref);
    for (int a = 0; a < nalgos; a++) {
        if (in_place) {
            memcpy(dout, din, sizeof(double) * (size_t)count);
            memcpy(iout, iin, sizeof(int) * (size_t)count);
        }
        dout[count] = -1e300;
        iout[count] = -77;
        MPI_Allreduce(in_place ? MPI_IN_PLACE : din, dout, (int)count, MPI_DOUBLE, MPI_SUM, comms[a]);
        MPI_Allreduce(in_place ? MPI_IN_PLACE : iin, iout, (int)count, MPI_INT, MPI_MAX, comms[a]);
        int64_t bad = -1;
        for (int64_t i = 0; i < count && bad < 0; i++)
            if (dout[i] != dwant[i] || memcmp(&dout[i], &dvend[i], sizeof(double)) ||
                iout[i] != iwant[i] || iout[i] != ivend[i])
                bad = i;
        HC_T_CHECK(bad < 0 && dout[count] == -1e300 && iout[count] == -77,
                   "%s allreduce %s: count %lld%s: element %lld differs from the exact or the "
                   "vendor's value, or the guard changed", name, algos[a], (long long)count,
                   in_place ? " in place" : "", (long long)bad);
    }
    free(din), free(dout), free(dvend), free(dwant);
    free(iin), free(iout), free(ivend), free(iwant);
}

/* The allreduce's built-in choice, the lattice and the point-to-point ring (info keys). On
 * a communicator whose nodes are not consecutive ranks of equal number, the lattice is one
 * ring: only the built-in choice and the point-to-point ring are run. */
static void allreduces(MPI_Comm comm, int regular, const char *name)
{
    int size;
    MPI_Comm_size(comm, &size);
    int *wranks = malloc(sizeof(int) * (size_t)size);
    MPI_Allgather(&hc_t_rank, 1, MPI_INT, wranks, 1, MPI_INT, comm);
    MPI_Comm ref = hc_t_vendor_dup(comm);
    const char *algos[] = {"auto", "ring1d", "ring"};
    int nalgos = regular ? 3 : 2;
    MPI_Comm comms[3];
    for (int a = 0; a < nalgos; a++)
        comms[a] = hc_t_algo_dup(comm, "", a ? algos[a] : "");
    /* 1000 doubles: below 8 KiB, the leaders' recursive doubling on every shape; 8191 / 8192
     * doubles: either side of 64 KiB, where the small vectors' path gives way to the ring on
     * two hosts (with more, the ring takes over at HC_VENDOR_AR_DOUBLING_BELOW); 131075:
     * 1 MiB and packets beyond; 393219: 3 MiB. */
    const int64_t counts[] = {0, 1, size + 1, 1000, 8191, 8192, 131075, 393219};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        allreduce_case(comms, algos, nalgos, ref, wranks, counts[k], (int)k % 2, (int)(100 * k), name);
    for (int a = 0; a < nalgos; a++)
        MPI_Comm_free(&comms[a]);
    MPI_Comm_free(&ref);
    free(wranks);
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    if (hc_t_size > 1024)
        MPI_Abort(MPI_COMM_WORLD, 2);
    find_hosts();
    int last = host_of[hc_t_size - 1], on_first = 0;
    for (int r = 0; r < hc_t_rank; r++)
        on_first += host_of[r] == host_of[0];
    /* uneven: the first 3 ranks of rank 0's host and the first of the last rank's host */
    int first_of_last = 0;
    while (host_of[first_of_last] != last)
        first_of_last++;
    int in_uneven = (host_of[hc_t_rank] == host_of[0] && on_first < 3) ||
                    (last != host_of[0] && hc_t_rank == first_of_last);
    /* interleaved: the i-th rank of every host, then the (i+1)-th, ... */
    int index_on_host = 0;
    for (int r = 0; r < hc_t_rank; r++)
        index_on_host += host_of[r] == host_of[hc_t_rank];
    MPI_Comm uneven, inter;
    MPI_Comm_split(MPI_COMM_WORLD, in_uneven ? 0 : MPI_UNDEFINED, hc_t_rank, &uneven);
    MPI_Comm_split(MPI_COMM_WORLD, 0, index_on_host * nhosts + host_of[hc_t_rank], &inter);

    bcasts(MPI_COMM_WORLD, "world");
    allreduces(MPI_COMM_WORLD, 1, "world");
    if (uneven != MPI_COMM_NULL) {
        bcasts(uneven, "uneven");
        allreduces(uneven, 0, "uneven");
        MPI_Comm_free(&uneven);
    }
    bcasts(inter, "interleaved");
    allreduces(inter, 0, "interleaved");
    MPI_Comm_free(&inter);
    return hc_t_finish();
}
