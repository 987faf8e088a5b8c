/*
 * Shadow communicators: a copy of each of the program's communicators (its
 * members, not its attributes), made where all its members create it, on
 * which the piggybacks and clock collectives travel; by the program's handle.
 */
#define _GNU_SOURCE
#include "protocol.h"

#include <stdlib.h>
#include <string.h>

struct shadow **shadows, ck_tomb;
size_t nshadows, capshadows;
static uint64_t serials;
MPI_Group world_group;

static size_t hash(uint64_t k, size_t cap) { return (size_t)((k * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1); }

static int live(const struct shadow *s) { return s && s != &ck_tomb; }

/* slot gives the slot of handle k: its shadow's, or else NULL. */
static struct shadow **slot(uint64_t k)
{
	if (!capshadows)
		return NULL;
	for (size_t i = hash(k, capshadows);; i = (i + 1) & (capshadows - 1)) {
		if (live(shadows[i]) && shadows[i]->key == k)
			return &shadows[i];
		if (!shadows[i])
			return NULL;
	}
}

struct shadow *ck_find(MPI_Comm c)
{
	struct shadow **p = slot(MPIVET_H(c));
	return p ? *p : NULL;
}

static void grow(void)
{
	size_t cap = capshadows ? capshadows * 2 : 64;
	struct shadow **t = calloc(cap, sizeof *t), **old = shadows;
	for (size_t j = 0; j < capshadows; j++)
		if (live(old[j])) {
			size_t i = hash(old[j]->key, cap);
			while (t[i])
				i = (i + 1) & (cap - 1);
			t[i] = old[j];
		}
	free(old);
	shadows = t, capshadows = cap;
}

/* destroy frees a shadow that no one uses any more. */
static void destroy(struct shadow *s)
{
	if (s->sh != MPI_COMM_NULL)
		PMPI_Comm_free(&s->sh);
	if (s->peers != MPI_GROUP_NULL)
		PMPI_Group_free(&s->peers);
	free(s);
}

void ck_shadow_hold(struct shadow *s)
{
	if (s)
		s->refs++;
}

void ck_shadow_release(struct shadow *s)
{
	if (s && --s->refs <= 0 && s->freed)
		destroy(s);
}

/* detach takes the shadow in slot p out of the table: the program has
 * freed its communicator (or the MPI reused the handle unseen). */
static void detach(struct shadow **p)
{
	struct shadow *s = *p;
	*p = &ck_tomb;
	nshadows--;
	s->freed = 1;
	if (s->refs <= 0)
		destroy(s);
}

static struct shadow *insert(MPI_Comm c)
{
	uint64_t k = MPIVET_H(c);
	struct shadow **p = slot(k);
	if (p)
		detach(p);
	if ((nshadows + 1) * 2 > capshadows)
		grow();
	size_t i = hash(k, capshadows);
	while (live(shadows[i]))
		i = (i + 1) & (capshadows - 1);
	struct shadow *s = calloc(1, sizeof *s);
	s->key = k;
	s->sh = MPI_COMM_NULL;
	s->peers = MPI_GROUP_NULL;
	shadows[i] = s;
	nshadows++;
	return s;
}

/* ck_shadow_of gives c its shadow: a duplicate, collective over c's members,
 * made where all of them create c (none without the clock protocol: the
 * entry then only says that the layer knows c). */
void ck_shadow_of(MPI_Comm c, MPI_Comm sh)
{
	if (c == MPI_COMM_NULL)
		return;
	struct shadow *s = insert(c);
	s->comm = c;
	s->sh = sh;
	s->serial = ++serials;
	/* A piggyback for an erroneous send (to a rank that does not exist) must
	 * fail quietly: the program's own call then raises the error on the
	 * program's communicator, to the program's handler. */
	if (sh != MPI_COMM_NULL)
		PMPI_Comm_set_errhandler(sh, MPI_ERRORS_RETURN);
	PMPI_Comm_test_inter(c, &s->inter);
	s->me = -1;
	if (s->inter)
		PMPI_Comm_remote_group(c, &s->peers);
	else {
		PMPI_Comm_group(c, &s->peers);
		PMPI_Comm_rank(c, &s->me);
	}
}

/* shadow_create makes a shadow of c: its members, a context of its own and
 * none of its attributes. MPI_Comm_dup would copy them, calling the
 * program's copy callbacks once more per communicator (and MPI_Comm_free
 * of the shadow its delete callbacks), which libraries that count the
 * references of what they cache there (PETSc's inner communicators)
 * would see. MPI_Comm_create copies no attribute (MPI 4.0 §7.4.2), and
 * with c's local group gives an intercommunicator of c's two groups. */
static int shadow_create(MPI_Comm c, MPI_Comm *sh)
{
	MPI_Group g;
	if (PMPI_Comm_group(c, &g) != MPI_SUCCESS)
		return MPI_ERR_COMM;
	ck_unlock(); /* collective: the other ranks' threads may need their locks to get here */
	int rc = PMPI_Comm_create(c, g, sh);
	ck_relock();
	PMPI_Group_free(&g);
	return rc;
}

/* The program's communicators with processes mpivet did not launch: few
 * (a program spawns or connects a few times), so a list. */
static MPI_Comm *foreign;
static size_t nforeign, capforeign;

int mpivet_ck_foreign(MPI_Comm c)
{
	for (size_t i = 0; i < nforeign; i++)
		if (foreign[i] == c)
			return 1;
	return 0;
}

static void add_foreign(MPI_Comm c)
{
	if (mpivet_ck_foreign(c))
		return;
	if (nforeign == capforeign) {
		size_t cap = capforeign ? 2 * capforeign : 8;
		MPI_Comm *t = realloc(foreign, cap * sizeof *t);
		if (!t)
			return;
		foreign = t, capforeign = cap;
	}
	foreign[nforeign++] = c;
}

/* ck_shadow_dup gives c, which call made, its shadow, unless c has
 * processes mpivet did not launch (ck_joined). */
void ck_shadow_dup(MPI_Comm c, unsigned call)
{
	MPI_Comm sh = MPI_COMM_NULL;
	int n = mpivet_comm_outside(c);
	if (n) {
		add_foreign(c);
		ck_joined(n, call);
		return;
	}
	if (c != MPI_COMM_NULL && (!clocking || shadow_create(c, &sh) == MPI_SUCCESS))
		ck_shadow_of(c, sh);
}

void ck_shadow_free(MPI_Comm c)
{
	struct shadow **p = slot(MPIVET_H(c));
	if (p)
		detach(p);
	for (size_t i = 0; i < nforeign; i++)
		if (foreign[i] == c)
			foreign[i] = foreign[--nforeign];
}

/* ck_world is the MPI_COMM_WORLD rank of rank r of s's peers (rare path). */
int ck_world(struct shadow *s, int r)
{
	int w = -1;
	if (r >= 0 && PMPI_Group_translate_ranks(s->peers, 1, &r, world_group, &w) != MPI_SUCCESS)
		w = -1;
	return w;
}
