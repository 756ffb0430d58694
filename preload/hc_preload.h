/* Internal interface of the PMPI shim. */
#ifndef HC_PRELOAD_H
#define HC_PRELOAD_H

#include <mpi.h>

#include "hc_coll.h"

/* Marks an intercepted MPI entry point: the only symbols the library exports. */
#define HC_EXPORT __attribute__((visibility("default")))

/* 1 when this build of the library is for Open MPI. */
#ifdef OPEN_MPI
#define HC_OPEN_MPI 1
#else
#define HC_OPEN_MPI 0
#endif

/* 1 between our MPI_Init and MPI_Finalize; before and after, every call goes to the vendor. */
extern int hc_active;
extern int hc_in_vendor_init; /* inside PMPI_Init / PMPI_Init_thread */
extern int hc_thread_level;  /* as provided by the vendor */
extern int hc_world_rank, hc_world_size;

/* MPI_Init's and MPI_Finalize's work around the vendor's (preload/init.c), for every binding:
 * the configuration before the vendor's init, the library after it (with the thread level the
 * vendor provides), and the library's end before the vendor's finalize. */
void hc_init_config(void);
void hc_init_after_vendor(int provided);
void hc_finalize_before_vendor(void);
/* PMPI_Finalize, kept progressing where MPICH needs it (mpich_exit.c); arm and disarm
 * bracket a vendor finalize called otherwise (the Fortran bindings'). */
int hc_finalize_vendor(void);
void hc_finalize_progress_arm(void);
void hc_finalize_progress_disarm(void);

/* The context of comm, created on first use without communicating (light part only).
 * NULL for intercommunicators, MPI_COMM_NULL, or when hiercoll is not active. */
hc_comm *hc_comm_get(MPI_Comm comm);
/* The context with its machine view built, for an accelerated collective; NULL means use
 * the vendor. Collective over comm the first time. */
hc_comm *hc_comm_for_coll(MPI_Comm comm);
void hc_comm_module_init(void);
/* Frees every live context (before PMPI_Finalize). */
void hc_comm_module_finalize(void);

/* This process's place on the machine, read once. */
typedef struct hc_host_info {
    char host[64];
    int core;  /* OS index of the CPU the process runs on */
    int numa;  /* NUMA node of that CPU, -1 unknown */
    int bound; /* 1 if bound to a single CPU */
} hc_host_info;
const hc_host_info *hc_host_info_get(void);

/* This rank's virtual node (HIERCOLL_VIRTUAL_NODE_SIZE): the one the launch mapping gives
 * (HIERCOLL_MAPPING), else world rank / k; 0 without virtual nodes. */
int hc_virtual_node(void);

/* Profiler (preload/prof*.c) and mapping check hooks called by MPI_Init/MPI_Finalize. */
void hc_prof_init(void);
/* Collective over MPI_COMM_WORLD: the profile, with the tuning file of what every rank learned
 * (tuning.txt); began_ns: hc_now_ns() when the profiler's part of finalize began. */
void hc_prof_finalize(uint64_t began_ns);
void hc_bind_check(void);

#endif
