/* The malloc family under the preload (preload/malloc.c), without MPI: run with PMI_RANK set
 * (the heap on, as in a rank) and without (off). Prints "heap blocks: N" (how many large
 * blocks came from the shared heap, judged by malloc_usable_size being a page multiple with
 * the block page-aligned) and exits 1 on any wrong content, size or alignment. */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int bad;
#define CHECK(c) (void)((c) || (fprintf(stderr, "check failed line %d: %s\n", __LINE__, #c), bad = 1))

static int heapish(void *p) { return (uintptr_t)p % 4096 == 0 && malloc_usable_size(p) % 4096 == 0; }

int main(void)
{
    int from_heap = 0;
    /* malloc / free, small and large */
    char *small = malloc(100), *big = malloc(1 << 20);
    CHECK(small && big && malloc_usable_size(big) >= (1 << 20));
    from_heap += heapish(big);
    memset(big, 7, 1 << 20);
    /* realloc: small grows into the heap's sizes keeping its bytes; large shrinks and grows */
    memset(small, 3, 100);
    small = realloc(small, 200000);
    CHECK(small && small[0] == 3 && small[99] == 3);
    from_heap += heapish(small);
    memset(small, 4, 200000);
    small = realloc(small, 100000); /* fits: may stay */
    CHECK(small && small[99999] == 4);
    small = realloc(small, 3 << 20);
    CHECK(small && small[0] == 4 && small[99999] == 4);
    small = realloc(small, 50); /* back under the threshold */
    CHECK(small && small[49] == 4);
    free(small);
    /* calloc of a reused block is zero */
    free(big);
    int *z = calloc(1 << 18, sizeof(int));
    CHECK(z != NULL);
    for (int i = 0; z && i < (1 << 18); i++)
        if (z[i]) {
            CHECK(z[i] == 0);
            break;
        }
    from_heap += heapish(z);
    free(z);
    /* aligned allocations */
    void *a = NULL;
    CHECK(posix_memalign(&a, 64, 300000) == 0 && (uintptr_t)a % 64 == 0);
    free(a);
    CHECK(posix_memalign(&a, 1 << 16, 300000) == 0 && (uintptr_t)a % (1 << 16) == 0);
    free(a);
    a = aligned_alloc(4096, 1 << 17);
    CHECK(a && (uintptr_t)a % 4096 == 0);
    free(a);
    a = memalign(256, 1 << 17);
    CHECK(a && (uintptr_t)a % 256 == 0);
    free(a);
    CHECK(realloc(NULL, 1 << 17) != NULL); /* leaked on purpose: realloc(NULL) is malloc */
    /* a child of fork() has its own copy of a large block */
    unsigned char *f = malloc(1 << 20);
    memset(f, 'A', 1 << 20);
    int go[2];
    CHECK(pipe(go) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        if (read(go[0], &c, 1) != 1) /* the parent has written 'B' by now */
            _exit(2);
        int ok = f[0] == 'A' && f[(1 << 20) - 1] == 'A';
        memset(f, 'C', 1 << 20);
        _exit(ok ? 0 : 1);
    }
    memset(f, 'B', 1 << 20);
    CHECK(write(go[1], "x", 1) == 1);
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(f[0] == 'B' && f[(1 << 20) - 1] == 'B');
    free(f);
    printf("heap blocks: %d\n", from_heap);
    return bad;
}
