/* Naming many call sites at once (common/site_names.c) gives dladdr's answers
 * (hc_site_locate): module, offset and symbol, at addresses spread over every module this
 * program has loaded (libc, the MPI library, the program itself), function starts and
 * inside them, data, and addresses in no symbol. */
#include <link.h>
#include <mpi.h>
#include <stdint.h>

#include "hc_site.h"
#include "hc_test.h"

typedef struct span {
    uintptr_t lo, hi;
} span;

static int module_span(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    span *spans = arg;
    int k = 0;
    while (spans[k].hi)
        k++;
    if (k == 63)
        return 1;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            uintptr_t a = info->dlpi_addr + ph->p_vaddr;
            if (!spans[k].hi || a < spans[k].lo)
                spans[k].lo = a;
            if (a + ph->p_memsz > spans[k].hi)
                spans[k].hi = a + ph->p_memsz;
        }
    }
    return 0;
}

/* Both ways at pc; 1 when they agree (a mismatch is printed). */
static int same_answer(hc_site_namer *n, uintptr_t pc, int *named)
{
    char m1[512], s1[256], m2[512], s2[256];
    uintptr_t o1, o2;
    hc_site_locate(pc, m1, sizeof m1, &o1, s1, sizeof s1);
    hc_site_namer_locate(n, pc, m2, sizeof m2, &o2, s2, sizeof s2);
    int same = !strcmp(m1, m2) && o1 == o2 && !strcmp(s1, s2);
    if (!same)
        fprintf(stderr, "  at %#lx: dladdr %s|%#lx|%s, namer %s|%#lx|%s\n", (unsigned long)pc,
                m1, (unsigned long)o1, s1, m2, (unsigned long)o2, s2);
    *named += strcmp(s2, "?") != 0;
    return same;
}

HC_TEST(namer_agrees_with_dladdr_over_every_module)
{
    span spans[64];
    memset(spans, 0, sizeof spans);
    dl_iterate_phdr(module_span, spans);
    hc_site_namer *n = hc_site_namer_new();
    HC_CHECK(n != NULL);
    int modules = 0, checked = 0, agreed = 0, named = 0;
    for (int k = 0; spans[k].hi; k++, modules++) {
        /* about 3000 addresses a module, at a stride prime to any alignment */
        uintptr_t step = (spans[k].hi - spans[k].lo) / 3000 | 1;
        for (uintptr_t pc = spans[k].lo; pc < spans[k].hi; pc += step + 2 * (step % 3 == 0)) {
            checked++;
            agreed += same_answer(n, pc, &named);
            if (checked - agreed > 10)
                break; /* enough printed */
        }
    }
    HC_CHECK_MSG(modules >= 3, "%d modules loaded", modules);
    HC_CHECK_MSG(agreed == checked, "%d of %d addresses differ", checked - agreed, checked);
    HC_CHECK_MSG(named > checked / 10, "only %d of %d addresses named", named, checked);
    hc_site_namer_free(n);
}

HC_TEST(namer_names_exported_functions_at_and_inside_them)
{
    hc_site_namer *n = hc_site_namer_new();
    char m[512], s[256];
    uintptr_t off;
    uintptr_t f = (uintptr_t)&PMPI_Comm_rank; /* exported by the MPI library */
    for (uintptr_t d = 0; d < 16; d += 5) {
        hc_site_namer_locate(n, f + d, m, sizeof m, &off, s, sizeof s);
        HC_CHECK_MSG(!strcmp(s, "PMPI_Comm_rank") || !strcmp(s, "MPI_Comm_rank"),
                     "PMPI_Comm_rank+%lu named %s (module %s)", (unsigned long)d, s, m);
        HC_CHECK_MSG(m[0] == '/' && strstr(m, "mpi"), "module %s", m);
        int named = 0;
        HC_CHECK(same_answer(n, f + d, &named));
    }
    /* no module at all */
    hc_site_namer_locate(n, 16, m, sizeof m, &off, s, sizeof s);
    HC_CHECK_EQ_STR(m, "?");
    HC_CHECK_EQ_STR(s, "?");
    hc_site_namer_free(n);
}

int main(void) { return hc_test_main(); }
