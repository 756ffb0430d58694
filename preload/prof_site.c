/* Call sites: the return addresses of the user's MPI call, captured on the hot path (the
 * wrapper's own return address for one frame, libunwind's walk for more), kept raw, and turned into module + offset (stable under address-space randomisation)
 * and the nearest dynamic symbol only at finalize. file:line is left to `hiercoll report` (addr2line). */
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <libunwind.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_late_lib.h"
#include "hc_log.h"
#include "hc_site.h"
#include "prof.h"

/* Frames inside these objects are not the user's: this library, and MPICH's Fortran
 * bindings (a Fortran call reaches us through mpi_send_ -> MPI_Send). */
#define MAX_SKIP 4
static struct { uintptr_t lo, hi; } skip[MAX_SKIP];
static int nskip;

static int find_objects(struct dl_phdr_info *info, size_t size, void *self_base)
{
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    int mine = (void *)info->dlpi_addr == self_base;
    int fort = strstr(name, "libmpifort") || strstr(name, "libmpichfort") ||
               strstr(name, "libfmpich");
    if ((!mine && !fort) || nskip >= MAX_SKIP)
        return 0;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        lo = HC_MIN(lo, a);
        hi = HC_MAX(hi, a + ph->p_memsz);
    }
    if (lo < hi) {
        skip[nskip].lo = lo;
        skip[nskip].hi = hi;
        nskip++;
    }
    return 0;
}

/* The stack walk: libunwind's, opened on first use (common/hc_late_lib.h says why it is not
 * linked); glibc's backtrace where it cannot be opened. */
static __typeof__(unw_backtrace) *walk_stack;
static hc_late_lib unwind_lib = HC_LATE_LIB(HC_UNWIND_SONAME);

static void open_unwind(void)
{
    void *h = hc_late_open(&unwind_lib);
    void *fn = h ? hc_late_sym(&unwind_lib, h, "unw_backtrace") : NULL;
    walk_stack = fn ? (__typeof__(unw_backtrace) *)fn : backtrace;
    if (!fn)
        hc_warn("call sites: %s; glibc's backtrace walks the stack instead", unwind_lib.why);
}

void hc_prof_site_init(void)
{
    pthread_once(&unwind_lib.once, open_unwind);
    Dl_info self;
    nskip = 0;
    if (dladdr((void *)hc_prof_site_init, &self))
        dl_iterate_phdr(find_objects, self.dli_fbase);
}

static inline int skipped(uintptr_t pc)
{
    for (int i = 0; i < nskip; i++)
        if (pc >= skip[i].lo && pc < skip[i].hi)
            return 1;
    return 0;
}

static inline uint64_t site_hash(int fn, int depth, const uintptr_t *pc)
{
    uint64_t h = HC_FNV_START ^ (uint64_t)fn;
    for (int i = 0; i < depth; i++)
        h = hc_fnv_add(h, pc[i]);
    return h ? h : 1;
}

static int sites_grow(hc_prof_thread *t)
{
    size_t cap = t->site_cap ? t->site_cap * 2 : 64;
    hc_prof_site *s = calloc(cap, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < t->site_cap; i++) {
        if (!t->sites[i].hash)
            continue;
        size_t k = (size_t)t->sites[i].hash & (cap - 1);
        while (s[k].hash)
            k = (k + 1) & (cap - 1);
        s[k] = t->sites[i];
    }
    free(t->sites);
    t->sites = s;
    t->site_cap = cap;
    return 0;
}

void hc_prof_site_record(hc_prof_thread *t, int fn, uint64_t bytes, uint64_t ticks)
{
    void *raw[HC_PROF_MAXDEPTH + 8];
    uintptr_t pc[HC_PROF_MAXDEPTH];
    int depth = 0;
    uintptr_t caller = hc_prof_caller;
    hc_prof_caller = 0; /* never reused by a later call */
    if (hc_prof_depth == 1 && caller && !skipped(caller)) {
        /* the walk's first frame outside the skipped objects: the same address */
        pc[depth++] = caller - 1;
    } else {
        int n = walk_stack(raw, hc_prof_depth + 8);
        for (int i = 0; i < n && depth < hc_prof_depth; i++)
            if (!skipped((uintptr_t)raw[i]))
                pc[depth++] = (uintptr_t)raw[i] - 1; /* inside the call instruction */
    }
    uint64_t h = site_hash(fn, depth, pc);
    if (2 * (t->site_count + 1) > t->site_cap && sites_grow(t) != 0) {
        t->oom = 1;
        return;
    }
    size_t mask = t->site_cap - 1, k = (size_t)h & mask;
    for (;; k = (k + 1) & mask) {
        hc_prof_site *s = &t->sites[k];
        if (!s->hash) {
            s->hash = h;
            s->fn = fn;
            s->depth = depth;
            memcpy(s->pc, pc, sizeof(uintptr_t) * (size_t)depth);
            t->site_count++;
            break;
        }
        if (s->hash == h && s->fn == fn && s->depth == depth &&
            memcmp(s->pc, pc, sizeof(uintptr_t) * (size_t)depth) == 0)
            break;
    }
    t->sites[k].calls++;
    t->sites[k].bytes += bytes;
    t->sites[k].ticks += ticks;
}

/* module|0xoffset|symbol (common/hc_site.h). */
static void frame_text(hc_prof_buf *b, hc_site_namer *namer, uintptr_t pc)
{
    char module[512], symbol[256];
    uintptr_t off;
    hc_site_namer_locate(namer, pc, module, sizeof module, &off, symbol, sizeof symbol);
    hc_prof_buf_printf(b, "%s|0x%lx|%s", module, (unsigned long)off, symbol);
}

/* Every frame of every thread's sites: the addresses the namer will be asked (NULL when
 * there is no memory for the list; the namer then reads every symbol). */
static uintptr_t *site_frames(size_t *count)
{
    size_t n = 0, k = 0;
    for (hc_prof_thread *t = hc_prof_threads; t; t = t->next)
        n += t->site_count * (size_t)hc_prof_depth;
    uintptr_t *pcs = malloc(sizeof *pcs * (n ? n : 1));
    for (hc_prof_thread *t = hc_prof_threads; pcs && t; t = t->next)
        for (size_t i = 0; i < t->site_cap; i++)
            for (int d = 0; t->sites[i].hash && d < t->sites[i].depth && k < n; d++)
                pcs[k++] = t->sites[i].pc[d];
    *count = k;
    return pcs;
}

void hc_prof_site_dump(hc_prof_buf *b, double ns_per_tick)
{
    size_t nframes;
    uintptr_t *frames = site_frames(&nframes);
    /* NULL: each frame by hc_site_locate */
    hc_site_namer *namer = hc_site_namer_new(frames, nframes);
    free(frames);
    for (hc_prof_thread *t = hc_prof_threads; t; t = t->next)
        for (size_t i = 0; i < t->site_cap; i++) {
            const hc_prof_site *s = &t->sites[i];
            if (!s->hash)
                continue;
            hc_prof_buf_printf(b, "S\t%s\t%llu\t%llu\t%.0f\t", hc_prof_fn_name[s->fn],
                               (unsigned long long)s->calls, (unsigned long long)s->bytes,
                               (double)s->ticks * ns_per_tick);
            if (!s->depth)
                hc_prof_buf_printf(b, "?|0x0|?");
            for (int d = 0; d < s->depth; d++) {
                if (d)
                    hc_prof_buf_printf(b, ";");
                frame_text(b, namer, s->pc[d]);
            }
            hc_prof_buf_printf(b, "\n");
        }
    hc_site_namer_free(namer);
}
