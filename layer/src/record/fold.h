/*
 * mpivet interposition layer, bottom layer: folding repeated records
 * (fold.c). A loop of deterministic calls writes the same records in every
 * iteration; the log keeps them once, then a repeat record (KIND_REPEAT)
 * with how many more times they came. Below record.h, beside log.c: it
 * uses only log.h.
 *
 * Offsets. The log offsets the layer hands out (the entry offset of exit
 * records, the state page's LOGREF, the offsets in meta records) are
 * virtual: where the record would be in the log had nothing been folded.
 * A record written to the log is at its virtual offset minus
 * mpivet_vdelta at the time it was written; package trace counts the
 * virtual offsets again as it expands the repeats.
 */
#ifndef MPIVET_FOLD_H
#define MPIVET_FOLD_H

#include <stdint.h>

#include "log.h"

/* Folding is on (layer.conf records=fold, the default) and possible (one
 * thread calls MPI): mpivet_commit hands records to mpivet_fold_commit. */
extern int mpivet_fold_on;
/* virtual offset - log offset of the next record */
extern uint64_t mpivet_vdelta;

/* mpivet_fold_commit commits the record of nwords words at log offset
 * phys (mpivet_commit's job): folded into the open repeat, or written out
 * (after the records folded into a repetition it ends, if any), and then
 * perhaps the start of a new repeat. */
void mpivet_fold_commit(uint64_t phys, uint64_t nwords, unsigned call, unsigned kind);

/* mpivet_fold_flush writes out the records folded into an unfinished
 * repetition and closes the repeat, before a record that does not go
 * through mpivet_commit (the crash handler's, the end marker): nothing
 * when a commit is under way (a signal interrupted it). */
void mpivet_fold_flush(void);

/* mpivet_fold_entry returns the entry record (header first) of the call
 * at virtual offset voff, the one the thread is in (crash.c), folded or
 * not. */
const uint64_t *mpivet_fold_entry(uint64_t voff);

/* An iterator over the records of a log image with repeats expanded,
 * each with its virtual offset (the divergence check reads its parent
 * run's log with it; fold.c matches records against a repetition with it). */
#define MPIVET_FOLD_DEPTH 8
struct mpivet_fold_it {
	const char *base;
	uint64_t v; /* virtual offset of the next record */
	int depth;
	struct {
		uint64_t start, end, pos, reps;
	} f[MPIVET_FOLD_DEPTH];
};

/* mpivet_fold_it_init starts it at the records of base in [start, end),
 * the first at virtual offset v. */
void mpivet_fold_it_init(struct mpivet_fold_it *it, const char *base, uint64_t start, uint64_t end, uint64_t v);
/* mpivet_fold_it_next returns the next record (its header), and its
 * virtual offset in *voff; NULL at the end (a zero header ends it). */
const uint64_t *mpivet_fold_it_next(struct mpivet_fold_it *it, uint64_t *voff);

#endif
