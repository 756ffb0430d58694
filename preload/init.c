/* MPI_Init / MPI_Init_thread / MPI_Finalize: configuration, contexts, profiler hooks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_config.h"
#include "hc_log.h"
#include "hc_preload.h"
#include "hc_shm.h"
#include "hc_tuning.h"
#include "hc_util.h"
#include "hc_wait.h"
#include "p2p_yield.h"

extern char **environ;

int hc_active;
int hc_in_vendor_init;
int hc_thread_level = MPI_THREAD_SINGLE;
int hc_world_rank, hc_world_size;

/* The first of the launcher's variables that is set (Hydra and Slurm's PMI, Open MPI). */
static const char *launcher_var(const char *a, const char *b)
{
    const char *v = getenv(a);
    return v ? v : getenv(b);
}

/* A rank that stops without a word leaves after the one that speaks: Open MPI's mpirun kills
 * the other ranks as soon as one exits non-zero, and a silent rank that exited first could get
 * the speaker killed before its line was out. There the wait ends early; Hydra lets the ranks
 * run on, so the bound is what a bad value costs under it. */
static void stop_at_init(int spoke)
{
    fflush(stderr);
    if (!spoke)
        sleep(3);
    _exit(2);
}

/* Before the vendor's init, so that a bad value costs nothing and every rank stops the same
 * way. Only one rank prints: the launcher's rank variable tells which one we are. */
void hc_init_config(void)
{
    char err[512], warn[2048];
    const char *pmi_rank = launcher_var("PMI_RANK", "OMPI_COMM_WORLD_RANK");
    int speaker = !pmi_rank || strcmp(pmi_rank, "0") == 0;
    if (hc_config_load(&hc_cfg, environ, err, sizeof err, warn, sizeof warn) != 0) {
        if (speaker)
            fprintf(stderr, "hiercoll: error: %s\n", err);
        stop_at_init(speaker);
    }
    if (hc_tuning_load(err, sizeof err) != 0) {
        /* A file may be missing on one node only: there the node's first rank speaks too
         * (its local rank from the launcher), so a run never stops without a word. */
        const char *local = launcher_var("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK");
        int speaks = speaker || !local || strcmp(local, "0") == 0;
        if (speaks)
            fprintf(stderr, "hiercoll: error: HIERCOLL_TUNING: %s\n", err);
        stop_at_init(speaks);
    }
    if (speaker && warn[0])
        fputs(warn, stderr);
    hc_log_verbosity = (int)hc_cfg.verbose.i;
}

/* MPICH and Open MPI progress every pending operation inside any call that polls: an Iprobe
 * only looks, it takes no message of the program's. */
static void drive_progress(void)
{
    int flag;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

void hc_init_after_vendor(int provided)
{
    hc_thread_level = provided;
    PMPI_Comm_rank(MPI_COMM_WORLD, &hc_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &hc_world_size);
    hc_log_rank = hc_world_rank;
    hc_comm_module_init();
    hc_shm_budget_init(MPI_COMM_WORLD);
    hc_wait_progress = drive_progress;
    int node_ranks = hc_shm_node_ranks();
    int spin = hc_wait_choose_spin(node_ranks, HC_OPEN_MPI);
    int p2p_yield = hc_p2p_yield_choose(node_ranks);
    hc_active = 1;
    hc_bind_check();
    hc_prof_init();
    if (hc_world_rank == 0)
        hc_info(1, "active: bcast=%s allreduce=%s, %d ranks, waits %s, the program's %s",
                hc_cfg.bcast.s, hc_cfg.allreduce.s, hc_world_size,
                spin ? "spin, then yield" : "yield at once",
                p2p_yield ? "point-to-point waits yield" : "point-to-point waits the vendor's");
}

void hc_finalize_before_vendor(void)
{
    if (hc_active) {
        /* Contexts first: freeing their states keeps what was learned on them. */
        hc_comm_module_finalize();
        hc_prof_finalize(hc_now_ns());
        hc_wait_progress = NULL;
        hc_p2p_yield = 0;
        hc_active = 0;
    }
}

HC_EXPORT int MPI_Init(int *argc, char ***argv)
{
    hc_init_config();
    hc_in_vendor_init = 1;
    int rc = PMPI_Init(argc, argv);
    hc_in_vendor_init = 0;
    if (rc == MPI_SUCCESS) {
        int provided = MPI_THREAD_SINGLE;
        PMPI_Query_thread(&provided);
        hc_init_after_vendor(provided);
    }
    return rc;
}

HC_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    hc_init_config();
    hc_in_vendor_init = 1;
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    hc_in_vendor_init = 0;
    if (rc == MPI_SUCCESS)
        hc_init_after_vendor(*provided);
    return rc;
}

HC_EXPORT int MPI_Finalize(void)
{
    hc_finalize_before_vendor();
    return hc_finalize_vendor();
}
