/*
 * datatypes/: what an MPI datatype is made of (walk.h). The bottom of the
 * layer's knowledge of types: it calls nothing of the layer, only the MPI's
 * envelope and contents queries (the envelope through record.h's inline
 * mpivet_type_envelope, which knows the large-count one), and the
 * signatures and the buffer checker build on it.
 */
#include "walk.h"
#include "../record/record.h"

#include <stdlib.h>

/* MPI_DATATYPE_NULL is legal where a buffer is not used (the send type of
 * a collective in place, the origin of MPI_Get_accumulate with MPI_NO_OP):
 * it is never given to the MPI's type queries, which would raise an error
 * the program did not make. */

int64_t mpivet_type_extent(MPI_Datatype t)
{
	MPI_Aint lb = 0, ext = 0;
	if (t == MPI_DATATYPE_NULL)
		return 0;
	PMPI_Type_get_extent(t, &lb, &ext);
	return (int64_t)ext;
}

int mpivet_type_open(MPI_Datatype t, struct mpivet_type_parts *p)
{
	int ni = 0, na = 0, nd = 0, comb = 0;
	p->ngroups = 0;
	p->ints = NULL, p->addrs = NULL, p->types = NULL, p->ntypes = 0;
	if (t == MPI_DATATYPE_NULL || mpivet_type_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
		return MPIVET_TYPE_UNKNOWN;
	p->combiner = comb;
	switch (comb) {
	case MPI_COMBINER_NAMED:
#ifdef MPI_COMBINER_F90_REAL
	case MPI_COMBINER_F90_REAL:
	case MPI_COMBINER_F90_COMPLEX:
	case MPI_COMBINER_F90_INTEGER:
#endif
		return MPIVET_TYPE_BASIC;
	}
	/* on the heap: an indexed type of a million blocks has as many ints and
	 * addresses, more than a thread's stack holds */
	p->ints = malloc((ni + 1) * sizeof *p->ints);
	p->addrs = malloc((na + 1) * sizeof *p->addrs);
	p->types = malloc((nd + 1) * sizeof *p->types);
	if (!p->ints || !p->addrs || !p->types || PMPI_Type_get_contents(t, ni, na, nd, p->ints, p->addrs, p->types) != MPI_SUCCESS) {
		free(p->ints), free(p->addrs), free(p->types);
		return MPIVET_TYPE_UNKNOWN;
	}
	p->ntypes = nd;
	p->ext0 = nd > 0 ? mpivet_type_extent(p->types[0]) : 0;
	switch (comb) {
	case MPI_COMBINER_DUP:
	case MPI_COMBINER_RESIZED: /* the same bytes; only lb and extent change */
	case MPI_COMBINER_CONTIGUOUS:
	case MPI_COMBINER_VECTOR:
	case MPI_COMBINER_HVECTOR:
	case MPI_COMBINER_INDEXED:
	case MPI_COMBINER_HINDEXED:
	case MPI_COMBINER_INDEXED_BLOCK:
	case MPI_COMBINER_HINDEXED_BLOCK:
	case MPI_COMBINER_SUBARRAY:
		p->ngroups = 1;
		return MPIVET_TYPE_DERIVED;
	case MPI_COMBINER_STRUCT:
		p->ngroups = p->ints[0];
		return MPIVET_TYPE_DERIVED;
	}
	/* MPI_Type_create_darray, Fortran's parameterised types, anything
	 * newer: not decoded */
	mpivet_type_close(p);
	return MPIVET_TYPE_UNKNOWN;
}

void mpivet_type_close(struct mpivet_type_parts *p)
{
	for (int i = 0; i < p->ntypes; i++) {
		int comb;
		if (mpivet_type_combiner(p->types[i], &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED)
			PMPI_Type_free(&p->types[i]);
	}
	free(p->ints), free(p->addrs), free(p->types);
	p->ints = NULL, p->addrs = NULL, p->types = NULL, p->ntypes = 0;
}

MPI_Datatype mpivet_type_group(const struct mpivet_type_parts *p, int g)
{
	return p->combiner == MPI_COMBINER_STRUCT ? p->types[g] : p->types[0];
}

uint64_t mpivet_type_copies(const struct mpivet_type_parts *p, int g)
{
	const int *ints = p->ints;
	uint64_t k = 0;
	switch (p->combiner) {
	case MPI_COMBINER_DUP:
	case MPI_COMBINER_RESIZED:
		return 1;
	case MPI_COMBINER_CONTIGUOUS:
		return (uint64_t)ints[0];
	case MPI_COMBINER_VECTOR:
	case MPI_COMBINER_HVECTOR:
	case MPI_COMBINER_INDEXED_BLOCK:
	case MPI_COMBINER_HINDEXED_BLOCK:
		return (uint64_t)ints[0] * (uint64_t)ints[1];
	case MPI_COMBINER_INDEXED:
	case MPI_COMBINER_HINDEXED:
		for (int i = 0; i < ints[0]; i++)
			k += (uint64_t)ints[1 + i];
		return k;
	case MPI_COMBINER_SUBARRAY:
		k = 1;
		for (int i = 0; i < ints[0]; i++)
			k *= (uint64_t)ints[1 + ints[0] + i];
		return k;
	case MPI_COMBINER_STRUCT:
		return (uint64_t)ints[1 + g];
	}
	return 0;
}

/* each_subarray visits the elements of a subarray, fastest dimension last
 * (C order) or first (Fortran order). */
static int each_subarray(const struct mpivet_type_parts *p, int64_t disp, int (*fn)(void *, MPI_Datatype, int64_t), void *ctx)
{
	const int *ints = p->ints;
	int nd = ints[0], order = ints[1 + 3 * nd], r;
	const int *sizes = &ints[1], *subs = &ints[1 + nd], *starts = &ints[1 + 2 * nd];
	int64_t stride[32], idx[32], total = 1;
	if (nd <= 0 || nd > 32)
		return -1;
	/* element strides, fastest dimension last (C) or first (Fortran) */
	for (int k = 0; k < nd; k++) {
		int d = order == MPI_ORDER_C ? nd - 1 - k : k;
		stride[d] = k == 0 ? 1 : stride[order == MPI_ORDER_C ? d + 1 : d - 1] * sizes[order == MPI_ORDER_C ? d + 1 : d - 1];
		total *= subs[d];
		idx[d] = 0;
	}
	for (int64_t e = 0; e < total; e++) {
		int64_t lin = 0;
		for (int d = 0; d < nd; d++)
			lin += (starts[d] + idx[d]) * stride[d];
		if ((r = fn(ctx, p->types[0], disp + lin * p->ext0)))
			return r;
		for (int k = 0; k < nd; k++) { /* next index, fastest first */
			int d = order == MPI_ORDER_C ? nd - 1 - k : k;
			if (++idx[d] < subs[d])
				break;
			idx[d] = 0;
		}
	}
	return 0;
}

int mpivet_type_each(const struct mpivet_type_parts *p, int g, int64_t disp, int (*fn)(void *ctx, MPI_Datatype t, int64_t disp), void *ctx)
{
	const int *ints = p->ints;
	const MPI_Aint *addrs = p->addrs;
	MPI_Datatype t = p->types[0];
	int64_t ext = p->ext0;
	int r, comb = p->combiner;
	switch (comb) {
	case MPI_COMBINER_DUP:
	case MPI_COMBINER_RESIZED:
		return fn(ctx, t, disp);
	case MPI_COMBINER_CONTIGUOUS:
		for (int i = 0; i < ints[0]; i++)
			if ((r = fn(ctx, t, disp + i * ext)))
				return r;
		return 0;
	case MPI_COMBINER_VECTOR:
	case MPI_COMBINER_HVECTOR: {
		int64_t stride = comb == MPI_COMBINER_VECTOR ? (int64_t)ints[2] * ext : (int64_t)addrs[0];
		for (int i = 0; i < ints[0]; i++)
			for (int j = 0; j < ints[1]; j++)
				if ((r = fn(ctx, t, disp + i * stride + j * ext)))
					return r;
		return 0;
	}
	case MPI_COMBINER_INDEXED:
	case MPI_COMBINER_HINDEXED:
		for (int i = 0, n = ints[0]; i < n; i++) {
			int64_t d = comb == MPI_COMBINER_INDEXED ? (int64_t)ints[1 + n + i] * ext : (int64_t)addrs[i];
			for (int j = 0; j < ints[1 + i]; j++)
				if ((r = fn(ctx, t, disp + d + j * ext)))
					return r;
		}
		return 0;
	case MPI_COMBINER_INDEXED_BLOCK:
	case MPI_COMBINER_HINDEXED_BLOCK:
		for (int i = 0, n = ints[0]; i < n; i++) {
			int64_t d = comb == MPI_COMBINER_INDEXED_BLOCK ? (int64_t)ints[2 + i] * ext : (int64_t)addrs[i];
			for (int j = 0; j < ints[1]; j++)
				if ((r = fn(ctx, t, disp + d + j * ext)))
					return r;
		}
		return 0;
	case MPI_COMBINER_STRUCT: {
		int64_t d = (int64_t)addrs[g], e = mpivet_type_extent(p->types[g]);
		for (int j = 0; j < ints[1 + g]; j++)
			if ((r = fn(ctx, p->types[g], disp + d + j * e)))
				return r;
		return 0;
	}
	case MPI_COMBINER_SUBARRAY:
		return each_subarray(p, disp, fn, ctx);
	}
	return -1;
}

/* ---- Holding a type past the program's MPI_Type_free ----
 *
 * A program may free a datatype while operations that use it are pending,
 * or while a persistent request made with it lives (MPI keeps the type
 * until they complete). Where the layer uses a type later than the call
 * that gave it (a persistent receive re-created with a forced source, a
 * receive the deterministic mode posts once decided), it holds its own
 * reference: a duplicate of a derived type, which the program cannot free. */

/* derived reports whether t is a type the program made (not predefined). */
static int derived(MPI_Datatype t)
{
	int comb;
	return t != MPI_DATATYPE_NULL && mpivet_type_combiner(t, &comb) == MPI_SUCCESS &&
	       comb != MPI_COMBINER_NAMED && comb != MPI_COMBINER_F90_REAL && comb != MPI_COMBINER_F90_COMPLEX &&
	       comb != MPI_COMBINER_F90_INTEGER;
}

MPI_Datatype mpivet_type_hold(MPI_Datatype t)
{
	MPI_Datatype d;
	if (!derived(t) || PMPI_Type_dup(t, &d) != MPI_SUCCESS)
		return t;
	return d;
}

void mpivet_type_release(MPI_Datatype *held)
{
	if (derived(*held))
		PMPI_Type_free(held);
	*held = MPI_DATATYPE_NULL;
}
