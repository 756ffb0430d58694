/* hiercoll map --profile DIR --allocation (map_alloc.c). */
#ifndef HC_MAP_ALLOC_H
#define HC_MAP_ALLOC_H

/* Prints the directory whose mapping to use in this Slurm allocation: dir when its mapping
 * fits, else out (NULL: dir/alloc-JOBID) with the mapping computed again onto the
 * allocation. An HC_EXIT_* status; a failure is one line on stderr. */
int hc_map_allocation(const char *dir, const char *out);

#endif
