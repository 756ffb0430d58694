/* MPICH's peers within one run: their algorithm variables written through MPI_T before each
 * block of a peer, MPICH's defaults back before every other block (peers.h says why this
 * works for MPICH and not for Open MPI). */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Every variable some peer sets: its handle, its value at start (the default) and now. */
static struct {
    int index, def, now;
    MPI_T_cvar_handle h;
} touched[MAX_CVARS * 8];
static int ntouched;

static int cvar_named(const char *name, char *desc, int desclen)
{
    int n = 0;
    MPI_T_cvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char got[256];
        int gl = sizeof got, dl = desclen, verbosity, bind, scope;
        MPI_Datatype type;
        MPI_T_enum e;
        if (MPI_T_cvar_get_info(i, got, &gl, &verbosity, &type, &e, desc, &dl, &bind, &scope) ==
                MPI_SUCCESS &&
            !strcmp(got, name))
            return type == MPI_INT ? i : -2;
    }
    return -1;
}

/* MPICH 4 describes an enumerated variable as its values in order, each "NAME<spaces>- text",
 * with the newlines of its YAML lost ("...algorithmauto - Internal...Treenb   - Force..."):
 * the value's number is how many " - " come before its own (checked in 4.0.2 against the
 * variable set by name in the environment). A name must not end another one ("_NAME"). */
static int enum_value(const char *desc, const char *value)
{
    size_t n = strlen(value);
    int index = 0;
    for (const char *p = desc; (p = strstr(p, " - ")) != NULL; p += 3, index++) {
        const char *e = p;
        while (e > desc && e[-1] == ' ')
            e--;
        if ((size_t)(e - desc) >= n && !strncmp(e - n, value, n) &&
            (e - desc == (long)n || e[-(long)n - 1] != '_'))
            return index;
    }
    return -1;
}

static int touch(int index)
{
    for (int t = 0; t < ntouched; t++)
        if (touched[t].index == index)
            return t;
    if (ntouched == (int)(sizeof touched / sizeof touched[0]))
        return -1;
    int t = ntouched, count;
    if (MPI_T_cvar_handle_alloc(index, NULL, &touched[t].h, &count) != MPI_SUCCESS ||
        MPI_T_cvar_read(touched[t].h, &touched[t].def) != MPI_SUCCESS)
        return -1;
    touched[t].index = index;
    touched[t].now = touched[t].def;
    ntouched++;
    return t;
}

int peers_resolve(const char *settings, cvar_set *out, char *err, size_t errlen)
{
    static int mpit;
    int provided;
    if (!mpit && MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS)
        mpit = 1;
    *out = (cvar_set){0};
    char *list = strdup(settings), *save = NULL;
    int rc = 0;
    for (char *t = strtok_r(list, ";", &save); t && !rc; t = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(t, '='), desc[8192] = "", *end;
        *eq = 0;
        int index = mpit ? cvar_named(t, desc, sizeof desc) : -1;
        long v = strtol(eq + 1, &end, 10);
        if (*end && index >= 0)
            v = enum_value(desc, eq + 1);
        if (index == -2 || index == -1)
            rc = snprintf(err, errlen, "this MPI has no integer variable %s", t);
        else if (v < 0)
            rc = snprintf(err, errlen, "%s does not list '%s'", t, eq + 1);
        else if (out->n == MAX_CVARS || touch(index) < 0)
            rc = snprintf(err, errlen, "MPI_T refused %s", t);
        else
            out->index[out->n] = index, out->value[out->n++] = (int)v;
    }
    free(list);
    return rc ? -1 : 0;
}

void peers_enter(const cvar_set *s)
{
    for (int t = 0; t < ntouched; t++) {
        int want = touched[t].def;
        for (int i = 0; s && i < s->n; i++)
            if (s->index[i] == touched[t].index)
                want = s->value[i];
        if (want != touched[t].now && MPI_T_cvar_write(touched[t].h, &want) == MPI_SUCCESS)
            touched[t].now = want;
    }
}
