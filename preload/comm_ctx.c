/* Per-communicator context: created on first use, cached as an attribute, released by the
 * attribute's delete callback (MPI_Comm_free) or at MPI_Finalize. */
#include <stdlib.h>
#include <string.h>

#include "hc_bandwidth.h"
#include "hc_config.h"
#include "hc_log.h"
#include "hc_preload.h"
#include "hc_util.h"

static int keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static hc_comm *live_contexts;
static int contexts_released; /* after MPI_Finalize released them: callbacks do nothing */

static void release_topology(hc_comm *c)
{
    if (c->local != MPI_COMM_NULL && c->local != c->comm)
        PMPI_Comm_free(&c->local);
    if (c->leaders != MPI_COMM_NULL)
        PMPI_Comm_free(&c->leaders);
    free(c->node_of);
    free(c->local_rank_of);
    free(c->node_leader);
    free(c->node_size);
    free(c->local_ranks);
    free(c->core_of);
    free(c->numa_of);
    c->node_of = c->local_rank_of = c->node_leader = c->node_size = c->local_ranks = NULL;
    c->core_of = c->numa_of = NULL;
    c->topo_state = 0;
}

/* Each thread's last contexts by handle, valid while no context has been freed since
 * (context_free bumps contexts_gen), so a handle the vendor reuses never finds a stale
 * context. Every intercepted call looks its communicator up: the attribute lookup costs
 * more than the smallest broadcast's own work. */
#define CONTEXT_CACHE 16
typedef struct context_cache_ent {
    MPI_Comm handle;
    unsigned gen;
    hc_comm *c;
} context_cache_ent;
static __thread context_cache_ent context_cache[CONTEXT_CACHE]
    __attribute__((tls_model("initial-exec")));
static unsigned contexts_gen = 1;

static void context_free(hc_comm *c)
{
    __atomic_add_fetch(&contexts_gen, 1, __ATOMIC_ACQ_REL);
    for (int s = 0; s < HC_SLOT_COUNT; s++)
        if (c->slot[s] && c->slot_free[s])
            c->slot_free[s](c, c->slot[s]);
    release_topology(c);
    free(c->world_rank_of);
    pthread_mutex_destroy(&c->lock);
    pthread_mutex_lock(&registry_lock);
    for (hc_comm **p = &live_contexts; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    pthread_mutex_unlock(&registry_lock);
    free(c);
}

/* The levels' bandwidths, read once (mapping/hc_bandwidth.h): between nodes, between cores. */
static double level_bw[2];
static pthread_once_t level_bw_once = PTHREAD_ONCE_INIT;
static void read_level_bw(void)
{
    static const char *const names[2] = {"node", "core"};
    char desc[256], warn[512];
    double bw[2];
    if (hc_bandwidths(names, 2, hc_cfg.bandwidths.s, hc_cfg.machine_file.s, bw, desc,
                      sizeof desc, warn, sizeof warn) != HC_BW_BUILTIN)
        memcpy(level_bw, bw, sizeof bw);
}

static hc_comm *context_alloc(void)
{
    hc_comm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_once(&level_bw_once, read_level_bw);
    c->bw_network = level_bw[0];
    c->bw_node = level_bw[1];
    c->comm = c->local = c->leaders = MPI_COMM_NULL;
    c->bcast_choice = c->allreduce_choice = -1;
    c->bcast_last = c->allreduce_last = -1;
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_lock(&registry_lock);
    c->next = live_contexts;
    live_contexts = c;
    pthread_mutex_unlock(&registry_lock);
    return c;
}

/* MPI-4 copies info hints on MPI_Comm_dup, so the duplicate inherits the algorithm choice.
 * The callback does not learn the new handle: hc_comm_get completes the context. */
static int copy_cb(MPI_Comm oldcomm, int kv, void *extra, void *in, void *out, int *flag)
{
    hc_comm *old = in, *c = context_alloc();
    *flag = 0;
    if (!c)
        return MPI_SUCCESS;
    c->bcast_choice = old->bcast_choice;
    c->allreduce_choice = old->allreduce_choice;
    *(hc_comm **)out = c;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int kv, void *val, void *extra)
{
    if (!contexts_released)
        context_free(val);
    return MPI_SUCCESS;
}

void hc_comm_module_init(void)
{
    contexts_released = 0;
    PMPI_Comm_create_keyval(copy_cb, delete_cb, &keyval, NULL);
}

void hc_comm_module_finalize(void)
{
    /* Contexts of communicators the program did not free (WORLD, SELF and others): their
     * segments and sub-communicators must go before PMPI_Finalize. */
    for (;;) {
        pthread_mutex_lock(&registry_lock);
        hc_comm *c = live_contexts;
        pthread_mutex_unlock(&registry_lock);
        if (!c)
            break;
        if (c->comm != MPI_COMM_NULL)
            PMPI_Comm_delete_attr(c->comm, keyval); /* calls delete_cb -> context_free */
        else
            context_free(c); /* a duplicate never used: MPI will not tell us its handle */
    }
    contexts_released = 1;
}

static int fill_world_ranks(hc_comm *c, MPI_Comm comm)
{
    MPI_Group group, world;
    int n = c->is_inter ? c->remote_size : c->size;
    if (c->is_inter)
        PMPI_Comm_remote_group(comm, &group);
    else
        PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    int *ranks = malloc(sizeof(int) * (size_t)n);
    c->world_rank_of = malloc(sizeof(int) * (size_t)n);
    if (ranks && c->world_rank_of) {
        for (int i = 0; i < n; i++)
            ranks[i] = i;
        PMPI_Group_translate_ranks(group, n, ranks, world, c->world_rank_of);
    }
    free(ranks);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    return c->world_rank_of ? 0 : -1;
}

hc_comm *hc_comm_get(MPI_Comm comm)
{
    if (!hc_active || comm == MPI_COMM_NULL)
        return NULL;
    unsigned gen = __atomic_load_n(&contexts_gen, __ATOMIC_ACQUIRE);
    context_cache_ent *e =
        &context_cache[((uint32_t)(uintptr_t)comm * 0x9E3779B1u) >> 28 & (CONTEXT_CACHE - 1)];
    if (HC_LIKELY(e->handle == comm && e->gen == gen))
        return e->c;
    hc_comm *c = NULL;
    int found = 0;
    PMPI_Comm_get_attr(comm, keyval, &c, &found);
    if (found && c->comm != MPI_COMM_NULL) {
        *e = (context_cache_ent){comm, gen, c};
        return c;
    }

    /* First use (or a duplicate not yet completed). Creation is rare: one lock is enough. */
    static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&create_lock);
    PMPI_Comm_get_attr(comm, keyval, &c, &found);
    if (!found) {
        c = context_alloc();
        if (c)
            PMPI_Comm_set_attr(comm, keyval, c);
    }
    if (c && c->comm == MPI_COMM_NULL) {
        PMPI_Comm_test_inter(comm, &c->is_inter);
        PMPI_Comm_rank(comm, &c->rank);
        PMPI_Comm_size(comm, &c->size);
        if (c->is_inter)
            PMPI_Comm_remote_size(comm, &c->remote_size);
        fill_world_ranks(c, comm);
        /* Last: a context with its handle set is complete for lock-free readers. */
        __atomic_store_n(&c->comm, comm, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&create_lock);
    return c;
}

/* Everything a rank tells the others about itself when the machine view is built. */
typedef struct rank_place {
    char host[64];
    int vnode; /* virtual node (HIERCOLL_VIRTUAL_NODE_SIZE), 0 without */
    int core, numa;
} rank_place;

/* Communicators up to this size gather their places on the stack (5 KiB), with no
 * agreement first that every rank could allocate: one collective less for most of them. */
#define PLACES_ON_STACK 64

static int build_topology(hc_comm *c)
{
    const hc_host_info *me = hc_host_info_get();
    int n = c->size;
    rank_place mine, on_stack[PLACES_ON_STACK];
    rank_place *all = n <= PLACES_ON_STACK ? on_stack : malloc(sizeof(rank_place) * (size_t)n);
    if (n > PLACES_ON_STACK) {
        /* Agree before communicating anything large: a rank that cannot allocate says so. */
        int ok = all != NULL, all_ok;
        PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, c->comm);
        if (!all_ok) {
            free(all);
            return -1;
        }
    }
    memset(&mine, 0, sizeof mine);
    memcpy(mine.host, me->host, sizeof mine.host);
    mine.vnode = hc_virtual_node();
    mine.core = me->core;
    mine.numa = me->numa;
    PMPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, c->comm);

    c->node_of = malloc(sizeof(int) * (size_t)n);
    c->local_rank_of = malloc(sizeof(int) * (size_t)n);
    c->core_of = malloc(sizeof(int) * (size_t)n);
    c->numa_of = malloc(sizeof(int) * (size_t)n);
    c->node_leader = malloc(sizeof(int) * (size_t)n);
    c->node_size = calloc((size_t)n, sizeof(int));
    /* Nodes are numbered in order of their lowest rank. Quadratic only in the number of
     * nodes, which is small next to the cost of the allgather above. */
    int nodes = 0;
    for (int r = 0; r < n; r++) {
        int node = -1;
        for (int q = 0; q < nodes && node < 0; q++) {
            const rank_place *l = &all[c->node_leader[q]];
            if (l->vnode == all[r].vnode && strcmp(l->host, all[r].host) == 0)
                node = q;
        }
        if (node < 0) {
            node = nodes++;
            c->node_leader[node] = r;
        }
        c->node_of[r] = node;
        c->local_rank_of[r] = c->node_size[node]++;
        c->core_of[r] = all[r].core;
        c->numa_of[r] = all[r].numa;
    }
    if (all != on_stack)
        free(all);
    c->num_nodes = nodes;
    c->node = c->node_of[c->rank];
    c->local_rank = c->local_rank_of[c->rank];
    c->local_size = c->node_size[c->node];
    c->local_ranks = malloc(sizeof(int) * (size_t)c->local_size);
    for (int r = 0; r < n; r++)
        if (c->node_of[r] == c->node)
            c->local_ranks[c->local_rank_of[r]] = r;
    c->nodes_regular = 1;
    for (int r = 0; r < n; r++)
        if (c->node_of[r] != r / c->node_size[0] || c->node_size[c->node_of[r]] != c->node_size[0])
            c->nodes_regular = 0;

    /* On one node the node's communicator is the program's own: hiercoll only runs
     * collectives on it, inside the program's collective call, in the same order on every
     * rank, which MPI allows. The two splits were most of a new communicator's first call
     * (docs/apps.md, fixed costs), and libraries such as ScaLAPACK make communicators by the
     * dozen. */
    if (nodes == 1) {
        c->local = c->comm;
    } else {
        /* Out of context ids (an error returned under MPI_ERRORS_RETURN) the communicator
         * runs the vendor's collectives; the ranks agree, so none waits in a stage that
         * another skips. */
        int ok = PMPI_Comm_split(c->comm, c->node, c->rank, &c->local) == MPI_SUCCESS, all_ok;
        if (!ok)
            c->local = MPI_COMM_NULL;
        if (PMPI_Comm_split(c->comm, c->local_rank == 0 ? 0 : MPI_UNDEFINED, c->rank,
                            &c->leaders) != MPI_SUCCESS) {
            c->leaders = MPI_COMM_NULL;
            ok = 0;
        }
        PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, c->comm);
        if (!all_ok)
            return -1; /* what was made goes with the context (release_topology) */
    }
    hc_info(2, "communicator of %d ranks: %d node(s), %d rank(s) on mine, %s", n, nodes,
            c->local_size, c->nodes_regular ? "regular" : "irregular");
    return 0;
}

int hc_comm_topology(hc_comm *c)
{
    if (c->topo_state == 0)
        c->topo_state = build_topology(c) == 0 ? 1 : -1;
    return c->topo_state == 1;
}

hc_comm *hc_comm_for_coll(MPI_Comm comm)
{
    hc_comm *c = hc_comm_get(comm);
    if (!c || c->is_inter || !c->world_rank_of)
        return NULL;
    return hc_comm_topology(c) ? c : NULL;
}

/* hiercoll_bcast / hiercoll_allreduce info keys: same values as the environment variables.
 * A bad value is ignored with a warning, as MPI does with hints it cannot honour. */
static void apply_info(hc_comm *c, MPI_Info info)
{
    static const struct { const char *key, *var; size_t field; } keys[] = {
        {"hiercoll_bcast", "HIERCOLL_BCAST", offsetof(hc_comm, bcast_choice)},
        {"hiercoll_allreduce", "HIERCOLL_ALLREDUCE", offsetof(hc_comm, allreduce_choice)},
    };
    if (!c || info == MPI_INFO_NULL)
        return;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        char value[64];
        int flag = 0;
        PMPI_Info_get(info, keys[k].key, (int)sizeof value - 1, value, &flag);
        if (!flag)
            continue;
        const hc_var_desc *v = hc_config_find(keys[k].var);
        int idx = hc_config_enum_index(v, value);
        if (idx < 0)
            hc_warn("info key %s='%s' ignored: use one of %s", keys[k].key, value, v->accepted);
        else
            *(int *)((char *)c + keys[k].field) = idx;
    }
}

HC_EXPORT int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    int rc = PMPI_Comm_set_info(comm, info);
    if (rc == MPI_SUCCESS)
        apply_info(hc_comm_get(comm), info);
    return rc;
}

HC_EXPORT int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
    if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL) {
        hc_comm *c = hc_comm_get(*newcomm);
        if (c) {
            /* dup_with_info takes the new hints instead of the old communicator's */
            c->bcast_choice = c->allreduce_choice = -1;
            apply_info(c, info);
        }
    }
    return rc;
}

/* The info a communicator uses, with what hiercoll ran last on it: hiercoll_bcast_last and
 * hiercoll_allreduce_last name the algorithm (for a broadcast, the one this rank chose the
 * last time it was its node's root), so a program or the bench can see what `auto` chose. */
HC_EXPORT int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    int rc = PMPI_Comm_get_info(comm, info_used);
    hc_comm *c = rc == MPI_SUCCESS ? hc_comm_get(comm) : NULL;
    if (c && c->bcast_last >= 0)
        PMPI_Info_set(*info_used, "hiercoll_bcast_last", hc_algo(HC_COLL_BCAST, c->bcast_last)->name);
    if (c && c->allreduce_last >= 0)
        PMPI_Info_set(*info_used, "hiercoll_allreduce_last",
                      hc_algo(HC_COLL_ALLREDUCE, c->allreduce_last)->name);
    return rc;
}
