/* Tuning file (docs/tuning.md): rules "collective bytes ranks nodes algorithm", first match
 * wins. MPI_Init reads it and stops the run on a malformed file (FILE:LINE: reason), so a
 * typo never half-applies; the table is kept per path. */
#include "hc_tuning.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_config.h"
#include "hc_log.h"
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
    snprintf(loaded_path, sizeof loaded_path, "%s", path);
    return hc_tuning_read(path, &rules, &nrules, err, errlen);
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

int hc_tuning_choose(const char *collective, long long bytes, const hc_comm *c, int builtin_choice)
{
    const char *path = hc_cfg.tuning.s;
    if (!path || !*path)
        return builtin_choice;
    pthread_mutex_lock(&lock);
    char err[600];
    /* Only when the path changed after MPI_Init (the unit tests do): warn, use no rule. */
    if (load_locked(path, err, sizeof err) != 0)
        hc_warn("tuning file ignored: %s", err);
    int choice = builtin_choice;
    for (int i = 0; i < nrules; i++) {
        const hc_tuning_rule *r = &rules[i];
        if (strcmp(r->coll, collective) == 0 && bytes >= r->lo && (r->hi < 0 || bytes < r->hi) &&
            c->size >= r->rlo && c->size <= r->rhi && c->num_nodes >= r->nlo &&
            c->num_nodes <= r->nhi) {
            /* A rule may say `auto`: the built-in rule decides that range. */
            if (r->algo != HC_ALGO_AUTO)
                choice = r->algo;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return choice;
}
