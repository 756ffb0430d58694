/* The malloc family, interposed: in an MPI rank, blocks of HC_HEAP_MIN_ALLOC bytes and more
 * come from the shared heap (common/hc_heap.h), where the node's other ranks can read them
 * directly; everything else, and every block the heap cannot serve, from the C library.
 * HIERCOLL_HEAP=off leaves all of it to the C library. Not built into sanitizer builds,
 * whose runtimes own malloc. */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hc_config.h"
#include "hc_heap.h"

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

/* The C library's own malloc_usable_size (it has no __libc_ name), found once, in libc
 * itself: the next definition in the search order could be another allocator's. */
static size_t libc_usable(void *p)
{
    static size_t (*_Atomic real)(void *);
    size_t (*f)(void *) = real;
    if (!f) {
        void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
        f = libc ? (size_t(*)(void *))dlsym(libc, "malloc_usable_size") : NULL;
        if (!f)
            f = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
        real = f;
    }
    return f && p ? f(p) : 0;
}

#define HC_EXPORT __attribute__((visibility("default")))

/* On in a process an MPI launcher started (Hydra: PMI_RANK; Open MPI: OMPI_COMM_WORLD_RANK;
 * PMIx launchers: PMIX_RANK), so neither the launcher nor a program run alone pays for it.
 * HIERCOLL_HEAP is read as hc_config reads it; a value it rejects stops the run at MPI_Init. */
__attribute__((constructor)) static void heap_front_init(void)
{
    const char *v = getenv("HIERCOLL_HEAP");
    if (v && hc_parse_bool(v) == 0)
        return;
    if (getenv("PMI_RANK") || getenv("OMPI_COMM_WORLD_RANK") || getenv("PMIX_RANK"))
        hc_heap_enable();
}

HC_EXPORT void *malloc(size_t n)
{
    void *p = n >= HC_HEAP_MIN_ALLOC ? hc_heap_alloc(n, 0) : NULL;
    return p ? p : __libc_malloc(n);
}

HC_EXPORT void free(void *p)
{
    if (hc_heap_owns(p))
        hc_heap_free(p);
    else
        __libc_free(p);
}

HC_EXPORT void *calloc(size_t k, size_t n)
{
    size_t bytes;
    if (__builtin_mul_overflow(k, n, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = bytes >= HC_HEAP_MIN_ALLOC ? hc_heap_alloc(bytes, 1) : NULL;
    return p ? p : __libc_calloc(k, n);
}

HC_EXPORT void *realloc(void *p, size_t n)
{
    if (!hc_heap_owns(p)) {
        if (!p || n < HC_HEAP_MIN_ALLOC || !hc_heap_enabled())
            return __libc_realloc(p, n);
        /* a C-library block growing into the heap's sizes moves there */
        void *q = hc_heap_alloc(n, 0);
        if (!q)
            return __libc_realloc(p, n);
        size_t old = libc_usable(p);
        memcpy(q, p, old < n ? old : n);
        __libc_free(p);
        return q;
    }
    if (n == 0) {
        hc_heap_free(p);
        return NULL;
    }
    size_t have = hc_heap_usable(p);
    if (n <= have && n >= HC_HEAP_MIN_ALLOC)
        return p;
    void *q = malloc(n);
    if (!q)
        return NULL;
    memcpy(q, p, have < n ? have : n);
    hc_heap_free(p);
    return q;
}

HC_EXPORT void *reallocarray(void *p, size_t k, size_t n)
{
    size_t bytes;
    if (__builtin_mul_overflow(k, n, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, bytes);
}

/* The heap's blocks are page-aligned: any alignment up to a page is served there. */
static void *aligned(size_t align, size_t n)
{
    void *p = n >= HC_HEAP_MIN_ALLOC && align <= 4096 ? hc_heap_alloc(n, 0) : NULL;
    return p ? p : __libc_memalign(align, n);
}

HC_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    void *p = aligned(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

HC_EXPORT void *aligned_alloc(size_t align, size_t n)
{
    if (align == 0 || (align & (align - 1))) {
        errno = EINVAL;
        return NULL;
    }
    return aligned(align, n);
}

HC_EXPORT void *memalign(size_t align, size_t n) { return aligned(align, n); }

HC_EXPORT size_t malloc_usable_size(void *p)
{
    if (hc_heap_owns(p))
        return hc_heap_usable(p);
    return libc_usable(p);
}

#endif
