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

/* About 3000 addresses in each loaded module, at a stride prime to any alignment. */
static uintptr_t *spread_addresses(size_t *count, int *modules)
{
    span spans[64];
    memset(spans, 0, sizeof spans);
    dl_iterate_phdr(module_span, spans);
    size_t n = 0, cap = 64 * 3200;
    uintptr_t *pcs = malloc(sizeof *pcs * cap);
    *modules = 0;
    for (int k = 0; pcs && spans[k].hi; k++, (*modules)++) {
        uintptr_t step = (spans[k].hi - spans[k].lo) / 3000 | 1;
        for (uintptr_t pc = spans[k].lo; pc < spans[k].hi && n < cap;
             pc += step + 2 * (step % 3 == 0))
            pcs[n++] = pc;
    }
    *count = n;
    return pcs;
}

/* Every address of the list, named by n, as dladdr names it. */
static void check_all(hc_site_namer *n, const uintptr_t *pcs, size_t count, const char *how)
{
    int checked = 0, agreed = 0, named = 0;
    for (size_t i = 0; i < count && checked - agreed <= 10; i++) { /* enough printed */
        checked++;
        agreed += same_answer(n, pcs[i], &named);
    }
    HC_CHECK_MSG(agreed == checked, "%s: %d of %d addresses differ", how, checked - agreed,
                 checked);
    HC_CHECK_MSG(named > checked / 10, "%s: only %d of %d addresses named", how, named, checked);
}

HC_TEST(namer_agrees_with_dladdr_over_every_module)
{
    size_t count;
    int modules;
    uintptr_t *pcs = spread_addresses(&count, &modules);
    HC_CHECK(pcs != NULL);
    HC_CHECK_MSG(modules >= 3, "%d modules loaded", modules);
    hc_site_namer *any = hc_site_namer_new(NULL, 0);
    HC_CHECK(any != NULL);
    check_all(any, pcs, count, "any address");
    hc_site_namer_free(any);
    /* told the addresses (every other one, reversed): it keeps only their symbols, and still
     * answers the ones it was not told (by dladdr) */
    uintptr_t *told = malloc(sizeof *told * (count / 2 + 1));
    size_t ntold = 0;
    for (size_t i = count; i-- > 0;)
        if (i % 2 == 0)
            told[ntold++] = pcs[i];
    hc_site_namer *some = hc_site_namer_new(told, ntold);
    HC_CHECK(some != NULL);
    check_all(some, pcs, count, "told half the addresses");
    hc_site_namer_free(some);
    free(told);
    free(pcs);
}

HC_TEST(namer_names_exported_functions_at_and_inside_them)
{
    hc_site_namer *n = hc_site_namer_new(NULL, 0);
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
