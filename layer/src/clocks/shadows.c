/*
 * Shadow communicators: a copy of each of the program's communicators (its
 * members, not its attributes), made where all its members create it, on
 * which the piggybacks and clock collectives travel; by the program's handle.
 */
#define _GNU_SOURCE
#include "protocol.h"

#include <stdlib.h>
#include <string.h>

struct shadow *shadows;
size_t nshadows, capshadows;
static uint64_t serials;
MPI_Group world_group;

static size_t hash(uint64_t k, size_t cap) { return (size_t)((k * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1); }

struct shadow *ck_find(MPI_Comm c)
{
	uint64_t k = MPIVET_H(c);
	if (!capshadows)
		return NULL;
	for (size_t i = hash(k, capshadows);; i = (i + 1) & (capshadows - 1)) {
		if (shadows[i].key == k)
			return &shadows[i];
		if (shadows[i].key == 0)
			return NULL;
	}
}

static struct shadow *insert(MPI_Comm c)
{
	if ((nshadows + 1) * 2 > capshadows) {
		size_t cap = capshadows ? capshadows * 2 : 64;
		struct shadow *t = calloc(cap, sizeof *t), *old = shadows;
		for (size_t j = 0; j < capshadows; j++)
			if (old[j].key > 1) {
				size_t i = hash(old[j].key, cap);
				while (t[i].key)
					i = (i + 1) & (cap - 1);
				t[i] = old[j];
			}
		free(old);
		shadows = t, capshadows = cap;
	}
	uint64_t k = MPIVET_H(c);
	size_t i = hash(k, capshadows);
	while (shadows[i].key > 1 && shadows[i].key != k)
		i = (i + 1) & (capshadows - 1);
	if (shadows[i].key != k)
		nshadows++;
	memset(&shadows[i], 0, sizeof shadows[i]);
	shadows[i].key = k;
	return &shadows[i];
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
	if (s->inter)
		PMPI_Comm_remote_group(c, &s->peers);
	else
		PMPI_Comm_group(c, &s->peers);
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
	int rc = PMPI_Comm_create(c, g, sh);
	PMPI_Group_free(&g);
	return rc;
}

void ck_shadow_dup(MPI_Comm c)
{
	MPI_Comm sh = MPI_COMM_NULL;
	if (c != MPI_COMM_NULL && (!clocking || shadow_create(c, &sh) == MPI_SUCCESS))
		ck_shadow_of(c, sh);
}

void ck_shadow_free(MPI_Comm c)
{
	struct shadow *s = ck_find(c);
	if (!s)
		return;
	if (s->sh != MPI_COMM_NULL)
		PMPI_Comm_free(&s->sh);
	PMPI_Group_free(&s->peers);
	s->key = 1;
}

/* ck_world is the MPI_COMM_WORLD rank of rank r of s's peers (rare path). */
int ck_world(struct shadow *s, int r)
{
	int w = -1;
	if (r >= 0 && PMPI_Group_translate_ranks(s->peers, 1, &r, world_group, &w) != MPI_SUCCESS)
		w = -1;
	return w;
}
