/* The registry of algorithms (hc_algos.def): tables, lookups and the "name:key=value" parser. */
#include "hc_algos.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "hc_config.h"

#define HC_BAR_BCAST(x) x
#define HC_BAR_ALLREDUCE(x)
#define HC_ALGO(COLL, ID, name, ENGINE, params, help) HC_BAR_##COLL("|" name)
#define HC_PARAM(COLL, ID, key, TYPE, acc, help)
const char hc_bcast_names_bar[] =
#include "hc_algos.def"
    ;
#undef HC_BAR_BCAST
#undef HC_BAR_ALLREDUCE
#define HC_BAR_BCAST(x)
#define HC_BAR_ALLREDUCE(x) x
const char hc_allreduce_names_bar[] =
#include "hc_algos.def"
    ;
#undef HC_ALGO
#undef HC_PARAM

#define HC_ALGO(COLL, ID, name, ENGINE, params, help) HC_ROW_##COLL({name, #ENGINE, params, help})
#define HC_PARAM(COLL, ID, key, TYPE, acc, help)
#define HC_ROW_BCAST(...) __VA_ARGS__,
#define HC_ROW_ALLREDUCE(...)
static const hc_algo_desc bcast_algos[] = {
#include "hc_algos.def"
};
#undef HC_ROW_BCAST
#undef HC_ROW_ALLREDUCE
#define HC_ROW_BCAST(...)
#define HC_ROW_ALLREDUCE(...) __VA_ARGS__,
static const hc_algo_desc allreduce_algos[] = {
#include "hc_algos.def"
};
#undef HC_ALGO
#undef HC_PARAM
#define HC_ALGO(COLL, ID, name, ENGINE, params, help)
#define HC_PARAM(COLL, ID, key, TYPE, acc, help) HC_ROW_##COLL({key, HC_PARAM_##TYPE, acc, help})
static const hc_param_desc allreduce_params[] = {
#include "hc_algos.def"
};
#undef HC_ROW_BCAST
#undef HC_ROW_ALLREDUCE
#define HC_ROW_BCAST(...) __VA_ARGS__,
#define HC_ROW_ALLREDUCE(...)
static const hc_param_desc bcast_params[] = {
#include "hc_algos.def"
};
#undef HC_ALGO
#undef HC_PARAM
#undef HC_ROW_BCAST
#undef HC_ROW_ALLREDUCE

_Static_assert(HC_BCAST_NPARAMS <= HC_PARAMS_MAX && HC_ALLREDUCE_NPARAMS <= HC_PARAMS_MAX,
               "hc_params holds every parameter of a collective");
_Static_assert(HC_BCAST_COUNT <= HC_PARAMS_MAX * 4 && HC_ALLREDUCE_COUNT <= HC_PARAMS_MAX * 4,
               "own_values holds every algorithm");

static const struct {
    const char *name;
    const hc_algo_desc *algos;
    int nalgos;
    const hc_param_desc *params;
    int nparams;
} colls[HC_COLL_COUNT] = {
    {"bcast", bcast_algos, HC_BCAST_COUNT, bcast_params, HC_BCAST_NPARAMS},
    {"allreduce", allreduce_algos, HC_ALLREDUCE_COUNT, allreduce_params, HC_ALLREDUCE_NPARAMS},
};

int hc_algo_count(int coll) { return colls[coll].nalgos; }
const hc_algo_desc *hc_algo(int coll, int id) { return &colls[coll].algos[id]; }
int hc_param_count(int coll) { return colls[coll].nparams; }
const hc_param_desc *hc_param(int coll, int id) { return &colls[coll].params[id]; }
const char *hc_coll_name(int coll) { return colls[coll].name; }

int hc_coll_find(const char *name)
{
    for (int k = 0; k < HC_COLL_COUNT; k++)
        if (strcmp(name, colls[k].name) == 0)
            return k;
    return -1;
}

int hc_algo_find(int coll, const char *name)
{
    for (int i = 0; i < colls[coll].nalgos; i++)
        if (strcmp(name, colls[coll].algos[i].name) == 0)
            return i;
    return -1;
}

/* Index of the n-byte word w in a '|'-separated list, -1 if absent. */
static int word_index(const char *list, const char *w, size_t n)
{
    int i = 0;
    for (const char *p = list;; i++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, w, n) == 0)
            return i;
        if (!bar)
            return -1;
        p = bar + 1;
    }
}

static int param_find(int coll, const char *key, size_t n)
{
    for (int i = 0; i < colls[coll].nparams; i++)
        if (strlen(colls[coll].params[i].key) == n && strncmp(key, colls[coll].params[i].key, n) == 0)
            return i;
    return -1;
}

static int parse_value(const hc_param_desc *d, const char *text, int id, hc_params *p)
{
    if (d->type == HC_PARAM_SIZE) {
        long long lo = 0, hi = 0, v;
        char a[32], b[32];
        if (hc_parse_size(text, &v) != 0 || sscanf(d->accepted, "%31[^.]..%31s", a, b) != 2 ||
            hc_parse_size(a, &lo) != 0 || hc_parse_size(b, &hi) != 0 || v < lo || v > hi)
            return -1;
        p->v[id] = v;
    } else if (d->type == HC_PARAM_ENUM) {
        int k = word_index(d->accepted, text, strlen(text));
        if (k < 0)
            return -1;
        p->v[id] = k;
    } else if (strcmp(text, "machine") == 0 || strcmp(text, "flat") == 0) {
        p->v[id] = text[0] == 'm' ? HC_DIMS_MACHINE : HC_DIMS_FLAT;
    } else {
        int n = hc_parse_dims(text, p->dims, (int)(sizeof p->dims / sizeof p->dims[0]));
        if (n <= 0)
            return -1;
        p->v[id] = n;
    }
    p->set |= 1u << id;
    return 0;
}

/* Parses "key=value,key=value" (text is n bytes, not terminated) into p. */
static int parse_params(int coll, const char *text, size_t n, hc_params *p, char *err,
                        size_t errlen)
{
    const char *end = text + n;
    while (text < end) {
        const char *comma = memchr(text, ',', (size_t)(end - text));
        const char *stop = comma ? comma : end, *eq = memchr(text, '=', (size_t)(stop - text));
        char value[64];
        int id = eq ? param_find(coll, text, (size_t)(eq - text)) : -1;
        if (id < 0) {
            snprintf(err, errlen, "unknown %s parameter '%.*s': use key=value with key one of",
                     colls[coll].name, (int)(eq ? eq - text : stop - text), text);
            for (int i = 0; i < colls[coll].nparams; i++)
                snprintf(err + strlen(err), errlen - strlen(err), " %s", colls[coll].params[i].key);
            return -1;
        }
        size_t vlen = (size_t)(stop - eq - 1);
        const hc_param_desc *d = &colls[coll].params[id];
        if (vlen >= sizeof value || (memcpy(value, eq + 1, vlen), value[vlen] = 0,
                                     parse_value(d, value, id, p) != 0)) {
            snprintf(err, errlen, "%s parameter %s='%.*s': use %s", colls[coll].name, d->key,
                     (int)vlen, eq + 1, d->accepted);
            return -1;
        }
        text = comma ? comma + 1 : end;
    }
    return 0;
}

int hc_algo_parse(int coll, const char *text, int *algo, hc_params *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    const char *colon = strchr(text, ':');
    size_t n = colon ? (size_t)(colon - text) : strlen(text);
    int id = -1;
    for (int i = 0; i < colls[coll].nalgos; i++)
        if (strlen(colls[coll].algos[i].name) == n && strncmp(text, colls[coll].algos[i].name, n) == 0)
            id = i;
    if (id < 0) {
        snprintf(err, errlen, "unknown %s algorithm '%.*s': use one of %s", colls[coll].name,
                 (int)n, text, (coll == HC_COLL_BCAST ? hc_bcast_names_bar : hc_allreduce_names_bar) + 1);
        return -1;
    }
    *algo = id;
    return colon ? parse_params(coll, colon + 1, strlen(colon + 1), p, err, errlen) : 0;
}

/* Each algorithm's own values, parsed once (the selectors ask on every call). */
static hc_params own_values[HC_COLL_COUNT][HC_PARAMS_MAX * 4];
static pthread_once_t own_once = PTHREAD_ONCE_INIT;
static void parse_own(void)
{
    char err[256];
    for (int coll = 0; coll < HC_COLL_COUNT; coll++)
        for (int a = 0; a < colls[coll].nalgos; a++) {
            const char *text = colls[coll].algos[a].params;
            /* the registry's own text; unit/test_algos parses every one */
            if (parse_params(coll, text, strlen(text), &own_values[coll][a], err, sizeof err) != 0)
                memset(&own_values[coll][a], 0, sizeof own_values[coll][a]);
        }
}

void hc_params_own(int coll, int algo, hc_params *p)
{
    pthread_once(&own_once, parse_own);
    const hc_params *own = &own_values[coll][algo];
    if (!own->set)
        return;
    for (int i = 0; i < colls[coll].nparams; i++)
        if ((own->set >> i & 1) && !(p->set >> i & 1)) {
            p->v[i] = own->v[i];
            if (own->v[i] > 0 && colls[coll].params[i].type == HC_PARAM_DIMS)
                memcpy(p->dims, own->dims, sizeof p->dims);
            p->set |= 1u << i;
        }
}

void hc_algo_format(int coll, int algo, const hc_params *p, char *out, size_t len)
{
    size_t at = (size_t)snprintf(out, len, "%s", colls[coll].algos[algo].name);
    char sep = ':';
    for (int i = 0; p && i < colls[coll].nparams && at < len; i++) {
        if (!(p->set >> i & 1))
            continue;
        const hc_param_desc *d = &colls[coll].params[i];
        at += (size_t)snprintf(out + at, len - at, "%c%s=", sep, d->key);
        sep = ',';
        if (at >= len)
            break;
        if (d->type == HC_PARAM_SIZE) {
            at += (size_t)snprintf(out + at, len - at, "%lld", p->v[i]);
        } else if (d->type == HC_PARAM_ENUM) {
            const char *w = d->accepted;
            for (long long k = 0; k < p->v[i] && strchr(w, '|'); k++)
                w = strchr(w, '|') + 1;
            at += (size_t)snprintf(out + at, len - at, "%.*s", (int)strcspn(w, "|"), w);
        } else if (p->v[i] < 0) {
            at += (size_t)snprintf(out + at, len - at, "%s",
                                   p->v[i] == HC_DIMS_MACHINE ? "machine" : "flat");
        } else {
            for (long long k = 0; k < p->v[i] && at < len; k++)
                at += (size_t)snprintf(out + at, len - at, k ? "x%d" : "%d", p->dims[k]);
        }
    }
}
