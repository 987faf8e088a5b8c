/*
 * The buffer checker's hooks (buffers.h): what each MPI call means to it,
 * from the words the generated wrappers give (generated/ids.h: the
 * positions of the fields), and what the hooks cost.
 */
#define _GNU_SOURCE
#include "checker.h"
#include "../generated/ids.h"
#include "../collectives/decode.h"

/* ---- Hooks from the generated wrappers ---- */

static TLS uint64_t args[48];
static TLS uint64_t *snap; /* request handles on entry */
static TLS int64_t nsnap, capsnap;

#define IN(call, f) args[MPIVET_IN_##call##_##f]
#define OUT(call, f) o[MPIVET_OUT_##call##_##f]

static void snapshot(int64_t n, const MPI_Request *r)
{
	nsnap = 0;
	if (n <= 0 || !r)
		return;
	if (n > capsnap) {
		uint64_t *s = bc_xrealloc(snap, n * sizeof *s);
		if (!s)
			return;
		snap = s, capsnap = n;
	}
	for (int64_t i = 0; i < n; i++)
		snap[i] = MPIVET_H(r[i]);
	nsnap = n;
}

static void disable(void)
{
	lock();
	bc_log_watched();
	bc_open_spans(0);
	bc_exposure_off();
	unprotected = 1;
	mpivet_bc_on = 0;
	nspans = 0;
	mpivet_bc_live = 0;
	unlock();
}

/* in keeps the arguments of the call being entered (for out) and opens the
 * pages the call will read that a lazy entry left closed. The arguments are
 * copied in a loop: memcpy's string move costs more on a few words. */
__attribute__((optimize("no-tree-loop-distribute-patterns"))) static void in(unsigned call, const uint64_t *a, unsigned n)
{
	if (n > sizeof args / sizeof args[0])
		n = sizeof args / sizeof args[0];
	for (unsigned i = 0; i < n; i++)
		args[i] = a[i];
	switch (call) {
#define SNAP(c) \
	case MPIVET_ID_##c: \
		snapshot((int64_t)IN(c, array_of_requests), (const MPI_Request *)(uintptr_t)args[MPIVET_IN_##c##_array_of_requests + 1]); \
		break;
		SNAP(MPI_Waitany)
		SNAP(MPI_Testany)
		SNAP(MPI_Waitall)
		SNAP(MPI_Testall)
		SNAP(MPI_Waitsome)
		SNAP(MPI_Testsome)
		SNAP(MPI_Startall)
#undef SNAP
	case MPIVET_ID_MPI_Finalize:
	case MPIVET_ID_MPI_Abort:
		/* pending operations at MPI_Finalize are request-lifecycle's; the
		 * program's exit must not fault on them */
		disable();
		return;
	}
	if (!mpivet_bc_entered)
		return; /* nothing closed */
	switch (call) {
#define SEND(c) \
	case MPIVET_ID_##c: \
		bc_entering_send(IN(c, buf), (int64_t)IN(c, count), IN(c, datatype)); \
		break;
		SEND(MPI_Isend)
		SEND(MPI_Ibsend)
		SEND(MPI_Issend)
		SEND(MPI_Irsend)
#undef SEND
	case MPIVET_ID_MPI_Isendrecv:
		bc_entering_send(IN(MPI_Isendrecv, sendbuf), (int64_t)IN(MPI_Isendrecv, sendcount), IN(MPI_Isendrecv, sendtype));
		break;
	case MPIVET_ID_MPI_Isendrecv_replace:
		bc_entering_send(IN(MPI_Isendrecv_replace, buf), (int64_t)IN(MPI_Isendrecv_replace, count), IN(MPI_Isendrecv_replace, datatype));
		break;
	case MPIVET_ID_MPI_Start:
		bc_entering_start(IN(MPI_Start, request));
		break;
	case MPIVET_ID_MPI_Startall:
		for (int64_t i = 0; i < nsnap; i++)
			bc_entering_start(snap[i]);
		break;
	}
}

struct coll_op {
	unsigned call;
	uint64_t req, at, logref;
};

static void coll_block(void *ctx, int recv, uint64_t buf, int64_t count, MPI_Datatype t)
{
	const struct coll_op *op = ctx;
	bc_add(op->call, COLL | recv, buf, count, MPIVET_H(t), op->req, op->at, op->logref, 0);
}

/* coll registers the buffers of a nonblocking collective (collectives/
 * decode.c says which), started by the call at logref with request req
 * kept at at. */
static void coll(const struct mpivet_coll *c, uint64_t req, uint64_t at, uint64_t logref)
{
	int rank, size;
	if (!mpivet_coll_where(c, &rank, &size))
		return; /* intercommunicator roots and sizes: not mapped */
	struct coll_op op = {c->call, req, at, logref};
	mpivet_coll_blocks(c, rank, size, coll_block, &op);
}

/* complete_array ends the operations of a request array: a nonpersistent one
 * the MPI set to MPI_REQUEST_NULL, a persistent one if chosen(i). */
static void complete_array(const MPI_Request *after, uint64_t at, int64_t stride, int all, int64_t nidx, const int *idx,
			   int base, int one)
{
	lock();
	for (int64_t i = 0; after && i < nsnap; i++) {
		int chosen = all || i == one;
		for (int64_t k = 0; !chosen && idx && k < nidx; k++)
			chosen = idx[k] - base == i;
		bc_finish(snap[i], at ? at + i * stride : 0, chosen, MPIVET_H(after[i]) == req_null);
	}
	unlock();
}

/* completed forgets the operations a completion call completed. */
static void completed(unsigned call, const uint64_t *o)
{
	switch (call) {
	case MPIVET_ID_MPI_Wait:
		bc_finish_one(IN(MPI_Wait, request), IN(MPI_Wait, request_at), 1, OUT(MPI_Wait, request_out) == req_null);
		break;
	case MPIVET_ID_MPI_Test:
		if (OUT(MPI_Test, flag))
			bc_finish_one(IN(MPI_Test, request), IN(MPI_Test, request_at), 1, OUT(MPI_Test, request_out) == req_null);
		break;
	case MPIVET_ID_MPI_Request_get_status:
		if (OUT(MPI_Request_get_status, flag)) {
			/* complete, though the request lives on: the buffer is free */
			bc_finish_one(IN(MPI_Request_get_status, request), 0, 1, 1);
		}
		break;
	case MPIVET_ID_MPI_Waitany:
	case MPIVET_ID_MPI_Testany: {
		int waitany = call == MPIVET_ID_MPI_Waitany;
		int flag = waitany ? 1 : (int)OUT(MPI_Testany, flag);
		int64_t index = (int64_t)(waitany ? OUT(MPI_Waitany, index) : OUT(MPI_Testany, index));
		uint64_t at = waitany ? IN(MPI_Waitany, array_of_requests_at) : IN(MPI_Testany, array_of_requests_at);
		int64_t stride = (int64_t)(waitany ? IN(MPI_Waitany, array_of_requests_stride) : IN(MPI_Testany, array_of_requests_stride));
		const MPI_Request *after = (const MPI_Request *)(uintptr_t)o[(waitany ? MPIVET_OUT_MPI_Waitany_array_of_requests_out : MPIVET_OUT_MPI_Testany_array_of_requests_out) + 1];
		if (flag)
			complete_array(after, at, stride, 0, 0, NULL, 0, (int)index);
		break;
	}
	case MPIVET_ID_MPI_Waitall:
	case MPIVET_ID_MPI_Testall: {
		int waitall = call == MPIVET_ID_MPI_Waitall;
		if (!waitall && !OUT(MPI_Testall, flag))
			break;
		uint64_t at = waitall ? IN(MPI_Waitall, array_of_requests_at) : IN(MPI_Testall, array_of_requests_at);
		int64_t stride = (int64_t)(waitall ? IN(MPI_Waitall, array_of_requests_stride) : IN(MPI_Testall, array_of_requests_stride));
		const MPI_Request *after = (const MPI_Request *)(uintptr_t)o[(waitall ? MPIVET_OUT_MPI_Waitall_array_of_requests_out : MPIVET_OUT_MPI_Testall_array_of_requests_out) + 1];
		complete_array(after, at, stride, 1, 0, NULL, 0, -1);
		break;
	}
	case MPIVET_ID_MPI_Waitsome:
	case MPIVET_ID_MPI_Testsome: {
		int ws = call == MPIVET_ID_MPI_Waitsome;
		uint64_t at = ws ? IN(MPI_Waitsome, array_of_requests_at) : IN(MPI_Testsome, array_of_requests_at);
		int64_t stride = (int64_t)(ws ? IN(MPI_Waitsome, array_of_requests_stride) : IN(MPI_Testsome, array_of_requests_stride));
		int k = ws ? MPIVET_OUT_MPI_Waitsome_array_of_requests_out : MPIVET_OUT_MPI_Testsome_array_of_requests_out;
		int ki = ws ? MPIVET_OUT_MPI_Waitsome_array_of_indices : MPIVET_OUT_MPI_Testsome_array_of_indices;
		complete_array((const MPI_Request *)(uintptr_t)o[k + 1], at, stride, 0, (int64_t)o[ki],
			       (const int *)(uintptr_t)o[ki + 1], (int)o[ki + 2], -1);
		break;
	}
	}
}

/* exposure follows the target's exposure epochs (exposure.c): opened by a
 * fence (unless it asserts MPI_MODE_NOSUCCEED) or MPI_Win_post, closed by
 * the next fence, MPI_Win_wait or a successful MPI_Win_test. */
static void exposure(unsigned call, uint64_t logref, const uint64_t *o)
{
	switch (call) {
	case MPIVET_ID_MPI_Win_fence: {
		int64_t as = (int64_t)IN(MPI_Win_fence, assertion);
		bc_exposure_open(IN(MPI_Win_fence, win), call, logref, (as & MPI_MODE_NOPUT) != 0, !(as & MPI_MODE_NOSUCCEED));
		break;
	}
	case MPIVET_ID_MPI_Win_post:
		bc_exposure_open(IN(MPI_Win_post, win), call, logref, (IN(MPI_Win_post, assertion) & MPI_MODE_NOPUT) != 0, 1);
		break;
	case MPIVET_ID_MPI_Win_wait:
		bc_exposure_close(IN(MPI_Win_wait, win));
		break;
	case MPIVET_ID_MPI_Win_test:
		if (OUT(MPI_Win_test, flag))
			bc_exposure_close(IN(MPI_Win_test, win));
		break;
	}
}

/* requested registers the buffers of a request-based one-sided operation
 * (MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate) under its
 * request: pending until a Wait or Test completes it, or the window's next
 * unlock or flush completes every operation (bc_window_ops). It returns 0
 * for a call of another kind. */
static int requested(unsigned call, uint64_t logref, const uint64_t *o)
{
	switch (call) {
#define RREQ(c, recv, buf, count, type) \
	bc_add(call, recv, IN(c, buf), (int64_t)(count), IN(c, type), OUT(c, request), IN(c, request_at), logref, 0)
	case MPIVET_ID_MPI_Rput:
		RREQ(MPI_Rput, 0, origin_addr, IN(MPI_Rput, origin_count), origin_datatype);
		bc_window_ops(logref, IN(MPI_Rput, win));
		break;
	case MPIVET_ID_MPI_Raccumulate:
		RREQ(MPI_Raccumulate, 0, origin_addr, IN(MPI_Raccumulate, origin_count), origin_datatype);
		bc_window_ops(logref, IN(MPI_Raccumulate, win));
		break;
	case MPIVET_ID_MPI_Rget:
		RREQ(MPI_Rget, 1, origin_addr, IN(MPI_Rget, origin_count), origin_datatype);
		bc_window_ops(logref, IN(MPI_Rget, win));
		break;
	case MPIVET_ID_MPI_Rget_accumulate:
		if (IN(MPI_Rget_accumulate, op) != MPIVET_H(MPI_NO_OP))
			RREQ(MPI_Rget_accumulate, 0, origin_addr, IN(MPI_Rget_accumulate, origin_count), origin_datatype);
		RREQ(MPI_Rget_accumulate, 1, result_addr, IN(MPI_Rget_accumulate, result_count), result_datatype);
		bc_window_ops(logref, IN(MPI_Rget_accumulate, win));
		break;
#undef RREQ
	default:
		return 0;
	}
	return 1;
}

/* origin registers the buffers of a one-sided operation; it returns 0 for
 * a call of another kind. The origin buffer (and result buffer) of an
 * operation stay pending, under the window's handle, until the window's
 * next fence, unlock, flush or complete. */
static int origin(unsigned call, uint64_t logref, const uint64_t *o)
{
	switch (call) {
#define RMA(c, recv, buf, count, type) \
	bc_add(call, recv, IN(c, buf), (int64_t)(count), IN(c, type), IN(c, win), 0, logref, 0)
	case MPIVET_ID_MPI_Put:
		RMA(MPI_Put, 0, origin_addr, IN(MPI_Put, origin_count), origin_datatype);
		break;
	case MPIVET_ID_MPI_Accumulate:
		RMA(MPI_Accumulate, 0, origin_addr, IN(MPI_Accumulate, origin_count), origin_datatype);
		break;
	case MPIVET_ID_MPI_Get:
		RMA(MPI_Get, 1, origin_addr, IN(MPI_Get, origin_count), origin_datatype);
		break;
	case MPIVET_ID_MPI_Get_accumulate: /* MPI_NO_OP reads no origin buffer */
		if (IN(MPI_Get_accumulate, op) != MPIVET_H(MPI_NO_OP))
			RMA(MPI_Get_accumulate, 0, origin_addr, IN(MPI_Get_accumulate, origin_count), origin_datatype);
		RMA(MPI_Get_accumulate, 1, result_addr, IN(MPI_Get_accumulate, result_count), result_datatype);
		break;
	case MPIVET_ID_MPI_Fetch_and_op:
		if (IN(MPI_Fetch_and_op, op) != MPIVET_H(MPI_NO_OP))
			RMA(MPI_Fetch_and_op, 0, origin_addr, 1, datatype);
		RMA(MPI_Fetch_and_op, 1, result_addr, 1, datatype);
		break;
	case MPIVET_ID_MPI_Compare_and_swap:
		RMA(MPI_Compare_and_swap, 0, origin_addr, 1, datatype);
		RMA(MPI_Compare_and_swap, 0, compare_addr, 1, datatype);
		RMA(MPI_Compare_and_swap, 1, result_addr, 1, datatype);
		break;
#undef RMA
	default:
		return requested(call, logref, o);
	}
	return 1;
}

/* rma registers the buffers of a one-sided operation (origin) and follows
 * window memory and synchronisations; it returns 0 for a call of another
 * kind. */
static int rma(unsigned call, uint64_t logref, const uint64_t *o)
{
	if (origin(call, logref, o))
		return 1;
	switch (call) {
	case MPIVET_ID_MPI_Win_create:
		bc_window_add(OUT(MPI_Win_create, win), IN(MPI_Win_create, base), (int64_t)IN(MPI_Win_create, size), logref, call);
#if !defined(OPEN_MPI)
		/* Open MPI's Put into such a window is a peer's process_vm_writev (exposure.c) */
		bc_exposure_add(OUT(MPI_Win_create, win), IN(MPI_Win_create, base), (int64_t)IN(MPI_Win_create, size), 1);
#endif
		break;
	case MPIVET_ID_MPI_Win_allocate:
	case MPIVET_ID_MPI_Win_allocate_shared: {
		int a = call == MPIVET_ID_MPI_Win_allocate;
		void *const *base = (void *const *)(uintptr_t)(a ? IN(MPI_Win_allocate, baseptr) : IN(MPI_Win_allocate_shared, baseptr));
		if (base)
			bc_window_add(a ? OUT(MPI_Win_allocate, win) : OUT(MPI_Win_allocate_shared, win), (uint64_t)(uintptr_t)*base,
				      (int64_t)(a ? IN(MPI_Win_allocate, size) : IN(MPI_Win_allocate_shared, size)), 0, call);
		if (base && a)
			bc_exposure_add(OUT(MPI_Win_allocate, win), (uint64_t)(uintptr_t)*base, (int64_t)IN(MPI_Win_allocate, size), 0);
		break;
	}
	case MPIVET_ID_MPI_Win_attach:
		bc_window_add(IN(MPI_Win_attach, win), IN(MPI_Win_attach, base), (int64_t)IN(MPI_Win_attach, size), logref, call);
		break;
	case MPIVET_ID_MPI_Win_detach:
		bc_window_remove(IN(MPI_Win_detach, win), IN(MPI_Win_detach, base));
		break;
	case MPIVET_ID_MPI_Win_free:
		bc_exposure_remove(IN(MPI_Win_free, win));
		bc_finish_all(IN(MPI_Win_free, win));
		bc_window_remove(IN(MPI_Win_free, win), 0);
		break;
#define RMA_SYNC(c) \
	case MPIVET_ID_##c: \
		bc_finish_all(IN(c, win)); \
		break;
	case MPIVET_ID_MPI_Win_fence:
		bc_finish_all(IN(MPI_Win_fence, win));
		exposure(call, logref, o);
		break;
	case MPIVET_ID_MPI_Win_post:
	case MPIVET_ID_MPI_Win_wait:
	case MPIVET_ID_MPI_Win_test:
		exposure(call, logref, o);
		break;
		RMA_SYNC(MPI_Win_unlock)
		RMA_SYNC(MPI_Win_unlock_all)
		RMA_SYNC(MPI_Win_flush)
		RMA_SYNC(MPI_Win_flush_all)
		RMA_SYNC(MPI_Win_flush_local)
		RMA_SYNC(MPI_Win_flush_local_all)
		RMA_SYNC(MPI_Win_complete)
#undef RMA_SYNC
	default:
		return 0;
	}
	return 1;
}

/* files registers the buffers of a nonblocking file operation (under its
 * request) and of a split collective's begin (under the file's handle: one
 * may be pending per file, until its end), and forgets the latter at the
 * end or when the file is closed; it returns 0 for a call of another kind.
 * A write's buffer may be read while pending. A read's is filled by the
 * kernel with no MPI call in progress (both MPIs read files with POSIX aio,
 * whose helper threads get EFAULT on a protected page, and the read fails
 * or never completes): an independent read (iread, iread_at, iread_shared)
 * is registered only because its wrapper completed it before it returned
 * (files/: mpivet_file_settle), which the standard allows; a collective
 * one, which cannot be completed without the other ranks, is not watched. */
static int files(unsigned call, uint64_t logref, const uint64_t *o)
{
	switch (call) {
#define FILE_OP(c, recv) \
	case MPIVET_ID_##c: \
		bc_add(call, recv, IN(c, buf), (int64_t)IN(c, count), IN(c, datatype), OUT(c, request), IN(c, request_at), logref, 0); \
		break;
		FILE_OP(MPI_File_iread_at, 1)
		FILE_OP(MPI_File_iwrite_at, 0)
		FILE_OP(MPI_File_iwrite_at_all, 0)
		FILE_OP(MPI_File_iread, 1)
		FILE_OP(MPI_File_iwrite, 0)
		FILE_OP(MPI_File_iwrite_all, 0)
		FILE_OP(MPI_File_iread_shared, 1)
		FILE_OP(MPI_File_iwrite_shared, 0)
#undef FILE_OP
#define BEGIN(c) \
	case MPIVET_ID_##c: \
		bc_add(call, 0, IN(c, buf), (int64_t)IN(c, count), IN(c, datatype), IN(c, fh), 0, logref, 0); \
		break;
		BEGIN(MPI_File_write_at_all_begin)
		BEGIN(MPI_File_write_all_begin)
		BEGIN(MPI_File_write_ordered_begin)
#undef BEGIN
#define END(c) \
	case MPIVET_ID_##c: \
		bc_finish_all(IN(c, fh)); \
		break;
		END(MPI_File_read_at_all_end)
		END(MPI_File_write_at_all_end)
		END(MPI_File_read_all_end)
		END(MPI_File_write_all_end)
		END(MPI_File_read_ordered_end)
		END(MPI_File_write_ordered_end)
		END(MPI_File_close)
#undef END
	default:
		return 0;
	}
	(void)o;
	return 1;
}

/* out registers the operations a call started and forgets those it
 * completed. */
static void out(unsigned call, uint64_t logref, int rc, const uint64_t *o)
{
	switch (call) {
	case MPIVET_ID_MPI_Type_free:
		if (rc == MPI_SUCCESS) {
			lock();
			bc_type_freed(IN(MPI_Type_free, datatype));
			unlock();
		}
		return;
	case MPIVET_ID_MPI_Request_free:
		bc_forget(IN(MPI_Request_free, request), IN(MPI_Request_free, request_at));
		return;
	}
	if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)
		return;
	if (rma(call, logref, o) || files(call, logref, o))
		return;
	switch (call) {
#define P2P(c, recv, persistent) \
	case MPIVET_ID_##c: \
		bc_add(call, recv, IN(c, buf), (int64_t)IN(c, count), IN(c, datatype), OUT(c, request), IN(c, request_at), logref, persistent); \
		break;
		P2P(MPI_Isend, 0, 0)
		P2P(MPI_Ibsend, 0, 0)
		P2P(MPI_Issend, 0, 0)
		P2P(MPI_Irsend, 0, 0)
		P2P(MPI_Irecv, 1, 0)
		P2P(MPI_Imrecv, 1, 0)
		P2P(MPI_Send_init, 0, 1)
		P2P(MPI_Bsend_init, 0, 1)
		P2P(MPI_Ssend_init, 0, 1)
		P2P(MPI_Rsend_init, 0, 1)
		P2P(MPI_Recv_init, 1, 1)
#undef P2P
	case MPIVET_ID_MPI_Isendrecv: /* two buffers, one request */
		bc_add(call, 0, IN(MPI_Isendrecv, sendbuf), (int64_t)IN(MPI_Isendrecv, sendcount), IN(MPI_Isendrecv, sendtype),
		       OUT(MPI_Isendrecv, request), IN(MPI_Isendrecv, request_at), logref, 0);
		bc_add(call, 1, IN(MPI_Isendrecv, recvbuf), (int64_t)IN(MPI_Isendrecv, recvcount), IN(MPI_Isendrecv, recvtype),
		       OUT(MPI_Isendrecv, request), IN(MPI_Isendrecv, request_at), logref, 0);
		break;
	case MPIVET_ID_MPI_Isendrecv_replace: /* sent from and received into: watched as a receive's */
		bc_add(call, 1, IN(MPI_Isendrecv_replace, buf), (int64_t)IN(MPI_Isendrecv_replace, count), IN(MPI_Isendrecv_replace, datatype),
		       OUT(MPI_Isendrecv_replace, request), IN(MPI_Isendrecv_replace, request_at), logref, 0);
		break;
	case MPIVET_ID_MPI_Start:
		bc_start(IN(MPI_Start, request), OUT(MPI_Start, request_out), logref);
		break;
	case MPIVET_ID_MPI_Startall: {
		const MPI_Request *after = (const MPI_Request *)(uintptr_t)o[MPIVET_OUT_MPI_Startall_array_of_requests_out + 1];
		for (int64_t i = 0; i < nsnap; i++)
			bc_start(snap[i], after ? MPIVET_H(after[i]) : snap[i], logref);
		break;
	}
	case MPIVET_ID_MPI_Wait:
	case MPIVET_ID_MPI_Test:
	case MPIVET_ID_MPI_Request_get_status:
	case MPIVET_ID_MPI_Waitany:
	case MPIVET_ID_MPI_Testany:
	case MPIVET_ID_MPI_Waitall:
	case MPIVET_ID_MPI_Testall:
	case MPIVET_ID_MPI_Waitsome:
	case MPIVET_ID_MPI_Testsome:
		completed(call, o);
		break;
	default: {
		/* nonblocking collectives: the request, where the program keeps
		 * it, and their buffers */
		struct mpivet_coll c;
		int k = mpivet_call_o_request[call];
		if (k >= 0 && mpivet_coll_words(call, args, &c))
			coll(&c, o[k], args[mpivet_call_w_request_at[call]], logref);
	}
	}
}

/* The bookkeeping of every operation, watched or not, counts in the
 * checker's cost (see watching): in a loop of small exchanges it is a
 * large part of it. Timing every hook would cost a third of what it
 * measures, so one call in SAMPLE, chosen at random, is timed and counts
 * SAMPLE times. */
#define SAMPLE 16
static TLS uint32_t rng = 2463534242u;

static inline int sampled(void)
{
	rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5; /* xorshift */
	return (rng & (SAMPLE - 1)) == 0;
}

/* sample_start returns the time-stamp counter if this call is timed, or 0. */
static inline uint64_t sample_start(void)
{
	return sampled() ? tsc() : 0;
}

static inline void sample_stop(uint64_t t0)
{
	if (t0)
		add_spent(SAMPLE * since(t0));
}

void mpivet_bc_in(unsigned call, const uint64_t *a, unsigned n)
{
	uint64_t t0 = sample_start();
	in(call, a, n);
	sample_stop(t0);
}

void mpivet_bc_out(unsigned call, uint64_t logref, int rc, const uint64_t *o)
{
	uint64_t t0 = sample_start();
	out(call, logref, rc, o);
	sample_stop(t0);
}
