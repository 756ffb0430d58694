/* Opening the libraries of hc_late_lib.h. */
#include <dlfcn.h>
#include <stdio.h>

#include "hc_late_lib.h"

void *hc_late_open(hc_late_lib *l)
{
    void *h = dlopen(l->file, RTLD_NOW | RTLD_LOCAL);
    l->ok = h != NULL;
    if (!h)
        snprintf(l->why, sizeof l->why, "%s", dlerror());
    return h;
}

void *hc_late_sym(hc_late_lib *l, void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (!p) {
        l->ok = 0;
        snprintf(l->why, sizeof l->why, "%s has no %s", l->file, name);
    }
    return p;
}
