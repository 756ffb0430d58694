/* The registry of algorithms (common/hc_algos.def): every list of names comes from it, every
 * name has an engine and every engine a name, and "name:key=value" reads back as written. */
#include "allreduce_plan.h"
#include "bcast_plan.h"
#include "hc_config.h"
#include "hc_test.h"

/* "a|b|c" of a collective's names, as the registry lists them. */
static void joined(int coll, char *out, size_t len)
{
    out[0] = 0;
    for (int i = 0; i < hc_algo_count(coll); i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? "|" : "", hc_algo(coll, i)->name);
}

HC_TEST(variables_accept_exactly_the_registry)
{
    char names[256];
    joined(HC_COLL_BCAST, names, sizeof names);
    HC_CHECK_EQ_STR(hc_config_find("HIERCOLL_BCAST")->accepted, names);
    joined(HC_COLL_ALLREDUCE, names, sizeof names);
    HC_CHECK_EQ_STR(hc_config_find("HIERCOLL_ALLREDUCE")->accepted, names);
    for (int i = 0; i < hc_algo_count(HC_COLL_BCAST); i++)
        HC_CHECK_EQ_INT(hc_config_enum_index(hc_config_find("HIERCOLL_BCAST"),
                                             hc_algo(HC_COLL_BCAST, i)->name), i);
    HC_CHECK_EQ_INT(HC_BCAST_AUTO, 0);
    HC_CHECK_EQ_INT(HC_ALLREDUCE_AUTO, 0);
    HC_CHECK_EQ_STR(hc_algo(HC_COLL_BCAST, HC_BCAST_SHM_CMA)->name, "shm-cma");
    HC_CHECK_EQ_STR(hc_algo(HC_COLL_ALLREDUCE, HC_ALLREDUCE_RING1D)->name, "ring1d");
}

/* A name without an engine, or an engine no name reaches, fails here. */
HC_TEST(every_name_has_an_engine_and_every_engine_a_name)
{
    int used[HC_BCAST_ENGINE_COUNT] = {0};
    for (int a = 0; a < HC_BCAST_COUNT; a++) {
        int e = hc_bcast_engine_of[a];
        HC_CHECK_MSG(a == HC_BCAST_AUTO ? e == HC_BCAST_ENGINE_NONE : e != HC_BCAST_ENGINE_NONE,
                     "bcast algorithm %s: engine %d", hc_algo(HC_COLL_BCAST, a)->name, e);
        HC_CHECK_MSG(a == HC_BCAST_AUTO || (hc_bcast_engines[e].root && hc_bcast_engines[e].read &&
                                            hc_bcast_engines[e].cells),
                     "bcast algorithm %s has no code", hc_algo(HC_COLL_BCAST, a)->name);
        used[e]++;
    }
    for (int e = 1; e < HC_BCAST_ENGINE_COUNT; e++)
        HC_CHECK_MSG(used[e] > 0, "bcast engine %s has no name", hc_bcast_engines[e].name);
    /* Readers follow cells: each kind of cell belongs to exactly one engine. */
    for (unsigned kind = HC_BCELL_DATA; kind <= HC_BCELL_VENDOR; kind++) {
        int owners = 0;
        for (int e = 1; e < HC_BCAST_ENGINE_COUNT; e++)
            owners += hc_bcast_engines[e].cells >> kind & 1;
        HC_CHECK_MSG(owners == 1, "cell kind %u read by %d engines", kind, owners);
    }
    int ar_used[HC_ALLREDUCE_ENGINE_COUNT] = {0};
    for (int a = 0; a < HC_ALLREDUCE_COUNT; a++) {
        int e = hc_allreduce_engine_of[a];
        HC_CHECK_MSG(a == HC_ALLREDUCE_AUTO ? e == HC_ALLREDUCE_ENGINE_NONE
                                            : e != HC_ALLREDUCE_ENGINE_NONE &&
                                                  hc_allreduce_engines[e].run &&
                                                  hc_allreduce_engines[e].can,
                     "allreduce algorithm %s: engine %d", hc_algo(HC_COLL_ALLREDUCE, a)->name, e);
        ar_used[e]++;
    }
    for (int e = 1; e < HC_ALLREDUCE_ENGINE_COUNT; e++)
        HC_CHECK_MSG(ar_used[e] > 0, "allreduce engine %s has no name",
                     hc_allreduce_engines[e].name);
}

/* Each algorithm's own parameters are valid text of the grammar rules use. */
HC_TEST(own_parameters_parse)
{
    for (int coll = 0; coll < HC_COLL_COUNT; coll++)
        for (int a = 0; a < hc_algo_count(coll); a++) {
            char text[256], err[256];
            const hc_algo_desc *d = hc_algo(coll, a);
            snprintf(text, sizeof text, "%s%s%s", d->name, d->params[0] ? ":" : "", d->params);
            int algo;
            hc_params p;
            HC_CHECK_MSG(hc_algo_parse(coll, text, &algo, &p, err, sizeof err) == 0 && algo == a,
                         "%s: %s", text, err);
            hc_params own = {0};
            hc_params_own(coll, a, &own);
            HC_CHECK_EQ_INT(own.set, p.set);
        }
}

HC_TEST(parameters_round_trip_and_errors_name_the_choices)
{
    const char *good[] = {"shm:seg=262144,nt_min=8192,direct=always", "shm-cma", "vendor",
                          "shm-direct:direct_min=0"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int algo;
        hc_params p;
        char err[256], back[256];
        HC_CHECK(hc_algo_parse(HC_COLL_BCAST, good[i], &algo, &p, err, sizeof err) == 0);
        hc_algo_format(HC_COLL_BCAST, algo, &p, back, sizeof back);
        HC_CHECK_EQ_STR(back, good[i]);
    }
    int algo;
    hc_params p;
    char err[256], back[128];
    HC_CHECK(hc_algo_parse(HC_COLL_ALLREDUCE, "ring:dims=2x4,packet=64K", &algo, &p, err,
                           sizeof err) == 0);
    hc_algo_format(HC_COLL_ALLREDUCE, algo, &p, back, sizeof back);
    HC_CHECK_EQ_STR(back, "ring:packet=65536,dims=2x4");
    HC_CHECK(hc_algo_parse(HC_COLL_BCAST, "fastest", &algo, &p, err, sizeof err) != 0);
    HC_CHECK_MSG(strstr(err, "auto|vendor|shm|shm-direct|shm-cma") != NULL, "%s", err);
    HC_CHECK(hc_algo_parse(HC_COLL_BCAST, "shm:seg=1", &algo, &p, err, sizeof err) != 0);
    HC_CHECK_MSG(strstr(err, "4K..1G") != NULL, "%s", err);
    HC_CHECK(hc_algo_parse(HC_COLL_BCAST, "shm:colour=red", &algo, &p, err, sizeof err) != 0);
    HC_CHECK_MSG(strstr(err, "seg nt_min direct direct_min") != NULL, "%s", err);
    HC_CHECK(hc_algo_parse(HC_COLL_BCAST, "shm:direct=sometimes", &algo, &p, err, sizeof err) != 0);
    HC_CHECK(hc_algo_parse(HC_COLL_ALLREDUCE, "ring:dims=0x2", &algo, &p, err, sizeof err) != 0);
}

int main(void)
{
    char err[256], warn[256];
    char *envp[] = {NULL};
    hc_config_load(&hc_cfg, envp, err, sizeof err, warn, sizeof warn);
    return hc_test_main();
}
