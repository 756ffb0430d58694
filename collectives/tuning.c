/* Tuning file (docs/tuning.md): rules "collective bytes ranks nodes algorithm [options]",
 * first match wins. MPI_Init reads it and stops the run on a malformed file (FILE:LINE:
 * reason), so a typo never half-applies. The table does not change after that: the
 * selectors ask on every call, without a lock (docs/tuning.md: a lock there was a third of
 * an 8-byte broadcast). */
#include "hc_tuning.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_config.h"
#include "hc_tuning_file.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char loaded_path[4096];
static hc_tuning_rule *rules;
static int nrules;

/* Makes the table the one of `path`; called with the lock held. */
static int load_locked(const char *path, char *err, size_t errlen)
{
    if (strcmp(path, loaded_path) == 0)
        return 0;
    free(rules);
    rules = NULL;
    nrules = 0;
    loaded_path[0] = 0;
    int rc = hc_tuning_read(path, &rules, &nrules, err, errlen);
    if (rc == 0) /* a file refused is read again, and refused again, the next time */
        snprintf(loaded_path, sizeof loaded_path, "%s", path);
    return rc;
}

int hc_tuning_load(char *err, size_t errlen)
{
    const char *path = hc_cfg.tuning.s;
    if (!path || !*path)
        return 0;
    pthread_mutex_lock(&lock);
    int rc = load_locked(path, err, errlen);
    pthread_mutex_unlock(&lock);
    return rc;
}

const hc_tuning_rule *hc_tuning_rule_for(int coll, long long bytes, const hc_comm *c,
                                         const char *site, int root)
{
    const char *path = hc_cfg.tuning.s;
    if (!path || !*path)
        return NULL;
    return hc_tuning_match(rules, nrules, coll, bytes, c->size, c->num_nodes, site, root);
}
