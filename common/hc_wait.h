/* Waiting that never starves a descheduled peer (more ranks than cores is normal):
 * spin briefly, then sched_yield, then sleep with growing naps.
 *
 *   hc_backoff b = HC_BACKOFF_INIT;
 *   while (!ready()) hc_backoff_wait(&b);
 */
#ifndef HC_WAIT_H
#define HC_WAIT_H

#include <sched.h>
#include <time.h>

typedef struct hc_backoff {
    unsigned iter;
} hc_backoff;

#define HC_BACKOFF_INIT {0}

/* Called once the short spin is over, at every yield and nap: MPI's progress (set at
 * MPI_Init). A peer blocked in MPI on this rank, say an MPI_Ssend to a receive this rank has
 * posted, needs this rank's progress engine to finish and come to the collective; MPI
 * promises it, so a wait inside hiercoll must give it too. NULL outside MPI. */
extern void (*hc_wait_progress)(void);
#define HC_SPIN_ITERS 256   /* ~6 us of pause instructions: enough when the peer runs */
#define HC_YIELD_ITERS 2048 /* then give the core away; beyond this the peer is asleep */

/* Pause iterations before the first yield: HC_SPIN_ITERS, or 0 where a spinning rank would
 * hold a core that the rank it waits for needs (hc_wait_choose_spin). */
extern unsigned hc_wait_spin;

/* Sets hc_wait_spin from HIERCOLL_WAIT_SPIN, the job's ranks on this node and whether the MPI
 * library was told to yield when idle (open_mpi: the library is Open MPI, the one that can
 * be). Returns 1 when the waits spin. */
int hc_wait_choose_spin(int node_ranks, int open_mpi);

static inline void hc_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

/* One turn of the backoff; progress (NULL: none) is called once the spin is over. */
static inline void hc_backoff_turn(hc_backoff *b, void (*progress)(void))
{
    unsigned i = b->iter++;
    if (i < hc_wait_spin) {
        hc_cpu_relax();
        return;
    }
    if (progress)
        progress();
    if (i < hc_wait_spin + HC_YIELD_ITERS) {
        sched_yield();
    } else {
        /* Naps grow to 50 us: long enough to let others run, short enough not to matter
         * against the time the peer has already taken. */
        unsigned extra = i - hc_wait_spin - HC_YIELD_ITERS;
        struct timespec ts = {0, extra < 50 ? 1000L * (extra + 1) : 50000L};
        nanosleep(&ts, NULL);
    }
}

static inline void hc_backoff_wait(hc_backoff *b) { hc_backoff_turn(b, hc_wait_progress); }

#endif
