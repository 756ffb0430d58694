/* A shim preloaded after libhiercoll (LD_PRELOAD=libhiercoll.so:vendor_count.so): it defines
 * PMPI_Allreduce and PMPI_Bcast, so every call the library passes on to the vendor lands here
 * first; it counts them by datatype and forwards them to the MPI library (RTLD_NEXT). At
 * MPI_Finalize each rank prints one line per (function, datatype) it forwarded:
 *   vendor-call RANK FUNCTION TYPE-NAME CALLS
 * The library's own set-up calls (MPI_INT with MPI_LAND, MPI_BYTE broadcasts) appear too. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAXENT 64
static struct { char fn[16], type[MPI_MAX_OBJECT_NAME]; long n; } tab[MAXENT];
static int ntab;

static void count(const char *fn, MPI_Datatype dt)
{
    char name[MPI_MAX_OBJECT_NAME] = "derived";
    int len, ni, na, nd, comb;
    PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED)
        PMPI_Type_get_name(dt, name, &len);
    for (int i = 0; i < ntab; i++)
        if (!strcmp(tab[i].fn, fn) && !strcmp(tab[i].type, name)) {
            tab[i].n++;
            return;
        }
    if (ntab < MAXENT) {
        snprintf(tab[ntab].fn, sizeof tab[ntab].fn, "%s", fn);
        snprintf(tab[ntab].type, sizeof tab[ntab].type, "%s", name);
        tab[ntab++].n = 1;
    }
}

int PMPI_Allreduce(const void *s, void *r, int c, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    static int (*next)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
    if (!next)
        next = (int (*)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm))
            dlsym(RTLD_NEXT, "PMPI_Allreduce");
    count("allreduce", dt);
    return next(s, r, c, dt, op, comm);
}

int PMPI_Bcast(void *b, int c, MPI_Datatype dt, int root, MPI_Comm comm)
{
    static int (*next)(void *, int, MPI_Datatype, int, MPI_Comm);
    if (!next)
        next = (int (*)(void *, int, MPI_Datatype, int, MPI_Comm))dlsym(RTLD_NEXT, "PMPI_Bcast");
    count("bcast", dt);
    return next(b, c, dt, root, comm);
}

int PMPI_Finalize(void)
{
    static int (*next)(void);
    if (!next)
        next = (int (*)(void))dlsym(RTLD_NEXT, "PMPI_Finalize");
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < ntab; i++)
        printf("vendor-call %d %s %s %ld\n", rank, tab[i].fn, tab[i].type, tab[i].n);
    fflush(stdout);
    return next();
}
