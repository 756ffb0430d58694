/* MPI launchers: see launcher.h. */
#include "launcher.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static hc_mpi_family by_name(const char *name)
{
    hc_launch_kind k = hc_launch_by_name(name);
    if (k != HC_LAUNCH_NONE)
        return hc_launch_family(k);
    const char *b = base(name); /* mpiexec.mpich-4.0 and the like */
    return strstr(b, "mpich") || strstr(b, "hydra") ? HC_MPICH
           : strstr(b, "openmpi")                   ? HC_OMPI
                                                    : HC_UNKNOWN_MPI;
}

/* The launcher's path as the shell would run it (PATH searched). */
static int find_in_path(const char *cmd, char *out, size_t len)
{
    if (strchr(cmd, '/'))
        return snprintf(out, len, "%s", cmd), 0;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t l = strcspn(p, ":");
        snprintf(out, len, "%.*s/%s", (int)l, p, cmd);
        if (access(out, X_OK) == 0)
            return 0;
        p += l + (p[l] == ':');
    }
    return -1;
}

hc_mpi_family hc_launcher_family(const char *launcher)
{
    hc_mpi_family f = by_name(launcher);
    char path[PATH_MAX], real[PATH_MAX];
    if (f != HC_UNKNOWN_MPI || hc_launch_by_name(launcher) == HC_LAUNCH_SRUN ||
        find_in_path(launcher, path, sizeof path) != 0)
        return f;
    if (realpath(path, real) && (f = by_name(real)) != HC_UNKNOWN_MPI)
        return f; /* an unsuffixed name -> /etc/alternatives/... -> /usr/bin/orterun */
    char cmd[PATH_MAX + 32], line[256];
    snprintf(cmd, sizeof cmd, "'%s' --version 2>&1 </dev/null", path);
    FILE *p = strchr(path, '\'') ? NULL : popen(cmd, "r");
    while (p && fgets(line, sizeof line, p) && f == HC_UNKNOWN_MPI) {
        if (strstr(line, "Open MPI") || strstr(line, "OpenRTE"))
            f = HC_OMPI;
        else if (strstr(line, "HYDRA"))
            f = HC_MPICH;
    }
    if (p)
        pclose(p);
    return f;
}

hc_mpi_family hc_program_family(const char *program)
{
    char path[PATH_MAX];
    if (find_in_path(program, path, sizeof path) != 0)
        return HC_UNKNOWN_MPI;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return HC_UNKNOWN_MPI;
    /* The dynamic section's library names are plain strings in the file: enough to tell the
     * two families apart without an ELF reader. */
    hc_mpi_family f = HC_UNKNOWN_MPI;
    static char buf[1 << 16];
    const char *const mpich = "libmpich.so", *const ompi = "libmpi.so.4";
    ssize_t n, keep = 0;
    while (f == HC_UNKNOWN_MPI && (n = read(fd, buf + keep, sizeof buf - (size_t)keep)) > 0) {
        n += keep;
        if (memmem(buf, (size_t)n, mpich, strlen(mpich)))
            f = HC_MPICH;
        else if (memmem(buf, (size_t)n, ompi, strlen(ompi)))
            f = HC_OMPI;
        keep = n < 16 ? n : 16; /* a name across two reads */
        memmove(buf, buf + n - keep, (size_t)keep);
    }
    close(fd);
    return f;
}

void hc_launcher_placement(hc_mpi_family f, char **args, int *n, long np)
{
    /* Pinned when every rank has a core: unpinned, the scheduler sometimes stacks two ranks on
     * one core for a while and a run's medians drift by 2x. */
    if (np <= sysconf(_SC_NPROCESSORS_ONLN)) {
        args[(*n)++] = f == HC_OMPI ? "--bind-to" : "-bind-to";
        args[(*n)++] = "core";
    } else if (f == HC_OMPI) {
        args[(*n)++] = "--oversubscribe";
    }
}
