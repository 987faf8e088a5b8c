/*
 * Thread levels kept: the slow path of mpivet_tl_enter (record.h). A
 * program that got MPI_THREAD_SINGLE or MPI_THREAD_FUNNELED promised that
 * only its main thread (the one that initialised MPI) calls MPI; one that
 * got MPI_THREAD_SERIALIZED, that no two threads are inside MPI at once;
 * and every program, that no thread calls MPI while another initialises or
 * finalises it. A call that breaks the promise is logged
 * (MPIVET_META_THREAD_LEVEL) with the thread that made it and the call the
 * other thread inside MPI is in, read from its slot of the state page.
 *
 * From the first such call on, records are reserved atomically (mpivet_mt):
 * two threads now write the log. The services above keep tables made for
 * the one thread the level promised; they run on as they are.
 */
#define _GNU_SOURCE
#include "record.h"
#include "internal.h"

#include <dlfcn.h>
#include <unistd.h>

int mpivet_tl_rule, mpivet_tl_inside;
__thread int mpivet_tl_depth __attribute__((tls_model("initial-exec")));
__thread int mpivet_tl_main __attribute__((tls_model("initial-exec")));
__thread int mpivet_tl_counted __attribute__((tls_model("initial-exec")));

#define MAX_REPORTS 32 /* per rank: a loop that breaks the promise logs it this many times */
static int reports;
/* the OpenMP runtime's, when the program has one */
static int (*omp_thread_num)(void), (*omp_in_parallel)(void);

/* What broke the promise (the record's first word, api.ThreadLevel* in Go). */
enum { NOT_MAIN = 1, TWO_INSIDE = 2, DURING_INIT = 3, DURING_FINALIZE = 4 };

/* mpivet_tl_starting: the thread enters MPI_Init or MPI_Init_thread: it is
 * the main thread, and no other may be inside MPI until the call returns. */
void mpivet_tl_starting(unsigned call)
{
	(void)call;
	mpivet_tl_main = 1;
	__atomic_store_n(&mpivet_tl_rule, MPIVET_TL_INIT, __ATOMIC_SEQ_CST);
}

/* mpivet_tl_initialized sets the rule of the level the program got, in
 * the thread that initialised MPI (or, when the layer did not see the
 * initialisation, the first that called it after). */
void mpivet_tl_initialized(int provided)
{
	mpivet_tl_main = 1;
	omp_thread_num = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_thread_num");
	omp_in_parallel = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_in_parallel");
	int r = provided == MPI_THREAD_MULTIPLE ? 0
		: provided == MPI_THREAD_SERIALIZED ? MPIVET_TL_ONE
						    : MPIVET_TL_ONE | MPIVET_TL_MAIN;
	__atomic_store_n(&mpivet_tl_rule, r | (__atomic_load_n(&mpivet_tl_rule, __ATOMIC_SEQ_CST) & MPIVET_TL_FINI),
			 __ATOMIC_SEQ_CST);
}

/* other_call finds a thread inside MPI other than this one, from the state
 * page, and writes the call it is in and its site to w[0], w[1]. The slot
 * is read as the deadlock check reads it, under its sequence lock; a slot
 * that changes all the time is skipped. */
static void other_call(uint64_t *w)
{
	w[0] = w[1] = MPIVET_NOREC;
	int n = mpivet_threads_calling();
	if (!mpivet_state || n > MPIVET_STATE_SLOTS)
		n = mpivet_state ? MPIVET_STATE_SLOTS : 0;
	for (int i = 0; i < n; i++) {
		const uint64_t *s = &mpivet_state[i * MPIVET_STATE_WORDS];
		if (s == mpivet_slot)
			continue;
		for (int tries = 0; tries < 4; tries++) {
			uint64_t seq = __atomic_load_n(&s[MPIVET_STATE_SEQ], __ATOMIC_ACQUIRE), st = s[MPIVET_STATE_STATUS];
			uint64_t ref = s[MPIVET_STATE_LOGREF], h, pc;
			if (seq & 1)
				continue;
			if (st != 1 && st != MPIVET_STATUS_DECIDING)
				break;
			const uint64_t *e = ref == MPIVET_NOREC ? &s[MPIVET_STATE_RECORD] : (const uint64_t *)(mpivet_base + ref);
			h = e[0];
			pc = e[1];
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&s[MPIVET_STATE_SEQ], __ATOMIC_RELAXED) != seq || (h & 0xffffffff) < 16)
				continue;
			w[0] = h >> 32 & 0xffff;
			w[1] = pc;
			return;
		}
	}
}

/* mpivet_thread_words writes who the calling thread is, as records name
 * it: its kernel id, 1 if it is the process's initial thread, its OpenMP
 * thread number in a parallel region or -1. Safe in a signal handler (the
 * OpenMP runtime's functions read its thread-local data). */
void mpivet_thread_words(uint64_t *w)
{
	pid_t tid = gettid();
	w[0] = (uint64_t)tid;
	w[1] = getpid() == tid;
	w[2] = (uint64_t)(int64_t)(omp_thread_num && omp_in_parallel && omp_in_parallel() ? omp_thread_num() : -1);
}

/* mpivet_tl_broken logs a call that breaks the thread level's promise:
 * what it broke, the call, its site, the thread (mpivet_thread_words), the
 * other thread's call and site (MPIVET_NOREC: none found), and how many
 * threads were inside MPI before it. */
void mpivet_tl_broken(unsigned call, int inside)
{
	int r = __atomic_load_n(&mpivet_tl_rule, __ATOMIC_SEQ_CST);
	if (__atomic_fetch_add(&reports, 1, __ATOMIC_RELAXED) >= MAX_REPORTS)
		return;
	mpivet_mt = 1; /* several threads write the log from now on */
	int what = (r & MPIVET_TL_INIT) ? DURING_INIT
		   : (r & MPIVET_TL_FINI) && inside > 0 ? DURING_FINALIZE
		   : (r & MPIVET_TL_MAIN) && !mpivet_tl_main ? NOT_MAIN
							     : TWO_INSIDE;
	uint64_t w[9];
	w[0] = (uint64_t)what;
	w[1] = call;
	w[2] = mpivet_call_pc;
	mpivet_thread_words(&w[3]);
	other_call(&w[6]);
	w[8] = (uint64_t)inside;
	mpivet_meta(MPIVET_META_THREAD_LEVEL, w, 9);
}
