/*
 * heap/runs.c: the bytes a derived datatype covers, as runs of contiguous
 * bytes (offset, length) from the buffer address, for check.c when a
 * buffer's span [true lb, true ub) is not the footprint: a type with gaps
 * whose blocks lie in different allocations (a struct built from the
 * addresses of separate blocks, relative to the first or absolute with
 * MPI_BOTTOM; a vector whose stride steps from one allocation to the next).
 * The bytes between the runs are not accessed.
 *
 * The type is walked with datatypes/walk.c, one level at a time down to
 * the parts without gaps (size equal to true extent: a basic type, a
 * contiguous one), each one run; touching runs are merged. The walk is bounded: it stops
 * after MPIVET_RUNS runs or MPIVET_VISITS basic copies, and says so (cut):
 * check.c then checks the runs it has, and not the bytes past them.
 */
#define _GNU_SOURCE
#include "heap.h"
#include "../datatypes/walk.h"

static void walk(MPI_Datatype t, int64_t disp, struct mpivet_runs *r, int depth);

struct walk_at {
	struct mpivet_runs *r;
	int depth;
	MPI_Datatype last; /* the type of the copy before, and whether it has no gaps */
	int last_dense;
	int64_t tlb, size;
};

static void push(struct mpivet_runs *r, int64_t off, int64_t len);

/* dense tells whether t covers its true extent whole (a basic type, a
 * contiguous one), and where: one run of size bytes from tlb. */
static int dense(MPI_Datatype t, int64_t *tlb, int64_t *size)
{
	MPI_Count sz = 0, lb = 0, ext = 0;
	if (PMPI_Type_size_x(t, &sz) != MPI_SUCCESS || PMPI_Type_get_true_extent_x(t, &lb, &ext) != MPI_SUCCESS)
		return 0;
	*tlb = (int64_t)lb, *size = (int64_t)sz;
	return sz == ext;
}

/* walk_copy maps one copy; the copies of one dense type (the blocklength
 * copies of a basic type) cost a push each, no MPI query. */
static int walk_copy(void *ctx, MPI_Datatype t, int64_t disp)
{
	struct walk_at *at = ctx;
	if (t != at->last) {
		at->last = t;
		at->last_dense = dense(t, &at->tlb, &at->size);
	}
	if (at->last_dense)
		push(at->r, disp + at->tlb, at->size);
	else
		walk(t, disp, at->r, at->depth + 1);
	return at->r->cut || at->r->bad;
}

static void push(struct mpivet_runs *r, int64_t off, int64_t len)
{
	if (len <= 0)
		return;
	if (++r->visits > MPIVET_VISITS) {
		r->cut = 1;
		return;
	}
	if (r->n && r->off[r->n - 1] + r->len[r->n - 1] == off) {
		r->len[r->n - 1] += len; /* contiguous: one run */
		return;
	}
	if (r->n == MPIVET_RUNS) {
		r->cut = 1;
		return;
	}
	r->off[r->n] = off, r->len[r->n] = len, r->n++;
}

static void walk(MPI_Datatype t, int64_t disp, struct mpivet_runs *r, int depth)
{
	int64_t tlb = 0, size = 0;
	if (dense(t, &tlb, &size)) { /* no gaps (a basic type, a contiguous one): one run, not walked */
		push(r, disp + tlb, size);
		return;
	}
	struct mpivet_type_parts p;
	int kind = depth > 32 ? MPIVET_TYPE_UNKNOWN : mpivet_type_open(t, &p);
	if (kind == MPIVET_TYPE_BASIC) {
		push(r, disp, size);
		return;
	}
	if (kind == MPIVET_TYPE_UNKNOWN) { /* a darray, or too deep: not mapped */
		r->bad = 1;
		return;
	}
	struct walk_at at = {r, depth, MPI_DATATYPE_NULL, 0, 0, 0};
	for (int g = 0; g < p.ngroups && !r->cut && !r->bad; g++)
		if (mpivet_type_each(&p, g, disp, walk_copy, &at) < 0)
			r->bad = 1;
	mpivet_type_close(&p);
}

int mpivet_heap_runs(MPI_Datatype t, struct mpivet_runs *r)
{
	r->n = 0, r->visits = 0, r->cut = 0, r->bad = 0;
	walk(t, 0, r, 0);
	return !r->bad;
}
