/*
 * The buffer checker's interface to the wrappers above it (generated/
 * wrappers.c). It registers itself with the recorder (struct
 * mpivet_service) for its set-up, new threads and faults.
 */
#ifndef MPIVET_BUFFERS_H
#define MPIVET_BUFFERS_H

#include "../record/record.h"

/* The nonblocking-buffer checker (buffers/). While an operation is pending,
 * the pages of its buffer are protected (receive buffers against any access,
 * send buffers against writes) whenever no thread of the rank is inside MPI;
 * the fault handler reports the program's own accesses. Every wrapper
 * unprotects on entry and protects again on return, and only when something
 * is pending: mpivet_bc_live is zero otherwise. */
extern int mpivet_bc_on;   /* the checker is enabled */
extern int mpivet_bc_live; /* pages are protected, or the pending set changed */
extern int mpivet_bc_precise; /* single-step every fault, whatever it costs */
extern __thread int mpivet_bc_entered __attribute__((tls_model("initial-exec")));
/* A poll may run with the protected pages closed (mpivet_bc_still, set when
 * the last thread leaves MPI): the MPI reaches them only with its own
 * instructions or through system calls the layer interposes (small
 * buffers; or every rank on this host with a known shared-memory
 * transport), no page left open or watched for a window, no thread but
 * the one that polls. The MPI's access to a closed page in that poll
 * faults, or its system call is seen, and the call is entered for it then
 * (faults.c, kernelio.c): mpivet_bc_polling, set while such a poll runs, is
 * then 0. */
extern int mpivet_bc_still;
extern __thread int mpivet_bc_polling __attribute__((tls_model("initial-exec")));
void mpivet_bc_poll_window(void) __attribute__((visibility("hidden")));
void mpivet_bc_enter(int lazy);
void mpivet_bc_leave(void);
void mpivet_bc_in(unsigned call, const uint64_t *a, unsigned n);
void mpivet_bc_out(unsigned call, uint64_t logref, int rc, const uint64_t *o);

/* bc_is_mpi_object says whether the shared object named name (a path) is
 * the MPI library's or one of its transports' (buffers/mpicode.c): code
 * there is the MPI's, never the program's. files/ asks it too. */
int bc_is_mpi_object(const char *name) __attribute__((visibility("hidden")));

static inline void mpivet_bc_enter_call(uint64_t pc, int lazy)
{
	mpivet_call_pc = pc;
	if (__builtin_expect(mpivet_bc_live, 0))
		mpivet_bc_enter(lazy);
}

static inline void mpivet_bc_leave_call(void)
{
	if (__builtin_expect(mpivet_bc_live | mpivet_bc_entered, 0))
		mpivet_bc_leave();
}

/* mpivet_bc_enter_poll is the entry of a poll: on its fast path (fast,
 * internal/gen/fastpoll.go) the pages stay as they are. */
static inline void mpivet_bc_enter_poll(uint64_t pc, int fast)
{
	mpivet_call_pc = pc;
	if (__builtin_expect(mpivet_bc_live, 0)) {
		mpivet_bc_polling = fast; /* 0: the usual entry after a fast path that did not return */
		if (!fast)
			mpivet_bc_enter(1);
	}
}

/* mpivet_bc_leave_poll is the return of a poll: when its fast path
 * touched no closed page, nothing was opened and the window between the
 * program's calls starts again; otherwise the fault handler entered the
 * call, and it is left as any other. */
static inline void mpivet_bc_leave_poll(int fast)
{
	if (fast && mpivet_bc_polling) {
		mpivet_bc_polling = 0;
		mpivet_bc_poll_window();
		return;
	}
	mpivet_bc_leave_call();
}

#endif
