/*
 * divergence/: whether a guided replay is the execution asked for. Above
 * the recorder only (it sees every entry record through mpivet_commit_hook);
 * nothing calls it.
 *
 * A replay forces wildcard events to the matches they had in the run it
 * comes from (its parent), up to one event forced to a new match. Up to the
 * last forced event of a rank, a program that depends on nothing but MPI
 * makes the calls it made in the parent. One that reads clocks, PIDs,
 * random seeds, or files an earlier run left behind may not: the replay is
 * then not the execution asked for, and its forced receive would wait for a
 * message that never comes until the time limit. So each rank compares the
 * calls it logs with its own log of the parent run, entry record by entry
 * record (call id, and call site modulo the page size: address-space
 * randomisation moves whole pages), up to the entry of its last forced
 * event. At the first difference it logs what it expected and what it got,
 * and ends at once with exit status MPIVET_EXIT_DIVERGED (api.ExitDiverged), which ends the replay.
 *
 * Calls whose occurrence depends on timing are not compared: completion
 * calls and probes (a polling loop calls MPI_Test as often as it has to).
 * The "expect" file the run directory's layer.conf names lists their ids,
 * and for each rank the parent's log and where comparing stops:
 *
 *   skip ID ID ...
 *   rank R PATH LIMIT
 *
 * Nothing of this runs outside a guided replay. Several threads' calls
 * interleave differently in every run: each thread is compared with the
 * parent's thread of the same identity (record/identity.c), the records of
 * that thread alone, up to the same limit; a divergence is logged by the
 * thread that diverged, whose number its record's header carries.
 */
#define _GNU_SOURCE
#include "../record/record.h"
#include "../record/conf.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_IDS 4096
#define MAX_THREADS 64

static unsigned char skip[MAX_IDS];
static const char *parent;      /* the parent's log of this rank, mapped */
static uint64_t parent_len, limit;

/* What each thread compares, by its number in this run (mpivet_thread_no:
 * each thread writes its own): the parent's records, repeats expanded
 * (record/fold.h), of the parent's thread of the same identity, whose
 * number there (no) the parent's api.MetaThread record of that identity
 * says (0 for the first thread). pending is its next comparable entry
 * record, read ahead (NULL: not yet), at virtual offset at. */
static struct cur {
	struct mpivet_fold_it it;
	const uint64_t *pending;
	uint64_t at, compared;
	int no;    /* -1: the parent's record of this thread not met yet */
	int state; /* 0 not started, 1 comparing, 2 done */
} curs[MAX_THREADS];

static int comparable(unsigned id) { return id >= MAX_IDS || !skip[id]; }

static int comparable_entry(uint64_t h)
{
	unsigned id = (unsigned)(h >> 32 & 0xffff), kind = (unsigned)(h >> 48 & 0xff);
	return (kind == MPIVET_KIND_ENTRY || kind == MPIVET_KIND_BRIEF) && comparable(id);
}

/* names_me says whether the parent's record r is the api.MetaThread record
 * of the calling thread's identity. */
static int names_me(const uint64_t *r)
{
	unsigned id = (unsigned)(r[0] >> 32 & 0xffff), kind = (unsigned)(r[0] >> 48 & 0xff);
	return kind == MPIVET_KIND_META && id == MPIVET_META_THREAD && (r[0] & 0xffffffff) >= 24 &&
	       r[2] == mpivet_thread_id;
}

/* next_entry reads c's next comparable entry record of the parent ahead; 0
 * past the limit or the end of the log. */
static int next_entry(struct cur *c, uint64_t *hdr)
{
	while (!c->pending) {
		uint64_t v;
		const uint64_t *r = mpivet_fold_it_next(&c->it, &v);
		if (!r || v > limit)
			return 0;
		if (c->no < 0) {
			if (names_me(r))
				c->no = (int)r[1];
		} else if ((int)(r[0] >> 56) == c->no && comparable_entry(r[0]))
			c->pending = r, c->at = v;
	}
	if (c->at > limit)
		return 0;
	*hdr = c->pending[0];
	return 1;
}

/* stop_comparing ends c's comparison; with one thread, the whole check. */
static void stop_comparing(struct cur *c)
{
	c->state = 2;
	if (mpivet_mt)
		return; /* other threads may still read the mapping */
	mpivet_commit_hook = NULL;
	if (parent)
		munmap((void *)parent, parent_len);
	parent = NULL;
}

/* dv_entry compares the entry record just committed at off (of call id)
 * with the parent's next one of the calling thread. */
static void dv_entry(unsigned id, uint64_t off, uint64_t got_pc)
{
	(void)off;
	if (!comparable(id) || mpivet_thread_no >= MAX_THREADS)
		return;
	struct cur *c = &curs[mpivet_thread_no];
	if (c->state == 2)
		return;
	if (c->state == 0) { /* a thread's first call: its parent's records are read from the start */
		mpivet_fold_it_init(&c->it, parent, 8, parent_len, 8);
		c->no = -1, c->state = 1;
	}
	uint64_t h;
	if (!next_entry(c, &h)) {
		stop_comparing(c);
		return;
	}
	unsigned want = (unsigned)(h >> 32 & 0xffff);
	uint64_t want_pc = (h & 0xffffffff) >= 16 ? c->pending[1] : 0;
	c->compared++;
	if (want == id && (want_pc & 0xfff) == (got_pc & 0xfff)) {
		c->pending = NULL;
		return;
	}
	uint64_t w[] = {c->compared, want, want_pc, id, got_pc, c->at};
	mpivet_meta(MPIVET_META_DIVERGED, w, sizeof w / sizeof *w);
	_exit(MPIVET_EXIT_DIVERGED);
}

/* dv_start runs once the rank knows its number: it finds its line
 * in the expect file, maps the parent's log, and skips there the entries
 * this rank already logged (those of MPI initialisation). */
static void dv_start(int rank)
{
	const char *expect = mpivet_conf(MPIVET_CONF_EXPECT);
	if (!expect)
		return;
	FILE *f = fopen(expect, "r");
	if (!f)
		return;
	char line[8192], path[4096] = "";
	unsigned long long lim = 0;
	int found = 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "skip", 4) == 0) {
			char *p = line + 4, *end;
			for (long id; (id = strtol(p, &end, 10)), end != p; p = end)
				if (id >= 0 && id < MAX_IDS)
					skip[id] = 1;
			continue;
		}
		int r;
		if (sscanf(line, "rank %d %4095s %llu", &r, path, &lim) == 3 && r == rank) {
			found = 1;
			break;
		}
	}
	fclose(f);
	if (!found)
		return;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 8) {
		if (fd >= 0)
			close(fd);
		return;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	parent = m;
	parent_len = (uint64_t)st.st_size;
	limit = lim;
	struct cur *c = &curs[0]; /* the thread that initialised MPI, 0 in the parent too */
	mpivet_fold_it_init(&c->it, parent, 8, parent_len, 8);
	c->no = 0, c->state = 1;
	/* Skip as many comparable entries as this rank logged so far. */
	uint64_t own = 0, v;
	struct mpivet_fold_it mine;
	mpivet_fold_it_init(&mine, mpivet_base, 8, mpivet_pos, 8);
	for (const uint64_t *r; (r = mpivet_fold_it_next(&mine, &v));)
		own += comparable_entry(r[0]);
	uint64_t h;
	for (uint64_t i = 0; i < own && next_entry(c, &h); i++)
		c->pending = NULL;
	mpivet_commit_hook = dv_entry;
}

static const struct mpivet_service service = {.initialized = dv_start};

__attribute__((constructor(MPIVET_SERVICE_PRIORITY))) static void dv_register(void) { mpivet_register(&service); }
