/*
 * mpivet interposition layer, bottom layer: the recording primitives on the
 * log and the state page (log.h, log.c), shared by the recorder (recorder.c)
 * and the generated wrappers (generated/wrappers.c). Everything on the
 * per-call path is inline here. Nothing here includes or calls an upper layer: those
 * register callbacks (struct mpivet_service, mpivet_commit_hook).
 *
 * Record format (read by the Go package trace; ids and kinds come from
 * api/mpi.api and api/api.go):
 *
 *   file   = "MPIVET01" record*            (8-byte magic, then records)
 *   record = header:u64 word:u64*          (little endian, 8-byte aligned)
 *   header = size:u32 | call:u16 << 32 | kind:u8 << 48 | thread:u8 << 56
 *
 * size is the whole record in bytes. The header is stored last, with release
 * semantics, so a reader (even one reading while the rank runs, or after the
 * rank was killed) sees either a complete record or a zero header, which ends
 * the log. The log is a shared memory mapping of a sparse file: records cost a
 * few stores, and survive the process being killed.
 */
#ifndef MPIVET_RECORD_H
#define MPIVET_RECORD_H

#include <mpi.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>

#include "log.h" /* the log's and the state page's globals, the services' interface */
#include "../generated/ids.h" /* call ids (mpivet_tl_enter) */
#include "fold.h" /* repeated records folded, virtual offsets */

/* Handle values are kept as the integer value of the C handle (a pointer in
 * Open MPI, an int in MPICH), the same in C and Fortran wrappers. */
#define MPIVET_H(x) ((uint64_t)(uintptr_t)(x))
#define MPIVET_A(x) ((uint64_t)(uintptr_t)(x))
#define MPIVET_I(x) ((uint64_t)(int64_t)(x))

void mpivet_lazy_init(void);
void mpivet_post_init(void);
void mpivet_write_constants(void); /* generated */
void mpivet_record_comm(MPI_Comm c);
/* mpivet_comm_outside counts the processes of c (both groups of an
 * intercommunicator) that are not in this run's MPI_COMM_WORLD: processes
 * spawned, or met through a port or a socket, which run without the layer
 * (it leaves the environment the MPI starts them with). The layer must add
 * no collective of its own on such a communicator: they would never join. */
int mpivet_comm_outside(MPI_Comm c);
void mpivet_error(unsigned call, int rc, uint64_t pc);

/* MPIVET_HOT marks the helpers of every wrapper: inlined whatever the
 * compiler's limits on the growth of wrappers.c (every MPI function's
 * wrapper in one unit) decide, so that a poll that finds nothing pays no
 * call for them. */
#define MPIVET_HOT static inline __attribute__((always_inline))

MPIVET_HOT int mpivet_should_record(void) { return mpivet_on && !mpivet_guard; }

/* mpivet_type_combiner gives t's combiner. A datatype made by a
 * large-count constructor (MPI_Type_indexed_c ...) has large counts in its
 * envelope, of which MPI_Type_get_envelope fails (MPICH 4.0: an error the
 * default error handler makes fatal): the MPI 4.0 form is asked. */
static inline int mpivet_type_combiner(MPI_Datatype t, int *comb)
{
#if MPI_VERSION >= 4
	MPI_Count ni, na, nl, nd;
	return PMPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, comb);
#else
	int ni, na, nd;
	return PMPI_Type_get_envelope(t, &ni, &na, &nd, comb);
#endif
}

/* mpivet_type_envelope is MPI_Type_get_envelope, failing (without an
 * error) for a datatype with large counts in its contents, which
 * MPI_Type_get_contents cannot give: the layer does not look into it. */
static inline int mpivet_type_envelope(MPI_Datatype t, int *ni, int *na, int *nd, int *comb)
{
#if MPI_VERSION >= 4
	MPI_Count ci, ca, cl, cd;
	if (PMPI_Type_get_envelope_c(t, &ci, &ca, &cl, &cd, comb) != MPI_SUCCESS || cl > 0 || ci > INT_MAX || ca > INT_MAX || cd > INT_MAX)
		return MPI_ERR_TYPE;
	*ni = (int)ci, *na = (int)ca, *nd = (int)cd;
	return MPI_SUCCESS;
#else
	return PMPI_Type_get_envelope(t, ni, na, nd, comb);
#endif
}

/* mpivet_type_named tells a predefined datatype (which no call makes and
 * none may free) from a derived one, by asking the MPI. */
static inline int mpivet_type_named(MPI_Datatype t)
{
	int comb;
	return t != MPI_DATATYPE_NULL && mpivet_type_combiner(t, &comb) == MPI_SUCCESS && comb == MPI_COMBINER_NAMED;
}

/* mpivet_begin reserves a record of nwords payload words and returns where to
 * write them, or NULL when the log is full. *off receives the record's
 * (virtual) offset (fold.h; MPIVET_NOREC when dropped). */
static inline uint64_t *mpivet_begin(uint64_t nwords, uint64_t *off)
{
	uint64_t size = 8 + nwords * 8, o;
	if (mpivet_mt)
		o = __atomic_fetch_add(&mpivet_pos, size, __ATOMIC_RELAXED);
	else {
		o = mpivet_pos;
		mpivet_pos = o + size;
	}
	if (__builtin_expect(o + size > mpivet_ready, 0) && !mpivet_grow(o + size)) {
		mpivet_overflow(o);
		*off = MPIVET_NOREC;
		return NULL;
	}
	*off = o + mpivet_vdelta;
	return (uint64_t *)(mpivet_base + o + 8);
}

/* mpivet_commit commits the record mpivet_begin gave at off: its header
 * is stored, or, folded into a repetition (fold.c), it is not written. */
static inline void mpivet_commit(uint64_t off, uint64_t nwords, unsigned call, unsigned kind)
{
	uint64_t *r = (uint64_t *)(mpivet_base + off - mpivet_vdelta), pc = nwords > 0 ? r[1] : 0;
	if (mpivet_fold_on && !mpivet_mt)
		mpivet_fold_commit(off - mpivet_vdelta, nwords, call, kind);
	else
		__atomic_store_n(r, mpivet_header(nwords, call, kind), __ATOMIC_RELEASE);
	if (__builtin_expect(mpivet_commit_hook != 0, 0) && (kind == MPIVET_KIND_ENTRY || kind == MPIVET_KIND_BRIEF) && nwords > 0)
		mpivet_commit_hook(call, off, pc);
}
/* mpivet_meta appends a meta record of n words (dropped when the log is full). */
static inline void mpivet_meta(unsigned id, const uint64_t *w, uint64_t n)
{
	uint64_t off, *p = mpivet_begin(n, &off);
	if (!p)
		return;
	for (uint64_t i = 0; i < n; i++)
		p[i] = w[i];
	mpivet_commit(off, n, id, MPIVET_KIND_META);
}

/* The state page: what each thread of the rank is doing now (api.State* in
 * Go). Every wrapper updates its thread's slot; it stays in the cache, so
 * this costs a few stores. Readers see a slot change under a sequence lock:
 * odd while being written. */
#define MPIVET_STATE_INLINE (MPIVET_STATE_POLLS - MPIVET_STATE_RECORD) /* room for an inline record */
/* MPIVET_STATE_WORDS words a slot, MPIVET_STATE_SLOTS slots: one per thread
 * calling MPI; later threads share the last */


MPIVET_HOT uint64_t *mpivet_state_open(void)
{
	uint64_t *s = mpivet_slot;
	if (__builtin_expect(!s, 0))
		s = mpivet_new_slot();
	s[MPIVET_STATE_SEQ]++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return s;
}

MPIVET_HOT void mpivet_state_close(uint64_t *s)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s[MPIVET_STATE_SEQ]++;
}

/* mpivet_state_inline returns where an entry record that is not logged goes
 * (its header first), having opened the thread's slot for writing. */
MPIVET_HOT uint64_t *mpivet_state_inline(void)
{
	return &mpivet_state_open()[MPIVET_STATE_RECORD];
}

/* mpivet_state_entered marks the thread as inside a call, whose entry record
 * is in the log at logref or (MPIVET_NOREC) inline in its slot. */
MPIVET_HOT void mpivet_state_entered(uint64_t logref, int opened)
{
	uint64_t *s = opened ? mpivet_slot : mpivet_state_open();
	s[MPIVET_STATE_STATUS] = 1;
	s[MPIVET_STATE_LOGREF] = logref;
	mpivet_state_close(s);
}

static inline void mpivet_state_returned(int rc)
{
	uint64_t *s = mpivet_state_open();
	s[MPIVET_STATE_STATUS] = 2;
	s[MPIVET_STATE_RC] = (uint64_t)(int64_t)rc;
	s[MPIVET_STATE_PROGRESS]++;
	mpivet_state_close(s);
}

/* Polls (api.Call.Poll: MPI_Test, Testany, Testall, Testsome,
 * Request_get_status, Iprobe, Improbe). A program may poll a million times
 * between two messages, and a poll that finds nothing changes nothing the
 * checks follow. So a poll's entry record is written where a call that is
 * not logged keeps it (the state page shows it while the thread is inside),
 * and only a poll that did something, or failed, is appended to the log
 * when it returns: its entry record, then its exit record. One that did
 * nothing is counted in the thread's slot (MPIVET_STATE_POLLS). Its hooks
 * get MPIVET_NOREC as the entry's log offset.
 *
 * The record is kept in the thread's slot when it fits and the slot is the
 * thread's own (not MPI_THREAD_MULTIPLE, where threads past the eighth share
 * one), else in a buffer of the thread's (mpivet_poll_scratch, generated),
 * of which the slot shows what fits: a request array cut short reads as
 * empty. */
extern __thread uint64_t *mpivet_poll_rec __attribute__((tls_model("initial-exec"))); /* header, words */
uint64_t *mpivet_poll_scratch(uint64_t nwords);

/* mpivet_poll_begin returns where to write the nwords words of a poll's
 * entry record (NULL: nowhere, memory is short), having opened the
 * thread's slot for writing. */
MPIVET_HOT uint64_t *mpivet_poll_begin(uint64_t nwords)
{
	uint64_t *r = mpivet_state_inline();
	if (__builtin_expect(mpivet_mt || nwords + 1 > MPIVET_STATE_INLINE, 0))
		r = mpivet_poll_scratch(nwords);
	mpivet_poll_rec = r;
	return r ? r + 1 : NULL;
}

/* mpivet_poll_entered completes the entry record begun by mpivet_poll_begin
 * and marks the thread as inside the call. */
MPIVET_HOT void mpivet_poll_entered(unsigned call, uint64_t nwords)
{
	uint64_t *r = mpivet_poll_rec, *s = &mpivet_slot[MPIVET_STATE_RECORD];
	if (r != s) {
		uint64_t n = nwords < MPIVET_STATE_INLINE - 1 ? nwords : MPIVET_STATE_INLINE - 1;
		for (uint64_t i = 1; r && i <= n; i++)
			s[i] = r[i];
		s[0] = r ? mpivet_header(n, call, MPIVET_KIND_ENTRY) : 0;
	}
	if (r)
		r[0] = mpivet_header(nwords, call, MPIVET_KIND_ENTRY);
	mpivet_state_entered(MPIVET_NOREC, 1);
}

/* mpivet_poll_log appends the entry record of the poll the thread is in to
 * the log, and returns its offset (MPIVET_NOREC: the log is full). Records
 * the clock hooks wrote while the poll ran precede it. */
static inline uint64_t mpivet_poll_log(void)
{
	uint64_t *r = mpivet_poll_rec, off;
	if (!r || !r[0])
		return MPIVET_NOREC;
	uint64_t n = (r[0] & 0xffffffff) / 8 - 1;
	uint64_t *w = mpivet_begin(n, &off);
	if (!w)
		return MPIVET_NOREC;
	for (uint64_t i = 0; i < n; i++)
		w[i] = r[1 + i];
	mpivet_commit(off, n, (unsigned)(r[0] >> 32 & 0xffff), MPIVET_KIND_ENTRY);
	return off;
}

/* mpivet_poll_nulls reports whether the request array whose length is word
 * k of the entry record of the poll the thread is in holds only null
 * requests. */
static inline int mpivet_poll_nulls(unsigned k)
{
	const uint64_t *r = mpivet_poll_rec;
	if (!r)
		return 0;
	for (uint64_t i = 0; i < r[k]; i++)
		if (r[k + 1 + i] != MPIVET_H(MPI_REQUEST_NULL))
			return 0;
	return 1;
}

/* mpivet_state_polled marks a poll that did nothing as returned, and counts it. */
MPIVET_HOT void mpivet_state_polled(void)
{
	uint64_t *s = mpivet_state_open();
	s[MPIVET_STATE_STATUS] = 2;
	s[MPIVET_STATE_RC] = 0;
	s[MPIVET_STATE_PROGRESS]++;
	s[MPIVET_STATE_POLLS]++;
	mpivet_state_close(s);
}

/* mpivet_state_logged marks a poll that did something as returned, its
 * entry record now at logref in the log. */
static inline void mpivet_state_logged(int rc, uint64_t logref)
{
	uint64_t *s = mpivet_state_open();
	s[MPIVET_STATE_STATUS] = 2;
	s[MPIVET_STATE_LOGREF] = logref;
	s[MPIVET_STATE_RC] = (uint64_t)(int64_t)rc;
	s[MPIVET_STATE_PROGRESS]++;
	mpivet_state_close(s);
}

/* mpivet_tl_enter counts the thread inside MPI, on entry to the call
 * (before anything is recorded), and checks the thread level the program
 * got (log.h, levels.c). The main thread under MPI_THREAD_SINGLE or
 * FUNNELED, what most programs run, is not counted: any other thread's
 * call breaks the rule by itself. Others: an atomic increment, a load,
 * compares. call is a constant: the tests of it vanish. */
MPIVET_HOT void mpivet_tl_enter(unsigned call)
{
	if (mpivet_tl_depth++)
		return; /* a call made by a callback the MPI runs inside a call */
	if (__builtin_expect(!mpivet_slot, 0))
		mpivet_new_slot(); /* the thread's number, before its first record */
	if (call == MPIVET_ID_MPI_Init || call == MPIVET_ID_MPI_Init_thread)
		mpivet_tl_starting(call);
	else if (call == MPIVET_ID_MPI_Finalize)
		__atomic_or_fetch(&mpivet_tl_rule, MPIVET_TL_FINI, __ATOMIC_SEQ_CST);
	if (mpivet_tl_main && (__atomic_load_n(&mpivet_tl_rule, __ATOMIC_RELAXED) & MPIVET_TL_MAIN)) {
		mpivet_tl_counted = 0;
		return;
	}
	mpivet_tl_counted = 1;
	int n = __atomic_fetch_add(&mpivet_tl_inside, 1, __ATOMIC_SEQ_CST);
	int r = __atomic_load_n(&mpivet_tl_rule, __ATOMIC_RELAXED);
	if (__builtin_expect(r != 0, 0) &&
	    ((n > 0 && (r & (MPIVET_TL_ONE | MPIVET_TL_INIT | MPIVET_TL_FINI))) || ((r & MPIVET_TL_MAIN) && !mpivet_tl_main)))
		mpivet_tl_broken(call, n);
}

/* mpivet_tl_leave counts the thread out of MPI, when the call returns. */
MPIVET_HOT void mpivet_tl_leave(void)
{
	if (--mpivet_tl_depth == 0 && mpivet_tl_counted)
		__atomic_fetch_sub(&mpivet_tl_inside, 1, __ATOMIC_SEQ_CST);
}

/* mpivet_stamp_count adds a count of the layer's to the rank's timing file
 * (MPIVET_TIMING, timing.c) as a "NAME N" line: how often it slept waiting
 * (wait/). Nothing without MPIVET_TIMING. */
void mpivet_stamp_count(const char *name, uint64_t n);
void mpivet_write_maps(void);

static inline uint64_t mpivet_site(uint64_t pc)
{
	return __builtin_expect(mpivet_site_hook != 0, 0) ? mpivet_site_hook(pc) : pc;
}

/* The call site of a wrapper: its return address (or its Python line). */
#define MPIVET_PC() mpivet_site(MPIVET_A(__builtin_extract_return_addr(__builtin_return_address(0))))

/* Fortran 2008 bindings of some MPIs pass choice buffers as a C descriptor,
 * whose first member is the base address. */
#define MPIVET_CFI_ADDR(p) ((p) ? *(void *const *)(p) : (void *)0)

/* mpivet_library_thread notes a thread the MPI library created (crash.c:
 * a crash in it during MPI_Finalize is the library's, not the program's). */
void mpivet_library_thread(pthread_t t);
/* mpivet_library_tid, called by such a thread as it starts, notes its kernel
 * id in the state file (crash.c). */
void mpivet_library_tid(void);

#endif
