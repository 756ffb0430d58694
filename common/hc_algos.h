/* The registry of algorithms and their parameters (hc_algos.def), without MPI: names, enum
 * indices, accepted lists and the parser of "name:key=value,..." share one list, so names and
 * code cannot drift. collectives/ binds the engines (bcast_engines.c, allreduce_engines.c). */
#ifndef HC_ALGOS_H
#define HC_ALGOS_H

#include <stddef.h>

enum hc_coll_id { HC_COLL_BCAST, HC_COLL_ALLREDUCE, HC_COLL_COUNT };

/* HC_BCAST_AUTO, HC_BCAST_VENDOR, ...: indices in the broadcast's list; likewise
 * HC_ALLREDUCE_*. The filters keep each collective's indices starting at 0. */
#define HC_ONLY_BCAST(...) __VA_ARGS__
#define HC_ONLY_ALLREDUCE(...)
#define HC_ALGO(COLL, ID, name, ENGINE, params, help) HC_ONLY_##COLL(HC_BCAST_##ID, )
#define HC_PARAM(COLL, ID, key, TYPE, acc, help)
enum {
#include "hc_algos.def"
    HC_BCAST_COUNT
};
#undef HC_ALGO
#undef HC_ONLY_BCAST
#undef HC_ONLY_ALLREDUCE
#define HC_ONLY_BCAST(...)
#define HC_ONLY_ALLREDUCE(...) __VA_ARGS__
#define HC_ALGO(COLL, ID, name, ENGINE, params, help) HC_ONLY_##COLL(HC_ALLREDUCE_##ID, )
enum {
#include "hc_algos.def"
    HC_ALLREDUCE_COUNT
};
#undef HC_ALGO
#undef HC_PARAM

/* Parameter indices: HC_BCAST_P_SEG, ..., HC_ALLREDUCE_P_PACKET, ... */
#define HC_ALGO(COLL, ID, name, ENGINE, params, help)
#define HC_PARAM(COLL, ID, key, TYPE, acc, help) HC_ONLY_##COLL(HC_BCAST_P_##ID, )
#undef HC_ONLY_BCAST
#undef HC_ONLY_ALLREDUCE
#define HC_ONLY_BCAST(...) __VA_ARGS__
#define HC_ONLY_ALLREDUCE(...)
enum {
#include "hc_algos.def"
    HC_BCAST_NPARAMS
};
#undef HC_PARAM
#undef HC_ONLY_BCAST
#undef HC_ONLY_ALLREDUCE
#define HC_ONLY_BCAST(...)
#define HC_ONLY_ALLREDUCE(...) __VA_ARGS__
#define HC_PARAM(COLL, ID, key, TYPE, acc, help) HC_ONLY_##COLL(HC_ALLREDUCE_P_##ID, )
enum {
#include "hc_algos.def"
    HC_ALLREDUCE_NPARAMS
};
#undef HC_ALGO
#undef HC_PARAM
#undef HC_ONLY_BCAST
#undef HC_ONLY_ALLREDUCE

/* The accepted values of HIERCOLL_BCAST / HIERCOLL_ALLREDUCE, "auto|vendor|...", built from
 * the list in hc_algos.c (each name there is "|name"; the first bar is skipped). */
extern const char hc_bcast_names_bar[], hc_allreduce_names_bar[];
#define HC_BCAST_ACCEPTED (hc_bcast_names_bar + 1)
#define HC_ALLREDUCE_ACCEPTED (hc_allreduce_names_bar + 1)

enum hc_param_type { HC_PARAM_SIZE, HC_PARAM_ENUM, HC_PARAM_DIMS };

typedef struct hc_algo_desc {
    const char *name, *engine, *params, *help;
} hc_algo_desc;
typedef struct hc_param_desc {
    const char *key;
    enum hc_param_type type;
    const char *accepted, *help;
} hc_param_desc;

/* A collective's algorithms and parameters, by index. */
int hc_algo_count(int coll);
const hc_algo_desc *hc_algo(int coll, int id);
int hc_param_count(int coll);
const hc_param_desc *hc_param(int coll, int id);
/* "bcast" or "allreduce" -> HC_COLL_*, -1 if neither; and back. */
int hc_coll_find(const char *name);
const char *hc_coll_name(int coll);
/* Index of an algorithm's name, -1 if it has none. */
int hc_algo_find(int coll, const char *name);

/* Parameter values: bit p of `set` says parameter p has one. SIZE: bytes; ENUM: index in its
 * accepted list; DIMS: HC_DIMS_MACHINE, HC_DIMS_FLAT, or the count of dims[]. */
#define HC_PARAMS_MAX 8
#define HC_DIMS_MACHINE (-1)
#define HC_DIMS_FLAT (-2)
typedef struct hc_params {
    unsigned set;
    long long v[HC_PARAMS_MAX];
    int dims[8];
} hc_params;

/* "name" or "name:key=value,key=value" -> *algo and *p (only the parameters written; p is
 * cleared first). 0, or -1 with a one-line reason in err naming what is accepted. */
int hc_algo_parse(int coll, const char *text, int *algo, hc_params *p, char *err, size_t errlen);
/* The algorithm's own values (its params column) over p's unset parameters. */
void hc_params_own(int coll, int algo, hc_params *p);
/* Writes "name" or "name:key=value,..." (the set parameters) into out. */
void hc_algo_format(int coll, int algo, const hc_params *p, char *out, size_t len);

#endif
