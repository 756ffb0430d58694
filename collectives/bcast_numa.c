/* NUMA placement of a rank's queue region: bind it to the owner's node (seed 002). The binding
 * is the shared memory's own policy, so a page lands there whoever touches it first: the
 * region is touched up front only when asked where its pages landed. */
#include <numa.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bcast_shm.h"
#include "hc_log.h"

int hc_bcast_place(void *addr, size_t len, int node, int report)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    /* Readahead would fault in neighbours' pages from here, on our node. */
    madvise(addr, len, MADV_RANDOM);
    int have_numa = numa_available() >= 0 && node >= 0 && node <= numa_max_node();
    if (have_numa)
        numa_tonode_memory(addr, len, node);
    /* Touching every page here cost each new communicator its whole region in page faults
     * (0.3 ms for 2 ranks), which programs that create many (ScaLAPACK's process grids) paid
     * at every one; untouched, a page is faulted when a message first reaches it. */
    if (!report)
        return 0;
    for (size_t off = 0; off < len; off += page)
        ((volatile char *)addr)[off] = 0;
    if (!have_numa)
        return 0;

    size_t npages = len / page;
    void **pages = malloc(sizeof(void *) * npages);
    int *status = malloc(sizeof(int) * npages);
    int misplaced = 0;
    if (pages && status) {
        for (size_t i = 0; i < npages; i++)
            pages[i] = (char *)addr + i * page;
        if (move_pages(0, (unsigned long)npages, pages, NULL, status, 0) == 0) {
            int first_bad = -1;
            for (size_t i = 0; i < npages; i++)
                if (status[i] >= 0 && status[i] != node) {
                    if (first_bad < 0)
                        first_bad = status[i];
                    misplaced++;
                }
            if (report)
                hc_log(NULL, "bcast queue: %zu pages, %zu on NUMA node %d, %d elsewhere%s",
                       npages, npages - (size_t)misplaced, node, misplaced,
                       misplaced ? " (placement failed)" : "");
            if (misplaced)
                hc_warn_once("broadcast queue pages landed on NUMA node %d instead of %d "
                             "(%d of %zu pages)", first_bad, node, misplaced, npages);
        }
    }
    free(pages);
    free(status);
    return misplaced;
}
