/* The contract between preload/ (which builds a communicator's context) and the
 * algorithms in collectives/ (which use it). Algorithms call PMPI_* only. */
#ifndef HC_COLL_H
#define HC_COLL_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

/* Returned by an algorithm that declines a call: the entry point then calls the vendor.
 * Never a valid MPI error code (those are >= 0). */
#define HC_FALLBACK (-1)

/* Per-communicator slots for state owned by one subsystem; each frees its own. */
enum hc_slot { HC_SLOT_BCAST, HC_SLOT_ALLREDUCE, HC_SLOT_COUNT };

typedef struct hc_comm hc_comm;
typedef void (*hc_slot_free_fn)(hc_comm *c, void *state);

struct hc_comm {
    MPI_Comm comm;       /* the user's communicator */
    int rank, size;
    int is_inter;        /* intercommunicator: collectives always go to the vendor */
    int *world_rank_of;  /* [size]: MPI_COMM_WORLD rank of each rank (of the remote group
                            for an intercommunicator, as point-to-point ranks name it) */
    int remote_size;     /* intercommunicators only */

    /* Per-communicator algorithm choice from MPI_Comm_set_info (hiercoll_bcast,
     * hiercoll_allreduce): -1 if unset, else the registry's index (HC_BCAST_*,
     * HC_ALLREDUCE_* in hc_algos.h). */
    int bcast_choice, allreduce_choice;
    /* The algorithm the last call ran (the broadcast's: where this rank was its node's root);
     * -1 before any. Reported by MPI_Comm_get_info as hiercoll_bcast_last and
     * hiercoll_allreduce_last. */
    int bcast_last, allreduce_last;

    /* Machine view, built collectively on the first accelerated collective
     * (hc_comm_topology in preload/). Valid when topo_state == 1. */
    int topo_state;      /* 0 not built, 1 built, -1 failed: vendor path only */
    MPI_Comm local;      /* ranks on my node (real or virtual), ordered by comm rank: comm
                          * itself when that is one node */
    int local_rank, local_size;
    MPI_Comm leaders;    /* lowest rank of every node, ordered by node; MPI_COMM_NULL elsewhere
                          * and on every rank of a communicator on one node */
    int node, num_nodes; /* my node's index, and how many (nodes numbered by lowest rank) */
    int *node_of;        /* [size] node index of each rank */
    int *local_rank_of;  /* [size] rank inside its node's local communicator */
    int *node_leader;    /* [num_nodes] comm rank of each node's leader */
    int *node_size;      /* [num_nodes] */
    int *local_ranks;    /* [local_size] comm rank of each rank of my node, by local rank */
    int *core_of;        /* [size] OS index of the core each rank ran on at build time */
    int *numa_of;        /* [size] NUMA node OS index of each rank (-1 unknown) */
    int nodes_regular;   /* every node holds the same number of consecutive ranks */
    /* Measured or given bandwidths, bytes/s, between nodes and between the ranks of a node
     * (HIERCOLL_BANDWIDTHS or the machine file, read once by the preload); 0 when neither
     * was given: the cost models keep their own defaults. */
    double bw_network, bw_node;

    void *slot[HC_SLOT_COUNT];
    hc_slot_free_fn slot_free[HC_SLOT_COUNT];
    pthread_mutex_t lock; /* guards lazy creation of slot state */
    struct hc_comm *next; /* list of live contexts, freed at MPI_Finalize */
};

/* Algorithm entry points. Each returns MPI_SUCCESS, an MPI error code, or HC_FALLBACK.
 * The choice is made inside, by each collective's selector. site: the caller's call site
 * (an address inside the call instruction; 0 unknown), which learning keys its choices by. */
int hc_bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, hc_comm *c, uintptr_t site);
int hc_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype dt,
                 MPI_Op op, hc_comm *c, uintptr_t site);

/* Builds c's machine view if needed (collective over c->comm). Returns 1 when usable. */
int hc_comm_topology(hc_comm *c);

#endif
