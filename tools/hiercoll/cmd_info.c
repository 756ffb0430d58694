/* hiercoll info: every HIERCOLL_* variable (default, current value, meaning), the algorithms
 * of the registry and the topology of this machine. --markdown prints the variable table
 * README.md embeds; --json everything. */
#include <getopt.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "hc_cli.h"
#include "hc_config.h"

extern char **environ;

typedef struct topo_summary {
    char host[256];
    int packages, numa, cores, pus;
    char synthetic[1024];
} topo_summary;

static void read_topology(topo_summary *t)
{
    memset(t, 0, sizeof *t);
    if (gethostname(t->host, sizeof t->host) != 0)
        strcpy(t->host, "unknown");
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return;
    if (hwloc_topology_load(topo) == 0) {
        t->packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
        t->numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        t->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        t->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        if (hwloc_topology_export_synthetic(topo, t->synthetic, sizeof t->synthetic, 0) < 0)
            strcpy(t->synthetic, "?");
    }
    hwloc_topology_destroy(topo);
}

/* The current value of one variable as the preload would read it; err set if invalid. */
static const char *current(const hc_var_desc *v, char *err, size_t errlen)
{
    err[0] = 0;
    const char *env = getenv(v->name);
    if (!env)
        return NULL;
    hc_value val;
    if (hc_config_parse_value(v, env, &val, err, errlen) != 0 && !err[0])
        snprintf(err, errlen, "invalid value");
    return env;
}

/* A markdown table cell: '|' escaped so "a|b|c" stays in one cell; empty shown as "(none)". */
static void md_cell(const char *s, int code)
{
    if (!*s) {
        fputs("(none)", stdout);
        return;
    }
    if (code)
        fputc('`', stdout);
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', stdout);
        fputc(*s, stdout);
    }
    if (code)
        fputc('`', stdout);
}

static void print_markdown(void)
{
    printf("| Variable | Default | Accepted | Meaning |\n");
    printf("| --- | --- | --- | --- |\n");
    for (int i = 0; i < hc_var_count; i++) {
        const hc_var_desc *v = &hc_var_table[i];
        printf("| `%s` | ", v->name);
        md_cell(v->def, 1);
        printf(" | ");
        md_cell(v->accepted, 1);
        printf(" | ");
        md_cell(v->help, 0);
        printf(" |\n");
    }
}

/* The registry (common/hc_algos.def): what HIERCOLL_BCAST / HIERCOLL_ALLREDUCE, the info keys
 * and tuning files accept, the engine behind each, and the parameters rules may set. */
static void print_algorithms(void)
{
    for (int coll = 0; coll < HC_COLL_COUNT; coll++) {
        printf("\n%s algorithms (HIERCOLL_%s, info key hiercoll_%s, tuning files):\n",
               hc_coll_name(coll), coll == HC_COLL_BCAST ? "BCAST" : "ALLREDUCE",
               hc_coll_name(coll));
        for (int a = 0; a < hc_algo_count(coll); a++) {
            const hc_algo_desc *d = hc_algo(coll, a);
            char engine[32];
            snprintf(engine, sizeof engine, "%s", d->engine);
            for (char *p = engine; *p; p++)
                *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
            printf("  %-11s %-8s %s%s%s%s\n", d->name, strcmp(engine, "none") ? engine : "-",
                   d->help, d->params[0] ? " [" : "", d->params, d->params[0] ? "]" : "");
        }
        printf("  parameters (a tuning rule's \"name:key=value,...\"):\n");
        for (int i = 0; i < hc_param_count(coll); i++)
            printf("    %-11s %-22s %s\n", hc_param(coll, i)->key, hc_param(coll, i)->accepted,
                   hc_param(coll, i)->help);
    }
}

static void print_text(const topo_summary *t, int vnode)
{
    printf("Configuration (HIERCOLL_* environment variables, read at MPI_Init):\n");
    int width = 0;
    for (int i = 0; i < hc_var_count; i++)
        if ((int)strlen(hc_var_table[i].name) > width)
            width = (int)strlen(hc_var_table[i].name);
    for (int i = 0; i < hc_var_count; i++) {
        const hc_var_desc *v = &hc_var_table[i];
        char err[256];
        const char *cur = current(v, err, sizeof err);
        putchar('\n');
        const char *shown = cur ? cur : (*v->def ? v->def : "\"\"");
        printf("  %-*s  %-10s %-8s accepts %s\n", width, v->name, shown,
               cur ? "(set)" : "(default)", v->accepted);
        printf("  %-*s  %s\n", width, "", v->help);
        if (err[0])
            printf("  %-*s  INVALID: %s\n", width, "", err);
    }
    print_algorithms();
    printf("\nThis machine (hwloc):\n");
    printf("  host          %s\n", t->host);
    printf("  packages      %d\n", t->packages);
    printf("  NUMA domains  %d\n", t->numa);
    printf("  cores         %d\n", t->cores);
    printf("  PUs           %d\n", t->pus);
    printf("  synthetic     %s\n", t->synthetic);
    if (vnode > 0)
        printf("  virtual nodes of %d consecutive ranks (HIERCOLL_VIRTUAL_NODE_SIZE)\n", vnode);
}

static void print_json(const topo_summary *t, int vnode)
{
    printf("{\n  \"variables\": [\n");
    for (int i = 0; i < hc_var_count; i++) {
        const hc_var_desc *v = &hc_var_table[i];
        char err[256];
        const char *cur = current(v, err, sizeof err);
        printf("    {\"name\": ");
        hc_json_str(stdout, v->name);
        printf(", \"default\": ");
        hc_json_str(stdout, v->def);
        printf(", \"accepted\": ");
        hc_json_str(stdout, v->accepted);
        printf(", \"value\": ");
        hc_json_str(stdout, cur ? cur : v->def);
        printf(", \"set\": %s, \"valid\": %s, \"meaning\": ", cur ? "true" : "false",
               err[0] ? "false" : "true");
        hc_json_str(stdout, v->help);
        printf("}%s\n", i + 1 < hc_var_count ? "," : "");
    }
    printf("  ],\n  \"algorithms\": {");
    for (int coll = 0; coll < HC_COLL_COUNT; coll++) {
        printf("%s\n    \"%s\": [", coll ? "," : "", hc_coll_name(coll));
        for (int a = 0; a < hc_algo_count(coll); a++) {
            const hc_algo_desc *d = hc_algo(coll, a);
            printf("%s\n      {\"name\": ", a ? "," : "");
            hc_json_str(stdout, d->name);
            printf(", \"engine\": ");
            hc_json_str(stdout, d->engine);
            printf(", \"params\": ");
            hc_json_str(stdout, d->params);
            printf(", \"meaning\": ");
            hc_json_str(stdout, d->help);
            printf("}");
        }
        printf("]");
    }
    printf("\n  },\n  \"topology\": {\"host\": ");
    hc_json_str(stdout, t->host);
    printf(", \"packages\": %d, \"numa_domains\": %d, \"cores\": %d, \"pus\": %d, "
           "\"virtual_node_size\": %d, \"synthetic\": ",
           t->packages, t->numa, t->cores, t->pus, vnode);
    hc_json_str(stdout, t->synthetic);
    printf("}\n}\n");
}

static void usage(FILE *out)
{
    fprintf(out, "usage: hiercoll info [--markdown | --json]\n"
                 "  Lists every HIERCOLL_* variable (current value, default, accepted values,\n"
                 "  meaning), every algorithm of MPI_Bcast and MPI_Allreduce with its engine and\n"
                 "  parameters, and this machine's topology.\n"
                 "  --markdown  only the variable table, as GitHub markdown (README.md embeds it)\n"
                 "  --json      everything as one JSON object\n");
}

int hc_cmd_info(int argc, char **argv)
{
    static const struct option opts[] = {{"markdown", no_argument, 0, 'm'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int markdown = 0, json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'm': markdown = 1; break;
        case 'j': json = 1; break;
        case 'h': usage(stdout); return HC_EXIT_OK;
        default: usage(stderr); return HC_EXIT_USAGE;
        }
    }
    if (optind < argc || (markdown && json)) {
        usage(stderr);
        return HC_EXIT_USAGE;
    }
    if (markdown) {
        print_markdown();
        return HC_EXIT_OK;
    }
    /* Unknown HIERCOLL_* names: the same warning the preload gives at MPI_Init. */
    static hc_config cfg;
    char err[512], warn[2048] = "";
    hc_config_load(&cfg, environ, err, sizeof err, warn, sizeof warn);
    if (warn[0])
        fprintf(stderr, "%s%s", warn, warn[strlen(warn) - 1] == '\n' ? "" : "\n");
    topo_summary t;
    read_topology(&t);
    const char *vn = getenv("HIERCOLL_VIRTUAL_NODE_SIZE");
    int vnode = vn ? atoi(vn) : 0;
    if (json)
        print_json(&t, vnode);
    else
        print_text(&t, vnode);
    return HC_EXIT_OK;
}
