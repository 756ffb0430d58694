/* Shared segments handed from a freed communicator to the next one of the same ranks
 * (collectives/hc_shm.h): results stay exact whoever held the segment before, and a segment
 * goes only to exactly the ranks, in the same order, that gave it back.
 *   1. A duplicate of MPI_COMM_WORLD, used and freed, then another: the second maps no new
 *      segment (the memfds this process maps, by inode, are the same set).
 *   2. The same ranks in reverse order: a segment of their own, not the one given back.
 *   3. (3+ ranks) Ranks 0-1 free a communicator, then every rank but 0 frees more
 *      communicators at once than a process keeps: rank 1 no longer holds what rank 0
 *      kept, and the next communicator of 0-1 maps a new segment.
 *   4. Churn over every shape, a second communicator of the same ranks alive beside each,
 *      every call checked against the expected bytes and sums.
 * hc-test: np=2,3 preload=both timeout=120
 * hc-test: np=4 preload=yes timeout=180 env=HIERCOLL_VIRTUAL_NODE_SIZE=2
 */
#include <sys/stat.h>

#include "hc_mpitest.h"

#define MAX_INODES 64

/* Inodes of the library's memfd segments this process maps (sorted, distinct). */
static int segment_inodes(unsigned long *ino)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long inode;
        if (!strstr(line, "memfd:hiercoll") ||
            sscanf(line, "%*s %*s %*s %*s %lu", &inode) != 1)
            continue;
        int seen = 0;
        for (int i = 0; i < n; i++)
            seen |= ino[i] == inode;
        if (!seen && n < MAX_INODES)
            ino[n++] = inode;
    }
    if (f)
        fclose(f);
    return n;
}

static int subset(const unsigned long *a, int na, const unsigned long *b, int nb)
{
    for (int i = 0; i < na; i++) {
        int found = 0;
        for (int j = 0; j < nb; j++)
            found |= a[i] == b[j];
        if (!found)
            return 0;
    }
    return 1;
}

/* Broadcasts from every root at sizes inside a cell, in the ring, and past it, and
 * allreduces, all checked. */
static void exercise(MPI_Comm comm, uint64_t seed)
{
    static const int sizes[] = {8, 1000, 70000, 300000};
    static unsigned char want[300000], got[300000];
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    for (int root = 0; root < n; root++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t bytes = (size_t)sizes[s];
            hc_t_fill(want, bytes, seed + (uint64_t)(root * 16 + (int)s));
            if (r == root)
                memcpy(got, want, bytes);
            else
                memset(got, 0, bytes);
            MPI_Bcast(got, (int)bytes, MPI_BYTE, root, comm);
            long d = hc_t_first_diff(got, want, bytes);
            HC_T_CHECK(d < 0, "seed %llu root %d %zu bytes: byte %ld differs",
                       (unsigned long long)seed, root, bytes, d);
        }
    static const int counts[] = {1, 100, 40000};
    static double in[40000], out[40000];
    for (size_t s = 0; s < sizeof counts / sizeof counts[0]; s++) {
        int k = counts[s];
        for (int i = 0; i < k; i++)
            in[i] = (double)(r + 1) * (i % 7 + 1) + (double)(seed % 5);
        MPI_Allreduce(in, out, k, MPI_DOUBLE, MPI_SUM, comm);
        long bad = 0;
        for (int i = 0; i < k; i++)
            bad += out[i] != (double)n * (n + 1) / 2 * (i % 7 + 1) + (double)n * (seed % 5);
        HC_T_CHECK(bad == 0, "seed %llu allreduce of %d: %ld wrong", (unsigned long long)seed,
                   k, bad);
    }
}

static MPI_Comm used_then(MPI_Comm comm, uint64_t seed)
{
    if (comm != MPI_COMM_NULL)
        exercise(comm, seed);
    return comm;
}

int main(int argc, char **argv)
{
    hc_t_init(&argc, &argv);
    int on_one_node = getenv("HIERCOLL_VIRTUAL_NODE_SIZE") == NULL;
    int expect = hc_t_preloaded() && on_one_node && hc_t_size > 1;
    unsigned long before[MAX_INODES], after[MAX_INODES], at_init[MAX_INODES];
    int n0 = segment_inodes(at_init); /* the node's counter page, the shared heap */
    MPI_Comm c;

    /* 1 */
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    used_then(c, 1);
    MPI_Comm_free(&c);
    int nb = segment_inodes(before);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    used_then(c, 2);
    int na = segment_inodes(after);
    HC_T_CHECK(subset(after, na, before, nb),
               "a duplicate of the same ranks mapped a new segment (%d mapped before, %d now)",
               nb, na);
    if (expect)
        HC_T_CHECK(nb > n0, "no segment was ever mapped: nothing was reused");
    MPI_Comm_free(&c);

    /* 2 */
    nb = segment_inodes(before);
    MPI_Comm_split(MPI_COMM_WORLD, 0, hc_t_size - hc_t_rank, &c);
    used_then(c, 3);
    na = segment_inodes(after);
    if (expect)
        HC_T_CHECK(!subset(after, na, before, nb),
                   "ranks in reverse order took a segment laid out for the other order");
    MPI_Comm_free(&c);

    /* 3 */
    if (hc_t_size >= 3) {
        MPI_Comm_split(MPI_COMM_WORLD, hc_t_rank < 2 ? 0 : MPI_UNDEFINED, hc_t_rank, &c);
        if (used_then(c, 4) != MPI_COMM_NULL)
            MPI_Comm_free(&c);
        /* alive together, so none takes another's segment: 10 given back at once */
        MPI_Comm many[5];
        for (int i = 0; i < 5; i++) {
            MPI_Comm_split(MPI_COMM_WORLD, hc_t_rank ? 0 : MPI_UNDEFINED, hc_t_rank, &many[i]);
            used_then(many[i], 5 + (uint64_t)i);
        }
        for (int i = 0; i < 5; i++)
            if (many[i] != MPI_COMM_NULL)
                MPI_Comm_free(&many[i]);
        nb = segment_inodes(before);
        MPI_Comm_split(MPI_COMM_WORLD, hc_t_rank < 2 ? 0 : MPI_UNDEFINED, hc_t_rank, &c);
        if (used_then(c, 20) != MPI_COMM_NULL) {
            na = segment_inodes(after);
            if (expect)
                HC_T_CHECK(!subset(after, na, before, nb),
                           "ranks 0-1 reused a segment rank 1 had let go of");
            MPI_Comm_free(&c);
        }
    }

    /* 4 */
    for (int i = 0; i < 24; i++) {
        int shape = i % 4;
        if (shape == 0)
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
        else if (shape == 1)
            MPI_Comm_split(MPI_COMM_WORLD, 0, -hc_t_rank, &c);
        else if (shape == 2)
            MPI_Comm_split(MPI_COMM_WORLD, hc_t_rank % 2, hc_t_rank, &c);
        else
            MPI_Comm_split(MPI_COMM_WORLD, hc_t_rank < hc_t_size / 2, hc_t_rank, &c);
        MPI_Comm keep;
        MPI_Comm_dup(c, &keep); /* the same ranks, alive while c is freed and remade */
        used_then(c, 100 + (uint64_t)i);
        used_then(keep, 200 + (uint64_t)i);
        MPI_Comm_free(&c);
        used_then(keep, 300 + (uint64_t)i);
        MPI_Comm_free(&keep);
    }
    return hc_t_finish();
}
