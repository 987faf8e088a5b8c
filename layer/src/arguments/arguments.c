/*
 * arguments/: the argument rules of the standard (MPI 4.0 §3.2–3.7, §6,
 * §2.5.4), checked on every call before the MPI sees it. See arguments.h.
 *
 * Each call costs a few table lookups (objects.c) and comparisons: the
 * communicator's size and the rank's place in it are asked of the MPI once
 * per communicator, MPI_TAG_UB once, a predefined datatype's classes once;
 * what the program made and freed is followed by the wrappers of the
 * constructors and frees. Nothing here is O(processes): per-rank count and
 * datatype arrays (the v and w collectives) are not looked into.
 *
 * The rules, with where the standard allows what looks wrong:
 *   - communicator: not MPI_COMM_NULL, not freed;
 *   - peers of point-to-point calls within the group (the remote group of
 *     an intercommunicator), or MPI_PROC_NULL; MPI_ANY_SOURCE for receives
 *     and probes;
 *   - root within the group; of an intercommunicator's collective, also
 *     MPI_ROOT or MPI_PROC_NULL;
 *   - tags within 0..MPI_TAG_UB; MPI_ANY_TAG for receives and probes;
 *   - counts not negative (of the sides of a collective significant on
 *     the rank);
 *   - datatypes not MPI_DATATYPE_NULL, not freed, committed when they
 *     describe data (constructors take uncommitted ones);
 *   - operations not MPI_OP_NULL, not freed, and a predefined operation
 *     only on the predefined datatypes it is defined for (§6.9.2: MPI_SUM
 *     on C integers, Fortran integers, floating point, complex ...);
 *   - no NULL buffer for a non-zero count of a predefined datatype (NULL is
 *     MPI_BOTTOM, fine with a datatype of absolute addresses);
 *   - MPI_IN_PLACE only where a collective allows it (§6.2.1); never in
 *     point-to-point calls nor neighbourhood collectives;
 *   - send and receive buffers disjoint in MPI_Sendrecv and in collectives
 *     (not in place), by the datatypes' true extents;
 *   - files (§14): a file handle not MPI_FILE_NULL, not closed; offsets,
 *     sizes and view displacements not negative (a seek's only from
 *     MPI_SEEK_SET; a view's MPI_DISPLACEMENT_CURRENT); an access mode with
 *     exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR, no
 *     MPI_MODE_CREATE or MPI_MODE_EXCL with MPI_MODE_RDONLY, no
 *     MPI_MODE_SEQUENTIAL with MPI_MODE_RDWR; a view's etype and filetype
 *     committed, the data's count and datatype as in point-to-point calls;
 *   - windows (§12): MPI_Win_create's base not NULL for a positive size;
 *     assertions of only the bits defined for the call (check_window).
 * Counts or datatypes that differ between the members of a collective are
 * collective-mismatch's (signatures/), not repeated here.
 */
#include "arguments.h"
#include "objects.h"
#include "rules.h"
#include "../record/record.h"
#include "../record/conf.h"
#include "../generated/ids.h"
#include "../collectives/decode.h"
#include "../declared/declared.h"

#include <limits.h>

int mpivet_args_on;
__thread int mpivet_args_fortran __attribute__((tls_model("initial-exec")));
static int tag_ub = -1;
static __thread uint64_t freeing __attribute__((tls_model("initial-exec"))); /* the handle the call in progress frees */
static __thread int freeing_kind __attribute__((tls_model("initial-exec")));
static __thread int bad_handle __attribute__((tls_model("initial-exec"))); /* the call in progress has an invalid handle */

/* A probe repeated with the same arguments (an MPI_Iprobe loop, polling a
 * million times) is checked once: a check that found nothing holds until
 * an object is made or freed (serial, which mpivet_args_post counts). */
static uint64_t serial;
static __thread int nreports __attribute__((tls_model("initial-exec"))); /* rules broken by this thread's calls */
static __thread struct {
	uint64_t serial;
	unsigned call;
	int ok, source, tag;
	MPI_Comm comm;
} memo __attribute__((tls_model("initial-exec")));

/* probe_args gives the source, tag and communicator of a probe's k, 0 if
 * call is no polling probe. */
static int probe_args(unsigned call, void *const *k, int *source, int *tag, MPI_Comm *comm)
{
	if (call == MPIVET_ID_MPI_Iprobe) {
		*source = *(const int *)k[MPIVET_K_MPI_Iprobe_source], *tag = *(const int *)k[MPIVET_K_MPI_Iprobe_tag];
		*comm = *(const MPI_Comm *)k[MPIVET_K_MPI_Iprobe_comm];
		return 1;
	}
	if (call == MPIVET_ID_MPI_Improbe) {
		*source = *(const int *)k[MPIVET_K_MPI_Improbe_source], *tag = *(const int *)k[MPIVET_K_MPI_Improbe_tag];
		*comm = *(const MPI_Comm *)k[MPIVET_K_MPI_Improbe_comm];
		return 1;
	}
	return 0;
}

static int memo_hit(unsigned call, int source, int tag, MPI_Comm comm)
{
	return memo.ok && memo.call == call && memo.source == source && memo.tag == tag && memo.comm == comm &&
	       memo.serial == __atomic_load_n(&serial, __ATOMIC_RELAXED);
}

/* report logs the broken rule: the parameter (its index in the call), its
 * value, the limit it broke, and another parameter it is about (-1: none). */
void args_report(unsigned call, int param, int rule, int64_t value, int64_t limit, int other, int64_t ovalue)
{
	/* a handle that is none, or an argument the MPI refuses (the call makes
	 * no message, so the clock protocol must not send a piggyback for it,
	 * which nothing would ever receive) */
	nreports++;
	bad_handle |= rule == MPIVET_ARG_COMM_NULL || rule == MPIVET_ARG_COMM_FREED || rule == MPIVET_ARG_TYPE_NULL ||
		      rule == MPIVET_ARG_TYPE_FREED || rule == MPIVET_ARG_OP_NULL || rule == MPIVET_ARG_OP_FREED ||
		      rule == MPIVET_ARG_COUNT || rule == MPIVET_ARG_RANK || rule == MPIVET_ARG_TAG || rule == MPIVET_ARG_ROOT ||
		      rule == MPIVET_ARG_FILE_NULL || rule == MPIVET_ARG_FILE_CLOSED;
	struct obj *seen = args_put(OBJ_SITE, mpivet_call_pc * 31 + (uint64_t)param * 16 + (uint64_t)rule);
	if (seen && seen->state == OBJ_LIVE)
		return;
	if (seen)
		seen->state = OBJ_LIVE;
	uint64_t w[8] = {call, (uint64_t)(int64_t)param, (uint64_t)rule, (uint64_t)value, (uint64_t)limit,
			 (uint64_t)(int64_t)other, (uint64_t)ovalue, mpivet_call_pc};
	mpivet_meta(MPIVET_META_ARGUMENT, w, 8);
}

#define INT_AT(k, i) (*(const int *)(k)[i])
#define HANDLE_AT(k, i, T) (*(const T *)(k)[i])

/* ---- Communicators ---- */

static struct obj *comm_facts(MPI_Comm c)
{
	struct obj *o = args_put(MPIVET_OBJ_COMM, MPIVET_H(c));
	if (o && o->state == OBJ_UNKNOWN) {
		int inter = 0, size = 0, rank = 0, local = 0;
		PMPI_Comm_test_inter(c, &inter);
		PMPI_Comm_size(c, &local);
		PMPI_Comm_rank(c, &rank);
		size = local;
		if (inter)
			PMPI_Comm_remote_size(c, &size);
		o->inter = (uint8_t)inter;
		o->size = size;
		o->local = local;
		o->rank = rank;
		o->state = OBJ_LIVE;
	}
	return o;
}

/* check_comm gives the communicator's facts, or NULL if it is not one. */
static struct obj *check_comm(unsigned call, int kc, void *const *k)
{
	MPI_Comm c = HANDLE_AT(k, kc, MPI_Comm);
	if (c == MPI_COMM_NULL || MPIVET_H(c) == 0) {
		args_report(call, kc, MPIVET_ARG_COMM_NULL, (int64_t)MPIVET_H(c), 0, -1, 0);
		return NULL;
	}
	struct obj *o = args_find(MPIVET_OBJ_COMM, MPIVET_H(c));
	if (o && o->state == OBJ_FREED) {
		args_report(call, kc, MPIVET_ARG_COMM_FREED, (int64_t)MPIVET_H(c), 0, -1, 0);
		return NULL;
	}
	return comm_facts(c);
}

/* ---- Datatypes and operations ---- */

enum { C_CINT = 1, C_FINT = 2, C_FLOAT = 4, C_LOGICAL = 8, C_COMPLEX = 16, C_BYTE = 32, C_PAIR = 64, C_UNKNOWN = 128 };

static int class_of(MPI_Datatype t)
{
	static const struct {
		MPI_Datatype t;
		int cls;
	} named[] = {
		{MPI_INT, C_CINT}, {MPI_LONG, C_CINT}, {MPI_SHORT, C_CINT}, {MPI_UNSIGNED_SHORT, C_CINT}, {MPI_UNSIGNED, C_CINT},
		{MPI_UNSIGNED_LONG, C_CINT}, {MPI_LONG_LONG_INT, C_CINT}, {MPI_LONG_LONG, C_CINT}, {MPI_UNSIGNED_LONG_LONG, C_CINT},
		{MPI_SIGNED_CHAR, C_CINT}, {MPI_UNSIGNED_CHAR, C_CINT}, {MPI_INT8_T, C_CINT}, {MPI_INT16_T, C_CINT},
		{MPI_INT32_T, C_CINT}, {MPI_INT64_T, C_CINT}, {MPI_UINT8_T, C_CINT}, {MPI_UINT16_T, C_CINT},
		{MPI_UINT32_T, C_CINT}, {MPI_UINT64_T, C_CINT},
		/* the multi-language types go where Fortran integers go */
		{MPI_INTEGER, C_FINT}, {MPI_AINT, C_FINT}, {MPI_OFFSET, C_FINT}, {MPI_COUNT, C_FINT},
		{MPI_FLOAT, C_FLOAT}, {MPI_DOUBLE, C_FLOAT}, {MPI_LONG_DOUBLE, C_FLOAT}, {MPI_REAL, C_FLOAT},
		{MPI_DOUBLE_PRECISION, C_FLOAT},
		{MPI_LOGICAL, C_LOGICAL}, {MPI_C_BOOL, C_LOGICAL}, {MPI_CXX_BOOL, C_LOGICAL},
		{MPI_COMPLEX, C_COMPLEX}, {MPI_DOUBLE_COMPLEX, C_COMPLEX}, {MPI_C_FLOAT_COMPLEX, C_COMPLEX},
		{MPI_C_DOUBLE_COMPLEX, C_COMPLEX}, {MPI_C_LONG_DOUBLE_COMPLEX, C_COMPLEX}, {MPI_CXX_FLOAT_COMPLEX, C_COMPLEX},
		{MPI_CXX_DOUBLE_COMPLEX, C_COMPLEX}, {MPI_CXX_LONG_DOUBLE_COMPLEX, C_COMPLEX},
		{MPI_BYTE, C_BYTE},
		{MPI_FLOAT_INT, C_PAIR}, {MPI_DOUBLE_INT, C_PAIR}, {MPI_LONG_INT, C_PAIR}, {MPI_2INT, C_PAIR},
		{MPI_SHORT_INT, C_PAIR}, {MPI_LONG_DOUBLE_INT, C_PAIR}, {MPI_2INTEGER, C_PAIR}, {MPI_2REAL, C_PAIR},
		{MPI_2DOUBLE_PRECISION, C_PAIR},
		/* in no class: no reduction is defined on them */
		{MPI_CHAR, 0}, {MPI_WCHAR, 0}, {MPI_CHARACTER, 0}, {MPI_PACKED, 0},
		/* Fortran's sized types: an MPI built without Fortran, or without
		 * one of them, leaves them out of mpi.h */
#ifdef MPI_INTEGER1
		{MPI_INTEGER1, C_FINT},
#endif
#ifdef MPI_INTEGER2
		{MPI_INTEGER2, C_FINT},
#endif
#ifdef MPI_INTEGER4
		{MPI_INTEGER4, C_FINT},
#endif
#ifdef MPI_INTEGER8
		{MPI_INTEGER8, C_FINT},
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
	for (size_t i = 0; i < sizeof named / sizeof *named; i++)
		if (named[i].t == t && t != MPI_DATATYPE_NULL)
			return named[i].cls;
	return C_UNKNOWN;
}

/* check_type checks a datatype; it gives its entry (NULL for an invalid
 * one). need_commit: it describes data (not a constructor's old type). */
struct obj *args_check_type(unsigned call, int kt, void *const *k, int need_commit)
{
	MPI_Datatype t = HANDLE_AT(k, kt, MPI_Datatype);
	if (t == MPI_DATATYPE_NULL || MPIVET_H(t) == 0) {
		args_report(call, kt, MPIVET_ARG_TYPE_NULL, (int64_t)MPIVET_H(t), 0, -1, 0);
		return NULL;
	}
	struct obj *o = args_find(MPIVET_OBJ_DATATYPE, MPIVET_H(t));
	if (!o || o->state == OBJ_UNKNOWN) {
		/* not made by a call the layer saw: predefined, with its classes,
		 * or a derived datatype adopted (taken as committed), once */
		o = args_put(MPIVET_OBJ_DATATYPE, MPIVET_H(t));
		if (o) {
			o->cls = (uint8_t)class_of(t);
			o->state = o->cls != C_UNKNOWN || mpivet_type_named(t) ? OBJ_PREDEFINED : OBJ_COMMITTED;
		}
		return o;
	}
	if (o->state == OBJ_FREED) {
		args_report(call, kt, MPIVET_ARG_TYPE_FREED, (int64_t)MPIVET_H(t), 0, -1, 0);
		return NULL;
	}
	if (need_commit && o->state == OBJ_UNCOMMITTED) {
		args_report(call, kt, MPIVET_ARG_TYPE_UNCOMMITTED, (int64_t)MPIVET_H(t), o->made_call, -1, (int64_t)o->made_pc);
		return NULL;
	}
	return o;
}

static int op_classes(MPI_Op op)
{
	if (op == MPI_MAX || op == MPI_MIN)
		return C_CINT | C_FINT | C_FLOAT;
	if (op == MPI_SUM || op == MPI_PROD)
		return C_CINT | C_FINT | C_FLOAT | C_COMPLEX;
	if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
		return C_CINT | C_LOGICAL;
	if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
		return C_CINT | C_FINT | C_BYTE;
	if (op == MPI_MAXLOC || op == MPI_MINLOC)
		return C_PAIR;
	if (op == MPI_REPLACE || op == MPI_NO_OP) /* one-sided accumulates only */
		return 0;
	return -1; /* user-defined: any datatype */
}

static void check_op(unsigned call, int ko, void *const *k, int kt, const struct obj *type)
{
	MPI_Op op = HANDLE_AT(k, ko, MPI_Op);
	if (op == MPI_OP_NULL || MPIVET_H(op) == 0) {
		args_report(call, ko, MPIVET_ARG_OP_NULL, (int64_t)MPIVET_H(op), 0, -1, 0);
		return;
	}
	struct obj *o = args_find(MPIVET_OBJ_OP, MPIVET_H(op));
	if (o && o->state == OBJ_FREED) {
		args_report(call, ko, MPIVET_ARG_OP_FREED, (int64_t)MPIVET_H(op), 0, -1, 0);
		return;
	}
	int allowed = op_classes(op);
	if (o || allowed < 0 || !type)
		return;
	/* predefined operations apply to predefined datatypes only (and the
	 * pairs of MPI_MAXLOC, MPI_MINLOC): both MPIs refuse a derived one */
	if (type->state != OBJ_PREDEFINED || (type->cls != C_UNKNOWN && !(allowed & type->cls)))
		args_report(call, ko, MPIVET_ARG_OP_TYPE, (int64_t)MPIVET_H(op), (int64_t)type->h, kt, (int64_t)type->h);
}

/* ---- Ranks and tags ---- */

static void check_peer(unsigned call, int kp, void *const *k, const struct obj *c, int any)
{
	int r = INT_AT(k, kp);
	if (r == MPI_PROC_NULL || (any && r == MPI_ANY_SOURCE))
		return;
	if (r < 0 || r >= c->size)
		args_report(call, kp, MPIVET_ARG_RANK, r, c->size, -1, 0);
}

static void check_root(unsigned call, int kr, void *const *k, const struct obj *c)
{
	int r = INT_AT(k, kr);
	if (c->inter && (r == MPI_ROOT || r == MPI_PROC_NULL))
		return;
	if (r < 0 || r >= c->size)
		args_report(call, kr, MPIVET_ARG_ROOT, r, c->size, -1, 0);
}

static void check_tag(unsigned call, int kt, void *const *k, int any)
{
	int t = INT_AT(k, kt);
	if (any && t == MPI_ANY_TAG)
		return;
	if (tag_ub < 0) {
		int *ub = NULL, flag = 0;
		PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
		tag_ub = flag && ub ? *ub : 32767; /* the least MPI_TAG_UB the standard allows */
	}
	if (t < 0 || t > tag_ub)
		args_report(call, kt, MPIVET_ARG_TAG, t, tag_ub, -1, 0);
}

/* ---- Buffers ---- */

/* span gives the bytes n elements of datatype t (its entry o) at buf
 * cover: [lo, hi). The extents are asked of the MPI once per datatype. */
static int span(uint64_t buf, int64_t n, MPI_Datatype t, struct obj *o, uint64_t *lo, uint64_t *hi)
{
	if (n <= 0 || !o)
		return 0;
	if (!o->spans) {
		MPI_Aint lb, extent, tlb, textent;
		if (PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS || PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS)
			return 0;
		o->lb = lb, o->extent = extent, o->tlb = tlb, o->textent = textent;
		o->spans = 1;
	}
	if (o->textent <= 0)
		return 0;
	*lo = buf + (uint64_t)o->tlb;
	*hi = *lo + (uint64_t)((n - 1) * o->extent + o->textent);
	if (o->extent < 0) /* a negative extent lays the elements downwards */
		*lo += (uint64_t)((n - 1) * o->extent), *hi = buf + (uint64_t)(o->tlb + o->textent);
	return 1;
}

static void check_overlap(unsigned call, int kb1, uint64_t b1, int64_t n1, MPI_Datatype t1, struct obj *o1,
			  int kb2, uint64_t b2, int64_t n2, MPI_Datatype t2, struct obj *o2)
{
	uint64_t lo1, hi1, lo2, hi2;
	if (!b1 || !b2 || !span(b1, n1, t1, o1, &lo1, &hi1) || !span(b2, n2, t2, o2, &lo2, &hi2))
		return;
	if (lo1 < hi2 && lo2 < hi1)
		args_report(call, kb2, MPIVET_ARG_OVERLAP, (int64_t)b2, (int64_t)(lo1 < lo2 ? hi1 - lo2 : hi2 - lo1), kb1, (int64_t)b1);
}

/* check_data checks one buffer, count and datatype of a point-to-point
 * call; it gives the datatype's entry when the three are valid. */
static struct obj *check_data(unsigned call, int kb, int kn, int kt, void *const *k)
{
	if (kn < 0 || kt < 0)
		return NULL;
	int n = INT_AT(k, kn);
	struct obj *t = args_check_type(call, kt, k, 1);
	if (n < 0) {
		args_report(call, kn, MPIVET_ARG_COUNT, n, 0, -1, 0);
		return NULL;
	}
	if (kb < 0)
		return t;
	uint64_t b = MPIVET_A(HANDLE_AT(k, kb, void *));
	if (n > 0 && mpivet_coll_in_place(b)) {
		args_report(call, kb, MPIVET_ARG_IN_PLACE, (int64_t)b, 0, -1, 0);
		return NULL;
	}
	if (n > 0 && b == 0 && t && t->state == OBJ_PREDEFINED) {
		args_report(call, kb, MPIVET_ARG_BUFFER_NULL, 0, n, kn, n);
		return NULL;
	}
	if (t && n > 0)
		mpivet_declared(call, kb, b, n, HANDLE_AT(k, kt, MPI_Datatype));
	return t;
}

static void check_p2p(unsigned call, void *const *k, const struct obj *c)
{
	if (c && mpivet_call_k_dest[call] >= 0)
		check_peer(call, mpivet_call_k_dest[call], k, c, 0);
	if (c && mpivet_call_k_source[call] >= 0) /* receives and probes: MPI_ANY_SOURCE */
		check_peer(call, mpivet_call_k_source[call], k, c, 1);
	if (mpivet_call_k_stag[call] >= 0)
		check_tag(call, mpivet_call_k_stag[call], k, 0);
	if (mpivet_call_k_rtag[call] >= 0)
		check_tag(call, mpivet_call_k_rtag[call], k, 1);
	struct obj *t = check_data(call, mpivet_call_k_buf[call], mpivet_call_k_count[call], mpivet_call_k_type[call], k);
	int sb = mpivet_call_k_sbuf[call], rb = mpivet_call_k_rbuf[call], kw = mpivet_call_k_wtype[call];
	struct obj *st = check_data(call, sb, mpivet_call_k_scount[call], mpivet_call_k_stype[call], k);
	struct obj *rt = check_data(call, rb, mpivet_call_k_rcount[call], mpivet_call_k_rtype[call], k);
	if (kw >= 0 && kw == mpivet_call_k_type[call])
		args_check_written(call, kw, k, INT_AT(k, mpivet_call_k_count[call]), t);
	else if (kw >= 0 && kw == mpivet_call_k_rtype[call])
		args_check_written(call, kw, k, INT_AT(k, mpivet_call_k_rcount[call]), rt);
	if (st && rt)
		check_overlap(call, sb, MPIVET_A(HANDLE_AT(k, sb, void *)), INT_AT(k, mpivet_call_k_scount[call]),
			      HANDLE_AT(k, mpivet_call_k_stype[call], MPI_Datatype), st, rb, MPIVET_A(HANDLE_AT(k, rb, void *)),
			      INT_AT(k, mpivet_call_k_rcount[call]), HANDLE_AT(k, mpivet_call_k_rtype[call], MPI_Datatype), rt);
}

/* ---- Collectives ---- */

/* Where a side's buffer, count and datatype are among the parameters: a
 * reduction's one count and datatype serve both sides, a Bcast's buffer is
 * its send side's. */
static int pos(int a, int b) { return a >= 0 ? a : b; }
#define SEND_POS(f) pos(mpivet_call_k_send##f[call], mpivet_call_k_recv##f[call])
#define RECV_POS(f) pos(mpivet_call_k_recv##f[call], mpivet_call_k_send##f[call])

/* in_place_ok: a collective allows MPI_IN_PLACE as its send buffer
 * (recv 0) or receive buffer (recv 1) on this rank (§6.2.1). */
static int in_place_ok(int family, int recv, int root)
{
	if (recv)
		return family == MPIVET_COLL_SCATTER && root;
	switch (family) {
	case MPIVET_COLL_REDUCE:
	case MPIVET_COLL_GATHER:
		return root;
	case MPIVET_COLL_ALLREDUCE:
	case MPIVET_COLL_REDUCE_SCATTER:
	case MPIVET_COLL_ALLGATHER:
	case MPIVET_COLL_ALLTOALL:
		return 1;
	}
	return 0;
}

/* check_side checks a significant side with one count and datatype (recv:
 * the side the rank receives into). */
static struct obj *check_side(unsigned call, void *const *k, const struct mpivet_coll_side *s, int kb, int kn, int kt, int recv)
{
	struct obj *t = kt >= 0 ? args_check_type(call, kt, k, 1) : NULL;
	if (recv && t && !s->in_place) /* a count per rank: one element at least */
		args_check_written(call, kt, k, s->per_rank || kn < 0 ? 1 : s->count, t);
	if (s->per_rank || kn < 0)
		return NULL;
	if (s->count < 0) {
		args_report(call, kn, MPIVET_ARG_COUNT, s->count, 0, -1, 0);
		return NULL;
	}
	if (s->count > 0 && s->buf == 0 && t && t->state == OBJ_PREDEFINED) {
		args_report(call, kb, MPIVET_ARG_BUFFER_NULL, 0, s->count, kn, s->count);
		return NULL;
	}
	if (t && s->count > 0 && !s->in_place)
		mpivet_declared(call, kb, s->buf, s->count, s->type);
	return t;
}

static void check_coll(unsigned call, void *const *k, const struct obj *c)
{
	struct mpivet_coll d;
	int ko = mpivet_call_k_op[call];
	if (!mpivet_coll_params(call, k, &d) || c->inter || (d.root >= 0 && d.root >= c->size) ||
	    (mpivet_call_k_root[call] >= 0 && d.root < 0)) {
		if (ko >= 0) /* not decoded here: the operation alone */
			check_op(call, ko, k, -1, NULL);
		return;
	}
	int root = d.root == c->rank, sides = mpivet_coll_sides(&d, c->rank);
	int sb = mpivet_call_k_sendbuf[call], rb = RECV_POS(buf);
	if (d.send.in_place && !in_place_ok(d.family, 0, root)) {
		args_report(call, sb, MPIVET_ARG_IN_PLACE, (int64_t)d.send.buf, 0, -1, 0);
		return;
	}
	if (d.family != MPIVET_COLL_BCAST && d.recv.in_place && !in_place_ok(d.family, 1, root)) {
		args_report(call, rb, MPIVET_ARG_IN_PLACE, (int64_t)d.recv.buf, 0, -1, 0);
		return;
	}
	struct obj *st = NULL, *rt = NULL;
	if (ko >= 0) { /* a reduction: one datatype, significant everywhere */
		const struct obj *t = args_check_type(call, SEND_POS(type), k, 1);
		check_op(call, ko, k, SEND_POS(type), t);
		if (!t)
			return;
	}
	if (d.w) /* a datatype per rank: not looked into */
		return;
	if (sides & MPIVET_COLL_SENDS)
		st = check_side(call, k, &d.send, sb, SEND_POS(count), SEND_POS(type), 0);
	if (sides & MPIVET_COLL_RECVS)
		rt = check_side(call, k, &d.recv, rb, RECV_POS(count), RECV_POS(type), 1);
	if (!st || !rt || d.family == MPIVET_COLL_BCAST || d.family >= MPIVET_COLL_NEIGHBOR_ALLGATHER)
		return;
	/* the blocks of every rank, where a side has one per rank */
	int64_t ns = d.send.count, nr = d.recv.count;
	if (d.family == MPIVET_COLL_SCATTER || d.family == MPIVET_COLL_ALLTOALL || d.family == MPIVET_COLL_REDUCE_SCATTER)
		ns *= c->local;
	if (d.family == MPIVET_COLL_GATHER || d.family == MPIVET_COLL_ALLGATHER || d.family == MPIVET_COLL_ALLTOALL)
		nr *= c->local;
	check_overlap(call, sb, d.send.buf, ns, d.send.type, st, rb, d.recv.buf, nr, d.recv.type, rt);
}

/* ---- Files ---- */

static void check_file_handle(unsigned call, int kf, MPI_File f)
{
	if (f == MPI_FILE_NULL) {
		args_report(call, kf, MPIVET_ARG_FILE_NULL, (int64_t)MPIVET_H(f), 0, -1, 0);
		return;
	}
	struct obj *o = args_find(MPIVET_OBJ_FILE, MPIVET_H(f));
	if (o && o->state == OBJ_FREED)
		args_report(call, kf, MPIVET_ARG_FILE_CLOSED, (int64_t)MPIVET_H(f), 0, -1, 0);
}

static void check_amode(unsigned call, int ka, int amode)
{
	int access = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
	int why = access != 1					       ? MPIVET_AMODE_ACCESS
		  : (amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)) ? MPIVET_AMODE_READ_CREATE
		  : (amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL)	       ? MPIVET_AMODE_RDWR_SEQ
										       : 0;
	if (why)
		args_report(call, ka, MPIVET_ARG_AMODE, amode, why, -1, 0);
}

/* check_file checks what a file call is given besides its data. */
static void check_file(unsigned call, void *const *k)
{
	int kf = mpivet_call_k_file[call], ko = mpivet_call_k_offset[call], kw = mpivet_call_k_whence[call];
	if (kf >= 0)
		check_file_handle(call, kf, HANDLE_AT(k, kf, MPI_File));
	if (ko >= 0) {
		MPI_Offset off = HANDLE_AT(k, ko, MPI_Offset);
		int skip = (kw >= 0 && INT_AT(k, kw) != MPI_SEEK_SET) ||
			   (call == MPIVET_ID_MPI_File_set_view && off == MPI_DISPLACEMENT_CURRENT);
		if (off < 0 && !skip)
			args_report(call, ko, MPIVET_ARG_OFFSET, (int64_t)off, 0, -1, 0);
	}
	if (mpivet_call_k_amode[call] >= 0)
		check_amode(call, mpivet_call_k_amode[call], INT_AT(k, mpivet_call_k_amode[call]));
	if (mpivet_call_k_etype[call] >= 0)
		args_check_type(call, mpivet_call_k_etype[call], k, 1);
	if (mpivet_call_k_filetype[call] >= 0)
		args_check_type(call, mpivet_call_k_filetype[call], k, 1);
}

/* ---- Windows ---- */

/* check_window checks a window's memory at its creation (a NULL base for a
 * positive size: nothing for the origins' operations to land in) and the
 * assertions of the synchronisation calls: only the bits MPI 4.0 §12.5.5
 * defines for each (MPI_Win_fence: NOSTORE, NOPUT, NOPRECEDE, NOSUCCEED;
 * MPI_Win_post: NOCHECK, NOSTORE, NOPUT; MPI_Win_start, MPI_Win_lock,
 * MPI_Win_lock_all: NOCHECK). */
static void check_window(unsigned call, void *const *k)
{
	if (call == MPIVET_ID_MPI_Win_create) {
		MPI_Aint size = HANDLE_AT(k, 1, MPI_Aint);
		if (!*(void *const *)k[0] && size > 0)
			args_report(call, 0, MPIVET_ARG_WIN_BASE, 0, 0, 1, (int64_t)size);
		return;
	}
	int ka = mpivet_call_k_assert[call], allowed = MPI_MODE_NOCHECK;
	if (ka < 0)
		return;
	if (call == MPIVET_ID_MPI_Win_fence)
		allowed = MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;
	else if (call == MPIVET_ID_MPI_Win_post)
		allowed = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT;
	int a = INT_AT(k, ka);
	if (a & ~allowed)
		args_report(call, ka, MPIVET_ARG_ASSERT, a, allowed, -1, 0);
}

/* check_rma checks a one-sided call's datatypes, each with the count before
 * it: valid and committed, the memory they write (the origin or result
 * buffer it fetches into, the target buffer it stores to) without a byte
 * twice (MPI 4.0 §12.3). The origin of MPI_Get_accumulate with MPI_NO_OP
 * is not significant (§12.3.4): MPI_DATATYPE_NULL is fine there. */
static void check_rma(unsigned call, void *const *k)
{
	const int ks[] = {mpivet_call_k_otype[call], mpivet_call_k_ttype[call], mpivet_call_k_restype[call]};
	int kw = mpivet_call_k_wtype[call], kwt = mpivet_call_k_wtarget[call];
	int no_op = ks[2] >= 0 && ks[1] >= 0 && HANDLE_AT(k, ks[1] + 1, MPI_Op) == MPI_NO_OP; /* the op follows the target's type */
	for (int i = no_op ? 1 : 0; i < 3; i++) {
		if (ks[i] < 0)
			continue;
		struct obj *t = args_check_type(call, ks[i], k, 1);
		int n = INT_AT(k, ks[i] - 1);
		if (n < 0)
			args_report(call, ks[i] - 1, MPIVET_ARG_COUNT, n, 0, -1, 0);
		else if (t && (ks[i] == kw || (ks[i] == kwt && !no_op))) /* MPI_NO_OP leaves the target alone */
			args_check_written(call, ks[i], k, n, t);
	}
}

/* handle_at reads the handle of kind (api.Obj*) the program keeps at p. */
static uint64_t handle_at(int kind, const void *p)
{
	switch (kind) {
	case MPIVET_OBJ_COMM:
		return MPIVET_H(*(const MPI_Comm *)p);
	case MPIVET_OBJ_DATATYPE:
		return MPIVET_H(*(const MPI_Datatype *)p);
	case MPIVET_OBJ_FILE:
		return MPIVET_H(*(const MPI_File *)p);
	}
	return MPIVET_H(*(const MPI_Op *)p);
}

static int is_null(int kind, uint64_t h)
{
	switch (kind) {
	case MPIVET_OBJ_COMM:
		return h == MPIVET_H(MPI_COMM_NULL);
	case MPIVET_OBJ_DATATYPE:
		return h == MPIVET_H(MPI_DATATYPE_NULL);
	case MPIVET_OBJ_FILE:
		return h == MPIVET_H(MPI_FILE_NULL);
	}
	return h == MPIVET_H(MPI_OP_NULL);
}

/* check_type_free checks the datatype MPI_Type_free is given: not null
 * (freed already through this handle, which the free set to
 * MPI_DATATYPE_NULL), not predefined (MPI 4.0 §2.5.1: the program must not
 * free a predefined object). */
static void check_type_free(unsigned call, int kf, MPI_Datatype t, const struct obj *o)
{
	if (t == MPI_DATATYPE_NULL)
		args_report(call, kf, MPIVET_ARG_TYPE_NULL, (int64_t)MPIVET_H(t), 0, -1, 0);
	else if (!(o && o->born) && mpivet_type_named(t))
		args_report(call, kf, MPIVET_ARG_TYPE_FREE_PREDEF, (int64_t)MPIVET_H(t), 0, -1, 0);
}

static const int freed_rule[] = {[MPIVET_OBJ_COMM] = MPIVET_ARG_COMM_FREED, [MPIVET_OBJ_DATATYPE] = MPIVET_ARG_TYPE_FREED,
				 [MPIVET_OBJ_OP] = MPIVET_ARG_OP_FREED, [MPIVET_OBJ_FILE] = MPIVET_ARG_FILE_CLOSED};

/* ---- The hooks ---- */

int mpivet_args_pre(unsigned call, void *const *k)
{
	bad_handle = 0;
	int source, tag, reports = nreports;
	MPI_Comm comm;
	int probe = probe_args(call, k, &source, &tag, &comm);
	if (probe && memo_hit(call, source, tag, comm)) {
		freeing_kind = 0;
		return 0;
	}
	uint64_t before = __atomic_load_n(&serial, __ATOMIC_RELAXED);
	args_lock();
	int kc = mpivet_call_k_comm[call];
	const struct obj *c = kc >= 0 ? check_comm(call, kc, k) : NULL;
	if (c && mpivet_call_k_root[call] >= 0)
		check_root(call, mpivet_call_k_root[call], k, c);
	if (mpivet_call_k_dest[call] >= 0 || mpivet_call_k_source[call] >= 0 || mpivet_call_k_type[call] >= 0 ||
	    mpivet_call_k_stype[call] >= 0)
		check_p2p(call, k, c); /* c NULL: no communicator (MPI_Mrecv), or not a valid one */
	else if (mpivet_call_k_stag[call] >= 0) /* communicator constructors' tags */
		check_tag(call, mpivet_call_k_stag[call], k, 0);
	if (c && (mpivet_call_flags[call] & MPIVET_CALL_COLL))
		check_coll(call, k, c);
	if (mpivet_call_k_oldtype[call] >= 0)
		args_check_type(call, mpivet_call_k_oldtype[call], k, 0);
	if (mpivet_call_f_kind[call] < 0 && mpivet_call_a_kind[call] == MPIVET_OBJ_DATATYPE)
		args_check_ctor(call, k);
	if (mpivet_call_k_otype[call] >= 0 || mpivet_call_k_ttype[call] >= 0)
		check_rma(call, k);
	check_file(call, k);
	check_window(call, k);
	if (call == MPIVET_ID_MPI_Type_commit && *(MPI_Datatype *const *)k[0])
		args_check_type(call, 0, (void *const[]){*(MPI_Datatype *const *)k[0]}, 0);
	int kf = mpivet_call_k_free[call];
	freeing_kind = 0;
	if (kf >= 0 && *(void *const *)k[kf]) {
		/* the handle as the call gets it: the MPI sets the program's to null */
		int kind = mpivet_call_f_kind[call];
		uint64_t h = handle_at(kind, *(void *const *)k[kf]);
		struct obj *o = args_find(kind, h);
		if (o && o->state == OBJ_FREED)
			args_report(call, kf, freed_rule[kind], (int64_t)h, 0, -1, 0);
		else if (kind == MPIVET_OBJ_FILE && is_null(kind, h)) /* closed already through this handle */
			args_report(call, kf, MPIVET_ARG_FILE_NULL, (int64_t)h, 0, -1, 0);
		else if (kind == MPIVET_OBJ_DATATYPE)
			check_type_free(call, kf, **(MPI_Datatype *const *)k[kf], o);
		freeing = h;
		freeing_kind = kind;
	}
	args_unlock();
	if (probe) {
		memo.ok = nreports == reports, memo.call = call, memo.serial = before;
		memo.source = source, memo.tag = tag, memo.comm = comm;
	}
	return bad_handle;
}

/* made follows handle h that call made: a new object, or one more
 * reference to a live one (objects.h). */
static void made(unsigned call, int kind, uint64_t h, void *const *k)
{
	struct obj *o = is_null(kind, h) ? NULL : args_put(kind, h);
	if (!o)
		return;
	if (o->born && o->state != OBJ_FREED) {
		o->refs++;
		return;
	}
	o->born = 1;
	o->refs = 1;
	o->spans = 0; /* a value made again is another datatype */
	o->wdone = 0;
	o->made_pc = mpivet_call_pc;
	o->made_call = (int32_t)call;
	o->state = kind == MPIVET_OBJ_COMM ? OBJ_UNKNOWN : kind == MPIVET_OBJ_DATATYPE ? OBJ_UNCOMMITTED : OBJ_LIVE;
	if (call == MPIVET_ID_MPI_Type_dup) { /* a duplicate is as committed as its original */
		const struct obj *from = args_find(MPIVET_OBJ_DATATYPE, MPIVET_H(HANDLE_AT(k, 0, MPI_Datatype)));
		if (!from || from->state != OBJ_UNCOMMITTED)
			o->state = OBJ_COMMITTED;
	}
	if (mpivet_call_k_news[call] >= 0 || call == MPIVET_ID_MPI_File_get_view) /* what a query gives is committed */
		o->state = OBJ_COMMITTED;
}

/* unmade follows a free of handle h: freed once no reference is left; an
 * adopted handle (born 0) is forgotten, to be adopted again at its next use. */
static void unmade(int kind, uint64_t h)
{
	struct obj *o = args_put(kind, h);
	if (!o)
		return;
	if (!o->born) {
		o->state = OBJ_UNKNOWN;
		o->spans = 0;
		o->wdone = 0;
	} else if (--o->refs <= 0)
		o->state = OBJ_FREED;
}

/* made_array follows the handles a query returned in an array (the role
 * news): the elements the MPI set, less predefined datatypes. */
static void made_array(unsigned call, void *const *k)
{
	int kn = mpivet_call_k_news[call], n = INT_AT(k, mpivet_call_k_newslen[call]);
	const MPI_Datatype *ts = *(MPI_Datatype *const *)k[kn];
	for (int i = 0; ts && i < n; i++)
		if (ts[i] != MPI_DATATYPE_NULL && !mpivet_type_named(ts[i]))
			made(call, MPIVET_OBJ_DATATYPE, MPIVET_H(ts[i]), k);
}

/* made_view follows the etype and filetype MPI_File_get_view returned: new
 * references when derived, nothing to follow when predefined. */
static void made_view(unsigned call, void *const *k)
{
	const int ks[] = {2, 3}; /* etype, filetype */
	for (int i = 0; i < 2; i++) {
		const MPI_Datatype *t = *(MPI_Datatype *const *)k[ks[i]];
		if (t && *t != MPI_DATATYPE_NULL && !mpivet_type_named(*t))
			made(call, MPIVET_OBJ_DATATYPE, MPIVET_H(*t), k);
	}
}

void mpivet_args_post(unsigned call, void *const *k, int rc)
{
	if (rc != MPI_SUCCESS)
		return;
	args_lock();
	__atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED);
	int kn = mpivet_call_k_new[call];
	if (call == MPIVET_ID_MPI_File_get_view)
		made_view(call, k);
	else if (kn >= 0 && *(void *const *)k[kn])
		made(call, mpivet_call_a_kind[call], handle_at(mpivet_call_a_kind[call], *(void *const *)k[kn]), k);
	if (mpivet_call_k_news[call] >= 0)
		made_array(call, k);
	if (call == MPIVET_ID_MPI_Type_commit && *(MPI_Datatype *const *)k[0]) {
		struct obj *o = args_find(MPIVET_OBJ_DATATYPE, MPIVET_H(**(MPI_Datatype *const *)k[0]));
		if (o && o->state == OBJ_UNCOMMITTED)
			o->state = OBJ_COMMITTED;
	}
	if (freeing_kind) {
		unmade(freeing_kind, freeing);
		freeing_kind = 0;
	}
	args_unlock();
}

/* ---- Start ---- */

static void args_opened(void) { mpivet_args_on = !mpivet_conf_is(MPIVET_CONF_ARGUMENTS, "off"); }

static const struct mpivet_service service = {.log_opened = args_opened};

__attribute__((constructor(MPIVET_SERVICE_PRIORITY))) static void args_register(void) { mpivet_register(&service); }
