/*
 * arguments/types.c: the rules about datatypes that arguments.c leaves to
 * it (rules.h).
 *
 * The constructors' arguments (MPI 4.0 §5.1.2-5.1.4): counts and block
 * lengths not negative; a struct's types valid; a subarray's ndims and
 * sizes positive, each subsize within 1..size and each start within
 * 0..size-subsize; a darray's size, ndims, gsizes and psizes positive, its
 * rank within 0..size-1, psizes whose product is size, distributions
 * MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE, dargs
 * positive or MPI_DISTRIBUTE_DFLT_DARG, a block's darg times psize at least
 * gsize; an order MPI_ORDER_C or MPI_ORDER_FORTRAN. Strides and
 * displacements may be negative, a resized type's lower bound too, and a
 * block length zero: none of those is reported.
 *
 * A datatype that describes memory a call writes must not write a byte
 * twice (MPI 4.0 §5.1: "the use of such a datatype in a receive operation
 * is erroneous"; §12.3 for one-sided calls' origin and target buffers).
 * Whether it does is found once per datatype (cached in its entry), from
 * its type map laid out by datatypes/walk.c: the entries of as many copies
 * as can reach each other (the true extent over the extent), sorted.
 * Past a budget of entries the type is not judged: nothing is reported.
 */
#include "rules.h"
#include "arguments.h"
#include "../record/record.h"
#include "../generated/ids.h"
#include "../datatypes/walk.h"

#include <stdlib.h>

#define INT_AT(k, i) (*(const int *)(k)[i])
#define INTS_AT(k, i) (*(const int *const *)(k)[i])

/* ---- Constructors ---- */

static void bad(unsigned call, int kp, int idx, int64_t v, int why, int other, int64_t ov)
{
	args_report(call, kp, MPIVET_ARG_TYPE_ARG, v, (int64_t)why | (int64_t)(idx + 1) << 8, other, ov);
}

/* count gives the non-negative count k[kc], or -1 (reported). */
static int count(unsigned call, int kc, void *const *k)
{
	int n = INT_AT(k, kc);
	if (n < 0)
		bad(call, kc, -1, n, MPIVET_TYPEARG_NEGATIVE, -1, 0);
	return n < 0 ? -1 : n;
}

/* each_at_least checks the n elements of the array k[ka] against least
 * (0: not negative, 1: positive); it gives 0 if one is below. */
static int each_at_least(unsigned call, int ka, void *const *k, int n, int least)
{
	const int *a = INTS_AT(k, ka);
	for (int i = 0; a && i < n; i++)
		if (a[i] < least) {
			bad(call, ka, i, a[i], least ? MPIVET_TYPEARG_POSITIVE : MPIVET_TYPEARG_NEGATIVE, -1, 0);
			return 0;
		}
	return a != NULL;
}

static void order(unsigned call, int ko, void *const *k)
{
	int o = INT_AT(k, ko);
	if (o != MPI_ORDER_C && o != MPI_ORDER_FORTRAN)
		bad(call, ko, -1, o, MPIVET_TYPEARG_ORDER, -1, 0);
}

/* struct_types checks the n types of a struct: not null, not freed
 * (committed or not: a constructor takes either). */
static void struct_types(unsigned call, void *const *k, int n)
{
	int kt = MPIVET_K_MPI_Type_create_struct_array_of_types;
	const void *a = *(const void *const *)k[kt];
	for (int i = 0; a && i < n; i++) {
		MPI_Datatype t = mpivet_args_fortran ? PMPI_Type_f2c(((const MPI_Fint *)a)[i]) : ((const MPI_Datatype *)a)[i];
		struct obj *o = args_find(MPIVET_OBJ_DATATYPE, MPIVET_H(t));
		if (t == MPI_DATATYPE_NULL || MPIVET_H(t) == 0)
			args_report(call, kt, MPIVET_ARG_TYPE_NULL, (int64_t)MPIVET_H(t), i + 1, -1, 0);
		else if (o && o->state == OBJ_FREED)
			args_report(call, kt, MPIVET_ARG_TYPE_FREED, (int64_t)MPIVET_H(t), i + 1, -1, 0);
	}
}

static void subarray(unsigned call, void *const *k)
{
	enum { KN = MPIVET_K_MPI_Type_create_subarray_ndims, KS = MPIVET_K_MPI_Type_create_subarray_array_of_sizes,
	       KU = MPIVET_K_MPI_Type_create_subarray_array_of_subsizes, KT = MPIVET_K_MPI_Type_create_subarray_array_of_starts };
	int n = INT_AT(k, KN);
	order(call, MPIVET_K_MPI_Type_create_subarray_order, k);
	if (n <= 0) {
		bad(call, KN, -1, n, MPIVET_TYPEARG_POSITIVE, -1, 0);
		return;
	}
	if (!each_at_least(call, KS, k, n, 1))
		return;
	const int *sizes = INTS_AT(k, KS), *subs = INTS_AT(k, KU), *starts = INTS_AT(k, KT);
	for (int i = 0; subs && i < n; i++)
		if (subs[i] < 1)
			bad(call, KU, i, subs[i], MPIVET_TYPEARG_POSITIVE, -1, 0);
		else if (subs[i] > sizes[i])
			bad(call, KU, i, subs[i], MPIVET_TYPEARG_SUBSIZE, KS, sizes[i]);
		else if (starts && (starts[i] < 0 || starts[i] > sizes[i] - subs[i]))
			bad(call, KT, i, starts[i], MPIVET_TYPEARG_START, KS, sizes[i] - subs[i]);
}

/* darray_dim checks dimension i of a darray. */
static void darray_dim(unsigned call, void *const *k, int i)
{
	enum { KG = MPIVET_K_MPI_Type_create_darray_array_of_gsizes, KD = MPIVET_K_MPI_Type_create_darray_array_of_distribs,
	       KA = MPIVET_K_MPI_Type_create_darray_array_of_dargs, KP = MPIVET_K_MPI_Type_create_darray_array_of_psizes };
	int g = INTS_AT(k, KG)[i], d = INTS_AT(k, KD)[i], a = INTS_AT(k, KA)[i], p = INTS_AT(k, KP)[i];
	if (d != MPI_DISTRIBUTE_BLOCK && d != MPI_DISTRIBUTE_CYCLIC && d != MPI_DISTRIBUTE_NONE)
		bad(call, KD, i, d, MPIVET_TYPEARG_DISTRIB, -1, 0);
	else if (d != MPI_DISTRIBUTE_NONE && a != MPI_DISTRIBUTE_DFLT_DARG && a < 1)
		bad(call, KA, i, a, MPIVET_TYPEARG_POSITIVE, -1, 0);
	else if (d == MPI_DISTRIBUTE_BLOCK && a != MPI_DISTRIBUTE_DFLT_DARG && (int64_t)a * p < g)
		bad(call, KA, i, a, MPIVET_TYPEARG_BLOCK, KG, (g + p - 1) / p);
}

static void darray(unsigned call, void *const *k)
{
	enum { KS = MPIVET_K_MPI_Type_create_darray_size, KR = MPIVET_K_MPI_Type_create_darray_rank,
	       KN = MPIVET_K_MPI_Type_create_darray_ndims, KP = MPIVET_K_MPI_Type_create_darray_array_of_psizes };
	int size = INT_AT(k, KS), rank = INT_AT(k, KR), n = INT_AT(k, KN);
	order(call, MPIVET_K_MPI_Type_create_darray_order, k);
	if (size < 1)
		bad(call, KS, -1, size, MPIVET_TYPEARG_POSITIVE, -1, 0);
	else if (rank < 0 || rank >= size)
		bad(call, KR, -1, rank, MPIVET_TYPEARG_RANK, KS, size);
	if (n < 1) {
		bad(call, KN, -1, n, MPIVET_TYPEARG_POSITIVE, -1, 0);
		return;
	}
	if (!each_at_least(call, MPIVET_K_MPI_Type_create_darray_array_of_gsizes, k, n, 1) || !each_at_least(call, KP, k, n, 1) ||
	    !INTS_AT(k, MPIVET_K_MPI_Type_create_darray_array_of_distribs) || !INTS_AT(k, MPIVET_K_MPI_Type_create_darray_array_of_dargs))
		return;
	int64_t procs = 1;
	for (int i = 0; i < n; i++) {
		darray_dim(call, k, i);
		procs *= INTS_AT(k, KP)[i];
		if (procs > size) /* no overflow: size is an int */
			break;
	}
	if (size >= 1 && procs != size)
		bad(call, KP, -1, procs, MPIVET_TYPEARG_PSIZES, KS, size);
}

void args_check_ctor(unsigned call, void *const *k)
{
	int n;
	switch (call) {
	case MPIVET_ID_MPI_Type_contiguous:
		count(call, MPIVET_K_MPI_Type_contiguous_count, k);
		return;
	case MPIVET_ID_MPI_Type_vector:
	case MPIVET_ID_MPI_Type_create_hvector:
	case MPIVET_ID_MPI_Type_create_indexed_block:
	case MPIVET_ID_MPI_Type_create_hindexed_block:
		count(call, 0, k); /* count, then blocklength, in all four */
		count(call, 1, k);
		return;
	case MPIVET_ID_MPI_Type_indexed:
	case MPIVET_ID_MPI_Type_create_hindexed:
	case MPIVET_ID_MPI_Type_create_struct:
		if ((n = count(call, 0, k)) > 0)
			each_at_least(call, 1, k, n, 0); /* the block lengths */
		if (n > 0 && call == MPIVET_ID_MPI_Type_create_struct)
			struct_types(call, k, n);
		return;
	case MPIVET_ID_MPI_Type_create_subarray:
		subarray(call, k);
		return;
	case MPIVET_ID_MPI_Type_create_darray:
		darray(call, k);
		return;
	}
}

/* ---- Type maps that write a byte twice ---- */

#define ENTRY_BUDGET (1 << 16) /* entries laid out per datatype, at most */
#define COPY_BUDGET 64	       /* copies of it, at most */

struct entry {
	int64_t lo, hi;
	int32_t copy;
};

struct layout {
	struct entry *e;
	size_t n, cap;
	int32_t copy;
	int over; /* past the budget, or a type not decoded: no judgement */
};

static int lay(struct layout *l, MPI_Datatype t, int64_t disp);

static int lay_one(void *ctx, MPI_Datatype t, int64_t disp) { return lay(ctx, t, disp); }

/* lay appends the entries of t at disp: its basic types' bytes. */
static int lay(struct layout *l, MPI_Datatype t, int64_t disp)
{
	struct mpivet_type_parts p;
	int kind = mpivet_type_open(t, &p);
	if (kind == MPIVET_TYPE_UNKNOWN)
		return l->over = 1;
	if (kind == MPIVET_TYPE_BASIC) {
		int size = 0;
		PMPI_Type_size(t, &size);
		if (size <= 0)
			return 0;
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 256;
			struct entry *e = cap <= ENTRY_BUDGET ? realloc(l->e, cap * sizeof *e) : NULL;
			if (!e)
				return l->over = 1;
			l->e = e, l->cap = cap;
		}
		l->e[l->n++] = (struct entry){disp, disp + size, l->copy};
		return 0;
	}
	int r = 0;
	for (int g = 0; g < p.ngroups && !r; g++)
		r = mpivet_type_each(&p, g, disp, lay_one, l);
	mpivet_type_close(&p);
	if (r < 0)
		l->over = 1;
	return l->over;
}

static int by_lo(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* overlap finds, in o, the least count of t whose entries overlap (as far
 * as the copies laid out tell: a count at which some do, for sure). */
static void overlap(MPI_Datatype t, struct obj *o)
{
	MPI_Aint lb, ext, tlb, text;
	struct layout l = {0};
	o->wdone = 1, o->wleast = 0;
	if (PMPI_Type_get_extent(t, &lb, &ext) != MPI_SUCCESS || PMPI_Type_get_true_extent(t, &tlb, &text) != MPI_SUCCESS || text <= 0)
		return;
	int64_t step = ext < 0 ? -(int64_t)ext : (int64_t)ext;
	int64_t copies = step == 0 ? 2 : text / step + 2; /* copies further apart do not reach each other */
	if (copies > COPY_BUDGET)
		copies = COPY_BUDGET;
	for (l.copy = 0; l.copy < copies && !l.over; l.copy++)
		lay(&l, t, (int64_t)l.copy * (int64_t)ext);
	if (!l.over) {
		qsort(l.e, l.n, sizeof *l.e, by_lo);
		int64_t hi = INT64_MIN;
		int32_t owner = 0;
		for (size_t i = 0; i < l.n; i++) {
			struct entry *e = &l.e[i];
			int32_t least = (e->copy > owner ? e->copy : owner) + 1;
			if (e->lo < hi && (!o->wleast || least < o->wleast))
				o->wleast = least, o->woff = e->lo;
			if (e->hi > hi)
				hi = e->hi, owner = e->copy;
		}
	}
	free(l.e);
}

void args_check_written(unsigned call, int kt, void *const *k, int64_t n, struct obj *o)
{
	MPI_Datatype t = *(const MPI_Datatype *)k[kt];
	if (!o || n <= 0 || o->state == OBJ_PREDEFINED || mpivet_type_named(t))
		return;
	if (!o->wdone)
		overlap(t, o);
	if (o->wleast && n >= o->wleast)
		args_report(call, kt, MPIVET_ARG_TYPE_OVERLAP, (int64_t)MPIVET_H(t), n, -1, o->woff);
}
