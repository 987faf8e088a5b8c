/*
 * The program's signal dispositions, kept apart from the layer's.
 *
 * The layer causes faults of its own: the buffer checker protects the
 * pages of pending buffers (SIGSEGV on the program's access) and steps one
 * instruction with the trap flag (SIGTRAP). Those are the layer's to
 * handle, whatever handlers the program installs (PETSc, gfortran's
 * runtime, the MPI itself install SIGSEGV handlers, before or after
 * MPI_Init), and whatever it blocks. So the layer's handler (crash.c's
 * on_signal) stays installed for the signals it owns (owned()), and the
 * program's calls that set or read dispositions and masks are interposed
 * here:
 *
 * - sigaction (and signal, bsd_signal, ssignal, sysv_signal, sigset,
 *   sighold, sigrelse, sigignore) on an owned signal changes the
 *   program's disposition in a table, not the kernel's, and returns the
 *   program's previous one as oldact (never the layer's handler);
 * - the signals the layer raises synchronously (unblockable(): SIGSEGV,
 *   SIGBUS, SIGTRAP) are never blocked in the kernel: a fault on a blocked
 *   signal would kill the thread (the kernel forces the default action).
 *   sigprocmask, pthread_sigmask, sigblock, sigsetmask and sa_mask drop
 *   them before the kernel sees them; the thread remembers them (hidden)
 *   and the masks returned to the program include them.
 *
 * A signal the layer's services do not claim is delivered as the kernel
 * would have (crash.c, mpivet_signal_deliver here): the program's
 * handler, with its SA_SIGINFO, sa_mask, SA_NODEFER and SA_RESETHAND; its
 * SIG_IGN (a fault on an ignored or blocked signal kills, as the kernel
 * forces it; a sent one is ignored, or left pending until unblocked); its
 * SIG_DFL (the default action, with the same exit status and core).
 *
 * Before the log is open (mpivet_signals_own), everything passes through:
 * the layer owns nothing in a process that is not a rank. glibc's own
 * callers (abort, siginterrupt) call its internal functions, not these;
 * crash.c's mpivet_signals_own finds a disposition changed behind the
 * table's back again after MPI_Init and adopts it.
 *
 * Limits: a new thread starts with no hidden signal blocked (the kernel's
 * mask is inherited; the hidden part is not); a sent owned signal that a
 * hidden mask blocks waits in the thread it was delivered to; a program
 * handler runs on the layer's alternate signal stack when the thread has
 * one, whether it asked for SA_ONSTACK or not.
 */
#define _GNU_SOURCE
#include "record.h"
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#define TLS __thread __attribute__((tls_model("initial-exec")))

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static int (*real_sigmask)(int, const sigset_t *, sigset_t *);
static int owning; /* the layer's handler is installed for the owned signals */

/* The program's dispositions of the owned signals, written under a lock
 * with every signal blocked, read by the handler without it (seq: odd
 * while written). */
static struct sigaction prog[NSIG];
static unsigned seq[NSIG];
static int wlock;
/* The sa_mask the program gave with a handler of another signal (the
 * kernel's lacks the unblockable signals). */
static struct {
	void *handler;
	sigset_t mask;
} given[NSIG];

/* The unblockable signals this thread's program believes blocked, those
 * sent while so blocked, and the unblockable ones a program handler the
 * layer called blocks while it runs (live: see in_handler). */
static TLS unsigned hidden, pending, handler_bits;
static TLS uintptr_t handler_sp;
static TLS int handler_alt;

static int resolve(void)
{
	if (!real_sigaction)
		real_sigaction = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
	if (!real_sigmask)
		real_sigmask = (int (*)(int, const sigset_t *, sigset_t *))dlsym(RTLD_NEXT, "pthread_sigmask");
	return real_sigaction && real_sigmask;
}

int mpivet_owned_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGTRAP || sig == SIGFPE || sig == SIGILL || sig == SIGABRT;
}

static int unblockable(int sig) { return sig == SIGSEGV || sig == SIGBUS || sig == SIGTRAP; }
static const int unblockables[] = {SIGSEGV, SIGBUS, SIGTRAP};

/* strip removes the unblockable signals from m, and returns them as bits. */
static unsigned strip(sigset_t *m)
{
	unsigned bits = 0;
	for (int i = 0; i < 3; i++)
		if (sigismember(m, unblockables[i]) == 1) {
			bits |= 1u << unblockables[i];
			sigdelset(m, unblockables[i]);
		}
	return bits;
}

static void add_bits(sigset_t *m, unsigned bits)
{
	for (int i = 0; i < 3; i++)
		if (bits & 1u << unblockables[i])
			sigaddset(m, unblockables[i]);
}

int mpivet_raw_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!resolve()) {
		errno = ENOSYS;
		return -1;
	}
	return real_sigaction(sig, act, old);
}

int mpivet_raw_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return resolve() ? real_sigmask(how, set, old) : ENOSYS;
}

/* ---- The table ---- */

static void write_begin(sigset_t *saved)
{
	sigset_t all;
	sigfillset(&all);
	real_sigmask(SIG_SETMASK, &all, saved);
	while (__atomic_exchange_n(&wlock, 1, __ATOMIC_ACQUIRE))
		;
}

static void write_end(const sigset_t *saved)
{
	__atomic_store_n(&wlock, 0, __ATOMIC_RELEASE);
	real_sigmask(SIG_SETMASK, saved, NULL);
}

/* put sets the program's disposition of owned signal sig to a (if not
 * NULL) and returns its previous one in old (if not NULL). */
static void put(int sig, const struct sigaction *a, struct sigaction *old)
{
	sigset_t saved;
	write_begin(&saved);
	if (old)
		*old = prog[sig];
	if (a) {
		__atomic_fetch_add(&seq[sig], 1, __ATOMIC_ACQ_REL);
		prog[sig] = *a;
		__atomic_fetch_add(&seq[sig], 1, __ATOMIC_RELEASE);
	}
	write_end(&saved);
}

/* mpivet_program_action is the program's disposition of owned signal sig
 * (safe in a signal handler). */
void mpivet_program_action(int sig, struct sigaction *out)
{
	unsigned s;
	do {
		s = __atomic_load_n(&seq[sig], __ATOMIC_ACQUIRE);
		memcpy(out, &prog[sig], sizeof *out);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((s & 1) || s != __atomic_load_n(&seq[sig], __ATOMIC_RELAXED));
}

/* mpivet_adopt_signal takes the kernel's disposition cur of owned signal
 * sig as the program's (set before the layer owned it, or behind the
 * interposed calls' back), then the layer owns sig. The first call also
 * moves the unblockable signals the thread blocks into its hidden mask. */
void mpivet_adopt_signal(int sig, const struct sigaction *cur)
{
	if (!resolve())
		return;
	put(sig, cur, NULL);
	if (!owning) {
		sigset_t m;
		real_sigmask(SIG_BLOCK, NULL, &m);
		unsigned bits = strip(&m);
		if (bits) {
			hidden |= bits;
			real_sigmask(SIG_SETMASK, &m, NULL);
		}
	}
	__atomic_store_n(&owning, 1, __ATOMIC_RELEASE);
}

/* ---- Dispositions ---- */

/* other_sigaction: a signal the layer does not own goes to the kernel,
 * with the unblockable signals out of its sa_mask, and the program gets
 * back the sa_mask it gave. */
static int other_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction a, o;
	if (act) {
		a = *act;
		strip(&a.sa_mask);
	}
	int r = real_sigaction(sig, act ? &a : NULL, &o);
	if (r != 0)
		return r;
	sigset_t saved;
	write_begin(&saved);
	if (given[sig].handler == (void *)o.sa_handler)
		o.sa_mask = given[sig].mask;
	if (act)
		given[sig].handler = (void *)act->sa_handler, given[sig].mask = act->sa_mask;
	write_end(&saved);
	if (old)
		*old = o;
	return 0;
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!resolve()) {
		errno = ENOSYS;
		return -1;
	}
	if (sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP)
		return real_sigaction(sig, act, old); /* the kernel's errors */
	if (!__atomic_load_n(&owning, __ATOMIC_ACQUIRE) || !mpivet_owned_signal(sig))
		return other_sigaction(sig, act, old);
	struct sigaction a, o;
	if (act) {
		a = *act; /* (read before the lock: it may fault on a protected page) */
		/* what the kernel would keep, and give back as oldact */
		sigdelset(&a.sa_mask, SIGKILL);
		sigdelset(&a.sa_mask, SIGSTOP);
#if defined(__x86_64__)
		a.sa_flags |= 0x04000000; /* SA_RESTORER: glibc sets it on every action */
#endif
	}
	put(sig, act ? &a : NULL, &o);
	if (old)
		*old = o;
	return 0;
}

int __sigaction(int sig, const struct sigaction *act, struct sigaction *old) { return sigaction(sig, act, old); }

/* set_handler installs h on an owned signal as glibc's signal functions
 * do (flags, mask), and returns the previous handler; on any other
 * signal, glibc's function called (real) does it. */
enum { SIGNAL, BSD_SIGNAL, SSIGNAL, SYSV_SIGNAL, SYSV_SIGNAL_ };
static const char *const signal_names[] = {"signal", "bsd_signal", "ssignal", "sysv_signal", "__sysv_signal"};
static sighandler_t (*real_signal[5])(int, sighandler_t);

static sighandler_t set_handler(int sig, sighandler_t h, int flags, int mask_self, int real)
{
	if (!__atomic_load_n(&owning, __ATOMIC_ACQUIRE) || !mpivet_owned_signal(sig)) {
		if (!real_signal[real])
			real_signal[real] = (sighandler_t(*)(int, sighandler_t))dlsym(RTLD_NEXT, signal_names[real]);
		if (real_signal[real])
			return real_signal[real](sig, h);
	}
	struct sigaction a, o;
	memset(&a, 0, sizeof a);
	a.sa_handler = h;
	a.sa_flags = flags;
	sigemptyset(&a.sa_mask);
	if (mask_self && sig > 0 && sig < NSIG)
		sigaddset(&a.sa_mask, sig);
	if (h == SIG_ERR || sigaction(sig, &a, &o) != 0) {
		errno = EINVAL;
		return SIG_ERR;
	}
	return o.sa_handler;
}

/* signal has BSD semantics in glibc: SA_RESTART, the signal blocked in its handler */
sighandler_t signal(int sig, sighandler_t h) { return set_handler(sig, h, SA_RESTART, 1, SIGNAL); }
sighandler_t bsd_signal(int sig, sighandler_t h) { return set_handler(sig, h, SA_RESTART, 1, BSD_SIGNAL); }
sighandler_t ssignal(int sig, sighandler_t h) { return set_handler(sig, h, SA_RESTART, 1, SSIGNAL); }
sighandler_t sysv_signal(int sig, sighandler_t h) { return set_handler(sig, h, SA_RESETHAND | SA_NODEFER, 0, SYSV_SIGNAL); }
sighandler_t __sysv_signal(int sig, sighandler_t h) { return set_handler(sig, h, SA_RESETHAND | SA_NODEFER, 0, SYSV_SIGNAL_); }

/* ---- Masks ---- */

/* in_handler: the program handler the layer called last in this thread
 * still runs at stack pointer sp (it did not longjmp out of it). */
static int in_handler(uintptr_t sp)
{
	if (!handler_bits)
		return 0;
	if (handler_alt) {
		stack_t ss;
		return sigaltstack(NULL, &ss) == 0 && sp >= (uintptr_t)ss.ss_sp && sp < handler_sp;
	}
	return sp < handler_sp && handler_sp - sp < ((uintptr_t)1 << 26);
}

/* mpivet_program_blocks: the program blocks sig in this thread, which
 * uc (a signal's context) interrupted. */
int mpivet_program_blocks(int sig, void *uc)
{
	if (!unblockable(sig)) /* the kernel blocked it, or not */
		return 0;
	uintptr_t sp = 0;
#if defined(__x86_64__)
	sp = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	sp = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.sp;
#endif
	unsigned bits = hidden | (in_handler(sp) ? handler_bits : 0);
	return (bits & 1u << sig) != 0;
}

/* mpivet_signal_pend keeps a sent sig the program blocks until it unblocks it. */
void mpivet_signal_pend(int sig) { pending |= 1u << sig; }

/* raise_pending raises the signals sent while the program blocked them
 * that blocked no longer blocks (as the kernel delivers them when a mask
 * or a handler's return unblocks them). */
static void raise_pending(unsigned blocked)
{
	unsigned now = pending & ~blocked;
	pending &= ~now;
	for (int i = 0; i < 3; i++)
		if (now & 1u << unblockables[i])
			raise(unblockables[i]);
}

/* mask changes this thread's mask as pthread_sigmask(how, set, old) would,
 * the unblockable signals only in the hidden mask; the pending ones the
 * change unblocks are raised. */
static int mask(int how, const sigset_t *set, sigset_t *old)
{
	if (!resolve())
		return ENOSYS;
	unsigned was = hidden | (in_handler((uintptr_t)__builtin_frame_address(0)) ? handler_bits : 0);
	if (!__atomic_load_n(&owning, __ATOMIC_ACQUIRE))
		return real_sigmask(how, set, old);
	sigset_t s;
	if (set) {
		s = *set;
		unsigned bits = strip(&s);
		if (how == SIG_BLOCK)
			hidden |= bits;
		else if (how == SIG_UNBLOCK)
			hidden &= ~bits;
		else if (how == SIG_SETMASK)
			hidden = bits;
		else
			return EINVAL;
	}
	int r = real_sigmask(how, set ? &s : NULL, old);
	if (r == 0 && old)
		add_bits(old, was);
	if (r == 0)
		raise_pending(hidden);
	return r;
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old) { return mask(how, set, old); }

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int r = mask(how, set, old);
	if (r != 0)
		errno = r;
	return r ? -1 : 0;
}

static int one(int how, int sig)
{
	sigset_t s;
	sigemptyset(&s);
	if (sigaddset(&s, sig) != 0)
		return -1;
	return sigprocmask(how, &s, NULL);
}

int sighold(int sig) { return one(SIG_BLOCK, sig); }
int sigrelse(int sig) { return one(SIG_UNBLOCK, sig); }
int sigignore(int sig) { return signal(sig, SIG_IGN) == SIG_ERR ? -1 : 0; }

/* sigset (System V): SIG_HOLD blocks sig, anything else sets its handler
 * and unblocks it; the previous disposition, SIG_HOLD if it was blocked. */
sighandler_t sigset(int sig, sighandler_t h)
{
	sigset_t cur;
	if (sig <= 0 || sig >= NSIG || sigprocmask(SIG_BLOCK, NULL, &cur) != 0) {
		errno = EINVAL;
		return SIG_ERR;
	}
	int held = sigismember(&cur, sig) == 1;
	struct sigaction o;
	if (h == SIG_HOLD) {
		if (sigaction(sig, NULL, &o) != 0 || one(SIG_BLOCK, sig) != 0)
			return SIG_ERR;
		return held ? SIG_HOLD : o.sa_handler;
	}
	struct sigaction a;
	memset(&a, 0, sizeof a);
	a.sa_handler = h;
	sigemptyset(&a.sa_mask);
	if (h == SIG_ERR || sigaction(sig, &a, &o) != 0) {
		errno = EINVAL;
		return SIG_ERR;
	}
	sighandler_t prev = o.sa_handler;
	if (prev == SIG_ERR || one(SIG_UNBLOCK, sig) != 0)
		return SIG_ERR;
	return held ? SIG_HOLD : prev;
}

/* The BSD masks of int bits (signals 1 to 32). */
static int bsd(int how, int bits)
{
	sigset_t s, old;
	sigemptyset(&s);
	for (int i = 1; i <= 32 && i < NSIG; i++)
		if (bits & (int)(1u << (i - 1)))
			sigaddset(&s, i);
	if (sigprocmask(how, how == SIG_BLOCK && bits == 0 ? NULL : &s, &old) != 0)
		return -1;
	int r = 0;
	for (int i = 1; i <= 32 && i < NSIG; i++)
		if (sigismember(&old, i) == 1)
			r |= (int)(1u << (i - 1));
	return r;
}

int sigblock(int bits) { return bsd(SIG_BLOCK, bits); }
int sigsetmask(int bits) { return bsd(SIG_SETMASK, bits); }
int siggetmask(void) { return bsd(SIG_BLOCK, 0); }

/* ---- Delivery ---- */

/* mpivet_signal_deliver runs the program's handler pa of sig as the kernel
 * would have: SA_RESETHAND resets the disposition first; the thread's mask
 * while it runs is the interrupted one with pa's sa_mask and sig (unless
 * SA_NODEFER), the unblockable ones in handler_bits while it runs. */
void mpivet_signal_deliver(int sig, const struct sigaction *pa, siginfo_t *si, void *uc)
{
	if (pa->sa_flags & SA_RESETHAND) {
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		put(sig, &dfl, NULL);
	}
	sigset_t m = ((ucontext_t *)uc)->uc_sigmask, pm = pa->sa_mask;
	sigorset(&m, &m, &pm);
	if (!(pa->sa_flags & SA_NODEFER))
		sigaddset(&m, sig);
	unsigned bits = strip(&m);
	real_sigmask(SIG_SETMASK, &m, NULL);
	unsigned saved_bits = handler_bits;
	uintptr_t saved_sp = handler_sp;
	int saved_alt = handler_alt;
	stack_t ss;
	handler_sp = (uintptr_t)__builtin_frame_address(0);
	handler_alt = sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK);
	handler_bits = bits;
	if (pa->sa_flags & SA_SIGINFO)
		pa->sa_sigaction(sig, si, uc);
	else
		pa->sa_handler(sig);
	handler_bits = saved_bits, handler_sp = saved_sp, handler_alt = saved_alt;
	raise_pending(hidden | handler_bits);
}
