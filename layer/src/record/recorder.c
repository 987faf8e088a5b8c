/*
 * mpivet interposition layer: the per-rank recorder.
 *
 * Loaded into every rank with LD_PRELOAD by the rank supervisor
 * (supervise.c), which sets MPIVET_DIR to the run directory. Without
 * MPIVET_DIR the layer stays off and every wrapper passes straight through.
 *
 * The log of a rank is <dir>/p.<host>.<pid>.log: named by host and pid
 * because the rank number is only known after MPI_Init, and the supervisor,
 * which knows the pid, writes its exit record under the same name.
 */
#define _GNU_SOURCE
#include "record.h"
#include "conf.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

__thread int mpivet_guard __attribute__((tls_model("initial-exec")));
int mpivet_on, mpivet_inited, mpivet_mt, mpivet_zero_buffering;
char *mpivet_base;
uint64_t mpivet_pos, mpivet_cap, mpivet_ready;
uint64_t *mpivet_state;
__thread uint64_t *mpivet_slot __attribute__((tls_model("initial-exec")));
__thread uint64_t mpivet_call_pc __attribute__((tls_model("initial-exec")));
void (*mpivet_commit_hook)(unsigned call, uint64_t off);

/* The services registered by the layers above (see struct mpivet_service),
 * called back in the order they registered. */
#define MAX_SERVICES 8
static const struct mpivet_service *services[MAX_SERVICES];
static int nservices;

void mpivet_register(const struct mpivet_service *s)
{
	if (nservices < MAX_SERVICES)
		services[nservices++] = s;
}

#define EACH_SERVICE(f, ...)                            \
	for (int i_ = 0; i_ < nservices; i_++)          \
		if (services[i_]->f)                    \
			services[i_]->f(__VA_ARGS__)

/* mpivet_new_slot gives the calling thread its slot of the state page. */
uint64_t *mpivet_new_slot(void)
{
	static int next;
	int i = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
	if (i >= MPIVET_STATE_SLOTS)
		i = MPIVET_STATE_SLOTS - 1;
	if (i > 0) /* a new thread calling MPI */
		for (int k = 0; k < nservices; k++)
			if (services[k]->thread)
				services[k]->thread();
	return mpivet_slot = &mpivet_state[i * MPIVET_STATE_WORDS];
}

static int overflowed;
static char hostname[256];

static void write_maps(void);
static void write_process(int rank, int size, int level);
static void install_crash_handlers(void);
static int env_int(const char *const *names);

/* Reserve this much room at the end for the overflow marker. */
#define TAIL 64

/* forget_environment removes the layer from the environment the program's
 * own children inherit (system(), popen(), exec of tools): they are not
 * ranks, and must neither load MPI nor leave logs. */
static void forget_environment(void)
{
	Dl_info self;
	const char *pre = getenv("LD_PRELOAD");
	if (pre && dladdr((void *)forget_environment, &self) && self.dli_fname) {
		char *keep = malloc(strlen(pre) + 1), *list = strdup(pre), *save = NULL;
		if (keep && list) {
			keep[0] = 0;
			for (char *e = strtok_r(list, ": ", &save); e; e = strtok_r(NULL, ": ", &save)) {
				if (strcmp(e, self.dli_fname) == 0)
					continue;
				if (keep[0])
					strcat(keep, ":");
				strcat(keep, e);
			}
			if (keep[0])
				setenv("LD_PRELOAD", keep, 1);
			else
				unsetenv("LD_PRELOAD");
		}
		free(keep);
		free(list);
	}
	unsetenv("MPIVET_DIR");
	unsetenv("MPIVET_LOG_MAX");
}

__attribute__((constructor)) static void mpivet_open(void)
{
	const char *env = getenv("MPIVET_DIR");
	if (!env || !*env)
		return;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", env);
	const char *m = getenv("MPIVET_LOG_MAX");
	uint64_t max = 16ULL << 30; /* sparse: costs only what is written */
	if (m && *m)
		max = strtoull(m, NULL, 10);
	forget_environment();
	if (max < 4096)
		max = 4096;
	gethostname(hostname, sizeof hostname - 1);
	char path[4400];
	snprintf(path, sizeof path, "%s/p.%s.%d.log", dir, hostname, (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "mpivet: cannot create %s: %s (recording off)\n", path, strerror(errno));
		return;
	}
	if (ftruncate(fd, (off_t)max) != 0) {
		fprintf(stderr, "mpivet: cannot size %s: %s (recording off)\n", path, strerror(errno));
		close(fd);
		return;
	}
	void *p = mmap(NULL, max, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "mpivet: cannot map %s: %s (recording off)\n", path, strerror(errno));
		return;
	}
	/* The state page, next to the log. */
	snprintf(path, sizeof path, "%s/p.%s.%d.state", dir, hostname, (int)getpid());
	int sfd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	void *sp = MAP_FAILED;
	size_t ssize = MPIVET_STATE_SLOTS * MPIVET_STATE_WORDS * 8;
	if (sfd >= 0 && ftruncate(sfd, ssize) == 0)
		sp = mmap(NULL, ssize, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
	if (sfd >= 0)
		close(sfd);
	if (sp == MAP_FAILED) {
		fprintf(stderr, "mpivet: cannot create %s: %s (recording off)\n", path, strerror(errno));
		munmap(p, max);
		return;
	}
	mpivet_state = sp;
	mpivet_base = p;
	mpivet_cap = max - TAIL;
	mpivet_grow(8);
	memcpy(mpivet_base, "MPIVET01", 8);
	mpivet_pos = 8;
	mpivet_on = 1;
	/* Until MPI_Init says otherwise, the launcher's environment tells the
	 * rank, so that a crash before MPI_Init is still reported well. */
	static const char *const ranks[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", NULL};
	static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", NULL};
	write_process(env_int(ranks), env_int(sizes), -1);
	write_maps();
	/* the run's settings, which the services look up when they start */
	mpivet_conf_load(dir);
	mpivet_zero_buffering = mpivet_conf_is(MPIVET_CONF_BUFFERING, "zero");
	for (int i = 0; i < nservices; i++)
		if (services[i]->log_opened)
			services[i]->log_opened();
	void *f[2];
	backtrace(f, 2); /* loads the unwinder now, not in the crash handler */
	install_crash_handlers();
}

/* The log grows in chunks that are populated in one system call ahead of
 * the writer, instead of taking a page fault for every page. */
#define CHUNK (4ULL << 20)

/* mpivet_grow makes the log ready up to at least end; 0 if it is full. */
int mpivet_grow(uint64_t end)
{
	static int busy;
	if (end > mpivet_cap)
		return 0;
	while (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
		;
	uint64_t ready = __atomic_load_n(&mpivet_ready, __ATOMIC_RELAXED);
	while (ready < end) {
		uint64_t n = CHUNK;
		if (ready + n > mpivet_cap)
			n = mpivet_cap - ready;
#ifdef MADV_POPULATE_WRITE
		madvise(mpivet_base + ready, n, MADV_POPULATE_WRITE); /* best effort */
#endif
		ready += n;
	}
	__atomic_store_n(&mpivet_ready, ready, __ATOMIC_RELEASE);
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
	return 1;
}

/* mpivet_overflow marks the end of the records that fit: the first record
 * that did not fit (at offset at) becomes an overflow marker, which the
 * reserved tail always has room for. */
void mpivet_overflow(uint64_t at)
{
	if (at > mpivet_cap || __atomic_exchange_n(&overflowed, 1, __ATOMIC_RELAXED))
		return;
	mpivet_commit(at, 0, MPIVET_META_OVERFLOW, MPIVET_KIND_META);
}

/* write_meta_string appends a meta record holding a string. */
static void write_meta_string(unsigned id, const char *s, size_t n)
{
	uint64_t off, words = 1 + (n + 7) / 8;
	uint64_t *w = mpivet_begin(words, &off);
	if (!w)
		return;
	w[0] = n;
	memcpy(&w[1], s, n);
	mpivet_commit(off, words, id, MPIVET_KIND_META);
}

/* write_maps records the executable mappings, so that the Go side can turn
 * return addresses into source lines without any work in the rank. */
static void write_maps(void)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (n == cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb, cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	/* keep only executable mappings backed by a file */
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && buf[j] != '\n')
			j++;
		char *line = buf + i;
		char *sp = memchr(line, ' ', j - i);
		if (sp && sp + 3 < buf + j && sp[3] == 'x' && memchr(line, '/', j - i)) {
			memmove(buf + o, line, j - i);
			o += j - i;
			buf[o++] = '\n';
		}
		i = j + 1;
	}
	write_meta_string(MPIVET_META_MAPS, buf, o);
	free(buf);
}

static struct sigaction old_actions[32];
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

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

static void on_crash(int sig, siginfo_t *si, void *uc)
{
	/* a fault a service caused (a protected page of a pending nonblocking
	 * buffer), not a crash */
	for (int i = 0; sig == SIGSEGV && i < nservices; i++)
		if (services[i]->fault && services[i]->fault(si, uc))
			return;
	uint64_t pc = 0, sp = 0;
#if defined(__x86_64__)
	pc = (uint64_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	sp = (uint64_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	pc = (uint64_t)((ucontext_t *)uc)->uc_mcontext.pc;
	sp = (uint64_t)((ucontext_t *)uc)->uc_mcontext.sp;
#endif
	if (mpivet_on) {
		uint64_t f[CRASH_FRAMES], off;
		int n = crash_stack(pc, sp, f);
		uint64_t *w = mpivet_begin(3 + n, &off);
		if (w) {
			w[0] = (uint64_t)sig;
			w[1] = pc;
			w[2] = MPIVET_A(si ? si->si_addr : 0);
			memcpy(w + 3, f, n * sizeof *f);
			mpivet_commit(off, 3 + n, MPIVET_META_SIGNAL, MPIVET_KIND_META);
		}
	}
	/* Hand the signal on to whoever had it before us (MPI's own handler, or
	 * the default action). */
	struct sigaction *old = &old_actions[sig];
	sigaction(sig, old, NULL);
	if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
		old->sa_sigaction(sig, si, uc);
		return;
	}
	if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
		return;
	}
	/* A fault re-executes and now takes the default action; a sent signal is
	 * raised again. */
	if (!si || si->si_code <= 0 || sig == SIGABRT)
		raise(sig);
}

/* install_crash_handlers puts on_crash in front of whatever handles the
 * crash signals now. It runs when the layer loads and again after MPI_Init,
 * because MPIs install handlers of their own there; on_crash hands on to
 * them, never to itself. */
static void install_crash_handlers(void)
{
	struct sigaction sa, cur;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++) {
		int sig = crash_signals[i];
		if (sigaction(sig, NULL, &cur) != 0)
			continue;
		if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_crash)
			continue; /* still ours */
		old_actions[sig] = cur;
		sigaction(sig, &sa, NULL);
	}
}

/* write_process records who this process is: rank and size (-1 if not yet
 * known), pid, thread level, host. */
static void write_process(int rank, int size, int level)
{
	size_t hn = strlen(hostname);
	uint64_t off, words = 5 + (hn + 7) / 8;
	uint64_t *w = mpivet_begin(words, &off);
	if (!w)
		return;
	w[0] = (uint64_t)rank;
	w[1] = (uint64_t)size;
	w[2] = (uint64_t)getpid();
	w[3] = (uint64_t)level;
	w[4] = hn;
	memcpy(&w[5], hostname, hn);
	mpivet_commit(off, words, MPIVET_META_PROCESS, MPIVET_KIND_META);
}

/* env_int reads the first of the launchers' rank variables that is set. */
static int env_int(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		if (v && *v)
			return atoi(v);
	}
	return -1;
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
		const uint64_t *e = s[MPIVET_STATE_LOGREF] == MPIVET_NOREC ? &s[MPIVET_STATE_RECORD]
									     : (const uint64_t *)(mpivet_base + s[MPIVET_STATE_LOGREF]);
		record_error(e[0] >> 32 & 0xffff, *code, e[1], 1);
	}
	PMPI_Comm_set_errhandler(*comm, MPI_ERRORS_ARE_FATAL);
	PMPI_Comm_call_errhandler(*comm, *code);
	PMPI_Abort(*comm, *code); /* not reached */
}

static void install_error_handler(void)
{
	MPI_Errhandler eh, old;
	if (PMPI_Comm_create_errhandler(fatal_error, &eh) != MPI_SUCCESS)
		return;
	MPI_Comm comms[] = {MPI_COMM_WORLD, MPI_COMM_SELF};
	for (int i = 0; i < 2; i++) {
		if (PMPI_Comm_get_errhandler(comms[i], &old) != MPI_SUCCESS)
			continue;
		if (old == MPI_ERRORS_ARE_FATAL) /* predefined: no reference to free */
			PMPI_Comm_set_errhandler(comms[i], eh);
	}
	PMPI_Errhandler_free(&eh);
}

/* mpivet_post_init runs once MPI is initialised, whichever way the program
 * initialised it (C, Fortran, or MPICH's f08 binding that bypasses
 * MPI_Init): it records who this process is. */
void mpivet_post_init(void)
{
	if (!mpivet_on || __atomic_exchange_n(&mpivet_inited, 1, __ATOMIC_ACQ_REL))
		return;
	int rank = -1, size = -1, level = MPI_THREAD_SINGLE;
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &size);
	PMPI_Query_thread(&level);
	if (level == MPI_THREAD_MULTIPLE)
		mpivet_mt = 1;
	write_process(rank, size, level);
	mpivet_write_constants();
	write_maps();
	EACH_SERVICE(initialized, rank);
	install_crash_handlers();
	install_error_handler();
}

/* mpivet_lazy_init is called by a wrapper that finds the process metadata
 * not yet written: MPI may have been initialised behind our back. */
void mpivet_lazy_init(void)
{
	int flag = 0;
	PMPI_Initialized(&flag);
	if (flag)
		mpivet_post_init();
}

/* world_ranks writes the world ranks of the n members of group g to w. */
static void world_ranks(MPI_Group g, int n, uint64_t *w)
{
	MPI_Group world;
	int stack[128], *buf = 2 * n <= 128 ? stack : malloc(2 * (size_t)n * sizeof(int));
	if (!buf) {
		for (int i = 0; i < n; i++)
			w[i] = (uint64_t)-1;
		return;
	}
	int *local = buf, *world_of = buf + n;
	for (int i = 0; i < n; i++)
		local[i] = i;
	PMPI_Comm_group(MPI_COMM_WORLD, &world);
	PMPI_Group_translate_ranks(g, n, local, world, world_of);
	PMPI_Group_free(&world);
	for (int i = 0; i < n; i++)
		w[i] = (uint64_t)(int64_t)(world_of[i] == MPI_UNDEFINED ? -1 : world_of[i]);
	if (buf != stack)
		free(buf);
}

/* mpivet_record_comm records which world ranks a new communicator holds
 * (and, for an intercommunicator, its remote group): once per communicator,
 * so that checks can place any rank of any communicator, and nothing is
 * done per message. */
void mpivet_record_comm(MPI_Comm c)
{
	if (c == MPI_COMM_NULL)
		return;
	int inter = 0, n = 0, m = 0;
	MPI_Group g, rg = MPI_GROUP_NULL;
	PMPI_Comm_test_inter(c, &inter);
	PMPI_Comm_group(c, &g);
	PMPI_Group_size(g, &n);
	if (inter) {
		PMPI_Comm_remote_group(c, &rg);
		PMPI_Group_size(rg, &m);
	}
	uint64_t off, words = 3 + n + (inter ? 1 + m : 0);
	uint64_t *w = mpivet_begin(words, &off);
	if (w) {
		w[0] = MPIVET_H(c);
		w[1] = inter;
		w[2] = n;
		world_ranks(g, n, &w[3]);
		if (inter) {
			w[3 + n] = m;
			world_ranks(rg, m, &w[4 + n]);
		}
		mpivet_commit(off, words, MPIVET_META_COMM, MPIVET_KIND_META);
	}
	PMPI_Group_free(&g);
	if (rg != MPI_GROUP_NULL)
		PMPI_Group_free(&rg);
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
