/*
 * Who a thread is, the same in every run: its path in the tree of the
 * threads the program created. The process's initial thread is 0; the k-th
 * thread a thread with identity P created (k from 1) is P with k appended,
 * a byte a level (api.ThreadPath in Go): the main thread's third child is
 * 3, that child's first 0x103, "3.1". The threads' order of reaching MPI is
 * the scheduler's, the order in which each thread creates its own is the
 * program's, so a replay gives each thread the identity it had in its
 * parent run. buffers/faults.c interposes pthread_create and asks here for
 * the start routine that names the new thread; the threads the MPI's own
 * code creates are not counted (mpivet_child). A thread this could not name
 * (created by clone, or past 3 levels or 255 children) gets
 * MPIVET_THREAD_UNNAMED with its number (mpivet_thread_no), not stable.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "record.h"

#include <stdlib.h>
#include <unistd.h>

__thread uint32_t mpivet_thread_id __attribute__((tls_model("initial-exec")));
static __thread uint32_t children;
static __thread int named;

/* child_id is the identity of the k-th child of a thread of identity id. */
static uint32_t child_id(uint32_t id, uint32_t k)
{
	int depth = id == 0 ? 0 : id < 1u << 8 ? 1 : id < 1u << 16 ? 2 : 3;
	if ((id & MPIVET_THREAD_UNNAMED) || depth >= 3 || k > 255)
		return MPIVET_THREAD_UNNAMED;
	return id | k << (8 * depth);
}

struct start {
	void *(*f)(void *);
	void *arg;
	uint32_t id;
};

static void *started(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	mpivet_thread_id = s.id;
	named = 1;
	return s.f(s.arg);
}

/* mpivet_child gives the start routine and argument that run f(arg) in a
 * thread named as the calling thread's next child; *box is to be given to
 * mpivet_child_failed if the thread is not created. */
void *(*mpivet_child(void *(*f)(void *), void *arg, void **box))(void *)
{
	struct start *s = malloc(sizeof *s);
	if (!s) {
		*box = arg;
		return f;
	}
	s->f = f, s->arg = arg, s->id = child_id(mpivet_thread_id, ++children);
	*box = s;
	return started;
}

/* mpivet_child_failed takes back what mpivet_child gave for a thread that
 * was not created. */
void mpivet_child_failed(void *(*start)(void *), void *box)
{
	if (start != started)
		return;
	children--;
	free(box);
}

/* mpivet_thread_named logs who the calling thread is, at its first MPI
 * call when it is not the first thread to make one: its number
 * (mpivet_thread_no, set), identity, kernel id, 1 if it is the initial
 * thread, OpenMP thread number or -1 (api.MetaThread). */
void mpivet_thread_named(void)
{
	if (!named && getpid() != gettid())
		mpivet_thread_id = MPIVET_THREAD_UNNAMED | mpivet_thread_no;
	if (!mpivet_on || !mpivet_base)
		return;
	uint64_t w[5] = {mpivet_thread_no, mpivet_thread_id};
	mpivet_thread_words(&w[2]);
	mpivet_meta(MPIVET_META_THREAD, w, 5);
}
