/* The launcher module (which options are placement, where srun's program starts), next-run.sh
 * for srun, host topology records, and the one bandwidth reader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_bandwidth.h"
#include "hc_hosttopo.h"
#include "hc_launcher.h"
#include "hc_next_run.h"
#include "hc_test.h"

HC_TEST(spotting)
{
    HC_CHECK_EQ_INT(hc_launch_by_name("/usr/bin/mpiexec.mpich"), HC_LAUNCH_HYDRA);
    HC_CHECK_EQ_INT(hc_launch_by_name("mpiexec.hydra"), HC_LAUNCH_HYDRA);
    HC_CHECK_EQ_INT(hc_launch_by_name("orterun"), HC_LAUNCH_MPIRUN);
    HC_CHECK_EQ_INT(hc_launch_by_name("/usr/bin/srun"), HC_LAUNCH_SRUN);
    HC_CHECK_EQ_INT(hc_launch_by_name("mpirun"), HC_LAUNCH_NONE); /* either family */
    HC_CHECK_EQ_INT(hc_launch_helper_by_name("/usr/bin/hydra_pmi_proxy"), HC_LAUNCH_HYDRA);
    HC_CHECK_EQ_INT(hc_launch_helper_by_name("slurmstepd: [3.0]"), HC_LAUNCH_SRUN);
    HC_CHECK_EQ_INT(hc_launch_helper_by_name("orted"), HC_LAUNCH_MPIRUN);
    HC_CHECK_EQ_INT(hc_launch_family(HC_LAUNCH_SRUN), HC_UNKNOWN_MPI);
}

/* srun's words: how many each spans and whether placement, in every spelling. */
HC_TEST(srun_options)
{
    static struct {
        const char *a[3];
        int words, placement;
    } cases[] = {
        {{"-n", "8", "./app"}, 2, 1},        {{"-n8", "./app"}, 1, 1},
        {{"--ntasks=8", "./app"}, 1, 1},     {{"--ntasks", "8", "./app"}, 2, 1},
        {{"-lO", "./app"}, 1, 0},            {{"-ln", "4", "./app"}, 2, 1},
        {{"--mpi=pmi2", "./app"}, 1, 0},     {{"--mpi", "pmix", "./app"}, 2, 0},
        {{"-J", "-n", "./app"}, 2, 0},       {{"--distribution=cyclic", "x"}, 1, 1},
        {{"-m", "block", "x"}, 2, 1},        {{"--cpu-bind=cores", "x"}, 1, 1},
        {{"-w", "h[1-2]", "x"}, 2, 1},       {{"--overcommit", "x"}, 1, 0},
        {{"--export=ALL,A=1", "x"}, 1, 0},   {{"--label", "x"}, 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = cases[i].a[2] ? 3 : 2;
        hc_launch_opt o;
        hc_launch_opt_at(HC_LAUNCH_SRUN, (char *const *)cases[i].a, n, &o);
        HC_CHECK_MSG(o.option && o.words == cases[i].words && o.placement == cases[i].placement,
                     "%s: words %d placement %d\n", cases[i].a[0], o.words, o.placement);
    }
    char *argv[] = {"srun", "-N2", "-J", "job", "--mpi", "pmi2", "-lO", "./app", "-n", "3"};
    HC_CHECK_EQ_INT(hc_launch_program_index(HC_LAUNCH_SRUN, argv, 10), 7);
    HC_CHECK(hc_launch_has_flag(HC_LAUNCH_SRUN, argv + 1, 6, "overcommit", 'O'));
    HC_CHECK(!hc_launch_has_flag(HC_LAUNCH_SRUN, argv + 1, 6, "kill-on-bad-exit", 'K'));
    char *bundled[] = {"-Kn", "4"}, *after[] = {"-nO"}; /* "-nO": O is n's argument */
    HC_CHECK(hc_launch_has_flag(HC_LAUNCH_SRUN, bundled, 2, "kill-on-bad-exit", 'K'));
    HC_CHECK(!hc_launch_has_flag(HC_LAUNCH_SRUN, after, 1, "overcommit", 'O'));
    char *dash[] = {"srun", "-n", "2", "--", "./app"};
    HC_CHECK_EQ_INT(hc_launch_program_index(HC_LAUNCH_SRUN, dash, 5), 4);
    /* Open MPI's rankfile through --mca is placement and spans three words */
    char *mca[] = {"--mca", "rmaps_rank_file_physical", "1", "./app"};
    hc_launch_opt o;
    hc_launch_opt_at(HC_LAUNCH_MPIRUN, mca, 4, &o);
    HC_CHECK(o.words == 3 && o.placement);
    char *x[] = {"-x", "UCX_TLS=tcp", "./app"};
    hc_launch_opt_at(HC_LAUNCH_MPIRUN, x, 3, &o);
    HC_CHECK(o.words == 2 && !o.placement && o.var_len == 7 && !strncmp(o.var, "UCX_TLS", 7));
}

static char *slurp(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return buf;
}

/* srun's next run: kept options, placement replaced, variables through hiercoll bind, the
 * profiler's own --export items gone, the tuning file looked for at run time. */
HC_TEST(srun_next_run)
{
    char dir[] = "/tmp/hc-unit-launcher-XXXXXX";
    HC_CHECK(mkdtemp(dir) != NULL);
    hc_mapfile f;
    HC_CHECK_EQ_INT(hc_mapfile_alloc(&f, 3), 0);
    const char *hosts[3] = {"h2", "h1", "h2"};
    const int cores[3] = {1, 0, 1}; /* two ranks on h2's core 1: oversubscribed */
    for (int r = 0; r < 3; r++) {
        snprintf(f.host[r], sizeof f.host[r], "%s", hosts[r]);
        f.core[r] = cores[r];
    }
    char *opts[] = {"-n", "3", "--mpi=pmi2",
                    "--export=ALL,LD_PRELOAD=/l.so,HIERCOLL_PROFILE=/p,X=1", "-m", "cyclic", "-J",
                    "name"};
    char *prog[] = {"./app", "it's"};
    char *env[] = {"LD_PRELOAD=/lib/libhiercoll.so", "HIERCOLL_BANDWIDTHS=1e9,2e9",
                   "HIERCOLL_PROFILE=/p"};
    hc_launch l = {.kind = HC_LAUNCH_SRUN, .family = HC_MPICH, .launcher = "srun", .opts = opts,
                   .nopts = 8, .prog = prog, .nprog = 2, .env = env, .nenv = 3, .cwd = "/w",
                   .tool = "/b/hiercoll", .slurm = 1};
    char err[300], path[300];
    HC_CHECK_EQ_INT(hc_next_run_write(dir, &l, &f, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/next-run.sh", dir);
    const char *s = slurp(path);
    HC_CHECK(strstr(s, "SLURM_HOSTFILE=$map/slurm.hostfile") != NULL);
    HC_CHECK(strstr(s, "'--mpi=pmi2'") && strstr(s, "'-J' 'name'"));
    HC_CHECK(!strstr(s, "'cyclic'") && !strstr(s, "'-n' '3'"));
    HC_CHECK(strstr(s, "--export='ALL,X=1'") != NULL);
    HC_CHECK(strstr(s, "-n 3 --distribution=arbitrary --cpu-bind=none --kill-on-bad-exit "
                       "--overcommit") != NULL);
    /* overcommitting, srun would get one CPU a node: an allocation of the cores first */
    HC_CHECK(strstr(s, "exec salloc --nodes=2 --nodelist=h2,h1 --ntasks=2 sh \"$0\"") != NULL);
    HC_CHECK(strstr(s, "--preload '/lib/libhiercoll.so'") != NULL);
    HC_CHECK(strstr(s, "--env 'HIERCOLL_BANDWIDTHS=1e9,2e9'") != NULL);
    HC_CHECK(!strstr(s, "HIERCOLL_PROFILE=/p"));
    HC_CHECK(strstr(s, "[ -f \"$prof/tuning.txt\" ] && tuning=$prof/tuning.txt") != NULL);
    HC_CHECK(strstr(s, "map --profile \"$prof\" --allocation") != NULL);
    HC_CHECK(strstr(s, "-- './app' 'it'\\''s'\n") != NULL);
    snprintf(path, sizeof path, "%s/next-run.sbatch", dir);
    s = slurp(path);
    /* the cores the mapping uses, not --overcommit (Slurm would give one CPU a node) */
    HC_CHECK(strstr(s, "#SBATCH --nodes=2\n#SBATCH --nodelist=h2,h1\n#SBATCH --ntasks=2\n") &&
             !strstr(s, "overcommit"));
    if (hc_test_current_failed)
        fprintf(stderr, "%s\n", slurp(path));
    hc_mapfile_free(&f);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    HC_CHECK_EQ_INT(system(cmd), 0);
}

HC_TEST(host_topology_records)
{
    hc_host_topo t = {.host = "h1", .synthetic = "core:2 pu:2"}, u, w;
    HC_CHECK_EQ_INT(hc_host_topo_parse(&t, "1 0,2;1,3"), 0);
    HC_CHECK(t.ncores == 2 && t.npackages == 1 && t.maxpu == 3 && t.core_os[1] == 1 &&
             t.pu_core[3] == 1 && !strcmp(t.host, "h1"));
    char text[64];
    hc_host_topo_format(&t, text, sizeof text);
    HC_CHECK_MSG(!strcmp(text, "1 0,2;1,3"), "%s\n", text);
    size_t n = hc_host_topo_packed_size(&t);
    char *buf = malloc(n + 5);
    hc_host_topo_pack(&t, buf);
    HC_CHECK_EQ_INT(hc_host_topo_unpack(&u, buf, n), (long)n);
    HC_CHECK(!strcmp(u.host, "h1") && !strcmp(u.synthetic, "core:2 pu:2") && u.ncores == 2 &&
             u.pu_core[2] == 0 && u.core_os[1] == 1);
    HC_CHECK_EQ_INT(hc_host_topo_unpack(&w, buf, n - 1), -1); /* cut short */
    HC_CHECK_EQ_INT(hc_host_topo_find(&u, 1, "h1"), 0);
    HC_CHECK_EQ_INT(hc_host_topo_find(&u, 1, "h2"), -1);
    static const char *const bad[] = {"", "0 0;1", "1 0;;1", "1 0,", "1 0;0", "1 x", "1 0 1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        HC_CHECK_MSG(hc_host_topo_parse(&w, bad[i]) == -1, "'%s' accepted\n", bad[i]);
    free(buf);
    hc_host_topo_free(&t);
    hc_host_topo_free(&u);
}

HC_TEST(bandwidths_one_reader)
{
    const char *three[] = {"node", "package", "core"}, *two[] = {"node", "core"},
               *slot[] = {"node", "core", "slot"};
    double bw[4];
    char desc[256], warn[512];
    HC_CHECK_EQ_INT(hc_bandwidths(three, 3, "1e9,5e9,6e9", NULL, bw, desc, sizeof desc, warn,
                                  sizeof warn), HC_BW_FROM_LIST);
    HC_CHECK(bw[0] == 1e9 && bw[1] == 5e9 && bw[2] == 6e9 && !warn[0]);
    /* the collectives' two levels take the list's first and last of three */
    HC_CHECK_EQ_INT(hc_bandwidths(two, 2, "1e9,5e9,6e9", NULL, bw, desc, sizeof desc, warn,
                                  sizeof warn), HC_BW_FROM_LIST);
    HC_CHECK(bw[0] == 1e9 && bw[1] == 6e9);
    HC_CHECK_EQ_INT(hc_bandwidths(slot, 3, "1e9,5e9", NULL, bw, desc, sizeof desc, warn,
                                  sizeof warn), HC_BW_FROM_LIST);
    HC_CHECK(bw[2] == 5e9);
    HC_CHECK_EQ_INT(hc_bandwidths(two, 2, "1,2,3,4", "", bw, desc, sizeof desc, warn,
                                  sizeof warn), HC_BW_BUILTIN);
    HC_CHECK(strstr(warn, "has 4 values but the machine has 2 levels") && bw[0] == HC_BW_NETWORK &&
             bw[1] == HC_BW_CORE && !strcmp(desc, "built-in"));
    char perf[] = "/tmp/hc-unit-perf-XXXXXX";
    int fd = mkstemp(perf);
    const char *text = "# hiercoll machine-perf v1\nlevel network latency_us 3 bandwidth_Bps 3e9\n"
                       "level package latency_us 1 bandwidth_Bps 7e9\n";
    HC_CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    HC_CHECK_EQ_INT(hc_bandwidths(three, 3, NULL, perf, bw, desc, sizeof desc, warn,
                                  sizeof warn), HC_BW_FROM_FILE);
    HC_CHECK(bw[0] == 3e9 && bw[1] == 7e9 && bw[2] == 7e9 && !strcmp(desc, perf));
    unlink(perf);
    HC_CHECK_EQ_INT(hc_bandwidths(three, 3, NULL, perf, bw, desc, sizeof desc, warn,
                                  sizeof warn), HC_BW_BUILTIN);
    HC_CHECK(strstr(warn, "HIERCOLL_MACHINE_FILE") != NULL);
}

int main(void) { return hc_test_main(); }
