/* The other collectives a user could pick on the same machine: hiercoll's peers. One table
 * for both programs: hiercoll-bench sets MPICH's, `hiercoll bench` launches Open MPI's.
 * Header-only, as pattern_name.h.
 *
 * MPICH reads its algorithm variables (CVARs) at every call, so hiercoll-bench writes them
 * through MPI_T before each block of a peer (peers.c) and the peers alternate block by block
 * within one run, as hiercoll's paths do. Open MPI picks a communicator's coll component when
 * the communicator is made, from MCA parameters that MPI_T cannot change at run time (4.1:
 * coll_han_priority and coll_sm_priority have scope read-only, MPI_T_cvar_write refuses them),
 * so `hiercoll bench --peers` runs the bench once per peer, round after round, and merges the
 * runs (docs/usage.md). */
#ifndef HC_BENCH_PEERS_H
#define HC_BENCH_PEERS_H

#include <string.h>

enum { PEER_ANY_HOSTS, PEER_ONE_HOST, PEER_SEVERAL_HOSTS };

typedef struct peer_def {
    const char *family;   /* "mpich" or "ompi" */
    const char *name;
    int colls;            /* 1 MPI_Bcast, 2 MPI_Allreduce, 3 both */
    const char *settings; /* mpich: VAR=VALUE;... written through MPI_T (a value is a number or
                           * a name the variable's description lists); ompi: launcher options */
    int where;            /* the communicators it serves: what its comm_query accepts */
    const char *about;
} peer_def;

/* MPICH 4.0's intercommunicator variables (MPIR_CVAR_*_INTER_ALGORITHM) do not apply to the
 * bench's communicators; its composition of node and network steps has no variable in 4.0
 * (its JSON tuning file picks it at MPI_Init), and `nb` runs the nonblocking collective. */
static const peer_def peer_defs[] = {
    {"mpich", "default", 3, "", PEER_ANY_HOSTS, "MPICH's own choice (ch4 device collectives)"},
    {"mpich", "release_gather", 1, "MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM=release_gather",
     PEER_ANY_HOSTS, "ch4's shared-memory broadcast within each node"},
    {"mpich", "release_gather", 2, "MPIR_CVAR_ALLREDUCE_POSIX_INTRA_ALGORITHM=release_gather",
     PEER_ANY_HOSTS, "ch4's shared-memory allreduce within each node"},
    {"mpich", "binomial", 1,
     "MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0;MPIR_CVAR_BCAST_INTRA_ALGORITHM=binomial",
     PEER_ANY_HOSTS, "MPIR's binomial tree"},
    {"mpich", "smp", 1, "MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0;MPIR_CVAR_BCAST_INTRA_ALGORITHM=smp",
     PEER_ANY_HOSTS, "MPIR's node-aware broadcast"},
    {"mpich", "scatter_doubling", 1,
     "MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0;"
     "MPIR_CVAR_BCAST_INTRA_ALGORITHM=scatter_recursive_doubling_allgather",
     PEER_ANY_HOSTS, "MPIR's scatter, then recursive-doubling allgather"},
    {"mpich", "scatter_ring", 1,
     "MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0;MPIR_CVAR_BCAST_INTRA_ALGORITHM=scatter_ring_allgather",
     PEER_ANY_HOSTS, "MPIR's scatter, then ring allgather"},
    {"mpich", "smp", 2,
     "MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE=0;MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=smp",
     PEER_ANY_HOSTS, "MPIR's node-aware allreduce"},
    {"mpich", "recursive_doubling", 2,
     "MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE=0;MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM="
     "recursive_doubling",
     PEER_ANY_HOSTS, "MPIR's recursive doubling"},
    {"mpich", "reduce_scatter", 2,
     "MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE=0;MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM="
     "reduce_scatter_allgather",
     PEER_ANY_HOSTS, "MPIR's reduce-scatter, then allgather (Rabenseifner)"},
    {"ompi", "tuned", 3, "", PEER_ANY_HOSTS, "Open MPI's default: coll tuned's decision rules"},
    {"ompi", "han", 3, "--mca coll_han_priority 100", PEER_SEVERAL_HOSTS,
     "coll han, hierarchical; disqualifies itself on a communicator within one host"},
    {"ompi", "sm", 3, "--mca coll_sm_priority 100", PEER_ONE_HOST,
     "coll sm, shared memory; disqualifies itself on a communicator that spans hosts"},
};
#define NPEER_DEFS ((int)(sizeof peer_defs / sizeof peer_defs[0]))

/* The family of the MPI this file is compiled against, where mpi.h is included before it. */
#if defined(OPEN_MPI)
#define PEER_FAMILY "ompi"
#else
#define PEER_FAMILY "mpich"
#endif

static inline const peer_def *peer_find(const char *family, const char *name, int coll_bit)
{
    for (int i = 0; i < NPEER_DEFS; i++)
        if (!strcmp(peer_defs[i].family, family) && !strcmp(peer_defs[i].name, name) &&
            (peer_defs[i].colls & coll_bit))
            return &peer_defs[i];
    return NULL;
}

#endif
