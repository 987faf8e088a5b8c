// Package rma defines the checks of one-sided communication (MPI-3.1
// chapter 11, "One-Sided Communications"): the life cycle of access and
// exposure epochs on each window (rma-epoch), and conflicting accesses to
// the same target bytes that nothing orders (rma-race).
//
// It reads the rank's log only: every window call is logged (api/mpi.api's
// rma block), with what the layer's rma service adds (the byte span of a
// communication call's datatypes, the members of a PSCW group). Each rank's
// calls are followed in order (scan.go): the epochs open on each window, the
// accesses each epoch makes and the call that completes them at the target
// (a fence, unlock, flush or complete), and the synchronisations between
// ranks. Races (race.go) are judged from a happens-before order rebuilt
// after the run with vector clocks (hb.go): fences, window creation and
// freeing, barrier-like collectives, post->start, complete->wait of PSCW
// epochs, and messages (send->completion of its receive) order ranks;
// exclusive locks serialise epochs. The order does not depend on the
// timing the run happened to have, so a race that did no harm in this run
// is still found; an interleaving of wildcard receives that
// makes one appear is found by the exploration, which checks every
// interleaving.
package rma

import (
	"mpivet/check"
)

// Check reports one-sided communication used against its epochs, and races.
var Check = &check.Check{
	Name:  "rma",
	Kinds: []string{"rma-epoch", "rma-race"},
	Doc: `one-sided communication (windows, epochs, races)

Checks the epochs of every window (rma-epoch) and the accesses made in
them (rma-race); see mpivet explain rma-epoch and rma-race.`,
	KindDocs: map[string]string{
		"rma-epoch": `one-sided communication outside its epochs

A one-sided operation (MPI_Put, MPI_Get, MPI_Accumulate, ...) is only
allowed inside an access epoch on its window: between two MPI_Win_fence
calls, between MPI_Win_lock and MPI_Win_unlock of its target (or
MPI_Win_lock_all and MPI_Win_unlock_all), or between MPI_Win_start (whose
group names its target) and MPI_Win_complete. This kind reports an
operation outside any epoch; MPI_Win_unlock, MPI_Win_unlock_all,
MPI_Win_complete, MPI_Win_wait or MPI_Win_flush without the epoch they
close or need; a lock taken twice; an epoch still open when its window is
freed, when the rank calls MPI_Finalize, or when the run hangs (an
unreleased lock, a start never completed: the other ranks wait for it);
operations a fence never completed before MPI_Win_free; ranks that call
MPI_Win_fence on a window a different number of times; and MPI_Win_start
groups that name a target whose MPI_Win_post does not name the origin (or
the reverse).`,
		"rma-race": `conflicting one-sided accesses that nothing orders

Two one-sided operations from different origins that touch overlapping
bytes of the same target window, where at least one writes (MPI_Put,
MPI_Accumulate, ...), and neither is complete before the other starts: the
result is undefined (MPI-3.1 §11.7). Operations are ordered by the fences
between them, by the unlock or flush that completes one before a
synchronisation (barrier, fence, PSCW, a message) that precedes the other, and by
exclusive locks, which serialise epochs. Concurrent accumulates with the
same predefined operation (or MPI_NO_OP, MPI_REPLACE) on the same basic
datatype are atomic and not a race; two reads are not either. The finding
names both operations' lines, the target rank and the overlapping bytes of
its window (displacement x disp_unit plus the datatype's extent). The
order comes from the program's synchronisation, not from the timing of the
run: a race that did no harm this time is found all the same.

The target's own loads and stores of its window during a fence or PSCW
exposure epoch are trapped (the first of each kind on each page of the
window in the epoch): one of bytes a Put or Accumulate of the epoch
writes, or a store into bytes a Get of the epoch reads, is a race. Windows
watched: MPI_Win_allocate, and MPI_Win_create under MPICH (Open MPI's Put
into it is a peer's process_vm_writev, which a protected page would make
fail). The target's other writes into the bytes a Put writes in the same
epoch are found by value: when its closing MPI_Win_fence or MPI_Win_wait
returns, the bytes differ from what the origin sent, and no other
operation on them explains it. Not covered: the target's accesses in
passive-target epochs, receives whose
source or tag the records do not give (MPI_ANY_TAG in a blocking receive)
as a synchronisation, and a derived target datatype of more than 32 blocks
of bytes is taken as the whole span it covers.`,
	},
	Run: run,
}

func run(pass *check.Pass) (any, error) {
	s := newScan(pass)
	for _, p := range pass.In.Run.Procs {
		if p.Rank >= 0 {
			s.rank(p)
		}
	}
	if len(s.wins) == 0 {
		return nil, nil // no window: nothing to say
	}
	for _, p := range pass.In.Run.Procs {
		if p.Rank >= 0 {
			s.messages(p)
		}
	}
	s.mismatches()
	clocks(s)
	s.races()
	s.targetStores(s.targetAccesses())
	return nil, nil
}
