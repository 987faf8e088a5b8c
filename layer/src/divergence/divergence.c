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
 * Nothing of this runs outside a guided replay, nor once several threads
 * call MPI (their calls interleave differently in every run; one thread
 * under MPI_THREAD_MULTIPLE is compared until another calls MPI, see
 * mpivet_mt_guard).
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

static unsigned char skip[MAX_IDS];
static const char *parent;      /* the parent's log of this rank, mapped */
static uint64_t parent_len, limit, compared;
/* The parent's records, repeats expanded (record/fold.h), and its next
 * comparable entry record, read ahead (NULL: not yet), at virtual offset
 * cursor. */
static struct mpivet_fold_it pit;
static const uint64_t *pending;
static uint64_t cursor;

static int comparable(unsigned id) { return id >= MAX_IDS || !skip[id]; }

static int comparable_entry(uint64_t h)
{
	unsigned id = (unsigned)(h >> 32 & 0xffff), kind = (unsigned)(h >> 48 & 0xff);
	return (kind == MPIVET_KIND_ENTRY || kind == MPIVET_KIND_BRIEF) && comparable(id);
}

/* next_entry reads the parent's next comparable entry record ahead; 0 past
 * the limit or the end of the log. */
static int next_entry(uint64_t *hdr)
{
	while (!pending) {
		uint64_t v;
		const uint64_t *r = mpivet_fold_it_next(&pit, &v);
		if (!r)
			return 0;
		if (comparable_entry(r[0]))
			pending = r, cursor = v;
	}
	if (cursor > limit)
		return 0;
	*hdr = pending[0];
	return 1;
}

static void stop_comparing(void)
{
	mpivet_commit_hook = NULL;
	if (parent)
		munmap((void *)parent, parent_len);
	parent = NULL;
}

/* dv_entry compares the entry record just committed at off (of call
 * id) with the parent's next one. */
static void dv_entry(unsigned id, uint64_t off, uint64_t got_pc)
{
	(void)off;
	if (!comparable(id))
		return;
	if (mpivet_mt && !mpivet_mt_guard) {
		mpivet_commit_hook = NULL; /* another thread called MPI (its mapping stays: a thread may read it) */
		return;
	}
	uint64_t h;
	if (!next_entry(&h)) {
		stop_comparing();
		return;
	}
	unsigned want = (unsigned)(h >> 32 & 0xffff);
	uint64_t want_pc = (h & 0xffffffff) >= 16 ? pending[1] : 0;
	compared++;
	if (want == id && (want_pc & 0xfff) == (got_pc & 0xfff)) {
		pending = NULL;
		return;
	}
	uint64_t w[] = {compared, want, want_pc, id, got_pc, cursor};
	mpivet_meta(MPIVET_META_DIVERGED, w, sizeof w / sizeof *w);
	_exit(MPIVET_EXIT_DIVERGED);
}

/* dv_start runs once the rank knows its number: it finds its line
 * in the expect file, maps the parent's log, and skips there the entries
 * this rank already logged (those of MPI initialisation). */
static void dv_start(int rank)
{
	const char *expect = mpivet_conf(MPIVET_CONF_EXPECT);
	if (!expect || (mpivet_mt && !mpivet_mt_guard))
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
	mpivet_fold_it_init(&pit, parent, 8, parent_len, 8);
	pending = NULL;
	limit = lim;
	/* Skip as many comparable entries as this rank logged so far. */
	uint64_t own = 0, v;
	struct mpivet_fold_it mine;
	mpivet_fold_it_init(&mine, mpivet_base, 8, mpivet_pos, 8);
	for (const uint64_t *r; (r = mpivet_fold_it_next(&mine, &v));)
		own += comparable_entry(r[0]);
	uint64_t h;
	for (uint64_t i = 0; i < own && next_entry(&h); i++)
		pending = NULL;
	mpivet_commit_hook = dv_entry;
}

static const struct mpivet_service service = {.initialized = dv_start};

__attribute__((constructor(MPIVET_SERVICE_PRIORITY))) static void dv_register(void) { mpivet_register(&service); }
