/*
 * Faults and traps: the handler of the faults on protected pages and the
 * trap handler that closes a page again after the one instruction it let
 * through (the recorder calls both back: struct mpivet_service), the code
 * of the MPI (whose accesses are its own), and threads (their stacks,
 * their end, pthread_create).
 */
#define _GNU_SOURCE
#include "checker.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/* ---- Faults ---- */

static TLS uintptr_t stack_lo, stack_hi; /* this thread's stack, if known */
static TLS uintptr_t step_pages[8];
static TLS int nstep;
static TLS uintptr_t stale; /* a fault on a page no longer protected, retried once */
static TLS uint64_t step_gap_t0; /* when the handler of the last stepped fault returned */

/* access checks an access by the program to address a; 1 if it is to the
 * bytes of a pending buffer that the access type concerns. */
static int access_at(uintptr_t a, int write, uintptr_t pc)
{
	int hit = 0;
	for (int i = 0; i < nregions; i++) {
		struct region *r = &regions[i];
		if (!r->active || (!r->recv && !write) || !bc_covers_range(r, a, a + 1))
			continue;
		hit = 1;
		if (write)
			r->hit_window = window_serial;
		if (!bc_first_sighting(r, pc))
			continue;
		uint64_t pcs[MAX_PCS];
		int npcs = bc_fault_stack(pc, pcs);
		if (npcs < 0)
			return hit; /* called from within MPI (a callback, a user op) */
		bc_record(r->recv ? (write ? WRITE_RECV : READ_RECV) : WRITE_SEND, a, r, 0, pcs, npcs);
	}
	return hit;
}

/* program_fault checks an access of the program's to a protected page,
 * and, past the stepping allowance or in a loop, demotes the page or
 * leaves it open until the next MPI call (1) instead of stepping it (0). */
static int program_fault(uintptr_t a, uintptr_t page, int write, uintptr_t pc)
{
	int hit = access_at(a, write, pc), step = bc_may_step();
	/* not on the thread's stack: every frame touches those pages, from
	 * scattered instructions, and its buffers are small */
	int on_stack = a >= stack_lo && a < stack_hi;
	int loop = step && !on_stack && bc_missed(page, pc) >= LOOP_MISSES;
	stats[F_LOOP] += loop;
	stats[F_HIT] += hit;
	if (!hit && (!step || loop) && bc_demote(page, write, bc_want_prot(page))) {
		stats[F_DEMOTED]++;
		return 1;
	}
	if ((!step || loop) && nopened + nregions <= MAX_OPENED) {
		/* over the allowance, or a loop over a pending buffer whose
		 * access is recorded: leave the page open until the next MPI
		 * call */
		stats[F_OPENED]++;
		bc_prot(page, pagesz, RW, S_OPEN);
		bc_open_page(page);
		return 1;
	}
	return 0;
}

/* fault handles a fault on a page the checker protected: a page opened
 * since by another thread (retried once), the MPI's own access in a call
 * that left the page closed (opened until the call returns), the
 * program's (checked, then stepped, demoted or left open). */
static int fault(void *sip, void *ucp)
{
#if defined(__x86_64__)
	siginfo_t *si = sip;
	ucontext_t *uc = ucp;
	if (!si || !uc || si->si_code != SEGV_ACCERR)
		return 0;
	uintptr_t a = (uintptr_t)si->si_addr, page = a & ~(pagesz - 1);
	uint64_t t0 = tsc();
	int locked = lock_in_handler();
	uintptr_t rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	if (nexposed && bc_exposure_fault(a, (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0, rip,
					  locked && !mpivet_guard && !bc_in_mpi_code(rip) && mpivet_bc_on)) {
		if (locked)
			unlock();
		return 1;
	}
	int ours = 0;
	for (int i = 0; i < nspans && !ours; i++)
		ours = page >= spans[i].lo && page < spans[i].hi;
	if (!ours) {
		if (locked)
			unlock();
		/* Another thread may have opened the page since the fault: let
		 * the instruction run again, once; a second fault is a crash. */
		if (stale == a)
			return stale = 0, 0;
		stale = a;
		stats[F_STALE]++;
		return 1;
	}
	stale = 0;
	mpivet_bc_still = 0; /* the program or the MPI touches pending pages: polls enter again */
	if (mpivet_bc_polling && mpivet_guard && locked)
		bc_poll_entered(); /* the MPI's access to a page a poll left closed */
	if (mpivet_guard && unprotected) {
		/* this thread is in an MPI call that left the page closed: the
		 * MPI's own access; the page stays open until the call returns */
		stats[F_MPI]++;
		bc_prot(page, pagesz, RW, S_MPI);
		bc_list_page(mpi_pages, &nmpi_pages, page);
		if (all_unsure && !all_open)
			bc_open_spans(0);
		if (locked)
			unlock();
		return 1;
	}
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	int write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
	int program = locked && !mpivet_guard && !bc_in_mpi_code(pc) && mpivet_bc_on;
	if (program && program_fault(a, page, write, pc)) {
		unlock();
		return 1;
	}
	bc_prot(page, pagesz, RW, S_STEP);
	stats[F_STEPPED]++;
	if (!program) { stats[X_UNCH]++; if (bc_in_mpi_code(pc)) stats[X_LAYER]++; if (mpivet_guard) stats[X_STACK]++; }
	if (nstep == 0)
		step_t0 = t0, step_charged = program;
	if (nstep < 8)
		step_pages[nstep++] = page;
	uc->uc_mcontext.gregs[REG_EFL] |= 0x100; /* trap after this one instruction */
	if (locked)
		unlock();
	step_gap_t0 = tsc();
	return 1;
#else
	(void)sip, (void)ucp;
	return 0;
#endif
}

/* trap closes the pages stepped by the one instruction let through
 * (1), if this thread stepped any: a trap of the program's own is not
 * the checker's (0). */
static int trap(void *ucp)
{
#if defined(__x86_64__)
	if (nstep == 0)
		return 0;
	uint64_t t0 = tsc();
	ucontext_t *uc = ucp;
	int locked = lock_in_handler();
	for (int i = 0; i < nstep; i++)
		bc_prot(step_pages[i], pagesz, bc_want_prot(step_pages[i]), S_UNSTEP);
	nstep = 0;
	/* The layer's and the MPI's own accesses (a wrapper's frame on a
	 * stack page that holds a pending buffer) are stepped too, but a
	 * few per call: they would use up the allowance of a program that
	 * keeps buffers on its stack. */
	if (step_charged)
		stepped_ns += since(step_t0) + signal_ns;
	add_spent(signal_ns / 2);
	spend(step_gap_t0 && step_gap_t0 < t0 ? step_gap_t0 : t0);
	step_gap_t0 = 0;
	uc->uc_mcontext.gregs[REG_EFL] &= ~0x100;
	if (locked)
		unlock();
	return 1;
#else
	(void)ucp;
	return 0;
#endif
}

/* bc_fault handles the checker's SIGSEGV and SIGTRAP (the recorder's
 * handler owns both: record/signals.c), 0 if it is not the checker's. */
int bc_fault(int sig, void *sip, void *ucp)
{
	if (sig == SIGTRAP)
		return trap(ucp);
	if (sig != SIGSEGV)
		return 0;
	uint64_t t0 = tsc();
	int r = fault(sip, ucp);
	if (r)
		add_spent(signal_ns / 2);
	spend(t0);
	return r;
}

static pthread_key_t exit_key;
static void thread_exit(void *);
static void make_exit_key(void) { pthread_key_create(&exit_key, thread_exit); }

/* thread_exit forgets the pending operations whose buffers are on the stack
 * of a thread that ends (a bug of the program, but its exit must not fault:
 * glibc ends a thread with all signals blocked). */
static void thread_exit(void *unused)
{
	(void)unused;
	if (!mpivet_bc_on || !stack_hi)
		return;
	/* The buffers on the dying thread's stack go first: the exit path's
	 * own frames (this one too) overwrite them, which is no access of the
	 * program's to compare in the window that ends. */
	lock();
	for (int j = nregions - 1; j >= 0; j--)
		if (regions[j].hi > stack_lo && regions[j].lo < stack_hi) {
			if (regions[j].active && regions[j].watched)
				dirty = mpivet_bc_live = 1;
			bc_remove_at(j);
		}
	unlock();
	mpivet_bc_enter(0);
	mpivet_bc_leave();
}

/* pthread_create runs part of its work with every signal blocked, and
 * writes the new thread's handle into the caller's variable then: a fault
 * there, on a page protected for a pending buffer (a receive into a
 * variable on the same stack page, in a hybrid code), would kill the rank
 * instead of reaching the handler. So the pages are open while it runs, as
 * in an MPI call. The threads the MPI's own code creates are noted for the
 * crash handler (record/crash.c); the program's are named, the same in every
 * run (record/identity.c). */
struct library_start {
	void *(*f)(void *);
	void *arg;
};

/* library_start starts a thread of the MPI's, having noted its kernel id
 * (the stall watch does not count the MPI's threads among the program's). */
static void *library_start(void *p)
{
	struct library_start s = *(struct library_start *)p;
	free(p);
	mpivet_library_tid();
	return s.f(s.arg);
}

/* real_create creates the thread, started through library_start if the
 * MPI's own code creates it. */
static int real_create(int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *), pthread_t *t,
		       const pthread_attr_t *attr, void *(*f)(void *), void *arg, int library)
{
	struct library_start *s = library ? malloc(sizeof *s) : NULL;
	if (!s)
		return real(t, attr, f, arg);
	s->f = f, s->arg = arg;
	int r = real(t, attr, library_start, s);
	if (r != 0)
		free(s);
	return r;
}

/* is_layer says whether the object loaded at base is this layer (by its
 * address, not its name: an MPI may be installed under a path that holds
 * "mpivet", as the tests' Open MPI 5 is). */
static int is_layer(const void *base)
{
	Dl_info self;
	return dladdr((const void *)is_layer, &self) && self.dli_fbase == base;
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*f)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	if (!real) {
		real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
		if (!real)
			return EAGAIN;
	}
	/* whose thread it is: the MPI's (its progress threads) or the program's */
	Dl_info d;
	void *caller = __builtin_return_address(0);
	int library = dladdr(caller, &d) && d.dli_fname && bc_is_mpi_object(d.dli_fname) && !is_layer(d.dli_fbase);
	if (!library)
		__atomic_store_n(&threads_made, 1, __ATOMIC_RELAXED); /* no poll with the pages closed (pages.c) */
	void *box = arg; /* the program's threads are named (record/identity.c) */
	void *(*start)(void *) = library ? f : mpivet_child(f, arg, &box);
	int r;
	if (!mpivet_bc_live) {
		if ((r = real_create(real, t, attr, start, box, library)) == 0 && library)
			mpivet_library_thread(*t);
	} else {
		int nested = mpivet_bc_entered; /* inside an MPI call: open until it returns */
		mpivet_bc_enter(0);
		if ((r = real_create(real, t, attr, start, box, library)) == 0 && library)
			mpivet_library_thread(*t); /* (read while the pages are open) */
		if (!nested)
			mpivet_bc_leave();
	}
	if (r != 0)
		mpivet_child_failed(start, box);
	return r;
}

/* bc_thread gives the calling thread an alternate signal stack: a
 * receive buffer on the stack protects the stack page the handler would
 * otherwise run on. */
void bc_thread(void)
{
	if (!mpivet_bc_on)
		return;
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_attr_t attr;
	if (getpid() != gettid() && pthread_getattr_np(pthread_self(), &attr) == 0) {
		void *addr;
		size_t size;
		if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
			stack_lo = (uintptr_t)addr, stack_hi = stack_lo + size;
			pthread_once(&once, make_exit_key);
			pthread_setspecific(exit_key, (void *)1);
		}
		pthread_attr_destroy(&attr);
	}
	stack_t old;
	if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE))
		return; /* the program has its own */
	size_t size = 1 << 16;
	void *p = mmap(NULL, size, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	stack_t ss = {.ss_sp = p, .ss_size = size, .ss_flags = 0};
	sigaltstack(&ss, NULL);
}
