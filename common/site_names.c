/* Many call sites named at once (hc_site.h, hc_site_namer).
 *
 * dladdr answers one address by scanning every dynamic symbol of its module (glibc's _dl_addr):
 * for LAMMPS's ~100 call sites a rank, in a library of tens of thousands of symbols, that was
 * most of the profiler's finalize with 8 ranks on 2 cores. Here each module's dynamic symbols
 * are read once, sorted by address, and every site is a binary search. The rules are dladdr's,
 * so the answers are the same (tests/unit/test_site_names.c compares them): a symbol of size 0
 * matches its own address only, of the symbols that hold the address the one that starts last
 * wins, and among those that start there the first in the table. A namer told which addresses
 * it will be asked keeps only the symbols that hold one of them: sorting all of LAMMPS's
 * 15,000 symbols cost each rank 2 ms for its dozen sites, the filter a tenth of it. */
#include "hc_site.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct sym {
    uintptr_t addr, size;
    const char *name;
    uint32_t index; /* in the module's table: the first of equal addresses wins */
} sym;

typedef struct module {
    uintptr_t bias, lo, hi;  /* load bias; the span of its PT_LOAD segments */
    const ElfW(Dyn) *dynamic;
    char path[512];
    int read;                /* symbols read (or found unreadable) */
    sym *syms;
    size_t nsyms;
    uintptr_t max_size;      /* no symbol starting further below an address holds it */
} module;

struct hc_site_namer {
    module *mods;
    int nmods;
    uintptr_t *want; /* sorted; NULL: any address */
    size_t nwant;
};

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    hc_site_namer *n = arg;
    module *grown = realloc(n->mods, sizeof *grown * (size_t)(n->nmods + 1));
    if (!grown)
        return 1;
    n->mods = grown;
    module *m = &n->mods[n->nmods];
    memset(m, 0, sizeof *m);
    m->bias = info->dlpi_addr;
    m->lo = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            uintptr_t a = info->dlpi_addr + ph->p_vaddr;
            m->lo = a < m->lo ? a : m->lo;
            m->hi = a + ph->p_memsz > m->hi ? a + ph->p_memsz : m->hi;
        } else if (ph->p_type == PT_DYNAMIC) {
            m->dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        }
    }
    if (m->lo >= m->hi)
        return 0;
    snprintf(m->path, sizeof m->path, "%s", info->dlpi_name ? info->dlpi_name : "");
    n->nmods++;
    return 0;
}

static int addr_cmp(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

/* The first wanted address at or above a. */
static size_t want_from(const hc_site_namer *n, uintptr_t a)
{
    size_t lo = 0, hi = n->nwant;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (n->want[mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

hc_site_namer *hc_site_namer_new(const uintptr_t *pcs, size_t npcs)
{
    hc_site_namer *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    if (pcs) {
        n->want = malloc(sizeof *n->want * (npcs ? npcs : 1));
        if (!n->want) {
            free(n);
            return NULL;
        }
        memcpy(n->want, pcs, sizeof *n->want * npcs);
        qsort(n->want, npcs, sizeof *n->want, addr_cmp);
        n->nwant = npcs;
    }
    dl_iterate_phdr(add_module, n);
    return n;
}

void hc_site_namer_free(hc_site_namer *n)
{
    if (!n)
        return;
    for (int i = 0; i < n->nmods; i++)
        free(n->mods[i].syms);
    free(n->mods);
    free(n->want);
    free(n);
}

/* A pointer of the dynamic section: ld.so relocates them in place where the section is
 * writable, not where it is read-only (the vDSO). */
static uintptr_t dyn_ptr(const module *m, ElfW(Addr) p)
{
    return p < m->bias ? m->bias + p : p;
}

/* How many symbols the GNU hash table covers: past the last bucket's chain. */
static size_t gnu_hash_count(const uint32_t *h)
{
    uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2];
    const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(h + 4) + bloom_size);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t last = 0;
    for (uint32_t b = 0; b < nbuckets; b++)
        last = buckets[b] > last ? buckets[b] : last;
    if (last < symoffset)
        return symoffset;
    while (!(chain[last - symoffset] & 1))
        last++;
    return (size_t)last + 1;
}

static int sym_cmp(const void *a, const void *b)
{
    const sym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int holds(uintptr_t addr, uintptr_t size, uintptr_t pc)
{
    return size ? pc - addr < size : pc == addr;
}

static void read_symbols(const hc_site_namer *n, module *m)
{
    m->read = 1;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const uint32_t *hash = NULL, *gnu_hash = NULL;
    for (const ElfW(Dyn) *d = m->dynamic; d && d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_SYMTAB)
            symtab = (const ElfW(Sym) *)dyn_ptr(m, d->d_un.d_ptr);
        else if (d->d_tag == DT_STRTAB)
            strtab = (const char *)dyn_ptr(m, d->d_un.d_ptr);
        else if (d->d_tag == DT_HASH)
            hash = (const uint32_t *)dyn_ptr(m, d->d_un.d_ptr);
        else if (d->d_tag == DT_GNU_HASH)
            gnu_hash = (const uint32_t *)dyn_ptr(m, d->d_un.d_ptr);
    }
    if (!symtab || !strtab || (!hash && !gnu_hash))
        return;
    /* dladdr walks the GNU hash table from its first hashed symbol, or all of DT_HASH's */
    size_t first = gnu_hash ? gnu_hash[1] : 0,
           count = gnu_hash ? gnu_hash_count(gnu_hash) : hash[1];
    m->syms = malloc(sizeof *m->syms * (count > first ? count - first : 1));
    if (!m->syms)
        return;
    for (size_t i = first; i < count; i++) {
        const ElfW(Sym) *s = &symtab[i];
        int type = s->st_info & 0xf; /* ELF32_ST_TYPE and ELF64_ST_TYPE alike */
        if (type == STT_TLS || s->st_shndx == SHN_ABS ||
            (s->st_shndx == SHN_UNDEF && s->st_value == 0))
            continue;
        /* an undefined symbol with a value (a PLT address) matches its address only */
        uintptr_t size = s->st_shndx == SHN_UNDEF ? 0 : s->st_size, addr = m->bias + s->st_value;
        if (n->want) {
            size_t w = want_from(n, addr);
            if (w == n->nwant || !holds(addr, size, n->want[w]))
                continue; /* holds none of the addresses the namer will be asked */
        }
        m->syms[m->nsyms++] = (sym){addr, size, strtab + s->st_name, (uint32_t)i};
        m->max_size = size > m->max_size ? size : m->max_size;
    }
    qsort(m->syms, m->nsyms, sizeof *m->syms, sym_cmp);
}

static const char *symbol_at(const hc_site_namer *n, module *m, uintptr_t pc)
{
    if (!m->read)
        read_symbols(n, m);
    size_t lo = 0, hi = m->nsyms; /* the first symbol starting after pc */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->syms[mid].addr <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;) {
        const sym *s = &m->syms[i];
        if (pc - s->addr > m->max_size)
            break;
        if (holds(s->addr, s->size, pc)) {
            /* the first in the table of those that start there and hold pc, wherever a
             * symbol between them does not */
            for (size_t j = i; j-- > 0 && m->syms[j].addr == s->addr;)
                if (holds(m->syms[j].addr, m->syms[j].size, pc))
                    s = &m->syms[j];
            return s->name;
        }
    }
    return NULL;
}

void hc_site_namer_locate(hc_site_namer *n, uintptr_t pc, char *module_out, size_t mlen,
                          uintptr_t *off, char *sym_out, size_t slen)
{
    module *m = NULL;
    for (int i = 0; n && !m && i < n->nmods && pc; i++)
        if (pc >= n->mods[i].lo && pc < n->mods[i].hi)
            m = &n->mods[i];
    size_t w = n && n->want ? want_from(n, pc) : 0;
    int wanted = n && (!n->want || (w < n->nwant && n->want[w] == pc));
    if (!m || !wanted) { /* loaded after the namer was made, not in any module, or not an
                            address the namer kept symbols for */
        hc_site_locate(pc, module_out, mlen, off, sym_out, slen);
        return;
    }
    if (!m->path[0]) { /* the main program: dladdr's name for it, asked once */
        Dl_info info;
        snprintf(m->path, sizeof m->path, "%s",
                 dladdr((void *)pc, &info) && info.dli_fname ? info.dli_fname : "?");
    }
    uintptr_t base = m->lo & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1);
    hc_site_name_module(m->path, base, pc, module_out, mlen, off);
    const char *name = symbol_at(n, m, pc);
    hc_site_clean(sym_out, slen, name ? name : "?");
}
