/* The paths compared: each on a duplicate of MPI_COMM_WORLD whose info key forces it, so one
 * run holds them all; and what the library says a path's last call ran. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "hc_config.h"
#include "peers.h"

static const char *const info_keys[2] = {"hiercoll_bcast", "hiercoll_allreduce"};
static const char *const last_keys[2] = {"hiercoll_bcast_last", "hiercoll_allreduce_last"};
static const char *const variables[2] = {"HIERCOLL_BCAST", "HIERCOLL_ALLREDUCE"};

/* Small priming calls per root: more than a 256 KiB ring holds. */
#define PRIME_SMALL_BYTES 1024
#define PRIME_SMALL_CALLS 300

/* Untimed calls from every root go through the queue's ring first. The root rewrites its
 * buffer before each broadcast: an unchanged buffer in the shared heap is read in place and
 * never touches the ring, and 1 KiB calls walk all of it wherever the larger ones' alignment
 * leaves a gap (a 1 KiB pattern of 200 calls measured those faults: 1.6x the vendor primed
 * with 64 KiB only, 0.5x with 600 calls). */
static void prime_bcast(MPI_Comm c)
{
    size_t bytes = (size_t)64 << 10;
    char *buf = calloc(bytes, 1);
    int n, me;
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &me);
    for (int root = 0; root < n; root++)
        for (int i = 0; i < 8 + PRIME_SMALL_CALLS; i++) {
            size_t len = i < 8 ? bytes : PRIME_SMALL_BYTES;
            if (me == root)
                memset(buf, i, len);
            MPI_Bcast(buf, (int)len, MPI_BYTE, root, c);
        }
    free(buf);
}

/* Out of place, as the timed calls: Open MPI 4.1's HAN crashes in an in-place allreduce from
 * 128 KiB (docs/cluster.md, Pinned hosts), and took the bench's HAN launch with it. */
static void prime_allreduce(MPI_Comm c)
{
    int count = (1 << 20) / (int)sizeof(double);
    double *in = calloc((size_t)count, sizeof(double)), *out = calloc((size_t)count, sizeof(double));
    if (!in || !out)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < 4; i++)
        MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, c);
    free(out);
    free(in);
}

/* A communicator's first calls fault in its shared pages (a broadcast queue's 256 KiB ring
 * per rank, the allreduce's slots): a set-up cost, docs/apps.md's fixed costs, not what a call
 * costs in a loop, which is what the tables show; each path's communicator is primed. */
MPI_Comm path_comm(enum coll which, const char *algo)
{
    MPI_Comm c;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, info_keys[which], algo);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    if (which == COLL_BCAST)
        prime_bcast(c);
    else
        prime_allreduce(c);
    return c;
}

void path_last_plan(const path *p, enum coll which, char *out, size_t len)
{
    MPI_Info info = MPI_INFO_NULL;
    int flag = 0;
    out[0] = 0;
    if (MPI_Comm_get_info(p->comm, &info) != MPI_SUCCESS || info == MPI_INFO_NULL)
        return;
#if MPI_VERSION >= 4
    int n = (int)len;
    MPI_Info_get_string(info, last_keys[which], &n, out, &flag);
#else
    MPI_Info_get(info, last_keys[which], (int)len - 1, out, &flag);
#endif
    if (!flag)
        out[0] = 0;
    MPI_Info_free(&info);
}

/* The bench is built from the library's own configuration table, so it knows the names the
 * preloaded library of the same build accepts. */
static int path_known(enum coll which, const char *algo, const char **accepted)
{
    const hc_var_desc *v = hc_config_find(variables[which]);
    *accepted = v ? v->accepted : "";
    return v && hc_config_enum_index(v, algo) >= 0;
}

int paths_peers(enum coll which, int peers, const char *label, FILE *notes, path *paths)
{
    int np = 0;
    paths[np++] = (path){label ? label : peers ? "default" : "vendor", path_comm(which, "vendor"),
                         {0}};
    for (int i = 0; peers && i < NPEER_DEFS && np < MAX_PATHS; i++) {
        const peer_def *d = &peer_defs[i];
        if (strcmp(d->family, PEER_FAMILY) || !(d->colls & (1 << which)) || !*d->settings)
            continue;
        char err[256] = "";
        path x = {d->name, MPI_COMM_NULL, {0}};
        int ok = peers_resolve(d->settings, &x.cvars, err, sizeof err) == 0, all;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (!all) {
            if (notes)
                fprintf(notes, "hiercoll-bench: peer %s left out: %s\n", d->name,
                        *err ? err : "another rank could not set it");
            continue;
        }
        x.comm = path_comm(which, "vendor");
        paths[np++] = x;
    }
    return np;
}

int paths_algos(enum coll which, const char *algos, FILE *notes, path *paths, int np)
{
    char *list = strdup(algos), *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t && np < MAX_PATHS; t = strtok_r(NULL, ",", &save)) {
        const char *accepted;
        if (!path_known(which, t, &accepted)) {
            if (notes)
                fprintf(notes, "hiercoll-bench: %s: this library has no algorithm '%s' (%s); "
                               "left out\n", coll_names[which], t, accepted);
            continue;
        }
        paths[np++] = (path){strdup(t), path_comm(which, t), {0}};
    }
    free(list);
    return np;
}
