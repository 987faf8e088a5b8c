package rma

import (
	"fmt"
	"sort"

	"mpivet/check"
)

// targetStores reports the target's own writes into the bytes a Put of a
// fence or PSCW epoch writes, found by value (layer/src/rma/values.c): at
// the closing fence or MPI_Win_wait, the target's bytes differed from what the origin sent
// (the origin checked its bytes did not change before the Put
// completed). A difference that another write to those bytes may explain
// is not reported: an operation of any origin (the target's own Puts
// included) in the same synchronisation generation (fences and
// barrier-like collectives), or in the one before or after (a next fence
// epoch's Puts may land while the target is still inside the closing
// fence). In a PSCW loop with no fence or barrier, every iteration is one
// generation: the same origin's Put of another iteration explains it too
// (fewer findings, never a false one). A Put whose target's store the
// trapping check (targetAccesses) reported already, at its line, is not
// reported again (reported: by the Put's line and the target).
func (s *scan) targetStores(reported map[[2]uint64]bool) {
	type key struct {
		origin int
		off    uint64
	}
	byPut := map[key]*access{}
	for _, a := range s.accesses {
		byPut[key{a.origin, a.c.Offset}] = a
	}
	var ranks []int
	for r := range s.procs {
		ranks = append(ranks, r)
	}
	sort.Ints(ranks)
	seen := map[[2]uint64]bool{}
	for _, r := range ranks {
		p := s.procs[r]
		for _, v := range p.RMAValues {
			a := byPut[key{v.Origin, v.Put}]
			if a == nil {
				a = s.repeats[[2]uint64{uint64(v.Origin), v.Put}] // a repeat left out (repeat.go)
			}
			if a == nil || a.target != r || !a.write || a.atomic {
				continue
			}
			cs := s.closers[[2]uint64{uint64(r), v.Fence}]
			open, closing := cs[0], cs[1]
			if closing == nil || s.explained(a, v.Off, v.Off+v.Bytes) {
				continue
			}
			id := [2]uint64{a.c.PC, uint64(r)}
			if seen[id] || reported[id] {
				continue
			}
			seen[id] = true
			locs := []check.Location{s.loc(&a.call, fmt.Sprintf("rank %d's MPI_Put, whose bytes rank %d changed", a.origin, r))}
			if open != nil {
				locs = append(locs, s.loc(open, fmt.Sprintf("rank %d's epoch opens here", r)))
			}
			locs = append(locs, s.loc(closing, "and closes here, where its bytes held other values than the Put wrote"))
			kind := "fence"
			if closing.c.Name() != "MPI_Win_fence" {
				kind = "exposure"
			}
			s.pass.Report(check.Finding{Kind: "rma-race", Message: fmt.Sprintf(
				"rank %d wrote to bytes %d-%d of its own window during the %s epoch in which %s from rank %d writes them: "+
					"when %s returned they held other values than the Put sent (a store of the target, or an MPI call of it writing there, concurrent with the remote access)",
				r, v.Off, v.Off+v.Bytes-1, kind, a.c.Name(), a.origin, closing.c.Name()), Locations: locs})
		}
	}
}

// explained reports whether a write other than a may have put other
// values in bytes [lo, hi) of a's target by the end of a's epoch.
func (s *scan) explained(a *access, lo, hi int64) bool {
	span := &access{lo: lo, hi: hi}
	for _, b := range s.accesses {
		if b == a || b.w != a.w || b.target != a.target || !b.write || b.gen < a.gen-1 || b.gen > a.gen+1 {
			continue
		}
		if b.hi <= b.lo {
			return true // bytes unknown: may be any
		}
		if l, h := overlap(span, b); l < h {
			return true
		}
	}
	return false
}
