# The partial-rewrite patterns check what was rewritten: a broadcast (and an allreduce) that
# refreshes only the bytes the bench stamps (one in 4 KiB and the last), leaving the rest of
# the reader's buffer as the previous call left it, is a stale copy that the broadcast's warm
# patterns cannot see (the data did not change) and the stride, block and warm2stride
# patterns must: in both timings, as wrong results and exit status 1. (The allreduce's warm
# patterns see it too: its result changes with each block's new data.)
# hc-test: each-family
. tests/e2e/cli_common.bash
"$MPICC" -shared -fPIC -o "$TMP/stale.so" -x c - <<'C' || fail "build the stale shim"
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
/* The right result into a scratch buffer, then only the sampled bytes into the caller's. */
static void sampled(unsigned char *dst, const unsigned char *src, long n)
{
    for (long i = 0; i < n; i += 4096)
        dst[i] = src[i];
    if (n)
        dst[n - 1] = src[n - 1];
}
static int bcast(void *b, long n, int root, MPI_Comm c)
{
    int rank;
    MPI_Comm_rank(c, &rank);
    unsigned char *t = malloc(n ? n : 1);
    memcpy(t, b, n);
    int rc = PMPI_Bcast(t, (int)n, MPI_BYTE, root, c);
    if (rank != root)
        sampled(b, t, n);
    free(t);
    return rc;
}
/* The bench's own reductions (the slowest time, the error counts) pass untouched. */
static int allreduce(const void *s, void *r, long n, MPI_Datatype type, MPI_Op op, MPI_Comm c)
{
    if (type != MPI_DOUBLE || op != MPI_SUM)
        return PMPI_Allreduce(s, r, (int)n, type, op, c);
    double *t = malloc(8 * (n ? n : 1));
    int rc = PMPI_Allreduce(s, t, (int)n, MPI_DOUBLE, MPI_SUM, c);
    sampled(r, (unsigned char *)t, 8 * n);
    free(t);
    return rc;
}
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) { return bcast(b, n, root, c); }
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{ return allreduce(s, r, n, t, o, c); }
#if MPI_VERSION >= 4
int MPI_Bcast_c(void *b, MPI_Count n, MPI_Datatype t, int root, MPI_Comm c) { return bcast(b, (long)n, root, c); }
int MPI_Allreduce_c(const void *s, void *r, MPI_Count n, MPI_Datatype t, MPI_Op o, MPI_Comm c)
{ return allreduce(s, r, (long)n, t, o, c); }
#endif
C
# run PATTERN COLL: the bench on both collectives' one path (the vendor's, through the shim).
run() {
    mpi_cmd 2 LD_PRELOAD="$TMP/stale.so" "$PWD/$BUILD/bin/hiercoll-bench$SUFFIX" --coll "$2" \
        --sizes 5000,64K --iters 16 --pattern "$1" --bcast-algo vendor --allreduce-algo vendor --csv
    "${MPI_CMD[@]}" >"$TMP/out" 2>"$TMP/err"
}
for p in fixed-warm-latency rotate-warm-stream; do
    run "$p" bcast || { cat "$TMP/err"; fail "bcast $p: a stale copy of unchanged data was called wrong"; }
done
for p in fixed-stride-latency rotate-stride-stream fixed-block-stream rotate-block-latency \
    switch-stride-stream rotate-warm2stride-latency; do
    for c in bcast allreduce; do
        [ "$c" = allreduce ] && [ "${p%%-*}" != rotate ] && continue # no root: not run
        run "$p" "$c" && fail "$c $p: a stale copy passed the bench's checks"
        grep -q "wrong results" "$TMP/err" || { cat "$TMP/err"; fail "$c $p: no wrong results reported"; }
    done
done
echo ok
