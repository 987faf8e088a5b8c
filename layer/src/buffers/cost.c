/*
 * What the buffer checker costs, and what it may spend: the statistics
 * MPIVET_BUFFERS_STATS=1 prints, the time spent in the checker's hooks and
 * handlers (measured with the time-stamp counter, calibrated here), the
 * allowance for single-stepping faults, and the budget that decides which
 * operations are watched.
 */
#define _GNU_SOURCE
#include "checker.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static const char *const stat_names[NSTATS] = {
	"mprotect:entry", "mprotect:all", "mprotect:leave", "mprotect:start", "mprotect:demote",
	"mprotect:mpi-fault", "mprotect:window", "mprotect:step", "mprotect:unstep",
	"fault:mpi", "fault:hit", "fault:loop", "fault:demoted", "fault:window", "fault:stepped", "fault:stale",
	"calls:lazy", "calls:eager", "x:uncharged", "x:mpicode", "x:guard",
};
uint64_t stats[NSTATS];

uint64_t spent_ns;
double tsc_per_ns;
uint64_t n_started, n_watched;

/* bc_prot is mprotect, counted by reason. What a call costs the rank is about
 * twice the time it takes (a loop of small exchanges slowed by 17 us per
 * watched iteration whose mprotect calls took 10 us): the TLB entries it
 * drops are refilled afterwards, and the other cores running the rank's
 * threads are interrupted to drop theirs. The hook it runs in counts the
 * call's time once; prot counts it once more. */
void bc_prot(uintptr_t lo, uintptr_t len, int p, int why)
{
	stats[why]++;
	uint64_t t0 = tsc();
	mprotect((void *)lo, len, p);
	spend(t0);
}

void bc_print_stats(void)
{
	char line[1024];
	int n = snprintf(line, sizeof line, "mpivet buffers stats, pid %d: lock=%s spent_ms=%llu watched=%llu/%llu peer_copy_min=%lld(%s)", (int)getpid(),
			 asym ? "asymmetric" : "spin", (unsigned long long)(spent_ns / 1000000), (unsigned long long)n_watched,
			 (unsigned long long)n_started, (long long)peer_copy_min, peer_copy_from);
	for (int i = 0; i < NSTATS && n < (int)sizeof line - 40; i++)
		if (stats[i])
			n += snprintf(line + n, sizeof line - n, " %s=%llu", stat_names[i], (unsigned long long)stats[i]);
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	write(2, line, (size_t)n);
}

/* ---- The stepping allowance ---- */

/* Single-stepping an access costs two signals and two mprotect calls (25 to
 * 30 us measured in an MPI rank in a virtual machine, five times what the
 * same takes in a one-threaded program), and programs that compute on data
 * sharing pages with pending buffers (a halo exchange overlapped with the
 * interior update) fault on every access. So stepping has an allowance,
 * measured in time spent stepping: GRACE_NS, plus RATE of the time since MPI
 * started (unless --buffers=precise); only the program's own accesses
 * count. Past it, a page whose fault missed the pending bytes is demoted
 * (see demoted[]); one whose fault hit them (the program keeps accessing a
 * pending buffer) stays open until the next MPI call, and the bytes of
 * pending buffers on it are compared then: a change is reported as a write
 * somewhere between the two calls. */
#define GRACE_NS 50e6
#define RATE 0.03
int mpivet_bc_precise;
uint64_t stepped_ns, t_start, cpu_start;
uint64_t signal_ns = 5000;
TLS uint64_t step_t0;
TLS int step_charged;

uint64_t bc_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* bc_cpu_ns is the CPU time the rank's threads have used: the measure of
 * "the run" in the allowance and the budget. Wall-clock time is not: on a
 * loaded host (more ranks than cores, other jobs) a rank runs a fraction of
 * each second, and a fifth of the wall clock could be all of its CPU time. */
uint64_t bc_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* bc_may_step reports whether one more fault may be single-stepped. */
int bc_may_step(void)
{
	if (mpivet_bc_precise)
		return 1;
	return (double)stepped_ns < GRACE_NS + RATE * (double)(bc_cpu_ns() - cpu_start);
}

/* ---- The budget: which operations are watched ---- */

/* Protecting pages costs about 2.5 us per mprotect call in an MPI rank here,
 * and an operation costs two to four of them: nothing next to a computation
 * of a millisecond between exchanges, twenty times the run in a loop that
 * only exchanges small messages. So the checker's cost has a budget too.
 * Time is cut into periods of WATCH_PERIOD_NS, and in each, operations are
 * watched until the checker has spent WATCH_RATE of the period (measured:
 * its hooks, mprotect calls, fault deliveries). For the rest of the period,
 * an operation started at a call site that has had MIN_WATCHED operations
 * watched already is left unwatched: its buffer is tracked (for overlaps
 * and completions) but its pages are not protected. Periods start at the
 * same wall-clock times in every rank, so that ranks that wait for each
 * other watch, and slow down, at the same time: each rank's stretch of
 * watching would otherwise hold up the others in theirs.
 *
 * So every hot site keeps being watched in stretches all through the run,
 * and a site that errs every time it runs (the common case of a missing or
 * misplaced Wait) is still caught; one that errs once in many runs of a hot
 * site may be missed. --buffers=precise watches everything. The log says
 * how many operations were watched (MetaWatch). */
#define WATCH_PERIOD_NS 100000000ull
#define WATCH_RATE 0.2
#define MIN_WATCHED 16
static uint64_t period, period_spent;
static uint64_t period_end; /* time-stamp counter at the end of the period */
#define SITES 512
static struct {
	uint64_t pc, watched;
} sites[SITES];

/* watching reports whether operations are watched now. It reads the clock
 * once a period, the time-stamp counter otherwise; once the budget is
 * spent, only every SKIP-th call (an operation at a hot site, the loop it
 * slows down least: microseconds apart). */
#define SKIP 64
static unsigned skip;
static uint64_t period_cpu = WATCH_PERIOD_NS; /* the CPU time the budget is a fifth of */
static uint64_t cpu0, wall0;                   /* CPU and wall-clock times when period_cpu was measured */

/* next_period starts the period the wall clock is in, if it is a new one:
 * its budget is a fifth of the CPU time the rank would use in a period at
 * the rate it used CPU time since the last measure (at most the period's
 * length), so that on a loaded host, where the rank runs a fraction of the
 * time, the checker's share of its time stays a fifth. */
static void next_period(uint64_t now)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec, p = ns / WATCH_PERIOD_NS;
	if (p != period) {
		uint64_t cpu = bc_cpu_ns();
		if (wall0 && ns > wall0 + WATCH_PERIOD_NS / 10) { /* a measure over 10 ms at least */
			double rate = (double)(cpu - cpu0) / (double)(ns - wall0);
			period_cpu = (uint64_t)((rate < 1 ? rate : 1) * WATCH_PERIOD_NS);
			cpu0 = cpu, wall0 = ns;
		} else if (!wall0) {
			cpu0 = cpu, wall0 = ns;
		}
		period = p;
		period_spent = __atomic_load_n(&spent_ns, __ATOMIC_RELAXED);
	}
	period_end = now + (uint64_t)((double)((p + 1) * WATCH_PERIOD_NS - ns) * tsc_per_ns);
}

static int watching(void)
{
	if (mpivet_bc_precise)
		return 1;
	if (skip) {
		skip--;
		return 0;
	}
	uint64_t now = tsc();
	if (now >= period_end || tsc_per_ns == 0)
		next_period(now);
	if ((double)(__atomic_load_n(&spent_ns, __ATOMIC_RELAXED) - period_spent) < WATCH_RATE * (double)period_cpu)
		return 1;
	skip = SKIP - 1;
	return 0;
}

/* bc_watching says whether the checker is within its budget now (a
 * stretch of program between MPI calls is watched: exposure.c). */
int bc_watching(void)
{
	return watching();
}

/* bc_watch decides whether an operation started at call site pc is watched. */
int bc_watch(uint64_t pc)
{
	n_started++;
	unsigned h = (unsigned)((pc * 0x9E3779B97F4A7C15ULL) >> 55) % SITES;
	for (int k = 0; k < 8; k++) {
		unsigned i = (h + k) % SITES;
		if (sites[i].pc == pc || sites[i].pc == 0) {
			sites[i].pc = pc;
			if (sites[i].watched >= MIN_WATCHED && !watching())
				return 0;
			sites[i].watched++;
			n_watched++;
			return 1;
		}
	}
	if (!watching()) /* the table is full: sites not in it count as hot */
		return 0;
	n_watched++;
	return 1;
}

/* bc_log_watched logs how many operations were started and watched. */
void bc_log_watched(void)
{
	if (!mpivet_on || !n_started)
		return;
	uint64_t w[2] = {n_started, n_watched};
	mpivet_meta(MPIVET_META_WATCH, w, 2);
}

/* bc_calibrate measures what a stepped fault costs outside its handlers here,
 * where the MPI's threads now run (signal_ns). */
static volatile char *cal_page;
static uint64_t cal_t0, cal_in;
static void cal_segv(int sig, siginfo_t *si, void *ucp)
{
	(void)sig, (void)si;
	cal_t0 = bc_now_ns();
	mprotect((void *)cal_page, pagesz, RW);
	((ucontext_t *)ucp)->uc_mcontext.gregs[REG_EFL] |= 0x100;
}
static void cal_trap(int sig, siginfo_t *si, void *ucp)
{
	(void)sig, (void)si;
	mprotect((void *)cal_page, pagesz, PROT_NONE);
	((ucontext_t *)ucp)->uc_mcontext.gregs[REG_EFL] &= ~0x100;
	cal_in += bc_now_ns() - cal_t0;
}

void bc_calibrate(void)
{
#if defined(__x86_64__)
	enum { N = 16 };
	cal_page = mmap(NULL, pagesz, RW, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (cal_page == MAP_FAILED)
		return;
	struct sigaction sa, old_segv, old_trap_;
	memset(&sa, 0, sizeof sa);
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = cal_segv;
	mpivet_raw_sigaction(SIGSEGV, &sa, &old_segv);
	sa.sa_sigaction = cal_trap;
	mpivet_raw_sigaction(SIGTRAP, &sa, &old_trap_);
	mprotect((void *)cal_page, pagesz, PROT_NONE);
	cal_in = 0;
	uint64_t t0 = bc_now_ns();
	for (int i = 0; i < N; i++)
		cal_page[i] = (char)i;
	uint64_t t = bc_now_ns() - t0;
	mpivet_raw_sigaction(SIGSEGV, &old_segv, NULL);
	mpivet_raw_sigaction(SIGTRAP, &old_trap_, NULL);
	munmap((void *)cal_page, pagesz);
	if (t > cal_in)
		signal_ns = (t - cal_in) / N;
	/* the time-stamp counter's rate, over a millisecond */
	uint64_t c0 = tsc(), n0 = bc_now_ns(), n1;
	while ((n1 = bc_now_ns()) - n0 < 1000000)
		;
	tsc_per_ns = (double)(tsc() - c0) / (double)(n1 - n0);
#endif
}
