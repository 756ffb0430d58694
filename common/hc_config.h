/* Configuration: every HIERCOLL_* variable, parsed once into hc_cfg. */
#ifndef HC_CONFIG_H
#define HC_CONFIG_H

#include <stddef.h>

#include "hc_algos.h"

enum hc_var_type { HC_ENUM, HC_SIZE, HC_INT, HC_BOOL, HC_STRING, HC_DIMS, HC_FLOATS };

typedef struct hc_value {
    long long i;      /* ENUM: index into accepted; SIZE/INT: value; BOOL: 0/1 */
    const char *s;    /* the text as given (or the default); never NULL */
    int from_env;     /* 1 if the environment set it */
} hc_value;

typedef struct hc_var_desc {
    const char *name;      /* HIERCOLL_... */
    enum hc_var_type type;
    const char *def;
    const char *accepted;
    const char *help;
    size_t offset;         /* of the hc_value inside hc_config */
} hc_var_desc;

typedef struct hc_config {
#define HC_VAR(field, name, type, def, acc, help) hc_value field;
#include "hc_config_vars.def"
#undef HC_VAR
} hc_config;

/* Enum indices, in the order the table lists the accepted values. The algorithms' indices
 * (HC_BCAST_*, HC_ALLREDUCE_*) come from the registry, hc_algos.h. */
enum { HC_TREE_AUTO, HC_TREE_KNOMIAL, HC_TREE_KARY, HC_TREE_CHAIN, HC_TREE_FLAT, HC_TREE_NUMA };
enum { HC_BDIRECT_AUTO, HC_BDIRECT_ON, HC_BDIRECT_OFF };
enum { HC_SPIN_AUTO, HC_SPIN_ON, HC_SPIN_OFF };
enum { HC_P2P_YIELD_AUTO, HC_P2P_YIELD_ON, HC_P2P_YIELD_OFF };

extern hc_config hc_cfg;
extern const hc_var_desc hc_var_table[];
extern const int hc_var_count;

/* Parses one value; 0 on success, else -1 with a one-line reason in err. */
int hc_config_parse_value(const hc_var_desc *v, const char *text, hc_value *out,
                          char *err, size_t errlen);
/* Loads defaults then the environment into cfg. Returns 0, or -1 with the one-line message
 * (naming variable, value and what is accepted) in err. Unknown HIERCOLL_* names produce a
 * warning line each in warn (may be empty), suggesting the closest known name. */
int hc_config_load(hc_config *cfg, char *const *envp, char *err, size_t errlen,
                   char *warn, size_t warnlen);
const hc_var_desc *hc_config_find(const char *name);
/* Index of value in an enum variable's accepted list, or -1 (used for MPI info keys). */
int hc_config_enum_index(const hc_var_desc *v, const char *value);
/* The name of index i of an enum variable's accepted list into out ("?" if none). */
void hc_config_enum_name(const hc_var_desc *v, int i, char *out, size_t len);
/* Bytes with optional K/M/G/T suffix (binary); -1 on malformed input. */
int hc_parse_size(const char *text, long long *out);
/* The inverse: bytes with the largest binary suffix that divides it ("64K", "3M", "100"). */
void hc_format_size(long long v, char *out, size_t len);
/* "on", "1", "yes", "true" -> 1; "off", "0", "no", "false" -> 0 (any case); else -1. */
int hc_parse_bool(const char *text);
/* "AxBxC" into dims[], returns the count (0 for "auto"), -1 if malformed. */
int hc_parse_dims(const char *text, int *dims, int maxdims);
/* "b1,b2,..." positive numbers, returns the count, -1 if malformed. */
int hc_parse_floats(const char *text, double *vals, int maxvals);

#endif
