/*
 * heap/: the program's heap blocks, and the buffers of MPI calls checked
 * against them (buffer-overrun, freed-buffer).
 *
 * alloc.c interposes the allocator (malloc, calloc, realloc, reallocarray,
 * free, posix_memalign, aligned_alloc, memalign, valloc, pvalloc; C++'s new
 * and Fortran's allocatables go through malloc) and keeps a table of the
 * live blocks: start, size and the allocation's call site. check.c, called
 * by the generated wrappers before the MPI sees a call, checks that the
 * bytes a buffer's count and datatype cover lie inside the heap block its
 * address starts in, and that the address is not in a block freed a short
 * while ago (a bounded quarantine). A free() of a block that holds the
 * buffer of a pending nonblocking operation is asked of the buffer checker
 * (buffers/, above, through the callback it registers), and so is a free()
 * or moving or shrinking realloc() of a block that holds the memory of a
 * window (MPI_Win_create, MPI_Win_attach) before MPI_Win_free or
 * MPI_Win_detach. Each finding is a
 * META_HEAP record; checks/heap reports it with the allocation's site.
 *
 * Memory that no interposed call returned (the stack, globals, mmap,
 * MPI_Alloc_mem's and MPI_Win_allocate's segments when the MPI maps them)
 * is not a block: nothing is said about it here.
 */
#ifndef MPIVET_HEAP_H
#define MPIVET_HEAP_H

#include <mpi.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

extern int mpivet_heap_on; /* the checks run: always (no option turns them off); the wrappers test it first */

/* A heap block: live (from the table) or freed (from the quarantine). */
struct mpivet_block {
	uint64_t start, size, pc; /* pc: the allocation's call site */
	uint64_t free_pc;          /* a freed block's free() call site */
};
enum { HEAP_NONE, HEAP_LIVE, HEAP_FREED };

/* mpivet_heap_find gives the block that holds address a: HEAP_LIVE,
 * HEAP_FREED (not live, in the quarantine) or HEAP_NONE. */
int mpivet_heap_find(uint64_t a, struct mpivet_block *b);

/* mpivet_heap_pending is set by the buffer checker: whether [lo, hi) holds
 * a pending operation's buffer, and which (the log offset of the call that
 * started it, and its call id). */
extern int (*mpivet_heap_pending)(uint64_t lo, uint64_t hi, uint64_t *logref, unsigned *call);

/* mpivet_heap_window is set by the buffer checker too: whether [lo, hi)
 * holds the program's memory of a window (MPI_Win_create, MPI_Win_attach)
 * not yet freed or detached, and the log offset and call id of the call
 * that gave it. mpivet_heap_windows counts such windows: while it is 0, a
 * free() asks nothing. */
extern int (*mpivet_heap_window)(uint64_t lo, uint64_t hi, uint64_t *logref, unsigned *call);
extern int mpivet_heap_windows;

/* mpivet_heap_report logs a META_HEAP record (words: api.Heap*), once per
 * call site, parameter, kind and other word (a bounded set: past it, no
 * more records). */
void mpivet_heap_report(int kind, unsigned call, int param, uint64_t site, uint64_t buf, uint64_t lo, uint64_t hi,
			const struct mpivet_block *b, uint64_t other);

/* The bytes one element of a datatype covers, as runs from the buffer
 * address in the order of its type map (runs.c): at most MPIVET_RUNS runs,
 * from at most MPIVET_VISITS basic copies; cut says the walk stopped there,
 * bad that the type cannot be mapped (a darray). */
#define MPIVET_RUNS 256
#define MPIVET_VISITS (1 << 22)
struct mpivet_runs {
	int n, cut, bad;
	int64_t visits;
	int64_t off[MPIVET_RUNS], len[MPIVET_RUNS];
};
int mpivet_heap_runs(MPI_Datatype t, struct mpivet_runs *r);

#pragma GCC visibility pop

/* The wrappers' hooks (check.c): k[i] points to parameter i of the call,
 * as for the argument checks; mpivet_heap_buf checks one buffer given by
 * value (the one-sided calls' origin and result buffers). */
void mpivet_heap_pre(unsigned call, void *const *k);
void mpivet_heap_buf(unsigned call, int param, const void *buf, int64_t count, MPI_Datatype t);

#endif
