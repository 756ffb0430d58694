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
#include "hc_wait.h"

extern char **environ;

int hc_active;
int hc_thread_level = MPI_THREAD_SINGLE;
int hc_world_rank, hc_world_size;

/* Before the vendor's init, so that a bad value costs nothing and every rank stops the same
 * way. Only one rank prints: PMI_RANK (Hydra, Slurm's PMI) tells which one we are. */
static void load_config_or_exit(void)
{
    char err[512], warn[2048];
    const char *pmi_rank = getenv("PMI_RANK");
    int speaker = !pmi_rank || strcmp(pmi_rank, "0") == 0;
    if (hc_config_load(&hc_cfg, environ, err, sizeof err, warn, sizeof warn) != 0) {
        if (speaker)
            fprintf(stderr, "hiercoll: error: %s\n", err);
        fflush(stderr);
        _exit(2);
    }
    if (hc_tuning_load(err, sizeof err) != 0) {
        /* A file may be missing on one node only: there the node's first rank speaks too
         * (Hydra's MPI_LOCALRANKID), so a run never stops without a word. */
        const char *local = getenv("MPI_LOCALRANKID");
        if (speaker || !local || strcmp(local, "0") == 0)
            fprintf(stderr, "hiercoll: error: HIERCOLL_TUNING: %s\n", err);
        fflush(stderr);
        _exit(2);
    }
    if (speaker && warn[0])
        fputs(warn, stderr);
    hc_log_verbosity = (int)hc_cfg.verbose.i;
}

/* MPICH progresses every pending operation inside any call that polls: an Iprobe
 * only looks, it takes no message of the program's. */
static void drive_progress(void)
{
    int flag;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

static void after_vendor_init(void)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &hc_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &hc_world_size);
    hc_log_rank = hc_world_rank;
    hc_comm_module_init();
    hc_shm_budget_init(MPI_COMM_WORLD);
    hc_wait_progress = drive_progress;
    hc_active = 1;
    hc_bind_check();
    hc_prof_init();
    if (hc_world_rank == 0)
        hc_info(1, "active: bcast=%s allreduce=%s, %d ranks", hc_cfg.bcast.s,
                hc_cfg.allreduce.s, hc_world_size);
}

HC_EXPORT int MPI_Init(int *argc, char ***argv)
{
    load_config_or_exit();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        PMPI_Query_thread(&hc_thread_level);
        after_vendor_init();
    }
    return rc;
}

HC_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    load_config_or_exit();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        hc_thread_level = *provided;
        after_vendor_init();
    }
    return rc;
}

HC_EXPORT int MPI_Finalize(void)
{
    if (hc_active) {
        hc_prof_finalize();
        hc_comm_module_finalize();
        hc_wait_progress = NULL;
        hc_active = 0;
    }
    return PMPI_Finalize();
}
