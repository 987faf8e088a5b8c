/*
 * signatures/: datatype signatures, the one comparable form of what a
 * datatype holds, for the two checks that compare what ranks give: the
 * type-mismatch check (a send's signature travels with its clock in the
 * piggyback, clocks/, and the receive compares it with its own datatype's
 * when the message arrives) and the collective-mismatch check (each rank
 * logs what it gives a collective, decoded by collectives/). Below the
 * clock protocol; above datatypes/ (which takes types apart) and
 * collectives/.
 *
 * MPI requires the sequence of basic types a send transfers to match the
 * receive's (MPI 3.1 §3.3.1): typed data matches the same type, MPI_BYTE
 * matches MPI_BYTE (seed 000 Fig. 2.10: 4 MPI_BYTE received as 1 MPI_INT is
 * an error), and MPI_PACKED matches anything. A signature word is
 *
 *   0                          unknown: not compared (MPI_Type_create_darray,
 *                              an unnamed type the layer cannot classify)
 *   class << 8 | size          one basic type, repeated: the type map is
 *                              homogeneous (MPI_INT, a vector of doubles ...)
 *   1 << 63 | hash             several basic types: a hash of the shortest
 *                              period of the sequence, so that struct {int,
 *                              double} x 2 and a contiguous type of two such
 *                              structs compare equal
 *
 * Basic types are compared by class and size, not by name: MPI_INT and
 * MPI_INT32_T, or MPI_LONG and MPI_LONG_LONG on LP64, are the same data, and
 * reporting them would only be noise; the char types are one class.
 *
 * Signatures are cached: a predefined type's by handle, a derived type's
 * on the type, as an attribute the MPI deletes with it (see Caches).
 */
#include <stdlib.h>
#include <string.h>

#include "signature.h"
#include "../record/record.h"
#include "../generated/ids.h"
#include "../datatypes/walk.h"
#include "../collectives/decode.h"

/* Basic type classes and the mixed bit: generated/format.h (api.Sig*). */
enum {
	C_BYTE = MPIVET_SIG_BYTE, C_PACKED = MPIVET_SIG_PACKED, C_CHAR = MPIVET_SIG_CHAR, C_INT = MPIVET_SIG_INT,
	C_UINT = MPIVET_SIG_UINT, C_FLOAT = MPIVET_SIG_FLOAT, C_COMPLEX = MPIVET_SIG_COMPLEX, C_BOOL = MPIVET_SIG_BOOL,
	C_LOGICAL = MPIVET_SIG_LOGICAL, C_WCHAR = MPIVET_SIG_WCHAR, C_PAIR = MPIVET_SIG_PAIR
};

#define MIXED MPIVET_SIG_MIXED
#define MAXRUNS 64

struct run {
	uint64_t code, n;
};

/* ---- Predefined types ---- */

static struct {
	MPI_Datatype t;
	int class;
} named[] = {
	{MPI_BYTE, C_BYTE}, {MPI_PACKED, C_PACKED},
	{MPI_CHAR, C_CHAR}, {MPI_SIGNED_CHAR, C_CHAR}, {MPI_UNSIGNED_CHAR, C_CHAR}, {MPI_CHARACTER, C_CHAR},
	{MPI_WCHAR, C_WCHAR},
	{MPI_SHORT, C_INT}, {MPI_INT, C_INT}, {MPI_LONG, C_INT}, {MPI_LONG_LONG, C_INT}, {MPI_LONG_LONG_INT, C_INT},
	{MPI_INT8_T, C_INT}, {MPI_INT16_T, C_INT}, {MPI_INT32_T, C_INT}, {MPI_INT64_T, C_INT},
	{MPI_AINT, C_INT}, {MPI_OFFSET, C_INT}, {MPI_COUNT, C_INT}, {MPI_INTEGER, C_INT},
	{MPI_UNSIGNED_SHORT, C_UINT}, {MPI_UNSIGNED, C_UINT}, {MPI_UNSIGNED_LONG, C_UINT}, {MPI_UNSIGNED_LONG_LONG, C_UINT},
	{MPI_UINT8_T, C_UINT}, {MPI_UINT16_T, C_UINT}, {MPI_UINT32_T, C_UINT}, {MPI_UINT64_T, C_UINT},
	{MPI_FLOAT, C_FLOAT}, {MPI_DOUBLE, C_FLOAT}, {MPI_LONG_DOUBLE, C_FLOAT}, {MPI_REAL, C_FLOAT}, {MPI_DOUBLE_PRECISION, C_FLOAT},
	{MPI_C_FLOAT_COMPLEX, C_COMPLEX}, {MPI_C_DOUBLE_COMPLEX, C_COMPLEX}, {MPI_C_LONG_DOUBLE_COMPLEX, C_COMPLEX},
	{MPI_COMPLEX, C_COMPLEX}, {MPI_DOUBLE_COMPLEX, C_COMPLEX},
	{MPI_C_BOOL, C_BOOL}, {MPI_LOGICAL, C_LOGICAL},
	/* the pair types are told apart by their position (C_PAIR << 8 | i) */
	{MPI_FLOAT_INT, C_PAIR}, {MPI_DOUBLE_INT, C_PAIR}, {MPI_LONG_INT, C_PAIR}, {MPI_2INT, C_PAIR},
	{MPI_SHORT_INT, C_PAIR}, {MPI_LONG_DOUBLE_INT, C_PAIR},
	{MPI_2INTEGER, C_PAIR}, {MPI_2REAL, C_PAIR}, {MPI_2DOUBLE_PRECISION, C_PAIR},
	/* C++'s types (an MPI may define some as MPI_DATATYPE_NULL) */
	{MPI_CXX_BOOL, C_BOOL}, {MPI_CXX_FLOAT_COMPLEX, C_COMPLEX}, {MPI_CXX_DOUBLE_COMPLEX, C_COMPLEX},
	{MPI_CXX_LONG_DOUBLE_COMPLEX, C_COMPLEX},
	/* Fortran's sized types: an MPI built without Fortran, or without one
	 * of them, leaves them out of mpi.h (or defines them as
	 * MPI_DATATYPE_NULL); last, so that the pairs' positions do not depend
	 * on them */
#ifdef MPI_INTEGER1
	{MPI_INTEGER1, C_INT},
#endif
#ifdef MPI_INTEGER2
	{MPI_INTEGER2, C_INT},
#endif
#ifdef MPI_INTEGER4
	{MPI_INTEGER4, C_INT},
#endif
#ifdef MPI_INTEGER8
	{MPI_INTEGER8, C_INT},
#endif
#ifdef MPI_REAL4
	{MPI_REAL4, C_FLOAT},
#endif
#ifdef MPI_REAL8
	{MPI_REAL8, C_FLOAT},
#endif
#ifdef MPI_REAL16
	{MPI_REAL16, C_FLOAT},
#endif
#ifdef MPI_COMPLEX8
	{MPI_COMPLEX8, C_COMPLEX},
#endif
#ifdef MPI_COMPLEX16
	{MPI_COMPLEX16, C_COMPLEX},
#endif
#ifdef MPI_COMPLEX32
	{MPI_COMPLEX32, C_COMPLEX},
#endif
};

static uint64_t named_code(MPI_Datatype t)
{
	for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
		if (named[i].t != t || t == MPI_DATATYPE_NULL)
			continue;
		if (named[i].class == C_PAIR)
			return (uint64_t)C_PAIR << 8 | i;
		int size = 0;
		PMPI_Type_size(t, &size);
		return (uint64_t)named[i].class << 8 | (size & 0xff);
	}
	return 0;
}

/* ---- Flattening (the constructors are read by datatypes/walk.c) ---- */

/* A flattened type: the shortest period of its basic type sequence, run-length
 * encoded, repeated reps times. */
struct flat {
	struct run r[MAXRUNS];
	int n; /* -1: unknown */
	uint64_t reps;
};

static void push(struct flat *f, uint64_t code, uint64_t n)
{
	if (f->n < 0 || n == 0)
		return;
	if (f->n > 0 && f->r[f->n - 1].code == code) {
		f->r[f->n - 1].n += n;
		return;
	}
	if (f->n == MAXRUNS) {
		f->n = -1;
		return;
	}
	f->r[f->n++] = (struct run){code, n};
}

/* append adds k copies of g's sequence to f. */
static void append(struct flat *f, const struct flat *g, uint64_t k)
{
	if (g->n < 0) {
		f->n = -1;
		return;
	}
	k *= g->reps;
	if (g->n == 1) {
		push(f, g->r[0].code, g->r[0].n * k);
		return;
	}
	for (uint64_t j = 0; j < k && f->n >= 0; j++)
		for (int i = 0; i < g->n; i++)
			push(f, g->r[i].code, g->r[i].n);
}

/* period reduces f to its shortest period. */
static void period(struct flat *f)
{
	if (f->n <= 0)
		return;
	if (f->n == 1) { /* homogeneous: one element per period */
		f->reps *= f->r[0].n;
		f->r[0].n = 1;
		return;
	}
	for (int p = 1; p < f->n; p++) {
		if (f->n % p)
			continue;
		int ok = 1;
		for (int i = p; i < f->n && ok; i++)
			ok = f->r[i].code == f->r[i - p].code && f->r[i].n == f->r[i - p].n;
		if (ok) {
			f->reps *= (uint64_t)(f->n / p);
			f->n = p;
			return;
		}
	}
}

/* flatten gives f the basic type sequence of one element of t: its
 * groups' sequences, each repeated as many times as the group has copies
 * (without visiting them: a vector of a million doubles is one run). */
static void flatten(MPI_Datatype t, struct flat *f, int depth)
{
	f->n = 0;
	f->reps = 1;
	struct mpivet_type_parts p;
	int kind = depth > 16 ? MPIVET_TYPE_UNKNOWN : mpivet_type_open(t, &p);
	if (kind == MPIVET_TYPE_BASIC) { /* Fortran's MPI_Type_create_f90_* types are not classified */
		uint64_t c = p.combiner == MPI_COMBINER_NAMED ? named_code(t) : 0;
		if (c)
			push(f, c, 1);
		else
			f->n = -1;
		return;
	}
	struct flat *g = kind == MPIVET_TYPE_DERIVED ? malloc(sizeof *g) : NULL;
	if (!g) { /* darray, Fortran parameterised types: not classified */
		if (kind == MPIVET_TYPE_DERIVED)
			mpivet_type_close(&p);
		f->n = -1;
		return;
	}
	for (int i = 0; i < p.ngroups && f->n >= 0; i++) {
		flatten(mpivet_type_group(&p, i), g, depth + 1);
		append(f, g, mpivet_type_copies(&p, i));
	}
	mpivet_type_close(&p);
	free(g);
	period(f);
}

/* signature_of gives t's signature and how many periods of it one element
 * of t holds (0 for an unknown signature). */
static uint64_t signature_of(MPI_Datatype t, uint64_t *reps)
{
	struct flat *f = malloc(sizeof *f);
	flatten(t, f, 0);
	uint64_t s = 0;
	*reps = f->n > 0 ? f->reps : 0;
	if (f->n == 1)
		s = f->r[0].code;
	else if (f->n > 1) {
		uint64_t h = 1469598103934665603ULL;
		for (int i = 0; i < f->n; i++) {
			h = (h ^ f->r[i].code) * 1099511628211ULL;
			h = (h ^ f->r[i].n) * 1099511628211ULL;
		}
		s = MIXED | (h & ~MIXED);
	}
	free(f);
	return s;
}

/* ---- Caches ----
 *
 * A predefined type lives as long as MPI and keeps its handle: its
 * signature is cached by handle. A derived type's is cached on the type
 * itself, as an MPI attribute, which the MPI deletes when the type is freed,
 * whichever language frees it and whether or not the clock protocol (which
 * sees MPI_Type_free) runs. MPI reuses the handles of freed types (MPICH
 * its handle slots, Open MPI the memory malloc gives back): a cache by
 * handle that missed one free, as it did with the clock protocol off
 * (Fortran callers, --clocks=off), gave the next type made on that handle
 * the freed type's signature, so ranks that freed and made types in a
 * different order gave the same Bcast different signatures. */

#define SIGS 256
static struct {
	uint64_t key, sig, reps;
} named_cache[SIGS];

struct cached {
	uint64_t sig, reps;
};

static int sig_key = MPI_KEYVAL_INVALID;

static int drop_cached(MPI_Datatype t, int key, void *val, void *extra)
{
	(void)t, (void)key, (void)extra;
	free(val);
	return MPI_SUCCESS;
}

/* sig_reps gives t's signature, and in *reps how many periods of it one
 * element of t holds. */
static uint64_t sig_reps(MPI_Datatype t, uint64_t *reps)
{
	uint64_t k = MPIVET_H(t);
	*reps = 0;
	if (t == MPI_DATATYPE_NULL)
		return 0;
	size_t i = (size_t)((k * 0x9E3779B97F4A7C15ULL) >> 56) & (SIGS - 1);
	if (named_cache[i].key == k + 1) {
		*reps = named_cache[i].reps;
		return named_cache[i].sig;
	}
	int ni, na, nd, comb;
	if (mpivet_type_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
		return 0;
	struct cached *c = NULL;
	int found = 0;
	/* MPI_Type_create_f90_* types are predefined ones, not classified:
	 * nothing to cache, and nothing to set attributes on */
	if (comb == MPI_COMBINER_F90_REAL || comb == MPI_COMBINER_F90_COMPLEX || comb == MPI_COMBINER_F90_INTEGER)
		return 0;
	if (comb != MPI_COMBINER_NAMED) {
		if (sig_key == MPI_KEYVAL_INVALID)
			PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, drop_cached, &sig_key, NULL);
		if (sig_key != MPI_KEYVAL_INVALID && PMPI_Type_get_attr(t, sig_key, &c, &found) == MPI_SUCCESS && found && c) {
			*reps = c->reps;
			return c->sig;
		}
	}
	uint64_t s = signature_of(t, reps);
	if (comb == MPI_COMBINER_NAMED) {
		named_cache[i].key = k + 1, named_cache[i].sig = s, named_cache[i].reps = *reps;
	} else if (sig_key != MPI_KEYVAL_INVALID && (c = malloc(sizeof *c))) {
		c->sig = s, c->reps = *reps;
		if (PMPI_Type_set_attr(t, sig_key, c) != MPI_SUCCESS)
			free(c);
	}
	return s;
}

uint64_t mpivet_sig(MPI_Datatype t)
{
	uint64_t reps;
	return sig_reps(t, &reps);
}

/* mpivet_sig_forget drops t's signature before MPI_Type_free; the MPI would
 * delete it with the type anyway. Only an attribute that is there is
 * deleted: deleting a missing one is an error, raised on MPI_COMM_WORLD,
 * whose handler may end the job. */
void mpivet_sig_forget(MPI_Datatype t)
{
	int comb, found = 0;
	struct cached *c;
	if (sig_key != MPI_KEYVAL_INVALID && t != MPI_DATATYPE_NULL &&
	    mpivet_type_combiner(t, &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED &&
	    PMPI_Type_get_attr(t, sig_key, &c, &found) == MPI_SUCCESS && found)
		PMPI_Type_delete_attr(t, sig_key);
}

int mpivet_sig_packed(uint64_t s) { return !(s & MIXED) && (s >> 8) == C_PACKED; }

/* ---- Collectives ----
 *
 * Every member of a communicator must give a collective data of the same
 * type signature (MPI 3.1 §5.1): count x datatype of a Bcast or Reduce on
 * every rank, sendcount x sendtype of each rank of a Gather equal to
 * recvcount x recvtype at the root, and so on. Each rank logs what it gives,
 * as (signature, number of periods), for the sides that are significant on
 * it; the collective-mismatch check compares the ranks' records after the
 * run. Vector variants are logged as totals over their count arrays. */

enum { CT_SEND = MPIVET_COLL_SEND, CT_RECV = MPIVET_COLL_RECV, CT_TOTALS = MPIVET_COLL_TOTALS, CT_NOCOUNT = MPIVET_COLL_NOCOUNT };

void mpivet_coll_types(unsigned call, uint64_t logref, void **k)
{
	struct mpivet_coll c;
	int rank, size;
	if ((mpivet_mt && !mpivet_mt_guard) || logref == MPIVET_NOREC || !mpivet_coll_params(call, k, &c) || c.w)
		return; /* a datatype per rank (alltoallw): not compared */
	if (!mpivet_coll_where(&c, &rank, &size))
		return; /* intercommunicators: the groups give different things */
	uint64_t w[6] = {logref, 0, 0, 0, 0, 0}, reps;
	switch (c.family) {
	case MPIVET_COLL_BCAST:
	case MPIVET_COLL_REDUCE:
	case MPIVET_COLL_ALLREDUCE:
	case MPIVET_COLL_REDUCE_SCATTER: /* one datatype */
		w[1] = CT_SEND;
		w[2] = sig_reps(c.send.type, &reps);
		w[3] = (uint64_t)mpivet_coll_total(&c.send, size, -1) * reps;
		mpivet_meta(MPIVET_META_COLL, w, 6);
		return;
	}
	int neighbor = c.family == MPIVET_COLL_NEIGHBOR_ALLGATHER || c.family == MPIVET_COLL_NEIGHBOR_ALLTOALL;
	int gather = c.family == MPIVET_COLL_GATHER, scatter = c.family == MPIVET_COLL_SCATTER;
	int allgatherv = c.family == MPIVET_COLL_ALLGATHER && c.recv.per_rank;
	int alltoallv = c.family == MPIVET_COLL_ALLTOALL && c.send.per_rank;
	int sides = mpivet_coll_sides(&c, rank);
	if (neighbor) /* counts are per neighbour, not per rank: compare the signatures only */
		w[1] |= CT_NOCOUNT | (c.send.per_rank || c.recv.per_rank ? CT_TOTALS : 0);
	else if (c.send.per_rank || c.recv.per_rank)
		w[1] |= CT_TOTALS;
	if (sides & MPIVET_COLL_RECVS) {
		w[1] |= CT_RECV;
		w[4] = sig_reps(c.recv.type, &reps);
		/* a root's own block of an in-place Gatherv is not received */
		w[5] = neighbor ? 0 : (uint64_t)mpivet_coll_total(&c.recv, size, gather && c.send.in_place ? rank : -1) * reps;
	}
	if (sides & MPIVET_COLL_SENDS) {
		w[1] |= CT_SEND;
		w[2] = sig_reps(c.send.type, &reps);
		w[3] = neighbor ? 0 : (uint64_t)mpivet_coll_total(&c.send, size, scatter && c.recv.in_place ? rank : -1) * reps;
	} else if (c.send.in_place && (allgatherv || alltoallv) && (sides & MPIVET_COLL_RECVS)) {
		/* in place: what a rank gives is in its receive buffer */
		w[1] |= CT_SEND;
		w[2] = w[4];
		w[3] = alltoallv ? w[5] : (uint64_t)(int64_t)(c.recv.counts ? mpivet_coll_count(&c.recv, rank) : 0) * reps;
	}
	if (w[1] & (CT_SEND | CT_RECV))
		mpivet_meta(MPIVET_META_COLL, w, 6);
}
