/* What the allreduce files share below the selector and the engines: applying the reduction,
 * the packet buffers, and the per-communicator state. */
#include <stdlib.h>
#include <string.h>

#include "allreduce_state.h"
#include "hc_algos.h"
#include "hc_mpi.h"
#include "hc_wait.h"
#include "learn_save.h"

void hc_red_apply(const hc_red *r, void *out, const void *a, const void *b, int64_t n)
{
    if (n <= 0)
        return;
    if (r->fn) {
        r->fn(out, a, b, (size_t)n);
        return;
    }
    if (out != b)
        memcpy(out, b, hc_red_span(r, n));
    hc_reduce_local(a, out, (MPI_Count)n, r->dt, r->op);
}

/* MPI_Wait polls without giving the core away; with more ranks than cores the peer that
 * must send is then often descheduled. Test, then back off. */
int hc_ar_wait(MPI_Request *req)
{
    hc_backoff b = HC_BACKOFF_INIT;
    int done = 0, rc;
    while ((rc = PMPI_Test(req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done)
        hc_backoff_wait(&b);
    return rc;
}

int hc_ar_waitall(int n, MPI_Request *req)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        int e = hc_ar_wait(&req[i]);
        if (e != MPI_SUCCESS)
            rc = e;
    }
    return rc;
}

int hc_ar_tmp_reserve(hc_ar_state *st, size_t need)
{
    if (st->tmp_bytes >= need)
        return 0;
    free(st->tmp);
    st->tmp = malloc(need);
    st->tmp_bytes = st->tmp ? need : 0;
    return st->tmp ? 0 : -1;
}

void hc_ar_shm_free(hc_ar_state *st)
{
    hc_shm_release(&st->shm.seg);
    free(st->cma_buf);
    st->cma_buf = NULL;
}

/* Every rank learned the same: rank 0 keeps it. */
static void keep_entry(hc_learn_entry *e, void *arg)
{
    hc_learn_keep(HC_COLL_ALLREDUCE, arg, e);
}

static void state_free(hc_comm *c, void *p)
{
    hc_ar_state *st = p;
    if (c->rank == 0)
        hc_learn_each(&st->learn, keep_entry, c);
    hc_ar_shm_free(st);
    if (st->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&st->comm);
    hc_learn_table_free(&st->learn);
    free(st->last_plan);
    free(st->tmp);
    free(st);
}

hc_ar_state *hc_ar_state_get(hc_comm *c)
{
    hc_ar_state *st = __atomic_load_n((hc_ar_state **)&c->slot[HC_SLOT_ALLREDUCE], __ATOMIC_ACQUIRE);
    if (st)
        return st;
    pthread_mutex_lock(&c->lock);
    st = c->slot[HC_SLOT_ALLREDUCE];
    if (!st && (st = calloc(1, sizeof *st)) != NULL) {
        st->comm = MPI_COMM_NULL;
        c->slot_free[HC_SLOT_ALLREDUCE] = state_free;
        __atomic_store_n((hc_ar_state **)&c->slot[HC_SLOT_ALLREDUCE], st, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&c->lock);
    return st;
}

/* Not at the state's creation: most communicators live on one node and never send (the
 * segment's engines and the vendor's collective need none), and a split is most of what a
 * new communicator's first allreduce costs. */
int hc_ar_messages_comm(hc_comm *c, hc_ar_state *st)
{
    if (st->comm != MPI_COMM_NULL)
        return MPI_SUCCESS;
    /* Split, not dup: a dup would copy the preload's attribute to the private comm. */
    return PMPI_Comm_split(c->comm, 0, c->rank, &st->comm);
}
