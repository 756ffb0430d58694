/* MPI_Allreduce: checks what the ring can take, picks the algorithm (info key, then
 * HIERCOLL_ALLREDUCE, then the built-in rule and the tuning file) and the lattice, and runs
 * the shared-memory and point-to-point engines. Everything else goes to the vendor. */
#include <stdlib.h>
#include <string.h>

#include "allreduce_impl.h"
#include "hc_config.h"
#include "hc_dtype.h"
#include "hc_must.h"
#include "hc_log.h"
#include "hc_mpi.h"
#include "hc_tuning.h"
#include "hc_util.h"

/* Multi-node communicators: below this the vendor's latency-tuned algorithms win. */
#define HC_AR_RING_MIN_BYTES (64 * 1024)

/* Model costs per level (seconds per message, per byte, doubled as in T_d) when no measured
 * bandwidths are given: shared memory within a node, the network across nodes. */
static const double default_alpha[2] = {1e-6, 4e-6};
static const double default_beta[2] = {0.4e-9, 1e-9};

void hc_red_apply(const hc_red *r, void *out, const void *a, const void *b, int64_t n)
{
    if (n <= 0)
        return;
    if (r->fn) {
        r->fn(out, a, b, (size_t)n);
        return;
    }
    if (out != b)
        memcpy(out, b, hc_red_span(r, n));
    hc_reduce_local(a, out, (MPI_Count)n, r->dt, r->op);
}

int hc_ar_tmp_reserve(hc_ar_state *st, size_t need)
{
    if (st->tmp_bytes >= need)
        return 0;
    free(st->tmp);
    st->tmp = malloc(need);
    st->tmp_bytes = st->tmp ? need : 0;
    return st->tmp ? 0 : -1;
}

static int is_predefined_op(MPI_Op op)
{
    static const MPI_Op ops[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,
                                 MPI_BAND, MPI_LOR,  MPI_BOR,  MPI_LXOR,   MPI_BXOR,
                                 MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (op == ops[i])
            return 1;
    return 0;
}

/* Whether elements of dt can be cut anywhere: they start at their own address, do not
 * interleave, and their bytes can be copied as a block (no holes inside an element, none
 * between elements except the padding of MINLOC/MAXLOC pair types such as MPI_DOUBLE_INT). */
static int cuttable(MPI_Datatype dt, MPI_Op op, hc_red *r)
{
    MPI_Aint lb, tlb;
    MPI_Count size = 0;
    if (PMPI_Type_get_extent(dt, &lb, &r->extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(dt, &tlb, &r->true_extent) != MPI_SUCCESS ||
        hc_type_size(dt, &size) != MPI_SUCCESS)
        return 0;
    if (lb != 0 || tlb != 0 || r->extent <= 0 || r->true_extent > r->extent ||
        size != (MPI_Count)r->true_extent)
        return 0;
    /* A whole element must fit the smallest slot of the staged engine; MPI gives every rank
     * the same datatype, so all of them decide alike. */
    if ((size_t)r->extent > HC_AR_SLOT_MIN)
        return 0;
    return r->extent == r->true_extent || op == MPI_MINLOC || op == MPI_MAXLOC;
}

/* Fills the reduction of (count, dt, op) when the ring may split and reorder it, with *n its
 * element count; 0 sends it to the vendor. Predefined ops work on the signature's named type,
 * so the decision and the split depend only on what MPI makes every rank agree on (count x
 * signature, op), not on how each rank lays its buffer out; *repack says this rank's layout
 * must be converted to an array of that type. User ops see the caller's datatype, so they
 * work in its units and need a layout that can be cut. */
static int reduction_for(MPI_Datatype dt, MPI_Count count, MPI_Op op, hc_red *r, int64_t *n,
                         int *repack)
{
    int commute = 0;
    if (PMPI_Op_commutative(op, &commute) != MPI_SUCCESS || !commute)
        return 0;
    *n = (int64_t)count;
    *repack = 0;
    r->op = op;
    if (!is_predefined_op(op)) {
        r->dt = dt;
        r->fn = NULL;
        return cuttable(dt, op, r);
    }
    MPI_Datatype named = hc_dtype_signature_type(dt);
    MPI_Count tsize = 0, nsize = 0;
    if (named == MPI_DATATYPE_NULL || !cuttable(named, op, r) ||
        hc_type_size(dt, &tsize) != MPI_SUCCESS ||
        hc_type_size(named, &nsize) != MPI_SUCCESS || nsize <= 0)
        return 0;
    r->dt = named;
    r->fn = hc_reduce_kernel(op, named);
    /* Predefined ops without a kernel: only MINLOC/MAXLOC go through MPI_Reduce_local. */
    if (!r->fn && op != MPI_MINLOC && op != MPI_MAXLOC)
        return 0;
    *n = (int64_t)count * (int64_t)(tsize / nsize);
    if (*n == 0)
        return 0; /* as a count of 0: the vendor */
    MPI_Count lb = 0;
    /* A derived type laid out exactly as an array of the named type needs no copy. */
    *repack = dt != named && !(r->extent == r->true_extent && hc_dtype_contiguous(dt, &lb) &&
                               lb == 0);
    if (*repack && tsize > HC_MPI_PACK_ELEMENT_MAX)
        return 0; /* an element too large for this MPI's MPI_Pack */
    return 1;
}

/* Copies (scount, stype) at src to (dcount, dtype) at dst, which have the same signature,
 * through MPI's pack format (the conversion MPI defines between layouts). */
static void retype(const void *src, MPI_Count scount, MPI_Datatype stype, void *dst,
                   MPI_Count dcount, MPI_Datatype dtype, MPI_Comm comm)
{
    MPI_Count bytes = 0, pos = 0;
    hc_pack_size(scount, stype, comm, &bytes);
    void *packed = hc_must_alloc((size_t)bytes, "MPI_Allreduce", "to convert a datatype");
    hc_pack(src, scount, stype, packed, bytes, &pos, comm);
    bytes = pos;
    pos = 0;
    hc_unpack(packed, bytes, &pos, dst, dcount, dtype, comm);
    free(packed);
}

static void state_free(hc_comm *c, void *p)
{
    hc_ar_state *st = p;
    hc_ar_shm_free(st);
    if (st->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&st->comm);
    free(st->tmp);
    free(st);
}

/* Collective the first time (every rank gets here with the same decision). */
static hc_ar_state *state_get(hc_comm *c)
{
    pthread_mutex_lock(&c->lock);
    hc_ar_state *st = c->slot[HC_SLOT_ALLREDUCE];
    if (!st && (st = calloc(1, sizeof *st)) != NULL) {
        /* Split, not dup: a dup would copy the preload's attribute to the private comm. */
        if (PMPI_Comm_split(c->comm, 0, c->rank, &st->comm) != MPI_SUCCESS) {
            free(st);
            st = NULL;
        } else {
            c->slot[HC_SLOT_ALLREDUCE] = st;
            c->slot_free[HC_SLOT_ALLREDUCE] = state_free;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return st;
}

static int builtin_choice(const hc_comm *c, long long bytes)
{
    if (c->num_nodes == 1)
        return HC_ALLREDUCE_SHM;
    if (bytes < HC_AR_RING_MIN_BYTES)
        return HC_ALLREDUCE_SHM; /* node, then leaders, then node */
    return c->nodes_regular ? HC_ALLREDUCE_RING : HC_ALLREDUCE_RING1D;
}

/* Per-level model costs: HIERCOLL_BANDWIDTHS (from the top: network first) or defaults. */
static void level_costs(double *alpha, double *beta)
{
    double bw[32];
    int nb = hc_cfg.bandwidths.s[0] ? hc_parse_floats(hc_cfg.bandwidths.s, bw, 32) : 0;
    for (int l = 0; l < 2; l++) {
        alpha[l] = default_alpha[l];
        beta[l] = default_beta[l];
    }
    if (nb >= 2) {
        beta[0] = 2 / bw[nb - 1];
        beta[1] = 2 / bw[0];
    }
}

/* The lattice for this call: HIERCOLL_RING_DIMS, else nodes x ranks per node as the cost
 * model splits it, else one ring. *how says why, for verbose output. */
static void lattice_for(hc_comm *c, int choice, long long bytes, hc_lattice *lat,
                        const char **how)
{
    lat->d = 1;
    lat->dims[0] = c->size;
    *how = "one ring";
    if (choice == HC_ALLREDUCE_RING1D)
        return;
    if (strcmp(hc_cfg.ring_dims.s, "auto") != 0) {
        hc_lattice forced;
        forced.d = hc_parse_dims(hc_cfg.ring_dims.s, forced.dims, HC_RING_MAXD);
        if (forced.d > 0 && hc_lattice_normalize(&forced) == c->size) {
            *lat = forced;
            *how = "HIERCOLL_RING_DIMS";
            return;
        }
        if (c->rank == 0) /* one line per communicator's first rank, not one per rank */
            hc_warn_once("HIERCOLL_RING_DIMS=%s does not multiply to the communicator size %d; "
                         "using the machine's lattice", hc_cfg.ring_dims.s, c->size);
    }
    if (c->num_nodes > 1 && c->nodes_regular) {
        int fanout[2] = {c->local_size, c->num_nodes};
        double alpha[2], beta[2];
        level_costs(alpha, beta);
        hc_ring_choose(2, fanout, alpha, beta, (double)bytes, 1, lat, NULL);
        hc_lattice_normalize(lat);
        *how = "ranks per node x nodes, cost model";
    }
}

/* Says which lattice runs, once for each one: the lattice depends on the message size. */
static void announce(hc_comm *c, hc_ar_state *st, const hc_lattice *lat, const char *how,
                     int shm)
{
    if (c->rank != 0 || hc_log_verbosity < 1)
        return;
    int n = st->nannounced;
    for (int i = 0; i < n && i < HC_AR_ANNOUNCE_MAX; i++) {
        const hc_ar_announced *a = &st->announced_lattice[i];
        if (a->how == how && a->shm == shm && a->lat.d == lat->d &&
            memcmp(a->lat.dims, lat->dims, sizeof(int) * (size_t)lat->d) == 0)
            return;
    }
    if (n >= HC_AR_ANNOUNCE_MAX) { /* a size sweep over many shapes: say so once, then stop */
        if (n == HC_AR_ANNOUNCE_MAX)
            hc_info(1, "allreduce on %d ranks: further lattices not shown", c->size);
        st->nannounced = HC_AR_ANNOUNCE_MAX + 1;
        return;
    }
    st->announced_lattice[st->nannounced++] = (hc_ar_announced){*lat, how, shm};
    char text[64];
    hc_lattice_format(lat, text, sizeof text);
    hc_info(1, "allreduce on %d ranks: lattice %s (%s), first dimension through %s", c->size,
            text, how, shm ? "shared memory" : "point to point");
}

static int run(hc_comm *c, int choice, const void *sb, void *rb, int64_t count,
               const hc_red *r)
{
    hc_ar_state *st = state_get(c);
    if (!st)
        return HC_FALLBACK;
    long long bytes = (long long)count * r->extent;
    hc_lattice lat;
    const char *how;
    int coords[HC_RING_MAXD];
    lattice_for(c, choice, bytes, &lat, &how);
    hc_lattice_coords(&lat, c->rank, coords);
    /* Small vectors across nodes: reduce in each node, then among the leaders by recursive
     * doubling. Among more than two leaders that moves log2(L) whole vectors per leader where
     * a ring moves 2(L-1)/L of one: fewer rounds, more bytes. Which wins depends on the link,
     * unknown at call time, so they switch where the vendor does (HC_VENDOR_AR_DOUBLING_BELOW):
     * the same rounds below, fewer bytes from there on. On 4 hosts x 1 rank a switch 4 KiB away
     * from the vendor's lost 1.3-1.45x (docs/algorithms-allreduce.md, Across hosts). */
    if (choice == HC_ALLREDUCE_SHM && c->num_nodes > 1 && bytes < HC_AR_RING_MIN_BYTES &&
        (c->num_nodes == 2 || bytes < HC_VENDOR_AR_DOUBLING_BELOW) &&
        hc_ar_shm_setup(c, st) && count <= hc_ar_shm_small_max(c, st, r)) {
        announce(c, st, &lat, "small vectors: node, leaders, node", 1);
        return hc_ar_shm_small_nodes(c, st, r, sb, rb, count);
    }
    /* The first dimension is the node when the ranks of each node fill it in order. */
    int shm = lat.d > 0 && c->local_size > 1 && c->nodes_regular &&
              lat.dims[0] == c->local_size && choice != HC_ALLREDUCE_RING1D &&
              hc_ar_shm_setup(c, st);
    announce(c, st, &lat, how, shm);
    if (!shm)
        return hc_ring_run(st, r, sb, rb, &lat, coords, 0, 0, count);
    if (lat.d == 1 && count <= hc_ar_shm_small_max(c, st, r))
        return hc_ar_shm_small(c, st, r, sb, rb, count);
    /* Every rank decides alike: count and element type follow from the signature. */
    int single = st->cma_ok && bytes >= hc_cfg.allreduce_cma_threshold.i &&
                 r->extent <= HC_AR_CMA_CHUNK;
    if (!(st->announced & (2 << single)) && c->rank == 0) {
        hc_info(2, "allreduce node dimension, first at %lld bytes: %s", bytes,
                single ? "single copy (process_vm_readv/writev)" : "staged through the segment");
        st->announced |= 2 << single;
    }
    if (single)
        return hc_ar_cma_ring(c, st, r, sb, rb, count, &lat, coords);
    return hc_ar_shm_ring(c, st, r, sb, rb, count, &lat, coords);
}

int hc_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype dt,
                 MPI_Op op, hc_comm *c)
{
    hc_red r;
    int64_t n;
    int repack;
    if (count <= 0 || !reduction_for(dt, count, op, &r, &n, &repack))
        return HC_FALLBACK;
    int choice = c->allreduce_choice >= 0 ? c->allreduce_choice : (int)hc_cfg.allreduce.i;
    long long bytes = (long long)n * r.extent;
    if (choice == HC_ALLREDUCE_AUTO)
        choice = hc_tuning_choose("allreduce", bytes, c, builtin_choice(c, bytes));
    if (choice == HC_ALLREDUCE_VENDOR)
        return HC_FALLBACK;
    const void *sb = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (!repack) {
        if (c->size > 1)
            return run(c, choice, sb, recvbuf, n, &r);
        if (sb != recvbuf)
            memcpy(recvbuf, sb, hc_red_span(&r, n));
        return MPI_SUCCESS;
    }
    /* This rank's layout differs from an array of the signature's type: reduce a copy. */
    void *work = hc_must_alloc(hc_red_span(&r, n), "MPI_Allreduce", "to convert a datatype");
    retype(sb, count, dt, work, (MPI_Count)n, r.dt, c->comm);
    int rc = c->size > 1 ? run(c, choice, work, work, n, &r) : MPI_SUCCESS;
    retype(work, (MPI_Count)n, r.dt, recvbuf, count, dt, c->comm);
    free(work);
    return rc;
}
