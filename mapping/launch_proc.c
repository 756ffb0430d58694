/* The launcher among this process's ancestors: see hc_launch_proc.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_launch_proc.h"

int hc_cmdline_read(long pid, hc_cmdline *c)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t cap = 4096, len = 0, n;
    c->buf = malloc(cap + 1);
    while (c->buf && (n = fread(c->buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            char *b = realloc(c->buf, 2 * cap + 1);
            if (!b)
                free(c->buf);
            c->buf = b;
            cap *= 2;
        }
    }
    fclose(f);
    if (!c->buf)
        return -1;
    c->buf[len] = 0;
    for (size_t i = 0; i < len && c->argc < (int)(sizeof c->argv / sizeof c->argv[0]);
         i += strlen(c->buf + i) + 1)
        c->argv[c->argc++] = c->buf + i;
    if (c->argc > 0)
        return 0;
    hc_cmdline_free(c);
    return -1;
}

void hc_cmdline_free(hc_cmdline *c)
{
    free(c->buf);
    memset(c, 0, sizeof *c);
}

static long parent_of(long pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    long ppid = -1;
    if (f && fgets(line, sizeof line, f)) {
        const char *end = strrchr(line, ')'); /* the name may hold spaces */
        if (end)
            sscanf(end + 1, " %*c %ld", &ppid);
    }
    if (f)
        fclose(f);
    return ppid;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The launcher's options end where this process's own command line starts, at its end (the
 * program's first word may be a resolved path). */
static int program_at(const hc_cmdline *l, const hc_cmdline *self)
{
    int tail = self->argc;
    for (int p = l->argc - tail; p >= 1; p--) {
        int same = !strcmp(base(l->argv[p]), base(self->argv[0]));
        for (int i = 1; same && i < tail; i++)
            same = !strcmp(l->argv[p + i], self->argv[i]);
        if (same && p + tail == l->argc)
            return p;
    }
    return -1;
}

/* By the executable (a launcher under another name: /usr/bin/mpiexec -> mpiexec.hydra) or by
 * the name it was run as. */
static hc_launch_kind kind_of(long pid, const char *argv0, int *helper)
{
    char link[64], exe[PATH_MAX];
    snprintf(link, sizeof link, "/proc/%ld/exe", pid);
    ssize_t n = readlink(link, exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    hc_launch_kind k = hc_launch_by_name(exe);
    if (k == HC_LAUNCH_NONE)
        k = hc_launch_by_name(argv0);
    *helper = 0;
    if (k != HC_LAUNCH_NONE)
        return k;
    if ((k = hc_launch_helper_by_name(exe)) == HC_LAUNCH_NONE)
        k = hc_launch_helper_by_name(argv0);
    *helper = k != HC_LAUNCH_NONE;
    return k;
}

int hc_launch_find(hc_launch_found *f)
{
    memset(f, 0, sizeof *f);
    f->prog = -1;
    if (hc_cmdline_read((long)getpid(), &f->self) != 0)
        return -1;
    long pid = (long)getppid();
    for (int depth = 0; pid > 1 && depth < 6; depth++, pid = parent_of(pid)) {
        hc_cmdline c;
        if (hc_cmdline_read(pid, &c) != 0)
            break;
        int helper;
        hc_launch_kind k = kind_of(pid, c.argv[0], &helper);
        if (k == HC_LAUNCH_NONE) {
            hc_cmdline_free(&c);
            continue;
        }
        if (helper && f->kind == HC_LAUNCH_NONE) {
            /* the launcher may still be further up (Hydra's proxy on the launcher's host) */
            f->kind = k;
            f->helper = 1;
            hc_cmdline_free(&c);
            continue;
        }
        if (helper) {
            hc_cmdline_free(&c);
            continue;
        }
        f->kind = k;
        f->helper = 0;
        f->launcher = c;
        f->prog = program_at(&f->launcher, &f->self);
        break;
    }
    return 0;
}

void hc_launch_found_free(hc_launch_found *f)
{
    hc_cmdline_free(&f->self);
    hc_cmdline_free(&f->launcher);
}
