/*
 * record/: the bottom of the interposition layer, which every other part
 * builds on and which calls none of them by name (the services above it
 * register callbacks: struct mpivet_service). It owns the rank's records:
 * the log and the state page (log.c, and the inline recording primitives
 * of record.h, which the generated wrappers use on every call), the
 * process's metadata (this file), how the rank ends (crash.c); and the
 * run's settings (conf.c).
 *
 * This file is the per-rank recorder. Loaded into every rank with
 * LD_PRELOAD by the rank supervisor (supervise.c), which sets MPIVET_DIR to
 * the run directory. Without MPIVET_DIR the layer stays off and every
 * wrapper passes straight through.
 *
 * The log of a rank is <dir>/p.<host>.<pid>.log: named by host and pid
 * because the rank number is only known after MPI_Init, and the supervisor,
 * which knows the pid, writes its exit record under the same name.
 */
#define _GNU_SOURCE
#include "record.h"
#include "conf.h"
#include "create.h"
#include "internal.h"

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

static char hostname[256];

static void write_maps(void);
static void write_process(int rank, int size, int level);
static int env_int(const char *const *names);


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

/* map_file creates path with size bytes, the first reserved of them with
 * their blocks (mpivet_reserve), and maps it shared; NULL if it cannot,
 * said on standard error. The file stays open in *fdp when fdp is given. */
static void *map_file(const char *path, uint64_t size, uint64_t reserved, int *fdp)
{
	int fd = mpivet_create(path, O_RDWR);
	if (fd < 0) {
		mpivet_cannot_write(path, errno);
		return NULL;
	}
	int e = ftruncate(fd, (off_t)size) != 0 ? errno : reserved ? mpivet_reserve(fd, 0, reserved) : 0;
	void *p = MAP_FAILED;
	if (!e && (p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
		e = errno;
	if (e) {
		mpivet_cannot_write(path, e);
		close(fd);
		return NULL;
	}
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	return p;
}

/* open_records creates the rank's log (max bytes, sparse: its blocks are
 * reserved as it grows) and state page (reserved whole); 0, recording
 * off, if the run directory's file system refuses either. The program then
 * runs unrecorded, and mpivet, told on standard error, ends the
 * verification as its own failure. */
static int open_records(const char *dir, uint64_t max)
{
	char path[4400];
	snprintf(mpivet_log_path, sizeof mpivet_log_path, "%s/p.%s.%d.log", dir, hostname, (int)getpid());
	snprintf(path, sizeof path, "%s/p.%s.%d.state", dir, hostname, (int)getpid());
	size_t ssize = MPIVET_STATE_FILE_WORDS * 8; /* the slots, then the thread table */
	int fd = -1;
	void *p = map_file(mpivet_log_path, max, 0, &fd);
	void *sp = p ? map_file(path, ssize, ssize, NULL) : NULL;
	if (p) {
		mpivet_base = p;
		mpivet_cap = max - MPIVET_LOG_TAIL;
		mpivet_log_fd = fd;
	}
	if (!sp || !mpivet_grow(8)) {
		if (sp)
			munmap(sp, ssize);
		if (p)
			munmap(p, max);
		if (fd >= 0)
			close(fd);
		mpivet_log_fd = -1, mpivet_base = NULL, mpivet_cap = 0;
		return 0;
	}
	mpivet_state = sp;
	return 1;
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
	mpivet_timing_open(dir, hostname);
	mpivet_stamp("start");
	if (!open_records(dir, max))
		return;
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
	mpivet_fold_on = !mpivet_conf_is(MPIVET_CONF_RECORDS, "full");
	mpivet_services_log_opened();
	void *f[2];
	backtrace(f, 2); /* loads the unwinder now, not in the crash handler */
	mpivet_install_crash_handlers();
	mpivet_stamp("opened");
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

/* mpivet_write_maps records the executable mappings again, for code loaded
 * since (a module a Python program imported after MPI_Init). */
void mpivet_write_maps(void)
{
	if (mpivet_on)
		write_maps();
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

/* mpivet_post_init runs once MPI is initialised, whichever way the program
 * initialised it (C, Fortran, or MPICH's f08 binding that bypasses
 * MPI_Init): it records who this process is. */
void mpivet_post_init(void)
{
	if (!mpivet_on || __atomic_exchange_n(&mpivet_inited, 1, __ATOMIC_ACQ_REL))
		return;
	mpivet_stamp("inited");
	int rank = -1, size = -1, level = MPI_THREAD_SINGLE;
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &size);
	PMPI_Query_thread(&level);
	mpivet_tl_initialized(level);
	if (level == MPI_THREAD_MULTIPLE) {
		mpivet_mt = 1;
		/* Guarded while this thread is the only one that called MPI, unless
		 * the run is made with threads=off (a replay of a run directory
		 * written when several threads ended the rank). Set before
		 * counting: a thread that takes its slot in between clears it, or
		 * is counted. */
		const char *t = mpivet_conf(MPIVET_CONF_THREADS);
		if (!(t && strcmp(t, "off") == 0)) {
			__atomic_store_n(&mpivet_mt_guard, 1, __ATOMIC_SEQ_CST);
			if (mpivet_threads_calling() > 1)
				__atomic_store_n(&mpivet_mt_guard, 0, __ATOMIC_SEQ_CST);
		}
	}
	write_process(rank, size, level);
	mpivet_write_constants();
	write_maps();
	mpivet_services_initialized(rank);
	mpivet_install_crash_handlers();
	mpivet_install_error_handler();
	mpivet_stamp("ready");
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

/* outside counts the members of group g that are not in world. */
static int outside(MPI_Group g, MPI_Group world)
{
	int n = 0, out = 0;
	PMPI_Group_size(g, &n);
	int *r = malloc(2 * (size_t)(n ? n : 1) * sizeof *r), *w = r + n;
	if (!r)
		return 0;
	for (int i = 0; i < n; i++)
		r[i] = i;
	if (PMPI_Group_translate_ranks(g, n, r, world, w) != MPI_SUCCESS)
		out = n;
	for (int i = 0; i < n && out < n; i++)
		out += w[i] == MPI_UNDEFINED;
	free(r);
	return out;
}

int mpivet_comm_outside(MPI_Comm c)
{
	MPI_Group g, world;
	int inter = 0, out = 0;
	if (c == MPI_COMM_NULL || PMPI_Comm_group(c, &g) != MPI_SUCCESS)
		return 0;
	PMPI_Comm_group(MPI_COMM_WORLD, &world);
	out = outside(g, world);
	PMPI_Group_free(&g);
	PMPI_Comm_test_inter(c, &inter);
	if (inter && PMPI_Comm_remote_group(c, &g) == MPI_SUCCESS) {
		out += outside(g, world);
		PMPI_Group_free(&g);
	}
	PMPI_Group_free(&world);
	return out;
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
