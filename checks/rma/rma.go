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
// exclusive locks serialise epochs; operations of one origin are ordered
// only by what completes the first at the target (origin.go). The order
// does not depend on the timing the run happened to have, so a race that
// did no harm in this run is still found; an interleaving of wildcard
// receives that makes one appear is found by the exploration, which checks every
// interleaving.
package rma

import (
	"embed"
	"mpivet/check"
)

// The check's documentation: rma.md is its Doc, and every other
// KIND.md explains a kind (mpivet explain KIND, docs/checks.md).
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "rma")

// Check reports one-sided communication used against its epochs, and races.
var Check = &check.Check{
	Name:     "rma",
	Kinds:    []string{"rma-epoch", "rma-race"},
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Run:      run,
}

func run(pass *check.Pass) (any, error) {
	windows := false
	for _, p := range pass.In.Run.Procs {
		windows = windows || p.Windows
	}
	if !windows {
		return nil, nil // no window: nothing to say, and nothing to keep
	}
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
	s.passiveRaces()
	s.targetStores(s.targetAccesses())
	return nil, nil
}
