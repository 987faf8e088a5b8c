/*
 * How a rank ends badly: the crash signals (recorded with the faulting
 * call stack, then delivered to the program's disposition: signals.c),
 * and the
 * errors an MPI call raises under MPI_ERRORS_ARE_FATAL or returns.
 */
#define _GNU_SOURCE
#include "record.h"
#include "internal.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <pthread.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>


/* The callers of a crashing frame recorded with the signal. */
#define CRASH_FRAMES 32

/* crash_stack sets f to the return addresses of the frames that called the
 * one interrupted at pc, innermost first, and returns how many. backtrace
 * (libgcc's unwinder, loaded at start-up) walks from this handler through
 * the kernel's signal frame, whose unwind information restores the
 * registers saved in the signal's ucontext: the frame after it is the
 * interrupted one, at exactly pc, and its callers follow. When the unwinder
 * cannot go on from pc (a jump to address 0, code without unwind tables),
 * the return address on top of the interrupted stack is its caller, if a
 * call just happened. */
static int crash_stack(uint64_t pc, uint64_t sp, uint64_t *f)
{
	void *bt[CRASH_FRAMES + 8];
	int n = backtrace(bt, CRASH_FRAMES + 8), k = 0;
	for (int i = 0; i < n; i++)
		if ((uint64_t)(uintptr_t)bt[i] == pc) {
			for (int j = i + 1; j < n && k < CRASH_FRAMES; j++)
				f[k++] = (uint64_t)(uintptr_t)bt[j];
			return k;
		}
	Dl_info d;
	if (sp && (pc == 0 || !dladdr((void *)(uintptr_t)pc, &d)) && dladdr((void *)(uintptr_t)*(uint64_t *)(uintptr_t)sp, &d))
		f[k++] = *(uint64_t *)(uintptr_t)sp;
	return k;
}

/* ---- Which thread crashed ----
 *
 * Open MPI runs threads of its own in every rank (its progress thread and
 * PMIx's, both libevent loops), and stops them inside MPI_Finalize. A crash
 * in one of those while the program's MPI_Finalize runs is the library's,
 * not the program's: the signal record says which thread it was, and the
 * failure check tells the two apart. A thread is the library's when the
 * MPI's own code created it (buffers/faults.c interposes pthread_create and
 * tells the recorder here); the table is read in the signal handler, so it
 * is a fixed array written with atomics, never freed. */
#define MAX_LIBRARY_THREADS 64
static pthread_t library_threads[MAX_LIBRARY_THREADS];
static int nlibrary_threads;

void mpivet_library_thread(pthread_t t)
{
	int i = __atomic_fetch_add(&nlibrary_threads, 1, __ATOMIC_RELAXED);
	if (i < MAX_LIBRARY_THREADS)
		__atomic_store_n(&library_threads[i], t, __ATOMIC_RELEASE);
}

/* mpivet_library_tid notes, from a thread the MPI library created, its
 * kernel id in the state file's thread table, where the launcher's stall
 * watch tells the MPI's threads from the program's (api.StateLibrary). */
void mpivet_library_tid(void)
{
	if (!mpivet_state)
		return;
	uint64_t *t = &mpivet_state[MPIVET_STATE_LIBRARY];
	uint64_t i = __atomic_fetch_add(&t[0], 1, __ATOMIC_RELAXED);
	if (i < MPIVET_STATE_LIBRARY_MAX)
		__atomic_store_n(&t[1 + i], (uint64_t)gettid(), __ATOMIC_RELEASE);
}

static int library_thread(void)
{
	pthread_t self = pthread_self();
	int n = __atomic_load_n(&nlibrary_threads, __ATOMIC_RELAXED);
	for (int i = 0; i < n && i < MAX_LIBRARY_THREADS; i++)
		if (pthread_equal(__atomic_load_n(&library_threads[i], __ATOMIC_ACQUIRE), self))
			return 1;
	return 0;
}

/* thread_flags are the MPIVET_SIGNAL_* bits of the signal record's first
 * word (api.Signal* in Go) for the thread the signal interrupted. */
static uint64_t thread_flags(void)
{
	uint64_t f = MPIVET_SIGNAL_KNOWN;
	if (getpid() == gettid())
		f |= MPIVET_SIGNAL_MAIN;
	if (mpivet_slot)
		f |= MPIVET_SIGNAL_CALLED_MPI;
	if (library_thread())
		f |= MPIVET_SIGNAL_LIBRARY;
	return f;
}

/* signal_record logs the signal with the callers known so far. A thread
 * other than the one calling MPI may crash while that one records (the log
 * is not reserved atomically then: mpivet_mt is off), so the handler always
 * reserves its room atomically. */
static void signal_record(uint64_t head, uint64_t pc, uint64_t addr, const uint64_t *f, int n)
{
	mpivet_fold_flush();
	uint64_t size = 8 + (3 + (uint64_t)n) * 8, off = __atomic_fetch_add(&mpivet_pos, size, __ATOMIC_RELAXED);
	if (off + size > mpivet_ready && !mpivet_grow(off + size)) {
		mpivet_overflow(off);
		return;
	}
	uint64_t *w = (uint64_t *)(mpivet_base + off + 8);
	w[0] = head, w[1] = pc, w[2] = addr;
	for (int i = 0; i < n; i++)
		w[3 + i] = f[i];
	__atomic_store_n((uint64_t *)(mpivet_base + off), mpivet_header(3 + n, MPIVET_META_SIGNAL, MPIVET_KIND_META), __ATOMIC_RELEASE);
}

/* The signal a thread is recording, while on_signal does (0: none). */
static __thread int crashing __attribute__((tls_model("initial-exec")));

/* default_disposition gives sig its default action and unblocks it, in
 * the kernel (the program's own settings are not touched). */
static void default_disposition(int sig)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	mpivet_raw_sigaction(sig, &dfl, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	mpivet_raw_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* second_fault: a crash signal arrived while on_signal recorded another
 * in the same thread (the unwinder faulted: a library unmapped under it by
 * another thread's dlclose, unwind information that does not match the
 * code). The first signal's record is written already, with the crashing
 * instruction; the process ends now by that first signal, its default
 * action, without handing it on (the program's handler, or the MPI's,
 * would unwind the same stack). */
static void second_fault(void)
{
	int first = crashing;
	default_disposition(first);
	raise(first);
	_exit(128 + first);
}

/* Signals handed to the program's own handlers that are recorded: a
 * program that recovers from its faults (a garbage collector's write
 * barrier) would otherwise grow the log with every one. */
#define MAX_HANDLED_RECORDS 64
static int handled_records;

/* record_signal logs sig, then again with its callers; handled: it goes to
 * the program's handler. */
static void record_signal(int sig, siginfo_t *si, void *uc, int handled)
{
	if (!mpivet_on || (handled && __atomic_fetch_add(&handled_records, 1, __ATOMIC_RELAXED) >= MAX_HANDLED_RECORDS))
		return;
	uint64_t pc = 0, sp = 0;
#if defined(__x86_64__)
	pc = (uint64_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	sp = (uint64_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	pc = (uint64_t)((ucontext_t *)uc)->uc_mcontext.pc;
	sp = (uint64_t)((ucontext_t *)uc)->uc_mcontext.sp;
#endif
	int sent = !si || si->si_code <= 0;
	uint64_t flags = thread_flags() | (sent ? MPIVET_SIGNAL_SENT : 0) | (handled ? MPIVET_SIGNAL_HANDLED : 0);
	uint64_t head = (uint64_t)sig | flags << 32;
	/* a sent signal's word is its sender's pid (0: not known), which tells
	 * a raise or abort() of the rank's own from a kill from outside */
	uint64_t addr = sent ? (si ? (uint64_t)(uint32_t)si->si_pid : 0) : MPIVET_A(si->si_addr);
	/* what is known without unwinding first: if the unwinder faults,
	 * this is the report */
	signal_record(head, pc, addr, NULL, 0);
	uint64_t f[CRASH_FRAMES];
	int n = crash_stack(pc, sp, f);
	signal_record(head | (uint64_t)MPIVET_SIGNAL_UNWOUND << 32, pc, addr, f, n);
}

/* default_action ends the process by sig as the kernel would have: a fault
 * re-executes its instruction and now takes the default action; a sent
 * signal, and a trap (whose instruction is done), are raised again. */
static void default_action(int sig, int sent)
{
	default_disposition(sig);
	if (sent || sig == SIGTRAP || sig == SIGABRT)
		raise(sig);
}

/* on_signal handles every signal the layer owns (signals.c): a fault or
 * trap one of the services caused (a protected page of a pending buffer,
 * a stepped instruction) is theirs; any other is recorded and delivered
 * to the program's disposition as the kernel would have (the program's
 * handler, or the MPI's; ignored; the default action). */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	/* (while it records too: the unwinder reads stack pages that may be
	 * protected for a pending buffer) */
	if (mpivet_service_fault(sig, si, uc))
		return;
	if (crashing)
		second_fault();
	int sent = !si || si->si_code <= 0;
	int blocked = mpivet_program_blocks(sig, uc);
	if (sent && blocked) {
		mpivet_signal_pend(sig);
		return;
	}
	struct sigaction pa;
	mpivet_program_action(sig, &pa);
	if (pa.sa_handler == SIG_IGN && sent)
		return; /* (abort() then raises SIGABRT again with the default action itself) */
	/* the kernel forces a fault on a blocked or ignored signal: default */
	int handler = !blocked && pa.sa_handler != SIG_DFL && pa.sa_handler != SIG_IGN;
	crashing = sig;
	record_signal(sig, si, uc, handler);
	crashing = 0;
	if (handler)
		mpivet_signal_deliver(sig, &pa, si, uc);
	else
		default_action(sig, sent);
}

/* mpivet_install_crash_handlers puts on_signal on the signals the layer
 * owns. It runs when the log opens and again after MPI_Init: a
 * disposition set since behind the interposed calls' back (a raw system
 * call, glibc's own) is taken as the program's (signals.c). */
void mpivet_install_crash_handlers(void)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP};
	struct sigaction sa, cur;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		int sig = sigs[i];
		if (mpivet_raw_sigaction(sig, NULL, &cur) != 0)
			continue;
		if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal)
			continue; /* still ours */
		mpivet_adopt_signal(sig, &cur);
		mpivet_raw_sigaction(sig, &sa, NULL);
	}
}

/* ---- Fatal errors ----
 *
 * With the default handler, MPI_ERRORS_ARE_FATAL, an error ends the job
 * inside the call that failed, and what the MPI prints about it may never
 * reach mpivet (MPICH's launcher kills the ranks quickly). So the layer puts
 * its own handler on MPI_COMM_WORLD and MPI_COMM_SELF, which communicators
 * created from them inherit: it logs the error with the call the thread is
 * in, then hands the error to MPI_ERRORS_ARE_FATAL, which ends the job as it
 * would have. A handler the program sets replaces it. */

static void record_error(unsigned call, int rc, uint64_t pc, int fatal);

static void fatal_error(MPI_Comm *comm, int *code, ...)
{
	uint64_t *s = mpivet_slot;
	if (s && s[MPIVET_STATE_STATUS] == 1) { /* inside a call: its entry record */
		const uint64_t *e = s[MPIVET_STATE_LOGREF] == MPIVET_NOREC ? &s[MPIVET_STATE_RECORD] : mpivet_fold_entry(s[MPIVET_STATE_LOGREF]);
		record_error(e[0] >> 32 & 0xffff, *code, e[1], 1);
	}
	PMPI_Comm_set_errhandler(*comm, MPI_ERRORS_ARE_FATAL);
	PMPI_Comm_call_errhandler(*comm, *code);
	PMPI_Abort(*comm, *code); /* not reached */
}

static MPI_Errhandler layer_eh = MPI_ERRHANDLER_NULL; /* never freed: its value is never another's */

/* mpivet_install_error_handler puts the layer's handler on the
 * communicators that have MPI_ERRORS_ARE_FATAL, once MPI is initialised. */
void mpivet_install_error_handler(void)
{
	MPI_Errhandler eh, old;
	if (PMPI_Comm_create_errhandler(fatal_error, &eh) != MPI_SUCCESS)
		return;
	layer_eh = eh;
	MPI_Comm comms[] = {MPI_COMM_WORLD, MPI_COMM_SELF};
	for (int i = 0; i < 2; i++) {
		if (PMPI_Comm_get_errhandler(comms[i], &old) != MPI_SUCCESS)
			continue;
		if (old == MPI_ERRORS_ARE_FATAL) /* predefined: no reference to free */
			PMPI_Comm_set_errhandler(comms[i], eh);
	}
}

/* The program sees the handler it would have: MPI_ERRORS_ARE_FATAL where
 * the layer's stands for it (on MPI_COMM_WORLD, MPI_COMM_SELF and the
 * communicators made from them), a library that compares or saves and
 * restores the handler works as without mpivet. (The Fortran bindings ask
 * the MPI directly, and see the layer's.) */
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
	int rc = PMPI_Comm_get_errhandler(comm, errhandler);
	if (rc == MPI_SUCCESS && errhandler && layer_eh != MPI_ERRHANDLER_NULL && *errhandler == layer_eh) {
		PMPI_Errhandler_free(errhandler); /* the reference the call gave */
		*errhandler = MPI_ERRORS_ARE_FATAL;
	}
	return rc;
}

/* record_error logs an error of call at pc, with its class; fatal: raised
 * to MPI_ERRORS_ARE_FATAL, which ends the job. Rare, so it may take a call
 * into MPI. */
static void record_error(unsigned call, int rc, uint64_t pc, int fatal)
{
	int class = rc;
	PMPI_Error_class(rc, &class);
	uint64_t w[] = {call, (uint64_t)(int64_t)rc, (uint64_t)(int64_t)class, pc, (uint64_t)fatal};
	mpivet_meta(MPIVET_META_ERROR, w, 5);
}

/* mpivet_error records an error an MPI call returned (the program's error
 * handler let it return). */
void mpivet_error(unsigned call, int rc, uint64_t pc) { record_error(call, rc, pc, 0); }
