/* What the preload adds to a program's symbol scope (tests/e2e/preload_scope.sh): after some
 * collectives and MPI_Finalize, rank 0 prints every object loaded and where the names that
 * METIS, Scotch and libunwind define, and the C++ runtime's unwinder, resolve for the program. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int print_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    const char *name = info->dlpi_name, *base = strrchr(name, '/');
    if (name[0])
        printf("object %s\n", base ? base + 1 : name);
    return 0;
}

int main(int argc, char **argv)
{
    int rank;
    double x = 1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 20; i++) {
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(&x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    if (rank != 0)
        return 0;
    dl_iterate_phdr(print_object, NULL);
    const char *names[] = {"METIS_PartGraphKway", "SCOTCH_graphInit", "SCOTCH_errorPrint",
                           "unw_backtrace", "backtrace", "_Unwind_RaiseException",
                           "_Unwind_Resume", "_Unwind_Backtrace"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *p = dlsym(RTLD_DEFAULT, names[i]);
        Dl_info where;
        const char *file = p && dladdr(p, &where) && where.dli_fname ? where.dli_fname : "none";
        const char *base = strrchr(file, '/');
        printf("symbol %s %s\n", names[i], base ? base + 1 : file);
    }
    return 0;
}
